/* activation.c: clamp-style and smooth activation kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * hardtanh, clamp (Scalar and Tensor bounds), gelu, elu, glu and
 * leaky_relu.  NaN inputs propagate through every one of them; clamp with
 * tensor bounds also propagates a NaN bound (eager's clamp kernel does).
 * When min > max, clamp gives max (eager: min(max(x, lo), hi)).  Float32
 * hardtanh, clamp and gelu with matching layouts use the vectorised
 * helpers, split across the thread pool.
 */
#include "nn-private.h"
#include "vector.h"

#include <math.h>
#include <string.h>

typedef enum
{
  OP_CLAMP,        /* in: self; bounds in the user data */
  OP_CLAMP_TENSOR, /* in: self, min?, max? */
  OP_GELU,
  OP_GELU_TANH,
  OP_ELU,
  OP_GLU, /* in: first half, second half */
  OP_LEAKY_RELU,
} ActOp;

typedef struct
{
  ActOp op;
  int type;
  bool has_lo, has_hi; /* clamp bounds (Scalar or Tensor) */
  KernelKindValue lo, hi;
  double alpha, scale, input_scale; /* elu; alpha = slope for leaky_relu */
} ActUser;

#define FLOAT_ACT(NAME, T, F, M)                                                                           \
  static void NAME (const void *user, int64_t n, void *out, const void *const *in)                         \
  {                                                                                                        \
    const ActUser *u = user;                                                                               \
    const T *restrict x = in[0];                                                                           \
    T *restrict o = out;                                                                                   \
    switch (u->op)                                                                                         \
      {                                                                                                    \
        case OP_CLAMP:                                                                                     \
          for (int64_t i = 0; i < n; i++)                                                                  \
            {                                                                                              \
              T v = x[i];                                                                                  \
              if (u->has_lo && v < u->lo.M)                                                                \
                v = u->lo.M;                                                                               \
              if (u->has_hi && v > u->hi.M)                                                                \
                v = u->hi.M;                                                                               \
              o[i] = v;                                                                                    \
            }                                                                                              \
          break;                                                                                           \
        case OP_CLAMP_TENSOR:                                                                              \
          {                                                                                                \
            const T *lo = u->has_lo ? in[1] : NULL;                                                        \
            const T *hi = u->has_hi ? in[u->has_lo ? 2 : 1] : NULL;                                        \
            for (int64_t i = 0; i < n; i++)                                                                \
              {                                                                                            \
                T v = x[i];                                                                                \
                if (!isnan (v))                                                                            \
                  {                                                                                        \
                    if (lo != NULL && (isnan (lo[i]) || v < lo[i]))                                        \
                      v = lo[i];                                                                           \
                    if (hi != NULL && (isnan (hi[i]) || v > hi[i]))                                        \
                      v = hi[i];                                                                           \
                  }                                                                                        \
                o[i] = v;                                                                                  \
              }                                                                                            \
            break;                                                                                         \
          }                                                                                                \
        case OP_GELU:                                                                                      \
          for (int64_t i = 0; i < n; i++)                                                                  \
            o[i] = x[i] == -INFINITY ? 0 : (T) 0.5 * x[i] * F (erfc) (-x[i] * (T) 0.70710678118654752440); \
          break;                                                                                           \
        case OP_GELU_TANH:                                                                                 \
          for (int64_t i = 0; i < n; i++)                                                                  \
            {                                                                                              \
              T v = x[i];                                                                                  \
              T inner = (T) 0.79788456080286535588 * (v + (T) 0.044715 * v * v * v);                       \
              /* 0.5 v (1 + tanh(inner)) without the cancellation for v << 0 */                            \
              o[i] = v == -INFINITY ? 0 : v / (1 + F (exp) (-2 * inner));                                  \
            }                                                                                              \
          break;                                                                                           \
        case OP_ELU:                                                                                       \
          {                                                                                                \
            T a = (T) u->alpha, s = (T) u->scale, is = (T) u->input_scale;                                 \
            for (int64_t i = 0; i < n; i++)                                                                \
              o[i] = x[i] > 0 ? s * x[i] : x[i] <= 0 ? s * a * F (expm1) (x[i] * is) : x[i];               \
            break;                                                                                         \
          }                                                                                                \
        case OP_GLU:                                                                                       \
          {                                                                                                \
            const T *restrict g = in[1];                                                                   \
            for (int64_t i = 0; i < n; i++)                                                                \
              o[i] = x[i] * (1 / (1 + F (exp) (-g[i])));                                                   \
            break;                                                                                         \
          }                                                                                                \
        case OP_LEAKY_RELU:                                                                                \
          {                                                                                                \
            T a = (T) u->alpha;                                                                            \
            for (int64_t i = 0; i < n; i++)                                                                \
              o[i] = x[i] > 0 ? x[i] : x[i] * a;                                                           \
            break;                                                                                         \
          }                                                                                                \
      }                                                                                                    \
  }

