/* linear.c: mixed_linear, mixed_mm (int8 weights) and the quantized add
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * mixed_linear: out[i][j] = sum over groups g of
 *     (sum over k in g of x[i][k] * (T) w[j][k]) * s[j][g]
 * with group size ceil(n / G) (n for 1-D scales) and scale row stride
 * ceil(n / group size), exactly as upstream indexes it; partial sums live in
 * the out dtype.  mixed_mm: out[i][j] = sum_k x[i][k] * (T) w[k][j] * s[k].
 * The arithmetic follows C++ with c10::Half: Half op Half is computed in
 * float and rounded to Half, Half op float is float, and a Half
 * accumulator rounds what is added to it to Half first (fixture q_half
 * compares these with upstream's runtime).
 *
 * add: dequantize a and b ((q - zp) * scale in double, kept as float), add
 * in float and requantize with the out qparams (inv = 1.0f / out_scale).
 * Zero points other than None are rejected by both matmuls, as upstream.
 */
#include "quantized-private.h"

#include <math.h>

typedef enum
{
  NUM_F32,
  NUM_F64,
  NUM_F16
} NumKind;

typedef struct
{
  NumKind kind;
  double v;
} Num;

static NumKind
num_kind (int type)
{
  return type == ET_SCALAR_DOUBLE ? NUM_F64 : type == ET_SCALAR_HALF ? NUM_F16 : NUM_F32;
}

static double
round_half (float f)
{
  return et_half_to_float (et_float_to_half (f));
}

static Num
num_make (NumKind kind, double v)
{
  Num n = { kind, v };
  if (kind == NUM_F32)
    n.v = (float) v;
  else if (kind == NUM_F16)
    n.v = round_half ((float) v);
  return n;
}

static NumKind
result_kind (NumKind a, NumKind b)
{
  if (a == NUM_F64 || b == NUM_F64)
    return NUM_F64;
  if (a == NUM_F16 && b == NUM_F16)
    return NUM_F16;
  return NUM_F32;
}

static Num
num_mul (Num a, Num b)
{
  NumKind k = result_kind (a.kind, b.kind);
  if (k == NUM_F64)
    return num_make (k, a.v * b.v);
  return num_make (k, (float) a.v * (float) b.v);
}

/* acc += e for an accumulator of kind @acc.kind */
static Num
num_accumulate (Num acc, Num e)
{
  if (acc.kind == NUM_F16)
    return num_make (NUM_F16, (float) acc.v + (float) num_make (NUM_F16, e.v).v);
  if (acc.kind == NUM_F64)
    return num_make (NUM_F64, acc.v + e.v);
  return num_make (NUM_F32, (float) acc.v + (float) e.v);
}

static Num
load_num (int type, const void *data, int64_t i)
{
  Num n;
  n.kind = num_kind (type);
  n.v = type == ET_SCALAR_DOUBLE ? ((const double *) data)[i] : _executorch_qk_load_float (type, data, i);
  return n;
}

static void
store_num (int type, void *data, int64_t i, Num n)
{
  if (type == ET_SCALAR_DOUBLE)
    ((double *) data)[i] = n.v;
  else
    _executorch_qk_store_float (type, data, i, (float) n.v);
}

static EtError
check_rank (const QkCall *call, const EtTensor *t, const char *name, uint32_t rank)
{
  if (t->ndim != rank)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "%s: must be %u-D, not %u-D", name, rank, t->ndim);
  return ET_OK;
}

static EtError
check_matmul_common (const QkCall *call, const EtTensor *in, const EtTensor *weight, const EtTensor *scales,
                     const EtTensor *zps, const EtTensor *out)
{
  if (in->scalar_type != scales->scalar_type)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "weight_scales: dtype %s differs from input's %s",
                                _executorch_support_type_name (scales->scalar_type),
                                _executorch_support_type_name (in->scalar_type));
  if (weight->scalar_type != ET_SCALAR_CHAR)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "weight: dtype %s is not Char (int8)",
                                _executorch_support_type_name (weight->scalar_type));
  if (in->scalar_type != ET_SCALAR_FLOAT && in->scalar_type != ET_SCALAR_HALF)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT, "input: dtype %s is not Float or Half",
                                _executorch_support_type_name (in->scalar_type));
  if (zps != NULL)
    return _executorch_qk_fail (call, ET_ERROR_NOT_SUPPORTED,
                                "weight_zero_points: zero points are not supported (must be None)");
  QK_TRY (_executorch_qk_contiguous (call, in, "input"));
  QK_TRY (_executorch_qk_contiguous (call, weight, "weight"));
  QK_TRY (_executorch_qk_contiguous (call, scales, "weight_scales"));
  (void) out;
  return ET_OK;
}

