/* executorch-visibility.h: export and availability macros
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Libraries are built with hidden visibility; only declarations marked with
 * these macros are exported from libexecutorch.so.
 */
#pragma once

#if defined(EXECUTORCH_COMPILATION)
#define _EXECUTORCH_EXTERN __attribute__ ((visibility ("default"))) extern
#else
#define _EXECUTORCH_EXTERN extern
#endif

/**
 * EXECUTORCH_AVAILABLE_IN_1_0:
 *
 * Marks API available since version 1.0 of the ExecuTorch API.
 */
#define EXECUTORCH_AVAILABLE_IN_1_0 _EXECUTORCH_EXTERN

/* For plug-in libraries: marks their one exported entry point. */
#define ET_PLUGIN_EXPORT __attribute__ ((visibility ("default")))
