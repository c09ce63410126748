/* linear-algebra.c: mm, bmm, addmm and linear
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Float32 products (and Half/BFloat16, computed in float) run the packed,
 * threaded GEMM of gemm.c, which reads Float operands through their
 * strides wherever they lie, so linear's weight is used transposed without
 * being copied.  Double and the integer types keep the simple blocked
 * row-major GEMM below (integers in wrapping 64-bit arithmetic): operands
 * that are not contiguous or not in the compute dtype are first packed into
 * a row-major temporary, and each output element sums over k in increasing
 * order, as a naive loop would.
 */
#include "kernels-private.h"

#include "gemm.h"
#include "linalg-private.h"
#include "vector.h"
#include "executorch-threadpool.h"

#include <string.h>

/* Block sizes: a KC x NC panel of B (512 KiB of floats) is reused by every
 * group of four rows of A. */
#define KC 256
#define NC 512

#define GEMM(NAME, T)                                                                                         \
  static void NAME (int64_t m, int64_t k, int64_t n, const T *restrict A, const T *restrict B, T *restrict C) \
  {                                                                                                           \
    memset (C, 0, (size_t) (m * n) * sizeof (T));                                                             \
    for (int64_t kk = 0; kk < k; kk += KC)                                                                    \
      {                                                                                                       \
        int64_t kend = kk + KC < k ? kk + KC : k;                                                             \
        for (int64_t jj = 0; jj < n; jj += NC)                                                                \
          {                                                                                                   \
            int64_t nb = jj + NC < n ? NC : n - jj;                                                           \
            int64_t i = 0;                                                                                    \
            for (; i + 4 <= m; i += 4)                                                                        \
              {                                                                                               \
                T *restrict c0 = C + i * n + jj;                                                              \
                T *restrict c1 = c0 + n;                                                                      \
                T *restrict c2 = c1 + n;                                                                      \
                T *restrict c3 = c2 + n;                                                                      \
                for (int64_t p = kk; p < kend; p++)                                                           \
                  {                                                                                           \
                    const T *restrict b = B + p * n + jj;                                                     \
                    T a0 = A[i * k + p], a1 = A[(i + 1) * k + p];                                             \
                    T a2 = A[(i + 2) * k + p], a3 = A[(i + 3) * k + p];                                       \
                    for (int64_t j = 0; j < nb; j++)                                                          \
                      {                                                                                       \
                        T bv = b[j];                                                                          \
                        c0[j] += a0 * bv;                                                                     \
                        c1[j] += a1 * bv;                                                                     \
                        c2[j] += a2 * bv;                                                                     \
                        c3[j] += a3 * bv;                                                                     \
                      }                                                                                       \
                  }                                                                                           \
              }                                                                                               \
            for (; i < m; i++)                                                                                \
              {                                                                                               \
                T *restrict c0 = C + i * n + jj;                                                              \
                for (int64_t p = kk; p < kend; p++)                                                           \
                  {                                                                                           \
                    const T *restrict b = B + p * n + jj;                                                     \
                    T a0 = A[i * k + p];                                                                      \
                    for (int64_t j = 0; j < nb; j++)                                                          \
                      c0[j] += a0 * b[j];                                                                     \
                  }                                                                                           \
              }                                                                                               \
          }                                                                                                   \
      }                                                                                                       \
  }

GEMM (gemm_f64, double)
GEMM (gemm_u64, uint64_t)

/* The dtype a matrix of @type is multiplied in, or -1. */
static int
pack_type (int type)
{
  switch (type)
    {
      case ET_SCALAR_FLOAT:
      case ET_SCALAR_HALF:
      case ET_SCALAR_BFLOAT16: return ET_SCALAR_FLOAT;
      case ET_SCALAR_DOUBLE: return ET_SCALAR_DOUBLE;
      case ET_SCALAR_BYTE:
      case ET_SCALAR_CHAR:
      case ET_SCALAR_SHORT:
      case ET_SCALAR_INT:
      case ET_SCALAR_LONG: return ET_SCALAR_LONG;
      default: return -1;
    }
}

