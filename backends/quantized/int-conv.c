/* int-conv.c: the integer convolution that replaces dequantize → convolution
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * int-conv-rewrite.c swaps three kernels of a matched site for these:
 *
 *   dequantize(x)  → stage_input:  (x - zero point) as int16 into the
 *                    float result's own buffer, after a header;
 *   dequantize(w)  → stage_weight: one scale and zero point per
 *                    channel and a copy of the constant int8 weights
 *                    (a quarter of what dequantizing wrote);
 *   convolution    → int_conv:     int16 × int16 products summed in int32,
 *                    scaled once per output by x_scale × w_scale[oc],
 *                    plus the float bias, into the float result;
 *   addmm / mm     → int_linear:   the same for a linear, whose weight
 *   (permute_copy  → forward_weight: copies the staged weight along).
 *
 * The staged buffers are the planned float results the dequantizations
 * wrote before, live exactly from producer to convolution, so the data
 * moves along the program's own edges (the int8 input may be dead, its
 * memory reused, by the time the convolution runs).  The activation
 * round-trip through float and the per-run dequantization of every weight
 * are gone; the quantize after the convolution stays as it was.
 *
 * Products are exact; only the float rounding of one scaling per output
 * differs from upstream's float convolution, so the quantized result is
 * within one unit of it (docs/kernels.md).
 */
#include "quantized-private.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define QK_HAVE_AVX2 1
#endif

#define STAGE_INPUT_MAGIC UINT64_C (0x3174757069786b71)  /* "qkxinpt1" */
#define STAGE_WEIGHT_MAGIC UINT64_C (0x3174686769776b71) /* "qkwight1" */

typedef struct
{
  uint64_t magic;
  double scale;
  int64_t numel;
  int64_t pad;
} StagedInput; /* followed by numel int16 */

/* No pointers: the buffer is planned memory another value may share in a
 * hostile program, so everything read from it is data checked against the
 * tensor's own sizes, never an address. */
typedef struct
{
  uint64_t magic;
  int32_t pad;
  int32_t n_channels;
  int64_t numel;
} StagedWeightHead; /* followed by n_channels doubles (scales), n_channels
                     * int32 (zero points), numel int8 (the weights, [OC][K]) */

size_t
_executorch_qk_staged_input_size (int64_t numel)
{
  return sizeof (StagedInput) + (size_t) numel * sizeof (int16_t);
}

size_t
_executorch_qk_staged_weight_size (int64_t n_channels, int64_t numel)
{
  return sizeof (StagedWeightHead) + (size_t) n_channels * (sizeof (double) + sizeof (int32_t)) + (size_t) numel;
}

static const int8_t *
staged_weights (const void *data, const StagedWeightHead *wh)
{
  return (const int8_t *) data + sizeof *wh + (size_t) wh->n_channels * (sizeof (double) + sizeof (int32_t));
}

static const EtTensor *
tensor_arg (EtValue **args, uint32_t n_args, uint32_t i)
{
  return i < n_args && args[i]->tag == ET_VALUE_TENSOR ? args[i]->u.tensor : NULL;
}

/* dequantize_per_tensor.out's arguments (checked at load): input, scale,
 * zero_point, quant_min, quant_max, dtype, out_dtype, out, ret. */
static EtError
stage_input (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::dequantize_per_tensor.out", args, n_args };
  EtTensor *input, *out;
  double scale;
  int64_t zp;
  StagedInput head;
  int16_t *staged;

  QK_TRY (_executorch_qk_check_n_args (&c, 9));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_double (&c, 1, "scale", &scale));
  QK_TRY (_executorch_qk_int (&c, 2, "zero_point", &zp));
  QK_TRY (_executorch_qk_tensor (&c, 7, "out", &out));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", input));
  if (out->data == NULL || out->nbytes < _executorch_qk_staged_input_size (input->numel) ||
      (input->scalar_type != ET_SCALAR_CHAR && input->scalar_type != ET_SCALAR_BYTE) ||
      !et_tensor_is_contiguous (input))
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "input cannot be staged for the integer convolution");
  head = (StagedInput){ STAGE_INPUT_MAGIC, scale, input->numel, 0 };
  memcpy (out->data, &head, sizeof head);
  staged = (int16_t *) ((char *) out->data + sizeof head);
  if (input->scalar_type == ET_SCALAR_CHAR)
    for (int64_t i = 0; i < input->numel; i++)
      staged[i] = (int16_t) (((const int8_t *) input->data)[i] - zp);
  else
    for (int64_t i = 0; i < input->numel; i++)
      staged[i] = (int16_t) (((const uint8_t *) input->data)[i] - zp);
  return ET_OK;
}

