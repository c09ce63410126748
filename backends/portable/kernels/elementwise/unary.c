/* unary.c: elementwise unary kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Three families, by their dtype rules:
 *   - float ops (sigmoid, tanh, exp, log, sqrt, rsqrt, sin, ..., erf,
 *     reciprocal, logit): any real or Bool input, a floating out; integer
 *     inputs are computed in the out type, Half/BFloat16 in float;
 *   - same-dtype ops (relu, neg, abs, ceil, floor, round, trunc, sign,
 *     bitwise_not, _conj_physical): out dtype == self dtype; relu, neg and
 *     abs reject Bool, the rounding ops are the identity on integers,
 *     bitwise_not takes integers and Bool only;
 *   - predicates (isnan, isinf: Bool out; logical_not: any real/Bool out).
 * NaN propagates (relu(NaN) = NaN) except through sign, which gives 0 for
 * NaN as eager does.  round is
 * half-to-even.  Float32 relu, sigmoid, tanh and exp with matching layouts
 * run through the vectorised helpers, split across the thread pool.
 */
#include "nn-private.h"
#include "vector.h"

#include <math.h>
#include <string.h>

typedef enum
{
  /* float family */
  OP_SIGMOID,
  OP_TANH,
  OP_EXP,
  OP_EXPM1,
  OP_LOG,
  OP_LOG10,
  OP_LOG1P,
  OP_LOG2,
  OP_SQRT,
  OP_RSQRT,
  OP_SIN,
  OP_COS,
  OP_TAN,
  OP_ASIN,
  OP_ACOS,
  OP_ATAN,
  OP_SINH,
  OP_COSH,
  OP_ASINH,
  OP_ACOSH,
  OP_ATANH,
  OP_ERF,
  OP_RECIPROCAL,
  OP_LOGIT,
  /* same-dtype family */
  OP_RELU,
  OP_NEG,
  OP_ABS,
  OP_CEIL,
  OP_FLOOR,
  OP_ROUND,
  OP_TRUNC,
  OP_SIGN,
  OP_BITWISE_NOT,
  /* predicates */
  OP_ISNAN,
  OP_ISINF,
  OP_LOGICAL_NOT,
} UnaryOp;

typedef struct
{
  UnaryOp op;
  int type;     /* compute dtype (integer results wrap to it) */
  bool has_eps; /* logit */
  double eps;
} UnaryUser;

