/* cat-in-place.c: convolutions write their parts of the cat that joins them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A SqueezeNet fire module ends in
 *
 *   expand 1x1 convolution -> expand 3x3 convolution -> cat (dim 1)
 *
 * and the cat copies both outputs into a third buffer.  With one batch,
 * each input of a channel cat is one contiguous block of its output, so
 * when every input is a fused convolution's output (conv-fusion.c) read by
 * the cat alone, each convolution can write its block in place: the
 * inputs' data point into the cat's out, and the cat does nothing.  On two
 * threads the copy also read what the other thread had written (the two
 * dies of some hosts made the eight cats a fifth of SqueezeNet's time).
 *
 * The memory plan gave the cat's out bytes that only tensors whose lives
 * end before the cat may share, and between the first convolution and the
 * cat only the convolutions and the instructions fused into them run: so
 * what the convolutions read (their inputs and residuals) must not share
 * bytes with the cat's out, and that is checked.  Every shape involved is
 * static, and the cat's instruction checks at run time that the blocks
 * are still where they were put.
 */
#include "kernels-private.h"
#include "rewrites-private.h"
#include "../kernels/nn/convolution-private.h"

#include <string.h>

#define CAT "aten::cat.out"

/* The cat's inputs are its out's blocks already. */
static EtError
cat_in_place_op (EtKernelContext *context, EtValue **args, uint32_t n_args)
{
  const EtTensor *out;
  size_t offset = 0;

  if (n_args != 4 || args[0]->tag != ET_VALUE_LIST_TENSOR || args[2]->tag != ET_VALUE_TENSOR)
    return et_error_context_fail (et_kernel_context_error (context), ET_ERROR_INTERNAL,
                                  "cat: in-place instruction with other arguments");
  out = args[2]->u.tensor;
  for (uint32_t i = 0; i < args[0]->u.list.length; i++)
    {
      const EtTensor *t = args[0]->u.list.items[i]->u.tensor;
      if ((const char *) t->data != (const char *) out->data + offset || offset + t->nbytes > out->nbytes)
        return et_error_context_fail (et_kernel_context_error (context), ET_ERROR_INTERNAL,
                                      "cat: input %u is no longer the block of the output it was placed at", i);
      offset += t->nbytes;
    }
  if (offset != out->nbytes)
    return et_error_context_fail (et_kernel_context_error (context), ET_ERROR_INTERNAL,
                                  "cat: the inputs no longer fill the output");
  return ET_OK;
}

static const EtKernel cat_in_place = { CAT, cat_in_place_op, NULL };

/* Whether the cat at @index may take its inputs in place, all of them
 * outputs of @convs. */
static bool
fits (EtMethodGraph *graph, const ChainConv *convs, uint32_t n, uint32_t index)
{
  uint32_t n_args, users[1 + 3];
  EtValue **args = et_method_graph_args (graph, index, &n_args);
  const EtTensor *out;
  uint32_t first = index, d;
  int64_t along = 0;

  if (n_args != 4 || args[0]->tag != ET_VALUE_LIST_TENSOR || args[0]->u.list.length < 2 ||
      args[0]->u.list.items == NULL || args[1]->tag != ET_VALUE_INT)
    return false;
  out = _executorch_rewrite_tensor (args[2]);
  if (!_executorch_rewrite_is_plain_f32 (out) || out->ndim < 1 || et_method_graph_value_is_pinned (graph, args[2]) ||
      args[1]->u.int_value < -(int64_t) out->ndim || args[1]->u.int_value >= (int64_t) out->ndim)
    return false;
  d = (uint32_t) (args[1]->u.int_value < 0 ? args[1]->u.int_value + out->ndim : args[1]->u.int_value);
  /* Blocks of the out only where nothing lies outside the cat's dim. */
  for (uint32_t k = 0; k < d; k++)
    if (out->sizes[k] != 1)
      return false;

  for (uint32_t i = 0; i < args[0]->u.list.length; i++)
    {
      const EtValue *v = args[0]->u.list.items[i];
      const EtTensor *t = _executorch_rewrite_tensor (v);
      int64_t p = _executorch_chain_conv_producing (convs, n, v);
      uint32_t n_users = 0;

      if (p < 0 || !_executorch_rewrite_is_plain_f32 (t) || t->ndim != out->ndim || convs[p].conv >= index)
        return false;
      for (uint32_t k = 0; k < out->ndim; k++)
        if (k != d && t->sizes[k] != out->sizes[k])
          return false;
      /* Read by the cat alone (its fused-away writer names it too). */
      users[n_users++] = index;
      for (int f = 0; f < 3; f++)
        if (convs[p].fused_away[f] >= 0)
          users[n_users++] = (uint32_t) convs[p].fused_away[f];
      if (!et_method_graph_value_used_only_by (graph, v, users, n_users))
        return false;
      for (uint32_t j = 0; j < i; j++)
        if (args[0]->u.list.items[j] == v)
          return false;
      along += t->sizes[d];
      first = convs[p].conv < first ? convs[p].conv : first;
    }
  if (along != out->sizes[d])
    return false;

  /* Between the first convolution and the cat: fused convolutions (what
   * they read kept apart from the out) and the instructions fused into
   * them, nothing else. */
  for (uint32_t j = first; j < index; j++)
    {
      const EtKernel *kernel = et_method_graph_kernel (graph, j);
      int64_t q = _executorch_chain_conv_at (convs, n, j);

      if (kernel != NULL && kernel->func == _executorch_conv_folded_op)
        continue;
      if (q < 0 || kernel == NULL || kernel->func != _executorch_convolution_fused_out)
        return false;
      const EtTensor *x = _executorch_rewrite_tensor (convs[q].input),
                     *r = _executorch_rewrite_tensor (convs[q].residual);
      if (x == NULL || _executorch_tensors_overlap (x, out) || (r != NULL && _executorch_tensors_overlap (r, out)))
        return false;
    }
  return true;
}

void
_executorch_cat_in_place (EtMethodGraph *graph, const ChainConv *convs, uint32_t n)
{
  uint32_t n_instructions = et_method_graph_n_instructions (graph);

  for (uint32_t index = 0; index < n_instructions; index++)
    {
      uint32_t n_args;
      EtValue **args;
      size_t offset = 0;

      if (!_executorch_rewrite_calls_own (graph, index, CAT) || !fits (graph, convs, n, index))
        continue;
      args = et_method_graph_args (graph, index, &n_args);
      EtTensor *out = args[2]->u.tensor;
      for (uint32_t i = 0; i < args[0]->u.list.length; i++)
        {
          EtTensor *t = args[0]->u.list.items[i]->u.tensor;
          t->data = (char *) out->data + offset;
          t->capacity = t->nbytes;
          offset += t->nbytes;
        }
      et_method_graph_set_kernel (graph, index, &cat_in_place);
    }
}
