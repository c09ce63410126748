/* int-conv.c: the integer convolution of an integer site
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reads the activation and weight int-stage.c staged (int-kernels-private.h)
 * and writes convolution.out's float result.
 */
#include "int-kernels-private.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <string.h>

/* ---- the convolution ---- */

/* One group of one image as a product: the columns hold, for each pair of
 * reduction indices kk (input channel, kernel row, kernel column, two at a
 * time) and each output pixel p, the two staged inputs side by side
 * (cols[kk][p][2]), so that one 256-bit multiply-add of eight pixels'
 * pairs by a broadcast pair of weights gives eight int32 partial sums. */
typedef struct
{
  const int16_t *cols; /* [k_pairs][p_pad][2] */
  const uint32_t *w;   /* [OC in group][k_pairs]: two int16 weights per word */
  int64_t n_pixels, p_pad, k_pairs;
  int64_t n_channels;  /* OC in group */
  const double *scale; /* x_scale * w_scale[oc], for the group's channels */
  const float *bias;   /* NULL, or the group's channels */
  int32_t *acc;        /* [OC in group][p_pad] */
  float *out;          /* (oc, p) at oc * out_channel_stride + p * out_pixel_stride */
  int64_t out_channel_stride, out_pixel_stride;
  bool avx2;
} ConvJob;

#define CHANNEL_BLOCK 4

static void
sums_portable (const ConvJob *job, int64_t oc)
{
  int32_t *acc = job->acc + oc * job->p_pad;
  const uint32_t *w = job->w + oc * job->k_pairs;

  memset (acc, 0, (size_t) job->n_pixels * sizeof (int32_t));
  for (int64_t kk = 0; kk < job->k_pairs; kk++)
    {
      int32_t w0 = (int16_t) (w[kk] & 0xffff), w1 = (int16_t) (w[kk] >> 16);
      const int16_t *c = job->cols + kk * job->p_pad * 2;
      for (int64_t p = 0; p < job->n_pixels; p++)
        acc[p] += c[2 * p] * w0 + c[2 * p + 1] * w1;
    }
}

#ifdef QK_HAVE_AVX2
/* Channels [oc, oc + 4) over every pixel, eight pixels at a time. */
__attribute__ ((target ("avx2"))) static void
sums_avx2_block (const ConvJob *job, int64_t oc)
{
  const uint32_t *w = job->w + oc * job->k_pairs;
  int64_t kp = job->k_pairs;

  for (int64_t p = 0; p < job->p_pad; p += 8)
    {
      __m256i a0 = _mm256_setzero_si256 (), a1 = a0, a2 = a0, a3 = a0;
      const int16_t *c = job->cols + p * 2;
      for (int64_t kk = 0; kk < kp; kk++, c += job->p_pad * 2)
        {
          __m256i x = _mm256_loadu_si256 ((const __m256i *) c);
          a0 = _mm256_add_epi32 (a0, _mm256_madd_epi16 (x, _mm256_set1_epi32 ((int32_t) w[kk])));
          a1 = _mm256_add_epi32 (a1, _mm256_madd_epi16 (x, _mm256_set1_epi32 ((int32_t) w[kp + kk])));
          a2 = _mm256_add_epi32 (a2, _mm256_madd_epi16 (x, _mm256_set1_epi32 ((int32_t) w[2 * kp + kk])));
          a3 = _mm256_add_epi32 (a3, _mm256_madd_epi16 (x, _mm256_set1_epi32 ((int32_t) w[3 * kp + kk])));
        }
      _mm256_storeu_si256 ((__m256i *) (job->acc + oc * job->p_pad + p), a0);
      _mm256_storeu_si256 ((__m256i *) (job->acc + (oc + 1) * job->p_pad + p), a1);
      _mm256_storeu_si256 ((__m256i *) (job->acc + (oc + 2) * job->p_pad + p), a2);
      _mm256_storeu_si256 ((__m256i *) (job->acc + (oc + 3) * job->p_pad + p), a3);
    }
}

