/* test-profiler.c: the interpreter's tracer hooks and the ETDump writer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Links the engine statically (its own registry, with a small add kernel
 * defined here) and compiles the profiler's session and writer in, so the
 * timestamps can be injected: the ETDump written for add.pte with a fake
 * clock must equal the committed golden file byte for byte.  Every ETDump
 * (ours and upstream's) is read back with the engine's bounds-checked
 * FlatBuffer reader.
 *
 * UPDATE_GOLDEN=1 rewrites the golden file instead of comparing.
 */
#include "engine.h"
#include "common-util.h"
#include "flatbuffer.h"
#include "profiler-private.h"

#include <string.h>

#define GOLDEN "etdump/add.etdp"

static EtError
test_add_kernel (EtKernelContext *context, EtValue **args, uint32_t n_args)
{
  const EtTensor *a, *b;
  EtTensor *out;

  if (n_args != 5 || args[0]->tag != ET_VALUE_TENSOR || args[1]->tag != ET_VALUE_TENSOR ||
      args[4]->tag != ET_VALUE_TENSOR)
    return et_error_context_fail (et_kernel_context_error (context), ET_ERROR_INVALID_ARGUMENT, "bad arguments");
  a = args[0]->u.tensor;
  b = args[1]->u.tensor;
  out = args[4]->u.tensor;
  for (int64_t i = 0; i < out->numel; i++)
    ((float *) out->data)[i] = ((const float *) a->data)[i] + ((const float *) b->data)[i];
  return ET_OK;
}

static void
register_kernels (void)
{
  static gsize done;
  static const EtKernel kernels[] = { { "aten::add.out", test_add_kernel, NULL } };

  if (g_once_init_enter (&done))
    {
      g_assert_cmpint (et_registry_add_kernels (et_registry_get_default (), kernels, 1, NULL), ==, ET_OK);
      g_once_init_leave (&done, 1);
    }
}

/* The fake clock: 1000 ns per reading, from 1 000 000. */
static guint64
fake_clock (gpointer user_data)
{
  guint64 *now = user_data;
  *now += 1000;
  return *now;
}

/* A tracer that counts callbacks. */
typedef struct
{
  guint load_begin, load_end, execute_begin, execute_end, begin, end, outputs;
  guint last_instruction;
  char last_name[64];
} Counts;

static void
c_load_begin (void *d, const char *m)
{
  ((Counts *) d)->load_begin++;
}
static void
c_load_end (void *d, const char *m, EtError r)
{
  ((Counts *) d)->load_end++;
}
static void
c_execute_begin (void *d, const char *m)
{
  ((Counts *) d)->execute_begin++;
}
static void
c_execute_end (void *d, const char *m, EtError r)
{
  ((Counts *) d)->execute_end++;
}
static void
c_begin (void *d, uint32_t c, uint32_t i, const char *n)
{
  ((Counts *) d)->begin++;
}
static void
c_end (void *d, uint32_t c, uint32_t i, const char *n)
{
  Counts *counts = d;
  counts->end++;
  counts->last_instruction = i;
  g_strlcpy (counts->last_name, n, sizeof counts->last_name);
}
static void
c_output (void *d, uint32_t c, uint32_t i, const EtValue *value)
{
  g_assert_cmpint (value->tag, ==, ET_VALUE_TENSOR);
  g_assert_cmpfloat (((const float *) value->u.tensor->data)[0], ==, 5.0f);
  ((Counts *) d)->outputs++;
}

static EtProgram *
load_add (void)
{
  g_autoptr (GBytes) bytes = read_file (TEST_UPSTREAM_DIR, "add.pte");
  g_autoptr (GError) error = NULL;
  EtProgram *program = _et_program_load (bytes, NULL, 0, &error);

  g_assert_no_error (error);
  return program;
}

