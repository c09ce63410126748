/* test-conv-rows.c: 1x1 convolutions with the output pixels as the GEMM's
 * rows (convolution-rows.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The kernel is built into this program.  Its outputs are compared with a
 * double-precision loop written here: 1x1 convolutions read in place and
 * others through their im2col matrix (3x3 with padding, stride 2,
 * dilation, a non-square window), planes that split into whole tiles of 7
 * pixels and planes that end in a partial one, one to several hundred
 * input channels, 8 to 1000 output channels, with and without a bias, a
 * residual (also read from the output itself) and a clamp, on 1 and 2
 * threads.  Outputs are prefilled with NaN, so each must be
 * written, and a guard after them must stay untouched.  Where the CPU
 * has no AVX-512 the path must refuse every shape, and the numeric cases
 * are skipped.
 */
#include "convolution-private.h"
#include "executorch-threadpool.h"

#include <glib.h>
#include <math.h>

#define GUARD 40

static GRand *rng;

static KernelConv
one_by_one (int64_t cin, int64_t cout, int64_t h, int64_t w)
{
  return (KernelConv){ .n = 1,
                       .cin = cin,
                       .h = h,
                       .w = w,
                       .cout = cout,
                       .kh = 1,
                       .kw = 1,
                       .oh = h,
                       .ow = w,
                       .sh = 1,
                       .sw = 1,
                       .dh = 1,
                       .dw = 1,
                       .groups = 1,
                       .cin_g = cin,
                       .cout_g = cout };
}

