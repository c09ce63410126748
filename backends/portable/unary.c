/* unary.c: elementwise unary kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * relu keeps its dtype (no Bool); sigmoid and tanh take any real or Bool
 * input and write a floating out.  NaN propagates.
 */
#include "kernels-private.h"

#include <math.h>
#include <string.h>

typedef enum {
  OP_RELU,
  OP_SIGMOID,
  OP_TANH,
} UnaryOp;

static void
row_f32 (UnaryOp op, int64_t n, float *restrict x)
{
  switch (op) {
  case OP_RELU:
    for (int64_t i = 0; i < n; i++)
      x[i] = x[i] < 0.0f ? 0.0f : x[i];
    break;
  case OP_SIGMOID:
    for (int64_t i = 0; i < n; i++)
      x[i] = 1.0f / (1.0f + expf (-x[i]));
    break;
  case OP_TANH:
    for (int64_t i = 0; i < n; i++)
      x[i] = tanhf (x[i]);
    break;
  }
}

static void
row_f64 (UnaryOp op, int64_t n, double *restrict x)
{
  switch (op) {
  case OP_RELU:
    for (int64_t i = 0; i < n; i++)
      x[i] = x[i] < 0.0 ? 0.0 : x[i];
    break;
  case OP_SIGMOID:
    for (int64_t i = 0; i < n; i++)
      x[i] = 1.0 / (1.0 + exp (-x[i]));
    break;
  case OP_TANH:
    for (int64_t i = 0; i < n; i++)
      x[i] = tanh (x[i]);
    break;
  }
}

static void
row_i64 (UnaryOp op, int64_t n, int64_t *restrict x)
{
  /* Only relu has an integer form. */
  for (int64_t i = 0; i < n; i++)
    x[i] = x[i] < 0 ? 0 : x[i];
}

static EtError
unary_run (EtKernelContext *ctx, UnaryOp op, EtTensor *out, const EtTensor *in, int compute_type)
{
  ExecutorchComputeKind kind = _executorch_compute_kind (compute_type);

  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, in->sizes));
  if (out->numel == 0)
    return ET_OK;

  /* Fast path: Float relu with matching layouts is one flat loop. */
  if (op == OP_RELU && in->scalar_type == ET_SCALAR_FLOAT && out->scalar_type == ET_SCALAR_FLOAT &&
      _executorch_same_dim_order (in, out)) {
    const float *restrict x = in->data;
    float *restrict y = out->data;
    for (int64_t i = 0; i < out->numel; i++)
      y[i] = x[i] < 0.0f ? 0.0f : x[i];
    return ET_OK;
  }

  const int64_t *strides[2] = { out->strides, in->strides };
  ExecutorchIter it;
  union {
    int64_t i[EXECUTORCH_CHUNK];
    float f[EXECUTORCH_CHUNK];
    double d[EXECUTORCH_CHUNK];
  } buf;

  _executorch_iter_init (&it, out->ndim, out->sizes, out->dim_order, 2, strides);
  for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it)) {
    for (int64_t j = 0; j < it.inner; j += EXECUTORCH_CHUNK) {
      int64_t m = it.inner - j < EXECUTORCH_CHUNK ? it.inner - j : EXECUTORCH_CHUNK;
      _executorch_load_kind (kind, in->scalar_type, in->data,
                             it.offsets[1] + j * it.inner_strides[1], it.inner_strides[1], m, &buf);
      switch (kind) {
      case EXECUTORCH_COMPUTE_I64: row_i64 (op, m, buf.i); break;
      case EXECUTORCH_COMPUTE_F32: row_f32 (op, m, buf.f); break;
      case EXECUTORCH_COMPUTE_F64: row_f64 (op, m, buf.d); break;
      }
      _executorch_store_kind (kind, out->scalar_type, out->data,
                              it.offsets[0] + j * it.inner_strides[0], it.inner_strides[0], m, &buf);
    }
  }
  return ET_OK;
}

/* (self, out, ret) */
static EtError
get_args (EtKernelContext *ctx, EtValue **args, uint32_t n_args, EtTensor **in, EtTensor **out)
{
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", in));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "out", out));
  KERNEL_TRY (_executorch_check_supported (ctx, *in, "self"));
  KERNEL_TRY (_executorch_check_supported (ctx, *out, "out"));
  return ET_OK;
}

static EtError
relu_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *in, *out;
  KERNEL_TRY (get_args (ctx, args, n_args, &in, &out));
  if (in->scalar_type == ET_SCALAR_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "relu does not support Bool");
  if (in->scalar_type != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "out dtype %s differs from self dtype %s",
                        _executorch_type_name (out->scalar_type),
                        _executorch_type_name (in->scalar_type));
  return unary_run (ctx, OP_RELU, out, in, in->scalar_type);
}

static EtError
float_unary (EtKernelContext *ctx, EtValue **args, uint32_t n_args, UnaryOp op)
{
  EtTensor *in, *out;
  KERNEL_TRY (get_args (ctx, args, n_args, &in, &out));
  if (!_executorch_type_is_floating (out->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "out must be floating, not %s",
                        _executorch_type_name (out->scalar_type));
  /* Integer inputs are computed in the out type. */
  int compute = _executorch_type_is_floating (in->scalar_type)
                  ? _executorch_promote_types (in->scalar_type, out->scalar_type)
                  : out->scalar_type;
  return unary_run (ctx, op, out, in, compute);
}

static EtError
sigmoid_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return float_unary (ctx, args, n_args, OP_SIGMOID);
}

static EtError
tanh_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return float_unary (ctx, args, n_args, OP_TANH);
}

const EtKernel _executorch_unary_kernels[] = {
  { "aten::relu.out", relu_out, NULL },
  { "aten::sigmoid.out", sigmoid_out, NULL },
  { "aten::tanh.out", tanh_out, NULL },
};

const size_t _executorch_unary_n_kernels = KERNEL_N_ELEMENTS (_executorch_unary_kernels);
