/* args.c: argument readers and element conversions for the quantized kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Error codes: a wrong argument count or value tag is InvalidProgram, bad
 * dtypes, shapes or values InvalidArgument, and a failed resize keeps
 * et_tensor_resize()'s code.
 */
#include "quantized-private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

EtError
_executorch_qk_fail (const QkCall *call, EtError code, const char *format, ...)
{
  char text[384];
  va_list ap;

  va_start (ap, format);
  vsnprintf (text, sizeof text, format, ap);
  va_end (ap);
  et_kernel_context_failf (call->ctx, code, "%s: %s", call->op, text);
  return code;
}

const char *
_executorch_qk_type_name (int type)
{
  const char *name = et_scalar_type_name (type);
  return name != NULL ? name : "invalid";
}

static const char *
tag_name (uint32_t tag)
{
  static const char *const names[] = {
    "None", "Tensor", "String", "Double", "Int", "Bool", "BoolList", "DoubleList",
    "IntList", "TensorList", "ScalarList", "OptionalTensorList",
  };
  return tag < QK_N_ELEMENTS (names) ? names[tag] : "invalid";
}

EtError
_executorch_qk_check_n_args (const QkCall *call, uint32_t expected)
{
  if (call->n_args != expected)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_PROGRAM, "expected %u arguments, got %u",
                                expected, call->n_args);
  return ET_OK;
}

static EtError
get_value (const QkCall *call, uint32_t i, const char *name, const EtValue **value)
{
  if (call->args == NULL || i >= call->n_args || call->args[i] == NULL)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_PROGRAM, "argument %u (%s) is missing", i,
                                name);
  *value = call->args[i];
  return ET_OK;
}

static EtError
wrong_tag (const QkCall *call, uint32_t i, const char *name, const char *expected, uint32_t tag)
{
  return _executorch_qk_fail (call, ET_ERROR_INVALID_PROGRAM, "argument %u (%s) must be %s, not %s",
                              i, name, expected, tag_name (tag));
}

static EtError
check_tensor (const QkCall *call, const EtTensor *t, const char *name)
{
  size_t elem = et_scalar_type_size (t->scalar_type);
  bool seen[ET_MAX_DIMS] = { false };
  int64_t numel = 1, expected = 1;

  if (t->ndim > ET_MAX_DIMS)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "%s: rank %u exceeds %d", name,
                                t->ndim, ET_MAX_DIMS);
  if (elem == 0)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "%s: invalid scalar type %d", name,
                                t->scalar_type);
  if (t->device_type != ET_DEVICE_CPU)
    return _executorch_qk_fail (call, ET_ERROR_NOT_SUPPORTED, "%s: tensor is not on the CPU", name);
  for (uint32_t d = 0; d < t->ndim; d++) {
    if (t->sizes[d] < 0)
      return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "%s: negative size in dim %u",
                                  name, d);
    if (t->dim_order[d] >= t->ndim || seen[t->dim_order[d]])
      return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                  "%s: dim_order is not a permutation", name);
    seen[t->dim_order[d]] = true;
    if (t->sizes[d] != 0 && numel > INT64_MAX / t->sizes[d])
      return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "%s: element count overflows",
                                  name);
    numel *= t->sizes[d];
  }
  if (t->numel != numel)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "%s: numel %" PRId64 " does not match its sizes (%" PRId64 ")",
                                name, t->numel, numel);
  if (numel == 0)
    return ET_OK;
  if ((uint64_t) numel > SIZE_MAX / elem || t->nbytes < (size_t) numel * elem)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "%s: nbytes %zu is too small", name,
                                t->nbytes);
  if (t->data == NULL)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_STATE, "%s: tensor has no data", name);
  /* Dense in its dim order, so every flat offset below numel is valid. */
  for (uint32_t j = t->ndim; j-- > 0;) {
    uint32_t d = t->dim_order[j];
    if (t->sizes[d] > 1 && t->strides[d] != expected)
      return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                  "%s: stride of dim %u is %" PRId64 ", expected %" PRId64, name, d,
                                  t->strides[d], expected);
    expected *= t->sizes[d];
  }
  return ET_OK;
}

EtError
_executorch_qk_tensor (const QkCall *call, uint32_t i, const char *name, EtTensor **tensor)
{
  const EtValue *v = NULL;
  QK_TRY (get_value (call, i, name, &v));
  if (v->tag != ET_VALUE_TENSOR)
    return wrong_tag (call, i, name, "a Tensor", v->tag);
  if (v->u.tensor == NULL)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_PROGRAM, "argument %u (%s) has no tensor", i,
                                name);
  QK_TRY (check_tensor (call, v->u.tensor, name));
  *tensor = v->u.tensor;
  return ET_OK;
}

