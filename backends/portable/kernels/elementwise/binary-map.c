/* binary-map.c: the broadcasting map behind the elementwise ops of
 * binary-math.c, logical.c, bitwise.c and where.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * It serves rsub, pow (three forms), atan2, maximum, minimum, fmod, remainder,
 * floor_divide, div with a rounding mode, logical and bitwise ops, shifts,
 * where and masked_fill.  Inputs broadcast (numpy rules), are promoted to
 * a common dtype (PyTorch's promotion, dtype.c) and computed in its kind;
 * results are converted to out's dtype, which must be castable from the
 * common one (rsub.Scalar_out: equal to it).
 *
 * Semantics follow eager PyTorch:
 *   - remainder takes the divisor's sign (Python %), fmod the dividend's;
 *   - floor_divide and div(rounding_mode="floor") floor the quotient, for
 *     floats with c10's fmod-based correction;
 *   - an integer division or modulo by zero is an error (eager raises);
 *   - integer pow with a negative Scalar exponent is an error; with a
 *     negative tensor exponent it gives 1, +-1 or 0 like eager;
 *   - maximum/minimum propagate NaN;
 *   - pow.Tensor_Scalar with a floating result computes the exponents 2, 3,
 *     0.5, -0.5, -1 and -2 as eager does (products, sqrt, reciprocals);
 *   - shifts by a negative amount or by at least the bit width give 0
 *     (left) or the sign fill (right).
 */
#include "binary-map.h"

#include <math.h>
#include <string.h>

static const char *const op_names[] = {
  [OP_RSUB] = "rsub",
  [OP_POW] = "pow",
  [OP_ATAN2] = "atan2",
  [OP_MAXIMUM] = "maximum",
  [OP_MINIMUM] = "minimum",
  [OP_FMOD] = "fmod",
  [OP_REMAINDER] = "remainder",
  [OP_FLOOR_DIVIDE] = "floor_divide",
  [OP_DIV_TRUE] = "div",
  [OP_DIV_TRUNC] = "div",
  [OP_DIV_FLOOR] = "div",
  [OP_LOGICAL_AND] = "logical_and",
  [OP_LOGICAL_OR] = "logical_or",
  [OP_LOGICAL_XOR] = "logical_xor",
  [OP_BITWISE_AND] = "bitwise_and",
  [OP_BITWISE_OR] = "bitwise_or",
  [OP_BITWISE_XOR] = "bitwise_xor",
  [OP_SHIFT_LEFT] = "bitwise_left_shift",
  [OP_SHIFT_RIGHT] = "bitwise_right_shift",
  [OP_WHERE] = "where",
  [OP_MASKED_FILL] = "masked_fill",
};

typedef struct
{
  BinaryMapOp op;
  int type;              /* common dtype */
  KernelKindValue alpha; /* rsub */
  bool scalar_exponent;  /* pow.Tensor_Scalar: eager's special exponents */
  double exponent;
  bool *div_by_zero; /* set by integer division by zero */
} MapUser;

/* ---- Float rows ---- */

/* c10's div_floor for floating types. */
#define DIV_FLOOR_FN(NAME, T, F)          \
  static inline T NAME (T a, T b)         \
  {                                       \
    if (b == 0)                           \
      return a / b;                       \
    T mod = F (fmod) (a, b);              \
    T div = (a - mod) / b;                \
    if (mod != 0 && (b < 0) != (mod < 0)) \
      div -= 1;                           \
    T fl;                                 \
    if (div != 0)                         \
      {                                   \
        fl = F (floor) (div);             \
        if (div - fl > (T) 0.5)           \
          fl += 1;                        \
      }                                   \
    else                                  \
      {                                   \
        fl = F (copysign) (0, a / b);     \
      }                                   \
    return fl;                            \
  }

#define FNAME_F(name) name##f
#define FNAME_D(name) name

DIV_FLOOR_FN (div_floor_f32, float, FNAME_F)
DIV_FLOOR_FN (div_floor_f64, double, FNAME_D)

