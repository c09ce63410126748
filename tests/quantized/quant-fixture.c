/* quant-fixture.c: a committed quantized fixture and its cases (see quant-fixture.h)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "quant-fixture.h"

NpyArray
quant_fixture_npy (const char *fixture, const char *name)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, "quant", fixture, name, NULL);
  g_autoptr (GError) error = NULL;
  NpyArray array = { 0 };

  g_assert_true (npy_read_file (path, &array, &error));
  g_assert_no_error (error);
  return array;
}

ExecutorchMethod *
quant_fixture_load (const char *fixture, gboolean reference)
{
  g_autofree char *file = g_strconcat (fixture, ".pte", NULL);
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, "quant", fixture, file, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (path, &error);
  ExecutorchMethod *method;

  g_assert_no_error (error);
  if (reference)
    g_assert_true (g_setenv ("EXECUTORCH_QUANTIZED_REFERENCE", "1", TRUE));
  else
    g_unsetenv ("EXECUTORCH_QUANTIZED_REFERENCE");
  method = executorch_program_load_method (program, "forward", &error);
  g_unsetenv ("EXECUTORCH_QUANTIZED_REFERENCE");
  g_assert_no_error (error);
  return method;
}

GBytes *
quant_fixture_run (ExecutorchMethod *method, const NpyArray *in, guint output)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) input = executorch_tensor_new (in->scalar_type, in->sizes, in->n_dims, in->data, &error);
  g_autoptr (ExecutorchTensor) out = NULL;
  GBytes *bytes;

  g_assert_no_error (error);
  g_assert_true (executorch_method_set_input (method, 0, input, &error));
  g_assert_true (executorch_method_execute (method, NULL, &error));
  g_assert_no_error (error);
  out = executorch_method_get_output (method, output, &error);
  g_assert_no_error (error);
  bytes = executorch_tensor_get_bytes (out, &error);
  g_assert_no_error (error);
  return bytes;
}
