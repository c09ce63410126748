/* gemm-avx512.c: the AVX-512 microkernel of the float32 GEMM
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled for every x86 build through the target attribute and only called
 * when the CPU and the OS support AVX-512F (gemm.c checks once).  A 6 x 32
 * tile of C lives in twelve zmm registers: each step loads two vectors of
 * the B strip and broadcasts six floats of the A strip, twelve independent
 * fused multiply-adds, enough to keep both FMA ports busy through their
 * latency.  The A strips are the same 6-row ones the AVX2 kernel reads, so
 * weights packed at load suit both.  Like gemm-avx2.c it uses FMA on
 * purpose (tests use tolerances).
 */
#include "gemm-private.h"

#ifdef KERNEL_GEMM_HAVE_AVX512

#include <immintrin.h>

#define MR KERNEL_GEMM_MR
#define NR KERNEL_GEMM_NR_AVX512

_Static_assert(MR == 6, "the kernel below is written for six rows");

__attribute__ ((target ("avx512f"))) void
_executorch_gemm_kernel_avx512 (int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate,
                                const KernelGemmEpilogue *epilogue)
{
  __m512 c00 = _mm512_setzero_ps (), c01 = _mm512_setzero_ps ();
  __m512 c10 = _mm512_setzero_ps (), c11 = _mm512_setzero_ps ();
  __m512 c20 = _mm512_setzero_ps (), c21 = _mm512_setzero_ps ();
  __m512 c30 = _mm512_setzero_ps (), c31 = _mm512_setzero_ps ();
  __m512 c40 = _mm512_setzero_ps (), c41 = _mm512_setzero_ps ();
  __m512 c50 = _mm512_setzero_ps (), c51 = _mm512_setzero_ps ();

  /* Fetch the C tile early: its rows are ldc apart (often a power of two,
   * so they share cache sets) and the stores at the end would wait. */
  for (int r = 0; r < MR; r++)
    {
      _mm_prefetch ((const char *) (c + r * ldc), _MM_HINT_T0);
      _mm_prefetch ((const char *) (c + r * ldc + 16), _MM_HINT_T0);
      _mm_prefetch ((const char *) (c + r * ldc + NR - 1), _MM_HINT_T0);
    }

#define STEP(P)                                                                             \
  do                                                                                        \
    {                                                                                       \
      __m512 b0 = _mm512_load_ps (b + (P) *NR), b1 = _mm512_load_ps (b + (P) *NR + 16), av; \
      av = _mm512_set1_ps (a[(P) *MR + 0]);                                                 \
      c00 = _mm512_fmadd_ps (av, b0, c00);                                                  \
      c01 = _mm512_fmadd_ps (av, b1, c01);                                                  \
      av = _mm512_set1_ps (a[(P) *MR + 1]);                                                 \
      c10 = _mm512_fmadd_ps (av, b0, c10);                                                  \
      c11 = _mm512_fmadd_ps (av, b1, c11);                                                  \
      av = _mm512_set1_ps (a[(P) *MR + 2]);                                                 \
      c20 = _mm512_fmadd_ps (av, b0, c20);                                                  \
      c21 = _mm512_fmadd_ps (av, b1, c21);                                                  \
      av = _mm512_set1_ps (a[(P) *MR + 3]);                                                 \
      c30 = _mm512_fmadd_ps (av, b0, c30);                                                  \
      c31 = _mm512_fmadd_ps (av, b1, c31);                                                  \
      av = _mm512_set1_ps (a[(P) *MR + 4]);                                                 \
      c40 = _mm512_fmadd_ps (av, b0, c40);                                                  \
      c41 = _mm512_fmadd_ps (av, b1, c41);                                                  \
      av = _mm512_set1_ps (a[(P) *MR + 5]);                                                 \
      c50 = _mm512_fmadd_ps (av, b0, c50);                                                  \
      c51 = _mm512_fmadd_ps (av, b1, c51);                                                  \
    }                                                                                       \
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
  __m512 lo = _mm512_set1_ps (clamp ? epilogue->lo : 0.0f), hi = _mm512_set1_ps (clamp ? epilogue->hi : 0.0f);

  /* max (lo, v) is lo where lo > v, else v, so NaN passes, as the
   * reference epilogue's v < lo ? lo : v does; likewise min (hi, v). */
#define STORE(R, LO, HI)                                       \
  do                                                           \
    {                                                          \
      float *row = c + (R) *ldc;                               \
      if (accumulate)                                          \
        {                                                      \
          LO = _mm512_add_ps (LO, _mm512_loadu_ps (row));      \
          HI = _mm512_add_ps (HI, _mm512_loadu_ps (row + 16)); \
        }                                                      \
      if (bias != NULL)                                        \
        {                                                      \
          __m512 bv = _mm512_set1_ps (bias[R]);                \
          LO = _mm512_add_ps (LO, bv);                         \
          HI = _mm512_add_ps (HI, bv);                         \
        }                                                      \
      if (clamp)                                               \
        {                                                      \
          LO = _mm512_min_ps (hi, _mm512_max_ps (lo, LO));     \
          HI = _mm512_min_ps (hi, _mm512_max_ps (lo, HI));     \
        }                                                      \
      _mm512_storeu_ps (row, LO);                              \
      _mm512_storeu_ps (row + 16, HI);                         \
    }                                                          \
  while (0)

  STORE (0, c00, c01);
  STORE (1, c10, c11);
  STORE (2, c20, c21);
  STORE (3, c30, c31);
  STORE (4, c40, c41);
  STORE (5, c50, c51);
#undef STORE
}

#endif
