/* quantize.c: quantize, dequantize and choose_qparams (per tensor, channel, token)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Numerics are upstream ExecuTorch's, so that results are byte-identical
 * to its runtime:
 *
 *   quantize:   inv = 1.0f / (float) scale; v = (float) (inv * x) (in double
 *               for Double input); q = clamp ((float) zp + nearbyintf (v))
 *               to the qmin/qmax arguments.
 *   dequantize: (float) (q - (int32) zp) * (float) scale, stored in the out
 *               dtype; 1-D per-channel inputs convert the difference to the
 *               out dtype before the multiply, as upstream does.
 *   choose_qparams: fbgemm's rule with upstream's 6.1e-5 scale floor; eps
 *               is ignored.
 *
 * Deliberate differences (upstream aborts or is undefined there): every
 * check is an error; NaN quantizes to the clamped zero point and +-inf to
 * the bounds; Int zero points are read as Int (upstream reads them as
 * Long); an empty choose_qparams input is an error.
 */
#include "quantized-private.h"

#include <math.h>
#include <string.h>

/* ---- quantize ---- */

static bool
quant_dtype_bounds (int dtype, int64_t *lo, int64_t *hi)
{
  switch (dtype)
    {
      case ET_SCALAR_BYTE: *lo = 0, *hi = UINT8_MAX; return true;
      case ET_SCALAR_CHAR: *lo = INT8_MIN, *hi = INT8_MAX; return true;
      case ET_SCALAR_SHORT: *lo = INT16_MIN, *hi = INT16_MAX; return true;
      case ET_SCALAR_INT: *lo = INT32_MIN, *hi = INT32_MAX; return true;
      case ET_SCALAR_UINT16:
      case ET_SCALAR_BITS16: *lo = 0, *hi = UINT16_MAX; return true;
      default: return false;
    }
}

static bool
is_quant_input_float (int type)
{
  return type == ET_SCALAR_FLOAT || type == ET_SCALAR_DOUBLE || type == ET_SCALAR_HALF;
}

/* upstream's check_quantize_per_tensor_args */
static EtError
check_quantize_args (const QkCall *call, const EtTensor *input, int64_t qmin, int64_t qmax, int dtype,
                     const EtTensor *out)
{
  int64_t lo, hi;

  if (!is_quant_input_float (input->scalar_type))
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "input: dtype %s is not Float, Double or Half",
                                _executorch_support_type_name (input->scalar_type));
  if (out->scalar_type != dtype)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "out: dtype %s does not match dtype %s",
                                _executorch_support_type_name (out->scalar_type),
                                _executorch_support_type_name (dtype));
  if (!quant_dtype_bounds (dtype, &lo, &hi))
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "dtype: %s is not Byte, Char, Short, Int, UInt16 or Bits16",
                                _executorch_support_type_name (dtype));
  if (qmin < lo)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "quant_min: %" PRId64 " is below %s's minimum %" PRId64, qmin,
                                _executorch_support_type_name (dtype), lo);
  if (qmax > hi)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "quant_max: %" PRId64 " is above %s's maximum %" PRId64, qmax,
                                _executorch_support_type_name (dtype), hi);
  return ET_OK;
}

/* Quantizes elements [begin, begin + n) with one scale and zero point. */
static void
quantize_run (const EtTensor *input, EtTensor *out, int64_t begin, int64_t n, double scale, int64_t zero_point,
              int64_t qmin, int64_t qmax)
{
  float inv = 1.0f / (float) scale;
  int32_t zp = (int32_t) zero_point;
  int in_type = input->scalar_type, out_type = out->scalar_type;

  if (in_type == ET_SCALAR_FLOAT && (out_type == ET_SCALAR_CHAR || out_type == ET_SCALAR_BYTE) && zp >= -(1 << 24) &&
      zp <= (1 << 24))
    {
      _executorch_qk_quantize_float_to_8bit ((const float *) input->data + begin, (char *) out->data + begin,
                                             out_type == ET_SCALAR_CHAR, n, scale, zp, qmin, qmax);
      return;
    }
  for (int64_t i = begin; i < begin + n; i++)
    {
      float v;
      if (in_type == ET_SCALAR_FLOAT)
        v = inv * ((const float *) input->data)[i];
      else if (in_type == ET_SCALAR_DOUBLE)
        v = (float) ((double) inv * ((const double *) input->data)[i]);
      else
        v = inv * et_half_to_float (((const uint16_t *) input->data)[i]);
      _executorch_qk_store_int (out_type, out->data, i, _executorch_qk_requantize (v, zp, qmin, qmax));
    }
}