#define FNAME_F(name) name##f
#define FNAME_D(name) name

FLOAT_ACT (act_f32, float, FNAME_F, f)
FLOAT_ACT (act_f64, double, FNAME_D, d)

/* Integer clamp (the only integer activation). */
static void
act_i64 (const void *user, int64_t n, void *out, const void *const *in)
{
  const ActUser *u = user;
  const int64_t *restrict x = in[0];
  int64_t *restrict o = out;
  if (u->op == OP_CLAMP)
    {
      for (int64_t i = 0; i < n; i++)
        {
          int64_t v = x[i];
          if (u->has_lo && v < u->lo.i)
            v = u->lo.i;
          if (u->has_hi && v > u->hi.i)
            v = u->hi.i;
          o[i] = v;
        }
    }
  else
    {
      const int64_t *lo = u->has_lo ? in[1] : NULL;
      const int64_t *hi = u->has_hi ? in[u->has_lo ? 2 : 1] : NULL;
      for (int64_t i = 0; i < n; i++)
        {
          int64_t v = x[i];
          if (lo != NULL && v < lo[i])
            v = lo[i];
          if (hi != NULL && v > hi[i])
            v = hi[i];
          o[i] = v;
        }
    }
}

/* ---- Fast float32 path ---- */

typedef struct
{
  const ActUser *u;
  const float *x;
  float *o;
} FastJob;

static void
fast_range (void *context, int64_t begin, int64_t end)
{
  FastJob *job = context;
  const ActUser *u = job->u;
  int64_t n = end - begin;
  switch (u->op)
    {
      case OP_CLAMP:
        _executorch_vec_clamp_f32 (n, job->x + begin, u->has_lo ? u->lo.f : -INFINITY, u->has_hi ? u->hi.f : INFINITY,
                                   job->o + begin);
        break;
      case OP_GELU:
      case OP_GELU_TANH: _executorch_vec_gelu_f32 (n, job->x + begin, u->op == OP_GELU_TANH, job->o + begin); break;
      default: break;
    }
}

/* Maps @u over @n_in inputs into @out (already resized). */
static EtError
act_run (EtKernelContext *ctx, const ActUser *u, EtTensor *out, uint32_t n_in, const EtTensor *const *in)
{
  KernelComputeKind kind = _executorch_compute_kind (u->type);

  if (out->numel == 0)
    return ET_OK;
  /* The vector clamp matches the loop: max with lo, then min with hi. */
  if ((u->op == OP_CLAMP || u->op == OP_GELU || u->op == OP_GELU_TANH) && n_in == 1 && u->type == ET_SCALAR_FLOAT &&
      in[0]->scalar_type == ET_SCALAR_FLOAT && out->scalar_type == ET_SCALAR_FLOAT &&
      _executorch_same_sizes (in[0], out) && _executorch_same_dim_order (in[0], out))
    {
      FastJob job = { u, in[0]->data, out->data };
      _executorch_parallel_for (out->numel, KERNEL_GRAIN / 4, fast_range, &job);
      return ET_OK;
    }
  KernelMapFn fn = kind == KERNEL_COMPUTE_I64 ? act_i64 : kind == KERNEL_COMPUTE_F32 ? act_f32 : act_f64;
  return _executorch_map (ctx, out, kind, n_in, in, kind, fn, u);
}