/* Row-major data in @ptype of the @ndim-dimensional view @sizes/@strides
 * of @base (of @type): @base itself when it already is. */
static EtError
pack_view (EtKernelContext *ctx, const void *base, int type, uint32_t ndim, const int64_t *sizes,
           const int64_t *strides, int ptype, KernelTemp *temp, const void **data)
{
  int64_t dense[ET_MAX_DIMS];

  temp->data = NULL;
  temp->heap = false;
  _executorch_contiguous_strides (ndim, sizes, dense);
  if (type == ptype && memcmp (dense, strides, ndim * sizeof (int64_t)) == 0)
    {
      *data = base;
      return ET_OK;
    }
  KERNEL_TRY (
      _executorch_temp_alloc (ctx, (size_t) _executorch_numel (ndim, sizes) * _executorch_type_size (ptype), temp));
  KERNEL_TRY (_executorch_copy_strided (ctx, ndim, sizes, NULL, temp->data, ptype, 0, dense, base, type, 0, strides));
  *data = temp->data;
  return ET_OK;
}

/* Row-major data of @t in @ptype: @t's own buffer when it already is. */
static EtError
pack (EtKernelContext *ctx, const EtTensor *t, int ptype, KernelTemp *temp, const void **data)
{
  if (t->scalar_type == ptype && _executorch_dim_order_is_identity (t))
    {
      temp->data = NULL;
      temp->heap = false;
      *data = t->data;
      return ET_OK;
    }
  return pack_view (ctx, t->data, t->scalar_type, t->ndim, t->sizes, t->strides, ptype, temp, data);
}

/* A float32 operand: its data and the strides of its last two dimensions. */
typedef struct
{
  const float *data;
  int64_t rs, cs, bs; /* row, column and batch strides */
} FloatOperand;

typedef struct
{
  int64_t m, k, n;
  FloatOperand a, b;
  float *c;
  int failed;
} BatchJob;

static void
sgemm_batch (void *data, size_t bi)
{
  const BatchJob *job = data;
  KernelSgemm g = {
    .m = job->m,
    .n = job->n,
    .k = job->k,
    .a = job->a.data + (int64_t) bi * job->a.bs,
    .a_rs = job->a.rs,
    .a_cs = job->a.cs,
    .b = job->b.data + (int64_t) bi * job->b.bs,
    .b_rs = job->b.rs,
    .b_cs = job->b.cs,
    .c = job->c + (int64_t) bi * job->m * job->n,
    .ldc = job->n,
    .single_thread = true,
  };

  if (!_executorch_sgemm (&g))
    __atomic_store_n (&((BatchJob *) data)->failed, 1, __ATOMIC_RELAXED);
}

/* c[b] = a[b] @ b[b] for float32 operands read through their strides; the
 * pool takes the batches when each is small, the GEMM's tiles otherwise. */
static EtError
sgemm_batched (EtKernelContext *ctx, int64_t batch, int64_t m, int64_t k, int64_t n, const FloatOperand *a,
               const FloatOperand *b, float *c)
{
  BatchJob job = { m, k, n, *a, *b, c, 0 };

  if (batch > 1 && (double) m * n * k < (double) (1 << 22) && executorch_threadpool_get_num_threads () > 1)
    {
      /* Small matrices: one batch per task. */
      executorch_threadpool_parallelize_1d (sgemm_batch, &job, (size_t) batch);
      if (job.failed)
        return KERNEL_FAIL (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED, "out of memory packing GEMM operands");
      return ET_OK;
    }
  for (int64_t bi = 0; bi < batch; bi++)
    {
      KernelSgemm g = {
        .m = m,
        .n = n,
        .k = k,
        .a = a->data + bi * a->bs,
        .a_rs = a->rs,
        .a_cs = a->cs,
        .b = b->data + bi * b->bs,
        .b_rs = b->rs,
        .b_cs = b->cs,
        .c = c + bi * m * n,
        .ldc = n,
      };
      if (!_executorch_sgemm (&g))
        return KERNEL_FAIL (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED, "out of memory packing GEMM operands");
    }
  return ET_OK;
}

