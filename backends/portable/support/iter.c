/* iter.c: broadcasting, strided iteration and layout-aware copies
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kernels-private.h"

#include <stdlib.h>
#include <string.h>

/* ---- Broadcasting ---- */

EtError
_executorch_broadcast_shape (EtKernelContext *ctx, uint32_t a_ndim, const int64_t *a_sizes, uint32_t b_ndim,
                             const int64_t *b_sizes, uint32_t *ndim, int64_t *sizes)
{
  uint32_t n = a_ndim > b_ndim ? a_ndim : b_ndim;
  char a_buf[160], b_buf[160];

  for (uint32_t k = 0; k < n; k++)
    {
      /* k counts from the right. */
      int64_t sa = k < a_ndim ? a_sizes[a_ndim - 1 - k] : 1;
      int64_t sb = k < b_ndim ? b_sizes[b_ndim - 1 - k] : 1;
      int64_t s;
      if (sa == sb || sb == 1)
        s = sa;
      else if (sa == 1)
        s = sb;
      else
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "shapes %s and %s do not broadcast",
                            _executorch_format_sizes (a_buf, sizeof a_buf, a_ndim, a_sizes),
                            _executorch_format_sizes (b_buf, sizeof b_buf, b_ndim, b_sizes));
      sizes[n - 1 - k] = s;
    }
  *ndim = n;
  return ET_OK;
}

bool
_executorch_broadcastable_to (const EtTensor *t, uint32_t ndim, const int64_t *sizes)
{
  if (t->ndim > ndim)
    return false;
  for (uint32_t k = 0; k < t->ndim; k++)
    {
      int64_t s = t->sizes[t->ndim - 1 - k];
      if (s != 1 && s != sizes[ndim - 1 - k])
        return false;
    }
  return true;
}

void
_executorch_broadcast_strides (const EtTensor *t, uint32_t ndim, const int64_t *sizes, int64_t *strides)
{
  uint32_t lead = ndim - t->ndim;
  for (uint32_t d = 0; d < ndim; d++)
    {
      if (d < lead)
        {
          strides[d] = 0;
        }
      else
        {
          uint32_t td = d - lead;
          strides[d] = (t->sizes[td] == 1 && sizes[d] != 1) ? 0 : t->strides[td];
        }
    }
}

/* ---- Iteration ---- */

void
_executorch_iter_init (KernelIter *it, uint32_t ndim, const int64_t *sizes, const uint8_t *order, uint32_t n_ops,
                       const int64_t *const *strides)
{
  int64_t list_sizes[ET_MAX_DIMS];
  int64_t list_strides[KERNEL_ITER_MAX_OPS][ET_MAX_DIMS];
  uint32_t n = 0;
  bool empty = false;

  memset (it, 0, sizeof *it);
  it->n_ops = n_ops;

  /* Outermost to innermost, dropping size-1 dimensions and merging a
   * dimension into the one outside it when every operand allows. */
  for (uint32_t j = 0; j < ndim; j++)
    {
      uint32_t d = order ? order[j] : j;
      if (sizes[d] == 0)
        empty = true;
      if (sizes[d] == 1)
        continue;
      if (n > 0)
        {
          bool merge = true;
          for (uint32_t k = 0; k < n_ops; k++)
            if (list_strides[k][n - 1] != strides[k][d] * sizes[d])
              merge = false;
          if (merge)
            {
              list_sizes[n - 1] *= sizes[d];
              for (uint32_t k = 0; k < n_ops; k++)
                list_strides[k][n - 1] = strides[k][d];
              continue;
            }
        }
      list_sizes[n] = sizes[d];
      for (uint32_t k = 0; k < n_ops; k++)
        list_strides[k][n] = strides[k][d];
      n++;
    }

  if (n == 0)
    {
      it->inner = 1;
      it->ndim = 0;
      it->n_rows = empty ? 0 : 1;
      return;
    }
  it->inner = list_sizes[n - 1];
  for (uint32_t k = 0; k < n_ops; k++)
    it->inner_strides[k] = list_strides[k][n - 1];
  it->ndim = n - 1;
  it->n_rows = 1;
  for (uint32_t d = 0; d + 1 < n; d++)
    {
      it->sizes[d] = list_sizes[d];
      for (uint32_t k = 0; k < n_ops; k++)
        it->strides[k][d] = list_strides[k][d];
      it->n_rows *= list_sizes[d];
    }
  if (empty)
    it->n_rows = 0;
}

void
_executorch_iter_next (KernelIter *it)
{
  for (uint32_t d = it->ndim; d-- > 0;)
    {
      it->index[d]++;
      for (uint32_t k = 0; k < it->n_ops; k++)
        it->offsets[k] += it->strides[k][d];
      if (it->index[d] < it->sizes[d])
        return;
      for (uint32_t k = 0; k < it->n_ops; k++)
        it->offsets[k] -= it->strides[k][d] * it->sizes[d];
      it->index[d] = 0;
    }
}

