/* pool-max-fast.c: float32 max pooling of a contiguous plane, vectorised
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * max_pool2d(_with_indices) of one NCHW plane with unit column dilation
 * and column stride 1 or 2 (ResNet's and ShuffleNet's 3x3/2 stems): the
 * output columns whose window lies inside the input run eight at a time
 * with AVX2, the others one at a time.  Both follow pool.c's rule
 * exactly, taps in window order: the first tap inside the input starts the
 * maximum, then a tap replaces it when greater or NaN (eager's NaN
 * propagation), and its flat index h * W + w goes with it.  Without an
 * index output (max_pool2d, or rewrites/pool-indices.c where nothing reads
 * the indices) the vector loops keep no indices: half the blends, and no
 * 8-byte index per output to store; where the CPU has AVX-512 (unless
 * EXECUTORCH_KERNELS_NO_AVX512) they run sixteen columns at a time.
 */
#include "pool-private.h"

#include <math.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define POOL_HAVE_AVX2 1
#endif

/* Output (row taps [h0, h1) step dh, columns from w0 over kw taps
 * clipped to the input) the scalar way. */
static inline void
max_point (const KernelMaxPool *p, int64_t h0, int64_t h1, int64_t ow, float *out, int64_t *idx)
{
  int64_t st = ow * p->sw - p->pw, w1 = st + p->kw < p->w ? st + p->kw : p->w, w0 = st < 0 ? 0 : st;
  float best = -INFINITY;
  int64_t best_i = h0 * p->w + w0;
  bool first = true;

  for (int64_t h = h0; h < h1; h += p->dh)
    for (int64_t w = w0; w < w1; w++)
      {
        float v = p->in[h * p->w + w];
        if (first || v > best || v != v)
          {
            best = v;
            best_i = h * p->w + w;
            first = false;
          }
      }
  *out = best;
  if (idx != NULL)
    *idx = best_i;
}

#ifdef POOL_HAVE_AVX2
#define AVX2 __attribute__ ((target ("avx2,fma")))

/* Eight input columns c0, c0 + s, ... (s = 1 or 2) of one row. */
AVX2 static inline __m256
load_cols (const float *row, int64_t s)
{
  if (s == 1)
    return _mm256_loadu_ps (row);
  __m256 a = _mm256_loadu_ps (row), b = _mm256_loadu_ps (row + 8);
  __m256 even = _mm256_shuffle_ps (a, b, 0x88); /* a0 a2 b0 b2 | a4 a6 b4 b6 */
  return _mm256_castpd_ps (_mm256_permute4x64_pd (_mm256_castps_pd (even), 0xd8));
}

/* Output columns [j, j + 8 * NC) of the row whose taps are rows [h0, h1):
 * every column tap is inside the input, and so are the loads.  NC chunks
 * side by side keep NC compare-and-blend chains in flight; IDX (a
 * constant) says whether indices are kept and stored to @idx. */
