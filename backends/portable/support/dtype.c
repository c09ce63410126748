/* dtype.c: scalar types, promotion, and element conversion for the portable kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kernels-private.h"

#include <math.h>
#include <string.h>

bool
_executorch_type_is_integral (int type, bool with_bool)
{
  switch (type)
    {
      case ET_SCALAR_BYTE:
      case ET_SCALAR_CHAR:
      case ET_SCALAR_SHORT:
      case ET_SCALAR_INT:
      case ET_SCALAR_LONG: return true;
      case ET_SCALAR_BOOL: return with_bool;
      default: return false;
    }
}

bool
_executorch_type_is_floating (int type)
{
  return type == ET_SCALAR_HALF || type == ET_SCALAR_FLOAT || type == ET_SCALAR_DOUBLE || type == ET_SCALAR_BFLOAT16;
}

bool
_executorch_type_is_supported (int type)
{
  return _executorch_type_is_integral (type, true) || _executorch_type_is_floating (type);
}

static int
signed_rank (int type)
{
  switch (type)
    {
      case ET_SCALAR_CHAR: return 1;
      case ET_SCALAR_SHORT: return 2;
      case ET_SCALAR_INT: return 3;
      case ET_SCALAR_LONG: return 4;
      default: return 0;
    }
}

int
_executorch_promote_types (int a, int b)
{
  if (a == b)
    return a;
  if (!_executorch_type_is_supported (a) || !_executorch_type_is_supported (b))
    return -1;
  if (a == ET_SCALAR_BOOL)
    return b;
  if (b == ET_SCALAR_BOOL)
    return a;

  bool fa = _executorch_type_is_floating (a);
  bool fb = _executorch_type_is_floating (b);
  if (fa && !fb)
    return a;
  if (fb && !fa)
    return b;
  if (fa && fb)
    {
      if (a == ET_SCALAR_DOUBLE || b == ET_SCALAR_DOUBLE)
        return ET_SCALAR_DOUBLE;
      /* Float with Half or BFloat16, and Half with BFloat16. */
      return ET_SCALAR_FLOAT;
    }

  /* Two different integer types. */
  if (a == ET_SCALAR_BYTE || b == ET_SCALAR_BYTE)
    {
      int other = a == ET_SCALAR_BYTE ? b : a;
      return other == ET_SCALAR_CHAR ? ET_SCALAR_SHORT : other;
    }
  return signed_rank (a) > signed_rank (b) ? a : b;
}

bool
_executorch_can_cast (int from, int to)
{
  if (from == to)
    return true;
  if (!_executorch_type_is_supported (from) || !_executorch_type_is_supported (to))
    return false;
  if (_executorch_type_is_floating (from) && _executorch_type_is_integral (to, true))
    return false;
  if (to == ET_SCALAR_BOOL)
    return false;
  return true;
}

KernelComputeKind
_executorch_compute_kind (int type)
{
  switch (type)
    {
      case ET_SCALAR_DOUBLE: return KERNEL_COMPUTE_F64;
      case ET_SCALAR_FLOAT:
      case ET_SCALAR_HALF:
      case ET_SCALAR_BFLOAT16: return KERNEL_COMPUTE_F32;
      default: return KERNEL_COMPUTE_I64;
    }
}

int
_executorch_compute_kind_type (KernelComputeKind kind)
{
  switch (kind)
    {
      case KERNEL_COMPUTE_F32: return ET_SCALAR_FLOAT;
      case KERNEL_COMPUTE_F64: return ET_SCALAR_DOUBLE;
      case KERNEL_COMPUTE_I64:
      default: return ET_SCALAR_LONG;
    }
}

/* ---- Scalars ---- */

int
_executorch_promote_with_scalar (int type, const KernelScalar *scalar)
{
  switch (scalar->kind)
    {
      case KERNEL_SCALAR_KIND_BOOL: return type;
      case KERNEL_SCALAR_KIND_INT: return type == ET_SCALAR_BOOL ? ET_SCALAR_LONG : type;
      case KERNEL_SCALAR_KIND_DOUBLE:
      default: return _executorch_type_is_floating (type) ? type : ET_SCALAR_FLOAT;
    }
}

