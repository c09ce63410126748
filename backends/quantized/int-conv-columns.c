/* int-conv-columns.c: the columns an integer convolution multiplies
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One group of one image as columns (int-conv.c): int16 pairs
 * cols[kk][p][2] of the staged activations, or unsigned quads
 * cols8[kq][p][4] for the u8 x s8 products, made from the staged
 * activations or from the int8/uint8 bytes themselves.
 */
#include "int-kernels-private.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <string.h>

void
_executorch_qk_column_taps (const QkConvGeometry *geo, QkColumnTap *taps)
{
  for (int64_t j = 0; j < geo->k; j++)
    {
      int64_t ci = j / (geo->kh * geo->kw), r = j % (geo->kh * geo->kw), ky = r / geo->kw, kx = r % geo->kw;
      int64_t off = kx * geo->dilation[1] - geo->padding[1];
      taps[j].plane = ci * geo->ih * geo->iw;
      taps[j].ky_off = ky * geo->dilation[0] - geo->padding[0];
      taps[j].off = off;
      taps[j].lo = off >= 0 ? 0 : (-off + geo->stride[1] - 1) / geo->stride[1];
      taps[j].hi = geo->iw - 1 - off < 0 ? 0 : MIN ((geo->iw - 1 - off) / geo->stride[1] + 1, geo->ow);
    }
}

/* Where tap @j reads for output row @y: false for padding or past K,
 * else *start, the index output column 0 would read (column xo in [*lo,
 * *hi) reads *start + xo * stride; *start itself may lie before the
 * plane, in the padding). */
static inline bool
column_start (const QkConvGeometry *geo, const QkColumnTap *taps, int64_t j, int64_t y, int64_t *start, int64_t *lo,
              int64_t *hi)
{
  int64_t yy;

  if (j >= geo->k)
    return false;
  yy = y * geo->stride[0] + taps[j].ky_off;
  if (yy < 0 || yy >= geo->ih)
    return false;
  *lo = taps[j].lo;
  *hi = taps[j].hi;
  *start = taps[j].plane + yy * geo->iw + taps[j].off;
  return true;
}

/* The staged row tap @j reads for output row @y (NULL: padding, or past
 * K), offset so that output column xo reads src[xo * stride]. */
static inline const int16_t *
column_source (const QkConvGeometry *geo, const QkColumnTap *taps, const int16_t *planes, int64_t j, int64_t y,
               int64_t *lo, int64_t *hi)
{
  int64_t start;

  return column_start (geo, taps, j, y, &start, lo, hi) ? planes + start : NULL;
}

/* A 1x1 convolution at stride 1 without padding reads input element p
 * for output pixel p: its column rows interleave whole planes, one long
 * row (a 7- or 14-wide row is too short for the vector loops below). */
static bool
is_pointwise (const QkConvGeometry *geo)
{
  return geo->kh == 1 && geo->kw == 1 && geo->stride[0] == 1 && geo->stride[1] == 1 && geo->padding[0] == 0 &&
         geo->padding[1] == 0 && geo->oh == geo->ih && geo->ow == geo->iw;
}

static void
fill_pointwise (const QkConvGeometry *geo, const int16_t *planes, int16_t *cols, int64_t first, int64_t end)
{
  int64_t n = geo->oh * geo->ow;

  for (int64_t kk = first; kk < end; kk++)
    {
      int16_t *dst = cols + kk * geo->p_pad * 2;
      const int16_t *a = planes + 2 * kk * n, *b = 2 * kk + 1 < geo->k ? a + n : NULL;
      int64_t p = 0;
#if defined(__x86_64__) && defined(__SSE2__)
      if (b != NULL)
        for (; p + 8 <= n; p += 8)
          {
            __m128i va = _mm_loadu_si128 ((const __m128i *) (a + p));
            __m128i vb = _mm_loadu_si128 ((const __m128i *) (b + p));
            _mm_storeu_si128 ((__m128i *) (dst + 2 * p), _mm_unpacklo_epi16 (va, vb));
            _mm_storeu_si128 ((__m128i *) (dst + 2 * p + 8), _mm_unpackhi_epi16 (va, vb));
          }
#endif
      for (; p < n; p++)
        {
          dst[2 * p] = a[p];
          dst[2 * p + 1] = b != NULL ? b[p] : 0;
        }
      memset (dst + n * 2, 0, (size_t) (geo->p_pad - n) * 2 * sizeof (int16_t));
    }
}

