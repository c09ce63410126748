/* index.c: embedding, advanced indexing, gather/scatter, masks and nonzero
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every index read from data is bounds-checked before anything is
 * addressed with it.  index.Tensor and index_put wrap negative indices, as
 * eager PyTorch does; embedding, index_select, gather and scatter reject
 * them, as eager PyTorch does.  Index tensors may be Long or Int; Bool and
 * Byte index tensors given to index/index_put are masks.
 *
 * index.Tensor and index_put share one plan: the index tensors (masks
 * turned into coordinates) are broadcast to a shape B, each position of B
 * is turned into an element offset into the indexed tensor, and the result
 * is walked as (dims before the indexed block) x B x (dims after it), the
 * trailing block being one memcpy when it is compact, so the KV-cache write
 * `cache[:, :, pos] = v` costs one row copy per (batch, head, position).
 */
#include "kernels-private.h"

#include <string.h>

/* ---- Small helpers ---- */

static EtError
check_index_dtype (EtKernelContext *ctx, const EtTensor *t, const char *op, const char *name)
{
  if (t->scalar_type != ET_SCALAR_LONG && t->scalar_type != ET_SCALAR_INT)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s must be Long or Int, not %s", op, name,
                        _executorch_type_name (t->scalar_type));
  return ET_OK;
}

static EtError
check_same_type (EtKernelContext *ctx, const EtTensor *a, const char *a_name, const EtTensor *b, const char *b_name,
                 const char *op)
{
  if (a->scalar_type != b->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s dtype %s differs from %s dtype %s", op, a_name,
                        _executorch_type_name (a->scalar_type), b_name, _executorch_type_name (b->scalar_type));
  return ET_OK;
}

static inline int64_t
read_index (int type, const void *data, int64_t off)
{
  return type == ET_SCALAR_LONG ? ((const int64_t *) data)[off] : (int64_t) ((const int32_t *) data)[off];
}

/* Checks @v against @size; wraps negatives when @wrap. */
static EtError
check_index (EtKernelContext *ctx, const char *op, int64_t *v, int64_t size, uint32_t dim, bool wrap)
{
  int64_t x = *v;
  if (wrap && x < 0 && x >= -size)
    x += size;
  if (x < 0 || x >= size)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: index %" PRId64 " is out of bounds for dim %u with size %" PRId64, op, *v, dim, size);
  *v = x;
  return ET_OK;
}

/* Copies @n elements of @es bytes with element strides. */
static void
copy_elems (void *dst, int64_t dst_off, int64_t dst_stride, const void *src, int64_t src_off, int64_t src_stride,
            int64_t n, size_t es)
{
  char *d = (char *) dst + (size_t) dst_off * es;
  const char *s = (const char *) src + (size_t) src_off * es;
  if (n <= 0)
    return;
  if (dst_stride == 1 && src_stride == 1)
    {
      memcpy (d, s, (size_t) n * es);
      return;
    }
  for (int64_t i = 0; i < n; i++)
    memcpy (d + (ptrdiff_t) (i * dst_stride) * (ptrdiff_t) es, s + (ptrdiff_t) (i * src_stride) * (ptrdiff_t) es, es);
}

static bool
elem_nonzero (int type, const void *data, int64_t off)
{
  switch (type)
    {
      case ET_SCALAR_BYTE:
      case ET_SCALAR_CHAR:
      case ET_SCALAR_BOOL: return ((const uint8_t *) data)[off] != 0;
      case ET_SCALAR_SHORT: return ((const int16_t *) data)[off] != 0;
      case ET_SCALAR_HALF:
      case ET_SCALAR_BFLOAT16: return (((const uint16_t *) data)[off] & 0x7fffu) != 0;
      case ET_SCALAR_INT: return ((const int32_t *) data)[off] != 0;
      case ET_SCALAR_LONG: return ((const int64_t *) data)[off] != 0;
      case ET_SCALAR_FLOAT: return ((const float *) data)[off] != 0.0f;
      case ET_SCALAR_DOUBLE: return ((const double *) data)[off] != 0.0;
      default: return false;
    }
}

/* Advances a row-major multi-index @idx over @sizes, keeping @n_ops offsets. */
static inline void
odometer_next (uint32_t ndim, const int64_t *sizes, int64_t *idx, uint32_t n_ops, const int64_t (*strides)[ET_MAX_DIMS],
               int64_t *off)
{
  for (uint32_t d = ndim; d-- > 0;)
    {
      idx[d]++;
      for (uint32_t k = 0; k < n_ops; k++)
        off[k] += strides[k][d];
      if (idx[d] < sizes[d])
        return;
      for (uint32_t k = 0; k < n_ops; k++)
        off[k] -= strides[k][d] * sizes[d];
      idx[d] = 0;
    }
}

/* @t's strides aligned right to @ndim dims, 0 where it broadcasts. */
static void
bcast_strides (uint32_t t_ndim, const int64_t *t_sizes, const int64_t *t_strides, uint32_t ndim, const int64_t *sizes,
               int64_t *strides)
{
  uint32_t lead = ndim - t_ndim;
  for (uint32_t d = 0; d < ndim; d++)
    {
      if (d < lead)
        strides[d] = 0;
      else
        strides[d] = (t_sizes[d - lead] == 1 && sizes[d] != 1) ? 0 : t_strides[d - lead];
    }
}

/* True when @strides walk @sizes as one dense row-major run. */
static bool
is_compact (uint32_t ndim, const int64_t *sizes, const int64_t *strides)
{
  int64_t expect = 1;
  for (uint32_t d = ndim; d-- > 0;)
    {
      if (sizes[d] == 1)
        continue;
      if (strides[d] != expect)
        return false;
      expect *= sizes[d];
    }
  return true;
}

