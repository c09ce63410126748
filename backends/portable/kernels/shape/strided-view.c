/* strided-view.c: the view-like copy kernels that read self through strides
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * alias/detach/lift_fresh, t, transpose, narrow, diagonal, unfold,
 * as_strided, flip and view_as_real.  Like shape.c, each
 * describes its result as a strided view of self (negative strides for
 * flip) and copies it in out's memory order, so any dim order works; all
 * of them keep the dtype.
 */
#include "kernels-private.h"

#include <string.h>

/* Resizes out to @sizes and copies the view (@offset, @strides) of self. */
static EtError
copy_view (EtKernelContext *ctx, EtTensor *out, const EtTensor *self, uint32_t ndim, const int64_t *sizes,
           int64_t offset, const int64_t *strides)
{
  KERNEL_TRY (_executorch_resize (ctx, out, ndim, sizes));
  return _executorch_copy_view (ctx, out, self, offset, strides);
}

/* (self, out, ret) */
static EtError
plain_copy (EtKernelContext *ctx, EtValue **args, uint32_t n_args, const char *op)
{
  EtTensor *self, *out;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  return copy_view (ctx, out, self, self->ndim, self->sizes, 0, self->strides);
}

static EtError
alias_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return plain_copy (ctx, args, n_args, "alias_copy");
}

static EtError
detach_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return plain_copy (ctx, args, n_args, "detach_copy");
}

static EtError
lift_fresh_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return plain_copy (ctx, args, n_args, "lift_fresh_copy");
}

static EtError
transpose (EtKernelContext *ctx, EtTensor *self, EtTensor *out, uint32_t d0, uint32_t d1)
{
  int64_t sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  memcpy (sizes, self->sizes, sizeof sizes);
  memcpy (strides, self->strides, sizeof strides);
  if (self->ndim > 0)
    {
      sizes[d0] = self->sizes[d1];
      sizes[d1] = self->sizes[d0];
      strides[d0] = self->strides[d1];
      strides[d1] = self->strides[d0];
    }
  return copy_view (ctx, out, self, self->ndim, sizes, 0, strides);
}

/* (self, out, ret) */
static EtError
t_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, "t_copy", self, out, "out"));
  if (self->ndim > 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "t_copy: self must be at most 2-D, not %u-D", self->ndim);
  return transpose (ctx, self, out, 0, self->ndim == 2 ? 1 : 0);
}

/* (self, dim0, dim1, out, ret) */
static EtError
transpose_copy_int_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  int64_t dim0, dim1;
  uint32_t d0, d1;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim0", &dim0));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "dim1", &dim1));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, "transpose_copy", self, out, "out"));
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim0, self->ndim, true, &d0));
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim1, self->ndim, true, &d1));
  return transpose (ctx, self, out, d0, d1);
}

/* (self, dim, start, length, out, ret) */
static EtError
narrow_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "narrow_copy";
  EtTensor *self, *out;
  int64_t dim, start, length, sizes[ET_MAX_DIMS];
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "start", &start));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 3, "length", &length));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  if (self->ndim == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot narrow a 0-d tensor", op);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, false, &d));
  int64_t size = self->sizes[d];
  if (start < -size || start > size)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: start %" PRId64 " is out of range for dim %u of size %" PRId64, op, start, d, size);
  if (start < 0)
    start += size;
  if (length < 0 || length > size - start)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: start %" PRId64 " + length %" PRId64 " exceeds dim %u of size %" PRId64, op, start, length,
                        d, size);
  memcpy (sizes, self->sizes, sizeof sizes);
  sizes[d] = length;
  return copy_view (ctx, out, self, self->ndim, sizes, length > 0 ? start * self->strides[d] : 0, self->strides);
}

/* (self, offset, dim1, dim2, out, ret) */
static EtError
diagonal_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "diagonal_copy";
  EtTensor *self, *out;
  int64_t offset, dim1, dim2, sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  uint32_t d1, d2, n = 0;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "offset", &offset));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "dim1", &dim1));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 3, "dim2", &dim2));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  if (self->ndim < 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self must be at least 2-D, not %u-D", op, self->ndim);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim1, self->ndim, false, &d1));
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim2, self->ndim, false, &d2));
  if (d1 == d2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: dim1 and dim2 are both %u", op, d1);
  int64_t s1 = self->sizes[d1], s2 = self->sizes[d2], len, start = 0;
  if (offset >= 0)
    {
      len = s2 - offset < s1 ? s2 - offset : s1;
      if (offset > s2)
        len = 0;
    }
  else
    {
      len = s1 + offset < s2 ? s1 + offset : s2;
      if (offset < -s1)
        len = 0;
    }
  if (len < 0)
    len = 0;
  if (len > 0)
    start = offset >= 0 ? offset * self->strides[d2] : -offset * self->strides[d1];
  for (uint32_t k = 0; k < self->ndim; k++)
    {
      if (k == d1 || k == d2)
        continue;
      sizes[n] = self->sizes[k];
      strides[n] = self->strides[k];
      n++;
    }
  sizes[n] = len;
  strides[n] = self->strides[d1] + self->strides[d2];
  n++;
  return copy_view (ctx, out, self, n, sizes, start, strides);
}

