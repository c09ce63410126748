/* binary.c: elementwise binary kernels with numpy broadcasting
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * add, sub, mul, div (.out and .Scalar_out) and the comparisons
 * (.Scalar_out and .Tensor_out).  Inputs are promoted to a common dtype
 * (PyTorch's promotion, dtype.c), computed in its kind (int64 with
 * wrapping, float or double) and converted to the out dtype when stored.  A contiguous
 * same-shape float/double path runs as plain vectorisable loops; everything
 * else goes through the strided iterator in chunks.
 */
#include "nn-private.h"
#include "vector.h"

#include <string.h>

typedef enum
{
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_EQ,
  OP_NE,
  OP_LT,
  OP_LE,
  OP_GT,
  OP_GE,
} BinaryOp;

static bool
op_is_comparison (BinaryOp op)
{
  return op >= OP_EQ;
}

/* ---- Row operations, one per compute kind ---- */

#define FLOAT_ROW(NAME, T)                                                                                    \
  static void NAME (BinaryOp op, int64_t n, const T *restrict a, const T *restrict b, T *restrict o, T alpha) \
  {                                                                                                           \
    switch (op)                                                                                               \
      {                                                                                                       \
        case OP_ADD:                                                                                          \
          for (int64_t i = 0; i < n; i++)                                                                     \
            o[i] = a[i] + alpha * b[i];                                                                       \
          break;                                                                                              \
        case OP_SUB:                                                                                          \
          for (int64_t i = 0; i < n; i++)                                                                     \
            o[i] = a[i] - alpha * b[i];                                                                       \
          break;                                                                                              \
        case OP_MUL:                                                                                          \
          for (int64_t i = 0; i < n; i++)                                                                     \
            o[i] = a[i] * b[i];                                                                               \
          break;                                                                                              \
        case OP_DIV:                                                                                          \
          for (int64_t i = 0; i < n; i++)                                                                     \
            o[i] = a[i] / b[i];                                                                               \
          break;                                                                                              \
        case OP_EQ:                                                                                           \
          for (int64_t i = 0; i < n; i++)                                                                     \
            o[i] = a[i] == b[i];                                                                              \
          break;                                                                                              \
        case OP_NE:                                                                                           \
          for (int64_t i = 0; i < n; i++)                                                                     \
            o[i] = a[i] != b[i];                                                                              \
          break;                                                                                              \
        case OP_LT:                                                                                           \
          for (int64_t i = 0; i < n; i++)                                                                     \
            o[i] = a[i] < b[i];                                                                               \
          break;                                                                                              \
        case OP_LE:                                                                                           \
          for (int64_t i = 0; i < n; i++)                                                                     \
            o[i] = a[i] <= b[i];                                                                              \
          break;                                                                                              \
        case OP_GT:                                                                                           \
          for (int64_t i = 0; i < n; i++)                                                                     \
            o[i] = a[i] > b[i];                                                                               \
          break;                                                                                              \
        case OP_GE:                                                                                           \
          for (int64_t i = 0; i < n; i++)                                                                     \
            o[i] = a[i] >= b[i];                                                                              \
          break;                                                                                              \
      }                                                                                                       \
  }

FLOAT_ROW (row_f32, float)
FLOAT_ROW (row_f64, double)

/* Integer arithmetic wraps (done in uint64, then narrowed by the caller). */
static void
row_i64 (BinaryOp op, int64_t n, const int64_t *restrict a, const int64_t *restrict b, int64_t *restrict o,
         int64_t alpha)
{
  uint64_t ua = (uint64_t) alpha;
  switch (op)
    {
      case OP_ADD:
        for (int64_t i = 0; i < n; i++)
          o[i] = (int64_t) ((uint64_t) a[i] + ua * (uint64_t) b[i]);
        break;
      case OP_SUB:
        for (int64_t i = 0; i < n; i++)
          o[i] = (int64_t) ((uint64_t) a[i] - ua * (uint64_t) b[i]);
        break;
      case OP_MUL:
        for (int64_t i = 0; i < n; i++)
          o[i] = (int64_t) ((uint64_t) a[i] * (uint64_t) b[i]);
        break;
      case OP_DIV:
        /* Never reached: true division always has a floating common type. */
        for (int64_t i = 0; i < n; i++)
          o[i] = 0;
        break;
      case OP_EQ:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] == b[i];
        break;
      case OP_NE:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] != b[i];
        break;
      case OP_LT:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] < b[i];
        break;
      case OP_LE:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] <= b[i];
        break;
      case OP_GT:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] > b[i];
        break;
      case OP_GE:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] >= b[i];
        break;
    }
}

