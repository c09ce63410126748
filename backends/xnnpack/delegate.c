/* delegate.c: the "XnnpackBackend" delegate on Debian's XNNPACK
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * init: the payload is read and checked (payload-reader.c), every node's
 * output shape is checked (shape-inference.c), and the graph is cut into steps:
 * runs of nodes XNNPACK defines become one XNNPACK runtime each, the nodes
 * it lacks run in host-nodes.c between them.  Values crossing a step boundary
 * live in buffers of this delegate.  execute binds the delegate's argument
 * tensors and runs the steps; when an input's shape changes (dynamic
 * shapes), the shapes are inferred again and the runtimes rebuilt.
 */
#include "executorch-plugin.h"
#include "executorch-threadpool.h"

#include <math.h>
#include <pthreadpool.h>
#include <stdlib.h>
#include <string.h>
#include <xnnpack.h>

#include "backend-private.h"
#include "xnnpack-api.h" /* what the installed XNNPACK offers (meson.build) */
#define XB_DQ_DEFINE_XNN 1
#include "dynamic-quant.h"
#include "conv-split.h"
#include "fc-operator.h"
#include "profile.h"
#include "weights-cache.h"

/* The quark name is a string, not an expression. */
/* clang-format off */
G_DEFINE_QUARK (executorch-xnnpack-error-quark, xb_error)
/* clang-format on */

/* The 2024 library sizes its operators in a step of its own (reshape) and
 * binds pointers in another (setup): both can happen at load, and a new
 * input shape needs no new runtime. */
#if defined(HAVE_XNN_RESHAPE_RUNTIME) && defined(HAVE_XNN_RESHAPE_EXTERNAL_VALUE) && \
    defined(HAVE_XNN_SETUP_RUNTIME_V2) && defined(HAVE_XNN_GET_EXTERNAL_VALUE_SHAPE)
#define XB_HAVE_RESHAPE 1
#endif
/* Packed weights kept across rebuilds (a new thread pool). */
#if (defined(HAVE_XNN_CREATE_WEIGHTS_CACHE) && defined(HAVE_XNN_CREATE_RUNTIME_V3)) || defined(XB_HAVE_OWN_WEIGHTS_CACHE)
#define XB_HAVE_WEIGHTS_CACHE 1
#endif

typedef struct
{
  gboolean host;
  uint32_t first, end;   /* nodes [first, end) */
  xnn_runtime_t runtime; /* on the pool when pooled, else on the calling thread */
  gboolean pooled;
  xnn_runtime_t serial_runtime; /* pooled steps: the same on the calling thread, made when first needed */
  gboolean serial_bound;
  uint32_t n_ext;
  uint32_t *ext_values; /* XNNPACK external id -> graph value */
  struct xnn_external_value *ext;
  gboolean *ext_written; /* per external id: this step writes it */
  gboolean bound;
} Step;

typedef struct
{
  XbGraph *graph;
  XbShape *shapes;      /* current shapes */
  XbShape *good_shapes; /* the last shapes that built */
  gboolean *host;       /* per node */
  gboolean *boundary;   /* per value */
  void **buffers;       /* per value: this delegate's memory, or NULL */
  void **ptr;           /* per value: data at execute */
  Step *steps;
  uint32_t n_steps;
  uint32_t *step_id;        /* scratch: per value, its id in the step being built */
  gboolean slice_linears;   /* scratch: the step being built runs on the calling thread only */
  XbDqLinear **dq;          /* per node: repacked weights of a host dynamically quantized linear */
  XbFcOperator **fc;        /* per node: a host fp32 linear's operator (fc-operator.c) */
  struct pthreadpool *pool; /* the pool the runtimes were created with */
  gboolean wants_pool;      /* some step runs on the pool */
  XbThreading threading;
#ifdef XB_HAVE_WEIGHTS_CACHE
  xnn_weights_cache_t weights_cache; /* NULL: runtimes without one */
#endif
#ifdef XB_HAVE_OWN_WEIGHTS_CACHE
  XbWeightsCache *own_cache; /* behind weights_cache */
#endif
  XbProfile *profile; /* EXECUTORCH_XNNPACK_PROFILE, else NULL (profile.c) */
} Delegate;

static GMutex init_lock;
static gboolean library_ready;

static const char *
status_name (enum xnn_status s)
{
  switch (s)
    {
      case xnn_status_success: return "success";
      case xnn_status_uninitialized: return "uninitialized";
      case xnn_status_invalid_parameter: return "invalid parameter";
      case xnn_status_invalid_state: return "invalid state";
      case xnn_status_unsupported_parameter: return "unsupported parameter";
      case xnn_status_unsupported_hardware: return "unsupported hardware";
      case xnn_status_out_of_memory: return "out of memory";
      default: return "unknown status";
    }
}

static void
free_steps (Delegate *d)
{
  for (uint32_t i = 0; i < d->n_steps; i++)
    {
      if (d->steps[i].runtime)
        xnn_delete_runtime (d->steps[i].runtime);
      if (d->steps[i].serial_runtime)
        xnn_delete_runtime (d->steps[i].serial_runtime);
      g_free (d->steps[i].ext_values);
      g_free (d->steps[i].ext);
      g_free (d->steps[i].ext_written);
    }
  g_clear_pointer (&d->steps, g_free);
  d->n_steps = 0;
  if (d->buffers)
    for (uint32_t v = 0; v < d->graph->n_values; v++)
      g_clear_pointer (&d->buffers[v], free);
}

#ifdef XB_HAVE_WEIGHTS_CACHE
/* Packed weights shared by the runtimes of a delegate: our own cache,
 * on huge pages, where XNNPACK takes a provider (weights-cache.c), else
 * XNNPACK's; none when it cannot be made. */
static void
weights_cache_start (Delegate *d)
{
#ifdef XB_HAVE_OWN_WEIGHTS_CACHE
  d->own_cache = xb_weights_cache_new ();
  d->weights_cache = xb_weights_cache_provider (d->own_cache);
#else
  if (xnn_create_weights_cache (&d->weights_cache) != xnn_status_success)
    d->weights_cache = NULL;
#endif
}

static void
weights_cache_drop (Delegate *d)
{
#ifdef XB_HAVE_OWN_WEIGHTS_CACHE
  g_clear_pointer (&d->own_cache, xb_weights_cache_free);
#else
  if (d->weights_cache)
    xnn_delete_weights_cache (d->weights_cache);
#endif
  d->weights_cache = NULL;
}

/* Soft: a rebuild (for a new thread pool) finds every weight packed. */
static gboolean
weights_cache_finalize (Delegate *d)
{
#ifdef XB_HAVE_OWN_WEIGHTS_CACHE
  xb_weights_cache_finalize (d->own_cache);
  return TRUE;
#else
  return d->weights_cache == NULL || xnn_weights_cache_is_finalized (d->weights_cache) ||
         xnn_finalize_weights_cache (d->weights_cache, xnn_weights_cache_finalization_kind_soft) == xnn_status_success;
#endif
}
#endif

static void
delegate_free (Delegate *d)
{
  if (d == NULL)
    return;
  if (d->graph)
    free_steps (d);
#ifdef XB_HAVE_WEIGHTS_CACHE
  /* After the runtimes that use it. */
  weights_cache_drop (d);
#endif
  g_free (d->buffers);
  g_free (d->ptr);
  g_free (d->shapes);
  g_free (d->good_shapes);
  g_free (d->host);
  g_free (d->boundary);
  g_free (d->step_id);
  if (d->dq)
    for (uint32_t i = 0; i < d->graph->n_nodes; i++)
      xb_dq_linear_free (d->dq[i]);
  g_free (d->dq);
  if (d->fc)
    for (uint32_t i = 0; i < d->graph->n_nodes; i++)
      xb_fc_operator_free (d->fc[i]);
  g_free (d->fc);
  xb_graph_free (d->graph);
  xb_profile_report_and_free (d->profile);
  g_free (d);
}

/* Datatypes XNNPACK takes here.  fp16 and bf16 values never reach this
 * check as such when the library cannot run them: widen.c turns them into
 * fp32 first. */
static gboolean
library_has_datatype (int dt)
{
  return dt == XB_DT_FP32 || dt == XB_DT_FP16 || dt == XB_DT_QINT8 || dt == XB_DT_QUINT8 || dt == XB_DT_QINT32 ||
         dt == XB_DT_QCINT8 || dt == XB_DT_QCINT32;
}

/* fb_xnnpack's datatype numbers are not XNNPACK's (int32 and the 4-bit
 * types moved between releases): mapped by name. */
