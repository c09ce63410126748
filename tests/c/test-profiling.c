/* test-profiling.c: profiling a Method through the GObject API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The profiler is a plug-in found by discovery; run with
 * EXECUTORCH_MODULES_DISABLE=profiler, /method/profiling/missing checks
 * the error that names its package (and the other tests are skipped).
 */
#include <executorch.h>

#include <glib/gstdio.h>
#include <string.h>

static gboolean
profiler_disabled (void)
{
  const char *disabled = g_getenv ("EXECUTORCH_MODULES_DISABLE");
  return disabled != NULL && strstr (disabled, "profiler") != NULL;
}

static ExecutorchProgram *
add_program (void)
{
  g_autofree char *path = g_build_filename (TEST_UPSTREAM_DIR, "add.pte", NULL);
  g_autoptr (GError) error = NULL;
  ExecutorchProgram *program = executorch_program_new_from_file (path, &error);

  g_assert_no_error (error);
  return program;
}

static void
run_add (ExecutorchMethod *method, guint times)
{
  const gint64 sizes[] = { 1 };
  const float a = 2.0f, b = 3.0f;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) ta = executorch_tensor_new_from_floats (sizes, 1, &a, 1, &error);
  g_autoptr (ExecutorchTensor) tb = executorch_tensor_new_from_floats (sizes, 1, &b, 1, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < times; i++)
    {
      g_assert_true (executorch_method_set_input (method, 0, ta, &error));
      g_assert_true (executorch_method_set_input (method, 1, tb, &error));
      g_assert_true (executorch_method_execute (method, NULL, &error));
      g_assert_no_error (error);
    }
}

static void
test_events (void)
{
  g_autoptr (ExecutorchProgram) program = NULL;
  g_autoptr (ExecutorchMethod) method = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GBytes) etdump = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL, *path = NULL, *contents = NULL;
  const guint8 *data;
  gsize size, length;
  ExecutorchProfileEvent *event;

  if (profiler_disabled ())
    {
      g_test_skip ("the profiler is disabled");
      return;
    }
  program = add_program ();
  method = executorch_program_load_method_profiled (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_true (executorch_method_is_profiling (method));
  run_add (method, 2);

  events = executorch_method_get_profile_events (method);
  g_assert_cmpuint (events->len, ==, 5);
  event = g_ptr_array_index (events, 0);
  g_assert_cmpstr (executorch_profile_event_get_name (event), ==, "Method::load");
  g_assert_cmpuint (executorch_profile_event_get_run_index (event), ==, 0);
  g_assert_cmpint (executorch_profile_event_get_instruction_index (event), ==, -1);
  event = g_ptr_array_index (events, 1);
  g_assert_cmpstr (executorch_profile_event_get_name (event), ==, "aten::add.out");
  g_assert_cmpint (executorch_profile_event_get_instruction_index (event), ==, 0);
  g_assert_cmpint (executorch_profile_event_get_chain_index (event), ==, 0);
  g_assert_null (executorch_profile_event_get_delegate (event));
  g_assert_cmpuint (executorch_profile_event_get_run_index (event), ==, 1);
  g_assert_cmpuint (executorch_profile_event_get_start (event), >, 0);
  {
    ExecutorchProfileEvent *execute = g_ptr_array_index (events, 2);
    g_assert_cmpstr (executorch_profile_event_get_name (execute), ==, "Method::execute");
    /* The instruction lies inside its execution. */
    g_assert_cmpuint (executorch_profile_event_get_start (execute), <=, executorch_profile_event_get_start (event));
    g_assert_cmpuint (executorch_profile_event_get_start (execute) + executorch_profile_event_get_duration (execute),
                      >=, executorch_profile_event_get_start (event) + executorch_profile_event_get_duration (event));
  }
  g_assert_cmpuint (executorch_profile_event_get_run_index (g_ptr_array_index (events, 4)), ==, 2);

  etdump = executorch_method_get_etdump (method, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (etdump, &size);
  g_assert_cmpuint (size, >, 12);
  g_assert_cmpuint (GUINT32_FROM_LE (*(const guint32 *) data), ==, size - 4);
  g_assert_cmpmem (data + 8, 4, "ED00", 4);

  dir = g_dir_make_tmp ("test-profiling-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (dir, "out.etdp", NULL);
  g_assert_true (executorch_method_write_etdump (method, path, &error));
  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  g_assert_cmpmem (contents, length, data, size);
  g_unlink (path);
  g_rmdir (dir);

  executorch_method_clear_profile_events (method);
  g_clear_pointer (&events, g_ptr_array_unref);
  events = executorch_method_get_profile_events (method);
  g_assert_cmpuint (events->len, ==, 1);
}

static void
test_enable_later (void)
{
  g_autoptr (ExecutorchProgram) program = NULL;
  g_autoptr (ExecutorchMethod) method = NULL;
  g_autoptr (GPtrArray) before = NULL, after = NULL;
  g_autoptr (GError) error = NULL;

  if (profiler_disabled ())
    {
      g_test_skip ("the profiler is disabled");
      return;
    }
  program = add_program ();
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_false (executorch_method_is_profiling (method));
  run_add (method, 1);
  before = executorch_method_get_profile_events (method);
  g_assert_cmpuint (before->len, ==, 0);
  g_assert_null (executorch_method_get_etdump (method, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_STATE);
  g_clear_error (&error);

  g_assert_true (executorch_method_enable_profiling (method, &error));
  g_assert_true (executorch_method_enable_profiling (method, &error));
  g_assert_no_error (error);
  run_add (method, 1);
  after = executorch_method_get_profile_events (method);
  g_assert_cmpuint (after->len, ==, 2);
  g_assert_cmpstr (executorch_profile_event_get_name (g_ptr_array_index (after, 0)), ==, "aten::add.out");
}

static void
test_missing (void)
{
  g_autoptr (ExecutorchProgram) program = NULL;
  g_autoptr (ExecutorchMethod) method = NULL;
  g_autoptr (GError) error = NULL;
  ExecutorchMethod *profiled;

  if (!profiler_disabled ())
    {
      g_test_skip ("needs EXECUTORCH_MODULES_DISABLE=profiler");
      return;
    }
  program = add_program ();
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_false (executorch_method_enable_profiling (method, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "libexecutorch-profiler0"));
  g_clear_error (&error);
  profiled = executorch_program_load_method_profiled (program, "forward", &error);
  g_assert_null (profiled);
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED);
  /* The method still runs unprofiled. */
  run_add (method, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/method/profiling/events", test_events);
  g_test_add_func ("/method/profiling/enable-later", test_enable_later);
  g_test_add_func ("/method/profiling/missing", test_missing);
  return g_test_run ();
}
