/* test-loader.c: the engine's loader on real fixtures and on hostile files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Links the engine statically, so it has its own registry: kernels used
 * here are small ones defined in this file.
 */
#include "engine.h"
#include "method-private.h"

#include <glib/gstdio.h>
#include <string.h>

#include "common-util.h"
#include "executorch-error.h"

static GBytes *
model (const char *name)
{
  return read_file (TEST_MODELS_DIR, name);
}

/* Loads @bytes and every method in it; never crashes on any input. */
static gboolean
load_everything (GBytes *bytes, GBytes *external, GError **error)
{
  GBytes *ext[1] = { external };
  EtProgram *program = _et_program_load (bytes, ext, external != NULL ? 1 : 0, error);
  gboolean ok = program != NULL;

  for (guint i = 0; ok && i < _et_program_n_methods (program); i++)
    {
      EtMethod *method = _et_method_load (program, _et_program_method_name (program, i), error);
      ok = method != NULL;
      _et_method_free (method);
    }
  _et_program_unref (program);
  return ok;
}

static EtError
test_add_kernel (EtKernelContext *context, EtValue **args, uint32_t n_args)
{
  EtTensor *a, *b, *out;
  double alpha;

  if (n_args != 5 || args[0]->tag != ET_VALUE_TENSOR || args[1]->tag != ET_VALUE_TENSOR ||
      args[3]->tag != ET_VALUE_TENSOR || !et_value_to_double (args[2], &alpha))
    return et_error_context_fail (et_kernel_context_error (context), ET_ERROR_INVALID_ARGUMENT, "bad arguments");
  a = args[0]->u.tensor;
  b = args[1]->u.tensor;
  out = args[3]->u.tensor;
  if (a->numel != b->numel || et_tensor_resize (out, a->ndim, a->sizes) != ET_OK)
    return et_error_context_fail (et_kernel_context_error (context), ET_ERROR_INVALID_ARGUMENT, "shape mismatch");
  for (int64_t i = 0; i < a->numel; i++)
    ((float *) out->data)[i] = ((float *) a->data)[i] + (float) alpha * ((float *) b->data)[i];
  return ET_OK;
}

static void
register_test_kernels (void)
{
  static gsize done;
  static const EtKernel kernels[] = { { "aten::add.out", test_add_kernel, NULL } };

  if (g_once_init_enter (&done))
    {
      g_assert_cmpint (et_registry_add_kernels (et_registry_get_default (), kernels, 1, NULL), ==, ET_OK);
      g_once_init_leave (&done, 1);
    }
}

