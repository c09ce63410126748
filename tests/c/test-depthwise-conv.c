/* test-depthwise-conv.c: the float32 depthwise convolution kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * convolution-depthwise.c is built into this program and each of its
 * instruction sets this CPU has (portable, AVX2, AVX-512) is run on the
 * same inputs and compared with a double-precision loop written here:
 * 3x3 and 5x5 windows (the unrolled loops) and other sizes, strides 1 to
 * 3, dilation, padding from none to more than the window, odd widths
 * (vector tails), 1x1 and tiny planes, several channels per group, a
 * batch, bias or none, and the fused epilogue (residual add, clamp).
 * Outputs are prefilled with NaN, so each one must be written, and a
 * guard after them must stay untouched; 1 and 2 threads.  A residual may
 * also be the output itself.  Where the CPU has AVX-512, every case of
 * one batch and one output channel a group also runs the channels-last
 * kernel (convolution-depthwise-nhwc.c) on the same data transposed.
 */
#include "convolution-private.h"
#include "executorch-threadpool.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#define GUARD 40

static GRand *rng;

static float
rnd (void)
{
  return (float) g_rand_double_range (rng, -1.0, 1.0);
}

typedef struct
{
  int64_t n, c, mult, h, w, kh, kw, sh, sw, ph, pw, dh, dw;
  bool bias, residual, clamp;
  bool in_place; /* the residual is read from the output itself */
} Case;

static int64_t
extent (int64_t in, int64_t k, int64_t s, int64_t p, int64_t d)
{
  int64_t span = in + 2 * p - d * (k - 1) - 1;
  return span < 0 ? 0 : span / s + 1;
}

/* @planes planes of @pixels, NCHW to NHWC (@back: the other way). */
static float *
transpose_planes (const float *src, int64_t planes, int64_t pixels, bool back)
{
  float *dst = g_new (float, planes *pixels + GUARD);

  for (int64_t c = 0; c < planes; c++)
    for (int64_t p = 0; p < pixels; p++)
      if (back)
        dst[c * pixels + p] = src[p * planes + c];
      else
        dst[p * planes + c] = src[c * pixels + p];
  return dst;
}

/* The channels-last kernel (convolution-depthwise-nhwc.c) on @c's data,
 * transposed in and out. */
static void
check_channels_last (const Case *c, const KernelConv *cv, const float *x, const float *w, const float *bias,
                     const float *res, const KernelConvEpilogue *ep, const double *ref, const double *mag)
{
  int64_t taps = cv->kh * cv->kw, pixels = cv->oh * cv->ow, ny = cv->cout * pixels;
  float *xl = transpose_planes (x, cv->cin, cv->h * cv->w, false);
  float *rl = transpose_planes (res, cv->cout, pixels, false);
  float *yl = g_new (float, ny + GUARD);
  float *packed = g_new (float, _executorch_conv_depthwise_nhwc_packed_floats (cv->cout, taps));
  KernelConvEpilogue epl = *ep;

  epl.residual = c->residual ? (c->in_place ? yl : rl) : NULL;
  _executorch_conv_depthwise_nhwc_pack (w, cv->cout, taps, packed);
  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      for (int64_t i = 0; i < ny + GUARD; i++)
        yl[i] = i < ny ? (c->in_place ? rl[i] : NAN) : 1234.5f;
      g_assert_true (_executorch_conv_depthwise_nhwc_f32 (cv, xl, packed, c->bias ? bias : NULL, yl,
                                                          c->residual || c->clamp ? &epl : NULL));
      for (int64_t i = 0; i < ny; i++)
        {
          double got = yl[i % pixels * cv->cout + i / pixels];
          if (!(fabs (got - ref[i]) <= 1e-5 * (mag[i] + 1.0)))
            g_error ("channels-last, %u threads, c %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                     " k %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " s %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                     " p %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ": out[%" G_GINT64_FORMAT "] = %g, expected %g",
                     threads, c->c, c->h, c->w, c->kh, c->kw, c->sh, c->sw, c->ph, c->pw, i, got, ref[i]);
        }
      for (int64_t i = ny; i < ny + GUARD; i++)
        g_assert_cmpfloat (yl[i], ==, 1234.5f);
    }
  g_free (xl);
  g_free (rl);
  g_free (yl);
  g_free (packed);
}

