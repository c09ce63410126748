/* conv-fusion.c: a convolution absorbs the batch norm, residual add and activation after it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A program exported without a partitioner runs convolution, batch norm,
 * add and relu as four passes over the activations.  When the method
 * has, as consecutive instructions of this library's own kernels,
 *
 *   convolution -> [_native_batch_norm_legit_no_training] -> [add] -> [relu | hardtanh | clamp]
 *
 * (at least one of the three after it), the convolution instruction
 * becomes a fused one (KernelConvFusion, convolution.c): the batch norm is
 * folded into a copy of the constant weight and bias made here, once,
 * the add's other input and the clamp run on each tile of the output as
 * soon as it is computed, and the result goes straight to the last
 * operator's out; the instructions after it call kernels that do nothing.
 *
 * It is exactly what the four instructions compute (up to the rounding
 * of the folded weights) only when everything below holds, so each is
 * checked before anything changes and a pattern that does not match is
 * left as the exporter wrote it:
 * - every kernel is this library's (their func), every tensor float32;
 * - each intermediate is not pinned and read only by the next operator,
 *   as its input (the batch norm's save_mean/save_invstd read by nobody);
 * - the batch norm's weight, bias, mean and variance, and the convolution's
 *   weight and bias, are constant, contiguous and of the channel count;
 * - the add has alpha 1 and its other input has the intermediate's sizes,
 *   contiguous; the instructions are consecutive, so that input was
 *   computed before the convolution runs.
 * Writing the last out at the convolution's place is safe because nothing
 * runs in between; the fused kernel checks at run time that the out does
 * not share bytes with the input or the residual (the memory plan may let
 * it, their lives having ended by then) and uses a temporary if it does.
 */
#include "kernels-private.h"
#include "rewrites-private.h"
#include "../kernels/nn/convolution-private.h"
#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_NORM "aten::_native_batch_norm_legit_no_training.out"

EtError
_executorch_conv_folded_op (EtKernelContext *context, EtValue **args, uint32_t n_args)
{
  (void) context;
  (void) args;
  (void) n_args;
  return ET_OK;
}

static bool
is_float (const EtTensor *t)
{
  return t != NULL && t->scalar_type == ET_SCALAR_FLOAT && t->device_type == ET_DEVICE_CPU;
}

static bool
is_contiguous (const EtTensor *t)
{
  int64_t expected = 1;

  if (!_executorch_dim_order_is_identity (t))
    return false;
  for (int d = (int) t->ndim - 1; d >= 0; d--)
    {
      if (t->strides[d] != expected)
        return false;
      expected *= t->sizes[d];
    }
  return true;
}

/* A constant contiguous float32 vector of @n elements. */
static bool
is_constant_vector (const EtValue *value, int64_t n)
{
  const EtTensor *t = _executorch_rewrite_tensor (value);

  return is_float (t) && (t->flags & ET_TENSOR_FLAG_CONSTANT) != 0 && t->data != NULL && t->ndim == 1 &&
         t->sizes[0] == n && t->strides[0] == 1;
}

typedef struct
{
  uint32_t conv;
  int64_t cout;
  int32_t batch_norm, add, activation; /* instruction indices, -1 when absent */
  EtValue *residual;
  bool clamp;
  float lo, hi;
  EtValue *out; /* the last fused operator's out */
  bool alone;   /* nothing after it fused */
  ChainConv chain;
} Plan;

/* convolution.out (input, weight, bias?, stride, padding, dilation,
 * transposed, output_padding, groups, out, ret), float32, not transposed
 * (the fold scales the weight's first dimension). */
