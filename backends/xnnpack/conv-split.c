/* conv-split.c: a convolution or fully-connected node with large weights
 * as slices of its output channels, for the 2024 library's GEMM tiling
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Debian 13's XNNPACK (2024-11) runs a convolution's or a fully-connected
 * node's GEMM in tiles of mr rows (output pixels, or tokens; 7 with
 * AVX-512) by all output channels, rows outer (src/operators/
 * convolution-nhwc.c, fully-connected-nc.c): every tile reads every packed
 * weight.  When the weights are bigger than the L2 cache (ResNet-18's last
 * stage: 9.4 MB per 3x3 convolution over 7x7 pixels; an LLM's linears over
 * a 16-token prompt: 3 row tiles), each tile reads them again from L3 or
 * memory, and the GEMM kernel waits on its loads: twice the time of the
 * XNNPACK upstream's runtime bundles, whose 2025 tiling
 * (xnn_gemm_best_tile_size, "Better tiling for GEMMs") takes as many
 * channels as fit in L2 and runs the rows inside them.
 *
 * Here such a node is defined as several, each over a consecutive slice of
 * its output channels whose weights fit the budget, and a concatenation of
 * their outputs along the last dimension.  A slice's weights and bias are
 * views of the same constants (output channels are the weights' outer
 * dimension).  Each output element is computed by the same kernel from
 * the same inputs in the same order: the bytes are the same.  The
 * concatenation copies the output once (0.1 MB for that ResNet stage).
 */

#include "conv-split.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xnnpack-api.h" /* what the installed XNNPACK offers (meson.build) */

/* Slices are whole multiples of this many channels: the widest GEMM tile
 * (nr) of the fp32 kernels, so no slice leaves a partial tile the
 * unsplit convolution would not have. */
#define SLICE_ALIGN 32
/* At most this many slices: a few ways of concatenation. */
#define MAX_SLICES 25

/* The weight bytes one slice may have: EXECUTORCH_XNNPACK_CONV_SLICE_KIB
 * (0: never split, as G_MAXSIZE), else half the L2 cache of the first CPU
 * (512 KiB when the C library cannot tell): the pixels, the outputs and
 * other processes need the rest.  On a 2 MiB L2, ResNet-18 ran as fast
 * with 256 KiB to 1 MiB slices, 10% slower with 2 MiB, 35% slower whole
 * (bench/results/2026-12-04-xnnpack-debian13-2vcpu.txt). */
static gsize budget_override; /* tests: xb_conv_split_set_budget() */

/* These three are unused where the library cannot concatenate (no split
 * there). */
G_GNUC_UNUSED static size_t
slice_budget (void)
{
  static gsize budget;
  if (budget_override != 0)
    return budget_override;
  if (g_once_init_enter (&budget))
    {
      gsize bytes = 0;
      const char *value = g_getenv ("EXECUTORCH_XNNPACK_CONV_SLICE_KIB");
      if (value != NULL && value[0] != '\0')
        {
          char *end = NULL;
          guint64 kib = g_ascii_strtoull (value, &end, 10);
          /* 0 or unreadable: never split (g_once needs a non-zero value) */
          bytes = (end != value && *end == '\0' && kib > 0 && kib < G_MAXSIZE / 1024) ? (gsize) kib * 1024 : G_MAXSIZE;
        }
      else
        {
#ifdef _SC_LEVEL2_CACHE_SIZE
          long l2 = sysconf (_SC_LEVEL2_CACHE_SIZE);
          bytes = l2 > 0 ? (gsize) l2 / 2 : 0;
#endif
          if (bytes == 0)
            bytes = 512 * 1024;
        }
      g_once_init_leave (&budget, bytes);
    }
  return budget;
}

/* The slice width for @cout output channels of @per_channel weight bytes
 * each, or 0 to define the node unsplit. */
G_GNUC_UNUSED static size_t
width_for (size_t cout, size_t per_channel)
{
  size_t budget = slice_budget ();
  if (cout * per_channel <= budget)
    return 0;
  size_t width = budget / per_channel / SLICE_ALIGN * SLICE_ALIGN;
  if (width == 0)
    width = SLICE_ALIGN;
  if ((cout + width - 1) / width > MAX_SLICES)
    width = ((cout + MAX_SLICES - 1) / MAX_SLICES + SLICE_ALIGN - 1) / SLICE_ALIGN * SLICE_ALIGN;
  return width < cout ? width : 0;
}

/* fp32 values and static fp32 weights (and bias) whose data hold
 * @cout x @per_channel bytes (and @cout bias values): the slices are views
 * into them. */
