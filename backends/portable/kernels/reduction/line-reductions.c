/* line-reductions.c: any, argmax/argmin, amax/amin, max/min, prod, var, cumsum, topk
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each kernel first copies self into a scratch buffer of "lines": the kept
 * dims outermost, the reduced dims innermost, converted to double (floating
 * computations) or int64 (integer and Bool ones).  A line is then a dense
 * run, whatever self's dim order.  Results go to a row-major buffer of out's
 * elements and are stored through the converting copy, so out may have any
 * dim order.  NaN propagates through max/min/amax/amin and is the extreme
 * value for argmax/argmin/topk (first occurrence wins), as in eager PyTorch.
 */
#include "kernels-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  uint32_t ndim;
  int64_t psizes[ET_MAX_DIMS]; /* kept dims, then reduced dims */
  uint8_t perm[ET_MAX_DIMS];   /* self dim at each permuted position */
  int64_t n_lines, len;
  bool floating;
  double *d; /* n_lines * len values (one of d/i) */
  int64_t *i;
  void *extra; /* extra_bytes after the lines */
  KernelTemp temp;
} Lines;

static EtError
lines_load (EtKernelContext *ctx, const EtTensor *self, const bool *reduce, bool floating, size_t extra_bytes, Lines *l)
{
  int64_t pstrides[ET_MAX_DIMS], flat[ET_MAX_DIMS];
  uint32_t j = 0;

  memset (l, 0, sizeof *l);
  l->ndim = self->ndim;
  l->floating = floating;
  l->n_lines = 1;
  l->len = 1;
  for (uint32_t pass = 0; pass < 2; pass++)
    for (uint32_t d = 0; d < self->ndim; d++)
      {
        if (reduce[d] != (pass == 1))
          continue;
        l->perm[j] = (uint8_t) d;
        l->psizes[j] = self->sizes[d];
        pstrides[j] = self->strides[d];
        j++;
        if (pass == 0)
          l->n_lines *= self->sizes[d];
        else
          l->len *= self->sizes[d];
      }
  size_t line_bytes = (size_t) self->numel * 8;
  line_bytes = (line_bytes + 63) & ~(size_t) 63;
  KERNEL_TRY (_executorch_temp_alloc (ctx, line_bytes + extra_bytes, &l->temp));
  l->d = l->temp.data;
  l->i = l->temp.data;
  l->extra = (char *) l->temp.data + line_bytes;
  if (self->numel == 0)
    return ET_OK;
  _executorch_contiguous_strides (self->ndim, l->psizes, flat);
  EtError err = _executorch_copy_strided (ctx, self->ndim, l->psizes, NULL, l->temp.data,
                                          floating ? ET_SCALAR_DOUBLE : ET_SCALAR_LONG, 0, flat, self->data,
                                          self->scalar_type, 0, pstrides);
  if (err != ET_OK)
    _executorch_temp_free (&l->temp);
  return err;
}

static void
lines_free (Lines *l)
{
  _executorch_temp_free (&l->temp);
}

/* Out's shape for a reduction of self. */
static EtError
resize_reduced (EtKernelContext *ctx, const EtTensor *self, const bool *reduce, bool keepdim, EtTensor *out)
{
  int64_t sizes[ET_MAX_DIMS];
  uint32_t n = 0;
  for (uint32_t d = 0; d < self->ndim; d++)
    {
      if (!reduce[d])
        sizes[n++] = self->sizes[d];
      else if (keepdim)
        sizes[n++] = 1;
    }
  return _executorch_resize (ctx, out, n, sizes);
}

/* Stores lines of @line_len (the one reduced dim resized) into @out, which
 * has self's shape except along that dim. */
static EtError
store_lines (EtKernelContext *ctx, const Lines *l, EtTensor *out, const void *buf, bool floating, int64_t line_len)
{
  int64_t sizes[ET_MAX_DIMS], ostrides[ET_MAX_DIMS], flat[ET_MAX_DIMS];
  if (out->numel == 0)
    return ET_OK;
  memcpy (sizes, l->psizes, sizeof sizes);
  if (l->ndim > 0)
    sizes[l->ndim - 1] = line_len;
  for (uint32_t j = 0; j < l->ndim; j++)
    ostrides[j] = out->strides[l->perm[j]];
  _executorch_contiguous_strides (l->ndim, sizes, flat);
  return _executorch_copy_strided (ctx, l->ndim, sizes, NULL, out->data, out->scalar_type, 0, ostrides, buf,
                                   floating ? ET_SCALAR_DOUBLE : ET_SCALAR_LONG, 0, flat);
}

