/* convolution-rows.c: float32 1x1 convolutions over small planes, with the
 * output pixels as the GEMM's rows
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GEMM path (convolution-fast.c) computes W[cout, cin] x X[cin, pixels]
 * with the pixels along its 32-float (AVX-512) vectors: a 7x7 plane's 49
 * pixels then take 64 lanes, a 14x14 plane's 196 take 224, and MobileNet's
 * and ResNet's last stages ran at 46 to 70 % of the FMA peak.  Here the
 * output channels go along the vectors (these networks' channel counts
 * are multiples of 32) and the pixels along the rows, seven at a time:
 * 7x7, 14x14, 28x28 and 56x56 planes all split into whole tiles.
 *
 * A tile is 7 pixels by 32 output channels.  Its A operand is read in
 * place, the 7 pixels' values of input channel k being 7 consecutive
 * floats of X's row k (the last, partial tile of a plane copies its rows
 * into a zero-padded buffer first); its B operand is a strip of the
 * weights, transposed and packed at load (_executorch_conv_rows_pack).
 * The 7 x 32 sums are then transposed in registers, and each output
 * channel's 7 pixels get the bias, residual and clamp and are stored into
 * its NCHW plane with one masked store.
 *
 * Only with AVX-512 (the masked stores and 32 vector registers): the load
 * time choice (_executorch_conv_rows_pays) asks the CPU.  Each output is
 * one sum over k in order, so a result does not depend on the threads.
 */
#include "convolution-private.h"

#include "executorch-threadpool.h"
#include "support-private.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ROWS_HAVE_AVX512 1
#endif

#define ROWS_MR 7  /* pixels a tile */
#define ROWS_NR 32 /* output channels a tile (a weight strip) */
/* Planes of at most this many pixels: beyond, the GEMM path's columns
 * waste at most an eighth of a vector a row. */
#define ROWS_MAX_PIXELS 256

bool
_executorch_conv_rows_fits (const KernelConv *cv)
{
#ifdef ROWS_HAVE_AVX512
  return _executorch_support_cpu_has_avx512 () && !cv->transposed && cv->n == 1 && cv->groups == 1 && cv->kh == 1 &&
         cv->kw == 1 && cv->sh == 1 && cv->sw == 1 && cv->ph == 0 && cv->pw == 0 && cv->h == cv->oh &&
         cv->w == cv->ow && cv->cout > 0 && cv->cout % ROWS_NR == 0 && cv->cin > 0 && cv->oh * cv->ow > 0;
#else
  (void) cv;
  return false;
#endif
}

bool
_executorch_conv_rows_pays (const KernelConv *cv)
{
  int64_t pixels = cv->oh * cv->ow;
  /* Lanes the GEMM path computes, 32 a strip, against 7-pixel tiles. */
  int64_t as_columns = (pixels + 31) / 32 * 32, as_rows = (pixels + ROWS_MR - 1) / ROWS_MR * ROWS_MR;

  return _executorch_conv_rows_fits (cv) && pixels <= ROWS_MAX_PIXELS && 20 * as_rows < 19 * as_columns;
}

void
_executorch_conv_rows_pack (const float *weight, int64_t cout, int64_t k, float *dst)
{
  /* Strip s holds output channels [32 s, 32 s + 32) of every input
   * channel in turn: dst[(s * k + c) * 32 + j] = weight[32 s + j, c]. */
  for (int64_t s = 0; s < cout / ROWS_NR; s++)
    for (int64_t c = 0; c < k; c++)
      for (int64_t j = 0; j < ROWS_NR; j++)
        dst[(s * k + c) * ROWS_NR + j] = weight[(s * ROWS_NR + j) * k + c];
}

#ifdef ROWS_HAVE_AVX512
#define ROWS_TARGET __attribute__ ((target ("avx512f,avx512dq,avx512vl,fma")))

typedef struct
{
  const KernelConv *cv;
  const float *x, *packed, *bias;
  float *y;
  const KernelConvEpilogue *epilogue;
  int64_t pixels, tiles, tiles_per_task, tasks_per_strip;
  int failed;
} RowsJob;