static bool
int_fits (int type, int64_t v)
{
  switch (type)
    {
      case ET_SCALAR_BYTE: return v >= 0 && v <= UINT8_MAX;
      case ET_SCALAR_CHAR: return v >= INT8_MIN && v <= INT8_MAX;
      case ET_SCALAR_SHORT: return v >= INT16_MIN && v <= INT16_MAX;
      case ET_SCALAR_INT: return v >= INT32_MIN && v <= INT32_MAX;
      default: return true;
    }
}

EtError
_executorch_scalar_to_compute (EtKernelContext *ctx, const KernelScalar *scalar, int type, const char *name,
                               void *value)
{
  switch (_executorch_compute_kind (type))
    {
      case KERNEL_COMPUTE_I64:
        {
          int64_t v;
          if (scalar->kind == KERNEL_SCALAR_KIND_DOUBLE)
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                                "%s: a floating-point scalar (%g) cannot be used with dtype %s", name, scalar->d,
                                _executorch_type_name (type));
          v = scalar->i;
          if (type == ET_SCALAR_BOOL)
            v = v != 0;
          else if (!int_fits (type, v))
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %" PRId64 " does not fit in %s", name, v,
                                _executorch_type_name (type));
          *(int64_t *) value = v;
          return ET_OK;
        }
      case KERNEL_COMPUTE_F32:
        {
          float v = (float) (scalar->kind == KERNEL_SCALAR_KIND_DOUBLE ? scalar->d : (double) scalar->i);
          if (scalar->kind == KERNEL_SCALAR_KIND_DOUBLE && isfinite (scalar->d) && !isfinite (v))
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %g does not fit in float", name, scalar->d);
          *(float *) value = v;
          return ET_OK;
        }
      case KERNEL_COMPUTE_F64:
      default:
        *(double *) value = scalar->kind == KERNEL_SCALAR_KIND_DOUBLE ? scalar->d : (double) scalar->i;
        return ET_OK;
    }
}

/* ---- Element conversion ---- */

static inline int64_t
f64_to_i64 (double v)
{
  if (!(v == v))
    return 0;
  if (v >= 9223372036854775808.0)
    return INT64_MAX;
  if (v <= -9223372036854775808.0)
    return INT64_MIN;
  return (int64_t) v;
}

/* LOAD (T, EXPR): reads elements of C type T as x and writes EXPR to dst. */
#define LOAD(T, EXPR)                         \
  do                                          \
    {                                         \
      const T *p = (const T *) base + offset; \
      if (stride == 1)                        \
        {                                     \
          for (int64_t i = 0; i < n; i++)     \
            {                                 \
              T x = p[i];                     \
              dst[i] = (EXPR);                \
            }                                 \
        }                                     \
      else                                    \
        {                                     \
          for (int64_t i = 0; i < n; i++)     \
            {                                 \
              T x = p[i * stride];            \
              dst[i] = (EXPR);                \
            }                                 \
        }                                     \
    }                                         \
  while (0)

#define STORE(T, EXPR)                        \
  do                                          \
    {                                         \
      T *p = (T *) base + offset;             \
      if (stride == 1)                        \
        {                                     \
          for (int64_t i = 0; i < n; i++)     \
            {                                 \
              __typeof__ (src[0]) x = src[i]; \
              p[i] = (EXPR);                  \
            }                                 \
        }                                     \
      else                                    \
        {                                     \
          for (int64_t i = 0; i < n; i++)     \
            {                                 \
              __typeof__ (src[0]) x = src[i]; \
              p[i * stride] = (EXPR);         \
            }                                 \
        }                                     \
    }                                         \
  while (0)

void
_executorch_load_i64 (int type, const void *base, int64_t offset, int64_t stride, int64_t n, int64_t *dst)
{
  switch (type)
    {
      case ET_SCALAR_BYTE: LOAD (uint8_t, (int64_t) x); break;
      case ET_SCALAR_CHAR: LOAD (int8_t, (int64_t) x); break;
      case ET_SCALAR_SHORT: LOAD (int16_t, (int64_t) x); break;
      case ET_SCALAR_INT: LOAD (int32_t, (int64_t) x); break;
      case ET_SCALAR_LONG: LOAD (int64_t, x); break;
      case ET_SCALAR_BOOL: LOAD (uint8_t, (int64_t) (x != 0)); break;
      case ET_SCALAR_HALF: LOAD (uint16_t, f64_to_i64 (et_half_to_float (x))); break;
      case ET_SCALAR_BFLOAT16: LOAD (uint16_t, f64_to_i64 (et_bfloat16_to_float (x))); break;
      case ET_SCALAR_FLOAT: LOAD (float, f64_to_i64 (x)); break;
      case ET_SCALAR_DOUBLE: LOAD (double, f64_to_i64 (x)); break;
      default: memset (dst, 0, (size_t) n * sizeof *dst); break;
    }
}

