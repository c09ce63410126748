/* dynamic-quant-avx2.c: the int8 dot products of dynamic-quant.c on AVX2
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built with target attributes and called only when
 * _executorch_support_cpu_has_avx2_fma() says so; elsewhere the portable
 * loops of dynamic-quant.c run.  Exact integer arithmetic: the results equal
 * the portable ones bit for bit.
 */
#include "dynamic-quant.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define AVX2 __attribute__ ((target ("avx2")))

/* 32 products w * x of unsigned 4-bit w (0..15) and int8 x summed
 * pairwise into 8 int32: maddubs takes w as its unsigned operand, and the
 * int16 pair sums (at most 2 * 15 * 128) cannot saturate. */
AVX2 static inline __m256i
madd_u4_i8 (__m256i w, __m256i x)
{
  return _mm256_madd_epi16 (_mm256_maddubs_epi16 (w, x), _mm256_set1_epi16 (1));
}

AVX2 static inline int32_t
hsum (__m256i v)
{
  __m128i s = _mm_add_epi32 (_mm256_castsi256_si128 (v), _mm256_extracti128_si256 (v, 1));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, _MM_SHUFFLE (1, 0, 3, 2)));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, _MM_SHUFFLE (2, 3, 0, 1)));
  return _mm_cvtsi128_si32 (s);
}

AVX2 static inline float
hsum_ps (__m256 v)
{
  __m128 s = _mm_add_ps (_mm256_castps256_ps128 (v), _mm256_extractf128_ps (v, 1));
  s = _mm_add_ps (s, _mm_movehl_ps (s, s));
  s = _mm_add_ss (s, _mm_movehdup_ps (s));
  return _mm_cvtss_f32 (s);
}

/* int8 weights may be -128 and activations span 0..255 once offset, so
 * maddubs could saturate: the activations come widened to int16 (once per
 * run), the weights are widened here.  Each weight load serves the @nr
 * rows (a constant in each caller below, so the loops unroll). */
AVX2 static inline __attribute__ ((always_inline)) void
dot_i8_rows (const int16_t *const *x, const int8_t *w, size_t n, int32_t *dots, const int nr)
{
  __m256i acc[4] = { _mm256_setzero_si256 (), _mm256_setzero_si256 (), _mm256_setzero_si256 (),
                     _mm256_setzero_si256 () };
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    {
      __m256i wv = _mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *) (const void *) (w + i)));
      for (int r = 0; r < nr; r++)
        {
          __m256i xv = _mm256_loadu_si256 ((const __m256i *) (const void *) (x[r] + i));
          acc[r] = _mm256_add_epi32 (acc[r], _mm256_madd_epi16 (xv, wv));
        }
    }
  for (int r = 0; r < nr; r++)
    {
      int32_t sum = hsum (acc[r]);
      for (size_t j = i; j < n; j++)
        sum += (int32_t) x[r][j] * w[j];
      dots[r] = sum;
    }
}

AVX2 void
xb_dq_dot4_i8_avx2 (const int16_t *const x[4], const int8_t *w, size_t n, int32_t dots[4])
{
  dot_i8_rows (x, w, n, dots, 4);
}

AVX2 void
xb_dq_dot1_i8_avx2 (const int16_t *x, const int8_t *w, size_t n, int32_t *dot)
{
  dot_i8_rows (&x, w, n, dot, 1);
}

#define AVX2_FMA __attribute__ ((target ("avx2,fma")))

AVX2_FMA static inline __attribute__ ((always_inline)) void
dot_i4_rows (const int8_t *const *x, const uint8_t *w, size_t n_chunks, size_t block_chunks, const float *scales,
             const float *const *xsums, size_t n_blocks, float *out, const int nr)
{
  const __m256i low = _mm256_set1_epi8 (15);
  __m256 facc[4] = { _mm256_setzero_ps (), _mm256_setzero_ps (), _mm256_setzero_ps (), _mm256_setzero_ps () };
  for (size_t c = 0; c < n_chunks; c += 2)
    {
      /* chunk c from the low nibbles, chunk c + 1 (if any) from the high */
      __m256i packed = _mm256_loadu_si256 ((const __m256i *) (const void *) (w + c * 16));
      __m256i lo = _mm256_and_si256 (packed, low);
      __m256i hi = _mm256_and_si256 (_mm256_srli_epi16 (packed, 4), low);
      __m256 scale_lo = _mm256_set1_ps (scales[c / block_chunks]);
      gboolean pair = c + 1 < n_chunks;
      __m256 scale_hi = _mm256_set1_ps (scales[(c + pair) / block_chunks]);
      for (int r = 0; r < nr; r++)
        {
          __m256i xl = _mm256_loadu_si256 ((const __m256i *) (const void *) (x[r] + c * 32));
          facc[r] = _mm256_fmadd_ps (_mm256_cvtepi32_ps (madd_u4_i8 (lo, xl)), scale_lo, facc[r]);
          if (pair)
            {
              __m256i xh = _mm256_loadu_si256 ((const __m256i *) (const void *) (x[r] + c * 32 + 32));
              facc[r] = _mm256_fmadd_ps (_mm256_cvtepi32_ps (madd_u4_i8 (hi, xh)), scale_hi, facc[r]);
            }
        }
    }
  /* the nibbles were value + 8: minus 8 * sum over blocks of scale * sum(x) */
  for (int r = 0; r < nr; r++)
    {
      __m256 corr = _mm256_setzero_ps ();
      size_t b = 0;
      for (; b + 8 <= n_blocks; b += 8)
        corr = _mm256_fmadd_ps (_mm256_loadu_ps (scales + b), _mm256_loadu_ps (xsums[r] + b), corr);
      float tail = 0.0f;
      for (; b < n_blocks; b++)
        tail += scales[b] * xsums[r][b];
      out[r] = hsum_ps (facc[r]) - 8.0f * (hsum_ps (corr) + tail);
    }
}

AVX2_FMA void
xb_dq_dot4_i4_avx2 (const int8_t *const x[4], const uint8_t *w, size_t n_chunks, size_t block_chunks,
                    const float *scales, const float *const xsums[4], size_t n_blocks, float out[4])
{
  dot_i4_rows (x, w, n_chunks, block_chunks, scales, xsums, n_blocks, out, 4);
}

AVX2_FMA void
xb_dq_dot1_i4_avx2 (const int8_t *x, const uint8_t *w, size_t n_chunks, size_t block_chunks, const float *scales,
                    const float *xsums, size_t n_blocks, float *out)
{
  dot_i4_rows (&x, w, n_chunks, block_chunks, scales, &xsums, n_blocks, out, 1);
}

#else

void
xb_dq_dot4_i8_avx2 (const int16_t *const x[4], const int8_t *w, size_t n, int32_t dots[4])
{
  g_assert_not_reached ();
}

void
xb_dq_dot1_i8_avx2 (const int16_t *x, const int8_t *w, size_t n, int32_t *dot)
{
  g_assert_not_reached ();
}

void
xb_dq_dot4_i4_avx2 (const int8_t *const x[4], const uint8_t *w, size_t n_chunks, size_t block_chunks,
                    const float *scales, const float *const xsums[4], size_t n_blocks, float out[4])
{
  g_assert_not_reached ();
}

void
xb_dq_dot1_i4_avx2 (const int8_t *x, const uint8_t *w, size_t n_chunks, size_t block_chunks, const float *scales,
                    const float *xsums, size_t n_blocks, float *out)
{
  g_assert_not_reached ();
}

#endif
