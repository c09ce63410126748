/* gemm-private.h: the GEMM's blocking and its microkernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdint.h>

/* Register block: MR rows of A times NR columns of B.  MR is the same for
 * every microkernel, so A packed once (constant weights) suits whichever
 * runs; NR is the microkernel's (16 for AVX2 and the portable one, 32 for
 * AVX-512) and only shapes B's strips, which are packed on every call. */
#define KERNEL_GEMM_MR 6
#define KERNEL_GEMM_NR 16     /* AVX2 and portable */
#define KERNEL_GEMM_NR_MAX 32 /* == KERNEL_SGEMM_NR_MAX */

/* What a microkernel applies to its tile after the sum (and C's old value
 * when accumulating): C[r, j] += bias[r] when bias is set, then with clamp
 * C[r, j] = min (max (C[r, j], lo), hi), NaN passing through. */
typedef struct
{
  const float *bias; /* MR floats, or NULL */
  int clamp;
  float lo, hi;
} KernelGemmEpilogue;

/* C[0..MR, 0..NR] (row stride @ldc) = or += the product of an MR x kc packed
 * A strip (a[p * MR + r]) and a kc x NR packed B strip (b[p * NR + j]),
 * then @epilogue when it is not NULL. */
typedef void (*KernelGemmMicrokernel) (int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
                                       int accumulate, const KernelGemmEpilogue *epilogue);

/* The dot product of @n floats of @x and @y (both contiguous). */
typedef float (*KernelGemmDot) (const float *x, const float *y, int64_t n);

#if defined(__x86_64__) || defined(__i386__)
#define KERNEL_GEMM_HAVE_AVX2 1
void _executorch_gemm_kernel_avx2 (int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate,
                                   const KernelGemmEpilogue *epilogue);
float _executorch_gemm_dot_avx2 (const float *x, const float *y, int64_t n);
/* 16 columns of a B strip from a transposed operand, B[p, j] = src[p + j * ld],
 * written to dst[p * dst_nr + j] (dst 32-byte aligned, dst_nr 16 or 32). */
void _executorch_gemm_pack_bt_avx2 (const float *src, int64_t ld, int64_t kc, float *dst, int64_t dst_nr);

#define KERNEL_GEMM_HAVE_AVX512 1
#define KERNEL_GEMM_NR_AVX512 32
/* The 6 x 32 AVX-512F microkernel (b 64-byte aligned). */
void _executorch_gemm_kernel_avx512 (int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate,
                                     const KernelGemmEpilogue *epilogue);
#endif
