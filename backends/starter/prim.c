/* prim.c: operators on sizes and scalars that exporters emit
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kernels.h"

#include <math.h>
#include <string.h>

/* aten::sym_size.int(self, dim, out): overwrites the Int slot. */
static EtError
sym_size_int (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  int64_t dim;

  if (n != 3 || args[0]->tag != ET_VALUE_TENSOR || !et_value_to_int (args[1], &dim))
    return FAIL (ctx, "expected (tensor, int, out)");
  if (dim < 0)
    dim += args[0]->u.tensor->ndim;
  if (dim < 0 || dim >= (int64_t) args[0]->u.tensor->ndim)
    return FAIL (ctx, "dim %lld is out of range", (long long) dim);
  args[2]->tag = ET_VALUE_INT;
  args[2]->u.int_value = args[0]->u.tensor->sizes[dim];
  return ET_OK;
}

/* aten::sym_numel(self, out) */
static EtError
sym_numel (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  if (n != 2 || args[0]->tag != ET_VALUE_TENSOR)
    return FAIL (ctx, "expected (tensor, out)");
  args[1]->tag = ET_VALUE_INT;
  args[1]->u.int_value = args[0]->u.tensor->numel;
  return ET_OK;
}

typedef enum { P_ADD, P_SUB, P_MUL, P_FLOORDIV, P_TRUEDIV, P_MOD, P_EQ, P_GT, P_LT, P_GE, P_LE } PrimOp;

/* Python semantics: ints stay ints (floor division and modulo round down),
 * a float operand makes the result a float, comparisons give Bool. */
static EtError
prim_binary (EtKernelContext *ctx, EtValue **args, uint32_t n, PrimOp op)
{
  EtValue *a, *b, *out;
  bool ints;

  if (n != 3)
    return FAIL (ctx, "expected 3 arguments, got %u", n);
  a = args[0], b = args[1], out = args[2];
  if ((a->tag != ET_VALUE_INT && a->tag != ET_VALUE_DOUBLE && a->tag != ET_VALUE_BOOL) ||
      (b->tag != ET_VALUE_INT && b->tag != ET_VALUE_DOUBLE && b->tag != ET_VALUE_BOOL))
    return FAIL (ctx, "operands must be scalars");
  ints = a->tag != ET_VALUE_DOUBLE && b->tag != ET_VALUE_DOUBLE;
  if (ints)
    {
      int64_t x, y, r = 0;
      et_value_to_int (a, &x);
      et_value_to_int (b, &y);
      if ((op == P_FLOORDIV || op == P_MOD) && y == 0)
        return FAIL (ctx, "integer division by zero");
      switch (op)
        {
        case P_ADD: r = (int64_t) ((uint64_t) x + (uint64_t) y); break;
        case P_SUB: r = (int64_t) ((uint64_t) x - (uint64_t) y); break;
        case P_MUL: r = (int64_t) ((uint64_t) x * (uint64_t) y); break;
        case P_FLOORDIV:
          if (x == INT64_MIN && y == -1)
            return FAIL (ctx, "integer overflow");
          r = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
          break;
        case P_MOD:
          if (y == -1)
            r = 0;
          else
            {
              r = x % y;
              if (r != 0 && ((r < 0) != (y < 0)))
                r += y;
            }
          break;
        case P_TRUEDIV:
          out->tag = ET_VALUE_DOUBLE;
          out->u.double_value = (double) x / (double) y;
          return ET_OK;
        default:
          out->tag = ET_VALUE_BOOL;
          out->u.bool_value = op == P_EQ ? x == y : op == P_GT ? x > y : op == P_LT ? x < y : op == P_GE ? x >= y : x <= y;
          return ET_OK;
        }
      out->tag = ET_VALUE_INT;
      out->u.int_value = r;
      return ET_OK;
    }
  {
    double x, y, r = 0;
    et_value_to_double (a, &x);
    et_value_to_double (b, &y);
    switch (op)
      {
      case P_ADD: r = x + y; break;
      case P_SUB: r = x - y; break;
      case P_MUL: r = x * y; break;
      case P_TRUEDIV: r = x / y; break;
      case P_FLOORDIV: r = floor (x / y); break;
      case P_MOD: r = x - floor (x / y) * y; break;
      default:
        out->tag = ET_VALUE_BOOL;
        out->u.bool_value = op == P_EQ ? x == y : op == P_GT ? x > y : op == P_LT ? x < y : op == P_GE ? x >= y : x <= y;
        return ET_OK;
      }
    out->tag = ET_VALUE_DOUBLE;
    out->u.double_value = r;
    return ET_OK;
  }
}

