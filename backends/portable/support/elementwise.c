/* elementwise.c: the generic broadcasting map and the parallel-for used by
 * the elementwise, activation, norm and pool kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The map converts every input chunk to one compute kind (int64, float or
 * double), lets a row function compute a chunk of results and converts
 * them to out's dtype; the strided iterator merges dimensions, so inputs
 * with out's shape and layout run as one long row.
 */
#include "nn-private.h"
#include "vector.h"

#include <string.h>

#ifdef EXECUTORCH_KERNELS_HAVE_THREADPOOL
#include "executorch-threadpool.h"
#endif

EtError
_executorch_broadcast_shape_n (EtKernelContext *ctx, uint32_t n, const EtTensor *const *t, uint32_t *ndim,
                               int64_t *sizes)
{
  uint32_t nd = 0;
  int64_t cur[ET_MAX_DIMS];
  bool first = true;

  for (uint32_t k = 0; k < n; k++)
    {
      if (t[k] == NULL)
        continue;
      if (first)
        {
          nd = t[k]->ndim;
          memcpy (cur, t[k]->sizes, sizeof cur);
          first = false;
          continue;
        }
      KERNEL_TRY (_executorch_broadcast_shape (ctx, nd, cur, t[k]->ndim, t[k]->sizes, &nd, cur));
    }
  *ndim = nd;
  memcpy (sizes, cur, sizeof cur);
  return ET_OK;
}

typedef union
{
  int64_t i[KERNEL_CHUNK];
  float f[KERNEL_CHUNK];
  double d[KERNEL_CHUNK];
} Chunk;

EtError
_executorch_map (EtKernelContext *ctx, EtTensor *out, KernelComputeKind out_kind, uint32_t n_in,
                 const EtTensor *const *in, KernelComputeKind in_kind, KernelMapFn fn, const void *user)
{
  int64_t in_strides[KERNEL_MAP_MAX_INPUTS][ET_MAX_DIMS];
  const int64_t *strides[KERNEL_MAP_MAX_INPUTS + 1];
  Chunk bufs[KERNEL_MAP_MAX_INPUTS], res;
  const void *ptrs[KERNEL_MAP_MAX_INPUTS];
  KernelIter it;
  char a[160], b[160];

  if (n_in > KERNEL_MAP_MAX_INPUTS)
    return KERNEL_FAIL (ctx, ET_ERROR_INTERNAL, "map: too many inputs");
  if (out->numel == 0)
    return ET_OK;
  strides[0] = out->strides;
  for (uint32_t k = 0; k < n_in; k++)
    {
      if (!_executorch_broadcastable_to (in[k], out->ndim, out->sizes))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "shape %s does not broadcast to %s",
                            _executorch_format_sizes (a, sizeof a, in[k]->ndim, in[k]->sizes),
                            _executorch_format_sizes (b, sizeof b, out->ndim, out->sizes));
      _executorch_broadcast_strides (in[k], out->ndim, out->sizes, in_strides[k]);
      strides[k + 1] = in_strides[k];
      ptrs[k] = &bufs[k];
    }

  _executorch_iter_init (&it, out->ndim, out->sizes, out->dim_order, n_in + 1, strides);
  for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it))
    {
      for (int64_t j = 0; j < it.inner; j += KERNEL_CHUNK)
        {
          int64_t m = it.inner - j < KERNEL_CHUNK ? it.inner - j : KERNEL_CHUNK;
          for (uint32_t k = 0; k < n_in; k++)
            _executorch_load_kind (in_kind, in[k]->scalar_type, in[k]->data,
                                   it.offsets[k + 1] + j * it.inner_strides[k + 1], it.inner_strides[k + 1], m,
                                   &bufs[k]);
          fn (user, m, &res, ptrs);
          _executorch_store_kind (out_kind, out->scalar_type, out->data, it.offsets[0] + j * it.inner_strides[0],
                                  it.inner_strides[0], m, &res);
        }
    }
  return ET_OK;
}

/* ---- Parallel for ---- */

typedef struct
{
  KernelRangeFn fn;
  void *context;
  int64_t n;
  int64_t chunk;
} ParallelJob;

#ifdef EXECUTORCH_KERNELS_HAVE_THREADPOOL
static void
parallel_task (void *context, size_t i)
{
  ParallelJob *job = context;
  int64_t begin = (int64_t) i * job->chunk;
  int64_t end = begin + job->chunk < job->n ? begin + job->chunk : job->n;
  job->fn (job->context, begin, end);
}
#endif

void
_executorch_parallel_for (int64_t n, int64_t grain, KernelRangeFn fn, void *context)
{
  if (n <= 0)
    return;
#ifdef EXECUTORCH_KERNELS_HAVE_THREADPOOL
  {
    int64_t threads = (int64_t) executorch_threadpool_get_num_threads ();
    if (grain < 1)
      grain = 1;
    if (threads > 1 && n > grain)
      {
        int64_t tasks = (n + grain - 1) / grain;
        if (tasks > threads * 4)
          tasks = threads * 4;
        ParallelJob job = { fn, context, n, (n + tasks - 1) / tasks };
        tasks = (n + job.chunk - 1) / job.chunk;
        executorch_threadpool_parallelize_1d (parallel_task, &job, (size_t) tasks);
        return;
      }
  }
#else
  (void) grain;
#endif
  fn (context, 0, n);
}

/* ---- Softmax fast path ---- */

typedef struct
{
  const float *x;
  float *o;
  int64_t len;
  bool log_form;
} SoftmaxJob;

static void
softmax_range (void *context, int64_t begin, int64_t end)
{
  SoftmaxJob *j = context;
  for (int64_t r = begin; r < end; r++)
    _executorch_vec_softmax_row_f32 (j->len, j->x + r * j->len, j->log_form, j->o + r * j->len);
}

bool
_executorch_softmax_fast_f32 (const EtTensor *self, EtTensor *out, uint32_t dim, bool log_form)
{
  if (self->scalar_type != ET_SCALAR_FLOAT || out->scalar_type != ET_SCALAR_FLOAT ||
      !_executorch_same_sizes (self, out) || !_executorch_same_dim_order (self, out))
    return false;
  int64_t len = self->ndim ? self->sizes[dim] : 1;
  /* dim must be the innermost dim in memory (size-1 dims after it are fine). */
  if (self->ndim && self->sizes[dim] > 1 && self->strides[dim] != 1)
    return false;
  if (self->numel == 0 || len == 0)
    return true;
  SoftmaxJob j = { self->data, out->data, len, log_form };
  int64_t rows = self->numel / len;
  int64_t grain = len >= KERNEL_GRAIN / 8 ? 1 : (KERNEL_GRAIN / 8) / len;
  _executorch_parallel_for (rows, grain, softmax_range, &j);
  return true;
}
