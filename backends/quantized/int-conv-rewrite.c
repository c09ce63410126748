/* int-conv-rewrite.c: dequantize → float convolution becomes an integer convolution
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A PT2E statically quantized program that no partitioner delegated keeps
 * upstream's reference pattern at the top level:
 *
 *   dequantize_per_tensor(x) ─┐
 *   dequantize_per_channel(w) ┼→ convolution → (relu) → quantize_per_tensor
 *   float bias ───────────────┘
 *
 * (a linear likewise, as dequantize(w) → permute_copy → addmm or mm), and
 * running it as written dequantizes every weight on every run and
 * multiplies in float.  Where the pattern holds exactly, the two
 * dequantizations and the product get the integer kernels instead
 * (int-kernels-private.h), which compute the same float result from
 * integer products
 * (within float rounding: docs/quantized.md states the tolerance).
 *
 * Exactly means: both dequantizations are this library's kernels, the
 * product (and permute) the kernels the registry holds for their names
 * (not an earlier rewrite's replacement), the
 * weight is a constant int8 tensor quantized along axis 0 (or per tensor),
 * the input is int8 or uint8 with a Float result, each dequantized tensor
 * is read only by the convolution (not a method output, input, list item
 * or moved value), the staged data fits the float buffer it replaces, and
 * the convolution is 2-D, not transposed, with a constant Float bias or
 * none.  Anything else is left as the exporter wrote it.
 *
 * EXECUTORCH_QUANTIZED_REFERENCE=1 turns the rewrite off: every operator
 * then runs as upstream's reference kernels do, byte for byte.
 */
#include "int-kernels-private.h"

#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool
kernel_named (const EtKernel *kernel, const char *name)
{
  return kernel != NULL && strcmp (kernel->name, name) == 0;
}

/* True when @kernel is this library's own @name. */
static bool
own_kernel (const EtKernel *kernel, const char *name)
{
  if (!kernel_named (kernel, name))
    return false;
  for (size_t i = 0; i < _executorch_qk_quantize_n_kernels; i++)
    if (strcmp (_executorch_qk_quantize_kernels[i].name, name) == 0)
      return _executorch_qk_quantize_kernels[i].func == kernel->func;
  return false;
}

/* True when @kernel is what the registry resolves its name to: not a
 * replacement an earlier rewrite made (another library's fusion may keep
 * the operator's name for a kernel that also does the relu after it). */
static bool
registered (const EtKernel *kernel)
{
  const EtKernel *found;

  if (kernel == NULL)
    return false;
  found = et_registry_find_kernel (et_registry_get_default (), kernel->name);
  return found != NULL && found->func == kernel->func && found->user_data == kernel->user_data;
}

static const EtTensor *
tensor_of (const EtValue *value)
{
  return value != NULL && value->tag == ET_VALUE_TENSOR ? value->u.tensor : NULL;
}

static bool
is_none (const EtValue *value)
{
  return value != NULL && value->tag == ET_VALUE_NONE;
}

static bool
int_value (const EtValue *value, int64_t *out)
{
  if (value == NULL || value->tag != ET_VALUE_INT)
    return false;
  *out = value->u.int_value;
  return true;
}

/* The instruction whose out argument (@out_arg, with the return slot after
 * it) is @value and that is the only other instruction than @reader using
 * it, or -1.  Any other use disqualifies the site. */
static int64_t
sole_producer (EtMethodGraph *graph, const EtValue *value, uint32_t reader)
{
  uint32_t n = et_method_graph_n_instructions (graph);
  int64_t producer = -1;

  if (et_method_graph_value_is_pinned (graph, value))
    return -1;
  for (uint32_t index = 0; index < n; index++)
    {
      EtValue **args;
      uint32_t n_args;
      bool uses = false;

      args = et_method_graph_args (graph, index, &n_args);
      for (uint32_t i = 0; i < n_args; i++)
        uses |= args[i] == value;
      if (!uses || index == reader)
        continue;
      if (producer >= 0 || n_args < 2 || args[n_args - 1] != value || args[n_args - 2] != value)
        return -1;
      for (uint32_t i = 0; i + 2 < n_args; i++)
        if (args[i] == value)
          return -1;
      producer = index;
    }
  return producer;
}

/* The reader must use @value only as argument @arg. */
static bool
read_once_as (EtMethodGraph *graph, uint32_t reader, const EtValue *value, uint32_t arg)
{
  EtValue **args;
  uint32_t n_args;

  args = et_method_graph_args (graph, reader, &n_args);
  for (uint32_t i = 0; i < n_args; i++)
    if ((args[i] == value) != (i == arg))
      return false;
  return true;
}

static bool
float_out (const EtValue *out_dtype, const EtTensor *out)
{
  int64_t dtype;

  if (out->scalar_type != ET_SCALAR_FLOAT || !et_tensor_is_contiguous (out) ||
      (out->flags & ET_TENSOR_FLAG_CONSTANT) != 0)
    return false;
  return is_none (out_dtype) || (int_value (out_dtype, &dtype) && dtype == ET_SCALAR_FLOAT);
}

/* dequantize_per_tensor.out of an int8/uint8 activation into Float. */
static bool
is_input_dequantize (EtMethodGraph *graph, uint32_t index)
{
  const EtTensor *input, *out;
  EtValue **args;
  uint32_t n_args;
  int64_t dtype, zp, qmin, qmax;

  if (!own_kernel (et_method_graph_kernel (graph, index), "quantized_decomposed::dequantize_per_tensor.out"))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != 9 || (input = tensor_of (args[0])) == NULL || (out = tensor_of (args[7])) == NULL)
    return false;
  if ((args[1]->tag != ET_VALUE_DOUBLE && args[1]->tag != ET_VALUE_INT) || !int_value (args[2], &zp) ||
      !int_value (args[3], &qmin) || !int_value (args[4], &qmax) || !int_value (args[5], &dtype))
    return false;
  if (dtype != input->scalar_type || (dtype != ET_SCALAR_CHAR && dtype != ET_SCALAR_BYTE) || qmin > qmax)
    return false;
  /* (x - zero point) must fit int16 for the products */
  if (zp < -32767 + 255 || zp > 32767 - 255)
    return false;
  return float_out (args[6], out) && out->shape_dynamism == ET_SHAPE_STATIC && input->device_type == ET_DEVICE_CPU &&
         out->device_type == ET_DEVICE_CPU && out->nbytes >= _executorch_qk_staged_input_size (out->numel);
}

static bool
small_int_tensor (const EtTensor *t, int64_t numel)
{
  if (t == NULL || t->numel != numel || (t->flags & ET_TENSOR_FLAG_CONSTANT) == 0 || t->data == NULL ||
      !et_tensor_is_contiguous (t) || (t->scalar_type != ET_SCALAR_INT && t->scalar_type != ET_SCALAR_LONG))
    return false;
  for (int64_t i = 0; i < numel; i++)
    {
      int64_t zp = _executorch_qk_load_int (t->scalar_type, t->data, i);
      if (zp < -128 || zp > 127)
        return false;
    }
  return true;
}

/* dequantize_per_channel.out (axis 0) or dequantize_per_tensor.out of a
 * constant int8 weight into Float; returns the kernel that replaces it
 * once the product holds the weights (one that does nothing), or NULL. */
static const EtKernel *
weight_dequantize (EtMethodGraph *graph, uint32_t index, uint32_t ndim)
{
  const EtKernel *kernel = et_method_graph_kernel (graph, index);
  const EtTensor *w, *out, *scales;
  EtValue **args;
  uint32_t n_args;
  int64_t dtype, axis, zp, qmin, qmax;
  bool per_channel;

  if (own_kernel (kernel, "quantized_decomposed::dequantize_per_channel.out"))
    per_channel = true;
  else if (own_kernel (kernel, "quantized_decomposed::dequantize_per_tensor.out"))
    per_channel = false;
  else
    return NULL;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != (per_channel ? 10u : 9u) || (w = tensor_of (args[0])) == NULL ||
      (out = tensor_of (args[n_args - 2])) == NULL)
    return NULL;
  if (w->scalar_type != ET_SCALAR_CHAR || (w->flags & ET_TENSOR_FLAG_CONSTANT) == 0 || w->data == NULL ||
      w->ndim != ndim || !et_tensor_is_contiguous (w) || w->device_type != ET_DEVICE_CPU || w->sizes[0] <= 0)
    return NULL;
  if (per_channel)
    {
      if ((scales = tensor_of (args[1])) == NULL || (scales->flags & ET_TENSOR_FLAG_CONSTANT) == 0 ||
          scales->numel != w->sizes[0] ||
          (scales->scalar_type != ET_SCALAR_FLOAT && scales->scalar_type != ET_SCALAR_DOUBLE) ||
          !(is_none (args[2]) || small_int_tensor (tensor_of (args[2]), w->sizes[0])) || !int_value (args[3], &axis) ||
          axis != 0 || !int_value (args[4], &qmin) || !int_value (args[5], &qmax) || !int_value (args[6], &dtype))
        return NULL;
    }
  else if ((args[1]->tag != ET_VALUE_DOUBLE && args[1]->tag != ET_VALUE_INT) || !int_value (args[2], &zp) ||
           zp < -128 || zp > 127 || !int_value (args[3], &qmin) || !int_value (args[4], &qmax) ||
           !int_value (args[5], &dtype))
    return NULL;
  if (dtype != ET_SCALAR_CHAR || qmin > qmax || !float_out (args[n_args - 3], out) ||
      out->shape_dynamism != ET_SHAPE_STATIC || out->device_type != ET_DEVICE_CPU)
    return NULL;
  return per_channel ? &_executorch_qk_weight_packed_channel_kernel : &_executorch_qk_weight_packed_tensor_kernel;
}