/* Runs @c on every instruction set; FALSE when its output would be empty. */
static gboolean
check_case (const Case *c)
{
  KernelConv cv = {
    .n = c->n,
    .cin = c->c,
    .h = c->h,
    .w = c->w,
    .cout = c->c * c->mult,
    .kh = c->kh,
    .kw = c->kw,
    .sh = c->sh,
    .sw = c->sw,
    .ph = c->ph,
    .pw = c->pw,
    .dh = c->dh,
    .dw = c->dw,
    .groups = c->c,
    .cin_g = 1,
    .cout_g = c->mult,
  };
  cv.oh = extent (c->h, c->kh, c->sh, c->ph, c->dh);
  cv.ow = extent (c->w, c->kw, c->sw, c->pw, c->dw);
  if (cv.oh < 1 || cv.ow < 1)
    return FALSE;

  int64_t nx = cv.n * cv.cin * cv.h * cv.w, nw = cv.cout * cv.kh * cv.kw, ny = cv.n * cv.cout * cv.oh * cv.ow;
  float *x = g_new (float, nx), *w = g_new (float, nw), *bias = g_new (float, cv.cout);
  float *res = g_new (float, ny), *y = g_new (float, ny + GUARD);
  double *ref = g_new (double, ny), *mag = g_new (double, ny);
  KernelConvEpilogue ep = {
    .residual = c->residual ? (c->in_place ? y : res) : NULL, .clamp = c->clamp, .lo = -0.5f, .hi = 0.75f
  };

  for (int64_t i = 0; i < nx; i++)
    x[i] = rnd ();
  for (int64_t i = 0; i < nw; i++)
    w[i] = rnd ();
  for (int64_t i = 0; i < cv.cout; i++)
    bias[i] = rnd ();
  for (int64_t i = 0; i < ny; i++)
    res[i] = rnd ();

  for (int64_t b = 0; b < cv.n; b++)
    for (int64_t co = 0; co < cv.cout; co++)
      for (int64_t oh = 0; oh < cv.oh; oh++)
        for (int64_t ow = 0; ow < cv.ow; ow++)
          {
            int64_t o = ((b * cv.cout + co) * cv.oh + oh) * cv.ow + ow;
            double acc = c->bias ? bias[co] : 0.0, m = fabs (acc);
            for (int64_t kh = 0; kh < cv.kh; kh++)
              for (int64_t kw = 0; kw < cv.kw; kw++)
                {
                  int64_t ih = oh * cv.sh - cv.ph + kh * cv.dh, iw = ow * cv.sw - cv.pw + kw * cv.dw;
                  if (ih < 0 || ih >= cv.h || iw < 0 || iw >= cv.w)
                    continue;
                  double t = (double) x[((b * cv.cin + co / cv.cout_g) * cv.h + ih) * cv.w + iw] *
                             w[(co * cv.kh + kh) * cv.kw + kw];
                  acc += t;
                  m += fabs (t);
                }
            if (c->residual)
              {
                acc += res[o];
                m += fabs (res[o]);
              }
            if (c->clamp)
              acc = acc < ep.lo ? ep.lo : acc > ep.hi ? ep.hi : acc;
            ref[o] = acc;
            mag[o] = m;
          }

  KernelDepthwiseIsa best = _executorch_conv_depthwise_best_isa ();
  for (int isa = KERNEL_DEPTHWISE_PORTABLE; isa <= (int) best; isa++)
    for (guint threads = 1; threads <= 2; threads++)
      {
        executorch_threadpool_set_num_threads (threads);
        for (int64_t i = 0; i < ny + GUARD; i++)
          y[i] = i < ny ? (c->in_place ? res[i] : NAN) : 1234.5f;
        g_assert_true (_executorch_conv_depthwise_f32_isa (&cv, x, w, c->bias ? bias : NULL, y,
                                                           c->residual || c->clamp ? &ep : NULL, isa));
        for (int64_t i = 0; i < ny; i++)
          if (!(fabs (y[i] - ref[i]) <= 1e-5 * (mag[i] + 1.0)))
            g_error ("isa %d, %u threads, n %" G_GINT64_FORMAT " c %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                     " %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " k %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                     " s %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT " p %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                     " d %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ": out[%" G_GINT64_FORMAT "] = %g, expected %g",
                     isa, threads, c->n, c->c, c->mult, c->h, c->w, c->kh, c->kw, c->sh, c->sw, c->ph, c->pw, c->dh,
                     c->dw, i, y[i], ref[i]);
        for (int64_t i = ny; i < ny + GUARD; i++)
          g_assert_cmpfloat (y[i], ==, 1234.5f);
      }
  if (_executorch_conv_depthwise_nhwc_fits (&cv))
    check_channels_last (c, &cv, x, w, bias, res, &ep, ref, mag);
  executorch_threadpool_set_num_threads (1);
  g_free (x);
  g_free (w);
  g_free (bias);
  g_free (res);
  g_free (y);
  g_free (ref);
  g_free (mag);
  return TRUE;
}