/* A Float tensor as an operand (last two dimensions; batch from the first
 * of three), or a row-major float copy of any other dtype in @temp. */
static EtError
float_operand (EtKernelContext *ctx, const EtTensor *t, KernelTemp *temp, FloatOperand *op)
{
  uint32_t nd = t->ndim;

  temp->data = NULL;
  temp->heap = false;
  if (t->scalar_type == ET_SCALAR_FLOAT)
    {
      op->data = t->data;
      op->rs = t->strides[nd - 2];
      op->cs = t->strides[nd - 1];
      op->bs = nd == 3 ? t->strides[0] : 0;
      return ET_OK;
    }
  const void *data;
  KERNEL_TRY (pack (ctx, t, ET_SCALAR_FLOAT, temp, &data));
  op->data = data;
  op->rs = t->sizes[nd - 1];
  op->cs = 1;
  op->bs = nd == 3 ? t->sizes[1] * t->sizes[2] : 0;
  return ET_OK;
}

static void
gemm (int ptype, int64_t m, int64_t k, int64_t n, const void *A, const void *B, void *C)
{
  switch (ptype)
    {
      case ET_SCALAR_DOUBLE: gemm_f64 (m, k, n, A, B, C); break;
      default: gemm_u64 (m, k, n, A, B, C); break;
    }
}

/* out[b] = a[b] @ c[b] for @batch batches of [m,k] @ [k,n].  On success
 * *product points at a row-major [batch,m,n] result in @ptype: out's own
 * buffer (@in_place) or @temp, which the caller frees. */
static EtError
batched_product (EtKernelContext *ctx, const EtTensor *a, const EtTensor *c, EtTensor *out, int ptype, int64_t batch,
                 int64_t m, int64_t k, int64_t n, KernelTemp *temp, void **product, bool *in_place)
{
  KernelTemp ta, tc;
  const void *da, *dc;
  size_t es = _executorch_type_size (ptype);
  EtError err;

  temp->data = NULL;
  temp->heap = false;
  *in_place = out->scalar_type == ptype && _executorch_dim_order_is_identity (out) && out->data != a->data &&
              out->data != c->data;

  if (ptype == ET_SCALAR_FLOAT)
    {
      FloatOperand fa, fc;

      KERNEL_TRY (float_operand (ctx, a, &ta, &fa));
      err = float_operand (ctx, c, &tc, &fc);
      if (err == ET_OK && !*in_place)
        err = _executorch_temp_alloc (ctx, (size_t) (batch * m * n) * es, temp);
      if (err == ET_OK)
        {
          *product = *in_place ? out->data : temp->data;
          err = sgemm_batched (ctx, batch, m, k, n, &fa, &fc, *product);
        }
      _executorch_temp_free (&tc);
      _executorch_temp_free (&ta);
      if (err != ET_OK)
        _executorch_temp_free (temp);
      return err;
    }

  KERNEL_TRY (pack (ctx, a, ptype, &ta, &da));
  err = pack (ctx, c, ptype, &tc, &dc);
  if (err != ET_OK)
    {
      _executorch_temp_free (&ta);
      return err;
    }

  if (*in_place)
    {
      *product = out->data;
    }
  else
    {
      err = _executorch_temp_alloc (ctx, (size_t) (batch * m * n) * es, temp);
      *product = temp->data;
    }
  if (err == ET_OK)
    {
      for (int64_t b = 0; b < batch; b++)
        gemm (ptype, m, k, n, (const char *) da + (size_t) (b * m * k) * es,
              (const char *) dc + (size_t) (b * k * n) * es, (char *) *product + (size_t) (b * m * n) * es);
    }
  _executorch_temp_free (&tc);
  _executorch_temp_free (&ta);
  return err;
}

static EtError
check_dtypes (EtKernelContext *ctx, const EtTensor *a, const EtTensor *b, const EtTensor *out, int *ptype)
{
  if (a->scalar_type != b->scalar_type || a->scalar_type != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dtypes must match: %s, %s and out %s",
                        _executorch_type_name (a->scalar_type), _executorch_type_name (b->scalar_type),
                        _executorch_type_name (out->scalar_type));
  *ptype = pack_type (a->scalar_type);
  if (*ptype < 0)
    return KERNEL_FAIL (ctx, ET_ERROR_NOT_SUPPORTED, "dtype %s is not supported",
                        _executorch_type_name (a->scalar_type));
  return ET_OK;
}