/* aten::convolution.out, 2-D, not transposed, constant Float bias or none. */
static bool
is_plain_conv (EtMethodGraph *graph, uint32_t index)
{
  const EtTensor *bias, *out;
  EtValue **args;
  uint32_t n_args;

  if (!kernel_named (et_method_graph_kernel (graph, index), "aten::convolution.out") ||
      !registered (et_method_graph_kernel (graph, index)))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != 11 || args[9] != args[10] || (out = tensor_of (args[9])) == NULL)
    return false;
  if (args[6]->tag != ET_VALUE_BOOL || args[6]->u.bool_value)
    return false;
  if (!is_none (args[2]) && ((bias = tensor_of (args[2])) == NULL || (bias->flags & ET_TENSOR_FLAG_CONSTANT) == 0 ||
                             bias->scalar_type != ET_SCALAR_FLOAT || !et_tensor_is_contiguous (bias)))
    return false;
  return out->scalar_type == ET_SCALAR_FLOAT && out->ndim == 4 && out->device_type == ET_DEVICE_CPU;
}

static bool
is_one (const EtValue *value)
{
  return value != NULL && ((value->tag == ET_VALUE_INT && value->u.int_value == 1) ||
                           (value->tag == ET_VALUE_DOUBLE && value->u.double_value == 1.0));
}

/* addmm.out with beta = alpha = 1 and a constant Float bias, or mm.out;
 * *mat1 and *mat2 get their argument positions. */
static bool
is_plain_linear (EtMethodGraph *graph, uint32_t index, uint32_t *mat1, uint32_t *mat2)
{
  const EtKernel *kernel = et_method_graph_kernel (graph, index);
  const EtTensor *bias, *out;
  EtValue **args;
  uint32_t n_args;

  if (!registered (kernel))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (kernel_named (kernel, "aten::addmm.out") && n_args == 7 && args[5] == args[6] && is_one (args[3]) &&
      is_one (args[4]))
    {
      if (!is_none (args[0]) &&
          ((bias = tensor_of (args[0])) == NULL || (bias->flags & ET_TENSOR_FLAG_CONSTANT) == 0 ||
           bias->scalar_type != ET_SCALAR_FLOAT || bias->ndim != 1 || !et_tensor_is_contiguous (bias)))
        return false;
      *mat1 = 1, *mat2 = 2;
      out = tensor_of (args[5]);
    }
  else if (kernel_named (kernel, "aten::mm.out") && n_args == 4 && args[2] == args[3])
    {
      *mat1 = 0, *mat2 = 1;
      out = tensor_of (args[2]);
    }
  else
    return false;
  return out != NULL && out->scalar_type == ET_SCALAR_FLOAT && out->ndim == 2 && out->device_type == ET_DEVICE_CPU;
}

/* permute_copy.out (self, [1, 0], out, ret) of a 2-D Float tensor into a
 * static one that can hold the staged weight header of self's rows. */
static bool
is_weight_transpose (EtMethodGraph *graph, uint32_t index)
{
  const EtTensor *self, *out;
  const EtValueList *dims;
  EtValue **args;
  uint32_t n_args;

  if (!kernel_named (et_method_graph_kernel (graph, index), "aten::permute_copy.out") ||
      !registered (et_method_graph_kernel (graph, index)))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != 4 || args[1]->tag != ET_VALUE_LIST_INT || args[2] != args[3] || args[0] == args[2] ||
      (self = tensor_of (args[0])) == NULL || (out = tensor_of (args[2])) == NULL)
    return false;
  dims = &args[1]->u.list;
  if (dims->length != 2 || dims->items[0] == NULL || dims->items[1] == NULL || dims->items[0]->tag != ET_VALUE_INT ||
      dims->items[1]->tag != ET_VALUE_INT || dims->items[0]->u.int_value != 1 || dims->items[1]->u.int_value != 0)
    return false;
  return self->ndim == 2 && out->ndim == 2 && out->scalar_type == ET_SCALAR_FLOAT &&
         out->shape_dynamism == ET_SHAPE_STATIC && (out->flags & ET_TENSOR_FLAG_CONSTANT) == 0 &&
         out->device_type == ET_DEVICE_CPU && out->sizes[1] == self->sizes[0] && out->sizes[0] == self->sizes[1];
}

/* int32 sums cannot overflow: K products of |x - zp| and |w - w_zp| (at
 * most 255, as the weight check keeps its zero points in int8 range). */
static bool
sums_fit (EtMethodGraph *graph, uint32_t x_producer, int64_t k)
{
  EtValue **args;
  uint32_t n_args;
  int64_t zp;

  args = et_method_graph_args (graph, x_producer, &n_args);
  if (n_args < 3 || !int_value (args[2], &zp))
    return false;
  return k > 0 && (double) k * 255.0 * (double) (llabs (zp) + 255) < 2147483647.0;
}

/* The per-channel scales and zero points of weight dequantization
 * @w_producer (checked by weight_dequantize), as its float kernel reads
 * them. */
static bool
weight_qparams (EtMethodGraph *graph, uint32_t w_producer, int64_t n_channels, double *scales, int32_t *zps)
{
  EtValue **args;
  uint32_t n_args;

  args = et_method_graph_args (graph, w_producer, &n_args);
  if (n_args == 10)
    {
      const EtTensor *s = tensor_of (args[1]), *z = tensor_of (args[2]);
      for (int64_t ch = 0; ch < n_channels; ch++)
        {
          /* the reference dequantizes with the float scale */
          scales[ch] = _executorch_qk_load_float (s->scalar_type, s->data, ch);
          zps[ch] = z != NULL ? (int32_t) _executorch_qk_load_int (z->scalar_type, z->data, ch) : 0;
        }
      return true;
    }
  for (int64_t ch = 0; ch < n_channels; ch++)
    {
      scales[ch] = (float) (args[1]->tag == ET_VALUE_DOUBLE ? args[1]->u.double_value : (double) args[1]->u.int_value);
      zps[ch] = (int32_t) args[2]->u.int_value;
    }
  return true;
}

/* The convolution's kernel with its weights packed now, or NULL. */
static const EtKernel *
packed_conv (EtMethodGraph *graph, uint32_t w_producer, const EtTensor *w, EtValue *const *conv_args)
{
  int64_t n_channels = w->sizes[0];
  double *scales = g_new (double, n_channels);
  int32_t *zps = g_new (int32_t, n_channels);
  const EtKernel *kernel = NULL;

  if (weight_qparams (graph, w_producer, n_channels, scales, zps))
    kernel = _executorch_qk_int_conv_packed (graph, w, scales, zps, conv_args);
  g_free (scales);
  g_free (zps);
  return kernel;
}

/* The linear's kernel (addmm when @addmm, else mm) with its weights
 * copied now, or NULL. */
static const EtKernel *
packed_linear (EtMethodGraph *graph, uint32_t w_producer, bool addmm)
{
  uint32_t n_args;
  const EtTensor *w = tensor_of (et_method_graph_args (graph, w_producer, &n_args)[0]);
  int64_t n_channels = w->sizes[0];
  double *scales = g_new (double, n_channels);
  int32_t *zps = g_new (int32_t, n_channels);
  const EtKernel *kernel = NULL;

  if (weight_qparams (graph, w_producer, n_channels, scales, zps))
    kernel = _executorch_qk_int_linear_packed (graph, w, scales, zps, addmm);
  g_free (scales);
  g_free (zps);
  return kernel;
}

