/* payload-reader.h: the XNNPACK delegate payload, read and checked
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * xb_payload_parse() reads the XNNHeader, the fb_xnnpack graph and its
 * constants into plain structs.  It checks every index, count and size it
 * reads: value ids name defined values, dims fit XNNPACK's rank limit,
 * constants lie inside the payload or the named data and are large enough
 * for their value.  It links nothing but GLib, so the fuzz target runs it
 * without XNNPACK.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#define XB_PAYLOAD_MAX_DIMS 6 /* XNN_MAX_TENSOR_DIMS of Debian's XNNPACK */
#define XB_PAYLOAD_MAX_EXTERNS 4096
#define XB_PAYLOAD_NO_VALUE UINT32_MAX

/* fb_xnnpack.XNNDatatype */
enum
{
  XB_DT_INVALID = 0,
  XB_DT_FP32 = 1,
  XB_DT_FP16 = 2,
  XB_DT_QINT8 = 3,
  XB_DT_QUINT8 = 4,
  XB_DT_QINT32 = 5,
  XB_DT_QCINT8 = 6,
  XB_DT_QCINT32 = 7,
  XB_DT_QCINT4 = 8,
  XB_DT_QDINT8 = 9,
  XB_DT_QBINT4 = 10,
  XB_DT_QPINT8 = 11,
  XB_DT_INT32 = 12,
  XB_DT_PFP32 = 13,
  XB_DT_BF16 = 14,
  XB_DT_N = 15,
};

/* Quantization kinds: the XNNQuantParams union tags. */
enum
{
  XB_QUANT_NONE = 0,
  XB_QUANT_PER_CHANNEL = 1,
  XB_QUANT_PER_TENSOR = 2,
  XB_QUANT_PER_TOKEN = 3,
  XB_QUANT_PER_CHANNEL_GROUP = 4,
};

/* Node types: the XNodeUnion tags. */
enum
{
  XB_NODE_ADD = 1,
  XB_NODE_FULLY_CONNECTED,
  XB_NODE_SOFTMAX,
  XB_NODE_SIGMOID,
  XB_NODE_STATIC_TRANSPOSE,
  XB_NODE_CLAMP,
  XB_NODE_CONV2D,
  XB_NODE_DIV,
  XB_NODE_STATIC_RESIZE_BILINEAR_2D,
  XB_NODE_STATIC_CONSTANT_PAD,
  XB_NODE_AVG_POOLING_2D,
  XB_NODE_MINIMUM,
  XB_NODE_DEPTHWISE_CONV2D,
  XB_NODE_MAX_POOLING_2D,
  XB_NODE_MULTIPLY,
  XB_NODE_SUBTRACT,
  XB_NODE_FLOOR,
  XB_NODE_CONVERT,
  XB_NODE_GLOBAL_AVG_POOLING_2D,
  XB_NODE_STATIC_RESHAPE,
  XB_NODE_ARGMAX_POOLING_2D,
  XB_NODE_SQUARE_ROOT,
  XB_NODE_CEILING,
  XB_NODE_HARDSWISH,
  XB_NODE_LEAKY_RELU,
  XB_NODE_MAXIMUM,
  XB_NODE_NEGATE,
  XB_NODE_SQUARE,
  XB_NODE_ELU,
  XB_NODE_ABS,
  XB_NODE_PRELU,
  XB_NODE_CONCATENATE2,
  XB_NODE_CONCATENATE3,
  XB_NODE_CONCATENATE4,
  XB_NODE_STATIC_SLICE,
  XB_NODE_SDPA,
  XB_NODE_BATCH_MATRIX_MULTIPLY,
  XB_NODE_CONCATENATE5,
  XB_NODE_CONV_TRANSPOSE_2D,
  XB_NODE_RSQRT,
  XB_NODE_LOG,
  XB_NODE_GELU,
  XB_NODE_TANH,
  XB_NODE_EXP,
  XB_NODE_SIN,
  XB_NODE_COPY,
  XB_NODE_COS,
  XB_NODE_N_TYPES,
};