/* The run length of elements sharing one index along @axis, in memory
 * order (dense tensors: the axis's stride), and that axis's size. */
static void
axis_runs (const EtTensor *t, uint32_t axis, int64_t *run, int64_t *n_channels)
{
  *n_channels = t->sizes[axis];
  *run = *n_channels > 1 ? t->strides[axis] : (t->numel > 0 ? t->numel : 1);
}

static EtError
check_axis (const QkCall *call, const EtTensor *input, int64_t axis, uint32_t *wrapped)
{
  int64_t ndim = input->ndim > 0 ? input->ndim : 1;
  if (axis < -ndim || axis >= ndim)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "axis: %" PRId64 " is out of range for a %u-d input",
                                axis, input->ndim);
  if (input->ndim == 0)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "input: must have a dimension");
  *wrapped = (uint32_t) (axis < 0 ? axis + ndim : axis);
  return ET_OK;
}

/* Per-channel quantization of @input along @axis into @out (already
 * resized); scales Double and zero points Long, one per channel. */
static EtError
quantize_channels (const QkCall *call, const EtTensor *input, const EtTensor *scales, const EtTensor *zps,
                   uint32_t axis, int64_t n_channels_expected, int64_t qmin, int64_t qmax, int dtype, EtTensor *out)
{
  int64_t run, n_channels;

  if (scales->scalar_type != ET_SCALAR_DOUBLE)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "scales: dtype %s is not Double",
                                _executorch_support_type_name (scales->scalar_type));
  if (scales->numel != n_channels_expected)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "scales: %" PRId64 " elements, expected %" PRId64,
                                scales->numel, n_channels_expected);
  if (zps->scalar_type != ET_SCALAR_LONG)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "zero_points: dtype %s is not Long",
                                _executorch_support_type_name (zps->scalar_type));
  if (zps->numel != n_channels_expected)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "zero_points: %" PRId64 " elements, expected %" PRId64,
                                zps->numel, n_channels_expected);
  QK_TRY (check_quantize_args (call, input, qmin, qmax, dtype, out));
  QK_TRY (_executorch_qk_same_dim_order (call, input, "input", out, "out"));
  if (input->numel == 0)
    return ET_OK;
  axis_runs (input, axis, &run, &n_channels);
  for (int64_t i = 0; i < input->numel; i += run)
    {
      int64_t c = n_channels > 1 ? (i / run) % n_channels : 0;
      quantize_run (input, out, i, run, ((const double *) scales->data)[c], ((const int64_t *) zps->data)[c], qmin,
                    qmax);
    }
  return ET_OK;
}

/* Arguments 1 and 2 of the per-tensor ops: float scale and int zero point,
 * or (the .Tensor_out forms) one-element Double and Long tensors. */
static EtError
read_qparams (const QkCall *call, bool tensor_qparams, double *scale, int64_t *zero_point)
{
  EtTensor *s, *z;

  if (!tensor_qparams)
    {
      QK_TRY (_executorch_qk_double (call, 1, "scale", scale));
      return _executorch_qk_int (call, 2, "zero_point", zero_point);
    }
  QK_TRY (_executorch_qk_tensor (call, 1, "scale", &s));
  QK_TRY (_executorch_qk_tensor (call, 2, "zero_point", &z));
  if (s->scalar_type != ET_SCALAR_DOUBLE)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "scale: dtype %s is not Double",
                                _executorch_support_type_name (s->scalar_type));
  if (z->scalar_type != ET_SCALAR_LONG)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "zero_point: dtype %s is not Long",
                                _executorch_support_type_name (z->scalar_type));
  if (s->numel != 1 || z->numel != 1)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "scale and zero_point must have one element, not %" PRId64 " and %" PRId64, s->numel,
                                z->numel);
  *scale = ((const double *) s->data)[0];
  *zero_point = ((const int64_t *) z->data)[0];
  return ET_OK;
}

