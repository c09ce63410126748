/* convolution-rows.c: float32 convolutions over small planes, with the
 * output pixels as the GEMM's rows
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GEMM path (convolution-fast.c) computes W[cout, k] x X[k, pixels]
 * with the pixels along its 32-float (AVX-512) vectors: a 7x7 plane's 49
 * pixels then take 64 lanes, a 14x14 plane's 196 take 224, and MobileNet's
 * and ResNet's last stages ran at 46 to 70 % of the FMA peak.  Here the
 * output channels go along the vectors (32 a strip, the last one padded
 * with zero weights) and the pixels along the rows, seven at a time:
 * 7x7, 14x14, 28x28 and 56x56 planes all split into whole tiles.
 *
 * A tile is 7 pixels by 32 output channels.  Its A operand is read in
 * place, the 7 pixels' values of row k being 7 consecutive floats of
 * row k: the input itself for a 1x1 convolution (stride 1, no padding),
 * else its im2col matrix (the last, partial tile of a plane copies its
 * rows into a zero-padded buffer first).  Each thread fills its own copy
 * of that matrix once a call and keeps the buffer for the next: tasks cut
 * the weights' strips, so every thread reads all of the matrix, and one
 * shared copy had each thread read the half the other wrote, at twice the
 * time when the two sit on different dies.  Its B operand is a strip of
 * the weights, transposed and packed at load (_executorch_conv_rows_pack).
 * The 7 x 32 sums are then transposed in registers, and each output
 * channel's 7 pixels get the residual and clamp and are stored into
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
/* Planes of at most this many pixels: past them the GEMM path's 32-pixel
 * strips waste at most an eighth of their lanes, and its pixel tiles
 * spread over the threads as well. */
#define ROWS_MAX_PIXELS 256
/* Weights of the strips a channels-last run goes through tile by tile
 * (half a typical L2). */
#define ROWS_TILE_OUTER_BYTES (256 * 1024)

bool
_executorch_conv_rows_fits (const KernelConv *cv)
{
#ifdef ROWS_HAVE_AVX512
  /* The masked 256-bit stores need AVX512VL besides the F and DQ the
   * plug-ins' AVX-512 decision asks for. */
  return _executorch_support_cpu_has_avx512 () && __builtin_cpu_supports ("avx512vl") && !cv->transposed &&
         cv->n == 1 && cv->groups == 1 && cv->cout > 0 && cv->cin > 0 && cv->kh > 0 && cv->kw > 0 &&
         cv->oh * cv->ow > 0;
#else
  (void) cv;
  return false;
#endif
}

/* A 1x1 convolution whose A is its input as it lies. */
static bool
rows_reads_input (const KernelConv *cv)
{
  return cv->kh == 1 && cv->kw == 1 && cv->sh == 1 && cv->sw == 1 && cv->ph == 0 && cv->pw == 0 && cv->oh == cv->h &&
         cv->ow == cv->w;
}

bool
_executorch_conv_rows_fits_layout (const KernelConv *cv, unsigned layout)
{
  /* A channels-last input is read in place: 1x1 only. */
  return _executorch_conv_rows_fits (cv) && ((layout & KERNEL_CONV_X_CHANNELS_LAST) == 0 || rows_reads_input (cv));
}

bool
_executorch_conv_rows_pays (const KernelConv *cv)
{
  int64_t pixels = cv->oh * cv->ow;

  if (!_executorch_conv_rows_fits (cv) || pixels > ROWS_MAX_PIXELS)
    return false;
  /* Lanes each computes: the GEMM path 32-pixel strips by 6-channel ones,
   * the tiles 7 pixels by 32 channels; each lane costs its sum over k
   * plus the tile's finish, which is dearer for the tiles (transposes,
   * one store a channel): about 23 steps of k against 2 (MobileNet-v2's
   * 1x1 convolutions at 14x14 with 64 or 96 input channels ran 3-15 %
   * slower on the tiles, those with 384 or 576 8-21 % faster). */
  int64_t k = cv->cin * cv->kh * cv->kw;
  double as_columns = (double) ((pixels + 31) / 32 * 32 * ((cv->cout + 5) / 6 * 6)) * (double) (k + 2);
  double as_rows =
      (double) ((pixels + ROWS_MR - 1) / ROWS_MR * ROWS_MR * ((cv->cout + ROWS_NR - 1) / ROWS_NR * ROWS_NR)) *
      (double) (k + 23);
  /* A window's im2col fill is work the GEMM path's strips do as they go:
   * only where the tiles save a seventh (7x7 planes). */
  double bound = rows_reads_input (cv) ? 19 : 17;

  return 20 * as_rows < bound * as_columns;
}

