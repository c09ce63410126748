/* payload-reader.c: reading and checking the XNNPACK delegate payload
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "payload-reader.h"

#include <math.h>
#include <string.h>

#include "executorch-plugin.h"

#include "../../libexecutorch/engine/flatbuffer.h"
#include "backend-private.h"

static const char *const node_names[XB_NODE_N_TYPES] = {
  [XB_NODE_ADD] = "XNNAdd",
  [XB_NODE_FULLY_CONNECTED] = "XNNFullyConnected",
  [XB_NODE_SOFTMAX] = "XNNSoftmax",
  [XB_NODE_SIGMOID] = "XNNSigmoid",
  [XB_NODE_STATIC_TRANSPOSE] = "XNNStaticTranspose",
  [XB_NODE_CLAMP] = "XNNClamp",
  [XB_NODE_CONV2D] = "XNNConv2d",
  [XB_NODE_DIV] = "XNNDiv",
  [XB_NODE_STATIC_RESIZE_BILINEAR_2D] = "XNNStaticResizeBilinear2D",
  [XB_NODE_STATIC_CONSTANT_PAD] = "XNNStaticConstantPad",
  [XB_NODE_AVG_POOLING_2D] = "XNNAvgPooling2d",
  [XB_NODE_MINIMUM] = "XNNMinimum",
  [XB_NODE_DEPTHWISE_CONV2D] = "XNNDepthwiseConv2d",
  [XB_NODE_MAX_POOLING_2D] = "XNNMaxPooling2d",
  [XB_NODE_MULTIPLY] = "XNNMultiply",
  [XB_NODE_SUBTRACT] = "XNNSubtract",
  [XB_NODE_FLOOR] = "XNNFloor",
  [XB_NODE_CONVERT] = "XNNConvert",
  [XB_NODE_GLOBAL_AVG_POOLING_2D] = "XNNGlobalAvgPooling2d",
  [XB_NODE_STATIC_RESHAPE] = "XNNStaticReshape",
  [XB_NODE_ARGMAX_POOLING_2D] = "XNNArgMaxPooling2d",
  [XB_NODE_SQUARE_ROOT] = "XNNSquareRoot",
  [XB_NODE_CEILING] = "XNNCeiling",
  [XB_NODE_HARDSWISH] = "XNNHardswish",
  [XB_NODE_LEAKY_RELU] = "XNNLeakyReLU",
  [XB_NODE_MAXIMUM] = "XNNMaximum",
  [XB_NODE_NEGATE] = "XNNNegate",
  [XB_NODE_SQUARE] = "XNNSquare",
  [XB_NODE_ELU] = "XNNELU",
  [XB_NODE_ABS] = "XNNAbs",
  [XB_NODE_PRELU] = "XNNPReLU",
  [XB_NODE_CONCATENATE2] = "XNNConcatenate2",
  [XB_NODE_CONCATENATE3] = "XNNConcatenate3",
  [XB_NODE_CONCATENATE4] = "XNNConcatenate4",
  [XB_NODE_STATIC_SLICE] = "XNNStaticSlice",
  [XB_NODE_SDPA] = "XNNScaledDotProductAttention",
  [XB_NODE_BATCH_MATRIX_MULTIPLY] = "XNNBatchMatrixMultiply",
  [XB_NODE_CONCATENATE5] = "XNNConcatenate5",
  [XB_NODE_CONV_TRANSPOSE_2D] = "XNNConvTranspose2d",
  [XB_NODE_RSQRT] = "XNNReciprocalSquareRoot",
  [XB_NODE_LOG] = "XNNLog",
  [XB_NODE_GELU] = "XNNGelu",
  [XB_NODE_TANH] = "XNNTanh",
  [XB_NODE_EXP] = "XNNExp",
  [XB_NODE_SIN] = "XNNSin",
  [XB_NODE_COPY] = "XNNCopy",
  [XB_NODE_COS] = "XNNCos",
};

static const char *const dt_names[XB_DT_N] = {
  "invalid", "fp32",   "fp16",   "qint8",  "quint8", "qint32", "qcint8", "qcint32",
  "qcint4",  "qdint8", "qbint4", "qpint8", "int32",  "pfp32",  "bf16",
};

const char *
xb_node_type_name (uint32_t type)
{
  return type < XB_NODE_N_TYPES && node_names[type] ? node_names[type] : "unknown node";
}

const char *
xb_datatype_name (int datatype)
{
  return datatype >= 0 && datatype < XB_DT_N ? dt_names[datatype] : "unknown";
}

size_t
xb_datatype_size (int datatype)
{
  switch (datatype)
    {
      case XB_DT_FP32:
      case XB_DT_QINT32:
      case XB_DT_QCINT32:
      case XB_DT_INT32: return 4;
      case XB_DT_FP16:
      case XB_DT_BF16: return 2;
      case XB_DT_QINT8:
      case XB_DT_QUINT8:
      case XB_DT_QCINT8:
      case XB_DT_QDINT8: return 1;
      default: return 0;
    }
}

size_t
xb_value_numel (const XbValue *value)
{
  size_t n = 1;
  for (uint32_t d = 0; d < value->ndim; d++)
    n *= value->dims[d];
  return n;
}

size_t
xb_value_bytes (const XbValue *value)
{
  if (value->datatype == XB_DT_QCINT4 || value->datatype == XB_DT_QBINT4)
    {
      if (value->ndim == 0)
        return 1;
      size_t rows = 1;
      for (uint32_t d = 0; d + 1 < value->ndim; d++)
        rows *= value->dims[d];
      return rows * ((value->dims[value->ndim - 1] + 1) / 2);
    }
  return xb_value_numel (value) * xb_datatype_size (value->datatype);
}

void
xb_graph_free (XbGraph *graph)
{
  if (graph == NULL)
    return;
  for (uint32_t i = 0; i < graph->n_values; i++)
    {
      g_free (graph->values[i].scales);
      g_free (graph->values[i].block_scales);
    }
  g_free (graph->values);
  g_free (graph->nodes);
  if (graph->owned)
    g_ptr_array_unref (graph->owned);
  g_free (graph);
}

typedef struct
{
  EtFb fb;
  const uint8_t *payload;
  size_t payload_size;
  gboolean has_header;
  uint64_t region_offset, region_size;
  EtFbVector constant_data, constant_buffer;
  XbNamedDataFunc named;
  gpointer named_data;
  XbGraph *graph;
  GHashTable *ids; /* serialized id -> value index + 1 */
  GError *error;
} Parser;

