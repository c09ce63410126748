/* fuzz-common.h: what the fuzz targets share (private to tests/fuzz)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each target defines LLVMFuzzerTestOneInput.  It is linked either with
 * libFuzzer (-Dfuzzing=true, clang) or with replay.c, whose main() feeds it
 * files, so every regression file runs in every build.
 */
#pragma once

#include <executorch.h>
#include <stdint.h>

#include "fuzz-error.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Planned memory a fuzzed program may ask for: far below libFuzzer's
 * -malloc_limit_mb, so a huge plan is refused with a GError. */
#define FUZZ_MAX_MEMORY (G_GUINT64_CONSTANT (64) << 20)

/* Points discovery at the build tree's plug-ins (unless the environment
 * already says where they are), once. */
static inline void
fuzz_init (void)
{
  static gsize done;

  if (g_once_init_enter (&done))
    {
      g_setenv ("EXECUTORCH_MODULE_PATH", FUZZ_MODULE_PATH, FALSE);
      g_setenv ("EXECUTORCH_MODULE_SYSTEM_PATH", "", FALSE);
      g_once_init_leave (&done, 1);
    }
}

/* A committed fixture, loaded once and kept for the process. */
static inline ExecutorchProgram *
fuzz_fixture (const char *name)
{
  g_autofree char *file = g_strconcat (name, ".pte", NULL);
  g_autofree char *path = g_build_filename (FUZZ_MODELS_DIR, name, file, NULL);
  g_autoptr (GError) error = NULL;
  ExecutorchProgram *program;

  fuzz_init ();
  program = executorch_program_new_from_file (path, &error);
  if (program == NULL)
    g_error ("fuzz fixture %s: %s", path, error->message);
  executorch_program_set_max_memory (program, FUZZ_MAX_MEMORY);
  return program;
}