static enum xnn_datatype
library_datatype (int dt)
{
  switch (dt)
    {
      case XB_DT_FP32: return xnn_datatype_fp32;
      case XB_DT_FP16: return xnn_datatype_fp16;
      case XB_DT_QINT8: return xnn_datatype_qint8;
      case XB_DT_QUINT8: return xnn_datatype_quint8;
      case XB_DT_QINT32: return xnn_datatype_qint32;
      case XB_DT_QCINT8: return xnn_datatype_qcint8;
      case XB_DT_QCINT32: return xnn_datatype_qcint32;
#ifdef HAVE_XNN_DATATYPE_INT32
      case XB_DT_INT32: return xnn_datatype_int32;
#endif
#ifdef HAVE_XNN_DATATYPE_BF16
      case XB_DT_BF16: return xnn_datatype_bf16;
#endif
      default: return xnn_datatype_invalid;
    }
}

/* Whether an output clamp is a no-op (the unary nodes of the newer API
 * have none). */
G_GNUC_UNUSED static gboolean
unbounded (const XbNode *n)
{
  return n->output_min == -INFINITY && n->output_max == INFINITY;
}

/* Nodes the installed XNNPACK can define.  The 2024 library defines data
 * movement, batch matmul and more unary ops that the 2022 one lacks (those
 * run in host-nodes.c there). */
static gboolean
library_has_node (const XbNode *n)
{
  switch (n->type)
    {
      case XB_NODE_ADD:
      case XB_NODE_FULLY_CONNECTED:
      case XB_NODE_SOFTMAX:
      case XB_NODE_SIGMOID:
      case XB_NODE_CLAMP:
      case XB_NODE_CONV2D:
      case XB_NODE_DIV:
      case XB_NODE_STATIC_RESIZE_BILINEAR_2D:
      case XB_NODE_STATIC_CONSTANT_PAD:
      case XB_NODE_AVG_POOLING_2D:
      case XB_NODE_MINIMUM:
      case XB_NODE_DEPTHWISE_CONV2D:
      case XB_NODE_MAX_POOLING_2D:
      case XB_NODE_MULTIPLY:
      case XB_NODE_SUBTRACT:
      case XB_NODE_FLOOR:
      case XB_NODE_CONVERT:
      case XB_NODE_GLOBAL_AVG_POOLING_2D:
      case XB_NODE_STATIC_RESHAPE:
      case XB_NODE_SQUARE_ROOT:
      case XB_NODE_CEILING:
      case XB_NODE_HARDSWISH:
      case XB_NODE_LEAKY_RELU:
      case XB_NODE_MAXIMUM:
      case XB_NODE_NEGATE:
      case XB_NODE_SQUARE:
      case XB_NODE_ELU:
      case XB_NODE_ABS:
      case XB_NODE_PRELU:
      case XB_NODE_CONV_TRANSPOSE_2D: return TRUE;
#ifdef HAVE_XNN_DEFINE_STATIC_TRANSPOSE
      case XB_NODE_STATIC_TRANSPOSE: return TRUE;
#endif
#ifdef HAVE_XNN_DEFINE_STATIC_SLICE
      case XB_NODE_STATIC_SLICE: return TRUE;
#endif
#ifdef HAVE_XNN_DEFINE_COPY
      case XB_NODE_COPY: return TRUE;
#endif
#if defined(HAVE_XNN_DEFINE_CONCATENATE2) && defined(HAVE_XNN_DEFINE_CONCATENATE5)
      case XB_NODE_CONCATENATE2:
      case XB_NODE_CONCATENATE3:
      case XB_NODE_CONCATENATE4:
      case XB_NODE_CONCATENATE5: return TRUE;
#endif
#ifdef HAVE_XNN_DEFINE_BATCH_MATRIX_MULTIPLY
      case XB_NODE_BATCH_MATRIX_MULTIPLY: return TRUE;
#endif
#ifdef HAVE_XNN_DEFINE_UNARY
      case XB_NODE_TANH:
      case XB_NODE_EXP:
      case XB_NODE_LOG:
      case XB_NODE_GELU:
      case XB_NODE_RSQRT: return unbounded (n);
#if defined(HAVE_XNN_UNARY_SINE) && defined(HAVE_XNN_UNARY_COSINE)
      case XB_NODE_SIN:
      case XB_NODE_COS: return unbounded (n);
#endif
#endif
      default: return FALSE;
    }
}

/* Whether @n is an int8 fully-connected with per-channel weights in the
 * form the installed XNNPACK runs (qs8-qc8w: the 2024 library), so that it
 * stays in the runtime instead of splitting it around a host node. */
static gboolean
library_has_qc8w_fc (const XbGraph *g, const XbNode *n)
{
#ifdef HAVE_XNN_CREATE_FULLY_CONNECTED_NC_QS8_QC8W
  if (n->n_inputs < 2 || n->n_outputs < 1 || n->inputs[0] == XB_PAYLOAD_NO_VALUE || n->inputs[1] == XB_PAYLOAD_NO_VALUE)
    return FALSE;
  const XbValue *x = &g->values[n->inputs[0]], *w = &g->values[n->inputs[1]], *y = &g->values[n->outputs[0]];
  const XbValue *b = n->n_inputs > 2 && n->inputs[2] != XB_PAYLOAD_NO_VALUE ? &g->values[n->inputs[2]] : NULL;
  return x->datatype == XB_DT_QINT8 && x->quant == XB_QUANT_PER_TENSOR && w->datatype == XB_DT_QCINT8 &&
         w->quant == XB_QUANT_PER_CHANNEL && w->channel_dim == 0 && w->data != NULL && y->datatype == XB_DT_QINT8 &&
         y->quant == XB_QUANT_PER_TENSOR && !(n->flags & 1) &&
         (b == NULL || (b->datatype == XB_DT_QCINT32 && b->quant == XB_QUANT_PER_CHANNEL && b->data != NULL));
#else
  (void) g;
  (void) n;
  return FALSE;
#endif
}

static gboolean node_fail (GError **error, const XbGraph *g, uint32_t i, int code, const char *format, ...)
    G_GNUC_PRINTF (5, 6);

static gboolean
node_fail (GError **error, const XbGraph *g, uint32_t i, int code, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, XB_ERROR, code, "XNNPACK node %u (%s): %s", i, xb_node_type_name (g->nodes[i].type), msg);
  return FALSE;
}

/* Decides, once, which nodes run where; refuses what neither can run. */
static gboolean
classify (Delegate *d, GError **error)
{
  const XbGraph *g = d->graph;
  const char *dq_missing = NULL;
  gboolean dq_library = xb_dq_library_supports (g, &dq_missing);
  for (uint32_t i = 0; i < g->n_nodes; i++)
    {
      const XbNode *n = &g->nodes[i];
      const char *why = NULL;
      /* Dynamic quantization: all on XNNPACK where it has everything the
       * graph uses, else all here (a qdint8 value never crosses steps). */
      if (xb_dq_node_is_dynamic (g, n))
        {
          if (!dq_library && !xb_dq_host_supports (g, n, &why))
            return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED, "dynamically quantized values: %s; %s", dq_missing,
                              why);
          d->host[i] = !dq_library;
          for (uint32_t k = 1; n->type == XB_NODE_FULLY_CONNECTED && k < n->n_inputs; k++)
            if (n->inputs[k] != XB_PAYLOAD_NO_VALUE && g->values[n->inputs[k]].data == NULL)
              return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED, "a filter or bias that is not constant (value %u)",
                                n->inputs[k]);
          continue;
        }
      for (uint32_t k = 0; k < n->n_inputs + n->n_outputs; k++)
        {
          uint32_t v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
          if (v == XB_PAYLOAD_NO_VALUE)
            continue;
          const XbValue *val = &g->values[v];
          if (!library_has_datatype (val->datatype))
            return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED,
                              "datatype %s (value %u) is not supported by the installed XNNPACK",
                              xb_datatype_name (val->datatype), v);
        }
      /* XNNPACK first (one runtime rather than several around host nodes);
       * fully-connected keeps its host path for per-channel weights where
       * the library lacks them (2022). */
      gboolean library = library_has_node (n);
      if (library && (n->type != XB_NODE_FULLY_CONNECTED || library_has_qc8w_fc (g, n)))
        d->host[i] = FALSE;
      else if (xb_fc_operator_supports (g, n))
        d->host[i] = TRUE;
      else if (xb_host_supports (g, n, &why))
        d->host[i] = TRUE;
      else if (why != NULL)
        return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED,
                          "neither the installed XNNPACK nor this library runs it: %s", why);
      else if (library)
        d->host[i] = FALSE;
      else
        return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED, "not supported by the installed XNNPACK");
      /* Inputs must be computed before they are read. */
      for (uint32_t k = 0; k < n->n_inputs; k++)
        {
          uint32_t v = n->inputs[k];
          if (v == XB_PAYLOAD_NO_VALUE)
            continue;
          if (k > 0 &&
              (n->type == XB_NODE_FULLY_CONNECTED || n->type == XB_NODE_CONV2D || n->type == XB_NODE_DEPTHWISE_CONV2D ||
               n->type == XB_NODE_CONV_TRANSPOSE_2D || n->type == XB_NODE_PRELU) &&
              g->values[v].data == NULL)
            return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED,
                              "a filter, bias or slope that is not constant (value %u)", v);
        }
    }
  return TRUE;
}

