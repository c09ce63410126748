/* payload-reader.h: the XNNPACK delegate payload, read and checked
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * xnn_payload_parse() reads the XNNHeader, the fb_xnnpack graph and its
 * constants into plain structs.  It checks every index, count and size it
 * reads: value ids name defined values, dims fit XNNPACK's rank limit,
 * constants lie inside the payload or the named data and are large enough
 * for their value.  It links nothing but GLib, so the fuzz target runs it
 * without XNNPACK.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#define XNN_PAYLOAD_MAX_DIMS 6      /* XNN_MAX_TENSOR_DIMS of Debian's XNNPACK */
#define XNN_PAYLOAD_MAX_EXTERNS 4096
#define XNN_PAYLOAD_NO_VALUE UINT32_MAX

/* fb_xnnpack.XNNDatatype */
enum {
  XNN_DT_INVALID = 0, XNN_DT_FP32 = 1, XNN_DT_FP16 = 2, XNN_DT_QINT8 = 3, XNN_DT_QUINT8 = 4,
  XNN_DT_QINT32 = 5, XNN_DT_QCINT8 = 6, XNN_DT_QCINT32 = 7, XNN_DT_QCINT4 = 8,
  XNN_DT_QDINT8 = 9, XNN_DT_QBINT4 = 10, XNN_DT_QPINT8 = 11, XNN_DT_INT32 = 12,
  XNN_DT_PFP32 = 13, XNN_DT_BF16 = 14, XNN_DT_N = 15,
};

/* Quantization kinds: the XNNQuantParams union tags. */
enum {
  XNN_QUANT_NONE = 0, XNN_QUANT_PER_CHANNEL = 1, XNN_QUANT_PER_TENSOR = 2,
  XNN_QUANT_PER_TOKEN = 3, XNN_QUANT_PER_CHANNEL_GROUP = 4,
};

/* Node types: the XNodeUnion tags. */
enum {
  XNN_NODE_ADD = 1, XNN_NODE_FULLY_CONNECTED, XNN_NODE_SOFTMAX, XNN_NODE_SIGMOID,
  XNN_NODE_STATIC_TRANSPOSE, XNN_NODE_CLAMP, XNN_NODE_CONV2D, XNN_NODE_DIV,
  XNN_NODE_STATIC_RESIZE_BILINEAR_2D, XNN_NODE_STATIC_CONSTANT_PAD, XNN_NODE_AVG_POOLING_2D,
  XNN_NODE_MINIMUM, XNN_NODE_DEPTHWISE_CONV2D, XNN_NODE_MAX_POOLING_2D, XNN_NODE_MULTIPLY,
  XNN_NODE_SUBTRACT, XNN_NODE_FLOOR, XNN_NODE_CONVERT, XNN_NODE_GLOBAL_AVG_POOLING_2D,
  XNN_NODE_STATIC_RESHAPE, XNN_NODE_ARGMAX_POOLING_2D, XNN_NODE_SQUARE_ROOT, XNN_NODE_CEILING,
  XNN_NODE_HARDSWISH, XNN_NODE_LEAKY_RELU, XNN_NODE_MAXIMUM, XNN_NODE_NEGATE, XNN_NODE_SQUARE,
  XNN_NODE_ELU, XNN_NODE_ABS, XNN_NODE_PRELU, XNN_NODE_CONCATENATE2, XNN_NODE_CONCATENATE3,
  XNN_NODE_CONCATENATE4, XNN_NODE_STATIC_SLICE, XNN_NODE_SDPA, XNN_NODE_BATCH_MATRIX_MULTIPLY,
  XNN_NODE_CONCATENATE5, XNN_NODE_CONV_TRANSPOSE_2D, XNN_NODE_RSQRT, XNN_NODE_LOG,
  XNN_NODE_GELU, XNN_NODE_TANH, XNN_NODE_EXP, XNN_NODE_SIN, XNN_NODE_COPY, XNN_NODE_COS,
  XNN_NODE_N_TYPES,
};

typedef struct {
  uint32_t id;               /* the serialized id (id_out) */
  int16_t datatype;          /* XNN_DT_* */
  int16_t dq_datatype;
  uint32_t ndim;
  size_t dims[XNN_PAYLOAD_MAX_DIMS];
  uint32_t constant_index;   /* 0 = not constant */
  uint32_t external_id;
  uint32_t flags;            /* EXTERNAL_INPUT 0x1 | EXTERNAL_OUTPUT 0x2 */
  int quant;                 /* XNN_QUANT_* */
  float scale;
  int32_t zero_point;
  int32_t channel_dim;
  uint32_t n_scales;
  float *scales;             /* per-channel scales (owned), n_scales of them */
  const void *data;          /* constant data, or NULL */
  size_t data_size;
} XnnValue;

typedef struct {
  uint32_t type;             /* XNN_NODE_* */
  uint32_t debug_handle;
  float output_min, output_max;
  uint32_t n_inputs;
  uint32_t inputs[5];        /* value indices (not ids); NO_VALUE for an absent bias */
  uint32_t n_outputs;
  uint32_t outputs[2];
  uint32_t flags;
  /* Convolution / pooling: pads t,r,b,l; kernel h,w; stride h,w; dilation
   * h,w; group_in, group_out, groups; adjustment h,w. */
  uint32_t p[15];
  float fparam;              /* slope, alpha, padding value */
  uint32_t n_list;
  size_t list_a[XNN_PAYLOAD_MAX_DIMS];  /* perm, new_shape, offsets, pre paddings */
  size_t list_b[XNN_PAYLOAD_MAX_DIMS];  /* sizes, post paddings */
} XnnNode;

typedef struct {
  XnnValue *values;
  uint32_t n_values;
  XnnNode *nodes;
  uint32_t n_nodes;
  uint32_t num_externs;
  /* Constants copied out of the payload (it is freed after init). */
  GPtrArray *owned;
} XnnGraph;

/* Finds a named blob; returns FALSE when there is none. */
typedef gboolean (*XnnNamedDataFunc) (gpointer user_data, const char *key, const void **data,
                                      size_t *size);

XnnGraph *xnn_payload_parse (const void *payload, size_t size, XnnNamedDataFunc named,
                             gpointer named_data, GError **error);
void xnn_graph_free (XnnGraph *graph);

const char *xnn_node_type_name (uint32_t type);
const char *xnn_datatype_name (int datatype);
/* Bytes per element (1 for 8-bit types, 4 for 32-bit), 0 for packed/unknown. */
size_t xnn_datatype_size (int datatype);
size_t xnn_value_numel (const XnnValue *value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (XnnGraph, xnn_graph_free)
