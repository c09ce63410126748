/* test-limits.c: the limits a hostile program meets: the memory cap at
 * method load, the instruction budget and cancellation of a program that
 * loops forever, and executorch-run's --max-memory and --timeout
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The endless loop is the cond fixture with one byte pattern changed: the
 * first JumpFalseCall (chain 0, instruction 2) jumps to itself instead of
 * to the else branch, so with a zero input (sum 0, not > 0) it never ends.
 */
#include <executorch.h>
#include <executorch-plugin.h>

#include <glib/gstdio.h>
#include <string.h>

static guint32
le32 (const guint8 *data, gsize pos)
{
  return (guint32) data[pos] | ((guint32) data[pos + 1] << 8) | ((guint32) data[pos + 2] << 16) |
         ((guint32) data[pos + 3] << 24);
}

/* A minimal FlatBuffers walk over a trusted fixture: the position of field
 * @slot of the table at @table (0 when absent). */
static gsize
field (const guint8 *data, gsize table, guint slot)
{
  gsize vtable = table - (gint32) le32 (data, table);
  guint16 vtable_size = (guint16) (data[vtable] | (data[vtable + 1] << 8));
  guint16 offset;

  if (4 + 2 * slot + 2 > vtable_size)
    return 0;
  offset = (guint16) (data[vtable + 4 + 2 * slot] | (data[vtable + 5 + 2 * slot] << 8));
  return offset != 0 ? table + offset : 0;
}

static gsize
deref (const guint8 *data, gsize pos)
{
  g_assert_cmpuint (pos, !=, 0);
  return pos + le32 (data, pos);
}

/* Element @index (a table) of the vector in field @slot of @table. */
static gsize
element (const guint8 *data, gsize table, guint slot, guint index)
{
  gsize vector = deref (data, field (data, table, slot));

  g_assert_cmpuint (index, <, le32 (data, vector));
  return deref (data, vector + 4 + 4 * (gsize) index);
}

enum
{
  PROGRAM_EXECUTION_PLAN = 1,
  PLAN_CHAINS = 5,
  CHAIN_INSTRUCTIONS = 2,
  INSTRUCTION_ARGS = 1
};

/* The cond program whose chain-0 instruction 2 jumps to itself. */
static GBytes *
looping_program (void)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, "cond", "cond.pte", NULL);
  g_autoptr (GError) error = NULL;
  gsize size;
  guint8 *data;
  gsize plan, chain, instruction, call, destination;

  g_assert_true (g_file_get_contents (path, (char **) &data, &size, &error));
  g_assert_no_error (error);
  plan = element (data, le32 (data, 0), PROGRAM_EXECUTION_PLAN, 0);
  chain = element (data, plan, PLAN_CHAINS, 0);
  instruction = element (data, chain, CHAIN_INSTRUCTIONS, 2);
  g_assert_cmpuint (data[field (data, instruction, 0)], ==, 4); /* JumpFalseCall */
  call = deref (data, field (data, instruction, INSTRUCTION_ARGS));
  destination = field (data, call, 1);
  g_assert_cmpuint (le32 (data, destination), ==, 6);
  data[destination] = 2;
  return g_bytes_new_take (data, size);
}

static ExecutorchMethod *
load_looping_method (void)
{
  g_autoptr (GBytes) bytes = looping_program ();
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_bytes (bytes, &error);
  ExecutorchMethod *method;

  g_assert_no_error (error);
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  {
    gint64 shape[] = { 2, 3 };
    float zeros[6] = { 0 };
    g_autoptr (GBytes) data = g_bytes_new (zeros, sizeof zeros);
    g_autoptr (ExecutorchTensor) input = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_FLOAT, shape, 2, data, &error);
    g_assert_no_error (error);
    g_assert_true (executorch_method_set_input (method, 0, input, &error));
    g_assert_no_error (error);
  }
  return method;
}

static ExecutorchProgram *
load_fixture (const char *name)
{
  g_autofree char *file = g_strconcat (name, ".pte", NULL);
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, name, file, NULL);
  g_autoptr (GError) error = NULL;
  ExecutorchProgram *program = executorch_program_new_from_file (path, &error);

  g_assert_no_error (error);
  return program;
}

