/* prim.c: symbolic-int and other prim ops
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scalar prim ops take their inputs and then one result slot, which they
 * overwrite.  They follow Python: Bool acts as an Int, Int op Int stays Int
 * (wrapping on overflow, since we have no big integers), anything with a
 * Double is Double, truediv always gives Double, floordiv and mod floor
 * (the result of mod takes the divisor's sign), comparisons give Bool.
 * Division by zero is an error, as it raises in Python.
 */
#include "kernels-private.h"

#include <math.h>
#include <string.h>

typedef enum
{
  P_ADD,
  P_SUB,
  P_MUL,
  P_FLOORDIV,
  P_TRUEDIV,
  P_MOD,
  P_EQ,
  P_GT,
  P_LT,
  P_GE,
  P_LE,
  P_MAX,
  P_MIN,
} PrimOp;

/* A prim-op operand: Int, Bool or Double. */
static EtError
get_number (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, KernelScalar *s)
{
  if (args[i] == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "argument %u (%s) is missing", i, name);
  switch (args[i]->tag)
    {
      case ET_VALUE_INT:
      case ET_VALUE_DOUBLE:
      case ET_VALUE_BOOL: return _executorch_arg_scalar (ctx, args, i, name, s);
      default: return KERNEL_FAIL (ctx, ET_ERROR_INVALID_TYPE, "%s must be an Int, Double or Bool", name);
    }
}

static EtError
get_result (EtKernelContext *ctx, EtValue **args, uint32_t i, EtValue **result)
{
  if (args[i] == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "result slot is missing");
  *result = args[i];
  return ET_OK;
}

static void
set_int (EtValue *v, int64_t x)
{
  v->tag = ET_VALUE_INT;
  v->u.int_value = x;
}

static void
set_double (EtValue *v, double x)
{
  v->tag = ET_VALUE_DOUBLE;
  v->u.double_value = x;
}

static void
set_bool (EtValue *v, bool x)
{
  v->tag = ET_VALUE_BOOL;
  v->u.bool_value = x;
}

static void
set_scalar (EtValue *v, const KernelScalar *s)
{
  switch (s->kind)
    {
      case KERNEL_SCALAR_KIND_INT: set_int (v, s->i); break;
      case KERNEL_SCALAR_KIND_BOOL: set_bool (v, s->i != 0); break;
      case KERNEL_SCALAR_KIND_DOUBLE: set_double (v, s->d); break;
    }
}

