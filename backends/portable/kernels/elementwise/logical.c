/* logical.c: logical_and, logical_or, logical_xor
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * They run on the broadcasting map of binary-map.c.
 */
#include "binary-map.h"

TT_KERNEL (logical_and_out, OP_LOGICAL_AND)
TT_KERNEL (logical_or_out, OP_LOGICAL_OR)
TT_KERNEL (logical_xor_out, OP_LOGICAL_XOR)

const EtKernel _executorch_logical_kernels[] = {
  { "aten::logical_and.out", logical_and_out, NULL },
  { "aten::logical_or.out", logical_or_out, NULL },
  { "aten::logical_xor.out", logical_xor_out, NULL },
};

const size_t _executorch_logical_n_kernels = KERNEL_N_ELEMENTS (_executorch_logical_kernels);
