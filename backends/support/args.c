/* args.c: argument and tensor checks, and the names in their messages
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Error codes: a wrong argument count or value tag is InvalidProgram, bad
 * dtypes, shapes or values InvalidArgument, a tensor off the CPU
 * NotSupported.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* vasprintf */
#endif
#include "support-private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

EtError
_executorch_support_fail (EtKernelContext *ctx, const char *op, EtError code, const char *format, ...)
{
  char *text = NULL;
  va_list ap;

  va_start (ap, format);
  if (vasprintf (&text, format, ap) < 0)
    text = NULL;
  va_end (ap);
  code = et_error_context_fail (et_kernel_context_error (ctx), code, "%s%s%s", op != NULL ? op : "",
                                op != NULL ? ": " : "", text != NULL ? text : format);
  free (text);
  return code;
}

const char *
_executorch_support_type_name (int type)
{
  const char *name = et_scalar_type_name (type);
  return name != NULL ? name : "invalid";
}

const char *
_executorch_support_format_sizes (char *buf, size_t buf_size, uint32_t ndim, const int64_t *sizes)
{
  size_t used = 0;
  if (buf_size == 0)
    return buf;
  buf[0] = '\0';
  used += (size_t) snprintf (buf, buf_size, "[");
  for (uint32_t d = 0; d < ndim && d < ET_MAX_DIMS && used < buf_size; d++)
    used += (size_t) snprintf (buf + used, buf_size - used, d ? ", %" PRId64 : "%" PRId64, sizes[d]);
  if (used < buf_size)
    snprintf (buf + used, buf_size - used, "]");
  return buf;
}

EtError
_executorch_support_check_n_args (EtKernelContext *ctx, const char *op, uint32_t n_args, uint32_t expected)
{
  if (n_args != expected)
    return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_PROGRAM, "expected %u arguments, got %u", expected,
                                     n_args);
  return ET_OK;
}

EtError
_executorch_support_arg_value (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t n_args, uint32_t i,
                               const char *name, const EtValue **value)
{
  if (args == NULL || i >= n_args || args[i] == NULL)
    return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_PROGRAM, "argument %u (%s) is missing", i, name);
  *value = args[i];
  return ET_OK;
}

EtError
_executorch_support_wrong_tag (EtKernelContext *ctx, const char *op, uint32_t i, const char *name, const char *expected,
                               uint32_t tag)
{
  return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_PROGRAM, "argument %u (%s) must be %s, not %s", i, name,
                                   expected, et_value_tag_name (tag));
}

/* Called for every tensor argument of every kernel call (hundreds per
 * decode step of a small LLM): one pass, no divisions. */
