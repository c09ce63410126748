/* fuzz-bundled.c: libFuzzer target for the bundled-program (.bpte) reader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fuzzer's bytes are a whole .bpte (seeds: tests/models/bundled).  It
 * must load or fail with a GError; when it loads, every test case of every
 * method is verified, which loads and executes the embedded program with
 * the bundled inputs.
 */
#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GBytes) bytes = g_bytes_new (data, size);
  g_autoptr (ExecutorchBundledProgram) bundled = NULL;
  g_auto (GStrv) methods = NULL;
  GError *error = NULL;

  fuzz_init ();
  bundled = executorch_bundled_program_new_from_bytes (bytes, &error);
  if (bundled == NULL)
    {
      FUZZ_CHECK_ERROR (error);
      return 0;
    }
  executorch_program_set_max_memory (executorch_bundled_program_get_program (bundled), FUZZ_MAX_MEMORY);
  methods = executorch_bundled_program_list_methods (bundled);
  for (guint m = 0; methods[m] != NULL; m++)
    {
      guint n = executorch_bundled_program_get_n_test_cases (bundled, methods[m]);

      for (guint i = 0; i < n && i < 8; i++)
        if (!executorch_bundled_program_verify (bundled, methods[m], i, EXECUTORCH_BUNDLED_DEFAULT_RTOL,
                                                EXECUTORCH_BUNDLED_DEFAULT_ATOL, &error))
          FUZZ_CHECK_ERROR (error);
    }
  return 0;
}
