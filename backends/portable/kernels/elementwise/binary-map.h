/* binary-map.h: the broadcasting map of binary-map.c, for the kernels of
 * binary-math.c, logical.c, bitwise.c and where.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "nn-private.h"

typedef enum
{
  OP_RSUB,
  OP_POW,
  OP_ATAN2,
  OP_MAXIMUM,
  OP_MINIMUM,
  OP_FMOD,
  OP_REMAINDER,
  OP_FLOOR_DIVIDE,
  OP_DIV_TRUE,
  OP_DIV_TRUNC,
  OP_DIV_FLOOR,
  OP_LOGICAL_AND,
  OP_LOGICAL_OR,
  OP_LOGICAL_XOR,
  OP_BITWISE_AND,
  OP_BITWISE_OR,
  OP_BITWISE_XOR,
  OP_SHIFT_LEFT,
  OP_SHIFT_RIGHT,
  OP_WHERE,       /* in: cond, self, other */
  OP_MASKED_FILL, /* in: self, mask, value */
} BinaryMapOp;

/* A 0-d tensor holding @v in @kind's dtype. */
void _executorch_binary_map_scalar_tensor (EtTensor *t, KernelKindValue *v, KernelComputeKind kind);
/* Resizes out to the broadcast shape of @in (or to @shape_of's shape when
 * given) and maps @op in the common dtype @common. */
EtError _executorch_binary_map_run (EtKernelContext *ctx, BinaryMapOp op, int common, EtTensor *out, uint32_t n_in,
                                    const EtTensor *const *in, const EtTensor *shape_of, const KernelKindValue *alpha);
EtError _executorch_binary_map_check_cast (EtKernelContext *ctx, BinaryMapOp op, int common, int a, int b,
                                           const EtTensor *out);
EtError _executorch_binary_map_check_common (EtKernelContext *ctx, BinaryMapOp op, int common);
/* (self, other, out, ret) */
EtError _executorch_binary_map_tensor_tensor (EtKernelContext *ctx, EtValue **args, uint32_t n_args, BinaryMapOp op);
/* The tensor op with a Scalar @s, as (tensor, scalar) or (scalar, tensor). */
EtError _executorch_binary_map_tensor_scalar_run (EtKernelContext *ctx, BinaryMapOp op, EtTensor *t,
                                                  const KernelScalar *s, bool scalar_first, int common, EtTensor *out,
                                                  const KernelKindValue *alpha);
/* Checks the dtypes of @op between tensor @t and scalar @s and runs it. */
EtError _executorch_binary_map_tensor_scalar_checked (EtKernelContext *ctx, BinaryMapOp op, EtTensor *t,
                                                      const char *t_name, const KernelScalar *s, bool scalar_first,
                                                      EtTensor *out);
/* (self, Scalar other, out, ret) */
EtError _executorch_binary_map_tensor_scalar (EtKernelContext *ctx, EtValue **args, uint32_t n_args, BinaryMapOp op);

/* A kernel of one BinaryMapOp, (self, other) tensors or (self, Scalar other). */
#define TT_KERNEL(name, OP)                                                   \
  static EtError name (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                           \
    return _executorch_binary_map_tensor_tensor (ctx, args, n_args, OP);      \
  }
#define TS_KERNEL(name, OP)                                                   \
  static EtError name (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                           \
    return _executorch_binary_map_tensor_scalar (ctx, args, n_args, OP);      \
  }
