/* constant-transpose.c: constant weight transposes read by our mm/addmm become views
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The exporter writes nn.Linear as permute_copy(weight, [1, 0]) feeding
 * mm or addmm, and it does not fold constants: every execution copies
 * every weight into a transposed buffer before multiplying by it, which
 * for a decoder step costs more than the products.  When the weight is
 * constant and the permuted tensor is read only as the second matrix of
 * this library's mm/addmm, the permuted tensor can instead be a transposed
 * view of the constant (dim order [1, 0], strides [1, K]): those kernels
 * read operands through their strides, so the permute itself has nothing
 * left to do and its instruction calls a kernel that does nothing.  Another
 * library's mm might not, so its readers leave the permute alone.
 *
 * Everything is checked before anything changes; a pattern that does not
 * match exactly is left as the exporter wrote it.
 */
#include "kernels-private.h"
#include "rewrites-private.h"

#include <string.h>

static EtError
folded_permute (EtKernelContext *context, EtValue **args, uint32_t n_args)
{
  (void) context;
  (void) args;
  (void) n_args;
  return ET_OK;
}

/* Same name as the kernel it replaces, so errors and profiles read alike. */
static const EtKernel folded_permute_kernel = { "aten::permute_copy.out", folded_permute, NULL };

static bool
kernel_named (const EtKernel *kernel, const char *name)
{
  return kernel != NULL && strcmp (kernel->name, name) == 0;
}

/* The argument that is the second matrix when instruction @index is this
 * library's mm (1) or addmm (2); -1 for anything else. */
static int
own_mat2_arg (EtMethodGraph *graph, uint32_t index)
{
  if (_executorch_rewrite_calls_own (graph, index, "aten::mm.out"))
    return 1;
  if (_executorch_rewrite_calls_own (graph, index, "aten::addmm.out"))
    return 2;
  return -1;
}

static bool
int_item_is (const EtValue *item, int64_t expected)
{
  return item != NULL && item->tag == ET_VALUE_INT && item->u.int_value == expected;
}

/* permute_copy.out (self, dims, out, ret) with a constant contiguous 2-D
 * self, dims [1, 0] and a static out of the transposed shape. */
static bool
is_constant_transpose (EtMethodGraph *graph, uint32_t index)
{
  const EtTensor *self, *out;
  const EtValueList *dims;
  EtValue **args;
  uint32_t n_args;

  if (!kernel_named (et_method_graph_kernel (graph, index), "aten::permute_copy.out"))
    return false;
  args = et_method_graph_args (graph, index, &n_args);
  if (n_args != 4 || args[0]->tag != ET_VALUE_TENSOR || args[1]->tag != ET_VALUE_LIST_INT ||
      args[2]->tag != ET_VALUE_TENSOR || args[3] != args[2])
    return false;
  self = args[0]->u.tensor;
  out = args[2]->u.tensor;
  dims = &args[1]->u.list;
  if (dims->length != 2 || !int_item_is (dims->items[0], 1) || !int_item_is (dims->items[1], 0))
    return false;
  return self != NULL && out != NULL && self != out && (self->flags & ET_TENSOR_FLAG_CONSTANT) != 0 &&
         (out->flags & ET_TENSOR_FLAG_CONSTANT) == 0 && self->data != NULL && self->ndim == 2 && out->ndim == 2 &&
         self->dim_order[0] == 0 && self->dim_order[1] == 1 && self->strides[0] == self->sizes[1] &&
         self->strides[1] == 1 && out->sizes[0] == self->sizes[1] && out->sizes[1] == self->sizes[0] &&
         out->scalar_type == self->scalar_type && self->device_type == ET_DEVICE_CPU &&
         out->device_type == ET_DEVICE_CPU && out->shape_dynamism == ET_SHAPE_STATIC;
}

/* True when @target is not pinned and every use of it other than by
 * @producer is as the second matrix of this library's mm or addmm. */
static bool
only_read_as_own_mat2 (EtMethodGraph *graph, uint32_t producer, const EtValue *target)
{
  uint32_t n = et_method_graph_n_instructions (graph);

  if (et_method_graph_value_is_pinned (graph, target))
    return false;
  for (uint32_t index = 0; index < n; index++)
    {
      EtValue **args;
      uint32_t n_args;
      int mat2;

      if (index == producer)
        continue;
      args = et_method_graph_args (graph, index, &n_args);
      mat2 = own_mat2_arg (graph, index);
      for (uint32_t i = 0; i < n_args; i++)
        if (args[i] == target && (int) i != mat2)
          return false;
    }
  return true;
}

static void
make_transposed_view (EtTensor *out, const EtTensor *self)
{
  out->data = self->data;
  out->dim_order[0] = 1;
  out->dim_order[1] = 0;
  out->strides[0] = 1;
  out->strides[1] = out->sizes[0];
  out->capacity = self->nbytes;
  out->flags = (out->flags & ~ET_TENSOR_FLAG_PLANNED) | ET_TENSOR_FLAG_CONSTANT;
}

static void
fold_constant_transposes (void *user_data, EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph);

  (void) user_data;
  if (!_executorch_rewrites_enabled ())
    return;
  for (uint32_t index = 0; index < n; index++)
    {
      EtValue **args;
      uint32_t n_args;

      if (!is_constant_transpose (graph, index))
        continue;
      args = et_method_graph_args (graph, index, &n_args);
      if (!only_read_as_own_mat2 (graph, index, args[2]))
        continue;
      if (et_method_graph_set_kernel (graph, index, &folded_permute_kernel) == ET_OK)
        make_transposed_view (args[2]->u.tensor, args[0]->u.tensor);
    }
}

const EtMethodRewrite _executorch_constant_transpose_rewrite = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "kernels:constant-transposes",
  .rewrite = fold_constant_transposes,
};