static inline __attribute__ ((always_inline, target ("avx2,fma"))) void
max_vec (const KernelMaxPool *p, int64_t h0, int64_t h1, int64_t j, float *out, int64_t *idx, int NC, bool IDX)
{
  int64_t c0 = j * p->sw - p->pw;
  __m256i lane = _mm256_mullo_epi32 (_mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32 ((int) p->sw));
  __m256 best[4];
  __m256i best_i[4];

  for (int c = 0; c < NC; c++)
    {
      int64_t at = h0 * p->w + c0 + c * 8 * p->sw;
      best[c] = load_cols (p->in + at, p->sw);
      best_i[c] = _mm256_add_epi32 (lane, _mm256_set1_epi32 ((int) at));
    }
  for (int64_t h = h0; h < h1; h += p->dh)
    for (int64_t u = h == h0 ? 1 : 0; u < p->kw; u++) /* the first tap is best already */
      for (int c = 0; c < NC; c++)
        {
          int64_t at = h * p->w + c0 + u + c * 8 * p->sw;
          __m256 v = load_cols (p->in + at, p->sw);
          __m256 take = _mm256_or_ps (_mm256_cmp_ps (v, best[c], _CMP_GT_OQ), _mm256_cmp_ps (v, v, _CMP_UNORD_Q));
          best[c] = _mm256_blendv_ps (best[c], v, take);
          if (IDX)
            best_i[c] = _mm256_castps_si256 (
                _mm256_blendv_ps (_mm256_castsi256_ps (best_i[c]),
                                  _mm256_castsi256_ps (_mm256_add_epi32 (lane, _mm256_set1_epi32 ((int) at))), take));
        }
  for (int c = 0; c < NC; c++)
    {
      _mm256_storeu_ps (out + 8 * c, best[c]);
      if (IDX)
        {
          __m256i bi = best_i[c];
          _mm256_storeu_si256 ((__m256i *) (idx + 8 * c), _mm256_cvtepi32_epi64 (_mm256_castsi256_si128 (bi)));
          _mm256_storeu_si256 ((__m256i *) (idx + 8 * c + 4), _mm256_cvtepi32_epi64 (_mm256_extracti128_si256 (bi, 1)));
        }
    }
}

AVX2 static void
max_vec8 (const KernelMaxPool *p, int64_t h0, int64_t h1, int64_t j, float *out, int64_t *idx)
{
  if (idx != NULL)
    max_vec (p, h0, h1, j, out, idx, 1, true);
  else
    max_vec (p, h0, h1, j, out, NULL, 1, false);
}

/* Without indices, where the CPU has AVX-512: max_vec's rule on 16
 * columns a vector, NC (1 or 2) vectors side by side. */