/* Shared by mm and bmm: a is [..., m, k], c is [..., k, n]. */
static EtError
matmul_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args, uint32_t rank)
{
  EtTensor *a, *c, *out;
  int ptype;
  char sa[160], sc[160];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &a));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "mat2", &c));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (check_dtypes (ctx, a, c, out, &ptype));
  if (a->ndim != rank || c->ndim != rank)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "operands must be %u-D, got %u-D and %u-D", rank, a->ndim,
                        c->ndim);
  if (a->sizes[rank - 1] != c->sizes[rank - 2] || (rank == 3 && a->sizes[0] != c->sizes[0]))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "shapes %s and %s cannot be multiplied",
                        _executorch_format_sizes (sa, sizeof sa, a->ndim, a->sizes),
                        _executorch_format_sizes (sc, sizeof sc, c->ndim, c->sizes));

  int64_t batch = rank == 3 ? a->sizes[0] : 1;
  int64_t m = a->sizes[rank - 2], k = a->sizes[rank - 1], n = c->sizes[rank - 1];
  int64_t sizes[3] = { batch, m, n };
  KERNEL_TRY (_executorch_resize (ctx, out, rank, rank == 3 ? sizes : sizes + 1));
  if (out->numel == 0)
    return ET_OK;

  KernelTemp temp;
  void *product;
  bool in_place;
  KERNEL_TRY (batched_product (ctx, a, c, out, ptype, batch, m, k, n, &temp, &product, &in_place));
  EtError err = ET_OK;
  if (!in_place)
    {
      int64_t strides[ET_MAX_DIMS];
      _executorch_contiguous_strides (out->ndim, out->sizes, strides);
      err = _executorch_copy_strided (ctx, out->ndim, out->sizes, out->dim_order, out->data, out->scalar_type, 0,
                                      out->strides, product, ptype, 0, strides);
    }
  _executorch_temp_free (&temp);
  return err;
}

static EtError
mm_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return matmul_out (ctx, args, n_args, 2);
}

static EtError
bmm_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return matmul_out (ctx, args, n_args, 3);
}

/* What a fused addmm does to its result (KernelLinearFusion). */
typedef struct
{
  const KernelLinearFusion *fusion;
  EtTensor *out;         /* the fused operator's out, @m x @n elements */
  const EtTensor *other; /* KERNEL_LINEAR_THEN_ADD: the residual, as many */
  int64_t n;
} LinearThen;

/* Rows [i0, i0 + rows), columns [j0, j0 + cols) of the result, at @c
 * (rows @ldc apart), through the operator into its out: the functions the
 * operators' own kernels use, so the bits are theirs. */
static void
linear_then_rows (const LinearThen *t, const float *c, int64_t ldc, int64_t i0, int64_t j0, int64_t rows, int64_t cols)
{
  float *out = t->out->data;

  for (int64_t r = 0; r < rows; r++)
    {
      const float *src = c + r * ldc;
      int64_t at = (i0 + r) * t->n + j0;
      switch (t->fusion->then)
        {
          case KERNEL_LINEAR_THEN_CLAMP:
            _executorch_vec_clamp_f32 (cols, src, t->fusion->lo, t->fusion->hi, out + at);
            break;
          case KERNEL_LINEAR_THEN_GELU: _executorch_vec_gelu_f32 (cols, src, false, out + at); break;
          case KERNEL_LINEAR_THEN_GELU_TANH: _executorch_vec_gelu_f32 (cols, src, true, out + at); break;
          case KERNEL_LINEAR_THEN_ADD:
            _executorch_vec_binary_f32 (KERNEL_VEC_ADD, cols, (const float *) t->other->data + at, src, 1.0f, out + at);
            break;
        }
    }
}