/* A [n_tokens, token_size] contiguous view of @t (same data). */
static EtTensor
token_view (const EtTensor *t, int64_t n_tokens, int64_t token_size)
{
  EtTensor flat = *t;
  flat.ndim = 2;
  flat.sizes[0] = n_tokens;
  flat.sizes[1] = token_size;
  flat.strides[0] = token_size;
  flat.strides[1] = 1;
  flat.dim_order[0] = 0;
  flat.dim_order[1] = 1;
  return flat;
}

/* quantize_per_tensor.out / .Tensor_out: input, scale, zero_point, quant_min,
 * quant_max, dtype, *, out (+ return slot) */
static EtError
quantize_per_tensor (const QkCall *call, bool tensor_qparams)
{
  EtTensor *input, *out;
  double scale;
  int64_t zero_point, qmin, qmax;
  int dtype;

  QK_TRY (_executorch_qk_check_n_args (call, 8));
  QK_TRY (_executorch_qk_tensor (call, 0, "input", &input));
  QK_TRY (read_qparams (call, tensor_qparams, &scale, &zero_point));
  QK_TRY (_executorch_qk_int (call, 3, "quant_min", &qmin));
  QK_TRY (_executorch_qk_int (call, 4, "quant_max", &qmax));
  QK_TRY (_executorch_qk_dtype (call, 5, "dtype", &dtype));
  QK_TRY (_executorch_qk_tensor (call, 6, "out", &out));
  QK_TRY (_executorch_qk_resize_like (call, out, "out", input));
  QK_TRY (check_quantize_args (call, input, qmin, qmax, dtype, out));
  QK_TRY (_executorch_qk_same_dim_order (call, input, "input", out, "out"));
  quantize_run (input, out, 0, input->numel, scale, zero_point, qmin, qmax);
  return ET_OK;
}

/* A kernel entry point calling @impl (call, @arg) under the name @opname. */
#define QK_KERNEL(fn, opname, impl, arg)                                    \
  static EtError fn (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                         \
    QkCall call = { ctx, opname, args, n_args };                            \
    return impl (&call, arg);                                               \
  }

QK_KERNEL (k_quantize_per_tensor_out, "quantized_decomposed::quantize_per_tensor.out", quantize_per_tensor, false)

QK_KERNEL (k_quantize_per_tensor_tensor_out, "quantized_decomposed::quantize_per_tensor.Tensor_out",
           quantize_per_tensor, true)

/* quantize_per_channel.out: input, scales, zero_points, axis, quant_min,
 * quant_max, dtype, *, out */
static EtError
k_quantize_per_channel_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::quantize_per_channel.out", args, n_args };
  EtTensor *input, *scales, *zps, *out;
  int64_t axis, qmin, qmax;
  uint32_t dim;
  int dtype;

  QK_TRY (_executorch_qk_check_n_args (&c, 9));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_tensor (&c, 1, "scales", &scales));
  QK_TRY (_executorch_qk_tensor (&c, 2, "zero_points", &zps));
  QK_TRY (_executorch_qk_int (&c, 3, "axis", &axis));
  QK_TRY (_executorch_qk_int (&c, 4, "quant_min", &qmin));
  QK_TRY (_executorch_qk_int (&c, 5, "quant_max", &qmax));
  QK_TRY (_executorch_qk_dtype (&c, 6, "dtype", &dtype));
  QK_TRY (_executorch_qk_tensor (&c, 7, "out", &out));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", input));
  QK_TRY (check_axis (&c, input, axis, &dim));
  return quantize_channels (&c, input, scales, zps, dim, input->sizes[dim], qmin, qmax, dtype, out);
}

/* The number of tokens (all but the last dimension) of a per-token input,
 * which must be contiguous so that token t is elements [t*D, (t+1)*D). */
static EtError
token_shape (const QkCall *call, const EtTensor *input, int64_t *n_tokens, int64_t *token_size)
{
  if (input->ndim == 0)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "input: must have a dimension");
  QK_TRY (_executorch_qk_contiguous (call, input, "input"));
  *token_size = input->sizes[input->ndim - 1];
  *n_tokens = 1;
  for (uint32_t d = 0; d + 1 < input->ndim; d++)
    *n_tokens *= input->sizes[d];
  return ET_OK;
}

