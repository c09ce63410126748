/* executorch-enums.c: helpers for the enumerations of the GObject API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-private.h"

G_STATIC_ASSERT ((int) EXECUTORCH_SCALAR_TYPE_UINT64 == (int) ET_SCALAR_UINT64);
G_STATIC_ASSERT ((int) EXECUTORCH_SCALAR_TYPE_FLOAT == (int) ET_SCALAR_FLOAT);
G_STATIC_ASSERT ((int) EXECUTORCH_DEVICE_TYPE_CUDA == (int) ET_DEVICE_CUDA);
G_STATIC_ASSERT ((int) EXECUTORCH_VALUE_KIND_OPTIONAL_TENSOR_LIST == (int) ET_VALUE_LIST_OPTIONAL_TENSOR);
G_STATIC_ASSERT ((int) EXECUTORCH_SHAPE_DYNAMISM_DYNAMIC_UNBOUND == (int) ET_SHAPE_DYNAMIC_UNBOUND);
G_STATIC_ASSERT ((int) EXECUTORCH_ERROR_DELEGATE_INVALID_HANDLE == (int) ET_ERROR_DELEGATE_INVALID_HANDLE);

/**
 * executorch_scalar_type_get_element_size:
 * @scalar_type: a scalar type
 *
 * Gets the size of one element of @scalar_type.  Sub-byte types
 * (%EXECUTORCH_SCALAR_TYPE_QUINT4X2 and the like) count as one byte, as
 * they do in the `.pte` format.
 *
 * MT safe.
 *
 * Returns: the size in bytes of one element of @scalar_type, or 0 when
 *   @scalar_type is not a valid value.
 *
 * Since: 1.0
 */
gsize
executorch_scalar_type_get_element_size (ExecutorchScalarType scalar_type)
{
  return et_scalar_type_size ((int) scalar_type);
}

/**
 * executorch_scalar_type_to_string:
 * @scalar_type: a scalar type
 *
 * Gets upstream ExecuTorch's name for @scalar_type, as used in messages.
 *
 * MT safe.
 *
 * Returns: (transfer none) (nullable): upstream's name for @scalar_type
 *   ("Float", "Long", ...), or %NULL when it is not a valid value.  The
 *   string is static.
 *
 * Since: 1.0
 */
const char *
executorch_scalar_type_to_string (ExecutorchScalarType scalar_type)
{
  return et_scalar_type_name ((int) scalar_type);
}