static EtError
arg_opt_tensor_list (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *op, const EtValueList **list)
{
  const EtValue *v = args[i];
  if (v == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: argument %u (indices) is missing", op, i);
  if (v->tag != ET_VALUE_LIST_OPTIONAL_TENSOR && v->tag != ET_VALUE_LIST_TENSOR)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: argument %u (indices) must be a list of optional tensors",
                        op, i);
  if (v->u.list.length > 0 && v->u.list.items == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: indices has no items", op);
  for (uint32_t k = 0; k < v->u.list.length; k++)
    {
      const EtValue *item = v->u.list.items[k];
      if (item == NULL || item->tag == ET_VALUE_NONE)
        continue;
      if (item->tag != ET_VALUE_TENSOR || item->u.tensor == NULL)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: indices item %u is not a Tensor or None", op, k);
      KERNEL_TRY (_executorch_check_tensor (ctx, item->u.tensor, "indices"));
    }
  *list = &v->u.list;
  return ET_OK;
}

/* ---- The advanced-indexing plan ---- */

typedef struct
{
  const void *data;
  int type; /* Long or Int */
  uint32_t ndim;
  int64_t sizes[ET_MAX_DIMS];
  int64_t strides[ET_MAX_DIMS];
  uint32_t dim; /* the dimension of the indexed tensor */
} IndexSrc;

typedef struct
{
  uint32_t n_src;
  IndexSrc src[ET_MAX_DIMS];
  bool indexed[ET_MAX_DIMS];
  uint32_t b_ndim;
  int64_t b_sizes[ET_MAX_DIMS];
  int64_t nb;
  bool adjacent;
  uint32_t first, last; /* indexed block when adjacent */
  /* The result: (pre dims) x B x (post dims). */
  uint32_t res_ndim;
  int64_t res_sizes[ET_MAX_DIMS];
  uint32_t n_pre, n_post;
  uint32_t pre[ET_MAX_DIMS], post[ET_MAX_DIMS]; /* indexed tensor's dims */
  KernelTemp coords;                            /* mask coordinates (Long) */
  KernelTemp offsets;                           /* nb element offsets */
} IndexPlan;

static void
plan_clear (IndexPlan *plan)
{
  _executorch_temp_free (&plan->coords);
  _executorch_temp_free (&plan->offsets);
}

static bool
is_mask_type (int type)
{
  return type == ET_SCALAR_BOOL || type == ET_SCALAR_BYTE;
}

static int64_t
count_true (const EtTensor *m)
{
  int64_t idx[ET_MAX_DIMS] = { 0 }, off = 0, n = 0;
  const int64_t (*strides)[ET_MAX_DIMS] = (const int64_t (*)[ET_MAX_DIMS]) m->strides;
  for (int64_t e = 0; e < m->numel; e++)
    {
      if (((const uint8_t *) m->data)[off] != 0)
        n++;
      odometer_next (m->ndim, m->sizes, idx, 1, strides, &off);
    }
  return n;
}

/* Builds the plan of indexing @self (sizes only) with @list; @strides are
 * the strides the offsets are computed with (the indexed tensor's). */
static EtError
plan_build (EtKernelContext *ctx, const char *op, const EtTensor *self, const int64_t *strides, const EtValueList *list,
            IndexPlan *plan)
{
  uint32_t pos = 0;
  int64_t n_coords = 0;
  char sa[160], sb[160];

  memset (plan, 0, sizeof *plan);

  /* Pass 1: check the entries and size the mask coordinates. */
  for (uint32_t k = 0; k < list->length; k++)
    {
      const EtValue *item = list->items[k];
      if (item == NULL || item->tag == ET_VALUE_NONE)
        {
          pos++;
          continue;
        }
      const EtTensor *t = item->u.tensor;
      if (is_mask_type (t->scalar_type))
        {
          if (t->ndim == 0)
            return KERNEL_FAIL (ctx, ET_ERROR_NOT_SUPPORTED, "%s: 0-d mask indices are not supported", op);
          if (pos + t->ndim > self->ndim)
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: too many indices for a %u-D tensor", op,
                                self->ndim);
          for (uint32_t j = 0; j < t->ndim; j++)
            if (t->sizes[j] != self->sizes[pos + j])
              return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                                  "%s: mask %u of shape %s does not match dims %u.. of shape %s", op, k,
                                  _executorch_format_sizes (sa, sizeof sa, t->ndim, t->sizes), pos,
                                  _executorch_format_sizes (sb, sizeof sb, self->ndim, self->sizes));
          n_coords += count_true (t) * t->ndim;
          pos += t->ndim;
        }
      else if (t->scalar_type == ET_SCALAR_LONG || t->scalar_type == ET_SCALAR_INT)
        {
          if (pos + 1 > self->ndim)
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: too many indices for a %u-D tensor", op,
                                self->ndim);
          pos++;
        }
      else
        {
          return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: indices %u must be Long, Int, Bool or Byte, not %s",
                              op, k, _executorch_type_name (t->scalar_type));
        }
    }

  /* Pass 2: one source per indexed dim. */
  if (n_coords > 0)
    KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) n_coords * sizeof (int64_t), &plan->coords));
  int64_t *coords = plan->coords.data;
  pos = 0;
  for (uint32_t k = 0; k < list->length; k++)
    {
      const EtValue *item = list->items[k];
      if (item == NULL || item->tag == ET_VALUE_NONE)
        {
          pos++;
          continue;
        }
      const EtTensor *t = item->u.tensor;
      if (is_mask_type (t->scalar_type))
        {
          int64_t n = count_true (t);
          int64_t idx[ET_MAX_DIMS] = { 0 }, off = 0, w = 0;
          const int64_t (*ms)[ET_MAX_DIMS] = (const int64_t (*)[ET_MAX_DIMS]) t->strides;
          for (uint32_t j = 0; j < t->ndim; j++)
            {
              IndexSrc *s = &plan->src[plan->n_src++];
              s->data = coords + (size_t) j * (size_t) n;
              s->type = ET_SCALAR_LONG;
              s->ndim = 1;
              s->sizes[0] = n;
              s->strides[0] = 1;
              s->dim = pos + j;
              plan->indexed[pos + j] = true;
            }
          for (int64_t e = 0; e < t->numel; e++)
            {
              if (((const uint8_t *) t->data)[off] != 0)
                {
                  for (uint32_t j = 0; j < t->ndim; j++)
                    coords[(size_t) j * (size_t) n + (size_t) w] = idx[j];
                  w++;
                }
              odometer_next (t->ndim, t->sizes, idx, 1, ms, &off);
            }
          coords += (size_t) n * t->ndim;
          pos += t->ndim;
        }
      else
        {
          IndexSrc *s = &plan->src[plan->n_src++];
          s->data = t->data;
          s->type = t->scalar_type;
          s->ndim = t->ndim;
          memcpy (s->sizes, t->sizes, sizeof s->sizes);
          memcpy (s->strides, t->strides, sizeof s->strides);
          s->dim = pos;
          plan->indexed[pos] = true;
          pos++;
        }
    }

  /* Broadcast the sources. */
  plan->b_ndim = 0;
  for (uint32_t s = 0; s < plan->n_src; s++)
    {
      uint32_t n;
      int64_t sizes[ET_MAX_DIMS];
      EtError err = _executorch_broadcast_shape (ctx, plan->b_ndim, plan->b_sizes, plan->src[s].ndim,
                                                 plan->src[s].sizes, &n, sizes);
      if (err != ET_OK)
        {
          plan_clear (plan);
          return err;
        }
      plan->b_ndim = n;
      memcpy (plan->b_sizes, sizes, sizeof sizes);
    }
  plan->nb = _executorch_numel (plan->b_ndim, plan->b_sizes);

  /* Result layout. */
  plan->adjacent = true;
  plan->first = self->ndim;
  plan->last = 0;
  for (uint32_t d = 0; d < self->ndim; d++)
    {
      if (!plan->indexed[d])
        continue;
      if (plan->first == self->ndim)
        plan->first = d;
      plan->last = d;
    }
  if (plan->n_src > 0)
    for (uint32_t d = plan->first; d <= plan->last; d++)
      if (!plan->indexed[d])
        plan->adjacent = false;

  uint32_t r = 0;
  if (plan->n_src > 0 && plan->adjacent)
    {
      for (uint32_t d = 0; d < plan->first; d++)
        plan->pre[plan->n_pre++] = d;
      for (uint32_t d = plan->last + 1; d < self->ndim; d++)
        plan->post[plan->n_post++] = d;
    }
  else
    {
      for (uint32_t d = 0; d < self->ndim; d++)
        if (!plan->indexed[d])
          plan->post[plan->n_post++] = d;
    }
  if (plan->n_pre + plan->b_ndim + plan->n_post > ET_MAX_DIMS)
    {
      plan_clear (plan);
      return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: result rank would exceed %d", op, ET_MAX_DIMS);
    }
  for (uint32_t j = 0; j < plan->n_pre; j++)
    plan->res_sizes[r++] = self->sizes[plan->pre[j]];
  for (uint32_t j = 0; j < plan->b_ndim; j++)
    plan->res_sizes[r++] = plan->b_sizes[j];
  for (uint32_t j = 0; j < plan->n_post; j++)
    plan->res_sizes[r++] = self->sizes[plan->post[j]];
  plan->res_ndim = r;

  /* Offsets of every position of B, every index checked. */
  if (plan->nb == 0 || _executorch_numel (plan->res_ndim, plan->res_sizes) == 0)
    return ET_OK;
  EtError err = _executorch_temp_alloc (ctx, (size_t) plan->nb * sizeof (int64_t), &plan->offsets);
  if (err != ET_OK)
    {
      plan_clear (plan);
      return err;
    }
  int64_t *offs = plan->offsets.data;
  int64_t bs[ET_MAX_DIMS][ET_MAX_DIMS];
  int64_t idx[ET_MAX_DIMS] = { 0 }, off[ET_MAX_DIMS] = { 0 };
  for (uint32_t s = 0; s < plan->n_src; s++)
    bcast_strides (plan->src[s].ndim, plan->src[s].sizes, plan->src[s].strides, plan->b_ndim, plan->b_sizes, bs[s]);
  for (int64_t b = 0; b < plan->nb; b++)
    {
      int64_t o = 0;
      for (uint32_t s = 0; s < plan->n_src; s++)
        {
          const IndexSrc *src = &plan->src[s];
          int64_t v = read_index (src->type, src->data, off[s]);
          err = check_index (ctx, op, &v, self->sizes[src->dim], src->dim, true);
          if (err != ET_OK)
            {
              plan_clear (plan);
              return err;
            }
          o += v * strides[src->dim];
        }
      offs[b] = o;
      odometer_next (plan->b_ndim, plan->b_sizes, idx, plan->n_src, (const int64_t (*)[ET_MAX_DIMS]) bs, off);
    }
  return ET_OK;
}