/* dequantize_per_channel.out (10 arguments, axis 0) or
 * dequantize_per_tensor.out (9) of a constant int8 weight. */
static EtError
stage_weight (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  bool per_channel = n_args == 10;
  QkCall c = { ctx,
               per_channel ? "quantized_decomposed::dequantize_per_channel.out"
                           : "quantized_decomposed::dequantize_per_tensor.out",
               args, n_args };
  EtTensor *weights, *out;
  StagedWeightHead head;
  int64_t n_channels;
  double *scales;
  int32_t *zps;

  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &weights));
  QK_TRY (_executorch_qk_tensor (&c, n_args - 2, "out", &out));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", weights));
  n_channels = weights->ndim > 0 ? weights->sizes[0] : 0;
  if (weights->scalar_type != ET_SCALAR_CHAR || out->data == NULL || n_channels <= 0 ||
      out->nbytes < _executorch_qk_staged_weight_size (n_channels, weights->numel) ||
      !et_tensor_is_contiguous (weights))
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "weights cannot be staged for the integer convolution");
  head = (StagedWeightHead){ STAGE_WEIGHT_MAGIC, 0, (int32_t) n_channels, weights->numel };
  scales = (double *) ((char *) out->data + sizeof head);
  zps = (int32_t *) (scales + n_channels);
  if (per_channel)
    {
      const EtTensor *s = tensor_arg (args, n_args, 1), *z = tensor_arg (args, n_args, 2);
      if (s == NULL || s->numel != n_channels || (z != NULL && z->numel != n_channels))
        return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "scales or zero points do not match the weights");
      for (int64_t ch = 0; ch < n_channels; ch++)
        {
          /* the reference dequantizes with the float scale */
          scales[ch] = _executorch_qk_load_float (s->scalar_type, s->data, ch);
          zps[ch] = z != NULL ? (int32_t) _executorch_qk_load_int (z->scalar_type, z->data, ch) : 0;
        }
    }
  else
    {
      double scale;
      int64_t zp;
      QK_TRY (_executorch_qk_double (&c, 1, "scale", &scale));
      QK_TRY (_executorch_qk_int (&c, 2, "zero_point", &zp));
      for (int64_t ch = 0; ch < n_channels; ch++)
        {
          scales[ch] = (float) scale;
          zps[ch] = (int32_t) zp;
        }
    }
  memcpy ((int8_t *) staged_weights (out->data, &head), weights->data, (size_t) weights->numel);
  memcpy (out->data, &head, sizeof head);
  return ET_OK;
}

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

/* Work below which the pool's hand-off costs more than it saves. */
#define PARALLEL_MIN_MACS (1 << 18)

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