/* One output channel's 8 pixel rows: the bias, residual and clamp, then
 * the store of the first rows (@rows, a lane mask) into its plane. */
static inline ROWS_TARGET __attribute__ ((always_inline)) void
finish_channel (const RowsJob *job, __m256 v, int64_t co, int64_t p0, __mmask8 rows)
{
  const KernelConvEpilogue *e = job->epilogue;
  int64_t at = co * job->pixels + p0;

  if (job->bias != NULL)
    v = _mm256_add_ps (v, _mm256_set1_ps (job->bias[co]));
  if (e != NULL && e->residual != NULL)
    v = _mm256_add_ps (v, _mm256_maskz_loadu_ps (rows, e->residual + at));
  if (e != NULL && e->clamp)
    v = _mm256_min_ps (_mm256_set1_ps (e->hi), _mm256_max_ps (_mm256_set1_ps (e->lo), v));
  _mm256_mask_storeu_ps (job->y + at, rows, v);
}

/* Sixteen output channels of 8 pixel rows (@r[i]: row i's channels
 * co .. co + 15), each channel's 8 pixels gathered into a 256-bit vector
 * and finished. */
static inline ROWS_TARGET __attribute__ ((always_inline)) void
finish_16 (const RowsJob *job, const __m512 r[8], int64_t co, int64_t p0, __mmask8 rows)
{
  /* Within each 128-bit lane l: lo[m] holds rows 0-3 of channel 4 l + m,
   * hi[m] rows 4-7. */
  __m512 t0 = _mm512_unpacklo_ps (r[0], r[1]), t1 = _mm512_unpackhi_ps (r[0], r[1]);
  __m512 t2 = _mm512_unpacklo_ps (r[2], r[3]), t3 = _mm512_unpackhi_ps (r[2], r[3]);
  __m512 t4 = _mm512_unpacklo_ps (r[4], r[5]), t5 = _mm512_unpackhi_ps (r[4], r[5]);
  __m512 t6 = _mm512_unpacklo_ps (r[6], r[7]), t7 = _mm512_unpackhi_ps (r[6], r[7]);
  __m512 lo[4] = { _mm512_shuffle_ps (t0, t2, 0x44), _mm512_shuffle_ps (t0, t2, 0xee), _mm512_shuffle_ps (t1, t3, 0x44),
                   _mm512_shuffle_ps (t1, t3, 0xee) };
  __m512 hi[4] = { _mm512_shuffle_ps (t4, t6, 0x44), _mm512_shuffle_ps (t4, t6, 0xee), _mm512_shuffle_ps (t5, t7, 0x44),
                   _mm512_shuffle_ps (t5, t7, 0xee) };
  /* Lane l of lo then of hi: channel 4 l + m's 8 rows. */
  const __m512i lanes01 = _mm512_setr_epi32 (0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i lanes23 = _mm512_setr_epi32 (8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);

  for (int m = 0; m < 4; m++)
    {
      __m512 a = _mm512_permutex2var_ps (lo[m], lanes01, hi[m]);
      __m512 b = _mm512_permutex2var_ps (lo[m], lanes23, hi[m]);
      finish_channel (job, _mm512_castps512_ps256 (a), co + m, p0, rows);
      finish_channel (job, _mm512_extractf32x8_ps (a, 1), co + 4 + m, p0, rows);
      finish_channel (job, _mm512_castps512_ps256 (b), co + 8 + m, p0, rows);
      finish_channel (job, _mm512_extractf32x8_ps (b, 1), co + 12 + m, p0, rows);
    }
}

/* One tile: pixels [p0, p0 + 7) (the first @n of them real) by the 32
 * output channels of weight strip @strip.  A's value of pixel r and input
 * channel c is a[c * @a_ks + r]. */
static ROWS_TARGET void
rows_tile (const RowsJob *job, const float *a, int64_t a_ks, int64_t strip, int64_t p0, int n)
{
  int64_t k = job->cv->cin;
  const float *b = job->packed + strip * k * ROWS_NR;
  __m512 acc[8][2];

  for (int r = 0; r < 8; r++)
    acc[r][0] = acc[r][1] = _mm512_setzero_ps ();
  for (int64_t c = 0; c < k; c++, a += a_ks, b += ROWS_NR)
    {
      __m512 b0 = _mm512_loadu_ps (b), b1 = _mm512_loadu_ps (b + 16);
      for (int r = 0; r < ROWS_MR; r++)
        {
          __m512 av = _mm512_set1_ps (a[r]);
          acc[r][0] = _mm512_fmadd_ps (av, b0, acc[r][0]);
          acc[r][1] = _mm512_fmadd_ps (av, b1, acc[r][1]);
        }
    }

  __mmask8 rows = (__mmask8) ((1u << n) - 1);
  for (int h = 0; h < 2; h++)
    {
      __m512 r[8];
      for (int i = 0; i < 8; i++)
        r[i] = acc[i][h];
      finish_16 (job, r, strip * ROWS_NR + 16 * h, p0, rows);
    }
}

static void
rows_task (void *data, size_t task)
{
  RowsJob *job = data;
  int64_t strip = (int64_t) task / job->tasks_per_strip;
  int64_t first = (int64_t) task % job->tasks_per_strip * job->tiles_per_task;
  int64_t end = first + job->tiles_per_task < job->tiles ? first + job->tiles_per_task : job->tiles;
  int64_t k = job->cv->cin, pixels = job->pixels;

  for (int64_t t = first; t < end; t++)
    {
      int64_t p0 = t * ROWS_MR;
      int n = pixels - p0 < ROWS_MR ? (int) (pixels - p0) : ROWS_MR;
      if (n == ROWS_MR)
        {
          rows_tile (job, job->x + p0, pixels, strip, p0, n);
          continue;
        }
      /* The plane's last pixels: reading 7 a row would pass its end. */
      float *a = calloc ((size_t) k * ROWS_MR, sizeof (float));
      if (a == NULL)
        {
          __atomic_store_n (&job->failed, 1, __ATOMIC_RELAXED);
          return;
        }
      for (int64_t c = 0; c < k; c++)
        memcpy (a + c * ROWS_MR, job->x + c * pixels + p0, (size_t) n * sizeof (float));
      rows_tile (job, a, ROWS_MR, strip, p0, n);
      free (a);
    }
}
#endif

bool
_executorch_conv_rows_f32 (const KernelConv *cv, const float *x, const float *packed, const float *bias, float *y,
                           const KernelConvEpilogue *epilogue)
{
#ifdef ROWS_HAVE_AVX512
  int64_t pixels = cv->oh * cv->ow, strips = cv->cout / ROWS_NR;
  int64_t threads = executorch_threadpool_get_num_threads ();
  RowsJob job = {
    .cv = cv,
    .x = x,
    .packed = packed,
    .bias = bias,
    .y = y,
    .epilogue = epilogue,
    .pixels = pixels,
    .tiles = (pixels + ROWS_MR - 1) / ROWS_MR,
  };

  g_return_val_if_fail (_executorch_conv_rows_fits (cv), false);
  /* A few tasks a thread, so one slowed by other processes leaves its
   * share to the others: strips first, then runs of tiles. */
  int64_t want = threads > 1 ? 4 * threads : 1;
  job.tasks_per_strip = strips >= want ? 1 : (want + strips - 1) / strips;
  if (job.tasks_per_strip > job.tiles)
    job.tasks_per_strip = job.tiles;
  job.tiles_per_task = (job.tiles + job.tasks_per_strip - 1) / job.tasks_per_strip;
  job.tasks_per_strip = (job.tiles + job.tiles_per_task - 1) / job.tiles_per_task;

  size_t tasks = (size_t) (strips * job.tasks_per_strip);
  if (tasks > 1 && threads > 1)
    executorch_threadpool_parallelize_1d ((ExecutorchThreadpoolTask1d) rows_task, &job, tasks);
  else
    for (size_t i = 0; i < tasks; i++)
      rows_task (&job, i);
  return !job.failed;
#else
  (void) cv, (void) x, (void) packed, (void) bias, (void) y, (void) epilogue;
  g_return_val_if_reached (false);
#endif
}