#define FLOAT_MAP(NAME, T, F, DIVFLOOR, M)                                                \
  static void NAME (const void *user, int64_t n, void *out, const void *const *in)        \
  {                                                                                       \
    const MapUser *u = user;                                                              \
    const T *restrict a = in[0], *restrict b = in[1];                                     \
    T *restrict o = out;                                                                  \
    switch (u->op)                                                                        \
      {                                                                                   \
        case OP_RSUB:                                                                     \
          for (int64_t i = 0; i < n; i++)                                                 \
            o[i] = b[i] - u->alpha.M * a[i];                                              \
          break;                                                                          \
        case OP_POW:                                                                      \
          if (u->scalar_exponent && u->exponent == 2)                                     \
            for (int64_t i = 0; i < n; i++)                                               \
              o[i] = a[i] * a[i];                                                         \
          else if (u->scalar_exponent && u->exponent == 3)                                \
            for (int64_t i = 0; i < n; i++)                                               \
              o[i] = a[i] * a[i] * a[i];                                                  \
          else if (u->scalar_exponent && u->exponent == 0.5)                              \
            for (int64_t i = 0; i < n; i++)                                               \
              o[i] = F (sqrt) (a[i]);                                                     \
          else if (u->scalar_exponent && u->exponent == -0.5)                             \
            for (int64_t i = 0; i < n; i++)                                               \
              o[i] = 1 / F (sqrt) (a[i]);                                                 \
          else if (u->scalar_exponent && u->exponent == -1)                               \
            for (int64_t i = 0; i < n; i++)                                               \
              o[i] = 1 / a[i];                                                            \
          else if (u->scalar_exponent && u->exponent == -2)                               \
            for (int64_t i = 0; i < n; i++)                                               \
              o[i] = 1 / (a[i] * a[i]);                                                   \
          else                                                                            \
            for (int64_t i = 0; i < n; i++)                                               \
              o[i] = F (pow) (a[i], b[i]);                                                \
          break;                                                                          \
        case OP_ATAN2:                                                                    \
          for (int64_t i = 0; i < n; i++)                                                 \
            o[i] = F (atan2) (a[i], b[i]);                                                \
          break;                                                                          \
        case OP_MAXIMUM:                                                                  \
          for (int64_t i = 0; i < n; i++)                                                 \
            o[i] = isnan (a[i]) ? a[i] : isnan (b[i]) ? b[i] : a[i] > b[i] ? a[i] : b[i]; \
          break;                                                                          \
        case OP_MINIMUM:                                                                  \
          for (int64_t i = 0; i < n; i++)                                                 \
            o[i] = isnan (a[i]) ? a[i] : isnan (b[i]) ? b[i] : a[i] < b[i] ? a[i] : b[i]; \
          break;                                                                          \
        case OP_FMOD:                                                                     \
          for (int64_t i = 0; i < n; i++)                                                 \
            o[i] = F (fmod) (a[i], b[i]);                                                 \
          break;                                                                          \
        case OP_REMAINDER:                                                                \
          for (int64_t i = 0; i < n; i++)                                                 \
            {                                                                             \
              T r = F (fmod) (a[i], b[i]);                                                \
              if (r != 0 && (r < 0) != (b[i] < 0))                                        \
                r += b[i];                                                                \
              o[i] = r;                                                                   \
            }                                                                             \
          break;                                                                          \
        case OP_FLOOR_DIVIDE:                                                             \
        case OP_DIV_FLOOR:                                                                \
          for (int64_t i = 0; i < n; i++)                                                 \
            o[i] = DIVFLOOR (a[i], b[i]);                                                 \
          break;                                                                          \
        case OP_DIV_TRUE:                                                                 \
          for (int64_t i = 0; i < n; i++)                                                 \
            o[i] = a[i] / b[i];                                                           \
          break;                                                                          \
        case OP_DIV_TRUNC:                                                                \
          for (int64_t i = 0; i < n; i++)                                                 \
            o[i] = F (trunc) (a[i] / b[i]);                                               \
          break;                                                                          \
        case OP_WHERE:                                                                    \
          {                                                                               \
            const T *restrict c = in[2];                                                  \
            for (int64_t i = 0; i < n; i++)                                               \
              o[i] = a[i] != 0 ? b[i] : c[i];                                             \
            break;                                                                        \
          }                                                                               \
        case OP_MASKED_FILL:                                                              \
          {                                                                               \
            const T *restrict v = in[2];                                                  \
            for (int64_t i = 0; i < n; i++)                                               \
              o[i] = b[i] != 0 ? v[i] : a[i];                                             \
            break;                                                                        \
          }                                                                               \
        default: break;                                                                   \
      }                                                                                   \
  }

FLOAT_MAP (map_f32_impl, float, FNAME_F, div_floor_f32, f)
FLOAT_MAP (map_f64_impl, double, FNAME_D, div_floor_f64, d)