/* dequantize(x) → mat1, dequantize(w) → permute_copy → mat2 of addmm/mm. */
static void
rewrite_linear (EtMethodGraph *graph, uint32_t linear)
{
  const EtKernel *weight_nop;
  EtValue **args, **permute_args;
  uint32_t n_args, n_permute_args, mat1, mat2;
  int64_t x_producer, permute, w_producer;

  if (!is_plain_linear (graph, linear, &mat1, &mat2))
    return;
  args = et_method_graph_args (graph, linear, &n_args);
  if (args[mat1] == args[mat2] || !read_once_as (graph, linear, args[mat1], mat1) ||
      !read_once_as (graph, linear, args[mat2], mat2))
    return;
  x_producer = sole_producer (graph, args[mat1], linear);
  permute = sole_producer (graph, args[mat2], linear);
  if (x_producer < 0 || permute < 0 || x_producer >= linear || permute >= linear ||
      !is_input_dequantize (graph, (uint32_t) x_producer) || tensor_of (args[mat1])->ndim != 2 ||
      !is_weight_transpose (graph, (uint32_t) permute))
    return;
  permute_args = et_method_graph_args (graph, (uint32_t) permute, &n_permute_args);
  if (!read_once_as (graph, (uint32_t) permute, permute_args[0], 0))
    return;
  w_producer = sole_producer (graph, permute_args[0], (uint32_t) permute);
  if (w_producer < 0 || w_producer >= permute ||
      (weight_nop = weight_dequantize (graph, (uint32_t) w_producer, 2)) == NULL ||
      !sums_fit (graph, (uint32_t) x_producer, tensor_of (permute_args[0])->sizes[1]))
    return;
  const EtKernel *kernel = packed_linear (graph, (uint32_t) w_producer, mat1 == 1);
  if (kernel == NULL || et_method_graph_set_kernel (graph, linear, kernel) != ET_OK)
    return;
  et_method_graph_set_kernel (graph, (uint32_t) permute, &_executorch_qk_transpose_packed_kernel);
  et_method_graph_set_kernel (graph, (uint32_t) x_producer, &_executorch_qk_stage_input_kernel);
  et_method_graph_set_kernel (graph, (uint32_t) w_producer, weight_nop);
}

/* The instructions other than @producer that read @value (unpinned):
 * their number, the first two in @readers. */
static uint32_t
readers_of (EtMethodGraph *graph, const EtValue *value, uint32_t producer, uint32_t readers[2])
{
  uint32_t n = et_method_graph_n_instructions (graph), count = 0;

  if (et_method_graph_value_is_pinned (graph, value))
    return UINT32_MAX;
  for (uint32_t index = 0; index < n; index++)
    {
      EtValue **args;
      uint32_t n_args;
      bool uses = false;

      if (index == producer)
        continue;
      args = et_method_graph_args (graph, index, &n_args);
      for (uint32_t i = 0; i < n_args; i++)
        uses |= args[i] == value;
      if (uses && count < 2)
        readers[count] = index;
      count += uses;
    }
  return count;
}

/* The one instruction other than @producer that uses @value, using it
 * once, as argument @arg; or -1. */
static int64_t
sole_reader (EtMethodGraph *graph, const EtValue *value, uint32_t producer, uint32_t arg)
{
  uint32_t readers[2];

  if (readers_of (graph, value, producer, readers) != 1 || !read_once_as (graph, readers[0], value, arg))
    return -1;
  return readers[0];
}

/* A Float scalar argument as the float kernels read it, if finite. */
static bool
float_scalar (const EtValue *value, float *out)
{
  double v;

  if (value->tag == ET_VALUE_DOUBLE)
    v = value->u.double_value;
  else if (value->tag == ET_VALUE_INT && value->u.int_value >= -(1 << 24) && value->u.int_value <= (1 << 24))
    v = (double) value->u.int_value; /* exact in float, however it is converted */
  else
    return false;
  *out = (float) v;
  return isfinite (*out);
}

bool
_executorch_qk_bytes_fit (const EtTensor *t)
{
  return t != NULL && t->scalar_type == ET_SCALAR_FLOAT && t->shape_dynamism == ET_SHAPE_STATIC &&
         et_tensor_is_contiguous (t) && (t->flags & ET_TENSOR_FLAG_CONSTANT) == 0 && t->device_type == ET_DEVICE_CPU &&
         t->nbytes >= sizeof (StagedBytes) + (size_t) t->numel;
}

/* quantize_per_tensor.out of @value (numel elements) into contiguous
 * Char/Byte with in-range bounds: its arguments in *rq. */
static bool
is_final_quantize (EtMethodGraph *graph, uint32_t index, const EtTensor *value, QkRequant *rq)
{
  const EtTensor *out;
  EtValue **args;
  uint32_t n_args;
  int64_t zp, qmin, qmax, dtype;

  if (!own_kernel (et_method_graph_kernel (graph, index), "quantized_decomposed::quantize_per_tensor.out"))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != 8 || tensor_of (args[0]) != value || (out = tensor_of (args[6])) == NULL || args[6] != args[7] ||
      (args[1]->tag != ET_VALUE_DOUBLE && args[1]->tag != ET_VALUE_INT) || !int_value (args[2], &zp) ||
      !int_value (args[3], &qmin) || !int_value (args[4], &qmax) || !int_value (args[5], &dtype))
    return false;
  if (dtype != out->scalar_type || out->numel != value->numel || !et_tensor_is_contiguous (out) ||
      out->device_type != ET_DEVICE_CPU || (out->flags & ET_TENSOR_FLAG_CONSTANT) != 0 || qmin > qmax ||
      zp < INT32_MIN || zp > INT32_MAX)
    return false;
  if (!(dtype == ET_SCALAR_CHAR && qmin >= -128 && qmax <= 127) &&
      !(dtype == ET_SCALAR_BYTE && qmin >= 0 && qmax <= 255))
    return false;
  rq->scale = args[1]->tag == ET_VALUE_DOUBLE ? args[1]->u.double_value : (double) args[1]->u.int_value;
  rq->zero_point = (int32_t) zp;
  rq->qmin = qmin, rq->qmax = qmax;
  rq->is_signed = dtype == ET_SCALAR_CHAR;
  return true;
}

/* ---- Bytes read and written where they lie ----
 *
 * A hand-off between the rewritten kernels is a byte copy through a
 * staged float tensor, because an instruction may only touch its own
 * arguments' memory: the planner may have put a later result over memory
 * that is still in use.  Where the kernels of a chain run on consecutive
 * instructions, the memory plan is known now (planned tensors have their
 * data), so it can be checked instead: a kernel may write the chain's last
 * result, or read its first input, itself when no other memory the chain's
 * instructions touch overlaps it; the instructions in between then do
 * nothing. */

/* A planned, unpinned int8/uint8 tensor value of @numel contiguous
 * elements with its memory: one whose data stays where it is. */
static const EtTensor *
planned_bytes (EtMethodGraph *graph, const EtValue *value, int64_t numel)
{
  const EtTensor *t = tensor_of (value);

  if (t == NULL || et_method_graph_value_is_pinned (graph, value) || (t->flags & ET_TENSOR_FLAG_PLANNED) == 0 ||
      (t->flags & ET_TENSOR_FLAG_CONSTANT) != 0 || t->data == NULL || t->numel != numel || t->nbytes < (size_t) numel ||
      !et_tensor_is_contiguous (t) || t->device_type != ET_DEVICE_CPU ||
      (t->scalar_type != ET_SCALAR_CHAR && t->scalar_type != ET_SCALAR_BYTE))
    return NULL;
  return t;
}

static bool
memory_overlaps (const EtTensor *a, const EtTensor *b)
{
  uintptr_t a0 = (uintptr_t) a->data, b0 = (uintptr_t) b->data;

  return a->data != NULL && b->data != NULL && a0 < b0 + b->nbytes && b0 < a0 + a->nbytes;
}

/* Whether @value, a tensor or a list of them, shares memory with @t. */
static bool
value_overlaps (const EtValue *value, const EtTensor *t)
{
  if (value == NULL)
    return false;
  if (value->tag == ET_VALUE_TENSOR)
    return memory_overlaps (value->u.tensor, t);
  if (value->tag == ET_VALUE_LIST_TENSOR || value->tag == ET_VALUE_LIST_OPTIONAL_TENSOR)
    for (uint32_t i = 0; i < value->u.list.length; i++)
      if (value_overlaps (value->u.list.items[i], t))
        return true;
  return false;
}

/* Whether the convolution @conv may write @bytes: they share no memory
 * with what it reads while it writes.  Not the weight: the kernel packed
 * it at load and reads only its sizes (its dequantize does nothing
 * either); nor the input (staged, or the int8 bytes it reads itself) where
 * the kernel copies all of it into columns before it writes anything. */