/* The headers stage_input and stage_weight left in @input and @weight. */
static EtError
read_staged (const QkCall *c, const EtTensor *input, const EtTensor *weight, StagedInput *xin, StagedWeightHead *wh,
             const int16_t **x, const double **w_scales, const int32_t **w_zps, const int8_t **w)
{
  if (input->data == NULL || weight->data == NULL || weight->ndim == 0 ||
      input->nbytes < _executorch_qk_staged_input_size (input->numel) ||
      weight->nbytes < _executorch_qk_staged_weight_size (weight->sizes[0], weight->numel))
    return _executorch_qk_fail (c, ET_ERROR_INTERNAL, "input or weight not staged");
  memcpy (xin, input->data, sizeof *xin);
  memcpy (wh, weight->data, sizeof *wh);
  if (xin->magic != STAGE_INPUT_MAGIC || wh->magic != STAGE_WEIGHT_MAGIC || xin->numel != input->numel ||
      wh->numel != weight->numel || wh->n_channels != weight->sizes[0])
    return _executorch_qk_fail (c, ET_ERROR_INTERNAL, "input or weight not staged");
  *x = (const int16_t *) ((const char *) input->data + sizeof *xin);
  *w_scales = (const double *) ((const char *) weight->data + sizeof *wh);
  *w_zps = (const int32_t *) (*w_scales + wh->n_channels);
  *w = staged_weights (weight->data, wh);
  return ET_OK;
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
  StagedInput xin;
  StagedWeightHead wh;
  int64_t stride[2], padding[2], dilation[2], groups, sizes[4];
  int64_t n, ic, ih, iw, oc, kh, kw, oh, ow, icg, ocg, k, k_pairs, n_pixels, p_pad;
  const int16_t *x = NULL;
  const int8_t *w8 = NULL;
  const double *w_scales = NULL;
  const int32_t *w_zps = NULL;
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
  QK_TRY (read_staged (&c, input, weight, &xin, &wh, &x, &w_scales, &w_zps, &w8));

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
  pack_weights (&wh, w8, w_scales, w_zps, xin.scale, k, k_pairs, w_pairs, scale);

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
  bool parallel = (double) p_pad * (double) ocg * (double) k >= PARALLEL_MIN_MACS && n_blocks > 1 &&
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

/* ---- the linear product ---- */

/* out[m][n] = x[m] . (w[n] - zp[n]) scaled: rows of the staged int16 input
 * against the int8 weight rows as stored, widened on the fly, so a linear
 * needs no packing and no column buffer (its "pixels" are the few rows of
 * its input). */
typedef struct
{
  const int16_t *x; /* [M][K] */
  const int8_t *w;  /* [N][K] */
  const int32_t *w_zps;
  const double *scale;
  const float *bias;
  float *out; /* [M][N] */
  int64_t m, k, n;
  bool avx2;
} LinearJob;

#define LINEAR_BLOCK 16

static int32_t
row_dot_portable (const int16_t *x, const int8_t *w, int32_t zp, int64_t k)
{
  int32_t acc = 0;

  for (int64_t i = 0; i < k; i++)
    acc += (int32_t) x[i] * (int16_t) (w[i] - zp);
  return acc;
}

#ifdef QK_HAVE_AVX2
/* Rows [r, r + 4) of x against one weight row; acc gets four sums. */
__attribute__ ((target ("avx2"))) static void
row_dot4_avx2 (const int16_t *x, int64_t k, const int8_t *w, int32_t zp, int32_t *acc)
{
  __m256i a0 = _mm256_setzero_si256 (), a1 = a0, a2 = a0, a3 = a0, vzp = _mm256_set1_epi16 ((int16_t) zp);
  int64_t i = 0;

  for (; i + 16 <= k; i += 16)
    {
      __m256i wv = _mm256_sub_epi16 (_mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *) (w + i))), vzp);
      a0 = _mm256_add_epi32 (a0, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (x + i)), wv));
      a1 = _mm256_add_epi32 (a1, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (x + k + i)), wv));
      a2 = _mm256_add_epi32 (a2, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (x + 2 * k + i)), wv));
      a3 = _mm256_add_epi32 (a3, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (x + 3 * k + i)), wv));
    }
  __m256i s = _mm256_hadd_epi32 (_mm256_hadd_epi32 (a0, a1), _mm256_hadd_epi32 (a2, a3));
  _mm_storeu_si128 ((__m128i *) acc, _mm_add_epi32 (_mm256_castsi256_si128 (s), _mm256_extracti128_si256 (s, 1)));
  for (; i < k; i++)
    {
      int32_t wi = (int16_t) (w[i] - zp);
      for (int r = 0; r < 4; r++)
        acc[r] += (int32_t) x[r * k + i] * wi;
    }
}

__attribute__ ((target ("avx2"))) static int32_t
row_dot_avx2 (const int16_t *x, const int8_t *w, int32_t zp, int64_t k)
{
  __m256i a = _mm256_setzero_si256 (), vzp = _mm256_set1_epi16 ((int16_t) zp);
  int64_t i = 0;
  int32_t acc;

  for (; i + 16 <= k; i += 16)
    a = _mm256_add_epi32 (a, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (x + i)),
                                                _mm256_sub_epi16 (_mm256_cvtepi8_epi16 (
                                                                      _mm_loadu_si128 ((const __m128i *) (w + i))),
                                                                  vzp)));
  __m128i r = _mm_add_epi32 (_mm256_castsi256_si128 (a), _mm256_extracti128_si256 (a, 1));
  r = _mm_hadd_epi32 (r, r);
  r = _mm_hadd_epi32 (r, r);
  acc = _mm_cvtsi128_si32 (r);
  for (; i < k; i++)
    acc += (int32_t) x[i] * (int16_t) (w[i] - zp);
  return acc;
}
#endif

