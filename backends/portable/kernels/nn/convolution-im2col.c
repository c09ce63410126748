/* convolution-im2col.c: the GEMM's B strips of a convolution, built with
 * vector loads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Row p = (ci, kh, kw) of a strip of the im2col matrix holds, for each of
 * the strip's output pixels, the input value that tap (kh, kw) of channel
 * ci reads, or zero in the padding.  Lane l of the strip is output pixel
 * (oh_l, ow_l) and reads input (oh_l * sh + c1, ow_l * sw + c2) of the
 * channel's plane, where c1 and c2 depend only on the tap.  So each row is
 * built a vector of lanes at a time: two unsigned compares give the lanes
 * inside the input, and the values come from one masked load per output
 * row the vector spans (stride 1, at most two rows per vector) or from one
 * masked gather (any other case).  Masked-off lanes are never read and
 * come out zero, so the padding needs no copy of the input and there is no
 * per-element bounds check.
 *
 * AVX-512 builds the GEMM's 32-wide strips, AVX2 its 16-wide ones; the
 * caller (convolution-fast.c) keeps its element-wise packing for the rest.
 */
#include "convolution-private.h"

#include "gemm.h"

#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)

#include <immintrin.h>

/* What a vector of @lanes lanes of a strip needs, whatever the tap. */
typedef struct
{
  int32_t ohs[16], ows[16]; /* oh * sh and ow * sw of each lane */
  uint32_t valid;           /* lanes inside the strip's columns */
  int rows;                 /* output rows the valid lanes span */
  uint32_t row_mask[2];     /* the lanes of each of the first two */
  int64_t row_base[2];      /* lane l of row r reads plane[row_base[r] + c1 * w + c2 + l] (stride 1) */
} StripVector;

/* Lanes [first, first + lanes) of the strip whose column 0 is output
 * pixel @pix0, with @cols valid columns. */
static void
strip_vector (const KernelConv *cv, int64_t pix0, int64_t cols, int first, int lanes, StripVector *sv)
{
  int64_t pix = pix0 + first;
  int64_t oh = pix / cv->ow, ow = pix % cv->ow;

  sv->valid = 0;
  sv->rows = 0;
  sv->row_mask[0] = sv->row_mask[1] = 0;
  sv->row_base[0] = sv->row_base[1] = 0;
  for (int l = 0; l < lanes; l++)
    {
      bool in = first + l < cols;
      sv->ohs[l] = in ? (int32_t) (oh * cv->sh) : 0;
      sv->ows[l] = in ? (int32_t) (ow * cv->sw) : 0;
      if (in)
        {
          if (l == 0 || ow == 0)
            {
              if (sv->rows < 2)
                sv->row_base[sv->rows] = oh * cv->sh * cv->w + ow - l;
              sv->rows++;
            }
          if (sv->rows <= 2)
            sv->row_mask[sv->rows - 1] |= 1u << l;
          sv->valid |= 1u << l;
        }
      if (++ow == cv->ow)
        {
          ow = 0;
          oh++;
        }
    }
}

/* plane + offset, where lanes masked off may lie before the plane (never
 * read): the sum is formed on integers. */
static inline const float *
lane_base (const float *plane, int64_t offset)
{
  return (const float *) ((uintptr_t) plane + (uintptr_t) (offset * (int64_t) sizeof (float)));
}

/* The shape limits of both paths: 32-bit lane offsets. */
static bool
fits (const KernelConv *cv)
{
  int64_t reach_h = cv->oh * cv->sh + cv->kh * cv->dh + cv->ph;
  int64_t reach_w = cv->ow * cv->sw + cv->kw * cv->dw + cv->pw;

  return cv->h * cv->w <= INT32_MAX && reach_h <= INT32_MAX / 2 && reach_w <= INT32_MAX / 2 &&
         (reach_h + 1) * cv->w <= INT32_MAX;
}

__attribute__ ((target ("avx512f"))) static void
pack_avx512 (const KernelConv *cv, const float *xg, int64_t p0, int64_t pc, int64_t kc, int64_t j0, int64_t cols,
             float *dst)
{
  StripVector sv[2];
  __m512i ohs[2], ows[2];
  const __m512i h = _mm512_set1_epi32 ((int32_t) cv->h), w = _mm512_set1_epi32 ((int32_t) cv->w);
  bool unit = cv->sw == 1;
  int64_t taps = cv->kh * cv->kw, plane_floats = cv->h * cv->w;
  int64_t ci = pc / taps, kh = pc % taps / cv->kw, kw = pc % taps % cv->kw;

  for (int v = 0; v < 2; v++)
    {
      strip_vector (cv, p0 + j0, cols, v * 16, 16, &sv[v]);
      ohs[v] = _mm512_loadu_si512 (sv[v].ohs);
      ows[v] = _mm512_loadu_si512 (sv[v].ows);
    }
  for (int64_t p = 0; p < kc; p++)
    {
      const float *plane = xg + ci * plane_floats;
      int64_t c1 = kh * cv->dh - cv->ph, c2 = kw * cv->dw - cv->pw;
      for (int v = 0; v < 2; v++)
        {
          __m512i ih = _mm512_add_epi32 (ohs[v], _mm512_set1_epi32 ((int32_t) c1));
          __m512i iw = _mm512_add_epi32 (ows[v], _mm512_set1_epi32 ((int32_t) c2));
          /* Unsigned compares: a negative coordinate is a large one. */
          __mmask16 in = _mm512_mask_cmplt_epu32_mask ((__mmask16) sv[v].valid, ih, h);
          in = _mm512_mask_cmplt_epu32_mask (in, iw, w);
          __m512 x;
          if (unit && sv[v].rows <= 2)
            {
              int64_t shift = c1 * cv->w + c2;
              x = _mm512_maskz_loadu_ps (in & (__mmask16) sv[v].row_mask[0],
                                         lane_base (plane, sv[v].row_base[0] + shift));
              if (sv[v].rows == 2)
                x = _mm512_mask_loadu_ps (x, in & (__mmask16) sv[v].row_mask[1],
                                          lane_base (plane, sv[v].row_base[1] + shift));
            }
          else
            {
              __m512i idx = _mm512_add_epi32 (_mm512_mullo_epi32 (ih, w), iw);
              x = _mm512_mask_i32gather_ps (_mm512_setzero_ps (), in, idx, plane, 4);
            }
          _mm512_store_ps (dst + p * 32 + v * 16, x);
        }
      if (++kw == cv->kw)
        {
          kw = 0;
          if (++kh == cv->kh)
            {
              kh = 0;
              ci++;
            }
        }
    }
}