__attribute__ ((target ("avx2"))) static void
sums_avx2_one (const ConvJob *job, int64_t oc)
{
  const uint32_t *w = job->w + oc * job->k_pairs;

  for (int64_t p = 0; p < job->p_pad; p += 8)
    {
      __m256i a = _mm256_setzero_si256 ();
      const int16_t *c = job->cols + p * 2;
      for (int64_t kk = 0; kk < job->k_pairs; kk++, c += job->p_pad * 2)
        a = _mm256_add_epi32 (a, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) c),
                                                    _mm256_set1_epi32 ((int32_t) w[kk])));
      _mm256_storeu_si256 ((__m256i *) (job->acc + oc * job->p_pad + p), a);
    }
}
#endif

#ifdef QK_HAVE_AVX2
/* Four at a time: double multiply, double add, round to float. */
__attribute__ ((target ("avx2"))) static int64_t
scale_avx2 (const int32_t *acc, float *out, int64_t n, double scale, double bias)
{
  __m256d vs = _mm256_set1_pd (scale), vb = _mm256_set1_pd (bias);
  int64_t p = 0;

  for (; p + 4 <= n; p += 4)
    {
      __m256d v = _mm256_cvtepi32_pd (_mm_loadu_si128 ((const __m128i *) (acc + p)));
      _mm_storeu_ps (out + p, _mm256_cvtpd_ps (_mm256_add_pd (_mm256_mul_pd (v, vs), vb)));
    }
  return p;
}
#endif

/* The float result: one rounding of acc * scale + bias, in double, as
 * both paths do (so they agree bit for bit). */
static void
scale_channel (const ConvJob *job, int64_t oc)
{
  const int32_t *acc = job->acc + oc * job->p_pad;
  float *out = job->out + oc * job->n_pixels;
  double scale = job->scale[oc], bias = job->bias != NULL ? (double) job->bias[oc] : 0.0;
  int64_t p = 0;

#ifdef QK_HAVE_AVX2
  if (job->avx2)
    p = scale_avx2 (acc, out, job->n_pixels, scale, bias);
#endif
  for (; p < job->n_pixels; p++)
    out[p] = (float) ((double) acc[p] * scale + bias);
}

/* Task @block: output channels [block * 4, block * 4 + 4) of the group. */
static void
conv_block (void *data, size_t block)
{
  const ConvJob *job = data;
  int64_t first = (int64_t) block * CHANNEL_BLOCK;
  int64_t end = MIN (first + CHANNEL_BLOCK, job->n_channels);

#ifdef QK_HAVE_AVX2
  if (job->avx2)
    {
      if (end - first == CHANNEL_BLOCK)
        sums_avx2_block (job, first);
      else
        for (int64_t oc = first; oc < end; oc++)
          sums_avx2_one (job, oc);
    }
  else
#endif
    for (int64_t oc = first; oc < end; oc++)
      sums_portable (job, oc);
  for (int64_t oc = first; oc < end; oc++)
    scale_channel (job, oc);
}

static bool
int_list (const EtValue *v, uint32_t length, int64_t *items)
{
  if (v->tag != ET_VALUE_LIST_INT)
    return false;
  if (v->u.list.length == 1 && length == 2)
    {
      const EtValue *item = v->u.list.items[0];
      if (item == NULL || item->tag != ET_VALUE_INT)
        return false;
      items[0] = items[1] = item->u.int_value;
      return true;
    }
  if (v->u.list.length != length)
    return false;
  for (uint32_t i = 0; i < length; i++)
    {
      const EtValue *item = v->u.list.items[i];
      if (item == NULL || item->tag != ET_VALUE_INT)
        return false;
      items[i] = item->u.int_value;
    }
  return true;
}

/* Weights as int16 pairs (minus their zero points; an odd K's partner is
 * 0) and x_scale * w_scale per channel. */