/* Fast path: a, b and out share one float type, shape and layout (or b is
 * a scalar). */
#define FAST_LOOP(NAME, T)                                                                                          \
  static void NAME (BinaryOp op, int64_t n, const T *restrict a, const T *restrict b, bool b_scalar, T bs, T alpha, \
                    T *restrict o)                                                                                  \
  {                                                                                                                 \
    if (b_scalar)                                                                                                   \
      {                                                                                                             \
        switch (op)                                                                                                 \
          {                                                                                                         \
            case OP_ADD:                                                                                            \
              {                                                                                                     \
                T v = alpha * bs;                                                                                   \
                for (int64_t i = 0; i < n; i++)                                                                     \
                  o[i] = a[i] + v;                                                                                  \
                break;                                                                                              \
              }                                                                                                     \
            case OP_SUB:                                                                                            \
              {                                                                                                     \
                T v = alpha * bs;                                                                                   \
                for (int64_t i = 0; i < n; i++)                                                                     \
                  o[i] = a[i] - v;                                                                                  \
                break;                                                                                              \
              }                                                                                                     \
            case OP_MUL:                                                                                            \
              for (int64_t i = 0; i < n; i++)                                                                       \
                o[i] = a[i] * bs;                                                                                   \
              break;                                                                                                \
            case OP_DIV:                                                                                            \
              for (int64_t i = 0; i < n; i++)                                                                       \
                o[i] = a[i] / bs;                                                                                   \
              break;                                                                                                \
            default: break;                                                                                         \
          }                                                                                                         \
      }                                                                                                             \
    else if (alpha == 1)                                                                                            \
      {                                                                                                             \
        switch (op)                                                                                                 \
          {                                                                                                         \
            case OP_ADD:                                                                                            \
              for (int64_t i = 0; i < n; i++)                                                                       \
                o[i] = a[i] + b[i];                                                                                 \
              break;                                                                                                \
            case OP_SUB:                                                                                            \
              for (int64_t i = 0; i < n; i++)                                                                       \
                o[i] = a[i] - b[i];                                                                                 \
              break;                                                                                                \
            case OP_MUL:                                                                                            \
              for (int64_t i = 0; i < n; i++)                                                                       \
                o[i] = a[i] * b[i];                                                                                 \
              break;                                                                                                \
            case OP_DIV:                                                                                            \
              for (int64_t i = 0; i < n; i++)                                                                       \
                o[i] = a[i] / b[i];                                                                                 \
              break;                                                                                                \
            default: break;                                                                                         \
          }                                                                                                         \
      }                                                                                                             \
    else                                                                                                            \
      {                                                                                                             \
        switch (op)                                                                                                 \
          {                                                                                                         \
            case OP_ADD:                                                                                            \
              for (int64_t i = 0; i < n; i++)                                                                       \
                o[i] = a[i] + alpha * b[i];                                                                         \
              break;                                                                                                \
            case OP_SUB:                                                                                            \
              for (int64_t i = 0; i < n; i++)                                                                       \
                o[i] = a[i] - alpha * b[i];                                                                         \
              break;                                                                                                \
            case OP_MUL:                                                                                            \
              for (int64_t i = 0; i < n; i++)                                                                       \
                o[i] = a[i] * b[i];                                                                                 \
              break;                                                                                                \
            case OP_DIV:                                                                                            \
              for (int64_t i = 0; i < n; i++)                                                                       \
                o[i] = a[i] / b[i];                                                                                 \
              break;                                                                                                \
            default: break;                                                                                         \
          }                                                                                                         \
      }                                                                                                             \
  }

FAST_LOOP (fast_f32, float)
FAST_LOOP (fast_f64, double)

/* ---- Vectorised float32 paths ----
 *
 * a, b and out all Float: same shape and layout, a scalar on either side,
 * or (all contiguous) one operand a trailing row of out, repeated. */