typedef enum
{
  WALK_GET,        /* result <- indexed */
  WALK_PUT,        /* indexed <- result */
  WALK_ACCUMULATE, /* indexed += result */
} WalkMode;

/* Walks the plan: @data (the indexed tensor, with @data_strides) and @res
 * (shaped like the plan's result, with @res_strides). */
static EtError
plan_walk (EtKernelContext *ctx, const IndexPlan *plan, WalkMode mode, int type, void *data,
           const int64_t *data_strides, void *res, const int64_t *res_strides)
{
  size_t es = _executorch_type_size (type);
  const int64_t *offs = plan->offsets.data;
  int64_t pre_sizes[ET_MAX_DIMS], post_sizes[ET_MAX_DIMS];
  int64_t ps[2][ET_MAX_DIMS], qs[2][ET_MAX_DIMS], bst[1][ET_MAX_DIMS];
  uint32_t r = 0;

  if (_executorch_numel (plan->res_ndim, plan->res_sizes) == 0)
    return ET_OK;
  for (uint32_t j = 0; j < plan->n_pre; j++, r++)
    {
      pre_sizes[j] = plan->res_sizes[r];
      ps[0][j] = data_strides[plan->pre[j]];
      ps[1][j] = res_strides[r];
    }
  for (uint32_t j = 0; j < plan->b_ndim; j++, r++)
    bst[0][j] = res_strides[r];
  for (uint32_t j = 0; j < plan->n_post; j++, r++)
    {
      post_sizes[j] = plan->res_sizes[r];
      qs[0][j] = data_strides[plan->post[j]];
      qs[1][j] = res_strides[r];
    }
  int64_t n_pre = _executorch_numel (plan->n_pre, pre_sizes);
  int64_t n_post = _executorch_numel (plan->n_post, post_sizes);
  bool compact = is_compact (plan->n_post, post_sizes, qs[0]) && is_compact (plan->n_post, post_sizes, qs[1]);
  KernelComputeKind kind = _executorch_compute_kind (type);

  int64_t pidx[ET_MAX_DIMS] = { 0 }, poff[2] = { 0, 0 };
  for (int64_t p = 0; p < n_pre; p++)
    {
      int64_t bidx[ET_MAX_DIMS] = { 0 }, boff = 0;
      for (int64_t b = 0; b < plan->nb; b++)
        {
          int64_t d_off = poff[0] + (plan->n_src ? offs[b] : 0);
          int64_t r_off = poff[1] + boff;
          if (mode != WALK_ACCUMULATE && (compact || n_post == 1))
            {
              if (mode == WALK_GET)
                memcpy ((char *) res + (size_t) r_off * es, (char *) data + (size_t) d_off * es, (size_t) n_post * es);
              else
                memcpy ((char *) data + (size_t) d_off * es, (char *) res + (size_t) r_off * es, (size_t) n_post * es);
            }
          else if (mode == WALK_GET)
            {
              KERNEL_TRY (_executorch_copy_strided (ctx, plan->n_post, post_sizes, NULL, res, type, r_off, qs[1], data,
                                                    type, d_off, qs[0]));
            }
          else if (mode == WALK_PUT)
            {
              KERNEL_TRY (_executorch_copy_strided (ctx, plan->n_post, post_sizes, NULL, data, type, d_off, qs[0], res,
                                                    type, r_off, qs[1]));
            }
          else
            {
              const int64_t *st[2] = { qs[0], qs[1] };
              KernelIter it;
              union
              {
                int64_t i[KERNEL_CHUNK];
                float f[KERNEL_CHUNK];
                double d[KERNEL_CHUNK];
              } a, v;
              _executorch_iter_init (&it, plan->n_post, post_sizes, NULL, 2, st);
              for (int64_t row = 0; row < it.n_rows; row++, _executorch_iter_next (&it))
                {
                  for (int64_t j = 0; j < it.inner; j += KERNEL_CHUNK)
                    {
                      int64_t m = it.inner - j < KERNEL_CHUNK ? it.inner - j : KERNEL_CHUNK;
                      int64_t da = d_off + it.offsets[0] + j * it.inner_strides[0];
                      int64_t ra = r_off + it.offsets[1] + j * it.inner_strides[1];
                      _executorch_load_kind (kind, type, data, da, it.inner_strides[0], m, &a);
                      _executorch_load_kind (kind, type, res, ra, it.inner_strides[1], m, &v);
                      for (int64_t k = 0; k < m; k++)
                        {
                          if (kind == KERNEL_COMPUTE_I64)
                            a.i[k] = (int64_t) ((uint64_t) a.i[k] + (uint64_t) v.i[k]);
                          else if (kind == KERNEL_COMPUTE_F32)
                            a.f[k] += v.f[k];
                          else
                            a.d[k] += v.d[k];
                        }
                      if (kind == KERNEL_COMPUTE_I64)
                        _executorch_wrap_i64 (type, m, a.i);
                      _executorch_store_kind (kind, type, data, da, it.inner_strides[0], m, &a);
                    }
                }
            }
          odometer_next (plan->b_ndim, plan->b_sizes, bidx, 1, (const int64_t (*)[ET_MAX_DIMS]) bst, &boff);
        }
      odometer_next (plan->n_pre, pre_sizes, pidx, 2, (const int64_t (*)[ET_MAX_DIMS]) ps, poff);
    }
  return ET_OK;
}