/* quantize_per_token.out: input, scales, zero_points, quant_min, quant_max,
 * dtype, *, out */
static EtError
k_quantize_per_token_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::quantize_per_token.out", args, n_args };
  EtTensor *input, *scales, *zps, *out, flat, flat_out;
  int64_t qmin, qmax, n_tokens, token_size;
  int dtype;

  QK_TRY (_executorch_qk_check_n_args (&c, 8));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_tensor (&c, 1, "scales", &scales));
  QK_TRY (_executorch_qk_tensor (&c, 2, "zero_points", &zps));
  QK_TRY (_executorch_qk_int (&c, 3, "quant_min", &qmin));
  QK_TRY (_executorch_qk_int (&c, 4, "quant_max", &qmax));
  QK_TRY (_executorch_qk_dtype (&c, 5, "dtype", &dtype));
  QK_TRY (_executorch_qk_tensor (&c, 6, "out", &out));
  QK_TRY (token_shape (&c, input, &n_tokens, &token_size));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", input));
  QK_TRY (_executorch_qk_contiguous (&c, out, "out"));
  /* [tokens, D] views, quantized per channel along axis 0. */
  flat = token_view (input, n_tokens, token_size);
  flat_out = token_view (out, n_tokens, token_size);
  return quantize_channels (&c, &flat, scales, zps, 0, n_tokens, qmin, qmax, dtype, &flat_out);
}

/* ---- dequantize ---- */

typedef enum
{
  DEQ_FLOAT, /* (float) diff * scale, then the out dtype */
  DEQ_ONE_D, /* 1-D per channel: (out_t) diff * scale in out_t's arithmetic */
  DEQ_WIDE,  /* upstream's int8 per-channel path: diff * (double) scale */
} DeqMode;

static bool
is_quant_int (int type)
{
  int64_t lo, hi;
  return quant_dtype_bounds (type, &lo, &hi);
}

/* upstream's check_dequantize_per_tensor_args */
static EtError
check_dequantize_args (const QkCall *call, const EtTensor *input, int64_t qmin, int64_t qmax, int dtype,
                       bool has_out_dtype, int out_dtype, const EtTensor *out)
{
  if (!is_quant_int (input->scalar_type))
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "input: dtype %s is not Byte, Char, Short, Int, UInt16 or Bits16",
                                _executorch_support_type_name (input->scalar_type));
  if (input->scalar_type != dtype)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "input: dtype %s does not match dtype %s",
                                _executorch_support_type_name (input->scalar_type),
                                _executorch_support_type_name (dtype));
  if (has_out_dtype && out->scalar_type != out_dtype)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "out: dtype %s does not match out_dtype %s",
                                _executorch_support_type_name (out->scalar_type),
                                _executorch_support_type_name (out_dtype));
  if (qmin > qmax)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "quant_min %" PRId64 " is greater than quant_max %" PRId64, qmin, qmax);
  if (out->scalar_type != ET_SCALAR_FLOAT && out->scalar_type != ET_SCALAR_DOUBLE && out->scalar_type != ET_SCALAR_HALF)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "out: dtype %s is not Float, Double or Half",
                                _executorch_support_type_name (out->scalar_type));
  return ET_OK;
}