G_GNUC_UNUSED static gboolean
plain_static (const XbGraph *g, const XbNode *n, size_t cout, size_t per_channel)
{
  const XbValue *in = &g->values[n->inputs[0]], *w = &g->values[n->inputs[1]], *out = &g->values[n->outputs[0]];
  const XbValue *b = n->n_inputs > 2 && n->inputs[2] != XB_PAYLOAD_NO_VALUE ? &g->values[n->inputs[2]] : NULL;
  if (in->datatype != XB_DT_FP32 || w->datatype != XB_DT_FP32 || out->datatype != XB_DT_FP32 ||
      w->quant != XB_QUANT_NONE || w->data == NULL ||
      (b != NULL && (b->datatype != XB_DT_FP32 || b->quant != XB_QUANT_NONE || b->data == NULL)))
    return FALSE;
  return per_channel != 0 && w->data_size / per_channel >= cout && (b == NULL || b->data_size / sizeof (float) >= cout);
}

/* Slice width for @n (in output channels), or 0 to define it unsplit. */
static size_t
slice_channels (const XbGraph *g, const XbNode *n, const XbShape *shapes)
{
#if defined(HAVE_XNN_DEFINE_CONCATENATE2) && defined(HAVE_XNN_DEFINE_CONCATENATE5)
  if ((n->type != XB_NODE_CONV2D && n->type != XB_NODE_FULLY_CONNECTED) || n->n_inputs < 2 || n->n_outputs < 1 ||
      n->inputs[0] >= g->n_values || n->inputs[1] >= g->n_values || n->outputs[0] >= g->n_values ||
      (n->n_inputs > 2 && n->inputs[2] != XB_PAYLOAD_NO_VALUE && n->inputs[2] >= g->n_values))
    return 0;
  const XbShape *ws = &shapes[n->inputs[1]], *os = &shapes[n->outputs[0]];
  if (n->type == XB_NODE_FULLY_CONNECTED)
    {
      /* [Cout, Cin] weights (not transposed) into [..., Cout].  The rows
       * may change at every execution: the value's declared shape bounds
       * them.  One tile of rows (a decode step; an LLM's output projection,
       * which sees the last token only) reads the weights once: slices
       * would only add operators. */
      const XbValue *x = &g->values[n->inputs[0]];
      size_t rows = 1;
      for (uint32_t k = 0; k + 1 < x->ndim; k++)
        rows *= x->dims[k];
      if ((n->flags & XNN_FLAG_TRANSPOSE_WEIGHTS) || ws->ndim != 2 || os->ndim < 1 || os->ndim > 4 ||
          os->dims[os->ndim - 1] != ws->dims[0] || x->ndim < 1 || rows <= 8)
        return 0;
      size_t per_channel = ws->dims[1] * sizeof (float);
      return plain_static (g, n, ws->dims[0], per_channel) ? width_for (ws->dims[0], per_channel) : 0;
    }
  /* Convolutions: groups of 1, weights [Cout, kh, kw, Cin]. */
  size_t cout = n->p[11];
  if (n->p[12] != 1 || ws->ndim != 4 || ws->dims[0] != cout || os->ndim != 4 || os->dims[3] != cout)
    return 0;
  /* One tile of pixels reads the weights once: nothing to gain. */
  if (os->dims[0] * os->dims[1] * os->dims[2] <= 8)
    return 0;
  size_t per_channel = ws->dims[1] * ws->dims[2] * ws->dims[3] * sizeof (float);
  return plain_static (g, n, cout, per_channel) ? width_for (cout, per_channel) : 0;
#else
  (void) g;
  (void) n;
  (void) shapes;
  return 0;
#endif
}

void
xb_conv_split_set_budget (size_t bytes)
{
  budget_override = bytes;
}

gboolean
xb_conv_split_wanted (const XbGraph *graph, const XbNode *node, const XbShape *shapes)
{
  return slice_channels (graph, node, shapes) != 0;
}

#if defined(HAVE_XNN_DEFINE_CONCATENATE2) && defined(HAVE_XNN_DEFINE_CONCATENATE5)
/* Concatenates @n (2 or more) values along the last of @ndim dims @dims
 * into @out, five at a time. */
