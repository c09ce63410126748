/* int-conv-depthwise.c: the integer convolution of a depthwise site, tap by tap along output rows
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * With one input and one output channel per group, the column fill of
 * int-conv.c copies every input element kh x kw times to multiply it once:
 * here each tap adds weight x input row straight into an int32 row of
 * sums, then the row gets its one float scaling.  The sums are the same
 * exact integers, so the result is the same bits.
 */
#include "int-kernels-private.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <string.h>

/* acc[xo] += w * row[xo * stride] for xo in [lo, hi) */
static inline void
add_tap (int32_t *acc, const int16_t *row, int64_t stride, int32_t w, int64_t lo, int64_t hi)
{
  if (stride == 1)
    for (int64_t xo = lo; xo < hi; xo++)
      acc[xo] += w * row[xo];
  else
    for (int64_t xo = lo; xo < hi; xo++)
      acc[xo] += w * row[xo * stride];
}

static inline void
channel_rows (const QkDepthwise *dw, int64_t channel, int32_t *acc)
{
  const int16_t *plane = dw->x + channel * dw->ih * dw->iw;
  const int16_t *w = dw->w + channel * dw->kh * dw->kw;
  int64_t base = dw->base + channel * dw->oh * dw->ow;
  double scale = dw->scale[channel], bias = dw->bias != NULL ? (double) dw->bias[channel] : 0.0;

  for (int64_t y = 0; y < dw->oh; y++)
    {
      memset (acc, 0, (size_t) dw->ow * sizeof (int32_t));
      for (int64_t ky = 0; ky < dw->kh; ky++)
        {
          int64_t yy = y * dw->stride[0] + ky * dw->dilation[0] - dw->padding[0];
          if (yy < 0 || yy >= dw->ih)
            continue;
          for (int64_t kx = 0; kx < dw->kw; kx++)
            {
              int64_t off = kx * dw->dilation[1] - dw->padding[1], s = dw->stride[1];
              /* output columns whose input column off + xo * s is inside */
              int64_t lo = off >= 0 ? 0 : (-off + s - 1) / s;
              int64_t hi = dw->iw - 1 - off < 0 ? 0 : MIN ((dw->iw - 1 - off) / s + 1, dw->ow);
              if (lo < hi)
                add_tap (acc, plane + yy * dw->iw + off, s, w[ky * dw->kw + kx], lo, hi);
            }
        }
      _executorch_qk_emit_row (&dw->out, acc, base + y * dw->ow, dw->ow, scale, bias);
    }
}

#ifdef QK_HAVE_AVX2
/* At most this many (row, tap pair) groups per output row for the vector
 * path: 3x3 gives 6, 5x5 15. */
#define MAX_GROUPS 32

/* Taps side by side in a row (dilation 1) go in pairs: one vpmaddwd of
 * the input pairs (x[i], x[i + 1]) by (w[kx], w[kx + 1]) adds both; a
 * lone tap pairs with a zero weight. */
typedef struct
{
  const int16_t *row; /* the input row */
  int64_t off;        /* the first tap's column offset */
  uint32_t w;
} TapGroup;

/* Output columns [0, ow) of one row, sums into acc: the columns whose
 * every read is inside the row sixteen (stride 1) or eight (stride 2) at a
 * time, the others one by one. */
__attribute__ ((target ("avx2"))) static void
row_sums_avx2 (const QkDepthwise *dw, const TapGroup *groups, int n_groups, const int16_t *const *rows,
               const int16_t *w, const int64_t *kys, int n_rows, int32_t *acc)
{
  int64_t s = dw->stride[1], iw = dw->iw, ow = dw->ow, min_off = INT64_MAX, max_off = INT64_MIN;
  int64_t block = s == 1 ? 16 : 8, x0, x1;

  for (int g = 0; g < n_groups; g++)
    min_off = MIN (min_off, groups[g].off), max_off = MAX (max_off, groups[g].off);
  /* reads of a block at X: s * X + off .. s * X + off + 16 (stride 1: the
   * odd outputs' loads start one further) */
  x0 = min_off >= 0 ? 0 : (-min_off + s - 1) / s;
  x1 = x0;
  if (n_groups > 0)
    while (x1 + block <= ow && s * x1 + max_off + 16 <= iw - 1)
      {
        __m256i a0 = _mm256_setzero_si256 (), a1 = a0;
        for (int g = 0; g < n_groups; g++)
          {
            const int16_t *src = groups[g].row + (s * x1 + groups[g].off);
            __m256i wv = _mm256_set1_epi32 ((int32_t) groups[g].w);
            a0 = _mm256_add_epi32 (a0, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) src), wv));
            if (s == 1)
              a1 = _mm256_add_epi32 (a1, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (src + 1)), wv));
          }
        if (s == 1)
          {
            /* a0 has the even outputs, a1 the odd ones */
            __m256i lo = _mm256_unpacklo_epi32 (a0, a1), hi = _mm256_unpackhi_epi32 (a0, a1);
            _mm256_storeu_si256 ((__m256i *) (acc + x1), _mm256_permute2x128_si256 (lo, hi, 0x20));
            _mm256_storeu_si256 ((__m256i *) (acc + x1 + 8), _mm256_permute2x128_si256 (lo, hi, 0x31));
          }
        else
          _mm256_storeu_si256 ((__m256i *) (acc + x1), a0);
        x1 += block;
      }
  for (int64_t xo = 0; xo < ow; xo++)
    {
      int32_t sum = 0;
      if (xo == x0 && x1 > x0)
        xo = x1;
      if (xo >= ow)
        break;
      for (int r = 0; r < n_rows; r++)
        for (int64_t kx = 0; kx < dw->kw; kx++)
          {
            int64_t xx = xo * s + kx * dw->dilation[1] - dw->padding[1];
            if (xx >= 0 && xx < iw)
              sum += w[kys[r] * dw->kw + kx] * rows[r][xx];
          }
      acc[xo] = sum;
    }
}