typedef struct
{
  KernelVecOp op;
  const float *a, *b;
  float *o;
  float alpha, scalar;
  int scalar_side; /* 0 none, 1 b is the scalar, 2 a is */
  int64_t row;     /* > 0: the row operand's length (a_row or b_row) */
  bool a_is_row;
  int64_t block; /* > 0: each element of the scalar_side operand covers this many of out's */
} VecJob;

static void
vec_range (void *context, int64_t begin, int64_t end)
{
  VecJob *j = context;
  if (j->block > 0)
    {
      /* begin/end count blocks: a per-channel factor over an H x W plane */
      for (int64_t r = begin; r < end; r++)
        {
          int64_t at = r * j->block;
          if (j->scalar_side == 1)
            _executorch_vec_binary_scalar_f32 (j->op, j->block, j->a + at, j->b[r], false, j->alpha, j->o + at);
          else
            _executorch_vec_binary_scalar_f32 (j->op, j->block, j->b + at, j->a[r], true, j->alpha, j->o + at);
        }
    }
  else if (j->scalar_side == 1)
    {
      _executorch_vec_binary_scalar_f32 (j->op, end - begin, j->a + begin, j->scalar, false, j->alpha, j->o + begin);
    }
  else if (j->scalar_side == 2)
    {
      _executorch_vec_binary_scalar_f32 (j->op, end - begin, j->b + begin, j->scalar, true, j->alpha, j->o + begin);
    }
  else if (j->row > 0)
    {
      /* begin/end count rows */
      for (int64_t r = begin; r < end; r++)
        {
          const float *a = j->a_is_row ? j->a : j->a + r * j->row;
          const float *b = j->a_is_row ? j->b + r * j->row : j->b;
          _executorch_vec_binary_f32 (j->op, j->row, a, b, j->alpha, j->o + r * j->row);
        }
    }
  else
    {
      _executorch_vec_binary_f32 (j->op, end - begin, j->a + begin, j->b + begin, j->alpha, j->o + begin);
    }
}

/* True when @x's shape, less leading 1s, is the last dims of @out's. */
static bool
is_trailing_row (const EtTensor *x, const EtTensor *out)
{
  uint32_t first = 0;
  while (first < x->ndim && x->sizes[first] == 1)
    first++;
  uint32_t m = x->ndim - first;
  if (m > out->ndim || x->numel == 0)
    return false;
  for (uint32_t k = 0; k < m; k++)
    if (x->sizes[first + k] != out->sizes[out->ndim - m + k])
      return false;
  return _executorch_dim_order_is_identity (x);
}

/* @x whole in @out's last dim and broadcast (size 1) or whole in each
 * other, such as RoPE's [1, S, 1, D] against [1, S, H, D]: one vector op
 * per row of @out (contiguous, like @full), @x's row found by an odometer
 * over the leading dims.  The same float operations as the general path. */
static bool
fast_rows_f32 (KernelVecOp op, const float *full, const EtTensor *x, bool x_first, EtTensor *out, float alpha)
{
  uint32_t nd = out->ndim;
  int64_t x_strides[ET_MAX_DIMS] = { 0 }, idx[ET_MAX_DIMS] = { 0 };

  if (nd < 2 || x->ndim == 0 || x->ndim > nd || !_executorch_dim_order_is_identity (x) ||
      x->sizes[x->ndim - 1] != out->sizes[nd - 1])
    return false;
  for (uint32_t k = 0; k < x->ndim; k++)
    {
      uint32_t d = k + nd - x->ndim;
      if (x->sizes[k] != 1 && x->sizes[k] != out->sizes[d])
        return false;
      x_strides[d] = x->sizes[k] == 1 ? 0 : x->strides[k];
    }
  int64_t row = out->sizes[nd - 1], rows = out->numel / row, x_offset = 0;
  const float *x_data = x->data;
  float *o = out->data;
  for (int64_t r = 0; r < rows; r++)
    {
      const float *xr = x_data + x_offset, *fr = full + r * row;
      _executorch_vec_binary_f32 (op, row, x_first ? xr : fr, x_first ? fr : xr, alpha, o + r * row);
      for (uint32_t d = nd - 1; d-- > 0;)
        {
          x_offset += x_strides[d];
          if (++idx[d] < out->sizes[d])
            break;
          x_offset -= x_strides[d] * idx[d];
          idx[d] = 0;
        }
    }
  return true;
}

