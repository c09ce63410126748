/* kernels-private.h: helpers shared by the portable CPU kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything here is internal to libexecutorch-kernels (hidden by the
 * library's visibility default).  Helpers that can fail report through the
 * kernel context and return the error, so a kernel body reads as a list of
 * KERNEL_TRY() steps.
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

/* Returns from the calling function when @expr is not ET_OK. */
#define KERNEL_TRY(expr)                \
  do                                    \
    {                                   \
      EtError kernel_try_err_ = (expr); \
      if (kernel_try_err_ != ET_OK)     \
        return kernel_try_err_;         \
    }                                   \
  while (0)

#define KERNEL_N_ELEMENTS(arr) (sizeof (arr) / sizeof ((arr)[0]))

/* Attaches a message to @ctx and evaluates to @code. */
/* (code) again, not the call's result, so the compiler sees the failure. */
#define KERNEL_FAIL(ctx, code, ...) (et_error_context_fail (et_kernel_context_error (ctx), (code), __VA_ARGS__), (code))

/* Kernel tables, one per source file; plugin.c registers them all. */
extern const EtKernel _executorch_binary_kernels[];
extern const size_t _executorch_binary_n_kernels;
extern const EtKernel _executorch_unary_kernels[];
extern const size_t _executorch_unary_n_kernels;
extern const EtKernel _executorch_linalg_kernels[];
extern const size_t _executorch_linalg_n_kernels;
extern const EtKernel _executorch_shape_kernels[];
extern const size_t _executorch_shape_n_kernels;
extern const EtKernel _executorch_copy_kernels[];
extern const size_t _executorch_copy_n_kernels;
extern const EtKernel _executorch_reduce_kernels[];
extern const size_t _executorch_reduce_n_kernels;
extern const EtKernel _executorch_prim_kernels[];
extern const size_t _executorch_prim_n_kernels;
extern const EtKernel _executorch_device_copy_kernels[];
extern const size_t _executorch_device_copy_n_kernels;
extern const EtKernel _executorch_conv_kernels[];
extern const size_t _executorch_conv_n_kernels;
extern const EtKernel _executorch_binary_math_kernels[];
extern const size_t _executorch_binary_math_n_kernels;
extern const EtKernel _executorch_logical_kernels[];
extern const size_t _executorch_logical_n_kernels;
extern const EtKernel _executorch_bitwise_kernels[];
extern const size_t _executorch_bitwise_n_kernels;
extern const EtKernel _executorch_where_kernels[];
extern const size_t _executorch_where_n_kernels;
extern const EtKernel _executorch_activation_kernels[];
extern const size_t _executorch_activation_n_kernels;
extern const EtKernel _executorch_norm_kernels[];
extern const size_t _executorch_norm_n_kernels;
extern const EtKernel _executorch_pool_kernels[];
extern const size_t _executorch_pool_n_kernels;
extern const EtKernel _executorch_pad_kernels[];
extern const size_t _executorch_pad_n_kernels;
extern const EtKernel _executorch_upsample_kernels[];
extern const size_t _executorch_upsample_n_kernels;
extern const EtKernel _executorch_index_kernels[];
extern const size_t _executorch_index_n_kernels;
extern const EtKernel _executorch_creation_kernels[];
extern const size_t _executorch_creation_n_kernels;
extern const EtKernel _executorch_split_kernels[];
extern const size_t _executorch_split_n_kernels;
extern const EtKernel _executorch_strided_view_kernels[];
extern const size_t _executorch_strided_view_n_kernels;
extern const EtKernel _executorch_roll_repeat_kernels[];
extern const size_t _executorch_roll_repeat_n_kernels;
extern const EtKernel _executorch_line_reductions_kernels[];
extern const size_t _executorch_line_reductions_n_kernels;
extern const EtKernel _executorch_kv_cache_kernels[];
extern const size_t _executorch_kv_cache_n_kernels;
extern const EtKernel _executorch_sdpa_kernels[];
extern const size_t _executorch_sdpa_n_kernels;
extern const EtKernel _executorch_distance_kernels[];
extern const size_t _executorch_distance_n_kernels;

/* ---- Scalar types ---- */

/* The kind of arithmetic a dtype is computed in. */
typedef enum
{
  KERNEL_COMPUTE_I64 = 0, /* Bool and the integer types (wrapping) */
  KERNEL_COMPUTE_F32 = 1, /* Float, Half, BFloat16 */
  KERNEL_COMPUTE_F64 = 2, /* Double */
} KernelComputeKind;

/* One value in its compute kind: what _executorch_scalar_to_compute() and
 * the one-element kind loads write. */
