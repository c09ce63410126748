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
#include <stdatomic.h>
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

/* add_tap of a row of bytes, each minus @zp. */
static inline void
add_tap_bytes (int32_t *acc, const uint8_t *row, bool is_signed, int32_t zp, int64_t stride, int32_t w, int64_t lo,
               int64_t hi)
{
  for (int64_t xo = lo; xo < hi; xo++)
    acc[xo] += w * ((is_signed ? (int32_t) (int8_t) row[xo * stride] : (int32_t) row[xo * stride]) - zp);
}

static inline void
channel_rows (const QkDepthwise *dw, int64_t channel, int32_t *acc)
{
  int64_t plane = channel * dw->ih * dw->iw;
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
              /* row + off indexes column off + xo * s of the input row */
              if (lo < hi && dw->bytes != NULL)
                add_tap_bytes (acc, dw->bytes + plane + yy * dw->iw + off, dw->is_signed, dw->zp, s,
                               w[ky * dw->kw + kx], lo, hi);
              else if (lo < hi)
                add_tap (acc, dw->x + plane + yy * dw->iw + off, s, w[ky * dw->kw + kx], lo, hi);
            }
        }
      _executorch_qk_emit_row (&dw->out, acc, base + y * dw->ow, dw->ow, scale, bias);
    }
}

/* Sums a row's buffer holds past ow: the vector blocks' overrun. */
#define ACC_SLACK 32

#ifdef QK_HAVE_AVX2
/* Tap groups of one output row: 3x3 gives 6, 5x5 15. */
#define MAX_GROUPS 32
/* Outputs a block computes past the row's end (into acc's slack): a
 * block is 32 outputs (AVX-512 at stride 1) at most. */
#define BLOCK_SLACK ACC_SLACK

/* Taps side by side in a row (dilation 1) go in pairs: one vpmaddwd of
 * the input pairs (x[i], x[i + 1]) by (w[kx], w[kx + 1]) adds both; a
 * lone tap pairs with a zero weight. */
typedef struct
{
  const int16_t *src; /* the padded input row at the first tap's column */
  uint32_t w;
} TapGroup;

/* The plane with its padding as zeros (the (x - zero point) of padding)
 * and room to the right for whole blocks: every tap of every block reads
 * inside it. */
typedef struct
{
  int16_t *data;
  int64_t height, width;
} PaddedPlane;

/* At stride 1 the plane is one long row: output (y, x) is flat output
 * y * width + x, which reads element ky * dilation * width + kx *
 * dilation further on, whatever y; so rows of sums run over several
 * output rows at once, the columns past ow (reading the padding and the
 * next row's start) thrown away.  A 7- or 14-wide plane then costs its
 * own width, not a whole block of 32, per output row. */
static bool
is_flat (const QkDepthwise *dw)
{
  return dw->stride[0] == 1 && dw->stride[1] == 1;
}

static bool
padded_plane_new (const QkDepthwise *dw, PaddedPlane *pp)
{
  int64_t s = dw->stride[1], n;

  pp->height = dw->ih + 2 * dw->padding[0];
  if (is_flat (dw))
    {
      pp->width = dw->iw + 2 * dw->padding[1];
      /* a band stops at its last row's last output; from output q, tap
       * (ky, kx) reads q + ky * dilation * width + kx * dilation, and a
       * block up to 32 further (stride 1's odd outputs load one further):
       * the last output, (oh - 1) * width + ow - 1, plus the last tap
       * ((kh - 1) * dilation * width + (kw - 1) * dilation) is the last
       * element of the plane, height * width - 1 */
      n = pp->height * pp->width + BLOCK_SLACK + 1;
    }
  else
    {
      /* a block at X reads up to s * X + (kw - 1) * dilation + 32 (stride
       * 1's odd outputs load one further) */
      pp->width = MAX (dw->iw + 2 * dw->padding[1], s * (dw->ow + BLOCK_SLACK) + (dw->kw - 1) * dw->dilation[1] + 33);
      n = pp->height * pp->width;
    }
  pp->data = g_try_malloc0_n ((gsize) n, sizeof (int16_t));
  return pp->data != NULL;
}

