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

/* 32 products (x + 128) * w of int8 x and 4-bit w (-8..7) summed pairwise
 * into 8 int32: maddubs wants an unsigned operand, x + 128 is x with its
 * top bit flipped, and the int16 pair sums (at most 2 * 255 * 8) cannot
 * saturate.  The caller takes the 128 * sum(w) back out. */
AVX2 static inline __m256i
madd_u8_i4 (__m256i x, __m256i w)
{
  __m256i xu = _mm256_xor_si256 (x, _mm256_set1_epi8 ((char) 0x80));
  return _mm256_madd_epi16 (_mm256_maddubs_epi16 (xu, w), _mm256_set1_epi16 (1));
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
dot_i4_rows (const int8_t *const *x, const uint8_t *w, size_t n_blocks, size_t block_chunks, const float *scales,
             float *out, const int nr)
{
  const __m128i low = _mm_set1_epi8 (15);
  const __m256i eight = _mm256_set1_epi8 (8);
  __m256 facc[4] = { _mm256_setzero_ps (), _mm256_setzero_ps (), _mm256_setzero_ps (), _mm256_setzero_ps () };
  size_t at = 0; /* chunk index */
  for (size_t b = 0; b < n_blocks; b++)
    {
      __m256i acc[4] = { _mm256_setzero_si256 (), _mm256_setzero_si256 (), _mm256_setzero_si256 (),
                         _mm256_setzero_si256 () };
      for (size_t c = 0; c < block_chunks; c++, at++)
        {
          __m128i packed = _mm_loadu_si128 ((const __m128i *) (const void *) (w + at * 16));
          __m128i lo = _mm_and_si128 (packed, low);
          __m128i hi = _mm_and_si128 (_mm_srli_epi16 (packed, 4), low);
          __m256i wq = _mm256_sub_epi8 (_mm256_set_m128i (hi, lo), eight);
          for (int r = 0; r < nr; r++)
            {
              __m256i xv = _mm256_loadu_si256 ((const __m256i *) (const void *) (x[r] + at * 32));
              acc[r] = _mm256_add_epi32 (acc[r], madd_u8_i4 (xv, wq));
            }
        }
      __m256 scale = _mm256_set1_ps (scales[b]);
      for (int r = 0; r < nr; r++)
        facc[r] = _mm256_fmadd_ps (_mm256_cvtepi32_ps (acc[r]), scale, facc[r]);
    }
  for (int r = 0; r < nr; r++)
    out[r] = hsum_ps (facc[r]);
}

AVX2_FMA void
xb_dq_dot4_i4_avx2 (const int8_t *const x[4], const uint8_t *w, size_t n_blocks, size_t block_chunks,
                    const float *scales, float out[4])
{
  dot_i4_rows (x, w, n_blocks, block_chunks, scales, out, 4);
}

AVX2_FMA void
xb_dq_dot1_i4_avx2 (const int8_t *x, const uint8_t *w, size_t n_blocks, size_t block_chunks, const float *scales,
                    float *out)
{
  dot_i4_rows (&x, w, n_blocks, block_chunks, scales, out, 1);
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
xb_dq_dot4_i4_avx2 (const int8_t *const x[4], const uint8_t *w, size_t n_blocks, size_t block_chunks,
                    const float *scales, float out[4])
{
  g_assert_not_reached ();
}

void
xb_dq_dot1_i4_avx2 (const int8_t *x, const uint8_t *w, size_t n_blocks, size_t block_chunks, const float *scales,
                    float *out)
{
  g_assert_not_reached ();
}

#endif