static guint64
planned_total (ExecutorchProgram *program)
{
  g_autoptr (GError) error = NULL;
  ExecutorchMethodInfo *info = executorch_program_get_method_info (program, "forward", &error);
  guint64 total = 0;

  g_assert_no_error (error);
  for (guint i = 0; i < executorch_method_info_get_n_buffers (info); i++)
    total += (guint64) executorch_method_info_get_buffer_size (info, i);
  g_object_unref (info);
  return total;
}

static void
test_memory_default (void)
{
  g_autoptr (ExecutorchProgram) program = load_fixture ("mlp");
  guint64 value = 0;

  g_assert_cmpuint (executorch_program_get_max_memory (program), ==, G_GUINT64_CONSTANT (4) << 30);
  executorch_program_set_max_memory (program, 12345);
  g_object_get (program, "max-memory", &value, NULL);
  g_assert_cmpuint (value, ==, 12345);
  executorch_program_set_max_memory (program, 0);
  g_assert_cmpuint (executorch_program_get_max_memory (program), ==, G_GUINT64_CONSTANT (4) << 30);
}

static void
test_memory_cap (void)
{
  g_autoptr (ExecutorchProgram) program = load_fixture ("mlp");
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchMethod) method = NULL;
  guint64 total = planned_total (program);
  g_autofree char *limit = NULL;

  g_assert_cmpuint (total, >, 1);
  /* Exactly the plan: loads. */
  executorch_program_set_max_memory (program, total);
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_nonnull (method);
  g_clear_object (&method);

  /* One byte less: refused, naming the buffer, its size and the limit. */
  executorch_program_set_max_memory (program, total - 1);
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_null (method);
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_MEMORY_ALLOCATION_FAILED);
  limit = g_strdup_printf ("memory limit of %" G_GUINT64_FORMAT " bytes", total - 1);
  g_assert_nonnull (strstr (error->message, "planned buffer"));
  g_assert_nonnull (strstr (error->message, limit));
  g_assert_nonnull (strstr (error->message, "[method forward][load]"));
}

static void
test_budget_stops_loop (void)
{
  g_autoptr (ExecutorchMethod) method = load_looping_method ();
  g_autoptr (GError) error = NULL;

  g_assert_cmpuint (executorch_method_get_max_instructions (method), ==, 10000000);
  executorch_method_set_max_instructions (method, 1000);
  g_assert_cmpuint (executorch_method_get_max_instructions (method), ==, 1000);
  g_assert_false (executorch_method_execute (method, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_PROGRAM);
  g_assert_nonnull (strstr (error->message, "more than 1000 instructions"));
  g_assert_nonnull (strstr (error->message, "instruction budget"));
  g_clear_error (&error);

  /* 0 restores the default, which stops it too. */
  executorch_method_set_max_instructions (method, 0);
  g_assert_false (executorch_method_execute (method, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_PROGRAM);
  g_assert_nonnull (strstr (error->message, "more than 10000000 instructions"));
  g_clear_error (&error);

  /* The method is usable again afterwards. */
  executorch_method_set_max_instructions (method, 5);
  g_assert_false (executorch_method_execute (method, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_PROGRAM);
}

static gpointer
cancel_later (gpointer data)
{
  g_usleep (G_USEC_PER_SEC / 20);
  g_cancellable_cancel (data);
  return NULL;
}

static void
test_cancel_stops_loop (void)
{
  g_autoptr (ExecutorchMethod) method = load_looping_method ();
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  GThread *thread;
  gint64 start = g_get_monotonic_time ();

  executorch_method_set_max_instructions (method, G_MAXUINT64);
  thread = g_thread_new ("cancel", cancel_later, cancellable);
  g_assert_false (executorch_method_execute (method, cancellable, &error));
  g_thread_join (thread);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, G_USEC_PER_SEC / 20);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 30 * G_USEC_PER_SEC);
}

#ifdef EXECUTORCH_RUN
static void
run_tool (const char *const *extra, int *status, char **err)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;

  g_ptr_array_add (argv, (gpointer) EXECUTORCH_RUN);
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (
      g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, err, status, &error));
  g_assert_no_error (error);
}

