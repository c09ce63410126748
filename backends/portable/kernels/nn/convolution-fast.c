/* convolution-fast.c: the float32 convolution paths
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * All paths take contiguous NCHW data (convolution.c relayouts anything
 * else); the transposed one starts by filling the output with the bias
 * (or zeros), the depthwise one starts its sums from it, the GEMM ones
 * add it to each tile after its product, which then need not read the
 * output first:
 *
 * - depthwise (groups == cin, not transposed): convolution-depthwise.c;
 * - 1x1, stride 1, no padding: each group is one GEMM reading the input
 *   in place;
 * - any other convolution: a GEMM of the weights with the im2col matrix of
 *   a tile of output pixels, accumulating into the output columns; the
 *   matrix is never stored, the GEMM's B packing builds its strips
 *   straight from the image (so no temporary beyond the GEMM's own
 *   packing buffers);
 * - transposed: a GEMM of the transposed weight with a tile of input
 *   pixels, whose columns are then scattered into the output (col2im).
 *
 * A fused instruction (rewrites/conv-fusion.c) adds an epilogue, the
 * residual add and clamp, that each task runs on the part of the output it
 * has just written (the GEMM path hands the bias and a clamp with no
 * residual before it to the GEMM, which applies them to each tile of C as
 * it completes), and may hand the GEMM path its weights packed at load.
 *
 * Work is cut into tasks (batch x group x output-channel block x pixel
 * tile, or output planes) that write disjoint parts of the output, and
 * spread over the process thread pool; each task's GEMM then runs on its
 * own thread.  When there is a single task the GEMM itself is threaded.
 * The GEMM uses FMA where the CPU has it (see gemm-avx2.c).
 */
#include "convolution-private.h"

#include "gemm.h"
#include "executorch-threadpool.h"

#include <stdlib.h>
#include <string.h>

/* Floats of col2im buffer per task (512 KiB, half an L2). */
#define COL_BUDGET (128 * 1024)

typedef struct
{
  const KernelConv *cv;
  const float *x, *weight;
  const float *packed_weight; /* or NULL */
  const float *bias;          /* added after the GEMM, or NULL */
  float *y;
  float *y_low;                       /* where output channels [0, low) go instead (batch 1, one group) */
  int64_t low;                        /* a multiple of GEMM_MR */
  const KernelConvEpilogue *epilogue; /* or NULL */
  int64_t tile;                       /* pixels per task */
  int64_t n_tiles;                    /* per (batch, group, channel block) */
  int64_t co_block;                   /* output channels per task (a multiple of GEMM_MR) */
  int64_t n_co;                       /* per (batch, group) */
  bool single_thread;                 /* the GEMMs run inside pool tasks */
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
  if (range > 1 && executorch_threadpool_get_num_threads () > 1)
    {
      job->single_thread = true;
      executorch_threadpool_parallelize_1d ((ExecutorchThreadpoolTask1d) fn, job, (size_t) range);
    }
  else
    {
      job->single_thread = false;
      for (int64_t i = 0; i < range; i++)
        fn (job, (size_t) i);
    }
}

/* The height of the GEMM's A strips (gemm-private.h): a block of output
 * channels starts at a whole strip of the weights packed at load. */
#define GEMM_MR 6
/* Below this many multiply-adds a (batch, group) is one task. */
#define SPLIT_MIN (1 << 20)

/* The longest time a thread takes when @units of work are cut into blocks
 * of @block (the last one shorter) and spread over @threads, in units. */
static double
makespan (int64_t units, int64_t block, int64_t threads)
{
  int64_t full = units / block, rem = units % block;
  int64_t per = full / threads, extra = full % threads;
  double longest = (double) (per + (extra > 0)) * block;
  double with_rem = (double) per * block + rem; /* extra < threads: someone has only per */

  return rem > 0 && with_rem > longest ? with_rem : longest;
}

/* The best block of @units for @threads among a few multiples of @grain
 * (at least @min_block): its share of the ideal time, through @eff. */
static int64_t
best_block (int64_t units, int64_t grain, int64_t min_block, int64_t threads, double *eff)
{
  int64_t best = units;

  *eff = 1.0 / threads;
  for (int64_t per_thread = 1; per_thread <= 4; per_thread++)
    {
      int64_t block = (units + threads * per_thread - 1) / (threads * per_thread);
      block = (block + grain - 1) / grain * grain;
      block = block < min_block ? min_block : block;
      block = block < units ? block : units;
      double e = (double) units / threads / makespan (units, block, threads);
      if (e > *eff + 1e-9)
        {
          *eff = e;
          best = block;
        }
    }
  return best;
}