static void
dequantize_run (const EtTensor *input, EtTensor *out, int64_t begin, int64_t n, float scale, int64_t zero_point,
                DeqMode mode)
{
  int32_t zp = (int32_t) zero_point;
  int in_type = input->scalar_type, out_type = out->scalar_type;

  if (mode == DEQ_FLOAT && out_type == ET_SCALAR_FLOAT && (in_type == ET_SCALAR_CHAR || in_type == ET_SCALAR_BYTE) &&
      zp >= -(1 << 24) && zp <= (1 << 24))
    {
      _executorch_qk_dequantize_8bit_to_float ((const char *) input->data + begin, in_type == ET_SCALAR_CHAR,
                                               (float *) out->data + begin, n, zp, scale);
      return;
    }
  for (int64_t i = begin; i < begin + n; i++)
    {
      int64_t diff = _executorch_qk_load_int (in_type, input->data, i) - zp;
      if (mode == DEQ_WIDE)
        {
          ((float *) out->data)[i] = (float) ((double) (diff + zp - zero_point) * (double) scale);
        }
      else if (mode == DEQ_ONE_D)
        {
          if (out_type == ET_SCALAR_DOUBLE)
            ((double *) out->data)[i] = (double) diff * (double) scale;
          else if (out_type == ET_SCALAR_HALF)
            ((uint16_t *) out->data)[i] = et_float_to_half (et_half_to_float (et_float_to_half ((float) diff)) * scale);
          else
            ((float *) out->data)[i] = (float) diff * scale;
        }
      else
        {
          float r = (float) diff * scale;
          if (out_type == ET_SCALAR_DOUBLE)
            ((double *) out->data)[i] = r;
          else if (out_type == ET_SCALAR_HALF)
            ((uint16_t *) out->data)[i] = et_float_to_half (r);
          else
            ((float *) out->data)[i] = r;
        }
    }
}

/* dequantize_per_tensor.out / .Tensor_out: input, scale, zero_point,
 * quant_min, quant_max, dtype, *, out_dtype, out */
static EtError
dequantize_per_tensor (const QkCall *call, bool tensor_qparams)
{
  EtTensor *input, *out;
  double scale;
  int64_t zero_point, qmin, qmax;
  bool has_out_dtype;
  int dtype, out_dtype;

  QK_TRY (_executorch_qk_check_n_args (call, 9));
  QK_TRY (_executorch_qk_tensor (call, 0, "input", &input));
  QK_TRY (read_qparams (call, tensor_qparams, &scale, &zero_point));
  QK_TRY (_executorch_qk_int (call, 3, "quant_min", &qmin));
  QK_TRY (_executorch_qk_int (call, 4, "quant_max", &qmax));
  QK_TRY (_executorch_qk_dtype (call, 5, "dtype", &dtype));
  QK_TRY (_executorch_qk_opt_dtype (call, 6, "out_dtype", &has_out_dtype, &out_dtype));
  QK_TRY (_executorch_qk_tensor (call, 7, "out", &out));
  QK_TRY (_executorch_qk_resize_like (call, out, "out", input));
  QK_TRY (check_dequantize_args (call, input, qmin, qmax, dtype, has_out_dtype, out_dtype, out));
  QK_TRY (_executorch_qk_same_dim_order (call, input, "input", out, "out"));
  dequantize_run (input, out, 0, input->numel, (float) scale, zero_point, DEQ_FLOAT);
  return ET_OK;
}

QK_KERNEL (k_dequantize_per_tensor_out, "quantized_decomposed::dequantize_per_tensor.out", dequantize_per_tensor, false)

QK_KERNEL (k_dequantize_per_tensor_tensor_out, "quantized_decomposed::dequantize_per_tensor.Tensor_out",
           dequantize_per_tensor, true)

/* Per-channel dequantization along @axis; scales Double or Float, zero
 * points (optional) Int or Long, one per channel. */
