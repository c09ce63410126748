/* convolution-depthwise.c: float32 depthwise convolution (groups == input channels)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Layout: NCHW, vectorised along the output row.  The graph hands us NCHW
 * (a channel-vectorised NHWC kernel would need the input transposed in and
 * the output transposed back, one more pass over each), and MobileNet's or
 * EfficientNet's rows (112, 56, 28 ... columns) fill vectors well.
 *
 * Each task takes a run of output planes (batch, channel).  A plane's
 * input is first copied into a per-task scratch plane that has the zero
 * padding around it and, at a column stride S > 1, its columns split into S
 * phases (phase q holds input columns q, q + S, ...), so that every tap of
 * every output column is a plain vector load from the scratch: no bounds
 * checks, no gathers, and the same loop for stride 1 and 2.  The padding
 * and slack are zeroed once per task: every plane writes the same cells.
 *
 * The window is accumulated with FMA from the bias, two output rows by up
 * to four vectors at a time (eight independent sums), and the epilogue
 * (residual, clamp: ReLU6 after a folded batch norm) runs on the sums
 * before the one store.  3x3 and 5x5 windows at stride 1 or 2 are
 * unrolled; other sizes, strides and dilations run the same loop with
 * their tap offsets from a table.  AVX-512 (16 floats) runs where the CPU
 * has it (unless EXECUTORCH_KERNELS_NO_AVX512), else AVX2+FMA, else (or
 * with EXECUTORCH_KERNELS_NO_SIMD) a portable loop in the same order
 * without fused multiply-adds.
 */
#include "convolution-private.h"

#include "executorch-threadpool.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DW_HAVE_X86 1
#endif

/* Widest vector, in floats: the scratch rows' slack past the last column. */
#define DW_VMAX 16

/* One plane's work, and the task's scratch it reads. */
typedef struct
{
  const float *scratch; /* padded rows, S phase rows of pr floats each */
  const float *w;       /* kh * kw taps */
  const int64_t *tap_off;
  float bias;
  float *y;
  const float *res; /* the plane's residual, or NULL */
  bool clamp;
  bool spill; /* a row's last vector may be stored whole (y is not res) */
  float lo, hi;
  int64_t pr, s, sh, kh, kw, dh, dw, oh, ow;
} DwPlane;

typedef struct
{
  const KernelConv *cv;
  const float *x, *x_end, *weight, *bias;
  float *y;
  const KernelConvEpilogue *epilogue;
  bool spill; /* the residual, if any, does not overlap the output */
  KernelDepthwiseIsa isa;
  int64_t pr;       /* floats per phase row */
  int64_t rows;     /* padded rows */
  int64_t *tap_off; /* kh * kw */
  int64_t planes, per_task;
  int failed;
} DwJob;

#ifdef DW_HAVE_X86
/* AVX2: the tail's mask from lane indices. */
static inline __attribute__ ((always_inline, target ("avx2,fma"))) __m256i
dw_mask8 (int64_t n)
{
  return _mm256_cmpgt_epi32 (_mm256_set1_epi32 ((int) n), _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7));
}

#define DW_ISA avx2
#define DW_TARGET target ("avx2,fma")
#define DW_V 8
#define DwVec __m256
#define DW_LOAD(p) _mm256_loadu_ps (p)
#define DW_STORE(p, v) _mm256_storeu_ps (p, v)
#define DW_SET1(f) _mm256_set1_ps (f)
#define DW_FMA(a, b, c) _mm256_fmadd_ps (a, b, c)
#define DW_ADD(a, b) _mm256_add_ps (a, b)
#define DW_MAX(a, b) _mm256_max_ps (a, b)
#define DW_MIN(a, b) _mm256_min_ps (a, b)
#define DW_LOAD_N(p, n) _mm256_maskload_ps (p, dw_mask8 (n))
#define DW_STORE_N(p, v, n) _mm256_maskstore_ps (p, dw_mask8 (n), v)
/* [a0 a2 b0 b2 | a4 a6 b4 b6], then the 64-bit pairs in order 0 2 1 3. */
#define DW_DEINTERLEAVE(a, b, e, o)                                                                             \
  do                                                                                                            \
    {                                                                                                           \
      __m256 a_ = (a), b_ = (b);                                                                                \
      e = _mm256_castpd_ps (_mm256_permute4x64_pd (_mm256_castps_pd (_mm256_shuffle_ps (a_, b_, 0x88)), 0xd8)); \
      o = _mm256_castpd_ps (_mm256_permute4x64_pd (_mm256_castps_pd (_mm256_shuffle_ps (a_, b_, 0xdd)), 0xd8)); \
    }                                                                                                           \
  while (0)