/* dst[i] = src[i] - zp over a row, sixteen at a time. */
__attribute__ ((target ("avx2"))) static void
widen_row (const uint8_t *src, bool is_signed, int16_t zp, int16_t *dst, int64_t n)
{
  __m256i vzp = _mm256_set1_epi16 (zp);
  int64_t i = 0;

  for (; i + 16 <= n; i += 16)
    {
      __m128i b = _mm_loadu_si128 ((const __m128i *) (src + i));
      __m256i v = is_signed ? _mm256_cvtepi8_epi16 (b) : _mm256_cvtepu8_epi16 (b);
      _mm256_storeu_si256 ((__m256i *) (dst + i), _mm256_sub_epi16 (v, vzp));
    }
  for (; i < n; i++)
    dst[i] = (int16_t) ((is_signed ? (int) (int8_t) src[i] : (int) src[i]) - zp);
}

/* widen_row 32 at a time, the tail under a mask: a 7- or 14-wide row is
 * one step, not a scalar loop. */
__attribute__ ((target ("avx512f,avx512bw,avx512vl"))) static void
widen_row_avx512 (const uint8_t *src, bool is_signed, int16_t zp, int16_t *dst, int64_t n)
{
  __m512i vzp = _mm512_set1_epi16 (zp);

  for (int64_t i = 0; i < n; i += 32)
    {
      __mmask32 m = n - i >= 32 ? (__mmask32) 0xffffffffu : (__mmask32) ((1u << (n - i)) - 1);
      __m256i b = _mm256_maskz_loadu_epi8 (m, src + i);
      __m512i v = is_signed ? _mm512_cvtepi8_epi16 (b) : _mm512_cvtepu8_epi16 (b);
      _mm512_mask_storeu_epi16 (dst + i, m, _mm512_sub_epi16 (v, vzp));
    }
}

__attribute__ ((target ("avx2"))) static void
padded_plane_fill (const QkDepthwise *dw, const PaddedPlane *pp, int64_t channel)
{
  int64_t plane = channel * dw->ih * dw->iw;

  /* the padding stays zero from the allocation */
  for (int64_t y = 0; y < dw->ih; y++)
    {
      int16_t *dst = pp->data + (y + dw->padding[0]) * pp->width + dw->padding[1];
      if (dw->bytes == NULL)
        memcpy (dst, dw->x + plane + y * dw->iw, (size_t) dw->iw * sizeof (int16_t));
      else if (dw->isa == QK_ISA_AVX512_VNNI)
        widen_row_avx512 (dw->bytes + plane + y * dw->iw, dw->is_signed, dw->zp, dst, dw->iw);
      else
        widen_row (dw->bytes + plane + y * dw->iw, dw->is_signed, dw->zp, dst, dw->iw);
    }
}

/* Output columns [0, ow) (and up to BLOCK_SLACK more, into acc's slack)
 * of one row, sixteen (stride 1) or eight (stride 2) at a time. */
