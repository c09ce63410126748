/* creation.c: full, zeros, ones, empty, fill, arange, scalar_tensor, tril/triu, native_dropout
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Fill values follow eager PyTorch's checked Scalar conversion: a value
 * that overflows the out dtype is an error, a floating value stored into an
 * integer dtype is truncated toward zero, and anything stored into Bool is
 * != 0.  A fill is independent of the dim order, so it writes out's buffer
 * flat.
 */
#include "kernels-private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool
int_range (int type, int64_t *lo, int64_t *hi)
{
  switch (type)
    {
      case ET_SCALAR_BYTE:
        *lo = 0;
        *hi = UINT8_MAX;
        return true;
      case ET_SCALAR_CHAR:
        *lo = INT8_MIN;
        *hi = INT8_MAX;
        return true;
      case ET_SCALAR_SHORT:
        *lo = INT16_MIN;
        *hi = INT16_MAX;
        return true;
      case ET_SCALAR_INT:
        *lo = INT32_MIN;
        *hi = INT32_MAX;
        return true;
      case ET_SCALAR_LONG:
        *lo = INT64_MIN;
        *hi = INT64_MAX;
        return true;
      default: return false;
    }
}

static double
float_max (int type)
{
  switch (type)
    {
      case ET_SCALAR_HALF: return 65504.0;
      case ET_SCALAR_BFLOAT16: return 3.3895313892515355e38;
      case ET_SCALAR_FLOAT: return 3.4028234663852886e38;
      default: return INFINITY;
    }
}

EtError
_executorch_scalar_to_element (EtKernelContext *ctx, const KernelScalar *scalar, int type, const char *name,
                               void *element)
{
  int64_t lo, hi;

  if (!_executorch_type_is_supported (type))
    return KERNEL_FAIL (ctx, ET_ERROR_NOT_SUPPORTED, "%s: dtype %s is not supported", name,
                        _executorch_type_name (type));
  if (type == ET_SCALAR_BOOL)
    {
      *(uint8_t *) element = scalar->kind == KERNEL_SCALAR_KIND_DOUBLE ? scalar->d != 0.0 : scalar->i != 0;
      return ET_OK;
    }
  if (int_range (type, &lo, &hi))
    {
      int64_t v;
      if (scalar->kind == KERNEL_SCALAR_KIND_DOUBLE)
        {
          double t = trunc (scalar->d);
          if (!(t >= (double) lo && t <= (double) hi) || (type == ET_SCALAR_LONG && t >= 0x1p63))
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %g cannot be converted to %s without overflow",
                                name, scalar->d, _executorch_type_name (type));
          v = (int64_t) t;
        }
      else
        {
          v = scalar->i;
          if (v < lo || v > hi)
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                                "%s: %" PRId64 " cannot be converted to %s without overflow", name, v,
                                _executorch_type_name (type));
        }
      _executorch_store_i64 (type, element, 0, 1, 1, &v);
      return ET_OK;
    }
  double d = scalar->kind == KERNEL_SCALAR_KIND_DOUBLE ? scalar->d : (double) scalar->i;
  if (isfinite (d) && fabs (d) > float_max (type))
    {
      /* Values that round to the largest finite value are fine. */
      float f = (float) d;
      bool overflow = type == ET_SCALAR_HALF ? fabs (d) >= 65520.0 : !isfinite (f);
      if (type == ET_SCALAR_BFLOAT16)
        overflow = !isfinite (et_bfloat16_to_float (et_float_to_bfloat16 (f)));
      if (overflow)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %g cannot be converted to %s without overflow", name,
                            d, _executorch_type_name (type));
    }
  _executorch_store_f64 (type, element, 0, 1, 1, &d);
  return ET_OK;
}

/* Writes @element to every element of @out. */
static void
fill_elements (EtTensor *out, const void *element)
{
  size_t es = _executorch_type_size (out->scalar_type);
  char *p = out->data;
  bool zero = true;

  if (out->numel == 0)
    return;
  for (size_t k = 0; k < es; k++)
    if (((const uint8_t *) element)[k] != 0)
      zero = false;
  if (zero || es == 1)
    {
      memset (p, zero ? 0 : *(const uint8_t *) element, (size_t) out->numel * es);
      return;
    }
  /* Doubling copies. */
  size_t total = (size_t) out->numel * es, done = es;
  memcpy (p, element, es);
  while (done < total)
    {
      size_t n = done < total - done ? done : total - done;
      memcpy (p + done, p, n);
      done += n;
    }
}

