/* method-fold.c: load-time folding of constant weight transposes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The exporter writes nn.Linear as permute_copy(weight, [1, 0]) feeding
 * mm or addmm, and it does not fold constants: every execution copies
 * every weight into a transposed buffer before multiplying by it, which
 * for a decoder step costs more than the products.  When the weight is
 * constant and the permuted tensor is read only as the second matrix of
 * mm/addmm, the permuted tensor can instead be a transposed view of the
 * constant (dim order [1, 0], strides [1, K]): the matrix kernels read
 * operands through their strides, so the permute itself has nothing left
 * to do and its instruction calls a kernel that does nothing.
 *
 * Everything is checked before anything changes; a pattern that does not
 * match exactly is left as the exporter wrote it.
 */
#include "method-private.h"

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

static gboolean
kernel_is (const EtMethod *method, const Instruction *ins, const char *name)
{
  const EtKernel *kernel;

  if (ins->kind != INSTRUCTION_KERNEL || ins->a >= method->n_kernels)
    return FALSE;
  kernel = method->kernels[ins->a];
  return kernel != NULL && strcmp (kernel->name, name) == 0;
}

static gboolean
int_item_is (const EtValue *item, int64_t expected)
{
  return item != NULL && item->tag == ET_VALUE_INT && item->u.int_value == expected;
}

/* permute_copy.out (self, dims, out, ret) with a constant contiguous 2-D
 * self, dims [1, 0] and a static out of the transposed shape. */
static gboolean
is_constant_transpose (const EtMethod *method, const Instruction *ins)
{
  const EtTensor *self, *out;
  const EtValueList *dims;

  if (!kernel_is (method, ins, "aten::permute_copy.out") || ins->n_args != 4)
    return FALSE;
  if (ins->args[0]->tag != ET_VALUE_TENSOR || ins->args[1]->tag != ET_VALUE_LIST_INT ||
      ins->args[2]->tag != ET_VALUE_TENSOR || ins->args[3] != ins->args[2])
    return FALSE;
  self = ins->args[0]->u.tensor;
  out = ins->args[2]->u.tensor;
  dims = &ins->args[1]->u.list;
  if (dims->length != 2 || !int_item_is (dims->items[0], 1) || !int_item_is (dims->items[1], 0))
    return FALSE;
  return self != NULL && out != NULL && self != out &&
         (self->flags & ET_TENSOR_FLAG_CONSTANT) != 0 && (out->flags & ET_TENSOR_FLAG_CONSTANT) == 0 &&
         self->data != NULL && self->ndim == 2 && out->ndim == 2 &&
         self->dim_order[0] == 0 && self->dim_order[1] == 1 &&
         self->strides[0] == self->sizes[1] && self->strides[1] == 1 &&
         out->sizes[0] == self->sizes[1] && out->sizes[1] == self->sizes[0] &&
         out->scalar_type == self->scalar_type &&
         self->device_type == ET_DEVICE_CPU && out->device_type == ET_DEVICE_CPU &&
         out->shape_dynamism == ET_SHAPE_STATIC;
}

static gboolean
list_mentions (const EtValue *value, const EtValue *target)
{
  if (value->tag != ET_VALUE_LIST_TENSOR && value->tag != ET_VALUE_LIST_OPTIONAL_TENSOR &&
      value->tag != ET_VALUE_LIST_INT && value->tag != ET_VALUE_LIST_SCALAR)
    return FALSE;
  for (uint32_t i = 0; i < value->u.list.length; i++)
    if (value->u.list.items[i] == target)
      return TRUE;
  return FALSE;
}

/* TRUE when every use of @target other than by @producer is as the second
 * matrix of mm (argument 1) or addmm (argument 2), and the value is not a
 * method input or output, moved, freed or tested by a jump. */
static gboolean
only_read_as_mat2 (const EtMethod *method, const Instruction *producer, const EtValue *target)
{
  guint32 index = (guint32) (target - method->values);

  for (guint i = 0; i < method->meta->n_inputs; i++)
    if (method->input_indices[i] == index)
      return FALSE;
  for (guint i = 0; i < method->meta->n_outputs; i++)
    if (method->output_indices[i] == index)
      return FALSE;

  for (guint c = 0; c < method->n_chains; c++)
    for (guint pc = 0; pc < method->chains[c].n_instructions; pc++)
      {
        const Instruction *ins = &method->chains[c].instructions[pc];
        guint mat2;

        if (ins == producer)
          continue;
        if ((ins->kind == INSTRUCTION_MOVE && (ins->a == index || ins->b == index)) ||
            ((ins->kind == INSTRUCTION_FREE || ins->kind == INSTRUCTION_JUMP_FALSE) && ins->a == index))
          return FALSE;
        if (ins->kind != INSTRUCTION_KERNEL && ins->kind != INSTRUCTION_DELEGATE)
          continue;
        mat2 = kernel_is (method, ins, "aten::mm.out") ? 1 : kernel_is (method, ins, "aten::addmm.out") ? 2 : G_MAXUINT;
        for (guint32 i = 0; i < ins->n_args; i++)
          {
            if (list_mentions (ins->args[i], target))
              return FALSE;
            if (ins->args[i] == target && i != mat2)
              return FALSE;
          }
      }
  return TRUE;
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

void
_et_method_fold_constant_transposes (EtMethod *method)
{
  guint folded_index = G_MAXUINT;

  for (guint c = 0; c < method->n_chains; c++)
    for (guint pc = 0; pc < method->chains[c].n_instructions; pc++)
      {
        Instruction *ins = &method->chains[c].instructions[pc];

        if (!is_constant_transpose (method, ins) || !only_read_as_mat2 (method, ins, ins->args[2]))
          continue;
        if (folded_index == G_MAXUINT)
          {
            /* One extra kernel slot, past the program's operators. */
            method->kernels = g_renew (const EtKernel *, method->kernels, method->n_kernels + 1);
            folded_index = method->n_kernels;
            method->kernels[method->n_kernels++] = &folded_permute_kernel;
          }
        make_transposed_view (ins->args[2]->u.tensor, ins->args[0]->u.tensor);
        ins->a = folded_index;
        method->n_folded++;
      }
}