/* True when @x has @out's rank and sizes up to some dim, then only 1s
 * (a squeeze-excitation's [N, C, 1, 1] against [N, C, H, W]): each of its
 * elements covers *block consecutive elements of a contiguous out. */
static bool
is_leading_block (const EtTensor *x, const EtTensor *out, int64_t *block)
{
  uint32_t k = 0;

  if (x->ndim != out->ndim || x->numel == 0 || !_executorch_dim_order_is_identity (x))
    return false;
  while (k < x->ndim && x->sizes[k] == out->sizes[k])
    k++;
  *block = 1;
  for (uint32_t d = k; d < x->ndim; d++)
    {
      if (x->sizes[d] != 1)
        return false;
      *block *= out->sizes[d];
    }
  return k<x->ndim && * block> 1;
}

static bool
fast_vec_f32 (BinaryOp op, const EtTensor *a, const EtTensor *b, EtTensor *out, float alpha)
{
  VecJob j = { .alpha = alpha, .o = out->data };
  int64_t n = out->numel, tasks = n;

  switch (op)
    {
      case OP_ADD: j.op = KERNEL_VEC_ADD; break;
      case OP_SUB: j.op = KERNEL_VEC_SUB; break;
      case OP_MUL: j.op = KERNEL_VEC_MUL; break;
      case OP_DIV: j.op = KERNEL_VEC_DIV; break;
      default: return false;
    }
  if (a->scalar_type != ET_SCALAR_FLOAT || b->scalar_type != ET_SCALAR_FLOAT || out->scalar_type != ET_SCALAR_FLOAT)
    return false;
  j.a = a->data;
  j.b = b->data;
  bool a_full = _executorch_same_sizes (a, out) && _executorch_same_dim_order (a, out);
  bool b_full = _executorch_same_sizes (b, out) && _executorch_same_dim_order (b, out);
  if (a_full && b_full)
    {
      /* plain */
    }
  else if (a_full && b->numel == 1)
    {
      j.scalar_side = 1;
      j.scalar = *(const float *) b->data;
    }
  else if (b_full && a->numel == 1)
    {
      j.scalar_side = 2;
      j.scalar = *(const float *) a->data;
    }
  else if (_executorch_dim_order_is_identity (out) && a_full && is_trailing_row (b, out))
    {
      j.row = b->numel;
      tasks = n / j.row;
    }
  else if (_executorch_dim_order_is_identity (out) && b_full && is_trailing_row (a, out))
    {
      j.row = a->numel;
      j.a_is_row = true;
      tasks = n / j.row;
    }
  else if (_executorch_dim_order_is_identity (out) && a_full && is_leading_block (b, out, &j.block))
    {
      j.scalar_side = 1;
      tasks = b->numel;
    }
  else if (_executorch_dim_order_is_identity (out) && b_full && is_leading_block (a, out, &j.block))
    {
      j.scalar_side = 2;
      tasks = a->numel;
    }
  else if (_executorch_dim_order_is_identity (out) && a_full)
    {
      return fast_rows_f32 (j.op, a->data, b, false, out, alpha);
    }
  else if (_executorch_dim_order_is_identity (out) && b_full)
    {
      return fast_rows_f32 (j.op, b->data, a, true, out, alpha);
    }
  else
    {
      return false;
    }
  if (j.block > 0)
    {
      _executorch_parallel_for (tasks, j.block >= KERNEL_GRAIN ? 1 : KERNEL_GRAIN / j.block, vec_range, &j);
      return true;
    }
  int64_t grain = j.row > 0 ? (j.row >= KERNEL_GRAIN ? 1 : KERNEL_GRAIN / j.row) : KERNEL_GRAIN;
  _executorch_parallel_for (tasks, grain, vec_range, &j);
  return true;
}

/* A Scalar in @kind with no range check (comparisons). */
static void
scalar_raw (KernelComputeKind kind, const KernelScalar *s, KernelKindValue *v)
{
  switch (kind)
    {
      case KERNEL_COMPUTE_I64: v->i = s->kind == KERNEL_SCALAR_KIND_DOUBLE ? (int64_t) s->d : s->i; break;
      case KERNEL_COMPUTE_F32: v->f = (float) s->d; break;
      case KERNEL_COMPUTE_F64: v->d = s->d; break;
    }
}