static void
set_inputs (EtMethod *method)
{
  g_autoptr (GError) error = NULL;
  const int64_t sizes[] = { 1 };
  const float two = 2.0f, three = 3.0f;

  g_assert_true (_et_method_set_input_tensor (method, 0, ET_SCALAR_FLOAT, 1, sizes, &two, 4, &error));
  g_assert_true (_et_method_set_input_tensor (method, 1, ET_SCALAR_FLOAT, 1, sizes, &three, 4, &error));
  g_assert_no_error (error);
}

static void
test_hooks (void)
{
  g_autoptr (GError) error = NULL;
  Counts counts = { 0 };
  const EtEventTracer tracer = {
    .abi_version = ET_PLUGIN_ABI_VERSION,
    .user_data = &counts,
    .method_load_begin = c_load_begin,
    .method_load_end = c_load_end,
    .execute_begin = c_execute_begin,
    .execute_end = c_execute_end,
    .instruction_begin = c_begin,
    .instruction_end = c_end,
    .intermediate_output = c_output,
  };
  EtProgram *program;
  EtMethod *method;

  register_kernels ();
  program = load_add ();
  method = _et_method_load_traced (program, "forward", &tracer, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (counts.load_begin, ==, 1);
  g_assert_cmpuint (counts.load_end, ==, 1);
  set_inputs (method);
  g_assert_true (_et_method_execute (method, NULL, &error));
  g_assert_cmpuint (counts.execute_begin, ==, 1);
  g_assert_cmpuint (counts.execute_end, ==, 1);
  g_assert_cmpuint (counts.begin, ==, 1);
  g_assert_cmpuint (counts.end, ==, 1);
  g_assert_cmpuint (counts.outputs, ==, 1);
  g_assert_cmpuint (counts.last_instruction, ==, 0);
  g_assert_cmpstr (counts.last_name, ==, "aten::add.out");

  /* Without a tracer nothing is called. */
  _et_method_set_tracer (method, NULL);
  g_assert_true (_et_method_execute (method, NULL, &error));
  g_assert_cmpuint (counts.end, ==, 1);
  _et_method_free (method);
  _et_program_unref (program);
}

/* What the reader finds in an ETDump, for checks. */
typedef struct
{
  guint n_runs;
  guint n_events;
  guint n_profile;
  GPtrArray *names; /* "run/name/chain/instruction" */
} Summary;

static gboolean
read_etdump (const guint8 *data, gsize size, Summary *summary, GError **error)
{
  EtFbTable root;
  EtFbVector runs;
  EtFb fb;

  memset (summary, 0, sizeof *summary);
  summary->names = g_ptr_array_new_with_free_func (g_free);
  if (size < 12 || _et_le32 (data) != size - 4 || memcmp (data + 8, "ED00", 4) != 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "no size prefix or ED00 identifier");
      return FALSE;
    }
  /* Size-prefixed: the buffer proper starts after the prefix. */
  _et_fb_init (&fb, data + 4, size - 4, "ETDump", ET_ERROR_INVALID_PROGRAM);
  root = _et_fb_root (&fb, 0, "ETDump");
  g_assert_cmpuint (_et_fb_u32 (&fb, root, 0, 0), ==, 0);
  runs = _et_fb_vector (&fb, root, 1, 4, "ETDump.run_data");
  summary->n_runs = runs.length;
  for (guint32 r = 0; r < runs.length && _et_fb_ok (&fb); r++)
    {
      EtFbTable run = _et_fb_vector_table (&fb, runs, r, "RunData");
      const char *run_name = _et_fb_string (&fb, run, 0, NULL, "RunData.name");
      EtFbVector events = _et_fb_vector (&fb, run, 3, 4, "RunData.events");

      for (guint32 e = 0; e < events.length && _et_fb_ok (&fb); e++)
        {
          EtFbTable event = _et_fb_vector_table (&fb, events, e, "Event");
          EtFbTable profile = _et_fb_table (&fb, event, 0, "Event.profile_event");

          summary->n_events++;
          if (profile.present)
            {
              const char *name = _et_fb_string (&fb, profile, 0, NULL, "ProfileEvent.name");
              gint32 chain = _et_fb_i32 (&fb, profile, 1, 0);
              gint32 instruction = _et_fb_i32 (&fb, profile, 2, -1);
              guint64 start = _et_fb_u64 (&fb, profile, 6, 0), end = _et_fb_u64 (&fb, profile, 7, 0);

              summary->n_profile++;
              if (name != NULL && !g_utf8_validate (name, -1, NULL))
                _et_fb_fail (&fb, ET_ERROR_INVALID_PROGRAM, "event name is not UTF-8");
              g_ptr_array_add (summary->names,
                               g_strdup_printf ("%s/%s/%d/%d/%" G_GUINT64_FORMAT, run_name != NULL ? run_name : "",
                                                name != NULL ? name : "", chain, instruction,
                                                end >= start ? end - start : 0));
            }
        }
    }
  return _et_fb_take_error (&fb, error);
}

