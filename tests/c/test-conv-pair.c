/* test-conv-pair.c: a depthwise convolution and the 1x1 convolution after it, as one pass
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * convolution-pair.c, convolution-depthwise.c and the GEMM are built into
 * this program.  The depthwise rows, in bands of every height and in any
 * order with one scratch, must be the bytes of the whole-plane kernel on
 * each instruction set; the pair must match a double-precision loop of
 * the two convolutions (bias, clamp, residual; odd sizes, stride 2,
 * padding, a batch) and give the same bytes on 1 and 2 threads, writing
 * every output (prefilled with NaN) and nothing past it.  Two GEMM
 * convolutions in one region must give the bytes of each alone, and a
 * convolution whose first channels go elsewhere the bytes of the whole.
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

static int64_t
extent (int64_t in, int64_t k, int64_t s, int64_t p, int64_t d)
{
  int64_t span = in + 2 * p - d * (k - 1) - 1;
  return span < 0 ? 0 : span / s + 1;
}

static KernelConv
depthwise (int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t s, int64_t p, int64_t d)
{
  KernelConv cv = { .n = n,
                    .cin = c,
                    .h = h,
                    .w = w,
                    .cout = c,
                    .kh = k,
                    .kw = k,
                    .sh = s,
                    .sw = s,
                    .ph = p,
                    .pw = p,
                    .dh = d,
                    .dw = d,
                    .groups = c,
                    .cin_g = 1,
                    .cout_g = 1 };

  cv.oh = extent (h, k, s, p, d);
  cv.ow = extent (w, k, s, p, d);
  return cv;
}

/* Bands of @band rows, last one first, must give the plane's bytes. */
static void
check_rows (const KernelConv *cv, KernelDepthwiseIsa isa)
{
  int64_t planes = cv->n * cv->cout, pixels = cv->oh * cv->ow;
  float *x = random_floats (cv->n * cv->cin * cv->h * cv->w), *w = random_floats (cv->cout * cv->kh * cv->kw);
  float *bias = random_floats (cv->cout), *whole = g_new (float, planes *pixels);
  float *rows = g_new (float, pixels + GUARD);
  KernelConvEpilogue ep = { .clamp = true, .lo = -0.5f, .hi = 0.75f };

  g_assert_true (_executorch_conv_depthwise_f32_isa (cv, x, w, bias, whole, &ep, isa));
  for (int64_t band = 1; band <= cv->oh; band++)
    {
      KernelDwRows r;
      g_assert_true (_executorch_conv_dw_rows_init (&r, cv, isa, band));
      float *scratch = g_new0 (float, r.scratch_floats);
      for (int64_t plane = planes - 1; plane >= 0; plane--)
        {
          for (int64_t i = 0; i < pixels + GUARD; i++)
            rows[i] = i < pixels ? NAN : 1234.5f;
          for (int64_t r1 = cv->oh; r1 > 0; r1 -= band)
            {
              int64_t r0 = r1 - band > 0 ? r1 - band : 0;
              _executorch_conv_dw_rows_f32 (&r, x, w, bias, &ep, plane, r0, r1, scratch, rows + r0 * cv->ow);
            }
          if (memcmp (rows, whole + plane * pixels, (size_t) pixels * sizeof (float)) != 0)
            g_error ("isa %d, %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " k %" G_GINT64_FORMAT " s %" G_GINT64_FORMAT
                     " p %" G_GINT64_FORMAT " d %" G_GINT64_FORMAT ": bands of %" G_GINT64_FORMAT
                     " rows differ from the plane %" G_GINT64_FORMAT,
                     isa, cv->h, cv->w, cv->kh, cv->sh, cv->ph, cv->dh, band, plane);
          for (int64_t i = pixels; i < pixels + GUARD; i++)
            g_assert_cmpfloat (rows[i], ==, 1234.5f);
        }
      g_free (scratch);
      _executorch_conv_dw_rows_clear (&r);
    }
  g_free (x);
  g_free (w);
  g_free (bias);
  g_free (whole);
  g_free (rows);
}