static EtError
dequantize_channels (const QkCall *call, const EtTensor *input, const EtTensor *scales, const EtTensor *zps,
                     uint32_t axis, int64_t qmin, int64_t qmax, int dtype, bool has_out_dtype, int out_dtype,
                     bool one_d_rule, EtTensor *out)
{
  int64_t run, n_channels;
  DeqMode mode;

  if (scales->numel != input->sizes[axis])
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "scales: %" PRId64 " elements, expected %" PRId64,
                                scales->numel, input->sizes[axis]);
  if (scales->scalar_type != ET_SCALAR_DOUBLE && scales->scalar_type != ET_SCALAR_FLOAT)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "scales: dtype %s is not Double or Float",
                                _executorch_support_type_name (scales->scalar_type));
  if (zps != NULL)
    {
      if (zps->scalar_type != ET_SCALAR_INT && zps->scalar_type != ET_SCALAR_LONG)
        return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "zero_points: dtype %s is not Int or Long",
                                    _executorch_support_type_name (zps->scalar_type));
      if (zps->numel != input->sizes[axis])
        return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                    "zero_points: %" PRId64 " elements, expected %" PRId64, zps->numel,
                                    input->sizes[axis]);
    }
  QK_TRY (check_dequantize_args (call, input, qmin, qmax, dtype, has_out_dtype, out_dtype, out));
  QK_TRY (_executorch_qk_same_dim_order (call, input, "input", out, "out"));
  /* upstream takes its int8 fast path for contiguous Char input with a
   * Float result; elsewhere 1-D inputs follow the convert-then-multiply rule. */
  if (input->scalar_type == ET_SCALAR_CHAR && et_tensor_is_contiguous (input) &&
      (!has_out_dtype || out_dtype == ET_SCALAR_FLOAT) && out->scalar_type == ET_SCALAR_FLOAT)
    mode = DEQ_WIDE;
  else if (one_d_rule && input->ndim == 1)
    mode = DEQ_ONE_D;
  else
    mode = DEQ_FLOAT;
  if (input->numel == 0)
    return ET_OK;
  axis_runs (input, axis, &run, &n_channels);
  for (int64_t i = 0; i < input->numel; i += run)
    {
      int64_t ch = n_channels > 1 ? (i / run) % n_channels : 0;
      float s = _executorch_qk_load_float (scales->scalar_type, scales->data, ch);
      int64_t zp = zps != NULL ? _executorch_qk_load_int (zps->scalar_type, zps->data, ch) : 0;
      dequantize_run (input, out, i, run, s, zp, mode);
    }
  return ET_OK;
}

/* dequantize_per_channel.out: input, scales, zero_points?, axis, quant_min,
 * quant_max, dtype, *, out_dtype, out */
static EtError
k_dequantize_per_channel_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::dequantize_per_channel.out", args, n_args };
  EtTensor *input, *scales, *zps, *out;
  int64_t axis, qmin, qmax;
  bool has_out_dtype;
  int dtype, out_dtype;
  uint32_t dim;

  QK_TRY (_executorch_qk_check_n_args (&c, 10));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_tensor (&c, 1, "scales", &scales));
  QK_TRY (_executorch_qk_opt_tensor (&c, 2, "zero_points", &zps));
  QK_TRY (_executorch_qk_int (&c, 3, "axis", &axis));
  QK_TRY (_executorch_qk_int (&c, 4, "quant_min", &qmin));
  QK_TRY (_executorch_qk_int (&c, 5, "quant_max", &qmax));
  QK_TRY (_executorch_qk_dtype (&c, 6, "dtype", &dtype));
  QK_TRY (_executorch_qk_opt_dtype (&c, 7, "out_dtype", &has_out_dtype, &out_dtype));
  QK_TRY (_executorch_qk_tensor (&c, 8, "out", &out));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", input));
  QK_TRY (check_axis (&c, input, axis, &dim));
  return dequantize_channels (&c, input, scales, zps, dim, qmin, qmax, dtype, has_out_dtype, out_dtype, true, out);
}

/* dequantize_per_token.out: input, scales, zero_points, quant_min,
 * quant_max, dtype, output_dtype, *, out */
static EtError
k_dequantize_per_token_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::dequantize_per_token.out", args, n_args };
  EtTensor *input, *scales, *zps, *out, flat, flat_out;
  int64_t qmin, qmax, n_tokens, token_size;
  int dtype, out_dtype;

  QK_TRY (_executorch_qk_check_n_args (&c, 9));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_tensor (&c, 1, "scales", &scales));
  QK_TRY (_executorch_qk_tensor (&c, 2, "zero_points", &zps));
  QK_TRY (_executorch_qk_int (&c, 3, "quant_min", &qmin));
  QK_TRY (_executorch_qk_int (&c, 4, "quant_max", &qmax));
  QK_TRY (_executorch_qk_dtype (&c, 5, "dtype", &dtype));
  QK_TRY (_executorch_qk_dtype (&c, 6, "output_dtype", &out_dtype));
  QK_TRY (_executorch_qk_tensor (&c, 7, "out", &out));
  QK_TRY (token_shape (&c, input, &n_tokens, &token_size));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", input));
  QK_TRY (_executorch_qk_contiguous (&c, out, "out"));
  flat = token_view (input, n_tokens, token_size);
  flat_out = token_view (out, n_tokens, token_size);
  return dequantize_channels (&c, &flat, scales, zps, 0, qmin, qmax, dtype, true, out_dtype, false, &flat_out);
}