/* mixed_linear.out: input, weight, weight_scales, weight_zero_points?,
 * dtype?, *, out */
static EtError
k_mixed_linear_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::mixed_linear.out", args, n_args };
  EtTensor *in, *weight, *scales, *zps, *out;
  bool has_dtype;
  int dtype, out_type;
  int64_t m, n, p, g, n_over_g, sizes[2];

  QK_TRY (_executorch_qk_check_n_args (&c, 7));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &in));
  QK_TRY (_executorch_qk_tensor (&c, 1, "weight", &weight));
  QK_TRY (_executorch_qk_tensor (&c, 2, "weight_scales", &scales));
  QK_TRY (_executorch_qk_opt_tensor (&c, 3, "weight_zero_points", &zps));
  QK_TRY (_executorch_qk_opt_dtype (&c, 4, "dtype", &has_dtype, &dtype));
  QK_TRY (_executorch_qk_tensor (&c, 5, "out", &out));
  QK_TRY (check_rank (&c, in, "input", 2));
  QK_TRY (check_rank (&c, weight, "weight", 2));
  if (scales->ndim != 1 && scales->ndim != 2)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "weight_scales: must be 1-D or 2-D, not %u-D",
                                scales->ndim);
  QK_TRY (check_rank (&c, out, "out", 2));
  if (in->sizes[1] != weight->sizes[1])
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "weight: %" PRId64 " columns, input has %" PRId64,
                                weight->sizes[1], in->sizes[1]);
  if (scales->sizes[0] != weight->sizes[0])
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "weight_scales: %" PRId64 " rows, weight has %" PRId64,
                                scales->sizes[0], weight->sizes[0]);
  if (has_dtype)
    {
      if (out->scalar_type != dtype)
        return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "out: dtype %s does not match dtype %s",
                                    _executorch_support_type_name (out->scalar_type),
                                    _executorch_support_type_name (dtype));
      if (dtype != ET_SCALAR_FLOAT && dtype != ET_SCALAR_HALF)
        return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "dtype: %s is not Float or Half",
                                    _executorch_support_type_name (dtype));
    }
  QK_TRY (check_matmul_common (&c, in, weight, scales, zps, out));
  out_type = out->scalar_type;
  if (out_type != ET_SCALAR_FLOAT && out_type != ET_SCALAR_HALF && out_type != ET_SCALAR_DOUBLE)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "out: dtype %s is not Float, Double or Half",
                                _executorch_support_type_name (out_type));
  m = in->sizes[0];
  n = in->sizes[1];
  p = weight->sizes[0];
  sizes[0] = m;
  sizes[1] = p;
  QK_TRY (_executorch_qk_resize (&c, out, "out", 2, sizes));
  QK_TRY (_executorch_qk_contiguous (&c, out, "out"));
  g = n;
  if (scales->ndim == 2)
    {
      if (scales->sizes[1] <= 0)
        return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "weight_scales: has no groups");
      g = (n + scales->sizes[1] - 1) / scales->sizes[1];
    }
  n_over_g = g > 0 ? (n + g - 1) / g : 0;
  if (scales->ndim == 1 && n > 0 && n_over_g != 1)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "weight_scales: inconsistent group count");
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < p; j++)
      {
        Num sum = num_make (num_kind (out_type), 0.0);
        for (int64_t k = 0; k < n; k += g)
          {
            Num psum = num_make (num_kind (out_type), 0.0);
            int64_t end = k + g < n ? k + g : n;
            for (int64_t k2 = k; k2 < end; k2++)
              {
                Num x = load_num (in->scalar_type, in->data, i * n + k2);
                Num w = num_make (num_kind (in->scalar_type), ((const int8_t *) weight->data)[j * n + k2]);
                psum = num_accumulate (psum, num_mul (x, w));
              }
            /* upstream's scale index: row stride ceil(n / g), in bounds since
         * ceil(n / ceil(n / G)) <= G */
            sum = num_accumulate (sum,
                                  num_mul (psum, load_num (scales->scalar_type, scales->data, j * n_over_g + k / g)));
          }
        store_num (out_type, out->data, i * p + j, sum);
      }
  return ET_OK;
}

