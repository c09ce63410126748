/* test-mask-kernels.c: the dense paths of the attention mask's operators
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An SDPA exported without a fused kernel keeps a "row fully masked"
 * select after its softmax: eq.Scalar (float -> Bool), logical_not, any
 * over the last dim, where with a condition of one value a row.  Each has
 * a path for dense operands that works on the bytes; these tests hold it
 * to the operators' definitions, on the values where a shortcut could go
 * wrong (NaN, infinities, -0.0, Bool bytes other than 0 and 1, a result
 * written over an input), and check that another layout still gives the
 * same answer through the general path.
 */
#include "kernel-test-util.h"

#include <math.h>
#include <string.h>

#define N 37 /* odd: the vector loops' tails run too */

static const float specials[] = { 0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 3.5f, -2.25f, 1e-38f };

static float
value_at (int i)
{
  return specials[i % G_N_ELEMENTS (specials)] * (i % 3 == 2 ? 2.0f : 1.0f);
}

static void
test_compare_scalar (void)
{
  static const struct
  {
    const char *name;
    double s;
  } cases[] = {
    { "aten::eq.Scalar_out", -INFINITY }, { "aten::eq.Scalar_out", 0.0 },  { "aten::ne.Scalar_out", 1.0 },
    { "aten::lt.Scalar_out", 0.0 },       { "aten::le.Scalar_out", -0.0 }, { "aten::gt.Scalar_out", -1.0 },
    { "aten::ge.Scalar_out", INFINITY },
  };
  float x[N];
  uint8_t o[N];
  int64_t sizes[1] = { N };

  for (int i = 0; i < N; i++)
    x[i] = value_at (i);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      Tensor a, out;
      tensor_init (&a, ET_SCALAR_FLOAT, 1, sizes, x);
      tensor_init (&out, ET_SCALAR_BOOL, 1, sizes, o);
      EtValue s = double_value (cases[c].s), ret = none_value ();
      memset (o, 0xaa, sizeof o);
      g_assert_cmpint (CALL (cases[c].name, &a.v, &s, &out.v, &ret), ==, ET_OK);
      float sf = (float) cases[c].s;
      for (int i = 0; i < N; i++)
        {
          bool want = strstr (cases[c].name, "eq.")   ? x[i] == sf
                      : strstr (cases[c].name, "ne.") ? x[i] != sf
                      : strstr (cases[c].name, "lt.") ? x[i] < sf
                      : strstr (cases[c].name, "le.") ? x[i] <= sf
                      : strstr (cases[c].name, "gt.") ? x[i] > sf
                                                      : x[i] >= sf;
          g_assert_cmpuint (o[i], ==, want);
        }
    }
}

static void
test_compare_tensor (void)
{
  float x[N], y[N];
  uint8_t o[N];
  int64_t sizes[1] = { N };

  for (int i = 0; i < N; i++)
    x[i] = value_at (i), y[i] = value_at (i * 7 + 3);
  Tensor a, b, out;
  tensor_init (&a, ET_SCALAR_FLOAT, 1, sizes, x);
  tensor_init (&b, ET_SCALAR_FLOAT, 1, sizes, y);
  tensor_init (&out, ET_SCALAR_BOOL, 1, sizes, o);
  EtValue ret = none_value ();
  g_assert_cmpint (CALL ("aten::lt.Tensor_out", &a.v, &b.v, &out.v, &ret), ==, ET_OK);
  for (int i = 0; i < N; i++)
    g_assert_cmpuint (o[i], ==, x[i] < y[i]);
}

static void
test_logical_not (void)
{
  uint8_t x[N], o[N];
  int64_t sizes[1] = { N };

  for (int i = 0; i < N; i++)
    x[i] = (uint8_t) (i % 4 == 0 ? 0 : i % 4 == 1 ? 1 : i % 4 == 2 ? 2 : 255);
  Tensor a, out;
  tensor_init (&a, ET_SCALAR_BOOL, 1, sizes, x);
  tensor_init (&out, ET_SCALAR_BOOL, 1, sizes, o);
  EtValue ret = none_value ();
  g_assert_cmpint (CALL ("aten::logical_not.out", &a.v, &out.v, &ret), ==, ET_OK);
  for (int i = 0; i < N; i++)
    g_assert_cmpuint (o[i], ==, x[i] == 0);
  /* in place */
  g_assert_cmpint (CALL ("aten::logical_not.out", &a.v, &a.v, &ret), ==, ET_OK);
  for (int i = 0; i < N; i++)
    g_assert_cmpuint (x[i], ==, o[i]);
}

