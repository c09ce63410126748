/* gemm-avx2.c: the AVX2 + FMA microkernel of the float32 GEMM
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled for every x86 build through the target attribute and only called
 * when the CPU reports AVX2 and FMA (gemm.c checks once).  It uses fused
 * multiply-adds on purpose: the reference kernels are built with
 * -ffp-contract=off, but this fast float path trades the last bit of
 * agreement with a naive loop for speed, and its tests use tolerances.
 */
#include "gemm-private.h"

#ifdef KERNEL_GEMM_HAVE_AVX2

#include <immintrin.h>

#define MR KERNEL_GEMM_MR
#define NR KERNEL_GEMM_NR

__attribute__ ((target ("avx2,fma"))) void
_executorch_gemm_kernel_avx2 (int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate,
                              const KernelGemmEpilogue *epilogue)
{
  __m256 c00 = _mm256_setzero_ps (), c01 = _mm256_setzero_ps ();
  __m256 c10 = _mm256_setzero_ps (), c11 = _mm256_setzero_ps ();
  __m256 c20 = _mm256_setzero_ps (), c21 = _mm256_setzero_ps ();
  __m256 c30 = _mm256_setzero_ps (), c31 = _mm256_setzero_ps ();
  __m256 c40 = _mm256_setzero_ps (), c41 = _mm256_setzero_ps ();
  __m256 c50 = _mm256_setzero_ps (), c51 = _mm256_setzero_ps ();

  /* Start fetching the C tile now: its rows are ldc apart (often a power
   * of two, so they share cache sets) and the stores at the end would
   * otherwise wait for them. */
  for (int r = 0; r < MR; r++)
    {
      _mm_prefetch ((const char *) (c + r * ldc), _MM_HINT_T0);
      _mm_prefetch ((const char *) (c + r * ldc + NR - 1), _MM_HINT_T0);
    }

#define STEP(P)                                                                            \
  do                                                                                       \
    {                                                                                      \
      __m256 b0 = _mm256_load_ps (b + (P) *NR), b1 = _mm256_load_ps (b + (P) *NR + 8), av; \
      av = _mm256_broadcast_ss (a + (P) *MR + 0);                                          \
      c00 = _mm256_fmadd_ps (av, b0, c00);                                                 \
      c01 = _mm256_fmadd_ps (av, b1, c01);                                                 \
      av = _mm256_broadcast_ss (a + (P) *MR + 1);                                          \
      c10 = _mm256_fmadd_ps (av, b0, c10);                                                 \
      c11 = _mm256_fmadd_ps (av, b1, c11);                                                 \
      av = _mm256_broadcast_ss (a + (P) *MR + 2);                                          \
      c20 = _mm256_fmadd_ps (av, b0, c20);                                                 \
      c21 = _mm256_fmadd_ps (av, b1, c21);                                                 \
      av = _mm256_broadcast_ss (a + (P) *MR + 3);                                          \
      c30 = _mm256_fmadd_ps (av, b0, c30);                                                 \
      c31 = _mm256_fmadd_ps (av, b1, c31);                                                 \
      av = _mm256_broadcast_ss (a + (P) *MR + 4);                                          \
      c40 = _mm256_fmadd_ps (av, b0, c40);                                                 \
      c41 = _mm256_fmadd_ps (av, b1, c41);                                                 \
      av = _mm256_broadcast_ss (a + (P) *MR + 5);                                          \
      c50 = _mm256_fmadd_ps (av, b0, c50);                                                 \
      c51 = _mm256_fmadd_ps (av, b1, c51);                                                 \
    }                                                                                      \
  while (0)

  int64_t p = 0;
  for (; p + 4 <= kc; p += 4)
    {
      STEP (0);
      STEP (1);
      STEP (2);
      STEP (3);
      a += 4 * MR;
      b += 4 * NR;
    }
  for (; p < kc; p++)
    {
      STEP (0);
      a += MR;
      b += NR;
    }
#undef STEP

  int clamp = epilogue != NULL && epilogue->clamp;
  const float *bias = epilogue != NULL ? epilogue->bias : NULL;
  __m256 lo = _mm256_set1_ps (clamp ? epilogue->lo : 0.0f), hi = _mm256_set1_ps (clamp ? epilogue->hi : 0.0f);

  /* max (lo, v) is lo where lo > v, else v, so NaN passes, as the
   * reference epilogue's v < lo ? lo : v does; likewise min (hi, v). */
#define STORE(R, LO, HI)                                      \
  do                                                          \
    {                                                         \
      float *row = c + (R) *ldc;                              \
      if (accumulate)                                         \
        {                                                     \
          LO = _mm256_add_ps (LO, _mm256_loadu_ps (row));     \
          HI = _mm256_add_ps (HI, _mm256_loadu_ps (row + 8)); \
        }                                                     \
      if (bias != NULL)                                       \
        {                                                     \
          __m256 bv = _mm256_set1_ps (bias[R]);               \
          LO = _mm256_add_ps (LO, bv);                        \
          HI = _mm256_add_ps (HI, bv);                        \
        }                                                     \
      if (clamp)                                              \
        {                                                     \
          LO = _mm256_min_ps (hi, _mm256_max_ps (lo, LO));    \
          HI = _mm256_min_ps (hi, _mm256_max_ps (lo, HI));    \
        }                                                     \
      _mm256_storeu_ps (row, LO);                             \
      _mm256_storeu_ps (row + 8, HI);                         \
    }                                                         \
  while (0)

  STORE (0, c00, c01);
  STORE (1, c10, c11);
  STORE (2, c20, c21);
  STORE (3, c30, c31);
  STORE (4, c40, c41);
  STORE (5, c50, c51);
#undef STORE
}