#define FLOAT_CASES(T, F, ONE)                        \
  case OP_SIGMOID:                                    \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = ONE / (ONE + F (exp) (-x[i]));           \
    break;                                            \
  case OP_TANH:                                       \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (tanh) (x[i]);                         \
    break;                                            \
  case OP_EXP:                                        \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (exp) (x[i]);                          \
    break;                                            \
  case OP_EXPM1:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (expm1) (x[i]);                        \
    break;                                            \
  case OP_LOG:                                        \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (log) (x[i]);                          \
    break;                                            \
  case OP_LOG10:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (log10) (x[i]);                        \
    break;                                            \
  case OP_LOG1P:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (log1p) (x[i]);                        \
    break;                                            \
  case OP_LOG2:                                       \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (log2) (x[i]);                         \
    break;                                            \
  case OP_SQRT:                                       \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (sqrt) (x[i]);                         \
    break;                                            \
  case OP_RSQRT:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = ONE / F (sqrt) (x[i]);                   \
    break;                                            \
  case OP_SIN:                                        \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (sin) (x[i]);                          \
    break;                                            \
  case OP_COS:                                        \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (cos) (x[i]);                          \
    break;                                            \
  case OP_TAN:                                        \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (tan) (x[i]);                          \
    break;                                            \
  case OP_ASIN:                                       \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (asin) (x[i]);                         \
    break;                                            \
  case OP_ACOS:                                       \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (acos) (x[i]);                         \
    break;                                            \
  case OP_ATAN:                                       \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (atan) (x[i]);                         \
    break;                                            \
  case OP_SINH:                                       \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (sinh) (x[i]);                         \
    break;                                            \
  case OP_COSH:                                       \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (cosh) (x[i]);                         \
    break;                                            \
  case OP_ASINH:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (asinh) (x[i]);                        \
    break;                                            \
  case OP_ACOSH:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (acosh) (x[i]);                        \
    break;                                            \
  case OP_ATANH:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (atanh) (x[i]);                        \
    break;                                            \
  case OP_ERF:                                        \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (erf) (x[i]);                          \
    break;                                            \
  case OP_RECIPROCAL:                                 \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = ONE / x[i];                              \
    break;                                            \
  case OP_LOGIT:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      {                                               \
        T v = x[i];                                   \
        if (u->has_eps)                               \
          {                                           \
            T lo = (T) u->eps, hi = ONE - (T) u->eps; \
            v = v < lo ? lo : v > hi ? hi : v;        \
          }                                           \
        o[i] = F (log) (v / (ONE - v));               \
      }                                               \
    break;                                            \
  case OP_RELU:                                       \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = x[i] < 0 ? 0 : x[i];                     \
    break;                                            \
  case OP_NEG:                                        \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = -x[i];                                   \
    break;                                            \
  case OP_ABS:                                        \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (fabs) (x[i]);                         \
    break;                                            \
  case OP_CEIL:                                       \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (ceil) (x[i]);                         \
    break;                                            \
  case OP_FLOOR:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (floor) (x[i]);                        \
    break;                                            \
  case OP_ROUND:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (nearbyint) (x[i]);                    \
    break;                                            \
  case OP_TRUNC:                                      \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = F (trunc) (x[i]);                        \
    break;                                            \
  case OP_SIGN: /* sign(NaN) = 0, as eager */         \
    for (int64_t i = 0; i < n; i++)                   \
      o[i] = (T) ((x[i] > 0) - (x[i] < 0));           \
    break;

#define FNAME_F(name) name##f
#define FNAME_D(name) name

static void
map_f32 (const void *user, int64_t n, void *out, const void *const *in)
{
  const UnaryUser *u = user;
  const float *restrict x = in[0];
  float *restrict o = out;
  switch (u->op)
    {
      FLOAT_CASES (float, FNAME_F, 1.0f)
      default: break;
    }
}

static void
map_f64 (const void *user, int64_t n, void *out, const void *const *in)
{
  const UnaryUser *u = user;
  const double *restrict x = in[0];
  double *restrict o = out;
  switch (u->op)
    {
      FLOAT_CASES (double, FNAME_D, 1.0)
      default: break;
    }
}

/* Same-dtype ops on integers (and Bool). */
static void
map_i64 (const void *user, int64_t n, void *out, const void *const *in)
{
  const UnaryUser *u = user;
  const int64_t *restrict x = in[0];
  int64_t *restrict o = out;
  switch (u->op)
    {
      case OP_RELU:
        for (int64_t i = 0; i < n; i++)
          o[i] = x[i] < 0 ? 0 : x[i];
        break;
      case OP_NEG:
        for (int64_t i = 0; i < n; i++)
          o[i] = (int64_t) (0 - (uint64_t) x[i]);
        break;
      case OP_ABS:
        for (int64_t i = 0; i < n; i++)
          o[i] = x[i] < 0 ? (int64_t) (0 - (uint64_t) x[i]) : x[i];
        break;
      case OP_SIGN:
        for (int64_t i = 0; i < n; i++)
          o[i] = (x[i] > 0) - (x[i] < 0);
        break;
      case OP_BITWISE_NOT:
        if (u->type == ET_SCALAR_BOOL)
          for (int64_t i = 0; i < n; i++)
            o[i] = !x[i];
        else
          for (int64_t i = 0; i < n; i++)
            o[i] = ~x[i];
        break;
      default: /* ceil, floor, round, trunc: identity on integers */ memcpy (o, x, (size_t) n * sizeof *o); break;
    }
  _executorch_wrap_i64 (u->type, n, o);
}