static void
pack_weights (const StagedWeightHead *wh, const int8_t *w, const double *w_scales, const int32_t *w_zps, double x_scale,
              int64_t k, int64_t k_pairs, uint32_t *w_pairs, double *scale)
{
  for (int64_t o = 0; o < wh->n_channels; o++)
    {
      const int8_t *src = w + o * k;
      for (int64_t kk = 0; kk < k_pairs; kk++)
        {
          int16_t w0 = (int16_t) (src[2 * kk] - w_zps[o]);
          int16_t w1 = 2 * kk + 1 < k ? (int16_t) (src[2 * kk + 1] - w_zps[o]) : 0;
          w_pairs[o * k_pairs + kk] = (uint16_t) w0 | ((uint32_t) (uint16_t) w1 << 16);
        }
      scale[o] = x_scale * w_scales[o];
    }
}

/* The convolution's shape, as the column fill needs it. */
typedef struct
{
  int64_t icg, ih, iw, kh, kw, oh, ow, k, k_pairs, p_pad;
  int64_t stride[2], padding[2], dilation[2];
} ConvGeometry;

/* Where reduction index j reads, independent of the output row: its
 * input plane and row offset, its column offset and the output columns
 * [lo, hi) whose input column is inside the image. */
typedef struct
{
  int64_t plane, ky_off, off, lo, hi;
} ColumnTap;

static void
column_taps (const ConvGeometry *geo, ColumnTap *taps)
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

/* The input row tap @j reads for output row @y (NULL: padding, or past
 * K), offset so that output column xo reads src[xo * stride]. */
static inline const int16_t *
column_source (const ConvGeometry *geo, const ColumnTap *taps, const int16_t *planes, int64_t j, int64_t y, int64_t *lo,
               int64_t *hi)
{
  int64_t yy;

  if (j >= geo->k)
    return NULL;
  yy = y * geo->stride[0] + taps[j].ky_off;
  if (yy < 0 || yy >= geo->ih)
    return NULL;
  *lo = taps[j].lo;
  *hi = taps[j].hi;
  return planes + taps[j].plane + yy * geo->iw + taps[j].off;
}

/* cols[kk][p][2] of one group of one image, every element written:
 * padding is 0 in the (x - zero point) domain, as it is 0.0 after
 * dequantization, and so are the pixels past the last and an odd K's
 * last partner. */
