/* int-conv.c: the integer convolution that replaces dequantize → convolution
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * int-conv-rewrite.c swaps three kernels of a matched site for these:
 *
 *   dequantize(x)  → stage_input:  (x - zero point) as int16 into the
 *                    float result's own buffer, after a header;
 *   dequantize(w)  → stage_weight: a header naming the constant int8
 *                    weights, one scale and zero point per channel;
 *   convolution    → int_conv:     int16 × int16 products summed in int32,
 *                    scaled once per output by x_scale × w_scale[oc],
 *                    plus the float bias, into the float result.
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

typedef struct
{
  uint64_t magic;
  const int8_t *weights;  /* the constant, [OC][K] */
  int32_t zero_point_all; /* -1: per channel below */
  int32_t n_channels;
  int64_t numel;
} StagedWeightHead; /* followed by n_channels doubles (scales), n_channels int32 (zero points) */

size_t
_executorch_qk_staged_input_size (int64_t numel)
{
  return sizeof (StagedInput) + (size_t) numel * sizeof (int16_t);
}

size_t
_executorch_qk_staged_weight_size (int64_t n_channels)
{
  return sizeof (StagedWeightHead) + (size_t) n_channels * (sizeof (double) + sizeof (int32_t));
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
      out->nbytes < _executorch_qk_staged_weight_size (n_channels))
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "weights cannot be staged for the integer convolution");
  head = (StagedWeightHead){ STAGE_WEIGHT_MAGIC, weights->data, 0, (int32_t) n_channels, weights->numel };
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
  memcpy (out->data, &head, sizeof head);
  return ET_OK;
}

/* ---- the convolution ---- */

typedef struct
{
  const int16_t *cols; /* [P][kpad], one group of one image */
  const int16_t *w;    /* [OC in group][kpad] */
  int64_t n_pixels, kpad;
  const double *scale; /* x_scale * w_scale[oc], for the group's channels */
  const float *bias;   /* NULL, or the group's channels */
  float *out;          /* [OC in group][P] */
  bool avx2;
} ConvJob;

static int32_t
dot_portable (const int16_t *a, const int16_t *b, int64_t n)
{
  int32_t acc = 0;

  for (int64_t i = 0; i < n; i++)
    acc += (int32_t) a[i] * b[i];
  return acc;
}

#ifdef QK_HAVE_AVX2
/* n is a multiple of 16; four pixels against one channel per pass. */
__attribute__ ((target ("avx2"))) static void
dot4_avx2 (const int16_t *a, int64_t stride, const int16_t *w, int64_t n, int32_t *out)
{
  __m256i acc0 = _mm256_setzero_si256 (), acc1 = acc0, acc2 = acc0, acc3 = acc0;

  for (int64_t i = 0; i < n; i += 16)
    {
      __m256i wv = _mm256_loadu_si256 ((const __m256i *) (w + i));
      acc0 = _mm256_add_epi32 (acc0, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (a + i)), wv));
      acc1 = _mm256_add_epi32 (acc1, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (a + stride + i)), wv));
      acc2 =
          _mm256_add_epi32 (acc2, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (a + 2 * stride + i)), wv));
      acc3 =
          _mm256_add_epi32 (acc3, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (a + 3 * stride + i)), wv));
    }
  /* horizontal sums of the four accumulators at once */
  __m256i s01 = _mm256_hadd_epi32 (acc0, acc1), s23 = _mm256_hadd_epi32 (acc2, acc3);
  __m256i s = _mm256_hadd_epi32 (s01, s23);
  __m128i r = _mm_add_epi32 (_mm256_castsi256_si128 (s), _mm256_extracti128_si256 (s, 1));
  _mm_storeu_si128 ((__m128i *) out, r);
}

__attribute__ ((target ("avx2"))) static int32_t
dot_avx2 (const int16_t *a, const int16_t *b, int64_t n)
{
  __m256i acc = _mm256_setzero_si256 ();

  for (int64_t i = 0; i < n; i += 16)
    acc = _mm256_add_epi32 (acc, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (a + i)),
                                                    _mm256_loadu_si256 ((const __m256i *) (b + i))));
  __m128i r = _mm_add_epi32 (_mm256_castsi256_si128 (acc), _mm256_extracti128_si256 (acc, 1));
  r = _mm_hadd_epi32 (r, r);
  r = _mm_hadd_epi32 (r, r);
  return _mm_cvtsi128_si32 (r);
}
#endif

static inline float
scaled (int32_t acc, double scale, const float *bias, int64_t oc)
{
  return (float) ((double) acc * scale + (bias != NULL ? (double) bias[oc] : 0.0));
}

