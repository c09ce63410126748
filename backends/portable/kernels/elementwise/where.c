/* where.c: where.self_out and masked_fill.Scalar_out
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * They run on the broadcasting map of binary-map.c.  Float32 where over
 * dense operands of out's shape, whose condition is out's shape or picks
 * whole rows (the attention decomposition's "row fully masked" select),
 * runs on the bytes directly.
 */
#include "binary-map.h"

#include <string.h>

/* out = c ? a : b where a, b and out are dense float32 of out's sizes and
 * c is dense with out's sizes, or with its last dimension 1 (one
 * condition a row).  False where it does not apply. */
static bool
where_f32_dense (const EtTensor *c, const EtTensor *a, const EtTensor *b, EtTensor *out)
{
  if (a->scalar_type != ET_SCALAR_FLOAT || b->scalar_type != ET_SCALAR_FLOAT || out->scalar_type != ET_SCALAR_FLOAT ||
      out->ndim == 0 || !et_tensor_is_contiguous (out) || !et_tensor_is_contiguous (a) ||
      !et_tensor_is_contiguous (b) || !et_tensor_is_contiguous (c) || !_executorch_same_sizes (a, out) ||
      !_executorch_same_sizes (b, out) || c->ndim != out->ndim ||
      (a->data != out->data && _executorch_tensors_overlap (a, out)) ||
      (b->data != out->data && _executorch_tensors_overlap (b, out)))
    return false;
  uint32_t last = out->ndim - 1;
  for (uint32_t d = 0; d < last; d++)
    if (c->sizes[d] != out->sizes[d])
      return false;
  const uint8_t *cond = c->data;
  const float *x = a->data, *y = b->data;
  float *o = out->data;
  if (c->sizes[last] == out->sizes[last])
    {
      for (int64_t i = 0; i < out->numel; i++)
        o[i] = cond[i] != 0 ? x[i] : y[i];
      return true;
    }
  if (c->sizes[last] != 1)
    return false;
  int64_t row = out->sizes[last];
  for (int64_t r = 0; r < c->numel; r++)
    {
      const float *from = (cond[r] != 0 ? x : y) + r * row;
      if (from != o + r * row)
        memcpy (o + r * row, from, (size_t) row * sizeof (float));
    }
  return true;
}

/* where.self_out (condition, self, other, out, ret) */
static EtError
where_self_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *c, *a, *b, *out;
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "condition", &c));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "self", &a));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "other", &b));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  if (c->scalar_type != ET_SCALAR_BOOL && c->scalar_type != ET_SCALAR_BYTE)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "where: condition must be Bool or Byte, not %s",
                        _executorch_type_name (c->scalar_type));
  KERNEL_TRY (_executorch_check_supported (ctx, a, "self"));
  KERNEL_TRY (_executorch_check_supported (ctx, b, "other"));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  int common = _executorch_promote_types (a->scalar_type, b->scalar_type);
  if (common < 0 || out->scalar_type != common)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "where: out dtype %s must be the promotion of %s and %s",
                        _executorch_type_name (out->scalar_type), _executorch_type_name (a->scalar_type),
                        _executorch_type_name (b->scalar_type));
  const EtTensor *in[3] = { c, a, b };
  uint32_t ndim;
  int64_t sizes[ET_MAX_DIMS];
  KERNEL_TRY (_executorch_broadcast_shape_n (ctx, 3, in, &ndim, sizes));
  KERNEL_TRY (_executorch_resize (ctx, out, ndim, sizes));
  if (where_f32_dense (c, a, b, out))
    return ET_OK;
  return _executorch_binary_map_run (ctx, OP_WHERE, common, out, 3, in, NULL, NULL);
}

/* masked_fill.Scalar_out (self, mask, Scalar value, out, ret) */
static EtError
masked_fill_scalar_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *a, *mask, *out, vt;
  KernelScalar s;
  KernelKindValue v;
  char m_buf[160], s_buf[160];
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &a));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "mask", &mask));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 2, "value", &s));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, a, "self"));
  if (mask->scalar_type != ET_SCALAR_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "masked_fill: mask must be Bool, not %s",
                        _executorch_type_name (mask->scalar_type));
  if (out->scalar_type != a->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "masked_fill: out dtype %s differs from self dtype %s",
                        _executorch_type_name (out->scalar_type), _executorch_type_name (a->scalar_type));
  /* out has the broadcast shape of self and mask (eager expands both). */
  uint32_t ndim;
  int64_t sizes[ET_MAX_DIMS];
  if (_executorch_broadcast_shape (ctx, a->ndim, a->sizes, mask->ndim, mask->sizes, &ndim, sizes) != ET_OK)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "masked_fill: mask shape %s does not broadcast with self shape %s",
                        _executorch_format_sizes (m_buf, sizeof m_buf, mask->ndim, mask->sizes),
                        _executorch_format_sizes (s_buf, sizeof s_buf, a->ndim, a->sizes));
  KERNEL_TRY (_executorch_scalar_to_fill (ctx, &s, a->scalar_type, "masked_fill: value", &v));
  _executorch_binary_map_scalar_tensor (&vt, &v, _executorch_compute_kind (a->scalar_type));
  const EtTensor *in[3] = { a, mask, &vt };
  return _executorch_binary_map_run (ctx, OP_MASKED_FILL, a->scalar_type, out, 3, in, NULL, NULL);
}

const EtKernel _executorch_where_kernels[] = {
  { "aten::where.self_out", where_self_out, NULL },
  { "aten::masked_fill.Scalar_out", masked_fill_scalar_out, NULL },
};

const size_t _executorch_where_n_kernels = KERNEL_N_ELEMENTS (_executorch_where_kernels);