/* (self, dimension, size, step, out, ret) */
static EtError
unfold_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "unfold_copy";
  EtTensor *self, *out;
  int64_t dimension, size, step, sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dimension", &dimension));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "size", &size));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 3, "step", &step));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  KERNEL_TRY (_executorch_wrap_dim (ctx, dimension, self->ndim, true, &d));
  if (self->ndim + 1 > ET_MAX_DIMS)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: rank would exceed %d", op, ET_MAX_DIMS);
  int64_t have = self->ndim ? self->sizes[d] : 1;
  int64_t dstride = self->ndim ? self->strides[d] : 1;
  if (step <= 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: step must be positive, got %" PRId64, op, step);
  if (size < 0 || size > have)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: size %" PRId64 " is invalid for dim %u of size %" PRId64,
                        op, size, d, have);
  memcpy (sizes, self->sizes, sizeof sizes);
  memcpy (strides, self->strides, sizeof strides);
  if (self->ndim > 0)
    {
      sizes[d] = (have - size) / step + 1;
      strides[d] = self->strides[d] * step;
    }
  sizes[self->ndim] = size;
  strides[self->ndim] = dstride;
  return copy_view (ctx, out, self, self->ndim + 1, sizes, 0, strides);
}

/* (self, size, stride, storage_offset?, out, ret) */
static EtError
as_strided_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "as_strided_copy";
  EtTensor *self, *out;
  int64_t sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS], offset;
  uint32_t n_sizes, n_strides;
  bool has_offset;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "size", NULL, sizes, &n_sizes));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 2, "stride", NULL, strides, &n_strides));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 3, "storage_offset", &has_offset, &offset));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  if (n_sizes != n_strides)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %u sizes but %u strides", op, n_sizes, n_strides);
  if (!has_offset)
    offset = 0;
  if (offset < 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: negative storage_offset %" PRId64, op, offset);
  bool empty = false;
  __int128 last = offset;
  for (uint32_t k = 0; k < n_sizes; k++)
    {
      if (sizes[k] < 0 || strides[k] < 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: negative size or stride in dim %u", op, k);
      if (sizes[k] == 0)
        empty = true;
      else
        last += (__int128) (sizes[k] - 1) * strides[k];
    }
  /* Every element read must lie inside self's buffer. */
  if (!empty && last >= self->numel)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: the view reaches element %" PRId64 " of a tensor with %" PRId64 " elements", op,
                        last > INT64_MAX ? INT64_MAX : (int64_t) last, self->numel);
  return copy_view (ctx, out, self, n_sizes, sizes, empty ? 0 : offset, strides);
}

/* (self, dims, out, ret) */
static EtError
flip_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "flip";
  EtTensor *self, *out;
  int64_t dims[ET_MAX_DIMS], strides[ET_MAX_DIMS], offset = 0;
  uint32_t n;
  bool seen[ET_MAX_DIMS] = { false };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "dims", NULL, dims, &n));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  memcpy (strides, self->strides, sizeof strides);
  for (uint32_t k = 0; k < n; k++)
    {
      uint32_t d;
      KERNEL_TRY (_executorch_wrap_dim (ctx, dims[k], self->ndim, true, &d));
      if (self->ndim == 0)
        continue;
      if (seen[d])
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: dim %u repeats in dims", op, d);
      seen[d] = true;
      if (self->sizes[d] > 1)
        {
          offset += (self->sizes[d] - 1) * self->strides[d];
          strides[d] = -self->strides[d];
        }
    }
  if (self->numel == 0)
    offset = 0;
  return copy_view (ctx, out, self, self->ndim, self->sizes, offset, strides);
}

/* (self, out, ret): a complex tensor read as [..., 2] of its real type. */
static EtError
view_as_real_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "view_as_real_copy";
  EtTensor *self, *out;
  int64_t sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  int real;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "out", &out));
  switch (self->scalar_type)
    {
      case ET_SCALAR_COMPLEX_HALF: real = ET_SCALAR_HALF; break;
      case ET_SCALAR_COMPLEX_FLOAT: real = ET_SCALAR_FLOAT; break;
      case ET_SCALAR_COMPLEX_DOUBLE: real = ET_SCALAR_DOUBLE; break;
      default:
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self must be complex, not %s", op,
                            _executorch_type_name (self->scalar_type));
    }
  if (out->scalar_type != real)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out must be %s, not %s", op, _executorch_type_name (real),
                        _executorch_type_name (out->scalar_type));
  if (self->ndim + 1 > ET_MAX_DIMS)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: rank would exceed %d", op, ET_MAX_DIMS);
  for (uint32_t d = 0; d < self->ndim; d++)
    {
      sizes[d] = self->sizes[d];
      strides[d] = self->strides[d] * 2;
    }
  sizes[self->ndim] = 2;
  strides[self->ndim] = 1;
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim + 1, sizes));
  if (out->numel == 0)
    return ET_OK;
  return _executorch_copy_strided (ctx, out->ndim, out->sizes, out->dim_order, out->data, real, 0, out->strides,
                                   self->data, real, 0, strides);
}

const EtKernel _executorch_strided_view_kernels[] = {
  { "aten::alias_copy.out", alias_copy_out, NULL },
  { "aten::detach_copy.out", detach_copy_out, NULL },
  { "aten::lift_fresh_copy.out", lift_fresh_copy_out, NULL },
  { "aten::t_copy.out", t_copy_out, NULL },
  { "aten::transpose_copy.int_out", transpose_copy_int_out, NULL },
  { "aten::narrow_copy.out", narrow_copy_out, NULL },
  { "aten::diagonal_copy.out", diagonal_copy_out, NULL },
  { "aten::unfold_copy.out", unfold_copy_out, NULL },
  { "aten::as_strided_copy.out", as_strided_copy_out, NULL },
  { "aten::flip.out", flip_out, NULL },
  { "aten::view_as_real_copy.out", view_as_real_copy_out, NULL },
};

const size_t _executorch_strided_view_n_kernels = KERNEL_N_ELEMENTS (_executorch_strided_view_kernels);
