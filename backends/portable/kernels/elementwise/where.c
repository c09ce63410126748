/* where.c: where.self_out and masked_fill.Scalar_out
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * They run on the broadcasting map of binary-map.c.
 */
#include "binary-map.h"

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