/* ---- Copies ---- */

#define STRIDED_COPY(T)                      \
  do                                         \
    {                                        \
      T *restrict d_ = (T *) d;              \
      const T *restrict s_ = (const T *) s;  \
      for (int64_t i = 0; i < it.inner; i++) \
        d_[i * ds] = s_[i * ss];             \
    }                                        \
  while (0)

/* d[r * drs + i] = s[r + i * ss] over rows x it.inner, in TILE x TILE blocks. */
#define TILE 32
#define TILED_COPY(T)                                                   \
  do                                                                    \
    {                                                                   \
      T *restrict d_ = (T *) d;                                         \
      const T *restrict s_ = (const T *) s;                             \
      for (int64_t r0 = 0; r0 < rows; r0 += TILE)                       \
        {                                                               \
          int64_t r1 = r0 + TILE < rows ? r0 + TILE : rows;             \
          for (int64_t i0 = 0; i0 < it.inner; i0 += TILE)               \
            {                                                           \
              int64_t i1 = i0 + TILE < it.inner ? i0 + TILE : it.inner; \
              for (int64_t r = r0; r < r1; r++)                         \
                for (int64_t i = i0; i < i1; i++)                       \
                  d_[r * drs + i] = s_[r + i * ss];                     \
            }                                                           \
        }                                                               \
    }                                                                   \
  while (0)

EtError
_executorch_copy_strided (EtKernelContext *ctx, uint32_t ndim, const int64_t *sizes, const uint8_t *order, void *dst,
                          int dst_type, int64_t dst_offset, const int64_t *dst_strides, const void *src, int src_type,
                          int64_t src_offset, const int64_t *src_strides)
{
  const int64_t *strides[2] = { dst_strides, src_strides };
  KernelIter it;

  if (dst_type != src_type && (!_executorch_type_is_supported (dst_type) || !_executorch_type_is_supported (src_type)))
    return KERNEL_FAIL (ctx, ET_ERROR_NOT_SUPPORTED, "cannot convert %s to %s", _executorch_type_name (src_type),
                        _executorch_type_name (dst_type));

  _executorch_iter_init (&it, ndim, sizes, order, 2, strides);

  if (dst_type == src_type)
    {
      size_t es = _executorch_type_size (dst_type);
      int64_t ds = it.inner_strides[0], ss = it.inner_strides[1];

      /* A transpose-like walk (src contiguous along the next-outer dim,
     * not along the inner one): copy in square tiles. */
      if (it.ndim >= 1 && ds == 1 && ss != 1 && it.strides[1][it.ndim - 1] == 1 &&
          (es == 1 || es == 2 || es == 4 || es == 8))
        {
          int64_t rows = it.sizes[it.ndim - 1];
          int64_t drs = it.strides[0][it.ndim - 1];
          for (int64_t g = 0; g < it.n_rows; g += rows)
            {
              char *d = (char *) dst + (size_t) (dst_offset + it.offsets[0]) * es;
              const char *s = (const char *) src + (size_t) (src_offset + it.offsets[1]) * es;
              switch (es)
                {
                  case 1: TILED_COPY (uint8_t); break;
                  case 2: TILED_COPY (uint16_t); break;
                  case 4: TILED_COPY (uint32_t); break;
                  default: TILED_COPY (uint64_t); break;
                }
              for (int64_t r = 0; r < rows; r++)
                _executorch_iter_next (&it);
            }
          return ET_OK;
        }

      for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it))
        {
          char *d = (char *) dst + (size_t) (dst_offset + it.offsets[0]) * es;
          const char *s = (const char *) src + (size_t) (src_offset + it.offsets[1]) * es;
          if ((ds == 1 && ss == 1) || it.inner == 1)
            {
              /* memmove: a hostile plan may place source and destination so
         * that they overlap (test-mutations). */
              memmove (d, s, (size_t) it.inner * es);
              continue;
            }
          switch (es)
            {
              case 1: STRIDED_COPY (uint8_t); break;
              case 2: STRIDED_COPY (uint16_t); break;
              case 4: STRIDED_COPY (uint32_t); break;
              case 8: STRIDED_COPY (uint64_t); break;
              default:
                for (int64_t i = 0; i < it.inner; i++)
                  memmove (d + (size_t) (i * ds) * es, s + (size_t) (i * ss) * es, es);
                break;
            }
        }
      return ET_OK;
    }

  /* Converting copy through a chunk buffer in the destination's kind. */
  KernelComputeKind kind;
  if (_executorch_type_is_floating (dst_type))
    kind = _executorch_compute_kind (dst_type);
  else if (_executorch_type_is_floating (src_type))
    kind = KERNEL_COMPUTE_F64;
  else
    kind = KERNEL_COMPUTE_I64;

  union
  {
    int64_t i[KERNEL_CHUNK];
    float f[KERNEL_CHUNK];
    double d[KERNEL_CHUNK];
  } buf;
  for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it))
    {
      for (int64_t j = 0; j < it.inner; j += KERNEL_CHUNK)
        {
          int64_t m = it.inner - j < KERNEL_CHUNK ? it.inner - j : KERNEL_CHUNK;
          _executorch_load_kind (kind, src_type, src, src_offset + it.offsets[1] + j * it.inner_strides[1],
                                 it.inner_strides[1], m, &buf);
          _executorch_store_kind (kind, dst_type, dst, dst_offset + it.offsets[0] + j * it.inner_strides[0],
                                  it.inner_strides[0], m, &buf);
        }
    }
  return ET_OK;
}