EtError
_executorch_support_check_tensor (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name,
                                  bool any_device)
{
  size_t elem = et_scalar_type_size (t->scalar_type);
  uint32_t seen = 0; /* bit d: dim d is in dim_order */
  int64_t numel = 1;
  bool overflow = false;

  _Static_assert(ET_MAX_DIMS <= 32, "dims fit the seen mask");
  if (t->ndim > ET_MAX_DIMS)
    return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_ARGUMENT, "%s: rank %u exceeds %d", name, t->ndim,
                                     ET_MAX_DIMS);
  if (elem == 0)
    return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_ARGUMENT, "%s: invalid scalar type %d", name,
                                     t->scalar_type);
  if (!any_device && t->device_type != ET_DEVICE_CPU)
    return _executorch_support_fail (ctx, op, ET_ERROR_NOT_SUPPORTED, "%s: tensor is not on the CPU", name);
  for (uint32_t d = 0; d < t->ndim; d++)
    {
      int64_t product;
      if (t->sizes[d] < 0)
        return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_ARGUMENT, "%s: negative size in dim %u", name, d);
      if (t->dim_order[d] >= t->ndim || (seen >> t->dim_order[d]) & 1u)
        return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_ARGUMENT, "%s: dim_order is not a permutation",
                                         name);
      seen |= 1u << t->dim_order[d];
      /* A zero size anywhere makes the count 0, whatever the other sizes. */
      if (__builtin_mul_overflow (numel, t->sizes[d], &product))
        overflow = true;
      else
        numel = product;
    }
  if (overflow && numel != 0)
    return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_ARGUMENT, "%s: element count overflows", name);
  if (t->numel != numel)
    return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_ARGUMENT,
                                     "%s: numel %" PRId64 " does not match its sizes (%" PRId64 ")", name, t->numel,
                                     numel);
  if (numel == 0)
    return ET_OK;
  size_t bytes;
  if ((uint64_t) numel > SIZE_MAX || __builtin_mul_overflow ((size_t) numel, elem, &bytes) || t->nbytes < bytes)
    return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_ARGUMENT, "%s: nbytes %zu is too small", name,
                                     t->nbytes);
  if (t->data == NULL)
    return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_STATE, "%s: tensor has no data", name);

  /* Strides must be the dim_order rule so that offsets stay below numel. */
  int64_t expected = 1;
  for (uint32_t j = t->ndim; j-- > 0;)
    {
      uint32_t d = t->dim_order[j];
      if (t->sizes[d] > 1 && t->strides[d] != expected)
        return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_ARGUMENT,
                                         "%s: stride of dim %u is %" PRId64 ", expected %" PRId64, name, d,
                                         t->strides[d], expected);
      expected *= t->sizes[d];
    }
  return ET_OK;
}

EtError
_executorch_support_arg_tensor (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t n_args, uint32_t i,
                                const char *name, bool any_device, EtTensor **tensor)
{
  const EtValue *v = NULL;
  EtError err = _executorch_support_arg_value (ctx, op, args, n_args, i, name, &v);

  if (err != ET_OK)
    return err;
  if (v->tag != ET_VALUE_TENSOR)
    return _executorch_support_wrong_tag (ctx, op, i, name, "a Tensor", v->tag);
  if (v->u.tensor == NULL)
    return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_PROGRAM, "argument %u (%s) has no tensor", i, name);
  err = _executorch_support_check_tensor (ctx, op, v->u.tensor, name, any_device);
  if (err != ET_OK)
    return err;
  *tensor = v->u.tensor;
  return ET_OK;
}

EtError
_executorch_support_arg_int (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t n_args, uint32_t i,
                             const char *name, int64_t *value)
{
  const EtValue *v = NULL;
  EtError err = _executorch_support_arg_value (ctx, op, args, n_args, i, name, &v);

  if (err != ET_OK)
    return err;
  if (v->tag != ET_VALUE_INT)
    return _executorch_support_wrong_tag (ctx, op, i, name, "an Int", v->tag);
  *value = v->u.int_value;
  return ET_OK;
}

EtError
_executorch_support_arg_opt_int (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t n_args, uint32_t i,
                                 const char *name, bool *present, int64_t *value)
{
  const EtValue *v = NULL;
  EtError err = _executorch_support_arg_value (ctx, op, args, n_args, i, name, &v);

  if (err != ET_OK)
    return err;
  *present = false;
  *value = 0;
  if (v->tag == ET_VALUE_NONE)
    return ET_OK;
  if (v->tag != ET_VALUE_INT)
    return _executorch_support_wrong_tag (ctx, op, i, name, "an Int or None", v->tag);
  *present = true;
  *value = v->u.int_value;
  return ET_OK;
}

EtError
_executorch_support_arg_dtype (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t n_args, uint32_t i,
                               const char *name, int *dtype)
{
  int64_t v = -1;
  EtError err = _executorch_support_arg_int (ctx, op, args, n_args, i, name, &v);

  if (err != ET_OK)
    return err;
  if (v < 0 || v >= ET_SCALAR_N_TYPES)
    return _executorch_support_fail (ctx, op, ET_ERROR_INVALID_ARGUMENT,
                                     "argument %u (%s): %" PRId64 " is not a scalar type", i, name, v);
  *dtype = (int) v;
  return ET_OK;
}