/* ---- Integer rows ---- */

static inline int64_t
ipow (int64_t base, int64_t e)
{
  if (e < 0)
    return base == 1 ? 1 : base == -1 ? ((e & 1) ? -1 : 1) : 0;
  uint64_t r = 1, b = (uint64_t) base;
  while (e > 0)
    {
      if (e & 1)
        r *= b;
      b *= b;
      e >>= 1;
    }
  return (int64_t) r;
}

static int
type_bits (int type)
{
  return (int) _executorch_type_size (type) * 8;
}

static void
map_i64 (const void *user, int64_t n, void *out, const void *const *in)
{
  const MapUser *u = user;
  const int64_t *restrict a = in[0], *restrict b = in[1];
  int64_t *restrict o = out;
  int bits = type_bits (u->type);
  bool is_signed = u->type != ET_SCALAR_BYTE && u->type != ET_SCALAR_BOOL;

  switch (u->op)
    {
      case OP_RSUB:
        for (int64_t i = 0; i < n; i++)
          o[i] = (int64_t) ((uint64_t) b[i] - (uint64_t) u->alpha.i * (uint64_t) a[i]);
        break;
      case OP_POW:
        for (int64_t i = 0; i < n; i++)
          o[i] = ipow (a[i], b[i]);
        break;
      case OP_MAXIMUM:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] > b[i] ? a[i] : b[i];
        break;
      case OP_MINIMUM:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] < b[i] ? a[i] : b[i];
        break;
      case OP_FMOD:
      case OP_REMAINDER:
      case OP_FLOOR_DIVIDE:
      case OP_DIV_FLOOR:
      case OP_DIV_TRUNC:
        for (int64_t i = 0; i < n; i++)
          {
            int64_t x = a[i], y = b[i], q, r;
            if (y == 0)
              {
                *u->div_by_zero = true;
                o[i] = 0;
                continue;
              }
            if (y == -1)
              { /* INT64_MIN / -1 overflows in C */
                q = (int64_t) (0 - (uint64_t) x);
                r = 0;
              }
            else
              {
                q = x / y;
                r = x % y;
              }
            switch (u->op)
              {
                case OP_FMOD: o[i] = r; break;
                case OP_REMAINDER: o[i] = r != 0 && (r < 0) != (y < 0) ? r + y : r; break;
                case OP_DIV_TRUNC: o[i] = q; break;
                default: o[i] = r != 0 && (r < 0) != (y < 0) ? q - 1 : q; break;
              }
          }
        break;
      case OP_BITWISE_AND:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] & b[i];
        break;
      case OP_BITWISE_OR:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] | b[i];
        break;
      case OP_BITWISE_XOR:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] ^ b[i];
        break;
      case OP_SHIFT_LEFT:
        for (int64_t i = 0; i < n; i++)
          o[i] = b[i] < 0 || b[i] >= bits ? 0 : (int64_t) ((uint64_t) a[i] << b[i]);
        break;
      case OP_SHIFT_RIGHT:
        for (int64_t i = 0; i < n; i++)
          {
            if (b[i] < 0 || b[i] >= bits)
              o[i] = is_signed && a[i] < 0 ? -1 : 0;
            else
              o[i] = a[i] >> b[i];
          }
        break;
      case OP_WHERE:
        {
          const int64_t *restrict c = in[2];
          for (int64_t i = 0; i < n; i++)
            o[i] = a[i] != 0 ? b[i] : c[i];
          break;
        }
      case OP_MASKED_FILL:
        {
          const int64_t *restrict v = in[2];
          for (int64_t i = 0; i < n; i++)
            o[i] = b[i] != 0 ? v[i] : a[i];
          break;
        }
      default: break;
    }
  _executorch_wrap_i64 (u->type, n, o);
}

/* Logical ops read both inputs as double (any nonzero is true). */
static void
map_logical (const void *user, int64_t n, void *out, const void *const *in)
{
  const MapUser *u = user;
  const double *restrict a = in[0], *restrict b = in[1];
  int64_t *restrict o = out;
  switch (u->op)
    {
      case OP_LOGICAL_AND:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] != 0 && b[i] != 0;
        break;
      case OP_LOGICAL_OR:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] != 0 || b[i] != 0;
        break;
      default:
        for (int64_t i = 0; i < n; i++)
          o[i] = (a[i] != 0) != (b[i] != 0);
        break;
    }
}

