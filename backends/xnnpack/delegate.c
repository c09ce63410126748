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

#include <pthreadpool.h>
#include <stdlib.h>
#include <string.h>
#include <xnnpack.h>

#include "backend-private.h"
#include "xnnpack-features.h"
#define XB_DQ_DEFINE_XNN 1
#include "dynamic-quant.h"

/* The quark name is a string, not an expression. */
/* clang-format off */
G_DEFINE_QUARK (executorch-xnnpack-error-quark, xb_error)
/* clang-format on */

typedef struct
{
  gboolean host;
  uint32_t first, end; /* nodes [first, end) */
  xnn_runtime_t runtime;
  uint32_t n_ext;
  uint32_t *ext_values; /* XNNPACK external id -> graph value */
  struct xnn_external_value *ext;
  gboolean bound;
  gboolean reshaped; /* xnn_reshape_runtime done (the shapes are fixed per runtime) */
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
  XbDqLinear **dq;          /* per node: repacked weights of a host dynamically quantized linear */
  struct pthreadpool *pool; /* the pool the runtimes were created with */
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
      g_free (d->steps[i].ext_values);
      g_free (d->steps[i].ext);
    }
  g_clear_pointer (&d->steps, g_free);
  d->n_steps = 0;
  if (d->buffers)
    for (uint32_t v = 0; v < d->graph->n_values; v++)
      g_clear_pointer (&d->buffers[v], free);
}

static void
delegate_free (Delegate *d)
{
  if (d == NULL)
    return;
  if (d->graph)
    free_steps (d);
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
  xb_graph_free (d->graph);
  g_free (d);
}

/* Datatypes Debian's XNNPACK has, with the same numbers as fb_xnnpack's. */
static gboolean
library_has_datatype (int dt)
{
  return dt == XB_DT_FP32 || dt == XB_DT_QINT8 || dt == XB_DT_QUINT8 || dt == XB_DT_QINT32 || dt == XB_DT_QCINT8 ||
         dt == XB_DT_QCINT32;
}

/* Node types Debian's XNNPACK can define. */
static gboolean
library_has_node (uint32_t type)
{
  switch (type)
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
      default: return FALSE;
    }
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
          if (val->dq_datatype != XB_DT_INVALID || val->quant == XB_QUANT_PER_TOKEN)
            return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED,
                              "dynamically quantized values are not supported by Debian's XNNPACK "
                              "(2022); export without dynamic quantization");
          if (val->quant == XB_QUANT_PER_CHANNEL_GROUP)
            return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED,
                              "blockwise (per-group) quantization is not supported by Debian's "
                              "XNNPACK (2022)");
          if (!library_has_datatype (val->datatype))
            return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED,
                              "datatype %s (value %u) is not supported by Debian's XNNPACK (2022)",
                              xb_datatype_name (val->datatype), v);
        }
      if (xb_host_supports (g, n, &why))
        d->host[i] = TRUE;
      else if (why != NULL)
        return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED, "not supported by Debian's XNNPACK (2022): %s", why);
      else if (library_has_node (n->type))
        d->host[i] = FALSE;
      else
        return node_fail (error, g, i, ET_ERROR_NOT_SUPPORTED, "not supported by Debian's XNNPACK (2022)");
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
  enum xnn_datatype dt = (enum xnn_datatype) val->datatype;
  switch (val->quant)
    {
      case XB_QUANT_PER_TENSOR:
        return xnn_define_quantized_tensor_value (sg, dt, val->zero_point, val->scale, s->ndim, s->dims, val->data,
                                                  ext_id, flags, id);
      case XB_QUANT_PER_CHANNEL:
        return xnn_define_channelwise_quantized_tensor_value (sg, dt, val->scales, s->ndim, val->channel_dim, s->dims,
                                                              val->data, ext_id, flags, id);
      default: return xnn_define_tensor_value (sg, dt, s->ndim, s->dims, val->data, ext_id, flags, id);
    }
}

