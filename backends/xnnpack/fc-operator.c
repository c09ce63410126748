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

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xnnpack.h>

#include "executorch-threadpool.h"

#include "xnnpack-api.h"

#define FLAG_TRANSPOSE 0x1u
#define FLAG_RESHAPE_2D 0x4u

#if defined(HAVE_XNN_RESHAPE_RUNTIME) && defined(HAVE_XNN_RESHAPE_EXTERNAL_VALUE) && \
    defined(HAVE_XNN_SETUP_RUNTIME_V2) && defined(HAVE_XNN_GET_EXTERNAL_VALUE_SHAPE)
#define LIBRARY_RESHAPES 1
#endif

/* One operator per slice of output channels: the slices run on our own
 * thread pool, which never waits for a worker that gets no CPU, each on
 * one thread.  Under load that keeps every CPU share the process gets at
 * work, where a pthreadpool region would wait for its slowest worker. */
typedef struct
{
  xnn_operator_t op;
  size_t first_channel;
  /* The last setup: skipped when all of these are unchanged. */
  size_t rows;
  const float *input;
  float *output;
  gboolean set_up;
} FcSlice;

struct XbFcOperator
{
  size_t input_channels, output_channels;
  FcSlice *slices;
  guint n_slices;
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
xb_fc_operator_run (XbFcOperator *fc, const XbNode *n, const XbShape *shapes, void *const *ptr, gboolean parallel,
                    const char **why)
{
  *why = "fully-connected operators are not used here";
  return FALSE;
}

void
xb_fc_operator_free (XbFcOperator *fc)
{
}
#else
/* Slices are whole multiples of this many channels (XNNPACK's widest
 * fully-connected tile on x86). */
#define SLICE_ALIGN 16
/* Slices per thread: enough that a late thread leaves little to wait for. */
#define SLICES_PER_THREAD 4

/* How many slices @outc channels get on a pool of @threads threads. */
static guint
slice_count (size_t outc, guint threads)
{
  if (threads <= 1)
    return 1;
  size_t aligned = (outc + SLICE_ALIGN - 1) / SLICE_ALIGN;
  return (guint) MAX (1, MIN (aligned, (size_t) threads * SLICES_PER_THREAD));
}

/* Channels [first, first + count) of @w (outc x k, or k x outc when
 * @transpose) as an operator writing into rows of @outc. */
static xnn_operator_t
create_slice (const float *w, const float *bias, size_t k, size_t outc, gboolean transpose, size_t first, size_t count,
              float lo, float hi, enum xnn_status *st)
{
  g_autofree float *columns = NULL;
  const float *kernel = w + first * k;
  if (transpose)
    {
      /* The slice's columns, gathered so that they are contiguous. */
      columns = g_new (float, k *count);
      for (size_t r = 0; r < k; r++)
        memcpy (columns + r * count, w + r * outc + first, count * sizeof (float));
      kernel = columns;
    }
  xnn_operator_t op = NULL;
  *st = xnn_create_fully_connected_nc_f32 (k, count, k, outc, kernel, bias ? bias + first : NULL, lo, hi,
                                           transpose ? XNN_FLAG_TRANSPOSE_WEIGHTS : 0, &op);
  return op;
}

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
  fc->output_channels = outc;
  fc->n_slices = slice_count (outc, executorch_threadpool_get_num_threads ());
  fc->slices = g_new0 (FcSlice, fc->n_slices);
  size_t per_slice = (outc + fc->n_slices - 1) / fc->n_slices;
  per_slice = (per_slice + SLICE_ALIGN - 1) / SLICE_ALIGN * SLICE_ALIGN;
  const float *bias = b == XB_PAYLOAD_NO_VALUE ? NULL : g->values[b].data;
  guint made = 0;
  for (size_t first = 0; first < outc && made < fc->n_slices; first += per_slice, made++)
    {
      FcSlice *slice = &fc->slices[made];
      enum xnn_status st;
      slice->first_channel = first;
      slice->op = create_slice (w->data, bias, k, outc, transpose, first, MIN (per_slice, outc - first), n->output_min,
                                n->output_max, &st);
      if (st != xnn_status_success)
        {
          fc->n_slices = made;
          xb_fc_operator_free (fc);
          g_set_error (error, XB_ERROR,
                       st == xnn_status_out_of_memory ? ET_ERROR_MEMORY_ALLOCATION_FAILED : ET_ERROR_NOT_SUPPORTED,
                       "XNNPACK: creating a %zu x %zu fully-connected operator failed (status %d)", outc, k, (int) st);
          return NULL;
        }
    }
  /* Rounding the slices up to whole tiles may leave the last ones empty. */
  fc->n_slices = made;
  return fc;
}

typedef struct
{
  XbFcOperator *fc;
  size_t rows;
  const float *input;
  float *output;
  _Atomic gboolean failed;
} SliceJob;

static void
run_slice (gpointer data, gsize i)
{
  SliceJob *job = data;
  FcSlice *slice = &job->fc->slices[i];
  float *output = job->output + slice->first_channel;

  if (!slice->set_up || slice->rows != job->rows || slice->input != job->input || slice->output != output)
    {
      slice->set_up = FALSE;
      if (xnn_setup_fully_connected_nc_f32 (slice->op, job->rows, job->input, output, NULL) != xnn_status_success)
        {
          job->failed = TRUE;
          return;
        }
      slice->set_up = TRUE;
      slice->rows = job->rows;
      slice->input = job->input;
      slice->output = output;
    }
  if (xnn_run_operator (slice->op, NULL) != xnn_status_success)
    job->failed = TRUE;
}

gboolean
xb_fc_operator_run (XbFcOperator *fc, const XbNode *n, const XbShape *shapes, void *const *ptr, gboolean parallel,
                    const char **why)
{
  const XbShape *x = &shapes[n->inputs[0]];
  size_t numel = 1;
  for (uint32_t e = 0; e < x->ndim; e++)
    numel *= x->dims[e];
  SliceJob job = {
    .fc = fc,
    .rows = numel / fc->input_channels,
    .input = ptr[n->inputs[0]],
    .output = ptr[n->outputs[0]],
  };
  if (parallel)
    executorch_threadpool_parallelize_1d (run_slice, &job, fc->n_slices);
  else
    for (guint i = 0; i < fc->n_slices; i++)
      run_slice (&job, i);
  if (job.failed)
    {
      *why = "setting up or running the fully-connected operator failed";
      return FALSE;
    }
  return TRUE;
}

void
xb_fc_operator_free (XbFcOperator *fc)
{
  if (fc == NULL)
    return;
  for (guint i = 0; i < fc->n_slices; i++)
    if (fc->slices[i].op != NULL)
      xnn_delete_operator (fc->slices[i].op);
  g_free (fc->slices);
  g_free (fc);
}
#endif