/* How each (batch, group) is cut into tasks: whole when there are enough
 * (batch, group) tasks for every thread to get several; otherwise into
 * tiles of output pixels (whole 32-pixel strips of the GEMM's B) or into
 * blocks of output channels (whole strips of its A), whichever keeps the
 * threads busier.  Pixel tiles each read all the weights, channel blocks
 * each pack all of B (the im2col matrix: once per block); so channel
 * blocks win when the weights outweigh the image (ResNet's 7x7 stage) or
 * when a small plane (14x14: 196 pixels) does not cut into equal tiles. */
static void
choose_split (ConvJob *job, bool direct)
{
  const KernelConv *cv = job->cv;
  int64_t threads = executorch_threadpool_get_num_threads ();
  int64_t pixels = cv->oh * cv->ow, outer = cv->n * cv->groups;
  int64_t k = cv->cin_g * cv->kh * cv->kw;
  double eff_px, eff_co;

  job->tile = pixels > 0 ? pixels : 1;
  job->co_block = cv->cout_g > 0 ? cv->cout_g : 1;
  if (threads <= 1 || outer >= 4 * threads || (double) cv->cout_g * k * pixels < SPLIT_MIN)
    return;
  /* Threads per (batch, group) when they divide evenly, else every
   * (batch, group) is cut for all of them. */
  threads = threads % outer == 0 ? threads / outer : threads;
  int64_t tile = best_block (pixels, KERNEL_SGEMM_NR_MAX, 64, threads, &eff_px);
  int64_t block = best_block (cv->cout_g, GEMM_MR, GEMM_MR, threads, &eff_co);
  /* Packing B costs about as much per element as a multiply-add by 16
   * (im2col) or 8 (a copy) output channels; channel blocks pack it in full. */
  double pack = (direct ? 8.0 : 16.0) / (double) cv->cout_g;
  double cost_px = (1.0 + pack) / eff_px;
  double cost_co = 1.0 / eff_co + pack * threads;
  if (cv->cout_g * k > k * pixels || cost_co < cost_px)
    job->co_block = block;
  else
    job->tile = tile;
}

/* ---- Depthwise ---- */

/* The row helpers below are written once, as always-inline bodies;
 * ROW_VARIANTS builds NAME from NAME_body twice, for AVX2 and for any CPU,
 * and runs the AVX2 build when the plug-ins' one CPU decision
 * (_executorch_support_cpu_has_avx2_fma) says so.  -ffp-contract=off keeps
 * both builds' results identical. */
#define ROW_BODY static inline __attribute__ ((always_inline)) void
#if defined(__x86_64__) && defined(__GNUC__)
#define ROW_VARIANTS(name, params, args)                               \
  __attribute__ ((target ("avx2,fma"))) static void name##_avx2 params \
  {                                                                    \
    name##_body args;                                                  \
  }                                                                    \
  static void name params                                              \
  {                                                                    \
    if (_executorch_support_cpu_has_avx2_fma ())                       \
      name##_avx2 args;                                                \
    else                                                               \
      name##_body args;                                                \
  }
#else
#define ROW_VARIANTS(name, params, args) \
  static void name params                \
  {                                      \
    name##_body args;                    \
  }
#endif

/* The epilogue on n consecutive outputs (residual at the same offset),
 * after the bias when @add_bias. */
ROW_BODY
epilogue_row_body (float *restrict y, bool add_bias, float bias, const float *restrict residual, bool clamp, float lo,
                   float hi, int64_t n)
{
  if (add_bias)
    for (int64_t i = 0; i < n; i++)
      y[i] += bias;
  if (residual != NULL)
    for (int64_t i = 0; i < n; i++)
      y[i] += residual[i];
  if (clamp)
    for (int64_t i = 0; i < n; i++)
      {
        float v = y[i];
        v = v < lo ? lo : v;
        y[i] = v > hi ? hi : v;
      }
}
ROW_VARIANTS (epilogue_row,
              (float *restrict y, bool add_bias, float bias, const float *restrict residual, bool clamp, float lo,
               float hi, int64_t n),
              (y, add_bias, bias, residual, clamp, lo, hi, n))

