/* gemm-bench.c: GFLOP/s of the float32 GEMM and of convolution
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: gemm-bench [--quick] [FILTER]
 * EXECUTORCH_KERNELS_NO_AVX512=1 gives the AVX2 microkernel's figures.
 * Prints one line per shape and thread count.  Not run by meson test.
 */
#ifndef EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API 1
#endif
#include "executorch-plugin.h"
#include "executorch-threadpool.h"
#include "bench-util.h"
#include "gemm.h"
#include "gemm-private.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The clock of this core, from a chain of dependent integer multiplies
 * (three cycles each on current x86 cores; a chain of adds of an
 * immediate can be folded at rename) timed in CPU seconds: the peaks below are this times 32
 * (AVX2: two 8-lane FMA units) or 64 (AVX-512: two 16-lane units) flops. */
static double
measure_ghz (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  double best = 0.0;

  for (int round = 0; round < 5; round++)
    {
      uint64_t iters = 2 * 1000 * 1000, x = 0;
      double start = bench_cpu_now ();
      __asm__ volatile("1:\n\t"
                       ".rept 8\n\t"
                       "imul %0, %0\n\t"
                       ".endr\n\t"
                       "sub $1, %1\n\t"
                       "jnz 1b"
                       : "+r"(x), "+r"(iters));
      double ghz = 3.0 * 8.0 * 2e6 / (bench_cpu_now () - start) / 1e9;
      best = ghz > best ? ghz : best;
    }
  return best;
#else
  return 0.0;
#endif
}

static double clock_ghz;

static void
print_peak_share (double gflops_per_cpu_second)
{
  if (clock_ghz > 0.0)
    printf ("  [%3.0f%% of AVX2 peak, %3.0f%% of AVX-512 peak]", 100.0 * gflops_per_cpu_second / (32.0 * clock_ghz),
            100.0 * gflops_per_cpu_second / (64.0 * clock_ghz));
  printf ("\n");
}

static double last_cpu_per_call;

