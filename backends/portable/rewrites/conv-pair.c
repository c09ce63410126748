/* conv-pair.c: a depthwise convolution and the 1x1 convolution after it become one instruction
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * After conv-fusion.c, MobileNet's blocks read
 *
 *   depthwise convolution (fused: batch norm, clamp) -> 1x1 convolution (fused: batch norm, residual)
 *
 * with only folded instructions (which do nothing) between them.  When
 * the depthwise one's out is read by nobody but the 1x1 one, as its
 * input, the depthwise instruction becomes a paired one that computes
 * both in one pass (kernels/nn/convolution-pair.c) and writes the 1x1
 * one's out; the 1x1 instruction then does nothing.  Nothing runs between
 * them, so the pair sees what the 1x1 instruction would have seen.  The
 * paired kernel checks the shapes and the output's bytes at run time and
 * runs the two fused convolutions one after the other where the pass
 * does not apply.
 */
#include "kernels-private.h"
#include "rewrites-private.h"
#include "../kernels/nn/convolution-private.h"

static const EtKernel nothing = { "aten::convolution.out", _executorch_conv_folded_op, NULL };

static const KernelConvFusion *
fusion_at (EtMethodGraph *graph, uint32_t index)
{
  const EtKernel *kernel = et_method_graph_kernel (graph, index);

  return kernel != NULL && kernel->func == _executorch_convolution_fused_out ? kernel->user_data : NULL;
}

static const EtTensor *
tensor_arg (EtValue **args, uint32_t n_args, uint32_t i)
{
  return i < n_args && args[i]->tag == ET_VALUE_TENSOR ? args[i]->u.tensor : NULL;
}

/* A depthwise convolution (one output channel per input channel, a
 * window larger than 1x1) without a residual. */
static bool
is_depthwise (EtMethodGraph *graph, uint32_t index, const KernelConvFusion *fusion)
{
  uint32_t n_args;
  EtValue **args = et_method_graph_args (graph, index, &n_args);
  const EtTensor *x = tensor_arg (args, n_args, 0), *w = tensor_arg (args, n_args, 1);

  return n_args == 11 && fusion->residual == NULL && x != NULL && w != NULL && x->ndim == 4 && w->ndim == 4 &&
         w->sizes[1] == 1 && w->sizes[0] == x->sizes[1] && w->sizes[2] * w->sizes[3] > 1 &&
         args[8]->tag == ET_VALUE_INT && args[8]->u.int_value == x->sizes[1];
}

/* A 1x1 convolution of @input in one group, its weights packed at load. */
static bool
is_pointwise_of (EtMethodGraph *graph, uint32_t index, const KernelConvFusion *fusion, const EtValue *input)
{
  uint32_t n_args;
  EtValue **args = et_method_graph_args (graph, index, &n_args);
  const EtTensor *w = tensor_arg (args, n_args, 1);

  return n_args == 11 && args[0] == input && fusion->packed_weight != NULL && w != NULL && w->ndim == 4 &&
         w->sizes[2] == 1 && w->sizes[3] == 1 && args[8]->tag == ET_VALUE_INT && args[8]->u.int_value == 1;
}

/* How many times instruction @index reads @value: as an argument, or
 * as an item of a tensor list argument. */
static uint32_t
uses_in (EtMethodGraph *graph, uint32_t index, const EtValue *value)
{
  uint32_t n_args, uses = 0;
  EtValue **args = et_method_graph_args (graph, index, &n_args);

  for (uint32_t i = 0; i < n_args; i++)
    {
      if (args[i] == value)
        uses++;
      else if ((args[i]->tag == ET_VALUE_LIST_TENSOR || args[i]->tag == ET_VALUE_LIST_OPTIONAL_TENSOR) &&
               args[i]->u.list.items != NULL)
        for (uint32_t k = 0; k < args[i]->u.list.length; k++)
          if (args[i]->u.list.items[k] == value)
            uses++;
    }
  return uses;
}

/* Whether @value is not pinned and, outside instructions [first, reader),
 * read once, by @reader (directly or in a list). */
static bool
read_only_by (EtMethodGraph *graph, const EtValue *value, uint32_t first, uint32_t reader)
{
  uint32_t n = et_method_graph_n_instructions (graph);

  if (et_method_graph_value_is_pinned (graph, value))
    return false;
  for (uint32_t index = 0; index < n; index++)
    if ((index < first || index > reader) && uses_in (graph, index, value) > 0)
      return false;
  return uses_in (graph, reader, value) == 1;
}

/* Whether instruction @reader reads any value instructions [first, end)
 * may write: the outs of @first (a convolution) and every argument of the
 * fused-away instructions after it. */