static bool
match_convolution (EtMethodGraph *graph, uint32_t index, Plan *plan)
{
  const EtTensor *x, *w, *y;
  EtValue **args;
  uint32_t n_args;

  if (!_executorch_rewrite_calls_own (graph, index, "aten::convolution.out"))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != 11 || args[6]->tag != ET_VALUE_BOOL || args[6]->u.bool_value)
    return false;
  x = _executorch_rewrite_tensor (args[0]);
  w = _executorch_rewrite_tensor (args[1]);
  y = _executorch_rewrite_tensor (args[9]);
  if (!is_float (x) || !is_float (w) || !is_float (y) || w->ndim < 3 || w->sizes[0] < 1 || w->numel < 1)
    return false;
  /* Constant weights only: a weight computed at run time (a PT2E
   * program's dequantized int8 weight) is left to the plug-in that
   * rewrites that pattern. */
  if ((w->flags & ET_TENSOR_FLAG_CONSTANT) == 0 || w->data == NULL)
    return false;
  if (args[2]->tag != ET_VALUE_NONE && !is_float (_executorch_rewrite_tensor (args[2])))
    return false;
  *plan = (Plan){ 0 };
  plan->conv = index;
  plan->cout = w->sizes[0];
  plan->batch_norm = plan->add = plan->activation = -1;
  plan->out = args[9];
  return true;
}

/* The batch norm may be folded when the weight and every parameter are
 * constants laid out as the fold reads them. */
static bool
foldable (EtMethodGraph *graph, const Plan *plan, EtValue **bn)
{
  uint32_t n_args;
  EtValue **conv = et_method_graph_args (graph, plan->conv, &n_args);
  const EtTensor *w = _executorch_rewrite_tensor (conv[1]);

  if ((w->flags & ET_TENSOR_FLAG_CONSTANT) == 0 || w->data == NULL || w->numel <= 0)
    return false;
  if (conv[2]->tag != ET_VALUE_NONE && !is_constant_vector (conv[2], plan->cout))
    return false;
  for (int i = 1; i <= 2; i++)
    if (bn[i]->tag != ET_VALUE_NONE && !is_constant_vector (bn[i], plan->cout))
      return false;
  return is_constant_vector (bn[3], plan->cout) && is_constant_vector (bn[4], plan->cout) &&
         bn[6]->tag == ET_VALUE_DOUBLE && bn[6]->u.double_value >= 0.0;
}

/* _native_batch_norm_legit_no_training.out (input, weight?, bias?,
 * running_mean, running_var, momentum, eps, out, save_mean, save_invstd,
 * ret) right after the convolution. */
static bool
match_batch_norm (EtMethodGraph *graph, uint32_t index, Plan *plan)
{
  EtValue **args;
  uint32_t n_args;

  if (!_executorch_rewrite_calls_own (graph, index, BATCH_NORM))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != 11 || args[0] != plan->out || !is_float (_executorch_rewrite_tensor (args[7])) ||
      !_executorch_rewrite_only_used_by (graph, plan->out, plan->conv, index) || !foldable (graph, plan, args))
    return false;
  /* save_mean and save_invstd are computed for nobody. */
  if (!_executorch_rewrite_only_used_by (graph, args[8], index, UINT32_MAX) ||
      !_executorch_rewrite_only_used_by (graph, args[9], index, UINT32_MAX))
    return false;
  plan->batch_norm = (int32_t) index;
  plan->out = args[7];
  return true;
}

/* add.out (self, other, alpha, out, ret) with alpha 1 and the other input
 * contiguous, of the intermediate's sizes (no broadcast). */
static bool
match_add (EtMethodGraph *graph, uint32_t index, Plan *plan, uint32_t producer)
{
  const EtTensor *mine = _executorch_rewrite_tensor (plan->out), *other;
  EtValue **args;
  uint32_t n_args;
  int side;

  if (!_executorch_rewrite_calls_own (graph, index, "aten::add.out"))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != 5 || (args[0] == plan->out) == (args[1] == plan->out))
    return false;
  side = args[0] == plan->out ? 1 : 0;
  other = _executorch_rewrite_tensor (args[side]);
  if (!((args[2]->tag == ET_VALUE_INT && args[2]->u.int_value == 1) ||
        (args[2]->tag == ET_VALUE_DOUBLE && args[2]->u.double_value == 1.0)))
    return false;
  if (!is_float (other) || !is_float (_executorch_rewrite_tensor (args[3])) || !_executorch_same_sizes (other, mine) ||
      !_executorch_dim_order_is_identity (other) ||
      !_executorch_rewrite_only_used_by (graph, plan->out, producer, index))
    return false;
  plan->add = (int32_t) index;
  plan->residual = args[side];
  plan->out = args[3];
  return true;
}