static gboolean fail (Parser *p, int code, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (Parser *p, int code, const char *format, ...)
{
  if (p->error == NULL)
    {
      va_list ap;
      va_start (ap, format);
      g_autofree char *msg = g_strdup_vprintf (format, ap);
      va_end (ap);
      p->error = g_error_new_literal (XB_ERROR, code, msg);
    }
  return FALSE;
}

static gboolean
fb_ok (Parser *p, const char *where)
{
  if (!_et_fb_ok (&p->fb))
    return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: %s: %s", where, p->fb.error->message);
  return TRUE;
}

/* Resolves constant index @k (> 0) to its bytes. */
static gboolean
constant_bytes (Parser *p, uint32_t k, const char *what, const void **data, size_t *size)
{
  EtFb *fb = &p->fb;
  if (p->has_header && p->constant_data.length > 0)
    {
      if (k >= p->constant_data.length)
        return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: %s refers to constant %u of %u", what, k,
                     p->constant_data.length);
      EtFbTable c = _et_fb_vector_table (fb, p->constant_data, k, "constant_data");
      uint64_t offset = _et_fb_u64 (fb, c, 0, 0), csize = _et_fb_u64 (fb, c, 1, 0);
      gsize key_len = 0;
      const char *key = _et_fb_string (fb, c, 2, &key_len, "constant_data.named_key");
      if (!fb_ok (p, what))
        return FALSE;
      if (key != NULL && key_len > 0)
        {
          if (p->named == NULL || !p->named (p->named_data, key, data, size))
            return fail (p, ET_ERROR_NOT_FOUND,
                         "XNNPACK payload: %s: named data '%s' is neither in the program nor in "
                         "a loaded .ptd file",
                         what, key);
          if (*size < csize)
            return fail (p, ET_ERROR_INVALID_PROGRAM,
                         "XNNPACK payload: %s: named data '%s' has %zu bytes, the graph expects %llu", what, key, *size,
                         (unsigned long long) csize);
          return TRUE;
        }
      if (offset > p->region_size || csize > p->region_size - offset)
        return fail (p, ET_ERROR_INVALID_PROGRAM,
                     "XNNPACK payload: %s: constant %u (offset %llu, %llu bytes) lies outside the "
                     "%llu-byte constant region",
                     what, k, (unsigned long long) offset, (unsigned long long) csize,
                     (unsigned long long) p->region_size);
      /* The payload is freed after init: keep a copy. */
      void *copy = g_aligned_alloc0 (1, csize + 16, 64);
      memcpy (copy, p->payload + p->region_offset + offset, csize);
      g_ptr_array_add (p->graph->owned, copy);
      *data = copy;
      *size = csize;
      return TRUE;
    }
  if (k >= p->constant_buffer.length)
    return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: %s refers to constant buffer %u of %u", what, k,
                 p->constant_buffer.length);
  EtFbTable b = _et_fb_vector_table (fb, p->constant_buffer, k, "constant_buffer");
  EtFbVector storage = _et_fb_vector (fb, b, 0, 1, "constant_buffer.storage");
  if (!fb_ok (p, what))
    return FALSE;
  void *copy = g_aligned_alloc0 (1, storage.length + 16, 64);
  if (storage.length)
    memcpy (copy, p->fb.data + storage.pos, storage.length);
  g_ptr_array_add (p->graph->owned, copy);
  *data = copy;
  *size = storage.length;
  return TRUE;
}