static EtError
check_sizes (EtKernelContext *ctx, const char *op, const int64_t *sizes, uint32_t n)
{
  for (uint32_t k = 0; k < n; k++)
    if (sizes[k] < 0)
      return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: size %" PRId64 " in dim %u is negative", op, sizes[k],
                          k);
  return ET_OK;
}

static EtError
fill_with_scalar (EtKernelContext *ctx, const char *op, EtTensor *out, const KernelScalar *value)
{
  uint8_t element[16];
  char name[64];
  snprintf (name, sizeof name, "%s: fill_value", op);
  KERNEL_TRY (_executorch_scalar_to_element (ctx, value, out->scalar_type, name, element));
  fill_elements (out, element);
  return ET_OK;
}

/* (size, fill_value, out, ret) */
static EtError
full_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *out;
  int64_t sizes[ET_MAX_DIMS];
  uint32_t n;
  KernelScalar value;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 0, "size", NULL, sizes, &n));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 1, "fill_value", &value));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (check_sizes (ctx, "full", sizes, n));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  KERNEL_TRY (_executorch_resize (ctx, out, n, sizes));
  return fill_with_scalar (ctx, "full", out, &value);
}

static EtError
check_memory_format (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *op)
{
  bool present;
  int64_t format;
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, i, "memory_format", &present, &format));
  if (present && format != 0 && format != 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: memory_format %" PRId64 " is not supported", op, format);
  return ET_OK;
}

/* (self, fill_value, memory_format?, out, ret) */
static EtError
full_like_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  KernelScalar value;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 1, "fill_value", &value));
  KERNEL_TRY (check_memory_format (ctx, args, 2, "full_like"));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  return fill_with_scalar (ctx, "full_like", out, &value);
}

/* (s, out, ret) */
static EtError
scalar_tensor_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *out;
  KernelScalar value;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 0, "s", &value));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  KERNEL_TRY (_executorch_resize (ctx, out, 0, NULL));
  if (out->numel != 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "scalar_tensor: out must have one element");
  return fill_with_scalar (ctx, "scalar_tensor", out, &value);
}

/* (size, out, ret) for zeros and ones; (size, memory_format?, out, ret) for empty. */
static EtError
constant_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args, const char *op, int what)
{
  EtTensor *out;
  int64_t sizes[ET_MAX_DIMS];
  uint32_t n, out_i = what < 0 ? 2 : 1;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, out_i + 2));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 0, "size", NULL, sizes, &n));
  if (what < 0)
    KERNEL_TRY (check_memory_format (ctx, args, 1, op));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, out_i, "out", &out));
  KERNEL_TRY (check_sizes (ctx, op, sizes, n));
  KERNEL_TRY (_executorch_resize (ctx, out, n, sizes));
  if (what < 0)
    return ET_OK;
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  KernelScalar v = { .kind = KERNEL_SCALAR_KIND_INT, .i = what, .d = what };
  return fill_with_scalar (ctx, op, out, &v);
}

static EtError
zeros_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return constant_out (ctx, args, n_args, "zeros", 0);
}

static EtError
ones_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return constant_out (ctx, args, n_args, "ones", 1);
}

static EtError
empty_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return constant_out (ctx, args, n_args, "empty", -1);
}

/* (self, value, out, ret) */
static EtError
fill_scalar_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  KernelScalar value;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 1, "value", &value));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  if (out->scalar_type != self->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "fill: out dtype %s differs from self dtype %s",
                        _executorch_type_name (out->scalar_type), _executorch_type_name (self->scalar_type));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  return fill_with_scalar (ctx, "fill", out, &value);
}

/* (self, value (0-d tensor), out, ret) */
static EtError
fill_tensor_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *value, *out;
  uint8_t element[16];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "value", &value));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  if (out->scalar_type != self->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "fill: out dtype %s differs from self dtype %s",
                        _executorch_type_name (out->scalar_type), _executorch_type_name (self->scalar_type));
  if (value->ndim != 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "fill: value must be a 0-d tensor, not %u-D", value->ndim);
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  KERNEL_TRY (_executorch_check_supported (ctx, value, "value"));
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  /* As eager: value.item() as a Scalar, then the checked fill conversion. */
  KernelScalar sv;
  if (_executorch_type_is_floating (value->scalar_type))
    {
      sv.kind = KERNEL_SCALAR_KIND_DOUBLE;
      _executorch_load_f64 (value->scalar_type, value->data, 0, 1, 1, &sv.d);
      sv.i = 0;
    }
  else
    {
      sv.kind = value->scalar_type == ET_SCALAR_BOOL ? KERNEL_SCALAR_KIND_BOOL : KERNEL_SCALAR_KIND_INT;
      _executorch_load_i64 (value->scalar_type, value->data, 0, 1, 1, &sv.i);
      sv.d = (double) sv.i;
    }
  KERNEL_TRY (_executorch_scalar_to_element (ctx, &sv, out->scalar_type, "fill: value", element));
  fill_elements (out, element);
  return ET_OK;
}

