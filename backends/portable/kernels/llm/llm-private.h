/* llm-private.h: what the llama:: kernels share (kv-cache.c, sdpa.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "kernels-private.h"

/* Fails unless @t is 4-D. */
EtError _executorch_llm_check_4d (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name);
/* value [B, S, H, D] into cache [B, Smax, H, D] at rows start_pos.. */
EtError _executorch_kv_cache_write (EtKernelContext *ctx, const char *op, const EtTensor *value, EtTensor *cache,
                                    int64_t start_pos);