static int64_t
floordiv_i64 (int64_t a, int64_t b)
{
  if (b == -1)
    return (int64_t) (0u - (uint64_t) a); /* INT64_MIN // -1 wraps */
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

static int64_t
mod_i64 (int64_t a, int64_t b)
{
  if (b == -1)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

/* Python's float divmod. */
static void
divmod_f64 (double a, double b, double *div, double *mod)
{
  double m = fmod (a, b);
  double q = (a - m) / b;
  if (m != 0.0)
    {
      if ((b < 0) != (m < 0))
        {
          m += b;
          q -= 1.0;
        }
    }
  else
    {
      m = copysign (0.0, b);
    }
  if (q != 0.0)
    {
      double f = floor (q);
      if (q - f > 0.5)
        f += 1.0;
      q = f;
    }
  else
    {
      q = copysign (0.0, a / b);
    }
  *div = q;
  *mod = m;
}

static int
compare_numbers (const KernelScalar *a, const KernelScalar *b)
{
  if (a->kind != KERNEL_SCALAR_KIND_DOUBLE && b->kind != KERNEL_SCALAR_KIND_DOUBLE)
    return (a->i > b->i) - (a->i < b->i);
  return (a->d > b->d) - (a->d < b->d);
}

static EtError
binary_prim (EtKernelContext *ctx, EtValue **args, uint32_t n_args, PrimOp op)
{
  KernelScalar a, b;
  EtValue *result;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (get_number (ctx, args, 0, "a", &a));
  KERNEL_TRY (get_number (ctx, args, 1, "b", &b));
  KERNEL_TRY (get_result (ctx, args, 2, &result));

  bool ints = a.kind != KERNEL_SCALAR_KIND_DOUBLE && b.kind != KERNEL_SCALAR_KIND_DOUBLE;
  switch (op)
    {
      case P_ADD:
        if (ints)
          set_int (result, (int64_t) ((uint64_t) a.i + (uint64_t) b.i));
        else
          set_double (result, a.d + b.d);
        return ET_OK;
      case P_SUB:
        if (ints)
          set_int (result, (int64_t) ((uint64_t) a.i - (uint64_t) b.i));
        else
          set_double (result, a.d - b.d);
        return ET_OK;
      case P_MUL:
        if (ints)
          set_int (result, (int64_t) ((uint64_t) a.i * (uint64_t) b.i));
        else
          set_double (result, a.d * b.d);
        return ET_OK;
      case P_FLOORDIV:
      case P_MOD:
      case P_TRUEDIV:
        if (ints ? b.i == 0 : b.d == 0.0)
          return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "division by zero");
        if (op == P_TRUEDIV)
          {
            set_double (result, a.d / b.d);
          }
        else if (ints)
          {
            set_int (result, op == P_FLOORDIV ? floordiv_i64 (a.i, b.i) : mod_i64 (a.i, b.i));
          }
        else
          {
            double q, m;
            divmod_f64 (a.d, b.d, &q, &m);
            set_double (result, op == P_FLOORDIV ? q : m);
          }
        return ET_OK;
      case P_EQ: set_bool (result, compare_numbers (&a, &b) == 0 && !(isnan (a.d) || isnan (b.d))); return ET_OK;
      case P_GT: set_bool (result, compare_numbers (&a, &b) > 0); return ET_OK;
      case P_LT: set_bool (result, compare_numbers (&a, &b) < 0); return ET_OK;
      case P_GE:
        set_bool (result, (ints || !(isnan (a.d) || isnan (b.d))) && compare_numbers (&a, &b) >= 0);
        return ET_OK;
      case P_LE:
        set_bool (result, (ints || !(isnan (a.d) || isnan (b.d))) && compare_numbers (&a, &b) <= 0);
        return ET_OK;
      case P_MAX:
        /* Python's max() keeps the first of equals and the winner's type. */
        set_scalar (result, compare_numbers (&b, &a) > 0 ? &b : &a);
        return ET_OK;
      case P_MIN: set_scalar (result, compare_numbers (&b, &a) < 0 ? &b : &a); return ET_OK;
    }
  return KERNEL_FAIL (ctx, ET_ERROR_INTERNAL, "unknown prim op");
}

#define BINARY_PRIM(NAME, OP)                                                 \
  static EtError NAME (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                           \
    return binary_prim (ctx, args, n_args, OP);                               \
  }

BINARY_PRIM (prim_add, P_ADD)
BINARY_PRIM (prim_sub, P_SUB)
BINARY_PRIM (prim_mul, P_MUL)
BINARY_PRIM (prim_floordiv, P_FLOORDIV)
BINARY_PRIM (prim_truediv, P_TRUEDIV)
BINARY_PRIM (prim_mod, P_MOD)
BINARY_PRIM (prim_eq, P_EQ)
BINARY_PRIM (prim_gt, P_GT)
BINARY_PRIM (prim_lt, P_LT)
BINARY_PRIM (prim_ge, P_GE)
BINARY_PRIM (prim_le, P_LE)
BINARY_PRIM (prim_max, P_MAX)
BINARY_PRIM (prim_min, P_MIN)

/* floordiv.int / mod.int: both operands must be Int. */
static EtError
int_prim (EtKernelContext *ctx, EtValue **args, uint32_t n_args, PrimOp op)
{
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  for (uint32_t i = 0; i < 2; i++)
    if (args[i] == NULL || args[i]->tag != ET_VALUE_INT)
      return KERNEL_FAIL (ctx, ET_ERROR_INVALID_TYPE, "operand %u must be an Int", i);
  return binary_prim (ctx, args, n_args, op);
}

static EtError
prim_floordiv_int (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return int_prim (ctx, args, n_args, P_FLOORDIV);
}

static EtError
prim_mod_int (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return int_prim (ctx, args, n_args, P_MOD);
}

typedef enum
{
  U_NEG,
  U_FLOAT,
  U_INT,
  U_NOT,
  U_CEIL,
  U_TRUNC,
  U_ROUND,
} UnaryPrim;

static int64_t
double_to_int (double v)
{
  if (!(v == v))
    return 0;
  if (v >= 9223372036854775808.0)
    return INT64_MAX;
  if (v <= -9223372036854775808.0)
    return INT64_MIN;
  return (int64_t) v;
}

static EtError
unary_prim (EtKernelContext *ctx, EtValue **args, uint32_t n_args, UnaryPrim op)
{
  KernelScalar a;
  EtValue *result;
  bool is_double;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 2));
  KERNEL_TRY (get_number (ctx, args, 0, "a", &a));
  KERNEL_TRY (get_result (ctx, args, 1, &result));
  is_double = a.kind == KERNEL_SCALAR_KIND_DOUBLE;

  switch (op)
    {
      case U_NEG:
        if (is_double)
          set_double (result, -a.d);
        else
          set_int (result, (int64_t) (0u - (uint64_t) a.i));
        break;
      case U_FLOAT: set_double (result, a.d); break;
      case U_INT: set_int (result, is_double ? double_to_int (a.d) : a.i); break;
      case U_NOT:
        if (a.kind != KERNEL_SCALAR_KIND_BOOL)
          return KERNEL_FAIL (ctx, ET_ERROR_INVALID_TYPE, "sym_not needs a Bool");
        set_bool (result, a.i == 0);
        break;
      case U_CEIL: set_int (result, is_double ? double_to_int (ceil (a.d)) : a.i); break;
      case U_TRUNC: set_int (result, is_double ? double_to_int (trunc (a.d)) : a.i); break;
      case U_ROUND:
        /* Python rounds half to even, as nearbyint() does by default. */
        set_int (result, is_double ? double_to_int (nearbyint (a.d)) : a.i);
        break;
    }
  return ET_OK;
}