/* relu.out (self, out, ret), hardtanh.out (self, min, max, out, ret) or
 * clamp.out (self, min?, max?, out, ret) with scalar bounds. */
static bool
match_activation (EtMethodGraph *graph, uint32_t index, Plan *plan, uint32_t producer)
{
  EtValue **args;
  uint32_t n_args, out;
  float lo = 0.0f, hi = INFINITY;

  args = et_method_graph_args (graph, index, &n_args);
  if (_executorch_rewrite_calls_own (graph, index, "aten::relu.out") && n_args == 3)
    out = 1;
  else if (_executorch_rewrite_calls_own (graph, index, "aten::hardtanh.out") && n_args == 5)
    {
      if (!_executorch_rewrite_scalar_f32 (args[1], &lo) || !_executorch_rewrite_scalar_f32 (args[2], &hi))
        return false;
      out = 3;
    }
  else if (_executorch_rewrite_calls_own (graph, index, "aten::clamp.out") && n_args == 5)
    {
      lo = -INFINITY;
      if ((args[1]->tag == ET_VALUE_NONE && args[2]->tag == ET_VALUE_NONE) ||
          (args[1]->tag != ET_VALUE_NONE && !_executorch_rewrite_scalar_f32 (args[1], &lo)) ||
          (args[2]->tag != ET_VALUE_NONE && !_executorch_rewrite_scalar_f32 (args[2], &hi)))
        return false;
      out = 3;
    }
  else
    return false;
  if (args[0] != plan->out || isnan (lo) || isnan (hi) || !is_float (_executorch_rewrite_tensor (args[out])) ||
      !_executorch_rewrite_only_used_by (graph, plan->out, producer, index))
    return false;
  plan->activation = (int32_t) index;
  plan->clamp = true;
  plan->lo = lo;
  plan->hi = hi;
  plan->out = args[out];
  return true;
}

/* Where element @linear (in row-major order of the sizes) of @t lies:
 * the weight may be in any dim order (channels-last exports). */
static int64_t
strided_offset (const EtTensor *t, int64_t linear)
{
  int64_t offset = 0;

  for (int d = (int) t->ndim - 1; d >= 0; d--)
    {
      offset += linear % t->sizes[d] * t->strides[d];
      linear /= t->sizes[d];
    }
  return offset;
}

/* The folded weight (contiguous, whatever the constant's layout) and
 * bias: w' = w * s and b' = (b - mean) * s + beta with
 * s = gamma / sqrt(var + eps), per output channel, in double.  With
 * @scratch the weights go to a malloc'd block there, to be packed and
 * freed; otherwise they live with the method. */
static bool
fold_batch_norm (EtMethodGraph *graph, const Plan *plan, KernelConvFusion *fusion, float **scratch)
{
  uint32_t n_args;
  EtValue **conv = et_method_graph_args (graph, plan->conv, &n_args);
  EtValue **bn = et_method_graph_args (graph, (uint32_t) plan->batch_norm, &n_args);
  const EtTensor *w = _executorch_rewrite_tensor (conv[1]);
  const float *wd = w->data;
  const float *bias = conv[2]->tag != ET_VALUE_NONE ? _executorch_rewrite_tensor (conv[2])->data : NULL;
  const float *gamma = bn[1]->tag != ET_VALUE_NONE ? _executorch_rewrite_tensor (bn[1])->data : NULL;
  const float *beta = bn[2]->tag != ET_VALUE_NONE ? _executorch_rewrite_tensor (bn[2])->data : NULL;
  const float *mean = _executorch_rewrite_tensor (bn[3])->data, *var = _executorch_rewrite_tensor (bn[4])->data;
  double eps = bn[6]->u.double_value;
  int64_t per_channel = w->numel / plan->cout;
  bool contiguous = is_contiguous (w);
  float *folded_w, *folded_b;

  if (w->numel <= 0 || (size_t) w->numel > SIZE_MAX / sizeof (float) - (size_t) plan->cout)
    return false;
  folded_b = et_method_graph_alloc (graph, (size_t) plan->cout * sizeof (float));
  folded_w = scratch != NULL ? malloc ((size_t) w->numel * sizeof (float))
                             : et_method_graph_alloc (graph, (size_t) w->numel * sizeof (float));
  if (folded_b == NULL || folded_w == NULL)
    {
      if (scratch != NULL)
        free (folded_w);
      return false;
    }
  for (int64_t c = 0; c < plan->cout; c++)
    {
      double s = (gamma != NULL ? gamma[c] : 1.0) / sqrt ((double) var[c] + eps);
      float *dst = folded_w + c * per_channel;
      if (contiguous)
        for (int64_t i = 0; i < per_channel; i++)
          dst[i] = (float) (wd[c * per_channel + i] * s);
      else
        for (int64_t i = 0; i < per_channel; i++)
          dst[i] = (float) (wd[strided_offset (w, c * per_channel + i)] * s);
      folded_b[c] = (float) (((bias != NULL ? bias[c] : 0.0) - mean[c]) * s + (beta != NULL ? beta[c] : 0.0));
    }
  fusion->weight = folded_w;
  fusion->bias = folded_b;
  if (scratch != NULL)
    *scratch = folded_w;
  return true;
}