EtError
_executorch_copy_broadcast (EtKernelContext *ctx, EtTensor *dst, const EtTensor *src)
{
  int64_t src_strides[ET_MAX_DIMS];
  char a[160], b[160];

  if (!_executorch_broadcastable_to (src, dst->ndim, dst->sizes))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "shape %s does not broadcast to %s",
                        _executorch_format_sizes (a, sizeof a, src->ndim, src->sizes),
                        _executorch_format_sizes (b, sizeof b, dst->ndim, dst->sizes));
  if (dst->numel == 0)
    return ET_OK;
  _executorch_broadcast_strides (src, dst->ndim, dst->sizes, src_strides);
  return _executorch_copy_strided (ctx, dst->ndim, dst->sizes, dst->dim_order, dst->data, dst->scalar_type, 0,
                                   dst->strides, src->data, src->scalar_type, 0, src_strides);
}

EtError
_executorch_resize_copy (EtKernelContext *ctx, EtTensor *out, const EtTensor *self)
{
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  if (out->numel == 0 || out->data == self->data)
    return ET_OK;
  return _executorch_copy_strided (ctx, self->ndim, self->sizes, out->dim_order, out->data, out->scalar_type, 0,
                                   out->strides, self->data, self->scalar_type, 0, self->strides);
}

EtError
_executorch_copy_reshape (EtKernelContext *ctx, EtTensor *dst, const EtTensor *src)
{
  int64_t flat[ET_MAX_DIMS];

  if (dst->numel != src->numel)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cannot reshape %" PRId64 " elements into %" PRId64, src->numel,
                        dst->numel);
  if (dst->numel == 0)
    return ET_OK;

  if (_executorch_dim_order_is_identity (src))
    {
      /* Read src as a flat array, shaped like dst. */
      _executorch_contiguous_strides (dst->ndim, dst->sizes, flat);
      return _executorch_copy_strided (ctx, dst->ndim, dst->sizes, dst->dim_order, dst->data, dst->scalar_type, 0,
                                       dst->strides, src->data, src->scalar_type, 0, flat);
    }
  if (_executorch_dim_order_is_identity (dst))
    {
      /* Write dst as a flat array, shaped like src. */
      _executorch_contiguous_strides (src->ndim, src->sizes, flat);
      return _executorch_copy_strided (ctx, src->ndim, src->sizes, src->dim_order, dst->data, dst->scalar_type, 0, flat,
                                       src->data, src->scalar_type, 0, src->strides);
    }

  /* Neither is contiguous: go through a row-major copy of src. */
  KernelTemp temp;
  EtError err;
  size_t es = _executorch_type_size (src->scalar_type);
  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) src->numel * es, &temp));
  _executorch_contiguous_strides (src->ndim, src->sizes, flat);
  err = _executorch_copy_strided (ctx, src->ndim, src->sizes, src->dim_order, temp.data, src->scalar_type, 0, flat,
                                  src->data, src->scalar_type, 0, src->strides);
  if (err == ET_OK)
    {
      _executorch_contiguous_strides (dst->ndim, dst->sizes, flat);
      err = _executorch_copy_strided (ctx, dst->ndim, dst->sizes, dst->dim_order, dst->data, dst->scalar_type, 0,
                                      dst->strides, temp.data, src->scalar_type, 0, flat);
    }
  _executorch_temp_free (&temp);
  return err;
}

/* ---- Temporary memory ---- */

EtError
_executorch_temp_alloc (EtKernelContext *ctx, size_t nbytes, KernelTemp *temp)
{
  size_t rounded;

  if (nbytes == 0)
    nbytes = 1;
  rounded = (nbytes + 63) & ~(size_t) 63;
  if (rounded < nbytes)
    return KERNEL_FAIL (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED, "temporary of %zu bytes", nbytes);

  temp->heap = false;
  temp->data = ctx != NULL ? et_kernel_context_scratch (ctx, rounded) : NULL;
  if (temp->data != NULL)
    return ET_OK;
  temp->data = aligned_alloc (64, rounded);
  if (temp->data == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED, "cannot allocate %zu bytes of temporary memory",
                        nbytes);
  temp->heap = true;
  return ET_OK;
}

void
_executorch_temp_free (KernelTemp *temp)
{
  if (temp->heap)
    free (temp->data);
  temp->data = NULL;
  temp->heap = false;
}