/* The epilogue on outputs [offset, offset + n) of the whole output, all
 * in channel @channel; with @add_bias, the channel's bias first. */
static void
apply_epilogue (const ConvJob *job, int64_t offset, int64_t n, int64_t channel, bool add_bias)
{
  const KernelConvEpilogue *e = job->epilogue;
  const float *residual = e != NULL ? e->residual : NULL;
  bool clamp = e != NULL && e->clamp;

  add_bias = add_bias && job->bias != NULL;
  if (add_bias || residual != NULL || clamp)
    epilogue_row ((channel < job->low ? job->y_low : job->y) + offset, add_bias, add_bias ? job->bias[channel] : 0.0f,
                  residual != NULL ? residual + offset : NULL, clamp, clamp ? e->lo : 0.0f, clamp ? e->hi : 0.0f, n);
}

/* ---- Direct GEMM and implicit im2col ---- */

/* The im2col matrix of one (batch, group), B[(ci, kh, kw), pixel], is never
 * stored: the GEMM asks for KC x 16 strips of it and im2col_pack builds
 * them straight from the image into the GEMM's packing buffer. */
typedef struct
{
  const KernelConv *cv;
  const float *xg; /* the group's first input channel */
  int64_t p0;      /* output pixel of column 0 */
} Im2col;

#define SNR KERNEL_SGEMM_NR_MAX

static void
im2col_pack (const void *user, int64_t pc, int64_t kc, int64_t j0, int64_t cols, int64_t nr, float *dst)
{
  const Im2col *ic = user;
  const KernelConv *cv = ic->cv;

  if (_executorch_conv_im2col_pack_simd (cv, ic->xg, ic->p0, pc, kc, j0, cols, nr, dst))
    return;

  /* The strip's columns split into runs within one output row each: a row
   * of B over a run is a (strided) run of one input row. */
  int64_t seg_j[SNR + 1], seg_ih[SNR], seg_iw[SNR];
  int n_seg = 0;
  int64_t pix = ic->p0 + j0;

  for (int64_t j = 0; j < cols; n_seg++)
    {
      int64_t oh = pix / cv->ow, ow = pix % cv->ow;
      int64_t run = cv->ow - ow < cols - j ? cv->ow - ow : cols - j;
      seg_j[n_seg] = j;
      seg_ih[n_seg] = oh * cv->sh - cv->ph;
      seg_iw[n_seg] = ow * cv->sw - cv->pw;
      j += run;
      pix += run;
    }
  seg_j[n_seg] = cols;

  int64_t kk = cv->kh * cv->kw;
  int64_t ci = pc / kk, r = pc % kk;
  int64_t kh = r / cv->kw, kw = r % cv->kw;
  for (int64_t p = 0; p < kc; p++)
    {
      float *d = dst + p * nr;
      const float *plane = ic->xg + ci * cv->h * cv->w;
      int64_t ihk = kh * cv->dh, iwk = kw * cv->dw;

      for (int sgi = 0; sgi < n_seg; sgi++)
        {
          int64_t ja = seg_j[sgi], jb = seg_j[sgi + 1];
          int64_t ih = seg_ih[sgi] + ihk, iw0 = seg_iw[sgi] + iwk - ja * cv->sw;
          if (ih < 0 || ih >= cv->h)
            {
              for (int64_t j = ja; j < jb; j++)
                d[j] = 0.0f;
              continue;
            }
          const float *row = plane + ih * cv->w;
          /* iw = iw0 + j * sw for j in [ja, jb) */
          if (cv->sw == 1 && iw0 + ja >= 0 && iw0 + jb <= cv->w)
            {
              const float *src = row + iw0;
              for (int64_t j = ja; j < jb; j++)
                d[j] = src[j];
              continue;
            }
          for (int64_t j = ja; j < jb; j++)
            {
              int64_t iw = iw0 + j * cv->sw;
              d[j] = iw >= 0 && iw < cv->w ? row[iw] : 0.0f;
            }
        }
      for (int64_t j = cols; j < nr; j++)
        d[j] = 0.0f;

      if (++kw == cv->kw)
        {
          kw = 0;
          if (++kh == cv->kh)
            {
              kh = 0;
              ci++;
            }
        }
    }
}