static void
linear_then_tile (const void *user, const float *c, int64_t ldc, int64_t i0, int64_t j0, int64_t rows, int64_t cols)
{
  linear_then_rows (user, c, ldc, i0, j0, rows, cols);
}

/* (self, mat1, mat2, beta, alpha, out, ret): beta * self + alpha * (mat1 @ mat2),
 * self broadcast to [m, n]; beta == 0 ignores self entirely.  With @then,
 * its operator also runs on each tile of the result as the GEMM finishes
 * it, where that is safe (*@in_tiles set); else the caller runs it after. */
static EtError
addmm_run (EtKernelContext *ctx, EtValue **args, uint32_t n_args, const KernelPackedMat2 *packed, LinearThen *then,
           bool *in_tiles)
{
  EtTensor *self, *a, *c, *out;
  KernelScalar beta_s, alpha_s;
  int ptype;
  char sa[160], sc[160];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 7));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "mat1", &a));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "mat2", &c));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 3, "beta", &beta_s));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 4, "alpha", &alpha_s));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 5, "out", &out));
  KERNEL_TRY (check_dtypes (ctx, a, c, out, &ptype));
  *in_tiles = false;
  if (self->scalar_type != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "self dtype %s differs from out dtype %s",
                        _executorch_type_name (self->scalar_type), _executorch_type_name (out->scalar_type));
  if (a->ndim != 2 || c->ndim != 2 || a->sizes[1] != c->sizes[0])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "shapes %s and %s cannot be multiplied",
                        _executorch_format_sizes (sa, sizeof sa, a->ndim, a->sizes),
                        _executorch_format_sizes (sc, sizeof sc, c->ndim, c->sizes));

  int64_t m = a->sizes[0], k = a->sizes[1], n = c->sizes[1];
  int64_t sizes[2] = { m, n };
  if (!_executorch_broadcastable_to (self, 2, sizes))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "self %s does not broadcast to [%" PRId64 ", %" PRId64 "]",
                        _executorch_format_sizes (sa, sizeof sa, self->ndim, self->sizes), m, n);

  KernelKindValue beta, alpha;
  int out_type = out->scalar_type;
  KERNEL_TRY (_executorch_scalar_to_compute (ctx, &beta_s, out_type, "beta", &beta));
  KERNEL_TRY (_executorch_scalar_to_compute (ctx, &alpha_s, out_type, "alpha", &alpha));
  KERNEL_TRY (_executorch_resize (ctx, out, 2, sizes));
  if (out->numel == 0)
    return ET_OK;

  /* Float with alpha == 1 (every nn.Linear): out starts as beta * self and
   * the GEMM accumulates into it, with no second pass. */
  if (out_type == ET_SCALAR_FLOAT && a->scalar_type == ET_SCALAR_FLOAT && alpha.f == 1.0f &&
      _executorch_dim_order_is_identity (out) && out->data != a->data && out->data != c->data &&
      out->data != self->data)
    {
      int64_t s_str[2];
      float *o = out->data;
      const float *sv = self->data;
      bool use_self = !(beta_s.d == 0.0);
      _executorch_broadcast_strides (self, 2, sizes, s_str);
      if (use_self && beta.f == 1.0f && s_str[1] == 1 && !_executorch_tensors_overlap (self, out))
        /* 1 * x is x: rows copied (a linear's bias, one row for all) */
        for (int64_t i = 0; i < m; i++)
          memcpy (o + i * n, sv + i * s_str[0], (size_t) n * sizeof (float));
      else
        for (int64_t i = 0; i < m; i++)
          for (int64_t j = 0; j < n; j++)
            o[i * n + j] = use_self ? beta.f * sv[i * s_str[0] + j * s_str[1]] : 0.0f;
      FloatOperand fa = { a->data, a->strides[0], a->strides[1], 0 };
      FloatOperand fc = { c->data, c->strides[0], c->strides[1], 0 };
      KernelSgemm g = {
        .m = m,
        .n = n,
        .k = k,
        .a = fa.data,
        .a_rs = fa.rs,
        .a_cs = fa.cs,
        .b = fc.data,
        .b_rs = fc.rs,
        .b_cs = fc.cs,
        .c = o,
        .ldc = n,
        .accumulate = true,
      };
      if (packed != NULL && packed->data == c->data && packed->k == k && packed->n == n && packed->rs == fc.rs &&
          packed->cs == fc.cs)
        {
          g.b_packed = packed->packed;
          g.b_packed_nr = packed->nr;
        }
      /* Tiles go to the operator's out as they are done unless other
       * tiles still read what it overlaps (the memory plan may put it over
       * mat1, whose life ends here). */
      if (then != NULL && then->out->numel == m * n && (then->other == NULL || then->other->numel == m * n) &&
          !_executorch_tensors_overlap (then->out, a) && !_executorch_tensors_overlap (then->out, c) &&
          !_executorch_tensors_overlap (then->out, self))
        {
          then->n = n;
          g.tile_done = linear_then_tile;
          g.tile_done_user = then;
          *in_tiles = true;
        }
      if (!_executorch_sgemm (&g))
        return KERNEL_FAIL (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED, "out of memory packing GEMM operands");
      return ET_OK;
    }

  KernelTemp temp;
  void *product;
  bool in_place;
  KERNEL_TRY (batched_product (ctx, a, c, out, ptype, 1, m, k, n, &temp, &product, &in_place));

  /* out = beta * self + alpha * product, in out's memory order. */
  KernelComputeKind kind = _executorch_compute_kind (out_type);
  bool use_self = !(beta_s.d == 0.0);
  int64_t p_strides[2] = { n, 1 }, s_strides[2];
  const int64_t *strides[3] = { out->strides, p_strides, s_strides };
  KernelIter it;
  union
  {
    int64_t i[KERNEL_CHUNK];
    float f[KERNEL_CHUNK];
    double d[KERNEL_CHUNK];
  } bp, bs;

  _executorch_broadcast_strides (self, 2, sizes, s_strides);
  _executorch_iter_init (&it, 2, sizes, out->dim_order, 3, strides);
  for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it))
    {
      for (int64_t j = 0; j < it.inner; j += KERNEL_CHUNK)
        {
          int64_t cnt = it.inner - j < KERNEL_CHUNK ? it.inner - j : KERNEL_CHUNK;
          _executorch_load_kind (kind, ptype, product, it.offsets[1] + j * it.inner_strides[1], it.inner_strides[1],
                                 cnt, &bp);
          if (use_self)
            _executorch_load_kind (kind, self->scalar_type, self->data, it.offsets[2] + j * it.inner_strides[2],
                                   it.inner_strides[2], cnt, &bs);
          switch (kind)
            {
              case KERNEL_COMPUTE_F32:
                for (int64_t q = 0; q < cnt; q++)
                  bp.f[q] = alpha.f * bp.f[q] + (use_self ? beta.f * bs.f[q] : 0.0f);
                break;
              case KERNEL_COMPUTE_F64:
                for (int64_t q = 0; q < cnt; q++)
                  bp.d[q] = alpha.d * bp.d[q] + (use_self ? beta.d * bs.d[q] : 0.0);
                break;
              case KERNEL_COMPUTE_I64:
                for (int64_t q = 0; q < cnt; q++)
                  bp.i[q] = (int64_t) ((uint64_t) alpha.i * (uint64_t) bp.i[q] +
                                       (use_self ? (uint64_t) beta.i * (uint64_t) bs.i[q] : 0u));
                break;
            }
          _executorch_store_kind (kind, out_type, out->data, it.offsets[0] + j * it.inner_strides[0],
                                  it.inner_strides[0], cnt, &bp);
        }
    }
  _executorch_temp_free (&temp);
  return ET_OK;
}

