/* match.c: what the rewrites check of an instruction's kernel and operands
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A rewrite reasons about how this library's kernels work, so it first
 * checks that an instruction calls one of them (not a kernel of the same
 * name from another plug-in), and that the tensors it changes are laid
 * out as it assumes.  The instructions a fusion absorbs call a kernel of
 * the same name that does nothing, so errors and profiles read alike.
 */
#include "kernels-private.h"
#include "rewrites-private.h"

#include <string.h>

EtTensor *
_executorch_rewrite_tensor (const EtValue *value)
{
  return value != NULL && value->tag == ET_VALUE_TENSOR ? value->u.tensor : NULL;
}

bool
_executorch_rewrite_calls_own (EtMethodGraph *graph, uint32_t index, const char *name)
{
  const EtKernel *kernel = et_method_graph_kernel (graph, index);

  if (kernel == NULL || strcmp (kernel->name, name) != 0)
    return false;
  for (size_t t = 0; t < _executorch_n_kernel_tables; t++)
    for (size_t i = 0; i < *_executorch_kernel_tables[t].n_kernels; i++)
      if (strcmp (_executorch_kernel_tables[t].kernels[i].name, name) == 0)
        return kernel->func == _executorch_kernel_tables[t].kernels[i].func;
  return false;
}

bool
_executorch_rewrite_is_plain_f32 (const EtTensor *t)
{
  int64_t expected = 1;

  if (t == NULL || t->scalar_type != ET_SCALAR_FLOAT || t->device_type != ET_DEVICE_CPU || t->data == NULL ||
      t->shape_dynamism != ET_SHAPE_STATIC || !_executorch_dim_order_is_identity (t))
    return false;
  for (int d = (int) t->ndim - 1; d >= 0; d--)
    {
      if (t->strides[d] != expected)
        return false;
      expected *= t->sizes[d];
    }
  return (size_t) expected * sizeof (float) == t->nbytes;
}

bool
_executorch_rewrite_scalar_f32 (const EtValue *value, float *out)
{
  if (value->tag == ET_VALUE_INT)
    *out = (float) value->u.int_value;
  else if (value->tag == ET_VALUE_DOUBLE)
    *out = (float) value->u.double_value;
  else
    return false;
  return true;
}

static const EtKernel nothing[] = {
  { "aten::_native_batch_norm_legit_no_training.out", _executorch_conv_folded_op, NULL },
  { "aten::add.out", _executorch_conv_folded_op, NULL },
  { "aten::relu.out", _executorch_conv_folded_op, NULL },
  { "aten::hardtanh.out", _executorch_conv_folded_op, NULL },
  { "aten::clamp.out", _executorch_conv_folded_op, NULL },
  { "aten::gelu.out", _executorch_conv_folded_op, NULL },
};

const EtKernel *
_executorch_rewrite_nothing (const char *name)
{
  for (size_t i = 0; i < KERNEL_N_ELEMENTS (nothing); i++)
    if (strcmp (nothing[i].name, name) == 0)
      return &nothing[i];
  return NULL;
}