static void
fill_columns (const ConvGeometry *geo, const ColumnTap *taps, const int16_t *planes, int16_t *cols)
{
  int64_t n_pixels = geo->oh * geo->ow;

  for (int64_t kk = 0; kk < geo->k_pairs; kk++)
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

/* convolution.out's arguments: input, weight, bias, stride, padding,
 * dilation, transposed, output_padding, groups, out, ret; input and weight
 * staged by the two kernels above. */
static EtError
int_conv (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "aten::convolution.out", args, n_args };
  EtTensor *input, *weight, *bias, *out;
  QkStaged st;
  int64_t stride[2], padding[2], dilation[2], groups, sizes[4];
  int64_t n, ic, ih, iw, oc, kh, kw, oh, ow, icg, ocg, k, k_pairs, n_pixels, p_pad;
  const int16_t *x;
  int16_t *cols;
  uint32_t *w_pairs;
  int32_t *acc;
  double *scale;

  QK_TRY (_executorch_qk_check_n_args (&c, 11));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_tensor (&c, 1, "weight", &weight));
  QK_TRY (_executorch_qk_opt_tensor (&c, 2, "bias", &bias));
  QK_TRY (_executorch_qk_int (&c, 8, "groups", &groups));
  QK_TRY (_executorch_qk_tensor (&c, 9, "out", &out));
  if (!int_list (args[3], 2, stride) || !int_list (args[4], 2, padding) || !int_list (args[5], 2, dilation))
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "stride, padding or dilation is not 2 integers");
  if (input->ndim != 4 || weight->ndim != 4)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "input or weight not staged");
  QK_TRY (_executorch_qk_read_staged (&c, input, weight, 0, &st));
  x = st.x;

  n = input->sizes[0], ic = input->sizes[1], ih = input->sizes[2], iw = input->sizes[3];
  oc = weight->sizes[0], icg = weight->sizes[1], kh = weight->sizes[2], kw = weight->sizes[3];
  if (groups <= 0 || ic != icg * groups || oc % groups != 0 || stride[0] <= 0 || stride[1] <= 0 || dilation[0] <= 0 ||
      dilation[1] <= 0 || padding[0] < 0 || padding[1] < 0)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "convolution geometry does not fit");
  oh = (ih + 2 * padding[0] - dilation[0] * (kh - 1) - 1) / stride[0] + 1;
  ow = (iw + 2 * padding[1] - dilation[1] * (kw - 1) - 1) / stride[1] + 1;
  if (oh <= 0 || ow <= 0)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "convolution output would be empty");
  if (bias != NULL && (bias->scalar_type != ET_SCALAR_FLOAT || bias->numel != oc))
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "bias is not %" PRId64 " floats", oc);
  sizes[0] = n, sizes[1] = oc, sizes[2] = oh, sizes[3] = ow;
  QK_TRY (_executorch_qk_resize (&c, out, "out", 4, sizes));
  QK_TRY (_executorch_qk_contiguous (&c, out, "out"));
  if (out->scalar_type != ET_SCALAR_FLOAT)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "out is not Float");

  ocg = oc / groups;
  k = icg * kh * kw;
  k_pairs = (k + 1) / 2;
  n_pixels = oh * ow;
  p_pad = (n_pixels + 7) / 8 * 8;
  cols = et_kernel_context_scratch (ctx, (size_t) k_pairs * p_pad * 2 * sizeof (int16_t));
  w_pairs = et_kernel_context_scratch (ctx, (size_t) oc * k_pairs * sizeof (uint32_t));
  acc = et_kernel_context_scratch (ctx, (size_t) ocg * p_pad * sizeof (int32_t));
  scale = et_kernel_context_scratch (ctx, (size_t) oc * sizeof (double));
  if (cols == NULL || w_pairs == NULL || acc == NULL || scale == NULL)
    return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory for the convolution");
  pack_weights (&st.weight, st.w, st.w_scales, st.w_zps, st.input.scale, k, k_pairs, w_pairs, scale);

  ConvGeometry geo = {
    .icg = icg,
    .ih = ih,
    .iw = iw,
    .kh = kh,
    .kw = kw,
    .oh = oh,
    .ow = ow,
    .k = k,
    .k_pairs = k_pairs,
    .p_pad = p_pad,
    .stride = { stride[0], stride[1] },
    .padding = { padding[0], padding[1] },
    .dilation = { dilation[0], dilation[1] },
  };
  ColumnTap *taps = et_kernel_context_scratch (ctx, (size_t) k * sizeof (ColumnTap));
  if (taps == NULL)
    return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory for the convolution");
  column_taps (&geo, taps);
  bool avx2 = _executorch_support_cpu_has_avx2_fma ();
  size_t n_blocks = (size_t) ((ocg + CHANNEL_BLOCK - 1) / CHANNEL_BLOCK);
  bool parallel = (double) p_pad * (double) ocg * (double) k >= QK_PARALLEL_MIN_MACS && n_blocks > 1 &&
                  executorch_threadpool_get_num_threads () > 1;
  for (int64_t b = 0; b < n; b++)
    for (int64_t g = 0; g < groups; g++)
      {
        fill_columns (&geo, taps, x + (b * ic + g * icg) * ih * iw, cols);
        ConvJob job = {
          .cols = cols,
          .w = w_pairs + g * ocg * k_pairs,
          .n_pixels = n_pixels,
          .p_pad = p_pad,
          .k_pairs = k_pairs,
          .n_channels = ocg,
          .scale = scale + g * ocg,
          .bias = bias != NULL ? (const float *) bias->data + g * ocg : NULL,
          .acc = acc,
          .out = (float *) out->data + (b * oc + g * ocg) * n_pixels,
          .avx2 = avx2,
        };
        if (parallel)
          executorch_threadpool_parallelize_1d (conv_block, &job, n_blocks);
        else
          for (size_t blk = 0; blk < n_blocks; blk++)
            conv_block (&job, blk);
      }
  return ET_OK;
}

const EtKernel _executorch_qk_int_conv_kernel = { "aten::convolution.out [int8]", int_conv, NULL };
