/* tensor-util.c: scalar types, strides and resizing
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "engine.h"

#include <math.h>
#include <string.h>

static const struct
{
  const char *name;
  guint8 size;
} scalar_types[ET_SCALAR_N_TYPES] = {
  { "Byte", 1 },
  { "Char", 1 },
  { "Short", 2 },
  { "Int", 4 },
  { "Long", 8 },
  { "Half", 2 },
  { "Float", 4 },
  { "Double", 8 },
  { "ComplexHalf", 4 },
  { "ComplexFloat", 8 },
  { "ComplexDouble", 16 },
  { "Bool", 1 },
  { "QInt8", 1 },
  { "QUInt8", 1 },
  { "QInt32", 4 },
  { "BFloat16", 2 },
  { "QUInt4x2", 1 },
  { "QUInt2x4", 1 },
  { "Bits1x8", 1 },
  { "Bits2x4", 1 },
  { "Bits4x2", 1 },
  { "Bits8", 1 },
  { "Bits16", 2 },
  { "Float8_e5m2", 1 },
  { "Float8_e4m3fn", 1 },
  { "Float8_e5m2fnuz", 1 },
  { "Float8_e4m3fnuz", 1 },
  { "UInt16", 2 },
  { "UInt32", 4 },
  { "UInt64", 8 },
};

const char *
et_value_tag_name (uint32_t tag)
{
  static const char *const names[] = { "None",    "Tensor",     "String",     "Double",
                                       "Int",     "Bool",       "BoolList",   "DoubleList",
                                       "IntList", "TensorList", "ScalarList", "OptionalTensorList" };
  return tag < G_N_ELEMENTS (names) ? names[tag] : "unknown";
}

size_t
et_scalar_type_size (int scalar_type)
{
  if (scalar_type < 0 || scalar_type >= ET_SCALAR_N_TYPES)
    return 0;
  return scalar_types[scalar_type].size;
}

const char *
et_scalar_type_name (int scalar_type)
{
  if (scalar_type < 0 || scalar_type >= ET_SCALAR_N_TYPES)
    return NULL;
  return scalar_types[scalar_type].name;
}

void
et_strides_from_dim_order (uint32_t ndim, const int64_t *sizes, const uint8_t *dim_order, int64_t *strides)
{
  if (ndim == 0)
    return;
  strides[dim_order[ndim - 1]] = 1;
  for (int i = (int) ndim - 2; i >= 0; i--)
    {
      uint8_t next = dim_order[i + 1];
      strides[dim_order[i]] = sizes[next] == 0 ? strides[next] : strides[next] * sizes[next];
    }
}

bool
et_tensor_is_contiguous (const EtTensor *tensor)
{
  for (uint32_t i = 0; i < tensor->ndim; i++)
    if (tensor->dim_order[i] != i)
      return false;
  return true;
}

gboolean
_et_checked_nbytes (int scalar_type, uint32_t ndim, const int64_t *sizes, int64_t *numel_out, size_t *nbytes_out)
{
  size_t element = et_scalar_type_size (scalar_type);
  int64_t numel = 1;

  if (element == 0 || ndim > ET_MAX_DIMS)
    return FALSE;
  for (uint32_t i = 0; i < ndim; i++)
    {
      if (sizes[i] < 0)
        return FALSE;
      if (sizes[i] != 0 && numel > G_MAXINT64 / sizes[i])
        return FALSE;
      numel *= sizes[i];
    }
  if ((guint64) numel > G_MAXSIZE / element)
    return FALSE;
  if (numel_out != NULL)
    *numel_out = numel;
  if (nbytes_out != NULL)
    *nbytes_out = (size_t) numel * element;
  return TRUE;
}

EtError
et_tensor_resize (EtTensor *tensor, uint32_t ndim, const int64_t *sizes)
{
  int64_t numel;
  size_t nbytes;
  gboolean same = ndim == tensor->ndim;

  if (tensor == NULL || (ndim > 0 && sizes == NULL))
    return ET_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; same && i < ndim; i++)
    same = sizes[i] == tensor->sizes[i];
  if (same)
    return ET_OK;
  if (ndim != tensor->ndim)
    return ET_ERROR_NOT_SUPPORTED; /* rank never changes */
  if (tensor->shape_dynamism == ET_SHAPE_STATIC)
    return ET_ERROR_NOT_SUPPORTED;
  if (!_et_checked_nbytes (tensor->scalar_type, ndim, sizes, &numel, &nbytes))
    return ET_ERROR_INVALID_ARGUMENT;
  /* A tensor with memory behind it may not outgrow it; planned and constant
   * memory is fixed even when the plan gave it no bytes at all. */
  if ((tensor->capacity > 0 || (tensor->flags & (ET_TENSOR_FLAG_PLANNED | ET_TENSOR_FLAG_CONSTANT))) &&
      nbytes > tensor->capacity)
    return ET_ERROR_NOT_SUPPORTED;
  if (tensor->capacity == 0 && tensor->data != NULL && nbytes > tensor->nbytes)
    return ET_ERROR_NOT_SUPPORTED;
  for (uint32_t i = 0; i < ndim; i++)
    tensor->sizes[i] = sizes[i];
  et_strides_from_dim_order (ndim, tensor->sizes, tensor->dim_order, tensor->strides);
  tensor->numel = numel;
  tensor->nbytes = nbytes;
  return ET_OK;
}

bool
et_value_to_double (const EtValue *value, double *out)
{
  if (value == NULL)
    return false;
  switch (value->tag)
    {
      case ET_VALUE_INT: *out = (double) value->u.int_value; return true;
      case ET_VALUE_DOUBLE: *out = value->u.double_value; return true;
      case ET_VALUE_BOOL: *out = value->u.bool_value ? 1.0 : 0.0; return true;
      default: return false;
    }
}

bool
et_value_to_int (const EtValue *value, int64_t *out)
{
  if (value == NULL)
    return false;
  switch (value->tag)
    {
      case ET_VALUE_INT: *out = value->u.int_value; return true;
      case ET_VALUE_BOOL: *out = value->u.bool_value ? 1 : 0; return true;
      case ET_VALUE_DOUBLE:
        if (!(value->u.double_value >= (double) G_MININT64 && value->u.double_value < (double) G_MAXINT64))
          return false;
        *out = (int64_t) value->u.double_value;
        return true;
      default: return false;
    }
}