static void
gemm_task (void *data, size_t task)
{
  ConvJob *job = data;
  const KernelConv *cv = job->cv;
  int64_t tile_index = (int64_t) task % job->n_tiles, rest = (int64_t) task / job->n_tiles;
  int64_t co0 = rest % job->n_co * job->co_block, bg = rest / job->n_co;
  int64_t cn = cv->cout_g - co0 < job->co_block ? cv->cout_g - co0 : job->co_block;
  int64_t g = bg % cv->groups, b = bg / cv->groups;
  int64_t pixels = cv->oh * cv->ow;
  int64_t p0 = tile_index * job->tile;
  int64_t t = pixels - p0 < job->tile ? pixels - p0 : job->tile;
  int64_t k = cv->cin_g * cv->kh * cv->kw;
  bool direct = cv->kh == 1 && cv->kw == 1 && cv->sh == 1 && cv->sw == 1 && cv->ph == 0 && cv->pw == 0;
  Im2col ic = { cv, job->x + (b * cv->cin + g * cv->cin_g) * cv->h * cv->w, p0 };
  KernelSgemm gm = {
    .m = cn,
    .n = t,
    .k = k,
    .a = job->weight + (g * cv->cout_g + co0) * k,
    .a_rs = k,
    .a_cs = 1,
    .c = job->y + (b * cv->cout + g * cv->cout_g + co0) * pixels + p0,
    .ldc = pixels,
    .single_thread = job->single_thread,
    .a_packed =
        job->packed_weight != NULL ? job->packed_weight + g * _executorch_sgemm_packed_a_floats (cv->cout_g, k) : NULL,
    .a_packed_m = cv->cout_g,
    .a_packed_row0 = co0,
  };

  if (direct)
    {
      gm.b = job->x + (b * cv->cin + g * cv->cin_g) * cv->h * cv->w + p0;
      gm.b_rs = cv->h * cv->w;
      gm.b_cs = 1;
    }
  else
    {
      gm.pack_b = im2col_pack;
      gm.pack_b_user = &ic;
    }
  /* The GEMM adds the bias, and clamps when no residual comes first, on
   * each tile as it completes; a residual add takes a pass of its own. */
  const KernelConvEpilogue *e = job->epilogue;
  bool residual = e != NULL && e->residual != NULL;
  gm.row_bias = job->bias != NULL ? job->bias + g * cv->cout_g + co0 : NULL;
  if (e != NULL && e->clamp && !residual)
    {
      gm.clamp = true;
      gm.lo = e->lo;
      gm.hi = e->hi;
    }
  /* Rows [co0, low) to y_low, the rest to y (low > 0: one batch, one group). */
  int64_t low_rows = job->low - co0 < 0 ? 0 : job->low - co0 < cn ? job->low - co0 : cn;
  bool ok = true;
  if (low_rows > 0 && low_rows < cn && gm.a_packed != NULL)
    {
      /* One product, B packed once, its first rows to y_low. */
      gm.c_low = job->y_low + co0 * pixels + p0;
      gm.c_low_rows = low_rows;
      low_rows = 0;
    }
  else if (low_rows > 0)
    {
      KernelSgemm part = gm;
      part.m = low_rows;
      part.c = job->y_low + co0 * pixels + p0;
      ok = _executorch_sgemm (&part);
    }
  if (ok && low_rows < cn)
    {
      gm.m = cn - low_rows;
      gm.a += low_rows * k;
      gm.c += low_rows * pixels;
      gm.a_packed_row0 += low_rows;
      if (gm.row_bias != NULL)
        gm.row_bias += low_rows;
      ok = _executorch_sgemm (&gm);
    }
  if (!ok)
    {
      fail (job);
      return;
    }
  if (residual)
    for (int64_t co = g * cv->cout_g + co0; co < g * cv->cout_g + co0 + cn; co++)
      apply_epilogue (job, (b * cv->cout + co) * pixels + p0, t, co, false);
}

/* ---- Transposed ---- */

/* One (batch, group): col[cout_g * kh * kw, t] = W_g^T @ x tile, scattered
 * into the output plane by plane. */