static EtError
addmm_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  bool in_tiles;

  return addmm_run (ctx, args, n_args, et_kernel_context_user_data (ctx), NULL, &in_tiles);
}

EtError
_executorch_addmm_fused_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const KernelLinearFusion *fusion = et_kernel_context_user_data (ctx);
  EtTensor *result, *out;
  const EtTensor *other = NULL;
  bool in_tiles;

  if (fusion == NULL || fusion->out == NULL || fusion->out->tag != ET_VALUE_TENSOR || n_args != 7 ||
      args[5]->tag != ET_VALUE_TENSOR)
    return KERNEL_FAIL (ctx, ET_ERROR_INTERNAL, "addmm: fused instruction without its fusion");
  result = args[5]->u.tensor;
  out = fusion->out->u.tensor;
  if (fusion->then == KERNEL_LINEAR_THEN_ADD)
    other = fusion->residual != NULL && fusion->residual->tag == ET_VALUE_TENSOR ? fusion->residual->u.tensor : NULL;
  /* The rewrite checked these on the program's static shapes and plan. */
  if (out->scalar_type != ET_SCALAR_FLOAT || (fusion->then == KERNEL_LINEAR_THEN_ADD && other == NULL) ||
      (other != NULL && (other->scalar_type != ET_SCALAR_FLOAT || other->numel != out->numel ||
                         (_executorch_tensors_overlap (other, out) && other->data != out->data))))
    return KERNEL_FAIL (ctx, ET_ERROR_INTERNAL, "addmm: the fused operator's operands changed");

  if (_executorch_tensors_overlap (result, out) && result->data != out->data)
    return KERNEL_FAIL (ctx, ET_ERROR_INTERNAL, "addmm: the fused operator's out overlaps the result");

  LinearThen then = { .fusion = fusion, .out = out, .other = other };
  KERNEL_TRY (addmm_run (ctx, args, n_args, fusion->packed, &then, &in_tiles));
  if (result->scalar_type != ET_SCALAR_FLOAT || result->ndim != 2 || result->numel != out->numel)
    return KERNEL_FAIL (ctx, ET_ERROR_INTERNAL, "addmm: the fused operator's out does not fit the result");
  if (!in_tiles && result->numel > 0)
    {
      then.n = result->sizes[1];
      linear_then_rows (&then, result->data, then.n, 0, 0, result->sizes[0], then.n);
    }
  return ET_OK;
}

