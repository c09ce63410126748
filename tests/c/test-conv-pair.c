/* test-conv-pair.c: two convolutions in one region, and an out's first channels elsewhere
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * convolution-fast.c (with the depthwise kernel and im2col it calls) and
 * the GEMM are built into this program.  Two GEMM convolutions of one
 * input in one region (rewrites/conv-pair.c's instruction) must give the
 * bytes of each alone, and a convolution whose first output channels go
 * to another buffer (an out over its input) the bytes of the whole, on 1
 * and 2 threads, writing every output (prefilled with NaN) and nothing
 * past it.
 */
#include "convolution-private.h"
#include "executorch-threadpool.h"
#include "gemm.h"

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

static float *
random_floats (int64_t n)
{
  float *v = g_new (float, n > 0 ? n : 1);

  for (int64_t i = 0; i < n; i++)
    v[i] = rnd ();
  return v;
}

/* Two GEMM convolutions of one input in one region (a fire module's
 * expand pair): each must be the bytes _executorch_conv_f32() gives it
 * alone, on 1 and 2 threads, with nothing written past either out. */
static void
check_two (int64_t cin, int64_t h, int64_t w, int64_t co0, int64_t co1, bool packed)
{
  KernelConv cv[2];
  int64_t ks[2] = { 1, 3 }, co[2] = { co0, co1 }, pixels = h * w;
  float *x = random_floats (cin * pixels), *wt[2], *bias[2], *pk[2], *alone[2], *y[2];
  KernelConvEpilogue ep = { .clamp = true, .lo = 0.0f, .hi = INFINITY };
  KernelConvCall calls[2];

  for (int i = 0; i < 2; i++)
    {
      cv[i] = (KernelConv){ .n = 1,
                            .cin = cin,
                            .h = h,
                            .w = w,
                            .cout = co[i],
                            .kh = ks[i],
                            .kw = ks[i],
                            .oh = h,
                            .ow = w,
                            .sh = 1,
                            .sw = 1,
                            .ph = ks[i] / 2,
                            .pw = ks[i] / 2,
                            .dh = 1,
                            .dw = 1,
                            .groups = 1,
                            .cin_g = cin,
                            .cout_g = co[i] };
      wt[i] = random_floats (co[i] * cin * ks[i] * ks[i]);
      bias[i] = random_floats (co[i]);
      pk[i] = g_new (float, _executorch_conv_packed_weight_floats (1, co[i], cin * ks[i] * ks[i], false));
      _executorch_conv_pack_weight (wt[i], 1, co[i], cin * ks[i] * ks[i], pk[i]);
      alone[i] = g_new (float, co[i] * pixels);
      y[i] = g_new (float, co[i] * pixels + GUARD);
      calls[i] = (KernelConvCall){ .cv = &cv[i],
                                   .x = x,
                                   .weight = wt[i],
                                   .packed_weight = packed ? pk[i] : NULL,
                                   .bias = bias[i],
                                   .y = y[i],
                                   .epilogue = &ep };
    }
  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      for (int i = 0; i < 2; i++)
        {
          g_assert_cmpint (_executorch_conv_f32 (NULL, &cv[i], x, wt[i], packed ? pk[i] : NULL, bias[i], alone[i], &ep),
                           ==, ET_OK);
          for (int64_t j = 0; j < co[i] * pixels + GUARD; j++)
            y[i][j] = j < co[i] * pixels ? NAN : 1234.5f;
        }
      g_assert_true (_executorch_conv_f32_two (calls));
      for (int i = 0; i < 2; i++)
        {
          g_assert_cmpmem (y[i], co[i] * pixels * sizeof (float), alone[i], co[i] * pixels * sizeof (float));
          for (int64_t j = co[i] * pixels; j < co[i] * pixels + GUARD; j++)
            g_assert_cmpfloat (y[i][j], ==, 1234.5f);
        }
    }
  executorch_threadpool_set_num_threads (1);
  g_free (x);
  for (int i = 0; i < 2; i++)
    {
      g_free (wt[i]);
      g_free (bias[i]);
      g_free (pk[i]);
      g_free (alone[i]);
      g_free (y[i]);
    }
}

