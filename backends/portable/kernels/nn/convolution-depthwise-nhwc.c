/* convolution-depthwise-nhwc.c: float32 depthwise convolution of a
 * channels-last (NHWC) input into a channels-last output
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Where a chain of convolutions runs channels-last (rewrites/channels-last.c
 * chose it at load), a depthwise layer's 16 channels of one pixel are one
 * AVX-512 vector, and every tap of every output pixel is a vector load
 * from the input as it lies: no padded copy of the plane, and no phases
 * at stride 2.
 *
 * The weights are packed at load as [tap][channel] (channels padded to a
 * multiple of 16 with zeros).  Each task takes a run of output rows (and,
 * on planes with fewer rows than tasks, a run of channel vectors).  For
 * one output row and 16 channels the window's weights stay in registers
 * while the row's pixels go by: pixels whose window lies inside the input
 * run the taps unrolled (3x3 and 5x5 windows), the few at the borders
 * skip the taps in the padding.  Each sum starts from the bias and adds
 * the taps in window order with FMA, as convolution-depthwise.c does, then
 * the residual and the clamp run before the one store.
 *
 * AVX-512 only, as the channels-last chains that use it.
 */
#include "convolution-private.h"

#include "executorch-threadpool.h"
#include "support-private.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DWL_HAVE_AVX512 1
#endif

#define DWL_LANES 16
#define DWL_MAX_TAPS 25 /* windows kept in registers: at most 5x5 */

bool
_executorch_conv_depthwise_nhwc_fits (const KernelConv *cv)
{
#ifdef DWL_HAVE_AVX512
  return _executorch_support_cpu_has_avx512 () && !cv->transposed && cv->n == 1 && cv->cin > 0 &&
         cv->groups == cv->cin && cv->cout == cv->cin && cv->cin_g == 1 && cv->kh > 0 && cv->kw > 0 &&
         cv->oh * cv->ow > 0;
#else
  (void) cv;
  return false;
#endif
}

int64_t
_executorch_conv_depthwise_nhwc_packed_floats (int64_t channels, int64_t taps)
{
  return (channels + DWL_LANES - 1) / DWL_LANES * DWL_LANES * taps;
}

void
_executorch_conv_depthwise_nhwc_pack (const float *weight, int64_t channels, int64_t taps, float *dst)
{
  int64_t padded = (channels + DWL_LANES - 1) / DWL_LANES * DWL_LANES;

  for (int64_t t = 0; t < taps; t++)
    for (int64_t c = 0; c < padded; c++)
      dst[t * padded + c] = c < channels ? weight[c * taps + t] : 0.0f;
}

#ifdef DWL_HAVE_AVX512
#define DWL_TARGET __attribute__ ((target ("avx512f,avx512dq,fma")))

typedef struct
{
  const KernelConv *cv;
  const float *x, *packed, *bias;
  float *y;
  const KernelConvEpilogue *epilogue;
  int64_t vectors, padded; /* channel vectors; channels rounded up to them */
  int64_t rows_per_task, row_tasks, vectors_per_task;
} DwlJob;

/* The bias, residual and clamp on one pixel's sums, then the store. */
static inline DWL_TARGET __attribute__ ((always_inline)) void
finish (const DwlJob *job, __m512 acc, int64_t at, __mmask16 lanes)
{
  const KernelConvEpilogue *e = job->epilogue;

  if (e != NULL && e->residual != NULL)
    acc = _mm512_add_ps (acc, _mm512_maskz_loadu_ps (lanes, e->residual + at));
  if (e != NULL && e->clamp)
    acc = _mm512_min_ps (_mm512_set1_ps (e->hi), _mm512_max_ps (_mm512_set1_ps (e->lo), acc));
  _mm512_mask_storeu_ps (job->y + at, lanes, acc);
}

/* Output row @oy, channel vector @v (channels 16 v ..), with a KH x KW
 * window (constants where the caller unrolls). */