/* ---- index.Tensor ---- */

/* (self, indices, out, ret) */
static EtError
index_tensor_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "index.Tensor";
  EtTensor *self, *out;
  const EtValueList *list;
  IndexPlan plan;
  EtError err;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (arg_opt_tensor_list (ctx, args, 1, op, &list));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (check_same_type (ctx, out, "out", self, "self", op));
  KERNEL_TRY (plan_build (ctx, op, self, self->strides, list, &plan));
  err = _executorch_resize (ctx, out, plan.res_ndim, plan.res_sizes);
  if (err == ET_OK)
    err = plan_walk (ctx, &plan, WALK_GET, self->scalar_type, self->data, self->strides, out->data, out->strides);
  plan_clear (&plan);
  return err;
}

/* ---- index_put ---- */

static EtError
index_put_common (EtKernelContext *ctx, const char *op, EtTensor *target, const EtValueList *list, EtTensor *values,
                  bool accumulate)
{
  IndexPlan plan;
  int64_t vs[ET_MAX_DIMS];
  char sa[160], sb[160];
  EtError err;

  KERNEL_TRY (check_same_type (ctx, values, "values", target, "self", op));
  if (accumulate)
    KERNEL_TRY (_executorch_check_supported (ctx, target, "self"));
  KERNEL_TRY (plan_build (ctx, op, target, target->strides, list, &plan));
  /* Leading size-1 dims of values beyond the result's rank are dropped
   * (as eager PyTorch's setitem does); the rest must broadcast. */
  uint32_t lead = 0;
  while (values->ndim - lead > plan.res_ndim && values->sizes[lead] == 1)
    lead++;
  bool fits = values->ndim - lead <= plan.res_ndim;
  for (uint32_t k = 0; fits && k < values->ndim - lead; k++)
    {
      int64_t s = values->sizes[values->ndim - 1 - k];
      if (s != 1 && s != plan.res_sizes[plan.res_ndim - 1 - k])
        fits = false;
    }
  if (!fits)
    {
      err = KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: values of shape %s do not broadcast to %s", op,
                         _executorch_format_sizes (sa, sizeof sa, values->ndim, values->sizes),
                         _executorch_format_sizes (sb, sizeof sb, plan.res_ndim, plan.res_sizes));
      plan_clear (&plan);
      return err;
    }
  bcast_strides (values->ndim - lead, values->sizes + lead, values->strides + lead, plan.res_ndim, plan.res_sizes, vs);
  err = plan_walk (ctx, &plan, accumulate ? WALK_ACCUMULATE : WALK_PUT, target->scalar_type, target->data,
                   target->strides, values->data, vs);
  plan_clear (&plan);
  return err;
}

