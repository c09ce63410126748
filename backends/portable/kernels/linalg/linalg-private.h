/* linalg-private.h: what a load-time rewrite leaves linear-algebra.c's kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "executorch-plugin.h"

#include <stdint.h>

/* The kernel an addmm instruction calls once its constant second matrix
 * was packed at load (rewrites/mat2-packing.c): addmm's own function, with
 * this as its user data.  The kernel uses @packed only for that matrix
 * (@data, @k x @n, element strides @rs and @cs) and reads it as it lies
 * otherwise. */
typedef struct
{
  EtKernel kernel;
  const void *data;
  int64_t k, n, rs, cs;
  int64_t nr; /* the strips' width */
  const float *packed;
} KernelPackedMat2;

/* What runs on an addmm's result after it, fused (rewrites/linear-fusion.c). */
typedef enum
{
  KERNEL_LINEAR_THEN_CLAMP,     /* relu, hardtanh, clamp: [lo, hi] */
  KERNEL_LINEAR_THEN_GELU,      /* gelu, approximate "none" */
  KERNEL_LINEAR_THEN_GELU_TANH, /* gelu, approximate "tanh" */
  KERNEL_LINEAR_THEN_ADD,       /* add of @residual, alpha 1 */
} KernelLinearThen;

/* An addmm instruction fused with the elementwise operator after it: the
 * addmm of its own arguments, written to its own out as exported (an
 * alias of that out may be read later), and the operator's result on
 * each tile of it, written to @out (the operator's out) while the tile is
 * in cache.  The operator's instruction then does nothing.  @packed: the
 * second matrix's packing (mat2-packing.c), or NULL. */
typedef struct
{
  EtKernel kernel;
  const KernelPackedMat2 *packed;
  KernelLinearThen then;
  float lo, hi;
  EtValue *residual; /* KERNEL_LINEAR_THEN_ADD */
  EtValue *out;
} KernelLinearFusion;

/* The kernel of a fused addmm instruction (user data: KernelLinearFusion). */
EtError _executorch_addmm_fused_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args);