__attribute__ ((target ("avx2"))) static void
row_sums_avx2 (const TapGroup *groups, int n_groups, int64_t stride, int64_t ow, int32_t *acc)
{
  if (stride == 1)
    for (int64_t x = 0; x < ow; x += 16)
      {
        __m256i even = _mm256_setzero_si256 (), odd = even;
        for (int g = 0; g < n_groups; g++)
          {
            __m256i wv = _mm256_set1_epi32 ((int32_t) groups[g].w);
            even =
                _mm256_add_epi32 (even,
                                  _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (groups[g].src + x)), wv));
            odd = _mm256_add_epi32 (odd,
                                    _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (groups[g].src + x + 1)),
                                                       wv));
          }
        __m256i lo = _mm256_unpacklo_epi32 (even, odd), hi = _mm256_unpackhi_epi32 (even, odd);
        _mm256_storeu_si256 ((__m256i *) (acc + x), _mm256_permute2x128_si256 (lo, hi, 0x20));
        _mm256_storeu_si256 ((__m256i *) (acc + x + 8), _mm256_permute2x128_si256 (lo, hi, 0x31));
      }
  else
    for (int64_t x = 0; x < ow; x += 8)
      {
        __m256i a = _mm256_setzero_si256 ();
        for (int g = 0; g < n_groups; g++)
          a = _mm256_add_epi32 (a, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (groups[g].src + 2 * x)),
                                                      _mm256_set1_epi32 ((int32_t) groups[g].w)));
        _mm256_storeu_si256 ((__m256i *) (acc + x), a);
      }
}

/* row_sums_avx2 on 512-bit vectors: 32 (stride 1) or 16 (stride 2) at a
 * time. */
__attribute__ ((target ("avx512f,avx512bw"))) static void
row_sums_avx512 (const TapGroup *groups, int n_groups, int64_t stride, int64_t ow, int32_t *acc)
{
  if (stride == 1)
    {
      /* even[i] is output x + 2i, odd[i] output x + 2i + 1; the unpacks
       * interleave them within 128-bit lanes, the permutes put the lanes
       * in order */
      __m512i first = _mm512_setr_epi64 (0, 1, 8, 9, 2, 3, 10, 11), second = _mm512_setr_epi64 (4, 5, 12, 13, 6, 7, 14, 15);
      for (int64_t x = 0; x < ow; x += 32)
        {
          __m512i even = _mm512_setzero_si512 (), odd = even;
          for (int g = 0; g < n_groups; g++)
            {
              __m512i wv = _mm512_set1_epi32 ((int32_t) groups[g].w);
              even = _mm512_add_epi32 (even, _mm512_madd_epi16 (_mm512_loadu_si512 ((const void *) (groups[g].src + x)), wv));
              odd = _mm512_add_epi32 (odd,
                                      _mm512_madd_epi16 (_mm512_loadu_si512 ((const void *) (groups[g].src + x + 1)), wv));
            }
          __m512i lo = _mm512_unpacklo_epi32 (even, odd), hi = _mm512_unpackhi_epi32 (even, odd);
          _mm512_storeu_si512 ((void *) (acc + x), _mm512_permutex2var_epi64 (lo, first, hi));
          _mm512_storeu_si512 ((void *) (acc + x + 16), _mm512_permutex2var_epi64 (lo, second, hi));
        }
    }
  else
    for (int64_t x = 0; x < ow; x += 16)
      {
        __m512i a = _mm512_setzero_si512 ();
        for (int g = 0; g < n_groups; g++)
          a = _mm512_add_epi32 (a, _mm512_madd_epi16 (_mm512_loadu_si512 ((const void *) (groups[g].src + 2 * x)),
                                                      _mm512_set1_epi32 ((int32_t) groups[g].w)));
        _mm512_storeu_si512 ((void *) (acc + x), a);
      }
}

/* channel_rows_avx2 on a flat plane (is_flat): bands of whole output rows
 * as one row of sums each, compacted to ow a row before the requantization. */