static bool
reads_written (EtMethodGraph *graph, uint32_t first, uint32_t end, uint32_t reader)
{
  uint32_t n_args;
  EtValue **conv = et_method_graph_args (graph, first, &n_args);

  if (n_args != 11 || uses_in (graph, reader, conv[9]) > 0 || uses_in (graph, reader, conv[10]) > 0)
    return true;
  for (uint32_t index = first + 1; index < end; index++)
    {
      EtValue **args = et_method_graph_args (graph, index, &n_args);
      for (uint32_t i = 0; i < n_args; i++)
        if (uses_in (graph, reader, args[i]) > 0)
          return true;
    }
  return false;
}

/* A fused convolution on the GEMM path (not depthwise) without a
 * residual, its weights packed at load. */
static bool
is_gemm_conv (EtMethodGraph *graph, uint32_t index, const KernelConvFusion *fusion)
{
  uint32_t n_args;
  EtValue **args = et_method_graph_args (graph, index, &n_args);
  const EtTensor *w = tensor_arg (args, n_args, 1);

  return n_args == 11 && fusion->residual == NULL && fusion->packed_weight != NULL && w != NULL && w->ndim == 4 &&
         args[8]->tag == ET_VALUE_INT && args[8]->u.int_value >= 1 &&
         !(w->sizes[1] == 1 && w->sizes[2] * w->sizes[3] > 1 && args[8]->u.int_value == w->sizes[0]);
}

/* Two consecutive GEMM convolutions where the second reads nothing the
 * first (or what was fused into it) writes, nor writes what the first
 * reads: one instruction running both in one region. */
static bool
pair_two (EtMethodGraph *graph, uint32_t index, uint32_t n, uint32_t *last)
{
  const KernelConvFusion *f0 = fusion_at (graph, index), *f1;
  uint32_t next = index + 1, n0, n1;

  if (f0 == NULL || !is_gemm_conv (graph, index, f0))
    return false;
  while (next < n && et_method_graph_kernel (graph, next) != NULL &&
         et_method_graph_kernel (graph, next)->func == _executorch_conv_folded_op)
    next++;
  if (next >= n || (f1 = fusion_at (graph, next)) == NULL || !is_gemm_conv (graph, next, f1) ||
      reads_written (graph, index, next, next))
    return false;
  EtValue **a0 = et_method_graph_args (graph, index, &n0), **a1 = et_method_graph_args (graph, next, &n1);
  if (uses_in (graph, index, a1[9]) > 0 || uses_in (graph, index, a1[10]) > 0 || uses_in (graph, index, f1->out) > 0)
    return false;
  (void) a0;

  KernelConvTwo *two = et_method_graph_alloc (graph, sizeof *two);
  if (two == NULL)
    return false;
  two->kernel.name = "aten::convolution.out";
  two->kernel.func = _executorch_convolution_two_out;
  two->kernel.user_data = two;
  two->conv[0] = f0;
  two->conv[1] = f1;
  two->args[0] = a0;
  two->n_args[0] = n0;
  two->args[1] = a1;
  two->n_args[1] = n1;
  if (et_method_graph_set_kernel (graph, index, &two->kernel) != ET_OK)
    return false;
  et_method_graph_set_kernel (graph, next, &nothing);
  *last = next;
  return true;
}

void
_executorch_conv_pair_fuse (EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph);

  for (uint32_t index = 0; index < n; index++)
    {
      const KernelConvFusion *dw = fusion_at (graph, index), *pw;
      uint32_t next = index + 1;

      if (dw == NULL || !is_depthwise (graph, index, dw))
        continue;
      while (next < n && et_method_graph_kernel (graph, next) != NULL &&
             et_method_graph_kernel (graph, next)->func == _executorch_conv_folded_op)
        next++;
      if (next >= n || (pw = fusion_at (graph, next)) == NULL || !is_pointwise_of (graph, next, pw, dw->out) ||
          !read_only_by (graph, dw->out, index, next))
        continue;

      KernelConvPair *pair = et_method_graph_alloc (graph, sizeof *pair);
      if (pair == NULL)
        return;
      pair->kernel.name = "aten::convolution.out";
      pair->kernel.func = _executorch_convolution_pair_out;
      pair->kernel.user_data = pair;
      pair->dw = dw;
      pair->pw = pw;
      pair->pw_args = et_method_graph_args (graph, next, &pair->pw_n_args);
      /* Both are this library's kernel calls: neither set fails. */
      if (et_method_graph_set_kernel (graph, index, &pair->kernel) != ET_OK)
        return;
      et_method_graph_set_kernel (graph, next, &nothing);
      index = next;
    }
  for (uint32_t index = 0; index < n; index++)
    {
      uint32_t last;
      if (pair_two (graph, index, n, &last))
        index = last;
    }
}
