/* tensor-desc.c: reading Tensor tables and value tags from a program
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "program-private.h"

#include <string.h>

enum
{
  TENSOR_SCALAR_TYPE,
  TENSOR_STORAGE_OFFSET,
  TENSOR_SIZES,
  TENSOR_DIM_ORDER,
  TENSOR_REQUIRES_GRAD,
  TENSOR_DATA_BUFFER_IDX,
  TENSOR_ALLOCATION_INFO,
  TENSOR_LAYOUT,
  TENSOR_SHAPE_DYNAMISM,
  TENSOR_EXTRA_TENSOR_INFO
};
enum
{
  ALLOCATION_MEMORY_ID,
  ALLOCATION_OFFSET_LOW,
  ALLOCATION_OFFSET_HIGH
};
enum
{
  EXTRA_MUTABLE_DATA_SEGMENTS_IDX,
  EXTRA_FULLY_QUALIFIED_NAME,
  EXTRA_LOCATION,
  EXTRA_DEVICE_TYPE,
  EXTRA_DEVICE_INDEX
};

int
_et_value_tag_from_union (guint8 union_type)
{
  static const int tags[] = {
    -1,
    ET_VALUE_NONE,
    ET_VALUE_INT,
    ET_VALUE_BOOL,
    ET_VALUE_DOUBLE,
    ET_VALUE_TENSOR,
    ET_VALUE_STRING,
    ET_VALUE_LIST_INT,
    ET_VALUE_LIST_DOUBLE,
    ET_VALUE_LIST_BOOL,
    ET_VALUE_LIST_TENSOR,
    ET_VALUE_LIST_OPTIONAL_TENSOR,
  };
  return union_type < G_N_ELEMENTS (tags) ? tags[union_type] : -1;
}

/* Checks that @dim_order is a permutation of 0..ndim-1. */
static gboolean
is_permutation (const uint8_t *dim_order, uint32_t ndim)
{
  guint32 seen = 0;

  for (uint32_t i = 0; i < ndim; i++)
    {
      if (dim_order[i] >= ndim || (seen & (1u << dim_order[i])))
        return FALSE;
      seen |= 1u << dim_order[i];
    }
  return TRUE;
}

gboolean
_et_tensor_desc_read (EtFb *fb, EtFbTable tensor, guint index, EtTensorDesc *desc)
{
  EtFbVector sizes, dim_order;
  EtFbTable allocation, extra;
  gint32 storage_offset;

  memset (desc, 0, sizeof *desc);
  desc->scalar_type = _et_fb_i8 (fb, tensor, TENSOR_SCALAR_TYPE, 0);
  storage_offset = _et_fb_i32 (fb, tensor, TENSOR_STORAGE_OFFSET, 0);
  sizes = _et_fb_vector (fb, tensor, TENSOR_SIZES, 4, "Tensor.sizes");
  dim_order = _et_fb_vector (fb, tensor, TENSOR_DIM_ORDER, 1, "Tensor.dim_order");
  desc->data_buffer_idx = _et_fb_u32 (fb, tensor, TENSOR_DATA_BUFFER_IDX, 0);
  desc->shape_dynamism = _et_fb_u8 (fb, tensor, TENSOR_SHAPE_DYNAMISM, 0);
  allocation = _et_fb_table (fb, tensor, TENSOR_ALLOCATION_INFO, "Tensor.allocation_info");
  extra = _et_fb_table (fb, tensor, TENSOR_EXTRA_TENSOR_INFO, "Tensor.extra_tensor_info");
  if (!_et_fb_ok (fb))
    return FALSE;

  if (et_scalar_type_size (desc->scalar_type) == 0)
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "value %u: tensor has invalid scalar type %d", index,
                   desc->scalar_type);
      return FALSE;
    }
  if (!_et_fb_has_field (fb, tensor, TENSOR_SIZES) || !_et_fb_has_field (fb, tensor, TENSOR_DIM_ORDER))
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "value %u: tensor lacks sizes or dim_order", index);
      return FALSE;
    }
  if (sizes.length > ET_MAX_DIMS || sizes.length != dim_order.length)
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                   "value %u: tensor has %u sizes and %u dim_order entries "
                   "(at most %d, and equal)",
                   index, sizes.length, dim_order.length, ET_MAX_DIMS);
      return FALSE;
    }
  desc->ndim = sizes.length;
  for (uint32_t i = 0; i < desc->ndim; i++)
    {
      desc->sizes[i] = _et_fb_vector_i32 (fb, sizes, i);
      desc->dim_order[i] = _et_fb_vector_u8 (fb, dim_order, i);
      if (desc->sizes[i] < 0)
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "value %u: tensor size %u is negative (%" G_GINT64_FORMAT ")",
                       index, i, desc->sizes[i]);
          return FALSE;
        }
    }
  if (!is_permutation (desc->dim_order, desc->ndim))
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                   "value %u: tensor dim_order is not a permutation of its "
                   "%u dimensions",
                   index, desc->ndim);
      return FALSE;
    }
  if (!_et_checked_nbytes (desc->scalar_type, desc->ndim, desc->sizes, &desc->numel, &desc->nbytes))
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "value %u: tensor byte size overflows", index);
      return FALSE;
    }
  if (storage_offset != 0)
    {
      _et_fb_fail (fb, ET_ERROR_NOT_SUPPORTED, "value %u: tensor storage_offset %d is not supported", index,
                   storage_offset);
      return FALSE;
    }
  if (_et_fb_i8 (fb, tensor, TENSOR_LAYOUT, 0) != 0)
    {
      _et_fb_fail (fb, ET_ERROR_NOT_SUPPORTED, "value %u: only strided tensors are supported", index);
      return FALSE;
    }
  if (desc->shape_dynamism > ET_SHAPE_DYNAMIC_UNBOUND)
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "value %u: invalid shape dynamism %u", index, desc->shape_dynamism);
      return FALSE;
    }

  if (allocation.present)
    {
      guint32 high = _et_fb_u32 (fb, allocation, ALLOCATION_OFFSET_HIGH, 0);
      desc->has_allocation = TRUE;
      desc->memory_id = _et_fb_u32 (fb, allocation, ALLOCATION_MEMORY_ID, 0);
      desc->memory_offset = _et_fb_u32 (fb, allocation, ALLOCATION_OFFSET_LOW, 0) | ((guint64) high << 32);
    }
  if (extra.present)
    {
      desc->fully_qualified_name =
          _et_fb_string (fb, extra, EXTRA_FULLY_QUALIFIED_NAME, NULL, "ExtraTensorInfo.fully_qualified_name");
      desc->external = _et_fb_i8 (fb, extra, EXTRA_LOCATION, 0) == 1;
      desc->device_type = _et_fb_i8 (fb, extra, EXTRA_DEVICE_TYPE, ET_DEVICE_CPU);
      desc->device_index = _et_fb_i8 (fb, extra, EXTRA_DEVICE_INDEX, 0);
      if (desc->device_type < 0 || desc->device_type >= ET_DEVICE_N_TYPES || desc->device_index < 0)
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "value %u: tensor is on unknown device %d:%d", index,
                       desc->device_type, desc->device_index);
          return FALSE;
        }
      if (desc->external && desc->fully_qualified_name == NULL && _et_fb_ok (fb))
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "value %u: external tensor has no name", index);
          return FALSE;
        }
    }
  return _et_fb_ok (fb);
}
