/* linear-algebra.c: mm, bmm and addmm
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * All three run one blocked row-major GEMM.  Operands that are not
 * contiguous, or whose dtype is not a compute type, are first packed into
 * a row-major temporary (Half and BFloat16 are computed in float, the
 * integer types in wrapping 64-bit arithmetic).  Each output element sums
 * over k in increasing order, as a naive loop would.
 */
#include "kernels-private.h"

#include <string.h>

/* Block sizes: a KC x NC panel of B (512 KiB of floats) is reused by every
 * group of four rows of A. */
#define KC 256
#define NC 512

#define GEMM(NAME, T) \
  static void NAME (int64_t m, int64_t k, int64_t n, const T *restrict A, const T *restrict B, \
                    T *restrict C) \
  { \
    memset (C, 0, (size_t) (m * n) * sizeof (T)); \
    for (int64_t kk = 0; kk < k; kk += KC) { \
      int64_t kend = kk + KC < k ? kk + KC : k; \
      for (int64_t jj = 0; jj < n; jj += NC) { \
        int64_t nb = jj + NC < n ? NC : n - jj; \
        int64_t i = 0; \
        for (; i + 4 <= m; i += 4) { \
          T *restrict c0 = C + i * n + jj; \
          T *restrict c1 = c0 + n; \
          T *restrict c2 = c1 + n; \
          T *restrict c3 = c2 + n; \
          for (int64_t p = kk; p < kend; p++) { \
            const T *restrict b = B + p * n + jj; \
            T a0 = A[i * k + p], a1 = A[(i + 1) * k + p]; \
            T a2 = A[(i + 2) * k + p], a3 = A[(i + 3) * k + p]; \
            for (int64_t j = 0; j < nb; j++) { \
              T bv = b[j]; \
              c0[j] += a0 * bv; \
              c1[j] += a1 * bv; \
              c2[j] += a2 * bv; \
              c3[j] += a3 * bv; \
            } \
          } \
        } \
        for (; i < m; i++) { \
          T *restrict c0 = C + i * n + jj; \
          for (int64_t p = kk; p < kend; p++) { \
            const T *restrict b = B + p * n + jj; \
            T a0 = A[i * k + p]; \
            for (int64_t j = 0; j < nb; j++) \
              c0[j] += a0 * b[j]; \
          } \
        } \
      } \
    } \
  }

GEMM (gemm_f32, float)
GEMM (gemm_f64, double)
GEMM (gemm_u64, uint64_t)

/* The dtype a matrix of @type is multiplied in, or -1. */
static int
pack_type (int type)
{
  switch (type) {
  case ET_SCALAR_FLOAT:
  case ET_SCALAR_HALF:
  case ET_SCALAR_BFLOAT16:
    return ET_SCALAR_FLOAT;
  case ET_SCALAR_DOUBLE:
    return ET_SCALAR_DOUBLE;
  case ET_SCALAR_BYTE:
  case ET_SCALAR_CHAR:
  case ET_SCALAR_SHORT:
  case ET_SCALAR_INT:
  case ET_SCALAR_LONG:
    return ET_SCALAR_LONG;
  default:
    return -1;
  }
}

/* Row-major data of @t in @ptype: @t's own buffer when it already is. */
static EtError
pack (EtKernelContext *ctx, const EtTensor *t, int ptype, ExecutorchTemp *temp, const void **data)
{
  int64_t strides[ET_MAX_DIMS];

  temp->data = NULL;
  temp->heap = false;
  if (t->scalar_type == ptype && _executorch_dim_order_is_identity (t)) {
    *data = t->data;
    return ET_OK;
  }
  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) t->numel * _executorch_type_size (ptype), temp));
  _executorch_contiguous_strides (t->ndim, t->sizes, strides);
  KERNEL_TRY (_executorch_copy_strided (ctx, t->ndim, t->sizes, NULL, temp->data, ptype, 0, strides,
                                        t->data, t->scalar_type, 0, t->strides));
  *data = temp->data;
  return ET_OK;
}

static void
gemm (int ptype, int64_t m, int64_t k, int64_t n, const void *A, const void *B, void *C)
{
  switch (ptype) {
  case ET_SCALAR_FLOAT:
    gemm_f32 (m, k, n, A, B, C);
    break;
  case ET_SCALAR_DOUBLE:
    gemm_f64 (m, k, n, A, B, C);
    break;
  default:
    gemm_u64 (m, k, n, A, B, C);
    break;
  }
}

/* out[b] = a[b] @ c[b] for @batch batches of [m,k] @ [k,n].  On success
 * *product points at a row-major [batch,m,n] result in @ptype: out's own
 * buffer (@in_place) or @temp, which the caller frees. */
static EtError
batched_product (EtKernelContext *ctx, const EtTensor *a, const EtTensor *c, EtTensor *out,
                 int ptype, int64_t batch, int64_t m, int64_t k, int64_t n, ExecutorchTemp *temp,
                 void **product, bool *in_place)
{
  ExecutorchTemp ta, tc;
  const void *da, *dc;
  size_t es = _executorch_type_size (ptype);
  EtError err;

  temp->data = NULL;
  temp->heap = false;
  KERNEL_TRY (pack (ctx, a, ptype, &ta, &da));
  err = pack (ctx, c, ptype, &tc, &dc);
  if (err != ET_OK) {
    _executorch_temp_free (&ta);
    return err;
  }

  *in_place = out->scalar_type == ptype && _executorch_dim_order_is_identity (out) &&
              out->data != a->data && out->data != c->data;
  if (*in_place) {
    *product = out->data;
  } else {
    err = _executorch_temp_alloc (ctx, (size_t) (batch * m * n) * es, temp);
    *product = temp->data;
  }
  if (err == ET_OK) {
    for (int64_t b = 0; b < batch; b++)
      gemm (ptype, m, k, n, (const char *) da + (size_t) (b * m * k) * es,
            (const char *) dc + (size_t) (b * k * n) * es, (char *) *product + (size_t) (b * m * n) * es);
  }
  _executorch_temp_free (&tc);
  _executorch_temp_free (&ta);
  return err;
}