#define UNARY_PRIM(NAME, OP)                                                  \
  static EtError NAME (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                           \
    return unary_prim (ctx, args, n_args, OP);                                \
  }

UNARY_PRIM (prim_neg, U_NEG)
UNARY_PRIM (prim_sym_float, U_FLOAT)
UNARY_PRIM (prim_sym_int, U_INT)
UNARY_PRIM (prim_sym_not, U_NOT)
UNARY_PRIM (prim_ceil, U_CEIL)
UNARY_PRIM (prim_trunc, U_TRUNC)
UNARY_PRIM (prim_round, U_ROUND)

/* sym_ite (cond, a, b, out) */
static EtError
prim_sym_ite (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  bool cond;
  KernelScalar a, b;
  EtValue *result;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  if (args[0] == NULL || args[0]->tag != ET_VALUE_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_TYPE, "sym_ite needs a Bool condition");
  cond = args[0]->u.bool_value;
  KERNEL_TRY (get_number (ctx, args, 1, "a", &a));
  KERNEL_TRY (get_number (ctx, args, 2, "b", &b));
  KERNEL_TRY (get_result (ctx, args, 3, &result));
  set_scalar (result, cond ? &a : &b);
  return ET_OK;
}

/* aten::sym_size.int (self, dim, out) */
static EtError
sym_size_int (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self;
  int64_t dim;
  uint32_t d;
  EtValue *result;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (get_result (ctx, args, 2, &result));
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, false, &d));
  set_int (result, self->sizes[d]);
  return ET_OK;
}

/* aten::sym_numel (self, out) */
static EtError
sym_numel (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self;
  EtValue *result;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 2));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (get_result (ctx, args, 1, &result));
  set_int (result, self->numel);
  return ET_OK;
}

/* aten::_local_scalar_dense (self, out): the one element, typed from self. */
static EtError
local_scalar_dense (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self;
  EtValue *result;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 2));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (get_result (ctx, args, 1, &result));
  KERNEL_TRY (_executorch_check_supported (ctx, self, "self"));
  if (self->numel != 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "_local_scalar_dense needs one element, self has %" PRId64,
                        self->numel);
  if (_executorch_type_is_floating (self->scalar_type))
    {
      double v;
      _executorch_load_f64 (self->scalar_type, self->data, 0, 1, 1, &v);
      set_double (result, v);
    }
  else
    {
      int64_t v;
      _executorch_load_i64 (self->scalar_type, self->data, 0, 1, 1, &v);
      if (self->scalar_type == ET_SCALAR_BOOL)
        set_bool (result, v != 0);
      else
        set_int (result, v);
    }
  return ET_OK;
}

/* executorch_prim::et_copy_index.tensor (copy_to, copy_from, index[, ret]):
 * writes copy_from as row @index of the stacked copy_to.  A dynamic copy_to
 * is resized to [index + 1, *copy_from.shape]; a static one must already
 * have room. */