int64_t
_executorch_conv_rows_packed_floats (int64_t cout, int64_t k)
{
  return (cout + ROWS_NR - 1) / ROWS_NR * ROWS_NR * k;
}

void
_executorch_conv_rows_pack (const float *weight, int64_t cout, int64_t k, float *dst)
{
  /* Strip s holds output channels [32 s, 32 s + 32) of every input
   * channel in turn, zeros past cout: dst[(s k + c) 32 + j] = weight[32 s
   * + j, c]. */
  for (int64_t s = 0; s < (cout + ROWS_NR - 1) / ROWS_NR; s++)
    for (int64_t c = 0; c < k; c++)
      for (int64_t j = 0; j < ROWS_NR; j++)
        dst[(s * k + c) * ROWS_NR + j] = s * ROWS_NR + j < cout ? weight[(s * ROWS_NR + j) * k + c] : 0.0f;
}

#ifdef ROWS_HAVE_AVX512
#define ROWS_TARGET __attribute__ ((target ("avx512f,avx512dq,avx512vl,fma")))

typedef struct
{
  const KernelConv *cv;
  const float *x;
  const float *a; /* [k][pixels]: x itself, or NULL: each thread's im2col matrix */
  guint64 call;   /* this call, for the threads' im2col buffers */
  const float *packed, *bias;
  float *y;
  const KernelConvEpilogue *epilogue;
  bool x_channels_last, y_channels_last;
  int64_t k, pixels, tiles, tiles_per_task, tasks_per_strip;
  bool by_tiles; /* each task all strips of a run of tiles */
  int failed;
} RowsJob;

/* One output channel's 8 pixel rows: the residual and clamp, then
 * the store of the first rows (@rows, a lane mask) into its plane. */