static void
test_rows_match_planes (void)
{
  static const int64_t shapes[][7] = {
    /* n, c, h, w, k, s, p (dilation 1) */
    { 1, 3, 14, 14, 3, 1, 1 }, { 1, 2, 15, 17, 3, 2, 1 }, { 2, 2, 9, 33, 5, 1, 2 },  { 1, 2, 12, 20, 5, 2, 2 },
    { 1, 1, 7, 7, 3, 1, 0 },   { 1, 2, 6, 5, 3, 2, 3 },   { 1, 2, 11, 40, 3, 3, 1 }, { 1, 1, 1, 19, 3, 1, 1 },
  };

  for (int isa = KERNEL_DEPTHWISE_PORTABLE; isa <= (int) _executorch_conv_depthwise_best_isa (); isa++)
    {
      for (size_t i = 0; i < G_N_ELEMENTS (shapes); i++)
        {
          const int64_t *s = shapes[i];
          KernelConv cv = depthwise (s[0], s[1], s[2], s[3], s[4], s[5], s[6], 1);
          check_rows (&cv, isa);
        }
      KernelConv dilated = depthwise (1, 2, 13, 21, 3, 1, 2, 2);
      check_rows (&dilated, isa);
    }
}

typedef struct
{
  int64_t n, c, co, h, w, k, s, p;
  bool bias, residual, clamp;
} PairCase;

static void
check_pair (const PairCase *pc)
{
  KernelConv dw = depthwise (pc->n, pc->c, pc->h, pc->w, pc->k, pc->s, pc->p, 1);
  KernelConv pw = { .n = pc->n,
                    .cin = pc->c,
                    .h = dw.oh,
                    .w = dw.ow,
                    .cout = pc->co,
                    .kh = 1,
                    .kw = 1,
                    .oh = dw.oh,
                    .ow = dw.ow,
                    .sh = 1,
                    .sw = 1,
                    .dh = 1,
                    .dw = 1,
                    .groups = 1,
                    .cin_g = pc->c,
                    .cout_g = pc->co };
  int64_t pixels = dw.oh * dw.ow, ny = pc->n * pc->co * pixels;
  float *x = random_floats (pc->n * pc->c * pc->h * pc->w), *dw_w = random_floats (pc->c * pc->k * pc->k);
  float *dw_b = random_floats (pc->c), *pw_w = random_floats (pc->co * pc->c), *pw_b = random_floats (pc->co);
  float *res = random_floats (ny), *y = g_new (float, ny + GUARD), *first = g_new (float, ny);
  float *packed = g_new (float, _executorch_sgemm_packed_a_floats (pc->co, pc->c));
  double *mid = g_new (double, pc->n * pc->c * pixels), *mid_mag = g_new (double, pc->n * pc->c * pixels);
  KernelSgemm pack = { .m = pc->co, .k = pc->c, .a = pw_w, .a_rs = pc->c, .a_cs = 1 };
  KernelConvPairArgs a = {
    .dw = &dw,
    .pw = &pw,
    .x = x,
    .dw_weight = dw_w,
    .dw_bias = pc->bias ? dw_b : NULL,
    .dw_epilogue = { .clamp = pc->clamp, .lo = 0.0f, .hi = 0.5f },
    .pw_weight = pw_w,
    .pw_packed = packed,
    .pw_bias = pc->bias ? pw_b : NULL,
    .pw_epilogue = { .residual = pc->residual ? res : NULL, .clamp = pc->clamp, .lo = -0.25f, .hi = 0.25f },
    .y = y,
  };

  g_assert_true (_executorch_conv_pair_applies (&dw, &pw));
  _executorch_sgemm_pack_a (&pack, packed);
  for (int64_t b = 0; b < pc->n; b++)
    for (int64_t c = 0; c < pc->c; c++)
      for (int64_t oh = 0; oh < dw.oh; oh++)
        for (int64_t ow = 0; ow < dw.ow; ow++)
          {
            int64_t o = ((b * pc->c + c) * dw.oh + oh) * dw.ow + ow;
            double acc = pc->bias ? dw_b[c] : 0.0, m = fabs (acc);
            for (int64_t kh = 0; kh < pc->k; kh++)
              for (int64_t kw = 0; kw < pc->k; kw++)
                {
                  int64_t ih = oh * pc->s - pc->p + kh, iw = ow * pc->s - pc->p + kw;
                  if (ih >= 0 && ih < pc->h && iw >= 0 && iw < pc->w)
                    {
                      double t =
                          (double) x[((b * pc->c + c) * pc->h + ih) * pc->w + iw] * dw_w[(c * pc->k + kh) * pc->k + kw];
                      acc += t;
                      m += fabs (t);
                    }
                }
            mid[o] = pc->clamp ? (acc < 0.0 ? 0.0 : acc > 0.5 ? 0.5 : acc) : acc;
            mid_mag[o] = m;
          }

  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      for (int64_t i = 0; i < ny + GUARD; i++)
        y[i] = i < ny ? NAN : 1234.5f;
      g_assert_true (_executorch_conv_pair_f32 (&a));
      for (int64_t b = 0; b < pc->n; b++)
        for (int64_t co = 0; co < pc->co; co++)
          for (int64_t p = 0; p < pixels; p++)
            {
              int64_t o = (b * pc->co + co) * pixels + p;
              double acc = pc->bias ? pw_b[co] : 0.0, m = fabs (acc);
              for (int64_t c = 0; c < pc->c; c++)
                {
                  int64_t i = (b * pc->c + c) * pixels + p;
                  acc += mid[i] * pw_w[co * pc->c + c];
                  m += (mid_mag[i] + fabs (mid[i])) * fabs (pw_w[co * pc->c + c]);
                }
              if (pc->residual)
                {
                  acc += res[o];
                  m += fabs (res[o]);
                }
              if (pc->clamp)
                acc = acc < -0.25 ? -0.25 : acc > 0.25 ? 0.25 : acc;
              if (!(fabs (y[o] - acc) <= 1e-5 * (m + 1.0)))
                g_error ("%u threads, n %" G_GINT64_FORMAT " c %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT
                         " %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " k %" G_GINT64_FORMAT " s %" G_GINT64_FORMAT
                         ": out[%" G_GINT64_FORMAT "] = %g, expected %g",
                         threads, pc->n, pc->c, pc->co, pc->h, pc->w, pc->k, pc->s, o, y[o], acc);
            }
      for (int64_t i = ny; i < ny + GUARD; i++)
        g_assert_cmpfloat (y[i], ==, 1234.5f);
      if (threads == 1)
        memcpy (first, y, (size_t) ny * sizeof (float));
      else
        g_assert_cmpmem (first, ny * sizeof (float), y, ny * sizeof (float));
    }
  executorch_threadpool_set_num_threads (1);
  g_free (x);
  g_free (dw_w);
  g_free (dw_b);
  g_free (pw_w);
  g_free (pw_b);
  g_free (res);
  g_free (y);
  g_free (first);
  g_free (packed);
  g_free (mid);
  g_free (mid_mag);
}