/* ---- Running ---- */

/* A 0-d tensor holding @v in @kind's dtype. */
void
_executorch_binary_map_scalar_tensor (EtTensor *t, KernelKindValue *v, KernelComputeKind kind)
{
  memset (t, 0, sizeof *t);
  t->data = v;
  t->ndim = 0;
  t->scalar_type = (int8_t) _executorch_compute_kind_type (kind);
  t->device_type = ET_DEVICE_CPU;
  t->numel = 1;
  t->nbytes = _executorch_type_size (t->scalar_type);
  t->capacity = t->nbytes;
}

/* Resizes out to the broadcast shape of @in (or to @shape_of's shape when
 * given) and maps @op in the common dtype @common. */
static EtError
run_full (EtKernelContext *ctx, BinaryMapOp op, int common, EtTensor *out, uint32_t n_in, const EtTensor *const *in,
          const EtTensor *shape_of, const KernelKindValue *alpha, const double *exponent)
{
  uint32_t ndim;
  int64_t sizes[ET_MAX_DIMS];
  bool div_by_zero = false;
  MapUser u = { .op = op, .type = common, .div_by_zero = &div_by_zero };

  if (exponent != NULL)
    {
      u.scalar_exponent = true;
      u.exponent = *exponent;
    }
  KernelComputeKind kind = _executorch_compute_kind (common);
  KernelComputeKind in_kind = kind, out_kind = kind;
  KernelMapFn fn;

  if (alpha != NULL)
    u.alpha = *alpha;
  if (shape_of != NULL)
    {
      ndim = shape_of->ndim;
      memcpy (sizes, shape_of->sizes, sizeof sizes);
    }
  else
    {
      KERNEL_TRY (_executorch_broadcast_shape_n (ctx, n_in, in, &ndim, sizes));
    }
  KERNEL_TRY (_executorch_resize (ctx, out, ndim, sizes));
  if (out->numel == 0)
    return ET_OK;

  if (op == OP_LOGICAL_AND || op == OP_LOGICAL_OR || op == OP_LOGICAL_XOR)
    {
      in_kind = KERNEL_COMPUTE_F64;
      out_kind = KERNEL_COMPUTE_I64;
      fn = map_logical;
    }
  else
    {
      fn = kind == KERNEL_COMPUTE_I64 ? map_i64 : kind == KERNEL_COMPUTE_F32 ? map_f32_impl : map_f64_impl;
    }
  KERNEL_TRY (_executorch_map (ctx, out, out_kind, n_in, in, in_kind, fn, &u));
  if (div_by_zero)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: integer division by zero", op_names[op]);
  return ET_OK;
}

EtError
_executorch_binary_map_run (EtKernelContext *ctx, BinaryMapOp op, int common, EtTensor *out, uint32_t n_in,
                            const EtTensor *const *in, const EtTensor *shape_of, const KernelKindValue *alpha)
{
  return run_full (ctx, op, common, out, n_in, in, shape_of, alpha, NULL);
}

EtError
_executorch_binary_map_check_cast (EtKernelContext *ctx, BinaryMapOp op, int common, int a, int b, const EtTensor *out)
{
  if (common < 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot promote %s and %s", op_names[op],
                        _executorch_type_name (a), _executorch_type_name (b));
  if (!_executorch_can_cast (common, out->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot cast result %s to out dtype %s", op_names[op],
                        _executorch_type_name (common), _executorch_type_name (out->scalar_type));
  return ET_OK;
}

/* Per-op restrictions on the common dtype. */
EtError
_executorch_binary_map_check_common (EtKernelContext *ctx, BinaryMapOp op, int common)
{
  bool integral = _executorch_type_is_integral (common, false);
  switch (op)
    {
      case OP_BITWISE_AND:
      case OP_BITWISE_OR:
      case OP_BITWISE_XOR:
        if (!integral && common != ET_SCALAR_BOOL)
          return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: needs integer or Bool inputs, not %s", op_names[op],
                              _executorch_type_name (common));
        break;
      case OP_SHIFT_LEFT:
      case OP_SHIFT_RIGHT:
        if (!integral)
          return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: needs integer inputs, not %s", op_names[op],
                              _executorch_type_name (common));
        break;
      case OP_RSUB:
      case OP_POW:
      case OP_FMOD:
      case OP_REMAINDER:
      case OP_FLOOR_DIVIDE:
      case OP_DIV_TRUNC:
      case OP_DIV_FLOOR:
        if (common == ET_SCALAR_BOOL)
          return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: Bool is not supported", op_names[op]);
        break;
      default: break;
    }
  return ET_OK;
}

