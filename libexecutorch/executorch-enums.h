/* executorch-enums.h: enumerations of the GObject API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_H_INSIDE__) && !defined(EXECUTORCH_COMPILATION)
#error "Only <executorch/executorch.h> can be included directly."
#endif

#include <glib-object.h>

#include "executorch-visibility.h"

G_BEGIN_DECLS

/**
 * ExecutorchScalarType:
 * @EXECUTORCH_SCALAR_TYPE_BYTE: unsigned 8-bit integer
 * @EXECUTORCH_SCALAR_TYPE_CHAR: signed 8-bit integer
 * @EXECUTORCH_SCALAR_TYPE_SHORT: signed 16-bit integer
 * @EXECUTORCH_SCALAR_TYPE_INT: signed 32-bit integer
 * @EXECUTORCH_SCALAR_TYPE_LONG: signed 64-bit integer
 * @EXECUTORCH_SCALAR_TYPE_HALF: IEEE 754 half-precision float
 * @EXECUTORCH_SCALAR_TYPE_FLOAT: 32-bit float
 * @EXECUTORCH_SCALAR_TYPE_DOUBLE: 64-bit float
 * @EXECUTORCH_SCALAR_TYPE_COMPLEX_HALF: complex of two halves
 * @EXECUTORCH_SCALAR_TYPE_COMPLEX_FLOAT: complex of two floats
 * @EXECUTORCH_SCALAR_TYPE_COMPLEX_DOUBLE: complex of two doubles
 * @EXECUTORCH_SCALAR_TYPE_BOOL: boolean stored in one byte
 * @EXECUTORCH_SCALAR_TYPE_QINT8: quantized signed 8-bit
 * @EXECUTORCH_SCALAR_TYPE_QUINT8: quantized unsigned 8-bit
 * @EXECUTORCH_SCALAR_TYPE_QINT32: quantized signed 32-bit
 * @EXECUTORCH_SCALAR_TYPE_BFLOAT16: brain floating point
 * @EXECUTORCH_SCALAR_TYPE_QUINT4X2: two unsigned 4-bit values per byte
 * @EXECUTORCH_SCALAR_TYPE_QUINT2X4: four unsigned 2-bit values per byte
 * @EXECUTORCH_SCALAR_TYPE_BITS1X8: eight bits, uninterpreted
 * @EXECUTORCH_SCALAR_TYPE_BITS2X4: four 2-bit fields, uninterpreted
 * @EXECUTORCH_SCALAR_TYPE_BITS4X2: two 4-bit fields, uninterpreted
 * @EXECUTORCH_SCALAR_TYPE_BITS8: 8 bits, uninterpreted
 * @EXECUTORCH_SCALAR_TYPE_BITS16: 16 bits, uninterpreted
 * @EXECUTORCH_SCALAR_TYPE_FLOAT8_E5M2: 8-bit float, 5 exponent bits
 * @EXECUTORCH_SCALAR_TYPE_FLOAT8_E4M3FN: 8-bit float, 4 exponent bits, finite
 * @EXECUTORCH_SCALAR_TYPE_FLOAT8_E5M2FNUZ: 8-bit float, 5 exponent bits, no negative zero
 * @EXECUTORCH_SCALAR_TYPE_FLOAT8_E4M3FNUZ: 8-bit float, 4 exponent bits, no negative zero
 * @EXECUTORCH_SCALAR_TYPE_UINT16: unsigned 16-bit integer
 * @EXECUTORCH_SCALAR_TYPE_UINT32: unsigned 32-bit integer
 * @EXECUTORCH_SCALAR_TYPE_UINT64: unsigned 64-bit integer
 *
 * Element types of tensors.  The values are those of the `.pte` format.
 *
 * Since: 1.0
 */
typedef enum
{
  EXECUTORCH_SCALAR_TYPE_BYTE = 0,
  EXECUTORCH_SCALAR_TYPE_CHAR = 1,
  EXECUTORCH_SCALAR_TYPE_SHORT = 2,
  EXECUTORCH_SCALAR_TYPE_INT = 3,
  EXECUTORCH_SCALAR_TYPE_LONG = 4,
  EXECUTORCH_SCALAR_TYPE_HALF = 5,
  EXECUTORCH_SCALAR_TYPE_FLOAT = 6,
  EXECUTORCH_SCALAR_TYPE_DOUBLE = 7,
  EXECUTORCH_SCALAR_TYPE_COMPLEX_HALF = 8,
  EXECUTORCH_SCALAR_TYPE_COMPLEX_FLOAT = 9,
  EXECUTORCH_SCALAR_TYPE_COMPLEX_DOUBLE = 10,
  EXECUTORCH_SCALAR_TYPE_BOOL = 11,
  EXECUTORCH_SCALAR_TYPE_QINT8 = 12,
  EXECUTORCH_SCALAR_TYPE_QUINT8 = 13,
  EXECUTORCH_SCALAR_TYPE_QINT32 = 14,
  EXECUTORCH_SCALAR_TYPE_BFLOAT16 = 15,
  EXECUTORCH_SCALAR_TYPE_QUINT4X2 = 16,
  EXECUTORCH_SCALAR_TYPE_QUINT2X4 = 17,
  EXECUTORCH_SCALAR_TYPE_BITS1X8 = 18,
  EXECUTORCH_SCALAR_TYPE_BITS2X4 = 19,
  EXECUTORCH_SCALAR_TYPE_BITS4X2 = 20,
  EXECUTORCH_SCALAR_TYPE_BITS8 = 21,
  EXECUTORCH_SCALAR_TYPE_BITS16 = 22,
  EXECUTORCH_SCALAR_TYPE_FLOAT8_E5M2 = 23,
  EXECUTORCH_SCALAR_TYPE_FLOAT8_E4M3FN = 24,
  EXECUTORCH_SCALAR_TYPE_FLOAT8_E5M2FNUZ = 25,
  EXECUTORCH_SCALAR_TYPE_FLOAT8_E4M3FNUZ = 26,
  EXECUTORCH_SCALAR_TYPE_UINT16 = 27,
  EXECUTORCH_SCALAR_TYPE_UINT32 = 28,
  EXECUTORCH_SCALAR_TYPE_UINT64 = 29,
} ExecutorchScalarType;

