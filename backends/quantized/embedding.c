/* embedding.c: embedding_byte, embedding_4bit and embedding_2bit (.out and .dtype_out)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * out[..., j] = (out_t) (((float) w[j] - (float) zp[g]) * (float) scale[g])
 * with g = j / (D / G) for scales of shape [N] (G = 1) or [N, G].  Packed
 * weights: 4-bit element j is the high nibble of byte j/2 for even j and the
 * low one for odd j, minus 8; 2-bit element j is bits 2*(j%4) of byte j/4,
 * minus 2 (upstream's packing).
 *
 * Deliberate differences from upstream: every index is bounds-checked (the
 * packed kernels do not check upstream); the .out overloads, which read the
 * scales as the out dtype upstream, require the scales to have that dtype;
 * zero points are read as their own dtype.
 */
#include "quantized-private.h"

#include <string.h>

static bool
is_param_float (int type)
{
  return type == ET_SCALAR_FLOAT || type == ET_SCALAR_HALF || type == ET_SCALAR_BFLOAT16;
}

/* A weight value of row @w at column @j for @nbit bits (8: Byte/Char). */
static inline int32_t
weight_value (int w_type, const uint8_t *w, int64_t j, int nbit)
{
  if (nbit == 8)
    return w_type == ET_SCALAR_CHAR ? (int32_t) (int8_t) w[j] : (int32_t) w[j];
  if (nbit == 4)
    {
      uint8_t b = w[j >> 1];
      return (int32_t) ((j & 1) ? (b & 0x0f) : (b >> 4)) - 8;
    }
  return (int32_t) ((w[j >> 2] >> (2 * (j & 3))) & 3) - 2;
}

/* weight, weight_scales, weight_zero_points?, quant_min, quant_max, indices,
 * [dtype?,] *, out (+ return slot) */
static EtError
embedding (const QkCall *call, int nbit, bool dtype_overload)
{
  EtTensor *weight, *scales, *zps, *indices, *out;
  int64_t qmin, qmax, n_rows, dim, n_groups, group_size, sizes[ET_MAX_DIMS];
  bool has_dtype = false;
  int dtype = -1;
  uint32_t out_slot = dtype_overload ? 7 : 6;

  QK_TRY (_executorch_qk_check_n_args (call, out_slot + 2));
  QK_TRY (_executorch_qk_tensor (call, 0, "weight", &weight));
  QK_TRY (_executorch_qk_tensor (call, 1, "weight_scales", &scales));
  QK_TRY (_executorch_qk_opt_tensor (call, 2, "weight_zero_points", &zps));
  QK_TRY (_executorch_qk_int (call, 3, "weight_quant_min", &qmin));
  QK_TRY (_executorch_qk_int (call, 4, "weight_quant_max", &qmax));
  QK_TRY (_executorch_qk_tensor (call, 5, "indices", &indices));
  if (dtype_overload)
    QK_TRY (_executorch_qk_opt_dtype (call, 6, "dtype", &has_dtype, &dtype));
  QK_TRY (_executorch_qk_tensor (call, out_slot, "out", &out));

  if (weight->ndim != 2)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "weight: must be 2-D, not %u-D", weight->ndim);
  if (indices->ndim + 1 > ET_MAX_DIMS)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "indices: rank %u is too large", indices->ndim);
  n_rows = weight->sizes[0];
  dim = weight->sizes[1] * (8 / nbit);
  memcpy (sizes, indices->sizes, indices->ndim * sizeof sizes[0]);
  sizes[indices->ndim] = dim;
  QK_TRY (_executorch_qk_resize (call, out, "out", indices->ndim + 1, sizes));

  if (scales->ndim != 1 && scales->ndim != 2)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "weight_scales: must be 1-D or 2-D, not %u-D",
                                scales->ndim);
  if (scales->sizes[0] != n_rows)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "weight_scales: %" PRId64 " rows, weight has %" PRId64,
                                scales->sizes[0], n_rows);
  n_groups = scales->ndim == 2 ? scales->sizes[1] : 1;
  if (n_groups <= 0 || dim % n_groups != 0)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "weight_scales: %" PRId64 " groups do not divide the embedding dim %" PRId64, n_groups,
                                dim);
  group_size = dim / n_groups;
  if (nbit == 8 ? (weight->scalar_type != ET_SCALAR_BYTE && weight->scalar_type != ET_SCALAR_CHAR)
                : weight->scalar_type != ET_SCALAR_BYTE)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "weight: dtype %s is not %s",
                                _executorch_support_type_name (weight->scalar_type),
                                nbit == 8 ? "Byte or Char" : "Byte");
  if (!is_param_float (out->scalar_type))
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "out: dtype %s is not Float, Half or BFloat16",
                                _executorch_support_type_name (out->scalar_type));
  if (!is_param_float (scales->scalar_type))
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "weight_scales: dtype %s is not Float, Half or BFloat16",
                                _executorch_support_type_name (scales->scalar_type));
  if (!dtype_overload && scales->scalar_type != out->scalar_type)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "weight_scales: dtype %s must be the out dtype %s in this overload",
                                _executorch_support_type_name (scales->scalar_type),
                                _executorch_support_type_name (out->scalar_type));
  if (zps != NULL)
    {
      if (zps->ndim != scales->ndim)
        return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                    "weight_zero_points: rank %u differs from weight_scales' %u", zps->ndim,
                                    scales->ndim);
      if (zps->scalar_type != out->scalar_type)
        return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                    "weight_zero_points: dtype %s does not match out's %s",
                                    _executorch_support_type_name (zps->scalar_type),
                                    _executorch_support_type_name (out->scalar_type));
      for (uint32_t d = 0; d < scales->ndim; d++)
        if (zps->sizes[d] != scales->sizes[d])
          return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                      "weight_zero_points: size %" PRId64 " at dim %u, weight_scales has %" PRId64,
                                      zps->sizes[d], d, scales->sizes[d]);
    }
  if (nbit == 8 ? indices->scalar_type != ET_SCALAR_LONG
                : (indices->scalar_type != ET_SCALAR_LONG && indices->scalar_type != ET_SCALAR_INT))
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "indices: dtype %s is not %s",
                                _executorch_support_type_name (indices->scalar_type),
                                nbit == 8 ? "Long" : "Long or Int");
  if (qmin > qmax)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "weight_quant_min %" PRId64 " is greater than weight_quant_max %" PRId64, qmin, qmax);
  if (has_dtype && out->scalar_type != dtype)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "out: dtype %s does not match dtype %s",
                                _executorch_support_type_name (out->scalar_type),
                                _executorch_support_type_name (dtype));
  QK_TRY (_executorch_qk_contiguous (call, weight, "weight"));
  QK_TRY (_executorch_qk_contiguous (call, scales, "weight_scales"));
  if (zps != NULL)
    QK_TRY (_executorch_qk_contiguous (call, zps, "weight_zero_points"));
  QK_TRY (_executorch_qk_contiguous (call, indices, "indices"));
  QK_TRY (_executorch_qk_contiguous (call, out, "out"));

  for (int64_t i = 0; i < indices->numel; i++)
    {
      int64_t index = _executorch_qk_load_int (indices->scalar_type, indices->data, i);
      const uint8_t *w;
      if (index < 0 || index >= n_rows)
        return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                    "indices: index %" PRId64 " is out of range for %" PRId64 " rows", index, n_rows);
      w = (const uint8_t *) weight->data + index * weight->sizes[1];
      for (int64_t j = 0; j < dim; j++)
        {
          int64_t g = index * n_groups + j / group_size;
          float scale = _executorch_qk_load_float (scales->scalar_type, scales->data, g);
          float zp = zps != NULL ? _executorch_qk_load_float (zps->scalar_type, zps->data, g) : 0.0f;
          float v = ((float) weight_value (weight->scalar_type, w, j, nbit) - zp) * scale;
          _executorch_qk_store_float (out->scalar_type, out->data, i * dim + j, v);
        }
    }
  return ET_OK;
}