#include "convolution-depthwise-simd.h"
#undef DW_ISA
#undef DW_TARGET
#undef DW_V
#undef DwVec
#undef DW_LOAD
#undef DW_STORE
#undef DW_SET1
#undef DW_FMA
#undef DW_ADD
#undef DW_MAX
#undef DW_MIN
#undef DW_LOAD_N
#undef DW_STORE_N
#undef DW_DEINTERLEAVE

#define DW_ISA avx512
#define DW_TARGET target ("avx512f,avx512dq,fma")
#define DW_V 16
#define DwVec __m512
#define DW_LOAD(p) _mm512_loadu_ps (p)
#define DW_STORE(p, v) _mm512_storeu_ps (p, v)
#define DW_SET1(f) _mm512_set1_ps (f)
#define DW_FMA(a, b, c) _mm512_fmadd_ps (a, b, c)
#define DW_ADD(a, b) _mm512_add_ps (a, b)
#define DW_MAX(a, b) _mm512_max_ps (a, b)
#define DW_MIN(a, b) _mm512_min_ps (a, b)
#define DW_LOAD_N(p, n) _mm512_maskz_loadu_ps ((__mmask16) ((1u << (n)) - 1), p)
#define DW_STORE_N(p, v, n) _mm512_mask_storeu_ps (p, (__mmask16) ((1u << (n)) - 1), v)
#define DW_DEINTERLEAVE(a, b, e, o)                                                                                  \
  do                                                                                                                 \
    {                                                                                                                \
      __m512 a_ = (a), b_ = (b);                                                                                     \
      e = _mm512_permutex2var_ps (a_, _mm512_setr_epi32 (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), \
                                  b_);                                                                               \
      o = _mm512_permutex2var_ps (a_, _mm512_setr_epi32 (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), \
                                  b_);                                                                               \
    }                                                                                                                \
  while (0)
#include "convolution-depthwise-simd.h"
#undef DW_ISA
#undef DW_TARGET
#undef DW_V
#undef DwVec
#undef DW_LOAD
#undef DW_STORE
#undef DW_SET1
#undef DW_FMA
#undef DW_ADD
#undef DW_MAX
#undef DW_MIN
#undef DW_LOAD_N
#undef DW_STORE_N
#undef DW_DEINTERLEAVE
#endif

/* The portable loop: the vector loops' order, without fused products
 * (-ffp-contract=off). */
static void
dw_plane_portable (const DwPlane *p)
{
  for (int64_t oh = 0; oh < p->oh; oh++)
    {
      const float *in = p->scratch + oh * p->sh * p->s * p->pr;
      float *y = p->y + oh * p->ow;
      const float *res = p->res != NULL ? p->res + oh * p->ow : NULL;

      for (int64_t j = 0; j < p->ow; j++)
        {
          float acc = p->bias;
          for (int64_t t = 0; t < p->kh * p->kw; t++)
            acc += in[p->tap_off[t] + j] * p->w[t];
          if (res != NULL)
            acc += res[j];
          if (p->clamp)
            {
              acc = acc < p->lo ? p->lo : acc;
              acc = acc > p->hi ? p->hi : acc;
            }
          y[j] = acc;
        }
    }
}

KernelDepthwiseIsa
_executorch_conv_depthwise_best_isa (void)
{
  static int best = -1;
  int b = __atomic_load_n (&best, __ATOMIC_RELAXED);

  if (b < 0)
    {
      b = KERNEL_DEPTHWISE_PORTABLE;
#ifdef DW_HAVE_X86
      if (_executorch_support_cpu_has_avx512 ())
        b = KERNEL_DEPTHWISE_AVX512;
      else if (_executorch_support_cpu_has_avx2_fma ())
        b = KERNEL_DEPTHWISE_AVX2;
#endif
      __atomic_store_n (&best, b, __ATOMIC_RELAXED);
    }
  return (KernelDepthwiseIsa) b;
}

