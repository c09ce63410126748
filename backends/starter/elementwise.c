/* elementwise.c: broadcasting binary ops, comparisons, relu and copy_
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kernels.h"

#include <math.h>

typedef enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_GT, OP_LT, OP_GE, OP_LE, OP_EQ } BinaryOp;

static inline double
apply (BinaryOp op, double a, double b, double alpha)
{
  switch (op)
    {
    case OP_ADD: return a + alpha * b;
    case OP_SUB: return a - alpha * b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    case OP_GT: return a > b;
    case OP_LT: return a < b;
    case OP_GE: return a >= b;
    case OP_LE: return a <= b;
    case OP_EQ: return a == b;
    }
  return 0;
}

static EtError
broadcast_sizes (EtKernelContext *ctx, const EtTensor *a, const EtTensor *b, uint32_t *ndim, int64_t *sizes)
{
  *ndim = a->ndim > b->ndim ? a->ndim : b->ndim;
  for (uint32_t d = 0; d < *ndim; d++)
    {
      int64_t sa = d + a->ndim >= *ndim ? a->sizes[d + a->ndim - *ndim] : 1;
      int64_t sb = d + b->ndim >= *ndim ? b->sizes[d + b->ndim - *ndim] : 1;
      if (sa != sb && sa != 1 && sb != 1)
        return FAIL (ctx, "sizes %lld and %lld of dimension %u cannot be broadcast", (long long) sa,
                     (long long) sb, d);
      sizes[d] = sa == 1 ? sb : sa;
    }
  return ET_OK;
}

/* out = a op (alpha * b) with broadcasting; b may be a scalar (NULL tensor). */
static EtError
binary (EtKernelContext *ctx, BinaryOp op, EtTensor *a, EtTensor *b, double scalar, double alpha, EtTensor *out)
{
  int64_t sizes[ET_MAX_DIMS] = { 0 }, coord[ET_MAX_DIMS] = { 0 };
  uint32_t ndim = a->ndim;
  EtError code;

  if (b != NULL)
    {
      if ((code = broadcast_sizes (ctx, a, b, &ndim, sizes)) != ET_OK)
        return code;
    }
  else
    for (uint32_t d = 0; d < ndim; d++)
      sizes[d] = a->sizes[d];
  if ((code = kernel_resize (ctx, out, ndim, sizes)) != ET_OK)
    return code;

  /* The common case, vectorised: same-shape contiguous float32. */
  if (b != NULL && a->scalar_type == ET_SCALAR_FLOAT && b->scalar_type == ET_SCALAR_FLOAT &&
      out->scalar_type == ET_SCALAR_FLOAT && a->numel == out->numel && b->numel == out->numel &&
      a->ndim == b->ndim && et_tensor_is_contiguous (a) && et_tensor_is_contiguous (b) &&
      et_tensor_is_contiguous (out) && op <= OP_DIV)
    {
      const float *x = a->data, *y = b->data;
      float *z = out->data, fa = (float) alpha;
      int64_t n = out->numel;
      switch (op)
        {
        case OP_ADD: for (int64_t i = 0; i < n; i++) z[i] = x[i] + fa * y[i]; break;
        case OP_SUB: for (int64_t i = 0; i < n; i++) z[i] = x[i] - fa * y[i]; break;
        case OP_MUL: for (int64_t i = 0; i < n; i++) z[i] = x[i] * y[i]; break;
        default: for (int64_t i = 0; i < n; i++) z[i] = x[i] / y[i]; break;
        }
      return ET_OK;
    }
  for (int64_t i = 0; i < out->numel; i++)
    {
      double x = kernel_load (a, kernel_offset (a, ndim, coord));
      double y = b != NULL ? kernel_load (b, kernel_offset (b, ndim, coord)) : scalar;
      kernel_store (out, kernel_offset (out, ndim, coord), apply (op, x, y, alpha));
      kernel_next (ndim, sizes, coord);
    }
  return ET_OK;
}

static EtError
tensor_tensor (EtKernelContext *ctx, EtValue **args, uint32_t n, BinaryOp op, bool has_alpha)
{
  EtTensor *a, *b, *out;
  double alpha = 1.0;
  uint32_t out_index = has_alpha ? 3 : 2;
  EtError code;

  if (n != out_index + 2)
    return FAIL (ctx, "expected %u arguments, got %u", out_index + 2, n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &a)) || (code = kernel_tensor_arg (ctx, args, 1, &b)) ||
      (code = kernel_tensor_arg (ctx, args, out_index, &out)))
    return code;
  if (has_alpha && !et_value_to_double (args[2], &alpha))
    return FAIL (ctx, "alpha is not a number");
  return binary (ctx, op, a, b, 0, alpha, out);
}

static EtError
tensor_scalar (EtKernelContext *ctx, EtValue **args, uint32_t n, BinaryOp op, bool has_alpha)
{
  EtTensor *a, *out;
  double b, alpha = 1.0;
  uint32_t out_index = has_alpha ? 3 : 2;
  EtError code;

  if (n != out_index + 2)
    return FAIL (ctx, "expected %u arguments, got %u", out_index + 2, n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &a)) || (code = kernel_tensor_arg (ctx, args, out_index, &out)))
    return code;
  if (!et_value_to_double (args[1], &b) || (has_alpha && !et_value_to_double (args[2], &alpha)))
    return FAIL (ctx, "scalar argument is not a number");
  return binary (ctx, op, a, NULL, b, alpha, out);
}