static enum xnn_status
define_node (Delegate *d, xnn_subgraph_t sg, const XbNode *n)
{
  const uint32_t *sid = d->step_id;
  uint32_t i0 = sid[n->inputs[0]];
  uint32_t i1 = n->n_inputs > 1 && n->inputs[1] != XB_PAYLOAD_NO_VALUE ? sid[n->inputs[1]] : XNN_INVALID_VALUE_ID;
  uint32_t i2 = n->n_inputs > 2 && n->inputs[2] != XB_PAYLOAD_NO_VALUE ? sid[n->inputs[2]] : XNN_INVALID_VALUE_ID;
  uint32_t o = sid[n->outputs[0]];
  float lo = n->output_min, hi = n->output_max;
  const uint32_t *p = n->p;
  switch (n->type)
    {
      case XB_NODE_ADD: return xnn_define_add2 (sg, lo, hi, i0, i1, o, 0);
      case XB_NODE_MULTIPLY: return xnn_define_multiply2 (sg, lo, hi, i0, i1, o, 0);
      case XB_NODE_SUBTRACT: return xnn_define_subtract (sg, lo, hi, i0, i1, o, 0);
      case XB_NODE_DIV: return xnn_define_divide (sg, lo, hi, i0, i1, o, 0);
      case XB_NODE_MINIMUM: return xnn_define_minimum2 (sg, i0, i1, o, 0);
      case XB_NODE_MAXIMUM: return xnn_define_maximum2 (sg, i0, i1, o, 0);
      case XB_NODE_PRELU: return xnn_define_prelu (sg, i0, i1, o, 0);
      case XB_NODE_FULLY_CONNECTED: return xnn_define_fully_connected (sg, lo, hi, i0, i1, i2, o, n->flags);
      case XB_NODE_SOFTMAX: return xnn_define_softmax (sg, i0, o, 0);
      case XB_NODE_SIGMOID: return xnn_define_sigmoid (sg, i0, o, 0);
      case XB_NODE_CLAMP: return xnn_define_clamp (sg, lo, hi, i0, o, 0);
      case XB_NODE_FLOOR: return xnn_define_floor (sg, i0, o, 0);
      case XB_NODE_CEILING: return xnn_define_ceiling (sg, i0, o, 0);
      case XB_NODE_SQUARE_ROOT: return xnn_define_square_root (sg, i0, o, 0);
      case XB_NODE_SQUARE: return xnn_define_square (sg, i0, o, 0);
      case XB_NODE_NEGATE: return xnn_define_negate (sg, i0, o, 0);
      case XB_NODE_ABS: return xnn_define_abs (sg, i0, o, 0);
      case XB_NODE_HARDSWISH: return xnn_define_hardswish (sg, i0, o, 0);
      case XB_NODE_LEAKY_RELU: return xnn_define_leaky_relu (sg, n->fparam, i0, o, 0);
      case XB_NODE_ELU: return xnn_define_elu (sg, n->fparam, i0, o, 0);
      case XB_NODE_CONVERT: return xnn_define_convert (sg, i0, o, 0);
      case XB_NODE_GLOBAL_AVG_POOLING_2D: return xnn_define_global_average_pooling_2d (sg, lo, hi, i0, o, 0);
      case XB_NODE_STATIC_RESHAPE:
        return xnn_define_static_reshape (sg, d->shapes[n->outputs[0]].ndim, d->shapes[n->outputs[0]].dims, i0, o, 0);
      case XB_NODE_STATIC_CONSTANT_PAD:
        return xnn_define_static_constant_pad (sg, n->list_a, n->list_b, n->fparam, i0, o, 0);
      case XB_NODE_STATIC_RESIZE_BILINEAR_2D:
        return xnn_define_static_resize_bilinear_2d (sg, p[0], p[1], i0, o, n->flags);
      case XB_NODE_CONV2D:
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

/* Cuts the graph into steps and creates their runtimes for the current shapes. */
static gboolean
build (Delegate *d, GError **error)
{
  XbGraph *g = d->graph;
  free_steps (d);
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
  for (uint32_t v = 0; v < g->n_values; v++)
    {
      if (!d->boundary[v] || g->values[v].flags || g->values[v].data || first_step[v] == UINT32_MAX)
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

  for (uint32_t si = 0; si < d->n_steps; si++)
    {
      Step *s = &d->steps[si];
      if (s->host)
        continue;
      /* The values this step touches, and which of them it writes. */
      memset (d->step_id, 0xff, sizeof (uint32_t) * g->n_values);
      g_autofree uint8_t *role = g_new0 (uint8_t, g->n_values ? g->n_values : 1);
      for (uint32_t i = s->first; i < s->end; i++)
        {
          const XbNode *n = &g->nodes[i];
          for (uint32_t k = 0; k < n->n_inputs; k++)
            if (n->inputs[k] != XB_PAYLOAD_NO_VALUE)
              role[n->inputs[k]] |= 1;
          for (uint32_t k = 0; k < n->n_outputs; k++)
            role[n->outputs[k]] |= 2;
        }
      s->ext_values = g_new (uint32_t, g->n_values ? g->n_values : 1);
      for (uint32_t v = 0; v < g->n_values; v++)
        if (role[v] && d->boundary[v] && !g->values[v].data)
          s->ext_values[s->n_ext++] = v;
      s->ext = g_new0 (struct xnn_external_value, s->n_ext ? s->n_ext : 1);
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
                                "Debian's XNNPACK refused it (%s): this combination of datatypes or "
                                "parameters is not supported",
                                status_name (st));
            }
        }
      /* No XNN_FLAG_YIELD_WORKERS: XNNPACK runs many short parallel regions,
     * and workers put to sleep after each one cost a wake-up per operator
     * (upstream's runtime does not yield either). */
      st = xnn_create_runtime_v2 (sg, d->pool, 0, &s->runtime);
      xnn_delete_subgraph (sg);
      if (st != xnn_status_success)
        {
          s->runtime = NULL;
          g_set_error (error, XB_ERROR, ET_ERROR_NOT_SUPPORTED,
                       "XNNPACK: creating the runtime for nodes %u..%u failed (%s)", s->first, s->end - 1,
                       status_name (st));
          return FALSE;
        }
    }
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
    library_ready = xnn_initialize (NULL) == xnn_status_success;
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
  d->graph = xb_payload_parse (processed, size, named, named_data, error);
  if (d->graph == NULL)
    {
      g_free (d);
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
  gboolean ok = classify (d, error) && infer_shapes (d, TRUE, error);
  /* Host dynamically quantized linears: weights repacked once. */
  d->dq = g_new0 (XbDqLinear *, nn);
  for (uint32_t i = 0; ok && i < d->graph->n_nodes; i++)
    if (d->host[i] && d->graph->nodes[i].type == XB_NODE_FULLY_CONNECTED &&
        xb_dq_node_is_dynamic (d->graph, &d->graph->nodes[i]))
      ok = (d->dq[i] = xb_dq_linear_new (d->graph, &d->graph->nodes[i], error)) != NULL;
  if (ok)
    {
      /* The runtimes keep the pool: built and run while it is held. */
      d->pool = executorch_threadpool_acquire_pthreadpool ();
      ok = build (d, error);
      executorch_threadpool_release_pthreadpool ();
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
      case XB_DT_QINT8: return ET_SCALAR_CHAR;
      case XB_DT_QUINT8: return ET_SCALAR_BYTE;
      case XB_DT_QINT32:
      case XB_DT_INT32: return ET_SCALAR_INT;
      default: return -1;
    }
}

static int execute_locked (Delegate *d, EtValue **args, uint32_t n_args, EtErrorContext *report, gboolean pool_changed);

/* Binds a step's external values.  Where the library has the two-step
 * setup, it is used: newer releases' one-step xnn_setup_runtime plans too
 * little memory for dynamically quantized values (their per-row
 * parameters), and a row's results come out wrong. */
static enum xnn_status
setup_runtime (Step *s)
{
#if HAVE_XNN_RESHAPE_RUNTIME && HAVE_XNN_SETUP_RUNTIME_V2
  if (!s->reshaped)
    {
      enum xnn_status st = xnn_reshape_runtime (s->runtime);
      if (st != xnn_status_success)
        return st;
      s->reshaped = TRUE;
    }
  return xnn_setup_runtime_v2 (s->runtime, s->n_ext, s->ext);
#else
  return xnn_setup_runtime (s->runtime, s->n_ext, s->ext);
#endif
}

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
      if (t->scalar_type != scalar_for (val->datatype) || t->device_type != ET_DEVICE_CPU)
        {
          return et_error_context_fail (report, ET_ERROR_INVALID_ARGUMENT,
                                        "XNNPACK: argument %u is %s, the graph expects %s", val->external_id,
                                        et_scalar_type_name (t->scalar_type), xb_datatype_name (val->datatype));
        }
      if (!(val->flags & 1))
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
      if (!infer_shapes (d, FALSE, &error) || !build (d, &error))
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
          if (t->data == NULL || t->nbytes < value_bytes (d, v))
            {
              return et_error_context_fail (report, ET_ERROR_INVALID_ARGUMENT,
                                            "XNNPACK: argument %u has %zu bytes, the graph needs %zu", val->external_id,
                                            t->nbytes, value_bytes (d, v));
            }
          d->ptr[v] = t->data;
        }
      else
        d->ptr[v] = d->buffers[v];
    }
  for (uint32_t si = 0; si < d->n_steps; si++)
    {
      Step *s = &d->steps[si];
      if (s->host)
        {
          const XbNode *n = &g->nodes[s->first];
          if (xb_dq_node_is_dynamic (g, n))
            xb_dq_run (g, n, d->dq[s->first], d->shapes, d->ptr, d->pool);
          else
            xb_host_run (g, n, d->shapes, d->ptr);
          continue;
        }
      gboolean changed = !s->bound;
      for (uint32_t e = 0; e < s->n_ext; e++)
        {
          void *p = d->ptr[s->ext_values[e]];
          if (s->ext[e].data != p || s->ext[e].id != e)
            changed = TRUE;
          s->ext[e].id = e;
          s->ext[e].data = p;
        }
      enum xnn_status st = xnn_status_success;
      if (changed)
        st = setup_runtime (s);
      if (st == xnn_status_success)
        {
          s->bound = TRUE;
          st = xnn_invoke_runtime (s->runtime);
        }
      if (st != xnn_status_success)
        {
          s->bound = FALSE;
          return et_error_context_fail (report, ET_ERROR_INTERNAL, "XNNPACK: running nodes %u..%u failed (%s)",
                                        s->first, s->end - 1, status_name (st));
        }
    }
  return ET_OK;
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
