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
 * (cols[kk][p][2]), so that one multiply-add of a vector of pixels' pairs
 * by a broadcast pair of weights gives their int32 partial sums
 * (int-conv-tiles.c).  The pixels go in stretches whose columns stay in
 * cache while every block of four channels passes over them: a task is
 * one stretch by one channel block. */
typedef struct
{
  const int16_t *cols; /* [k_pairs][p_pad][2] */
  const uint32_t *w;   /* [OC in group][k_pairs]: two int16 weights per word */
  int64_t n_pixels, p_pad, k_pairs;
  int64_t n_channels;  /* OC in group */
  int64_t stretch;     /* pixels of a task, a multiple of QK_TILE_PIXELS */
  size_t n_blocks;     /* channel blocks */
  const double *scale; /* x_scale * w_scale[oc], for the group's channels */
  const float *bias;   /* NULL, or the group's channels */
  QkOutput out;        /* (oc, p) at out_offset + oc * n_pixels + p */
  int64_t out_offset;
  QkIsa isa;
  /* the u8 x s8 form instead of cols and w, where cols8 is not NULL */
  const uint8_t *cols8; /* [k_quads][p_pad][4] */
  const uint32_t *w8;   /* [OC in group][k_quads] */
  const int32_t *offset;
  int64_t k_quads;
  /* the direct form (int-conv-direct): the rows' byte offsets, and the
   * width of a flat output row, of which the first ow are the output's */
  const int64_t *koff;
  int64_t wp, ow;
} ConvJob;

/* Bytes of columns a stretch may span: they are reread once per channel
 * block, so they should stay in a core's L2. */
#define STRETCH_BYTES (256 * 1024)

/* The result of channel @oc for pixels [p0, p1), whose sums start at @sums. */
static void
scale_channel (const ConvJob *job, int64_t oc, const int32_t *sums, int64_t p0, int64_t p1)
{
  _executorch_qk_emit_row (&job->out, sums, job->out_offset + oc * job->n_pixels + p0, p1 - p0, job->scale[oc],
                           job->bias != NULL ? (double) job->bias[oc] : 0.0);
}

/* The direct form's result of channel @oc for flat pixels [p0, p1), whose
 * sums start at @sums: the first ow of each wp-wide row.  Those are
 * consecutive outputs, so they are moved together and sent out in one
 * call (one a row: q8_resnet18 took 1.7 % longer). */
static void
scale_channel_rows (const ConvJob *job, int64_t oc, int32_t *sums, int64_t p0, int64_t p1)
{
  int64_t first = -1, n = 0;

  for (int64_t y = p0 / job->wp; y * job->wp < p1 && y * job->ow < job->n_pixels; y++)
    {
      int64_t x0 = MAX (p0 - y * job->wp, 0), x1 = MIN (p1 - y * job->wp, job->ow);
      if (x0 >= x1)
        continue;
      if (first < 0)
        first = y * job->ow + x0;
      memmove (sums + n, sums + (y * job->wp + x0 - p0), (size_t) (x1 - x0) * sizeof (int32_t));
      n += x1 - x0;
    }
  if (n > 0)
    _executorch_qk_emit_row (&job->out, sums, job->out_offset + oc * job->n_pixels + first, n, job->scale[oc],
                             job->bias != NULL ? (double) job->bias[oc] : 0.0);
}

/* Pixels whose sums a task keeps at a time: four channels' in 8 KiB, in
 * L1 until their results are out.  Sums the size of the whole output went
 * to memory and back (MobileNet-v2's 16 -> 96 channels at 112x112: 4.8 MB
 * of them, the tiles three times slower than with warm caches). */
#define PIECE 512

/* Task @task: channel block task % n_blocks (channels [block * 4,
 * block * 4 + 4) of the group) over pixel stretch task / n_blocks, a
 * piece at a time. */
