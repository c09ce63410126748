/* dynamic-quant-avx2.c: the int8 dot products of dynamic-quant.c on AVX2
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built with target attributes and called only when
 * _executorch_support_cpu_has_avx2_fma() says so; elsewhere the portable
 * loops of dynamic-quant.c run.  Exact integer arithmetic, then the float
 * operations of the portable loops in their order: the results equal the
 * portable ones bit for bit.
 */
#include "dynamic-quant.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* how far ahead of the kernels the weights are fetched */
#define PREFETCH_BYTES 1024
#define AVX2 __attribute__ ((target ("avx2")))

AVX2 static inline int32_t
hsum (__m256i v)
{
  __m128i s = _mm_add_epi32 (_mm256_castsi256_si128 (v), _mm256_extracti128_si256 (v, 1));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, _MM_SHUFFLE (1, 0, 3, 2)));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, _MM_SHUFFLE (2, 3, 0, 1)));
  return _mm_cvtsi128_si32 (s);
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

/* Half @h (channels 8h..8h+7, bytes 32h..32h+31 of each 64-byte group) of a
 * tile: each lane of the int32 accumulators is one channel.  maddubs takes
 * the nibbles as its unsigned operand; its int16 pair sums (at most
 * 2 * 15 * 128) and the sum of the low and high nibbles' (twice that)
 * cannot saturate. */
AVX2_FMA static inline __attribute__ ((always_inline)) void
tile4_half (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups, const int8_t *const *x,
            const int32_t *const *xsum8, float *out, const int nr, const int h)
{
  const __m256i low = _mm256_set1_epi8 (15), ones = _mm256_set1_epi16 (1);
  __m256 facc[4] = { _mm256_setzero_ps (), _mm256_setzero_ps (), _mm256_setzero_ps (), _mm256_setzero_ps () };
  const uint8_t *wp = w + 32 * h;
  size_t k = 0;
  for (size_t b = 0; b < n_blocks; b++)
    {
      __m256i iacc[4] = { _mm256_setzero_si256 (), _mm256_setzero_si256 (), _mm256_setzero_si256 (),
                          _mm256_setzero_si256 () };
      for (size_t g = 0; g < block_groups; g++, wp += 64, k += 8)
        {
          if (h == 0) /* the second half finds the tile in cache */
            _mm_prefetch ((const char *) (wp + PREFETCH_BYTES), _MM_HINT_T0);
          __m256i packed = _mm256_loadu_si256 ((const __m256i *) (const void *) wp);
          __m256i lo = _mm256_and_si256 (packed, low);
          __m256i hi = _mm256_and_si256 (_mm256_srli_epi16 (packed, 4), low);
          for (int r = 0; r < nr; r++)
            {
              int32_t xl, xh;
              memcpy (&xl, x[r] + k, 4);
              memcpy (&xh, x[r] + k + 4, 4);
              __m256i t = _mm256_add_epi16 (_mm256_maddubs_epi16 (lo, _mm256_set1_epi32 (xl)),
                                            _mm256_maddubs_epi16 (hi, _mm256_set1_epi32 (xh)));
              iacc[r] = _mm256_add_epi32 (iacc[r], _mm256_madd_epi16 (t, ones));
            }
        }
      __m256 scale = _mm256_castsi256_ps (
          _mm256_slli_epi32 (_mm256_cvtepu16_epi32 (
                                 _mm_loadu_si128 ((const __m128i *) (const void *) (scales + b * XB_DQ_TILE + 8 * h))),
                             16));
      for (int r = 0; r < nr; r++)
        {
          __m256i d = _mm256_sub_epi32 (iacc[r], _mm256_set1_epi32 (xsum8[r][b]));
          facc[r] = _mm256_fmadd_ps (_mm256_cvtepi32_ps (d), scale, facc[r]);
        }
    }
  for (int r = 0; r < nr; r++)
    _mm256_storeu_ps (out + r * XB_DQ_TILE + 8 * h, facc[r]);
}

AVX2_FMA static inline __attribute__ ((always_inline)) void
tile4_rows (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups, const int8_t *const *x,
            const int32_t *const *xsum8, float *out, const int nr)
{
  tile4_half (w, scales, n_blocks, block_groups, x, xsum8, out, nr, 0);
  tile4_half (w, scales, n_blocks, block_groups, x, xsum8, out, nr, 1);
}

