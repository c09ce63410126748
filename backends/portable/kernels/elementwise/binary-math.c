/* binary-math.c: rsub, pow (three forms), atan2, maximum, minimum, fmod, remainder,
 * floor_divide and div with a rounding mode
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * They run on the broadcasting map of binary-map.c, whose header comment
 * gives their semantics.
 */
#include "binary-map.h"

#include <string.h>

TT_KERNEL (pow_tensor_tensor_out, OP_POW)
TT_KERNEL (atan2_out, OP_ATAN2)
TT_KERNEL (maximum_out, OP_MAXIMUM)
TT_KERNEL (minimum_out, OP_MINIMUM)
TT_KERNEL (fmod_tensor_out, OP_FMOD)
TT_KERNEL (remainder_tensor_out, OP_REMAINDER)
TT_KERNEL (floor_divide_out, OP_FLOOR_DIVIDE)
TS_KERNEL (pow_tensor_scalar_out, OP_POW)
TS_KERNEL (fmod_scalar_out, OP_FMOD)
TS_KERNEL (remainder_scalar_out, OP_REMAINDER)

/* pow.Scalar_out (Scalar self, Tensor exponent, out, ret) */
static EtError
pow_scalar_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *e, *out;
  KernelScalar s;
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 0, "self", &s));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "exponent", &e));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  return _executorch_binary_map_tensor_scalar_checked (ctx, OP_POW, e, "exponent", &s, true, out);
}

/* rsub.Scalar_out (self, Scalar other, Scalar alpha, out, ret): other - alpha * self. */
static EtError
rsub_scalar_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *a, *out;
  KernelScalar s, alpha_s;
  KernelKindValue alpha;
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &a));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 1, "other", &s));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 2, "alpha", &alpha_s));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, a, "self"));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  int common = _executorch_promote_with_scalar (a->scalar_type, &s);
  if (out->scalar_type != common)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "rsub: out dtype must be %s, not %s",
                        _executorch_type_name (common), _executorch_type_name (out->scalar_type));
  if (alpha_s.kind == KERNEL_SCALAR_KIND_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "rsub: alpha must not be a Bool");
  KERNEL_TRY (_executorch_binary_map_check_common (ctx, OP_RSUB, common));
  KERNEL_TRY (_executorch_scalar_to_compute (ctx, &alpha_s, common, "alpha", &alpha));
  return _executorch_binary_map_tensor_scalar_run (ctx, OP_RSUB, a, &s, false, common, out, &alpha);
}

/* The common dtype of div without a rounding mode: always floating, the
 * default float for two integer inputs (PyTorch's true division). */
static int
true_div_common (int ta, int tb)
{
  bool fa = _executorch_type_is_floating (ta), fb = _executorch_type_is_floating (tb);
  if (!fa && !fb)
    return ET_SCALAR_FLOAT;
  if (fa && !fb)
    return ta;
  if (fb && !fa)
    return tb;
  return _executorch_promote_types (ta, tb);
}

static EtError
rounding_mode (EtKernelContext *ctx, EtValue **args, uint32_t i, BinaryMapOp *op)
{
  bool present;
  const char *s;
  size_t len;
  KERNEL_TRY (_executorch_arg_string (ctx, args, i, "rounding_mode", &present, &s, &len));
  if (!present)
    *op = OP_DIV_TRUE;
  else if (_executorch_string_equals (s, len, "trunc"))
    *op = OP_DIV_TRUNC;
  else if (_executorch_string_equals (s, len, "floor"))
    *op = OP_DIV_FLOOR;
  else
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "div: rounding_mode must be None, \"trunc\" or \"floor\", not \"%.*s\"",
                        (int) (len > 32 ? 32 : len), s);
  return ET_OK;
}

/* div.out_mode (self, other, rounding_mode?, out, ret) */
static EtError
div_out_mode (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *a, *b, *out;
  BinaryMapOp op;
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &a));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "other", &b));
  KERNEL_TRY (rounding_mode (ctx, args, 2, &op));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, a, "self"));
  KERNEL_TRY (_executorch_check_supported (ctx, b, "other"));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  int common = op == OP_DIV_TRUE ? true_div_common (a->scalar_type, b->scalar_type)
                                 : _executorch_promote_types (a->scalar_type, b->scalar_type);
  if (op == OP_DIV_TRUE && !_executorch_type_is_floating (out->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "div: out must be floating, not %s",
                        _executorch_type_name (out->scalar_type));
  KERNEL_TRY (_executorch_binary_map_check_cast (ctx, op, common, a->scalar_type, b->scalar_type, out));
  KERNEL_TRY (_executorch_binary_map_check_common (ctx, op, common));
  const EtTensor *in[2] = { a, b };
  return _executorch_binary_map_run (ctx, op, common, out, 2, in, NULL, NULL);
}

/* div.Scalar_mode_out (self, Scalar other, rounding_mode?, out, ret) */
static EtError
div_scalar_mode_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *a, *out;
  KernelScalar s;
  BinaryMapOp op;
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &a));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 1, "other", &s));
  KERNEL_TRY (rounding_mode (ctx, args, 2, &op));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, a, "self"));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  int common;
  if (op == OP_DIV_TRUE)
    common = _executorch_type_is_floating (a->scalar_type) ? a->scalar_type : ET_SCALAR_FLOAT;
  else
    common = _executorch_promote_with_scalar (a->scalar_type, &s);
  if (out->scalar_type != common)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "div: out dtype must be %s, not %s",
                        _executorch_type_name (common), _executorch_type_name (out->scalar_type));
  KERNEL_TRY (_executorch_binary_map_check_common (ctx, op, common));
  return _executorch_binary_map_tensor_scalar_run (ctx, op, a, &s, false, common, out, NULL);
}

const EtKernel _executorch_binary_math_kernels[] = {
  { "aten::rsub.Scalar_out", rsub_scalar_out, NULL },
  { "aten::pow.Tensor_Scalar_out", pow_tensor_scalar_out, NULL },
  { "aten::pow.Tensor_Tensor_out", pow_tensor_tensor_out, NULL },
  { "aten::pow.Scalar_out", pow_scalar_out, NULL },
  { "aten::atan2.out", atan2_out, NULL },
  { "aten::maximum.out", maximum_out, NULL },
  { "aten::minimum.out", minimum_out, NULL },
  { "aten::fmod.Tensor_out", fmod_tensor_out, NULL },
  { "aten::fmod.Scalar_out", fmod_scalar_out, NULL },
  { "aten::remainder.Tensor_out", remainder_tensor_out, NULL },
  { "aten::remainder.Scalar_out", remainder_scalar_out, NULL },
  { "aten::floor_divide.out", floor_divide_out, NULL },
  { "aten::div.out_mode", div_out_mode, NULL },
  { "aten::div.Scalar_mode_out", div_scalar_mode_out, NULL },
};

const size_t _executorch_binary_math_n_kernels = KERNEL_N_ELEMENTS (_executorch_binary_math_kernels);
