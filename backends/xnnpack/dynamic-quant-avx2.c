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

/* 32 products x*w of int8 x and 4-bit w (-8..7) summed pairwise into 8
 * int32: maddubs wants an unsigned operand, so |x| (-128 gives 128) times w
 * carrying x's sign; the int16 pair sums (at most 2 * 128 * 8) cannot
 * saturate. */
AVX2 static inline __m256i
madd_i8_i4 (__m256i x, __m256i w)
{
  __m256i ax = _mm256_sign_epi8 (x, x);
  __m256i sw = _mm256_sign_epi8 (w, x);
  __m256i pairs = _mm256_maddubs_epi16 (ax, sw);
  return _mm256_madd_epi16 (pairs, _mm256_set1_epi16 (1));
}

AVX2 static inline int32_t
hsum (__m256i v)
{
  __m128i s = _mm_add_epi32 (_mm256_castsi256_si128 (v), _mm256_extracti128_si256 (v, 1));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, _MM_SHUFFLE (1, 0, 3, 2)));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, _MM_SHUFFLE (2, 3, 0, 1)));
  return _mm_cvtsi128_si32 (s);
}

/* int8 weights may be -128, whose sign flip overflows: widened to int16
 * instead of the maddubs trick. */
AVX2 int32_t
xb_dq_dot_i8_avx2 (const int8_t *x, const int8_t *w, size_t n)
{
  __m256i acc = _mm256_setzero_si256 ();
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    {
      __m256i xv = _mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *) (const void *) (x + i)));
      __m256i wv = _mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *) (const void *) (w + i)));
      acc = _mm256_add_epi32 (acc, _mm256_madd_epi16 (xv, wv));
    }
  int32_t sum = hsum (acc);
  for (; i < n; i++)
    sum += (int32_t) x[i] * w[i];
  return sum;
}

AVX2 int32_t
xb_dq_dot_i4_avx2 (const int8_t *x, const uint8_t *w, size_t n_chunks)
{
  const __m128i low = _mm_set1_epi8 (15);
  const __m256i eight = _mm256_set1_epi8 (8);
  __m256i acc = _mm256_setzero_si256 ();
  for (size_t c = 0; c < n_chunks; c++)
    {
      __m128i packed = _mm_loadu_si128 ((const __m128i *) (const void *) (w + c * 16));
      __m128i lo = _mm_and_si128 (packed, low);
      __m128i hi = _mm_and_si128 (_mm_srli_epi16 (packed, 4), low);
      __m256i wq = _mm256_sub_epi8 (_mm256_set_m128i (hi, lo), eight);
      __m256i xv = _mm256_loadu_si256 ((const __m256i *) (const void *) (x + c * 32));
      acc = _mm256_add_epi32 (acc, madd_i8_i4 (xv, wq));
    }
  return hsum (acc);
}

#else

int32_t
xb_dq_dot_i8_avx2 (const int8_t *x, const int8_t *w, size_t n)
{
  int32_t sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += (int32_t) x[i] * w[i];
  return sum;
}

int32_t
xb_dq_dot_i4_avx2 (const int8_t *x, const uint8_t *w, size_t n_chunks)
{
  int32_t sum = 0;
  for (size_t i = 0; i < n_chunks * 32; i++)
    {
      uint8_t b = w[i / 32 * 16 + i % 16];
      sum += (int32_t) x[i] * ((i % 32 < 16 ? b & 15 : b >> 4) - 8);
    }
  return sum;
}

#endif