static EtError
one_dim (EtKernelContext *ctx, int64_t dim, const EtTensor *self, bool *reduce, uint32_t *wrapped)
{
  uint32_t d;
  memset (reduce, 0, ET_MAX_DIMS * sizeof reduce[0]);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, true, &d));
  if (self->ndim > 0)
    reduce[d] = true;
  if (wrapped)
    *wrapped = d;
  return ET_OK;
}

static EtError
check_floating_or_int (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name)
{
  if (!_executorch_type_is_supported (t->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s dtype %s is not supported", op, name,
                        _executorch_type_name (t->scalar_type));
  return ET_OK;
}

/* ---- any ---- */

/* any over the trailing dims of a dense Bool or Byte @self into a dense
 * @out, line by line on the bytes; false where it does not apply. */
static bool
any_trailing_bytes (const EtTensor *self, const bool *reduce, EtTensor *out)
{
  uint32_t first = self->ndim;

  if ((self->scalar_type != ET_SCALAR_BOOL && self->scalar_type != ET_SCALAR_BYTE) || !et_tensor_is_contiguous (self) ||
      !et_tensor_is_contiguous (out))
    return false;
  while (first > 0 && reduce[first - 1])
    first--;
  for (uint32_t d = 0; d < first; d++)
    if (reduce[d])
      return false;
  int64_t len = 1;
  for (uint32_t d = first; d < self->ndim; d++)
    len *= self->sizes[d];
  if (len == 0 || self->numel / len != out->numel)
    return false;
  const uint8_t *x = self->data;
  uint8_t *o = out->data;
  for (int64_t k = 0; k < out->numel; k++)
    {
      const uint8_t *line = x + k * len;
      uint8_t any = 0;
      /* OR the line: no early exit, so the loop vectorises */
      for (int64_t j = 0; j < len; j++)
        any |= line[j];
      o[k] = any != 0;
    }
  return true;
}

static EtError
any_common (EtKernelContext *ctx, EtTensor *self, const bool *reduce, bool keepdim, EtTensor *out)
{
  const char *op = "any";
  Lines l;
  EtError err;

  KERNEL_TRY (check_floating_or_int (ctx, op, self, "self"));
  if (out->scalar_type != ET_SCALAR_BOOL && out->scalar_type != ET_SCALAR_BYTE)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out must be Bool or Byte, not %s", op,
                        _executorch_type_name (out->scalar_type));
  KERNEL_TRY (resize_reduced (ctx, self, reduce, keepdim, out));
  if (out->numel == 0)
    return ET_OK;
  if (any_trailing_bytes (self, reduce, out))
    return ET_OK;
  bool floating = _executorch_type_is_floating (self->scalar_type);
  KERNEL_TRY (lines_load (ctx, self, reduce, floating, (size_t) out->numel * 8, &l));
  int64_t *res = l.extra;
  for (int64_t k = 0; k < l.n_lines; k++)
    {
      int64_t any = 0;
      for (int64_t j = 0; j < l.len && !any; j++)
        any = floating ? l.d[k * l.len + j] != 0.0 : l.i[k * l.len + j] != 0;
      res[k] = any;
    }
  err = _executorch_store_flat (ctx, out, res, false);
  lines_free (&l);
  return err;
}

/* (self, dim?, keepdim, out, ret) */
static EtError
any_dims_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], keepdim;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_reduce_dims (ctx, args, 1, self, true, true, reduce));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "keepdim", &keepdim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  return any_common (ctx, self, reduce, keepdim, out);
}

/* (self, dim, keepdim, out, ret) */
static EtError
any_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], keepdim;
  int64_t dim;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "keepdim", &keepdim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (one_dim (ctx, dim, self, reduce, NULL));
  return any_common (ctx, self, reduce, keepdim, out);
}

/* (self, out, ret) */
static EtError
any_all_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "out", &out));
  for (uint32_t d = 0; d < ET_MAX_DIMS; d++)
    reduce[d] = true;
  return any_common (ctx, self, reduce, false, out);
}

/* ---- Extremes ---- */