/* Predicates: a 0/1 result from an input of any kind. */
#define PRED_FN(NAME, T, ISNAN, ISINF)                                             \
  static void NAME (const void *user, int64_t n, void *out, const void *const *in) \
  {                                                                                \
    const UnaryUser *u = user;                                                     \
    const T *restrict x = in[0];                                                   \
    int64_t *restrict o = out;                                                     \
    switch (u->op)                                                                 \
      {                                                                            \
        case OP_ISNAN:                                                             \
          for (int64_t i = 0; i < n; i++)                                          \
            o[i] = ISNAN (x[i]);                                                   \
          break;                                                                   \
        case OP_ISINF:                                                             \
          for (int64_t i = 0; i < n; i++)                                          \
            o[i] = ISINF (x[i]);                                                   \
          break;                                                                   \
        default:                                                                   \
          for (int64_t i = 0; i < n; i++)                                          \
            o[i] = x[i] == 0;                                                      \
          break;                                                                   \
      }                                                                            \
  }

#define NO_NAN(v) 0
#define FLT_ISNAN(v) (isnan (v) != 0)
#define FLT_ISINF(v) (isinf (v) != 0)

PRED_FN (pred_i64, int64_t, NO_NAN, NO_NAN)
PRED_FN (pred_f32, float, FLT_ISNAN, FLT_ISINF)
PRED_FN (pred_f64, double, FLT_ISNAN, FLT_ISINF)

/* ---- Fast float32 path ---- */

typedef struct
{
  UnaryOp op;
  const float *x;
  float *o;
} FastJob;

static void
fast_range (void *context, int64_t begin, int64_t end)
{
  FastJob *job = context;
  int64_t n = end - begin;
  const float *x = job->x + begin;
  float *o = job->o + begin;
  switch (job->op)
    {
      case OP_RELU: _executorch_vec_clamp_f32 (n, x, 0.0f, INFINITY, o); break;
      case OP_SIGMOID: _executorch_vec_sigmoid_f32 (n, x, o); break;
      case OP_TANH: _executorch_vec_tanh_f32 (n, x, o); break;
      case OP_EXP: _executorch_vec_exp_f32 (n, x, o); break;
      default: break;
    }
}

static bool
fast_op (UnaryOp op)
{
  return op == OP_RELU || op == OP_SIGMOID || op == OP_TANH || op == OP_EXP;
}

/* Resizes out to self's shape and maps @op over it. */
static EtError
unary_run (EtKernelContext *ctx, const UnaryUser *u, EtTensor *out, const EtTensor *in)
{
  KernelComputeKind kind = _executorch_compute_kind (u->type);
  KernelComputeKind in_kind = kind, out_kind = kind;
  KernelMapFn fn;
  const EtTensor *inputs[1] = { in };

  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, in->sizes));
  if (out->numel == 0)
    return ET_OK;

  if (fast_op (u->op) && in->scalar_type == ET_SCALAR_FLOAT && out->scalar_type == ET_SCALAR_FLOAT &&
      _executorch_same_dim_order (in, out))
    {
      FastJob job = { u->op, in->data, out->data };
      _executorch_parallel_for (out->numel, KERNEL_GRAIN / 4, fast_range, &job);
      return ET_OK;
    }

  if (u->op == OP_LOGICAL_NOT && in->scalar_type == ET_SCALAR_BOOL && out->scalar_type == ET_SCALAR_BOOL &&
      _executorch_same_dim_order (in, out))
    {
      /* byte by byte: a Bool byte other than 0 is true, as in the map */
      const uint8_t *x = in->data;
      uint8_t *o = out->data;
      int64_t n = out->numel; /* a local: the byte stores may alias out */
      for (int64_t i = 0; i < n; i++)
        o[i] = x[i] == 0;
      return ET_OK;
    }
  if (u->op >= OP_ISNAN)
    {
      in_kind = _executorch_compute_kind (in->scalar_type);
      out_kind = KERNEL_COMPUTE_I64;
      fn = in_kind == KERNEL_COMPUTE_I64 ? pred_i64 : in_kind == KERNEL_COMPUTE_F32 ? pred_f32 : pred_f64;
    }
  else
    {
      fn = kind == KERNEL_COMPUTE_I64 ? map_i64 : kind == KERNEL_COMPUTE_F32 ? map_f32 : map_f64;
    }
  return _executorch_map (ctx, out, out_kind, 1, inputs, in_kind, fn, u);
}