static EtError
check_dtypes (EtKernelContext *ctx, const EtTensor *a, const EtTensor *b, const EtTensor *out,
              int *ptype)
{
  if (a->scalar_type != b->scalar_type || a->scalar_type != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "dtypes must match: %s, %s and out %s", _executorch_type_name (a->scalar_type),
                        _executorch_type_name (b->scalar_type),
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
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "operands must be %u-D, got %u-D and %u-D",
                        rank, a->ndim, c->ndim);
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

  ExecutorchTemp temp;
  void *product;
  bool in_place;
  KERNEL_TRY (batched_product (ctx, a, c, out, ptype, batch, m, k, n, &temp, &product, &in_place));
  EtError err = ET_OK;
  if (!in_place) {
    int64_t strides[ET_MAX_DIMS];
    _executorch_contiguous_strides (out->ndim, out->sizes, strides);
    err = _executorch_copy_strided (ctx, out->ndim, out->sizes, out->dim_order, out->data,
                                    out->scalar_type, 0, out->strides, product, ptype, 0, strides);
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

/* (self, mat1, mat2, beta, alpha, out, ret): beta * self + alpha * (mat1 @ mat2),
 * self broadcast to [m, n]; beta == 0 ignores self entirely. */
static EtError
addmm_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *a, *c, *out;
  ExecutorchScalar beta_s, alpha_s;
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
  if (self->scalar_type != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "self dtype %s differs from out dtype %s",
                        _executorch_type_name (self->scalar_type),
                        _executorch_type_name (out->scalar_type));
  if (a->ndim != 2 || c->ndim != 2 || a->sizes[1] != c->sizes[0])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "shapes %s and %s cannot be multiplied",
                        _executorch_format_sizes (sa, sizeof sa, a->ndim, a->sizes),
                        _executorch_format_sizes (sc, sizeof sc, c->ndim, c->sizes));

  int64_t m = a->sizes[0], k = a->sizes[1], n = c->sizes[1];
  int64_t sizes[2] = { m, n };
  if (!_executorch_broadcastable_to (self, 2, sizes))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "self %s does not broadcast to [%" PRId64
                        ", %" PRId64 "]",
                        _executorch_format_sizes (sa, sizeof sa, self->ndim, self->sizes), m, n);

  union {
    int64_t i;
    float f;
    double d;
  } beta, alpha;
  int out_type = out->scalar_type;
  KERNEL_TRY (_executorch_scalar_to_compute (ctx, &beta_s, out_type, "beta", &beta));
  KERNEL_TRY (_executorch_scalar_to_compute (ctx, &alpha_s, out_type, "alpha", &alpha));
  KERNEL_TRY (_executorch_resize (ctx, out, 2, sizes));
  if (out->numel == 0)
    return ET_OK;

  ExecutorchTemp temp;
  void *product;
  bool in_place;
  KERNEL_TRY (batched_product (ctx, a, c, out, ptype, 1, m, k, n, &temp, &product, &in_place));

  /* out = beta * self + alpha * product, in out's memory order. */
  ExecutorchComputeKind kind = _executorch_compute_kind (out_type);
  bool use_self = !(beta_s.d == 0.0);
  int64_t p_strides[2] = { n, 1 }, s_strides[2];
  const int64_t *strides[3] = { out->strides, p_strides, s_strides };
  ExecutorchIter it;
  union {
    int64_t i[EXECUTORCH_CHUNK];
    float f[EXECUTORCH_CHUNK];
    double d[EXECUTORCH_CHUNK];
  } bp, bs;

  _executorch_broadcast_strides (self, 2, sizes, s_strides);
  _executorch_iter_init (&it, 2, sizes, out->dim_order, 3, strides);
  for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it)) {
    for (int64_t j = 0; j < it.inner; j += EXECUTORCH_CHUNK) {
      int64_t cnt = it.inner - j < EXECUTORCH_CHUNK ? it.inner - j : EXECUTORCH_CHUNK;
      _executorch_load_kind (kind, ptype, product, it.offsets[1] + j * it.inner_strides[1],
                             it.inner_strides[1], cnt, &bp);
      if (use_self)
        _executorch_load_kind (kind, self->scalar_type, self->data,
                               it.offsets[2] + j * it.inner_strides[2], it.inner_strides[2], cnt, &bs);
      switch (kind) {
      case EXECUTORCH_COMPUTE_F32:
        for (int64_t q = 0; q < cnt; q++)
          bp.f[q] = alpha.f * bp.f[q] + (use_self ? beta.f * bs.f[q] : 0.0f);
        break;
      case EXECUTORCH_COMPUTE_F64:
        for (int64_t q = 0; q < cnt; q++)
          bp.d[q] = alpha.d * bp.d[q] + (use_self ? beta.d * bs.d[q] : 0.0);
        break;
      case EXECUTORCH_COMPUTE_I64:
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

const EtKernel _executorch_linalg_kernels[] = {
  { "aten::mm.out", mm_out, NULL },
  { "aten::bmm.out", bmm_out, NULL },
  { "aten::addmm.out", addmm_out, NULL },
};

const size_t _executorch_linalg_n_kernels = KERNEL_N_ELEMENTS (_executorch_linalg_kernels);