static void
replace (EtMethodGraph *graph, int32_t index)
{
  if (index >= 0)
    et_method_graph_set_kernel (graph, (uint32_t) index,
                                _executorch_rewrite_nothing (et_method_graph_kernel (graph, (uint32_t) index)->name));
}

/* Whether the convolution takes the GEMM path (not depthwise; never
 * transposed here), and with how many groups. */
static bool
takes_gemm_path (EtMethodGraph *graph, const Plan *plan, int64_t *groups)
{
  uint32_t n_args;
  EtValue **conv = et_method_graph_args (graph, plan->conv, &n_args);
  const EtTensor *w = _executorch_rewrite_tensor (conv[1]);
  int64_t k = w->numel / plan->cout;

  if (conv[8]->tag != ET_VALUE_INT || conv[8]->u.int_value < 1 || plan->cout % conv[8]->u.int_value != 0)
    return false;
  *groups = conv[8]->u.int_value;
  return _executorch_conv_packed_weight_floats (*groups, plan->cout / *groups, k, w->sizes[1] == 1 && k > 1) > 0;
}

/* The @n items of int list @v (one item stands for all), at least @min. */
static bool
int_items (const EtValue *v, uint32_t n, int64_t min, int64_t *items)
{
  if (v->tag != ET_VALUE_LIST_INT || (v->u.list.length != 1 && v->u.list.length != n))
    return false;
  for (uint32_t i = 0; i < n; i++)
    {
      const EtValue *item = v->u.list.items[v->u.list.length == 1 ? 0 : i];
      if (item == NULL || item->tag != ET_VALUE_INT || item->u.int_value < min)
        return false;
      items[i] = item->u.int_value;
    }
  return true;
}

/* The convolution's geometry from the program's sizes (convolution.c
 * checks it again at run time); false for one that is not 2-D. */
static bool
program_geometry (EtMethodGraph *graph, const Plan *plan, KernelConv *cv)
{
  uint32_t n_args;
  EtValue **conv = et_method_graph_args (graph, plan->conv, &n_args);
  const EtTensor *x = _executorch_rewrite_tensor (conv[0]), *w = _executorch_rewrite_tensor (conv[1]),
                 *y = _executorch_rewrite_tensor (conv[9]);
  int64_t stride[2], padding[2], dilation[2], groups;

  if (x == NULL || y == NULL || x->ndim != 4 || w->ndim != 4 || y->ndim != 4 || conv[8]->tag != ET_VALUE_INT ||
      !int_items (conv[3], 2, 1, stride) || !int_items (conv[4], 2, 0, padding) || !int_items (conv[5], 2, 1, dilation))
    return false;
  groups = conv[8]->u.int_value;
  if (groups < 1 || x->sizes[1] % groups != 0 || w->sizes[0] % groups != 0 || w->sizes[1] != x->sizes[1] / groups)
    return false;
  *cv = (KernelConv){
    .n = x->sizes[0],
    .cin = x->sizes[1],
    .h = x->sizes[2],
    .w = x->sizes[3],
    .cout = w->sizes[0],
    .kh = w->sizes[2],
    .kw = w->sizes[3],
    .oh = y->sizes[2],
    .ow = y->sizes[3],
    .sh = stride[0],
    .sw = stride[1],
    .ph = padding[0],
    .pw = padding[1],
    .dh = dilation[0],
    .dw = dilation[1],
    .groups = groups,
    .cin_g = x->sizes[1] / groups,
    .cout_g = w->sizes[0] / groups,
  };
  return true;
}