/* Index of the max (or min) of a line; NaN wins, the first occurrence wins. */
static int64_t
line_arg_extreme (const Lines *l, int64_t k, bool want_max)
{
  int64_t best = 0;
  if (l->floating)
    {
      const double *x = l->d + k * l->len;
      if (isnan (x[0]))
        return 0;
      for (int64_t j = 1; j < l->len; j++)
        {
          if (isnan (x[j]))
            return j;
          if (want_max ? x[j] > x[best] : x[j] < x[best])
            best = j;
        }
    }
  else
    {
      const int64_t *x = l->i + k * l->len;
      for (int64_t j = 1; j < l->len; j++)
        if (want_max ? x[j] > x[best] : x[j] < x[best])
          best = j;
    }
  return best;
}

static EtError
check_nonempty (EtKernelContext *ctx, const char *op, const Lines *l)
{
  if (l->len == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot reduce over an empty dimension", op);
  return ET_OK;
}

/* values and/or indices of the extreme of each line. */
static EtError
extreme_common (EtKernelContext *ctx, const char *op, EtTensor *self, const bool *reduce, bool keepdim,
                EtTensor *values, EtTensor *indices, bool want_max)
{
  Lines l;
  EtError err = ET_OK;
  int64_t len = 1;

  KERNEL_TRY (check_floating_or_int (ctx, op, self, "self"));
  if (values != NULL)
    KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, values, "out"));
  if (indices != NULL)
    KERNEL_TRY (_executorch_check_long (ctx, op, indices, "indices"));
  for (uint32_t d = 0; d < self->ndim; d++)
    if (reduce[d])
      len *= self->sizes[d];
  if (len == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot reduce over an empty dimension", op);
  if (values != NULL)
    KERNEL_TRY (resize_reduced (ctx, self, reduce, keepdim, values));
  if (indices != NULL)
    KERNEL_TRY (resize_reduced (ctx, self, reduce, keepdim, indices));
  EtTensor *any_out = values != NULL ? values : indices;
  if (any_out->numel == 0)
    return ET_OK;

  bool floating = _executorch_type_is_floating (self->scalar_type);
  KERNEL_TRY (lines_load (ctx, self, reduce, floating, (size_t) any_out->numel * 16, &l));
  err = check_nonempty (ctx, op, &l);
  if (err == ET_OK)
    {
      int64_t *idx = l.extra;
      int64_t *vi = idx + l.n_lines;
      double *vd = (double *) vi;
      for (int64_t k = 0; k < l.n_lines; k++)
        {
          int64_t j = line_arg_extreme (&l, k, want_max);
          idx[k] = j;
          if (floating)
            vd[k] = l.d[k * l.len + j];
          else
            vi[k] = l.i[k * l.len + j];
        }
      if (values != NULL)
        err = _executorch_store_flat (ctx, values, vi, floating);
      if (err == ET_OK && indices != NULL)
        err = _executorch_store_flat (ctx, indices, idx, false);
    }
  lines_free (&l);
  return err;
}

/* (self, dim?, keepdim, out, ret) */
static EtError
arg_extreme_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool want_max)
{
  const char *op = want_max ? "argmax" : "argmin";
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], keepdim, has_dim;
  int64_t dim;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 1, "dim", &has_dim, &dim));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "keepdim", &keepdim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  if (has_dim)
    {
      KERNEL_TRY (one_dim (ctx, dim, self, reduce, NULL));
    }
  else
    {
      for (uint32_t d = 0; d < ET_MAX_DIMS; d++)
        reduce[d] = true;
    }
  /* Without dim the index is the flat row-major one over all dims. */
  return extreme_common (ctx, op, self, reduce, keepdim, NULL, out, want_max);
}

static EtError
argmax_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return arg_extreme_out (ctx, args, n_args, true);
}

static EtError
argmin_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return arg_extreme_out (ctx, args, n_args, false);
}

/* (self, dim, keepdim, out, ret) */
static EtError
amax_amin_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool want_max)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], keepdim;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_reduce_dims (ctx, args, 1, self, false, false, reduce));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "keepdim", &keepdim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  return extreme_common (ctx, want_max ? "amax" : "amin", self, reduce, keepdim, out, NULL, want_max);
}

static EtError
amax_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return amax_amin_out (ctx, args, n_args, true);
}

static EtError
amin_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return amax_amin_out (ctx, args, n_args, false);
}

/* (self, dim, keepdim, values, indices, ret) */
static EtError
max_min_dim (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool want_max)
{
  EtTensor *self, *values, *indices;
  bool reduce[ET_MAX_DIMS], keepdim;
  int64_t dim;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "keepdim", &keepdim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, want_max ? "max" : "min", &values));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, want_max ? "max_values" : "min_indices", &indices));
  KERNEL_TRY (one_dim (ctx, dim, self, reduce, NULL));
  return extreme_common (ctx, want_max ? "max.dim" : "min.dim", self, reduce, keepdim, values, indices, want_max);
}

