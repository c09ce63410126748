/* fuzz-program.c: libFuzzer target for the .pte loader and method loader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Build: CC=clang meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false
 * Run:   ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1024 \
 *         build-fuzz/tests/fuzz/fuzz-program -malloc_limit_mb=2048 -max_total_time=60 CORPUS/
 *         (seed the corpus with tests/models/\*\/\*.pte; huge planned buffers then fail
 *         to allocate with a GError instead of tripping libFuzzer's memory limit)
 * Every input must either load or fail with a GError; nothing else is allowed.
 */
#include "engine.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GBytes) bytes = g_bytes_new (data, size);
  GError *error = NULL;
  EtProgram *program = _et_program_load (bytes, NULL, 0, &error);

  if (program == NULL)
    {
      g_assert (error != NULL);
      g_error_free (error);
      return 0;
    }
  for (guint i = 0; i < _et_program_n_methods (program); i++)
    {
      /* A cap far below -malloc_limit_mb: huge plans fail with a GError. */
      EtMethod *method = _et_method_load_full (program, _et_program_method_name (program, i), NULL,
                                               G_GUINT64_CONSTANT (64) << 20, &error);
      if (method == NULL)
        {
          g_assert (error != NULL);
          g_clear_error (&error);
        }
      _et_method_free (method);
    }
  _et_program_unref (program);
  return 0;
}