static void
fill (float *x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    x[i] = (float) ((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
}

/* Runs @fn until 0.3 s have passed (at least twice); returns seconds per call. */
static double
time_gemm (const KernelSgemm *g, double min_seconds)
{
  int iters = 0;
  double start;

  _executorch_sgemm (g); /* warm-up */
  start = bench_now ();
  double cpu_start = bench_cpu_now ();
  do
    {
      _executorch_sgemm (g);
      iters++;
    }
  while (bench_now () - start < min_seconds || iters < 2);
  last_cpu_per_call = (bench_cpu_now () - cpu_start) / iters;
  return (bench_now () - start) / iters;
}

static void
bench_square (int64_t size, guint threads, double min_seconds)
{
  float *a = malloc (sizeof (float) * size * size);
  float *b = malloc (sizeof (float) * size * size);
  float *c = malloc (sizeof (float) * size * size);
  KernelSgemm g = {
    .m = size,
    .n = size,
    .k = size,
    .a = a,
    .a_rs = size,
    .a_cs = 1,
    .b = b,
    .b_rs = size,
    .b_cs = 1,
    .c = c,
    .ldc = size,
  };

  fill (a, size * size);
  fill (b, size * size);
  executorch_threadpool_set_num_threads (threads);
  double t = time_gemm (&g, min_seconds);
  printf ("gemm %5" G_GINT64_FORMAT "^3          threads %u: %8.1f GFLOP/s  (%6.1f per CPU-second)", size, threads,
          2.0 * size * size * size / t / 1e9, 2.0 * size * size * size / last_cpu_per_call / 1e9);
  print_peak_share (2.0 * size * size * size / last_cpu_per_call / 1e9);
  fflush (stdout);
  free (a);
  free (b);
  free (c);
}

/* linear: [m, k] @ W[n, k]^T, W packed from its transpose. */
static void
bench_linear (int64_t m, int64_t k, int64_t n, guint threads, double min_seconds)
{
  float *a = malloc (sizeof (float) * m * k);
  float *w = malloc (sizeof (float) * n * k);
  float *c = malloc (sizeof (float) * m * n);
  KernelSgemm g = {
    .m = m,
    .n = n,
    .k = k,
    .a = a,
    .a_rs = k,
    .a_cs = 1,
    .b = w,
    .b_rs = 1,
    .b_cs = k,
    .c = c,
    .ldc = n,
  };

  fill (a, m * k);
  fill (w, n * k);
  executorch_threadpool_set_num_threads (threads);
  double t = time_gemm (&g, min_seconds);
  printf ("linear %4" G_GINT64_FORMAT "x%4" G_GINT64_FORMAT " W[%4" G_GINT64_FORMAT
          "]^T threads %u: %8.1f GFLOP/s  (%6.1f per CPU-second)\n",
          m, k, n, threads, 2.0 * m * n * k / t / 1e9, 2.0 * m * n * k / last_cpu_per_call / 1e9);
  fflush (stdout);
  free (a);
  free (w);
  free (c);
}

const EtPluginDesc *executorch_kernels_get_plugin (void);

/* Each microkernel alone on L1-resident panels: the attainable FMA rate of
 * one core right now, to read the GEMM figures against. */
static void
bench_microkernel (double min_seconds)
{
#ifdef KERNEL_GEMM_HAVE_AVX2
  static float a[KERNEL_GEMM_MR * 256] __attribute__ ((aligned (64)));
  static float b[KERNEL_GEMM_NR_MAX * 256] __attribute__ ((aligned (64)));
  static float c[KERNEL_GEMM_MR * KERNEL_GEMM_NR_MAX] __attribute__ ((aligned (64)));
  static const struct
  {
    KernelSgemmLevel level;
    const char *name;
    KernelGemmMicrokernel kernel;
    int nr;
  } kernels[] = {
    { KERNEL_SGEMM_AVX2, "6x16x256 avx2  ", _executorch_gemm_kernel_avx2, KERNEL_GEMM_NR },
    { KERNEL_SGEMM_AVX512, "6x32x256 avx512", _executorch_gemm_kernel_avx512, KERNEL_GEMM_NR_AVX512 },
  };

  fill (a, G_N_ELEMENTS (a));
  fill (b, G_N_ELEMENTS (b));
  for (size_t i = 0; i < G_N_ELEMENTS (kernels); i++)
    {
      long calls = 0;
      if (!_executorch_sgemm_force (kernels[i].level))
        continue;
      double start = bench_now (), cpu_start = bench_cpu_now ();
      do
        {
          for (int r = 0; r < 1000; r++)
            kernels[i].kernel (256, a, b, c, kernels[i].nr, 1, NULL);
          calls += 1000;
        }
      while (bench_now () - start < min_seconds);
      double flops = 2.0 * KERNEL_GEMM_MR * kernels[i].nr * 256 * calls;
      printf ("microkernel %s in L1 threads 1: %8.1f GFLOP/s  (%6.1f per CPU-second)", kernels[i].name,
              flops / (bench_now () - start) / 1e9, flops / (bench_cpu_now () - cpu_start) / 1e9);
      print_peak_share (flops / (bench_cpu_now () - cpu_start) / 1e9);
    }
  _executorch_sgemm_force (KERNEL_SGEMM_AUTO);
#endif
}

typedef struct
{
  const char *name;
  int64_t n, cin, h, w, cout, k, stride, pad, groups;
} ConvShape;

/* aten::convolution.out through the kernel library, as a program calls it. */
static void
bench_conv (const ConvShape *c, guint threads, double min_seconds)
{
  int64_t oh = (c->h + 2 * c->pad - c->k) / c->stride + 1, ow = (c->w + 2 * c->pad - c->k) / c->stride + 1;
  int64_t xs[4] = { c->n, c->cin, c->h, c->w }, ws[4] = { c->cout, c->cin / c->groups, c->k, c->k };
  int64_t bs[1] = { c->cout }, ys[4] = { c->n, c->cout, oh, ow };
  EtTensor x, w, b, y;
  EtValue xv, wv, bv, yv;
  float *xd = malloc (sizeof (float) * c->n * c->cin * c->h * c->w);
  float *wd = malloc (sizeof (float) * ws[0] * ws[1] * c->k * c->k);
  float *bd = malloc (sizeof (float) * c->cout);
  float *yd = malloc (sizeof (float) * c->n * c->cout * oh * ow);

  fill (xd, c->n * c->cin * c->h * c->w);
  fill (wd, ws[0] * ws[1] * c->k * c->k);
  fill (bd, c->cout);
  bench_tensor_init (&x, &xv, 4, xs, xd);
  bench_tensor_init (&w, &wv, 4, ws, wd);
  bench_tensor_init (&b, &bv, 1, bs, bd);
  bench_tensor_init (&y, &yv, 4, ys, yd);
  EtValue stride_items[2] = { bench_int_value (c->stride), bench_int_value (c->stride) };
  EtValue pad_items[2] = { bench_int_value (c->pad), bench_int_value (c->pad) };
  EtValue one_items[2] = { bench_int_value (1), bench_int_value (1) },
          zero_items[2] = { bench_int_value (0), bench_int_value (0) };
  EtValue *sp[2] = { &stride_items[0], &stride_items[1] }, *pp[2] = { &pad_items[0], &pad_items[1] };
  EtValue *dp[2] = { &one_items[0], &one_items[1] }, *op[2] = { &zero_items[0], &zero_items[1] };
  EtValue sl = { .tag = ET_VALUE_LIST_INT }, pl = sl, dl = sl, ol = sl;
  sl.u.list.items = sp;
  sl.u.list.length = 2;
  pl.u.list.items = pp;
  pl.u.list.length = 2;
  dl.u.list.items = dp;
  dl.u.list.length = 2;
  ol.u.list.items = op;
  ol.u.list.length = 2;
  EtValue tr = { .tag = ET_VALUE_BOOL }, groups = bench_int_value (c->groups);
  EtValue *args[11] = { &xv, &wv, &bv, &sl, &pl, &dl, &tr, &ol, &groups, &yv, &yv };
  const EtKernel *kernel = et_registry_find_kernel (et_registry_get_default (), "aten::convolution.out");
  EtErrorContext *error = et_error_context_new ();

  executorch_threadpool_set_num_threads (threads);
  int iters = 0;
  if (et_kernel_call (kernel, args, 11, error) != ET_OK)
    {
      printf ("conv %s failed: %s\n", c->name, et_error_context_message (error));
      et_error_context_free (error);
      return;
    }
  et_error_context_free (error);
  double start = bench_now (), cpu_start = bench_cpu_now ();
  do
    {
      et_kernel_call (kernel, args, 11, NULL);
      iters++;
    }
  while (bench_now () - start < min_seconds || iters < 2);
  double t = (bench_now () - start) / iters;
  last_cpu_per_call = (bench_cpu_now () - cpu_start) / iters;
  double flops = 2.0 * c->n * c->cout * oh * ow * (c->cin / c->groups) * c->k * c->k;
  printf ("conv %-28s threads %u: %8.1f GFLOP/s  (%6.1f per CPU-second, %.3f ms)", c->name, threads, flops / t / 1e9,
          flops / last_cpu_per_call / 1e9, t * 1e3);
  print_peak_share (flops / last_cpu_per_call / 1e9);
  fflush (stdout);
  free (xd);
  free (wd);
  free (bd);
  free (yd);
}

int
main (int argc, char **argv)
{
  static const ConvShape convs[] = {
    { "resnet 3x3 64->64 56x56", 1, 64, 56, 56, 64, 3, 1, 1, 1 },
    { "resnet 1x1 256->64 56x56", 1, 256, 56, 56, 64, 1, 1, 0, 1 },
    { "stem 7x7/2 3->64 224x224", 1, 3, 224, 224, 64, 7, 2, 3, 1 },
    { "mobilenet dw 3x3 96 56x56", 1, 96, 56, 56, 96, 3, 1, 1, 96 },
    { "mobilenet dw 3x3/2 144 56x56", 1, 144, 56, 56, 144, 3, 2, 1, 144 },
    /* MobileNetV2's 1x1 convolutions: GEMMs with few pixels (N) at 14x14 and 7x7 */
    { "mv2 1x1 16->96 112x112", 1, 16, 112, 112, 96, 1, 1, 0, 1 },
    { "mv2 1x1 144->24 56x56", 1, 144, 56, 56, 24, 1, 1, 0, 1 },
    { "mv2 1x1 24->144 56x56", 1, 24, 56, 56, 144, 1, 1, 0, 1 },
    { "mv2 1x1 32->192 28x28", 1, 32, 28, 28, 192, 1, 1, 0, 1 },
    { "mv2 1x1 64->384 14x14", 1, 64, 14, 14, 384, 1, 1, 0, 1 },
    { "mv2 1x1 384->64 14x14", 1, 384, 14, 14, 64, 1, 1, 0, 1 },
    { "mv2 1x1 96->576 14x14", 1, 96, 14, 14, 576, 1, 1, 0, 1 },
    { "mv2 1x1 576->96 14x14", 1, 576, 14, 14, 96, 1, 1, 0, 1 },
    { "mv2 1x1 160->960 7x7", 1, 160, 7, 7, 960, 1, 1, 0, 1 },
    { "mv2 1x1 960->160 7x7", 1, 960, 7, 7, 160, 1, 1, 0, 1 },
    { "mv2 1x1 320->1280 7x7", 1, 320, 7, 7, 1280, 1, 1, 0, 1 },
    { "resnet 3x3 256->256 14x14", 1, 256, 14, 14, 256, 3, 1, 1, 1 },
    { "resnet 3x3 512->512 7x7", 1, 512, 7, 7, 512, 3, 1, 1, 1 },
  };

  static const int64_t sizes[] = { 256, 512, 1024, 2048 };
  bool quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  /* gemm-bench [--quick] [FILTER]: only the lines whose name contains FILTER. */
  const char *filter = argc > 2 ? argv[2] : argc > 1 && !quick ? argv[1] : NULL;
  double min_seconds = quick ? 0.1 : 0.3;

  clock_ghz = measure_ghz ();
  printf ("microkernel: %s; clock %.2f GHz (dependent multiplies per CPU-second)\n", _executorch_sgemm_kernel_name (),
          clock_ghz);
  if (filter == NULL)
    bench_microkernel (min_seconds);
  for (guint threads = 1; threads <= 2 && filter == NULL; threads++)
    for (size_t i = 0; i < G_N_ELEMENTS (sizes); i++)
      if (!quick || sizes[i] <= 1024)
        bench_square (sizes[i], threads, min_seconds);
  for (guint threads = 1; threads <= 2 && filter == NULL; threads++)
    {
      bench_linear (128, 768, 3072, threads, min_seconds);
      bench_linear (1, 4096, 4096, threads, min_seconds); /* decode-style GEMV */
    }

  EtErrorContext *error = et_error_context_new ();
  if (et_registry_add_plugin (executorch_kernels_get_plugin (), error) != ET_OK)
    {
      fprintf (stderr, "gemm-bench: %s\n", et_error_context_message (error));
      return 1;
    }
  et_error_context_free (error);
  for (guint threads = 1; threads <= 2; threads++)
    for (size_t i = 0; i < G_N_ELEMENTS (convs); i++)
      if (filter == NULL || strstr (convs[i].name, filter) != NULL)
        bench_conv (&convs[i], threads, min_seconds);
  return 0;
}