static inline __attribute__ ((always_inline, target ("avx512f"))) void
max_vec512 (const KernelMaxPool *p, int64_t h0, int64_t h1, int64_t j, float *out, int NC)
{
  int64_t c0 = j * p->sw - p->pw;
  __m512i even = _mm512_setr_epi32 (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  __m512 best[2];

#define LOAD16(at)                             \
  (p->sw == 1 ? _mm512_loadu_ps (p->in + (at)) \
              : _mm512_permutex2var_ps (_mm512_loadu_ps (p->in + (at)), even, _mm512_loadu_ps (p->in + (at) + 16)))
  for (int c = 0; c < NC; c++)
    best[c] = LOAD16 (h0 * p->w + c0 + c * 16 * p->sw);
  for (int64_t h = h0; h < h1; h += p->dh)
    for (int64_t u = h == h0 ? 1 : 0; u < p->kw; u++)
      for (int c = 0; c < NC; c++)
        {
          __m512 v = LOAD16 (h * p->w + c0 + u + c * 16 * p->sw);
          __mmask16 take = _mm512_cmp_ps_mask (v, best[c], _CMP_GT_OQ) | _mm512_cmp_ps_mask (v, v, _CMP_UNORD_Q);
          best[c] = _mm512_mask_blend_ps (take, best[c], v);
        }
#undef LOAD16
  for (int c = 0; c < NC; c++)
    _mm512_storeu_ps (out + 16 * c, best[c]);
}

__attribute__ ((target ("avx512f"))) static void
max_vec512_16 (const KernelMaxPool *p, int64_t h0, int64_t h1, int64_t j, float *out)
{
  max_vec512 (p, h0, h1, j, out, 1);
}

__attribute__ ((target ("avx512f"))) static void
max_vec512_32 (const KernelMaxPool *p, int64_t h0, int64_t h1, int64_t j, float *out)
{
  max_vec512 (p, h0, h1, j, out, 2);
}

AVX2 static void
max_vec32 (const KernelMaxPool *p, int64_t h0, int64_t h1, int64_t j, float *out, int64_t *idx)
{
  if (idx != NULL)
    max_vec (p, h0, h1, j, out, idx, 4, true);
  else
    max_vec (p, h0, h1, j, out, NULL, 4, false);
}
#endif

bool
_executorch_max_pool_plane_f32 (const KernelMaxPool *p, float *out, int64_t *idx)
{
  if (p->sw < 1 || p->sw > 2 || p->h * p->w > INT32_MAX / 2)
    return false;
  /* Columns whose window is inside the input: c0 >= 0, c0 + kw <= w. */
  int64_t lo = (p->pw + p->sw - 1) / p->sw;
  int64_t hi = p->w - p->kw + p->pw < 0 ? 0 : (p->w - p->kw + p->pw) / p->sw + 1;
  bool vec = false, wide = false;

  if (hi > p->ow)
    hi = p->ow;
#ifdef POOL_HAVE_AVX2
  vec = _executorch_support_cpu_has_avx2_fma ();
  wide = vec && idx == NULL && _executorch_support_cpu_has_avx512 ();
#endif
  for (int64_t oh = 0; oh < p->oh; oh++)
    {
      /* Row taps inside the input, as pool.c's window(). */
      int64_t st = oh * p->sh - p->ph, h1 = st + (p->kh - 1) * p->dh + 1, h0 = st;
      if (h1 > p->h)
        h1 = p->h;
      if (h0 < 0)
        h0 += ((-h0 + p->dh - 1) / p->dh) * p->dh;
      float *orow = out + oh * p->ow;
      int64_t *irow = idx != NULL ? idx + oh * p->ow : NULL;
      int64_t j = 0;

      if (vec && h0 < h1)
        {
          for (; j < lo && j < p->ow; j++)
            max_point (p, h0, h1, j, orow + j, irow != NULL ? irow + j : NULL);
#ifdef POOL_HAVE_AVX2
          /* The last load of a chunk reads up to 8 * sw - 1 past its first
           * tap (16 * sw - 1 for AVX-512's). */
          if (wide)
            {
              for (; j + 32 <= hi && (h1 - 1) * p->w + (j * p->sw - p->pw) + p->kw - 1 + 32 * p->sw <= p->h * p->w;
                   j += 32)
                max_vec512_32 (p, h0, h1, j, orow + j);
              for (; j + 16 <= hi && (h1 - 1) * p->w + (j * p->sw - p->pw) + p->kw - 1 + 16 * p->sw <= p->h * p->w;
                   j += 16)
                max_vec512_16 (p, h0, h1, j, orow + j);
              int64_t t = hi - 16;
              if (j < hi && t >= lo && (h1 - 1) * p->w + (t * p->sw - p->pw) + p->kw - 1 + 16 * p->sw <= p->h * p->w)
                {
                  max_vec512_16 (p, h0, h1, t, orow + t);
                  j = hi;
                }
            }
          for (; j + 32 <= hi && (h1 - 1) * p->w + (j * p->sw - p->pw) + p->kw - 1 + 32 * p->sw <= p->h * p->w; j += 32)
            max_vec32 (p, h0, h1, j, orow + j, irow != NULL ? irow + j : NULL);
          for (; j + 8 <= hi && (h1 - 1) * p->w + (j * p->sw - p->pw) + p->kw - 1 + 8 * p->sw <= p->h * p->w; j += 8)
            max_vec8 (p, h0, h1, j, orow + j, irow != NULL ? irow + j : NULL);
          /* The rest of the interior as one more chunk overlapping the
           * last: recomputed columns get the same values. */
          int64_t t = hi - 8;
          if (j < hi && t >= lo && (h1 - 1) * p->w + (t * p->sw - p->pw) + p->kw - 1 + 8 * p->sw <= p->h * p->w)
            {
              max_vec8 (p, h0, h1, t, orow + t, irow != NULL ? irow + t : NULL);
              j = hi;
            }
#endif
        }
      for (; j < p->ow; j++)
        max_point (p, h0, h1, j, orow + j, irow != NULL ? irow + j : NULL);
    }
  return true;
}
