/* distance.c: _cdist_forward and _pdist_forward (p-norm distances)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * dist(a, b) = (sum |a_k - b_k|^p)^(1/p); p = 0 counts the differing
 * coordinates and p = inf takes the largest difference, as eager does.
 * Everything is computed directly in double, whatever compute_mode asks:
 * eager's matrix-product shortcut for p = 2 only changes rounding.
 */
#include "kernels-private.h"

#include <math.h>
#include <string.h>

static double
distance (const double *a, const double *b, int64_t m, double p)
{
  double acc = 0.0;
  if (p == 0.0)
    {
      for (int64_t k = 0; k < m; k++)
        acc += a[k] != b[k];
      return acc;
    }
  if (isinf (p))
    {
      for (int64_t k = 0; k < m; k++)
        {
          double d = fabs (a[k] - b[k]);
          if (d > acc || isnan (d))
            acc = d;
        }
      return acc;
    }
  if (p == 1.0)
    {
      for (int64_t k = 0; k < m; k++)
        acc += fabs (a[k] - b[k]);
      return acc;
    }
  if (p == 2.0)
    {
      for (int64_t k = 0; k < m; k++)
        acc += (a[k] - b[k]) * (a[k] - b[k]);
      return sqrt (acc);
    }
  for (int64_t k = 0; k < m; k++)
    acc += pow (fabs (a[k] - b[k]), p);
  return pow (acc, 1.0 / p);
}

static EtError
read_p (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *op, double *p)
{
  const EtValue *v = args[i];
  if (v == NULL || (v->tag != ET_VALUE_DOUBLE && v->tag != ET_VALUE_INT))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: p must be a Double", op);
  *p = v->tag == ET_VALUE_DOUBLE ? v->u.double_value : (double) v->u.int_value;
  if (!(*p >= 0.0))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: p must be non-negative, not %g", op, *p);
  return ET_OK;
}

