/* fc-operator.c: fp32 fully-connected nodes as XNNPACK operators whose
 * weights are packed once
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The 2022 library fixes a runtime's shapes when it creates it, and
 * creating it packs every fully-connected weight again.  An LLM's
 * prompt (T tokens) and the decode steps after it (1 token) therefore
 * rebuilt its linears' runtimes, repacking nearly all of the model's
 * weights twice per prompt: most of the time to the first token.  The
 * operator API of the same library takes the batch size at setup: each
 * such node gets one operator, created (weights packed) at load and set up
 * again only when its rows, pointers or thread pool change.  The kernels
 * are the ones its runtime would run.  Where the library reshapes runtimes
 * (2024), the nodes stay in the runtimes.
 * EXECUTORCH_XNNPACK_FC_IN_RUNTIME=1 keeps them there on the 2022 library
 * too (for comparisons).
 */
#include "fc-operator.h"

#include <stdlib.h>
#include <xnnpack.h>

#include "xnnpack-api.h"

#define FLAG_TRANSPOSE 0x1u
#define FLAG_RESHAPE_2D 0x4u

#if defined(HAVE_XNN_RESHAPE_RUNTIME) && defined(HAVE_XNN_RESHAPE_EXTERNAL_VALUE) && \
    defined(HAVE_XNN_SETUP_RUNTIME_V2) && defined(HAVE_XNN_GET_EXTERNAL_VALUE_SHAPE)
#define LIBRARY_RESHAPES 1
#endif

struct XbFcOperator
{
  xnn_operator_t op;
  size_t input_channels;
  /* The last setup: skipped when all of these are unchanged. */
  size_t rows;
  const void *input;
  void *output;
  struct pthreadpool *pool;
  gboolean set_up;
};

/* Unused where the library reshapes (the nodes stay in runtimes). */
G_GNUC_UNUSED static gboolean
is_plain_fp32 (const XbGraph *g, uint32_t v)
{
  return v < g->n_values && g->values[v].datatype == XB_DT_FP32 && g->values[v].quant == XB_QUANT_NONE &&
         g->values[v].narrow_datatype == 0;
}

gboolean
xb_fc_operator_supports (const XbGraph *g, const XbNode *n)
{
#ifdef LIBRARY_RESHAPES
  return FALSE;
#else
  if (n->type != XB_NODE_FULLY_CONNECTED || n->n_inputs < 2 || n->n_outputs < 1 ||
      g_strcmp0 (g_getenv ("EXECUTORCH_XNNPACK_FC_IN_RUNTIME"), "1") == 0)
    return FALSE;
  if (n->flags & ~(FLAG_TRANSPOSE | FLAG_RESHAPE_2D))
    return FALSE;
  uint32_t x = n->inputs[0], w = n->inputs[1], y = n->outputs[0];
  uint32_t b = n->n_inputs > 2 ? n->inputs[2] : XB_PAYLOAD_NO_VALUE;
  if (!is_plain_fp32 (g, x) || !is_plain_fp32 (g, w) || !is_plain_fp32 (g, y))
    return FALSE;
  if (g->values[w].data == NULL || g->values[w].ndim != 2)
    return FALSE;
  return b == XB_PAYLOAD_NO_VALUE || (is_plain_fp32 (g, b) && g->values[b].data != NULL);
#endif
}

#ifdef LIBRARY_RESHAPES
/* Never asked for (xb_fc_operator_supports is FALSE); the 2024 library's
 * operator calls differ. */
XbFcOperator *
xb_fc_operator_new (const XbGraph *g, const XbNode *n, GError **error)
{
  g_set_error (error, XB_ERROR, ET_ERROR_NOT_SUPPORTED, "XNNPACK: fully-connected operators are not used here");
  return NULL;
}

gboolean
xb_fc_operator_run (XbFcOperator *fc, const XbNode *n, const XbShape *shapes, void *const *ptr,
                    struct pthreadpool *pool, const char **why)
{
  *why = "fully-connected operators are not used here";
  return FALSE;
}

void
xb_fc_operator_free (XbFcOperator *fc)
{
}
#else
XbFcOperator *
xb_fc_operator_new (const XbGraph *g, const XbNode *n, GError **error)
{
  const XbValue *w = &g->values[n->inputs[1]];
  uint32_t b = n->n_inputs > 2 ? n->inputs[2] : XB_PAYLOAD_NO_VALUE;
  gboolean transpose = (n->flags & FLAG_TRANSPOSE) != 0;
  size_t k = transpose ? w->dims[0] : w->dims[1], outc = transpose ? w->dims[1] : w->dims[0];
  /* The payload's sizes are untrusted (shape-inference.c checked the bias's). */
  if (k == 0 || outc == 0 || w->data_size / sizeof (float) / k < outc)
    {
      g_set_error (error, XB_ERROR, ET_ERROR_INVALID_PROGRAM,
                   "XNNPACK node %s: the filter's data (%zu bytes) is smaller than its %zu x %zu shape",
                   xb_node_type_name (n->type), w->data_size, outc, k);
      return NULL;
    }
  XbFcOperator *fc = g_new0 (XbFcOperator, 1);
  fc->input_channels = k;
  enum xnn_status st =
      xnn_create_fully_connected_nc_f32 (k, outc, k, outc, w->data, b == XB_PAYLOAD_NO_VALUE ? NULL : g->values[b].data,
                                         n->output_min, n->output_max, transpose ? XNN_FLAG_TRANSPOSE_WEIGHTS : 0,
                                         &fc->op);
  if (st != xnn_status_success)
    {
      g_free (fc);
      g_set_error (error, XB_ERROR,
                   st == xnn_status_out_of_memory ? ET_ERROR_MEMORY_ALLOCATION_FAILED : ET_ERROR_NOT_SUPPORTED,
                   "XNNPACK: creating a %zu x %zu fully-connected operator failed (status %d)", outc, k, (int) st);
      return NULL;
    }
  return fc;
}

gboolean
xb_fc_operator_run (XbFcOperator *fc, const XbNode *n, const XbShape *shapes, void *const *ptr,
                    struct pthreadpool *pool, const char **why)
{
  const XbShape *x = &shapes[n->inputs[0]];
  size_t numel = 1;
  for (uint32_t e = 0; e < x->ndim; e++)
    numel *= x->dims[e];
  size_t rows = numel / fc->input_channels;
  const void *input = ptr[n->inputs[0]];
  void *output = ptr[n->outputs[0]];
  if (!fc->set_up || rows != fc->rows || input != fc->input || output != fc->output || pool != fc->pool)
    {
      fc->set_up = FALSE;
      if (xnn_setup_fully_connected_nc_f32 (fc->op, rows, input, output, pool) != xnn_status_success)
        {
          *why = "setting up the fully-connected operator failed";
          return FALSE;
        }
      fc->set_up = TRUE;
      fc->rows = rows;
      fc->input = input;
      fc->output = output;
      fc->pool = pool;
    }
  if (xnn_run_operator (fc->op, pool) != xnn_status_success)
    {
      *why = "running the fully-connected operator failed";
      return FALSE;
    }
  return TRUE;
}

void
xb_fc_operator_free (XbFcOperator *fc)
{
  if (fc == NULL)
    return;
  xnn_delete_operator (fc->op);
  g_free (fc);
}
#endif