/* (self, indices, values, accumulate, out, ret) */
static EtError
index_put_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "index_put";
  EtTensor *self, *values, *out;
  const EtValueList *list;
  bool accumulate;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (arg_opt_tensor_list (ctx, args, 1, op, &list));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "values", &values));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 3, "accumulate", &accumulate));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (check_same_type (ctx, out, "out", self, "self", op));
  KERNEL_TRY (_executorch_resize_copy (ctx, out, self));
  return index_put_common (ctx, op, out, list, values, accumulate);
}

/* (self, indices, values, accumulate, ret): in place. */
static EtError
index_put_ (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "index_put_";
  EtTensor *self, *values;
  const EtValueList *list;
  bool accumulate;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (arg_opt_tensor_list (ctx, args, 1, op, &list));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "values", &values));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 3, "accumulate", &accumulate));
  return index_put_common (ctx, op, self, list, values, accumulate);
}

/* ---- embedding and index_select ---- */

/* (weight, indices, padding_idx, scale_grad_by_freq, sparse, out, ret) */
static EtError
embedding_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "embedding";
  EtTensor *weight, *indices, *out;
  int64_t padding_idx, sizes[ET_MAX_DIMS];
  bool scale_grad, sparse;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 7));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "weight", &weight));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "indices", &indices));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "padding_idx", &padding_idx));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 3, "scale_grad_by_freq", &scale_grad));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 4, "sparse", &sparse));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 5, "out", &out));
  if (weight->ndim != 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: weight must be 2-D, not %u-D", op, weight->ndim);
  KERNEL_TRY (check_index_dtype (ctx, indices, op, "indices"));
  KERNEL_TRY (check_same_type (ctx, out, "out", weight, "weight", op));
  if (indices->ndim + 1 > ET_MAX_DIMS)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: rank would exceed %d", op, ET_MAX_DIMS);
  memcpy (sizes, indices->sizes, indices->ndim * sizeof sizes[0]);
  sizes[indices->ndim] = weight->sizes[1];
  KERNEL_TRY (_executorch_resize (ctx, out, indices->ndim + 1, sizes));
  if (out->numel == 0)
    return ET_OK;

  size_t es = _executorch_type_size (weight->scalar_type);
  int64_t n_rows = weight->sizes[0], dim = weight->sizes[1];
  int64_t ws = weight->strides[1], os = out->strides[indices->ndim];
  int64_t idx[ET_MAX_DIMS] = { 0 }, off[2] = { 0, 0 };
  int64_t st[2][ET_MAX_DIMS];
  memcpy (st[0], indices->strides, sizeof st[0]);
  memcpy (st[1], out->strides, sizeof st[1]);
  for (int64_t e = 0; e < indices->numel; e++)
    {
      int64_t v = read_index (indices->scalar_type, indices->data, off[0]);
      KERNEL_TRY (check_index (ctx, op, &v, n_rows, 0, false));
      copy_elems (out->data, off[1], os, weight->data, v * weight->strides[0], ws, dim, es);
      odometer_next (indices->ndim, indices->sizes, idx, 2, (const int64_t (*)[ET_MAX_DIMS]) st, off);
    }
  return ET_OK;
}