/**
 * ExecutorchDeviceType:
 * @EXECUTORCH_DEVICE_TYPE_CPU: host memory
 * @EXECUTORCH_DEVICE_TYPE_CUDA: an NVIDIA GPU
 *
 * Kinds of device a tensor or planned buffer can live on.  The values are
 * those of the `.pte` format; the enumeration may grow.
 *
 * Since: 1.0
 */
typedef enum
{
  EXECUTORCH_DEVICE_TYPE_CPU = 0,
  EXECUTORCH_DEVICE_TYPE_CUDA = 1,
} ExecutorchDeviceType;

/**
 * ExecutorchValueKind:
 * @EXECUTORCH_VALUE_KIND_NONE: no value
 * @EXECUTORCH_VALUE_KIND_TENSOR: a tensor
 * @EXECUTORCH_VALUE_KIND_STRING: a string
 * @EXECUTORCH_VALUE_KIND_DOUBLE: a double-precision number
 * @EXECUTORCH_VALUE_KIND_INT: a 64-bit integer
 * @EXECUTORCH_VALUE_KIND_BOOL: a boolean
 * @EXECUTORCH_VALUE_KIND_BOOL_LIST: a list of booleans
 * @EXECUTORCH_VALUE_KIND_DOUBLE_LIST: a list of doubles
 * @EXECUTORCH_VALUE_KIND_INT_LIST: a list of integers
 * @EXECUTORCH_VALUE_KIND_TENSOR_LIST: a list of tensors
 * @EXECUTORCH_VALUE_KIND_SCALAR_LIST: a list of scalars
 * @EXECUTORCH_VALUE_KIND_OPTIONAL_TENSOR_LIST: a list of tensors or nothing
 *
 * What a method input or output holds.  The values are upstream's value tags.
 *
 * Since: 1.0
 */
typedef enum
{
  EXECUTORCH_VALUE_KIND_NONE = 0,
  EXECUTORCH_VALUE_KIND_TENSOR = 1,
  EXECUTORCH_VALUE_KIND_STRING = 2,
  EXECUTORCH_VALUE_KIND_DOUBLE = 3,
  EXECUTORCH_VALUE_KIND_INT = 4,
  EXECUTORCH_VALUE_KIND_BOOL = 5,
  EXECUTORCH_VALUE_KIND_BOOL_LIST = 6,
  EXECUTORCH_VALUE_KIND_DOUBLE_LIST = 7,
  EXECUTORCH_VALUE_KIND_INT_LIST = 8,
  EXECUTORCH_VALUE_KIND_TENSOR_LIST = 9,
  EXECUTORCH_VALUE_KIND_SCALAR_LIST = 10,
  EXECUTORCH_VALUE_KIND_OPTIONAL_TENSOR_LIST = 11,
} ExecutorchValueKind;

/**
 * ExecutorchShapeDynamism:
 * @EXECUTORCH_SHAPE_DYNAMISM_STATIC: sizes are fixed
 * @EXECUTORCH_SHAPE_DYNAMISM_DYNAMIC_BOUND: sizes may shrink below the stored upper bound
 * @EXECUTORCH_SHAPE_DYNAMISM_DYNAMIC_UNBOUND: sizes are unbounded (not supported by the runtime)
 *
 * Whether a tensor's sizes may change between executions.
 *
 * Since: 1.0
 */
typedef enum
{
  EXECUTORCH_SHAPE_DYNAMISM_STATIC = 0,
  EXECUTORCH_SHAPE_DYNAMISM_DYNAMIC_BOUND = 1,
  EXECUTORCH_SHAPE_DYNAMISM_DYNAMIC_UNBOUND = 2,
} ExecutorchShapeDynamism;

EXECUTORCH_AVAILABLE_IN_1_0
gsize executorch_scalar_type_get_element_size (ExecutorchScalarType scalar_type);

EXECUTORCH_AVAILABLE_IN_1_0
const char *executorch_scalar_type_to_string (ExecutorchScalarType scalar_type);

G_END_DECLS