typedef struct
{
  uint32_t id;      /* the serialized id (id_out) */
  int16_t datatype; /* XB_DT_* */
  int16_t dq_datatype;
  uint32_t ndim;
  size_t dims[XB_PAYLOAD_MAX_DIMS];
  uint32_t constant_index; /* 0 = not constant */
  uint32_t external_id;
  uint32_t flags; /* EXTERNAL_INPUT 0x1 | EXTERNAL_OUTPUT 0x2 */
  int quant;      /* XB_QUANT_* */
  float scale;
  int32_t zero_point;
  int32_t channel_dim;
  uint32_t n_scales;
  float *scales; /* per-channel scales (owned), n_scales of them */
  /* Dynamic quantization (PerTokenDynamicQuant): rows are the leading
   * ndim - num_nonbatch_dims dims. */
  uint32_t num_nonbatch_dims;
  /* Blockwise (PerChannelGroupQuant): bf16 scales [dims[0], dims[1] /
   * group_size] (owned), n_block_scales of them. */
  uint32_t group_size;
  uint16_t *block_scales;
  size_t n_block_scales;
  const void *data; /* constant data, or NULL */
  size_t data_size;
  int16_t narrow_datatype; /* widen.c: an external value's fp16/bf16 type, now fp32 here; else 0 */
} XbValue;

typedef struct
{
  uint32_t type; /* XB_NODE_* */
  uint32_t debug_handle;
  float output_min, output_max;
  uint32_t n_inputs;
  uint32_t inputs[5]; /* value indices (not ids); NO_VALUE for an absent bias */
  uint32_t n_outputs;
  uint32_t outputs[2];
  uint32_t flags;
  /* Convolution / pooling: pads t,r,b,l; kernel h,w; stride h,w; dilation
   * h,w; group_in, group_out, groups; adjustment h,w. */
  uint32_t p[15];
  float fparam; /* slope, alpha, padding value */
  uint32_t n_list;
  size_t list_a[XB_PAYLOAD_MAX_DIMS]; /* perm, new_shape, offsets, pre paddings */
  size_t list_b[XB_PAYLOAD_MAX_DIMS]; /* sizes, post paddings */
} XbNode;

typedef struct
{
  XbValue *values;
  uint32_t n_values;
  XbNode *nodes;
  uint32_t n_nodes;
  uint32_t num_externs;
  /* Constants copied out of the payload (it is freed after init). */
  GPtrArray *owned;
} XbGraph;

/* Finds a named blob; returns FALSE when there is none. */
typedef gboolean (*XbNamedDataFunc) (gpointer user_data, const char *key, const void **data, size_t *size);

XbGraph *xb_payload_parse (const void *payload, size_t size, XbNamedDataFunc named, gpointer named_data,
                           GError **error);
void xb_graph_free (XbGraph *graph);

const char *xb_node_type_name (uint32_t type);
const char *xb_datatype_name (int datatype);
/* Bytes per element (1 for 8-bit types, 4 for 32-bit), 0 for packed/unknown. */
size_t xb_datatype_size (int datatype);
/* Bytes of a constant of @value's datatype and dims: 4-bit types pack two
 * elements a byte, each row of the last dim padded to a whole byte; 0 when
 * unknown. */
size_t xb_value_bytes (const XbValue *value);
size_t xb_value_numel (const XbValue *value);

/* widen.c: fp16 and bf16 values become fp32 (constants converted; external
 * values remember their type in narrow_datatype).  Returns whether any
 * value changed. */
gboolean xb_graph_widen (XbGraph *graph);
gboolean xb_graph_has_16bit_floats (const XbGraph *graph);
void xb_widen_to_fp32 (int datatype, const void *src, float *dst, size_t n);
void xb_narrow_from_fp32 (int datatype, const float *src, void *dst, size_t n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (XbGraph, xb_graph_free)