static void
conv_task (void *data, size_t task)
{
  const ConvJob *job = data;
  int64_t block = (int64_t) (task % job->n_blocks), stretch = (int64_t) (task / job->n_blocks);
  int64_t first = block * QK_TILE_CHANNELS, end = MIN (first + QK_TILE_CHANNELS, job->n_channels);
  int64_t p0 = stretch * job->stretch, p1 = MIN (p0 + job->stretch, job->p_pad);
  int32_t sums[QK_TILE_CHANNELS * (PIECE + 16)] __attribute__ ((aligned (64)));

  for (int64_t a = p0; a < p1; a += PIECE)
    {
      int64_t n = MIN (PIECE, p1 - a);
      /* rows of sums a cache line longer than the piece: four rows a
       * power of two apart would share their cache sets */
      int64_t row = n + 16;
      /* the piece's columns from pixel a on, as pixels [0, n) */
      if (job->cols8 != NULL)
        {
          QkTile8 tile8 = {
            .cols8 = job->cols8 + a * 4,
            .p_pad = job->p_pad,
            .k_quads = job->k_quads,
            .w8 = job->w8 + first * job->k_quads,
            .offset = job->offset + first,
            .acc = sums,
            .acc_stride = row,
            .koff = job->koff,
          };
          _executorch_qk_tile8_sums (&tile8, end - first, 0, n);
        }
      else
        {
          QkTile tile = {
            .cols = job->cols + a * 2,
            .p_pad = job->p_pad,
            .k_pairs = job->k_pairs,
            .w = job->w + first * job->k_pairs,
            .acc = sums,
            .acc_stride = row,
          };
          _executorch_qk_tile_sums (&tile, job->isa, end - first, 0, n);
        }
      for (int64_t oc = first; oc < end; oc++)
        if (job->wp > 0)
          scale_channel_rows (job, oc, sums + (oc - first) * row, a, a + n);
        else if (a < job->n_pixels)
          scale_channel (job, oc, sums + (oc - first) * row, a, MIN (a + n, job->n_pixels));
    }
}

typedef struct
{
  const QkDirect *direct;
  const QkU8Source *src;
  uint8_t *image;
} ImageJob;

static void
image_task (void *data, size_t task)
{
  const ImageJob *job = data;

  _executorch_qk_fill_image (job->direct, job->src, job->image, (int64_t) task, (int64_t) task + 1);
}

/* The direct form's image, a channel quad a task over the pool when
 * @parallel. */