/* ---- choose_qparams ---- */

#define SMALL_SCALE_THRESHOLD 6.1e-5f

static void
scale_and_zero_point (float min, float max, int32_t qmin, int32_t qmax, double *scale_out, int32_t *zp_out)
{
  double scale, zp_from_min, zp_from_max, err_min, err_max, initial;
  int32_t zp;

  min = min < 0.0f ? min : 0.0f;
  max = max > 0.0f ? max : 0.0f;
  scale = ((double) max - min) / (qmax - qmin);
  if ((float) scale == 0.0f || isinf (1.0f / (float) scale))
    scale = 0.1;
  if (scale < SMALL_SCALE_THRESHOLD)
    {
      float org_scale = (float) scale;
      scale = SMALL_SCALE_THRESHOLD;
      if (min == 0.0f)
        max = SMALL_SCALE_THRESHOLD * (float) (qmax - qmin);
      else if (max == 0.0f)
        min = -SMALL_SCALE_THRESHOLD * (float) (qmax - qmin);
      else
        {
          float amplifier = SMALL_SCALE_THRESHOLD / org_scale;
          min *= amplifier;
          max *= amplifier;
        }
    }
  zp_from_min = qmin - min / scale;
  zp_from_max = qmax - max / scale;
  err_min = fabs ((double) qmin) - fabs (min / scale);
  err_max = fabs ((double) qmax) - fabs (max / scale);
  initial = err_min < err_max ? zp_from_min : zp_from_max;
  if (initial < qmin)
    zp = qmin;
  else if (initial > qmax)
    zp = qmax;
  else
    zp = (int32_t) nearbyintf ((float) initial);
  *scale_out = scale;
  *zp_out = zp;
}

/* std::min_element / std::max_element over a row: the first extreme wins
 * and a NaN in front stays (comparisons with NaN are false). */
static void
row_min_max (const float *x, int64_t n, float *min, float *max)
{
  float lo = x[0], hi = x[0];
  for (int64_t i = 1; i < n; i++)
    {
      if (x[i] < lo)
        lo = x[i];
      if (hi < x[i])
        hi = x[i];
    }
  *min = lo;
  *max = hi;
}

static EtError
check_choose_args (const QkCall *call, const EtTensor *input, int64_t qmin, int64_t qmax, const EtTensor *scale_out,
                   const EtTensor *zp_out)
{
  if (qmin >= qmax)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "quant_min %" PRId64 " must be less than quant_max %" PRId64, qmin, qmax);
  if (qmin < INT32_MIN || qmax > INT32_MAX)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "quant_min/quant_max exceed int32");
  if (input->scalar_type != ET_SCALAR_FLOAT)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "input: dtype %s is not Float",
                                _executorch_support_type_name (input->scalar_type));
  if (scale_out->scalar_type != ET_SCALAR_DOUBLE)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "scale_out: dtype %s is not Double",
                                _executorch_support_type_name (scale_out->scalar_type));
  if (zp_out->scalar_type != ET_SCALAR_LONG)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "zero_point_out: dtype %s is not Long",
                                _executorch_support_type_name (zp_out->scalar_type));
  return ET_OK;
}

/* choose_qparams.Tensor_out: input, quant_min, quant_max, eps, dtype, *,
 * scale_out, zero_point_out (+ TensorList return slot) */