#define TT(fn, op, alpha) \
  static EtError fn (EtKernelContext *c, EtValue **a, uint32_t n) { return tensor_tensor (c, a, n, op, alpha); }
#define TS(fn, op, alpha) \
  static EtError fn (EtKernelContext *c, EtValue **a, uint32_t n) { return tensor_scalar (c, a, n, op, alpha); }

TT (add_out, OP_ADD, true)
TT (sub_out, OP_SUB, true)
TT (mul_out, OP_MUL, false)
TT (div_out, OP_DIV, false)
TS (add_scalar_out, OP_ADD, true)
TS (mul_scalar_out, OP_MUL, false)
TS (gt_scalar_out, OP_GT, false)
TS (lt_scalar_out, OP_LT, false)
TS (ge_scalar_out, OP_GE, false)
TS (le_scalar_out, OP_LE, false)
TS (eq_scalar_out, OP_EQ, false)

static EtError
relu_out (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *x, *out;
  int64_t coord[ET_MAX_DIMS] = { 0 };
  EtError code;

  if (n != 3)
    return FAIL (ctx, "expected 3 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &x)) || (code = kernel_tensor_arg (ctx, args, 1, &out)) ||
      (code = kernel_resize (ctx, out, x->ndim, x->sizes)))
    return code;
  if (x->scalar_type == ET_SCALAR_FLOAT && out->scalar_type == ET_SCALAR_FLOAT && et_tensor_is_contiguous (x) &&
      et_tensor_is_contiguous (out))
    {
      const float *src = x->data;
      float *dst = out->data;
      for (int64_t i = 0; i < x->numel; i++)
        dst[i] = src[i] > 0.0f ? src[i] : 0.0f;
      return ET_OK;
    }
  for (int64_t i = 0; i < x->numel; i++)
    {
      double v = kernel_load (x, kernel_offset (x, x->ndim, coord));
      kernel_store (out, kernel_offset (out, x->ndim, coord), v > 0 ? v : 0);
      kernel_next (x->ndim, x->sizes, coord);
    }
  return ET_OK;
}

