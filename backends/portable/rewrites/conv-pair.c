/* conv-pair.c: two independent convolutions in a row become one instruction
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * After conv-fusion.c, a SqueezeNet fire module reads
 *
 *   expand 1x1 convolution (fused: relu) -> expand 3x3 convolution (fused: relu) -> cat
 *
 * with only folded instructions (which do nothing) between the two
 * convolutions, both reading the squeeze output.  When the second reads
 * nothing the first (or what was fused into it) writes, and writes
 * nothing the first reads, the first instruction runs both, their tasks in
 * one parallel region (kernels/nn/convolution-fast.c), and the second does
 * nothing.  Nothing runs between them, so the second sees what it would
 * have seen.  The kernel checks the shapes and the outputs' bytes at run
 * time and runs the two one after the other where one region does not
 * apply.
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

/* A fused convolution on the GEMM path (not depthwise, not the rows
 * path) without a residual, its weights packed at load. */
static bool
is_gemm_conv (EtMethodGraph *graph, uint32_t index, const KernelConvFusion *fusion)
{
  uint32_t n_args;
  EtValue **args = et_method_graph_args (graph, index, &n_args);
  const EtTensor *w = tensor_arg (args, n_args, 1);

  return n_args == 11 && fusion->residual == NULL && fusion->packed_weight != NULL &&
         fusion->packing == KERNEL_CONV_PACKED_GEMM && w != NULL && w->ndim == 4 && args[8]->tag == ET_VALUE_INT &&
         args[8]->u.int_value >= 1 &&
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
      uint32_t last;
      if (pair_two (graph, index, n, &last))
        index = last;
    }
}