static EtError
k_choose_qparams_tensor_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::choose_qparams.Tensor_out", args, n_args };
  EtTensor *input, *scale_out, *zp_out;
  int64_t qmin, qmax;
  double eps, scale;
  int dtype;
  int32_t zp;
  float min, max;

  QK_TRY (_executorch_qk_check_n_args (&c, 8));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_int (&c, 1, "quant_min", &qmin));
  QK_TRY (_executorch_qk_int (&c, 2, "quant_max", &qmax));
  QK_TRY (_executorch_qk_double (&c, 3, "eps", &eps)); /* ignored, as upstream */
  QK_TRY (_executorch_qk_dtype (&c, 4, "dtype", &dtype));
  QK_TRY (_executorch_qk_tensor (&c, 5, "scale_out", &scale_out));
  QK_TRY (_executorch_qk_tensor (&c, 6, "zero_point_out", &zp_out));
  QK_TRY (check_choose_args (&c, input, qmin, qmax, scale_out, zp_out));
  if (scale_out->numel != 1 || zp_out->numel != 1)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT,
                                "scale_out and zero_point_out must have one element, not %" PRId64 " and %" PRId64,
                                scale_out->numel, zp_out->numel);
  if (input->numel == 0)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "input: is empty");
  row_min_max (input->data, input->numel, &min, &max);
  scale_and_zero_point (min, max, (int32_t) qmin, (int32_t) qmax, &scale, &zp);
  ((double *) scale_out->data)[0] = scale;
  ((int64_t *) zp_out->data)[0] = zp;
  return ET_OK;
}

/* choose_qparams_per_token_asymmetric.out: input, dtype, *, scale_out,
 * zero_point_out (+ TensorList return slot); qmin/qmax are -128/127. */
static EtError
k_choose_qparams_per_token_asymmetric_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::choose_qparams_per_token_asymmetric.out", args, n_args };
  EtTensor *input, *scale_out, *zp_out;
  int64_t sizes[ET_MAX_DIMS], n_tokens, token_size;
  int dtype;

  QK_TRY (_executorch_qk_check_n_args (&c, 5));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_dtype (&c, 1, "dtype", &dtype));
  QK_TRY (_executorch_qk_tensor (&c, 2, "scale_out", &scale_out));
  QK_TRY (_executorch_qk_tensor (&c, 3, "zero_point_out", &zp_out));
  QK_TRY (token_shape (&c, input, &n_tokens, &token_size));
  memcpy (sizes, input->sizes, input->ndim * sizeof sizes[0]);
  sizes[input->ndim - 1] = 1;
  QK_TRY (_executorch_qk_resize (&c, scale_out, "scale_out", input->ndim, sizes));
  QK_TRY (_executorch_qk_resize (&c, zp_out, "zero_point_out", input->ndim, sizes));
  QK_TRY (check_choose_args (&c, input, -128, 127, scale_out, zp_out));
  if (token_size == 0 && n_tokens > 0)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "input: tokens are empty");
  for (int64_t t = 0; t < n_tokens; t++)
    {
      float min, max;
      double scale;
      int32_t zp;
      row_min_max ((const float *) input->data + t * token_size, token_size, &min, &max);
      scale_and_zero_point (min, max, -128, 127, &scale, &zp);
      ((double *) scale_out->data)[t] = scale;
      ((int64_t *) zp_out->data)[t] = zp;
    }
  return ET_OK;
}

const EtKernel _executorch_qk_quantize_kernels[] = {
  { "quantized_decomposed::quantize_per_tensor.out", k_quantize_per_tensor_out, NULL },
  { "quantized_decomposed::quantize_per_tensor.Tensor_out", k_quantize_per_tensor_tensor_out, NULL },
  { "quantized_decomposed::dequantize_per_tensor.out", k_dequantize_per_tensor_out, NULL },
  { "quantized_decomposed::dequantize_per_tensor.Tensor_out", k_dequantize_per_tensor_tensor_out, NULL },
  { "quantized_decomposed::quantize_per_channel.out", k_quantize_per_channel_out, NULL },
  { "quantized_decomposed::dequantize_per_channel.out", k_dequantize_per_channel_out, NULL },
  { "quantized_decomposed::quantize_per_token.out", k_quantize_per_token_out, NULL },
  { "quantized_decomposed::dequantize_per_token.out", k_dequantize_per_token_out, NULL },
  { "quantized_decomposed::choose_qparams.Tensor_out", k_choose_qparams_tensor_out, NULL },
  { "quantized_decomposed::choose_qparams_per_token_asymmetric.out", k_choose_qparams_per_token_asymmetric_out, NULL },
};
const size_t _executorch_qk_quantize_n_kernels = QK_N_ELEMENTS (_executorch_qk_quantize_kernels);
