/* quantized-private.h: helpers shared by the quantized kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal to libexecutorch-kernels-quantized (hidden by the library's
 * visibility default).  The checks come from libexecutorch-support, the
 * static library every plug-in links (support-private.h); these add the
 * operator's name to their messages.
 *
 * Every check reports through the kernel context with a message that names
 * the operator and the argument, and returns the error; nothing aborts.
 */
#pragma once

#ifndef EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#endif

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "executorch-plugin.h"
#include "support-private.h"

#define QK_N_ELEMENTS(arr) (sizeof (arr) / sizeof ((arr)[0]))

/* Returns from the calling function when @expr is not ET_OK. */
#define QK_TRY(expr)                \
  do                                \
    {                               \
      EtError qk_try_err_ = (expr); \
      if (qk_try_err_ != ET_OK)     \
        return qk_try_err_;         \
    }                               \
  while (0)

/* One kernel call: the context and the operator's name for messages. */
typedef struct
{
  EtKernelContext *ctx;
  const char *op;
  EtValue **args;
  uint32_t n_args;
} QkCall;

/* Attaches "OP: message" to the call's context and evaluates to @code. */
#define _executorch_qk_fail(call, code, ...) _executorch_support_fail ((call)->ctx, (call)->op, (code), __VA_ARGS__)

/* Fails with InvalidProgram unless the call has @expected arguments. */
static inline EtError
_executorch_qk_check_n_args (const QkCall *call, uint32_t expected)
{
  return _executorch_support_check_n_args (call->ctx, call->op, call->n_args, expected);
}

/* A CPU tensor whose sizes, numel, nbytes, dim_order and strides agree. */
EtError _executorch_qk_tensor (const QkCall *call, uint32_t i, const char *name, EtTensor **tensor);
/* A tensor or None (*tensor = NULL). */
EtError _executorch_qk_opt_tensor (const QkCall *call, uint32_t i, const char *name, EtTensor **tensor);
static inline EtError
_executorch_qk_int (const QkCall *call, uint32_t i, const char *name, int64_t *value)
{
  return _executorch_support_arg_int (call->ctx, call->op, call->args, call->n_args, i, name, value);
}
/* A float argument (Double, or Int). */
EtError _executorch_qk_double (const QkCall *call, uint32_t i, const char *name, double *value);
/* ScalarType? : *present = false for None. */
EtError _executorch_qk_opt_dtype (const QkCall *call, uint32_t i, const char *name, bool *present, int *dtype);
static inline EtError
_executorch_qk_dtype (const QkCall *call, uint32_t i, const char *name, int *dtype)
{
  return _executorch_support_arg_dtype (call->ctx, call->op, call->args, call->n_args, i, name, dtype);
}

/* Resizes @out to @sizes, with a message naming @name on failure. */
EtError _executorch_qk_resize (const QkCall *call, EtTensor *out, const char *name, uint32_t ndim,
                               const int64_t *sizes);
/* Resizes @out to @like's sizes. */
EtError _executorch_qk_resize_like (const QkCall *call, EtTensor *out, const char *name, const EtTensor *like);

/* Fails unless @a and @b have the same dim order (flat elementwise maps). */
EtError _executorch_qk_same_dim_order (const QkCall *call, const EtTensor *a, const char *a_name, const EtTensor *b,
                                       const char *b_name);
/* Fails unless @t's dim order is 0, 1, ..., ndim-1. */
EtError _executorch_qk_contiguous (const QkCall *call, const EtTensor *t, const char *name);

/* Reads element @i of a Float, Half or BFloat16 buffer as float. */
float _executorch_qk_load_float (int type, const void *data, int64_t i);
/* Stores @v into element @i of a Float, Half or BFloat16 buffer. */
void _executorch_qk_store_float (int type, void *data, int64_t i, float v);
/* Reads element @i of an integer buffer (Byte, Char, Short, Int, Long,
 * UInt16, Bits16) as int64. */
int64_t _executorch_qk_load_int (int type, const void *data, int64_t i);
/* Stores @v (already in range) into an integer buffer of that set. */
void _executorch_qk_store_int (int type, void *data, int64_t i, int64_t v);

/* upstream's requantisation step: zp + nearbyint(v) in float, then the
 * [qmin, qmax] clamp.  NaN gives zp clamped, +-inf and huge values the
 * bounds (upstream leaves those undefined). */
int64_t _executorch_qk_requantize (float v, int32_t zero_point, int64_t qmin, int64_t qmax);

/* int8-fast.c: the per-tensor Float ⇄ Char/Byte loops with upstream's
 * formulas (byte-identical to the generic ones), AVX2 where allowed. */
/* Calls @func (@job, first, n) over [0, @n) in chunks of 64 Ki elements,
 * on the thread pool when @n is at least @min_parallel and the pool has
 * threads, else in order on this thread. */
typedef void (*QkChunkFunc) (const void *job, int64_t first, int64_t n);
void _executorch_qk_run_chunked (QkChunkFunc func, const void *job, int64_t n, int64_t min_parallel);
/* min_parallel for passes between float and bytes, and for passes from
 * bytes to bytes (a few instructions per 64 bytes: a region's hand-off
 * costs more below this) */
#define QK_CHUNKED_FLOAT (128 * 1024)
#define QK_CHUNKED_BYTES (1024 * 1024)

void _executorch_qk_quantize_float_to_8bit (const float *in, void *out, bool is_signed, int64_t n, double scale,
                                            int32_t zero_point, int64_t qmin, int64_t qmax);
void _executorch_qk_dequantize_8bit_to_float (const void *in, bool is_signed, float *out, int64_t n, int32_t zero_point,
                                              float scale);

/* Kernel tables, one per source file; plugin.c registers them all. */
extern const EtKernel _executorch_qk_quantize_kernels[];
extern const size_t _executorch_qk_quantize_n_kernels;
extern const EtKernel _executorch_qk_embedding_kernels[];
extern const size_t _executorch_qk_embedding_n_kernels;
extern const EtKernel _executorch_qk_linear_kernels[];
extern const size_t _executorch_qk_linear_n_kernels;

/* int-stage.c, int-conv.c, int-linear.c: the integer kernels and the bytes
 * each staged float buffer must hold (int-conv-rewrite.c matches the
 * sites; int-kernels-private.h describes the scheme). */
extern const EtKernel _executorch_qk_stage_input_kernel;
extern const EtKernel _executorch_qk_stage_input_bytes_kernel;
extern const EtKernel _executorch_qk_pass_relu_kernel;
extern const EtKernel _executorch_qk_pass_hardtanh_kernel;
extern const EtKernel _executorch_qk_unstage_bytes_kernel;
extern const EtKernel _executorch_qk_weight_packed_channel_kernel;
extern const EtKernel _executorch_qk_weight_packed_tensor_kernel;
extern const EtKernel _executorch_qk_transpose_packed_kernel;
size_t _executorch_qk_staged_input_size (int64_t numel);
extern const EtMethodRewrite _executorch_qk_int_conv_rewrite;