static inline ROWS_TARGET __attribute__ ((always_inline)) void
finish_channel (const RowsJob *job, __m256 v, int64_t co, int64_t p0, __mmask8 rows)
{
  const KernelConvEpilogue *e = job->epilogue;
  int64_t at = co * job->pixels + p0;

  if (co >= job->cv->cout)
    return; /* the last strip's padding */
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

/* Lanes of half @h of weight strip @strip that are output channels. */
static inline ROWS_TARGET __attribute__ ((always_inline)) __mmask16
strip_lanes (const RowsJob *job, int64_t strip, int h)
{
  int64_t left = job->cv->cout - strip * ROWS_NR - 16 * h;

  return (__mmask16) (left >= 16 ? 0xffff : left > 0 ? (1u << left) - 1 : 0);
}

/* What the sums of half @h of strip @strip start from: the bias (zero in
 * the padding's lanes). */
static inline ROWS_TARGET __attribute__ ((always_inline)) __m512
strip_bias (const RowsJob *job, int64_t strip, int h)
{
  return job->bias != NULL ? _mm512_maskz_loadu_ps (strip_lanes (job, strip, h), job->bias + strip * ROWS_NR + 16 * h)
                           : _mm512_setzero_ps ();
}

/* Pixel @p's 16 output channels from @co (@lanes of them real) in a
 * channels-last @y: the residual and clamp, then the store. */
static inline ROWS_TARGET __attribute__ ((always_inline)) void
finish_pixel (const RowsJob *job, __m512 v, int64_t co, int64_t p, __mmask16 lanes)
{
  const KernelConvEpilogue *e = job->epilogue;
  int64_t at = p * job->cv->cout + co;

  if (e != NULL && e->residual != NULL)
    v = _mm512_add_ps (v, _mm512_maskz_loadu_ps (lanes, e->residual + at));
  if (e != NULL && e->clamp)
    v = _mm512_min_ps (_mm512_set1_ps (e->hi), _mm512_max_ps (_mm512_set1_ps (e->lo), v));
  _mm512_mask_storeu_ps (job->y + at, lanes, v);
}

/* One tile: pixels [p0, p0 + 7) (the first @n of them real) by the 32
 * output channels of weight strip @strip.  A's value of pixel r and sum
 * index c is a[r][c * @step]; the rows past @n may repeat a real one. */
static ROWS_TARGET __attribute__ ((noinline)) void
rows_tile_nchw (const RowsJob *job, const float *const a[ROWS_MR], int64_t step, int64_t strip, int64_t p0, int n)
{
  int64_t k = job->k, cout = job->cv->cout;
  const float *b = job->packed + strip * k * ROWS_NR;
  __m512 acc[8][2];

  for (int h = 0; h < 2; h++)
    acc[0][h] = strip_bias (job, strip, h);
  for (int r = 1; r < 8; r++)
    acc[r][0] = acc[0][0], acc[r][1] = acc[0][1];
  for (int64_t c = 0, at = 0; c < k; c++, at += step, b += ROWS_NR)
    {
      __m512 b0 = _mm512_loadu_ps (b), b1 = _mm512_loadu_ps (b + 16);
      for (int r = 0; r < ROWS_MR; r++)
        {
          __m512 av = _mm512_set1_ps (a[r][at]);
          acc[r][0] = _mm512_fmadd_ps (av, b0, acc[r][0]);
          acc[r][1] = _mm512_fmadd_ps (av, b1, acc[r][1]);
        }
    }
  for (int h = 0; h < 2 && strip * ROWS_NR + 16 * h < cout; h++)
    {
      __m512 rows[8];
      for (int i = 0; i < 8; i++)
        rows[i] = acc[i][h];
      finish_16 (job, rows, strip * ROWS_NR + 16 * h, p0, (__mmask8) ((1u << n) - 1));
    }
}

/* The same into a channels-last @y, each sum in its own register: a
 * pixel's 32 channels go to their place as they are. */
static ROWS_TARGET __attribute__ ((noinline)) void
rows_tile_nhwc (const RowsJob *job, const float *const a[ROWS_MR], int64_t step, int64_t strip, int64_t p0, int n)
{
  int64_t k = job->k, co = strip * ROWS_NR;
  const float *b = job->packed + strip * k * ROWS_NR;
  const float *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3], *a4 = a[4], *a5 = a[5], *a6 = a[6];
  __m512 s0 = strip_bias (job, strip, 0), s1 = strip_bias (job, strip, 1);
  __m512 c00 = s0, c01 = s1, c10 = s0, c11 = s1, c20 = s0, c21 = s1, c30 = s0, c31 = s1;
  __m512 c40 = s0, c41 = s1, c50 = s0, c51 = s1, c60 = s0, c61 = s1;
  __mmask16 lanes0 = strip_lanes (job, strip, 0), lanes1 = strip_lanes (job, strip, 1);

#define ROWS_STEP(R, H) c##R##H = _mm512_fmadd_ps (_mm512_set1_ps (a##R[at]), b##H, c##R##H)
  if (lanes1 != 0)
    for (int64_t c = 0, at = 0; c < k; c++, at += step, b += ROWS_NR)
      {
        __m512 b0 = _mm512_loadu_ps (b), b1 = _mm512_loadu_ps (b + 16);
        ROWS_STEP (0, 0), ROWS_STEP (0, 1);
        ROWS_STEP (1, 0), ROWS_STEP (1, 1);
        ROWS_STEP (2, 0), ROWS_STEP (2, 1);
        ROWS_STEP (3, 0), ROWS_STEP (3, 1);
        ROWS_STEP (4, 0), ROWS_STEP (4, 1);
        ROWS_STEP (5, 0), ROWS_STEP (5, 1);
        ROWS_STEP (6, 0), ROWS_STEP (6, 1);
      }
  else
    /* The strip's second half is all padding (16 output channels, or
     * 144's last strip): half the products. */
    for (int64_t c = 0, at = 0; c < k; c++, at += step, b += ROWS_NR)
      {
        __m512 b0 = _mm512_loadu_ps (b);
        ROWS_STEP (0, 0);
        ROWS_STEP (1, 0);
        ROWS_STEP (2, 0);
        ROWS_STEP (3, 0);
        ROWS_STEP (4, 0);
        ROWS_STEP (5, 0);
        ROWS_STEP (6, 0);
      }
#undef ROWS_STEP

#define ROWS_FINISH(R)                                        \
  if (R < n)                                                  \
    {                                                         \
      finish_pixel (job, c##R##0, co, p0 + R, lanes0);        \
      if (lanes1 != 0)                                        \
        finish_pixel (job, c##R##1, co + 16, p0 + R, lanes1); \
    }
  ROWS_FINISH (0)
  ROWS_FINISH (1)
  ROWS_FINISH (2)
  ROWS_FINISH (3)
  ROWS_FINISH (4)
  ROWS_FINISH (5)
  ROWS_FINISH (6)
#undef ROWS_FINISH
}

static inline void
rows_tile (const RowsJob *job, const float *const a[ROWS_MR], int64_t step, int64_t strip, int64_t p0, int n)
{
  (job->y_channels_last ? rows_tile_nhwc : rows_tile_nchw) (job, a, step, strip, p0, n);
}

/* The im2col matrix of the input:
 * columns[(ci kh + ky) kw + kx][oy ow + ox] = x[ci][iy][ix], 0 in the
 * padding. */
static void
fill_columns (const RowsJob *job, float *columns)
{
  const KernelConv *cv = job->cv;

  for (int64_t ci = 0; ci < cv->cin; ci++)
    for (int64_t ky = 0; ky < cv->kh; ky++)
      for (int64_t kx = 0; kx < cv->kw; kx++)
        {
          float *dst = columns + ((ci * cv->kh + ky) * cv->kw + kx) * job->pixels;
          /* Output columns whose input column is inside the row: [lo, hi). */
          int64_t off = kx * cv->dw - cv->pw;
          int64_t lo = MIN (off >= 0 ? 0 : (-off + cv->sw - 1) / cv->sw, cv->ow);
          int64_t hi = CLAMP (cv->w - off > 0 ? (cv->w - off + cv->sw - 1) / cv->sw : 0, lo, cv->ow);

          for (int64_t oy = 0; oy < cv->oh; oy++, dst += cv->ow)
            {
              int64_t iy = oy * cv->sh - cv->ph + ky * cv->dh;
              if (iy < 0 || iy >= cv->h)
                {
                  memset (dst, 0, (size_t) cv->ow * sizeof (float));
                  continue;
                }
              const float *row = job->x + (ci * cv->h + iy) * cv->w;
              memset (dst, 0, (size_t) lo * sizeof (float));
              if (cv->sw == 1)
                memcpy (dst + lo, row + lo + off, (size_t) (hi - lo) * sizeof (float));
              else
                for (int64_t ox = lo; ox < hi; ox++)
                  dst[ox] = row[ox * cv->sw + off];
              memset (dst + hi, 0, (size_t) (cv->ow - hi) * sizeof (float));
            }
        }
}

/* Tiles [first, end) by weight strips [s0, s1), strip by strip, A
 * [k][pixels] from @a_rows, or the channels-last input. */
static void
rows_run (RowsJob *job, const float *a_rows, int64_t first, int64_t end, int64_t s0, int64_t s1)
{
  int64_t k = job->k, pixels = job->pixels;
  int64_t full_end = MIN (end, pixels / ROWS_MR); /* tiles of 7 real pixels */
  float *last = NULL;
  const float *a[ROWS_MR];

  if (job->x_channels_last)
    {
      /* Each pixel's k values lie together: a partial tile's missing
       * rows repeat the plane's last pixel, and are not stored.  Tile by
       * tile through every strip while the strips' weights stay in
       * cache: a pixel's output channels are then written together, and
       * its inputs read once. */
      bool tile_outer = (s1 - s0) * k * ROWS_NR * (int64_t) sizeof (float) <= ROWS_TILE_OUTER_BYTES;
      for (int64_t i = 0; i < (end - first) * (s1 - s0); i++)
        {
          int64_t t = first + (tile_outer ? i / (s1 - s0) : i % (end - first));
          int64_t strip = s0 + (tile_outer ? i % (s1 - s0) : i / (end - first));
          int64_t p0 = t * ROWS_MR;
          for (int r = 0; r < ROWS_MR; r++)
            a[r] = job->x + MIN (p0 + r, pixels - 1) * k;
          rows_tile (job, a, 1, strip, p0, (int) MIN (ROWS_MR, pixels - p0));
        }
      return;
    }
  if (full_end < end)
    {
      /* The plane's last pixels: reading 7 a row would pass its end, so
       * they are copied once into a zero-padded tile for every strip. */
      int64_t p0 = full_end * ROWS_MR;
      if ((last = calloc ((size_t) k * ROWS_MR, sizeof (float))) == NULL)
        {
          __atomic_store_n (&job->failed, 1, __ATOMIC_RELAXED);
          return;
        }
      for (int64_t c = 0; c < k; c++)
        memcpy (last + c * ROWS_MR, a_rows + c * pixels + p0, (size_t) (pixels - p0) * sizeof (float));
    }
  for (int64_t strip = s0; strip < s1; strip++)
    {
      for (int64_t t = first; t < full_end; t++)
        {
          for (int r = 0; r < ROWS_MR; r++)
            a[r] = a_rows + t * ROWS_MR + r;
          rows_tile (job, a, pixels, strip, t * ROWS_MR, ROWS_MR);
        }
      if (last != NULL)
        {
          for (int r = 0; r < ROWS_MR; r++)
            a[r] = last + r;
          rows_tile (job, a, ROWS_MR, strip, full_end * ROWS_MR, (int) (pixels - full_end * ROWS_MR));
        }
    }
  free (last);
}

/* A thread's im2col buffer, kept from call to call. */
typedef struct
{
  guint64 call; /* whose matrix it holds */
  size_t floats;
  float *data;
} ThreadColumns;

static void
thread_columns_free (gpointer data)
{
  ThreadColumns *c = data;

  free (c->data);
  free (c);
}

static GPrivate thread_columns = G_PRIVATE_INIT (thread_columns_free);
static guint64 last_call; /* atomic */

/* This thread's im2col matrix of @job's input, filled once a call; NULL
 * when memory runs out. */
static const float *
columns_for (const RowsJob *job)
{
  ThreadColumns *c = g_private_get (&thread_columns);
  size_t floats = (size_t) (job->k * job->pixels);

  if (c == NULL)
    {
      if ((c = calloc (1, sizeof *c)) == NULL)
        return NULL;
      g_private_set (&thread_columns, c);
    }
  if (c->call == job->call)
    return c->data;
  if (c->floats < floats)
    {
      free (c->data);
      c->data = NULL;
      c->floats = 0;
      if (posix_memalign ((void **) &c->data, 64, floats * sizeof (float)) != 0)
        {
          c->data = NULL;
          return NULL;
        }
      c->floats = floats;
    }
  fill_columns (job, c->data);
  c->call = job->call;
  return c->data;
}

/* A task: one weight strip by a run of tiles, or every strip of one. */
static void
rows_task (void *data, size_t task)
{
  RowsJob *job = data;
  int64_t strips = (job->cv->cout + ROWS_NR - 1) / ROWS_NR;
  int64_t strip = job->by_tiles ? 0 : (int64_t) task / job->tasks_per_strip;
  int64_t first = (job->by_tiles ? (int64_t) task : (int64_t) task % job->tasks_per_strip) * job->tiles_per_task;
  const float *a = job->a != NULL ? job->a : columns_for (job);

  if (a == NULL)
    {
      __atomic_store_n (&job->failed, 1, __ATOMIC_RELAXED);
      return;
    }
  rows_run (job, a, first, MIN (first + job->tiles_per_task, job->tiles), strip, job->by_tiles ? strips : strip + 1);
}
#endif

bool
_executorch_conv_rows_f32 (const KernelConv *cv, const float *x, const float *packed, const float *bias, float *y,
                           const KernelConvEpilogue *epilogue, unsigned layout)
{
#ifdef ROWS_HAVE_AVX512
  int64_t pixels = cv->oh * cv->ow, strips = (cv->cout + ROWS_NR - 1) / ROWS_NR;
  int64_t threads = executorch_threadpool_get_num_threads ();
  RowsJob job = {
    .cv = cv,
    .x = x,
    .a = x,
    .k = cv->cin * cv->kh * cv->kw,
    .packed = packed,
    .bias = bias,
    .y = y,
    .epilogue = epilogue,
    .x_channels_last = (layout & KERNEL_CONV_X_CHANNELS_LAST) != 0,
    .y_channels_last = (layout & KERNEL_CONV_Y_CHANNELS_LAST) != 0,
    .pixels = pixels,
    .tiles = (pixels + ROWS_MR - 1) / ROWS_MR,
  };

  g_return_val_if_fail (_executorch_conv_rows_fits_layout (cv, layout), false);
  if (!rows_reads_input (cv))
    {
      if ((uint64_t) job.k > SIZE_MAX / sizeof (float) / (uint64_t) pixels)
        return false;
      job.a = NULL;
      job.call = __atomic_add_fetch (&last_call, 1, __ATOMIC_RELAXED);
    }
  /* A few tasks a thread, so one slowed by other processes leaves its
   * share to the others.  Channels-last outputs with more pixels than
   * output channels are cut by pixels alone, so that each thread reads
   * its own part of the input once, and consecutive layers keep each
   * thread on the same part of every buffer; the others cut the strips
   * first, then runs of tiles (an NCHW output cut by pixels would have
   * the threads share cache lines of every plane). */
  int64_t want = threads > 1 ? 4 * threads : 1;
  job.by_tiles = job.y_channels_last && pixels > cv->cout && job.tiles >= want;
  if (job.by_tiles)
    {
      /* Twice as many runs: 28 tiles (a 14x14 plane) in 8 runs of 4 left
       * one of two threads 4 runs and the other 3. */
      job.tiles_per_task = (job.tiles + 2 * want - 1) / (2 * want);
      job.tasks_per_strip = (job.tiles + job.tiles_per_task - 1) / job.tiles_per_task;
    }
  else
    {
      job.tasks_per_strip = strips >= want ? 1 : MIN ((want + strips - 1) / strips, job.tiles);
      job.tiles_per_task = (job.tiles + job.tasks_per_strip - 1) / job.tasks_per_strip;
      job.tasks_per_strip = (job.tiles + job.tiles_per_task - 1) / job.tiles_per_task;
    }

  size_t tasks = (size_t) ((job.by_tiles ? 1 : strips) * job.tasks_per_strip);
  if (tasks > 1 && threads > 1)
    executorch_threadpool_parallelize_1d ((ExecutorchThreadpoolTask1d) rows_task, &job, tasks);
  else
    for (size_t i = 0; i < tasks; i++)
      rows_task (&job, i);
  return !job.failed;
#else
  (void) cv, (void) x, (void) packed, (void) bias, (void) y, (void) epilogue, (void) layout;
  g_return_val_if_reached (false);
#endif
}
