/* reduce.c: sum, mean and softmax
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reductions walk self in its own memory order (so any dim order works),
 * accumulating into a row-major buffer of out's elements: double for
 * floating outs, wrapping int64 otherwise.  Softmax works on one line along
 * dim at a time, in double.
 */
#include "kernels-private.h"
#include "nn-private.h"
#include "vector.h"

#include <math.h>
#include <string.h>

EtError
_executorch_arg_reduce_dims (EtKernelContext *ctx, EtValue **args, uint32_t i, const EtTensor *self, bool optional,
                             bool empty_is_none, bool *reduce)
{
  int64_t dims[ET_MAX_DIMS];
  uint32_t n;
  bool present = true;

  memset (reduce, 0, ET_MAX_DIMS * sizeof reduce[0]);
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, i, "dim", optional ? &present : NULL, dims, &n));
  if (present && n == 0 && empty_is_none)
    return ET_OK;
  if (!present || n == 0)
    {
      for (uint32_t d = 0; d < self->ndim; d++)
        reduce[d] = true;
      return ET_OK;
    }
  for (uint32_t k = 0; k < n; k++)
    {
      uint32_t d;
      KERNEL_TRY (_executorch_wrap_dim (ctx, dims[k], self->ndim, true, &d));
      if (self->ndim == 0)
        continue;
      if (reduce[d])
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dim %u repeats in dim", d);
      reduce[d] = true;
    }
  return ET_OK;
}

EtError
_executorch_store_flat (EtKernelContext *ctx, EtTensor *out, const void *buf, bool floating)
{
  int64_t flat[ET_MAX_DIMS];
  if (out->numel == 0)
    return ET_OK;
  _executorch_contiguous_strides (out->ndim, out->sizes, flat);
  return _executorch_copy_strided (ctx, out->ndim, out->sizes, out->dim_order, out->data, out->scalar_type, 0,
                                   out->strides, buf, floating ? ET_SCALAR_DOUBLE : ET_SCALAR_LONG, 0, flat);
}

typedef struct
{
  const float *x;
  float *out;
  int64_t count;
  bool mean;
} RowSums;

static void
row_sums (void *context, int64_t begin, int64_t end)
{
  const RowSums *r = context;
  for (int64_t i = begin; i < end; i++)
    {
      double s = _executorch_vec_sum_f32 (r->count, r->x + i * r->count);
      r->out[i] = (float) (r->mean ? s / (double) r->count : s);
    }
}

/* Float32 in and out, both contiguous, reducing the trailing dims only
 * (a squeeze-excitation's or a classifier head's mean over H, W): each
 * output is the sum of one contiguous row. */
static bool
reduce_sum_rows_f32 (const EtTensor *self, const bool *reduce, EtTensor *out, int64_t count, bool mean)
{
  uint32_t first = self->ndim;

  while (first > 0 && reduce[first - 1])
    first--;
  for (uint32_t d = 0; d < first; d++)
    if (reduce[d])
      return false;
  if (self->scalar_type != ET_SCALAR_FLOAT || out->scalar_type != ET_SCALAR_FLOAT || first == self->ndim || count < 1 ||
      !_executorch_dim_order_is_identity (self) || !_executorch_dim_order_is_identity (out) ||
      self->numel != out->numel * count)
    return false;

  RowSums r = { self->data, out->data, count, mean };
  int64_t grain = count >= KERNEL_GRAIN ? 1 : KERNEL_GRAIN / count;
  _executorch_parallel_for (out->numel, grain, row_sums, &r);
  return true;
}