/* aten::copy_(self, src, non_blocking, ret): in place, src broadcast to self. */
static EtError
copy_inplace (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *self, *src;
  int64_t coord[ET_MAX_DIMS] = { 0 };
  EtError code;

  if (n != 4)
    return FAIL (ctx, "expected 4 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &self)) || (code = kernel_tensor_arg (ctx, args, 1, &src)))
    return code;
  if (src->ndim > self->ndim)
    return FAIL (ctx, "source has more dimensions than the destination");
  for (uint32_t d = 0; d < src->ndim; d++)
    if (src->sizes[d] != 1 && src->sizes[d] != self->sizes[d + self->ndim - src->ndim])
      return FAIL (ctx, "source cannot be broadcast to the destination");
  if (src->numel == self->numel && src->scalar_type == self->scalar_type && et_tensor_is_contiguous (src) &&
      et_tensor_is_contiguous (self))
    {
      kernel_copy (self, src);
      return ET_OK;
    }
  for (int64_t i = 0; i < self->numel; i++)
    {
      kernel_store (self, kernel_offset (self, self->ndim, coord),
                    kernel_load (src, kernel_offset (src, self->ndim, coord)));
      kernel_next (self->ndim, self->sizes, coord);
    }
  return ET_OK;
}

/* aten::_softmax.out(self, dim, half_to_float, out, ret), float32 contiguous rows. */
static EtError
softmax_out (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *x, *out;
  int64_t dim, inner = 1, outer = 1, length;
  EtError code;

  if (n != 5)
    return FAIL (ctx, "expected 5 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &x)) || (code = kernel_tensor_arg (ctx, args, 3, &out)))
    return code;
  if (!et_value_to_int (args[1], &dim))
    return FAIL (ctx, "dim is not an int");
  if (x->ndim == 0)
    return FAIL (ctx, "softmax of a 0-d tensor");
  if (dim < 0)
    dim += x->ndim;
  if (dim < 0 || dim >= (int64_t) x->ndim)
    return FAIL (ctx, "dim %lld is out of range", (long long) dim);
  if (x->scalar_type != ET_SCALAR_FLOAT || out->scalar_type != ET_SCALAR_FLOAT || !et_tensor_is_contiguous (x))
    return et_kernel_context_failf (ctx, ET_ERROR_NOT_SUPPORTED, "softmax supports contiguous Float only");
  if ((code = kernel_resize (ctx, out, x->ndim, x->sizes)) != ET_OK)
    return code;
  if (!et_tensor_is_contiguous (out))
    return et_kernel_context_failf (ctx, ET_ERROR_NOT_SUPPORTED, "softmax output must be contiguous");
  length = x->sizes[dim];
  for (int64_t d = 0; d < dim; d++)
    outer *= x->sizes[d];
  for (int64_t d = dim + 1; d < (int64_t) x->ndim; d++)
    inner *= x->sizes[d];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++)
      {
        const float *src = (const float *) x->data + o * length * inner + i;
        float *dst = (float *) out->data + o * length * inner + i;
        float max = -INFINITY;
        double sum = 0;
        for (int64_t k = 0; k < length; k++)
          max = fmaxf (max, src[k * inner]);
        for (int64_t k = 0; k < length; k++)
          sum += dst[k * inner] = expf (src[k * inner] - max);
        for (int64_t k = 0; k < length; k++)
          dst[k * inner] = (float) (dst[k * inner] / sum);
      }
  return ET_OK;
}

/* aten::sum.IntList_out(self, dim, keepdim, dtype, out, ret). */
static EtError
sum_out (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *x, *out;
  int64_t dims[ET_MAX_DIMS], sizes[ET_MAX_DIMS], coord[ET_MAX_DIMS] = { 0 }, out_coord[ET_MAX_DIMS];
  uint32_t n_dims = 0, out_ndim = 0;
  bool reduce[ET_MAX_DIMS] = { false }, keepdim = false;
  EtError code;

  if (n != 6)
    return FAIL (ctx, "expected 6 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &x)) || (code = kernel_tensor_arg (ctx, args, 4, &out)))
    return code;
  if (args[1]->tag != ET_VALUE_NONE && (code = kernel_int_list (ctx, args[1], dims, &n_dims)) != ET_OK)
    return code;
  if (args[2]->tag == ET_VALUE_BOOL)
    keepdim = args[2]->u.bool_value;
  if (args[1]->tag == ET_VALUE_NONE || n_dims == 0)
    for (uint32_t d = 0; d < x->ndim; d++)
      reduce[d] = true;
  for (uint32_t i = 0; i < n_dims; i++)
    {
      int64_t d = dims[i] < 0 ? dims[i] + x->ndim : dims[i];
      if (d < 0 || d >= (int64_t) x->ndim)
        return FAIL (ctx, "dim %lld is out of range", (long long) dims[i]);
      reduce[d] = true;
    }
  for (uint32_t d = 0; d < x->ndim; d++)
    if (!reduce[d] || keepdim)
      sizes[out_ndim++] = reduce[d] ? 1 : x->sizes[d];
  if ((code = kernel_resize (ctx, out, out_ndim, sizes)) != ET_OK)
    return code;
  {
    double *acc = et_kernel_context_scratch (ctx, (size_t) (out->numel > 0 ? out->numel : 1) * sizeof (double));
    int64_t contiguous[ET_MAX_DIMS];
    if (acc == NULL)
      return et_kernel_context_fail (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory");
    for (int64_t i = 0; i < out->numel; i++)
      acc[i] = 0;
    /* Row-major strides of the output, to index the accumulator. */
    for (int d = (int) out_ndim - 1, s = 1; d >= 0; d--)
      contiguous[d] = s, s *= (int) sizes[d];
    for (int64_t i = 0; i < x->numel; i++)
      {
        int64_t slot = 0;
        uint32_t k = 0;
        for (uint32_t d = 0; d < x->ndim; d++)
          if (!reduce[d] || keepdim)
            out_coord[k++] = reduce[d] ? 0 : coord[d];
        for (uint32_t d = 0; d < out_ndim; d++)
          slot += out_coord[d] * contiguous[d];
        acc[slot] += kernel_load (x, kernel_offset (x, x->ndim, coord));
        kernel_next (x->ndim, x->sizes, coord);
      }
    for (uint32_t d = 0; d < out_ndim; d++)
      out_coord[d] = 0;
    for (int64_t i = 0; i < out->numel; i++)
      {
        kernel_store (out, kernel_offset (out, out_ndim, out_coord), acc[i]);
        kernel_next (out_ndim, sizes, out_coord);
      }
  }
  return ET_OK;
}

const EtKernel kernel_elementwise[] = {
  { "aten::add.out", add_out, NULL },
  { "aten::sub.out", sub_out, NULL },
  { "aten::mul.out", mul_out, NULL },
  { "aten::div.out", div_out, NULL },
  { "aten::add.Scalar_out", add_scalar_out, NULL },
  { "aten::mul.Scalar_out", mul_scalar_out, NULL },
  { "aten::gt.Scalar_out", gt_scalar_out, NULL },
  { "aten::lt.Scalar_out", lt_scalar_out, NULL },
  { "aten::ge.Scalar_out", ge_scalar_out, NULL },
  { "aten::le.Scalar_out", le_scalar_out, NULL },
  { "aten::eq.Scalar_out", eq_scalar_out, NULL },
  { "aten::relu.out", relu_out, NULL },
  { "aten::copy_", copy_inplace, NULL },
  { "aten::_softmax.out", softmax_out, NULL },
  { "aten::sum.IntList_out", sum_out, NULL },
};
const unsigned kernel_n_elementwise = sizeof kernel_elementwise / sizeof kernel_elementwise[0];