static inline void
store_linear (const LinearJob *job, int64_t row, int64_t n, int32_t acc)
{
  job->out[row * job->n + n] =
      (float) ((double) acc * job->scale[n] + (job->bias != NULL ? (double) job->bias[n] : 0.0));
}

/* Task @block: output columns [block * 16, block * 16 + 16). */
static void
linear_block (void *data, size_t block)
{
  const LinearJob *job = data;
  int64_t first = (int64_t) block * LINEAR_BLOCK, end = MIN (first + LINEAR_BLOCK, job->n);

  for (int64_t n = first; n < end; n++)
    {
      const int8_t *w = job->w + n * job->k;
      int32_t zp = job->w_zps[n];
      int64_t r = 0;
#ifdef QK_HAVE_AVX2
      if (job->avx2)
        {
          int32_t acc[4];
          for (; r + 4 <= job->m; r += 4)
            {
              row_dot4_avx2 (job->x + r * job->k, job->k, w, zp, acc);
              for (int j = 0; j < 4; j++)
                store_linear (job, r + j, n, acc[j]);
            }
          for (; r < job->m; r++)
            store_linear (job, r, n, row_dot_avx2 (job->x + r * job->k, w, zp, job->k));
          continue;
        }
#endif
      for (; r < job->m; r++)
        store_linear (job, r, n, row_dot_portable (job->x + r * job->k, w, zp, job->k));
    }
}

/* addmm.out (bias, mat1, mat2, beta, alpha, out, ret) or mm.out (mat1,
 * mat2, out, ret): mat1 staged by stage_input, mat2 the transposed weight
 * whose header forward_weight copied. */
static EtError
int_linear (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  bool addmm = n_args == 7;
  QkCall c = { ctx, addmm ? "aten::addmm.out" : "aten::mm.out", args, n_args };
  EtTensor *input, *weight, *bias = NULL, *out;
  StagedInput xin;
  StagedWeightHead wh;
  const double *w_scales;
  const int32_t *w_zps;
  int64_t m, k, nn, sizes[2];
  double *scale;

  if (addmm)
    QK_TRY (_executorch_qk_opt_tensor (&c, 0, "self", &bias));
  else
    QK_TRY (_executorch_qk_check_n_args (&c, 4));
  QK_TRY (_executorch_qk_tensor (&c, addmm ? 1 : 0, "mat1", &input));
  QK_TRY (_executorch_qk_tensor (&c, addmm ? 2 : 1, "mat2", &weight));
  QK_TRY (_executorch_qk_tensor (&c, addmm ? 5 : 2, "out", &out));
  /* mat2 is [K, N]; the header counts the weight's N rows */
  if (input->ndim != 2 || weight->ndim != 2 || input->data == NULL || weight->data == NULL ||
      input->nbytes < _executorch_qk_staged_input_size (input->numel) ||
      weight->nbytes < _executorch_qk_staged_weight_size (weight->sizes[1], weight->numel))
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "mat1 or mat2 not staged");
  memcpy (&xin, input->data, sizeof xin);
  memcpy (&wh, weight->data, sizeof wh);
  if (xin.magic != STAGE_INPUT_MAGIC || wh.magic != STAGE_WEIGHT_MAGIC || xin.numel != input->numel ||
      wh.numel != weight->numel || wh.n_channels != weight->sizes[1])
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "mat1 or mat2 not staged");
  w_scales = (const double *) ((const char *) weight->data + sizeof wh);
  w_zps = (const int32_t *) (w_scales + wh.n_channels);
  m = input->sizes[0], k = input->sizes[1], nn = weight->sizes[1];
  if (weight->sizes[0] != k)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT,
                                "mat1 [%" PRId64 ", %" PRId64 "] and mat2 [%" PRId64 ", %" PRId64 "] do not chain", m,
                                k, weight->sizes[0], nn);
  if (bias != NULL && (bias->scalar_type != ET_SCALAR_FLOAT || bias->numel != nn || !et_tensor_is_contiguous (bias)))
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "self is not %" PRId64 " floats", nn);
  sizes[0] = m, sizes[1] = nn;
  QK_TRY (_executorch_qk_resize (&c, out, "out", 2, sizes));
  QK_TRY (_executorch_qk_contiguous (&c, out, "out"));
  if (out->scalar_type != ET_SCALAR_FLOAT)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "out is not Float");
  if (m == 0 || nn == 0)
    return ET_OK;
  scale = et_kernel_context_scratch (ctx, (size_t) nn * sizeof (double));
  if (scale == NULL)
    return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory for the product");
  for (int64_t o = 0; o < nn; o++)
    scale[o] = xin.scale * w_scales[o];

  LinearJob job = {
    .x = (const int16_t *) ((const char *) input->data + sizeof xin),
    .w = staged_weights (weight->data, &wh),
    .w_zps = w_zps,
    .scale = scale,
    .bias = bias != NULL ? (const float *) bias->data : NULL,
    .out = (float *) out->data,
    .m = m,
    .k = k,
    .n = nn,
    .avx2 = _executorch_support_cpu_has_avx2_fma (),
  };
  size_t n_blocks = (size_t) ((nn + LINEAR_BLOCK - 1) / LINEAR_BLOCK);
  if ((double) m * (double) nn * (double) k >= PARALLEL_MIN_MACS && n_blocks > 1 &&
      executorch_threadpool_get_num_threads () > 1)
    executorch_threadpool_parallelize_1d (linear_block, &job, n_blocks);
  else
    for (size_t blk = 0; blk < n_blocks; blk++)
      linear_block (&job, blk);
  return ET_OK;
}