/* XNNPACK (whose Debian build keeps its assertions) gets no empty tensors
 * and nothing absurdly large. */
static gboolean
shape_ok (const XbGraph *g, uint32_t node, uint32_t v, const XbShape *s, GError **error)
{
  size_t numel = 1;
  for (uint32_t e = 0; e < s->ndim; e++)
    {
      if (s->dims[e] == 0)
        return node_fail (error, g, node, ET_ERROR_NOT_SUPPORTED, "value %u has no elements", v);
      if (numel > (G_GUINT64_CONSTANT (1) << 36) / s->dims[e])
        return node_fail (error, g, node, ET_ERROR_INVALID_PROGRAM, "value %u is too large", v);
      numel *= s->dims[e];
    }
  return TRUE;
}

/* Shapes from the current input shapes; checks each node. */
static gboolean
infer_shapes (Delegate *d, gboolean check_declared, GError **error)
{
  const XbGraph *g = d->graph;
  g_autofree gboolean *written = g_new0 (gboolean, g->n_values ? g->n_values : 1);
  for (uint32_t v = 0; v < g->n_values; v++)
    if (g->values[v].flags && !shape_ok (g, 0, v, &d->shapes[v], error))
      return FALSE;
  for (uint32_t i = 0; i < g->n_nodes; i++)
    {
      const XbNode *n = &g->nodes[i];
      for (uint32_t k = 0; k < n->n_inputs; k++)
        {
          uint32_t v = n->inputs[k];
          if (v == XB_PAYLOAD_NO_VALUE)
            continue;
          if (g->values[v].data == NULL && !(g->values[v].flags & 1) && !written[v])
            return node_fail (error, g, i, ET_ERROR_INVALID_PROGRAM, "reads value %u before any node writes it", v);
          if (!shape_ok (g, i, v, &d->shapes[v], error))
            return FALSE;
        }
      XbShape declared[2];
      for (uint32_t k = 0; k < n->n_outputs; k++)
        {
          if (written[n->outputs[k]])
            return node_fail (error, g, i, ET_ERROR_INVALID_PROGRAM, "writes value %u a second time", n->outputs[k]);
          declared[k] = d->shapes[n->outputs[k]];
        }
      if (!xb_shape_infer_node (g, i, d->shapes, error))
        return FALSE;
      for (uint32_t k = 0; k < n->n_outputs; k++)
        {
          uint32_t v = n->outputs[k];
          written[v] = TRUE;
          const XbShape *s = &d->shapes[v];
          if (check_declared &&
              (s->ndim != declared[k].ndim || memcmp (s->dims, declared[k].dims, s->ndim * sizeof s->dims[0])))
            return node_fail (error, g, i, ET_ERROR_INVALID_PROGRAM,
                              "value %u is declared with other dims than the node computes", v);
          if (!shape_ok (g, i, v, s, error))
            return FALSE;
        }
    }
  for (uint32_t v = 0; v < g->n_values; v++)
    if ((g->values[v].flags & 2) && !written[v])
      return node_fail (error, g, 0, ET_ERROR_INVALID_PROGRAM, "external output value %u is never written", v);
  return TRUE;
}

static enum xnn_status
define_value (Delegate *d, xnn_subgraph_t sg, uint32_t v, uint32_t ext_id, uint32_t flags, uint32_t *id)
{
  const XbValue *val = &d->graph->values[v];
  const XbShape *s = &d->shapes[v];
  gboolean handled;
  enum xnn_status dq_status = xb_dq_define_value (sg, val, s, ext_id, flags, id, &handled);
  if (handled)
    return dq_status;
  enum xnn_datatype dt = library_datatype (val->datatype);
  /* A 0-dim value (a scalar) is [1] to XNNPACK, as upstream serializes it. */
  static const size_t one[1] = { 1 };
  size_t ndim = s->ndim ? s->ndim : 1;
  const size_t *dims = s->ndim ? s->dims : one;
  switch (val->quant)
    {
      case XB_QUANT_PER_TENSOR:
        return xnn_define_quantized_tensor_value (sg, dt, val->zero_point, val->scale, ndim, dims, val->data, ext_id,
                                                  flags, id);
      case XB_QUANT_PER_CHANNEL:
        return xnn_define_channelwise_quantized_tensor_value (sg, dt, val->scales, ndim, val->channel_dim, dims,
                                                              val->data, ext_id, flags, id);
      default: return xnn_define_tensor_value (sg, dt, ndim, dims, val->data, ext_id, flags, id);
    }
}

/* The per-operator calls the 2024 library deprecates, through the
 * xnn_define_binary / xnn_define_unary it has instead. */
#ifdef HAVE_XNN_DEFINE_BINARY
static enum xnn_status
define_binary (xnn_subgraph_t sg, enum xnn_binary_operator op, const XbNode *n, uint32_t a, uint32_t b, uint32_t o)
{
  struct xnn_binary_params params = { .output_min = n->output_min, .output_max = n->output_max };
  return xnn_define_binary (sg, op, unbounded (n) ? NULL : &params, a, b, o, 0);
}
#define BINARY(op, legacy) define_binary (sg, xnn_binary_##op, n, i0, i1, o)
#else
#define BINARY(op, legacy) (legacy)
#endif

#ifdef HAVE_XNN_DEFINE_UNARY
#define UNARY(op, legacy) xnn_define_unary (sg, xnn_unary_##op, NULL, i0, o, 0)
#else
#define UNARY(op, legacy) (legacy)
#endif

static enum xnn_status
define_clamp (xnn_subgraph_t sg, float lo, float hi, uint32_t i0, uint32_t o)
{
#ifdef HAVE_XNN_DEFINE_UNARY
  union xnn_unary_params params = { .clamp = { .min = lo, .max = hi } };
  return xnn_define_unary (sg, xnn_unary_clamp, &params, i0, o, 0);
#else
  return xnn_define_clamp (sg, lo, hi, i0, o, 0);
#endif
}

static enum xnn_status
define_elu (xnn_subgraph_t sg, float alpha, uint32_t i0, uint32_t o)
{
#ifdef HAVE_XNN_DEFINE_UNARY
  union xnn_unary_params params = { .elu = { .alpha = alpha } };
  return xnn_define_unary (sg, xnn_unary_elu, &params, i0, o, 0);
#else
  return xnn_define_elu (sg, alpha, i0, o, 0);
#endif
}

static enum xnn_status
define_leaky_relu (xnn_subgraph_t sg, float slope, uint32_t i0, uint32_t o)
{
#ifdef HAVE_XNN_DEFINE_UNARY
  union xnn_unary_params params = { .leaky_relu = { .negative_slope = slope } };
  return xnn_define_unary (sg, xnn_unary_leaky_relu, &params, i0, o, 0);
#else
  return xnn_define_leaky_relu (sg, slope, i0, o, 0);
#endif
}

/* Mean over H and W of an NHWC tensor.  The 2024 library sizes the output
 * itself: it keeps the reduced dims only when told (XNN_FLAG_KEEP_DIMS), so
 * a 4-D output such as a squeeze-excitation block's needs the flag. */
static enum xnn_status
define_global_average_pooling (Delegate *d, xnn_subgraph_t sg, const XbNode *n, uint32_t i0, uint32_t o)
{
  gboolean keep = d->shapes[n->outputs[0]].ndim == d->shapes[n->inputs[0]].ndim;
#ifdef HAVE_XNN_DEFINE_STATIC_REDUCE
  static const size_t axes[2] = { 1, 2 };
  uint32_t flags = keep ? XNN_FLAG_KEEP_DIMS : 0;
  if (unbounded (n))
    return xnn_define_static_reduce (sg, xnn_reduce_mean, 2, axes, i0, o, flags);
  /* The reduction has no output clamp: mean into a value of this subgraph, then clamp. */
  const XbShape *s = &d->shapes[n->outputs[0]];
  uint32_t mean = XNN_INVALID_VALUE_ID;
  enum xnn_status st = xnn_define_tensor_value (sg, library_datatype (d->graph->values[n->outputs[0]].datatype),
                                                s->ndim, s->dims, NULL, XNN_INVALID_VALUE_ID, 0, &mean);
  if (st == xnn_status_success)
    st = xnn_define_static_reduce (sg, xnn_reduce_mean, 2, axes, i0, mean, flags);
  if (st == xnn_status_success)
    st = define_clamp (sg, n->output_min, n->output_max, mean, o);
  return st;
#else
  (void) keep; /* the 2022 library's output is always 4-D */
  return xnn_define_global_average_pooling_2d (sg, n->output_min, n->output_max, i0, o, 0);
#endif
}