static gboolean
parse_tensor_value (Parser *p, EtFbTable t, XbValue *v, uint32_t index)
{
  EtFb *fb = &p->fb;
  v->datatype = _et_fb_i16 (fb, t, 0, 0);
  uint32_t num_dims = _et_fb_u32 (fb, t, 1, 0);
  EtFbVector dims = _et_fb_vector (fb, t, 2, 4, "XNNTensorValue.dims");
  v->constant_index = _et_fb_u32 (fb, t, 3, 0);
  v->external_id = _et_fb_u32 (fb, t, 4, 0);
  v->flags = _et_fb_u32 (fb, t, 5, 0);
  v->id = _et_fb_u32 (fb, t, 6, 0);
  v->dq_datatype = _et_fb_i16 (fb, t, 7, 0);
  if (!fb_ok (p, "xvalues"))
    return FALSE;
  if (dims.length > XB_PAYLOAD_MAX_DIMS || num_dims != dims.length)
    return fail (p, ET_ERROR_NOT_SUPPORTED,
                 "XNNPACK payload: value %u has %u dims (num_dims %u); XNNPACK takes at most %d", index, dims.length,
                 num_dims, XB_PAYLOAD_MAX_DIMS);
  v->ndim = dims.length;
  for (uint32_t d = 0; d < dims.length; d++)
    v->dims[d] = _et_fb_vector_u32 (fb, dims, d);
  if (v->datatype <= XB_DT_INVALID || v->datatype >= XB_DT_N)
    return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u has datatype %d", index, v->datatype);
  if (v->flags & ~3u)
    return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u has flags 0x%x", index, v->flags);
  if (v->flags)
    {
      if (v->external_id >= p->graph->num_externs)
        return fail (p, ET_ERROR_INVALID_PROGRAM,
                     "XNNPACK payload: external value %u has external id %u, num_externs is %u", index, v->external_id,
                     p->graph->num_externs);
      if (v->constant_index)
        return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: external value %u is also a constant", index);
    }
  /* numel must fit comfortably: 2^40 elements is far beyond any device. */
  guint64 numel = 1;
  for (uint32_t d = 0; d < v->ndim; d++)
    {
      if (v->dims[d] != 0 && numel > (G_GUINT64_CONSTANT (1) << 40) / v->dims[d])
        return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u is too large", index);
      numel *= v->dims[d];
    }
  if (v->constant_index)
    {
      char what[64];
      g_snprintf (what, sizeof what, "value %u", index);
      if (!constant_bytes (p, v->constant_index, what, &v->data, &v->data_size))
        return FALSE;
      size_t need = xb_value_bytes (v);
      if (need && v->data_size < need)
        return fail (p, ET_ERROR_INVALID_PROGRAM,
                     "XNNPACK payload: constant value %u (%s) needs %zu bytes, its data has %zu", index,
                     xb_datatype_name (v->datatype), need, v->data_size);
    }
  return TRUE;
}

static gboolean parse_group_quant (Parser *p, EtFbTable q, XbValue *v, uint32_t index);

