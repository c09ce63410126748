/* args.c: the portable kernels' own argument readers and output resizing
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Error codes: a wrong argument count or value tag is InvalidProgram, bad
 * dtypes, shapes or values are InvalidArgument, and a failed resize keeps
 * et_tensor_resize()'s code (NotSupported).  The checks every plug-in shares
 * (tensors, Int arguments, tag names) are libexecutorch-support's.
 */
#include "kernels-private.h"

#include <stdio.h>
#include <string.h>

int64_t
_executorch_numel (uint32_t ndim, const int64_t *sizes)
{
  int64_t n = 1;
  for (uint32_t d = 0; d < ndim; d++)
    n *= sizes[d];
  return n;
}

void
_executorch_contiguous_strides (uint32_t ndim, const int64_t *sizes, int64_t *strides)
{
  int64_t s = 1;
  for (uint32_t d = ndim; d-- > 0;)
    {
      strides[d] = s;
      s *= sizes[d] > 1 ? sizes[d] : 1;
    }
}

EtError
_executorch_check_supported (EtKernelContext *ctx, const EtTensor *t, const char *name)
{
  if (!_executorch_type_is_supported (t->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_NOT_SUPPORTED, "%s: dtype %s is not supported", name,
                        _executorch_type_name (t->scalar_type));
  return ET_OK;
}

EtError
_executorch_check_long (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name)
{
  if (t->scalar_type != ET_SCALAR_LONG)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s must be Long, not %s", op, name,
                        _executorch_type_name (t->scalar_type));
  return ET_OK;
}

EtError
_executorch_check_same_dtype (EtKernelContext *ctx, const char *op, const EtTensor *self, const EtTensor *out,
                              const char *out_name)
{
  if (self->scalar_type != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s%s%s dtype %s differs from self dtype %s", op ? op : "",
                        op ? ": " : "", out_name, _executorch_type_name (out->scalar_type),
                        _executorch_type_name (self->scalar_type));
  return ET_OK;
}

EtError
_executorch_arg_bool (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *value)
{
  const EtValue *v = NULL;
  KERNEL_TRY (_executorch_arg_value (ctx, args, i, name, &v));
  if (v->tag != ET_VALUE_BOOL)
    return _executorch_support_wrong_tag (ctx, NULL, i, name, "a Bool", v->tag);
  *value = v->u.bool_value;
  return ET_OK;
}

EtError
_executorch_arg_scalar (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, KernelScalar *scalar)
{
  const EtValue *v = NULL;
  KERNEL_TRY (_executorch_arg_value (ctx, args, i, name, &v));
  switch (v->tag)
    {
      case ET_VALUE_INT:
        scalar->kind = KERNEL_SCALAR_KIND_INT;
        scalar->i = v->u.int_value;
        scalar->d = (double) v->u.int_value;
        return ET_OK;
      case ET_VALUE_DOUBLE:
        scalar->kind = KERNEL_SCALAR_KIND_DOUBLE;
        scalar->i = 0;
        scalar->d = v->u.double_value;
        return ET_OK;
      case ET_VALUE_BOOL:
        scalar->kind = KERNEL_SCALAR_KIND_BOOL;
        scalar->i = v->u.bool_value ? 1 : 0;
        scalar->d = (double) scalar->i;
        return ET_OK;
      default: return _executorch_support_wrong_tag (ctx, NULL, i, name, "a Scalar (Int, Double or Bool)", v->tag);
    }
}

EtError
_executorch_arg_int_list (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *present,
                          int64_t *items, uint32_t *n_items)
{
  const EtValue *v = NULL;
  KERNEL_TRY (_executorch_arg_value (ctx, args, i, name, &v));
  *n_items = 0;
  if (present != NULL)
    {
      *present = v->tag != ET_VALUE_NONE;
      if (!*present)
        return ET_OK;
    }
  if (v->tag != ET_VALUE_LIST_INT)
    return _executorch_support_wrong_tag (ctx, NULL, i, name, present ? "an IntList or None" : "an IntList", v->tag);
  if (v->u.list.length > ET_MAX_DIMS)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %u items, at most %d allowed", name, v->u.list.length,
                        ET_MAX_DIMS);
  if (v->u.list.length > 0 && v->u.list.items == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: list has no items", name);
  for (uint32_t k = 0; k < v->u.list.length; k++)
    {
      const EtValue *item = v->u.list.items[k];
      if (item == NULL || item->tag != ET_VALUE_INT)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: item %u is not an Int", name, k);
      items[k] = item->u.int_value;
    }
  *n_items = v->u.list.length;
  return ET_OK;
}