static int64_t
extent (int64_t in, int64_t k, int64_t s, int64_t p, int64_t d)
{
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

/* A k x k convolution (stride s, padding p, dilation d) of a cin x h x w
 * input. */
static KernelConv
window (int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t k, int64_t s, int64_t p, int64_t d)
{
  KernelConv cv = one_by_one (cin, cout, h, w);

  cv.kh = cv.kw = k;
  cv.sh = cv.sw = s;
  cv.ph = cv.pw = p;
  cv.dh = cv.dw = d;
  cv.oh = extent (h, k, s, p, d);
  cv.ow = extent (w, k, s, p, d);
  return cv;
}

/* @planes planes of @pixels, NCHW to NHWC. */
static float *
channels_last (const float *src, int64_t planes, int64_t pixels)
{
  float *dst = g_new (float, planes *pixels);

  for (int64_t c = 0; c < planes; c++)
    for (int64_t p = 0; p < pixels; p++)
      dst[p * planes + c] = src[c * pixels + p];
  return dst;
}

/* Runs @g with its operands laid out as @layout says, against the
 * reference in NCHW order. */
static void
check_conv_layout (const KernelConv *g, bool bias, bool residual, bool in_place, bool clamp, unsigned layout)
{
  KernelConv cv = *g;
  int64_t cin = cv.cin, cout = cv.cout, k = cin * cv.kh * cv.kw;
  int64_t pixels = cv.oh * cv.ow, nx = cin * cv.h * cv.w, ny = cout * pixels;
  float *x = g_new (float, nx), *wt = g_new (float, cout *k), *b = g_new (float, cout);
  float *packed = g_new (float, _executorch_conv_rows_packed_floats (cout, k));
  float *res = g_new (float, ny), *y = g_new (float, ny + GUARD);
  double *ref = g_new (double, ny), *mag = g_new (double, ny);
  KernelConvEpilogue ep = {
    .residual = residual ? (in_place ? y : res) : NULL, .clamp = clamp, .lo = -0.5f, .hi = 0.6f
  };

  g_assert_true (_executorch_conv_rows_fits_layout (&cv, layout));
  for (int64_t i = 0; i < nx; i++)
    x[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  for (int64_t i = 0; i < cout * k; i++)
    wt[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  for (int64_t i = 0; i < cout; i++)
    b[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  for (int64_t i = 0; i < ny; i++)
    res[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  _executorch_conv_rows_pack (wt, cout, k, packed);

  for (int64_t co = 0; co < cout; co++)
    for (int64_t p = 0; p < pixels; p++)
      {
        double acc = bias ? b[co] : 0.0, m = fabs (acc);
        int64_t oy = p / cv.ow, ox = p % cv.ow;
        for (int64_t c = 0; c < cin; c++)
          for (int64_t ky = 0; ky < cv.kh; ky++)
            for (int64_t kx = 0; kx < cv.kw; kx++)
              {
                int64_t iy = oy * cv.sh - cv.ph + ky * cv.dh, ix = ox * cv.sw - cv.pw + kx * cv.dw;
                if (iy < 0 || iy >= cv.h || ix < 0 || ix >= cv.w)
                  continue;
                double t = (double) x[(c * cv.h + iy) * cv.w + ix] * wt[((co * cin + c) * cv.kh + ky) * cv.kw + kx];
                acc += t;
                m += fabs (t);
              }
        if (residual)
          {
            acc += res[co * pixels + p];
            m += fabs (res[co * pixels + p]);
          }
        if (clamp)
          acc = acc < ep.lo ? ep.lo : acc > ep.hi ? ep.hi : acc;
        ref[co * pixels + p] = acc;
        mag[co * pixels + p] = m;
      }

  /* The kernel's operands: transposed copies where @layout says. */
  bool y_last = (layout & KERNEL_CONV_Y_CHANNELS_LAST) != 0;
  float *xk = (layout & KERNEL_CONV_X_CHANNELS_LAST) != 0 ? channels_last (x, cin, pixels) : g_memdup2 (x, nx * 4);
  float *rk = y_last ? channels_last (res, cout, pixels) : g_memdup2 (res, ny * 4);
  if (residual && !in_place)
    ep.residual = rk;
  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      for (int64_t i = 0; i < ny + GUARD; i++)
        y[i] = i < ny ? (in_place ? rk[i] : NAN) : 1234.5f;
      g_assert_true (_executorch_conv_rows_f32 (&cv, xk, packed, bias ? b : NULL, y, &ep, layout));
      for (int64_t j = 0; j < ny; j++)
        {
          /* j: the output's place in NCHW order, i: in the kernel's. */
          int64_t i = y_last ? j % pixels * cout + j / pixels : j;
          if (!(fabs (y[i] - ref[j]) <= 1e-5 * (mag[j] + 1.0)))
            g_error ("%u threads, layout %u, %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT " at %" G_GINT64_FORMAT
                     "x%" G_GINT64_FORMAT ", window %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " stride %" G_GINT64_FORMAT
                     ": out[%" G_GINT64_FORMAT "] = %g, expected %g",
                     threads, layout, cin, cout, cv.h, cv.w, cv.kh, cv.kw, cv.sw, j, y[i], ref[j]);
        }
      for (int64_t i = ny; i < ny + GUARD; i++)
        g_assert_cmpfloat (y[i], ==, 1234.5f);
    }
  executorch_threadpool_set_num_threads (1);
  g_free (xk);
  g_free (rk);
  g_free (x);
  g_free (wt);
  g_free (b);
  g_free (packed);
  g_free (res);
  g_free (y);
  g_free (ref);
  g_free (mag);
}

static void
check_conv (const KernelConv *g, bool bias, bool residual, bool in_place, bool clamp)
{
  check_conv_layout (g, bias, residual, in_place, clamp, 0);
}

static void
check_case (int64_t cin, int64_t cout, int64_t h, int64_t w, bool bias, bool residual, bool in_place, bool clamp)
{
  KernelConv cv = one_by_one (cin, cout, h, w);

  check_conv (&cv, bias, residual, in_place, clamp);
}

/* The load-time choice: small planes whose pixels waste GEMM columns,
 * one batch and one group, output channels a multiple of 32. */
static void
test_choice (void)
{
  KernelConv cv = one_by_one (160, 960, 7, 7);
  bool avx512 = _executorch_conv_rows_fits (&cv);

  g_assert_cmpint (_executorch_conv_rows_pays (&cv), ==, avx512);
  cv = one_by_one (576, 96, 14, 14);
  g_assert_cmpint (_executorch_conv_rows_pays (&cv), ==, avx512);
  /* At 14x14 short sums lose to the tiles' transposes. */
  cv = one_by_one (64, 384, 14, 14);
  g_assert_false (_executorch_conv_rows_pays (&cv));
  /* 8x8: two whole strips of 32 pixels, nothing to gain. */
  cv = one_by_one (64, 384, 8, 8);
  g_assert_false (_executorch_conv_rows_pays (&cv));
  /* 28x28 is past the small planes. */
  cv = one_by_one (32, 192, 28, 28);
  g_assert_false (_executorch_conv_rows_pays (&cv));
  /* Output channels past a multiple of 32 pad the last strip: 232 at
   * 7x7 (ShuffleNet) still pays, 8 does not. */
  cv = one_by_one (232, 232, 7, 7);
  g_assert_cmpint (_executorch_conv_rows_pays (&cv), ==, avx512);
  cv = one_by_one (64, 8, 7, 7);
  g_assert_false (_executorch_conv_rows_pays (&cv));
  /* ResNet's 3x3 convolutions at 7x7, also from 14x14 at stride 2. */
  cv = window (512, 512, 7, 7, 3, 1, 1, 1);
  g_assert_cmpint (_executorch_conv_rows_pays (&cv), ==, avx512);
  cv = window (256, 512, 14, 14, 3, 2, 1, 1);
  g_assert_cmpint (_executorch_conv_rows_pays (&cv), ==, avx512);
  /* At 14x14 the strips waste an eighth: not worth an im2col fill. */
  cv = window (256, 256, 14, 14, 3, 1, 1, 1);
  g_assert_false (_executorch_conv_rows_pays (&cv));
  cv = one_by_one (64, 64, 7, 7);
  cv.n = 2;
  g_assert_false (_executorch_conv_rows_fits (&cv));
  cv = one_by_one (64, 64, 7, 7);
  cv.groups = 2;
  cv.cin_g = cv.cout_g = 32;
  g_assert_false (_executorch_conv_rows_fits (&cv));
  cv = one_by_one (64, 64, 7, 7);
  cv.transposed = true;
  g_assert_false (_executorch_conv_rows_fits (&cv));
}

static gboolean
skip_without_avx512 (void)
{
  KernelConv cv = one_by_one (8, 32, 7, 7);

  if (_executorch_conv_rows_fits (&cv))
    return FALSE;
  g_test_skip ("no AVX-512: the rows path is never chosen");
  return TRUE;
}

/* MobileNet's and ResNet's small planes, whole tiles. */
static void
test_model_shapes (void)
{
  if (skip_without_avx512 ())
    return;
  check_case (160, 960, 7, 7, true, false, false, true);
  check_case (960, 160, 7, 7, true, true, false, false);
  check_case (64, 384, 14, 14, true, false, false, true);
  check_case (384, 64, 14, 14, false, true, false, true);
  check_case (512, 64, 7, 7, true, false, false, false);
  /* Output channels not a multiple of 32 or 16. */
  check_case (232, 232, 7, 7, true, true, false, true);
  check_case (80, 40, 14, 14, true, false, false, false);
  check_case (24, 8, 7, 7, false, true, false, true);
  KernelConv cv = window (20, 1000, 13, 13, 3, 2, 1, 1);
  check_conv (&cv, true, false, false, false);
}

/* Planes that end in a partial tile, tiny ones, one input channel. */
static void
test_partial_tiles (void)
{
  static const int64_t sides[][2] = { { 1, 1 }, { 1, 6 }, { 2, 4 }, { 5, 10 }, { 3, 5 }, { 16, 16 }, { 9, 13 } };

  if (skip_without_avx512 ())
    return;
  for (size_t i = 0; i < G_N_ELEMENTS (sides); i++)
    {
      check_case (1, 32, sides[i][0], sides[i][1], true, false, false, false);
      check_case (37, 64, sides[i][0], sides[i][1], i % 2 == 0, i % 3 == 0, false, i % 2 == 1);
    }
}

/* A residual read from the output it is added to. */
static void
test_residual_in_place (void)
{
  if (skip_without_avx512 ())
    return;
  check_case (48, 96, 7, 7, true, true, true, true);
  check_case (48, 32, 5, 10, false, true, true, false);
}

/* Windows through the im2col matrix: padding, stride, dilation, a
 * window wider than high, padding past the window. */
static void
test_windows (void)
{
  if (skip_without_avx512 ())
    return;
  KernelConv cv = window (24, 64, 7, 7, 3, 1, 1, 1);
  check_conv (&cv, true, true, false, true);
  cv = window (16, 32, 14, 14, 3, 2, 1, 1);
  check_conv (&cv, true, false, false, false);
  cv = window (9, 32, 13, 11, 3, 2, 0, 1);
  check_conv (&cv, false, true, true, false);
  cv = window (8, 32, 9, 9, 3, 1, 2, 2);
  check_conv (&cv, true, false, false, true);
  cv = window (5, 64, 6, 10, 5, 1, 4, 1);
  check_conv (&cv, true, true, false, false);
  cv = window (7, 32, 8, 12, 1, 2, 0, 1);
  check_conv (&cv, true, false, false, false);
  cv = window (6, 32, 7, 9, 3, 1, 1, 1);
  cv.kw = 5;
  cv.pw = 2;
  check_conv (&cv, false, false, false, true);
}

/* Two calls of one shape on new inputs: the threads' im2col matrices
 * must be filled again, not taken from the call before. */
static void
test_columns_refilled (void)
{
  if (skip_without_avx512 ())
    return;
  for (int i = 0; i < 3; i++)
    {
      KernelConv cv = window (16, 32, 7, 7, 3, 1, 1, 1);
      check_conv (&cv, true, false, false, false);
    }
}

/* Channels-last inputs (1x1 only), outputs or both: whole and partial
 * tiles, planes large enough to be cut by pixels, output channels not a
 * multiple of 16, a residual (also in place). */
static void
test_channels_last (void)
{
  static const int64_t shapes[][4] = {
    { 16, 96, 28, 28 }, { 96, 24, 14, 15 }, { 24, 144, 9, 13 }, { 320, 1280, 7, 7 }, { 37, 40, 2, 3 }, { 8, 8, 1, 1 },
  };

  if (skip_without_avx512 ())
    return;
  for (unsigned layout = 1; layout <= 3; layout++)
    for (size_t i = 0; i < G_N_ELEMENTS (shapes); i++)
      {
        KernelConv cv = one_by_one (shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
        check_conv_layout (&cv, i % 2 == 0, i % 3 != 2, i == 1 && layout != 1, i % 2 == 1, layout);
      }
  /* A window reads its im2col matrix: a channels-last output only. */
  KernelConv cv = window (24, 48, 14, 14, 3, 2, 1, 1);
  g_assert_false (_executorch_conv_rows_fits_layout (&cv, KERNEL_CONV_X_CHANNELS_LAST));
  check_conv_layout (&cv, true, true, false, true, KERNEL_CONV_Y_CHANNELS_LAST);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (7);
  g_test_add_func ("/conv-rows/choice", test_choice);
  g_test_add_func ("/conv-rows/model-shapes", test_model_shapes);
  g_test_add_func ("/conv-rows/partial-tiles", test_partial_tiles);
  g_test_add_func ("/conv-rows/residual-in-place", test_residual_in_place);
  g_test_add_func ("/conv-rows/windows", test_windows);
  g_test_add_func ("/conv-rows/columns-refilled", test_columns_refilled);
  g_test_add_func ("/conv-rows/channels-last", test_channels_last);
  int status = g_test_run ();
  g_rand_free (rng);
  return status;
}