/* permute_copy.out (self, [1, 0], out, ret) of a staged weight: the
 * product reads the weight rows as they are, so only the header moves to
 * the permuted tensor's buffer. */
static EtError
forward_weight (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "aten::permute_copy.out", args, n_args };
  EtTensor *self, *out;
  StagedWeightHead wh;
  int64_t sizes[2];
  size_t size;

  QK_TRY (_executorch_qk_check_n_args (&c, 4));
  QK_TRY (_executorch_qk_tensor (&c, 0, "self", &self));
  QK_TRY (_executorch_qk_tensor (&c, 2, "out", &out));
  if (self->ndim != 2 || self->data == NULL || out->data == NULL || self->nbytes < sizeof wh)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "weight not staged");
  memcpy (&wh, self->data, sizeof wh);
  size = _executorch_qk_staged_weight_size (self->sizes[0], self->numel);
  if (wh.magic != STAGE_WEIGHT_MAGIC || wh.n_channels != self->sizes[0] || self->nbytes < size)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "weight not staged");
  sizes[0] = self->sizes[1], sizes[1] = self->sizes[0];
  QK_TRY (_executorch_qk_resize (&c, out, "out", 2, sizes));
  if (out->nbytes < size)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "weight not staged");
  memcpy (out->data, self->data, size);
  return ET_OK;
}

/* Named after the operator they stand in for, marked, so that profiles
 * and errors show which sites run on integers. */
const EtKernel _executorch_qk_stage_input_kernel = { "quantized_decomposed::dequantize_per_tensor.out [int8 staging]",
                                                     stage_input, NULL };
const EtKernel _executorch_qk_stage_weight_channel_kernel = {
  "quantized_decomposed::dequantize_per_channel.out [int8 staging]", stage_weight, NULL
};
const EtKernel _executorch_qk_stage_weight_tensor_kernel = {
  "quantized_decomposed::dequantize_per_tensor.out [int8 staging]", stage_weight, NULL
};
const EtKernel _executorch_qk_int_conv_kernel = { "aten::convolution.out [int8]", int_conv, NULL };
const EtKernel _executorch_qk_int_addmm_kernel = { "aten::addmm.out [int8]", int_linear, NULL };
const EtKernel _executorch_qk_int_mm_kernel = { "aten::mm.out [int8]", int_linear, NULL };
const EtKernel _executorch_qk_forward_weight_kernel = { "aten::permute_copy.out [int8 weight]", forward_weight, NULL };