/* mixed_mm.out: input, weight, weight_scales, weight_zero_points?, *, out */
static EtError
k_mixed_mm_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::mixed_mm.out", args, n_args };
  EtTensor *in, *weight, *scales, *zps, *out;
  int64_t m, n, p, sizes[2];

  QK_TRY (_executorch_qk_check_n_args (&c, 6));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &in));
  QK_TRY (_executorch_qk_tensor (&c, 1, "weight", &weight));
  QK_TRY (_executorch_qk_tensor (&c, 2, "weight_scales", &scales));
  QK_TRY (_executorch_qk_opt_tensor (&c, 3, "weight_zero_points", &zps));
  QK_TRY (_executorch_qk_tensor (&c, 4, "out", &out));
  QK_TRY (check_rank (&c, in, "input", 2));
  QK_TRY (check_rank (&c, weight, "weight", 2));
  QK_TRY (check_rank (&c, scales, "weight_scales", 1));
  QK_TRY (check_rank (&c, out, "out", 2));
  if (in->sizes[1] != weight->sizes[0])
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT,
                                "weight: %" PRId64 " rows, input has %" PRId64 " columns", weight->sizes[0],
                                in->sizes[1]);
  if (scales->sizes[0] != weight->sizes[0])
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT,
                                "weight_scales: %" PRId64 " elements, weight has %" PRId64 " rows", scales->sizes[0],
                                weight->sizes[0]);
  if (out->scalar_type != in->scalar_type)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "out: dtype %s differs from input's %s",
                                _executorch_support_type_name (out->scalar_type),
                                _executorch_support_type_name (in->scalar_type));
  QK_TRY (check_matmul_common (&c, in, weight, scales, zps, out));
  m = in->sizes[0];
  n = in->sizes[1];
  p = weight->sizes[1];
  sizes[0] = m;
  sizes[1] = p;
  QK_TRY (_executorch_qk_resize (&c, out, "out", 2, sizes));
  QK_TRY (_executorch_qk_contiguous (&c, out, "out"));
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < p; j++)
      {
        Num sum = num_make (num_kind (out->scalar_type), 0.0);
        for (int64_t k = 0; k < n; k++)
          {
            Num x = load_num (in->scalar_type, in->data, i * n + k);
            Num w = num_make (num_kind (in->scalar_type), ((const int8_t *) weight->data)[k * p + j]);
            Num s = load_num (scales->scalar_type, scales->data, k);
            sum = num_accumulate (sum, num_mul (num_mul (x, w), s));
          }
        store_num (out->scalar_type, out->data, i * p + j, sum);
      }
  return ET_OK;
}

static EtError
check_add_range (const QkCall *call, const char *which, int64_t qmin, int64_t qmax)
{
  if (qmin < 0 || qmax > 255 || qmin > qmax)
    return _executorch_qk_fail (call, ET_ERROR_INVALID_ARGUMENT,
                                "%s: quant_min %" PRId64 " / quant_max %" PRId64 " must satisfy 0 <= min <= max <= 255",
                                which, qmin, qmax);
  return ET_OK;
}

/* add.out: a, a_scale, a_zero_point, a_quant_min, a_quant_max, b, ..., out_scale,
 * out_zero_point, out_quant_min, out_quant_max, *, out */