static enum xnn_status
concatenate (xnn_subgraph_t sg, size_t ndim, const size_t *dims, const uint32_t *ids, const size_t *channels, size_t n,
             uint32_t out)
{
  const size_t axis = ndim - 1;
  switch (n)
    {
      case 2: return xnn_define_concatenate2 (sg, axis, ids[0], ids[1], out, 0);
      case 3: return xnn_define_concatenate3 (sg, axis, ids[0], ids[1], ids[2], out, 0);
      case 4: return xnn_define_concatenate4 (sg, axis, ids[0], ids[1], ids[2], ids[3], out, 0);
      case 5: return xnn_define_concatenate5 (sg, axis, ids[0], ids[1], ids[2], ids[3], ids[4], out, 0);
      default: break;
    }
  /* More: even groups (of 3 to 5) into values of their own, then those. */
  uint32_t group_ids[MAX_SLICES];
  size_t group_channels[MAX_SLICES];
  size_t n_groups = (n + 4) / 5;
  for (size_t g = 0, first = 0; g < n_groups; g++)
    {
      size_t count = n / n_groups + (g < n % n_groups ? 1 : 0), sum = 0;
      for (size_t k = 0; k < count; k++)
        sum += channels[first + k];
      size_t group_dims[XNN_MAX_TENSOR_DIMS];
      memcpy (group_dims, dims, ndim * sizeof *dims);
      group_dims[axis] = sum;
      enum xnn_status st = xnn_define_tensor_value (sg, xnn_datatype_fp32, ndim, group_dims, NULL, XNN_INVALID_VALUE_ID,
                                                    0, &group_ids[g]);
      if (st == xnn_status_success)
        st = concatenate (sg, ndim, group_dims, ids + first, channels + first, count, group_ids[g]);
      if (st != xnn_status_success)
        return st;
      group_channels[g] = sum;
      first += count;
    }
  return concatenate (sg, ndim, dims, group_ids, group_channels, n_groups, out);
}
#endif

enum xnn_status
xb_conv_define_split (const XbGraph *graph, const XbNode *n, const XbShape *shapes, xnn_subgraph_t sg, uint32_t input,
                      uint32_t output)
{
#if defined(HAVE_XNN_DEFINE_CONCATENATE2) && defined(HAVE_XNN_DEFINE_CONCATENATE5)
  size_t width = slice_channels (graph, n, shapes);
  if (width == 0)
    return xnn_status_invalid_parameter;
  const XbValue *w = &graph->values[n->inputs[1]];
  const XbValue *b = n->n_inputs > 2 && n->inputs[2] != XB_PAYLOAD_NO_VALUE ? &graph->values[n->inputs[2]] : NULL;
  const XbShape *ws = &shapes[n->inputs[1]], *os = &shapes[n->outputs[0]];
  const uint32_t *p = n->p;
  gboolean fc = n->type == XB_NODE_FULLY_CONNECTED;
  size_t cout = ws->dims[0], per_channel = 1;
  for (uint32_t k = 1; k < ws->ndim; k++)
    per_channel *= ws->dims[k];
  uint32_t ids[MAX_SLICES];
  size_t channels[MAX_SLICES], n_slices = 0;
  for (size_t c0 = 0; c0 < cout; c0 += width)
    {
      size_t cs = MIN (width, cout - c0);
      size_t w_dims[4] = { cs, ws->dims[1], ws->dims[2], ws->dims[3] };
      size_t b_dims[1] = { cs };
      size_t o_dims[XNN_MAX_TENSOR_DIMS];
      memcpy (o_dims, os->dims, os->ndim * sizeof *o_dims);
      o_dims[os->ndim - 1] = cs;
      uint32_t w_id, b_id = XNN_INVALID_VALUE_ID;
      enum xnn_status st =
          xnn_define_tensor_value (sg, xnn_datatype_fp32, ws->ndim, w_dims, (const float *) w->data + c0 * per_channel,
                                   XNN_INVALID_VALUE_ID, 0, &w_id);
      if (st == xnn_status_success && b != NULL)
        st = xnn_define_tensor_value (sg, xnn_datatype_fp32, 1, b_dims, (const float *) b->data + c0,
                                      XNN_INVALID_VALUE_ID, 0, &b_id);
      if (st == xnn_status_success)
        st = xnn_define_tensor_value (sg, xnn_datatype_fp32, os->ndim, o_dims, NULL, XNN_INVALID_VALUE_ID, 0,
                                      &ids[n_slices]);
      if (st == xnn_status_success)
        st = fc ? xnn_define_fully_connected (sg, n->output_min, n->output_max, input, w_id, b_id, ids[n_slices],
                                              n->flags)
                : xnn_define_convolution_2d (sg, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], 1, p[10],
                                             cs, n->output_min, n->output_max, input, w_id, b_id, ids[n_slices],
                                             n->flags);
      if (st != xnn_status_success)
        return st;
      channels[n_slices++] = cs;
    }
  return concatenate (sg, os->ndim, os->dims, ids, channels, n_slices, output);
#else
  (void) graph;
  (void) n;
  (void) shapes;
  (void) sg;
  (void) input;
  (void) output;
  return xnn_status_unsupported_parameter;
#endif
}
