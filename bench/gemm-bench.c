/* gemm-bench.c: GFLOP/s of the float32 GEMM and of convolution
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: gemm-bench [--quick]
 * Prints one line per shape and thread count.  Not run by meson test.
 */
#include "gemm.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double
now (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

static void
fill (float *x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    x[i] = (float) ((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
}

/* Runs @fn until 0.3 s have passed (at least twice); returns seconds per call. */
static double
time_gemm (const ExecutorchSgemm *g, double min_seconds)
{
  int iters = 0;
  double start;

  _executorch_sgemm (g);   /* warm-up */
  start = now ();
  do {
    _executorch_sgemm (g);
    iters++;
  } while (now () - start < min_seconds || iters < 2);
  return (now () - start) / iters;
}

static void
bench_square (int64_t size, guint threads, double min_seconds)
{
  float *a = malloc (sizeof (float) * size * size);
  float *b = malloc (sizeof (float) * size * size);
  float *c = malloc (sizeof (float) * size * size);
  ExecutorchSgemm g = {
    .m = size, .n = size, .k = size,
    .a = a, .a_rs = size, .a_cs = 1,
    .b = b, .b_rs = size, .b_cs = 1,
    .c = c, .ldc = size,
  };

  fill (a, size * size);
  fill (b, size * size);
  executorch_threadpool_set_num_threads (threads);
  double t = time_gemm (&g, min_seconds);
  printf ("gemm %5" G_GINT64_FORMAT "^3          threads %u: %8.1f GFLOP/s\n", size, threads,
          2.0 * size * size * size / t / 1e9);
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
  ExecutorchSgemm g = {
    .m = m, .n = n, .k = k,
    .a = a, .a_rs = k, .a_cs = 1,
    .b = w, .b_rs = 1, .b_cs = k,
    .c = c, .ldc = n,
  };

  fill (a, m * k);
  fill (w, n * k);
  executorch_threadpool_set_num_threads (threads);
  double t = time_gemm (&g, min_seconds);
  printf ("linear %4" G_GINT64_FORMAT "x%4" G_GINT64_FORMAT " W[%4" G_GINT64_FORMAT "]^T threads %u: %8.1f GFLOP/s\n",
          m, k, n, threads, 2.0 * m * n * k / t / 1e9);
  fflush (stdout);
  free (a);
  free (w);
  free (c);
}


int
main (int argc, char **argv)
{
  static const int64_t sizes[] = { 256, 512, 1024, 2048 };
  bool quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  double min_seconds = quick ? 0.1 : 0.3;

  printf ("microkernel: %s\n", _executorch_sgemm_kernel_name ());
  for (guint threads = 1; threads <= 2; threads++)
    for (size_t i = 0; i < G_N_ELEMENTS (sizes); i++)
      if (!quick || sizes[i] <= 1024)
        bench_square (sizes[i], threads, min_seconds);
  for (guint threads = 1; threads <= 2; threads++)
    bench_linear (128, 768, 3072, threads, min_seconds);
  return 0;
}