static bool
conv_may_write (EtMethodGraph *graph, uint32_t conv, const EtTensor *bytes)
{
  uint32_t n_args;
  EtValue **args = et_method_graph_args (graph, conv, &n_args);
  const EtKernel *kernel = et_method_graph_kernel (graph, conv);
  bool input_read_first = _executorch_qk_int_conv_reads_input_first (kernel, args);
  EtValue **deq_args = _executorch_qk_int_conv_byte_input (kernel);

  /* reading the int8 bytes itself, it does not read its float input */
  for (uint32_t i = 0; i < 9; i++)
    if (i != 1 && !(i == 0 && (input_read_first || deq_args != NULL)) && value_overlaps (args[i], bytes))
      return false;
  return input_read_first || deq_args == NULL || !value_overlaps (deq_args[0], bytes);
}

/* convolution [int8, requantizing] → (activation) → quantize on
 * consecutive instructions: the convolution writes the quantize's result.
 * Between the two only the convolution touches memory, so that result
 * must share none with the memory the convolution reads; the staged float
 * out and the activation's are then written by nobody and read by
 * nobody. */
static void
conv_writes_bytes (EtMethodGraph *graph, uint32_t conv, int64_t act, uint32_t quantize)
{
  EtValue **args, **q_args;
  uint32_t n_args, n_q_args;
  const EtTensor *bytes;

  if (quantize != conv + (act >= 0 ? 2u : 1u) || (act >= 0 && act != conv + 1))
    return;
  args = et_method_graph_args (graph, conv, &n_args);
  q_args = et_method_graph_args (graph, quantize, &n_q_args);
  if (n_args != 11 || n_q_args != 8 || (bytes = planned_bytes (graph, q_args[6], tensor_of (args[9])->numel)) == NULL ||
      !conv_may_write (graph, conv, bytes))
    return;
  const EtKernel *q_nop = _executorch_qk_done_elsewhere_kernel_new (graph, "quantized_decomposed::quantize_per_tensor."
                                                                           "out [int8 by the convolution]");
  const EtKernel *act_kernel = act >= 0 ? et_method_graph_kernel (graph, (uint32_t) act) : NULL;
  const EtKernel *act_nop =
      act_kernel == NULL ? NULL
      : act_kernel == &_executorch_qk_pass_relu_kernel
          ? _executorch_qk_done_elsewhere_kernel_new (graph, "aten::relu.out [int8 in the convolution]")
          : _executorch_qk_done_elsewhere_kernel_new (graph, "aten::hardtanh.out [int8 in the convolution]");
  if (q_nop == NULL || (act >= 0 && act_nop == NULL) ||
      !_executorch_qk_int_conv_set_bytes_out (et_method_graph_kernel (graph, conv), q_args[6]))
    return;
  if (act >= 0)
    et_method_graph_set_kernel (graph, (uint32_t) act, act_nop);
  et_method_graph_set_kernel (graph, quantize, q_nop);
}

/* dequantize → (@n_between - 1 instructions that now do nothing) → table
 * → quantize on consecutive instructions, from @deq to @quantize: the table reads the
 * dequantize's int8 input and writes the quantize's result.  Only the
 * table touches memory in between, so the two must not partly overlap
 * (the same memory is a map in place: the planner only shares it when
 * nothing reads the input later).  Whether it does so. */
static bool
table_reads_bytes (EtMethodGraph *graph, uint32_t deq, uint32_t n_between, uint32_t table, uint32_t quantize,
                   const EtKernel *lut)
{
  EtValue **d_args, **q_args;
  uint32_t n_d_args, n_q_args;
  const EtTensor *in, *out;

  if (quantize != deq + 1 + n_between || table != quantize - 1)
    return false;
  d_args = et_method_graph_args (graph, deq, &n_d_args);
  q_args = et_method_graph_args (graph, quantize, &n_q_args);
  if (n_d_args != 9 || n_q_args != 8 || (in = tensor_of (d_args[0])) == NULL ||
      planned_bytes (graph, d_args[0], in->numel) == NULL ||
      (out = planned_bytes (graph, q_args[6], in->numel)) == NULL ||
      (memory_overlaps (in, out) && in->data != out->data))
    return false;
  const EtKernel *d_nop = _executorch_qk_done_elsewhere_kernel_new (graph, "quantized_decomposed::dequantize_per_"
                                                                           "tensor.out [int8 read by the table]");
  const EtKernel *q_nop =
      _executorch_qk_done_elsewhere_kernel_new (graph,
                                                "quantized_decomposed::quantize_per_tensor.out [int8 by the table]");
  if (d_nop == NULL || q_nop == NULL)
    return false;
  _executorch_qk_lut_kernel_set_bytes (lut, d_args[0], q_args[6]);
  et_method_graph_set_kernel (graph, deq, d_nop);
  et_method_graph_set_kernel (graph, quantize, q_nop);
  return true;
}

/* dequantize (staging) → convolution on consecutive instructions: the
 * convolution reads the dequantize's int8 input itself, which nothing can
 * have changed in between, where its form takes bytes (u8 x s8 columns,
 * whose offset the zero point must give, or depthwise), and what it writes
 * does not lie over them: it copies its input into columns before it
 * writes anything (but a staged result's header comes first), or else
 * its result shares no memory with them (checked again if the result
 * changes, conv_may_write).  Whether it does. */
static bool
conv_reads_bytes (EtMethodGraph *graph, uint32_t deq, uint32_t conv)
{
  EtValue **d_args, **args;
  uint32_t n_d_args, n_args;
  const EtTensor *in;
  int64_t zp;

  if (conv != deq + 1)
    return false;
  d_args = et_method_graph_args (graph, deq, &n_d_args);
  args = et_method_graph_args (graph, conv, &n_args);
  const EtKernel *kernel = et_method_graph_kernel (graph, conv);
  const EtValue *bytes_out = _executorch_qk_int_conv_bytes_out (kernel);
  if (n_d_args != 9 || n_args != 11 || (in = tensor_of (d_args[0])) == NULL || !int_value (d_args[2], &zp) ||
      !(in->scalar_type == ET_SCALAR_CHAR ? zp >= -128 && zp <= 127 : zp >= 0 && zp <= 255))
    return false;
  bool in_place = false;
  if (_executorch_qk_int_conv_reads_input_first (kernel, args))
    {
      if (bytes_out == NULL && value_overlaps (args[9], in))
        return false;
    }
  /* what the convolution writes: its bytes, else its float result */
  else if (bytes_out != NULL ? value_overlaps (bytes_out, in) : value_overlaps (args[9], in))
    {
      /* a depthwise result exactly over its input, channel for channel */
      const EtTensor *out = tensor_of (bytes_out);
      if (out == NULL || out->data != in->data || out->numel != in->numel)
        return false;
      in_place = true;
    }
  const EtKernel *d_nop = _executorch_qk_done_elsewhere_kernel_new (graph, "quantized_decomposed::dequantize_per_"
                                                                           "tensor.out [int8 read by the convolution]");
  if (d_nop == NULL || !_executorch_qk_int_conv_set_byte_input (kernel, args, d_args, in_place))
    return false;
  et_method_graph_set_kernel (graph, deq, d_nop);
  return true;
}

/* convolution [writing bytes] → (activation, quantize: nothing left to
 * do) → dequantize → table that is a clamp → quantize on consecutive
 * instructions, where the table reads and writes the bytes themselves
 * (table_reads_bytes): the convolution writes the last quantize's result,
 * with the clamp in its bounds, if nothing else reads its own.  As in
 * conv_writes_bytes, only the convolution touches memory in between. */