static gboolean
parse_value (Parser *p, EtFbTable xv, uint32_t index)
{
  EtFb *fb = &p->fb;
  XbValue *v = &p->graph->values[index];
  uint8_t kind = _et_fb_u8 (fb, xv, 0, 0);
  EtFbTable body = _et_fb_table (fb, xv, 1, "XValue");
  if (!fb_ok (p, "xvalues"))
    return FALSE;
  if (!body.present || (kind != 1 && kind != 2))
    return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u has union tag %u", index, kind);
  v->zero_point = 0;
  v->scale = 1.0f;
  if (kind == 1)
    return parse_tensor_value (p, body, v, index);

  EtFbTable tv = _et_fb_table (fb, body, 0, "XNNQuantizedTensorValue.tensor_value");
  uint8_t qkind = _et_fb_u8 (fb, body, 1, 0);
  EtFbTable q = _et_fb_table (fb, body, 2, "XNNQuantizedTensorValue.quant_params");
  if (!fb_ok (p, "xvalues"))
    return FALSE;
  if (!tv.present || !q.present || qkind < 1 || qkind > 4)
    return fail (p, ET_ERROR_INVALID_PROGRAM,
                 "XNNPACK payload: quantized value %u lacks its tensor or parameters (tag %u)", index, qkind);
  if (!parse_tensor_value (p, tv, v, index))
    return FALSE;
  v->quant = qkind;
  switch (qkind)
    {
      case XB_QUANT_PER_TENSOR:
        v->scale = _et_fb_f32 (fb, q, 0, 0.0f);
        v->zero_point = _et_fb_i32 (fb, q, 1, 0);
        if (!fb_ok (p, "PerTensorQuant"))
          return FALSE;
        if (!isfinite (v->scale) || v->scale <= 0.0f)
          return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u has scale %g", index, v->scale);
        return TRUE;
      case XB_QUANT_PER_CHANNEL:
        {
          EtFbVector scales = _et_fb_vector (fb, q, 0, 4, "PerChannelQuant.scale");
          v->channel_dim = _et_fb_i32 (fb, q, 1, 0);
          uint32_t buf = _et_fb_u32 (fb, q, 2, 0), num = _et_fb_u32 (fb, q, 3, 0);
          if (!fb_ok (p, "PerChannelQuant"))
            return FALSE;
          if (v->channel_dim < 0 || (uint32_t) v->channel_dim >= v->ndim)
            return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u has channel_dim %d of %u dims", index,
                         v->channel_dim, v->ndim);
          size_t channels = v->dims[v->channel_dim];
          if (buf)
            {
              const void *data;
              size_t size;
              char what[64];
              g_snprintf (what, sizeof what, "scales of value %u", index);
              if (!constant_bytes (p, buf, what, &data, &size))
                return FALSE;
              if (num != channels || size < (size_t) num * 4)
                return fail (p, ET_ERROR_INVALID_PROGRAM,
                             "XNNPACK payload: value %u has %u scales (%zu bytes) for %zu channels", index, num, size,
                             channels);
              v->scales = g_new (float, channels ? channels : 1);
              memcpy (v->scales, data, channels * 4);
            }
          else
            {
              if (scales.length != channels)
                return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u has %u scales for %zu channels",
                             index, scales.length, channels);
              v->scales = g_new (float, channels ? channels : 1);
              for (uint32_t c = 0; c < channels; c++)
                v->scales[c] = _et_fb_vector_f32 (fb, scales, c);
            }
          v->n_scales = channels;
          for (uint32_t c = 0; c < channels; c++)
            if (!isfinite (v->scales[c]) || v->scales[c] <= 0.0f)
              return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u has scale %g for channel %u", index,
                           v->scales[c], c);
          return TRUE;
        }
      case XB_QUANT_PER_TOKEN:
        {
          int32_t nonbatch = _et_fb_i32 (fb, q, 0, 0);
          if (!fb_ok (p, "PerTokenDynamicQuant"))
            return FALSE;
          if (nonbatch < 1 || (uint32_t) nonbatch > v->ndim)
            return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u has num_nonbatch_dims %d of %u dims",
                         index, nonbatch, v->ndim);
          if (v->constant_index)
            return fail (p, ET_ERROR_INVALID_PROGRAM,
                         "XNNPACK payload: dynamically quantized value %u has constant data", index);
          v->num_nonbatch_dims = (uint32_t) nonbatch;
          return TRUE;
        }
      default: return parse_group_quant (p, q, v, index);
    }
}

/* bf16 from fp32 the way upstream's runtime converts legacy fp32 block
 * scales: scaled by 1.00389105 (rounding up), then the top 16 bits. */
static uint16_t
bf16_from_legacy_f32 (float f)
{
  float scaled = f * 1.00389105f;
  uint32_t bits;
  memcpy (&bits, &scaled, 4);
  return (uint16_t) (bits >> 16);
}