/* (input[..., in], weight[out, in], bias?, out, ret): input @ weight^T + bias.
 * The weight is read transposed in place (the float GEMM packs B straight
 * from it); bias is None or 1-D of length out or 1. */
static EtError
linear_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *input, *weight, *bias = NULL, *out;
  int ptype;
  char si[160], sw[160];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &input));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "weight", &weight));
  if (args[2]->tag != ET_VALUE_NONE)
    KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "bias", &bias));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (check_dtypes (ctx, input, weight, out, &ptype));
  if (weight->ndim != 2 || input->ndim < 1 || input->sizes[input->ndim - 1] != weight->sizes[1])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "input %s and weight %s do not fit (weight must be [out, in])",
                        _executorch_format_sizes (si, sizeof si, input->ndim, input->sizes),
                        _executorch_format_sizes (sw, sizeof sw, weight->ndim, weight->sizes));
  int64_t n = weight->sizes[0], k = weight->sizes[1];
  if (bias != NULL)
    {
      if (bias->scalar_type != out->scalar_type)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "bias dtype %s differs from out dtype %s",
                            _executorch_type_name (bias->scalar_type), _executorch_type_name (out->scalar_type));
      if (bias->ndim > 1 || (bias->numel != n && bias->numel != 1))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "bias %s must be 1-D with %" PRId64 " or 1 elements",
                            _executorch_format_sizes (si, sizeof si, bias->ndim, bias->sizes), n);
    }

  int64_t sizes[ET_MAX_DIMS];
  uint32_t nd = input->ndim;
  for (uint32_t d = 0; d + 1 < nd; d++)
    sizes[d] = input->sizes[d];
  sizes[nd - 1] = n;
  KERNEL_TRY (_executorch_resize (ctx, out, nd, sizes));
  if (out->numel == 0)
    return ET_OK;
  int64_t m = out->numel / n;
  size_t es = _executorch_type_size (ptype);

  /* A: the input as a row-major [m, k] matrix. */
  KernelTemp ta, tw, tc;
  const void *da, *dw = NULL;
  void *product;
  bool in_place = out->scalar_type == ptype && _executorch_dim_order_is_identity (out) && out->data != input->data &&
                  out->data != weight->data && (bias == NULL || out->data != bias->data);
  EtError err;

  tw.data = tc.data = NULL;
  tw.heap = tc.heap = false;
  KERNEL_TRY (pack (ctx, input, ptype, &ta, &da));
  if (in_place)
    {
      product = out->data;
      err = ET_OK;
    }
  else
    {
      err = _executorch_temp_alloc (ctx, (size_t) (m * n) * es, &tc);
      product = tc.data;
    }
  if (err == ET_OK && ptype == ET_SCALAR_FLOAT && weight->scalar_type == ET_SCALAR_FLOAT)
    {
      FloatOperand fa = { da, k, 1, 0 };
      FloatOperand fw = { weight->data, weight->strides[1], weight->strides[0], 0 };
      err = sgemm_batched (ctx, 1, m, k, n, &fa, &fw, product);
    }
  else if (err == ET_OK)
    {
      /* B = weight^T as a row-major [k, n] matrix. */
      int64_t wt_sizes[2] = { k, n }, wt_strides[2] = { weight->strides[1], weight->strides[0] };
      err = pack_view (ctx, weight->data, weight->scalar_type, 2, wt_sizes, wt_strides, ptype, &tw, &dw);
      if (err == ET_OK && ptype == ET_SCALAR_FLOAT)
        {
          FloatOperand fa = { da, k, 1, 0 }, fw = { dw, n, 1, 0 };
          err = sgemm_batched (ctx, 1, m, k, n, &fa, &fw, product);
        }
      else if (err == ET_OK)
        {
          gemm (ptype, m, k, n, da, dw, product);
        }
    }

  if (err == ET_OK && bias != NULL)
    {
      /* Add the bias row, in the compute kind of ptype. */
      KernelComputeKind kind = _executorch_compute_kind (ptype);
      KernelTemp tb;
      err = _executorch_temp_alloc (ctx, (size_t) n * 8, &tb);
      if (err == ET_OK)
        {
          int64_t bstride = bias->numel == 1 ? 0 : (bias->ndim == 1 ? bias->strides[0] : 0);
          _executorch_load_kind (kind, bias->scalar_type, bias->data, 0, bstride, n, tb.data);
          for (int64_t i = 0; i < m; i++)
            {
              switch (kind)
                {
                  case KERNEL_COMPUTE_F32:
                    {
                      float *row = (float *) product + i * n;
                      const float *bv = tb.data;
                      for (int64_t j = 0; j < n; j++)
                        row[j] += bv[j];
                      break;
                    }
                  case KERNEL_COMPUTE_F64:
                    {
                      double *row = (double *) product + i * n;
                      const double *bv = tb.data;
                      for (int64_t j = 0; j < n; j++)
                        row[j] += bv[j];
                      break;
                    }
                  case KERNEL_COMPUTE_I64:
                    {
                      int64_t *row = (int64_t *) product + i * n;
                      const int64_t *bv = tb.data;
                      for (int64_t j = 0; j < n; j++)
                        row[j] = (int64_t) ((uint64_t) row[j] + (uint64_t) bv[j]);
                      break;
                    }
                }
            }
          _executorch_temp_free (&tb);
        }
    }
  if (err == ET_OK && !in_place)
    {
      int64_t strides[ET_MAX_DIMS];
      _executorch_contiguous_strides (out->ndim, out->sizes, strides);
      err = _executorch_copy_strided (ctx, out->ndim, out->sizes, out->dim_order, out->data, out->scalar_type, 0,
                                      out->strides, product, ptype, 0, strides);
    }
  _executorch_temp_free (&tc);
  _executorch_temp_free (&tw);
  _executorch_temp_free (&ta);
  return err;
}

const EtKernel _executorch_linalg_kernels[] = {
  { "aten::mm.out", mm_out, NULL },
  { "aten::bmm.out", bmm_out, NULL },
  { "aten::addmm.out", addmm_out, NULL },
  { "aten::linear.out", linear_out, NULL },
};

const size_t _executorch_linalg_n_kernels = KERNEL_N_ELEMENTS (_executorch_linalg_kernels);