/* Whether convolution-rows.c beats the GEMM path on this convolution, or
 * takes it for a channels-last operand. */
static bool
takes_rows_path (EtMethodGraph *graph, const Plan *plan, int64_t groups)
{
  KernelConv cv;

  if (groups != 1 || !program_geometry (graph, plan, &cv))
    return false;
  if (plan->chain.in_channels_last || plan->chain.out_channels_last)
    return true;
  return _executorch_conv_rows_pays (&cv);
}

/* What channels-last.c needs to know of the convolution: which kernel
 * would run it channels-last. */
static void
describe_chain (EtMethodGraph *graph, Plan *plan)
{
  uint32_t n_args;
  EtValue **conv = et_method_graph_args (graph, plan->conv, &n_args);
  ChainConv *c = &plan->chain;
  KernelConv cv;

  *c = (ChainConv){
    .conv = plan->conv,
    .fused_away = { plan->batch_norm, plan->add, plan->activation },
    .input = conv[0],
    .out = plan->out,
    .residual = plan->residual,
  };
  if (!program_geometry (graph, plan, &cv))
    return;
  c->depthwise = cv.groups == cv.cin && cv.cout == cv.cin && cv.cin_g == 1 && cv.kh * cv.kw > 1;
  c->capable = c->depthwise
                   ? _executorch_conv_depthwise_nhwc_fits (&cv)
                   : _executorch_conv_rows_fits_layout (&cv, KERNEL_CONV_X_CHANNELS_LAST | KERNEL_CONV_Y_CHANNELS_LAST);
  c->exit_pays = !c->depthwise && _executorch_conv_rows_pays (&cv);
}

/* The depthwise weights (the folded ones, or the constant's when
 * contiguous) packed for the channels-last kernel. */
static bool
pack_depthwise (EtMethodGraph *graph, const Plan *plan, KernelConvFusion *fusion)
{
  uint32_t n_args;
  EtValue **conv = et_method_graph_args (graph, plan->conv, &n_args);
  const EtTensor *w = _executorch_rewrite_tensor (conv[1]);
  const float *source = fusion->weight;
  int64_t taps = w->numel / plan->cout;
  int64_t floats = _executorch_conv_depthwise_nhwc_packed_floats (plan->cout, taps);
  float *packed;

  if (source == NULL && (w->flags & ET_TENSOR_FLAG_CONSTANT) != 0 && is_contiguous (w))
    source = w->data;
  if (source == NULL || floats <= 0 || (uint64_t) floats > SIZE_MAX / sizeof (float))
    return false;
  if ((packed = et_method_graph_alloc (graph, (size_t) floats * sizeof (float))) == NULL)
    return false;
  _executorch_conv_depthwise_nhwc_pack (source, plan->cout, taps, packed);
  fusion->packed_weight = packed;
  fusion->packing = KERNEL_CONV_PACKED_DEPTHWISE_NHWC;
  fusion->packed_groups = plan->cout;
  fusion->packed_cout_g = 1;
  fusion->packed_k = taps;
  return true;
}

/* Packs the weights the fused kernel will use (the folded ones, or the
 * constant's when contiguous) for the GEMM path, or for the rows path
 * where that pays. */
static bool
pack_weights (EtMethodGraph *graph, const Plan *plan, KernelConvFusion *fusion, int64_t groups)
{
  uint32_t n_args;
  EtValue **conv = et_method_graph_args (graph, plan->conv, &n_args);
  const EtTensor *w = _executorch_rewrite_tensor (conv[1]);
  const float *source = fusion->weight;
  int64_t cout_g = plan->cout / groups, k = w->numel / plan->cout, floats;
  bool rows = takes_rows_path (graph, plan, groups);
  float *packed;

  if (source == NULL && (w->flags & ET_TENSOR_FLAG_CONSTANT) != 0 && is_contiguous (w))
    source = w->data;
  floats = rows ? _executorch_conv_rows_packed_floats (plan->cout, k)
                : _executorch_conv_packed_weight_floats (groups, cout_g, k, false);
  if (source == NULL || floats <= 0 || (uint64_t) floats > SIZE_MAX / sizeof (float))
    return false;
  packed = et_method_graph_alloc (graph, (size_t) floats * sizeof (float));
  if (packed == NULL)
    return false;
  if (rows)
    _executorch_conv_rows_pack (source, plan->cout, k, packed);
  else
    _executorch_conv_pack_weight (source, groups, cout_g, k, packed);
  fusion->packed_weight = packed;
  fusion->packing = rows ? KERNEL_CONV_PACKED_ROWS : KERNEL_CONV_PACKED_GEMM;
  fusion->packed_groups = groups;
  fusion->packed_cout_g = cout_g;
  fusion->packed_k = k;
  return true;
}

