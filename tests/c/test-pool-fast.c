/* test-pool-fast.c: the vectorised float32 max pooling (pool-max-fast.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * pool-max-fast.c is built into this program and compared, value and
 * index exactly, with the rule written out here (taps in window order,
 * the first inside the input starts, a greater or NaN tap replaces):
 * kernels 1-5 (rectangular too), strides 1-2 (3 must be refused), padding
 * up to half the kernel, row dilation, widths 1-80 (all vector tails and
 * the 32-column blocks), inputs with ties, -inf and NaN; and without an
 * index output, bit for bit the same values.
 */
#include "pool-private.h"

#include <glib.h>
#include <math.h>

static GRand *rng;

/* FALSE when a window has no tap inside the input (pool.c's own loop
 * handles those; the geometry is skipped). */
static gboolean
reference (const KernelMaxPool *p, float *out, int64_t *idx)
{
  for (int64_t oh = 0; oh < p->oh; oh++)
    for (int64_t ow = 0; ow < p->ow; ow++)
      {
        int64_t h0 = oh * p->sh - p->ph, w0 = ow * p->sw - p->pw;
        float best = -INFINITY;
        int64_t best_i = -1;
        for (int64_t t = 0; t < p->kh; t++)
          for (int64_t u = 0; u < p->kw; u++)
            {
              int64_t h = h0 + t * p->dh, w = w0 + u;
              if (h < 0 || h >= p->h || w < 0 || w >= p->w)
                continue;
              float v = p->in[h * p->w + w];
              if (best_i < 0 || v > best || isnan (v))
                {
                  best = v;
                  best_i = h * p->w + w;
                }
            }
        if (best_i < 0)
          return FALSE;
        out[oh * p->ow + ow] = best;
        idx[oh * p->ow + ow] = best_i;
      }
  return TRUE;
}

static void
check (int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
       int special)
{
  int64_t oh = (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1, ow = (w + 2 * pw - kw) / sw + 1;
  if (oh < 1 || ow < 1)
    return;
  float *in = g_new (float, h *w), *out = g_new (float, oh *ow + 8), *ref = g_new (float, oh *ow);
  int64_t *idx = g_new (int64_t, oh * ow + 8), *ref_idx = g_new (int64_t, oh * ow);
  KernelMaxPool p = { in, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh };

  for (int64_t i = 0; i < h * w; i++)
    {
      /* Few distinct values: many ties. */
      in[i] = (float) g_rand_int_range (rng, -3, 4);
      if (special == 1 && g_rand_int_range (rng, 0, 9) == 0)
        in[i] = NAN;
      if (special == 2)
        in[i] = g_rand_boolean (rng) ? -INFINITY : in[i];
    }
  for (int64_t i = 0; i < oh * ow + 8; i++)
    {
      out[i] = 99.0f;
      idx[i] = -7;
    }
  bool ok = reference (&p, ref, ref_idx);
  g_assert_true (_executorch_max_pool_plane_f32 (&p, out, idx));
  for (int64_t i = 0; i < oh * ow && ok; i++)
    {
      if (!(out[i] == ref[i] || (isnan (out[i]) && isnan (ref[i]))) || idx[i] != ref_idx[i])
        g_error ("%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " k %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                 " s %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT " p %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                 " d %" G_GINT64_FORMAT ": out[%" G_GINT64_FORMAT "] = %g at %" G_GINT64_FORMAT
                 ", expected %g at %" G_GINT64_FORMAT,
                 h, w, kh, kw, sh, sw, ph, pw, dh, i, out[i], idx[i], ref[i], ref_idx[i]);
    }
  for (int64_t i = oh * ow; i < oh * ow + 8; i++)
    g_assert_true (out[i] == 99.0f && idx[i] == -7);
  /* Without indices (the vector loops keep none): the same bits. */
  float *values = g_new (float, oh *ow + 8);
  for (int64_t i = 0; i < oh * ow + 8; i++)
    values[i] = 99.0f;
  g_assert_true (_executorch_max_pool_plane_f32 (&p, values, NULL));
  g_assert_cmpmem (values, (gsize) (oh * ow + 8) * sizeof (float), out, (gsize) (oh * ow + 8) * sizeof (float));
  g_free (values);
  g_free (in);
  g_free (out);
  g_free (ref);
  g_free (idx);
  g_free (ref_idx);
}

static void
test_square (void)
{
  for (int64_t w = 1; w <= 80; w++)
    for (int64_t k = 1; k <= 3; k++)
      for (int64_t s = 1; s <= 2; s++)
        for (int64_t pad = 0; pad <= k / 2; pad++)
          for (int special = 0; special < 3; special++)
            check (1 + w % 9, w, k, k, s, s, pad, pad, 1, special);
}

static void
test_random (void)
{
  for (int i = 0; i < 600; i++)
    {
      int64_t kh = g_rand_int_range (rng, 1, 6), kw = g_rand_int_range (rng, 1, 6);
      check (g_rand_int_range (rng, 1, 30), g_rand_int_range (rng, 1, 90), kh, kw, g_rand_int_range (rng, 1, 4),
             g_rand_int_range (rng, 1, 3), g_rand_int_range (rng, 0, kh / 2 + 1), g_rand_int_range (rng, 0, kw / 2 + 1),
             g_rand_int_range (rng, 1, 3), g_rand_int_range (rng, 0, 3));
    }
}

static void
test_refuses_stride_3 (void)
{
  float in[16] = { 0 }, out[4];
  int64_t idx[4];
  KernelMaxPool p = { in, 4, 4, 2, 2, 2, 2, 1, 3, 0, 0, 1 };

  g_assert_false (_executorch_max_pool_plane_f32 (&p, out, idx));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (7);
  g_test_add_func ("/max-pool-fast/square", test_square);
  g_test_add_func ("/max-pool-fast/random", test_random);
  g_test_add_func ("/max-pool-fast/refuses-stride-3", test_refuses_stride_3);
  int status = g_test_run ();
  g_rand_free (rng);
  return status;
}