/* (self, out, ret) */
static EtError
get_args (EtKernelContext *ctx, EtValue **args, uint32_t n_args, uint32_t n_extra, EtTensor **in, EtTensor **out)
{
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3 + n_extra));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", in));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1 + n_extra, "out", out));
  KERNEL_TRY (_executorch_check_supported (ctx, *in, "self"));
  KERNEL_TRY (_executorch_check_supported (ctx, *out, "out"));
  return ET_OK;
}

static const char *const op_names[] = {
  [OP_SIGMOID] = "sigmoid",
  [OP_TANH] = "tanh",
  [OP_EXP] = "exp",
  [OP_EXPM1] = "expm1",
  [OP_LOG] = "log",
  [OP_LOG10] = "log10",
  [OP_LOG1P] = "log1p",
  [OP_LOG2] = "log2",
  [OP_SQRT] = "sqrt",
  [OP_RSQRT] = "rsqrt",
  [OP_SIN] = "sin",
  [OP_COS] = "cos",
  [OP_TAN] = "tan",
  [OP_ASIN] = "asin",
  [OP_ACOS] = "acos",
  [OP_ATAN] = "atan",
  [OP_SINH] = "sinh",
  [OP_COSH] = "cosh",
  [OP_ASINH] = "asinh",
  [OP_ACOSH] = "acosh",
  [OP_ATANH] = "atanh",
  [OP_ERF] = "erf",
  [OP_RECIPROCAL] = "reciprocal",
  [OP_LOGIT] = "logit",
  [OP_RELU] = "relu",
  [OP_NEG] = "neg",
  [OP_ABS] = "abs",
  [OP_CEIL] = "ceil",
  [OP_FLOOR] = "floor",
  [OP_ROUND] = "round",
  [OP_TRUNC] = "trunc",
  [OP_SIGN] = "sign",
  [OP_BITWISE_NOT] = "bitwise_not",
  [OP_ISNAN] = "isnan",
  [OP_ISINF] = "isinf",
  [OP_LOGICAL_NOT] = "logical_not",
};

static EtError
float_unary_tensors (EtKernelContext *ctx, UnaryUser *u, EtTensor *in, EtTensor *out)
{
  if (!_executorch_type_is_floating (out->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out must be floating, not %s", op_names[u->op],
                        _executorch_type_name (out->scalar_type));
  /* Integer inputs are computed in the out type. */
  u->type = _executorch_type_is_floating (in->scalar_type)
                ? _executorch_promote_types (in->scalar_type, out->scalar_type)
                : out->scalar_type;
  return unary_run (ctx, u, out, in);
}

static EtError
float_unary (EtKernelContext *ctx, EtValue **args, uint32_t n_args, UnaryOp op)
{
  EtTensor *in, *out;
  UnaryUser u = { .op = op };
  KERNEL_TRY (get_args (ctx, args, n_args, 0, &in, &out));
  return float_unary_tensors (ctx, &u, in, out);
}

static EtError
same_unary (EtKernelContext *ctx, EtValue **args, uint32_t n_args, UnaryOp op)
{
  EtTensor *in, *out;
  UnaryUser u = { .op = op };
  KERNEL_TRY (get_args (ctx, args, n_args, 0, &in, &out));
  int t = in->scalar_type;
  if (t == ET_SCALAR_BOOL && (op == OP_RELU || op == OP_NEG || op == OP_ABS || op == OP_CEIL || op == OP_FLOOR ||
                              op == OP_ROUND || op == OP_TRUNC))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self dtype Bool is not supported", op_names[op]);
  if (op == OP_BITWISE_NOT && !_executorch_type_is_integral (t, true))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "bitwise_not: self must be an integer or Bool, not %s",
                        _executorch_type_name (t));
  if (out->scalar_type != t)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out dtype %s differs from self dtype %s", op_names[op],
                        _executorch_type_name (out->scalar_type), _executorch_type_name (t));
  u.type = t;
  return unary_run (ctx, &u, out, in);
}