static void
test_against_reference (void)
{
  static const PairCase cases[] = {
    /* n, c, co, h, w, k, s, p, bias, residual, clamp */
    { 1, 24, 16, 14, 14, 3, 1, 1, true, false, false }, /* 14 rows: two bands of 7 on 2 threads */
    { 1, 19, 7, 15, 17, 3, 1, 1, true, true, true },    /* odd channels, columns, rows */
    { 1, 32, 24, 29, 31, 3, 2, 1, false, false, true }, /* stride 2: 15x16 out */
    { 2, 8, 13, 16, 16, 5, 1, 2, true, true, false },   /* a batch, 5x5 */
    { 1, 40, 6, 56, 23, 3, 1, 1, true, true, true },    /* many bands */
    { 1, 600, 20, 14, 14, 3, 1, 1, true, false, true }, /* bands cut by the buffer budget */
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    check_pair (&cases[i]);
}

static void
test_applies (void)
{
  KernelConv dw = depthwise (1, 8, 14, 14, 3, 1, 1, 1);
  KernelConv pw = { .n = 1,
                    .cin = 8,
                    .h = 14,
                    .w = 14,
                    .cout = 4,
                    .kh = 1,
                    .kw = 1,
                    .oh = 14,
                    .ow = 14,
                    .sh = 1,
                    .sw = 1,
                    .dh = 1,
                    .dw = 1,
                    .groups = 1,
                    .cin_g = 8,
                    .cout_g = 4 };
  KernelConv small = depthwise (1, 8, 13, 13, 3, 1, 1, 1), other = pw;

  g_assert_true (_executorch_conv_pair_applies (&dw, &pw));
  g_assert_false (_executorch_conv_pair_applies (&small, &pw)); /* 13x13: too few pixels, and not pw's input */
  other.kh = other.kw = 3;
  g_assert_false (_executorch_conv_pair_applies (&dw, &other));
  other = pw;
  other.cin = other.cin_g = 9;
  g_assert_false (_executorch_conv_pair_applies (&dw, &other));
  other = pw;
  other.groups = 2;
  g_assert_false (_executorch_conv_pair_applies (&dw, &other));
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
  g_test_add_func ("/conv-pair/rows-match-planes", test_rows_match_planes);
  g_test_add_func ("/conv-pair/against-reference", test_against_reference);
  g_test_add_func ("/conv-pair/applies", test_applies);
  g_test_add_func ("/conv-pair/two-in-one-region", test_two_in_one_region);
  g_test_add_func ("/conv-pair/low-channels", test_low_channels);
  int status = g_test_run ();
  g_rand_free (rng);
  return status;
}