typedef union
{
  int64_t i;
  float f;
  double d;
} KernelKindValue;

/* Byte, Char, Short, Int, Long (and Bool when @with_bool). */
bool _executorch_type_is_integral (int type, bool with_bool);
/* Half, Float, Double, BFloat16. */
bool _executorch_type_is_floating (int type);
/* Types the converting paths can load and store: the real types, Bool,
 * Half and BFloat16.  Same-type copies work for any type. */
bool _executorch_type_is_supported (int type);
/* c10-style promotion of two supported types; -1 when there is none. */
int _executorch_promote_types (int a, int b);
/* canCast(): everything except floating -> integral and non-Bool -> Bool. */
bool _executorch_can_cast (int from, int to);
KernelComputeKind _executorch_compute_kind (int type);
/* The dtype holding a compute kind's values: Long, Float or Double. */
int _executorch_compute_kind_type (KernelComputeKind kind);
static inline const char *
_executorch_type_name (int type)
{
  return _executorch_support_type_name (type);
}
/* Element size in bytes, 0 for an invalid type. */
static inline size_t
_executorch_type_size (int type)
{
  return et_scalar_type_size (type);
}

/* ---- Scalars (Int, Double or Bool values) ---- */

typedef enum
{
  KERNEL_SCALAR_KIND_INT = 0,
  KERNEL_SCALAR_KIND_DOUBLE = 1,
  KERNEL_SCALAR_KIND_BOOL = 2,
} KernelScalarKind;

typedef struct
{
  KernelScalarKind kind;
  int64_t i; /* Int and Bool */
  double d;  /* always set */
} KernelScalar;

/* promote_type_with_scalar(): the dtype of @type op @scalar. */
int _executorch_promote_with_scalar (int type, const KernelScalar *scalar);

/* Checks that @scalar fits @type (the upstream extraction rule) and writes
 * it in @type's compute kind to @value (an int64_t, float or double). */
EtError _executorch_scalar_to_compute (EtKernelContext *ctx, const KernelScalar *scalar, int type, const char *name,
                                       void *value);

/* Eager PyTorch's checked conversion of a fill value: overflow of @type is
 * an error, a floating value into an integer type truncates, anything into
 * Bool is != 0.  Writes one element of @type (at most 8 bytes) to @element. */
EtError _executorch_scalar_to_element (EtKernelContext *ctx, const KernelScalar *scalar, int type, const char *name,
                                       void *element);

/* ---- Arguments ---- */

/* The readers shared with the other plug-ins are libexecutorch-support's
 * (support-private.h); these pass no operator prefix and no argument count
 * (every kernel checks the count first). */
static inline EtError
_executorch_check_n_args (EtKernelContext *ctx, uint32_t n_args, uint32_t expected)
{
  return _executorch_support_check_n_args (ctx, NULL, n_args, expected);
}
/* Argument @i, whatever its tag (missing is an error). */
static inline EtError
_executorch_arg_value (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, const EtValue **value)
{
  return _executorch_support_arg_value (ctx, NULL, args, UINT32_MAX, i, name, value);
}
/* A CPU tensor with consistent metadata (see _executorch_check_tensor). */
static inline EtError
_executorch_arg_tensor (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, EtTensor **tensor)
{
  return _executorch_support_arg_tensor (ctx, NULL, args, UINT32_MAX, i, name, false, tensor);
}
/* The same for kernels that only move bytes (et_copy): the tensor may be on any device. */
static inline EtError
_executorch_arg_tensor_any_device (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name,
                                   EtTensor **tensor)
{
  return _executorch_support_arg_tensor (ctx, NULL, args, UINT32_MAX, i, name, true, tensor);
}
static inline EtError
_executorch_arg_int (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, int64_t *value)
{
  return _executorch_support_arg_int (ctx, NULL, args, UINT32_MAX, i, name, value);
}
/* Int or None. */
static inline EtError
_executorch_arg_opt_int (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *present,
                         int64_t *value)
{
  return _executorch_support_arg_opt_int (ctx, NULL, args, UINT32_MAX, i, name, present, value);
}
EtError _executorch_arg_bool (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *value);
EtError _executorch_arg_scalar (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name,
                                KernelScalar *scalar);
/* An IntList (or None when @present is non-NULL) of at most ET_MAX_DIMS
 * items, read through its value slots now. */
EtError _executorch_arg_int_list (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *present,
                                  int64_t *items, uint32_t *n_items);
EtError _executorch_arg_tensor_list (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name,
                                     const EtValueList **list);