static EtError
predicate (EtKernelContext *ctx, EtValue **args, uint32_t n_args, UnaryOp op)
{
  EtTensor *in, *out;
  UnaryUser u = { .op = op, .type = ET_SCALAR_LONG };
  KERNEL_TRY (get_args (ctx, args, n_args, 0, &in, &out));
  if (op != OP_LOGICAL_NOT && out->scalar_type != ET_SCALAR_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out must be Bool, not %s", op_names[op],
                        _executorch_type_name (out->scalar_type));
  return unary_run (ctx, &u, out, in);
}

/* logit (self, eps?, out, ret) */
static EtError
logit_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *in, *out;
  UnaryUser u = { .op = OP_LOGIT };
  KERNEL_TRY (get_args (ctx, args, n_args, 1, &in, &out));
  KERNEL_TRY (_executorch_arg_opt_double (ctx, args, 1, "eps", &u.has_eps, &u.eps));
  return float_unary_tensors (ctx, &u, in, out);
}

/* _conj_physical (self, out, ret): a copy for real tensors; complex ones
 * get their imaginary parts negated. */
static EtError
conj_physical_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *in, *out;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "out", &out));
  if (out->scalar_type != in->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "_conj_physical: out dtype %s differs from self dtype %s",
                        _executorch_type_name (out->scalar_type), _executorch_type_name (in->scalar_type));
  bool cf = in->scalar_type == ET_SCALAR_COMPLEX_FLOAT, cd = in->scalar_type == ET_SCALAR_COMPLEX_DOUBLE;
  if (!cf && !cd)
    KERNEL_TRY (_executorch_check_supported (ctx, in, "self"));
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, in->sizes));
  if (out->numel == 0)
    return ET_OK;
  if ((cf || cd) && !_executorch_same_dim_order (in, out))
    return KERNEL_FAIL (ctx, ET_ERROR_NOT_SUPPORTED, "_conj_physical: complex self and out need the same dim order");
  KERNEL_TRY (_executorch_copy_strided (ctx, in->ndim, in->sizes, out->dim_order, out->data, out->scalar_type, 0,
                                        out->strides, in->data, in->scalar_type, 0, in->strides));
  if (cf)
    {
      float *o = out->data;
      for (int64_t i = 0; i < out->numel; i++)
        o[2 * i + 1] = -o[2 * i + 1];
    }
  else if (cd)
    {
      double *o = out->data;
      for (int64_t i = 0; i < out->numel; i++)
        o[2 * i + 1] = -o[2 * i + 1];
    }
  return ET_OK;
}

#define FLOAT_KERNEL(name, OP)                                                      \
  static EtError name##_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                                 \
    return float_unary (ctx, args, n_args, OP);                                     \
  }
#define SAME_KERNEL(name, OP)                                                       \
  static EtError name##_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                                 \
    return same_unary (ctx, args, n_args, OP);                                      \
  }
#define PRED_KERNEL(name, OP)                                                       \
  static EtError name##_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                                 \
    return predicate (ctx, args, n_args, OP);                                       \
  }