/* Copies input plane @xp into the scratch's interior: column c of row ih
 * goes to phase (c + pw) % S, index (c + pw) / S of padded row ih + ph.
 * The input tensor ends at @x_end. */
static void
fill_scratch (const KernelConv *cv, int64_t pr, const float *xp, const float *x_end, float *scratch,
              KernelDepthwiseIsa isa)
{
  int64_t s = cv->sw;

#ifdef DW_HAVE_X86
  if (s == 1 && isa != KERNEL_DEPTHWISE_PORTABLE)
    {
      float *row = scratch + cv->ph * pr + cv->pw;
      if (isa == KERNEL_DEPTHWISE_AVX512)
        dw_copy_rows_avx512 (xp, x_end, cv->h, cv->w, row, pr);
      else
        dw_copy_rows_avx2 (xp, x_end, cv->h, cv->w, row, pr);
      return;
    }
#endif
  if (s == 1)
    {
      for (int64_t ih = 0; ih < cv->h; ih++)
        memcpy (scratch + (ih + cv->ph) * pr + cv->pw, xp + ih * cv->w, (size_t) cv->w * sizeof (float));
      return;
    }
#ifdef DW_HAVE_X86
  if (s == 2 && isa != KERNEL_DEPTHWISE_PORTABLE)
    {
      /* Even columns: phase pw % 2 from pw / 2; odd: the other from (pw + 1) / 2. */
      float *row = scratch + cv->ph * 2 * pr;
      float *even = row + (cv->pw % 2) * pr + cv->pw / 2;
      float *odd = row + ((cv->pw + 1) % 2) * pr + (cv->pw + 1) / 2;
      if (isa == KERNEL_DEPTHWISE_AVX512)
        dw_split_rows_avx512 (xp, cv->h, cv->w, even, odd, 2 * pr);
      else
        dw_split_rows_avx2 (xp, cv->h, cv->w, even, odd, 2 * pr);
      return;
    }
#endif
  for (int64_t ih = 0; ih < cv->h; ih++)
    {
      const float *src = xp + ih * cv->w;
      float *row = scratch + (ih + cv->ph) * s * pr;
      for (int64_t q = 0; q < s; q++)
        {
          /* Input columns c = c0, c0 + s, ... with (c + pw) % s == q. */
          int64_t c0 = ((q - cv->pw) % s + s) % s;
          float *dst = row + q * pr + (c0 + cv->pw) / s;
          int64_t n = c0 < cv->w ? (cv->w - c0 + s - 1) / s : 0;
          for (int64_t i = 0; i < n; i++)
            dst[i] = src[c0 + i * s];
        }
    }
}

static void
depthwise_task (void *data, size_t task)
{
  DwJob *job = data;
  const KernelConv *cv = job->cv;
  const KernelConvEpilogue *e = job->epilogue;
  int64_t first = (int64_t) task * job->per_task;
  int64_t end = first + job->per_task < job->planes ? first + job->per_task : job->planes;
  int64_t out_pixels = cv->oh * cv->ow;
  size_t floats = (size_t) (job->rows * cv->sw * job->pr + DW_VMAX);
  float *scratch = calloc (floats, sizeof (float));

  if (scratch == NULL)
    {
      __atomic_store_n (&job->failed, 1, __ATOMIC_RELAXED);
      return;
    }
  for (int64_t plane = first; plane < end; plane++)
    {
      int64_t co = plane % cv->cout, b = plane / cv->cout;
      int64_t ci = co / cv->cout_g;
      DwPlane p = {
        .scratch = scratch,
        .w = job->weight + co * cv->kh * cv->kw,
        .tap_off = job->tap_off,
        .bias = job->bias != NULL ? job->bias[co] : 0.0f,
        .y = job->y + plane * out_pixels,
        .res = e != NULL && e->residual != NULL ? e->residual + plane * out_pixels : NULL,
        .clamp = e != NULL && e->clamp,
        .spill = job->spill,
        .lo = e != NULL ? e->lo : 0.0f,
        .hi = e != NULL ? e->hi : 0.0f,
        .pr = job->pr,
        .s = cv->sw,
        .sh = cv->sh,
        .kh = cv->kh,
        .kw = cv->kw,
        .dh = cv->dh,
        .dw = cv->dw,
        .oh = cv->oh,
        .ow = cv->ow,
      };

      fill_scratch (cv, job->pr, job->x + (b * cv->cin + ci) * cv->h * cv->w, job->x_end, scratch, job->isa);
      switch (job->isa)
        {
#ifdef DW_HAVE_X86
          case KERNEL_DEPTHWISE_AVX512: dw_plane_avx512 (&p); break;
          case KERNEL_DEPTHWISE_AVX2: dw_plane_avx2 (&p); break;
#endif
          default: dw_plane_portable (&p); break;
        }
    }
  free (scratch);
}