void
_executorch_load_f32 (int type, const void *base, int64_t offset, int64_t stride, int64_t n, float *dst)
{
  switch (type)
    {
      case ET_SCALAR_BYTE: LOAD (uint8_t, (float) x); break;
      case ET_SCALAR_CHAR: LOAD (int8_t, (float) x); break;
      case ET_SCALAR_SHORT: LOAD (int16_t, (float) x); break;
      case ET_SCALAR_INT: LOAD (int32_t, (float) x); break;
      case ET_SCALAR_LONG: LOAD (int64_t, (float) x); break;
      case ET_SCALAR_BOOL: LOAD (uint8_t, x != 0 ? 1.0f : 0.0f); break;
      case ET_SCALAR_HALF: LOAD (uint16_t, et_half_to_float (x)); break;
      case ET_SCALAR_BFLOAT16: LOAD (uint16_t, et_bfloat16_to_float (x)); break;
      case ET_SCALAR_FLOAT: LOAD (float, x); break;
      case ET_SCALAR_DOUBLE: LOAD (double, (float) x); break;
      default: memset (dst, 0, (size_t) n * sizeof *dst); break;
    }
}

void
_executorch_load_f64 (int type, const void *base, int64_t offset, int64_t stride, int64_t n, double *dst)
{
  switch (type)
    {
      case ET_SCALAR_BYTE: LOAD (uint8_t, (double) x); break;
      case ET_SCALAR_CHAR: LOAD (int8_t, (double) x); break;
      case ET_SCALAR_SHORT: LOAD (int16_t, (double) x); break;
      case ET_SCALAR_INT: LOAD (int32_t, (double) x); break;
      case ET_SCALAR_LONG: LOAD (int64_t, (double) x); break;
      case ET_SCALAR_BOOL: LOAD (uint8_t, x != 0 ? 1.0 : 0.0); break;
      case ET_SCALAR_HALF: LOAD (uint16_t, (double) et_half_to_float (x)); break;
      case ET_SCALAR_BFLOAT16: LOAD (uint16_t, (double) et_bfloat16_to_float (x)); break;
      case ET_SCALAR_FLOAT: LOAD (float, (double) x); break;
      case ET_SCALAR_DOUBLE: LOAD (double, x); break;
      default: memset (dst, 0, (size_t) n * sizeof *dst); break;
    }
}

void
_executorch_store_i64 (int type, void *base, int64_t offset, int64_t stride, int64_t n, const int64_t *src)
{
  switch (type)
    {
      case ET_SCALAR_BYTE: STORE (uint8_t, (uint8_t) x); break;
      case ET_SCALAR_CHAR: STORE (int8_t, (int8_t) x); break;
      case ET_SCALAR_SHORT: STORE (int16_t, (int16_t) x); break;
      case ET_SCALAR_INT: STORE (int32_t, (int32_t) x); break;
      case ET_SCALAR_LONG: STORE (int64_t, x); break;
      case ET_SCALAR_BOOL: STORE (uint8_t, (uint8_t) (x != 0)); break;
      case ET_SCALAR_HALF: STORE (uint16_t, et_float_to_half ((float) x)); break;
      case ET_SCALAR_BFLOAT16: STORE (uint16_t, et_float_to_bfloat16 ((float) x)); break;
      case ET_SCALAR_FLOAT: STORE (float, (float) x); break;
      case ET_SCALAR_DOUBLE: STORE (double, (double) x); break;
      default: break;
    }
}