static EtError
same_dtype (EtKernelContext *ctx, const char *op, const EtTensor *in, const EtTensor *out, bool floating_only)
{
  KERNEL_TRY (_executorch_check_supported (ctx, in, "self"));
  if (floating_only && !_executorch_type_is_floating (in->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self must be floating, not %s", op,
                        _executorch_type_name (in->scalar_type));
  if (in->scalar_type == ET_SCALAR_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self dtype Bool is not supported", op);
  return _executorch_check_same_dtype (ctx, op, in, out, "out");
}

/* hardtanh.out (self, min_val, max_val, out, ret) */
static EtError
hardtanh_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *in, *out;
  KernelScalar lo, hi;
  ActUser u = { .op = OP_CLAMP, .has_lo = true, .has_hi = true };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 1, "min_val", &lo));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 2, "max_val", &hi));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (same_dtype (ctx, "hardtanh", in, out, false));
  u.type = in->scalar_type;
  KERNEL_TRY (_executorch_scalar_to_compute (ctx, &lo, u.type, "hardtanh: min_val", &u.lo));
  KERNEL_TRY (_executorch_scalar_to_compute (ctx, &hi, u.type, "hardtanh: max_val", &u.hi));
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, in->sizes));
  const EtTensor *inputs[1] = { in };
  return act_run (ctx, &u, out, 1, inputs);
}

/* clamp.out (self, min?, max?, out, ret) */
static EtError
clamp_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *in, *out;
  KernelScalar lo, hi;
  ActUser u = { .op = OP_CLAMP };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_opt_scalar (ctx, args, 1, "min", &u.has_lo, &lo));
  KERNEL_TRY (_executorch_arg_opt_scalar (ctx, args, 2, "max", &u.has_hi, &hi));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, in, "self"));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  if (!u.has_lo && !u.has_hi)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "clamp: at least one of min and max is needed");
  int common = in->scalar_type;
  if (u.has_lo)
    common = _executorch_promote_with_scalar (common, &lo);
  if (u.has_hi)
    common = _executorch_promote_with_scalar (common, &hi);
  if (out->scalar_type != common)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "clamp: out dtype %s must be %s (self promoted with the bounds)",
                        _executorch_type_name (out->scalar_type), _executorch_type_name (common));
  if (common == ET_SCALAR_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "clamp: Bool is not supported");
  u.type = common;
  if (u.has_lo)
    KERNEL_TRY (_executorch_scalar_to_compute (ctx, &lo, common, "clamp: min", &u.lo));
  if (u.has_hi)
    KERNEL_TRY (_executorch_scalar_to_compute (ctx, &hi, common, "clamp: max", &u.hi));
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, in->sizes));
  const EtTensor *inputs[1] = { in };
  return act_run (ctx, &u, out, 1, inputs);
}

/* clamp.Tensor_out (self, min?, max?, out, ret) */
static EtError
clamp_tensor_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *in, *lo, *hi, *out;
  ActUser u = { .op = OP_CLAMP_TENSOR };
  const EtTensor *inputs[3];
  uint32_t n_in = 0, ndim;
  int64_t sizes[ET_MAX_DIMS];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 1, "min", &lo));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 2, "max", &hi));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, in, "self"));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  if (lo == NULL && hi == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "clamp: at least one of min and max is needed");
  int common = in->scalar_type;
  inputs[n_in++] = in;
  if (lo != NULL)
    {
      KERNEL_TRY (_executorch_check_supported (ctx, lo, "min"));
      common = common < 0 ? -1 : _executorch_promote_types (common, lo->scalar_type);
      inputs[n_in++] = lo;
      u.has_lo = true;
    }
  if (hi != NULL)
    {
      KERNEL_TRY (_executorch_check_supported (ctx, hi, "max"));
      common = common < 0 ? -1 : _executorch_promote_types (common, hi->scalar_type);
      inputs[n_in++] = hi;
      u.has_hi = true;
    }
  if (common < 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "clamp: the dtypes do not promote");
  if (common == ET_SCALAR_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "clamp: Bool is not supported");
  if (!_executorch_can_cast (common, out->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "clamp: cannot cast %s to out dtype %s",
                        _executorch_type_name (common), _executorch_type_name (out->scalar_type));
  u.type = common;
  KERNEL_TRY (_executorch_broadcast_shape_n (ctx, n_in, inputs, &ndim, sizes));
  KERNEL_TRY (_executorch_resize (ctx, out, ndim, sizes));
  return act_run (ctx, &u, out, n_in, inputs);
}