/* MobileNet/EfficientNet/ShuffleNet windows: square, padding k / 2, every
 * width from 1 to 40 (all vector tails of 8 and 16) and a few heights. */
static void
test_square_windows (void)
{
  static const int64_t ks[] = { 3, 5 };
  int n = 0;

  for (size_t ki = 0; ki < G_N_ELEMENTS (ks); ki++)
    for (int64_t s = 1; s <= 2; s++)
      for (int64_t wd = 1; wd <= 40; wd++)
        {
          int64_t k = ks[ki];
          Case c = { .n = 1,
                     .c = 3,
                     .mult = 1,
                     .h = 1 + wd % 7,
                     .w = wd,
                     .kh = k,
                     .kw = k,
                     .sh = s,
                     .sw = s,
                     .ph = k / 2,
                     .pw = k / 2,
                     .dh = 1,
                     .dw = 1,
                     .bias = true,
                     .clamp = wd % 3 == 0,
                     .residual = wd % 4 == 0 };
          n += check_case (&c);
        }
  g_assert_cmpint (n, >, 150);
}

/* The MobileNetV2 shapes' geometry at a few channels: 112/56/28/14/7. */
static void
test_model_planes (void)
{
  static const int64_t sizes[] = { 112, 56, 28, 14, 7 };

  for (size_t i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (int64_t s = 1; s <= 2; s++)
      for (int64_t k = 3; k <= 5; k += 2)
        {
          Case c = { .n = 1,
                     .c = 5,
                     .mult = 1,
                     .h = sizes[i],
                     .w = sizes[i],
                     .kh = k,
                     .kw = k,
                     .sh = s,
                     .sw = s,
                     .ph = k / 2,
                     .pw = k / 2,
                     .dh = 1,
                     .dw = 1,
                     .bias = true,
                     .clamp = true };
          g_assert_true (check_case (&c));
        }
}

/* Random everything else: sizes, strides 1-3 apart per axis, padding
 * 0 to beyond the window, dilation, multipliers, batch, no bias. */
static void
test_random_shapes (void)
{
  int n = 0;

  for (int iter = 0; iter < 250; iter++)
    {
      Case c = {
        .n = g_rand_int_range (rng, 1, 3),
        .c = g_rand_int_range (rng, 1, 6),
        .mult = g_rand_int_range (rng, 1, 3),
        .h = g_rand_int_range (rng, 1, 24),
        .w = g_rand_int_range (rng, 1, 40),
        .kh = g_rand_int_range (rng, 1, 7),
        .kw = g_rand_int_range (rng, 1, 7),
        .sh = g_rand_int_range (rng, 1, 4),
        .sw = g_rand_int_range (rng, 1, 4),
        .dh = g_rand_int_range (rng, 1, 3),
        .dw = g_rand_int_range (rng, 1, 3),
        .bias = g_rand_boolean (rng),
        .residual = g_rand_boolean (rng),
        .clamp = g_rand_boolean (rng),
      };
      if (c.kh * c.kw == 1)
        c.kw = 2;
      c.ph = g_rand_int_range (rng, 0, c.kh + 1);
      c.pw = g_rand_int_range (rng, 0, c.kw + 1);
      n += check_case (&c);
    }
  g_assert_cmpint (n, >, 120);
}

/* A residual read from the output it is added to: each output's residual
 * must be read before any vector stored over it, also where a row's last
 * vector would otherwise spill into the next rows. */
static void
test_residual_in_place (void)
{
  for (int64_t wd = 1; wd <= 20; wd++)
    for (int64_t s = 1; s <= 2; s++)
      {
        Case c = { .n = 1,
                   .c = 3,
                   .mult = 1,
                   .h = 9,
                   .w = wd * s,
                   .kh = 3,
                   .kw = 3,
                   .sh = s,
                   .sw = s,
                   .ph = 1,
                   .pw = 1,
                   .dh = 1,
                   .dw = 1,
                   .bias = true,
                   .residual = true,
                   .in_place = true };
        g_assert_true (check_case (&c));
      }
}

/* A 1-D convolution is a 2-D one with H = KH = 1. */
static void
test_one_dimensional (void)
{
  for (int64_t wd = 1; wd <= 35; wd += 2)
    for (int64_t s = 1; s <= 2; s++)
      {
        Case c = { .n = 2,
                   .c = 4,
                   .mult = 1,
                   .h = 1,
                   .w = wd,
                   .kh = 1,
                   .kw = 3,
                   .sh = 1,
                   .sw = s,
                   .ph = 0,
                   .pw = 1,
                   .dh = 1,
                   .dw = 1,
                   .bias = true };
        g_assert_true (check_case (&c));
      }
}

/* NaN keeps going through the clamp, as the activation kernels let it. */
static void
test_nan_through_clamp (void)
{
  KernelConv cv = { .n = 1,
                    .cin = 1,
                    .h = 3,
                    .w = 20,
                    .cout = 1,
                    .kh = 3,
                    .kw = 3,
                    .sh = 1,
                    .sw = 1,
                    .ph = 1,
                    .pw = 1,
                    .dh = 1,
                    .dw = 1,
                    .groups = 1,
                    .cin_g = 1,
                    .cout_g = 1,
                    .oh = 3,
                    .ow = 20 };
  float x[60], w[9], y[60];
  KernelConvEpilogue ep = { .clamp = true, .lo = 0.0f, .hi = 6.0f };

  for (int i = 0; i < 60; i++)
    x[i] = 1.0f;
  for (int i = 0; i < 9; i++)
    w[i] = 1.0f;
  x[10] = NAN; /* row 0, column 10 */
  for (int isa = KERNEL_DEPTHWISE_PORTABLE; isa <= (int) _executorch_conv_depthwise_best_isa (); isa++)
    {
      g_assert_true (_executorch_conv_depthwise_f32_isa (&cv, x, w, NULL, y, &ep, isa));
      g_assert_true (isnan (y[10]) && isnan (y[20 + 11]));
      g_assert_cmpfloat (y[0], ==, 4.0f);  /* corner: 4 taps */
      g_assert_cmpfloat (y[25], ==, 6.0f); /* 9 taps, clamped */
      g_assert_cmpfloat (y[40 + 15], ==, 6.0f);
    }
}

/* Channel counts that fill several vectors, with and without a tail, on
 * the model planes at strides 1 and 2 (the channels-last kernel; the
 * NCHW ones take them too). */
static void
test_many_channels (void)
{
  static const int64_t channels[] = { 16, 37, 96 };
  static const int64_t sizes[] = { 28, 14, 7, 3 };

  for (size_t ci = 0; ci < G_N_ELEMENTS (channels); ci++)
    for (size_t i = 0; i < G_N_ELEMENTS (sizes); i++)
      for (int64_t s = 1; s <= 2; s++)
        {
          int64_t k = i % 2 == 0 ? 3 : 5;
          Case c = { .n = 1,
                     .c = channels[ci],
                     .mult = 1,
                     .h = sizes[i],
                     .w = sizes[i] + (int64_t) ci,
                     .kh = k,
                     .kw = k,
                     .sh = s,
                     .sw = s,
                     .ph = k / 2,
                     .pw = k / 2,
                     .dh = 1,
                     .dw = 1,
                     .bias = s == 1 || ci == 1,
                     .residual = i % 2 == 1,
                     .in_place = i == 3,
                     .clamp = true };
          g_assert_true (check_case (&c));
        }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (21);
  g_test_add_func ("/depthwise/square-windows", test_square_windows);
  g_test_add_func ("/depthwise/model-planes", test_model_planes);
  g_test_add_func ("/depthwise/random-shapes", test_random_shapes);
  g_test_add_func ("/depthwise/residual-in-place", test_residual_in_place);
  g_test_add_func ("/depthwise/one-dimensional", test_one_dimensional);
  g_test_add_func ("/depthwise/nan-through-clamp", test_nan_through_clamp);
  g_test_add_func ("/depthwise/many-channels", test_many_channels);
  int status = g_test_run ();
  g_rand_free (rng);
  return status;
}