static void
transposed_task (void *data, size_t task)
{
  ConvJob *job = data;
  const KernelConv *cv = job->cv;
  int64_t g = (int64_t) task % cv->groups, b = (int64_t) task / cv->groups;
  int64_t in_pixels = cv->h * cv->w, out_pixels = cv->oh * cv->ow;
  int64_t rows = cv->cout_g * cv->kh * cv->kw;
  int64_t tile = job->tile;
  float *col = alloc_floats (rows * tile);

  if (col == NULL)
    {
      fail (job);
      return;
    }
  for (int64_t p0 = 0; p0 < in_pixels; p0 += tile)
    {
      int64_t t = in_pixels - p0 < tile ? in_pixels - p0 : tile;
      KernelSgemm gm = {
        .m = rows,
        .n = t,
        .k = cv->cin_g,
        /* A[(co, kh, kw), ci] = weight[g * cin_g + ci, co, kh, kw] */
        .a = job->weight + g * cv->cin_g * rows,
        .a_rs = 1,
        .a_cs = rows,
        .b = job->x + (b * cv->cin + g * cv->cin_g) * in_pixels + p0,
        .b_rs = in_pixels,
        .b_cs = 1,
        .c = col,
        .ldc = t,
        .single_thread = job->single_thread,
      };
      if (!_executorch_sgemm (&gm))
        {
          fail (job);
          break;
        }
      for (int64_t co = 0; co < cv->cout_g; co++)
        {
          float *yp = job->y + (b * cv->cout + g * cv->cout_g + co) * out_pixels;
          for (int64_t kh = 0; kh < cv->kh; kh++)
            for (int64_t kw = 0; kw < cv->kw; kw++)
              {
                const float *cr = col + ((co * cv->kh + kh) * cv->kw + kw) * t;
                int64_t ih = p0 / cv->w, iw = p0 % cv->w;
                for (int64_t q = 0; q < t; q++)
                  {
                    int64_t oh = ih * cv->sh - cv->ph + kh * cv->dh;
                    int64_t ow = iw * cv->sw - cv->pw + kw * cv->dw;
                    if (oh >= 0 && oh < cv->oh && ow >= 0 && ow < cv->ow)
                      yp[oh * cv->ow + ow] += cr[q];
                    if (++iw == cv->w)
                      {
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
_executorch_conv_f32 (EtKernelContext *ctx, const KernelConv *cv, const float *x, const float *weight,
                      const float *packed_weight, const float *bias, float *y, const KernelConvEpilogue *epilogue)
{
  return _executorch_conv_f32_low (ctx, cv, x, weight, packed_weight, bias, y, NULL, 0, epilogue);
}

int64_t
_executorch_conv_low_channels (const KernelConv *cv, int64_t channels)
{
  bool gemm = !cv->transposed && !(cv->groups == cv->cin && cv->cin_g == 1 && cv->kh * cv->kw > 1);

  if (!gemm || cv->n != 1 || cv->groups != 1 || channels <= 0)
    return cv->cout;
  channels = (channels + GEMM_MR - 1) / GEMM_MR * GEMM_MR;
  return channels < cv->cout ? channels : cv->cout;
}

EtError
_executorch_conv_f32_low (EtKernelContext *ctx, const KernelConv *cv, const float *x, const float *weight,
                          const float *packed_weight, const float *bias, float *y, float *y_low, int64_t low,
                          const KernelConvEpilogue *epilogue)
{
  int64_t out_pixels = cv->oh * cv->ow;
  bool gemm = !cv->transposed && !(cv->groups == cv->cin && cv->cin_g == 1 && cv->kh * cv->kw > 1);
  ConvJob job = { .cv = cv, .x = x, .weight = weight, .packed_weight = packed_weight, .y = y, .epilogue = epilogue };

  if (y_low != NULL && low > 0)
    {
      g_return_val_if_fail (gemm && cv->n == 1 && cv->groups == 1 && low % GEMM_MR == 0, ET_ERROR_INTERNAL);
      job.y_low = y_low;
      job.low = low;
    }

  /* The GEMM path writes its products and adds the bias after. */
  if (gemm)
    job.bias = bias;
  for (int64_t b = 0; b < cv->n && cv->transposed; b++)
    for (int64_t co = 0; co < cv->cout; co++)
      {
        float *yp = y + (b * cv->cout + co) * out_pixels;
        float v = bias != NULL ? bias[co] : 0.0f;
        for (int64_t p = 0; p < out_pixels; p++)
          yp[p] = v;
      }

  if (cv->transposed)
    {
      int64_t rows = cv->cout_g * cv->kh * cv->kw;
      int64_t budget = COL_BUDGET / (rows > 0 ? rows : 1);
      job.tile = cv->h * cv->w < budget ? cv->h * cv->w : budget;
      if (job.tile < 16)
        job.tile = 16;
      run_tasks (&job, transposed_task, cv->n * cv->groups);
      /* Tasks scatter into overlapping windows: the epilogue waits for all. */
      for (int64_t plane = 0; plane < cv->n * cv->cout && !job.failed; plane++)
        apply_epilogue (&job, plane * out_pixels, out_pixels, plane % cv->cout, false);
    }
  else if (cv->groups == cv->cin && cv->cin_g == 1 && cv->kh * cv->kw > 1)
    {
      if (!_executorch_conv_depthwise_f32 (cv, x, weight, bias, y, epilogue))
        fail (&job);
    }
  else
    {
      bool direct = cv->kh == 1 && cv->kw == 1 && cv->sh == 1 && cv->sw == 1 && cv->ph == 0 && cv->pw == 0;
      choose_split (&job, direct);
      job.n_tiles = (out_pixels + job.tile - 1) / job.tile;
      job.n_co = (cv->cout_g + job.co_block - 1) / job.co_block;
      run_tasks (&job, gemm_task, cv->n * cv->groups * job.n_co * job.n_tiles);
    }
  if (job.failed)
    return KERNEL_FAIL (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED, "convolution: out of memory for temporary buffers");
  return ET_OK;
}

int64_t
_executorch_conv_packed_weight_floats (int64_t groups, int64_t cout_g, int64_t k, bool depthwise)
{
  if (depthwise || groups <= 0 || cout_g <= 0 || k <= 0)
    return 0;
  return groups * _executorch_sgemm_packed_a_floats (cout_g, k);
}

void
_executorch_conv_pack_weight (const float *weight, int64_t groups, int64_t cout_g, int64_t k, float *dst)
{
  for (int64_t g = 0; g < groups; g++)
    {
      KernelSgemm gm = { .m = cout_g, .k = k, .a = weight + g * cout_g * k, .a_rs = k, .a_cs = 1 };
      _executorch_sgemm_pack_a (&gm, dst + g * _executorch_sgemm_packed_a_floats (cout_g, k));
    }
}

/* ---- Two GEMM convolutions in one region ---- */

typedef struct
{
  ConvJob jobs[2];
  int64_t first_tasks; /* tasks of jobs[0]; jobs[1]'s follow */
} TwoJob;

static void
two_task (void *data, size_t task)
{
  TwoJob *two = data;

  if ((int64_t) task < two->first_tasks)
    gemm_task (&two->jobs[0], task);
  else
    gemm_task (&two->jobs[1], task - (size_t) two->first_tasks);
}

static bool
takes_gemm (const KernelConv *cv)
{
  return !cv->transposed && !(cv->groups == cv->cin && cv->cin_g == 1 && cv->kh * cv->kw > 1);
}

bool
_executorch_conv_f32_two (const KernelConvCall *calls)
{
  TwoJob two = { 0 };
  int64_t tasks[2];

  g_return_val_if_fail (takes_gemm (calls[0].cv) && takes_gemm (calls[1].cv), false);
  for (int i = 0; i < 2; i++)
    {
      const KernelConvCall *c = &calls[i];
      const KernelConv *cv = c->cv;
      ConvJob *job = &two.jobs[i];
      bool direct = cv->kh == 1 && cv->kw == 1 && cv->sh == 1 && cv->sw == 1 && cv->ph == 0 && cv->pw == 0;

      *job = (ConvJob){ .cv = cv,
                        .x = c->x,
                        .weight = c->weight,
                        .packed_weight = c->packed_weight,
                        .bias = c->bias,
                        .y = c->y,
                        .epilogue = c->epilogue };
      choose_split (job, direct);
      job->n_tiles = (cv->oh * cv->ow + job->tile - 1) / job->tile;
      job->n_co = (cv->cout_g + job->co_block - 1) / job->co_block;
      tasks[i] = cv->n * cv->groups * job->n_co * job->n_tiles;
    }
  if (executorch_threadpool_get_num_threads () > 1 && tasks[0] + tasks[1] > 1)
    {
      two.jobs[0].single_thread = two.jobs[1].single_thread = true;
      two.first_tasks = tasks[0];
      executorch_threadpool_parallelize_1d ((ExecutorchThreadpoolTask1d) two_task, &two,
                                            (size_t) (tasks[0] + tasks[1]));
    }
  else
    for (int i = 0; i < 2; i++)
      run_tasks (&two.jobs[i], gemm_task, tasks[i]);
  return !two.jobs[0].failed && !two.jobs[1].failed;
}
