/* dwconv-bench.c: GFLOP/s of the float32 depthwise convolutions of
 * MobileNetV2, EfficientNet-B0 and ShuffleNetV2 (224 x 224 input)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: dwconv-bench [--quick] [--channels-last] [FILTER]
 * Calls aten::convolution.out through the kernel library as a program
 * does (with a bias), on NCHW tensors or with --channels-last on NHWC ones
 * (each call then also packs the weights, a few microseconds), and prints
 * one line per shape and thread count:
 * wall-clock GFLOP/s (2 per multiply-add) and per CPU-second (what a
 * shared machine's other processes do not change).  Not run by meson test.
 */
#ifndef EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API 1
#endif
#include "executorch-plugin.h"
#include "executorch-threadpool.h"
#include "bench-util.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const EtPluginDesc *executorch_kernels_get_plugin (void);

typedef struct
{
  const char *name;
  int64_t c, hw, k, stride;
} DwShape;

static float *
filled (int64_t n)
{
  float *x = malloc (sizeof (float) * (size_t) n);

  for (int64_t i = 0; i < n; i++)
    x[i] = (float) ((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
  return x;
}

static bool channels_last;

/* Lays @t out as NHWC. */
static void
make_channels_last (EtTensor *t)
{
  static const uint8_t order[4] = { 0, 2, 3, 1 };

  memcpy (t->dim_order, order, sizeof order);
  et_strides_from_dim_order (t->ndim, t->sizes, t->dim_order, t->strides);
}

static void
bench (const DwShape *s, guint threads, double min_seconds)
{
  int64_t pad = s->k / 2, o = (s->hw + 2 * pad - s->k) / s->stride + 1;
  int64_t xs[4] = { 1, s->c, s->hw, s->hw }, ws[4] = { s->c, 1, s->k, s->k }, bs[1] = { s->c };
  int64_t ys[4] = { 1, s->c, o, o };
  float *xd = filled (s->c * s->hw * s->hw), *wd = filled (s->c * s->k * s->k), *bd = filled (s->c);
  float *yd = filled (s->c * o * o);
  EtTensor x, w, b, y;
  EtValue xv, wv, bv, yv;

  bench_tensor_init (&x, &xv, 4, xs, xd);
  bench_tensor_init (&w, &wv, 4, ws, wd);
  bench_tensor_init (&b, &bv, 1, bs, bd);
  bench_tensor_init (&y, &yv, 4, ys, yd);
  if (channels_last)
    {
      make_channels_last (&x);
      make_channels_last (&y);
    }
  EtValue st[2] = { bench_int_value (s->stride), bench_int_value (s->stride) },
          pd[2] = { bench_int_value (pad), bench_int_value (pad) };
  EtValue one[2] = { bench_int_value (1), bench_int_value (1) }, zero[2] = { bench_int_value (0), bench_int_value (0) };
  EtValue *sp[2] = { &st[0], &st[1] }, *pp[2] = { &pd[0], &pd[1] }, *dp[2] = { &one[0], &one[1] };
  EtValue *op[2] = { &zero[0], &zero[1] };
  EtValue sl = { .tag = ET_VALUE_LIST_INT }, pl = sl, dl = sl, ol = sl;
  sl.u.list.items = sp;
  pl.u.list.items = pp;
  dl.u.list.items = dp;
  ol.u.list.items = op;
  sl.u.list.length = pl.u.list.length = dl.u.list.length = ol.u.list.length = 2;
  EtValue tr = { .tag = ET_VALUE_BOOL }, groups = bench_int_value (s->c);
  EtValue *args[11] = { &xv, &wv, &bv, &sl, &pl, &dl, &tr, &ol, &groups, &yv, &yv };
  const EtKernel *kernel = et_registry_find_kernel (et_registry_get_default (), "aten::convolution.out");
  EtErrorContext *error = et_error_context_new ();

  executorch_threadpool_set_num_threads (threads);
  if (et_kernel_call (kernel, args, 11, error) != ET_OK)
    {
      printf ("%s failed: %s\n", s->name, et_error_context_message (error));
      exit (1);
    }
  et_error_context_free (error);
  int iters = 0;
  double start = bench_now (), cpu_start = bench_cpu_now ();
  do
    {
      et_kernel_call (kernel, args, 11, NULL);
      iters++;
    }
  while (bench_now () - start < min_seconds || iters < 3);
  double t = (bench_now () - start) / iters, cpu = (bench_cpu_now () - cpu_start) / iters;
  double flops = 2.0 * s->c * o * o * s->k * s->k;
  printf ("dw%s %-30s threads %u: %7.1f GFLOP/s  (%6.1f per CPU-second, %8.1f us)\n", channels_last ? "-nhwc" : "",
          s->name, threads, flops / t / 1e9, flops / cpu / 1e9, t * 1e6);
  fflush (stdout);
  free (xd);
  free (wd);
  free (bd);
  free (yd);
}

int
main (int argc, char **argv)
{
  static const DwShape shapes[] = {
    { "mv2 3x3 32 112", 32, 112, 3, 1 },      { "mv2 3x3/2 96 112", 96, 112, 3, 2 },
    { "mv2 3x3 144 56", 144, 56, 3, 1 },      { "mv2 3x3/2 144 56", 144, 56, 3, 2 },
    { "mv2 3x3 192 28", 192, 28, 3, 1 },      { "mv2 3x3/2 192 28", 192, 28, 3, 2 },
    { "mv2 3x3 384 14", 384, 14, 3, 1 },      { "mv2 3x3 576 14", 576, 14, 3, 1 },
    { "mv2 3x3/2 576 14", 576, 14, 3, 2 },    { "mv2 3x3 960 7", 960, 7, 3, 1 },
    { "effnet 5x5/2 144 56", 144, 56, 5, 2 }, { "effnet 5x5 240 28", 240, 28, 5, 1 },
    { "effnet 5x5 672 14", 672, 14, 5, 1 },   { "effnet 5x5/2 672 14", 672, 14, 5, 2 },
    { "effnet 5x5 1152 7", 1152, 7, 5, 1 },   { "shufflenet 3x3/2 24 56", 24, 56, 3, 2 },
    { "shufflenet 3x3 58 28", 58, 28, 3, 1 }, { "shufflenet 3x3 232 7", 232, 7, 3, 1 },
  };
  bool quick = false;
  const char *filter = NULL;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--quick") == 0)
      quick = true;
    else if (strcmp (argv[i], "--channels-last") == 0)
      channels_last = true;
    else
      filter = argv[i];
  double min_seconds = quick ? 0.05 : 0.2;
  EtErrorContext *error = et_error_context_new ();

  if (et_registry_add_plugin (executorch_kernels_get_plugin (), error) != ET_OK)
    {
      fprintf (stderr, "dwconv-bench: %s\n", et_error_context_message (error));
      return 1;
    }
  et_error_context_free (error);
  for (guint threads = 1; threads <= 2; threads++)
    for (size_t i = 0; i < G_N_ELEMENTS (shapes); i++)
      if (filter == NULL || strstr (shapes[i].name, filter) != NULL)
        bench (&shapes[i], threads, min_seconds);
  return 0;
}