static void
conv_folds_clamp (EtMethodGraph *graph, uint32_t deq, uint32_t table, uint32_t quantize, const EtKernel *lut,
                  const char *table_nop_name)
{
  EtValue **d_args, **q_args;
  uint32_t n_d_args, n_q_args, readers[2];
  const EtKernel *conv_kernel = NULL;
  const EtTensor *bytes;
  uint32_t conv = 0;
  bool is_signed;
  int lo, hi;

  if (deq < 2 || table != deq + 1 || quantize != deq + 2 ||
      !_executorch_qk_lut_kernel_clamp (lut, &is_signed, &lo, &hi))
    return;
  d_args = et_method_graph_args (graph, deq, &n_d_args);
  q_args = et_method_graph_args (graph, quantize, &n_q_args);
  /* the convolution's quantize is deq - 1, after its activation if any */
  for (uint32_t back = 2; back <= 3 && back <= deq && conv_kernel == NULL; back++)
    if (_executorch_qk_int_conv_bytes_out (et_method_graph_kernel (graph, deq - back)) == d_args[0])
      conv_kernel = et_method_graph_kernel (graph, conv = deq - back);
  if (conv_kernel == NULL || readers_of (graph, d_args[0], deq - 1, readers) != 1 || readers[0] != deq)
    return;
  if ((bytes = planned_bytes (graph, q_args[6], tensor_of (d_args[0])->numel)) == NULL ||
      !conv_may_write (graph, conv, bytes))
    return;
  const EtKernel *d_nop = _executorch_qk_done_elsewhere_kernel_new (graph, "quantized_decomposed::dequantize_per_"
                                                                           "tensor.out [int8 in the convolution]");
  const EtKernel *t_nop = _executorch_qk_done_elsewhere_kernel_new (graph, table_nop_name);
  const EtKernel *q_nop = _executorch_qk_done_elsewhere_kernel_new (graph, "quantized_decomposed::quantize_per_tensor."
                                                                           "out [int8 by the convolution]");
  if (d_nop == NULL || t_nop == NULL || q_nop == NULL ||
      !_executorch_qk_int_conv_fold_clamp (conv_kernel, d_args[0], q_args[6], is_signed, lo, hi))
    return;
  et_method_graph_set_kernel (graph, deq, d_nop);
  et_method_graph_set_kernel (graph, table, t_nop);
  et_method_graph_set_kernel (graph, quantize, q_nop);
}

/* convolution [int8] → (relu | hardtanh) → quantize_per_tensor, each
 * result read only by the next: the convolution quantizes, the others
 * pass its bytes along. */
static void
rewrite_requantize (EtMethodGraph *graph, uint32_t conv)
{
  const EtKernel *kernel = et_method_graph_kernel (graph, conv), *act_kernel;
  const EtTensor *conv_out, *bias, *act_out = NULL;
  EtValue **args, **act_args;
  uint32_t n_args, n_act_args;
  int64_t next, quantize;
  QkRequant rq = { .lo = -INFINITY, .hi = INFINITY };

  args = et_method_graph_args (graph, conv, &n_args);
  if (n_args != 11 || !_executorch_qk_bytes_fit (conv_out = tensor_of (args[9])))
    return;
  /* a NaN or infinite bias is left to the float path's own handling */
  if ((bias = tensor_of (args[2])) != NULL)
    for (int64_t i = 0; i < bias->numel; i++)
      if (!isfinite (((const float *) bias->data)[i]))
        return;
  if ((next = sole_reader (graph, args[9], conv, 0)) < 0)
    return;
  act_kernel = et_method_graph_kernel (graph, (uint32_t) next);
  act_args = et_method_graph_args (graph, (uint32_t) next, &n_act_args);
  if (registered (act_kernel) && kernel_named (act_kernel, "aten::relu.out") && n_act_args == 3 &&
      act_args[1] == act_args[2])
    rq.lo = 0.0f;
  else if (registered (act_kernel) && kernel_named (act_kernel, "aten::hardtanh.out") && n_act_args == 5 &&
           act_args[3] == act_args[4] && float_scalar (act_args[1], &rq.lo) && float_scalar (act_args[2], &rq.hi) &&
           rq.lo <= rq.hi)
    ;
  else
    act_kernel = NULL;
  if (act_kernel != NULL)
    {
      act_out = tensor_of (act_args[n_act_args - 2]);
      if (!_executorch_qk_bytes_fit (act_out) || act_out->numel != conv_out->numel ||
          act_args[0] == act_args[n_act_args - 2] ||
          (quantize = sole_reader (graph, act_args[n_act_args - 2], (uint32_t) next, 0)) < 0 ||
          !is_final_quantize (graph, (uint32_t) quantize, act_out, &rq))
        return;
    }
  else if (!is_final_quantize (graph, (uint32_t) (quantize = next), conv_out, &rq))
    return;
  if (!_executorch_qk_int_conv_set_requant (kernel, &rq))
    return;
  if (act_kernel != NULL)
    et_method_graph_set_kernel (graph, (uint32_t) next,
                                kernel_named (act_kernel, "aten::relu.out") ? &_executorch_qk_pass_relu_kernel
                                                                            : &_executorch_qk_pass_hardtanh_kernel);
  et_method_graph_set_kernel (graph, (uint32_t) quantize, &_executorch_qk_unstage_bytes_kernel);
  conv_writes_bytes (graph, conv, act_kernel != NULL ? next : -1, (uint32_t) quantize);
}

/* A dequantize_per_tensor of ours from a contiguous int8/uint8 CPU tensor
 * into a float tensor of as many elements, with a zero point the float
 * steps hold exactly: its arguments, input, output, zero point and input
 * type; or false. */
static bool
byte_dequantize (EtMethodGraph *graph, uint32_t deq, EtValue ***args_out, const EtTensor **input_out,
                 const EtTensor **deq_out_out, int64_t *zp, int64_t *dtype)
{
  const EtTensor *input, *deq_out;
  EtValue **args;
  uint32_t n_args;

  if (!own_kernel (et_method_graph_kernel (graph, deq), "quantized_decomposed::dequantize_per_tensor.out"))
    return false;
  args = et_method_graph_args (graph, deq, &n_args);
  if (n_args != 9 || (input = tensor_of (args[0])) == NULL ||
      !_executorch_qk_bytes_fit (deq_out = tensor_of (args[7])) || args[7] != args[8] ||
      deq_out->numel != input->numel || !et_tensor_is_contiguous (input) || input->device_type != ET_DEVICE_CPU ||
      (args[1]->tag != ET_VALUE_DOUBLE && args[1]->tag != ET_VALUE_INT) || !int_value (args[2], zp) ||
      !int_value (args[5], dtype) || *dtype != input->scalar_type ||
      (*dtype != ET_SCALAR_CHAR && *dtype != ET_SCALAR_BYTE) || *zp < -(1 << 24) || *zp > (1 << 24) ||
      !float_out (args[6], deq_out))
    return false;
  *args_out = args;
  *input_out = input;
  *deq_out_out = deq_out;
  return true;
}

/* dequantize_per_tensor → relu | hardtanh | sigmoid → quantize_per_tensor
 * of one int8/uint8 tensor, each result read only by the next: 256
 * possible inputs, so the three become a byte copy, a table computed now
 * with the same float steps, and a byte copy. */
static void
rewrite_activation_table (EtMethodGraph *graph, uint32_t deq)
{
  const EtTensor *input, *deq_out, *act_out;
  const EtKernel *act_kernel, *lut;
  EtValue **args, **act_args;
  uint32_t n_act_args;
  int64_t zp, dtype, act, quantize;
  QkRequant rq = { .lo = -INFINITY, .hi = INFINITY };
  uint8_t table[256];
  bool relu, sigmoid;

  if (!byte_dequantize (graph, deq, &args, &input, &deq_out, &zp, &dtype))
    return;
  if ((act = sole_reader (graph, args[7], deq, 0)) < 0)
    return;
  act_kernel = et_method_graph_kernel (graph, (uint32_t) act);
  act_args = et_method_graph_args (graph, (uint32_t) act, &n_act_args);
  relu = registered (act_kernel) && kernel_named (act_kernel, "aten::relu.out") && n_act_args == 3;
  sigmoid = registered (act_kernel) && kernel_named (act_kernel, "aten::sigmoid.out") && n_act_args == 3;
  if (!relu && !sigmoid &&
      !(registered (act_kernel) && kernel_named (act_kernel, "aten::hardtanh.out") && n_act_args == 5 &&
        float_scalar (act_args[1], &rq.lo) && float_scalar (act_args[2], &rq.hi) && rq.lo <= rq.hi))
    return;
  if (relu)
    rq.lo = 0.0f;
  act_out = tensor_of (act_args[n_act_args - 2]);
  if (act_args[n_act_args - 2] != act_args[n_act_args - 1] || act_args[0] == act_args[n_act_args - 2] ||
      !_executorch_qk_bytes_fit (act_out) || act_out->numel != input->numel ||
      (quantize = sole_reader (graph, act_args[n_act_args - 2], (uint32_t) act, 0)) < 0 ||
      !is_final_quantize (graph, (uint32_t) quantize, act_out, &rq))
    return;
  /* the float steps of dequantize (int8-fast.c), the activation and the
   * quantize, once per possible byte */
  float scale = (float) (args[1]->tag == ET_VALUE_DOUBLE ? args[1]->u.double_value : (double) args[1]->u.int_value);
  for (int b = 0; b < 256; b++)
    {
      int32_t x = dtype == ET_SCALAR_CHAR ? (int32_t) (int8_t) b : b;
      float v = (float) (x - (int32_t) zp) * scale;
      if (sigmoid)
        /* rounded once from double: the float kernels' own sigmoid may
         * differ in the last bit, which moves a quantized value by at
         * most one unit at a rounding tie (docs/quantized.md) */
        v = (float) (1.0 / (1.0 + exp (-(double) v)));
      v = v < rq.lo ? rq.lo : v;
      v = v > rq.hi ? rq.hi : v;
      _executorch_qk_quantize_float_to_8bit (&v, &table[b], rq.is_signed, 1, rq.scale, rq.zero_point, rq.qmin, rq.qmax);
    }
  const char *name = relu      ? "aten::relu.out [int8 table]"
                     : sigmoid ? "aten::sigmoid.out [int8 table]"
                               : "aten::hardtanh.out [int8 table]";
  lut = _executorch_qk_lut_kernel_new (graph, name, 0, table, rq.is_signed == (dtype == ET_SCALAR_CHAR), rq.is_signed);
  if (lut == NULL || et_method_graph_set_kernel (graph, (uint32_t) act, lut) != ET_OK)
    return;
  et_method_graph_set_kernel (graph, deq, &_executorch_qk_stage_bytes_kernel);
  et_method_graph_set_kernel (graph, (uint32_t) quantize, &_executorch_qk_unstage_bytes_kernel);
  if (table_reads_bytes (graph, deq, 1, (uint32_t) act, (uint32_t) quantize, lut))
    conv_folds_clamp (graph, deq, (uint32_t) act, (uint32_t) quantize, lut,
                      relu ? "aten::relu.out [int8 in the convolution]"
                           : "aten::hardtanh.out [int8 in the convolution]");
}