static inline DWL_TARGET __attribute__ ((always_inline)) void
dwl_row (const DwlJob *job, int64_t oy, int64_t v, const int KH, const int KW)
{
  const KernelConv *cv = job->cv;
  int64_t c0 = v * DWL_LANES, cin = cv->cin, taps = (int64_t) KH * KW;
  __mmask16 lanes = (__mmask16) (cin - c0 >= DWL_LANES ? 0xffff : (1u << (cin - c0)) - 1);
  __m512 w[DWL_MAX_TAPS];
  __m512 bias = job->bias != NULL ? _mm512_maskz_loadu_ps (lanes, job->bias + c0) : _mm512_setzero_ps ();
  const float *rows[5]; /* KH <= 5 */
  bool row_in[5];
  int64_t iy0 = oy * cv->sh - cv->ph;

  for (int t = 0; t < taps; t++)
    w[t] = _mm512_loadu_ps (job->packed + t * job->padded + c0);
  for (int ky = 0; ky < KH; ky++)
    {
      int64_t iy = iy0 + ky * cv->dh;
      row_in[ky] = iy >= 0 && iy < cv->h;
      rows[ky] = job->x + (row_in[ky] ? iy : 0) * cv->w * cin + c0;
    }

  /* Output columns whose whole window lies inside the row: [lo, hi). */
  int64_t lo = cv->pw > 0 ? MIN ((cv->pw + cv->sw - 1) / cv->sw, cv->ow) : 0;
  int64_t last_off = (int64_t) (KW - 1) * cv->dw - cv->pw; /* the last tap's column, from ox sw */
  int64_t hi = cv->w - last_off > 0 ? (cv->w - 1 - last_off) / cv->sw + 1 : 0;
  hi = CLAMP (hi, lo, cv->ow);
  bool all_rows = true;
  for (int ky = 0; ky < KH; ky++)
    all_rows = all_rows && row_in[ky];

  for (int64_t ox = 0; ox < cv->ow; ox++)
    {
      int64_t ix0 = ox * cv->sw - cv->pw;
      __m512 acc = bias;
      if (all_rows && ox >= lo && ox + 3 < hi)
        {
          /* Four pixels at a time: four independent sums. */
          __m512 a1 = bias, a2 = bias, a3 = bias;
          int64_t step = cv->sw * cin;
          for (int ky = 0; ky < KH; ky++)
            for (int kx = 0; kx < KW; kx++)
              {
                const float *in = rows[ky] + (ix0 + kx * cv->dw) * cin;
                __m512 wt = w[ky * KW + kx];
                acc = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (lanes, in), wt, acc);
                a1 = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (lanes, in + step), wt, a1);
                a2 = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (lanes, in + 2 * step), wt, a2);
                a3 = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (lanes, in + 3 * step), wt, a3);
              }
          int64_t at = (oy * cv->ow + ox) * cin + c0;
          finish (job, acc, at, lanes);
          finish (job, a1, at + cin, lanes);
          finish (job, a2, at + 2 * cin, lanes);
          finish (job, a3, at + 3 * cin, lanes);
          ox += 3;
          continue;
        }
      if (all_rows && ox >= lo && ox < hi)
        {
          for (int ky = 0; ky < KH; ky++)
            for (int kx = 0; kx < KW; kx++)
              acc = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (lanes, rows[ky] + (ix0 + kx * cv->dw) * cin),
                                     w[ky * KW + kx], acc);
        }
      else
        {
          for (int ky = 0; ky < KH; ky++)
            {
              if (!row_in[ky])
                continue;
              for (int kx = 0; kx < KW; kx++)
                {
                  int64_t ix = ix0 + kx * cv->dw;
                  if (ix >= 0 && ix < cv->w)
                    acc = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (lanes, rows[ky] + ix * cin), w[ky * KW + kx], acc);
                }
            }
        }
      finish (job, acc, (oy * cv->ow + ox) * cin + c0, lanes);
    }
}