/* 16 columns of a B strip from a transposed operand (B[p, j] =
 * src[p + j * ld], linear's weight): 8 x 8 blocks transposed in registers. */
__attribute__ ((target ("avx2,fma"))) void
_executorch_gemm_pack_bt_avx2 (const float *src, int64_t ld, int64_t kc, float *dst, int64_t dst_nr)
{
  int64_t p0 = 0;

  for (; p0 + 8 <= kc; p0 += 8)
    {
      for (int jb = 0; jb < NR; jb += 8)
        {
          const float *s = src + jb * ld + p0;
          __m256 r0 = _mm256_loadu_ps (s), r1 = _mm256_loadu_ps (s + ld);
          __m256 r2 = _mm256_loadu_ps (s + 2 * ld), r3 = _mm256_loadu_ps (s + 3 * ld);
          __m256 r4 = _mm256_loadu_ps (s + 4 * ld), r5 = _mm256_loadu_ps (s + 5 * ld);
          __m256 r6 = _mm256_loadu_ps (s + 6 * ld), r7 = _mm256_loadu_ps (s + 7 * ld);
          __m256 t0 = _mm256_unpacklo_ps (r0, r1), t1 = _mm256_unpackhi_ps (r0, r1);
          __m256 t2 = _mm256_unpacklo_ps (r2, r3), t3 = _mm256_unpackhi_ps (r2, r3);
          __m256 t4 = _mm256_unpacklo_ps (r4, r5), t5 = _mm256_unpackhi_ps (r4, r5);
          __m256 t6 = _mm256_unpacklo_ps (r6, r7), t7 = _mm256_unpackhi_ps (r6, r7);
          __m256 u0 = _mm256_shuffle_ps (t0, t2, 0x44), u1 = _mm256_shuffle_ps (t0, t2, 0xee);
          __m256 u2 = _mm256_shuffle_ps (t1, t3, 0x44), u3 = _mm256_shuffle_ps (t1, t3, 0xee);
          __m256 u4 = _mm256_shuffle_ps (t4, t6, 0x44), u5 = _mm256_shuffle_ps (t4, t6, 0xee);
          __m256 u6 = _mm256_shuffle_ps (t5, t7, 0x44), u7 = _mm256_shuffle_ps (t5, t7, 0xee);
          float *d = dst + p0 * dst_nr + jb;
          _mm256_store_ps (d + 0 * dst_nr, _mm256_permute2f128_ps (u0, u4, 0x20));
          _mm256_store_ps (d + 1 * dst_nr, _mm256_permute2f128_ps (u1, u5, 0x20));
          _mm256_store_ps (d + 2 * dst_nr, _mm256_permute2f128_ps (u2, u6, 0x20));
          _mm256_store_ps (d + 3 * dst_nr, _mm256_permute2f128_ps (u3, u7, 0x20));
          _mm256_store_ps (d + 4 * dst_nr, _mm256_permute2f128_ps (u0, u4, 0x31));
          _mm256_store_ps (d + 5 * dst_nr, _mm256_permute2f128_ps (u1, u5, 0x31));
          _mm256_store_ps (d + 6 * dst_nr, _mm256_permute2f128_ps (u2, u6, 0x31));
          _mm256_store_ps (d + 7 * dst_nr, _mm256_permute2f128_ps (u3, u7, 0x31));
        }
    }
  for (; p0 < kc; p0++)
    for (int j = 0; j < NR; j++)
      dst[p0 * dst_nr + j] = src[p0 + j * ld];
}

/* Four independent 8-lane accumulators hide the FMA latency. */
__attribute__ ((target ("avx2,fma"))) float
_executorch_gemm_dot_avx2 (const float *x, const float *y, int64_t n)
{
  __m256 s0 = _mm256_setzero_ps (), s1 = _mm256_setzero_ps ();
  __m256 s2 = _mm256_setzero_ps (), s3 = _mm256_setzero_ps ();
  int64_t i = 0;

  for (; i + 32 <= n; i += 32)
    {
      s0 = _mm256_fmadd_ps (_mm256_loadu_ps (x + i), _mm256_loadu_ps (y + i), s0);
      s1 = _mm256_fmadd_ps (_mm256_loadu_ps (x + i + 8), _mm256_loadu_ps (y + i + 8), s1);
      s2 = _mm256_fmadd_ps (_mm256_loadu_ps (x + i + 16), _mm256_loadu_ps (y + i + 16), s2);
      s3 = _mm256_fmadd_ps (_mm256_loadu_ps (x + i + 24), _mm256_loadu_ps (y + i + 24), s3);
    }
  for (; i + 8 <= n; i += 8)
    s0 = _mm256_fmadd_ps (_mm256_loadu_ps (x + i), _mm256_loadu_ps (y + i), s0);
  __m256 s = _mm256_add_ps (_mm256_add_ps (s0, s1), _mm256_add_ps (s2, s3));
  __m128 h = _mm_add_ps (_mm256_castps256_ps128 (s), _mm256_extractf128_ps (s, 1));
  h = _mm_add_ps (h, _mm_movehl_ps (h, h));
  h = _mm_add_ss (h, _mm_movehdup_ps (h));
  float total = _mm_cvtss_f32 (h);
  for (; i < n; i++)
    total += x[i] * y[i];
  return total;
}

#endif