/* (self, other, [extra...,] out, ret) for tensor-tensor ops. */
EtError
_executorch_binary_map_tensor_tensor (EtKernelContext *ctx, EtValue **args, uint32_t n_args, BinaryMapOp op)
{
  EtTensor *a, *b, *out;
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &a));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "other", &b));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, a, "self"));
  KERNEL_TRY (_executorch_check_supported (ctx, b, "other"));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));

  int common = _executorch_promote_types (a->scalar_type, b->scalar_type);
  if (op == OP_LOGICAL_AND || op == OP_LOGICAL_OR || op == OP_LOGICAL_XOR)
    {
      const EtTensor *in[2] = { a, b };
      return _executorch_binary_map_run (ctx, op, ET_SCALAR_LONG, out, 2, in, NULL, NULL);
    }
  if (op == OP_ATAN2)
    {
      if (!_executorch_type_is_floating (out->scalar_type))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "atan2: out must be floating, not %s",
                            _executorch_type_name (out->scalar_type));
      if (common >= 0 && !_executorch_type_is_floating (common))
        common = out->scalar_type;
    }
  KERNEL_TRY (_executorch_binary_map_check_cast (ctx, op, common, a->scalar_type, b->scalar_type, out));
  KERNEL_TRY (_executorch_binary_map_check_common (ctx, op, common));
  const EtTensor *in[2] = { a, b };
  return _executorch_binary_map_run (ctx, op, common, out, 2, in, NULL, NULL);
}

/* The tensor op with a Scalar @s, as (tensor, scalar) or (scalar, tensor). */
EtError
_executorch_binary_map_tensor_scalar_run (EtKernelContext *ctx, BinaryMapOp op, EtTensor *t, const KernelScalar *s,
                                          bool scalar_first, int common, EtTensor *out, const KernelKindValue *alpha)
{
  KernelKindValue v;
  EtTensor st;
  KernelComputeKind kind = _executorch_compute_kind (common);
  KERNEL_TRY (_executorch_scalar_to_compute (ctx, s, common, scalar_first ? "self" : "other", &v));
  _executorch_binary_map_scalar_tensor (&st, &v, kind);
  const EtTensor *in[2] = { scalar_first ? &st : t, scalar_first ? t : &st };
  /* x ** s: eager computes 2, 3, 0.5, -0.5, -1 and -2 as products, sqrt
   * and reciprocals (pow(-inf, 0.5) is NaN there, not inf). */
  if (op == OP_POW && !scalar_first && kind != KERNEL_COMPUTE_I64)
    return run_full (ctx, op, common, out, 2, in, t, alpha, &s->d);
  return _executorch_binary_map_run (ctx, op, common, out, 2, in, t, alpha);
}

/* Checks the dtypes of @op between tensor @t (argument @t_name) and scalar
 * @s, the scalar on the left when @scalar_first, and runs it. */
EtError
_executorch_binary_map_tensor_scalar_checked (EtKernelContext *ctx, BinaryMapOp op, EtTensor *t, const char *t_name,
                                              const KernelScalar *s, bool scalar_first, EtTensor *out)
{
  KERNEL_TRY (_executorch_check_supported (ctx, t, t_name));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  int common = _executorch_promote_with_scalar (t->scalar_type, s);
  KERNEL_TRY (_executorch_binary_map_check_cast (ctx, op, common, t->scalar_type, common, out));
  KERNEL_TRY (_executorch_binary_map_check_common (ctx, op, common));
  if (op == OP_POW && !scalar_first && _executorch_type_is_integral (common, true) && s->i < 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "pow: integers to negative integer powers are not allowed");
  return _executorch_binary_map_tensor_scalar_run (ctx, op, t, s, scalar_first, common, out, NULL);
}

/* (self, Scalar other, out, ret) */
EtError
_executorch_binary_map_tensor_scalar (EtKernelContext *ctx, EtValue **args, uint32_t n_args, BinaryMapOp op)
{
  EtTensor *a, *out;
  KernelScalar s;
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &a));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 1, "other", &s));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  return _executorch_binary_map_tensor_scalar_checked (ctx, op, a, "self", &s, false, out);
}