/* cols[kk][p][2] of one group of one image, every element written:
 * padding is 0 in the (x - zero point) domain, as it is 0.0 after
 * dequantization, and so are the pixels past the last and an odd K's
 * last partner. */
static void
fill_columns (const QkConvGeometry *geo, const QkColumnTap *taps, const int16_t *planes, int16_t *cols, int64_t first,
              int64_t end)
{
  int64_t n_pixels = geo->oh * geo->ow;

  for (int64_t kk = first; kk < end; kk++)
    {
      int16_t *col = cols + kk * geo->p_pad * 2;
      for (int64_t y = 0; y < geo->oh; y++)
        {
          int64_t lo_a = 0, hi_a = 0, lo_b = 0, hi_b = 0, xo = 0, s = geo->stride[1];
          const int16_t *a = column_source (geo, taps, planes, 2 * kk, y, &lo_a, &hi_a);
          const int16_t *b = column_source (geo, taps, planes, 2 * kk + 1, y, &lo_b, &hi_b);
          int16_t *dst = col + y * geo->ow * 2;
#if defined(__x86_64__) && defined(__SSE2__)
          /* stride 1 where both are inside the image: interleave the two
           * input rows eight at a time */
          if (a != NULL && b != NULL && s == 1)
            {
              int64_t from = MAX (lo_a, lo_b), to = MIN (hi_a, hi_b);
              for (; xo < from; xo++)
                {
                  dst[2 * xo] = xo >= lo_a && xo < hi_a ? a[xo] : 0;
                  dst[2 * xo + 1] = xo >= lo_b && xo < hi_b ? b[xo] : 0;
                }
              for (; xo + 8 <= to; xo += 8)
                {
                  __m128i va = _mm_loadu_si128 ((const __m128i *) (a + xo));
                  __m128i vb = _mm_loadu_si128 ((const __m128i *) (b + xo));
                  _mm_storeu_si128 ((__m128i *) (dst + 2 * xo), _mm_unpacklo_epi16 (va, vb));
                  _mm_storeu_si128 ((__m128i *) (dst + 2 * xo + 8), _mm_unpackhi_epi16 (va, vb));
                }
            }
#endif
          if (a == NULL)
            lo_a = hi_a = 0;
          if (b == NULL)
            lo_b = hi_b = 0;
          for (; xo < geo->ow; xo++)
            {
              dst[2 * xo] = xo >= lo_a && xo < hi_a ? a[xo * s] : 0;
              dst[2 * xo + 1] = xo >= lo_b && xo < hi_b ? b[xo * s] : 0;
            }
        }
      memset (col + n_pixels * 2, 0, (size_t) (geo->p_pad - n_pixels) * 2 * sizeof (int16_t));
    }
}

/* The u8 fills below are instantiated once per kind of source, @bytes
 * constant: a test per element made resnet18's convolutions 10 % slower. */
#define ALWAYS_INLINE inline __attribute__ ((always_inline))

/* Element @i of the u8 columns' source as an unsigned byte. */
static ALWAYS_INLINE uint8_t
u8_at (const QkU8Source *src, bool bytes, int64_t i)
{
  return bytes ? (uint8_t) (src->bytes[i] ^ src->flip) : (uint8_t) (src->x[i] + src->pad);
}

#if defined(__x86_64__) && defined(__SSE2__)
/* Elements [i, i + 16) of the source as unsigned bytes. */
static ALWAYS_INLINE __m128i
u8_16 (const QkU8Source *src, bool bytes, int64_t i)
{
  if (bytes)
    return _mm_xor_si128 (_mm_loadu_si128 ((const __m128i *) (src->bytes + i)), _mm_set1_epi8 ((char) src->flip));
  __m128i pad = _mm_set1_epi16 (src->pad);
  return _mm_packus_epi16 (_mm_add_epi16 (_mm_loadu_si128 ((const __m128i *) (src->x + i)), pad),
                           _mm_add_epi16 (_mm_loadu_si128 ((const __m128i *) (src->x + i + 8)), pad));
}

/* Elements [i, i + 8) in the low half. */
static ALWAYS_INLINE __m128i
u8_8 (const QkU8Source *src, bool bytes, int64_t i)
{
  if (bytes)
    return _mm_xor_si128 (_mm_loadl_epi64 ((const __m128i *) (src->bytes + i)), _mm_set1_epi8 ((char) src->flip));
  return _mm_packus_epi16 (_mm_add_epi16 (_mm_loadu_si128 ((const __m128i *) (src->x + i)), _mm_set1_epi16 (src->pad)),
                           _mm_setzero_si128 ());
}