void
_executorch_store_f32 (int type, void *base, int64_t offset, int64_t stride, int64_t n, const float *src)
{
  switch (type)
    {
      case ET_SCALAR_BYTE: STORE (uint8_t, (uint8_t) f64_to_i64 (x)); break;
      case ET_SCALAR_CHAR: STORE (int8_t, (int8_t) f64_to_i64 (x)); break;
      case ET_SCALAR_SHORT: STORE (int16_t, (int16_t) f64_to_i64 (x)); break;
      case ET_SCALAR_INT: STORE (int32_t, (int32_t) f64_to_i64 (x)); break;
      case ET_SCALAR_LONG: STORE (int64_t, f64_to_i64 (x)); break;
      case ET_SCALAR_BOOL: STORE (uint8_t, (uint8_t) (x != 0)); break;
      case ET_SCALAR_HALF: STORE (uint16_t, et_float_to_half (x)); break;
      case ET_SCALAR_BFLOAT16: STORE (uint16_t, et_float_to_bfloat16 (x)); break;
      case ET_SCALAR_FLOAT: STORE (float, x); break;
      case ET_SCALAR_DOUBLE: STORE (double, (double) x); break;
      default: break;
    }
}

void
_executorch_store_f64 (int type, void *base, int64_t offset, int64_t stride, int64_t n, const double *src)
{
  switch (type)
    {
      case ET_SCALAR_BYTE: STORE (uint8_t, (uint8_t) f64_to_i64 (x)); break;
      case ET_SCALAR_CHAR: STORE (int8_t, (int8_t) f64_to_i64 (x)); break;
      case ET_SCALAR_SHORT: STORE (int16_t, (int16_t) f64_to_i64 (x)); break;
      case ET_SCALAR_INT: STORE (int32_t, (int32_t) f64_to_i64 (x)); break;
      case ET_SCALAR_LONG: STORE (int64_t, f64_to_i64 (x)); break;
      case ET_SCALAR_BOOL: STORE (uint8_t, (uint8_t) (x != 0)); break;
      case ET_SCALAR_HALF: STORE (uint16_t, et_float_to_half ((float) x)); break;
      case ET_SCALAR_BFLOAT16: STORE (uint16_t, et_float_to_bfloat16 ((float) x)); break;
      case ET_SCALAR_FLOAT: STORE (float, (float) x); break;
      case ET_SCALAR_DOUBLE: STORE (double, x); break;
      default: break;
    }
}

void
_executorch_load_kind (KernelComputeKind kind, int type, const void *base, int64_t offset, int64_t stride, int64_t n,
                       void *dst)
{
  switch (kind)
    {
      case KERNEL_COMPUTE_I64: _executorch_load_i64 (type, base, offset, stride, n, dst); break;
      case KERNEL_COMPUTE_F32: _executorch_load_f32 (type, base, offset, stride, n, dst); break;
      case KERNEL_COMPUTE_F64: _executorch_load_f64 (type, base, offset, stride, n, dst); break;
    }
}

void
_executorch_store_kind (KernelComputeKind kind, int type, void *base, int64_t offset, int64_t stride, int64_t n,
                        const void *src)
{
  switch (kind)
    {
      case KERNEL_COMPUTE_I64: _executorch_store_i64 (type, base, offset, stride, n, src); break;
      case KERNEL_COMPUTE_F32: _executorch_store_f32 (type, base, offset, stride, n, src); break;
      case KERNEL_COMPUTE_F64: _executorch_store_f64 (type, base, offset, stride, n, src); break;
    }
}

void
_executorch_wrap_i64 (int type, int64_t n, int64_t *values)
{
  switch (type)
    {
      case ET_SCALAR_BYTE:
        for (int64_t i = 0; i < n; i++)
          values[i] = (uint8_t) values[i];
        break;
      case ET_SCALAR_CHAR:
        for (int64_t i = 0; i < n; i++)
          values[i] = (int8_t) values[i];
        break;
      case ET_SCALAR_SHORT:
        for (int64_t i = 0; i < n; i++)
          values[i] = (int16_t) values[i];
        break;
      case ET_SCALAR_INT:
        for (int64_t i = 0; i < n; i++)
          values[i] = (int32_t) values[i];
        break;
      case ET_SCALAR_BOOL:
        for (int64_t i = 0; i < n; i++)
          values[i] = values[i] != 0;
        break;
      default: break;
    }
}