static void
kind_one (KernelComputeKind kind, KernelKindValue *v)
{
  switch (kind)
    {
      case KERNEL_COMPUTE_I64: v->i = 1; break;
      case KERNEL_COMPUTE_F32: v->f = 1.0f; break;
      case KERNEL_COMPUTE_F64: v->d = 1.0; break;
    }
}

/* o[i] = x[i] op y[i] (@y NULL: op @scalar): loops the compiler
 * vectorises, out of line (inlined into binary_run, they were not). */
static __attribute__ ((noinline)) void
compare_f32_rows (BinaryOp op, const float *x, const float *y, float scalar, uint8_t *o, int64_t n)
{
#define COMPARE_LOOP(OPERATOR)          \
  do                                    \
    {                                   \
      if (y != NULL)                    \
        for (int64_t i = 0; i < n; i++) \
          o[i] = x[i] OPERATOR y[i];    \
      else                              \
        for (int64_t i = 0; i < n; i++) \
          o[i] = x[i] OPERATOR scalar;  \
    }                                   \
  while (0)
  switch (op)
    {
      case OP_EQ: COMPARE_LOOP (==); break;
      case OP_NE: COMPARE_LOOP (!=); break;
      case OP_LT: COMPARE_LOOP (<); break;
      case OP_LE: COMPARE_LOOP (<=); break;
      case OP_GT: COMPARE_LOOP (>); break;
      case OP_GE: COMPARE_LOOP (>=); break;
      default: break;
    }
#undef COMPARE_LOOP
}

/* A float32 comparison of dense operands of out's layout (@b NULL: with
 * @scalar) into Bool out; false where it does not apply. */
static bool
compare_f32_dense (BinaryOp op, const EtTensor *a, const EtTensor *b, float scalar, EtTensor *out)
{
  if (a->scalar_type != ET_SCALAR_FLOAT || out->scalar_type != ET_SCALAR_BOOL || !_executorch_same_sizes (a, out) ||
      !_executorch_same_dim_order (a, out) ||
      (b != NULL && (b->scalar_type != ET_SCALAR_FLOAT || !_executorch_same_sizes (b, out) ||
                     !_executorch_same_dim_order (b, out))) ||
      op < OP_EQ || op > OP_GE)
    return false;
  compare_f32_rows (op, a->data, b != NULL ? b->data : NULL, scalar, out->data, out->numel);
  return true;
}