/* Elements i, i + 2, ..., i + 30. */
static ALWAYS_INLINE __m128i
u8_16_even (const QkU8Source *src, bool bytes, int64_t i)
{
  __m128i low_bytes = _mm_set1_epi16 (0xff);

  if (bytes)
    return _mm_xor_si128 (_mm_packus_epi16 (_mm_and_si128 (_mm_loadu_si128 ((const __m128i *) (src->bytes + i)),
                                                           low_bytes),
                                            _mm_and_si128 (_mm_loadu_si128 ((const __m128i *) (src->bytes + i + 16)),
                                                           low_bytes)),
                          _mm_set1_epi8 ((char) src->flip));
  return _mm_packus_epi16 (_mm_and_si128 (u8_16 (src, false, i), low_bytes),
                           _mm_and_si128 (u8_16 (src, false, i + 16), low_bytes));
}

/* Sixteen pixels' quads from four rows of bytes. */
static inline void
store_quads_16 (uint8_t *dst, const __m128i b[4])
{
  __m128i ab_lo = _mm_unpacklo_epi8 (b[0], b[1]), ab_hi = _mm_unpackhi_epi8 (b[0], b[1]);
  __m128i cd_lo = _mm_unpacklo_epi8 (b[2], b[3]), cd_hi = _mm_unpackhi_epi8 (b[2], b[3]);
  _mm_storeu_si128 ((__m128i *) dst, _mm_unpacklo_epi16 (ab_lo, cd_lo));
  _mm_storeu_si128 ((__m128i *) (dst + 16), _mm_unpackhi_epi16 (ab_lo, cd_lo));
  _mm_storeu_si128 ((__m128i *) (dst + 32), _mm_unpacklo_epi16 (ab_hi, cd_hi));
  _mm_storeu_si128 ((__m128i *) (dst + 48), _mm_unpackhi_epi16 (ab_hi, cd_hi));
}
#endif

/* Quads dst[p][t] = element start[t] + p of the source, or the pad where
 * start[t] < 0 (a channel past the last), for p < n. */
static ALWAYS_INLINE void
interleave_quads (const QkU8Source *src, bool bytes, const int64_t start[4], uint8_t *dst, int64_t n)
{
  int64_t p = 0;
  bool all = true;

  for (int t = 0; t < 4; t++)
    all &= start[t] >= 0;
#if defined(__x86_64__) && defined(__SSE2__)
  if (all)
    for (; p + 16 <= n; p += 16)
      {
        __m128i q[4];
        for (int t = 0; t < 4; t++)
          q[t] = u8_16 (src, bytes, start[t] + p);
        store_quads_16 (dst + 4 * p, q);
      }
#endif
  for (; p < n; p++)
    for (int t = 0; t < 4; t++)
      dst[4 * p + t] = start[t] >= 0 ? u8_at (src, bytes, start[t] + p) : (uint8_t) src->pad;
}

static ALWAYS_INLINE void
fill_pointwise_u8 (const QkConvGeometry *geo, const QkU8Source *source, bool bytes, uint8_t *cols8, int64_t first,
                   int64_t end)
{
  /* a copy the byte stores below cannot alias, kept in registers */
  const QkU8Source copy = *source, *src = &copy;
  int64_t n = geo->oh * geo->ow;

  for (int64_t kq = first; kq < end; kq++)
    {
      uint8_t *dst = cols8 + kq * geo->p_pad * 4;
      int64_t start[4];
      for (int t = 0; t < 4; t++)
        start[t] = 4 * kq + t < geo->k ? (4 * kq + t) * n : -1;
      interleave_quads (src, bytes, start, dst, n);
      memset (dst + n * 4, (uint8_t) src->pad, (size_t) (geo->p_pad - n) * 4);
    }
}

/* cols8[kq][p][4] of one group of one image: the source's unsigned
 * bytes; padding (and the pixels past the last, and K's padding, whose
 * weights are 0) the image of 0, src->pad. */