/* Installs the fused kernel when there is something to fuse or, for a
 * lone convolution, weights to pack. */
static void
fuse (EtMethodGraph *graph, const Plan *plan)
{
  KernelConvFusion *fusion = et_method_graph_alloc (graph, sizeof *fusion);
  int64_t groups = 0;
  bool gemm = takes_gemm_path (graph, plan, &groups);
  float *scratch = NULL;
  bool packed;

  /* The GEMM path reads only the packed weights: folded ones are not
   * kept unpacked beside them. */
  if (fusion == NULL || (plan->batch_norm >= 0 && !fold_batch_norm (graph, plan, fusion, gemm ? &scratch : NULL)))
    return;
  if (plan->chain.depthwise && plan->chain.out_channels_last)
    packed = pack_depthwise (graph, plan, fusion);
  else
    packed = gemm && pack_weights (graph, plan, fusion, groups);
  free (scratch);
  if (scratch != NULL)
    {
      if (!packed)
        return;
      fusion->weight = NULL;
      fusion->folded_into_packed = true;
    }
  if (!packed && plan->alone)
    return;
  fusion->kernel.name = "aten::convolution.out";
  fusion->kernel.func = _executorch_convolution_fused_out;
  fusion->kernel.user_data = fusion;
  fusion->residual = plan->residual;
  fusion->clamp = plan->clamp;
  fusion->lo = plan->lo;
  fusion->hi = plan->hi;
  fusion->out = plan->out;
  /* Every instruction is a kernel call of ours (checked): none fails. */
  if (et_method_graph_set_kernel (graph, plan->conv, &fusion->kernel) != ET_OK)
    return;
  replace (graph, plan->batch_norm);
  replace (graph, plan->add);
  replace (graph, plan->activation);
}

/* Finds every convolution and what follows it, chooses the layouts of
 * their outputs, fuses each, and lets channel cats of their outputs take
 * them in place. */
static void
fuse_convolutions (void *user_data, EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph), n_plans = 0;
  Plan *plans;
  ChainConv *chain;

  (void) user_data;
  if (!_executorch_rewrites_enabled () || n == 0)
    return;
  plans = calloc (n, sizeof *plans);
  chain = calloc (n, sizeof *chain);
  if (plans == NULL || chain == NULL)
    {
      free (plans);
      free (chain);
      return;
    }
  for (uint32_t index = 0; index < n; index++)
    {
      Plan *plan = &plans[n_plans];
      uint32_t next = index + 1, last = index;

      if (!match_convolution (graph, index, plan))
        continue;
      if (next < n && match_batch_norm (graph, next, plan))
        last = next++;
      if (next < n && match_add (graph, next, plan, last))
        last = next++;
      if (next < n && match_activation (graph, next, plan, last))
        last = next++;
      plan->alone = last == index;
      describe_chain (graph, plan);
      chain[n_plans++] = plan->chain;
      index = last;
    }
  _executorch_channels_last_choose (graph, chain, n_plans);
  for (uint32_t i = 0; i < n_plans; i++)
    {
      plans[i].chain = chain[i];
      fuse (graph, &plans[i]);
    }
  _executorch_cat_in_place (graph, chain, n_plans);
  free (plans);
  free (chain);
  _executorch_conv_pair_fuse (graph);
}

const EtMethodRewrite _executorch_conv_fusion_rewrite = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "kernels:convolution-fusion",
  .rewrite = fuse_convolutions,
};
