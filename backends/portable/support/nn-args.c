/* nn-args.c: argument readers for strings, optional scalars, optional
 * tensors and float lists
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "nn-private.h"

#include <math.h>
#include <string.h>

static EtError
wrong_tag (EtKernelContext *ctx, uint32_t i, const char *name, const char *expected, uint32_t tag)
{
  return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "argument %u (%s) must be %s, not tag %u", i, name, expected, tag);
}

EtError
_executorch_arg_string (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *present,
                        const char **data, size_t *length)
{
  const EtValue *v;
  KERNEL_TRY (_executorch_arg_value (ctx, args, i, name, &v));
  *data = NULL;
  *length = 0;
  if (present != NULL)
    {
      *present = v->tag != ET_VALUE_NONE;
      if (!*present)
        return ET_OK;
    }
  if (v->tag != ET_VALUE_STRING)
    return wrong_tag (ctx, i, name, present ? "a String or None" : "a String", v->tag);
  if (v->u.string.length > 0 && v->u.string.data == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "argument %u (%s): string has no data", i, name);
  *data = v->u.string.data;
  *length = v->u.string.length;
  return ET_OK;
}

bool
_executorch_string_equals (const char *data, size_t length, const char *literal)
{
  size_t n = strlen (literal);
  return length == n && (n == 0 || memcmp (data, literal, n) == 0);
}

EtError
_executorch_arg_opt_scalar (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *present,
                            KernelScalar *scalar)
{
  const EtValue *v;
  KERNEL_TRY (_executorch_arg_value (ctx, args, i, name, &v));
  memset (scalar, 0, sizeof *scalar);
  *present = v->tag != ET_VALUE_NONE;
  if (!*present)
    return ET_OK;
  return _executorch_arg_scalar (ctx, args, i, name, scalar);
}

EtError
_executorch_arg_opt_tensor (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, EtTensor **tensor)
{
  const EtValue *v;
  KERNEL_TRY (_executorch_arg_value (ctx, args, i, name, &v));
  *tensor = NULL;
  if (v->tag == ET_VALUE_NONE)
    return ET_OK;
  return _executorch_arg_tensor (ctx, args, i, name, tensor);
}

EtError
_executorch_arg_double (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, double *value)
{
  const EtValue *v;
  KERNEL_TRY (_executorch_arg_value (ctx, args, i, name, &v));
  if (v->tag == ET_VALUE_DOUBLE)
    *value = v->u.double_value;
  else if (v->tag == ET_VALUE_INT)
    *value = (double) v->u.int_value;
  else
    return wrong_tag (ctx, i, name, "a Double", v->tag);
  return ET_OK;
}

EtError
_executorch_arg_opt_double (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *present,
                            double *value)
{
  const EtValue *v;
  KERNEL_TRY (_executorch_arg_value (ctx, args, i, name, &v));
  *value = 0.0;
  *present = v->tag != ET_VALUE_NONE;
  if (!*present)
    return ET_OK;
  return _executorch_arg_double (ctx, args, i, name, value);
}

EtError
_executorch_arg_opt_double_list (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, bool *present,
                                 double *items, uint32_t *n_items)
{
  const EtValue *v;
  KERNEL_TRY (_executorch_arg_value (ctx, args, i, name, &v));
  *n_items = 0;
  *present = v->tag != ET_VALUE_NONE;
  if (!*present)
    return ET_OK;
  if (v->tag != ET_VALUE_LIST_DOUBLE)
    return wrong_tag (ctx, i, name, "a DoubleList or None", v->tag);
  if (v->u.double_list.length > ET_MAX_DIMS)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %u items, at most %d allowed", name,
                        v->u.double_list.length, ET_MAX_DIMS);
  if (v->u.double_list.length > 0 && v->u.double_list.items == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: list has no items", name);
  for (uint32_t k = 0; k < v->u.double_list.length; k++)
    items[k] = v->u.double_list.items[k];
  *n_items = v->u.double_list.length;
  return ET_OK;
}

bool
_executorch_dim_order_is_channels_last (const EtTensor *t)
{
  if (t->ndim == 4)
    return t->dim_order[0] == 0 && t->dim_order[1] == 2 && t->dim_order[2] == 3 && t->dim_order[3] == 1;
  if (t->ndim == 5)
    return t->dim_order[0] == 0 && t->dim_order[1] == 2 && t->dim_order[2] == 3 && t->dim_order[3] == 4 &&
           t->dim_order[4] == 1;
  return false;
}

EtError
_executorch_scalar_to_fill (EtKernelContext *ctx, const KernelScalar *scalar, int type, const char *name, void *value)
{
  if (scalar->kind == KERNEL_SCALAR_KIND_DOUBLE && _executorch_type_is_integral (type, true))
    {
      double d = scalar->d;
      if (type == ET_SCALAR_BOOL)
        {
          *(int64_t *) value = d != 0.0;
          return ET_OK;
        }
      double t = trunc (d);
      KernelScalar as_int = { .kind = KERNEL_SCALAR_KIND_INT };
      if (!isfinite (d) || t < -9.2233720368547758e18 || t >= 9.2233720368547758e18)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %g does not fit in %s", name, d,
                            _executorch_type_name (type));
      as_int.i = (int64_t) t;
      as_int.d = t;
      return _executorch_scalar_to_compute (ctx, &as_int, type, name, value);
    }
  return _executorch_scalar_to_compute (ctx, scalar, type, name, value);
}