__attribute__ ((target ("avx2"))) static void
channel_flat_avx2 (const QkDepthwise *dw, int64_t channel, int32_t *acc, int64_t n_acc, const PaddedPlane *plane)
{
  const PaddedPlane pp = *plane;
  int64_t rows_per_band = MAX ((n_acc - BLOCK_SLACK) / pp.width, 1);
  const int16_t *w = dw->w + channel * dw->kh * dw->kw;
  int64_t base = dw->base + channel * dw->oh * dw->ow;
  double scale = dw->scale[channel], bias = dw->bias != NULL ? (double) dw->bias[channel] : 0.0;
  bool paired = dw->dilation[1] == 1;
  TapGroup groups[MAX_GROUPS];
  int n_groups = 0;

  padded_plane_fill (dw, &pp, channel);
  for (int64_t ky = 0; ky < dw->kh; ky++)
    for (int64_t kx = 0; kx < dw->kw; kx += paired ? 2 : 1)
      {
        int16_t w0 = w[ky * dw->kw + kx], w1 = paired && kx + 1 < dw->kw ? w[ky * dw->kw + kx + 1] : 0;
        groups[n_groups++] = (TapGroup){ pp.data + ky * dw->dilation[0] * pp.width + kx * dw->dilation[1],
                                         (uint16_t) w0 | ((uint32_t) (uint16_t) w1 << 16) };
      }
  for (int64_t y0 = 0; y0 < dw->oh; y0 += rows_per_band)
    {
      /* up to the last row's ow-th output: none past it is read */
      int64_t rows = MIN (rows_per_band, dw->oh - y0), n = (rows - 1) * pp.width + dw->ow;
      if (dw->isa == QK_ISA_AVX512_VNNI)
        row_sums_avx512 (groups, n_groups, 1, n, acc);
      else
        row_sums_avx2 (groups, n_groups, 1, n, acc);
      for (int64_t r = 1; r < rows; r++)
        memmove (acc + r * dw->ow, acc + r * pp.width, (size_t) dw->ow * sizeof (int32_t));
      _executorch_qk_emit_row (&dw->out, acc, base + y0 * dw->ow, rows * dw->ow, scale, bias);
      for (int g = 0; g < n_groups; g++)
        groups[g].src += rows * pp.width;
    }
}

/* channel_rows with AVX2 pairs of taps on a padded copy of the plane
 * (strides 1 and 2), into @n_acc sums (at least ow + BLOCK_SLACK): as
 * many rows as fit go to the requantization at once, its per-call cost
 * weighs on narrow rows; false when it does not apply or has no memory. */
static bool
avx2_applies (const QkDepthwise *dw)
{
  bool paired = dw->dilation[1] == 1;

  return (dw->stride[1] == 1 || dw->stride[1] == 2) && dw->kh * ((dw->kw + 1) / (paired ? 2 : 1)) <= MAX_GROUPS;
}

__attribute__ ((target ("avx2"))) static void
channel_rows_avx2 (const QkDepthwise *dw, int64_t channel, int32_t *acc, int64_t n_acc, const PaddedPlane *plane)
{
  /* a row's slack lands on the next row's start, which that row rewrites */
  int64_t rows_per_emit = MAX ((n_acc - BLOCK_SLACK) / dw->ow, 1), first = 0;
  const int16_t *w = dw->w + channel * dw->kh * dw->kw;
  int64_t base = dw->base + channel * dw->oh * dw->ow;
  double scale = dw->scale[channel], bias = dw->bias != NULL ? (double) dw->bias[channel] : 0.0;
  bool paired = dw->dilation[1] == 1;
  const PaddedPlane pp = *plane;

  padded_plane_fill (dw, &pp, channel);
  for (int64_t y = 0; y < dw->oh; y++)
    {
      TapGroup groups[MAX_GROUPS];
      int n_groups = 0;

      for (int64_t ky = 0; ky < dw->kh; ky++)
        {
          const int16_t *row = pp.data + (y * dw->stride[0] + ky * dw->dilation[0]) * pp.width;
          for (int64_t kx = 0; kx < dw->kw; kx += paired ? 2 : 1)
            {
              int16_t w0 = w[ky * dw->kw + kx], w1 = paired && kx + 1 < dw->kw ? w[ky * dw->kw + kx + 1] : 0;
              groups[n_groups++] =
                  (TapGroup){ row + kx * dw->dilation[1], (uint16_t) w0 | ((uint32_t) (uint16_t) w1 << 16) };
            }
        }
      if (dw->isa == QK_ISA_AVX512_VNNI)
        row_sums_avx512 (groups, n_groups, dw->stride[1], dw->ow, acc + (y - first) * dw->ow);
      else
        row_sums_avx2 (groups, n_groups, dw->stride[1], dw->ow, acc + (y - first) * dw->ow);
      if (y + 1 - first == rows_per_emit || y + 1 == dw->oh)
        {
          _executorch_qk_emit_row (&dw->out, acc, base + first * dw->ow, (y + 1 - first) * dw->ow, scale, bias);
          first = y + 1;
        }
    }
}
#endif

