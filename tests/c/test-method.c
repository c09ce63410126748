/* test-method.c: ExecutorchMethod: construction through properties alone
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch.h>

/* What PyGObject and GJS do: g_object_new, no g_initable_init. */

#define ADD_PTE TEST_MODELS_DIR "/add/add.pte"

static void
test_method_construct_properties (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (ADD_PTE, &error);
  g_autoptr (ExecutorchProgram) missing =
      g_object_new (EXECUTORCH_TYPE_PROGRAM, "path", "/nonexistent/model.pte", NULL);
  g_autoptr (ExecutorchMethod) method = NULL;
  g_autoptr (ExecutorchMethod) orphan = NULL;
  g_autoptr (ExecutorchMethod) from_missing = NULL;
  g_autoptr (ExecutorchTensor) ones = NULL;
  const float values[] = { 1, 1, 1, 1, 1, 1 };
  const gint64 sizes[] = { 2, 3 };

  g_assert_no_error (error);
  method = g_object_new (EXECUTORCH_TYPE_METHOD, "program", program, "name", "forward", NULL);
  g_assert_cmpuint (executorch_method_get_n_inputs (method), ==, 2);
  ones = executorch_tensor_new_from_floats (sizes, 2, values, 6, &error);
  g_assert_no_error (error);
  g_assert_true (executorch_method_set_input (method, 0, ones, &error));
  g_assert_true (executorch_method_set_input (method, 1, ones, &error));
  g_assert_true (executorch_method_execute (method, NULL, &error));
  g_assert_no_error (error);

  /* No program, or one that did not load: the error says why. */
  orphan = g_object_new (EXECUTORCH_TYPE_METHOD, NULL);
  g_assert_false (executorch_method_execute (orphan, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "the method has no program to load from: set its “program”");
  g_clear_error (&error);
  g_assert_false (g_initable_init (G_INITABLE (orphan), NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_test_expect_message ("Executorch", G_LOG_LEVEL_WARNING,
                         "executorch_method_get_n_inputs: the method did not load: *");
  g_assert_cmpuint (executorch_method_get_n_inputs (orphan), ==, 0);
  g_test_assert_expected_messages ();

  from_missing = g_object_new (EXECUTORCH_TYPE_METHOD, "program", missing, NULL);
  g_assert_false (executorch_method_set_input (from_missing, 0, ones, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/method/construct/properties", test_method_construct_properties);

  return g_test_run ();
}