/* (self, dim, index, out, ret) */
static EtError
index_select_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "index_select";
  EtTensor *self, *index, *out;
  int64_t dim, sizes[ET_MAX_DIMS], self_strides[ET_MAX_DIMS], out_strides[ET_MAX_DIMS];
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "index", &index));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (check_index_dtype (ctx, index, op, "index"));
  KERNEL_TRY (check_same_type (ctx, out, "out", self, "self", op));
  if (index->ndim > 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: index must be 0-D or 1-D, not %u-D", op, index->ndim);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, true, &d));
  if (self->ndim == 0)
    {
      if (index->numel != 1)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: a 0-d self needs exactly one index, got %" PRId64, op,
                            index->numel);
      int64_t v = read_index (index->scalar_type, index->data, 0);
      KERNEL_TRY (check_index (ctx, op, &v, 1, 0, false));
      KERNEL_TRY (_executorch_resize (ctx, out, 0, sizes));
      memcpy (out->data, self->data, _executorch_type_size (self->scalar_type));
      return ET_OK;
    }
  memcpy (sizes, self->sizes, self->ndim * sizeof sizes[0]);
  sizes[d] = index->numel;
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, sizes));
  if (out->numel == 0)
    return ET_OK;

  /* Check every index first, then copy one slice per index. */
  int64_t istride = index->ndim ? index->strides[0] : 1;
  for (int64_t k = 0; k < index->numel; k++)
    {
      int64_t v = read_index (index->scalar_type, index->data, k * istride);
      KERNEL_TRY (check_index (ctx, op, &v, self->sizes[d], d, false));
    }
  memcpy (self_strides, self->strides, sizeof self_strides);
  memcpy (out_strides, out->strides, sizeof out_strides);
  sizes[d] = 1;
  for (int64_t k = 0; k < index->numel; k++)
    {
      int64_t v = read_index (index->scalar_type, index->data, k * istride);
      KERNEL_TRY (_executorch_copy_strided (ctx, self->ndim, sizes, out->dim_order, out->data, out->scalar_type,
                                            k * out->strides[d], out_strides, self->data, self->scalar_type,
                                            v * self->strides[d], self_strides));
    }
  return ET_OK;
}

/* ---- gather and scatter ---- */

/* gather/scatter need index.ndim == self.ndim (0-d counts as 1-d) and
 * index sizes within @bound (except along @dim when @skip_dim). */
static EtError
check_index_shape (EtKernelContext *ctx, const char *op, const EtTensor *index, const EtTensor *bound,
                   const char *bound_name, uint32_t dim, bool skip_dim)
{
  uint32_t in = index->ndim ? index->ndim : 1, bn = bound->ndim ? bound->ndim : 1;
  char sa[160], sb[160];
  if (in != bn)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: index has rank %u but %s has rank %u", op, index->ndim,
                        bound_name, bound->ndim);
  for (uint32_t d = 0; d < index->ndim && bound->ndim > 0; d++)
    {
      if (skip_dim && d == dim)
        continue;
      if (index->sizes[d] > bound->sizes[d])
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            "%s: index of shape %s is larger than %s of shape %s in dim %u", op,
                            _executorch_format_sizes (sa, sizeof sa, index->ndim, index->sizes), bound_name,
                            _executorch_format_sizes (sb, sizeof sb, bound->ndim, bound->sizes), d);
    }
  return ET_OK;
}

/* Strides of @t over @index's shape (0-d tensors act as 1-d of size 1). */
static void
strides_over (const EtTensor *t, const EtTensor *index, int64_t *strides)
{
  for (uint32_t d = 0; d < index->ndim; d++)
    strides[d] = t->ndim ? t->strides[d] : 0;
}

/* (self, dim, index, sparse_grad, out, ret) */
static EtError
gather_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "gather";
  EtTensor *self, *index, *out;
  int64_t dim;
  bool sparse_grad;
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "index", &index));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 3, "sparse_grad", &sparse_grad));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (check_index_dtype (ctx, index, op, "index"));
  KERNEL_TRY (check_same_type (ctx, out, "out", self, "self", op));
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, true, &d));
  KERNEL_TRY (check_index_shape (ctx, op, index, self, "self", d, true));
  KERNEL_TRY (_executorch_resize (ctx, out, index->ndim, index->sizes));
  if (out->numel == 0)
    return ET_OK;

  size_t es = _executorch_type_size (self->scalar_type);
  int64_t size = self->ndim ? self->sizes[d] : 1;
  int64_t dstride = self->ndim ? self->strides[d] : 0;
  int64_t st[3][ET_MAX_DIMS], idx[ET_MAX_DIMS] = { 0 }, off[3] = { 0, 0, 0 };
  memcpy (st[0], index->strides, sizeof st[0]);
  memcpy (st[1], out->strides, sizeof st[1]);
  strides_over (self, index, st[2]);
  if (index->ndim > 0)
    st[2][d] = 0;
  for (int64_t e = 0; e < index->numel; e++)
    {
      int64_t v = read_index (index->scalar_type, index->data, off[0]);
      KERNEL_TRY (check_index (ctx, op, &v, size, d, false));
      memcpy ((char *) out->data + (size_t) off[1] * es,
              (const char *) self->data + (size_t) (off[2] + v * dstride) * es, es);
      odometer_next (index->ndim, index->sizes, idx, 3, (const int64_t (*)[ET_MAX_DIMS]) st, off);
    }
  return ET_OK;
}

typedef enum
{
  SCATTER_SRC,
  SCATTER_VALUE,
  SCATTER_ADD,
} ScatterMode;