/* ---- arange ---- */

/* Scalar.to<int64_t>(): finite and in range, truncated toward zero. */
static EtError
scalar_to_i64 (EtKernelContext *ctx, const KernelScalar *s, const char *name, int64_t *v)
{
  if (s->kind != KERNEL_SCALAR_KIND_DOUBLE)
    {
      *v = s->i;
      return ET_OK;
    }
  double t = trunc (s->d);
  if (!(t >= -0x1p63 && t < 0x1p63))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "arange: %s %g does not fit an integer", name, s->d);
  *v = (int64_t) t;
  return ET_OK;
}

/* Eager's arange: integer outs compute in int64 from the truncated
 * arguments (the length of a Long out too; other integer outs take the
 * length from the untruncated doubles), floating outs in double. */
static EtError
arange_common (EtKernelContext *ctx, const KernelScalar *start, const KernelScalar *end, const KernelScalar *step,
               EtTensor *out)
{
  const char *op = "arange";
  int type = out->scalar_type;
  bool integral = _executorch_type_is_integral (type, false);
  int64_t len, xs = 0, xe = 0, xst = 0;

  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  if (type == ET_SCALAR_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out must not be Bool", op);
  if (out->ndim != 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out must be 1-D, not %u-D", op, out->ndim);
  if (!isfinite (start->d) || !isfinite (end->d))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: start and end must be finite", op);

  if (integral)
    {
      KERNEL_TRY (scalar_to_i64 (ctx, start, "start", &xs));
      KERNEL_TRY (scalar_to_i64 (ctx, end, "end", &xe));
      KERNEL_TRY (scalar_to_i64 (ctx, step, "step", &xst));
      if (xst == 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: step must be nonzero", op);
      if ((xst > 0 && xe < xs) || (xst < 0 && xe > xs))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            "%s: upper bound and lower bound are inconsistent with the step sign", op);
      if (type == ET_SCALAR_LONG)
        {
          __int128 span = (__int128) xe - xs, st = xst;
          __int128 n = (span + st - (st > 0 ? 1 : -1)) / st;
          if (n > INT64_MAX)
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: too many elements", op);
          len = (int64_t) n;
        }
      else
        {
          double n = ceil ((end->d - start->d) / step->d);
          if (!(n < 0x1p62))
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: invalid number of elements %g", op, n);
          len = n > 0 ? (int64_t) n : 0;
        }
    }
  else
    {
      if (step->d == 0.0 || isnan (step->d))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: step must be nonzero", op);
      if ((step->d > 0 && end->d < start->d) || (step->d < 0 && end->d > start->d))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            "%s: upper bound and lower bound are inconsistent with the step sign", op);
      double n = ceil ((end->d - start->d) / step->d);
      if (!(n >= 0.0 && n < 0x1p62))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: invalid number of elements %g", op, n);
      len = (int64_t) n;
    }

  /* The values must fit the out dtype. */
  if (len > 0)
    {
      uint8_t scratch[16];
      KernelScalar first, last;
      if (integral)
        {
          __int128 l = (__int128) xs + (__int128) xst * (len - 1);
          if (l > INT64_MAX || l < INT64_MIN)
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: values overflow %s", op,
                                _executorch_type_name (type));
          first = (KernelScalar){ .kind = KERNEL_SCALAR_KIND_INT, .i = xs, .d = (double) xs };
          last = (KernelScalar){ .kind = KERNEL_SCALAR_KIND_INT, .i = (int64_t) l, .d = (double) l };
        }
      else
        {
          first = (KernelScalar){ .kind = KERNEL_SCALAR_KIND_DOUBLE, .i = 0, .d = start->d };
          last =
              (KernelScalar){ .kind = KERNEL_SCALAR_KIND_DOUBLE, .i = 0, .d = start->d + step->d * (double) (len - 1) };
        }
      KERNEL_TRY (_executorch_scalar_to_element (ctx, &first, type, "arange: start", scratch));
      KERNEL_TRY (_executorch_scalar_to_element (ctx, &last, type, "arange: end", scratch));
    }
  KERNEL_TRY (_executorch_resize (ctx, out, 1, &len));
  if (len == 0)
    return ET_OK;

  int64_t stride = out->strides[0];
  if (integral)
    {
      int64_t buf[KERNEL_CHUNK];
      for (int64_t j = 0; j < len; j += KERNEL_CHUNK)
        {
          int64_t m = len - j < KERNEL_CHUNK ? len - j : KERNEL_CHUNK;
          for (int64_t k = 0; k < m; k++)
            buf[k] = xs + xst * (j + k);
          _executorch_store_i64 (type, out->data, j * stride, stride, m, buf);
        }
    }
  else
    {
      double buf[KERNEL_CHUNK];
      for (int64_t j = 0; j < len; j += KERNEL_CHUNK)
        {
          int64_t m = len - j < KERNEL_CHUNK ? len - j : KERNEL_CHUNK;
          for (int64_t k = 0; k < m; k++)
            buf[k] = start->d + step->d * (double) (j + k);
          _executorch_store_f64 (type, out->data, j * stride, stride, m, buf);
        }
    }
  return ET_OK;
}