AVX2_FMA void
xb_dq_tile4_avx2 (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                  const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr)
{
  switch (nr)
    {
      case 1: tile4_rows (w, scales, n_blocks, block_groups, x, xsum8, out, 1); break;
      case 2: tile4_rows (w, scales, n_blocks, block_groups, x, xsum8, out, 2); break;
      case 3: tile4_rows (w, scales, n_blocks, block_groups, x, xsum8, out, 3); break;
      default: tile4_rows (w, scales, n_blocks, block_groups, x, xsum8, out, 4); break;
    }
}

/* min_ps / max_ps return their second operand unless the first is
 * strictly less / greater: the scalar loop's comparisons, NaN included. */
AVX2 void
xb_dq_range_avx2 (const float *x, size_t n, float *lo, float *hi)
{
  __m256 vlo = _mm256_set1_ps (*lo), vhi = _mm256_set1_ps (*hi);
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    {
      __m256 v = _mm256_loadu_ps (x + i);
      vlo = _mm256_min_ps (v, vlo);
      vhi = _mm256_max_ps (v, vhi);
    }
  float l[8], h[8];
  _mm256_storeu_ps (l, vlo);
  _mm256_storeu_ps (h, vhi);
  float mn = *lo, mx = *hi;
  for (int j = 0; j < 8; j++)
    {
      mn = l[j] < mn ? l[j] : mn;
      mx = h[j] > mx ? h[j] : mx;
    }
  for (; i < n; i++)
    {
      mn = x[i] < mn ? x[i] : mn;
      mx = x[i] > mx ? x[i] : mx;
    }
  *lo = mn;
  *hi = mx;
}

/* cvtps rounds to nearest even (the default mode), as rintf does. */
AVX2 void
xb_dq_quantize_avx2 (const float *x, size_t n, float scale, int32_t zero_point, int8_t *q)
{
  float vmin = -128.0f - (float) zero_point, vmax = 127.0f - (float) zero_point;
  __m256 vs = _mm256_set1_ps (scale), vl = _mm256_set1_ps (vmin), vh = _mm256_set1_ps (vmax);
  __m256i zp = _mm256_set1_epi32 (zero_point);
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    {
      __m256 v = _mm256_mul_ps (_mm256_loadu_ps (x + i), vs);
      v = _mm256_min_ps (_mm256_max_ps (v, vl), vh); /* NaN goes to the bottom */
      __m256i t = _mm256_add_epi32 (_mm256_cvtps_epi32 (v), zp);
      /* int32 -128..127 to bytes: pack to int16, then int8 */
      __m128i w = _mm_packs_epi32 (_mm256_castsi256_si128 (t), _mm256_extracti128_si256 (t, 1));
      _mm_storel_epi64 ((__m128i *) (void *) (q + i), _mm_packs_epi16 (w, w));
    }
  for (; i < n; i++)
    {
      float v = x[i] * scale;
      v = v >= vmin ? v : vmin;
      v = v <= vmax ? v : vmax;
      q[i] = (int8_t) ((int32_t) rintf (v) + zero_point);
    }
}

/* Built without FMA, so that nothing is contracted.  The clamp in the
 * scalar order: min_ps (hi, v) is hi < v ? hi : v, then lo where v < lo
 * (NaN stays NaN). */
AVX2 void
xb_dq_epilogue_avx2 (const float *acc, size_t nc, const float *cscales, const float *sums, float zp, float xscale,
                     const float *bias, float lo, float hi, float *y)
{
  const __m256 vzp = _mm256_set1_ps (zp), vscale = _mm256_set1_ps (xscale);
  const __m256 vlo = _mm256_set1_ps (lo), vhi = _mm256_set1_ps (hi);
  size_t j = 0;
  for (; j + 8 <= nc; j += 8)
    {
      __m256 v = _mm256_sub_ps (_mm256_mul_ps (_mm256_loadu_ps (acc + j), _mm256_loadu_ps (cscales + j)),
                                _mm256_mul_ps (vzp, _mm256_loadu_ps (sums + j)));
      v = _mm256_add_ps (_mm256_mul_ps (v, vscale), bias ? _mm256_loadu_ps (bias + j) : _mm256_setzero_ps ());
      __m256 clamped = _mm256_blendv_ps (_mm256_min_ps (vhi, v), vlo, _mm256_cmp_ps (v, vlo, _CMP_LT_OQ));
      _mm256_storeu_ps (y + j, clamped);
    }
  for (; j < nc; j++)
    {
      float v = (acc[j] * cscales[j] - zp * sums[j]) * xscale + (bias ? bias[j] : 0.0f);
      y[j] = v < lo ? lo : v > hi ? hi : v;
    }
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
xb_dq_tile4_avx2 (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                  const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr)
{
  g_assert_not_reached ();
}

#endif