/* dequantize_per_tensor → sigmoid.out (x, out = s) and mul.out (x, s, out
 * = y) → quantize_per_tensor (y): SiLU as torch.export decomposes it
 * (EfficientNet has one after almost every convolution), x read by the
 * two alone and s by the multiply alone.  As with the other activations,
 * 256 possible inputs: the multiply maps the staged bytes through a table
 * computed now, the sigmoid does nothing.  Any kernels of those names are
 * taken over: libexecutorch-kernels may have fused the two into its own
 * SiLU on the sigmoid, which writes only y, and the other operands are
 * checked to be read by nobody else. */
static void
rewrite_silu_table (EtMethodGraph *graph, uint32_t deq)
{
  const EtTensor *input, *deq_out, *y;
  const EtKernel *lut;
  EtValue **args, **sig, **mul;
  uint32_t n_sig, n_mul, readers[2], s_arg;
  int64_t zp, dtype, quantize;
  QkRequant rq = { .lo = -INFINITY, .hi = INFINITY };
  uint8_t table[256];

  if (!byte_dequantize (graph, deq, &args, &input, &deq_out, &zp, &dtype) ||
      readers_of (graph, args[7], deq, readers) != 2)
    return;
  if (!kernel_named (et_method_graph_kernel (graph, readers[0]), "aten::sigmoid.out") ||
      !kernel_named (et_method_graph_kernel (graph, readers[1]), "aten::mul.out"))
    return;
  sig = et_method_graph_args (graph, readers[0], &n_sig);
  mul = et_method_graph_args (graph, readers[1], &n_mul);
  /* sigmoid.out (self, out, ret); mul.out (self, other, out, ret) */
  if (n_sig != 3 || n_mul != 4 || sig[0] != args[7] || sig[1] != sig[2] || sig[1] == args[7] || mul[2] != mul[3])
    return;
  if (mul[0] == args[7] && mul[1] == sig[1])
    s_arg = 1;
  else if (mul[1] == args[7] && mul[0] == sig[1])
    s_arg = 0;
  else
    return;
  y = tensor_of (mul[2]);
  if (mul[2] == args[7] || mul[2] == sig[1] || !_executorch_qk_bytes_fit (y) || y->numel != input->numel ||
      sole_reader (graph, sig[1], readers[0], s_arg) != (int64_t) readers[1] ||
      (quantize = sole_reader (graph, mul[2], readers[1], 0)) < 0 ||
      !is_final_quantize (graph, (uint32_t) quantize, y, &rq))
    return;
  /* the float steps once per possible byte: dequantize (int8-fast.c), the
   * sigmoid rounded once from double (as for the sigmoid table), the
   * float product, the quantize */
  float scale = (float) (args[1]->tag == ET_VALUE_DOUBLE ? args[1]->u.double_value : (double) args[1]->u.int_value);
  for (int b = 0; b < 256; b++)
    {
      int32_t x = dtype == ET_SCALAR_CHAR ? (int32_t) (int8_t) b : b;
      float v = (float) (x - (int32_t) zp) * scale;
      float gate = (float) (1.0 / (1.0 + exp (-(double) v)));
      float product = v * gate;
      _executorch_qk_quantize_float_to_8bit (&product, &table[b], rq.is_signed, 1, rq.scale, rq.zero_point, rq.qmin,
                                             rq.qmax);
    }
  lut = _executorch_qk_lut_kernel_new (graph, "aten::mul.out [int8 SiLU table]", 1 - s_arg, table,
                                       rq.is_signed == (dtype == ET_SCALAR_CHAR), rq.is_signed);
  if (lut == NULL || et_method_graph_set_kernel (graph, readers[1], lut) != ET_OK)
    return;
  et_method_graph_set_kernel (graph, readers[0], &_executorch_qk_silu_sigmoid_kernel);
  et_method_graph_set_kernel (graph, deq, &_executorch_qk_stage_bytes_kernel);
  et_method_graph_set_kernel (graph, (uint32_t) quantize, &_executorch_qk_unstage_bytes_kernel);
  if (readers[0] == deq + 1)
    table_reads_bytes (graph, deq, 2, readers[1], (uint32_t) quantize, lut);
}

/* A kernel_size / stride / padding / dilation list of max_pool2d: one or
 * two ints (one repeated), or empty for @fallback. */
static bool
pool_pair (const EtValue *v, const int64_t *fallback, int64_t out[2])
{
  if (v->tag != ET_VALUE_LIST_INT || v->u.list.length > 2)
    return false;
  if (v->u.list.length == 0)
    {
      if (fallback == NULL)
        return false;
      out[0] = fallback[0], out[1] = fallback[1];
      return true;
    }
  for (uint32_t i = 0; i < 2; i++)
    {
      const EtValue *item = v->u.list.items[v->u.list.length == 1 ? 0 : i];
      if (item == NULL || item->tag != ET_VALUE_INT)
        return false;
      out[i] = item->u.int_value;
    }
  return true;
}

/* The portable kernel's output size of one dimension. */
static int64_t
pool_out_size (int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode)
{
  int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), o;

  if (num < 0)
    return -1;
  o = num / s + 1;
  if (ceil_mode && o > 0 && (o - 1) * s >= in + p)
    o--;
  return o;
}

/* Used by no instruction but @user (and not pinned). */
static bool
only_used_by (EtMethodGraph *graph, const EtValue *value, uint32_t user)
{
  uint32_t n = et_method_graph_n_instructions (graph);

  if (et_method_graph_value_is_pinned (graph, value))
    return false;
  for (uint32_t index = 0; index < n; index++)
    {
      EtValue **args;
      uint32_t n_args;
      if (index == user)
        continue;
      args = et_method_graph_args (graph, index, &n_args);
      for (uint32_t i = 0; i < n_args; i++)
        if (args[i] == value)
          return false;
    }
  return true;
}

/* dequantize_per_tensor → max_pool2d_with_indices → quantize_per_tensor
 * of an int8/uint8 4-D tensor, the indices unread: a byte copy, the max
 * over bytes through a table (int-pool.c), a byte copy. */