/* (end, out, ret) */
static EtError
arange_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *out;
  KernelScalar start = { .kind = KERNEL_SCALAR_KIND_INT, .i = 0, .d = 0.0 };
  KernelScalar step = { .kind = KERNEL_SCALAR_KIND_INT, .i = 1, .d = 1.0 };
  KernelScalar end;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 0, "end", &end));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "out", &out));
  return arange_common (ctx, &start, &end, &step, out);
}

/* (start, end, step, out, ret) */
static EtError
arange_start_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *out;
  KernelScalar start, end, step;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 0, "start", &start));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 1, "end", &end));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 2, "step", &step));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  return arange_common (ctx, &start, &end, &step, out);
}

/* ---- tril and triu ---- */

/* (self, diagonal, out, ret): keeps j - i <= diagonal (tril) or >= (triu). */
static EtError
triangle_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool lower)
{
  const char *op = lower ? "tril" : "triu";
  EtTensor *self, *out;
  int64_t diagonal;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "diagonal", &diagonal));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  if (self->ndim < 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self must be at least 2-D, not %u-D", op, self->ndim);
  KERNEL_TRY (_executorch_check_supported (ctx, self, "self"));
  KERNEL_TRY (_executorch_resize_copy (ctx, out, self));
  if (out->numel == 0)
    return ET_OK;

  /* Zero (all bits clear for every supported dtype) outside the triangle. */
  uint32_t nd = out->ndim;
  size_t es = _executorch_type_size (out->scalar_type);
  int64_t rows = out->sizes[nd - 2], cols = out->sizes[nd - 1];
  int64_t rs = out->strides[nd - 2], cs = out->strides[nd - 1];
  int64_t batch = out->numel / (rows * cols);
  int64_t idx[ET_MAX_DIMS] = { 0 }, off = 0;
  /* Past either edge every diagonal does the same; clamped, i + diagonal
   * cannot overflow. */
  diagonal = diagonal > cols ? cols : diagonal < -rows ? -rows : diagonal;
  for (int64_t b = 0; b < batch; b++)
    {
      for (int64_t i = 0; i < rows; i++)
        {
          /* Zero columns [j0, j1). */
          int64_t j0 = lower ? i + diagonal + 1 : 0;
          int64_t j1 = lower ? cols : i + diagonal;
          j0 = j0 < 0 ? 0 : j0;
          j1 = j1 > cols ? cols : j1;
          for (int64_t j = j0; j < j1; j++)
            memset ((char *) out->data + (size_t) (off + i * rs + j * cs) * es, 0, es);
        }
      for (uint32_t d = nd - 2; d-- > 0;)
        {
          idx[d]++;
          off += out->strides[d];
          if (idx[d] < out->sizes[d])
            break;
          off -= out->strides[d] * out->sizes[d];
          idx[d] = 0;
        }
    }
  return ET_OK;
}

static EtError
tril_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return triangle_out (ctx, args, n_args, true);
}

static EtError
triu_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return triangle_out (ctx, args, n_args, false);
}

/* ---- native_dropout (deterministic cases only) ---- */

