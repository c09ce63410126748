/* convolution-fast.c: the float32 convolution paths
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * All paths take contiguous NCHW data (convolution.c relayouts anything
 * else) and start by filling the output with the bias (or zeros):
 *
 * - depthwise (groups == cin, not transposed): a direct loop per output
 *   plane, split into border and interior columns so the interior runs
 *   without bounds checks and vectorises (stride 1 has its own loop);
 * - 1x1, stride 1, no padding: each group is one GEMM reading the input
 *   in place;
 * - any other convolution: im2col of a tile of output pixels into a
 *   bounded buffer, then a GEMM accumulating into the output columns;
 * - transposed: a GEMM of the transposed weight with a tile of input
 *   pixels, whose columns are then scattered into the output (col2im).
 *
 * Work is cut into tasks (batch x group x pixel tile, or output planes)
 * that write disjoint parts of the output, and spread over the process
 * thread pool; each task's GEMM then runs on its own thread.  When there
 * is a single task the GEMM itself is threaded.  The GEMM uses FMA where
 * the CPU has it (see gemm-avx2.c).
 */
#include "convolution-private.h"

#include "gemm.h"
#include "executorch-threadpool.h"

#include <stdlib.h>
#include <string.h>

/* Floats of im2col / col2im buffer per task (1 MiB). */
#define COL_BUDGET (256 * 1024)

typedef struct {
  const ExecutorchConv *cv;
  const float *x, *weight;
  float *y;
  int64_t tile;          /* pixels per task */
  int64_t n_tiles;       /* per (batch, group) */
  bool single_thread;    /* the GEMMs run inside pool tasks */
  int failed;
} ConvJob;

static float *
alloc_floats (int64_t n)
{
  void *p = NULL;

  if (posix_memalign (&p, 64, ((size_t) (n > 0 ? n : 1) * sizeof (float) + 63) & ~(size_t) 63) != 0)
    return NULL;
  return p;
}

static void
fail (ConvJob *job)
{
  __atomic_store_n (&job->failed, 1, __ATOMIC_RELAXED);
}

/* Runs @fn over @range tasks: on the pool when there are several, inline
 * (with threaded GEMMs) when there is one. */
static void
run_tasks (ConvJob *job, void (*fn) (void *, size_t), int64_t range)
{
  if (range > 1 && executorch_threadpool_get_num_threads () > 1) {
    job->single_thread = true;
    executorch_threadpool_parallelize_1d ((ExecutorchThreadpoolTask1d) fn, job, (size_t) range);
  } else {
    job->single_thread = false;
    for (int64_t i = 0; i < range; i++)
      fn (job, (size_t) i);
  }
}

/* Pixels per task: at most @budget_pixels, and small enough that every
 * thread gets at least one task. */
static int64_t
choose_tile (int64_t pixels, int64_t budget_pixels, int64_t outer_tasks)
{
  int64_t threads = executorch_threadpool_get_num_threads ();
  int64_t tile = pixels < budget_pixels ? pixels : budget_pixels;

  if (tile < 16)
    tile = pixels < 16 ? pixels : 16;
  if (threads > 1 && outer_tasks < threads) {
    int64_t per = (pixels * outer_tasks + threads - 1) / threads;
    per = (per + 15) / 16 * 16;
    if (per < tile)
      tile = per;
  }
  return tile > 0 ? tile : 1;
}

/* ---- Depthwise ---- */

/* One output plane (batch, channel) of a depthwise convolution. */
static void
depthwise_plane (void *data, size_t plane)
{
  ConvJob *job = data;
  const ExecutorchConv *cv = job->cv;
  int64_t co = (int64_t) plane % cv->cout, b = (int64_t) plane / cv->cout;
  int64_t ci = co / cv->cout_g;
  const float *xp = job->x + (b * cv->cin + ci) * cv->h * cv->w;
  const float *wp = job->weight + co * cv->kh * cv->kw;
  float *yp = job->y + (b * cv->cout + co) * cv->oh * cv->ow;
  int64_t sw = cv->sw;

  for (int64_t oh = 0; oh < cv->oh; oh++) {
    float *acc = yp + oh * cv->ow;   /* holds the bias already */
    for (int64_t kh = 0; kh < cv->kh; kh++) {
      int64_t ih = oh * cv->sh - cv->ph + kh * cv->dh;
      if (ih < 0 || ih >= cv->h)
        continue;
      const float *xr = xp + ih * cv->w;
      for (int64_t kw = 0; kw < cv->kw; kw++) {
        float wv = wp[kh * cv->kw + kw];
        int64_t off = kw * cv->dw - cv->pw;   /* iw = ow * sw + off */
        /* Columns with 0 <= ow * sw + off < w. */
        int64_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
        int64_t hi = cv->w - off <= 0 ? 0 : (cv->w - off + sw - 1) / sw;
        if (hi > cv->ow)
          hi = cv->ow;
        if (lo >= hi)
          continue;
        if (sw == 1) {
          const float *xs = xr + off;
          for (int64_t ow = lo; ow < hi; ow++)
            acc[ow] += xs[ow] * wv;
        } else if (sw == 2) {
          const float *xs = xr + off;
          for (int64_t ow = lo; ow < hi; ow++)
            acc[ow] += xs[2 * ow] * wv;
        } else {
          for (int64_t ow = lo; ow < hi; ow++)
            acc[ow] += xr[ow * sw + off] * wv;
        }
      }
    }
  }
}