static void
rewrite_max_pool (EtMethodGraph *graph, uint32_t deq)
{
  const EtTensor *input, *deq_out, *pool_out, *indices;
  const EtKernel *pool_kernel, *kernel;
  EtValue **args, **pool_args;
  uint32_t n_pool_args;
  int64_t zp, dtype, pool, quantize, k[2], s[2], p[2], d[2], one[2] = { 1, 1 }, zero[2] = { 0, 0 };
  QkRequant rq = { .lo = -INFINITY, .hi = INFINITY };
  uint8_t table[256];

  if (!byte_dequantize (graph, deq, &args, &input, &deq_out, &zp, &dtype) || input->ndim != 4)
    return;
  double deq_scale = args[1]->tag == ET_VALUE_DOUBLE ? args[1]->u.double_value : (double) args[1]->u.int_value;
  /* increasing in the byte only with a positive scale */
  if (!((float) deq_scale > 0.0f) || (pool = sole_reader (graph, args[7], deq, 0)) < 0)
    return;
  pool_kernel = et_method_graph_kernel (graph, (uint32_t) pool);
  pool_args = et_method_graph_args (graph, (uint32_t) pool, &n_pool_args);
  /* Any kernel of that name: libexecutorch-kernels' own rewrite may have
   * given it one that skips the unread indices.  Taking it over is safe
   * whatever that kernel does beyond the pool: a fusion of more work into
   * it would have emptied another instruction, and the only others that
   * touch its operands are the dequantize and quantize around it (checked
   * to be this library's own kernels, unchanged) and no reader of the
   * indices (checked below). */
  if (!kernel_named (pool_kernel, "aten::max_pool2d_with_indices.out") || n_pool_args != 9 ||
      pool_args[5]->tag != ET_VALUE_BOOL || !pool_pair (pool_args[1], NULL, k) || !pool_pair (pool_args[2], k, s) ||
      !pool_pair (pool_args[3], zero, p) || !pool_pair (pool_args[4], one, d) ||
      (pool_out = tensor_of (pool_args[6])) == NULL || (indices = tensor_of (pool_args[7])) == NULL ||
      pool_args[6] == pool_args[7] || !_executorch_qk_bytes_fit (pool_out) || pool_out->ndim != 4 ||
      pool_out->sizes[0] != input->sizes[0] || pool_out->sizes[1] != input->sizes[1] ||
      !only_used_by (graph, pool_args[7], (uint32_t) pool))
    return;
  for (int i = 0; i < 2; i++)
    if (k[i] <= 0 || s[i] <= 0 || d[i] <= 0 || k[i] > 64 || s[i] > 64 || d[i] > 64 || p[i] < 0 || p[i] > k[i] / 2 ||
        pool_out->sizes[2 + i] !=
            pool_out_size (input->sizes[2 + i], k[i], s[i], p[i], d[i], pool_args[5]->u.bool_value))
      return;
  /* the ret slot may restate out and indices as a list: its only other use */
  if ((quantize = sole_reader (graph, pool_args[6], (uint32_t) pool, 0)) < 0 ||
      !is_final_quantize (graph, (uint32_t) quantize, pool_out, &rq))
    return;
  float scale = (float) deq_scale;
  for (int b = 0; b < 256; b++)
    {
      int32_t x = dtype == ET_SCALAR_CHAR ? (int32_t) (int8_t) b : b;
      float v = (float) (x - (int32_t) zp) * scale;
      _executorch_qk_quantize_float_to_8bit (&v, &table[b], rq.is_signed, 1, rq.scale, rq.zero_point, rq.qmin, rq.qmax);
    }
  kernel = _executorch_qk_pool_kernel_new (graph, table, dtype == ET_SCALAR_CHAR, k, s, p, d, input->sizes[2],
                                           input->sizes[3], pool_out->sizes[2], pool_out->sizes[3]);
  if (kernel == NULL || et_method_graph_set_kernel (graph, (uint32_t) pool, kernel) != ET_OK)
    return;
  et_method_graph_set_kernel (graph, deq, &_executorch_qk_stage_bytes_kernel);
  et_method_graph_set_kernel (graph, (uint32_t) quantize, &_executorch_qk_unstage_bytes_kernel);
}

/* How many instructions use @value, and whether each of them uses it once. */
static uint32_t
count_uses (EtMethodGraph *graph, const EtValue *value, bool *each_once)
{
  uint32_t n = et_method_graph_n_instructions (graph), users = 0;

  *each_once = true;
  for (uint32_t index = 0; index < n; index++)
    {
      EtValue **args;
      uint32_t n_args, times = 0;
      args = et_method_graph_args (graph, index, &n_args);
      for (uint32_t i = 0; i < n_args; i++)
        times += args[i] == value;
      users += times > 0;
      *each_once &= times <= 1;
    }
  return users;
}

/* Whether a tensor argument of instruction @index (lists' items too)
 * other than @except may lie in [lo, hi). */
static bool
touches (EtMethodGraph *graph, uint32_t index, const char *lo, const char *hi, const EtValue *except)
{
  EtValue **args;
  uint32_t n_args;

  args = et_method_graph_args (graph, index, &n_args);
  for (uint32_t i = 0; i < n_args; i++)
    {
      EtValue *const *items = &args[i];
      uint32_t n_items = 1;
      if (args[i] == except)
        continue;
      if (args[i]->tag == ET_VALUE_LIST_TENSOR || args[i]->tag == ET_VALUE_LIST_OPTIONAL_TENSOR)
        items = args[i]->u.list.items, n_items = args[i]->u.list.length;
      for (uint32_t j = 0; j < n_items; j++)
        {
          const EtTensor *t = items[j] != NULL ? tensor_of (items[j]) : NULL;
          if (t == NULL)
            continue;
          if (t->data == NULL || ((const char *) t->data < hi && (const char *) t->data + t->nbytes > lo))
            return true;
        }
    }
  return false;
}

/* The instruction after @producer that reads @value, the float result
 * @producer wrote, as its argument 0, and what it reads: @value itself
 * where it is the value's only reader, or a view of it: a value no
 * instruction writes, of the same memory, numel and type, read there
 * only, with no instruction between touching that memory (a view the
 * exporter removed leaves such an alias in the memory plan). */
static int64_t
chain_reader (EtMethodGraph *graph, uint32_t producer, EtValue *value, EtValue **read_as)
{
  const EtTensor *t = tensor_of (value), *alias;
  uint32_t n = et_method_graph_n_instructions (graph);
  int64_t reader;
  bool once;

  if (t == NULL || et_method_graph_value_is_pinned (graph, value))
    return -1;
  if ((reader = sole_reader (graph, value, producer, 0)) >= 0)
    {
      *read_as = value;
      return reader > producer ? reader : -1;
    }
  if (count_uses (graph, value, &once) != 1 || t->data == NULL || (t->flags & ET_TENSOR_FLAG_PLANNED) == 0)
    return -1;
  const char *lo = t->data, *hi = lo + t->nbytes;
  /* a view is read soon after its base is written */
  for (uint32_t index = producer + 1; index < n && index <= producer + 8; index++)
    {
      EtValue **args;
      uint32_t n_args;
      if (et_method_graph_kernel (graph, index) == NULL)
        return -1;
      args = et_method_graph_args (graph, index, &n_args);
      if (n_args > 0 && args[0] != value && (alias = tensor_of (args[0])) != NULL && alias->data == t->data)
        {
          if (alias->scalar_type != ET_SCALAR_FLOAT || alias->numel != t->numel || alias->nbytes != t->nbytes ||
              !et_tensor_is_contiguous (alias) || alias->shape_dynamism != ET_SHAPE_STATIC ||
              (alias->flags & ET_TENSOR_FLAG_PLANNED) == 0 || et_method_graph_value_is_pinned (graph, args[0]) ||
              count_uses (graph, args[0], &once) != 1 || !once || touches (graph, index, lo, hi, args[0]))
            return -1;
          *read_as = args[0];
          return index;
        }
      if (touches (graph, index, lo, hi, NULL))
        return -1;
    }
  return -1;
}

/* permute_copy.out (self, dims, out, ret) of @self into a contiguous
 * Float out that can hold its bytes; its out in *out. */
static bool
is_byte_permute (EtMethodGraph *graph, uint32_t index, const EtValue *self, EtValue **out)
{
  const EtKernel *kernel = et_method_graph_kernel (graph, index);
  const EtTensor *in = tensor_of (self), *o;
  EtValue **args;
  uint32_t n_args;
  bool seen[ET_MAX_DIMS] = { false };

  if (!kernel_named (kernel, "aten::permute_copy.out") || !registered (kernel))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != 4 || args[0] != self || args[2] != args[3] || args[0] == args[2] ||
      !_executorch_qk_bytes_fit (o = tensor_of (args[2])) || args[1]->tag != ET_VALUE_LIST_INT ||
      args[1]->u.list.length != in->ndim || o->ndim != in->ndim || o->numel != in->numel || in->ndim > ET_MAX_DIMS)
    return false;
  for (uint32_t i = 0; i < in->ndim; i++)
    {
      const EtValue *item = args[1]->u.list.items[i];
      int64_t d = item != NULL && item->tag == ET_VALUE_INT ? item->u.int_value : -1;
      if (d < 0)
        d += in->ndim;
      if (d < 0 || d >= (int64_t) in->ndim || seen[d] || o->sizes[i] != in->sizes[d])
        return false;
      seen[d] = true;
    }
  *out = args[2];
  return true;
}

/* _clone_dim_order.out (self, non_blocking, dim_order, out, ret) of
 * @self into a contiguous Float out of its shape; its out in *out. */