/* (input, p, train?, out0, out1, ret) */
static EtError
native_dropout_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *input, *out, *mask;
  double p;
  bool train = true; /* None means training, as in eager */

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &input));
  if (args[1] == NULL || (args[1]->tag != ET_VALUE_DOUBLE && args[1]->tag != ET_VALUE_INT))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "native_dropout: p must be a Double");
  p = args[1]->tag == ET_VALUE_DOUBLE ? args[1]->u.double_value : (double) args[1]->u.int_value;
  if (args[2] == NULL || (args[2]->tag != ET_VALUE_NONE && args[2]->tag != ET_VALUE_BOOL))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "native_dropout: train must be a Bool or None");
  if (args[2]->tag == ET_VALUE_BOOL)
    train = args[2]->u.bool_value;
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out0", &out));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out1", &mask));
  if (!(p >= 0.0 && p <= 1.0))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "native_dropout: p must be in [0, 1], not %g", p);
  if (out->scalar_type != input->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "native_dropout: out0 dtype %s differs from input dtype %s",
                        _executorch_type_name (out->scalar_type), _executorch_type_name (input->scalar_type));
  if (mask->scalar_type != ET_SCALAR_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "native_dropout: out1 must be Bool, not %s",
                        _executorch_type_name (mask->scalar_type));
  if (train && p > 0.0 && p < 1.0)
    return KERNEL_FAIL (ctx, ET_ERROR_NOT_SUPPORTED,
                        "native_dropout: training-mode dropout needs random numbers (p=%g)", p);
  KERNEL_TRY (_executorch_resize (ctx, out, input->ndim, input->sizes));
  KERNEL_TRY (_executorch_resize (ctx, mask, input->ndim, input->sizes));
  if (out->numel == 0)
    return ET_OK;
  bool drop_all = train && p >= 1.0;
  uint8_t keep = drop_all ? 0 : 1;
  memset (mask->data, keep, (size_t) mask->numel);
  if (drop_all)
    {
      /* Eager computes input * mask * 0: zeros, but NaN and inf give NaN. */
      KERNEL_TRY (_executorch_check_supported (ctx, input, "input"));
      KernelComputeKind kind =
          _executorch_type_is_floating (input->scalar_type) ? KERNEL_COMPUTE_F64 : KERNEL_COMPUTE_I64;
      int64_t flat[ET_MAX_DIMS];
      KernelTemp temp;
      EtError err;
      KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) input->numel * 8, &temp));
      _executorch_contiguous_strides (input->ndim, input->sizes, flat);
      err = _executorch_copy_strided (ctx, input->ndim, input->sizes, NULL, temp.data,
                                      kind == KERNEL_COMPUTE_F64 ? ET_SCALAR_DOUBLE : ET_SCALAR_LONG, 0, flat,
                                      input->data, input->scalar_type, 0, input->strides);
      if (err == ET_OK)
        {
          double *d = temp.data;
          int64_t *i = temp.data;
          for (int64_t k = 0; k < input->numel; k++)
            {
              if (kind == KERNEL_COMPUTE_F64)
                d[k] = d[k] * 0.0 * 0.0;
              else
                i[k] = 0;
            }
          err = _executorch_copy_strided (ctx, out->ndim, out->sizes, out->dim_order, out->data, out->scalar_type, 0,
                                          out->strides, temp.data,
                                          kind == KERNEL_COMPUTE_F64 ? ET_SCALAR_DOUBLE : ET_SCALAR_LONG, 0, flat);
        }
      _executorch_temp_free (&temp);
      return err;
    }
  return _executorch_copy_strided (ctx, input->ndim, input->sizes, out->dim_order, out->data, out->scalar_type, 0,
                                   out->strides, input->data, input->scalar_type, 0, input->strides);
}

const EtKernel _executorch_creation_kernels[] = {
  { "aten::full.out", full_out, NULL },
  { "aten::full_like.out", full_like_out, NULL },
  { "aten::scalar_tensor.out", scalar_tensor_out, NULL },
  { "aten::zeros.out", zeros_out, NULL },
  { "aten::ones.out", ones_out, NULL },
  { "aten::empty.out", empty_out, NULL },
  { "aten::fill.Scalar_out", fill_scalar_out, NULL },
  { "aten::fill.Tensor_out", fill_tensor_out, NULL },
  { "aten::arange.out", arange_out, NULL },
  { "aten::arange.start_out", arange_start_out, NULL },
  { "aten::tril.out", tril_out, NULL },
  { "aten::triu.out", triu_out, NULL },
  { "aten::native_dropout.out", native_dropout_out, NULL },
};

const size_t _executorch_creation_n_kernels = KERNEL_N_ELEMENTS (_executorch_creation_kernels);