static void
test_cli_max_memory (void)
{
  g_autofree char *mlp = g_build_filename (TEST_MODELS_DIR, "mlp", "mlp.pte", NULL);
  g_autoptr (GError) error = NULL;
  char *err = NULL;
  int status;

  run_tool ((const char *const[]){ mlp, "--quiet", "--max-memory", "512", NULL }, &status, &err);
  g_assert_false (g_spawn_check_wait_status (status, &error));
  g_assert_error (error, G_SPAWN_EXIT_ERROR, 1);
  g_clear_error (&error);
  g_assert_nonnull (strstr (err, "memory limit of 512 bytes"));
  g_free (err);

  run_tool ((const char *const[]){ mlp, "--quiet", "--max-memory", "1KiB", NULL }, &status, &err);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_free (err);

  run_tool ((const char *const[]){ mlp, "--max-memory", "12Q", NULL }, &status, &err);
  g_assert_false (g_spawn_check_wait_status (status, &error));
  g_assert_error (error, G_SPAWN_EXIT_ERROR, 2);
  g_assert_nonnull (strstr (err, "--max-memory"));
  g_free (err);
}

static void
test_cli_timeout (void)
{
  g_autoptr (GBytes) bytes = looping_program ();
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("test-limits-XXXXXX", &error);
  g_autofree char *path = NULL;
  char *err = NULL;
  int status;

  g_assert_no_error (error);
  path = g_build_filename (dir, "loop.pte", NULL);
  g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL), (gssize) g_bytes_get_size (bytes), &error));

  run_tool ((const char *const[]){ path, "--quiet", "--max-instructions", "18446744073709551615", "--timeout", "0.2",
                                   NULL },
            &status, &err);
  /* G_MAXUINT64 does not fit gint64: a usage error. */
  g_assert_false (g_spawn_check_wait_status (status, &error));
  g_assert_error (error, G_SPAWN_EXIT_ERROR, 2);
  g_clear_error (&error);
  g_free (err);

  run_tool ((const char *const[]){ path, "--quiet", "--max-instructions", "9223372036854775807", "--timeout", "0.2",
                                   NULL },
            &status, &err);
  g_assert_false (g_spawn_check_wait_status (status, &error));
  g_assert_error (error, G_SPAWN_EXIT_ERROR, 124);
  g_clear_error (&error);
  g_assert_nonnull (strstr (err, "timed out after 0.2 seconds"));
  g_free (err);

  /* Without a timeout the budget stops it. */
  run_tool ((const char *const[]){ path, "--quiet", "--max-instructions", "100", NULL }, &status, &err);
  g_assert_false (g_spawn_check_wait_status (status, &error));
  g_assert_error (error, G_SPAWN_EXIT_ERROR, 1);
  g_assert_nonnull (strstr (err, "more than 100 instructions"));
  g_free (err);

  g_unlink (path);
  g_rmdir (dir);
}
#endif

/* A dynamic planned value whose plan gave it no bytes (bound sizes with a
 * zero dimension, a buffer of size 0, so no memory at all) must not grow:
 * fuzz-bundled found set_input copying into its NULL data. */
static void
test_resize_planned_empty (void)
{
  EtTensor tensor = { 0 };

  tensor.ndim = 1;
  tensor.scalar_type = ET_SCALAR_FLOAT;
  tensor.shape_dynamism = ET_SHAPE_DYNAMIC_BOUND;
  tensor.flags = ET_TENSOR_FLAG_PLANNED;
  g_assert_cmpint (et_tensor_resize (&tensor, 1, (const int64_t[]){ 0 }), ==, ET_OK);
  g_assert_cmpint (et_tensor_resize (&tensor, 1, (const int64_t[]){ 4 }), ==, ET_ERROR_NOT_SUPPORTED);
  g_assert_cmpuint (tensor.nbytes, ==, 0);

  /* Unplanned memory the engine allocates on demand may still grow. */
  tensor.flags = 0;
  g_assert_cmpint (et_tensor_resize (&tensor, 1, (const int64_t[]){ 4 }), ==, ET_OK);
  g_assert_cmpuint (tensor.nbytes, ==, 16);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/limits/memory/default", test_memory_default);
  g_test_add_func ("/limits/memory/cap", test_memory_cap);
  g_test_add_func ("/limits/instructions/budget", test_budget_stops_loop);
  g_test_add_func ("/limits/instructions/cancel", test_cancel_stops_loop);
  g_test_add_func ("/limits/resize/planned-empty", test_resize_planned_empty);
#ifdef EXECUTORCH_RUN
  g_test_add_func ("/limits/cli/max-memory", test_cli_max_memory);
  g_test_add_func ("/limits/cli/timeout", test_cli_timeout);
#endif
  return g_test_run ();
}