/* (self, dim, index, src | value, out, ret) */
static EtError
scatter_common (EtKernelContext *ctx, EtValue **args, uint32_t n_args, ScatterMode mode)
{
  const char *op = mode == SCATTER_ADD ? "scatter_add" : "scatter";
  EtTensor *self, *index, *src = NULL, *out;
  KernelScalar value;
  uint8_t elem[16];
  int64_t dim;
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "index", &index));
  if (mode == SCATTER_VALUE)
    KERNEL_TRY (_executorch_arg_scalar (ctx, args, 3, "value", &value));
  else
    KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "src", &src));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (check_index_dtype (ctx, index, op, "index"));
  KERNEL_TRY (check_same_type (ctx, out, "out", self, "self", op));
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, true, &d));
  KERNEL_TRY (check_index_shape (ctx, op, index, self, "self", d, true));
  if (src != NULL)
    {
      KERNEL_TRY (check_same_type (ctx, src, "src", self, "self", op));
      KERNEL_TRY (check_index_shape (ctx, op, index, src, "src", d, false));
    }
  else
    {
      KERNEL_TRY (_executorch_check_supported (ctx, self, "self"));
      KERNEL_TRY (_executorch_scalar_to_element (ctx, &value, self->scalar_type, "value", elem));
    }
  if (mode == SCATTER_ADD)
    KERNEL_TRY (_executorch_check_supported (ctx, self, "self"));

  KERNEL_TRY (_executorch_resize_copy (ctx, out, self));
  if (out->numel == 0)
    return ET_OK;
  if (index->numel == 0)
    return ET_OK;

  size_t es = _executorch_type_size (self->scalar_type);
  KernelComputeKind kind = _executorch_compute_kind (self->scalar_type);
  int64_t size = self->ndim ? self->sizes[d] : 1;
  int64_t dstride = out->ndim ? out->strides[d] : 0;
  int64_t st[3][ET_MAX_DIMS], idx[ET_MAX_DIMS] = { 0 }, off[3] = { 0, 0, 0 };
  memcpy (st[0], index->strides, sizeof st[0]);
  if (src != NULL)
    strides_over (src, index, st[1]);
  else
    memset (st[1], 0, sizeof st[1]);
  strides_over (out, index, st[2]);
  if (index->ndim > 0)
    st[2][d] = 0;

  /* Check every index before writing, so a failure leaves out = self. */
  {
    int64_t cidx[ET_MAX_DIMS] = { 0 }, coff = 0;
    for (int64_t e = 0; e < index->numel; e++)
      {
        int64_t v = read_index (index->scalar_type, index->data, coff);
        KERNEL_TRY (check_index (ctx, op, &v, size, d, false));
        odometer_next (index->ndim, index->sizes, cidx, 1, (const int64_t (*)[ET_MAX_DIMS]) st, &coff);
      }
  }
  for (int64_t e = 0; e < index->numel; e++)
    {
      int64_t v = read_index (index->scalar_type, index->data, off[0]);
      int64_t o = off[2] + v * dstride;
      if (mode == SCATTER_VALUE)
        {
          memcpy ((char *) out->data + (size_t) o * es, elem, es);
        }
      else if (mode == SCATTER_SRC)
        {
          memcpy ((char *) out->data + (size_t) o * es, (const char *) src->data + (size_t) off[1] * es, es);
        }
      else
        {
          KernelKindValue a, b;
          _executorch_load_kind (kind, self->scalar_type, out->data, o, 1, 1, &a);
          _executorch_load_kind (kind, self->scalar_type, src->data, off[1], 1, 1, &b);
          if (kind == KERNEL_COMPUTE_I64)
            {
              a.i = (int64_t) ((uint64_t) a.i + (uint64_t) b.i);
              _executorch_wrap_i64 (self->scalar_type, 1, &a.i);
            }
          else if (kind == KERNEL_COMPUTE_F32)
            {
              a.f += b.f;
            }
          else
            {
              a.d += b.d;
            }
          _executorch_store_kind (kind, self->scalar_type, out->data, o, 1, 1, &a);
        }
      odometer_next (index->ndim, index->sizes, idx, 3, (const int64_t (*)[ET_MAX_DIMS]) st, off);
    }
  return ET_OK;
}

static EtError
scatter_src_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return scatter_common (ctx, args, n_args, SCATTER_SRC);
}

static EtError
scatter_value_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return scatter_common (ctx, args, n_args, SCATTER_VALUE);
}

static EtError
scatter_add_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return scatter_common (ctx, args, n_args, SCATTER_ADD);
}

/* ---- Masks and nonzero ---- */

static EtError
check_bool_mask (EtKernelContext *ctx, const EtTensor *mask, const char *op)
{
  if (mask->scalar_type != ET_SCALAR_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: mask must be Bool, not %s", op,
                        _executorch_type_name (mask->scalar_type));
  return ET_OK;
}

/* (self, mask, out, ret) */
static EtError
masked_select_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "masked_select";
  EtTensor *self, *mask, *out;
  int64_t sizes[ET_MAX_DIMS], st[2][ET_MAX_DIMS];
  uint32_t ndim;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "mask", &mask));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (check_bool_mask (ctx, mask, op));
  KERNEL_TRY (check_same_type (ctx, out, "out", self, "self", op));
  if (out->ndim != 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out must be 1-D, not %u-D", op, out->ndim);
  KERNEL_TRY (_executorch_broadcast_shape (ctx, self->ndim, self->sizes, mask->ndim, mask->sizes, &ndim, sizes));
  bcast_strides (self->ndim, self->sizes, self->strides, ndim, sizes, st[0]);
  bcast_strides (mask->ndim, mask->sizes, mask->strides, ndim, sizes, st[1]);
  int64_t total = _executorch_numel (ndim, sizes), count = 0;
  {
    int64_t idx[ET_MAX_DIMS] = { 0 }, off[2] = { 0, 0 };
    for (int64_t e = 0; e < total; e++)
      {
        if (((const uint8_t *) mask->data)[off[1]] != 0)
          count++;
        odometer_next (ndim, sizes, idx, 2, (const int64_t (*)[ET_MAX_DIMS]) st, off);
      }
  }
  KERNEL_TRY (_executorch_resize (ctx, out, 1, &count));
  if (count == 0)
    return ET_OK;
  size_t es = _executorch_type_size (self->scalar_type);
  int64_t idx[ET_MAX_DIMS] = { 0 }, off[2] = { 0, 0 }, w = 0;
  for (int64_t e = 0; e < total; e++)
    {
      if (((const uint8_t *) mask->data)[off[1]] != 0)
        {
          memcpy ((char *) out->data + (size_t) (w * out->strides[0]) * es,
                  (const char *) self->data + (size_t) off[0] * es, es);
          w++;
        }
      odometer_next (ndim, sizes, idx, 2, (const int64_t (*)[ET_MAX_DIMS]) st, off);
    }
  return ET_OK;
}