#define PRIM(fn, op) \
  static EtError fn (EtKernelContext *c, EtValue **a, uint32_t n) { return prim_binary (c, a, n, op); }
PRIM (prim_add, P_ADD)
PRIM (prim_sub, P_SUB)
PRIM (prim_mul, P_MUL)
PRIM (prim_floordiv, P_FLOORDIV)
PRIM (prim_truediv, P_TRUEDIV)
PRIM (prim_mod, P_MOD)
PRIM (prim_eq, P_EQ)
PRIM (prim_gt, P_GT)
PRIM (prim_lt, P_LT)
PRIM (prim_ge, P_GE)
PRIM (prim_le, P_LE)

/* executorch_prim::et_view.default(self, size, out): out aliases self's data. */
static EtError
et_view (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *x, *out;
  int64_t sizes[ET_MAX_DIMS], known = 1;
  uint32_t n_dims;
  int infer = -1;
  EtError code;

  if (n != 3)
    return FAIL (ctx, "expected 3 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &x)) || args[2]->tag != ET_VALUE_TENSOR ||
      (code = kernel_int_list (ctx, args[1], sizes, &n_dims)))
    return code != ET_OK ? code : FAIL (ctx, "output is not a tensor");
  out = args[2]->u.tensor;
  for (uint32_t d = 0; d < n_dims; d++)
    if (sizes[d] == -1 && infer < 0)
      infer = (int) d;
    else if (sizes[d] < 0)
      return FAIL (ctx, "invalid size");
    else
      known *= sizes[d];
  if (infer >= 0)
    {
      if (known == 0 || x->numel % known != 0)
        return FAIL (ctx, "cannot infer a size");
      sizes[infer] = x->numel / known;
      known *= sizes[infer];
    }
  if (known != x->numel || out->scalar_type != x->scalar_type || !et_tensor_is_contiguous (x))
    return FAIL (ctx, "view does not match its input");
  /* The output shares the input's memory, so its capacity is the input's. */
  out->data = NULL;
  out->capacity = 0;
  if ((code = et_tensor_resize (out, n_dims, sizes)) != ET_OK)
    return et_kernel_context_failf (ctx, code, "cannot resize the view");
  out->data = x->data;
  out->capacity = x->nbytes;
  return ET_OK;
}

const EtKernel kernel_prim[] = {
  { "aten::sym_size.int", sym_size_int, NULL },
  { "aten::sym_numel", sym_numel, NULL },
  { "executorch_prim::add.Scalar", prim_add, NULL },
  { "executorch_prim::sub.Scalar", prim_sub, NULL },
  { "executorch_prim::mul.Scalar", prim_mul, NULL },
  { "executorch_prim::floordiv.Scalar", prim_floordiv, NULL },
  { "executorch_prim::truediv.Scalar", prim_truediv, NULL },
  { "executorch_prim::mod.Scalar", prim_mod, NULL },
  { "executorch_prim::eq.Scalar", prim_eq, NULL },
  { "executorch_prim::gt.Scalar", prim_gt, NULL },
  { "executorch_prim::lt.Scalar", prim_lt, NULL },
  { "executorch_prim::ge.Scalar", prim_ge, NULL },
  { "executorch_prim::le.Scalar", prim_le, NULL },
  { "executorch_prim::et_view.default", et_view, NULL },
};
const unsigned kernel_n_prim = sizeof kernel_prim / sizeof kernel_prim[0];