static EtError
check_floating (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name, const EtTensor *out)
{
  if (!_executorch_type_is_floating (t->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s must be floating, not %s", op, name,
                        _executorch_type_name (t->scalar_type));
  if (t->scalar_type != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out dtype %s differs from %s dtype %s", op,
                        _executorch_type_name (out->scalar_type), name, _executorch_type_name (t->scalar_type));
  return ET_OK;
}

/* Row-major double copy of @t into @buf. */
static EtError
load_all (EtKernelContext *ctx, const EtTensor *t, double *buf)
{
  int64_t flat[ET_MAX_DIMS];
  if (t->numel == 0)
    return ET_OK;
  _executorch_contiguous_strides (t->ndim, t->sizes, flat);
  return _executorch_copy_strided (ctx, t->ndim, t->sizes, NULL, buf, ET_SCALAR_DOUBLE, 0, flat, t->data,
                                   t->scalar_type, 0, t->strides);
}

/* (x1 [..., P, M], x2 [..., R, M], p, compute_mode?, out [..., P, R], ret) */
static EtError
cdist_forward_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "_cdist_forward";
  EtTensor *x1, *x2, *out;
  double p;
  bool has_mode;
  int64_t mode, bsizes[ET_MAX_DIMS], osizes[ET_MAX_DIMS];
  uint32_t bn;
  char sa[160], sb[160];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "x1", &x1));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "x2", &x2));
  KERNEL_TRY (read_p (ctx, args, 2, op, &p));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 3, "compute_mode", &has_mode, &mode));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (check_floating (ctx, op, x1, "x1", out));
  KERNEL_TRY (check_floating (ctx, op, x2, "x2", out));
  if (has_mode && (mode < 0 || mode > 2))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: compute_mode %" PRId64 " is invalid", op, mode);
  if (x1->ndim < 2 || x2->ndim < 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: x1 and x2 must be at least 2-D", op);
  int64_t P = x1->sizes[x1->ndim - 2], R = x2->sizes[x2->ndim - 2], M = x1->sizes[x1->ndim - 1];
  if (x2->sizes[x2->ndim - 1] != M)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: x1 %s and x2 %s have different row lengths", op,
                        _executorch_format_sizes (sa, sizeof sa, x1->ndim, x1->sizes),
                        _executorch_format_sizes (sb, sizeof sb, x2->ndim, x2->sizes));
  KERNEL_TRY (_executorch_broadcast_shape (ctx, x1->ndim - 2, x1->sizes, x2->ndim - 2, x2->sizes, &bn, bsizes));
  memcpy (osizes, bsizes, bn * sizeof osizes[0]);
  osizes[bn] = P;
  osizes[bn + 1] = R;
  KERNEL_TRY (_executorch_resize (ctx, out, bn + 2, osizes));
  if (out->numel == 0)
    return ET_OK;

  int64_t nb = _executorch_numel (bn, bsizes);
  size_t n = (size_t) (x1->numel + x2->numel + out->numel);
  KernelTemp temp;
  KERNEL_TRY (_executorch_temp_alloc (ctx, n * sizeof (double), &temp));
  double *a = temp.data, *b = a + x1->numel, *o = b + x2->numel;
  EtError err = load_all (ctx, x1, a);
  if (err == ET_OK)
    err = load_all (ctx, x2, b);
  if (err == ET_OK)
    {
      /* Batch strides (in matrices) of each input, 0 where it broadcasts. */
      int64_t s1[ET_MAX_DIMS], s2[ET_MAX_DIMS], idx[ET_MAX_DIMS] = { 0 };
      uint32_t l1 = bn - (x1->ndim - 2), l2 = bn - (x2->ndim - 2);
      int64_t m1 = 1, m2 = 1;
      for (uint32_t d = bn; d-- > 0;)
        {
          int64_t z1 = d >= l1 ? x1->sizes[d - l1] : 1, z2 = d >= l2 ? x2->sizes[d - l2] : 1;
          s1[d] = z1 == 1 ? 0 : m1;
          s2[d] = z2 == 1 ? 0 : m2;
          m1 *= z1;
          m2 *= z2;
        }
      for (int64_t bi = 0; bi < nb; bi++)
        {
          int64_t o1 = 0, o2 = 0;
          for (uint32_t d = 0; d < bn; d++)
            {
              o1 += idx[d] * s1[d];
              o2 += idx[d] * s2[d];
            }
          const double *A = a + o1 * P * M, *B = b + o2 * R * M;
          double *O = o + bi * P * R;
          for (int64_t i = 0; i < P; i++)
            for (int64_t j = 0; j < R; j++)
              O[i * R + j] = distance (A + i * M, B + j * M, M, p);
          for (uint32_t d = bn; d-- > 0;)
            {
              if (++idx[d] < bsizes[d])
                break;
              idx[d] = 0;
            }
        }
      err = _executorch_store_flat (ctx, out, o, true);
    }
  _executorch_temp_free (&temp);
  return err;
}

/* (self [N, M], p, out [N (N - 1) / 2], ret) */
static EtError
pdist_forward_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "_pdist_forward";
  EtTensor *self, *out;
  double p;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (read_p (ctx, args, 1, op, &p));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (check_floating (ctx, op, self, "self", out));
  if (self->ndim != 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self must be 2-D, not %u-D", op, self->ndim);
  int64_t N = self->sizes[0], M = self->sizes[1];
  int64_t n_out = N > 1 ? N * (N - 1) / 2 : 0;
  KERNEL_TRY (_executorch_resize (ctx, out, 1, &n_out));
  if (n_out == 0)
    return ET_OK;
  KernelTemp temp;
  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) (self->numel + n_out) * sizeof (double), &temp));
  double *a = temp.data, *o = a + self->numel;
  EtError err = load_all (ctx, self, a);
  if (err == ET_OK)
    {
      int64_t w = 0;
      for (int64_t i = 0; i < N; i++)
        for (int64_t j = i + 1; j < N; j++)
          o[w++] = distance (a + i * M, a + j * M, M, p);
      err = _executorch_store_flat (ctx, out, o, true);
    }
  _executorch_temp_free (&temp);
  return err;
}

const EtKernel _executorch_distance_kernels[] = {
  { "aten::_cdist_forward.out", cdist_forward_out, NULL },
  { "aten::_pdist_forward.out", pdist_forward_out, NULL },
};

const size_t _executorch_distance_n_kernels = KERNEL_N_ELEMENTS (_executorch_distance_kernels);