static EtError
et_copy_index (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *to, *from;
  int64_t index, sizes[ET_MAX_DIMS];

  if (n_args != 3 && n_args != 4)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "expected 3 arguments, got %u", n_args);
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "copy_to", &to));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "copy_from", &from));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "index", &index));
  if (to->scalar_type != from->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "copy_to is %s, copy_from is %s",
                        _executorch_type_name (to->scalar_type), _executorch_type_name (from->scalar_type));
  if (to->ndim != from->ndim + 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "copy_to must have one more dim than copy_from (%u vs %u)",
                        to->ndim, from->ndim);
  if (index < 0 || index == INT64_MAX)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "invalid index %" PRId64, index);

  sizes[0] = index + 1;
  memcpy (sizes + 1, from->sizes, from->ndim * sizeof sizes[0]);
  if (to->shape_dynamism != ET_SHAPE_STATIC)
    {
      KERNEL_TRY (_executorch_resize (ctx, to, to->ndim, sizes));
    }
  else
    {
      for (uint32_t d = 0; d < from->ndim; d++)
        if (to->sizes[d + 1] != from->sizes[d])
          return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "copy_from does not match the trailing dims of copy_to");
      if (index >= to->sizes[0])
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "index %" PRId64 " is out of range for %" PRId64 " rows",
                            index, to->sizes[0]);
    }
  if (from->numel == 0)
    return ET_OK;

  /* Row @index of copy_to, in its own layout. */
  int64_t row_strides[ET_MAX_DIMS];
  memcpy (row_strides, to->strides + 1, from->ndim * sizeof row_strides[0]);
  return _executorch_copy_strided (ctx, from->ndim, from->sizes, NULL, to->data, to->scalar_type,
                                   index * to->strides[0], row_strides, from->data, from->scalar_type, 0,
                                   from->strides);
}

/* executorch_prim::et_view.default (self, size, out): out aliases self. */
static EtError
et_view (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  int64_t req[ET_MAX_DIMS], sizes[ET_MAX_DIMS];
  uint32_t n;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "size", NULL, req, &n));
  if (args[2] == NULL || args[2]->tag != ET_VALUE_TENSOR || args[2]->u.tensor == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "out must be a Tensor");
  out = args[2]->u.tensor;
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  if (!_executorch_dim_order_is_identity (self) || !_executorch_dim_order_is_identity (out))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "et_view needs contiguous tensors");
  KERNEL_TRY (_executorch_view_sizes (ctx, req, n, self->numel, sizes));

  /* out's data is about to be replaced: resize without checking it. */
  EtError err = et_tensor_resize (out, n, sizes);
  if (err != ET_OK)
    {
      char have[160], want[160];
      return KERNEL_FAIL (ctx, err, "cannot resize out from %s to %s",
                          _executorch_format_sizes (have, sizeof have, out->ndim, out->sizes),
                          _executorch_format_sizes (want, sizeof want, n, sizes));
    }
  out->data = self->data;
  return ET_OK;
}

const EtKernel _executorch_prim_kernels[] = {
  { "aten::sym_size.int", sym_size_int, NULL },
  { "aten::sym_numel", sym_numel, NULL },
  { "aten::_local_scalar_dense", local_scalar_dense, NULL },
  { "executorch_prim::add.Scalar", prim_add, NULL },
  { "executorch_prim::sub.Scalar", prim_sub, NULL },
  { "executorch_prim::mul.Scalar", prim_mul, NULL },
  { "executorch_prim::floordiv.Scalar", prim_floordiv, NULL },
  { "executorch_prim::floordiv.int", prim_floordiv_int, NULL },
  { "executorch_prim::truediv.Scalar", prim_truediv, NULL },
  { "executorch_prim::mod.Scalar", prim_mod, NULL },
  { "executorch_prim::mod.int", prim_mod_int, NULL },
  { "executorch_prim::eq.Scalar", prim_eq, NULL },
  { "executorch_prim::gt.Scalar", prim_gt, NULL },
  { "executorch_prim::lt.Scalar", prim_lt, NULL },
  { "executorch_prim::ge.Scalar", prim_ge, NULL },
  { "executorch_prim::le.Scalar", prim_le, NULL },
  { "executorch_prim::neg.Scalar", prim_neg, NULL },
  { "executorch_prim::sym_max.Scalar", prim_max, NULL },
  { "executorch_prim::sym_min.Scalar", prim_min, NULL },
  { "executorch_prim::sym_float.Scalar", prim_sym_float, NULL },
  { "executorch_prim::sym_int.Scalar", prim_sym_int, NULL },
  { "executorch_prim::sym_not.Scalar", prim_sym_not, NULL },
  { "executorch_prim::sym_ite.Scalar", prim_sym_ite, NULL },
  { "executorch_prim::ceil.Scalar", prim_ceil, NULL },
  { "executorch_prim::trunc.Scalar", prim_trunc, NULL },
  { "executorch_prim::round.Scalar", prim_round, NULL },
  { "executorch_prim::et_copy_index.tensor", et_copy_index, NULL },
  { "executorch_prim::et_view.default", et_view, NULL },
};

const size_t _executorch_prim_n_kernels = KERNEL_N_ELEMENTS (_executorch_prim_kernels);