static enum xnn_status
define_node (Delegate *d, xnn_subgraph_t sg, const XbNode *n)
{
  const uint32_t *sid = d->step_id;
  uint32_t in[5];
  for (uint32_t k = 0; k < 5; k++)
    in[k] = k < n->n_inputs && n->inputs[k] != XB_PAYLOAD_NO_VALUE ? sid[n->inputs[k]] : XNN_INVALID_VALUE_ID;
  uint32_t i0 = in[0], i1 = in[1], i2 = in[2];
  uint32_t o = sid[n->outputs[0]];
  float lo = n->output_min, hi = n->output_max;
  const uint32_t *p = n->p;
  const XbShape *os = &d->shapes[n->outputs[0]];
  switch (n->type)
    {
      case XB_NODE_ADD: return BINARY (add, xnn_define_add2 (sg, lo, hi, i0, i1, o, 0));
      case XB_NODE_MULTIPLY: return BINARY (multiply, xnn_define_multiply2 (sg, lo, hi, i0, i1, o, 0));
      case XB_NODE_SUBTRACT: return BINARY (subtract, xnn_define_subtract (sg, lo, hi, i0, i1, o, 0));
      case XB_NODE_DIV: return BINARY (divide, xnn_define_divide (sg, lo, hi, i0, i1, o, 0));
      case XB_NODE_MINIMUM: return BINARY (minimum, xnn_define_minimum2 (sg, i0, i1, o, 0));
      case XB_NODE_MAXIMUM: return BINARY (maximum, xnn_define_maximum2 (sg, i0, i1, o, 0));
      case XB_NODE_PRELU: return BINARY (prelu, xnn_define_prelu (sg, i0, i1, o, 0));
      case XB_NODE_FULLY_CONNECTED:
        /* Weights beyond L2: in slices, for the 2024 library's tiling, on
         * one thread only.  On the pool the slices paid nothing for a
         * prompt and cost a decode step 5% (more regions); a pooled step's
         * twin on the calling thread stays whole so that both find the
         * same packed weights. */
        if (d->slice_linears && xb_conv_split_wanted (d->graph, n, d->shapes))
          return xb_conv_define_split (d->graph, n, d->shapes, sg, i0, o);
        return xnn_define_fully_connected (sg, lo, hi, i0, i1, i2, o, n->flags);
      case XB_NODE_SOFTMAX: return xnn_define_softmax (sg, i0, o, 0);
      case XB_NODE_SIGMOID: return UNARY (sigmoid, xnn_define_sigmoid (sg, i0, o, 0));
      case XB_NODE_CLAMP: return define_clamp (sg, lo, hi, i0, o);
      case XB_NODE_FLOOR: return UNARY (floor, xnn_define_floor (sg, i0, o, 0));
      case XB_NODE_CEILING: return UNARY (ceiling, xnn_define_ceiling (sg, i0, o, 0));
      case XB_NODE_SQUARE_ROOT: return UNARY (square_root, xnn_define_square_root (sg, i0, o, 0));
      case XB_NODE_SQUARE: return UNARY (square, xnn_define_square (sg, i0, o, 0));
      case XB_NODE_NEGATE: return UNARY (negate, xnn_define_negate (sg, i0, o, 0));
      case XB_NODE_ABS: return UNARY (abs, xnn_define_abs (sg, i0, o, 0));
      case XB_NODE_HARDSWISH: return UNARY (hardswish, xnn_define_hardswish (sg, i0, o, 0));
      case XB_NODE_LEAKY_RELU: return define_leaky_relu (sg, n->fparam, i0, o);
      case XB_NODE_ELU: return define_elu (sg, n->fparam, i0, o);
      case XB_NODE_CONVERT: return UNARY (convert, xnn_define_convert (sg, i0, o, 0));
#ifdef HAVE_XNN_DEFINE_UNARY
      case XB_NODE_TANH: return UNARY (tanh, 0);
      case XB_NODE_EXP: return UNARY (exp, 0);
      case XB_NODE_LOG: return UNARY (log, 0);
      case XB_NODE_GELU: return UNARY (gelu, 0);
      case XB_NODE_RSQRT: return UNARY (reciprocal_square_root, 0);
#if defined(HAVE_XNN_UNARY_SINE) && defined(HAVE_XNN_UNARY_COSINE)
      case XB_NODE_SIN: return UNARY (sine, 0);
      case XB_NODE_COS: return UNARY (cosine, 0);
#endif
#endif
#ifdef HAVE_XNN_DEFINE_STATIC_TRANSPOSE
      case XB_NODE_STATIC_TRANSPOSE: return xnn_define_static_transpose (sg, n->n_list, n->list_a, i0, o, 0);
#endif
#ifdef HAVE_XNN_DEFINE_STATIC_SLICE
      case XB_NODE_STATIC_SLICE:
        /* The computed sizes: a size of 0 in the payload means "to the end". */
        return xnn_define_static_slice (sg, n->n_list, n->list_a, os->dims, i0, o, 0);
#endif
#ifdef HAVE_XNN_DEFINE_COPY
      case XB_NODE_COPY: return xnn_define_copy (sg, i0, o, 0);
#endif
#if defined(HAVE_XNN_DEFINE_CONCATENATE2) && defined(HAVE_XNN_DEFINE_CONCATENATE5)
      case XB_NODE_CONCATENATE2: return xnn_define_concatenate2 (sg, p[0], i0, i1, o, 0);
      case XB_NODE_CONCATENATE3: return xnn_define_concatenate3 (sg, p[0], i0, i1, i2, o, 0);
      case XB_NODE_CONCATENATE4: return xnn_define_concatenate4 (sg, p[0], i0, i1, i2, in[3], o, 0);
      case XB_NODE_CONCATENATE5: return xnn_define_concatenate5 (sg, p[0], i0, i1, i2, in[3], in[4], o, 0);
#endif
#ifdef HAVE_XNN_DEFINE_BATCH_MATRIX_MULTIPLY
      case XB_NODE_BATCH_MATRIX_MULTIPLY: return xnn_define_batch_matrix_multiply (sg, i0, i1, o, n->flags);
#endif
      case XB_NODE_GLOBAL_AVG_POOLING_2D: return define_global_average_pooling (d, sg, n, i0, o);
      case XB_NODE_STATIC_RESHAPE:
        {
          static const size_t one[1] = { 1 };
          return xnn_define_static_reshape (sg, os->ndim ? os->ndim : 1, os->ndim ? os->dims : one, i0, o, 0);
        }
      case XB_NODE_STATIC_CONSTANT_PAD:
        return xnn_define_static_constant_pad (sg, n->list_a, n->list_b, n->fparam, i0, o, 0);
      case XB_NODE_STATIC_RESIZE_BILINEAR_2D:
        return xnn_define_static_resize_bilinear_2d (sg, p[0], p[1], i0, o, n->flags);
      case XB_NODE_CONV2D:
        /* Weights beyond L2: in slices, for the 2024 library's tiling. */
        if (xb_conv_split_wanted (d->graph, n, d->shapes))
          return xb_conv_define_split (d->graph, n, d->shapes, sg, i0, o);
        return xnn_define_convolution_2d (sg, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[12], p[10],
                                          p[11], lo, hi, i0, i1, i2, o, n->flags);
      case XB_NODE_DEPTHWISE_CONV2D:
        return xnn_define_depthwise_convolution_2d (sg, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9],
                                                    p[11] / p[10], p[12], lo, hi, i0, i1, i2, o, n->flags);
      case XB_NODE_CONV_TRANSPOSE_2D:
        return xnn_define_deconvolution_2d (sg, p[0], p[1], p[2], p[3], p[13], p[14], p[4], p[5], p[6], p[7], p[8],
                                            p[9], p[12], p[10], p[11], lo, hi, i0, i1, i2, o, 0);
      case XB_NODE_AVG_POOLING_2D:
        return xnn_define_average_pooling_2d (sg, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], lo, hi, i0, o,
                                              n->flags & XNN_FLAG_TENSORFLOW_SAME_PADDING);
      case XB_NODE_MAX_POOLING_2D:
        return xnn_define_max_pooling_2d (sg, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], lo, hi, i0, o,
                                          n->flags & XNN_FLAG_TENSORFLOW_SAME_PADDING);
      default: return xnn_status_unsupported_parameter;
    }
}