static EtError
max_dim_max (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return max_min_dim (ctx, args, n_args, true);
}

static EtError
min_dim_min (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return max_min_dim (ctx, args, n_args, false);
}

/* (self, out, ret) */
static EtError
max_min_unary (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool want_max)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "out", &out));
  for (uint32_t d = 0; d < ET_MAX_DIMS; d++)
    reduce[d] = true;
  return extreme_common (ctx, want_max ? "max" : "min", self, reduce, false, out, NULL, want_max);
}

static EtError
max_unary_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return max_min_unary (ctx, args, n_args, true);
}

static EtError
min_unary_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return max_min_unary (ctx, args, n_args, false);
}

/* ---- prod ---- */

static EtError
check_dtype_arg (EtKernelContext *ctx, const char *op, const EtTensor *self, bool has_dtype, int64_t dtype,
                 const EtTensor *out)
{
  KERNEL_TRY (check_floating_or_int (ctx, op, self, "self"));
  KERNEL_TRY (check_floating_or_int (ctx, op, out, "out"));
  if (has_dtype && dtype != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: dtype %" PRId64 " differs from out dtype %s", op, dtype,
                        _executorch_type_name (out->scalar_type));
  if (!has_dtype && !_executorch_can_cast (self->scalar_type, out->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot compute %s into %s", op,
                        _executorch_type_name (self->scalar_type), _executorch_type_name (out->scalar_type));
  return ET_OK;
}

static EtError
prod_common (EtKernelContext *ctx, EtTensor *self, const bool *reduce, bool keepdim, bool has_dtype, int64_t dtype,
             EtTensor *out)
{
  Lines l;
  EtError err;

  KERNEL_TRY (check_dtype_arg (ctx, "prod", self, has_dtype, dtype, out));
  KERNEL_TRY (resize_reduced (ctx, self, reduce, keepdim, out));
  if (out->numel == 0)
    return ET_OK;
  bool floating = _executorch_type_is_floating (out->scalar_type);
  KERNEL_TRY (lines_load (ctx, self, reduce, floating, (size_t) out->numel * 8, &l));
  double *rd = l.extra;
  int64_t *ri = l.extra;
  for (int64_t k = 0; k < l.n_lines; k++)
    {
      if (floating)
        {
          double p = 1.0;
          for (int64_t j = 0; j < l.len; j++)
            p *= l.d[k * l.len + j];
          rd[k] = p;
        }
      else
        {
          uint64_t p = 1;
          for (int64_t j = 0; j < l.len; j++)
            p *= (uint64_t) l.i[k * l.len + j];
          ri[k] = (int64_t) p;
        }
    }
  err = _executorch_store_flat (ctx, out, l.extra, floating);
  lines_free (&l);
  return err;
}

/* (self, dtype?, out, ret) */
static EtError
prod_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], has_dtype;
  int64_t dtype;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 1, "dtype", &has_dtype, &dtype));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  for (uint32_t d = 0; d < ET_MAX_DIMS; d++)
    reduce[d] = true;
  return prod_common (ctx, self, reduce, false, has_dtype, dtype, out);
}

/* (self, dim, keepdim, dtype?, out, ret) */
static EtError
prod_int_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], keepdim, has_dtype;
  int64_t dim, dtype;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "keepdim", &keepdim));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 3, "dtype", &has_dtype, &dtype));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (one_dim (ctx, dim, self, reduce, NULL));
  return prod_common (ctx, self, reduce, keepdim, has_dtype, dtype, out);
}

/* ---- var and var_mean ---- */

static EtError
var_common (EtKernelContext *ctx, const char *op, EtTensor *self, const bool *reduce, double correction, bool keepdim,
            EtTensor *var, EtTensor *mean)
{
  Lines l;
  EtError err;

  if (!_executorch_type_is_floating (self->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self must be floating, not %s", op,
                        _executorch_type_name (self->scalar_type));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, var, mean ? "out0" : "out"));
  if (mean != NULL)
    KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, mean, "out1"));
  KERNEL_TRY (resize_reduced (ctx, self, reduce, keepdim, var));
  if (mean != NULL)
    KERNEL_TRY (resize_reduced (ctx, self, reduce, keepdim, mean));
  if (var->numel == 0)
    return ET_OK;
  KERNEL_TRY (lines_load (ctx, self, reduce, true, (size_t) var->numel * 16, &l));
  double *rv = l.extra, *rm = rv + l.n_lines;
  for (int64_t k = 0; k < l.n_lines; k++)
    {
      const double *x = l.d + k * l.len;
      double s = 0.0, m2 = 0.0;
      for (int64_t j = 0; j < l.len; j++)
        s += x[j];
      double mu = s / (double) l.len;
      for (int64_t j = 0; j < l.len; j++)
        m2 += (x[j] - mu) * (x[j] - mu);
      double dof = (double) l.len - correction;
      rv[k] = m2 / (dof > 0.0 ? dof : 0.0);
      rm[k] = mu;
    }
  err = _executorch_store_flat (ctx, var, rv, true);
  if (err == ET_OK && mean != NULL)
    err = _executorch_store_flat (ctx, mean, rm, true);
  lines_free (&l);
  return err;
}