#define EMBEDDING_KERNEL(fn, opname, nbit, dtype_overload)                  \
  static EtError fn (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                         \
    QkCall call = { ctx, opname, args, n_args };                            \
    return embedding (&call, nbit, dtype_overload);                         \
  }

EMBEDDING_KERNEL (k_embedding_byte_out, "quantized_decomposed::embedding_byte.out", 8, false)
EMBEDDING_KERNEL (k_embedding_byte_dtype_out, "quantized_decomposed::embedding_byte.dtype_out", 8, true)
EMBEDDING_KERNEL (k_embedding_4bit_out, "quantized_decomposed::embedding_4bit.out", 4, false)
EMBEDDING_KERNEL (k_embedding_4bit_dtype_out, "quantized_decomposed::embedding_4bit.dtype_out", 4, true)
EMBEDDING_KERNEL (k_embedding_2bit_out, "quantized_decomposed::embedding_2bit.out", 2, false)
EMBEDDING_KERNEL (k_embedding_2bit_dtype_out, "quantized_decomposed::embedding_2bit.dtype_out", 2, true)

const EtKernel _executorch_qk_embedding_kernels[] = {
  { "quantized_decomposed::embedding_byte.out", k_embedding_byte_out, NULL },
  { "quantized_decomposed::embedding_byte.dtype_out", k_embedding_byte_dtype_out, NULL },
  { "quantized_decomposed::embedding_4bit.out", k_embedding_4bit_out, NULL },
  { "quantized_decomposed::embedding_4bit.dtype_out", k_embedding_4bit_dtype_out, NULL },
  { "quantized_decomposed::embedding_2bit.out", k_embedding_2bit_out, NULL },
  { "quantized_decomposed::embedding_2bit.dtype_out", k_embedding_2bit_dtype_out, NULL },
};
const size_t _executorch_qk_embedding_n_kernels = QK_N_ELEMENTS (_executorch_qk_embedding_kernels);