__attribute__ ((target ("avx2,fma"))) static __m256i
lane_mask_avx2 (uint32_t bits)
{
  const __m256i lane_bit = _mm256_setr_epi32 (1, 2, 4, 8, 16, 32, 64, 128);

  return _mm256_cmpeq_epi32 (_mm256_and_si256 (_mm256_set1_epi32 ((int) bits), lane_bit), lane_bit);
}

/* Lanes with 0 <= x < limit, as all-ones lanes. */
__attribute__ ((target ("avx2,fma"))) static __m256i
inside_avx2 (__m256i x, __m256i limit)
{
  return _mm256_andnot_si256 (_mm256_cmpgt_epi32 (_mm256_setzero_si256 (), x), _mm256_cmpgt_epi32 (limit, x));
}

__attribute__ ((target ("avx2,fma"))) static void
pack_avx2 (const KernelConv *cv, const float *xg, int64_t p0, int64_t pc, int64_t kc, int64_t j0, int64_t cols,
           float *dst)
{
  StripVector sv[2];
  __m256i ohs[2], ows[2], valid[2], row0[2], row1[2];
  const __m256i h = _mm256_set1_epi32 ((int32_t) cv->h), w = _mm256_set1_epi32 ((int32_t) cv->w);
  bool unit = cv->sw == 1;
  int64_t taps = cv->kh * cv->kw, plane_floats = cv->h * cv->w;
  int64_t ci = pc / taps, kh = pc % taps / cv->kw, kw = pc % taps % cv->kw;

  for (int v = 0; v < 2; v++)
    {
      strip_vector (cv, p0 + j0, cols, v * 8, 8, &sv[v]);
      ohs[v] = _mm256_loadu_si256 ((const __m256i *) sv[v].ohs);
      ows[v] = _mm256_loadu_si256 ((const __m256i *) sv[v].ows);
      valid[v] = lane_mask_avx2 (sv[v].valid);
      row0[v] = lane_mask_avx2 (sv[v].row_mask[0]);
      row1[v] = lane_mask_avx2 (sv[v].row_mask[1]);
    }
  for (int64_t p = 0; p < kc; p++)
    {
      const float *plane = xg + ci * plane_floats;
      int64_t c1 = kh * cv->dh - cv->ph, c2 = kw * cv->dw - cv->pw;
      for (int v = 0; v < 2; v++)
        {
          __m256i ih = _mm256_add_epi32 (ohs[v], _mm256_set1_epi32 ((int32_t) c1));
          __m256i iw = _mm256_add_epi32 (ows[v], _mm256_set1_epi32 ((int32_t) c2));
          __m256i in = _mm256_and_si256 (valid[v], _mm256_and_si256 (inside_avx2 (ih, h), inside_avx2 (iw, w)));
          __m256 x;
          if (unit && sv[v].rows <= 2)
            {
              int64_t shift = c1 * cv->w + c2;
              x = _mm256_maskload_ps (lane_base (plane, sv[v].row_base[0] + shift), _mm256_and_si256 (in, row0[v]));
              if (sv[v].rows == 2)
                x = _mm256_or_ps (x, _mm256_maskload_ps (lane_base (plane, sv[v].row_base[1] + shift),
                                                         _mm256_and_si256 (in, row1[v])));
            }
          else
            {
              __m256i idx = _mm256_add_epi32 (_mm256_mullo_epi32 (ih, w), iw);
              x = _mm256_mask_i32gather_ps (_mm256_setzero_ps (), plane, idx, _mm256_castsi256_ps (in), 4);
            }
          _mm256_store_ps (dst + p * 16 + v * 8, x);
        }
      if (++kw == cv->kw)
        {
          kw = 0;
          if (++kh == cv->kh)
            {
              kh = 0;
              ci++;
            }
        }
    }
}

bool
_executorch_conv_im2col_pack_simd (const KernelConv *cv, const float *xg, int64_t p0, int64_t pc, int64_t kc,
                                   int64_t j0, int64_t cols, int64_t nr, float *dst)
{
  if (!fits (cv))
    return false;
  /* A 32-wide strip means the GEMM runs its AVX-512 kernel, so the CPU has
   * AVX-512F; a 16-wide one, AVX2 or the portable kernel. */
  if (nr == 32)
    {
      pack_avx512 (cv, xg, p0, pc, kc, j0, cols, dst);
      return true;
    }
  if (nr == 16 && _executorch_support_cpu_has_avx2_fma ())
    {
      pack_avx2 (cv, xg, p0, pc, kc, j0, cols, dst);
      return true;
    }
  return false;
}

#else

bool
_executorch_conv_im2col_pack_simd (const KernelConv *cv, const float *xg, int64_t p0, int64_t pc, int64_t kc,
                                   int64_t j0, int64_t cols, int64_t nr, float *dst)
{
  return false;
}

#endif