/* ---- Direct GEMM and im2col ---- */

/* Fills col[K, t] (K = cin_g * kh * kw) for output pixels [p0, p0 + t) of
 * group @g of batch @b. */
static void
im2col (const ConvJob *job, int64_t b, int64_t g, int64_t p0, int64_t t, float *col)
{
  const ExecutorchConv *cv = job->cv;
  const float *xg = job->x + (b * cv->cin + g * cv->cin_g) * cv->h * cv->w;
  int64_t oh0 = p0 / cv->ow, ow0 = p0 % cv->ow;

  for (int64_t ci = 0; ci < cv->cin_g; ci++) {
    const float *xc = xg + ci * cv->h * cv->w;
    for (int64_t kh = 0; kh < cv->kh; kh++) {
      for (int64_t kw = 0; kw < cv->kw; kw++) {
        float *dst = col + ((ci * cv->kh + kh) * cv->kw + kw) * t;
        int64_t off = kw * cv->dw - cv->pw;
        int64_t oh = oh0, ow = ow0;
        for (int64_t q = 0; q < t;) {
          /* The rest of output row oh, or of the tile. */
          int64_t run = cv->ow - ow < t - q ? cv->ow - ow : t - q;
          int64_t ih = oh * cv->sh - cv->ph + kh * cv->dh;
          if (ih < 0 || ih >= cv->h) {
            memset (dst + q, 0, (size_t) run * sizeof (float));
          } else {
            const float *xr = xc + ih * cv->w;
            if (cv->sw == 1 && off >= 0 && ow + run + off <= cv->w) {
              memcpy (dst + q, xr + ow + off, (size_t) run * sizeof (float));
            } else {
              for (int64_t r = 0; r < run; r++) {
                int64_t iw = (ow + r) * cv->sw + off;
                dst[q + r] = iw >= 0 && iw < cv->w ? xr[iw] : 0.0f;
              }
            }
          }
          q += run;
          ow = 0;
          oh++;
        }
      }
    }
  }
}

static void
gemm_task (void *data, size_t task)
{
  ConvJob *job = data;
  const ExecutorchConv *cv = job->cv;
  int64_t tile_index = (int64_t) task % job->n_tiles;
  int64_t bg = (int64_t) task / job->n_tiles;
  int64_t g = bg % cv->groups, b = bg / cv->groups;
  int64_t pixels = cv->oh * cv->ow;
  int64_t p0 = tile_index * job->tile;
  int64_t t = pixels - p0 < job->tile ? pixels - p0 : job->tile;
  int64_t k = cv->cin_g * cv->kh * cv->kw;
  bool direct = cv->kh == 1 && cv->kw == 1 && cv->sh == 1 && cv->sw == 1 && cv->ph == 0 && cv->pw == 0;
  float *col = NULL;
  ExecutorchSgemm gm = {
    .m = cv->cout_g, .n = t, .k = k,
    .a = job->weight + g * cv->cout_g * k, .a_rs = k, .a_cs = 1,
    .c = job->y + (b * cv->cout + g * cv->cout_g) * pixels + p0, .ldc = pixels,
    .accumulate = true,
    .single_thread = job->single_thread,
  };

  if (direct) {
    gm.b = job->x + (b * cv->cin + g * cv->cin_g) * cv->h * cv->w + p0;
    gm.b_rs = cv->h * cv->w;
    gm.b_cs = 1;
  } else {
    col = alloc_floats (k * t);
    if (col == NULL) {
      fail (job);
      return;
    }
    im2col (job, b, g, p0, t, col);
    gm.b = col;
    gm.b_rs = t;
    gm.b_cs = 1;
  }
  if (!_executorch_sgemm (&gm))
    fail (job);
  free (col);
}