static void
summary_clear (Summary *summary)
{
  g_clear_pointer (&summary->names, g_ptr_array_unref);
}

static void
test_golden (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *written = NULL;
  g_autoptr (GBytes) golden = NULL;
  guint64 now = 1000000;
  EtpSession *session = _etp_session_new ();
  EtProgram *program;
  EtMethod *method;
  Summary summary;
  gsize size;
  static const char *const expected[] = {
    "Default/Method::load/-1/0/1000", "Execute/aten::add.out/0/0/1000",    "Execute/Method::execute/-1/0/3000",
    "Execute/aten::add.out/0/0/1000", "Execute/Method::execute/-1/0/3000",
  };

  register_kernels ();
  _etp_session_set_clock (session, fake_clock, &now);
  program = load_add ();
  method = _et_method_load_traced (program, "forward", _etp_session_tracer (session), &error);
  g_assert_no_error (error);
  set_inputs (method);
  for (int i = 0; i < 2; i++)
    {
      g_assert_true (_et_method_execute (method, NULL, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (_etp_session_n_events (session), ==, 5);
  written = _etp_write_etdump (session, &size);

  g_assert_true (read_etdump (written, size, &summary, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (summary.n_runs, ==, 3);
  g_assert_cmpuint (summary.n_profile, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (g_ptr_array_index (summary.names, i), ==, expected[i]);
  summary_clear (&summary);

  if (g_getenv ("UPDATE_GOLDEN") != NULL)
    {
      g_autofree char *path = g_build_filename (TEST_MODELS_DIR, GOLDEN, NULL);
      g_assert_true (g_file_set_contents (path, (const char *) written, (gssize) size, &error));
      g_test_message ("wrote %s", path);
    }
  golden = read_file (TEST_MODELS_DIR, GOLDEN);
  g_assert_cmpmem (written, size, g_bytes_get_data (golden, NULL), g_bytes_get_size (golden));

  /* Clearing keeps the load, and the next execution is run 1 again. */
  _etp_session_clear (session);
  g_assert_cmpuint (_etp_session_n_events (session), ==, 1);
  g_assert_true (_et_method_execute (method, NULL, &error));
  {
    EtEventRecord record;
    g_assert_true (_etp_session_get_event (session, 1, &record));
    g_assert_cmpstr (record.name, ==, "aten::add.out");
    g_assert_cmpint (record.instruction_index, ==, 0);
    g_assert_cmpuint (record.run_index, ==, 1);
    g_assert_cmpuint (record.duration_ns, ==, 1000);
    g_assert_true (_etp_session_get_event (session, 2, &record));
    g_assert_cmpint (record.instruction_index, ==, -1);
    g_assert_false (_etp_session_get_event (session, 3, &record));
  }
  _et_method_free (method);
  _et_program_unref (program);
  _etp_session_free (session);
}

static void
test_upstream (void)
{
  g_autoptr (GBytes) bytes = read_file (TEST_UPSTREAM_DIR, "etdump.etdp");
  g_autoptr (GError) error = NULL;
  Summary summary;
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);

  g_assert_true (read_etdump (data, size, &summary, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (summary.n_runs, >=, 1);
  g_assert_cmpuint (summary.n_profile, >, 0);
  g_test_message ("upstream etdump: %u runs, %u events, first %s", summary.n_runs, summary.n_events,
                  (const char *) g_ptr_array_index (summary.names, 0));
  summary_clear (&summary);
}

/* Cut or damaged ETDumps are reported, never read out of bounds. */
static void
test_hostile (void)
{
  g_autoptr (GBytes) bytes = read_file (TEST_UPSTREAM_DIR, "etdump.etdp");
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  g_autofree guint8 *copy = g_memdup2 (data, size);

  for (gsize cut = 0; cut < size; cut += 7)
    {
      g_autofree guint8 *part = g_memdup2 (data, cut);
      Summary summary;
      g_autoptr (GError) error = NULL;
      g_assert_false (read_etdump (part, cut, &summary, &error));
      summary_clear (&summary);
    }
  for (gsize i = 12; i < size; i++)
    {
      Summary summary;
      g_autoptr (GError) error = NULL;
      copy[i] ^= 0xa5;
      read_etdump (copy, size, &summary, &error);
      summary_clear (&summary);
      copy[i] = data[i];
    }
}

/* A stand-in for the XNNPACK backend: accepts the payload, does nothing. */
static EtError
fake_init (void *user_data, EtBackendInitContext *context, const void *processed, size_t size,
           const EtCompileSpec *specs, size_t n_specs, void **handle)
{
  *handle = user_data;
  return ET_OK;
}

static EtError
fake_execute (void *user_data, EtBackendExecuteContext *context, void *handle, EtValue **args, uint32_t n_args)
{
  return ET_OK;
}

static const EtBackend fake_backend = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .id = "XnnpackBackend",
  .init = fake_init,
  .execute = fake_execute,
};

/* A DelegateCall gives an instruction event and, inside it, one named
 * after the backend; the ETDump carries the backend id. */
static void
test_delegate (void)
{
  g_autoptr (GBytes) bytes = read_file (TEST_MODELS_DIR, "xnnpack_add/xnnpack_add.pte");
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *written = NULL;
  guint64 now = 0;
  EtpSession *session = _etp_session_new ();
  const EtMethodMeta *meta;
  EtEventRecord record;
  EtProgram *program;
  EtMethod *method;
  float zeros[64] = { 0 };
  gboolean found = FALSE;
  Summary summary;
  gsize size;

  g_assert_cmpint (et_registry_add_backend (et_registry_get_default (), &fake_backend, NULL), ==, ET_OK);
  _etp_session_set_clock (session, fake_clock, &now);
  program = _et_program_load (bytes, NULL, 0, &error);
  g_assert_no_error (error);
  method = _et_method_load_traced (program, "forward", _etp_session_tracer (session), &error);
  g_assert_no_error (error);
  meta = _et_method_meta (method);
  for (guint i = 0; i < meta->n_inputs; i++)
    g_assert_true (_et_method_set_input_tensor (method, i, ET_SCALAR_FLOAT, meta->inputs[i].ndim, meta->inputs[i].sizes,
                                                zeros, meta->inputs[i].nbytes, &error));
  g_assert_true (_et_method_execute (method, NULL, &error));
  g_assert_no_error (error);

  for (gsize i = 0; _etp_session_get_event (session, i, &record); i++)
    if (record.kind == ET_EVENT_DELEGATE)
      {
        EtEventRecord outer;
        found = TRUE;
        g_assert_cmpstr (record.name, ==, "XnnpackBackend");
        g_assert_cmpstr (record.delegate, ==, "XnnpackBackend");
        g_assert_cmpint (record.instruction_index, >=, 0);
        /* Its instruction ends right after it. */
        g_assert_true (_etp_session_get_event (session, i + 1, &outer));
        g_assert_cmpstr (outer.name, ==, "DELEGATE_CALL");
        g_assert_cmpint (outer.instruction_index, ==, record.instruction_index);
        g_assert_cmpuint (outer.start_ns, <, record.start_ns);
        g_assert_cmpuint (outer.start_ns + outer.duration_ns, >, record.start_ns + record.duration_ns);
      }
  g_assert_true (found);

  written = _etp_write_etdump (session, &size);
  g_assert_true (read_etdump (written, size, &summary, &error));
  g_assert_no_error (error);
  found = FALSE;
  for (guint i = 0; i < summary.names->len; i++)
    found |= g_str_has_prefix (g_ptr_array_index (summary.names, i), "Execute/XnnpackBackend/");
  g_assert_true (found);
  summary_clear (&summary);
  _et_method_free (method);
  _et_program_unref (program);
  _etp_session_free (session);
}

/* Kernel outputs as debug events: metadata in the ETDump, bytes in the
 * debug buffer at 64-byte aligned offsets. */
static void
test_debug_outputs (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *written = NULL;
  EtpSession *session = _etp_session_new ();
  const EtpDebugEvent *debug;
  const guint8 *buffer;
  EtProgram *program;
  EtMethod *method;
  Summary summary;
  float value;
  gsize size, buffer_size;

  register_kernels ();
  _etp_session_set_debug_outputs (session, TRUE);
  program = load_add ();
  method = _et_method_load_traced (program, "forward", _etp_session_tracer (session), &error);
  g_assert_no_error (error);
  set_inputs (method);
  for (int i = 0; i < 2; i++)
    g_assert_true (_et_method_execute (method, NULL, &error));
  g_assert_cmpuint (_etp_session_n_debug_events (session), ==, 2);
  debug = _etp_session_debug_event (session, 1);
  g_assert_cmpuint (debug->run, ==, 2);
  g_assert_cmpint (debug->instruction, ==, 0);
  g_assert_cmpint (debug->scalar_type, ==, ET_SCALAR_FLOAT);
  g_assert_cmpuint (debug->ndim, ==, 1);
  g_assert_cmpint (debug->offset, ==, 64);
  buffer = _etp_session_debug_buffer (session, &buffer_size);
  g_assert_cmpuint (buffer_size, ==, 68);
  memcpy (&value, buffer + 64, 4);
  g_assert_cmpfloat (value, ==, 5.0f);

  written = _etp_write_etdump (session, &size);
  g_assert_true (read_etdump (written, size, &summary, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (summary.n_events, ==, 7); /* 5 timings, 2 outputs */
  g_assert_cmpuint (summary.n_profile, ==, 5);
  summary_clear (&summary);
  _etp_session_clear (session);
  g_assert_cmpuint (_etp_session_n_debug_events (session), ==, 0);
  _et_method_free (method);
  _et_program_unref (program);
  _etp_session_free (session);
}

/* The ABI structs keep their layout (LP64): a change needs ET_PLUGIN_ABI_VERSION bumped. */
static void
test_abi (void)
{
  if (sizeof (void *) != 8)
    {
      g_test_skip ("layout recorded for LP64");
      return;
    }
  g_assert_cmpuint (sizeof (EtEventTracer), ==, 120);
  g_assert_cmpuint (G_STRUCT_OFFSET (EtEventTracer, intermediate_output), ==, 80);
  g_assert_cmpuint (sizeof (EtProfiler), ==, 120);
  g_assert_cmpuint (G_STRUCT_OFFSET (EtProfiler, write_debug_buffer), ==, 80);
  g_assert_cmpuint (sizeof (EtEventRecord), ==, 64);
  g_assert_cmpuint (ET_PLUGIN_ABI_VERSION, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/profiler/abi", test_abi);
  g_test_add_func ("/profiler/hooks", test_hooks);
  g_test_add_func ("/profiler/etdump/golden", test_golden);
  g_test_add_func ("/profiler/etdump/upstream", test_upstream);
  g_test_add_func ("/profiler/etdump/hostile", test_hostile);
  g_test_add_func ("/profiler/delegate", test_delegate);
  g_test_add_func ("/profiler/debug-outputs", test_debug_outputs);
  return g_test_run ();
}