static bool
is_byte_clone (EtMethodGraph *graph, uint32_t index, const EtValue *self, EtValue **out)
{
  const EtKernel *kernel = et_method_graph_kernel (graph, index);
  const EtTensor *in = tensor_of (self), *o;
  EtValue **args;
  uint32_t n_args;

  if (!kernel_named (kernel, "dim_order_ops::_clone_dim_order.out") || !registered (kernel))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != 5 || args[0] != self || args[3] != args[4] || args[0] == args[3] ||
      !_executorch_qk_bytes_fit (o = tensor_of (args[3])) || o->ndim != in->ndim || o->numel != in->numel)
    return false;
  for (uint32_t i = 0; i < in->ndim; i++)
    if (o->sizes[i] != in->sizes[i])
      return false;
  if (args[2]->tag == ET_VALUE_LIST_INT)
    {
      if (args[2]->u.list.length != in->ndim)
        return false;
      for (uint32_t i = 0; i < in->ndim; i++)
        {
          const EtValue *item = args[2]->u.list.items[i];
          if (item == NULL || item->tag != ET_VALUE_INT || item->u.int_value != (int64_t) i)
            return false;
        }
    }
  else if (!is_none (args[2]))
    return false;
  *out = args[3];
  return true;
}

#define MAX_BYTE_MOVES 16

/* dequantize_per_tensor of an int8/uint8 tensor → permute_copy | clone
 * | views … → quantize_per_tensor, each value read only by the next,
 * the quantize giving every byte back: the values only move, so the
 * chain runs on the bytes, staged in the planned float buffers
 * (int-move.c).  A split into quantizes may end the chain instead
 * (int-cat.c). */
static void
rewrite_byte_moves (EtMethodGraph *graph, uint32_t deq)
{
  const EtTensor *input, *deq_out;
  const EtKernel *move_kernels[MAX_BYTE_MOVES], *split = NULL;
  EtValue **args, *value, *read_as;
  uint32_t at = deq, moves[MAX_BYTE_MOVES], n_moves = 0;
  int64_t zp, dtype, next;
  QkRequant rq = { .lo = -INFINITY, .hi = INFINITY };

  if (!byte_dequantize (graph, deq, &args, &input, &deq_out, &zp, &dtype))
    return;
  float scale = (float) (args[1]->tag == ET_VALUE_DOUBLE ? args[1]->u.double_value : (double) args[1]->u.int_value);
  QkByteSource source = { scale, (int32_t) zp, dtype == ET_SCALAR_CHAR };
  value = args[7];
  for (;;)
    {
      EtValue *out = NULL;
      if ((next = chain_reader (graph, at, value, &read_as)) < 0)
        return;
      if (is_final_quantize (graph, (uint32_t) next, tensor_of (read_as), &rq))
        break;
      if (n_moves == MAX_BYTE_MOVES)
        return;
      if (is_byte_permute (graph, (uint32_t) next, read_as, &out))
        move_kernels[n_moves] = &_executorch_qk_permute_bytes_kernel;
      else if (is_byte_clone (graph, (uint32_t) next, read_as, &out))
        move_kernels[n_moves] = &_executorch_qk_clone_bytes_kernel;
      else if ((split = _executorch_qk_byte_split_kernel (graph, (uint32_t) next, read_as, &source)) != NULL)
        break; /* into quantizes: the chain's other end (int-cat.c) */
      else
        return;
      moves[n_moves++] = (uint32_t) next;
      at = (uint32_t) next;
      value = out;
    }
  /* the float steps of dequantize (int8-fast.c) and quantize, once per
   * possible byte: the chain only moves bytes when they give each byte
   * back (the same arguments, or clamps no byte reaches) */
  if (split == NULL && rq.is_signed != (dtype == ET_SCALAR_CHAR))
    return;
  for (int b = 0; b < 256 && split == NULL; b++)
    {
      int32_t x = dtype == ET_SCALAR_CHAR ? (int32_t) (int8_t) b : b;
      float v = (float) (x - (int32_t) zp) * scale;
      uint8_t q;
      _executorch_qk_quantize_float_to_8bit (&v, &q, rq.is_signed, 1, rq.scale, rq.zero_point, rq.qmin, rq.qmax);
      if (q != (uint8_t) b)
        return;
    }
  if (et_method_graph_set_kernel (graph, deq, &_executorch_qk_stage_bytes_kernel) != ET_OK)
    return;
  for (uint32_t i = 0; i < n_moves; i++)
    et_method_graph_set_kernel (graph, moves[i], move_kernels[i]);
  if (split != NULL)
    _executorch_qk_byte_split_install (graph, (uint32_t) next, split);
  else
    et_method_graph_set_kernel (graph, (uint32_t) next, &_executorch_qk_unstage_bytes_kernel);
}

static void
rewrite_int_convs (void *user_data, EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph);
  const char *reference = getenv ("EXECUTORCH_QUANTIZED_REFERENCE");

  (void) user_data;
  if (reference != NULL && reference[0] != '\0' && strcmp (reference, "0") != 0)
    return;
  for (uint32_t linear = 0; linear < n; linear++)
    rewrite_linear (graph, linear);
  for (uint32_t conv = 0; conv < n; conv++)
    {
      const EtKernel *weight_nop;
      EtValue **args;
      uint32_t n_args;
      int64_t x_producer, w_producer;

      if (!is_plain_conv (graph, conv))
        continue;
      args = et_method_graph_args (graph, conv, &n_args);
      if (args[0] == args[1] || !read_once_as (graph, conv, args[0], 0) || !read_once_as (graph, conv, args[1], 1))
        continue;
      x_producer = sole_producer (graph, args[0], conv);
      w_producer = sole_producer (graph, args[1], conv);
      /* producers run before the convolution in program order */
      if (x_producer < 0 || w_producer < 0 || x_producer >= conv || w_producer >= conv)
        continue;
      if (!is_input_dequantize (graph, (uint32_t) x_producer) ||
          (weight_nop = weight_dequantize (graph, (uint32_t) w_producer, 4)) == NULL)
        continue;
      if (tensor_of (args[0])->ndim != 4 || tensor_of (args[1])->ndim != 4 ||
          !sums_fit (graph, (uint32_t) x_producer, tensor_of (args[1])->numel / tensor_of (args[1])->sizes[0]))
        continue;
      const EtKernel *conv_kernel =
          packed_conv (graph, (uint32_t) w_producer, tensor_of (et_method_graph_args (graph, w_producer, &n_args)[0]),
                       args);
      /* all three are kernel instructions with valid replacements: none
       * of these can fail once the first has succeeded */
      if (conv_kernel == NULL || et_method_graph_set_kernel (graph, conv, conv_kernel) != ET_OK)
        continue;
      et_method_graph_set_kernel (graph, (uint32_t) x_producer, &_executorch_qk_stage_input_kernel);
      et_method_graph_set_kernel (graph, (uint32_t) w_producer, weight_nop);
      rewrite_requantize (graph, conv);
      /* where it cannot read the int8 input itself but takes bytes, the
       * staging copies them rather than widening them */
      if (!conv_reads_bytes (graph, (uint32_t) x_producer, conv) &&
          _executorch_qk_int_conv_takes_bytes (et_method_graph_kernel (graph, conv), args))
        et_method_graph_set_kernel (graph, (uint32_t) x_producer, &_executorch_qk_stage_input_bytes_kernel);
    }
  for (uint32_t deq = 0; deq < n; deq++)
    {
      rewrite_activation_table (graph, deq);
      rewrite_silu_table (graph, deq);
      rewrite_max_pool (graph, deq);
    }
  for (uint32_t deq = 0; deq < n; deq++)
    rewrite_byte_moves (graph, deq);
  _executorch_qk_rewrite_byte_adds (graph);
  _executorch_qk_rewrite_byte_cats (graph);
}

bool
_executorch_qk_match_byte_dequantize (EtMethodGraph *graph, uint32_t deq, EtValue **out, QkByteSource *source)
{
  const EtTensor *input, *deq_out;
  EtValue **args;
  int64_t zp, dtype;

  if (!byte_dequantize (graph, deq, &args, &input, &deq_out, &zp, &dtype))
    return false;
  *out = args[7];
  source->scale = (float) (args[1]->tag == ET_VALUE_DOUBLE ? args[1]->u.double_value : (double) args[1]->u.int_value);
  source->zero_point = (int32_t) zp;
  source->is_signed = dtype == ET_SCALAR_CHAR;
  return true;
}

bool
_executorch_qk_match_final_quantize (EtMethodGraph *graph, uint32_t index, const EtTensor *value, QkRequant *rq)
{
  return value != NULL && _executorch_qk_bytes_fit (value) && is_final_quantize (graph, index, value, rq);
}

bool
_executorch_qk_is_registered (const EtKernel *kernel)
{
  return registered (kernel);
}

const EtMethodRewrite _executorch_qk_int_conv_rewrite = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "kernels-quantized:integer-convolution",
  .rewrite = rewrite_int_convs,
};
