/* nn-private.h: helpers shared by the elementwise, activation, norm, pool
 * and padding kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Argument readers the base set lacks (strings, optional scalars and
 * tensors, float lists), a generic broadcasting map over up to three
 * inputs, and a parallel-for that uses the process thread pool when the
 * library was built with it.
 */
#pragma once

#include "kernels-private.h"

/* ---- More argument readers ---- */

/* A String argument (not NUL-terminated); with @present non-NULL, None is
 * accepted too. */
EtError _executorch_arg_string (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *present,
                                const char **data, size_t *length);
bool _executorch_string_equals (const char *data, size_t length, const char *literal);
/* Scalar or None. */
EtError _executorch_arg_opt_scalar (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *present,
                                    KernelScalar *scalar);
/* Tensor or None (*tensor = NULL). */
EtError _executorch_arg_opt_tensor (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name,
                                    EtTensor **tensor);
/* Double or None (Int accepted and converted). */
EtError _executorch_arg_opt_double (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *present,
                                    double *value);
/* Double (Int accepted). */
EtError _executorch_arg_double (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, double *value);
/* float[]? (a DoubleList) of at most ET_MAX_DIMS items, or None. */
EtError _executorch_arg_opt_double_list (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name,
                                         bool *present, double *items, uint32_t *n_items);
/* A fill value (masked_fill, constant_pad_nd) converted like eager's
 * checked Scalar conversion: a floating value into an integer dtype is
 * truncated toward zero, one outside the dtype's range (or non-finite) is
 * an error, anything into Bool is != 0.  Writes @type's compute kind. */
EtError _executorch_scalar_to_fill (EtKernelContext *ctx, const KernelScalar *scalar, int type, const char *name,
                                    void *value);

/* True for a 4-D [0,2,3,1] or 5-D [0,2,3,4,1] dim order. */
bool _executorch_dim_order_is_channels_last (const EtTensor *t);

/* ---- Elementwise map ----
 *
 * Calls @fn on chunks of up to KERNEL_CHUNK elements: @in[k] holds
 * the k-th input's elements (broadcast to out's shape) converted to
 * @in_kind, and @fn writes @n results of @out_kind to @out, which are then
 * converted to out's dtype.  @out must already have its final shape; the
 * inputs must broadcast to it.  Walks out in its memory order. */
#define KERNEL_MAP_MAX_INPUTS 3

typedef void (*KernelMapFn) (const void *user, int64_t n, void *out, const void *const *in);

EtError _executorch_map (EtKernelContext *ctx, EtTensor *out, KernelComputeKind out_kind, uint32_t n_in,
                         const EtTensor *const *in, KernelComputeKind in_kind, KernelMapFn fn, const void *user);

/* Broadcast shape of up to three tensors (NULL entries are skipped). */
EtError _executorch_broadcast_shape_n (EtKernelContext *ctx, uint32_t n, const EtTensor *const *t, uint32_t *ndim,
                                       int64_t *sizes);

/* ---- Parallel for ----
 *
 * Runs @fn over [0, @n) split into ranges of at least @grain indices, on
 * the process thread pool when available, otherwise inline. */
typedef void (*KernelRangeFn) (void *context, int64_t begin, int64_t end);

void _executorch_parallel_for (int64_t n, int64_t grain, KernelRangeFn fn, void *context);

/* Elements per task for cheap elementwise work (upstream's GRAIN_SIZE). */
#define KERNEL_GRAIN 32768

/* ---- Softmax fast path ----
 *
 * Float32 self and out with one dim order in which @dim is innermost:
 * vectorised rows split across the pool.  Returns false (doing nothing)
 * when the layout does not qualify.  out must already be resized. */
bool _executorch_softmax_fast_f32 (const EtTensor *self, EtTensor *out, uint32_t dim, bool log_form);