/* Computes out = a op b (or a op scalar) in @common and stores to out. */
static EtError
binary_run (EtKernelContext *ctx, BinaryOp op, EtTensor *out, int common, const EtTensor *a, const EtTensor *b,
            const KernelScalar *b_scalar, const KernelScalar *alpha_s)
{
  KernelComputeKind kind = _executorch_compute_kind (common);
  int kind_type = _executorch_compute_kind_type (kind);
  uint32_t ndim;
  int64_t sizes[ET_MAX_DIMS];
  KernelKindValue alpha, bval;
  bool scalar_b;

  if (b != NULL)
    {
      KERNEL_TRY (_executorch_broadcast_shape (ctx, a->ndim, a->sizes, b->ndim, b->sizes, &ndim, sizes));
    }
  else
    {
      ndim = a->ndim;
      memcpy (sizes, a->sizes, sizeof sizes);
    }
  KERNEL_TRY (_executorch_resize (ctx, out, ndim, sizes));
  if (out->numel == 0)
    return ET_OK;

  kind_one (kind, &alpha);
  if (alpha_s != NULL)
    KERNEL_TRY (_executorch_scalar_to_compute (ctx, alpha_s, common, "alpha", &alpha));

  scalar_b = b == NULL || b->numel == 1;
  if (b == NULL)
    {
      if (op_is_comparison (op))
        scalar_raw (kind, b_scalar, &bval);
      else
        KERNEL_TRY (_executorch_scalar_to_compute (ctx, b_scalar, common, "other", &bval));
    }
  else if (scalar_b)
    {
      _executorch_load_kind (kind, b->scalar_type, b->data, 0, 1, 1, &bval);
    }

  if (common == ET_SCALAR_FLOAT && op_is_comparison (op) && compare_f32_dense (op, a, scalar_b ? NULL : b, bval.f, out))
    return ET_OK;
  /* Vectorised float32 paths. */
  if (b != NULL && common == ET_SCALAR_FLOAT && fast_vec_f32 (op, a, b, out, alpha.f))
    return ET_OK;
  if (b == NULL && common == ET_SCALAR_FLOAT && !op_is_comparison (op) && a->scalar_type == ET_SCALAR_FLOAT &&
      out->scalar_type == ET_SCALAR_FLOAT && _executorch_same_sizes (a, out) && _executorch_same_dim_order (a, out) &&
      (op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_DIV))
    {
      VecJob j = { .op = op == OP_ADD   ? KERNEL_VEC_ADD
                         : op == OP_SUB ? KERNEL_VEC_SUB
                         : op == OP_MUL ? KERNEL_VEC_MUL
                                        : KERNEL_VEC_DIV,
                   .a = a->data,
                   .o = out->data,
                   .alpha = alpha.f,
                   .scalar = bval.f,
                   .scalar_side = 1 };
      _executorch_parallel_for (out->numel, KERNEL_GRAIN, vec_range, &j);
      return ET_OK;
    }

  /* Fast path. */
  if (!op_is_comparison (op) && (common == ET_SCALAR_FLOAT || common == ET_SCALAR_DOUBLE) && a->scalar_type == common &&
      out->scalar_type == common && _executorch_same_sizes (a, out) && _executorch_same_dim_order (a, out) &&
      (scalar_b ||
       (b->scalar_type == common && _executorch_same_sizes (b, out) && _executorch_same_dim_order (b, out))))
    {
      if (common == ET_SCALAR_FLOAT)
        fast_f32 (op, out->numel, a->data, scalar_b ? NULL : b->data, scalar_b, bval.f, alpha.f, out->data);
      else
        fast_f64 (op, out->numel, a->data, scalar_b ? NULL : b->data, scalar_b, bval.d, alpha.d, out->data);
      return ET_OK;
    }

  /* General path: iterate in out's memory order. */
  int64_t a_strides[ET_MAX_DIMS], b_strides[ET_MAX_DIMS] = { 0 };
  const int64_t *strides[3] = { out->strides, a_strides, b_strides };
  const void *b_data = &bval;
  int b_type = kind_type;
  KernelIter it;

  _executorch_broadcast_strides (a, ndim, sizes, a_strides);
  if (!scalar_b)
    {
      _executorch_broadcast_strides (b, ndim, sizes, b_strides);
      b_data = b->data;
      b_type = b->scalar_type;
    }
  _executorch_iter_init (&it, ndim, sizes, out->dim_order, 3, strides);

  union
  {
    int64_t i[KERNEL_CHUNK];
    float f[KERNEL_CHUNK];
    double d[KERNEL_CHUNK];
  } ba, bb, bo;

  for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it))
    {
      for (int64_t j = 0; j < it.inner; j += KERNEL_CHUNK)
        {
          int64_t m = it.inner - j < KERNEL_CHUNK ? it.inner - j : KERNEL_CHUNK;
          _executorch_load_kind (kind, a->scalar_type, a->data, it.offsets[1] + j * it.inner_strides[1],
                                 it.inner_strides[1], m, &ba);
          if (scalar_b)
            {
              for (int64_t k = 0; k < m; k++)
                {
                  switch (kind)
                    {
                      case KERNEL_COMPUTE_I64: bb.i[k] = bval.i; break;
                      case KERNEL_COMPUTE_F32: bb.f[k] = bval.f; break;
                      case KERNEL_COMPUTE_F64: bb.d[k] = bval.d; break;
                    }
                }
            }
          else
            {
              _executorch_load_kind (kind, b_type, b_data, it.offsets[2] + j * it.inner_strides[2], it.inner_strides[2],
                                     m, &bb);
            }
          switch (kind)
            {
              case KERNEL_COMPUTE_I64:
                row_i64 (op, m, ba.i, bb.i, bo.i, alpha.i);
                if (!op_is_comparison (op))
                  _executorch_wrap_i64 (common, m, bo.i);
                break;
              case KERNEL_COMPUTE_F32: row_f32 (op, m, ba.f, bb.f, bo.f, alpha.f); break;
              case KERNEL_COMPUTE_F64: row_f64 (op, m, ba.d, bb.d, bo.d, alpha.d); break;
            }
          _executorch_store_kind (kind, out->scalar_type, out->data, it.offsets[0] + j * it.inner_strides[0],
                                  it.inner_strides[0], m, &bo);
        }
    }
  return ET_OK;
}

