/* fixture-util.h: reading the committed fixtures' float32 .npy cases
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <executorch.h>

/* The float32 tensor in TEST_MODELS_DIR/@name (a C-order '<f4' .npy). */
ExecutorchTensor *fixture_npy_tensor (const char *name);
/* TRUE when @tensor holds the floats of the .npy TEST_MODELS_DIR/@name, each
 * within atol + rtol * |expected|. */
gboolean fixture_tensor_matches (ExecutorchTensor *tensor, const char *name, double rtol, double atol);
/* The process's resident set in bytes (/proc/self/statm). */
gsize fixture_rss_bytes (void);
