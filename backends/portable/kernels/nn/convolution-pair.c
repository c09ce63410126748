/* convolution-pair.c: a depthwise convolution and the 1x1 convolution that reads it, as one pass
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * MobileNet's blocks run a depthwise convolution whose output only the
 * next (pointwise, 1x1) convolution reads.  Run apart, that output goes
 * to memory in full (up to 4.8 MB in MobileNetV2) and is read back, and
 * each convolution is a parallel region of its own.  Here each task takes
 * a band of output rows: it computes the depthwise rows of every channel
 * into a buffer of its own (a [channels, band pixels] matrix that stays
 * in cache), then the 1x1 convolution of that band as a GEMM with the
 * weights packed at load, adding the bias, residual and clamp of the
 * pointwise convolution's epilogue.  Each output element is the same sum
 * in the same order as the two convolutions apart: the depthwise rows
 * are the kernel's own, and the GEMM's sums run over all channels within
 * one call whatever the band (the band only cuts the pixel columns).
 *
 * Bands are whole output rows, as many per task as keep the buffer
 * within BAND_FLOATS, cut so that the threads get equal shares
 * (planes of 14 rows go to two threads as two bands of 7).
 */
#include "convolution-private.h"

#include "gemm.h"
#include "executorch-threadpool.h"

#include <stdlib.h>
#include <string.h>

/* Floats of a task's depthwise band (256 KiB: a quarter of an L2). */
#define BAND_FLOATS (64 * 1024)
/* Below this many output pixels per plane the bands are too narrow for
 * the GEMM, and the pair runs apart. */
#define PAIR_MIN_PIXELS 196

typedef struct
{
  const KernelConvPairArgs *a;
  KernelDwRows rows;
  int64_t band;    /* output rows per task */
  int64_t n_bands; /* per batch */
  bool single_thread;
  int failed;
} PairJob;

static void
pair_task (void *data, size_t task)
{
  PairJob *job = data;
  const KernelConvPairArgs *a = job->a;
  const KernelConv *dw = a->dw, *pw = a->pw;
  int64_t b = (int64_t) task / job->n_bands, r0 = (int64_t) task % job->n_bands * job->band;
  int64_t r1 = r0 + job->band < dw->oh ? r0 + job->band : dw->oh;
  int64_t pixels = dw->oh * dw->ow, t = (r1 - r0) * dw->ow, p0 = r0 * dw->ow;
  float *band = NULL, *scratch = calloc ((size_t) job->rows.scratch_floats, sizeof (float));

  if (scratch == NULL || posix_memalign ((void **) &band, 64, (size_t) (dw->cout * t) * sizeof (float)) != 0)
    {
      free (scratch);
      __atomic_store_n (&job->failed, 1, __ATOMIC_RELAXED);
      return;
    }
  for (int64_t c = 0; c < dw->cout; c++)
    _executorch_conv_dw_rows_f32 (&job->rows, a->x, a->dw_weight, a->dw_bias, &a->dw_epilogue, b * dw->cout + c, r0, r1,
                                  scratch, band + c * t);

  const KernelConvEpilogue *e = &a->pw_epilogue;
  float *y = a->y + b * pw->cout * pixels + p0;
  KernelSgemm gm = {
    .m = pw->cout,
    .n = t,
    .k = dw->cout,
    .a = a->pw_weight,
    .a_rs = dw->cout,
    .a_cs = 1,
    .b = band,
    .b_rs = t,
    .b_cs = 1,
    .c = y,
    .ldc = pixels,
    .single_thread = job->single_thread,
    .a_packed = a->pw_packed,
    .a_packed_m = pw->cout,
    .row_bias = a->pw_bias,
  };
  /* As the GEMM path: a clamp with no residual before it runs on each
   * tile of C, a residual add takes a pass of its own. */
  if (e->clamp && e->residual == NULL)
    {
      gm.clamp = true;
      gm.lo = e->lo;
      gm.hi = e->hi;
    }
  if (!_executorch_sgemm (&gm))
    __atomic_store_n (&job->failed, 1, __ATOMIC_RELAXED);
  else if (e->residual != NULL)
    for (int64_t co = 0; co < pw->cout; co++)
      {
        float *row = y + co * pixels;
        const float *res = e->residual + (b * pw->cout + co) * pixels + p0;
        for (int64_t i = 0; i < t; i++)
          row[i] += res[i];
        if (e->clamp)
          for (int64_t i = 0; i < t; i++)
            {
              float v = row[i];
              v = v < e->lo ? e->lo : v;
              row[i] = v > e->hi ? e->hi : v;
            }
      }
  free (band);
  free (scratch);
}