/* PerChannelGroupQuant: [N, K] weights, K / group_size bf16 scales a row. */
static gboolean
parse_group_quant (Parser *p, EtFbTable q, XbValue *v, uint32_t index)
{
  EtFb *fb = &p->fb;
  EtFbVector scales = _et_fb_vector (fb, q, 0, 4, "PerChannelGroupQuant.scale");
  int32_t channel_dim = _et_fb_i32 (fb, q, 1, 0);
  int32_t group_size = _et_fb_i32 (fb, q, 2, 0);
  uint32_t buf = _et_fb_u32 (fb, q, 4, 0), num = _et_fb_u32 (fb, q, 5, 0);
  if (!fb_ok (p, "PerChannelGroupQuant"))
    return FALSE;
  if (v->ndim != 2 || channel_dim != 0)
    return fail (p, ET_ERROR_NOT_SUPPORTED,
                 "XNNPACK payload: blockwise quantized value %u has %u dims and channel_dim %d "
                 "(only [out, in] weights with channel_dim 0)",
                 index, v->ndim, channel_dim);
  if (group_size <= 0 || v->dims[1] % (size_t) group_size != 0)
    return fail (p, ET_ERROR_INVALID_PROGRAM,
                 "XNNPACK payload: value %u has group size %d, which does not divide its %zu input channels", index,
                 group_size, v->dims[1]);
  size_t count = v->dims[0] * (v->dims[1] / (size_t) group_size);
  v->channel_dim = 0;
  v->group_size = (uint32_t) group_size;
  /* The count comes from the value's dims; nothing is allocated until the
   * payload is seen to hold that many scales. */
  if (buf)
    {
      const void *data;
      size_t size;
      char what[64];
      g_snprintf (what, sizeof what, "block scales of value %u", index);
      if (!constant_bytes (p, buf, what, &data, &size))
        return FALSE;
      if (num != count || size / 2 < count)
        return fail (p, ET_ERROR_INVALID_PROGRAM,
                     "XNNPACK payload: value %u has %u block scales (%zu bytes), its shape needs %zu", index, num, size,
                     count);
      v->block_scales = g_new (uint16_t, count ? count : 1);
      memcpy (v->block_scales, data, count * 2);
    }
  else
    {
      if (scales.length != count)
        return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u has %u block scales, its shape needs %zu",
                     index, scales.length, count);
      v->block_scales = g_new (uint16_t, count ? count : 1);
      for (size_t i = 0; i < count; i++)
        v->block_scales[i] = bf16_from_legacy_f32 (_et_fb_vector_f32 (fb, scales, (uint32_t) i));
    }
  v->n_block_scales = count;
  for (size_t i = 0; i < count; i++)
    {
      uint32_t bits = (uint32_t) v->block_scales[i] << 16;
      float f;
      memcpy (&f, &bits, 4);
      if (!isfinite (f))
        return fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u has block scale %g at %zu", index, f, i);
    }
  return TRUE;
}

/* Reads a value id field and turns it into a value index. */
static uint32_t
value_ref (Parser *p, XbNode *n, uint32_t node_index, uint32_t id, gboolean optional)
{
  if (id == XB_PAYLOAD_NO_VALUE && optional)
    return XB_PAYLOAD_NO_VALUE;
  gpointer found = g_hash_table_lookup (p->ids, GUINT_TO_POINTER (id));
  if (found == NULL)
    {
      fail (p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: node %u (%s) refers to value id %u, which is not defined",
            node_index, xb_node_type_name (n->type), id);
      return XB_PAYLOAD_NO_VALUE;
    }
  return GPOINTER_TO_UINT (found) - 1;
}

static void
read_list (Parser *p, EtFbTable t, unsigned slot, size_t *out, uint32_t *count, const char *what)
{
  EtFbVector v = _et_fb_vector (&p->fb, t, slot, 4, what);
  if (!_et_fb_ok (&p->fb))
    return;
  if (v.length > XB_PAYLOAD_MAX_DIMS)
    {
      fail (p, ET_ERROR_NOT_SUPPORTED, "XNNPACK payload: %s has %u entries (at most %d)", what, v.length,
            XB_PAYLOAD_MAX_DIMS);
      return;
    }
  for (uint32_t i = 0; i < v.length; i++)
    out[i] = _et_fb_vector_u32 (&p->fb, v, i);
  *count = v.length;
}