static void
test_fixture_metadata (void)
{
  g_autoptr (GBytes) bytes = model ("two_methods/two_methods.pte");
  g_autoptr (GError) error = NULL;
  EtProgram *program = _et_program_load (bytes, NULL, 0, &error);
  const EtMethodMeta *meta;

  g_assert_no_error (error);
  g_assert_cmpuint (_et_program_n_methods (program), ==, 2);
  meta = _et_program_method_meta (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (meta->n_inputs, ==, 1);
  g_assert_cmpuint (meta->inputs[0].tag, ==, ET_VALUE_TENSOR);
  g_assert_cmpint (meta->inputs[0].scalar_type, ==, ET_SCALAR_FLOAT);
  g_assert_true (meta->inputs[0].memory_planned);
  g_assert_cmpuint (meta->n_buffers, >=, 1);
  g_assert_true (g_strv_contains ((const char *const *) meta->operators, "aten::relu.out"));
  g_assert_null (_et_program_method_meta (program, "nope", &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_NOT_FOUND);
  _et_program_unref (program);
}

static void
test_dynamic_metadata (void)
{
  g_autoptr (GBytes) bytes = model ("dynamic/dynamic.pte");
  g_autoptr (GError) error = NULL;
  EtProgram *program = _et_program_load (bytes, NULL, 0, &error);
  const EtMethodMeta *meta;

  g_assert_no_error (error);
  meta = _et_program_method_meta (program, "forward", &error);
  g_assert_cmpuint (meta->inputs[0].shape_dynamism, ==, ET_SHAPE_DYNAMIC_BOUND);
  g_assert_cmpint (meta->inputs[0].sizes[0], ==, 8);
  _et_program_unref (program);
}

static void
test_constant_methods (void)
{
  g_autoptr (GBytes) bytes = model ("constant_methods/constant_methods.pte");
  g_autoptr (GError) error = NULL;
  EtProgram *program = _et_program_load (bytes, NULL, 0, &error);
  EtMethod *method;

  g_assert_no_error (error);
  method = _et_method_load (program, "get_int", &error);
  g_assert_no_error (error);
  g_assert_true (_et_method_execute (method, NULL, &error));
  g_assert_cmpuint (_et_method_output (method, 0)->tag, ==, ET_VALUE_INT);
  g_assert_cmpint (_et_method_output (method, 0)->u.int_value, ==, 42);
  _et_method_free (method);
  _et_program_unref (program);
}

/* The upstream add.pte, run with this file's kernel: out = a + b. */
static void
test_run_upstream_add (void)
{
  g_autoptr (GBytes) bytes = read_file (TEST_UPSTREAM_DIR, "add.pte");
  g_autoptr (GError) error = NULL;
  EtProgram *program;
  EtMethod *method;
  float a = 1.5f, b = 2.25f;
  int64_t size = 1;
  const EtValue *out;

  register_test_kernels ();
  program = _et_program_load (bytes, NULL, 0, &error);
  g_assert_no_error (error);
  method = _et_method_load (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_false (_et_method_execute (method, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_true (_et_method_set_input_tensor (method, 0, ET_SCALAR_FLOAT, 1, &size, &a, 4, &error));
  g_assert_true (_et_method_set_input_tensor (method, 1, ET_SCALAR_FLOAT, 1, &size, &b, 4, &error));
  g_assert_false (_et_method_set_input_tensor (method, 1, ET_SCALAR_LONG, 1, &size, &b, 8, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_true (_et_method_execute (method, NULL, &error));
  g_assert_no_error (error);
  out = _et_method_output (method, 0);
  g_assert_cmpuint (out->tag, ==, ET_VALUE_TENSOR);
  g_assert_cmpfloat (((float *) out->u.tensor->data)[0], ==, a + b);
  _et_method_free (method);
  _et_program_unref (program);
}

static void
test_legacy_constant_buffer (void)
{
  g_autoptr (GBytes) bytes = read_file (TEST_UPSTREAM_DIR, "ModuleLinear-no-constant-segment.pte");
  g_autoptr (GError) error = NULL;
  EtProgram *program = _et_program_load (bytes, NULL, 0, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (_et_program_n_methods (program), >=, 1);
  _et_program_unref (program);
}

/* The bundled program embeds a .pte with the old 24-byte extended header. */
static void
test_header_length_24 (void)
{
  g_autoptr (GBytes) bundle = read_file (TEST_UPSTREAM_DIR, "bundled_program.bpte");
  g_autoptr (GBytes) inner = NULL;
  g_autoptr (GError) error = NULL;
  gsize size;
  const guint8 *data = g_bytes_get_data (bundle, &size);
  EtProgram *program;
  guint32 length;

  /* The program payload sits 32-aligned; find its identifier. */
  for (gsize offset = 0; offset + 12 < size; offset += 4)
    if (memcmp (data + offset + 4, "ET12", 4) == 0 && memcmp (data + offset + 8, "eh00", 4) == 0)
      {
        memcpy (&length, data + offset - 4, 4);
        inner = g_bytes_new (data + offset, GUINT32_FROM_LE (length));
        break;
      }
  g_assert_nonnull (inner);
  g_assert_cmpuint (((const guint8 *) g_bytes_get_data (inner, NULL))[12], ==, 24);
  program = _et_program_load (inner, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (_et_program_n_methods (program), >=, 1);
  _et_program_unref (program);
}

static void
test_external_data (void)
{
  g_autoptr (GBytes) bytes = model ("mlp_external/mlp_external.pte");
  g_autoptr (GBytes) ptd = model ("mlp_external/_default_external_constant.ptd");
  g_autoptr (GError) error = NULL;

  /* Without the .ptd the weights are missing, named in the error. */
  g_assert_false (load_everything (bytes, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "fc1."));
  g_clear_error (&error);
  load_everything (bytes, ptd, &error);
  /* With it, loading gets as far as the (unregistered) kernels. */
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_OPERATOR_MISSING);
}

static void
test_external_data_duplicate_keys (void)
{
  g_autoptr (GBytes) bytes = model ("mlp_external/mlp_external.pte");
  g_autoptr (GBytes) ptd = model ("mlp_external/_default_external_constant.ptd");
  GBytes *twice[2] = { ptd, ptd };
  g_autoptr (GError) error = NULL;

  g_assert_null (_et_program_load (bytes, twice, 2, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "fc1."));
}

static EtError
test_nop_kernel (EtKernelContext *context, EtValue **args, uint32_t n_args)
{
  (void) context;
  (void) args;
  (void) n_args;
  return ET_OK;
}

static EtError
test_replaced_kernel (EtKernelContext *context, EtValue **args, uint32_t n_args)
{
  (void) context;
  (void) args;
  (void) n_args;
  return ET_OK;
}

static const EtKernel replaced_permute = { "aten::permute_copy.out", test_replaced_kernel, NULL };

typedef struct
{
  guint calls;
  guint replaced;
  GPtrArray *pinned; /* argument values the graph called pinned */
  GPtrArray *permute_outs;
} RewriteSeen;

/* Replaces every permute's kernel and notes what the graph showed. */
static void
test_rewrite (void *user_data, EtMethodGraph *graph)
{
  RewriteSeen *seen = user_data;
  uint32_t n = et_method_graph_n_instructions (graph), n_args;

  seen->calls++;
  g_assert_null (et_method_graph_kernel (graph, n));
  g_assert_null (et_method_graph_args (graph, n, &n_args));
  g_assert_cmpuint (n_args, ==, 0);
  g_assert_cmpint (et_method_graph_set_kernel (graph, n, &replaced_permute), ==, ET_ERROR_INVALID_ARGUMENT);
  for (uint32_t i = 0; i < n; i++)
    {
      const EtKernel *kernel = et_method_graph_kernel (graph, i);
      EtValue **args = et_method_graph_args (graph, i, &n_args);

      for (uint32_t a = 0; a < n_args; a++)
        if (et_method_graph_value_is_pinned (graph, args[a]))
          g_ptr_array_add (seen->pinned, args[a]);
      if (kernel == NULL || strcmp (kernel->name, "aten::permute_copy.out") != 0)
        continue;
      g_assert_cmpuint (n_args, ==, 4);
      g_ptr_array_add (seen->permute_outs, args[2]);
      g_assert_cmpint (et_method_graph_set_kernel (graph, i, &replaced_permute), ==, ET_OK);
      g_assert_true (et_method_graph_kernel (graph, i) == &replaced_permute);
      seen->replaced++;
    }
}

static RewriteSeen rewrite_seen;

static const EtMethodRewrite test_rewrite_desc = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "test:replace-permutes",
  .user_data = &rewrite_seen,
  .rewrite = test_rewrite,
};

/* The engine hands every loaded method to the registered rewrites once,
 * and their kernel replacements are what the method's instructions call;
 * method inputs and outputs are pinned, a permute's output is not. */
static void
test_rewrite_applied (void)
{
  static const EtKernel stubs[] = {
    { "aten::permute_copy.out", test_nop_kernel, NULL },
    { "aten::addmm.out", test_nop_kernel, NULL },
    { "aten::mm.out", test_nop_kernel, NULL },
    { "aten::relu.out", test_nop_kernel, NULL },
  };
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  EtErrorContext *context;
  EtProgram *program;
  EtMethod *method;
  guint replaced = 0;

  if (!g_test_subprocess ())
    {
      /* In a child: the stubs would hide the missing-operator cases here. */
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }
  rewrite_seen.pinned = g_ptr_array_new ();
  rewrite_seen.permute_outs = g_ptr_array_new ();
  context = et_error_context_new ();
  g_assert_cmpint (et_registry_add_kernels (et_registry_get_default (), stubs, G_N_ELEMENTS (stubs), context), ==,
                   ET_OK);
  g_assert_cmpint (et_registry_add_rewrite (et_registry_get_default (), &test_rewrite_desc, context), ==, ET_OK);
  et_error_context_free (context);

  bytes = model ("mlp/mlp.pte");
  program = _et_program_load (bytes, NULL, 0, &error);
  g_assert_no_error (error);
  method = _et_method_load (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rewrite_seen.calls, ==, 1);
  g_assert_cmpuint (rewrite_seen.replaced, ==, 2);
  g_assert_cmpuint (method->n_rewritten, ==, 2);
  for (guint c = 0; c < method->n_chains; c++)
    for (guint pc = 0; pc < method->chains[c].n_instructions; pc++)
      {
        const Instruction *ins = &method->chains[c].instructions[pc];

        g_assert_true (method->kernels[ins->a]->func != test_nop_kernel ||
                       strcmp (method->kernels[ins->a]->name, "aten::permute_copy.out") != 0);
        replaced += method->kernels[ins->a] == &replaced_permute;
      }
  g_assert_cmpuint (replaced, ==, 2);
  /* Both replacements share one kernel slot past the program's operators. */
  g_assert_true (method->kernels[method->n_kernels - 1] == &replaced_permute);
  g_assert_true (method->kernels[method->n_kernels - 2] != &replaced_permute);
  g_assert_true (g_ptr_array_find (rewrite_seen.pinned, &method->values[method->input_indices[0]], NULL));
  g_assert_true (g_ptr_array_find (rewrite_seen.pinned, &method->values[method->output_indices[0]], NULL));
  for (guint i = 0; i < rewrite_seen.permute_outs->len; i++)
    g_assert_false (g_ptr_array_find (rewrite_seen.pinned, rewrite_seen.permute_outs->pdata[i], NULL));
  _et_method_free (method);

  /* Once per load. */
  method = _et_method_load (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rewrite_seen.calls, ==, 2);
  _et_method_free (method);
  _et_program_unref (program);
  g_ptr_array_unref (rewrite_seen.pinned);
  g_ptr_array_unref (rewrite_seen.permute_outs);
}

static void
test_missing_operator (void)
{
  g_autoptr (GBytes) bytes = model ("mlp/mlp.pte");
  g_autoptr (GError) error = NULL;

  g_assert_false (load_everything (bytes, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_OPERATOR_MISSING);
  g_assert_nonnull (strstr (error->message, "aten::addmm.out"));
  /* No kernel plug-in is registered here: its package is the hint. */
  g_assert_true (g_str_has_suffix (error->message, "(install libexecutorch-kernels0)"));
}

static bool
register_nothing (EtRegistry *registry, EtErrorContext *error)
{
  return true;
}

/* A kernel library that is loaded but lacks the operators: nothing to
 * install, and the message says so. */
static void
test_missing_operator_plugin_loaded (void)
{
  static const EtPluginDesc empty_kernels = {
    .abi_version = ET_PLUGIN_ABI_VERSION,
    .name = "kernels",
    .package = "libexecutorch-kernels0",
    .kind = ET_PLUGIN_KERNELS,
    .init = register_nothing,
  };

  if (g_test_subprocess ())
    {
      g_autoptr (GBytes) bytes = model ("mlp/mlp.pte");
      g_autoptr (GError) error = NULL;

      g_assert_cmpint (et_registry_add_plugin (&empty_kernels, NULL), ==, ET_OK);
      g_assert_false (load_everything (bytes, NULL, &error));
      g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_OPERATOR_MISSING);
      g_assert_true (g_str_has_suffix (error->message, "aten::relu.out (no installed library provides them)"));
      g_assert_null (strstr (error->message, "(install"));
      return;
    }
  /* In a child: the registry keeps the plug-in for the life of the process. */
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_missing_backend (void)
{
  g_autoptr (GBytes) bytes = model ("xnnpack_add/xnnpack_add.pte");
  g_autoptr (GError) error = NULL;

  g_assert_false (load_everything (bytes, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "XnnpackBackend"));
  g_assert_nonnull (strstr (error->message, "(install libexecutorch-xnnpack0)"));
}

static void
remove_folder (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_remove (path);
    }
  g_rmdir (dir);
}

static void
write_part (const char *dir, const char *name, const char *contents, gssize length)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;

  if (!g_file_set_contents (path, contents, length, &error))
    g_error ("%s", error->message);
}

/* The install hint comes from the part catalogue (EXECUTORCH_PARTS_PATH),
 * not from a table in the engine: a made-up part is named. */
static void
test_hint_from_catalogue (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = g_dir_make_tmp ("test-loader-parts-XXXXXX", NULL);
      g_autoptr (GBytes) mlp = model ("mlp/mlp.pte");
      g_autoptr (GBytes) xnn = model ("xnnpack_add/xnnpack_add.pte");
      g_autoptr (GError) error = NULL;

      write_part (dir, "made-up.part",
                  "[Part]\nName=made-up\nPackage=libexecutorch-made-up7\nOperators=aten::;other::\n"
                  "Backends=XnnpackBackend\n",
                  -1);
      g_setenv ("EXECUTORCH_PARTS_PATH", dir, TRUE);
      g_assert_false (load_everything (mlp, NULL, &error));
      g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_OPERATOR_MISSING);
      g_assert_true (g_str_has_suffix (error->message, "(install libexecutorch-made-up7)"));
      g_clear_error (&error);
      g_assert_false (load_everything (xnn, NULL, &error));
      g_assert_nonnull (strstr (error->message, "(install libexecutorch-made-up7)"));
      g_clear_error (&error);

      /* An empty catalogue: nothing to install. */
      g_setenv ("EXECUTORCH_PARTS_PATH", "", TRUE);
      g_assert_false (load_everything (mlp, NULL, &error));
      g_assert_true (g_str_has_suffix (error->message, "(no installed library provides them)"));
      remove_folder (dir);
      return;
    }
  /* In a child: it changes the environment. */
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* Malformed catalogue files are ignored with a warning each; the valid one
 * still counts. */
static void
test_hint_catalogue_malformed (void)
{
  static const char *const bad[][2] = {
    { "a.part", "[Part]\nName=a\n" }, /* no Package */
    { "b.part", "not a key file\n" },
    { "c.part", "[Part]\nName=c\nPackage=libc 0\n" }, /* a space */
    { "d.part", "[Part]\nName=d\nPackage=libd0\nOperators=aten::;\x01;\n" },
    { "e.part", "[Part]\nName=e\nPackage=libe0\nProfiler=perhaps\n" },
  };

  if (g_test_subprocess ())
    {
      g_autofree char *dir = g_dir_make_tmp ("test-loader-parts-XXXXXX", NULL);
      g_autofree char *big = g_strnfill (100000, '#');
      g_autoptr (GBytes) mlp = model ("mlp/mlp.pte");
      g_autoptr (GError) error = NULL;
      char nul[] = "[Part]\nName=g\0Package=x\n";

      for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
        write_part (dir, bad[i][0], bad[i][1], -1);
      write_part (dir, "f.part", big, -1);
      write_part (dir, "g.part", nul, sizeof nul - 1);
      write_part (dir, "z.part", "[Part]\nName=z\nPackage=libexecutorch-z0\nOperators=aten::\n", -1);
      g_setenv ("EXECUTORCH_PARTS_PATH", dir, TRUE);
      for (char c = 'a'; c <= 'g'; c++)
        {
          g_autofree char *pattern = g_strdup_printf ("part catalogue: *%c.part: *(ignored)", c);
          g_test_expect_message ("Executorch", G_LOG_LEVEL_WARNING, pattern);
        }
      g_assert_false (load_everything (mlp, NULL, &error));
      g_test_assert_expected_messages ();
      g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_OPERATOR_MISSING);
      g_assert_true (g_str_has_suffix (error->message, "(install libexecutorch-z0)"));
      remove_folder (dir);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* A stand-in for the XNNPACK backend: checks what the runtime hands it. */
typedef struct
{
  guint inits, executes, destroys;
  gboolean saw_header;
  gsize payload_size;
  gboolean named_data_found;
  guint n_args;
} FakeBackendState;

static FakeBackendState fake_state;

static EtError
fake_init (void *user_data, EtBackendInitContext *context, const void *processed, size_t size,
           const EtCompileSpec *specs, size_t n_specs, void **handle)
{
  const void *blob;
  size_t blob_size;
  /* The XNNPACK payload names its weights by SHA-256 keys in named data. */
  static const char key[] = "05f3bcb5df35bbbc91a673ac3e67bdd6ab48e9f407e5b92365c6aa9aae589fba";

  fake_state.inits++;
  fake_state.payload_size = size;
  fake_state.saw_header = size >= 8 && memcmp ((const guint8 *) processed + 4, "XH00", 4) == 0;
  fake_state.named_data_found =
      et_backend_init_context_named_data (context, key, &blob, &blob_size) == ET_OK && blob_size > 0;
  *handle = &fake_state;
  return ET_OK;
}

static EtError
fake_execute (void *user_data, EtBackendExecuteContext *context, void *handle, EtValue **args, uint32_t n_args)
{
  fake_state.executes++;
  fake_state.n_args = n_args;
  return handle == &fake_state ? ET_OK : ET_ERROR_DELEGATE_INVALID_HANDLE;
}

static void
fake_destroy (void *user_data, void *handle)
{
  fake_state.destroys++;
}

static const EtBackend fake_backend = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .id = "XnnpackBackend",
  .init = fake_init,
  .execute = fake_execute,
  .destroy = fake_destroy,
};

static void
test_delegate_payload (gconstpointer data)
{
  g_autoptr (GBytes) bytes = model (data);
  g_autoptr (GError) error = NULL;
  static gsize registered;
  EtProgram *program;
  EtMethod *method;
  float a[64] = { 0 }, b[64] = { 0 };
  int64_t sizes[2];

  if (g_once_init_enter (&registered))
    {
      g_assert_cmpint (et_registry_add_backend (et_registry_get_default (), &fake_backend, NULL), ==, ET_OK);
      g_once_init_leave (&registered, 1);
    }
  memset (&fake_state, 0, sizeof fake_state);
  program = _et_program_load (bytes, NULL, 0, &error);
  g_assert_no_error (error);
  method = _et_method_load (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fake_state.inits, ==, 1);
  g_assert_true (fake_state.saw_header);
  g_assert_cmpuint (fake_state.payload_size, >, 32);
  g_assert_true (fake_state.named_data_found);
  for (guint i = 0; i < 2; i++)
    {
      g_assert_cmpuint (_et_method_meta (method)->inputs[i].ndim, ==, 2);
      memcpy (sizes, _et_method_meta (method)->inputs[i].sizes, sizeof sizes);
      g_assert_cmpint (sizes[0] * sizes[1], <=, 64);
      g_assert_true (_et_method_set_input_tensor (method, i, ET_SCALAR_FLOAT, 2, sizes, i ? b : a,
                                                  (size_t) (sizes[0] * sizes[1]) * 4, &error));
    }
  g_assert_true (_et_method_execute (method, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fake_state.executes, ==, 1);
  g_assert_cmpuint (fake_state.n_args, ==, 3);
  _et_method_free (method);
  g_assert_cmpuint (fake_state.destroys, ==, 1);
  _et_program_unref (program);
}

/* ---- hostile files ---- */

static void
expect_failure (GBytes *bytes, const char *what)
{
  g_autoptr (GError) error = NULL;

  if (load_everything (bytes, NULL, &error))
    g_error ("%s: loaded without error", what);
  g_assert_nonnull (error);
  g_assert_true (error->domain == EXECUTORCH_ERROR);
  g_assert_nonnull (error->message);
}

static void
test_truncated (gconstpointer data)
{
  const char *name = data;
  g_autoptr (GBytes) bytes = strstr (name, "/") ? model (name) : read_file (TEST_UPSTREAM_DIR, name);
  gsize size;
  const guint8 *contents = g_bytes_get_data (bytes, &size);

  register_test_kernels ();
  /* Every prefix of the file, header boundaries included. */
  for (gsize length = 0; length < size; length++)
    {
      g_autoptr (GBytes) cut = g_bytes_new (contents, length);
      g_autoptr (GError) error = NULL;
      /* Segment data may be cut without harm when nothing reads it; the
       * FlatBuffer region may not. */
      if (load_everything (cut, NULL, &error))
        g_assert_cmpuint (length, >=, 8);
      else
        g_assert_true (error != NULL && error->domain == EXECUTORCH_ERROR);
    }
}

static void
test_wrong_identifier (void)
{
  g_autoptr (GBytes) bytes = model ("add/add.pte");
  gsize size;
  const guint8 *contents = g_bytes_get_data (bytes, &size);
  guint8 *copy = g_memdup2 (contents, size);
  g_autoptr (GBytes) bad = NULL;
  g_autoptr (GError) error = NULL;

  memcpy (copy + 4, "ET99", 4);
  bad = g_bytes_new_take (copy, size);
  g_assert_false (load_everything (bad, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_INVALID_PROGRAM);
  g_assert_nonnull (strstr (error->message, "ET99"));
}

static void
test_bad_root_offset (void)
{
  g_autoptr (GBytes) bytes = model ("add/add.pte");
  gsize size;
  const guint8 *contents = g_bytes_get_data (bytes, &size);
  guint8 *copy = g_memdup2 (contents, size);
  g_autoptr (GBytes) bad = NULL;
  guint32 huge = GUINT32_TO_LE (0x7ffffff0);

  memcpy (copy, &huge, 4);
  bad = g_bytes_new_take (copy, size);
  expect_failure (bad, "root offset past the end");
}

static void
test_bad_header (void)
{
  g_autoptr (GBytes) bytes = model ("mlp/mlp.pte");
  gsize size;
  const guint8 *contents = g_bytes_get_data (bytes, &size);
  static const struct
  {
    gsize offset;
    guint64 value;
  } patches[] = {
    { 12, 8 },                /* header length too small */
    { 16, G_MAXUINT64 },      /* program size past the end */
    { 24, G_MAXUINT64 - 16 }, /* segment base past the end */
    { 32, G_MAXUINT64 },      /* segment data size past the end */
  };

  g_assert_cmpmem (contents + 8, 4, "eh00", 4);
  for (guint i = 0; i < G_N_ELEMENTS (patches); i++)
    {
      guint8 *copy = g_memdup2 (contents, size);
      g_autoptr (GBytes) bad = NULL;
      guint64 le = GUINT64_TO_LE (patches[i].value);

      if (patches[i].offset == 12)
        {
          guint32 le32 = GUINT32_TO_LE ((guint32) patches[i].value);
          memcpy (copy + 12, &le32, 4);
        }
      else
        memcpy (copy + patches[i].offset, &le, 8);
      bad = g_bytes_new_take (copy, size);
      expect_failure (bad, "patched extended header");
    }
}

/* Overwrites every 32-bit word with hostile values (huge counts, offsets
 * out of range, negative indices, bad union tags) and loads the result. */
static void
test_word_mutations (gconstpointer data)
{
  const char *name = data;
  g_autoptr (GBytes) bytes = model (name);
  gsize size;
  const guint8 *contents = g_bytes_get_data (bytes, &size);
  static const guint32 values[] = { 0xffffffffu, 0x7fffffffu, 0x00010000u, 0x80000000u, 0x0000ffffu, 0x0000001fu };
  guint failures = 0;

  register_test_kernels ();
  for (gsize offset = 0; offset + 4 <= size && offset < 4096; offset += 4)
    for (guint v = 0; v < G_N_ELEMENTS (values); v++)
      {
        guint8 *copy = g_memdup2 (contents, size);
        g_autoptr (GBytes) bad = NULL;
        g_autoptr (GError) error = NULL;
        guint32 le = GUINT32_TO_LE (values[v]);

        memcpy (copy + offset, &le, 4);
        bad = g_bytes_new_take (copy, size);
        if (!load_everything (bad, NULL, &error))
          {
            g_assert_true (error != NULL && error->domain == EXECUTORCH_ERROR);
            failures++;
          }
      }
  /* Most corruptions must be caught (not merely survived). */
  g_assert_cmpuint (failures, >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/loader/fixture/metadata", test_fixture_metadata);
  g_test_add_func ("/loader/fixture/dynamic-metadata", test_dynamic_metadata);
  g_test_add_func ("/loader/fixture/constant-methods", test_constant_methods);
  g_test_add_func ("/loader/fixture/external-data", test_external_data);
  g_test_add_func ("/loader/fixture/external-data-duplicate-keys", test_external_data_duplicate_keys);
  g_test_add_func ("/loader/upstream/add-runs", test_run_upstream_add);
  g_test_add_func ("/loader/upstream/legacy-constant-buffer", test_legacy_constant_buffer);
  g_test_add_func ("/loader/upstream/header-length-24", test_header_length_24);
  g_test_add_func ("/loader/rewrite/called-and-applied", test_rewrite_applied);
  g_test_add_func ("/loader/error/missing-operator", test_missing_operator);
  g_test_add_func ("/loader/error/missing-operator-plugin-loaded", test_missing_operator_plugin_loaded);
  g_test_add_func ("/loader/error/missing-backend", test_missing_backend);
  g_test_add_func ("/loader/error/hint-from-catalogue", test_hint_from_catalogue);
  g_test_add_func ("/loader/error/hint-catalogue-malformed", test_hint_catalogue_malformed);
  g_test_add_data_func ("/loader/delegate/payload-in-segment", "xnnpack_add/xnnpack_add.pte", test_delegate_payload);
  g_test_add_data_func ("/loader/delegate/payload-inline", "xnnpack_add_inline/xnnpack_add_inline.pte",
                        test_delegate_payload);
  g_test_add_func ("/loader/bad/wrong-identifier", test_wrong_identifier);
  g_test_add_func ("/loader/bad/root-offset", test_bad_root_offset);
  g_test_add_func ("/loader/bad/extended-header", test_bad_header);
  g_test_add_data_func ("/loader/bad/truncated/add", "add.pte", test_truncated);
  g_test_add_data_func ("/loader/bad/truncated/mlp", "mlp/mlp.pte", test_truncated);
  g_test_add_data_func ("/loader/bad/truncated/cond", "cond/cond.pte", test_truncated);
  g_test_add_data_func ("/loader/bad/truncated/legacy", "ModuleLinear-no-constant-segment.pte", test_truncated);
  g_test_add_data_func ("/loader/bad/mutated/add", "add/add.pte", test_word_mutations);
  g_test_add_data_func ("/loader/bad/mutated/cond", "cond/cond.pte", test_word_mutations);
  g_test_add_data_func ("/loader/bad/mutated/mutable-buffer", "mutable_buffer/mutable_buffer.pte", test_word_mutations);
  g_test_add_data_func ("/loader/bad/mutated/constant-methods", "constant_methods/constant_methods.pte",
                        test_word_mutations);
  return g_test_run ();
}