static EtError
reduce_sum (EtKernelContext *ctx, const EtTensor *self, const bool *reduce, bool keepdim, EtTensor *out, bool mean)
{
  int64_t out_sizes[ET_MAX_DIMS], kept[ET_MAX_DIMS], kept_strides[ET_MAX_DIMS];
  int64_t acc_strides[ET_MAX_DIMS];
  uint32_t n_out = 0;
  int64_t count = 1;

  for (uint32_t d = 0; d < self->ndim; d++)
    {
      kept[d] = reduce[d] ? 1 : self->sizes[d];
      if (reduce[d])
        count *= self->sizes[d];
      if (!reduce[d] || keepdim)
        out_sizes[n_out++] = kept[d];
    }
  KERNEL_TRY (_executorch_resize (ctx, out, n_out, out_sizes));
  if (out->numel == 0)
    return ET_OK;
  if (reduce_sum_rows_f32 (self, reduce, out, count, mean))
    return ET_OK;

  bool floating = _executorch_type_is_floating (out->scalar_type);
  KernelComputeKind kind = floating ? KERNEL_COMPUTE_F64 : KERNEL_COMPUTE_I64;
  KernelTemp temp;
  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) out->numel * 8, &temp));
  double *acc_d = temp.data;
  int64_t *acc_i = temp.data;
  memset (temp.data, 0, (size_t) out->numel * 8);

  _executorch_contiguous_strides (self->ndim, kept, kept_strides);
  for (uint32_t d = 0; d < self->ndim; d++)
    acc_strides[d] = reduce[d] ? 0 : kept_strides[d];

  if (self->numel > 0)
    {
      const int64_t *strides[2] = { self->strides, acc_strides };
      KernelIter it;
      union
      {
        int64_t i[KERNEL_CHUNK];
        double d[KERNEL_CHUNK];
      } buf;

      _executorch_iter_init (&it, self->ndim, self->sizes, self->dim_order, 2, strides);
      for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it))
        {
          int64_t as = it.inner_strides[1];
          for (int64_t j = 0; j < it.inner; j += KERNEL_CHUNK)
            {
              int64_t m = it.inner - j < KERNEL_CHUNK ? it.inner - j : KERNEL_CHUNK;
              int64_t base = it.offsets[1] + j * as;
              _executorch_load_kind (kind, self->scalar_type, self->data, it.offsets[0] + j * it.inner_strides[0],
                                     it.inner_strides[0], m, &buf);
              if (kind == KERNEL_COMPUTE_F64)
                {
                  if (as == 0)
                    {
                      double s = acc_d[base];
                      for (int64_t k = 0; k < m; k++)
                        s += buf.d[k];
                      acc_d[base] = s;
                    }
                  else
                    {
                      for (int64_t k = 0; k < m; k++)
                        acc_d[base + k * as] += buf.d[k];
                    }
                }
              else
                {
                  if (as == 0)
                    {
                      uint64_t s = (uint64_t) acc_i[base];
                      for (int64_t k = 0; k < m; k++)
                        s += (uint64_t) buf.i[k];
                      acc_i[base] = (int64_t) s;
                    }
                  else
                    {
                      for (int64_t k = 0; k < m; k++)
                        acc_i[base + k * as] = (int64_t) ((uint64_t) acc_i[base + k * as] + (uint64_t) buf.i[k]);
                    }
                }
            }
        }
    }
  if (mean)
    {
      for (int64_t k = 0; k < out->numel; k++)
        acc_d[k] /= (double) count;
    }

  EtError err = _executorch_store_flat (ctx, out, temp.data, floating);
  _executorch_temp_free (&temp);
  return err;
}

static EtError
check_dtype_arg (EtKernelContext *ctx, bool has_dtype, int64_t dtype, const EtTensor *out)
{
  if (has_dtype && dtype != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dtype %" PRId64 " differs from out dtype %s", dtype,
                        _executorch_type_name (out->scalar_type));
  return ET_OK;
}

/* The arguments sum.IntList_out and mean.out share:
 * (self, dim?, keepdim, dtype?, out, ret). */
static EtError
reduction_args (EtKernelContext *ctx, EtValue **args, uint32_t n_args, EtTensor **self, bool *reduce, bool *keepdim,
                bool *has_dtype, int64_t *dtype, EtTensor **out)
{
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", self));
  KERNEL_TRY (_executorch_arg_reduce_dims (ctx, args, 1, *self, true, false, reduce));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "keepdim", keepdim));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 3, "dtype", has_dtype, dtype));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", out));
  return ET_OK;
}

static EtError
sum_intlist_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], keepdim, has_dtype;
  int64_t dtype;

  KERNEL_TRY (reduction_args (ctx, args, n_args, &self, reduce, &keepdim, &has_dtype, &dtype, &out));
  KERNEL_TRY (_executorch_check_supported (ctx, self, "self"));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  KERNEL_TRY (check_dtype_arg (ctx, has_dtype, dtype, out));
  if (!has_dtype && !_executorch_can_cast (self->scalar_type, out->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cannot sum %s into %s",
                        _executorch_type_name (self->scalar_type), _executorch_type_name (out->scalar_type));
  return reduce_sum (ctx, self, reduce, keepdim, out, false);
}