/* Marks in @reduce the dims of @self named by the IntList @i (None allowed
 * when @optional).  None means every dim, and so does [] unless
 * @empty_is_none (eager's any.dims/all.dims reduce nothing for []); a
 * repeated dim is an error.  In reduce.c. */
EtError _executorch_arg_reduce_dims (EtKernelContext *ctx, EtValue **args, uint32_t i, const EtTensor *self,
                                     bool optional, bool empty_is_none, bool *reduce);

/* Validates sizes, strides, dim_order, numel, nbytes and data of @tensor so
 * that every offset computed from them stays inside its buffer. */
static inline EtError
_executorch_check_tensor (EtKernelContext *ctx, const EtTensor *tensor, const char *name)
{
  return _executorch_support_check_tensor (ctx, NULL, tensor, name, false);
}
/* Fails unless @tensor's dtype is one of the supported ones. */
EtError _executorch_check_supported (EtKernelContext *ctx, const EtTensor *tensor, const char *name);
/* Fails unless @t is Long ("@op: @name must be Long"). */
EtError _executorch_check_long (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name);
/* Fails unless @out has @self's dtype; the message names @out_name and
 * starts with "@op: " unless @op is NULL. */
EtError _executorch_check_same_dtype (EtKernelContext *ctx, const char *op, const EtTensor *self, const EtTensor *out,
                                      const char *out_name);

/* Resizes @out (propagating et_tensor_resize's error with a message) and
 * re-validates it. */
EtError _executorch_resize (EtKernelContext *ctx, EtTensor *out, uint32_t ndim, const int64_t *sizes);

/* Wraps a possibly negative @dim into [0, @ndim); 0-d tensors accept 0 and
 * -1 when @scalar_ok (giving 0). */
EtError _executorch_wrap_dim (EtKernelContext *ctx, int64_t dim, uint32_t ndim, bool scalar_ok, uint32_t *wrapped);

bool _executorch_same_sizes (const EtTensor *a, const EtTensor *b);
/* Whether the bytes of @a and @b (dense, of any dim order) overlap. */
bool _executorch_tensors_overlap (const EtTensor *a, const EtTensor *b);
bool _executorch_same_dim_order (const EtTensor *a, const EtTensor *b);
bool _executorch_dim_order_is_identity (const EtTensor *t);
/* Row-major strides of @sizes. */
void _executorch_contiguous_strides (uint32_t ndim, const int64_t *sizes, int64_t *strides);
int64_t _executorch_numel (uint32_t ndim, const int64_t *sizes);
/* "[2, 3, 4]" into @buf. */
static inline const char *
_executorch_format_sizes (char *buf, size_t buf_size, uint32_t ndim, const int64_t *sizes)
{
  return _executorch_support_format_sizes (buf, buf_size, ndim, sizes);
}

/* Copies the view of @self at @offset with @strides (sizes: @out's) into
 * @out, in @out's memory order.  In shape.c. */
EtError _executorch_copy_view (EtKernelContext *ctx, EtTensor *out, const EtTensor *self, int64_t offset,
                               const int64_t *strides);
/* The slice [start:end:step] of a dim of @size (Python bounds, clamped;
 * a missing bound is that end; @step > 0): its first index and length.
 * In shape.c. */
void _executorch_slice_range (int64_t size, bool has_start, int64_t start, bool has_end, int64_t end, int64_t step,
                              int64_t *first, int64_t *len);
/* @sizes and @strides of @ndim dims without dim @d; returns @ndim - 1.
 * In shape.c. */
uint32_t _executorch_drop_dim (uint32_t ndim, const int64_t *sizes, const int64_t *strides, uint32_t d,
                               int64_t *kept_sizes, int64_t *kept_strides);
/* Resolves a view's size list (at most one -1) against @numel into @sizes. */
EtError _executorch_view_sizes (EtKernelContext *ctx, const int64_t *req, uint32_t n, int64_t numel, int64_t *sizes);

/* ---- Broadcasting ---- */

EtError _executorch_broadcast_shape (EtKernelContext *ctx, uint32_t a_ndim, const int64_t *a_sizes, uint32_t b_ndim,
                                     const int64_t *b_sizes, uint32_t *ndim, int64_t *sizes);
/* True when @t's shape broadcasts to @sizes. */
bool _executorch_broadcastable_to (const EtTensor *t, uint32_t ndim, const int64_t *sizes);
/* @t's strides aligned right to @ndim dimensions, 0 where it broadcasts. */
void _executorch_broadcast_strides (const EtTensor *t, uint32_t ndim, const int64_t *sizes, int64_t *strides);