static ALWAYS_INLINE void
fill_columns_u8 (const QkConvGeometry *geo, const QkColumnTap *taps, const QkU8Source *source, bool bytes,
                 uint8_t *cols8, int64_t first, int64_t end)
{
  /* a copy the byte stores below cannot alias, kept in registers */
  const QkU8Source copy = *source, *src = &copy;
  int64_t n_pixels = geo->oh * geo->ow, s = geo->stride[1];
  uint8_t pad = (uint8_t) src->pad;

  for (int64_t kq = first; kq < end; kq++)
    {
      uint8_t *col = cols8 + kq * geo->p_pad * 4;
      for (int64_t y = 0; y < geo->oh; y++)
        {
          int64_t start[4], lo[4], hi[4], from = 0, to = geo->ow, xo = 0;
          uint8_t *dst = col + y * geo->ow * 4;
          bool inside[4];
          /* the output columns [from, to) read inside the image in every
           * tap that reads the image at all; the others are padding */
          for (int t = 0; t < 4; t++)
            {
              lo[t] = hi[t] = start[t] = 0;
              inside[t] = column_start (geo, taps, 4 * kq + t, y, &start[t], &lo[t], &hi[t]);
              if (inside[t])
                from = MAX (from, lo[t]), to = MIN (to, hi[t]);
            }
#if defined(__x86_64__) && defined(__SSE2__)
          /* stride 1 or 2: sixteen pixels' quads from four rows at a time */
          if (s <= 2 && from < to)
            {
              __m128i padding = _mm_set1_epi8 ((char) pad);
              for (; xo < from; xo++)
                for (int t = 0; t < 4; t++)
                  dst[4 * xo + t] = xo >= lo[t] && xo < hi[t] ? u8_at (src, bytes, start[t] + xo * s) : pad;
              if (s == 1)
                for (; xo + 16 <= to; xo += 16)
                  {
                    __m128i b[4];
                    for (int t = 0; t < 4; t++)
                      b[t] = inside[t] ? u8_16 (src, bytes, start[t] + xo) : padding;
                    store_quads_16 (dst + 4 * xo, b);
                  }
              else
                /* the last of the 32 elements read, column 2 xo + 31, is
                 * inside where column 2 (xo + 16) is */
                for (; xo + 17 <= to; xo += 16)
                  {
                    __m128i b[4];
                    for (int t = 0; t < 4; t++)
                      b[t] = inside[t] ? u8_16_even (src, bytes, start[t] + 2 * xo) : padding;
                    store_quads_16 (dst + 4 * xo, b);
                  }
              /* and eight (14-wide rows have no sixteen inside) */
              for (; s == 1 && xo + 8 <= to; xo += 8)
                {
                  __m128i b[4];
                  for (int t = 0; t < 4; t++)
                    b[t] = inside[t] ? u8_8 (src, bytes, start[t] + xo) : padding;
                  __m128i ab = _mm_unpacklo_epi8 (b[0], b[1]), cd = _mm_unpacklo_epi8 (b[2], b[3]);
                  _mm_storeu_si128 ((__m128i *) (dst + 4 * xo), _mm_unpacklo_epi16 (ab, cd));
                  _mm_storeu_si128 ((__m128i *) (dst + 4 * xo + 16), _mm_unpackhi_epi16 (ab, cd));
                }
            }
#endif
          for (; xo < geo->ow; xo++)
            for (int t = 0; t < 4; t++)
              dst[4 * xo + t] = xo >= lo[t] && xo < hi[t] ? u8_at (src, bytes, start[t] + xo * s) : pad;
        }
      memset (col + n_pixels * 4, pad, (size_t) (geo->p_pad - n_pixels) * 4);
    }
}

static void
fill_u8_from_bytes (const QkFill *fill, int64_t first, int64_t end)
{
  if (is_pointwise (fill->geo))
    fill_pointwise_u8 (fill->geo, &fill->u8, true, fill->cols8, first, end);
  else
    fill_columns_u8 (fill->geo, fill->taps, &fill->u8, true, fill->cols8, first, end);
}

static void
fill_u8_from_staged (const QkFill *fill, int64_t first, int64_t end)
{
  if (is_pointwise (fill->geo))
    fill_pointwise_u8 (fill->geo, &fill->u8, false, fill->cols8, first, end);
  else
    fill_columns_u8 (fill->geo, fill->taps, &fill->u8, false, fill->cols8, first, end);
}

