/* bitwise.c: bitwise and/or/xor (tensor and Scalar forms) and the shifts
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * They run on the broadcasting map of binary-map.c, whose header comment
 * gives their semantics.
 */
#include "binary-map.h"

TT_KERNEL (bitwise_and_tensor_out, OP_BITWISE_AND)
TT_KERNEL (bitwise_or_tensor_out, OP_BITWISE_OR)
TT_KERNEL (bitwise_xor_tensor_out, OP_BITWISE_XOR)
TT_KERNEL (shift_left_tensor_out, OP_SHIFT_LEFT)
TT_KERNEL (shift_right_tensor_out, OP_SHIFT_RIGHT)
TS_KERNEL (bitwise_and_scalar_out, OP_BITWISE_AND)
TS_KERNEL (bitwise_or_scalar_out, OP_BITWISE_OR)
TS_KERNEL (bitwise_xor_scalar_out, OP_BITWISE_XOR)
TS_KERNEL (shift_left_scalar_out, OP_SHIFT_LEFT)
TS_KERNEL (shift_right_scalar_out, OP_SHIFT_RIGHT)

const EtKernel _executorch_bitwise_kernels[] = {
  { "aten::bitwise_and.Tensor_out", bitwise_and_tensor_out, NULL },
  { "aten::bitwise_or.Tensor_out", bitwise_or_tensor_out, NULL },
  { "aten::bitwise_xor.Tensor_out", bitwise_xor_tensor_out, NULL },
  { "aten::bitwise_and.Scalar_out", bitwise_and_scalar_out, NULL },
  { "aten::bitwise_or.Scalar_out", bitwise_or_scalar_out, NULL },
  { "aten::bitwise_xor.Scalar_out", bitwise_xor_scalar_out, NULL },
  { "aten::bitwise_left_shift.Tensor_out", shift_left_tensor_out, NULL },
  { "aten::bitwise_left_shift.Tensor_Scalar_out", shift_left_scalar_out, NULL },
  { "aten::bitwise_right_shift.Tensor_out", shift_right_tensor_out, NULL },
  { "aten::bitwise_right_shift.Tensor_Scalar_out", shift_right_scalar_out, NULL },
};

const size_t _executorch_bitwise_n_kernels = KERNEL_N_ELEMENTS (_executorch_bitwise_kernels);