/* ---- Argument handling ---- */

typedef struct
{
  EtTensor *a;
  EtTensor *b;        /* NULL for the .Scalar forms */
  KernelScalar other; /* the .Scalar forms */
  KernelScalar alpha;
  bool has_alpha;
  EtTensor *out;
} BinaryArgs;

/* (self, other, [alpha,] out, ret) */
static EtError
get_args (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool scalar_other, bool has_alpha, BinaryArgs *ba)
{
  uint32_t i = 0;
  memset (ba, 0, sizeof *ba);
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, has_alpha ? 5 : 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, i++, "self", &ba->a));
  if (scalar_other)
    KERNEL_TRY (_executorch_arg_scalar (ctx, args, i++, "other", &ba->other));
  else
    KERNEL_TRY (_executorch_arg_tensor (ctx, args, i++, "other", &ba->b));
  ba->has_alpha = has_alpha;
  if (has_alpha)
    KERNEL_TRY (_executorch_arg_scalar (ctx, args, i++, "alpha", &ba->alpha));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, i++, "out", &ba->out));

  KERNEL_TRY (_executorch_check_supported (ctx, ba->a, "self"));
  if (ba->b != NULL)
    KERNEL_TRY (_executorch_check_supported (ctx, ba->b, "other"));
  KERNEL_TRY (_executorch_check_supported (ctx, ba->out, "out"));
  return ET_OK;
}

static EtError
arith_tensor (EtKernelContext *ctx, EtValue **args, uint32_t n_args, BinaryOp op, bool has_alpha)
{
  BinaryArgs ba;
  int common;

  KERNEL_TRY (get_args (ctx, args, n_args, false, has_alpha, &ba));
  int ta = ba.a->scalar_type, tb = ba.b->scalar_type, to = ba.out->scalar_type;

  if (op == OP_DIV)
    {
      bool fa = _executorch_type_is_floating (ta), fb = _executorch_type_is_floating (tb);
      if (!fa && !fb)
        common = ET_SCALAR_FLOAT;
      else if (fa && !fb)
        common = ta;
      else if (fb && !fa)
        common = tb;
      else
        common = _executorch_promote_types (ta, tb);
      if (!_executorch_type_is_floating (to))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "div: out must be floating, not %s",
                            _executorch_type_name (to));
    }
  else
    {
      common = _executorch_promote_types (ta, tb);
    }
  if (common < 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cannot promote %s and %s", _executorch_type_name (ta),
                        _executorch_type_name (tb));
  if (!_executorch_can_cast (common, to))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cannot cast result %s to out dtype %s",
                        _executorch_type_name (common), _executorch_type_name (to));
  if (op == OP_SUB && (common == ET_SCALAR_BOOL || (has_alpha && ba.alpha.kind == KERNEL_SCALAR_KIND_BOOL)))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "sub does not support Bool");
  return binary_run (ctx, op, ba.out, common, ba.a, ba.b, NULL, has_alpha ? &ba.alpha : NULL);
}

static EtError
arith_scalar (EtKernelContext *ctx, EtValue **args, uint32_t n_args, BinaryOp op, bool has_alpha)
{
  BinaryArgs ba;
  int common;

  KERNEL_TRY (get_args (ctx, args, n_args, true, has_alpha, &ba));
  int ta = ba.a->scalar_type, to = ba.out->scalar_type;

  if (op == OP_DIV)
    common = _executorch_type_is_floating (ta) ? ta : ET_SCALAR_FLOAT;
  else
    common = _executorch_promote_with_scalar (ta, &ba.other);
  if (to != common)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "out dtype must be %s, not %s", _executorch_type_name (common),
                        _executorch_type_name (to));
  if (op == OP_SUB && (common == ET_SCALAR_BOOL || (has_alpha && ba.alpha.kind == KERNEL_SCALAR_KIND_BOOL)))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "sub does not support Bool");
  return binary_run (ctx, op, ba.out, common, ba.a, NULL, &ba.other, has_alpha ? &ba.alpha : NULL);
}