static void
test_two_in_one_region (void)
{
  check_two (48, 13, 13, 192, 192, true); /* SqueezeNet's 13x13 fire */
  check_two (16, 55, 55, 64, 64, true);
  check_two (7, 9, 11, 13, 5, false); /* odd sizes, weights packed per call */
  check_two (3, 2, 3, 1, 2, true);    /* too small to split */
}

/* The first channels of a convolution's out written elsewhere (an out
 * over its input): every split point, both paths, 1 and 2 threads, a
 * residual and a clamp; the bytes of the whole convolution. */
static void
test_low_channels (void)
{
  static const int64_t shapes[][5] = {
    /* cin, h, w, cout, k */
    { 3, 57, 61, 64, 3 }, /* a stem: pixel tiles */
    { 96, 7, 7, 160, 1 }, /* channel blocks */
    { 5, 9, 9, 13, 3 },   /* cout not a multiple of 6 */
  };

  for (size_t s = 0; s < G_N_ELEMENTS (shapes); s++)
    {
      int64_t cin = shapes[s][0], h = shapes[s][1], w = shapes[s][2], cout = shapes[s][3], k = shapes[s][4];
      KernelConv cv = { .n = 1,
                        .cin = cin,
                        .h = h,
                        .w = w,
                        .cout = cout,
                        .kh = k,
                        .kw = k,
                        .oh = h,
                        .ow = w,
                        .sh = 1,
                        .sw = 1,
                        .ph = k / 2,
                        .pw = k / 2,
                        .dh = 1,
                        .dw = 1,
                        .groups = 1,
                        .cin_g = cin,
                        .cout_g = cout };
      int64_t ny = cout * h * w;
      float *x = random_floats (cin * h * w), *wt = random_floats (cout * cin * k * k), *bias = random_floats (cout);
      float *res = random_floats (ny), *whole = g_new (float, ny), *y = g_new (float, ny + GUARD);
      float *low_out = g_new (float, ny + GUARD);
      KernelConvEpilogue ep = { .residual = res, .clamp = true, .lo = -0.5f, .hi = 0.5f };
      /* Packed at load, as the fused instructions have them: the GEMM then
       * takes its packed path for any number of rows (unpacked, a few rows
       * would take its dot-product path, summing in another order). */
      float *pk = g_new (float, _executorch_conv_packed_weight_floats (1, cout, cin * k * k, false));

      _executorch_conv_pack_weight (wt, 1, cout, cin * k * k, pk);
      g_assert_cmpint (_executorch_conv_low_channels (&cv, cout + 7), ==, cout);
      for (guint threads = 1; threads <= 2; threads++)
        {
          executorch_threadpool_set_num_threads (threads);
          g_assert_cmpint (_executorch_conv_f32 (NULL, &cv, x, wt, pk, bias, whole, &ep), ==, ET_OK);
          for (int64_t want = 1; want < cout; want += 5)
            {
              int64_t low = _executorch_conv_low_channels (&cv, want);
              g_assert_cmpint (low % 6 == 0 || low == cout, ==, TRUE);
              g_assert_cmpint (low, >=, want);
              if (low >= cout)
                continue;
              for (int64_t i = 0; i < ny + GUARD; i++)
                y[i] = low_out[i] = i < ny ? NAN : 1234.5f;
              g_assert_cmpint (_executorch_conv_f32_low (NULL, &cv, x, wt, pk, bias, y, low_out, low, &ep), ==, ET_OK);
              /* Channels below @low only in low_out, the rest only in y. */
              memcpy (y, low_out, (size_t) (low * h * w) * sizeof (float));
              g_assert_cmpmem (y, ny * sizeof (float), whole, ny * sizeof (float));
              for (int64_t i = low * h * w; i < ny + GUARD; i++)
                g_assert_true (i < ny ? isnan (low_out[i]) : low_out[i] == 1234.5f);
              g_assert_cmpfloat (y[ny], ==, 1234.5f);
            }
        }
      executorch_threadpool_set_num_threads (1);
      g_free (x);
      g_free (wt);
      g_free (bias);
      g_free (res);
      g_free (whole);
      g_free (y);
      g_free (low_out);
      g_free (pk);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (21);
  g_test_add_func ("/conv-pair/two-in-one-region", test_two_in_one_region);
  g_test_add_func ("/conv-pair/low-channels", test_low_channels);
  int status = g_test_run ();
  g_rand_free (rng);
  return status;
}