static EtError
check_mean_types (EtKernelContext *ctx, const EtTensor *self, bool has_dtype, int64_t dtype, const EtTensor *out)
{
  KERNEL_TRY (_executorch_check_supported (ctx, self, "self"));
  KERNEL_TRY (check_dtype_arg (ctx, has_dtype, dtype, out));
  if (!_executorch_type_is_floating (out->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "mean: out must be floating, not %s",
                        _executorch_type_name (out->scalar_type));
  if (!has_dtype && !_executorch_type_is_floating (self->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "mean of %s needs a floating dtype argument",
                        _executorch_type_name (self->scalar_type));
  return ET_OK;
}

/* (self, dim?, keepdim, dtype?, out, ret) */
static EtError
mean_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], keepdim, has_dtype;
  int64_t dtype;

  KERNEL_TRY (reduction_args (ctx, args, n_args, &self, reduce, &keepdim, &has_dtype, &dtype, &out));
  KERNEL_TRY (check_mean_types (ctx, self, has_dtype, dtype, out));
  return reduce_sum (ctx, self, reduce, keepdim, out, true);
}

/* (self, dtype?, out, ret): mean over everything. */
static EtError
mean_dtype_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], has_dtype;
  int64_t dtype;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 1, "dtype", &has_dtype, &dtype));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (check_mean_types (ctx, self, has_dtype, dtype, out));
  for (uint32_t d = 0; d < ET_MAX_DIMS; d++)
    reduce[d] = true;
  return reduce_sum (ctx, self, reduce, false, out, true);
}

/* (self, dim, half_to_float, out, ret) */
static EtError
softmax (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool log_form)
{
  EtTensor *self, *out;
  int64_t dim;
  bool half_to_float;
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "half_to_float", &half_to_float));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  if (half_to_float)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "half_to_float=True is not supported");
  if (!_executorch_type_is_floating (self->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "softmax needs a floating input, not %s",
                        _executorch_type_name (self->scalar_type));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, true, &d));
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  if (out->numel == 0)
    return ET_OK;
  /* Float32 with dim innermost: vectorised rows (elementwise.c). */
  if (_executorch_softmax_fast_f32 (self, out, d, log_form))
    return ET_OK;

  int64_t len = self->ndim ? self->sizes[d] : 1;
  int64_t in_step = self->ndim ? self->strides[d] : 1;
  int64_t out_step = self->ndim ? out->strides[d] : 1;
  int64_t lines[ET_MAX_DIMS];
  memcpy (lines, self->sizes, sizeof lines);
  if (self->ndim)
    lines[d] = 1;

  KernelTemp temp;
  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) len * sizeof (double), &temp));
  double *x = temp.data;

  const int64_t *strides[2] = { out->strides, self->strides };
  KernelIter it;
  _executorch_iter_init (&it, self->ndim, lines, out->dim_order, 2, strides);
  for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it))
    {
      for (int64_t j = 0; j < it.inner; j++)
        {
          int64_t in_off = it.offsets[1] + j * it.inner_strides[1];
          int64_t out_off = it.offsets[0] + j * it.inner_strides[0];
          double mx = -INFINITY, sum = 0.0;

          _executorch_load_f64 (self->scalar_type, self->data, in_off, in_step, len, x);
          for (int64_t k = 0; k < len; k++)
            mx = x[k] > mx || isnan (x[k]) ? x[k] : mx;
          for (int64_t k = 0; k < len; k++)
            {
              x[k] -= mx;
              sum += exp (x[k]);
            }
          if (log_form)
            {
              double ls = log (sum);
              for (int64_t k = 0; k < len; k++)
                x[k] -= ls;
            }
          else
            {
              for (int64_t k = 0; k < len; k++)
                x[k] = exp (x[k]) / sum;
            }
          _executorch_store_f64 (out->scalar_type, out->data, out_off, out_step, len, x);
        }
    }
  _executorch_temp_free (&temp);
  return ET_OK;
}

static EtError
softmax_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return softmax (ctx, args, n_args, false);
}

static EtError
log_softmax_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return softmax (ctx, args, n_args, true);
}

const EtKernel _executorch_reduce_kernels[] = {
  { "aten::sum.IntList_out", sum_intlist_out, NULL },  { "aten::mean.out", mean_out, NULL },
  { "aten::mean.dtype_out", mean_dtype_out, NULL },    { "aten::_softmax.out", softmax_out, NULL },
  { "aten::_log_softmax.out", log_softmax_out, NULL },
};

const size_t _executorch_reduce_n_kernels = KERNEL_N_ELEMENTS (_executorch_reduce_kernels);