EtError
_executorch_arg_tensor_list (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name,
                             const EtValueList **list)
{
  const EtValue *v = NULL;
  KERNEL_TRY (_executorch_arg_value (ctx, args, i, name, &v));
  if (v->tag != ET_VALUE_LIST_TENSOR)
    return _executorch_support_wrong_tag (ctx, NULL, i, name, "a TensorList", v->tag);
  if (v->u.list.length > 0 && v->u.list.items == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: list has no items", name);
  for (uint32_t k = 0; k < v->u.list.length; k++)
    {
      const EtValue *item = v->u.list.items[k];
      if (item == NULL || item->tag != ET_VALUE_TENSOR || item->u.tensor == NULL)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: item %u is not a Tensor", name, k);
    }
  *list = &v->u.list;
  return ET_OK;
}

EtError
_executorch_resize (EtKernelContext *ctx, EtTensor *out, uint32_t ndim, const int64_t *sizes)
{
  char want[160], have[160];
  int64_t copy[ET_MAX_DIMS];
  EtError err;

  if (ndim > ET_MAX_DIMS)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "out: rank %u exceeds %d", ndim, ET_MAX_DIMS);
  if (ndim > 0)
    memcpy (copy, sizes, ndim * sizeof copy[0]);
  err = et_tensor_resize (out, ndim, copy);
  if (err != ET_OK)
    return KERNEL_FAIL (ctx, err, "cannot resize out from %s to %s",
                        _executorch_format_sizes (have, sizeof have, out->ndim, out->sizes),
                        _executorch_format_sizes (want, sizeof want, ndim, copy));
  return _executorch_check_tensor (ctx, out, "out");
}

EtError
_executorch_wrap_dim (EtKernelContext *ctx, int64_t dim, uint32_t ndim, bool scalar_ok, uint32_t *wrapped)
{
  int64_t n = ndim;
  if (ndim == 0 && scalar_ok)
    {
      if (dim != 0 && dim != -1)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dim %" PRId64 " is out of range for a 0-d tensor", dim);
      *wrapped = 0;
      return ET_OK;
    }
  if (dim < -n || dim >= n)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dim %" PRId64 " is out of range for rank %u", dim, ndim);
  *wrapped = (uint32_t) (dim < 0 ? dim + n : dim);
  return ET_OK;
}

bool
_executorch_tensors_overlap (const EtTensor *a, const EtTensor *b)
{
  const char *pa = a->data, *pb = b->data;
  size_t na = (size_t) a->numel * _executorch_type_size (a->scalar_type);
  size_t nb = (size_t) b->numel * _executorch_type_size (b->scalar_type);

  return pa != NULL && pb != NULL && na > 0 && nb > 0 && pa < pb + nb && pb < pa + na;
}

bool
_executorch_same_sizes (const EtTensor *a, const EtTensor *b)
{
  if (a->ndim != b->ndim)
    return false;
  for (uint32_t d = 0; d < a->ndim; d++)
    if (a->sizes[d] != b->sizes[d])
      return false;
  return true;
}

bool
_executorch_same_dim_order (const EtTensor *a, const EtTensor *b)
{
  if (a->ndim != b->ndim)
    return false;
  for (uint32_t d = 0; d < a->ndim; d++)
    if (a->dim_order[d] != b->dim_order[d])
      return false;
  return true;
}

bool
_executorch_dim_order_is_identity (const EtTensor *t)
{
  for (uint32_t d = 0; d < t->ndim; d++)
    if (t->dim_order[d] != d)
      return false;
  return true;
}