typedef struct
{
  const QkDepthwise *dw;
  int64_t per_task; /* channels */
  _Atomic bool failed; /* an in-place task found no memory for its plane */
} DepthwiseJob;

/* Channels [task * per_task, ...): one padded plane for all of them, its
 * padding zeroed once (each channel rewrites only the inside). */
static void
depthwise_task (void *data, size_t task)
{
  DepthwiseJob *job = data;
  const QkDepthwise *dw = job->dw;
  int64_t first = (int64_t) task * job->per_task, end = MIN (first + job->per_task, dw->channels);
  /* rows of sums per task: on the stack when they are small */
  int32_t small[1024];
  /* a row of sums: ow, or a flat plane's width (is_flat), at least */
  int64_t row = MAX (dw->ow, dw->iw + 2 * dw->padding[1]);
  int64_t n_acc = row + ACC_SLACK <= (int64_t) G_N_ELEMENTS (small) ? (int64_t) G_N_ELEMENTS (small) : row + ACC_SLACK;
  int32_t *acc = n_acc == (int64_t) G_N_ELEMENTS (small) ? small : g_new (int32_t, n_acc);
  bool vector = false;

#ifdef QK_HAVE_AVX2
  PaddedPlane plane = { NULL, 0, 0 };
  vector = dw->isa != QK_ISA_PORTABLE && avx2_applies (dw) && padded_plane_new (dw, &plane);
  /* in place, a channel's plane must be copied before its result is
   * written over it */
  if (dw->in_place && !vector)
    {
      atomic_store (&job->failed, true);
      end = first;
    }
  for (int64_t channel = first; vector && channel < end; channel++)
    if (is_flat (dw))
      channel_flat_avx2 (dw, channel, acc, n_acc, &plane);
    else
      channel_rows_avx2 (dw, channel, acc, n_acc, &plane);
  g_free (plane.data);
#endif
  for (int64_t channel = first; !vector && channel < end; channel++)
    channel_rows (dw, channel, acc);
  if (acc != small)
    g_free (acc);
}

bool
_executorch_qk_depthwise_copies_planes (QkIsa isa, int64_t kh, int64_t kw, int64_t stride_w, int64_t dilation_w)
{
#ifdef QK_HAVE_AVX2
  QkDepthwise dw = { .kh = kh, .kw = kw, .stride = { 1, stride_w }, .dilation = { 1, dilation_w } };
  return isa != QK_ISA_PORTABLE && avx2_applies (&dw);
#else
  (void) isa, (void) kh, (void) kw, (void) stride_w, (void) dilation_w;
  return false;
#endif
}

bool
_executorch_qk_depthwise (const QkDepthwise *dw, bool parallel)
{
  /* a few tasks per thread, each its own plane */
  int64_t n_tasks = parallel ? MIN (dw->channels, 4 * (int64_t) executorch_threadpool_get_num_threads ()) : 1;
  DepthwiseJob job = { dw, (dw->channels + n_tasks - 1) / n_tasks, false };

  n_tasks = (dw->channels + job.per_task - 1) / job.per_task;
  if (parallel && n_tasks > 1)
    executorch_threadpool_parallelize_1d (depthwise_task, &job, (size_t) n_tasks);
  else
    for (int64_t task = 0; task < n_tasks; task++)
      depthwise_task (&job, (size_t) task);
  return !atomic_load (&job.failed);
}