/* (self, dim?, unbiased, keepdim, out, ret) */
static EtError
var_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], unbiased, keepdim;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_reduce_dims (ctx, args, 1, self, true, false, reduce));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "unbiased", &unbiased));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 3, "keepdim", &keepdim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  return var_common (ctx, "var", self, reduce, unbiased ? 1.0 : 0.0, keepdim, out, NULL);
}

static EtError
correction_arg (EtKernelContext *ctx, EtValue **args, uint32_t i, double *correction)
{
  KernelScalar s;
  if (args[i] != NULL && args[i]->tag == ET_VALUE_NONE)
    {
      *correction = 1.0;
      return ET_OK;
    }
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, i, "correction", &s));
  *correction = s.d;
  return ET_OK;
}

/* (self, dim?, correction?, keepdim, out, ret) */
static EtError
var_correction_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], keepdim;
  double correction;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_reduce_dims (ctx, args, 1, self, true, false, reduce));
  KERNEL_TRY (correction_arg (ctx, args, 2, &correction));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 3, "keepdim", &keepdim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  return var_common (ctx, "var", self, reduce, correction, keepdim, out, NULL);
}

/* (self, dim?, correction?, keepdim, out0, out1, ret) */
static EtError
var_mean_correction_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out0, *out1;
  bool reduce[ET_MAX_DIMS], keepdim;
  double correction;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 7));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_reduce_dims (ctx, args, 1, self, true, false, reduce));
  KERNEL_TRY (correction_arg (ctx, args, 2, &correction));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 3, "keepdim", &keepdim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out0", &out0));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 5, "out1", &out1));
  return var_common (ctx, "var_mean", self, reduce, correction, keepdim, out0, out1);
}

/* ---- cumsum ---- */

/* (self, dim, dtype?, out, ret) */
static EtError
cumsum_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool reduce[ET_MAX_DIMS], has_dtype;
  int64_t dim, dtype;
  Lines l;
  EtError err;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 2, "dtype", &has_dtype, &dtype));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (one_dim (ctx, dim, self, reduce, NULL));
  KERNEL_TRY (check_dtype_arg (ctx, "cumsum", self, has_dtype, dtype, out));
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  if (out->numel == 0)
    return ET_OK;
  bool floating = _executorch_type_is_floating (out->scalar_type);
  KERNEL_TRY (lines_load (ctx, self, reduce, floating, 0, &l));
  for (int64_t k = 0; k < l.n_lines; k++)
    {
      if (floating)
        {
          double *x = l.d + k * l.len, s = 0.0;
          for (int64_t j = 0; j < l.len; j++)
            x[j] = s += x[j];
        }
      else
        {
          int64_t *x = l.i + k * l.len;
          uint64_t s = 0;
          for (int64_t j = 0; j < l.len; j++)
            {
              s += (uint64_t) x[j];
              x[j] = (int64_t) s;
            }
        }
    }
  err = store_lines (ctx, &l, out, l.temp.data, floating, l.len);
  lines_free (&l);
  return err;
}

/* ---- topk ---- */

typedef struct
{
  double v;
  int64_t iv;
  int64_t index;
} Entry;