/* channel_rows with AVX2 pairs of taps (strides 1 and 2), else the
 * compiler's vectorisation of the plain loops. */
__attribute__ ((target ("avx2"))) static void
channel_rows_avx2 (const QkDepthwise *dw, int64_t channel, int32_t *acc)
{
  const int16_t *plane = dw->x + channel * dw->ih * dw->iw;
  const int16_t *w = dw->w + channel * dw->kh * dw->kw;
  int64_t base = dw->base + channel * dw->oh * dw->ow;
  double scale = dw->scale[channel], bias = dw->bias != NULL ? (double) dw->bias[channel] : 0.0;
  bool paired = dw->dilation[1] == 1;

  if ((dw->stride[1] != 1 && dw->stride[1] != 2) || dw->kh * (paired ? (dw->kw + 1) / 2 : dw->kw) > MAX_GROUPS ||
      dw->kh > MAX_GROUPS)
    {
      channel_rows (dw, channel, acc);
      return;
    }
  for (int64_t y = 0; y < dw->oh; y++)
    {
      TapGroup groups[MAX_GROUPS];
      const int16_t *rows[MAX_GROUPS];
      int64_t kys[MAX_GROUPS];
      int n_groups = 0, n_rows = 0;

      for (int64_t ky = 0; ky < dw->kh; ky++)
        {
          int64_t yy = y * dw->stride[0] + ky * dw->dilation[0] - dw->padding[0];
          if (yy < 0 || yy >= dw->ih)
            continue;
          rows[n_rows] = plane + yy * dw->iw;
          kys[n_rows++] = ky;
          for (int64_t kx = 0; kx < dw->kw; kx += paired ? 2 : 1)
            {
              int64_t off = kx * dw->dilation[1] - dw->padding[1];
              int16_t w0 = w[ky * dw->kw + kx], w1 = paired && kx + 1 < dw->kw ? w[ky * dw->kw + kx + 1] : 0;
              groups[n_groups++] =
                  (TapGroup){ plane + yy * dw->iw, off, (uint16_t) w0 | ((uint32_t) (uint16_t) w1 << 16) };
            }
        }
      row_sums_avx2 (dw, groups, n_groups, rows, w, kys, n_rows, acc);
      _executorch_qk_emit_row (&dw->out, acc, base + y * dw->ow, dw->ow, scale, bias);
    }
}
#endif

static void
depthwise_task (void *data, size_t channel)
{
  const QkDepthwise *dw = data;
  /* a row of sums per task: on the stack when it is small */
  int32_t small[512];
  int32_t *acc = dw->ow <= (int64_t) G_N_ELEMENTS (small) ? small : g_new (int32_t, dw->ow);

#ifdef QK_HAVE_AVX2
  if (dw->isa != QK_ISA_PORTABLE)
    channel_rows_avx2 (dw, (int64_t) channel, acc);
  else
#endif
    channel_rows (dw, (int64_t) channel, acc);
  if (acc != small)
    g_free (acc);
}

void
_executorch_qk_depthwise (const QkDepthwise *dw, bool parallel)
{
  if (parallel)
    executorch_threadpool_parallelize_1d (depthwise_task, (gpointer) dw, (size_t) dw->channels);
  else
    for (int64_t channel = 0; channel < dw->channels; channel++)
      depthwise_task ((gpointer) dw, (size_t) channel);
}