static gboolean
parse_node (Parser *p, EtFbTable xn, uint32_t index)
{
  EtFb *fb = &p->fb;
  XbNode *n = &p->graph->nodes[index];
  n->type = _et_fb_u8 (fb, xn, 0, 0);
  EtFbTable t = _et_fb_table (fb, xn, 1, "XNode");
  n->debug_handle = _et_fb_u32 (fb, xn, 2, 0);
  EtFbTable mm = _et_fb_table (fb, xn, 3, "XNode.output_min_max");
  n->output_min = mm.present ? _et_fb_f32 (fb, mm, 0, 0.0f) : -INFINITY;
  n->output_max = mm.present ? _et_fb_f32 (fb, mm, 1, 0.0f) : INFINITY;
  if (!fb_ok (p, "xnodes"))
    return FALSE;
  if (n->type == 0 || n->type >= XB_NODE_N_TYPES || !t.present)
    return fail (p, ET_ERROR_DELEGATE_INVALID_COMPATIBILITY,
                 "XNNPACK payload: node %u has type tag %u, not an XNNPACK node this runtime "
                 "knows",
                 index, n->type);
  if (isnan (n->output_min) || isnan (n->output_max) || n->output_min > n->output_max)
    return fail (p, ET_ERROR_INVALID_PROGRAM,
                 "XNNPACK payload: node %u (%s) has output range "
                 "[%g, %g]",
                 index, xb_node_type_name (n->type), n->output_min, n->output_max);

  uint32_t ids_in[5] = { 0 }, ids_out[2] = { 0 }, nin = 0, nout = 1, optional_mask = 0;
  uint32_t list_count_a = 0, list_count_b = 0;
  switch (n->type)
    {
      case XB_NODE_ADD:
      case XB_NODE_DIV:
      case XB_NODE_MINIMUM:
      case XB_NODE_MULTIPLY:
      case XB_NODE_SUBTRACT:
      case XB_NODE_MAXIMUM:
      case XB_NODE_PRELU:
      case XB_NODE_BATCH_MATRIX_MULTIPLY:
        nin = 2;
        ids_in[0] = _et_fb_u32 (fb, t, 0, 0);
        ids_in[1] = _et_fb_u32 (fb, t, 1, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 2, 0);
        n->flags = _et_fb_u32 (fb, t, 3, 0);
        break;
      case XB_NODE_FULLY_CONNECTED:
        nin = 3;
        optional_mask = 4;
        for (unsigned i = 0; i < 3; i++)
          ids_in[i] = _et_fb_u32 (fb, t, i, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 3, 0);
        n->flags = _et_fb_u32 (fb, t, 4, 0);
        break;
      case XB_NODE_CONV2D:
      case XB_NODE_DEPTHWISE_CONV2D:
      case XB_NODE_CONV_TRANSPOSE_2D:
        nin = 3;
        optional_mask = 4;
        for (unsigned i = 0; i < 15; i++)
          n->p[i] = _et_fb_u32 (fb, t, i, 0);
        for (unsigned i = 0; i < 3; i++)
          ids_in[i] = _et_fb_u32 (fb, t, 15 + i, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 18, 0);
        n->flags = _et_fb_u32 (fb, t, 19, 0);
        break;
      case XB_NODE_AVG_POOLING_2D:
      case XB_NODE_MAX_POOLING_2D:
        nin = 1;
        for (unsigned i = 0; i < 10; i++)
          n->p[i] = _et_fb_u32 (fb, t, i, 0);
        ids_in[0] = _et_fb_u32 (fb, t, 10, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 11, 0);
        n->flags = _et_fb_u32 (fb, t, 12, 0);
        break;
      case XB_NODE_ARGMAX_POOLING_2D:
        nin = 1;
        nout = 2;
        for (unsigned i = 0; i < 6; i++)
          n->p[i] = _et_fb_u32 (fb, t, i, 0);
        ids_in[0] = _et_fb_u32 (fb, t, 6, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 7, 0);
        ids_out[1] = _et_fb_u32 (fb, t, 8, 0);
        n->flags = _et_fb_u32 (fb, t, 9, 0);
        break;
      case XB_NODE_STATIC_TRANSPOSE:
      case XB_NODE_STATIC_RESHAPE:
        nin = 1;
        n->p[0] = _et_fb_u32 (fb, t, 0, 0);
        read_list (p, t, 1, n->list_a, &list_count_a,
                   n->type == XB_NODE_STATIC_TRANSPOSE ? "XNNStaticTranspose.perm" : "XNNStaticReshape.new_shape");
        ids_in[0] = _et_fb_u32 (fb, t, 2, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 3, 0);
        n->flags = _et_fb_u32 (fb, t, 4, 0);
        n->n_list = list_count_a;
        if (!p->error && n->p[0] != list_count_a)
          return fail (p, ET_ERROR_INVALID_PROGRAM,
                       "XNNPACK payload: node %u (%s) has num_dims %u "
                       "but %u entries",
                       index, xb_node_type_name (n->type), n->p[0], list_count_a);
        break;
      case XB_NODE_STATIC_SLICE:
        nin = 1;
        n->p[0] = _et_fb_u32 (fb, t, 0, 0);
        read_list (p, t, 1, n->list_a, &list_count_a, "XNNStaticSlice.offsets");
        read_list (p, t, 2, n->list_b, &list_count_b, "XNNStaticSlice.sizes");
        ids_in[0] = _et_fb_u32 (fb, t, 3, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 4, 0);
        n->flags = _et_fb_u32 (fb, t, 5, 0);
        n->n_list = list_count_a;
        if (!p->error && (list_count_a != list_count_b || n->p[0] != list_count_a))
          return fail (p, ET_ERROR_INVALID_PROGRAM,
                       "XNNPACK payload: node %u (XNNStaticSlice) has "
                       "%u offsets and %u sizes for %u dims",
                       index, list_count_a, list_count_b, n->p[0]);
        break;
      case XB_NODE_STATIC_RESIZE_BILINEAR_2D:
        nin = 1;
        n->p[0] = _et_fb_u32 (fb, t, 0, 0);
        n->p[1] = _et_fb_u32 (fb, t, 1, 0);
        ids_in[0] = _et_fb_u32 (fb, t, 2, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 3, 0);
        n->flags = _et_fb_u32 (fb, t, 4, 0);
        break;
      case XB_NODE_STATIC_CONSTANT_PAD:
        nin = 1;
        read_list (p, t, 0, n->list_a, &list_count_a, "XNNStaticConstantPad.pre_paddings");
        read_list (p, t, 1, n->list_b, &list_count_b, "XNNStaticConstantPad.post_paddings");
        n->fparam = _et_fb_f32 (fb, t, 2, 0.0f);
        ids_in[0] = _et_fb_u32 (fb, t, 3, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 4, 0);
        n->flags = _et_fb_u32 (fb, t, 5, 0);
        n->n_list = list_count_a;
        if (!p->error && list_count_a != list_count_b)
          return fail (p, ET_ERROR_INVALID_PROGRAM,
                       "XNNPACK payload: node %u (XNNStaticConstantPad) "
                       "has %u pre and %u post paddings",
                       index, list_count_a, list_count_b);
        break;
      case XB_NODE_LEAKY_RELU:
      case XB_NODE_ELU:
        nin = 1;
        n->fparam = _et_fb_f32 (fb, t, 0, 0.0f);
        ids_in[0] = _et_fb_u32 (fb, t, 1, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 2, 0);
        n->flags = _et_fb_u32 (fb, t, 3, 0);
        break;
      case XB_NODE_CONCATENATE2:
      case XB_NODE_CONCATENATE3:
      case XB_NODE_CONCATENATE4:
      case XB_NODE_CONCATENATE5:
        nin = n->type == XB_NODE_CONCATENATE5 ? 5 : n->type - XB_NODE_CONCATENATE2 + 2;
        n->p[0] = _et_fb_u32 (fb, t, 0, 0);
        for (unsigned i = 0; i < 4 && i < nin; i++)
          ids_in[i] = _et_fb_u32 (fb, t, 1 + i, 0);
        if (nin == 5)
          ids_in[4] = _et_fb_u32 (fb, t, 7, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 5, 0);
        n->flags = _et_fb_u32 (fb, t, 6, 0);
        break;
      case XB_NODE_SDPA:
        nin = 5;
        for (unsigned i = 0; i < 5; i++)
          ids_in[i] = _et_fb_u32 (fb, t, i, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 5, 0);
        n->flags = _et_fb_u32 (fb, t, 6, 0);
        break;
      default: /* _XNNNode1x1 */
        nin = 1;
        ids_in[0] = _et_fb_u32 (fb, t, 0, 0);
        ids_out[0] = _et_fb_u32 (fb, t, 1, 0);
        n->flags = _et_fb_u32 (fb, t, 2, 0);
        break;
    }
  if (p->error || !fb_ok (p, "xnodes"))
    return FALSE;
  n->n_inputs = nin;
  n->n_outputs = nout;
  for (uint32_t i = 0; i < nin; i++)
    n->inputs[i] = value_ref (p, n, index, ids_in[i], (optional_mask >> i) & 1);
  for (uint32_t i = 0; i < nout; i++)
    n->outputs[i] = value_ref (p, n, index, ids_out[i], FALSE);
  if (p->error)
    return FALSE;
  for (uint32_t i = 0; i < nout; i++)
    {
      const XbValue *o = &p->graph->values[n->outputs[i]];
      if (o->data != NULL || (o->flags & 1))
        return fail (p, ET_ERROR_INVALID_PROGRAM,
                     "XNNPACK payload: node %u (%s) writes value %u, which is a constant or an "
                     "external input",
                     index, xb_node_type_name (n->type), n->outputs[i]);
    }
  return TRUE;
}