EtError
_executorch_qk_opt_tensor (const QkCall *call, uint32_t i, const char *name, EtTensor **tensor)
{
  const EtValue *v = NULL;
  QK_TRY (get_value (call, i, name, &v));
  if (v->tag == ET_VALUE_NONE) {
    *tensor = NULL;
    return ET_OK;
  }
  return _executorch_qk_tensor (call, i, name, tensor);
}

EtError
_executorch_qk_int (const QkCall *call, uint32_t i, const char *name, int64_t *value)
{
  const EtValue *v = NULL;
  QK_TRY (get_value (call, i, name, &v));
  if (v->tag != ET_VALUE_INT)
    return wrong_tag (call, i, name, "an Int", v->tag);
  *value = v->u.int_value;
  return ET_OK;
}

EtError
_executorch_qk_double (const QkCall *call, uint32_t i, const char *name, double *value)
{
  const EtValue *v = NULL;
  QK_TRY (get_value (call, i, name, &v));
  if (v->tag == ET_VALUE_DOUBLE)
    *value = v->u.double_value;
  else if (v->tag == ET_VALUE_INT)
    *value = (double) v->u.int_value;
  else
    return wrong_tag (call, i, name, "a Double", v->tag);
  return ET_OK;
}

EtError
_executorch_qk_dtype (const QkCall *call, uint32_t i, const char *name, int *dtype)
{
  int64_t v = -1;
  QK_TRY (_executorch_qk_int (call, i, name, &v));
  if (v < 0 || v >= ET_SCALAR_N_TYPES)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "argument %u (%s): %" PRId64 " is not a scalar type", i, name, v);
  *dtype = (int) v;
  return ET_OK;
}

EtError
_executorch_qk_opt_dtype (const QkCall *call, uint32_t i, const char *name, bool *present, int *dtype)
{
  const EtValue *v = NULL;
  QK_TRY (get_value (call, i, name, &v));
  *present = false;
  *dtype = -1;
  if (v->tag == ET_VALUE_NONE)
    return ET_OK;
  if (v->tag != ET_VALUE_INT)
    return wrong_tag (call, i, name, "an Int or None", v->tag);
  QK_TRY (_executorch_qk_dtype (call, i, name, dtype));
  *present = true;
  return ET_OK;
}

EtError
_executorch_qk_resize (const QkCall *call, EtTensor *out, const char *name, uint32_t ndim,
                       const int64_t *sizes)
{
  EtError err = et_tensor_resize (out, ndim, sizes);
  if (err != ET_OK) {
    char shown[256] = "[";
    size_t used = 1;
    for (uint32_t d = 0; d < ndim && used < sizeof shown; d++)
      used += (size_t) snprintf (shown + used, sizeof shown - used, d ? ", %" PRId64 : "%" PRId64,
                                 sizes[d]);
    if (used < sizeof shown)
      snprintf (shown + used, sizeof shown - used, "]");
    return _executorch_qk_fail (call, err, "%s: cannot be resized to %s", name, shown);
  }
  return check_tensor (call, out, name);
}

EtError
_executorch_qk_resize_like (const QkCall *call, EtTensor *out, const char *name, const EtTensor *like)
{
  return _executorch_qk_resize (call, out, name, like->ndim, like->sizes);
}

EtError
_executorch_qk_same_dim_order (const QkCall *call, const EtTensor *a, const char *a_name,
                               const EtTensor *b, const char *b_name)
{
  if (a->ndim != b->ndim || memcmp (a->dim_order, b->dim_order, a->ndim) != 0)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "%s and %s must have the same dim order", a_name, b_name);
  return ET_OK;
}

EtError
_executorch_qk_contiguous (const QkCall *call, const EtTensor *t, const char *name)
{
  if (!et_tensor_is_contiguous (t))
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "%s must be contiguous", name);
  return ET_OK;
}

/* ---- Half and BFloat16 ---- */

static uint32_t
float_bits (float f)
{
  uint32_t u;
  memcpy (&u, &f, sizeof u);
  return u;
}

static float
bits_float (uint32_t u)
{
  float f;
  memcpy (&f, &u, sizeof f);
  return f;
}