/* One output channel of the group over every pixel. */
static void
conv_channel (void *data, size_t oc)
{
  const ConvJob *job = data;
  const int16_t *w = job->w + (int64_t) oc * job->kpad;
  float *out = job->out + (int64_t) oc * job->n_pixels;
  double scale = job->scale[oc];
  int64_t p = 0;

#ifdef QK_HAVE_AVX2
  if (job->avx2)
    {
      int32_t acc[4];
      for (; p + 4 <= job->n_pixels; p += 4)
        {
          dot4_avx2 (job->cols + p * job->kpad, job->kpad, w, job->kpad, acc);
          for (int j = 0; j < 4; j++)
            out[p + j] = scaled (acc[j], scale, job->bias, (int64_t) oc);
        }
      for (; p < job->n_pixels; p++)
        out[p] = scaled (dot_avx2 (job->cols + p * job->kpad, w, job->kpad), scale, job->bias, (int64_t) oc);
      return;
    }
#endif
  for (; p < job->n_pixels; p++)
    out[p] = scaled (dot_portable (job->cols + p * job->kpad, w, job->kpad), scale, job->bias, (int64_t) oc);
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
  int64_t n, ic, ih, iw, oc, kh, kw, oh, ow, icg, ocg, k, kpad, n_pixels;
  const int16_t *x;
  const double *w_scales;
  const int32_t *w_zps;
  int16_t *cols, *w16;
  double *scale;

  QK_TRY (_executorch_qk_check_n_args (&c, 11));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_tensor (&c, 1, "weight", &weight));
  QK_TRY (_executorch_qk_opt_tensor (&c, 2, "bias", &bias));
  QK_TRY (_executorch_qk_int (&c, 8, "groups", &groups));
  QK_TRY (_executorch_qk_tensor (&c, 9, "out", &out));
  if (!int_list (args[3], 2, stride) || !int_list (args[4], 2, padding) || !int_list (args[5], 2, dilation))
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "stride, padding or dilation is not 2 integers");
  if (input->ndim != 4 || weight->ndim != 4 || input->data == NULL || weight->data == NULL ||
      input->nbytes < sizeof xin || weight->nbytes < sizeof wh)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "input or weight not staged");
  memcpy (&xin, input->data, sizeof xin);
  memcpy (&wh, weight->data, sizeof wh);
  if (xin.magic != STAGE_INPUT_MAGIC || wh.magic != STAGE_WEIGHT_MAGIC || xin.numel != input->numel ||
      wh.numel != weight->numel || wh.n_channels != weight->sizes[0])
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "input or weight not staged");
  x = (const int16_t *) ((const char *) input->data + sizeof xin);
  w_scales = (const double *) ((const char *) weight->data + sizeof wh);
  w_zps = (const int32_t *) (w_scales + wh.n_channels);

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
  kpad = (k + 15) / 16 * 16;
  n_pixels = oh * ow;
  cols = et_kernel_context_scratch (ctx, (size_t) (n_pixels + 4) * kpad * sizeof (int16_t));
  w16 = et_kernel_context_scratch (ctx, (size_t) oc * kpad * sizeof (int16_t));
  scale = et_kernel_context_scratch (ctx, (size_t) oc * sizeof (double));
  if (cols == NULL || w16 == NULL || scale == NULL)
    return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory for the convolution");
  for (int64_t o = 0; o < oc; o++)
    {
      const int8_t *src = wh.weights + o * k;
      int16_t *dst = w16 + o * kpad;
      for (int64_t i = 0; i < k; i++)
        dst[i] = (int16_t) (src[i] - w_zps[o]);
      memset (dst + k, 0, (size_t) (kpad - k) * sizeof (int16_t));
      scale[o] = xin.scale * w_scales[o];
    }

  bool avx2 = _executorch_support_cpu_has_avx2_fma ();
  bool parallel = (double) n_pixels * (double) oc * (double) k * (double) n >= PARALLEL_MIN_MACS &&
                  executorch_threadpool_get_num_threads () > 1;
  for (int64_t b = 0; b < n; b++)
    for (int64_t g = 0; g < groups; g++)
      {
        /* im2col of one group: padding is 0 in the (x - zero point) domain,
         * as it is 0.0 after dequantization */
        for (int64_t y = 0; y < oh; y++)
          for (int64_t xo = 0; xo < ow; xo++)
            {
              int16_t *row = cols + (y * ow + xo) * kpad;
              int64_t j = 0;
              for (int64_t ci = 0; ci < icg; ci++)
                {
                  const int16_t *plane = x + ((b * ic) + g * icg + ci) * ih * iw;
                  for (int64_t ky = 0; ky < kh; ky++)
                    {
                      int64_t yy = y * stride[0] - padding[0] + ky * dilation[0];
                      for (int64_t kx = 0; kx < kw; kx++, j++)
                        {
                          int64_t xx = xo * stride[1] - padding[1] + kx * dilation[1];
                          row[j] = (yy >= 0 && yy < ih && xx >= 0 && xx < iw) ? plane[yy * iw + xx] : 0;
                        }
                    }
                }
              memset (row + k, 0, (size_t) (kpad - k) * sizeof (int16_t));
            }
        ConvJob job = {
          .cols = cols,
          .w = w16 + g * ocg * kpad,
          .n_pixels = n_pixels,
          .kpad = kpad,
          .scale = scale + g * ocg,
          .bias = bias != NULL ? (const float *) bias->data + g * ocg : NULL,
          .out = (float *) out->data + (b * oc + g * ocg) * n_pixels,
          .avx2 = avx2,
        };
        if (parallel)
          executorch_threadpool_parallelize_1d (conv_channel, &job, (gsize) ocg);
        else
          for (int64_t o = 0; o < ocg; o++)
            conv_channel (&job, (size_t) o);
      }
  return ET_OK;
}

const EtKernel _executorch_qk_stage_input_kernel = { "quantized_decomposed::dequantize_per_tensor.out", stage_input,
                                                     NULL };
const EtKernel _executorch_qk_stage_weight_channel_kernel = { "quantized_decomposed::dequantize_per_channel.out",
                                                              stage_weight, NULL };
const EtKernel _executorch_qk_stage_weight_tensor_kernel = { "quantized_decomposed::dequantize_per_tensor.out",
                                                             stage_weight, NULL };
const EtKernel _executorch_qk_int_conv_kernel = { "aten::convolution.out", int_conv, NULL };