XbGraph *
xb_payload_parse (const void *payload, size_t size, XbNamedDataFunc named, gpointer named_data, GError **error)
{
  Parser p = { .payload = payload, .payload_size = size, .named = named, .named_data = named_data };
  const uint8_t *b = payload;
  const uint8_t *fb_data = b;
  size_t fb_size = size;

  if (size >= 8 && memcmp (b + 4, "XH00", 4) == 0)
    {
      if (size < 30)
        {
          g_set_error (error, XB_ERROR, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: XNNHeader truncated (%zu bytes)",
                       size);
          return NULL;
        }
      uint16_t hlen = (uint16_t) (b[8] | b[9] << 8);
      uint32_t fo = b[10] | b[11] << 8 | b[12] << 16 | (uint32_t) b[13] << 24;
      uint32_t fs = b[14] | b[15] << 8 | b[16] << 16 | (uint32_t) b[17] << 24;
      uint32_t co = b[18] | b[19] << 8 | b[20] << 16 | (uint32_t) b[21] << 24;
      uint64_t cs = 0;
      for (int i = 7; i >= 0; i--)
        cs = cs << 8 | b[22 + i];
      if (hlen < 30 || fs < 8 || fo > size || fs > size - fo || co < (uint64_t) fo + fs || co > size || cs > size - co)
        {
          g_set_error (error, XB_ERROR, ET_ERROR_INVALID_PROGRAM,
                       "XNNPACK payload: XNNHeader (length %u, flatbuffer %u+%u, constants %u+%llu) "
                       "does not fit the %zu-byte payload",
                       hlen, fo, fs, co, (unsigned long long) cs, size);
          return NULL;
        }
      fb_data = b + fo;
      fb_size = fs;
      p.has_header = TRUE;
      p.region_offset = co;
      p.region_size = cs;
    }
  if (fb_size < 8 || (memcmp (fb_data + 4, "XN00", 4) != 0 && memcmp (fb_data + 4, "XN01", 4) != 0))
    {
      g_set_error (error, XB_ERROR, ET_ERROR_DELEGATE_INVALID_COMPATIBILITY,
                   "XNNPACK payload: the graph's identifier is not XN00 or XN01");
      return NULL;
    }

  _et_fb_init (&p.fb, fb_data, fb_size, "XNNPACK graph", ET_ERROR_INVALID_PROGRAM);
  p.graph = g_new0 (XbGraph, 1);
  p.graph->owned = g_ptr_array_new_with_free_func (g_aligned_free);
  p.ids = g_hash_table_new (NULL, NULL);
  EtFb *fb = &p.fb;
  EtFbTable root = _et_fb_root (fb, 0, "XNNGraph");
  EtFbVector xnodes = _et_fb_vector (fb, root, 1, 4, "XNNGraph.xnodes");
  EtFbVector xvalues = _et_fb_vector (fb, root, 2, 4, "XNNGraph.xvalues");
  p.graph->num_externs = _et_fb_u32 (fb, root, 3, 0);
  p.constant_buffer = _et_fb_vector (fb, root, 6, 4, "XNNGraph.constant_buffer");
  p.constant_data = _et_fb_vector (fb, root, 8, 4, "XNNGraph.constant_data");
  if (fb_ok (&p, "XNNGraph"))
    {
      if (p.graph->num_externs > XB_PAYLOAD_MAX_EXTERNS)
        fail (&p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: num_externs %u exceeds %d", p.graph->num_externs,
              XB_PAYLOAD_MAX_EXTERNS);
    }
  if (!p.error)
    {
      p.graph->n_values = xvalues.length;
      p.graph->values = g_new0 (XbValue, xvalues.length ? xvalues.length : 1);
      for (uint32_t i = 0; i < xvalues.length && !p.error; i++)
        {
          EtFbTable xv = _et_fb_vector_table (fb, xvalues, i, "XNNGraph.xvalues");
          if (!fb_ok (&p, "xvalues") || !parse_value (&p, xv, i))
            break;
          uint32_t id = p.graph->values[i].id;
          if (g_hash_table_contains (p.ids, GUINT_TO_POINTER (id)) || id == XB_PAYLOAD_NO_VALUE)
            fail (&p, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: value %u reuses id %u", i, id);
          g_hash_table_insert (p.ids, GUINT_TO_POINTER (id), GUINT_TO_POINTER (i + 1));
        }
    }
  if (!p.error)
    {
      p.graph->n_nodes = xnodes.length;
      p.graph->nodes = g_new0 (XbNode, xnodes.length ? xnodes.length : 1);
      for (uint32_t i = 0; i < xnodes.length && !p.error; i++)
        {
          EtFbTable xn = _et_fb_vector_table (fb, xnodes, i, "XNNGraph.xnodes");
          if (!fb_ok (&p, "xnodes") || !parse_node (&p, xn, i))
            break;
        }
    }
  g_hash_table_unref (p.ids);
  _et_fb_clear (&p.fb);
  if (p.error)
    {
      g_propagate_error (error, p.error);
      xb_graph_free (p.graph);
      return NULL;
    }
  return p.graph;
}
