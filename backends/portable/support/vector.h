/* vector.h: vectorised float32 loops for the hot elementwise, softmax and
 * normalisation paths
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each helper works on contiguous float arrays.  On x86-64 an AVX2+FMA
 * version is chosen at run time (_executorch_support_cpu_has_avx2_fma); elsewhere, or
 * when EXECUTORCH_KERNELS_NO_SIMD is set in the environment at first use,
 * a portable loop runs instead.
 *
 * Accuracy: add, sub, mul, div, relu and clamp are bit-identical to the
 * scalar loops (no FMA contraction).  exp, sigmoid, tanh, softmax and the
 * GELU forms use a Cephes-style exp polynomial (within 2 ulp of expf over
 * the whole range, denormal results included); sigmoid, tanh and softmax
 * stay within about 4 ulp, the GELU forms within 2e-6 relative down
 * to x = -5 and 5e-6 beyond ("none" goes through an erfc fit with 1.2e-7
 * relative error, "tanh" is computed as x / (1 + exp(-2y)), free of
 * cancellation).  Layer-norm moments are summed in
 * eight float lanes, then combined in double.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef enum
{
  KERNEL_VEC_ADD = 0, /* a + alpha * b */
  KERNEL_VEC_SUB = 1, /* a - alpha * b */
  KERNEL_VEC_MUL = 2,
  KERNEL_VEC_DIV = 3,
} KernelVecOp;

/* o[i] = a[i] op b[i]. */
void _executorch_vec_binary_f32 (KernelVecOp op, int64_t n, const float *a, const float *b, float alpha, float *o);
/* o[i] = a[i] op s, or s op a[i] when @scalar_first. */
void _executorch_vec_binary_scalar_f32 (KernelVecOp op, int64_t n, const float *a, float s, bool scalar_first,
                                        float alpha, float *o);

/* max(x, lo) then min(., hi), NaN kept; use -INFINITY / INFINITY for an
 * absent bound (relu is lo = 0, hi = +inf). */
void _executorch_vec_clamp_f32 (int64_t n, const float *x, float lo, float hi, float *o);
void _executorch_vec_exp_f32 (int64_t n, const float *x, float *o);
void _executorch_vec_sigmoid_f32 (int64_t n, const float *x, float *o);
/* x * sigmoid(x), the product of the float sigmoid above (SiLU). */
void _executorch_vec_silu_f32 (int64_t n, const float *x, float *o);
void _executorch_vec_tanh_f32 (int64_t n, const float *x, float *o);
/* GELU; @tanh_form selects approximate="tanh". */
void _executorch_vec_gelu_f32 (int64_t n, const float *x, bool tanh_form, float *o);
/* o = x * scale + shift (batch norm folded per channel). */
void _executorch_vec_scale_shift_f32 (int64_t n, const float *x, float scale, float shift, float *o);

/* Softmax (or log-softmax) of one contiguous row. */
void _executorch_vec_softmax_row_f32 (int64_t n, const float *x, bool log_form, float *o);
/* Mean and biased variance of one contiguous row (two passes). */
void _executorch_vec_moments_f32 (int64_t n, const float *x, double *mean, double *var);
/* Sum of a contiguous row: float lanes (AVX2), combined in double. */
double _executorch_vec_sum_f32 (int64_t n, const float *x);
/* o = (x - mean) * rstd * w + b; @w and @b may be NULL. */
void _executorch_vec_normalize_f32 (int64_t n, const float *x, float mean, float rstd, const float *w, const float *b,
                                    float *o);