static int
cmp_largest_f (const void *pa, const void *pb)
{
  const Entry *a = pa, *b = pb;
  bool na = isnan (a->v), nb = isnan (b->v);
  if (na != nb)
    return na ? -1 : 1;
  if (!na && a->v != b->v)
    return a->v > b->v ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int
cmp_smallest_f (const void *pa, const void *pb)
{
  const Entry *a = pa, *b = pb;
  bool na = isnan (a->v), nb = isnan (b->v);
  if (na != nb)
    return na ? 1 : -1;
  if (!na && a->v != b->v)
    return a->v < b->v ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int
cmp_largest_i (const void *pa, const void *pb)
{
  const Entry *a = pa, *b = pb;
  if (a->iv != b->iv)
    return a->iv > b->iv ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int
cmp_smallest_i (const void *pa, const void *pb)
{
  const Entry *a = pa, *b = pb;
  if (a->iv != b->iv)
    return a->iv < b->iv ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* (self, k, dim, largest, sorted, values, indices, ret) */
static EtError
topk_values (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "topk";
  EtTensor *self, *values, *indices;
  bool reduce[ET_MAX_DIMS], largest, sorted;
  int64_t k, dim, sizes[ET_MAX_DIMS];
  uint32_t d;
  Lines l;
  EtError err;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 8));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "k", &k));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "dim", &dim));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 3, "largest", &largest));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 4, "sorted", &sorted));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 5, "values", &values));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 6, "indices", &indices));
  KERNEL_TRY (check_floating_or_int (ctx, op, self, "self"));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, values, "values"));
  KERNEL_TRY (_executorch_check_long (ctx, op, indices, "indices"));
  KERNEL_TRY (one_dim (ctx, dim, self, reduce, &d));
  int64_t len = self->ndim ? self->sizes[d] : 1;
  if (k < 0 || k > len || (self->ndim == 0 && k != 1))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: k %" PRId64 " is out of range for dim %u of size %" PRId64,
                        op, k, d, len);
  memcpy (sizes, self->sizes, sizeof sizes);
  if (self->ndim)
    sizes[d] = k;
  KERNEL_TRY (_executorch_resize (ctx, values, self->ndim, sizes));
  KERNEL_TRY (_executorch_resize (ctx, indices, self->ndim, sizes));
  if (values->numel == 0)
    return ET_OK;

  bool floating = _executorch_type_is_floating (self->scalar_type);
  int64_t n_lines = self->numel / len;
  size_t extra = (size_t) len * sizeof (Entry) + (size_t) n_lines * (size_t) k * 16;
  KERNEL_TRY (lines_load (ctx, self, reduce, floating, extra, &l));
  Entry *e = l.extra;
  int64_t *rv = (int64_t *) (e + len), *ri = rv + n_lines * k;
  double *rvd = (double *) rv;
  int (*cmp) (const void *, const void *) =
      floating ? (largest ? cmp_largest_f : cmp_smallest_f) : (largest ? cmp_largest_i : cmp_smallest_i);
  for (int64_t line = 0; line < l.n_lines; line++)
    {
      for (int64_t j = 0; j < len; j++)
        {
          e[j].index = j;
          if (floating)
            e[j].v = l.d[line * len + j];
          else
            e[j].iv = l.i[line * len + j];
        }
      qsort (e, (size_t) len, sizeof e[0], cmp);
      for (int64_t j = 0; j < k; j++)
        {
          if (floating)
            rvd[line * k + j] = e[j].v;
          else
            rv[line * k + j] = e[j].iv;
          ri[line * k + j] = e[j].index;
        }
    }
  err = store_lines (ctx, &l, values, rv, floating, k);
  if (err == ET_OK)
    err = store_lines (ctx, &l, indices, ri, false, k);
  lines_free (&l);
  return err;
}

const EtKernel _executorch_line_reductions_kernels[] = {
  { "aten::any.dims_out", any_dims_out, NULL },
  { "aten::any.out", any_out, NULL },
  { "aten::any.all_out", any_all_out, NULL },
  { "aten::argmax.out", argmax_out, NULL },
  { "aten::argmin.out", argmin_out, NULL },
  { "aten::amax.out", amax_out, NULL },
  { "aten::amin.out", amin_out, NULL },
  { "aten::max.dim_max", max_dim_max, NULL },
  { "aten::min.dim_min", min_dim_min, NULL },
  { "aten::max.unary_out", max_unary_out, NULL },
  { "aten::min.unary_out", min_unary_out, NULL },
  { "aten::prod.out", prod_out, NULL },
  { "aten::prod.int_out", prod_int_out, NULL },
  { "aten::var.out", var_out, NULL },
  { "aten::var.correction_out", var_correction_out, NULL },
  { "aten::var_mean.correction_out", var_mean_correction_out, NULL },
  { "aten::cumsum.out", cumsum_out, NULL },
  { "aten::topk.values", topk_values, NULL },
};

const size_t _executorch_line_reductions_n_kernels = KERNEL_N_ELEMENTS (_executorch_line_reductions_kernels);