static EtError
k_add_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::add.out", args, n_args };
  EtTensor *a, *b, *out;
  double a_scale, b_scale, out_scale;
  int64_t a_zp, a_min, a_max, b_zp, b_min, b_max, o_zp, o_min, o_max;
  int type;

  QK_TRY (_executorch_qk_check_n_args (&c, 16));
  QK_TRY (_executorch_qk_tensor (&c, 0, "a", &a));
  QK_TRY (_executorch_qk_double (&c, 1, "a_scale", &a_scale));
  QK_TRY (_executorch_qk_int (&c, 2, "a_zero_point", &a_zp));
  QK_TRY (_executorch_qk_int (&c, 3, "a_quant_min", &a_min));
  QK_TRY (_executorch_qk_int (&c, 4, "a_quant_max", &a_max));
  QK_TRY (_executorch_qk_tensor (&c, 5, "b", &b));
  QK_TRY (_executorch_qk_double (&c, 6, "b_scale", &b_scale));
  QK_TRY (_executorch_qk_int (&c, 7, "b_zero_point", &b_zp));
  QK_TRY (_executorch_qk_int (&c, 8, "b_quant_min", &b_min));
  QK_TRY (_executorch_qk_int (&c, 9, "b_quant_max", &b_max));
  QK_TRY (_executorch_qk_double (&c, 10, "out_scale", &out_scale));
  QK_TRY (_executorch_qk_int (&c, 11, "out_zero_point", &o_zp));
  QK_TRY (_executorch_qk_int (&c, 12, "out_quant_min", &o_min));
  QK_TRY (_executorch_qk_int (&c, 13, "out_quant_max", &o_max));
  QK_TRY (_executorch_qk_tensor (&c, 14, "out", &out));
  type = a->scalar_type;
  if (b->scalar_type != type || out->scalar_type != type)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "a, b and out must share a dtype (%s, %s, %s)",
                                _executorch_support_type_name (type), _executorch_support_type_name (b->scalar_type),
                                _executorch_support_type_name (out->scalar_type));
  if (a->ndim != b->ndim || a->ndim != out->ndim)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "a, b and out must have the same shape");
  for (uint32_t d = 0; d < a->ndim; d++)
    if (a->sizes[d] != b->sizes[d] || a->sizes[d] != out->sizes[d])
      return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "a, b and out must have the same shape (dim %u)", d);
  if (type != ET_SCALAR_BYTE && type != ET_SCALAR_CHAR && type != ET_SCALAR_SHORT && type != ET_SCALAR_INT &&
      type != ET_SCALAR_LONG)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "a: dtype %s is not an integer type",
                                _executorch_support_type_name (type));
  QK_TRY (check_add_range (&c, "a", a_min, a_max));
  QK_TRY (check_add_range (&c, "b", b_min, b_max));
  QK_TRY (check_add_range (&c, "out", o_min, o_max));
  QK_TRY (_executorch_qk_same_dim_order (&c, a, "a", b, "b"));
  QK_TRY (_executorch_qk_same_dim_order (&c, a, "a", out, "out"));
  {
    float as = (float) a_scale, bs = (float) b_scale, os = (float) out_scale;
    int32_t az = (int32_t) a_zp, bz = (int32_t) b_zp, oz = (int32_t) o_zp;
    float inv = 1.0f / os;
    for (int64_t i = 0; i < a->numel; i++)
      {
        float dqa = (float) ((double) (_executorch_qk_load_int (type, a->data, i) - az) * (double) as);
        float dqb = (float) ((double) (_executorch_qk_load_int (type, b->data, i) - bz) * (double) bs);
        float sum = dqa + dqb;
        _executorch_qk_store_int (type, out->data, i, _executorch_qk_requantize (inv * sum, oz, o_min, o_max));
      }
  }
  return ET_OK;
}

const EtKernel _executorch_qk_linear_kernels[] = {
  { "quantized_decomposed::mixed_linear.out", k_mixed_linear_out, NULL },
  { "quantized_decomposed::mixed_mm.out", k_mixed_mm_out, NULL },
  { "quantized_decomposed::add.out", k_add_out, NULL },
};
const size_t _executorch_qk_linear_n_kernels = QK_N_ELEMENTS (_executorch_qk_linear_kernels);
