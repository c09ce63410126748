/* common.c: argument checking and element access shared by the kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kernels.h"

#include <string.h>

bool
kernel_type_supported (int t)
{
  switch (t)
    {
    case ET_SCALAR_BYTE: case ET_SCALAR_CHAR: case ET_SCALAR_SHORT: case ET_SCALAR_INT:
    case ET_SCALAR_LONG: case ET_SCALAR_FLOAT: case ET_SCALAR_DOUBLE: case ET_SCALAR_BOOL:
      return true;
    default:
      return false;
    }
}

double
kernel_load (const EtTensor *t, int64_t i)
{
  const void *p = t->data;
  switch (t->scalar_type)
    {
    case ET_SCALAR_BYTE: return ((const uint8_t *) p)[i];
    case ET_SCALAR_CHAR: return ((const int8_t *) p)[i];
    case ET_SCALAR_SHORT: return ((const int16_t *) p)[i];
    case ET_SCALAR_INT: return ((const int32_t *) p)[i];
    case ET_SCALAR_LONG: return (double) ((const int64_t *) p)[i];
    case ET_SCALAR_FLOAT: return ((const float *) p)[i];
    case ET_SCALAR_DOUBLE: return ((const double *) p)[i];
    case ET_SCALAR_BOOL: return ((const uint8_t *) p)[i] != 0;
    default: return 0;
    }
}

void
kernel_store (EtTensor *t, int64_t i, double v)
{
  void *p = t->data;
  switch (t->scalar_type)
    {
    case ET_SCALAR_BYTE: ((uint8_t *) p)[i] = (uint8_t) v; break;
    case ET_SCALAR_CHAR: ((int8_t *) p)[i] = (int8_t) v; break;
    case ET_SCALAR_SHORT: ((int16_t *) p)[i] = (int16_t) v; break;
    case ET_SCALAR_INT: ((int32_t *) p)[i] = (int32_t) v; break;
    case ET_SCALAR_LONG: ((int64_t *) p)[i] = (int64_t) v; break;
    case ET_SCALAR_FLOAT: ((float *) p)[i] = (float) v; break;
    case ET_SCALAR_DOUBLE: ((double *) p)[i] = v; break;
    case ET_SCALAR_BOOL: ((uint8_t *) p)[i] = v != 0; break;
    default: break;
    }
}

int64_t
kernel_offset (const EtTensor *t, uint32_t ndim, const int64_t *coord)
{
  int64_t offset = 0;
  uint32_t skip = ndim - t->ndim;

  for (uint32_t d = 0; d < t->ndim; d++)
    if (t->sizes[d] != 1)
      offset += coord[d + skip] * t->strides[d];
  return offset;
}

void
kernel_next (uint32_t ndim, const int64_t *sizes, int64_t *coord)
{
  for (int d = (int) ndim - 1; d >= 0; d--)
    {
      if (++coord[d] < sizes[d])
        return;
      coord[d] = 0;
    }
}

EtError
kernel_tensor_arg (EtKernelContext *ctx, EtValue **args, uint32_t i, EtTensor **out)
{
  if (args[i]->tag != ET_VALUE_TENSOR)
    return FAIL (ctx, "argument %u is not a tensor", i);
  *out = args[i]->u.tensor;
  if ((*out)->numel > 0 && (*out)->data == NULL)
    return FAIL (ctx, "argument %u has no data", i);
  if (!kernel_type_supported ((*out)->scalar_type))
    return et_kernel_context_failf (ctx, ET_ERROR_NOT_SUPPORTED, "argument %u has unsupported dtype %s", i,
                                    et_scalar_type_name ((*out)->scalar_type));
  return ET_OK;
}

EtError
kernel_int_list (EtKernelContext *ctx, const EtValue *value, int64_t *items, uint32_t *n)
{
  if (value->tag != ET_VALUE_LIST_INT || value->u.list.length > ET_MAX_DIMS)
    return FAIL (ctx, "expected a list of at most %d ints", ET_MAX_DIMS);
  for (uint32_t i = 0; i < value->u.list.length; i++)
    {
      const EtValue *item = value->u.list.items[i];
      if (item == NULL || item->tag != ET_VALUE_INT)
        return FAIL (ctx, "list item %u is not an int", i);
      items[i] = item->u.int_value;
    }
  *n = value->u.list.length;
  return ET_OK;
}

EtError
kernel_resize (EtKernelContext *ctx, EtTensor *out, uint32_t ndim, const int64_t *sizes)
{
  EtError code = et_tensor_resize (out, ndim, sizes);
  if (code != ET_OK)
    return et_kernel_context_failf (ctx, code, "cannot resize the output to the %u-d result", ndim);
  if (out->numel > 0 && out->data == NULL)
    return FAIL (ctx, "output has no memory");
  return ET_OK;
}

void
kernel_copy (EtTensor *dst, const EtTensor *src)
{
  int64_t coord[ET_MAX_DIMS] = { 0 };

  if (dst->scalar_type == src->scalar_type && et_tensor_is_contiguous (dst) && et_tensor_is_contiguous (src))
    {
      memmove (dst->data, src->data, src->nbytes);
      return;
    }
  for (int64_t i = 0; i < dst->numel; i++)
    {
      kernel_store (dst, kernel_offset (dst, dst->ndim, coord),
                    kernel_load (src, kernel_offset (src, dst->ndim, coord)));
      kernel_next (dst->ndim, dst->sizes, coord);
    }
}