static size_t
value_bytes (const Delegate *d, uint32_t v)
{
  const XbShape *s = &d->shapes[v];
  if (d->graph->values[v].datatype == XB_DT_QDINT8)
    return xb_dq_value_bytes (&d->graph->values[v], s);
  size_t n = xb_datatype_size (d->graph->values[v].datatype);
  for (uint32_t e = 0; e < s->ndim; e++)
    n *= s->dims[e];
  return n;
}

static gboolean build (Delegate *d, GError **error);

/* This delegate's memory for the values that cross a step boundary (and
 * for widened 16-bit arguments), at the current shapes.  @first_step: per
 * value, the first step that touches it, UINT32_MAX for none. */
static gboolean
alloc_buffers (Delegate *d, const uint32_t *first_step, GError **error)
{
  const XbGraph *g = d->graph;
  for (uint32_t v = 0; v < g->n_values; v++)
    {
      g_clear_pointer (&d->buffers[v], free);
      /* Widened 16-bit arguments are staged in fp32 here too. */
      gboolean staged = g->values[v].flags == 0 || g->values[v].narrow_datatype != 0;
      if (!d->boundary[v] || !staged || g->values[v].data || first_step[v] == UINT32_MAX)
        continue;
      /* The payload's sizes are untrusted: an allocation may fail. */
      if (posix_memalign (&d->buffers[v], 64, value_bytes (d, v) + XNN_EXTRA_BYTES) != 0)
        {
          d->buffers[v] = NULL;
          g_set_error (error, XB_ERROR, ET_ERROR_MEMORY_ALLOCATION_FAILED,
                       "XNNPACK: no memory for value %u (%zu bytes)", v, value_bytes (d, v));
          return FALSE;
        }
      memset (d->buffers[v], 0, value_bytes (d, v) + XNN_EXTRA_BYTES);
    }
  return TRUE;
}

#ifdef XB_HAVE_RESHAPE
/* Sizes a step's operators for the current shapes and allocates their
 * memory now (at load, or when an input's shape changes) rather than in
 * the next execute, and checks that XNNPACK computes the output shapes
 * this delegate does. */
