/* fuzz-ptd.c: libFuzzer target for the .ptd reader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fuzzer's bytes are the external data file of the mlp_external
 * fixture (seed: its _default_external_constant.ptd).  The program must
 * load or fail with a GError; when it loads, the method is loaded and
 * executed, so every tensor the .ptd provides is bound and read.
 */
#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static GBytes *pte;
  g_autoptr (GBytes) ptd = g_bytes_new (data, size);
  g_autoptr (ExecutorchProgram) program = NULL;
  g_autoptr (ExecutorchMethod) method = NULL;
  GError *error = NULL;

  fuzz_init ();
  if (pte == NULL)
    {
      g_autofree char *path = g_build_filename (FUZZ_MODELS_DIR, "mlp_external", "mlp_external.pte", NULL);
      char *contents;
      gsize length;

      if (!g_file_get_contents (path, &contents, &length, &error))
        g_error ("%s", error->message);
      pte = g_bytes_new_take (contents, length);
    }
  program = executorch_program_new_from_bytes_with_data (pte, &ptd, 1, &error);
  if (program == NULL)
    {
      FUZZ_CHECK_ERROR (error);
      return 0;
    }
  executorch_program_set_max_memory (program, FUZZ_MAX_MEMORY);
  method = executorch_program_load_method (program, "forward", &error);
  if (method == NULL)
    {
      FUZZ_CHECK_ERROR (error);
      return 0;
    }
  {
    static const gint64 sizes[] = { 2, 8 };
    static const float zeros[16];
    g_autoptr (GBytes) input_data = g_bytes_new_static (zeros, sizeof zeros);
    g_autoptr (ExecutorchTensor) input =
        executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 2, input_data, &error);
    g_assert (input != NULL);
    if (!executorch_method_set_input (method, 0, input, &error))
      g_error ("mlp_external's input: %s", error->message);
  }
  if (!executorch_method_execute (method, NULL, &error))
    FUZZ_CHECK_ERROR (error);
  return 0;
}
