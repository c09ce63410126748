/* test-program.c: ExecutorchProgram: load failures and construction through properties
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch.h>

#include <glib/gstdio.h>
#include <unistd.h>

/* --- program loading failures (no model needed) --- */

static void
test_program_missing_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file ("/nonexistent/model.pte", &error);

  g_assert_null (program);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "/nonexistent/model.pte: No such file or directory");
}

/* A folder, and a missing .ptd beside a good .pte: GIO's codes too. */
static void
test_program_unreadable_files (void)
{
  const char *const missing_data[] = { "/nonexistent/weights.ptd", NULL };
  g_autoptr (GError) error = NULL;

  g_assert_null (executorch_program_new_from_file (TEST_MODELS_DIR, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY);
  g_assert_true (g_str_has_prefix (error->message, TEST_MODELS_DIR ": "));
  g_clear_error (&error);

  g_assert_null (executorch_program_new_from_file_with_data (TEST_MODELS_DIR "/add/add.pte", missing_data, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "/nonexistent/weights.ptd: "));
  g_clear_error (&error);

  g_assert_null (executorch_bundled_program_new_from_file ("/nonexistent/model.bpte", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "/nonexistent/model.bpte: No such file or directory");
}

static void
test_program_empty_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr (ExecutorchProgram) program = NULL;
  int fd = g_file_open_tmp ("empty-XXXXXX.pte", &path, &error);

  g_assert_no_error (error);
  close (fd);
  program = executorch_program_new_from_file (path, &error);
  g_assert_null (program);
  g_assert_nonnull (error);
  g_assert_true (error->domain == EXECUTORCH_ERROR);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_unlink (path);
}

static void
test_program_garbage_bytes (void)
{
  static const guint8 junk[64] = { 'n', 'o', 't', ' ', 'a', ' ', 'p', 't', 'e' };
  g_autoptr (GBytes) data = g_bytes_new_static (junk, sizeof junk);
  g_autoptr (GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_bytes (data, &error);

  g_assert_null (program);
  g_assert_nonnull (error);
  g_assert_true (error->domain == EXECUTORCH_ERROR);
  g_clear_error (&error);

  g_assert_null (executorch_program_new_from_bytes (empty, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_PROGRAM);
  g_clear_error (&error);

  /* GInitable: a binding constructing it with no source gets an error. */
  g_assert_null (g_initable_new (EXECUTORCH_TYPE_PROGRAM, NULL, &error, NULL));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
}

/* --- construction through properties alone (what PyGObject and GJS do:
 * g_object_new, no g_initable_init) --- */

#define ADD_PTE TEST_MODELS_DIR "/add/add.pte"

/* Usable at once: methods are listed and load without g_initable_init. */
static void
test_program_construct_properties (void)
{
  g_autoptr (ExecutorchProgram) program = g_object_new (EXECUTORCH_TYPE_PROGRAM, "path", ADD_PTE, NULL);
  g_auto (GStrv) names = executorch_program_list_methods (program);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchMethod) method = NULL;
  g_autoptr (ExecutorchMethodInfo) info = NULL;

  g_assert_cmpstrv (names, ((const char *const[]){ "forward", NULL }));
  g_assert_cmpuint (executorch_program_get_n_methods (program), ==, 1);
  g_assert_true (executorch_program_has_method (program, "forward"));
  info = executorch_program_get_method_info (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (executorch_method_info_get_n_inputs (info), ==, 2);
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (executorch_method_get_n_inputs (method), ==, 2);
  g_assert_true (g_initable_init (G_INITABLE (program), NULL, &error));
  g_assert_no_error (error);
}

/* A failed load is kept: g_initable_init and every function with a
 * GError report it; the others warn with it and return nothing. */
static void
test_program_construct_failed (void)
{
  g_autoptr (ExecutorchProgram) program =
      g_object_new (EXECUTORCH_TYPE_PROGRAM, "path", "/nonexistent/model.pte", NULL);
  g_autoptr (ExecutorchProgram) nothing = g_object_new (EXECUTORCH_TYPE_PROGRAM, NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = NULL;

  g_assert_null (executorch_program_load_method (program, "forward", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "/nonexistent/model.pte: No such file or directory");
  g_clear_error (&error);
  g_assert_null (executorch_program_load_method_profiled (program, "forward", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (executorch_program_get_method_info (program, "forward", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (g_initable_init (G_INITABLE (program), NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_test_expect_message ("Executorch", G_LOG_LEVEL_WARNING,
                         "executorch_program_list_methods: the program did not load, so it has no methods: "
                         "/nonexistent/model.pte: No such file or directory");
  names = executorch_program_list_methods (program);
  g_test_assert_expected_messages ();
  g_assert_nonnull (names);
  g_assert_null (names[0]);
  g_test_expect_message ("Executorch", G_LOG_LEVEL_WARNING, "executorch_program_has_method: *");
  g_assert_false (executorch_program_has_method (program, "forward"));
  g_test_assert_expected_messages ();

  /* No path and no bytes: the message says what to set. */
  g_assert_false (g_initable_init (G_INITABLE (nothing), NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "the program has nothing to load: set its “path” or its “bytes”");
  g_clear_error (&error);
  g_assert_null (executorch_program_load_method (nothing, "forward", &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/program/load/missing-file", test_program_missing_file);
  g_test_add_func ("/program/load/empty-file", test_program_empty_file);
  g_test_add_func ("/program/load/garbage", test_program_garbage_bytes);
  g_test_add_func ("/program/load/unreadable", test_program_unreadable_files);
  g_test_add_func ("/program/construct/properties", test_program_construct_properties);
  g_test_add_func ("/program/construct/failed", test_program_construct_failed);

  return g_test_run ();
}