/* (self, mask, source, out, ret) */
static EtError
masked_scatter_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "masked_scatter";
  EtTensor *self, *mask, *source, *out;
  int64_t sizes[ET_MAX_DIMS], st[2][ET_MAX_DIMS];
  uint32_t ndim;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "mask", &mask));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "source", &source));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (check_bool_mask (ctx, mask, op));
  KERNEL_TRY (check_same_type (ctx, out, "out", self, "self", op));
  KERNEL_TRY (check_same_type (ctx, source, "source", self, "self", op));
  KERNEL_TRY (_executorch_broadcast_shape (ctx, self->ndim, self->sizes, mask->ndim, mask->sizes, &ndim, sizes));
  KERNEL_TRY (_executorch_resize (ctx, out, ndim, sizes));
  if (out->numel == 0)
    return ET_OK;
  KERNEL_TRY (_executorch_copy_broadcast (ctx, out, self));

  memcpy (st[0], out->strides, sizeof st[0]);
  bcast_strides (mask->ndim, mask->sizes, mask->strides, ndim, sizes, st[1]);
  int64_t count = 0;
  {
    int64_t idx[ET_MAX_DIMS] = { 0 }, off[2] = { 0, 0 };
    for (int64_t e = 0; e < out->numel; e++)
      {
        if (((const uint8_t *) mask->data)[off[1]] != 0)
          count++;
        odometer_next (ndim, sizes, idx, 2, (const int64_t (*)[ET_MAX_DIMS]) st, off);
      }
  }
  if (count > source->numel)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: mask selects %" PRId64 " elements but source has only %" PRId64, op, count, source->numel);
  size_t es = _executorch_type_size (self->scalar_type);
  int64_t idx[ET_MAX_DIMS] = { 0 }, off[2] = { 0, 0 };
  int64_t sidx[ET_MAX_DIMS] = { 0 }, soff = 0;
  for (int64_t e = 0; e < out->numel; e++)
    {
      if (((const uint8_t *) mask->data)[off[1]] != 0)
        {
          memcpy ((char *) out->data + (size_t) off[0] * es, (const char *) source->data + (size_t) soff * es, es);
          odometer_next (source->ndim, source->sizes, sidx, 1, (const int64_t (*)[ET_MAX_DIMS]) source->strides, &soff);
        }
      odometer_next (ndim, sizes, idx, 2, (const int64_t (*)[ET_MAX_DIMS]) st, off);
    }
  return ET_OK;
}

/* (self, out, ret) */
static EtError
nonzero_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "nonzero";
  EtTensor *self, *out;
  int64_t sizes[2];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, self, "self"));
  KERNEL_TRY (_executorch_check_long (ctx, op, out, "out"));
  if (out->ndim != 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out must be 2-D, not %u-D", op, out->ndim);

  const int64_t (*st)[ET_MAX_DIMS] = (const int64_t (*)[ET_MAX_DIMS]) self->strides;
  int64_t count = 0;
  {
    int64_t idx[ET_MAX_DIMS] = { 0 }, off = 0;
    for (int64_t e = 0; e < self->numel; e++)
      {
        if (elem_nonzero (self->scalar_type, self->data, off))
          count++;
        odometer_next (self->ndim, self->sizes, idx, 1, st, &off);
      }
  }
  sizes[0] = count;
  sizes[1] = self->ndim;
  KERNEL_TRY (_executorch_resize (ctx, out, 2, sizes));
  if (out->numel == 0)
    return ET_OK;
  int64_t *o = out->data;
  int64_t idx[ET_MAX_DIMS] = { 0 }, off = 0, w = 0;
  for (int64_t e = 0; e < self->numel; e++)
    {
      if (elem_nonzero (self->scalar_type, self->data, off))
        {
          for (uint32_t d = 0; d < self->ndim; d++)
            o[w * out->strides[0] + (int64_t) d * out->strides[1]] = idx[d];
          w++;
        }
      odometer_next (self->ndim, self->sizes, idx, 1, st, &off);
    }
  return ET_OK;
}

const EtKernel _executorch_index_kernels[] = {
  { "aten::embedding.out", embedding_out, NULL },           { "aten::index.Tensor_out", index_tensor_out, NULL },
  { "aten::index_put.out", index_put_out, NULL },           { "aten::index_put_", index_put_, NULL },
  { "aten::index_select.out", index_select_out, NULL },     { "aten::gather.out", gather_out, NULL },
  { "aten::scatter.src_out", scatter_src_out, NULL },       { "aten::scatter.value_out", scatter_value_out, NULL },
  { "aten::scatter_add.out", scatter_add_out, NULL },       { "aten::masked_select.out", masked_select_out, NULL },
  { "aten::masked_scatter.out", masked_scatter_out, NULL }, { "aten::nonzero.out", nonzero_out, NULL },
};

const size_t _executorch_index_n_kernels = KERNEL_N_ELEMENTS (_executorch_index_kernels);