/* Any window: the taps' weights read from the packing as they go. */
static DWL_TARGET void
dwl_row_any (const DwlJob *job, int64_t oy, int64_t v)
{
  const KernelConv *cv = job->cv;
  int64_t c0 = v * DWL_LANES, cin = cv->cin;
  __mmask16 lanes = (__mmask16) (cin - c0 >= DWL_LANES ? 0xffff : (1u << (cin - c0)) - 1);
  __m512 bias = job->bias != NULL ? _mm512_maskz_loadu_ps (lanes, job->bias + c0) : _mm512_setzero_ps ();

  for (int64_t ox = 0; ox < cv->ow; ox++)
    {
      __m512 acc = bias;
      for (int64_t ky = 0; ky < cv->kh; ky++)
        {
          int64_t iy = oy * cv->sh - cv->ph + ky * cv->dh;
          if (iy < 0 || iy >= cv->h)
            continue;
          for (int64_t kx = 0; kx < cv->kw; kx++)
            {
              int64_t ix = ox * cv->sw - cv->pw + kx * cv->dw;
              if (ix >= 0 && ix < cv->w)
                acc = _mm512_fmadd_ps (_mm512_maskz_loadu_ps (lanes, job->x + (iy * cv->w + ix) * cin + c0),
                                       _mm512_loadu_ps (job->packed + (ky * cv->kw + kx) * job->padded + c0), acc);
            }
        }
      finish (job, acc, (oy * cv->ow + ox) * cin + c0, lanes);
    }
}

static DWL_TARGET void
dwl_task (void *data, size_t task)
{
  DwlJob *job = data;
  const KernelConv *cv = job->cv;
  int64_t r0 = (int64_t) task % job->row_tasks * job->rows_per_task;
  int64_t v0 = (int64_t) task / job->row_tasks * job->vectors_per_task;
  int64_t r1 = MIN (r0 + job->rows_per_task, cv->oh), v1 = MIN (v0 + job->vectors_per_task, job->vectors);

  for (int64_t oy = r0; oy < r1; oy++)
    for (int64_t v = v0; v < v1; v++)
      {
        if (cv->kh == 3 && cv->kw == 3)
          dwl_row (job, oy, v, 3, 3);
        else if (cv->kh == 5 && cv->kw == 5)
          dwl_row (job, oy, v, 5, 5);
        else
          dwl_row_any (job, oy, v);
      }
}
#endif

bool
_executorch_conv_depthwise_nhwc_f32 (const KernelConv *cv, const float *x, const float *packed, const float *bias,
                                     float *y, const KernelConvEpilogue *epilogue)
{
#ifdef DWL_HAVE_AVX512
  int64_t threads = executorch_threadpool_get_num_threads ();
  int64_t want = threads > 1 ? 4 * threads : 1;
  DwlJob job = {
    .cv = cv,
    .x = x,
    .packed = packed,
    .bias = bias,
    .y = y,
    .epilogue = epilogue,
    .vectors = (cv->cin + DWL_LANES - 1) / DWL_LANES,
  };

  g_return_val_if_fail (_executorch_conv_depthwise_nhwc_fits (cv), false);
  job.padded = job.vectors * DWL_LANES;
  /* Runs of rows, so that each thread keeps to its part of the plane
   * from layer to layer; a plane with fewer rows than tasks also cuts its
   * channels. */
  job.rows_per_task = (cv->oh + 2 * want - 1) / (2 * want); /* tasks a multiple of the threads, mostly */
  job.row_tasks = (cv->oh + job.rows_per_task - 1) / job.rows_per_task;
  int64_t channel_tasks = MIN ((want + job.row_tasks - 1) / job.row_tasks, job.vectors);
  job.vectors_per_task = (job.vectors + channel_tasks - 1) / channel_tasks;
  channel_tasks = (job.vectors + job.vectors_per_task - 1) / job.vectors_per_task;

  size_t tasks = (size_t) (job.row_tasks * channel_tasks);
  if (tasks > 1 && threads > 1)
    executorch_threadpool_parallelize_1d ((ExecutorchThreadpoolTask1d) dwl_task, &job, tasks);
  else
    for (size_t i = 0; i < tasks; i++)
      dwl_task (&job, i);
  return true;
#else
  (void) cv, (void) x, (void) packed, (void) bias, (void) y, (void) epilogue;
  g_return_val_if_reached (false);
#endif
}