/* ---- Transposed ---- */

/* One (batch, group): col[cout_g * kh * kw, t] = W_g^T @ x tile, scattered
 * into the output plane by plane. */
static void
transposed_task (void *data, size_t task)
{
  ConvJob *job = data;
  const ExecutorchConv *cv = job->cv;
  int64_t g = (int64_t) task % cv->groups, b = (int64_t) task / cv->groups;
  int64_t in_pixels = cv->h * cv->w, out_pixels = cv->oh * cv->ow;
  int64_t rows = cv->cout_g * cv->kh * cv->kw;
  int64_t tile = job->tile;
  float *col = alloc_floats (rows * tile);

  if (col == NULL) {
    fail (job);
    return;
  }
  for (int64_t p0 = 0; p0 < in_pixels; p0 += tile) {
    int64_t t = in_pixels - p0 < tile ? in_pixels - p0 : tile;
    ExecutorchSgemm gm = {
      .m = rows, .n = t, .k = cv->cin_g,
      /* A[(co, kh, kw), ci] = weight[g * cin_g + ci, co, kh, kw] */
      .a = job->weight + g * cv->cin_g * rows, .a_rs = 1, .a_cs = rows,
      .b = job->x + (b * cv->cin + g * cv->cin_g) * in_pixels + p0, .b_rs = in_pixels, .b_cs = 1,
      .c = col, .ldc = t,
      .single_thread = job->single_thread,
    };
    if (!_executorch_sgemm (&gm)) {
      fail (job);
      break;
    }
    for (int64_t co = 0; co < cv->cout_g; co++) {
      float *yp = job->y + (b * cv->cout + g * cv->cout_g + co) * out_pixels;
      for (int64_t kh = 0; kh < cv->kh; kh++)
        for (int64_t kw = 0; kw < cv->kw; kw++) {
          const float *cr = col + ((co * cv->kh + kh) * cv->kw + kw) * t;
          int64_t ih = p0 / cv->w, iw = p0 % cv->w;
          for (int64_t q = 0; q < t; q++) {
            int64_t oh = ih * cv->sh - cv->ph + kh * cv->dh;
            int64_t ow = iw * cv->sw - cv->pw + kw * cv->dw;
            if (oh >= 0 && oh < cv->oh && ow >= 0 && ow < cv->ow)
              yp[oh * cv->ow + ow] += cr[q];
            if (++iw == cv->w) {
              iw = 0;
              ih++;
            }
          }
        }
    }
  }
  free (col);
}

EtError
_executorch_conv_f32 (EtKernelContext *ctx, const ExecutorchConv *cv, const float *x,
                      const float *weight, const float *bias, float *y)
{
  int64_t out_pixels = cv->oh * cv->ow;
  ConvJob job = { .cv = cv, .x = x, .weight = weight, .y = y };

  for (int64_t b = 0; b < cv->n; b++)
    for (int64_t co = 0; co < cv->cout; co++) {
      float *yp = y + (b * cv->cout + co) * out_pixels;
      float v = bias != NULL ? bias[co] : 0.0f;
      for (int64_t p = 0; p < out_pixels; p++)
        yp[p] = v;
    }

  if (cv->transposed) {
    int64_t rows = cv->cout_g * cv->kh * cv->kw;
    int64_t budget = COL_BUDGET / (rows > 0 ? rows : 1);
    job.tile = cv->h * cv->w < budget ? cv->h * cv->w : budget;
    if (job.tile < 16)
      job.tile = 16;
    run_tasks (&job, transposed_task, cv->n * cv->groups);
  } else if (cv->groups == cv->cin && cv->cin_g == 1 && cv->kh * cv->kw > 1) {
    run_tasks (&job, depthwise_plane, cv->n * cv->cout);
  } else {
    int64_t k = cv->cin_g * cv->kh * cv->kw;
    bool direct = cv->kh == 1 && cv->kw == 1 && cv->sh == 1 && cv->sw == 1 && cv->ph == 0 &&
                  cv->pw == 0;
    int64_t budget = direct ? out_pixels : COL_BUDGET / (k > 0 ? k : 1);
    job.tile = choose_tile (out_pixels, budget, cv->n * cv->groups);
    job.n_tiles = (out_pixels + job.tile - 1) / job.tile;
    run_tasks (&job, gemm_task, cv->n * cv->groups * job.n_tiles);
  }
  if (job.failed)
    return KERNEL_FAIL (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED,
                        "convolution: out of memory for temporary buffers");
  return ET_OK;
}