static void
fill_image (const QkDirect *direct, const QkU8Source *src, uint8_t *image, bool parallel)
{
  ImageJob job = { direct, src, image };

  if (parallel && direct->c_quads > 1)
    executorch_threadpool_parallelize_1d (image_task, &job, (size_t) direct->c_quads);
  else
    _executorch_qk_fill_image (direct, src, image, 0, direct->c_quads);
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

/* What the rewrite packed for one site: the weights as int16 pairs (minus
 * their zero points; an odd K's partner is 0) and their scales. */
typedef struct
{
  EtKernel kernel;
  int64_t n_channels, k, k_pairs;
  const uint32_t *w_pairs; /* [OC][k_pairs] */
  const int16_t *w16;      /* [OC][k] for a depthwise site (one input channel), else NULL */
  const double *w_scales;  /* [OC] */
  /* the u8 x s8 form (AVX-512 VNNI, weights without zero points), or NULL */
  const uint32_t *w8;    /* [OC][k_quads]: four int8 per word, K padded with 0 */
  const int32_t *w_sums; /* [OC] */
  int64_t k_quads;
  /* or, for the direct form (a stride of 1 and a window past 1x1), four
   * input channels a word at each tap: [OC][taps][c_quads], channels
   * past the last 0; w8 is then NULL */
  const uint32_t *w8_taps;
  int64_t taps_quads; /* taps x c_quads */
  bool requantize;
  QkRequant requant;
  /* the quantize's int8/uint8 result the requantized bytes go straight
   * into (the rewrite proved nothing else touches its memory until the
   * quantize), or NULL: staged in out */
  const EtValue *bytes_out;
  /* the arguments of the input's dequantize_per_tensor.out, whose int8
   * input the convolution reads itself (u8 x s8 only; the dequantize does
   * nothing), or NULL: staged */
  EtValue **deq_args;
  /* with deq_args, depthwise: the result lies over those bytes */
  bool in_place;
} PackedConv;

static EtError int_conv (EtKernelContext *ctx, EtValue **args, uint32_t n_args);

/* The direct form for a convolution at stride 1 whose window is more than
 * one tap and whose groups have four input channels or more (fewer would
 * leave most of each quad empty), where _executorch_qk_direct_init takes
 * its geometry and the columns it throws away add at most a tenth to the
 * sums: the fill it saves costs about that (13x13 planes, 15 wide with
 * their padding, lost 6 % in SqueezeNet; 14x14 gained 24 % in ResNet-18 at
 * 8 % more sums). */
static bool
takes_direct_form (const EtTensor *w, EtValue *const *conv_args)
{
  const EtTensor *x = conv_args[0]->tag == ET_VALUE_TENSOR ? conv_args[0]->u.tensor : NULL;
  int64_t stride[2], padding[2], dilation[2];
  QkDirect d;

  if (x == NULL || x->ndim != 4 || w->ndim != 4 || w->sizes[1] < 4 || w->sizes[2] * w->sizes[3] <= 1 ||
      !int_list (conv_args[3], 2, stride) || !int_list (conv_args[4], 2, padding) ||
      !int_list (conv_args[5], 2, dilation) || padding[0] < 0 || padding[1] < 0)
    return false;
  QkConvGeometry geo = {
    .icg = w->sizes[1],
    .ih = x->sizes[2],
    .iw = x->sizes[3],
    .kh = w->sizes[2],
    .kw = w->sizes[3],
    .oh = x->sizes[2] + 2 * padding[0] - dilation[0] * (w->sizes[2] - 1),
    .ow = x->sizes[3] + 2 * padding[1] - dilation[1] * (w->sizes[3] - 1),
    .stride = { stride[0], stride[1] },
    .padding = { padding[0], padding[1] },
    .dilation = { dilation[0], dilation[1] },
  };
  return geo.oh > 0 && geo.ow > 0 && _executorch_qk_direct_init (&geo, &d) &&
         (double) d.p_pad <= 1.1 * (double) _executorch_qk_tiled (geo.oh * geo.ow);
}

/* The weights four input channels a word at each tap ([OC][taps][c_quads]),
 * or NULL when out of memory. */
static uint32_t *
pack_taps (EtMethodGraph *graph, const EtTensor *w, int64_t c_quads)
{
  int64_t n_channels = w->sizes[0], icg = w->sizes[1], taps = w->sizes[2] * w->sizes[3];
  uint32_t *w8_taps = et_method_graph_alloc (graph, (size_t) (n_channels * taps * c_quads) * sizeof (uint32_t));

  if (w8_taps == NULL)
    return NULL;
  for (int64_t o = 0; o < n_channels; o++)
    for (int64_t ci = 0; ci < icg; ci++)
      for (int64_t t = 0; t < taps; t++)
        {
          int8_t v = ((const int8_t *) w->data)[(o * icg + ci) * taps + t];
          w8_taps[(o * taps + t) * c_quads + ci / 4] |= (uint32_t) (uint8_t) v << (8 * (ci % 4));
        }
  return w8_taps;
}

const EtKernel *
_executorch_qk_int_conv_packed (EtMethodGraph *graph, const EtTensor *w, const double *scales, const int32_t *zps,
                                EtValue *const *conv_args)
{
  int64_t n_channels = w->sizes[0], k = w->numel / n_channels, k_pairs = (k + 1) / 2;
  PackedConv *site = et_method_graph_alloc (graph, sizeof *site);
  uint32_t *w_pairs = et_method_graph_alloc (graph, (size_t) (n_channels * k_pairs) * sizeof (uint32_t));
  double *w_scales = et_method_graph_alloc (graph, (size_t) n_channels * sizeof (double));

  int16_t *w16 = NULL;

  if (w->sizes[1] == 1 && (w16 = et_method_graph_alloc (graph, (size_t) w->numel * sizeof (int16_t))) == NULL)
    return NULL;
  if (site == NULL || w_pairs == NULL || w_scales == NULL)
    return NULL;
  for (int64_t o = 0; o < n_channels; o++)
    {
      const int8_t *src = (const int8_t *) w->data + o * k;
      for (int64_t kk = 0; kk < k_pairs; kk++)
        {
          int16_t w0 = (int16_t) (src[2 * kk] - zps[o]);
          int16_t w1 = 2 * kk + 1 < k ? (int16_t) (src[2 * kk + 1] - zps[o]) : 0;
          w_pairs[o * k_pairs + kk] = (uint16_t) w0 | ((uint32_t) (uint16_t) w1 << 16);
        }
      if (w16 != NULL)
        for (int64_t j = 0; j < k; j++)
          w16[o * k + j] = (int16_t) (src[j] - zps[o]);
      w_scales[o] = scales[o];
    }
  /* vpdpbusd sums four u8 x s8 products in int32: at most
   * 65536 x 255 x 128 in all, so K is bounded */
  uint32_t *w8 = NULL, *w8_taps = NULL;
  int32_t *w_sums = NULL;
  int64_t k_quads = (k + 3) / 4;
  int64_t taps_quads = w->ndim == 4 ? w->sizes[2] * w->sizes[3] * ((w->sizes[1] + 3) / 4) : 0;
  bool direct = takes_direct_form (w, conv_args) && taps_quads * 4 <= 65536;
  bool no_zero_points = true;
  for (int64_t o = 0; o < n_channels; o++)
    no_zero_points &= zps[o] == 0;
  if (_executorch_qk_isa () == QK_ISA_AVX512_VNNI && no_zero_points && k_quads * 4 <= 65536)
    {
      if (direct)
        w8_taps = pack_taps (graph, w, (w->sizes[1] + 3) / 4);
      else
        w8 = et_method_graph_alloc (graph, (size_t) (n_channels * k_quads) * sizeof (uint32_t));
      w_sums = et_method_graph_alloc (graph, (size_t) n_channels * sizeof (int32_t));
      if ((w8 == NULL && w8_taps == NULL) || w_sums == NULL)
        return NULL;
      for (int64_t o = 0; o < n_channels; o++)
        {
          const int8_t *src = (const int8_t *) w->data + o * k;
          int32_t sum = 0;
          for (int64_t j = 0; j < k; j++)
            {
              if (w8 != NULL)
                w8[o * k_quads + j / 4] |= (uint32_t) (uint8_t) src[j] << (8 * (j % 4));
              sum += src[j];
            }
          w_sums[o] = sum;
        }
    }
  *site = (PackedConv){
    .kernel = { w8_taps != NULL ? "aten::convolution.out [int8 direct]" : "aten::convolution.out [int8]", int_conv,
                site },
    .n_channels = n_channels,
    .k = k,
    .k_pairs = k_pairs,
    .w_pairs = w_pairs,
    .w16 = w16,
    .w8 = w8,
    .w_sums = w_sums,
    .k_quads = k_quads,
    .w8_taps = w8_taps,
    .taps_quads = taps_quads,
    .w_scales = w_scales,
  };
  return &site->kernel;
}

/* The site of a kernel from _executorch_qk_int_conv_packed (the
 * rewrite's own allocation, et_method_graph_alloc, not a constant), or
 * NULL for any other kernel. */
static PackedConv *
site_of (const EtKernel *conv_kernel)
{
  if (conv_kernel == NULL || conv_kernel->func != int_conv)
    return NULL;
  return conv_kernel->user_data;
}

bool
_executorch_qk_int_conv_set_requant (const EtKernel *conv_kernel, const QkRequant *requant)
{
  PackedConv *site = site_of (conv_kernel);

  if (site == NULL)
    return false;
  site->requant = *requant;
  _executorch_qk_requant_prepare (&site->requant);
  site->requantize = true;
  return true;
}

bool
_executorch_qk_int_conv_set_bytes_out (const EtKernel *conv_kernel, const EtValue *bytes_out)
{
  PackedConv *site = site_of (conv_kernel);

  if (site == NULL)
    return false;
  if (!site->requantize)
    return false;
  site->bytes_out = bytes_out;
  return true;
}

const EtValue *
_executorch_qk_int_conv_bytes_out (const EtKernel *conv_kernel)
{
  const PackedConv *site = site_of (conv_kernel);

  return site != NULL ? site->bytes_out : NULL;
}

/* Which of int_conv's forms a call with convolution.out's arguments @args
 * takes, as far as the sizes at load tell. */
typedef enum
{
  FORM_UNKNOWN,
  FORM_DEPTHWISE, /* one input and one output channel a group: reads the input as it goes */
  FORM_ONE_FILL,  /* one image, one group: one column fill before any product */
  FORM_FILLS,     /* a column fill per image and group */
} ConvForm;

static ConvForm
conv_form (const EtKernel *conv_kernel, EtValue *const *args)
{
  const EtTensor *input = args[0]->tag == ET_VALUE_TENSOR ? args[0]->u.tensor : NULL;
  const EtTensor *weight = args[1]->tag == ET_VALUE_TENSOR ? args[1]->u.tensor : NULL;
  const PackedConv *site = site_of (conv_kernel);
  int64_t groups;

  if (site == NULL || input == NULL || weight == NULL || input->ndim != 4 || weight->ndim != 4 ||
      args[8]->tag != ET_VALUE_INT || (groups = args[8]->u.int_value) <= 0)
    return FORM_UNKNOWN;
  if (weight->sizes[1] == 1 && weight->sizes[0] == groups && site->w16 != NULL)
    return FORM_DEPTHWISE;
  return input->sizes[0] == 1 && groups == 1 ? FORM_ONE_FILL : FORM_FILLS;
}

bool
_executorch_qk_int_conv_reads_input_first (const EtKernel *conv_kernel, EtValue *const *args)
{
  return conv_form (conv_kernel, args) == FORM_ONE_FILL;
}

bool
_executorch_qk_int_conv_takes_bytes (const EtKernel *conv_kernel, EtValue *const *args)
{
  ConvForm form = conv_form (conv_kernel, args);

  /* the bytes become columns only in the u8 x s8 form; the depthwise
   * form reads them as they are */
  return form == FORM_DEPTHWISE || (form != FORM_UNKNOWN && _executorch_qk_isa () == QK_ISA_AVX512_VNNI &&
                                    (site_of (conv_kernel)->w8 != NULL || site_of (conv_kernel)->w8_taps != NULL));
}

bool
_executorch_qk_int_conv_set_byte_input (const EtKernel *conv_kernel, EtValue *const *args, EtValue **deq_args,
                                        bool in_place)
{
  ConvForm form = conv_form (conv_kernel, args);
  PackedConv *site = site_of (conv_kernel);
  int64_t stride[2], padding[2], dilation[2];

  if (!_executorch_qk_int_conv_takes_bytes (conv_kernel, args))
    return false;
  if (in_place)
    {
      const EtTensor *weight = args[1]->u.tensor; /* 4-D (conv_form) */
      /* channel c of the result over channel c of the input: the same
       * plane size at stride 1, each plane copied before it is written */
      if (form != FORM_DEPTHWISE || !int_list (args[3], 2, stride) || !int_list (args[4], 2, padding) ||
          !int_list (args[5], 2, dilation) || stride[0] != 1 || stride[1] != 1 ||
          2 * padding[0] != dilation[0] * (weight->sizes[2] - 1) ||
          2 * padding[1] != dilation[1] * (weight->sizes[3] - 1) ||
          !_executorch_qk_depthwise_copies_planes (_executorch_qk_isa (), weight->sizes[2], weight->sizes[3], 1,
                                                   dilation[1]))
        return false;
    }
  site->deq_args = deq_args;
  site->in_place = in_place;
  return true;
}

EtValue **
_executorch_qk_int_conv_byte_input (const EtKernel *conv_kernel)
{
  const PackedConv *site = site_of (conv_kernel);

  return site != NULL ? site->deq_args : NULL;
}

bool
_executorch_qk_int_conv_fold_clamp (const EtKernel *conv_kernel, const EtValue *from, const EtValue *to, bool is_signed,
                                    int lo, int hi)
{
  PackedConv *site = site_of (conv_kernel);

  if (site == NULL)
    return false;
  if (!site->requantize || site->bytes_out != from || site->requant.is_signed != is_signed || lo > site->requant.qmax ||
      hi < site->requant.qmin)
    return false;
  /* clamping [qmin, qmax]'s result to [lo, hi] is clamping to their
   * intersection, which is not empty */
  site->requant.qmin = MAX (site->requant.qmin, lo);
  site->requant.qmax = MIN (site->requant.qmax, hi);
  _executorch_qk_requant_prepare (&site->requant);
  site->bytes_out = to;
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
  const PackedConv *site = et_kernel_context_user_data (ctx);
  StagedInput xin;
  int64_t stride[2], padding[2], dilation[2], groups, sizes[4];
  int64_t n, ic, ih, iw, oc, kh, kw, oh, ow, icg, ocg, k, k_pairs, n_pixels, p_pad;
  const int16_t *x = NULL;
  const EtTensor *x_bytes = NULL;
  const uint8_t *xb = NULL; /* the input as bytes (read itself or staged), or NULL: x */
  bool xb_signed = false;
  int16_t *cols;
  double *scale;

  QK_TRY (_executorch_qk_check_n_args (&c, 11));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_tensor (&c, 1, "weight", &weight));
  QK_TRY (_executorch_qk_opt_tensor (&c, 2, "bias", &bias));
  QK_TRY (_executorch_qk_int (&c, 8, "groups", &groups));
  QK_TRY (_executorch_qk_tensor (&c, 9, "out", &out));
  if (!int_list (args[3], 2, stride) || !int_list (args[4], 2, padding) || !int_list (args[5], 2, dilation))
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "stride, padding or dilation is not 2 integers");
  if (site != NULL && site->deq_args != NULL)
    {
      QK_TRY (_executorch_qk_read_byte_input (ctx, site->deq_args, &xin, &x_bytes));
      if (x_bytes->ndim != 4 || x_bytes->numel != input->numel)
        return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "the input's bytes do not fit the convolution's input");
      input = (EtTensor *) x_bytes; /* its sizes; the float input was never written */
      xb = x_bytes->data;
      xb_signed = x_bytes->scalar_type == ET_SCALAR_CHAR;
    }
  if (input->ndim != 4 || weight->ndim != 4)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "input or weight not staged");
  if (x_bytes == NULL)
    QK_TRY (_executorch_qk_read_conv_input (&c, input, &xin, &x, &xb, &xb_signed));

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
  if (site == NULL || site->n_channels != oc || site->k != icg * kh * kw)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "weight not packed for this convolution");
  sizes[0] = n, sizes[1] = oc, sizes[2] = oh, sizes[3] = ow;
  QK_TRY (_executorch_qk_resize (&c, out, "out", 4, sizes));
  QK_TRY (_executorch_qk_contiguous (&c, out, "out"));
  if (out->scalar_type != ET_SCALAR_FLOAT)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "out is not Float");

  ocg = oc / groups;
  k = icg * kh * kw;
  k_pairs = (k + 1) / 2;
  n_pixels = oh * ow;
  p_pad = _executorch_qk_tiled (n_pixels);
  scale = et_kernel_context_scratch (ctx, (size_t) oc * sizeof (double));
  if (scale == NULL)
    return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory for the convolution");
  for (int64_t o = 0; o < oc; o++)
    scale[o] = xin.scale * site->w_scales[o];

  QkIsa isa = _executorch_qk_isa ();
  QkOutput output = { .f = out->data, .isa = isa };
  if (site->requantize && site->bytes_out != NULL)
    {
      const EtTensor *bytes = site->bytes_out->tag == ET_VALUE_TENSOR ? site->bytes_out->u.tensor : NULL;
      if (bytes == NULL || bytes->data == NULL || bytes->numel != out->numel || bytes->nbytes < (size_t) out->numel)
        return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "the quantized result does not fit the convolution's");
      output = (QkOutput){ .q = bytes->data, .requant = &site->requant, .isa = isa };
    }
  else if (site->requantize)
    {
      StagedBytes head = { STAGE_BYTES_MAGIC, out->numel };
      if (out->nbytes < sizeof head + (size_t) out->numel)
        return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "out cannot hold the quantized result");
      memcpy (out->data, &head, sizeof head);
      output = (QkOutput){ .q = (char *) out->data + sizeof head, .requant = &site->requant, .isa = isa };
    }
  if (icg == 1 && ocg == 1 && site->w16 != NULL)
    {
      bool is_signed = xb != NULL && xb_signed;
      for (int64_t b = 0; b < n; b++)
        {
          QkDepthwise dw = {
            .x = x != NULL ? x + b * ic * ih * iw : NULL,
            .bytes = xb != NULL ? xb + b * ic * ih * iw : NULL,
            .is_signed = is_signed,
            .zp = (int16_t) (xin.u8_offset - (is_signed ? 128 : 0)),
            .in_place = x_bytes != NULL && site->in_place,
            .w = site->w16,
            .scale = scale,
            .bias = bias != NULL ? (const float *) bias->data : NULL,
            .out = output,
            .base = b * oc * n_pixels,
            .channels = oc,
            .ih = ih,
            .iw = iw,
            .kh = kh,
            .kw = kw,
            .oh = oh,
            .ow = ow,
            .stride = { stride[0], stride[1] },
            .padding = { padding[0], padding[1] },
            .dilation = { dilation[0], dilation[1] },
            .isa = isa,
          };
          /* a channel's fixed cost (its plane copied and padded, its rows
           * set up) counts as work too: 576 channels of 7x7 outputs took
           * 170 us on one thread, at 254 K multiply-adds */
          double work = (double) oc * ((double) n_pixels * (double) k + QK_DEPTHWISE_CHANNEL_MACS);
          if (!_executorch_qk_depthwise (&dw, work >= QK_PARALLEL_MIN_MACS && oc > 1 &&
                                                  executorch_threadpool_get_num_threads () > 1))
            return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED,
                                        "no memory for a copy of the depthwise convolution's input plane");
        }
      return ET_OK;
    }

  /* u8 x s8 where the weights were packed so and x + offset is a byte */
  bool u8 = isa == QK_ISA_AVX512_VNNI && (site->w8 != NULL || site->w8_taps != NULL) && xin.u8_offset >= 0 &&
            xin.u8_offset <= 255;
  QkConvGeometry geo = {
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
  QkDirect direct = { 0 };
  if (u8 && site->w8_taps != NULL && !_executorch_qk_direct_init (&geo, &direct))
    u8 = false; /* packed for a stride of 1 */
  if (xb != NULL && !u8)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "the input's bytes cannot be read as unsigned");
  bool by_taps = u8 && site->w8_taps != NULL;
  int64_t k_quads = by_taps ? site->taps_quads : site->k_quads;
  /* the sums' pixels: the direct form's flat rows, else the output's */
  int64_t sum_pad = by_taps ? direct.p_pad : p_pad;
  uint8_t *cols8 = NULL;
  int32_t *offset = NULL;
  int64_t *koff = NULL;
  cols = NULL;
  if (u8)
    {
      size_t bytes = (size_t) (by_taps ? direct.c_quads * direct.plane : k_quads * p_pad) * 4;
      cols8 = et_kernel_context_scratch (ctx, bytes);
      offset = et_kernel_context_scratch (ctx, (size_t) oc * sizeof (int32_t));
      if (by_taps && (koff = et_kernel_context_scratch (ctx, (size_t) k_quads * sizeof (int64_t))) != NULL)
        _executorch_qk_direct_offsets (&direct, koff);
      if (cols8 == NULL || offset == NULL || (by_taps && koff == NULL))
        return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory for the convolution");
      for (int64_t o = 0; o < oc; o++)
        /* the sums wrap in int32 as vpdpbusd's do; the difference fits */
        offset[o] = (int32_t) (uint32_t) ((uint64_t) xin.u8_offset * (uint64_t) (int64_t) site->w_sums[o]);
    }
  else if ((cols = et_kernel_context_scratch (ctx, (size_t) k_pairs * p_pad * 2 * sizeof (int16_t))) == NULL)
    return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory for the convolution");
  QkColumnTap *taps = NULL;
  if (!by_taps)
    {
      if ((taps = et_kernel_context_scratch (ctx, (size_t) k * sizeof (QkColumnTap))) == NULL)
        return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory for the convolution");
      _executorch_qk_column_taps (&geo, taps);
    }
  size_t n_blocks = (size_t) ((ocg + QK_TILE_CHANNELS - 1) / QK_TILE_CHANNELS);
  /* the bytes a pixel's sums read: its columns, or in the direct form
   * its quads of the image (the taps' other rows come along) */
  int64_t pixel_bytes = by_taps ? direct.c_quads * 4 : u8 ? k_quads * 4 : k_pairs * 2 * (int64_t) sizeof (int16_t);
  int64_t stretch = STRETCH_BYTES / pixel_bytes / 32 * 32;
  stretch = MIN (MAX (stretch, 32), sum_pad);
  size_t n_tasks = n_blocks * (size_t) ((sum_pad + stretch - 1) / stretch);
  bool parallel = (double) sum_pad * (double) ocg * (double) k >= QK_PARALLEL_MIN_MACS && n_tasks > 1 &&
                  executorch_threadpool_get_num_threads () > 1;
  for (int64_t b = 0; b < n; b++)
    for (int64_t g = 0; g < groups; g++)
      {
        int64_t first = (b * ic + g * icg) * ih * iw;
        QkFill fill = {
          .geo = &geo,
          .taps = taps,
          .planes = x != NULL ? x + first : NULL,
          .cols = cols,
          .u8 = {
            .x = x != NULL ? x + first : NULL,
            .bytes = xb != NULL ? xb + first : NULL,
            .flip = xb != NULL && xb_signed ? 0x80 : 0,
            .pad = (int16_t) xin.u8_offset,
          },
          .cols8 = cols8,
          .n_rows = u8 ? k_quads : k_pairs,
          /* rows of a task: a few, so that each thread gets several */
          .per_task = MAX ((u8 ? k_quads : k_pairs) / 8, 1),
        };
        if (by_taps)
          fill_image (&direct, &fill.u8, cols8, parallel);
        else
          _executorch_qk_fill_columns (&fill, parallel);
        ConvJob job = {
          .cols = cols,
          .w = site->w_pairs + g * ocg * k_pairs,
          .n_pixels = n_pixels,
          .p_pad = sum_pad,
          .k_pairs = k_pairs,
          .n_channels = ocg,
          .stretch = stretch,
          .n_blocks = n_blocks,
          .scale = scale + g * ocg,
          .bias = bias != NULL ? (const float *) bias->data + g * ocg : NULL,
          .out = output,
          .out_offset = (b * oc + g * ocg) * n_pixels,
          .isa = isa,
          .cols8 = cols8,
          .w8 = !u8       ? NULL
                : by_taps ? site->w8_taps + g * ocg * k_quads
                          : site->w8 + g * ocg * k_quads,
          .offset = u8 ? offset + g * ocg : NULL,
          .k_quads = k_quads,
          .koff = koff,
          .wp = by_taps ? direct.wp : 0,
          .ow = ow,
        };
        if (parallel)
          executorch_threadpool_parallelize_1d (conv_task, &job, n_tasks);
        else
          for (size_t task = 0; task < n_tasks; task++)
            conv_task (&job, task);
      }
  return ET_OK;
}