/* any over the last dim of [3, 5, N] (dense path) and over the middle one
 * (the general path), each against a loop over the definition. */
static void
test_any (void)
{
  enum
  {
    A = 3,
    B = 5
  };
  static uint8_t x[A * B * N];
  uint8_t last[A * B], middle[A * N];
  int64_t sizes[3] = { A, B, N }, last_sizes[3] = { A, B, 1 }, middle_sizes[3] = { A, 1, N };

  for (int i = 0; i < A * B * N; i++)
    x[i] = (uint8_t) (g_test_rand_int_range (0, 9) == 0 ? g_test_rand_int_range (1, 256) : 0);
  memset (x + N, 0, N); /* a line of only zeros */
  Tensor self, out;
  tensor_init (&self, ET_SCALAR_BOOL, 3, sizes, x);
  for (int dim = 1; dim <= 2; dim++)
    {
      bool over_last = dim == 2;
      tensor_init (&out, ET_SCALAR_BOOL, 3, over_last ? last_sizes : middle_sizes, over_last ? last : middle);
      EtValue d = int_value (dim), keep = bool_value (true), ret = none_value ();
      g_assert_cmpint (CALL ("aten::any.out", &self.v, &d, &keep, &out.v, &ret), ==, ET_OK);
      for (int i = 0; i < A; i++)
        for (int j = 0; j < (over_last ? B : N); j++)
          {
            bool want = false;
            for (int r = 0; r < (over_last ? N : B); r++)
              want |= x[over_last ? (i * B + j) * N + r : (i * B + r) * N + j] != 0;
            g_assert_cmpuint (over_last ? last[i * B + j] : middle[i * N + j], ==, want);
          }
    }
  g_assert_cmpuint (last[1], ==, 0);
}

/* where over [2, 3, N] with a condition of the same shape, of one value a
 * row, and (general path) of a broadcast middle dim; out over self too. */
static void
test_where (void)
{
  enum
  {
    A = 2,
    B = 3
  };
  float x[A * B * N], y[A * B * N], o[A * B * N], want[A * B * N];
  uint8_t cond[A * B * N];
  int64_t sizes[3] = { A, B, N };
  static const int64_t cond_sizes[3][3] = { { A, B, N }, { A, B, 1 }, { A, 1, N } };

  for (int i = 0; i < A * B * N; i++)
    x[i] = value_at (i), y[i] = (float) i;
  for (guint shape = 0; shape < 3; shape++)
    for (int in_place = 0; in_place < 2; in_place++)
      {
        int64_t cond_n = cond_sizes[shape][0] * cond_sizes[shape][1] * cond_sizes[shape][2];
        for (int64_t i = 0; i < cond_n; i++)
          cond[i] = (uint8_t) (i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : 7);
        for (int i = 0; i < A; i++)
          for (int j = 0; j < B; j++)
            for (int l = 0; l < N; l++)
              {
                int64_t ci = (i * cond_sizes[shape][1] + (cond_sizes[shape][1] == 1 ? 0 : j)) * cond_sizes[shape][2] +
                             (cond_sizes[shape][2] == 1 ? 0 : l);
                int flat = (i * B + j) * N + l;
                want[flat] = cond[ci] != 0 ? x[flat] : y[flat];
              }
        float self[A * B * N];
        memcpy (self, x, sizeof self);
        Tensor c, a, b, out;
        tensor_init (&c, ET_SCALAR_BOOL, 3, cond_sizes[shape], cond);
        tensor_init (&a, ET_SCALAR_FLOAT, 3, sizes, self);
        tensor_init (&b, ET_SCALAR_FLOAT, 3, sizes, y);
        tensor_init (&out, ET_SCALAR_FLOAT, 3, sizes, in_place ? self : o);
        EtValue ret = none_value ();
        g_assert_cmpint (CALL ("aten::where.self_out", &c.v, &a.v, &b.v, &out.v, &ret), ==, ET_OK);
        const float *got = in_place ? self : o;
        for (int i = 0; i < A * B * N; i++)
          if (isnan (want[i]))
            g_assert_true (isnan (got[i]));
          else
            g_assert_cmpmem (&got[i], sizeof (float), &want[i], sizeof (float));
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  register_kernels_plugin ();
  g_test_add_func ("/mask-kernels/compare-scalar", test_compare_scalar);
  g_test_add_func ("/mask-kernels/compare-tensor", test_compare_tensor);
  g_test_add_func ("/mask-kernels/logical-not", test_logical_not);
  g_test_add_func ("/mask-kernels/any", test_any);
  g_test_add_func ("/mask-kernels/where", test_where);
  return g_test_run ();
}