FLOAT_KERNEL (sigmoid, OP_SIGMOID)
FLOAT_KERNEL (tanh, OP_TANH)
FLOAT_KERNEL (exp, OP_EXP)
FLOAT_KERNEL (expm1, OP_EXPM1)
FLOAT_KERNEL (log, OP_LOG)
FLOAT_KERNEL (log10, OP_LOG10)
FLOAT_KERNEL (log1p, OP_LOG1P)
FLOAT_KERNEL (log2, OP_LOG2)
FLOAT_KERNEL (sqrt, OP_SQRT)
FLOAT_KERNEL (rsqrt, OP_RSQRT)
FLOAT_KERNEL (sin, OP_SIN)
FLOAT_KERNEL (cos, OP_COS)
FLOAT_KERNEL (tan, OP_TAN)
FLOAT_KERNEL (asin, OP_ASIN)
FLOAT_KERNEL (acos, OP_ACOS)
FLOAT_KERNEL (atan, OP_ATAN)
FLOAT_KERNEL (sinh, OP_SINH)
FLOAT_KERNEL (cosh, OP_COSH)
FLOAT_KERNEL (asinh, OP_ASINH)
FLOAT_KERNEL (acosh, OP_ACOSH)
FLOAT_KERNEL (atanh, OP_ATANH)
FLOAT_KERNEL (erf, OP_ERF)
FLOAT_KERNEL (reciprocal, OP_RECIPROCAL)
SAME_KERNEL (relu, OP_RELU)
SAME_KERNEL (neg, OP_NEG)
SAME_KERNEL (abs, OP_ABS)
SAME_KERNEL (ceil, OP_CEIL)
SAME_KERNEL (floor, OP_FLOOR)
SAME_KERNEL (round, OP_ROUND)
SAME_KERNEL (trunc, OP_TRUNC)
SAME_KERNEL (sign, OP_SIGN)
SAME_KERNEL (bitwise_not, OP_BITWISE_NOT)
PRED_KERNEL (isnan, OP_ISNAN)
PRED_KERNEL (isinf, OP_ISINF)
PRED_KERNEL (logical_not, OP_LOGICAL_NOT)

const EtKernel _executorch_unary_kernels[] = {
  { "aten::relu.out", relu_out, NULL },
  { "aten::sigmoid.out", sigmoid_out, NULL },
  { "aten::tanh.out", tanh_out, NULL },
  { "aten::exp.out", exp_out, NULL },
  { "aten::expm1.out", expm1_out, NULL },
  { "aten::log.out", log_out, NULL },
  { "aten::log10.out", log10_out, NULL },
  { "aten::log1p.out", log1p_out, NULL },
  { "aten::log2.out", log2_out, NULL },
  { "aten::sqrt.out", sqrt_out, NULL },
  { "aten::rsqrt.out", rsqrt_out, NULL },
  { "aten::sin.out", sin_out, NULL },
  { "aten::cos.out", cos_out, NULL },
  { "aten::tan.out", tan_out, NULL },
  { "aten::asin.out", asin_out, NULL },
  { "aten::acos.out", acos_out, NULL },
  { "aten::atan.out", atan_out, NULL },
  { "aten::sinh.out", sinh_out, NULL },
  { "aten::cosh.out", cosh_out, NULL },
  { "aten::asinh.out", asinh_out, NULL },
  { "aten::acosh.out", acosh_out, NULL },
  { "aten::atanh.out", atanh_out, NULL },
  { "aten::erf.out", erf_out, NULL },
  { "aten::reciprocal.out", reciprocal_out, NULL },
  { "aten::logit.out", logit_out, NULL },
  { "aten::neg.out", neg_out, NULL },
  { "aten::abs.out", abs_out, NULL },
  { "aten::ceil.out", ceil_out, NULL },
  { "aten::floor.out", floor_out, NULL },
  { "aten::round.out", round_out, NULL },
  { "aten::trunc.out", trunc_out, NULL },
  { "aten::sign.out", sign_out, NULL },
  { "aten::bitwise_not.out", bitwise_not_out, NULL },
  { "aten::isnan.out", isnan_out, NULL },
  { "aten::isinf.out", isinf_out, NULL },
  { "aten::logical_not.out", logical_not_out, NULL },
  { "aten::_conj_physical.out", conj_physical_out, NULL },
};

const size_t _executorch_unary_n_kernels = KERNEL_N_ELEMENTS (_executorch_unary_kernels);