/* gelu.out (self, approximate, out, ret) */
static EtError
gelu_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *in, *out;
  const char *s;
  size_t len;
  ActUser u = { .op = OP_GELU };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_string (ctx, args, 1, "approximate", NULL, &s, &len));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (same_dtype (ctx, "gelu", in, out, true));
  if (_executorch_string_equals (s, len, "tanh"))
    u.op = OP_GELU_TANH;
  else if (!_executorch_string_equals (s, len, "none"))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "gelu: approximate must be \"none\" or \"tanh\", not \"%.*s\"",
                        (int) (len > 32 ? 32 : len), s);
  u.type = in->scalar_type;
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, in->sizes));
  const EtTensor *inputs[1] = { in };
  return act_run (ctx, &u, out, 1, inputs);
}

/* elu.out (self, alpha, scale, input_scale, out, ret) */
static EtError
elu_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *in, *out;
  KernelScalar a, s, is;
  ActUser u = { .op = OP_ELU };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 1, "alpha", &a));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 2, "scale", &s));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 3, "input_scale", &is));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (same_dtype (ctx, "elu", in, out, true));
  u.type = in->scalar_type;
  u.alpha = a.d;
  u.scale = s.d;
  u.input_scale = is.d;
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, in->sizes));
  const EtTensor *inputs[1] = { in };
  return act_run (ctx, &u, out, 1, inputs);
}

/* leaky_relu.out (self, negative_slope, out, ret) */
static EtError
leaky_relu_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *in, *out;
  KernelScalar slope;
  ActUser u = { .op = OP_LEAKY_RELU };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 1, "negative_slope", &slope));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (same_dtype (ctx, "leaky_relu", in, out, true));
  u.type = in->scalar_type;
  u.alpha = slope.d;
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, in->sizes));
  const EtTensor *inputs[1] = { in };
  return act_run (ctx, &u, out, 1, inputs);
}

/* glu.out (self, dim, out, ret): first half * sigmoid(second half). */
static EtError
glu_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *in, *out, a, b;
  int64_t dim;
  uint32_t d;
  int64_t sizes[ET_MAX_DIMS];
  ActUser u = { .op = OP_GLU };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, in, "self"));
  if (!_executorch_type_is_floating (in->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "glu: self must be floating, not %s",
                        _executorch_type_name (in->scalar_type));
  if (out->scalar_type != in->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "glu: out dtype %s differs from self dtype %s",
                        _executorch_type_name (out->scalar_type), _executorch_type_name (in->scalar_type));
  if (in->ndim == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "glu: self must have at least one dim");
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, in->ndim, false, &d));
  if (in->sizes[d] % 2 != 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "glu: size %" PRId64 " of dim %u must be even", in->sizes[d],
                        d);
  memcpy (sizes, in->sizes, sizeof sizes);
  sizes[d] /= 2;
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, sizes));
  if (out->numel == 0)
    return ET_OK;
  /* Two views of self's halves (same strides, b offset by half). */
  a = *in;
  memcpy (a.sizes, sizes, sizeof sizes);
  a.numel = out->numel;
  b = a;
  b.data = (char *) in->data + (size_t) (sizes[d] * in->strides[d]) * _executorch_type_size (in->scalar_type);
  u.type = in->scalar_type;
  const EtTensor *inputs[2] = { &a, &b };
  return act_run (ctx, &u, out, 2, inputs);
}

const EtKernel _executorch_activation_kernels[] = {
  { "aten::hardtanh.out", hardtanh_out, NULL },
  { "aten::clamp.out", clamp_out, NULL },
  { "aten::clamp.Tensor_out", clamp_tensor_out, NULL },
  { "aten::gelu.out", gelu_out, NULL },
  { "aten::elu.out", elu_out, NULL },
  { "aten::leaky_relu.out", leaky_relu_out, NULL },
  { "aten::glu.out", glu_out, NULL },
};

const size_t _executorch_activation_n_kernels = KERNEL_N_ELEMENTS (_executorch_activation_kernels);