static void
fill_task (void *data, size_t task)
{
  const QkFill *fill = data;
  int64_t first = (int64_t) task * fill->per_task, end = MIN (first + fill->per_task, fill->n_rows);

  if (fill->cols8 != NULL && fill->u8.bytes != NULL)
    fill_u8_from_bytes (fill, first, end);
  else if (fill->cols8 != NULL)
    fill_u8_from_staged (fill, first, end);
  else if (is_pointwise (fill->geo))
    fill_pointwise (fill->geo, fill->planes, fill->cols, first, end);
  else
    fill_columns (fill->geo, fill->taps, fill->planes, fill->cols, first, end);
}

void
_executorch_qk_fill_columns (const QkFill *fill, bool parallel)
{
  size_t n_tasks = (size_t) ((fill->n_rows + fill->per_task - 1) / fill->per_task);

  if (parallel && n_tasks > 1)
    executorch_threadpool_parallelize_1d (fill_task, (gpointer) fill, n_tasks);
  else
    for (size_t task = 0; task < n_tasks; task++)
      fill_task ((gpointer) fill, task);
}

/* ---- The direct form ---- */

bool
_executorch_qk_direct_init (const QkConvGeometry *geo, QkDirect *d)
{
  /* padding past the plane's own size (a file may pair it with a dilation
   * that cancels it) would make the copy mostly padding, its size out of
   * proportion to the input: the columns take those */
  if (geo->stride[0] != 1 || geo->stride[1] != 1 || geo->padding[0] > geo->ih || geo->padding[1] > geo->iw)
    return false;
  d->geo = geo;
  d->c_quads = (geo->icg + 3) / 4;
  d->wp = geo->iw + 2 * geo->padding[1];
  d->p_pad = _executorch_qk_tiled (geo->oh * d->wp);
  /* the last tap of the last padded pixel reads this far */
  int64_t reach = d->p_pad + (geo->kh - 1) * geo->dilation[0] * d->wp + (geo->kw - 1) * geo->dilation[1];
  d->plane = (reach + 15) / 16 * 16;
  return true;
}

void
_executorch_qk_direct_offsets (const QkDirect *d, int64_t *koff)
{
  const QkConvGeometry *geo = d->geo;

  for (int64_t ky = 0; ky < geo->kh; ky++)
    for (int64_t kx = 0; kx < geo->kw; kx++)
      for (int64_t cq = 0; cq < d->c_quads; cq++)
        koff[(ky * geo->kw + kx) * d->c_quads + cq] =
            (cq * d->plane + ky * geo->dilation[0] * d->wp + kx * geo->dilation[1]) * 4;
}

static ALWAYS_INLINE void
fill_image_body (const QkDirect *d, const QkU8Source *source, bool bytes, uint8_t *image, int64_t cq0, int64_t cq1)
{
  const QkU8Source copy = *source, *src = &copy;
  const QkConvGeometry *geo = d->geo;
  int64_t ph = geo->padding[0], pw = geo->padding[1], plane_in = geo->ih * geo->iw;
  uint8_t pad = (uint8_t) src->pad;

  for (int64_t cq = cq0; cq < cq1; cq++)
    {
      uint8_t *dst = image + cq * d->plane * 4;
      int64_t start[4];
      for (int t = 0; t < 4; t++)
        start[t] = 4 * cq + t < geo->icg ? (4 * cq + t) * plane_in : -1;
      memset (dst, pad, (size_t) (ph * d->wp) * 4);
      for (int64_t y = 0; y < geo->ih; y++)
        {
          uint8_t *row = dst + (ph + y) * d->wp * 4;
          int64_t from[4];
          for (int t = 0; t < 4; t++)
            from[t] = start[t] >= 0 ? start[t] + y * geo->iw : -1;
          memset (row, pad, (size_t) pw * 4);
          interleave_quads (src, bytes, from, row + pw * 4, geo->iw);
          memset (row + (pw + geo->iw) * 4, pad, (size_t) (d->wp - pw - geo->iw) * 4);
        }
      int64_t filled = (ph + geo->ih) * d->wp;
      memset (dst + filled * 4, pad, (size_t) (d->plane - filled) * 4);
    }
}

void
_executorch_qk_fill_image (const QkDirect *d, const QkU8Source *src, uint8_t *image, int64_t cq0, int64_t cq1)
{
  if (src->bytes != NULL)
    fill_image_body (d, src, true, image, cq0, cq1);
  else
    fill_image_body (d, src, false, image, cq0, cq1);
}
