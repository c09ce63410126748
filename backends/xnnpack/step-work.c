/* step-work.c: whether an XNNPACK runtime's operators are big enough to run
 * on the thread pool
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * XNNPACK runs every operator of a runtime as its own parallel region on the
 * pthreadpool it was created with, and Debian's pthreadpool (2021) returns
 * from a region only once every worker has woken up and checked in.  When
 * the operators are small (the linears of a small LLM's decode step, one
 * token) the wake-ups cost more than the work they share, and on a machine
 * whose CPUs other processes keep busy a worker may wait milliseconds for a
 * CPU while the caller spins on it: decode speed collapses.  Runtimes whose
 * largest operator is below WORK_MIN multiply-adds therefore run on the
 * calling thread alone.
 */

#include "backend-private.h"

/* About 0.1 ms of one core's work: below this, a region does not pay for
 * waking a worker (measured in bench/llm.py, see bench/README.md). */
#define WORK_MIN ((guint64) 1 << 20)

static guint64
numel (const XbShape *s)
{
  guint64 n = 1;

  for (uint32_t d = 0; d < s->ndim; d++)
    n *= s->dims[d];
  return n;
}

static guint64
last_dim (const XbShape *s)
{
  return s->ndim > 0 ? s->dims[s->ndim - 1] : 1;
}

/* Multiply-adds (or elements, for element-wise nodes) of @node at @shapes. */
static guint64
node_work (const XbGraph *graph, const XbNode *node, const XbShape *shapes)
{
  guint64 out;

  if (node->n_outputs == 0 || node->outputs[0] >= graph->n_values)
    return 0;
  out = numel (&shapes[node->outputs[0]]);
  switch (node->type)
    {
      case XB_NODE_FULLY_CONNECTED:
      case XB_NODE_BATCH_MATRIX_MULTIPLY:
        if (node->n_inputs > 0 && node->inputs[0] < graph->n_values)
          return out * last_dim (&shapes[node->inputs[0]]);
        return out;
      case XB_NODE_CONV2D:
      case XB_NODE_DEPTHWISE_CONV2D:
      case XB_NODE_CONV_TRANSPOSE_2D:
        /* kernel height x width x input channels per group */
        return out * MAX (node->p[4], 1u) * MAX (node->p[5], 1u) * MAX (node->p[10], 1u);
      default: return out;
    }
}

/* Whether any node in [@first, @end) is big enough for the thread pool. */
gboolean
xb_nodes_worth_threads (const XbGraph *graph, const XbShape *shapes, uint32_t first, uint32_t end)
{
  for (uint32_t i = first; i < end && i < graph->n_nodes; i++)
    if (node_work (graph, &graph->nodes[i], shapes) >= WORK_MIN)
      return TRUE;
  return FALSE;
}