bool
_executorch_conv_depthwise_f32_isa (const KernelConv *cv, const float *x, const float *weight, const float *bias,
                                    float *y, const KernelConvEpilogue *epilogue, KernelDepthwiseIsa isa)
{
  int64_t s = cv->sw, taps = cv->kh * cv->kw;
  /* A phase row: every output column's vector plus the window's reach. */
  int64_t reach = ((cv->kw - 1) * cv->dw) / s + 1;
  int64_t cols = (cv->ow + DW_VMAX - 1) / DW_VMAX * DW_VMAX;
  int64_t input_cols = (cv->w + cv->pw + s - 1) / s;
  DwJob job = {
    .cv = cv,
    .x = x,
    .weight = weight,
    .bias = bias,
    .y = y,
    .epilogue = epilogue,
    .isa = isa,
    .pr = (cols + reach > input_cols ? cols + reach : input_cols) + DW_VMAX,
    /* The last output row's taps reach at most h - 1 + 2 ph. */
    .rows = cv->h + 2 * cv->ph,
    .planes = cv->n * cv->cout,
  };
  int64_t threads = executorch_threadpool_get_num_threads ();

  g_return_val_if_fail (cv->groups == cv->cin && cv->cin_g == 1 && !cv->transposed, false);
  if (job.planes == 0)
    return true;
  job.x_end = x + cv->n * cv->cin * cv->h * cv->w;
  if (epilogue != NULL && epilogue->residual != NULL)
    {
      const float *res = epilogue->residual, *y_end = y + job.planes * cv->oh * cv->ow;
      job.spill = res + job.planes * cv->oh * cv->ow <= y || res >= y_end;
    }
  else
    job.spill = true;
  job.tap_off = malloc ((size_t) taps * sizeof (int64_t));
  if (job.tap_off == NULL)
    return false;
  for (int64_t t = 0; t < cv->kh; t++)
    for (int64_t u = 0; u < cv->kw; u++)
      job.tap_off[t * cv->kw + u] = (t * cv->dh * s + (u * cv->dw) % s) * job.pr + (u * cv->dw) / s;

  /* A few runs of planes per thread, so a thread slowed by other
   * processes leaves its share to the others. */
  int64_t tasks = threads > 1 ? 4 * threads : 1;
  if (tasks > job.planes)
    tasks = job.planes;
  job.per_task = (job.planes + tasks - 1) / tasks;
  tasks = (job.planes + job.per_task - 1) / job.per_task;
  if (tasks > 1)
    executorch_threadpool_parallelize_1d ((ExecutorchThreadpoolTask1d) depthwise_task, &job, (size_t) tasks);
  else
    depthwise_task (&job, 0);
  free (job.tap_off);
  return !job.failed;
}

bool
_executorch_conv_depthwise_f32 (const KernelConv *cv, const float *x, const float *weight, const float *bias, float *y,
                                const KernelConvEpilogue *epilogue)
{
  KernelDepthwiseIsa isa = _executorch_conv_depthwise_best_isa ();

  /* Rows of up to 8 outputs fill AVX2's vectors better than AVX-512's
   * at stride 1 (EfficientNet's 5x5 over 1152 channels at 7x7: 126 us
   * against 161).  At stride 2 the phase split's last columns go
   * through masked loads and stores, which AVX2 (vmaskmovps) makes slow
   * on AMD's cores: AVX-512 there (MobileNet-v2's 576 channels 14 -> 7:
   * 103 -> 56 us). */
  if (isa == KERNEL_DEPTHWISE_AVX512 && cv->sw == 1 && cv->ow <= 8)
    isa = KERNEL_DEPTHWISE_AVX2;
  return _executorch_conv_depthwise_f32_isa (cv, x, weight, bias, y, epilogue, isa);
}