/* ---- Strided iteration ----
 *
 * Walks an index space of @ndim dimensions for up to four operands, each
 * with its own element strides.  Dimensions are visited in @order (outermost
 * first; NULL = logical order), size-1 dimensions are dropped and adjacent
 * ones merged where every operand allows, and the innermost remaining one is
 * handed out as a row:
 *
 *   for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it))
 *     row of it.inner elements starting at it.offsets[k], step it.inner_strides[k]
 */
#define KERNEL_ITER_MAX_OPS 4

typedef struct
{
  uint32_t n_ops;
  uint32_t ndim;
  int64_t sizes[ET_MAX_DIMS];
  int64_t strides[KERNEL_ITER_MAX_OPS][ET_MAX_DIMS];
  int64_t index[ET_MAX_DIMS];
  int64_t inner;
  int64_t inner_strides[KERNEL_ITER_MAX_OPS];
  int64_t offsets[KERNEL_ITER_MAX_OPS];
  int64_t n_rows;
} KernelIter;

void _executorch_iter_init (KernelIter *it, uint32_t ndim, const int64_t *sizes, const uint8_t *order, uint32_t n_ops,
                            const int64_t *const *strides);
void _executorch_iter_next (KernelIter *it);

/* ---- Element conversion ----
 *
 * Load @n elements of @type from @base at element @offset, step @stride,
 * converting to the buffer's type; stores convert back (float -> integer
 * truncates toward zero, saturating, NaN -> 0; anything -> Bool is != 0).
 * @type must satisfy _executorch_type_is_supported(). */
#define KERNEL_CHUNK 256

void _executorch_load_i64 (int type, const void *base, int64_t offset, int64_t stride, int64_t n, int64_t *dst);
void _executorch_load_f32 (int type, const void *base, int64_t offset, int64_t stride, int64_t n, float *dst);
void _executorch_load_f64 (int type, const void *base, int64_t offset, int64_t stride, int64_t n, double *dst);
void _executorch_store_i64 (int type, void *base, int64_t offset, int64_t stride, int64_t n, const int64_t *src);
void _executorch_store_f32 (int type, void *base, int64_t offset, int64_t stride, int64_t n, const float *src);
void _executorch_store_f64 (int type, void *base, int64_t offset, int64_t stride, int64_t n, const double *src);
/* Loads/stores in a compute kind (buffer of int64_t, float or double). */
void _executorch_load_kind (KernelComputeKind kind, int type, const void *base, int64_t offset, int64_t stride,
                            int64_t n, void *dst);
void _executorch_store_kind (KernelComputeKind kind, int type, void *base, int64_t offset, int64_t stride, int64_t n,
                             const void *src);
/* Wraps int64 results to the range of integer @type (Bool: 0/1). */
void _executorch_wrap_i64 (int type, int64_t n, int64_t *values);

/* Copies the @ndim-dimensional index space @sizes from @src to @dst, each
 * with its own element offset and strides, converting dtypes when they
 * differ (both must then be supported).  Fails only for unsupported types. */
EtError _executorch_copy_strided (EtKernelContext *ctx, uint32_t ndim, const int64_t *sizes, const uint8_t *order,
                                  void *dst, int dst_type, int64_t dst_offset, const int64_t *dst_strides,
                                  const void *src, int src_type, int64_t src_offset, const int64_t *src_strides);
/* Stores a row-major buffer of @out's elements (double when @floating,
 * else int64) into @out in its own dim order.  In reduce.c. */
EtError _executorch_store_flat (EtKernelContext *ctx, EtTensor *out, const void *buf, bool floating);
/* Copies @src into @dst element by element in logical order, broadcasting
 * @src to @dst's shape and honouring both dim orders. */
EtError _executorch_copy_broadcast (EtKernelContext *ctx, EtTensor *dst, const EtTensor *src);
/* Resizes @out like @self and copies @self into it (nothing to copy when
 * they share data): the first step of the ops that write into a copy of
 * self (scatters, tril/triu, index_put). */
EtError _executorch_resize_copy (EtKernelContext *ctx, EtTensor *out, const EtTensor *self);
/* Copies @src into @dst in logical row-major order when the shapes differ
 * but the numels agree (view/reshape semantics). */
EtError _executorch_copy_reshape (EtKernelContext *ctx, EtTensor *dst, const EtTensor *src);

/* ---- Temporary memory ---- */

typedef struct
{
  void *data;
  bool heap;
} KernelTemp;

/* Context scratch when available, otherwise the heap; 64-byte aligned. */
EtError _executorch_temp_alloc (EtKernelContext *ctx, size_t nbytes, KernelTemp *temp);
void _executorch_temp_free (KernelTemp *temp);
