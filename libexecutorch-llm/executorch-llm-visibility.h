/* executorch-llm-visibility.h: export and availability macros of libexecutorch-llm
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library is built with hidden visibility; only declarations marked
 * with these macros are exported from libexecutorch-llm.so.
 */
#pragma once

#if defined(EXECUTORCH_LLM_COMPILATION)
#define _EXECUTORCH_LLM_EXTERN __attribute__ ((visibility ("default"))) extern
#else
#define _EXECUTORCH_LLM_EXTERN extern
#endif

/**
 * EXECUTORCH_LLM_AVAILABLE_IN_1_0:
 *
 * Marks API available since version 1.0 of the ExecutorchLlm API.
 */
#define EXECUTORCH_LLM_AVAILABLE_IN_1_0 _EXECUTORCH_LLM_EXTERN