static gboolean
reshape_runtime (Delegate *d, const Step *s, xnn_runtime_t runtime, GError **error)
{
  static const size_t one[1] = { 1 };
  enum xnn_status st = xnn_status_success;
  for (uint32_t e = 0; e < s->n_ext && st == xnn_status_success; e++)
    {
      const XbShape *shape = &d->shapes[s->ext_values[e]];
      if (!s->ext_written[e])
        st = xnn_reshape_external_value (runtime, e, shape->ndim ? shape->ndim : 1, shape->ndim ? shape->dims : one);
    }
  if (st == xnn_status_success)
    st = xnn_reshape_runtime (runtime);
  if (st != xnn_status_success)
    {
      g_set_error (error, XB_ERROR, ET_ERROR_INVALID_PROGRAM, "XNNPACK: sizing nodes %u..%u failed (%s)", s->first,
                   s->end - 1, status_name (st));
      return FALSE;
    }
  for (uint32_t e = 0; e < s->n_ext; e++)
    {
      uint32_t v = s->ext_values[e];
      const XbShape *shape = &d->shapes[v];
      size_t ndim = 0, dims[XNN_MAX_TENSOR_DIMS];
      if (!s->ext_written[e])
        continue;
      st = xnn_get_external_value_shape (runtime, e, &ndim, dims);
      /* A 0-dim value is [1] to XNNPACK, or 0-dim where a node made it so. */
      gboolean same = shape->ndim ? ndim == shape->ndim && memcmp (dims, shape->dims, ndim * sizeof dims[0]) == 0
                                  : ndim == 0 || (ndim == 1 && dims[0] == 1);
      if (st != xnn_status_success || !same)
        {
          g_set_error (error, XB_ERROR, ET_ERROR_INVALID_PROGRAM,
                       "XNNPACK: nodes %u..%u give value %u another shape than the graph declares (%zu dims)", s->first,
                       s->end - 1, v, ndim);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
reshape_step (Delegate *d, Step *s, GError **error)
{
  s->bound = s->serial_bound = FALSE;
  return reshape_runtime (d, s, s->runtime, error) &&
         (s->serial_runtime == NULL || reshape_runtime (d, s, s->serial_runtime, error));
}
#endif

/* New input shapes: the 2024 library resizes its runtimes; the 2022 one
 * has them built again. */
static gboolean
resize (Delegate *d, GError **error)
{
#ifdef XB_HAVE_RESHAPE
  const XbGraph *g = d->graph;
  g_autofree uint32_t *first_step = g_new (uint32_t, g->n_values ? g->n_values : 1);
  memset (first_step, 0xff, sizeof (uint32_t) * g->n_values);
  for (uint32_t si = 0; si < d->n_steps; si++)
    for (uint32_t i = d->steps[si].first; i < d->steps[si].end; i++)
      for (uint32_t k = 0; k < g->nodes[i].n_inputs + g->nodes[i].n_outputs; k++)
        {
          const XbNode *n = &g->nodes[i];
          uint32_t v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
          if (v != XB_PAYLOAD_NO_VALUE && first_step[v] == UINT32_MAX)
            first_step[v] = si;
        }
  if (d->n_steps == 0 || !alloc_buffers (d, first_step, error))
    return d->n_steps == 0 && g->n_nodes == 0;
  /* A node whose parameters hold sizes (a reshape's new shape, a slice's
   * sizes) keeps them: XNNPACK then computes other shapes than ours, and
   * the runtimes are built again for the new ones. */
  for (uint32_t si = 0; si < d->n_steps; si++)
    {
      GError *why = NULL;
      if (!d->steps[si].host && !reshape_step (d, &d->steps[si], &why))
        {
          g_debug ("%s; building the runtimes again", why->message);
          g_error_free (why);
          return build (d, error);
        }
    }
  g_debug ("XNNPACK: runtimes resized for new input shapes");
  return TRUE;
#else
  return build (d, error);
#endif
}

/* The values step @s touches: bit 1 when it reads them, bit 2 when it
 * writes them. */
static uint8_t *
step_roles (const Delegate *d, const Step *s)
{
  const XbGraph *g = d->graph;
  uint8_t *role = g_new0 (uint8_t, g->n_values ? g->n_values : 1);
  for (uint32_t i = s->first; i < s->end; i++)
    {
      const XbNode *n = &g->nodes[i];
      for (uint32_t k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] != XB_PAYLOAD_NO_VALUE)
          role[n->inputs[k]] |= 1;
      for (uint32_t k = 0; k < n->n_outputs; k++)
        role[n->outputs[k]] |= 2;
    }
  return role;
}

/* Defines step @s as an XNNPACK subgraph and creates a runtime of it that
 * runs on @pool (on the calling thread for %NULL). */
static gboolean
create_runtime (Delegate *d, const Step *s, struct pthreadpool *pool, xnn_runtime_t *runtime, GError **error)
{
  const XbGraph *g = d->graph;
  g_autofree uint8_t *role = step_roles (d, s);
  memset (d->step_id, 0xff, sizeof (uint32_t) * g->n_values);
  d->slice_linears = pool == NULL && !s->pooled;
  xnn_subgraph_t sg = NULL;
  enum xnn_status st = xnn_create_subgraph (s->n_ext, 0, &sg);
  if (st != xnn_status_success)
    {
      g_set_error (error, XB_ERROR, ET_ERROR_MEMORY_ALLOCATION_FAILED, "XNNPACK: creating a subgraph failed (%s)",
                   status_name (st));
      return FALSE;
    }
  for (uint32_t e = 0; e < s->n_ext; e++)
    {
      uint32_t v = s->ext_values[e];
      uint32_t flags = (role[v] & 2) ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
      st = define_value (d, sg, v, e, flags, &d->step_id[v]);
      if (st != xnn_status_success)
        {
          xnn_delete_subgraph (sg);
          g_set_error (error, XB_ERROR, ET_ERROR_INVALID_PROGRAM, "XNNPACK: defining value %u (%s) failed (%s)", v,
                       xb_datatype_name (g->values[v].datatype), status_name (st));
          return FALSE;
        }
    }
  for (uint32_t v = 0; v < g->n_values; v++)
    {
      if (!role[v] || d->step_id[v] != UINT32_MAX)
        continue;
      st = define_value (d, sg, v, XNN_INVALID_VALUE_ID, 0, &d->step_id[v]);
      if (st != xnn_status_success)
        {
          xnn_delete_subgraph (sg);
          g_set_error (error, XB_ERROR, ET_ERROR_INVALID_PROGRAM, "XNNPACK: defining value %u (%s) failed (%s)", v,
                       xb_datatype_name (g->values[v].datatype), status_name (st));
          return FALSE;
        }
    }
  for (uint32_t i = s->first; i < s->end; i++)
    {
      st = define_node (d, sg, &g->nodes[i]);
      if (st != xnn_status_success)
        {
          xnn_delete_subgraph (sg);
          return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED,
                            "the installed XNNPACK refused it (%s): this combination of datatypes or "
                            "parameters is not supported",
                            status_name (st));
        }
    }
  /* No XNN_FLAG_YIELD_WORKERS: XNNPACK runs many short parallel regions,
   * and workers put to sleep after each one cost a wake-up per operator
   * (upstream's runtime does not yield either). */
  xnn_runtime_t created = NULL;
#ifdef XB_HAVE_WEIGHTS_CACHE
  st = xnn_create_runtime_v3 (sg, d->weights_cache, pool, xb_profile_runtime_flags (d->profile), &created);
#else
  st = xnn_create_runtime_v2 (sg, pool, xb_profile_runtime_flags (d->profile), &created);
#endif
  xnn_delete_subgraph (sg);
  *runtime = st == xnn_status_success ? created : NULL;
  if (st != xnn_status_success)
    {
      g_set_error (error, XB_ERROR, ET_ERROR_NOT_SUPPORTED,
                   "XNNPACK: creating the runtime for nodes %u..%u failed (%s)", s->first, s->end - 1,
                   status_name (st));
      return FALSE;
    }
  return TRUE;
}

/* Cuts the graph into steps and creates their runtimes for the current shapes. */
static gboolean
build (Delegate *d, GError **error)
{
  XbGraph *g = d->graph;
  free_steps (d);
  /* Host dynamically quantized linears share out their rows on the pool,
   * host fp32 linears too when they are big enough (step-work.c). */
  d->wants_pool = FALSE;
  for (uint32_t i = 0; i < g->n_nodes; i++)
    d->wants_pool |= d->pool != NULL && d->host[i] &&
                     ((d->dq != NULL && d->dq[i] != NULL) ||
                      (d->fc != NULL && d->fc[i] != NULL && xb_nodes_worth_threads (g, d->shapes, i, i + 1)));
  /* Steps: maximal runs of XNNPACK nodes, one step per host node. */
  d->steps = g_new0 (Step, g->n_nodes ? g->n_nodes : 1);
  g_autofree uint32_t *node_step = g_new0 (uint32_t, g->n_nodes ? g->n_nodes : 1);
  for (uint32_t i = 0; i < g->n_nodes; i++)
    {
      if (d->n_steps == 0 || d->host[i] || d->steps[d->n_steps - 1].host)
        {
          Step *s = &d->steps[d->n_steps++];
          s->host = d->host[i];
          s->first = i;
        }
      d->steps[d->n_steps - 1].end = i + 1;
      node_step[i] = d->n_steps - 1;
    }
  /* A non-constant value is a boundary when it is external, or touched by a
   * host step, or by more than one step. */
  g_autofree uint32_t *first_step = g_new (uint32_t, g->n_values ? g->n_values : 1);
  memset (first_step, 0xff, sizeof (uint32_t) * g->n_values);
  /* A value no node reads (and no argument receives) would get no memory
   * from XNNPACK, while its producer still writes it: give it ours. */
  g_autofree gboolean *read = g_new0 (gboolean, g->n_values ? g->n_values : 1);
  for (uint32_t i = 0; i < g->n_nodes; i++)
    for (uint32_t k = 0; k < g->nodes[i].n_inputs; k++)
      if (g->nodes[i].inputs[k] != XB_PAYLOAD_NO_VALUE)
        read[g->nodes[i].inputs[k]] = TRUE;
  for (uint32_t v = 0; v < g->n_values; v++)
    d->boundary[v] = g->values[v].flags != 0 || !read[v];
  for (uint32_t i = 0; i < g->n_nodes; i++)
    {
      const XbNode *n = &g->nodes[i];
      for (uint32_t k = 0; k < n->n_inputs + n->n_outputs; k++)
        {
          uint32_t v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
          if (v == XB_PAYLOAD_NO_VALUE || g->values[v].data)
            continue;
          if (d->host[i] || (first_step[v] != UINT32_MAX && first_step[v] != node_step[i]))
            d->boundary[v] = TRUE;
          if (first_step[v] == UINT32_MAX)
            first_step[v] = node_step[i];
        }
    }
  if (!alloc_buffers (d, first_step, error))
    return FALSE;

  for (uint32_t si = 0; si < d->n_steps; si++)
    {
      Step *s = &d->steps[si];
      if (s->host)
        continue;
      g_autofree uint8_t *role = step_roles (d, s);
      s->ext_values = g_new (uint32_t, g->n_values ? g->n_values : 1);
      for (uint32_t v = 0; v < g->n_values; v++)
        if (role[v] && d->boundary[v] && !g->values[v].data)
          s->ext_values[s->n_ext++] = v;
      s->ext = g_new0 (struct xnn_external_value, s->n_ext ? s->n_ext : 1);
      s->ext_written = g_new0 (gboolean, s->n_ext ? s->n_ext : 1);
      for (uint32_t e = 0; e < s->n_ext; e++)
        s->ext_written[e] = (role[s->ext_values[e]] & 2) != 0;
      /* Thread pool: only for operators big enough to pay for waking the
       * workers (step-work.c). */
      s->pooled = d->pool != NULL && xb_nodes_worth_threads (g, d->shapes, s->first, s->end);
      d->wants_pool |= s->pooled;
      if (!create_runtime (d, s, s->pooled ? d->pool : NULL, &s->runtime, error))
        return FALSE;
    }
#ifdef XB_HAVE_WEIGHTS_CACHE
  if (!weights_cache_finalize (d))
    {
      g_set_error (error, XB_ERROR, ET_ERROR_MEMORY_ALLOCATION_FAILED, "XNNPACK: finalizing the weights cache failed");
      return FALSE;
    }
#endif
#ifdef XB_HAVE_RESHAPE
  for (uint32_t si = 0; si < d->n_steps; si++)
    if (!d->steps[si].host && !reshape_step (d, &d->steps[si], error))
      return FALSE;
#endif
  return TRUE;
}

static gboolean
named_lookup (gpointer user_data, const char *key, const void **data, size_t *size)
{
  return et_backend_init_context_named_data (user_data, key, data, size) == ET_OK;
}

static bool
backend_available (void *user_data)
{
  g_mutex_lock (&init_lock);
  if (!library_ready)
    library_ready = xnn_initialize (xb_weights_allocator ()) == xnn_status_success;
  gboolean ok = library_ready;
  g_mutex_unlock (&init_lock);
  return ok;
}

static EtError
fail_init (EtBackendInitContext *context, GError *error)
{
  EtError code = error->domain == XB_ERROR ? (EtError) error->code : ET_ERROR_INTERNAL;
  et_error_context_fail (et_backend_init_context_error (context), code, "%s", error->message);
  g_error_free (error);
  return code;
}

/* Host dynamically quantized linears: their weights repacked once. */
static gboolean
prepare_dynamic_quant (Delegate *d, GError **error)
{
  const XbGraph *g = d->graph;
  if (d->dq == NULL)
    d->dq = g_new0 (XbDqLinear *, MAX (g->n_nodes, 1));
  for (uint32_t i = 0; i < g->n_nodes; i++)
    {
      g_clear_pointer (&d->dq[i], xb_dq_linear_free);
      if (d->host[i] && g->nodes[i].type == XB_NODE_FULLY_CONNECTED && xb_dq_node_is_dynamic (g, &g->nodes[i]) &&
          (d->dq[i] = xb_dq_linear_new (g, &g->nodes[i], error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* Host fp32 linears: their weights packed once, whatever the shapes. */
static gboolean
prepare_fc_operators (Delegate *d, GError **error)
{
  const XbGraph *g = d->graph;
  if (d->fc == NULL)
    d->fc = g_new0 (XbFcOperator *, MAX (g->n_nodes, 1));
  for (uint32_t i = 0; i < g->n_nodes; i++)
    {
      g_clear_pointer (&d->fc[i], xb_fc_operator_free);
      if (d->host[i] && xb_fc_operator_supports (g, &g->nodes[i]) &&
          (d->fc[i] = xb_fc_operator_new (g, &g->nodes[i], error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

static gboolean
classify_and_build (Delegate *d, GError **error)
{
  if (!classify (d, error) || !infer_shapes (d, TRUE, error) || !prepare_dynamic_quant (d, error) ||
      !prepare_fc_operators (d, error))
    return FALSE;
  /* The runtimes keep the pool: built and run while it is held. */
  d->pool = executorch_threadpool_acquire_pthreadpool ();
  gboolean ok = build (d, error);
  executorch_threadpool_release_pthreadpool ();
  return ok;
}

/* EXECUTORCH_XNNPACK_THREADING=pool or serial: every execution on the pool
 * or on the calling thread, instead of as the pool's spans decide (to
 * measure what the span policy costs on a busy machine). */
static XbThreading
threading_from_environment (void)
{
  const char *value = g_getenv ("EXECUTORCH_XNNPACK_THREADING");
  if (g_strcmp0 (value, "pool") == 0)
    return XB_THREADING_POOL;
  if (g_strcmp0 (value, "serial") == 0)
    return XB_THREADING_SERIAL;
  return XB_THREADING_AUTO;
}

void *
xb_delegate_new (const void *processed, size_t size, XbNamedDataFunc named, gpointer named_data, GError **error)
{
  if (!backend_available (NULL))
    {
      g_set_error (error, XB_ERROR, ET_ERROR_NOT_SUPPORTED,
                   "XNNPACK cannot run on this processor (xnn_initialize failed)");
      return NULL;
    }
  Delegate *d = g_new0 (Delegate, 1);
#ifdef XB_HAVE_WEIGHTS_CACHE
  weights_cache_start (d);
#endif
  d->profile = xb_profile_new ();
  d->threading = threading_from_environment ();
  d->graph = xb_payload_parse (processed, size, named, named_data, error);
  if (d->graph == NULL)
    {
      delegate_free (d);
      return NULL;
    }
  uint32_t nv = MAX (d->graph->n_values, 1), nn = MAX (d->graph->n_nodes, 1);
  d->shapes = g_new0 (XbShape, nv);
  d->boundary = g_new0 (gboolean, nv);
  d->buffers = g_new0 (void *, nv);
  d->ptr = g_new0 (void *, nv);
  d->step_id = g_new0 (uint32_t, nv);
  d->host = g_new0 (gboolean, nn);
  for (uint32_t v = 0; v < d->graph->n_values; v++)
    {
      d->shapes[v].ndim = d->graph->values[v].ndim;
      memcpy (d->shapes[v].dims, d->graph->values[v].dims, sizeof d->shapes[v].dims);
    }
  gboolean ok = classify_and_build (d, error);
  /* fp16 and bf16: XNNPACK's own nodes where the library has them, else
   * the graph in fp32 (widen.c). */
  if (!ok && xb_graph_has_16bit_floats (d->graph))
    {
      g_debug ("XNNPACK: %s; running the graph's 16-bit floats in fp32", (*error)->message);
      g_clear_error (error);
      free_steps (d);
#ifdef XB_HAVE_WEIGHTS_CACHE
      /* It may be finalized already: new weights need a new one. */
      weights_cache_drop (d);
      weights_cache_start (d);
#endif
      xb_graph_widen (d->graph);
      ok = classify_and_build (d, error);
    }
  if (!ok)
    {
      delegate_free (d);
      return NULL;
    }
  d->good_shapes = g_memdup2 (d->shapes, sizeof (XbShape) * nv);
  return d;
}

static EtError
backend_init (void *user_data, EtBackendInitContext *context, const void *processed, size_t processed_size,
              const EtCompileSpec *specs, size_t n_specs, void **handle)
{
  GError *error = NULL;
  void *d = xb_delegate_new (processed, processed_size, named_lookup, context, &error);
  if (d == NULL)
    return fail_init (context, error);
  *handle = d;
  return ET_OK;
}

static int
scalar_for (int datatype)
{
  switch (datatype)
    {
      case XB_DT_FP32: return ET_SCALAR_FLOAT;
      case XB_DT_FP16: return ET_SCALAR_HALF;
      case XB_DT_BF16: return ET_SCALAR_BFLOAT16;
      case XB_DT_QINT8: return ET_SCALAR_CHAR;
      case XB_DT_QUINT8: return ET_SCALAR_BYTE;
      case XB_DT_QINT32:
      case XB_DT_INT32: return ET_SCALAR_INT;
      default: return -1;
    }
}

/* A 0-dim tensor and a one-element value of another rank hold the same
 * thing: upstream serializes scalars (such as an attention scale the exporter
 * lifted to a constant) as [1]. */
static gboolean
same_scalar (const EtTensor *t, const XbShape *s)
{
  if (t->ndim != 0 && s->ndim != 0)
    return FALSE;
  for (uint32_t e = 0; e < t->ndim; e++)
    if (t->sizes[e] != 1)
      return FALSE;
  for (uint32_t e = 0; e < s->ndim; e++)
    if (s->dims[e] != 1)
      return FALSE;
  return TRUE;
}

/* The runtime of step @s to run now: its pooled one, or for @parallel
 * %FALSE one on the calling thread (made the first time it is needed). */
static xnn_runtime_t
step_runtime (Delegate *d, Step *s, gboolean parallel, gboolean **bound, GError **error)
{
  if (parallel || !s->pooled)
    {
      *bound = &s->bound;
      return s->runtime;
    }
  *bound = &s->serial_bound;
  if (s->serial_runtime == NULL)
    {
      g_debug ("XNNPACK: nodes %u..%u get a runtime on the calling thread", s->first, s->end - 1);
      if (!create_runtime (d, s, NULL, &s->serial_runtime, error))
        return NULL;
#ifdef XB_HAVE_RESHAPE
      if (!reshape_runtime (d, s, s->serial_runtime, error))
        {
          xnn_delete_runtime (s->serial_runtime);
          s->serial_runtime = NULL;
          return NULL;
        }
#endif
      s->serial_bound = FALSE;
    }
  return s->serial_runtime;
}

/* Runs the steps on the bound values, on the pool when @parallel. */
static int
run_steps (Delegate *d, gboolean parallel, EtErrorContext *report)
{
  const XbGraph *g = d->graph;
  for (uint32_t si = 0; si < d->n_steps; si++)
    {
      Step *s = &d->steps[si];
      if (s->host)
        {
          const XbNode *n = &g->nodes[s->first];
          if (d->fc[s->first])
            {
              const char *why = NULL;
              /* The pool only for work that pays for it (step-work.c). */
              gboolean pooled = parallel && xb_nodes_worth_threads (g, d->shapes, s->first, s->end);
              if (!xb_fc_operator_run (d->fc[s->first], n, d->shapes, d->ptr, pooled ? d->pool : NULL, &why))
                return et_error_context_fail (report, ET_ERROR_INTERNAL, "XNNPACK: node %u: %s", s->first, why);
            }
          else if (xb_dq_node_is_dynamic (g, n))
            xb_dq_run (g, n, d->dq[s->first], d->shapes, d->ptr, parallel ? d->pool : NULL);
          else
            xb_host_run (g, n, d->shapes, d->ptr);
          continue;
        }
      gboolean changed = FALSE;
      for (uint32_t e = 0; e < s->n_ext; e++)
        {
          void *p = d->ptr[s->ext_values[e]];
          if (s->ext[e].data != p || s->ext[e].id != e)
            changed = TRUE;
          s->ext[e].id = e;
          s->ext[e].data = p;
        }
      if (changed)
        s->bound = s->serial_bound = FALSE;
      GError *error = NULL;
      gboolean *bound;
      xnn_runtime_t runtime = step_runtime (d, s, parallel, &bound, &error);
      if (runtime == NULL)
        {
          et_error_context_fail (report, ET_ERROR_NOT_SUPPORTED, "%s", error->message);
          g_error_free (error);
          return ET_ERROR_NOT_SUPPORTED;
        }
      enum xnn_status st = xnn_status_success;
      if (!*bound)
#ifdef XB_HAVE_RESHAPE
        st = xnn_setup_runtime_v2 (runtime, s->n_ext, s->ext);
#else
        st = xnn_setup_runtime (runtime, s->n_ext, s->ext);
#endif
      if (st == xnn_status_success)
        {
          *bound = TRUE;
          st = xnn_invoke_runtime (runtime);
          if (st == xnn_status_success)
            xb_profile_add_runtime (d->profile, d->n_steps > 1 ? (int) si : -1, runtime);
        }
      if (st != xnn_status_success)
        {
          *bound = FALSE;
          return et_error_context_fail (report, ET_ERROR_INTERNAL, "XNNPACK: running nodes %u..%u failed (%s)",
                                        s->first, s->end - 1, status_name (st));
        }
    }
  return ET_OK;
}

static int execute_locked (Delegate *d, EtValue **args, uint32_t n_args, EtErrorContext *report, gboolean pool_changed);

int
xb_delegate_execute (void *handle, void *args_ptr, uint32_t n_args, EtErrorContext *report)
{
  Delegate *d = handle;
  /* The pool cannot be resized while held; a resize since the last run
   * replaced the pthreadpool the runtimes point at, so they are rebuilt. */
  struct pthreadpool *pool = executorch_threadpool_acquire_pthreadpool ();
  gboolean changed = pool != d->pool;
  d->pool = pool;
  int code = execute_locked (d, args_ptr, n_args, report, changed);
  executorch_threadpool_release_pthreadpool ();
  return code;
}

static int
execute_locked (Delegate *d, EtValue **args, uint32_t n_args, EtErrorContext *report, gboolean pool_changed)
{
  XbGraph *g = d->graph;
  gboolean reshaped = FALSE;

  /* Inputs: bind, and notice a changed shape (physical order = dim order). */
  for (uint32_t v = 0; v < g->n_values; v++)
    {
      const XbValue *val = &g->values[v];
      if (!val->flags)
        continue;
      if (val->external_id >= n_args || args[val->external_id]->tag != ET_VALUE_TENSOR)
        {
          return et_error_context_fail (report, ET_ERROR_INVALID_ARGUMENT,
                                        "XNNPACK: external value %u is argument %u, which is not "
                                        "a tensor (%u arguments)",
                                        v, val->external_id, n_args);
        }
      EtTensor *t = args[val->external_id]->u.tensor;
      int datatype = val->narrow_datatype ? val->narrow_datatype : val->datatype;
      if (t->scalar_type != scalar_for (datatype) || t->device_type != ET_DEVICE_CPU)
        {
          return et_error_context_fail (report, ET_ERROR_INVALID_ARGUMENT,
                                        "XNNPACK: argument %u is %s, the graph expects %s", val->external_id,
                                        et_scalar_type_name (t->scalar_type), xb_datatype_name (datatype));
        }
      if (!(val->flags & 1) || same_scalar (t, &d->shapes[v]))
        continue;
      if (t->ndim != d->shapes[v].ndim)
        {
          return et_error_context_fail (report, ET_ERROR_INVALID_ARGUMENT,
                                        "XNNPACK: input argument %u has %u dims, expected %u", val->external_id,
                                        t->ndim, d->shapes[v].ndim);
        }
      for (uint32_t e = 0; e < t->ndim; e++)
        {
          size_t phys = (size_t) t->sizes[t->dim_order[e] < t->ndim ? t->dim_order[e] : 0];
          if (phys != d->shapes[v].dims[e])
            {
              d->shapes[v].dims[e] = phys;
              reshaped = TRUE;
            }
        }
    }
  if (reshaped || pool_changed)
    {
      GError *error = NULL;
      if (!infer_shapes (d, FALSE, &error) || !(pool_changed ? build (d, &error) : resize (d, &error)))
        {
          et_error_context_fail (report, ET_ERROR_INVALID_ARGUMENT, "XNNPACK: new input shapes: %s", error->message);
          g_clear_error (&error);
          /* Back to the shapes that worked; unusable only if even that fails. */
          memcpy (d->shapes, d->good_shapes, sizeof (XbShape) * g->n_values);
          if (!build (d, &error))
            {
              free_steps (d);
              g_clear_error (&error);
            }
          return ET_ERROR_INVALID_ARGUMENT;
        }
      memcpy (d->good_shapes, d->shapes, sizeof (XbShape) * g->n_values);
    }
  if (d->n_steps == 0 && g->n_nodes > 0)
    {
      return et_error_context_fail (report, ET_ERROR_INVALID_STATE, "XNNPACK: the delegate failed to rebuild");
    }
  /* Outputs: resize to the inferred shapes (mapped back through dim order). */
  for (uint32_t v = 0; v < g->n_values; v++)
    {
      const XbValue *val = &g->values[v];
      if (!(val->flags & 2))
        continue;
      EtTensor *t = args[val->external_id]->u.tensor;
      const XbShape *s = &d->shapes[v];
      if (same_scalar (t, s))
        continue;
      if (t->ndim != s->ndim)
        {
          return et_error_context_fail (report, ET_ERROR_INVALID_ARGUMENT,
                                        "XNNPACK: output argument %u has %u dims, the graph %u", val->external_id,
                                        t->ndim, s->ndim);
        }
      int64_t sizes[ET_MAX_DIMS];
      for (uint32_t e = 0; e < s->ndim; e++)
        sizes[t->dim_order[e] < t->ndim ? t->dim_order[e] : 0] = (int64_t) s->dims[e];
      EtError code = et_tensor_resize (t, t->ndim, sizes);
      if (code != ET_OK)
        {
          return et_error_context_fail (report, code, "XNNPACK: cannot resize output argument %u", val->external_id);
        }
    }
  for (uint32_t v = 0; v < g->n_values; v++)
    {
      const XbValue *val = &g->values[v];
      if (val->data)
        d->ptr[v] = (void *) val->data;
      else if (val->flags)
        {
          EtTensor *t = args[val->external_id]->u.tensor;
          size_t need = value_bytes (d, v);
          if (val->narrow_datatype)
            need = need / sizeof (float) * xb_datatype_size (val->narrow_datatype);
          if (t->data == NULL || t->nbytes < need)
            {
              return et_error_context_fail (report, ET_ERROR_INVALID_ARGUMENT,
                                            "XNNPACK: argument %u has %zu bytes, the graph needs %zu", val->external_id,
                                            t->nbytes, need);
            }
          d->ptr[v] = t->data;
          if (val->narrow_datatype)
            {
              d->ptr[v] = d->buffers[v];
              if ((val->flags & 1) && d->buffers[v])
                xb_widen_to_fp32 (val->narrow_datatype, t->data, d->buffers[v], need / 2);
            }
        }
      else
        d->ptr[v] = d->buffers[v];
    }
  /* While other processes keep the CPUs busy, the pool's workers would
   * stall every operator: the steps run on the calling thread then. */
  ExecutorchThreadpoolSpan span;
  gboolean spanned = d->wants_pool && d->threading == XB_THREADING_AUTO;
  gboolean parallel =
      spanned ? executorch_threadpool_span_begin (&span, d->pool) : d->wants_pool && d->threading == XB_THREADING_POOL;
  int code = run_steps (d, parallel, report);
  if (spanned)
    executorch_threadpool_span_end (&span);
  xb_profile_count_execution (d->profile, parallel);
  if (code != ET_OK)
    return code;
  for (uint32_t v = 0; v < g->n_values; v++)
    {
      const XbValue *val = &g->values[v];
      if ((val->flags & 2) && val->narrow_datatype && d->buffers[v])
        {
          EtTensor *t = args[val->external_id]->u.tensor;
          xb_narrow_from_fp32 (val->narrow_datatype, d->buffers[v], t->data, value_bytes (d, v) / sizeof (float));
        }
    }
  return ET_OK;
}

/* Tests: whether the steps may use the pool (the default: as the pool's
 * spans decide), must, or must not. */
void
xb_delegate_set_threading (void *handle, XbThreading threading)
{
  ((Delegate *) handle)->threading = threading;
}

void
xb_delegate_free (void *handle)
{
  delegate_free (handle);
}

const XbGraph *
xb_delegate_get_graph (void *handle)
{
  return ((Delegate *) handle)->graph;
}

void
xb_delegate_count_steps (void *handle, uint32_t *n_runtimes, uint32_t *n_host)
{
  const Delegate *d = handle;
  *n_runtimes = *n_host = 0;
  for (uint32_t i = 0; i < d->n_steps; i++)
    (*(d->steps[i].host ? n_host : n_runtimes))++;
}

/* Tests: how many XNNPACK runtimes run on the thread pool. */
uint32_t
xb_delegate_count_pooled_steps (void *handle)
{
  Delegate *d = handle;
  uint32_t n = 0;
  for (uint32_t i = 0; i < d->n_steps; i++)
    n += !d->steps[i].host && d->steps[i].pooled;
  return n;
}

const XbShape *
xb_delegate_get_shapes (void *handle)
{
  return ((Delegate *) handle)->shapes;
}

static EtError
backend_execute (void *user_data, EtBackendExecuteContext *context, void *handle, EtValue **args, uint32_t n_args)
{
  return xb_delegate_execute (handle, args, n_args, et_backend_execute_context_error (context));
}

static void
backend_destroy (void *user_data, void *handle)
{
  delegate_free (handle);
}

static const EtBackend xnnpack_backend = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .id = "XnnpackBackend",
  .is_available = backend_available,
  .init = backend_init,
  .execute = backend_execute,
  .destroy = backend_destroy,
};

static bool
plugin_init (EtRegistry *registry, EtErrorContext *error)
{
  return et_registry_add_backend (registry, &xnnpack_backend, error) == ET_OK;
}

ET_PLUGIN_EXPORT const EtPluginDesc *
executorch_xnnpack_get_plugin (void)
{
  static const EtPluginDesc desc = {
    .abi_version = ET_PLUGIN_ABI_VERSION,
    .name = "xnnpack",
    .version = EXECUTORCH_XNNPACK_VERSION,
    .description = "XnnpackBackend delegate on the system XNNPACK",
    .package = "libexecutorch-xnnpack0",
    .kind = ET_PLUGIN_BACKEND,
    .init = plugin_init,
  };
  return &desc;
}