float
_executorch_qk_half_to_float (uint16_t h)
{
  uint32_t sign = (uint32_t) (h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;

  if (exp == 0x1f)
    return bits_float (sign | 0x7f800000 | (mant << 13));
  if (exp == 0) {
    /* zero or subnormal: mant * 2^-24, exact in float */
    float v = (float) mant * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return bits_float (sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t
_executorch_qk_float_to_half (float f)
{
  uint32_t x = float_bits (f);
  uint16_t sign = (uint16_t) ((x >> 16) & 0x8000);

  x &= 0x7fffffff;
  if (x > 0x7f800000)
    return sign | 0x7e00;                      /* NaN */
  if (x >= 0x477ff000)
    return sign | 0x7c00;                      /* rounds to infinity */
  if (x < 0x38800000) {
    /* below the smallest normal: a multiple of 2^-24, rounded to even */
    float m = nearbyintf (fabsf (f) * 16777216.0f);
    return sign | (uint16_t) m;
  }
  x += 0xfff + ((x >> 13) & 1);
  return sign | (uint16_t) ((x - 0x38000000) >> 13);
}

float
_executorch_qk_bf16_to_float (uint16_t b)
{
  return bits_float ((uint32_t) b << 16);
}

uint16_t
_executorch_qk_float_to_bf16 (float f)
{
  uint32_t u = float_bits (f);
  if (isnan (f))
    return 0x7fc0;
  return (uint16_t) ((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

float
_executorch_qk_load_float (int type, const void *data, int64_t i)
{
  switch (type) {
  case ET_SCALAR_FLOAT:
    return ((const float *) data)[i];
  case ET_SCALAR_HALF:
    return _executorch_qk_half_to_float (((const uint16_t *) data)[i]);
  case ET_SCALAR_BFLOAT16:
    return _executorch_qk_bf16_to_float (((const uint16_t *) data)[i]);
  case ET_SCALAR_DOUBLE:
    return (float) ((const double *) data)[i];
  default:
    return 0.0f;
  }
}

void
_executorch_qk_store_float (int type, void *data, int64_t i, float v)
{
  switch (type) {
  case ET_SCALAR_FLOAT:
    ((float *) data)[i] = v;
    break;
  case ET_SCALAR_HALF:
    ((uint16_t *) data)[i] = _executorch_qk_float_to_half (v);
    break;
  case ET_SCALAR_BFLOAT16:
    ((uint16_t *) data)[i] = _executorch_qk_float_to_bf16 (v);
    break;
  case ET_SCALAR_DOUBLE:
    ((double *) data)[i] = v;
    break;
  default:
    break;
  }
}

int64_t
_executorch_qk_load_int (int type, const void *data, int64_t i)
{
  switch (type) {
  case ET_SCALAR_BYTE:
    return ((const uint8_t *) data)[i];
  case ET_SCALAR_CHAR:
    return ((const int8_t *) data)[i];
  case ET_SCALAR_SHORT:
    return ((const int16_t *) data)[i];
  case ET_SCALAR_INT:
    return ((const int32_t *) data)[i];
  case ET_SCALAR_LONG:
    return ((const int64_t *) data)[i];
  case ET_SCALAR_UINT16:
  case ET_SCALAR_BITS16:
    return ((const uint16_t *) data)[i];
  default:
    return 0;
  }
}

void
_executorch_qk_store_int (int type, void *data, int64_t i, int64_t v)
{
  switch (type) {
  case ET_SCALAR_BYTE:
    ((uint8_t *) data)[i] = (uint8_t) v;
    break;
  case ET_SCALAR_CHAR:
    ((int8_t *) data)[i] = (int8_t) v;
    break;
  case ET_SCALAR_SHORT:
    ((int16_t *) data)[i] = (int16_t) v;
    break;
  case ET_SCALAR_INT:
    ((int32_t *) data)[i] = (int32_t) v;
    break;
  case ET_SCALAR_LONG:
    ((int64_t *) data)[i] = v;
    break;
  case ET_SCALAR_UINT16:
  case ET_SCALAR_BITS16:
    ((uint16_t *) data)[i] = (uint16_t) v;
    break;
  default:
    break;
  }
}

int64_t
_executorch_qk_requantize (float v, int32_t zero_point, int64_t qmin, int64_t qmax)
{
  /* upstream: (int64)((int32)zp + nearbyint(v)); int32 + float adds in float */
  float s = (float) zero_point + nearbyintf (v);
  int64_t q;

  if (isnan (s))
    q = zero_point;
  else if (s >= 9.2233720368547758e18f)
    q = INT64_MAX;
  else if (s <= -9.2233720368547758e18f)
    q = INT64_MIN;
  else
    q = (int64_t) s;
  if (q < qmin)
    q = qmin;
  if (q > qmax)
    q = qmax;
  return q;
}