/* The longest share of @units cut into blocks of @block over @threads. */
static int64_t
makespan (int64_t units, int64_t block, int64_t threads)
{
  int64_t blocks = (units + block - 1) / block;
  int64_t rounds = (blocks + threads - 1) / threads;
  int64_t last = units - (blocks - 1) * block;

  /* Blocks go out in order, so the short last one is in the last round. */
  return blocks % threads == 1 || threads == 1 ? (rounds - 1) * block + last : rounds * block;
}

/* Rows per band: as many as fit BAND_FLOATS on one thread; on several,
 * the most bands (up to 4 per thread, so a late thread finds some left)
 * among the cuts that balance best. */
static int64_t
choose_band (const KernelConv *dw, int64_t threads)
{
  int64_t per_row = dw->cout * dw->ow;
  int64_t budget = BAND_FLOATS / (per_row > 0 ? per_row : 1);
  int64_t best = budget < 1 ? 1 : budget < dw->oh ? budget : dw->oh;
  double best_eff = 0.0;

  if (threads <= 1)
    return best;
  for (int64_t per_thread = 1; per_thread <= 4; per_thread++)
    {
      int64_t rows = (dw->oh + threads * per_thread - 1) / (threads * per_thread);
      rows = rows > budget ? (budget < 1 ? 1 : budget) : rows;
      double eff = (double) dw->oh / (double) threads / (double) makespan (dw->oh, rows, threads);
      if (eff >= best_eff - 1e-9)
        {
          best_eff = eff;
          best = rows;
        }
    }
  return best;
}

bool
_executorch_conv_pair_applies (const KernelConv *dw, const KernelConv *pw)
{
  return dw->groups == dw->cin && dw->cin_g == 1 && !dw->transposed && dw->kh * dw->kw > 1 && !pw->transposed &&
         pw->groups == 1 && pw->kh == 1 && pw->kw == 1 && pw->sh == 1 && pw->sw == 1 && pw->ph == 0 && pw->pw == 0 &&
         pw->n == dw->n && pw->cin == dw->cout && pw->h == dw->oh && pw->w == dw->ow && pw->oh == dw->oh &&
         pw->ow == dw->ow && dw->oh * dw->ow >= PAIR_MIN_PIXELS;
}

bool
_executorch_conv_pair_f32 (const KernelConvPairArgs *a)
{
  int64_t threads = executorch_threadpool_get_num_threads ();
  PairJob job = { .a = a };

  g_return_val_if_fail (_executorch_conv_pair_applies (a->dw, a->pw) && a->pw_packed != NULL, false);
  if (a->dw->n == 0 || a->dw->oh == 0 || a->dw->ow == 0)
    return true;
  job.band = choose_band (a->dw, threads);
  job.n_bands = (a->dw->oh + job.band - 1) / job.band;
  if (!_executorch_conv_dw_rows_init (&job.rows, a->dw, _executorch_conv_depthwise_isa_for (a->dw), job.band))
    return false;

  int64_t tasks = a->dw->n * job.n_bands;
  if (tasks > 1 && threads > 1)
    {
      job.single_thread = true;
      executorch_threadpool_parallelize_1d ((ExecutorchThreadpoolTask1d) pair_task, &job, (size_t) tasks);
    }
  else
    for (int64_t i = 0; i < tasks; i++)
      pair_task (&job, (size_t) i);
  _executorch_conv_dw_rows_clear (&job.rows);
  return !job.failed;
}
