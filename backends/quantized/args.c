/* args.c: argument readers and element access for the quantized kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Error codes: a wrong argument count or value tag is InvalidProgram, bad
 * dtypes, shapes or values InvalidArgument, and a failed resize keeps
 * et_tensor_resize()'s code.  The checks themselves are libexecutorch-support's
 * (support-private.h); these add the operator's name and what only the
 * quantized kernels need.
 */
#include "quantized-private.h"

#include <math.h>
#include <string.h>

EtError
_executorch_qk_tensor (const QkCall *call, uint32_t i, const char *name, EtTensor **tensor)
{
  return _executorch_support_arg_tensor (call->ctx, call->op, call->args, call->n_args, i, name, false, tensor);
}

EtError
_executorch_qk_opt_tensor (const QkCall *call, uint32_t i, const char *name, EtTensor **tensor)
{
  const EtValue *v = NULL;
  QK_TRY (_executorch_support_arg_value (call->ctx, call->op, call->args, call->n_args, i, name, &v));
  if (v->tag == ET_VALUE_NONE)
    {
      *tensor = NULL;
      return ET_OK;
    }
  return _executorch_qk_tensor (call, i, name, tensor);
}

EtError
_executorch_qk_double (const QkCall *call, uint32_t i, const char *name, double *value)
{
  const EtValue *v = NULL;
  QK_TRY (_executorch_support_arg_value (call->ctx, call->op, call->args, call->n_args, i, name, &v));
  if (v->tag == ET_VALUE_DOUBLE)
    *value = v->u.double_value;
  else if (v->tag == ET_VALUE_INT)
    *value = (double) v->u.int_value;
  else
    return _executorch_support_wrong_tag (call->ctx, call->op, i, name, "a Double", v->tag);
  return ET_OK;
}

EtError
_executorch_qk_opt_dtype (const QkCall *call, uint32_t i, const char *name, bool *present, int *dtype)
{
  int64_t v = 0;
  QK_TRY (_executorch_support_arg_opt_int (call->ctx, call->op, call->args, call->n_args, i, name, present, &v));
  *dtype = -1;
  if (!*present)
    return ET_OK;
  *present = false;
  QK_TRY (_executorch_qk_dtype (call, i, name, dtype));
  *present = true;
  return ET_OK;
}

EtError
_executorch_qk_resize (const QkCall *call, EtTensor *out, const char *name, uint32_t ndim, const int64_t *sizes)
{
  EtError err = et_tensor_resize (out, ndim, sizes);
  if (err != ET_OK)
    {
      char shown[256];
      return _executorch_qk_fail (call, err, "%s: cannot be resized to %s", name,
                                  _executorch_support_format_sizes (shown, sizeof shown, ndim, sizes));
    }
  return _executorch_support_check_tensor (call->ctx, call->op, out, name, false);
}

EtError
_executorch_qk_resize_like (const QkCall *call, EtTensor *out, const char *name, const EtTensor *like)
{
  return _executorch_qk_resize (call, out, name, like->ndim, like->sizes);
}

EtError
_executorch_qk_same_dim_order (const QkCall *call, const EtTensor *a, const char *a_name, const EtTensor *b,
                               const char *b_name)
{
  if (a->ndim != b->ndim || memcmp (a->dim_order, b->dim_order, a->ndim) != 0)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "%s and %s must have the same dim order", a_name,
                                b_name);
  return ET_OK;
}

EtError
_executorch_qk_contiguous (const QkCall *call, const EtTensor *t, const char *name)
{
  if (!et_tensor_is_contiguous (t))
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "%s must be contiguous", name);
  return ET_OK;
}

/* ---- Element access ---- */

float
_executorch_qk_load_float (int type, const void *data, int64_t i)
{
  switch (type)
    {
      case ET_SCALAR_FLOAT: return ((const float *) data)[i];
      case ET_SCALAR_HALF: return et_half_to_float (((const uint16_t *) data)[i]);
      case ET_SCALAR_BFLOAT16: return et_bfloat16_to_float (((const uint16_t *) data)[i]);
      case ET_SCALAR_DOUBLE: return (float) ((const double *) data)[i];
      default: return 0.0f;
    }
}

void
_executorch_qk_store_float (int type, void *data, int64_t i, float v)
{
  switch (type)
    {
      case ET_SCALAR_FLOAT: ((float *) data)[i] = v; break;
      case ET_SCALAR_HALF: ((uint16_t *) data)[i] = et_float_to_half (v); break;
      case ET_SCALAR_BFLOAT16: ((uint16_t *) data)[i] = et_float_to_bfloat16 (v); break;
      case ET_SCALAR_DOUBLE: ((double *) data)[i] = v; break;
      default: break;
    }
}

int64_t
_executorch_qk_load_int (int type, const void *data, int64_t i)
{
  switch (type)
    {
      case ET_SCALAR_BYTE: return ((const uint8_t *) data)[i];
      case ET_SCALAR_CHAR: return ((const int8_t *) data)[i];
      case ET_SCALAR_SHORT: return ((const int16_t *) data)[i];
      case ET_SCALAR_INT: return ((const int32_t *) data)[i];
      case ET_SCALAR_LONG: return ((const int64_t *) data)[i];
      case ET_SCALAR_UINT16:
      case ET_SCALAR_BITS16: return ((const uint16_t *) data)[i];
      default: return 0;
    }
}

void
_executorch_qk_store_int (int type, void *data, int64_t i, int64_t v)
{
  switch (type)
    {
      case ET_SCALAR_BYTE: ((uint8_t *) data)[i] = (uint8_t) v; break;
      case ET_SCALAR_CHAR: ((int8_t *) data)[i] = (int8_t) v; break;
      case ET_SCALAR_SHORT: ((int16_t *) data)[i] = (int16_t) v; break;
      case ET_SCALAR_INT: ((int32_t *) data)[i] = (int32_t) v; break;
      case ET_SCALAR_LONG: ((int64_t *) data)[i] = v; break;
      case ET_SCALAR_UINT16:
      case ET_SCALAR_BITS16: ((uint16_t *) data)[i] = (uint16_t) v; break;
      default: break;
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