static EtError
compare (EtKernelContext *ctx, EtValue **args, uint32_t n_args, BinaryOp op, bool scalar_other)
{
  BinaryArgs ba;
  int common;

  KERNEL_TRY (get_args (ctx, args, n_args, scalar_other, false, &ba));
  if (scalar_other)
    common = _executorch_promote_with_scalar (ba.a->scalar_type, &ba.other);
  else
    common = _executorch_promote_types (ba.a->scalar_type, ba.b->scalar_type);
  if (common < 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cannot promote %s and %s",
                        _executorch_type_name (ba.a->scalar_type), _executorch_type_name (ba.b->scalar_type));
  return binary_run (ctx, op, ba.out, common, ba.a, ba.b, scalar_other ? &ba.other : NULL, NULL);
}

#define ARITH_KERNEL(NAME, OP, SCALAR, ALPHA)                                                                  \
  static EtError NAME (EtKernelContext *ctx, EtValue **args, uint32_t n_args)                                  \
  {                                                                                                            \
    return SCALAR ? arith_scalar (ctx, args, n_args, OP, ALPHA) : arith_tensor (ctx, args, n_args, OP, ALPHA); \
  }

ARITH_KERNEL (add_out, OP_ADD, false, true)
ARITH_KERNEL (sub_out, OP_SUB, false, true)
ARITH_KERNEL (mul_out, OP_MUL, false, false)
ARITH_KERNEL (div_out, OP_DIV, false, false)
ARITH_KERNEL (add_scalar_out, OP_ADD, true, true)
ARITH_KERNEL (sub_scalar_out, OP_SUB, true, true)
ARITH_KERNEL (mul_scalar_out, OP_MUL, true, false)
ARITH_KERNEL (div_scalar_out, OP_DIV, true, false)

#define COMPARE_KERNELS(NAME, OP)                                                          \
  static EtError NAME##_scalar_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                                        \
    return compare (ctx, args, n_args, OP, true);                                          \
  }                                                                                        \
  static EtError NAME##_tensor_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                                        \
    return compare (ctx, args, n_args, OP, false);                                         \
  }

COMPARE_KERNELS (eq, OP_EQ)
COMPARE_KERNELS (ne, OP_NE)
COMPARE_KERNELS (lt, OP_LT)
COMPARE_KERNELS (le, OP_LE)
COMPARE_KERNELS (gt, OP_GT)
COMPARE_KERNELS (ge, OP_GE)

const EtKernel _executorch_binary_kernels[] = {
  { "aten::add.out", add_out, NULL },
  { "aten::sub.out", sub_out, NULL },
  { "aten::mul.out", mul_out, NULL },
  { "aten::div.out", div_out, NULL },
  { "aten::add.Scalar_out", add_scalar_out, NULL },
  { "aten::sub.Scalar_out", sub_scalar_out, NULL },
  { "aten::mul.Scalar_out", mul_scalar_out, NULL },
  { "aten::div.Scalar_out", div_scalar_out, NULL },
  { "aten::eq.Scalar_out", eq_scalar_out, NULL },
  { "aten::ne.Scalar_out", ne_scalar_out, NULL },
  { "aten::lt.Scalar_out", lt_scalar_out, NULL },
  { "aten::le.Scalar_out", le_scalar_out, NULL },
  { "aten::gt.Scalar_out", gt_scalar_out, NULL },
  { "aten::ge.Scalar_out", ge_scalar_out, NULL },
  { "aten::eq.Tensor_out", eq_tensor_out, NULL },
  { "aten::ne.Tensor_out", ne_tensor_out, NULL },
  { "aten::lt.Tensor_out", lt_tensor_out, NULL },
  { "aten::le.Tensor_out", le_tensor_out, NULL },
  { "aten::gt.Tensor_out", gt_tensor_out, NULL },
  { "aten::ge.Tensor_out", ge_tensor_out, NULL },
};

const size_t _executorch_binary_n_kernels = KERNEL_N_ELEMENTS (_executorch_binary_kernels);
