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
