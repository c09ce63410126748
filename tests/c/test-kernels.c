/* test-kernels.c: tests for the portable CPU kernel library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Registers the plug-in by hand, builds EtValue/EtTensor argument stacks the
 * way the interpreter does (schema order, materialised defaults, IntLists
 * of Int slots, out followed by the return slot) and checks results against
 * values computed here.
 */
#include "kernel-test-util.h"

#include <math.h>
#include <string.h>

static void
fill_random (float *x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    x[i] = (float) g_test_rand_double_range (-2.0, 2.0);
}

/* ---- Plug-in ---- */

static const char *const required_kernels[] = {
  "aten::add.out",
  "aten::sub.out",
  "aten::mul.out",
  "aten::div.out",
  "aten::add.Scalar_out",
  "aten::mul.Scalar_out",
  "aten::mm.out",
  "aten::addmm.out",
  "aten::bmm.out",
  "aten::relu.out",
  "aten::permute_copy.out",
  "aten::view_copy.out",
  "aten::clone.out",
  "aten::squeeze_copy.dims_out",
  "aten::unsqueeze_copy.out",
  "aten::expand_copy.out",
  "aten::cat.out",
  "aten::slice_copy.Tensor_out",
  "aten::select_copy.int_out",
  "aten::sum.IntList_out",
  "aten::mean.out",
  "aten::gt.Scalar_out",
  "aten::lt.Scalar_out",
  "aten::eq.Scalar_out",
  "aten::ge.Scalar_out",
  "aten::le.Scalar_out",
  "aten::copy_",
  "aten::copy.out",
  "aten::_softmax.out",
  "dim_order_ops::_to_dim_order_copy.out",
  "dim_order_ops::_clone_dim_order.out",
  "dim_order_ops::_empty_dim_order.out",
  "aten::sym_size.int",
  "aten::sym_numel",
  "aten::_local_scalar_dense",
  "executorch_prim::add.Scalar",
  "executorch_prim::sub.Scalar",
  "executorch_prim::mul.Scalar",
  "executorch_prim::floordiv.Scalar",
  "executorch_prim::truediv.Scalar",
  "executorch_prim::mod.Scalar",
  "executorch_prim::eq.Scalar",
  "executorch_prim::gt.Scalar",
  "executorch_prim::lt.Scalar",
  "executorch_prim::ge.Scalar",
  "executorch_prim::le.Scalar",
  "executorch_prim::neg.Scalar",
  "executorch_prim::sym_max.Scalar",
  "executorch_prim::sym_min.Scalar",
  "executorch_prim::et_copy_index.tensor",
  "executorch_prim::et_view.default",
};

static void
test_plugin_descriptor (void)
{
  const EtPluginDesc *desc = executorch_kernels_get_plugin ();

  g_assert_cmpuint (desc->abi_version, ==, ET_PLUGIN_ABI_VERSION);
  g_assert_cmpstr (desc->name, ==, "kernels");
  g_assert_cmpuint (desc->kind, ==, ET_PLUGIN_KERNELS);
  g_assert_nonnull (desc->init);
  /* A second registration is a no-op. */
  g_assert_cmpint (et_registry_add_plugin (desc, NULL), ==, ET_OK);
  for (size_t i = 0; i < G_N_ELEMENTS (required_kernels); i++)
    if (et_registry_find_kernel (et_registry_get_default (), required_kernels[i]) == NULL)
      g_error ("kernel %s is not registered", required_kernels[i]);
}

/* ---- Binary ops ---- */

static void
test_add_same_shape (void)
{
  enum
  {
    N = 1000
  };
  static float a[N], b[N], o[N];
  int64_t sizes[1] = { N };
  Tensor ta, tb, to;
  EtValue alpha = double_value (2.5);

  fill_random (a, N);
  fill_random (b, N);
  tensor_init (&ta, ET_SCALAR_FLOAT, 1, sizes, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 1, sizes, b);
  tensor_init (&to, ET_SCALAR_FLOAT, 1, sizes, o);
  EtValue *args[] = { &ta.v, &tb.v, &alpha, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", args, 5), ==, ET_OK);
  for (int i = 0; i < N; i++)
    assert_close (o[i], a[i] + 2.5 * b[i], 1e-6);

  g_assert_cmpint (call ("aten::sub.out", args, 5), ==, ET_OK);
  for (int i = 0; i < N; i++)
    assert_close (o[i], a[i] - 2.5 * b[i], 1e-6);

  EtValue *margs[] = { &ta.v, &tb.v, &to.v, &to.v };
  g_assert_cmpint (call ("aten::mul.out", margs, 4), ==, ET_OK);
  for (int i = 0; i < N; i++)
    assert_close (o[i], (double) a[i] * b[i], 1e-6);
  g_assert_cmpint (call ("aten::div.out", margs, 4), ==, ET_OK);
  for (int i = 0; i < N; i++)
    assert_close (o[i], (double) a[i] / b[i], 1e-5);
}

/* One operand [N, C, 1, 1] against [N, C, H, W] (a squeeze-excitation
 * gate): each of its elements covers a whole plane, with vector tails
 * (35 = 4 x 8 + 3), on either side. */
static void
test_binary_per_block (void)
{
  enum
  {
    N = 2,
    C = 3,
    HW = 35
  };
  static const char *ops[] = { "aten::add.out", "aten::sub.out", "aten::mul.out", "aten::div.out" };
  float a[N * C * HW], g[N * C], o[N * C * HW];
  int64_t sa[4] = { N, C, 5, 7 }, sg[4] = { N, C, 1, 1 };
  Tensor ta, tg, to;
  EtValue alpha = double_value (2.5);

  fill_random (a, N * C * HW);
  fill_random (g, N * C);
  for (int i = 0; i < N * C; i++)
    g[i] += g[i] >= 0 ? 0.5f : -0.5f; /* no division by ~0 */
  tensor_init (&ta, ET_SCALAR_FLOAT, 4, sa, a);
  tensor_init (&tg, ET_SCALAR_FLOAT, 4, sg, g);
  tensor_init (&to, ET_SCALAR_FLOAT, 4, sa, o);
  for (int gate_first = 0; gate_first < 2; gate_first++)
    for (size_t op = 0; op < G_N_ELEMENTS (ops); op++)
      {
        bool has_alpha = op < 2;
        EtValue *x = gate_first ? &tg.v : &ta.v, *y = gate_first ? &ta.v : &tg.v;
        EtValue *args[] = { x, y, &alpha, &to.v, &to.v }, *margs[] = { x, y, &to.v, &to.v };
        g_assert_cmpint (has_alpha ? call (ops[op], args, 5) : call (ops[op], margs, 4), ==, ET_OK);
        for (int i = 0; i < N * C * HW; i++)
          {
            double p = a[i], q = g[i / HW], want;
            if (gate_first)
              {
                double t = p;
                p = q;
                q = t;
              }
            switch (op)
              {
                case 0: want = p + 2.5 * q; break;
                case 1: want = p - 2.5 * q; break;
                case 2: want = p * q; break;
                default: want = p / q; break;
              }
            assert_close (o[i], want, 1e-5);
          }
      }
}

static void
test_add_broadcast (void)
{
  float a[2 * 3], b[4], o[2 * 3 * 4];
  int64_t sa[3] = { 2, 3, 1 }, sb[1] = { 4 }, so[3] = { 2, 3, 4 };
  Tensor ta, tb, to;
  EtValue alpha = int_value (1);

  fill_random (a, 6);
  fill_random (b, 4);
  tensor_init (&ta, ET_SCALAR_FLOAT, 3, sa, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 1, sb, b);
  tensor_init (&to, ET_SCALAR_FLOAT, 3, so, o);
  EtValue *args[] = { &ta.v, &tb.v, &alpha, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", args, 5), ==, ET_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 4; k++)
        assert_close (o[(i * 3 + j) * 4 + k], (double) a[i * 3 + j] + b[k], 1e-6);

  /* Broadcasting the other way round: b [4] - a [2,3,1]. */
  EtValue *rargs[] = { &tb.v, &ta.v, &alpha, &to.v, &to.v };
  g_assert_cmpint (call ("aten::sub.out", rargs, 5), ==, ET_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 4; k++)
        assert_close (o[(i * 3 + j) * 4 + k], (double) b[k] - a[i * 3 + j], 1e-6);
}

/* One operand whole in the last dim and broadcast in a middle one (RoPE's
 * [1, S, 1, D] against [1, S, H, D]), on either side, with an alpha: each
 * element is the float operation on its own two operands. */
static void
test_binary_middle_broadcast (void)
{
  enum
  {
    N = 2,
    S = 3,
    H = 4,
    D = 10
  };
  float a[N * S * H * D], r[S * D], o[N * S * H * D];
  int64_t sa[4] = { N, S, H, D }, sr[3] = { S, 1, D };
  Tensor ta, tr, to;
  EtValue one = int_value (1), three = int_value (3);

  fill_random (a, N * S * H * D);
  fill_random (r, S * D);
  tensor_init (&ta, ET_SCALAR_FLOAT, 4, sa, a);
  tensor_init (&tr, ET_SCALAR_FLOAT, 3, sr, r);
  tensor_init (&to, ET_SCALAR_FLOAT, 4, sa, o);
  EtValue *mul[] = { &ta.v, &tr.v, &to.v, &to.v };
  g_assert_cmpint (call ("aten::mul.out", mul, 4), ==, ET_OK);
  for (int i = 0; i < N * S * H * D; i++)
    g_assert_cmpfloat (o[i], ==, a[i] * r[(i / (H * D)) % S * D + i % D]);
  EtValue *sub[] = { &tr.v, &ta.v, &three, &to.v, &to.v };
  g_assert_cmpint (call ("aten::sub.out", sub, 5), ==, ET_OK);
  for (int i = 0; i < N * S * H * D; i++)
    g_assert_cmpfloat (o[i], ==, r[(i / (H * D)) % S * D + i % D] - 3.0f * a[i]);
  EtValue *add[] = { &ta.v, &tr.v, &one, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", add, 5), ==, ET_OK);
  for (int i = 0; i < N * S * H * D; i++)
    g_assert_cmpfloat (o[i], ==, a[i] + r[(i / (H * D)) % S * D + i % D]);
}

static void
test_add_mixed_dtypes (void)
{
  int32_t a[6] = { 1, -2, 3, -4, 5, 1 << 20 };
  float b[6] = { 0.5f, 0.25f, -1.0f, 2.0f, 0.0f, 3.0f };
  float o[6];
  int64_t three = 3;
  int64_t sizes[2] = { 2, 3 };
  Tensor ta, tb, to, tc;
  EtValue alpha = int_value (2);

  /* Int + Float -> Float. */
  tensor_init (&ta, ET_SCALAR_INT, 2, sizes, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 2, sizes, b);
  tensor_init (&to, ET_SCALAR_FLOAT, 2, sizes, o);
  EtValue *args[] = { &ta.v, &tb.v, &alpha, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", args, 5), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    assert_close (o[i], a[i] + 2.0 * b[i], 1e-6);

  /* Float + lifted int64 0-d constant (x + 3). */
  tensor_init (&tc, ET_SCALAR_LONG, 0, NULL, &three);
  EtValue one = int_value (1);
  EtValue *cargs[] = { &tb.v, &tc.v, &one, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", cargs, 5), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    assert_close (o[i], b[i] + 3.0, 1e-6);

  /* Int + Int may be written to Long. */
  int64_t lo[6];
  Tensor tl;
  tensor_init (&tl, ET_SCALAR_LONG, 2, sizes, lo);
  EtValue *iargs[] = { &ta.v, &ta.v, &alpha, &tl.v, &tl.v };
  g_assert_cmpint (call ("aten::add.out", iargs, 5), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    g_assert_cmpint (lo[i], ==, (int64_t) a[i] * 3);

  /* Float + Float may not be written to Int. */
  int32_t io[6];
  Tensor ti;
  tensor_init (&ti, ET_SCALAR_INT, 2, sizes, io);
  EtValue *fargs[] = { &tb.v, &tb.v, &one, &ti.v, &ti.v };
  g_assert_cmpint (call ("aten::add.out", fargs, 5), ==, ET_ERROR_INVALID_ARGUMENT);

  /* An integral alpha with a floating alpha is rejected for Int common. */
  EtValue falpha = double_value (0.5);
  EtValue *aargs[] = { &ta.v, &ta.v, &falpha, &tl.v, &tl.v };
  g_assert_cmpint (call ("aten::add.out", aargs, 5), ==, ET_ERROR_INVALID_ARGUMENT);

  /* div of two ints is true division into a float out. */
  int32_t d[6] = { 7, -7, 1, 9, 2, 3 };
  Tensor td;
  tensor_init (&td, ET_SCALAR_INT, 2, sizes, d);
  EtValue *dargs[] = { &td.v, &ta.v, &to.v, &to.v };
  g_assert_cmpint (call ("aten::div.out", dargs, 4), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    assert_close (o[i], (double) d[i] / a[i], 1e-6);
  EtValue *dbad[] = { &td.v, &ta.v, &tl.v, &tl.v };
  g_assert_cmpint (call ("aten::div.out", dbad, 4), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_add_int_wraps_and_bool (void)
{
  int8_t a[3] = { 100, -100, 5 }, o[3];
  bool p[3] = { true, false, true }, q[3] = { true, true, false }, bo[3];
  int64_t sizes[1] = { 3 };
  Tensor ta, to, tp, tq, tbo;
  EtValue one = int_value (1);

  tensor_init (&ta, ET_SCALAR_CHAR, 1, sizes, a);
  tensor_init (&to, ET_SCALAR_CHAR, 1, sizes, o);
  EtValue *args[] = { &ta.v, &ta.v, &one, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", args, 5), ==, ET_OK);
  for (int i = 0; i < 3; i++)
    g_assert_cmpint (o[i], ==, (int8_t) (uint8_t) (a[i] + a[i]));

  tensor_init (&tp, ET_SCALAR_BOOL, 1, sizes, p);
  tensor_init (&tq, ET_SCALAR_BOOL, 1, sizes, q);
  tensor_init (&tbo, ET_SCALAR_BOOL, 1, sizes, bo);
  EtValue *margs[] = { &tp.v, &tq.v, &tbo.v, &tbo.v };
  g_assert_cmpint (call ("aten::mul.out", margs, 4), ==, ET_OK);
  for (int i = 0; i < 3; i++)
    g_assert_cmpint (bo[i], ==, p[i] && q[i]);
  EtValue *sargs[] = { &tp.v, &tq.v, &one, &tbo.v, &tbo.v };
  g_assert_cmpint (call ("aten::sub.out", sargs, 5), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_add_errors (void)
{
  float a[6] = { 0 }, b[4] = { 0 }, o[6];
  int64_t sa[2] = { 2, 3 }, sb[1] = { 4 };
  Tensor ta, tb, to;
  EtValue alpha = int_value (1);
  EtValue not_a_tensor = int_value (3);

  tensor_init (&ta, ET_SCALAR_FLOAT, 2, sa, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 1, sb, b);
  tensor_init (&to, ET_SCALAR_FLOAT, 2, sa, o);

  /* Wrong argument count: the kernel must not read past the span. */
  EtValue *args[] = { &ta.v, &ta.v, &alpha, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", args, 4), ==, ET_ERROR_INVALID_PROGRAM);
  g_assert_cmpint (call ("aten::add.out", args, 0), ==, ET_ERROR_INVALID_PROGRAM);
  g_assert_cmpint (call ("aten::mm.out", args, 3), ==, ET_ERROR_INVALID_PROGRAM);
  g_assert_cmpint (call ("aten::relu.out", args, 5), ==, ET_ERROR_INVALID_PROGRAM);
  g_assert_cmpint (call ("executorch_prim::add.Scalar", args, 1), ==, ET_ERROR_INVALID_PROGRAM);

  /* Wrong tag. */
  EtValue *targs[] = { &ta.v, &not_a_tensor, &alpha, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", targs, 5), ==, ET_ERROR_INVALID_PROGRAM);

  /* Shapes that do not broadcast. */
  EtValue *sargs[] = { &ta.v, &tb.v, &alpha, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", sargs, 5), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "broadcast"));

  /* A static out of the wrong shape cannot be resized. */
  Tensor small;
  int64_t s1[2] = { 1, 3 };
  tensor_init (&small, ET_SCALAR_FLOAT, 2, s1, o);
  EtValue *rargs[] = { &ta.v, &ta.v, &alpha, &small.v, &small.v };
  g_assert_cmpint (call ("aten::add.out", rargs, 5), !=, ET_OK);

  /* Inconsistent tensor metadata is refused, not trusted. */
  Tensor bad;
  tensor_init (&bad, ET_SCALAR_FLOAT, 2, sa, a);
  bad.t.strides[0] = 100;
  EtValue *bargs[] = { &bad.v, &ta.v, &alpha, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", bargs, 5), ==, ET_ERROR_INVALID_ARGUMENT);
  tensor_init (&bad, ET_SCALAR_FLOAT, 2, sa, NULL);
  g_assert_cmpint (call ("aten::add.out", bargs, 5), !=, ET_OK);

  /* An unsupported dtype is an error, not a fallthrough. */
  tensor_init (&bad, ET_SCALAR_COMPLEX_FLOAT, 2, sa, a);
  g_assert_cmpint (call ("aten::add.out", bargs, 5), !=, ET_OK);
}

static void
test_binary_channels_last (void)
{
  /* a is [1,3,2,2] channels-last, b contiguous; out contiguous. */
  int64_t sizes[4] = { 1, 3, 2, 2 };
  uint8_t cl[4] = { 0, 2, 3, 1 };
  float a[12], b[12], o[12];
  Tensor ta, tb, to;
  EtValue one = int_value (1);

  fill_random (a, 12);
  fill_random (b, 12);
  tensor_init_full (&ta, ET_SCALAR_FLOAT, 4, sizes, cl, a, ET_SHAPE_STATIC, 0);
  tensor_init (&tb, ET_SCALAR_FLOAT, 4, sizes, b);
  tensor_init (&to, ET_SCALAR_FLOAT, 4, sizes, o);
  EtValue *args[] = { &ta.v, &tb.v, &one, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", args, 5), ==, ET_OK);
  for (int c = 0; c < 3; c++)
    for (int h = 0; h < 2; h++)
      for (int w = 0; w < 2; w++)
        {
          float av = a[(h * 2 + w) * 3 + c]; /* NHWC storage */
          float bv = b[(c * 2 + h) * 2 + w];
          assert_close (o[(c * 2 + h) * 2 + w], (double) av + bv, 1e-6);
        }
}

static void
test_scalar_ops (void)
{
  float a[5] = { -1.5f, 0.0f, 0.5f, 2.0f, 3.25f }, o[5];
  bool bo[5];
  int64_t sizes[1] = { 5 };
  Tensor ta, to, tbo;

  tensor_init (&ta, ET_SCALAR_FLOAT, 1, sizes, a);
  tensor_init (&to, ET_SCALAR_FLOAT, 1, sizes, o);
  tensor_init (&tbo, ET_SCALAR_BOOL, 1, sizes, bo);

  EtValue s = double_value (0.125), alpha = int_value (3);
  EtValue *add_args[] = { &ta.v, &s, &alpha, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.Scalar_out", add_args, 5), ==, ET_OK);
  for (int i = 0; i < 5; i++)
    assert_close (o[i], a[i] + 3 * 0.125, 1e-6);

  EtValue m = int_value (-4);
  EtValue *mul_args[] = { &ta.v, &m, &to.v, &to.v };
  g_assert_cmpint (call ("aten::mul.Scalar_out", mul_args, 4), ==, ET_OK);
  for (int i = 0; i < 5; i++)
    assert_close (o[i], a[i] * -4.0, 1e-6);

  /* Scalar ops need out == promoted dtype exactly. */
  EtValue *bad_args[] = { &ta.v, &m, &tbo.v, &tbo.v };
  g_assert_cmpint (call ("aten::mul.Scalar_out", bad_args, 4), ==, ET_ERROR_INVALID_ARGUMENT);

  /* Int tensor * Double scalar -> Float. */
  int32_t ia[5] = { 1, 2, 3, 4, 5 };
  Tensor tia;
  tensor_init (&tia, ET_SCALAR_INT, 1, sizes, ia);
  EtValue h = double_value (0.5);
  EtValue *ih_args[] = { &tia.v, &h, &to.v, &to.v };
  g_assert_cmpint (call ("aten::mul.Scalar_out", ih_args, 4), ==, ET_OK);
  for (int i = 0; i < 5; i++)
    assert_close (o[i], ia[i] * 0.5, 0);

  /* Comparisons with a scalar into Bool. */
  static const struct
  {
    const char *name;
    int which;
  } cmps[] = {
    { "aten::gt.Scalar_out", 0 }, { "aten::lt.Scalar_out", 1 }, { "aten::eq.Scalar_out", 2 },
    { "aten::ge.Scalar_out", 3 }, { "aten::le.Scalar_out", 4 },
  };
  EtValue thr = double_value (0.5);
  EtValue *cmp_args[] = { &ta.v, &thr, &tbo.v, &tbo.v };
  for (size_t c = 0; c < G_N_ELEMENTS (cmps); c++)
    {
      g_assert_cmpint (call (cmps[c].name, cmp_args, 4), ==, ET_OK);
      for (int i = 0; i < 5; i++)
        {
          bool want = cmps[c].which == 0   ? a[i] > 0.5f
                      : cmps[c].which == 1 ? a[i] < 0.5f
                      : cmps[c].which == 2 ? a[i] == 0.5f
                      : cmps[c].which == 3 ? a[i] >= 0.5f
                                           : a[i] <= 0.5f;
          g_assert_cmpint (bo[i], ==, want);
        }
    }

  /* An int tensor against an int scalar out of its range still compares. */
  int8_t small[3] = { -5, 0, 127 };
  int64_t s3[1] = { 3 };
  Tensor tsm, tb3;
  bool b3[3];
  tensor_init (&tsm, ET_SCALAR_CHAR, 1, s3, small);
  tensor_init (&tb3, ET_SCALAR_BOOL, 1, s3, b3);
  EtValue big = int_value (1000);
  EtValue *big_args[] = { &tsm.v, &big, &tb3.v, &tb3.v };
  g_assert_cmpint (call ("aten::lt.Scalar_out", big_args, 4), ==, ET_OK);
  for (int i = 0; i < 3; i++)
    g_assert_true (b3[i]);
}

/* ---- Linear algebra ---- */

static void
naive_mm (int m, int k, int n, const float *a, const float *b, double *c)
{
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      {
        double s = 0;
        for (int p = 0; p < k; p++)
          s += (double) a[i * k + p] * b[p * n + j];
        c[i * n + j] = s;
      }
}

static void
test_mm (void)
{
  /* Sizes that exercise the 4-row groups, the remainder rows and k/n blocks. */
  const int m = 67, k = 300, n = 530;
  float *a = g_new (float, m *k), *b = g_new (float, k *n), *o = g_new (float, m *n);
  double *want = g_new (double, m *n);
  int64_t sa[2] = { m, k }, sb[2] = { k, n }, so[2] = { m, n };
  Tensor ta, tb, to;

  fill_random (a, (size_t) m * k);
  fill_random (b, (size_t) k * n);
  naive_mm (m, k, n, a, b, want);
  tensor_init (&ta, ET_SCALAR_FLOAT, 2, sa, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 2, sb, b);
  tensor_init (&to, ET_SCALAR_FLOAT, 2, so, o);
  EtValue *args[] = { &ta.v, &tb.v, &to.v, &to.v };
  g_assert_cmpint (call ("aten::mm.out", args, 4), ==, ET_OK);
  for (int i = 0; i < m * n; i++)
    assert_close (o[i], want[i], 1e-4);

  /* The same product with mat2 stored transposed (dim_order [1, 0]). */
  float *bt = g_new (float, k *n);
  uint8_t tr[2] = { 1, 0 };
  for (int p = 0; p < k; p++)
    for (int j = 0; j < n; j++)
      bt[j * k + p] = b[p * n + j];
  tensor_init_full (&tb, ET_SCALAR_FLOAT, 2, sb, tr, bt, ET_SHAPE_STATIC, 0);
  memset (o, 0, sizeof (float) * m * n);
  g_assert_cmpint (call ("aten::mm.out", args, 4), ==, ET_OK);
  for (int i = 0; i < m * n; i++)
    assert_close (o[i], want[i], 1e-4);

  /* Errors: inner sizes differ; dtypes differ. */
  tensor_init (&tb, ET_SCALAR_FLOAT, 2, so, b);
  g_assert_cmpint (call ("aten::mm.out", args, 4), ==, ET_ERROR_INVALID_ARGUMENT);
  tensor_init (&tb, ET_SCALAR_DOUBLE, 2, sb, b);
  g_assert_cmpint (call ("aten::mm.out", args, 4), ==, ET_ERROR_INVALID_ARGUMENT);

  g_free (a);
  g_free (b);
  g_free (bt);
  g_free (o);
  g_free (want);
}

static void
test_mm_double (void)
{
  double a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 7, 8, 9, 10, 11, 12 }, o[4];
  int64_t sa[2] = { 2, 3 }, sb[2] = { 3, 2 }, so[2] = { 2, 2 };
  Tensor ta, tb, to;

  tensor_init (&ta, ET_SCALAR_DOUBLE, 2, sa, a);
  tensor_init (&tb, ET_SCALAR_DOUBLE, 2, sb, b);
  tensor_init (&to, ET_SCALAR_DOUBLE, 2, so, o);
  EtValue *args[] = { &ta.v, &tb.v, &to.v, &to.v };
  g_assert_cmpint (call ("aten::mm.out", args, 4), ==, ET_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      {
        double s = 0;
        for (int p = 0; p < 3; p++)
          s += a[i * 3 + p] * b[p * 2 + j];
        g_assert_cmpfloat (o[i * 2 + j], ==, s);
      }
}

static void
test_addmm (void)
{
  const int m = 5, k = 9, n = 6;
  float a[5 * 9], b[9 * 6], bias[6], o[5 * 6];
  double prod[5 * 6];
  int64_t sa[2] = { m, k }, sb[2] = { k, n }, sbias[1] = { n }, so[2] = { m, n };
  Tensor ta, tb, tbias, to;
  EtValue beta = double_value (0.5), alpha = int_value (2);

  fill_random (a, sizeof a / sizeof a[0]);
  fill_random (b, sizeof b / sizeof b[0]);
  fill_random (bias, n);
  naive_mm (m, k, n, a, b, prod);
  tensor_init (&tbias, ET_SCALAR_FLOAT, 1, sbias, bias);
  tensor_init (&ta, ET_SCALAR_FLOAT, 2, sa, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 2, sb, b);
  tensor_init (&to, ET_SCALAR_FLOAT, 2, so, o);
  EtValue *args[] = { &tbias.v, &ta.v, &tb.v, &beta, &alpha, &to.v, &to.v };
  g_assert_cmpint (call ("aten::addmm.out", args, 7), ==, ET_OK);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      assert_close (o[i * n + j], 0.5 * bias[j] + 2.0 * prod[i * n + j], 1e-5);

  /* beta = 0 ignores self, even NaN. */
  float nan_bias[6];
  for (int j = 0; j < n; j++)
    nan_bias[j] = NAN;
  tensor_init (&tbias, ET_SCALAR_FLOAT, 1, sbias, nan_bias);
  EtValue zero = int_value (0), one = int_value (1);
  EtValue *zargs[] = { &tbias.v, &ta.v, &tb.v, &zero, &one, &to.v, &to.v };
  g_assert_cmpint (call ("aten::addmm.out", zargs, 7), ==, ET_OK);
  for (int i = 0; i < m * n; i++)
    assert_close (o[i], prod[i], 1e-5);

  /* self that does not broadcast to [m, n]. */
  int64_t sbad[1] = { 4 };
  tensor_init (&tbias, ET_SCALAR_FLOAT, 1, sbad, bias);
  g_assert_cmpint (call ("aten::addmm.out", args, 7), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_bmm (void)
{
  const int B = 3, m = 4, k = 5, n = 2;
  float a[3 * 4 * 5], b[3 * 5 * 2], o[3 * 4 * 2];
  double want[4 * 2];
  int64_t sa[3] = { B, m, k }, sb[3] = { B, k, n }, so[3] = { B, m, n };
  Tensor ta, tb, to;

  fill_random (a, sizeof a / sizeof a[0]);
  fill_random (b, sizeof b / sizeof b[0]);
  tensor_init (&ta, ET_SCALAR_FLOAT, 3, sa, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 3, sb, b);
  tensor_init (&to, ET_SCALAR_FLOAT, 3, so, o);
  EtValue *args[] = { &ta.v, &tb.v, &to.v, &to.v };
  g_assert_cmpint (call ("aten::bmm.out", args, 4), ==, ET_OK);
  for (int q = 0; q < B; q++)
    {
      naive_mm (m, k, n, a + q * m * k, b + q * k * n, want);
      for (int i = 0; i < m * n; i++)
        assert_close (o[q * m * n + i], want[i], 1e-5);
    }
  int64_t sbad[3] = { 2, k, n };
  tensor_init (&tb, ET_SCALAR_FLOAT, 3, sbad, b);
  g_assert_cmpint (call ("aten::bmm.out", args, 4), ==, ET_ERROR_INVALID_ARGUMENT);
}

/* ---- Unary ---- */

static void
test_relu (void)
{
  float a[6] = { -1.0f, 0.0f, 2.5f, -0.0f, NAN, -INFINITY }, o[6];
  int64_t sizes[1] = { 6 };
  Tensor ta, to;

  tensor_init (&ta, ET_SCALAR_FLOAT, 1, sizes, a);
  tensor_init (&to, ET_SCALAR_FLOAT, 1, sizes, o);
  EtValue *args[] = { &ta.v, &to.v, &to.v };
  g_assert_cmpint (call ("aten::relu.out", args, 3), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    {
      if (isnan (a[i]))
        g_assert_true (isnan (o[i]));
      else
        g_assert_cmpfloat (o[i], ==, a[i] > 0 ? a[i] : 0.0f);
    }

  int32_t ia[4] = { -3, 4, 0, -1 }, io[4];
  int64_t s4[1] = { 4 };
  tensor_init (&ta, ET_SCALAR_INT, 1, s4, ia);
  tensor_init (&to, ET_SCALAR_INT, 1, s4, io);
  g_assert_cmpint (call ("aten::relu.out", args, 3), ==, ET_OK);
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (io[i], ==, ia[i] > 0 ? ia[i] : 0);

  /* dtype mismatch. */
  tensor_init (&to, ET_SCALAR_FLOAT, 1, s4, o);
  g_assert_cmpint (call ("aten::relu.out", args, 3), ==, ET_ERROR_INVALID_ARGUMENT);
}

/* ---- Shape ops ---- */

static void
test_permute (void)
{
  int64_t sizes[3] = { 2, 3, 4 }, osz[3] = { 4, 2, 3 };
  int64_t dims[3] = { -1, 0, 1 };
  int32_t a[24], o[24];
  Tensor ta, to;
  IntList ld;

  for (int i = 0; i < 24; i++)
    a[i] = i * 7 - 30;
  tensor_init (&ta, ET_SCALAR_INT, 3, sizes, a);
  tensor_init (&to, ET_SCALAR_INT, 3, osz, o);
  int_list_init (&ld, 3, dims);
  EtValue *args[] = { &ta.v, &ld.v, &to.v, &to.v };
  g_assert_cmpint (call ("aten::permute_copy.out", args, 4), ==, ET_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 4; k++)
        g_assert_cmpint (o[(k * 2 + i) * 3 + j], ==, a[(i * 3 + j) * 4 + k]);

  /* The list is read at call time: change a slot and call again. */
  ld.slots[0].u.int_value = 2;
  g_assert_cmpint (call ("aten::permute_copy.out", args, 4), ==, ET_OK);

  int64_t dup[3] = { 0, 0, 1 };
  int_list_init (&ld, 3, dup);
  g_assert_cmpint (call ("aten::permute_copy.out", args, 4), ==, ET_ERROR_INVALID_ARGUMENT);
  int_list_init (&ld, 2, dup);
  g_assert_cmpint (call ("aten::permute_copy.out", args, 4), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_view_copy (void)
{
  int64_t sizes[2] = { 2, 6 }, osz[3] = { 3, 2, 2 };
  int64_t req[3] = { 3, -1, 2 };
  float a[12], o[12];
  Tensor ta, to;
  IntList lr;

  fill_random (a, 12);
  tensor_init (&ta, ET_SCALAR_FLOAT, 2, sizes, a);
  tensor_init (&to, ET_SCALAR_FLOAT, 3, osz, o);
  int_list_init (&lr, 3, req);
  EtValue *args[] = { &ta.v, &lr.v, &to.v, &to.v };
  g_assert_cmpint (call ("aten::view_copy.out", args, 4), ==, ET_OK);
  g_assert_cmpmem (o, sizeof o, a, sizeof a);

  int64_t two_infer[3] = { -1, -1, 2 };
  int_list_init (&lr, 3, two_infer);
  g_assert_cmpint (call ("aten::view_copy.out", args, 4), ==, ET_ERROR_INVALID_ARGUMENT);
  int64_t wrong[3] = { 3, 3, 2 };
  int_list_init (&lr, 3, wrong);
  g_assert_cmpint (call ("aten::view_copy.out", args, 4), ==, ET_ERROR_INVALID_ARGUMENT);

  /* A channels-last source is read in logical order. */
  int64_t s4[4] = { 1, 2, 2, 3 };
  uint8_t cl[4] = { 0, 2, 3, 1 };
  int64_t flat[2] = { 1, 12 };
  Tensor tc, tf;
  float f[12];
  tensor_init_full (&tc, ET_SCALAR_FLOAT, 4, s4, cl, a, ET_SHAPE_STATIC, 0);
  tensor_init (&tf, ET_SCALAR_FLOAT, 2, flat, f);
  int_list_init (&lr, 2, flat);
  EtValue *cargs[] = { &tc.v, &lr.v, &tf.v, &tf.v };
  g_assert_cmpint (call ("aten::view_copy.out", cargs, 4), ==, ET_OK);
  for (int c = 0; c < 2; c++)
    for (int h = 0; h < 2; h++)
      for (int w = 0; w < 3; w++)
        g_assert_cmpfloat (f[(c * 2 + h) * 3 + w], ==, a[(h * 3 + w) * 2 + c]);
}

static void
test_squeeze_unsqueeze_clone (void)
{
  int64_t sizes[4] = { 1, 3, 1, 2 }, sq[3] = { 3, 1, 2 }, un[5] = { 1, 3, 1, 2, 1 };
  float a[6], o[6];
  Tensor ta, to;
  IntList ld;
  EtValue dim;

  fill_random (a, 6);
  tensor_init (&ta, ET_SCALAR_FLOAT, 4, sizes, a);
  /* dims (0, 1): dim 1 has size 3 and stays. */
  int64_t dims[2] = { 0, 1 };
  int_list_init (&ld, 2, dims);
  tensor_init (&to, ET_SCALAR_FLOAT, 3, sq, o);
  EtValue *args[] = { &ta.v, &ld.v, &to.v, &to.v };
  g_assert_cmpint (call ("aten::squeeze_copy.dims_out", args, 4), ==, ET_OK);
  g_assert_cmpmem (o, sizeof o, a, sizeof a);
  g_assert_cmpint (to.t.sizes[0], ==, 3);

  dim = int_value (-1);
  tensor_init (&to, ET_SCALAR_FLOAT, 5, un, o);
  EtValue *uargs[] = { &ta.v, &dim, &to.v, &to.v };
  g_assert_cmpint (call ("aten::unsqueeze_copy.out", uargs, 4), ==, ET_OK);
  g_assert_cmpmem (o, sizeof o, a, sizeof a);
  dim = int_value (6);
  g_assert_cmpint (call ("aten::unsqueeze_copy.out", uargs, 4), ==, ET_ERROR_INVALID_ARGUMENT);

  EtValue none = none_value ();
  memset (o, 0, sizeof o);
  tensor_init (&to, ET_SCALAR_FLOAT, 4, sizes, o);
  EtValue *cargs[] = { &ta.v, &none, &to.v, &to.v };
  g_assert_cmpint (call ("aten::clone.out", cargs, 4), ==, ET_OK);
  g_assert_cmpmem (o, sizeof o, a, sizeof a);
}

static void
test_expand (void)
{
  int64_t sizes[2] = { 3, 1 }, osz[3] = { 2, 3, 4 }, req[3] = { 2, -1, 4 };
  int64_t a[3] = { 10, -20, 30 }, o[24];
  Tensor ta, to;
  IntList lr;
  EtValue implicit = bool_value (false);

  tensor_init (&ta, ET_SCALAR_LONG, 2, sizes, a);
  tensor_init (&to, ET_SCALAR_LONG, 3, osz, o);
  int_list_init (&lr, 3, req);
  EtValue *args[] = { &ta.v, &lr.v, &implicit, &to.v, &to.v };
  g_assert_cmpint (call ("aten::expand_copy.out", args, 5), ==, ET_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 4; k++)
        g_assert_cmpint (o[(i * 3 + j) * 4 + k], ==, a[j]);
  int64_t bad[3] = { 2, 5, 4 };
  int_list_init (&lr, 3, bad);
  g_assert_cmpint (call ("aten::expand_copy.out", args, 5), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_cat (void)
{
  int64_t sa[2] = { 2, 2 }, sb[2] = { 2, 3 }, se[1] = { 0 }, so[2] = { 2, 5 };
  float a[4] = { 1, 2, 3, 4 }, o[10];
  int32_t b[6] = { 5, 6, 7, 8, 9, 10 };
  Tensor ta, tb, te, to;
  TensorList tl;
  EtValue dim = int_value (-1);

  tensor_init (&ta, ET_SCALAR_FLOAT, 2, sa, a);
  tensor_init (&tb, ET_SCALAR_INT, 2, sb, b);
  tensor_init (&te, ET_SCALAR_BYTE, 1, se, NULL); /* legacy empty, skipped */
  tensor_init (&to, ET_SCALAR_FLOAT, 2, so, o);
  Tensor *items[] = { &ta, &te, &tb };
  tensor_list_init (&tl, 3, items, false);
  EtValue *args[] = { &tl.v, &dim, &to.v, &to.v };
  g_assert_cmpint (call ("aten::cat.out", args, 4), ==, ET_OK);
  for (int i = 0; i < 2; i++)
    {
      for (int j = 0; j < 2; j++)
        g_assert_cmpfloat (o[i * 5 + j], ==, a[i * 2 + j]);
      for (int j = 0; j < 3; j++)
        g_assert_cmpfloat (o[i * 5 + 2 + j], ==, (float) b[i * 3 + j]);
    }

  /* Mismatched sizes outside the cat dim. */
  dim = int_value (0);
  g_assert_cmpint (call ("aten::cat.out", args, 4), ==, ET_ERROR_INVALID_ARGUMENT);
}

/* Dense inputs of out's dtype take one parallel pass of copies: runs of
 * each input alternate with the dims before the cat dim (2 here), and the
 * output is large enough to be cut across the pool. */
static void
test_cat_dense (void)
{
  int64_t c[3] = { 100, 37, 91 }, so[3] = { 2, 228, 512 }, inner = 512;
  float *in[3], *o = g_new (float, 2 * 228 * 512 + 8);
  Tensor t[3], to;
  TensorList tl;
  EtValue dim = int_value (1);

  for (int i = 0; i < 3; i++)
    {
      int64_t sizes[3] = { 2, c[i], inner };
      in[i] = g_new (float, 2 * c[i] * inner);
      for (int64_t j = 0; j < 2 * c[i] * inner; j++)
        in[i][j] = (float) (i * 1000000 + j);
      tensor_init (&t[i], ET_SCALAR_FLOAT, 3, sizes, in[i]);
    }
  for (int j = 0; j < 8; j++)
    o[2 * 228 * 512 + j] = -1.0f;
  tensor_init (&to, ET_SCALAR_FLOAT, 3, so, o);
  Tensor *items[] = { &t[0], &t[1], &t[2] };
  tensor_list_init (&tl, 3, items, false);
  EtValue *args[] = { &tl.v, &dim, &to.v, &to.v };
  g_assert_cmpint (call ("aten::cat.out", args, 4), ==, ET_OK);
  for (int64_t b = 0; b < 2; b++)
    for (int64_t ch = 0, i = 0, first = 0; ch < 228; ch++)
      {
        if (ch - first >= c[i])
          first += c[i++];
        for (int64_t k = 0; k < inner; k++)
          g_assert_cmpfloat (o[(b * 228 + ch) * inner + k], ==, in[i][(b * c[i] + ch - first) * inner + k]);
      }
  for (int j = 0; j < 8; j++)
    g_assert_cmpfloat (o[2 * 228 * 512 + j], ==, -1.0f);
  for (int i = 0; i < 3; i++)
    g_free (in[i]);
  g_free (o);
}

static void
test_slice_select (void)
{
  int64_t sizes[2] = { 3, 7 }, osz[2] = { 3, 3 }, ssz[1] = { 7 };
  int16_t a[21], o[21];
  Tensor ta, to;
  EtValue dim = int_value (1), start = int_value (-6), end = int_value (100), step = int_value (2);

  for (int i = 0; i < 21; i++)
    a[i] = (int16_t) (i * 3 - 11);
  tensor_init (&ta, ET_SCALAR_SHORT, 2, sizes, a);
  tensor_init (&to, ET_SCALAR_SHORT, 2, osz, o);
  EtValue *args[] = { &ta.v, &dim, &start, &end, &step, &to.v, &to.v };
  g_assert_cmpint (call ("aten::slice_copy.Tensor_out", args, 7), ==, ET_OK);
  /* Python: range(7)[-6:100:2] = 1, 3, 5 */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpint (o[i * 3 + j], ==, a[i * 7 + 1 + 2 * j]);
  /* A huge step takes one element and must not overflow (test-mutations). */
  {
    int64_t one[2] = { 3, 1 };
    step = int_value (G_MAXINT64);
    tensor_init (&to, ET_SCALAR_SHORT, 2, one, o);
    g_assert_cmpint (call ("aten::slice_copy.Tensor_out", args, 7), ==, ET_OK);
    for (int i = 0; i < 3; i++)
      g_assert_cmpint (o[i], ==, a[i * 7 + 1]);
  }
  step = int_value (0);
  g_assert_cmpint (call ("aten::slice_copy.Tensor_out", args, 7), ==, ET_ERROR_INVALID_ARGUMENT);

  EtValue d0 = int_value (0), idx = int_value (-1);
  tensor_init (&to, ET_SCALAR_SHORT, 1, ssz, o);
  EtValue *sargs[] = { &ta.v, &d0, &idx, &to.v, &to.v };
  g_assert_cmpint (call ("aten::select_copy.int_out", sargs, 5), ==, ET_OK);
  for (int j = 0; j < 7; j++)
    g_assert_cmpint (o[j], ==, a[2 * 7 + j]);
  idx = int_value (3);
  g_assert_cmpint (call ("aten::select_copy.int_out", sargs, 5), ==, ET_ERROR_INVALID_ARGUMENT);
}

/* ---- Reductions ---- */

static void
test_sum_mean (void)
{
  int64_t sizes[3] = { 2, 3, 4 }, ksz[3] = { 2, 1, 4 }, all[1] = { 1 };
  float a[24], o[8];
  Tensor ta, to;
  IntList ld;
  EtValue keep = bool_value (true), none = none_value ();

  fill_random (a, 24);
  tensor_init (&ta, ET_SCALAR_FLOAT, 3, sizes, a);
  tensor_init (&to, ET_SCALAR_FLOAT, 3, ksz, o);
  int64_t dims[1] = { -2 };
  int_list_init (&ld, 1, dims);
  EtValue *args[] = { &ta.v, &ld.v, &keep, &none, &to.v, &to.v };
  g_assert_cmpint (call ("aten::sum.IntList_out", args, 6), ==, ET_OK);
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 4; k++)
      {
        double s = 0;
        for (int j = 0; j < 3; j++)
          s += a[(i * 3 + j) * 4 + k];
        assert_close (o[i * 4 + k], s, 1e-6);
      }
  g_assert_cmpint (call ("aten::mean.out", args, 6), ==, ET_OK);
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 4; k++)
      {
        double s = 0;
        for (int j = 0; j < 3; j++)
          s += a[(i * 3 + j) * 4 + k];
        assert_close (o[i * 4 + k], s / 3, 1e-6);
      }

  /* dim=None reduces everything; keepdim=False gives a 0-d result. */
  Tensor t0;
  float total;
  EtValue nokeep = bool_value (false);
  tensor_init (&t0, ET_SCALAR_FLOAT, 0, NULL, &total);
  EtValue *nargs[] = { &ta.v, &none, &nokeep, &none, &t0.v, &t0.v };
  g_assert_cmpint (call ("aten::sum.IntList_out", nargs, 6), ==, ET_OK);
  double s = 0;
  for (int i = 0; i < 24; i++)
    s += a[i];
  assert_close (total, s, 1e-6);

  /* Int input summed into Long. */
  int32_t ia[6] = { 1, -2, 3, 1000000, 5, 6 };
  int64_t is[1] = { 6 }, lsum;
  Tensor tia, tl;
  tensor_init (&tia, ET_SCALAR_INT, 1, is, ia);
  tensor_init (&tl, ET_SCALAR_LONG, 1, all, &lsum);
  EtValue *iargs[] = { &tia.v, &none, &keep, &none, &tl.v, &tl.v };
  g_assert_cmpint (call ("aten::sum.IntList_out", iargs, 6), ==, ET_OK);
  g_assert_cmpint (lsum, ==, 1 - 2 + 3 + 1000000 + 5 + 6);
  /* mean of ints without a dtype is refused. */
  g_assert_cmpint (call ("aten::mean.out", iargs, 6), ==, ET_ERROR_INVALID_ARGUMENT);

  /* A channels-last input reduced over H and W. */
  int64_t s4[4] = { 1, 3, 2, 2 }, o4[4] = { 1, 3, 1, 1 };
  uint8_t cl[4] = { 0, 2, 3, 1 };
  float c[12], m[3];
  Tensor tc, tm;
  int64_t hw[2] = { 2, 3 };
  fill_random (c, 12);
  tensor_init_full (&tc, ET_SCALAR_FLOAT, 4, s4, cl, c, ET_SHAPE_STATIC, 0);
  tensor_init (&tm, ET_SCALAR_FLOAT, 4, o4, m);
  int_list_init (&ld, 2, hw);
  EtValue *cargs[] = { &tc.v, &ld.v, &keep, &none, &tm.v, &tm.v };
  g_assert_cmpint (call ("aten::mean.out", cargs, 6), ==, ET_OK);
  for (int ch = 0; ch < 3; ch++)
    {
      double t = 0;
      for (int p = 0; p < 4; p++)
        t += c[p * 3 + ch];
      assert_close (m[ch], t / 4, 1e-6);
    }
}

static void
test_softmax (void)
{
  int64_t sizes[2] = { 3, 5 };
  float a[15], o[15];
  Tensor ta, to;
  EtValue dim = int_value (1), h2f = bool_value (false);

  fill_random (a, 15);
  a[7] = 40.0f; /* large values must not overflow */
  tensor_init (&ta, ET_SCALAR_FLOAT, 2, sizes, a);
  tensor_init (&to, ET_SCALAR_FLOAT, 2, sizes, o);
  EtValue *args[] = { &ta.v, &dim, &h2f, &to.v, &to.v };
  g_assert_cmpint (call ("aten::_softmax.out", args, 5), ==, ET_OK);
  for (int i = 0; i < 3; i++)
    {
      double mx = -INFINITY, s = 0;
      for (int j = 0; j < 5; j++)
        mx = fmax (mx, a[i * 5 + j]);
      for (int j = 0; j < 5; j++)
        s += exp (a[i * 5 + j] - mx);
      for (int j = 0; j < 5; j++)
        assert_close (o[i * 5 + j], exp (a[i * 5 + j] - mx) / s, 1e-6);
    }

  /* Along dim 0 too. */
  dim = int_value (0);
  g_assert_cmpint (call ("aten::_softmax.out", args, 5), ==, ET_OK);
  for (int j = 0; j < 5; j++)
    {
      double s = 0;
      for (int i = 0; i < 3; i++)
        s += o[i * 5 + j];
      assert_close (s, 1.0, 1e-6);
    }

  h2f = bool_value (true);
  g_assert_cmpint (call ("aten::_softmax.out", args, 5), ==, ET_ERROR_INVALID_ARGUMENT);
}

/* ---- Copies and dim order ---- */

static void
test_copy (void)
{
  int64_t sizes[2] = { 2, 3 }, ssz[1] = { 3 };
  float self[6] = { 0 }, o[6];
  int64_t src[3] = { 4, -5, 6 };
  Tensor ts, tsrc, to;
  EtValue nb = bool_value (false);

  tensor_init (&ts, ET_SCALAR_FLOAT, 2, sizes, self);
  tensor_init (&tsrc, ET_SCALAR_LONG, 1, ssz, src);
  EtValue *args[] = { &ts.v, &tsrc.v, &nb, &ts.v };
  g_assert_cmpint (call ("aten::copy_", args, 4), ==, ET_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpfloat (self[i * 3 + j], ==, (float) src[j]);

  tensor_init (&to, ET_SCALAR_FLOAT, 2, sizes, o);
  EtValue *oargs[] = { &ts.v, &tsrc.v, &nb, &to.v, &to.v };
  g_assert_cmpint (call ("aten::copy.out", oargs, 5), ==, ET_OK);
  g_assert_cmpmem (o, sizeof o, self, sizeof self);

  /* src that does not broadcast to self. */
  int64_t bad[1] = { 2 };
  tensor_init (&tsrc, ET_SCALAR_LONG, 1, bad, src);
  g_assert_cmpint (call ("aten::copy_", args, 4), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_dim_order_channels_last (void)
{
  /* NCHW [2,3,4,5] stored channels-last, converted to contiguous Double. */
  int64_t sizes[4] = { 2, 3, 4, 5 };
  uint8_t cl[4] = { 0, 2, 3, 1 };
  float in[120];
  double out[120];
  Tensor ti, to;
  EtValue nb = bool_value (false), none = none_value ();
  IntList ld;

  fill_random (in, 120);
  tensor_init_full (&ti, ET_SCALAR_FLOAT, 4, sizes, cl, in, ET_SHAPE_STATIC, 0);
  tensor_init (&to, ET_SCALAR_DOUBLE, 4, sizes, out);
  int64_t contiguous[4] = { 0, 1, 2, 3 };
  int_list_init (&ld, 4, contiguous);
  EtValue *args[] = { &ti.v, &nb, &ld.v, &to.v, &to.v };
  g_assert_cmpint (call ("dim_order_ops::_to_dim_order_copy.out", args, 5), ==, ET_OK);
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 3; c++)
      for (int h = 0; h < 4; h++)
        for (int w = 0; w < 5; w++)
          {
            float want = in[((n * 4 + h) * 5 + w) * 3 + c];
            g_assert_cmpfloat (out[((n * 3 + c) * 4 + h) * 5 + w], ==, (double) want);
          }

  /* And back: contiguous Double -> channels-last Float via _clone_dim_order
   * needs equal dtypes, so use _to_dim_order_copy with dim_order=None. */
  float back[120];
  Tensor tb;
  tensor_init_full (&tb, ET_SCALAR_FLOAT, 4, sizes, cl, back, ET_SHAPE_STATIC, 0);
  EtValue *bargs[] = { &to.v, &nb, &none, &tb.v, &tb.v };
  g_assert_cmpint (call ("dim_order_ops::_to_dim_order_copy.out", bargs, 5), ==, ET_OK);
  g_assert_cmpmem (back, sizeof back, in, sizeof in);

  /* _clone_dim_order channels-last -> contiguous, same dtype. */
  float flat[120];
  Tensor tf;
  tensor_init (&tf, ET_SCALAR_FLOAT, 4, sizes, flat);
  EtValue *cargs[] = { &ti.v, &nb, &ld.v, &tf.v, &tf.v };
  g_assert_cmpint (call ("dim_order_ops::_clone_dim_order.out", cargs, 5), ==, ET_OK);
  for (int i = 0; i < 120; i++)
    g_assert_cmpfloat (flat[i], ==, (float) out[i]);
  /* ... which refuses a dtype change. */
  EtValue *cbad[] = { &ti.v, &nb, &ld.v, &to.v, &to.v };
  g_assert_cmpint (call ("dim_order_ops::_clone_dim_order.out", cbad, 5), ==, ET_ERROR_INVALID_ARGUMENT);

  /* A dim_order argument that disagrees with out's layout. */
  int64_t cl_order[4] = { 0, 2, 3, 1 };
  int_list_init (&ld, 4, cl_order);
  g_assert_cmpint (call ("dim_order_ops::_to_dim_order_copy.out", args, 5), ==, ET_ERROR_INVALID_ARGUMENT);

  /* Float -> Int truncates toward zero; anything -> Bool is != 0. */
  float fv[4] = { -1.75f, 2.5f, 0.0f, 3.99f };
  int32_t iv[4];
  bool bv[4];
  int64_t s1[1] = { 4 };
  Tensor tfv, tiv, tbv;
  tensor_init (&tfv, ET_SCALAR_FLOAT, 1, s1, fv);
  tensor_init (&tiv, ET_SCALAR_INT, 1, s1, iv);
  tensor_init (&tbv, ET_SCALAR_BOOL, 1, s1, bv);
  EtValue *iargs[] = { &tfv.v, &nb, &none, &tiv.v, &tiv.v };
  g_assert_cmpint (call ("dim_order_ops::_to_dim_order_copy.out", iargs, 5), ==, ET_OK);
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (iv[i], ==, (int32_t) fv[i]);
  EtValue *bargs2[] = { &tfv.v, &nb, &none, &tbv.v, &tbv.v };
  g_assert_cmpint (call ("dim_order_ops::_to_dim_order_copy.out", bargs2, 5), ==, ET_OK);
  for (int i = 0; i < 4; i++)
    g_assert_cmpint (bv[i], ==, fv[i] != 0.0f);
}

static void
test_empty_dim_order (void)
{
  int64_t sizes[2] = { 4, 4 }, req[2] = { 2, 3 };
  float buf[16];
  Tensor to;
  IntList ls;
  EtValue none = none_value ();

  tensor_init_dynamic (&to, ET_SCALAR_FLOAT, 2, sizes, buf, 16);
  int_list_init (&ls, 2, req);
  EtValue *args[] = { &ls.v, &none, &to.v, &to.v };
  g_assert_cmpint (call ("dim_order_ops::_empty_dim_order.out", args, 4), ==, ET_OK);
  g_assert_cmpint (to.t.sizes[0], ==, 2);
  g_assert_cmpint (to.t.sizes[1], ==, 3);
  g_assert_cmpint (to.t.numel, ==, 6);
}

/* ---- Dynamic shapes ---- */

static void
test_resize_dynamic_out (void)
{
  int64_t sa[2] = { 2, 3 }, planned[2] = { 4, 4 };
  float a[6], b[6], o[16];
  Tensor ta, tb, to;
  EtValue one = int_value (1);

  fill_random (a, 6);
  fill_random (b, 6);
  tensor_init (&ta, ET_SCALAR_FLOAT, 2, sa, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 2, sa, b);
  tensor_init_dynamic (&to, ET_SCALAR_FLOAT, 2, planned, o, 16);
  EtValue *args[] = { &ta.v, &tb.v, &one, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", args, 5), ==, ET_OK);
  g_assert_cmpint (to.t.sizes[0], ==, 2);
  g_assert_cmpint (to.t.sizes[1], ==, 3);
  g_assert_cmpint (to.t.numel, ==, 6);
  g_assert_cmpint (to.t.strides[0], ==, 3);
  for (int i = 0; i < 6; i++)
    assert_close (o[i], (double) a[i] + b[i], 1e-6);

  /* Larger than the planned capacity: resize fails, nothing is written. */
  int64_t big[2] = { 5, 5 };
  float x[25] = { 0 };
  Tensor tx;
  tensor_init (&tx, ET_SCALAR_FLOAT, 2, big, x);
  EtValue *bargs[] = { &tx.v, &tx.v, &one, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", bargs, 5), !=, ET_OK);
}

/* ---- Prim ops ---- */

static EtValue
prim2 (const char *name, EtValue a, EtValue b, EtError expect)
{
  EtValue r = int_value (0);
  EtValue *args[] = { &a, &b, &r };
  g_assert_cmpint (call (name, args, 3), ==, expect);
  return r;
}

static void
test_prim_arithmetic (void)
{
  static const int64_t xs[] = { -7, 7, -8, 0, 13, -1 };
  static const int64_t ys[] = { 2, -2, 3, 5, -4, 1 };

  for (size_t i = 0; i < G_N_ELEMENTS (xs); i++)
    {
      int64_t x = xs[i], y = ys[i];
      /* Python floor division and modulo, from their definitions. */
      int64_t q = (int64_t) floor ((double) x / (double) y);
      int64_t m = x - q * y;
      EtValue r = prim2 ("executorch_prim::floordiv.Scalar", int_value (x), int_value (y), ET_OK);
      g_assert_cmpuint (r.tag, ==, ET_VALUE_INT);
      g_assert_cmpint (r.u.int_value, ==, q);
      r = prim2 ("executorch_prim::mod.Scalar", int_value (x), int_value (y), ET_OK);
      g_assert_cmpint (r.u.int_value, ==, m);
      g_assert_true (m == 0 || (m < 0) == (y < 0));
      r = prim2 ("executorch_prim::truediv.Scalar", int_value (x), int_value (y), ET_OK);
      g_assert_cmpuint (r.tag, ==, ET_VALUE_DOUBLE);
      g_assert_cmpfloat (r.u.double_value, ==, (double) x / (double) y);
      r = prim2 ("executorch_prim::add.Scalar", int_value (x), int_value (y), ET_OK);
      g_assert_cmpint (r.u.int_value, ==, x + y);
      r = prim2 ("executorch_prim::sub.Scalar", int_value (x), int_value (y), ET_OK);
      g_assert_cmpint (r.u.int_value, ==, x - y);
      r = prim2 ("executorch_prim::mul.Scalar", int_value (x), int_value (y), ET_OK);
      g_assert_cmpint (r.u.int_value, ==, x * y);
    }

  /* Doubles: -7.5 // 2 == -4.0, -7.5 % 2 == 0.5. */
  EtValue r = prim2 ("executorch_prim::floordiv.Scalar", double_value (-7.5), int_value (2), ET_OK);
  g_assert_cmpuint (r.tag, ==, ET_VALUE_DOUBLE);
  g_assert_cmpfloat (r.u.double_value, ==, floor (-7.5 / 2));
  r = prim2 ("executorch_prim::mod.Scalar", double_value (-7.5), int_value (2), ET_OK);
  g_assert_cmpfloat (r.u.double_value, ==, -7.5 - floor (-7.5 / 2) * 2);
  r = prim2 ("executorch_prim::add.Scalar", int_value (1), double_value (0.5), ET_OK);
  g_assert_cmpuint (r.tag, ==, ET_VALUE_DOUBLE);
  g_assert_cmpfloat (r.u.double_value, ==, 1.5);
  /* Bool acts as an Int. */
  r = prim2 ("executorch_prim::add.Scalar", bool_value (true), int_value (2), ET_OK);
  g_assert_cmpuint (r.tag, ==, ET_VALUE_INT);
  g_assert_cmpint (r.u.int_value, ==, 3);

  /* Division by zero is an error, not a crash. */
  prim2 ("executorch_prim::floordiv.Scalar", int_value (1), int_value (0), ET_ERROR_INVALID_ARGUMENT);
  prim2 ("executorch_prim::mod.Scalar", int_value (1), int_value (0), ET_ERROR_INVALID_ARGUMENT);
  prim2 ("executorch_prim::truediv.Scalar", double_value (1), double_value (0), ET_ERROR_INVALID_ARGUMENT);
  r = prim2 ("executorch_prim::floordiv.Scalar", int_value (INT64_MIN), int_value (-1), ET_OK);

  /* A tensor operand is a type error. */
  Tensor t;
  int64_t s1[1] = { 1 };
  float f = 0;
  tensor_init (&t, ET_SCALAR_FLOAT, 1, s1, &f);
  prim2 ("executorch_prim::add.Scalar", t.v, int_value (1), ET_ERROR_INVALID_TYPE);

  /* Comparisons give Bool. */
  r = prim2 ("executorch_prim::lt.Scalar", int_value (3), double_value (3.5), ET_OK);
  g_assert_cmpuint (r.tag, ==, ET_VALUE_BOOL);
  g_assert_true (r.u.bool_value);
  r = prim2 ("executorch_prim::eq.Scalar", int_value (4), int_value (4), ET_OK);
  g_assert_true (r.u.bool_value);
  r = prim2 ("executorch_prim::gt.Scalar", int_value (4), int_value (4), ET_OK);
  g_assert_false (r.u.bool_value);
  r = prim2 ("executorch_prim::ge.Scalar", int_value (4), int_value (4), ET_OK);
  g_assert_true (r.u.bool_value);
  r = prim2 ("executorch_prim::le.Scalar", double_value (5), int_value (4), ET_OK);
  g_assert_false (r.u.bool_value);

  /* sym_max / sym_min keep the winner's type. */
  r = prim2 ("executorch_prim::sym_max.Scalar", int_value (3), double_value (2.5), ET_OK);
  g_assert_cmpuint (r.tag, ==, ET_VALUE_INT);
  g_assert_cmpint (r.u.int_value, ==, 3);
  r = prim2 ("executorch_prim::sym_min.Scalar", int_value (3), int_value (-9), ET_OK);
  g_assert_cmpint (r.u.int_value, ==, -9);

  EtValue a = int_value (5), out = int_value (0);
  EtValue *nargs[] = { &a, &out };
  g_assert_cmpint (call ("executorch_prim::neg.Scalar", nargs, 2), ==, ET_OK);
  g_assert_cmpint (out.u.int_value, ==, -5);
}

static void
test_prim_tensor_queries (void)
{
  int64_t sizes[3] = { 2, 7, 3 };
  float data[42] = { 0 };
  Tensor t;
  EtValue dim = int_value (-2), out = int_value (0);

  tensor_init (&t, ET_SCALAR_FLOAT, 3, sizes, data);
  EtValue *args[] = { &t.v, &dim, &out };
  g_assert_cmpint (call ("aten::sym_size.int", args, 3), ==, ET_OK);
  g_assert_cmpint (out.u.int_value, ==, 7);
  dim = int_value (3);
  g_assert_cmpint (call ("aten::sym_size.int", args, 3), ==, ET_ERROR_INVALID_ARGUMENT);

  EtValue *nargs[] = { &t.v, &out };
  g_assert_cmpint (call ("aten::sym_numel", nargs, 2), ==, ET_OK);
  g_assert_cmpint (out.u.int_value, ==, 42);

  int64_t one[1] = { 1 }, lv = -12345;
  double dv = 2.75;
  Tensor tl, td;
  tensor_init (&tl, ET_SCALAR_LONG, 1, one, &lv);
  tensor_init (&td, ET_SCALAR_DOUBLE, 0, NULL, &dv);
  EtValue *largs[] = { &tl.v, &out };
  g_assert_cmpint (call ("aten::_local_scalar_dense", largs, 2), ==, ET_OK);
  g_assert_cmpuint (out.tag, ==, ET_VALUE_INT);
  g_assert_cmpint (out.u.int_value, ==, lv);
  EtValue *dargs[] = { &td.v, &out };
  g_assert_cmpint (call ("aten::_local_scalar_dense", dargs, 2), ==, ET_OK);
  g_assert_cmpuint (out.tag, ==, ET_VALUE_DOUBLE);
  g_assert_cmpfloat (out.u.double_value, ==, dv);
  g_assert_cmpint (call ("aten::_local_scalar_dense", nargs, 2), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_prim_et_view (void)
{
  int64_t sizes[2] = { 2, 6 }, planned[3] = { 4, 4, 4 }, req[3] = { 3, -1, 2 };
  float data[12];
  Tensor self, out;
  IntList ls;

  fill_random (data, 12);
  tensor_init (&self, ET_SCALAR_FLOAT, 2, sizes, data);
  tensor_init_dynamic (&out, ET_SCALAR_FLOAT, 3, planned, NULL, 64);
  int_list_init (&ls, 3, req);
  EtValue *args[] = { &self.v, &ls.v, &out.v };
  g_assert_cmpint (call ("executorch_prim::et_view.default", args, 3), ==, ET_OK);
  g_assert_true (out.t.data == (void *) data);
  g_assert_cmpint (out.t.sizes[1], ==, 2);
  g_assert_cmpint (out.t.numel, ==, 12);

  int64_t wrong[3] = { 5, -1, 2 };
  int_list_init (&ls, 3, wrong);
  g_assert_cmpint (call ("executorch_prim::et_view.default", args, 3), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_prim_et_copy_index (void)
{
  int64_t planned[2] = { 4, 3 }, row[1] = { 3 };
  int32_t stack[12] = { 0 }, r[3];
  Tensor to, from;
  EtValue index;

  tensor_init_dynamic (&to, ET_SCALAR_INT, 2, planned, stack, 12);
  tensor_init (&from, ET_SCALAR_INT, 1, row, r);
  EtValue *args[] = { &to.v, &from.v, &index };
  for (int i = 0; i < 4; i++)
    {
      for (int j = 0; j < 3; j++)
        r[j] = i * 10 + j;
      index = int_value (i);
      g_assert_cmpint (call ("executorch_prim::et_copy_index.tensor", args, 3), ==, ET_OK);
      g_assert_cmpint (to.t.sizes[0], ==, i + 1);
    }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpint (stack[i * 3 + j], ==, i * 10 + j);
  index = int_value (4); /* past the planned capacity */
  g_assert_cmpint (call ("executorch_prim::et_copy_index.tensor", args, 3), !=, ET_OK);
}

/* ---- Random layouts ---- */

/* Element offset of the logical index @idx (aligned right to @t's rank,
 * broadcasting size-1 dims). */
static int64_t
offset_of (const EtTensor *t, uint32_t ndim, const int64_t *idx)
{
  int64_t off = 0;
  for (uint32_t d = 0; d < t->ndim; d++)
    {
      int64_t i = idx[ndim - t->ndim + d];
      off += (t->sizes[d] == 1 ? 0 : i) * t->strides[d];
    }
  return off;
}

static bool
next_index (uint32_t ndim, const int64_t *sizes, int64_t *idx)
{
  for (uint32_t d = ndim; d-- > 0;)
    {
      if (++idx[d] < sizes[d])
        return true;
      idx[d] = 0;
    }
  return false;
}

static void
test_random_layouts (void)
{
  for (int iter = 0; iter < 300; iter++)
    {
      uint32_t ndim = (uint32_t) g_test_rand_int_range (1, 6);
      int64_t sizes[ET_MAX_DIMS], bsizes[ET_MAX_DIMS], psizes[ET_MAX_DIMS], idx[ET_MAX_DIMS];
      uint8_t oa[ET_MAX_DIMS], ob[ET_MAX_DIMS], oo[ET_MAX_DIMS], perm[ET_MAX_DIMS];
      uint32_t bdim = (uint32_t) g_test_rand_int_range (1, (gint32) ndim + 1);
      float a[1024];
      int32_t b[1024];
      double o[1024], p[1024];
      Tensor ta, tb, to, tp;
      EtValue alpha = int_value (3);

      for (uint32_t d = 0; d < ndim; d++)
        sizes[d] = g_test_rand_int_range (1, 5);
      for (uint32_t d = 0; d < bdim; d++)
        bsizes[d] = g_test_rand_bit () ? 1 : sizes[ndim - bdim + d];
      random_dim_order (ndim, oa);
      random_dim_order (bdim, ob);
      random_dim_order (ndim, oo);
      tensor_init_full (&ta, ET_SCALAR_FLOAT, ndim, sizes, oa, a, ET_SHAPE_STATIC, 0);
      tensor_init_full (&tb, ET_SCALAR_INT, bdim, bsizes, ob, b, ET_SHAPE_STATIC, 0);
      tensor_init_full (&to, ET_SCALAR_DOUBLE, ndim, sizes, oo, o, ET_SHAPE_STATIC, 0);
      for (int64_t i = 0; i < ta.t.numel; i++)
        a[i] = (float) g_test_rand_double_range (-4, 4);
      for (int64_t i = 0; i < tb.t.numel; i++)
        b[i] = g_test_rand_int_range (-100, 100);

      /* add: Float + 3 * Int into Double, all three in random layouts. */
      EtValue *args[] = { &ta.v, &tb.v, &alpha, &to.v, &to.v };
      g_assert_cmpint (call ("aten::add.out", args, 5), ==, ET_OK);
      memset (idx, 0, sizeof idx);
      do
        {
          double want = (double) (a[offset_of (&ta.t, ndim, idx)] + 3.0f * (float) b[offset_of (&tb.t, ndim, idx)]);
          g_assert_cmpfloat (o[offset_of (&to.t, ndim, idx)], ==, want);
        }
      while (next_index (ndim, sizes, idx));

      /* _to_dim_order_copy between random layouts, Float -> Double. */
      EtValue nb = bool_value (false), none = none_value ();
      EtValue *cargs[] = { &ta.v, &nb, &none, &to.v, &to.v };
      g_assert_cmpint (call ("dim_order_ops::_to_dim_order_copy.out", cargs, 5), ==, ET_OK);
      memset (idx, 0, sizeof idx);
      do
        g_assert_cmpfloat (o[offset_of (&to.t, ndim, idx)], ==, a[offset_of (&ta.t, ndim, idx)]);
      while (next_index (ndim, sizes, idx));

      /* permute_copy with a random permutation into a random layout. */
      int64_t dims[ET_MAX_DIMS];
      IntList ld;
      Tensor tad;
      double ad[1024];
      random_dim_order (ndim, perm);
      for (uint32_t d = 0; d < ndim; d++)
        {
          dims[d] = perm[d];
          psizes[d] = sizes[perm[d]];
        }
      int_list_init (&ld, ndim, dims);
      tensor_init_full (&tad, ET_SCALAR_DOUBLE, ndim, sizes, oa, ad, ET_SHAPE_STATIC, 0);
      for (int64_t i = 0; i < tad.t.numel; i++)
        ad[i] = a[i];
      random_dim_order (ndim, oo);
      tensor_init_full (&tp, ET_SCALAR_DOUBLE, ndim, psizes, oo, p, ET_SHAPE_STATIC, 0);
      EtValue *pargs[] = { &tad.v, &ld.v, &tp.v, &tp.v };
      g_assert_cmpint (call ("aten::permute_copy.out", pargs, 4), ==, ET_OK);
      memset (idx, 0, sizeof idx);
      do
        {
          int64_t src_idx[ET_MAX_DIMS];
          for (uint32_t d = 0; d < ndim; d++)
            src_idx[perm[d]] = idx[d];
          g_assert_cmpfloat (p[offset_of (&tp.t, ndim, idx)], ==, ad[offset_of (&tad.t, ndim, src_idx)]);
        }
      while (next_index (ndim, psizes, idx));

      /* sum over a random subset of dims of the randomly laid out input. */
      int64_t rdims[ET_MAX_DIMS], osz[ET_MAX_DIMS];
      uint32_t nr = 0;
      bool red[ET_MAX_DIMS];
      double s[1024];
      Tensor ts;
      EtValue keep = bool_value (true);
      for (uint32_t d = 0; d < ndim; d++)
        {
          red[d] = g_test_rand_bit ();
          if (red[d])
            rdims[nr++] = d;
          osz[d] = red[d] ? 1 : sizes[d];
        }
      if (nr == 0)
        {
          red[0] = true;
          rdims[nr++] = 0;
          osz[0] = 1;
        }
      int_list_init (&ld, nr, rdims);
      random_dim_order (ndim, oo);
      tensor_init_full (&ts, ET_SCALAR_DOUBLE, ndim, osz, oo, s, ET_SHAPE_STATIC, 0);
      EtValue *sargs[] = { &tad.v, &ld.v, &keep, &none, &ts.v, &ts.v };
      g_assert_cmpint (call ("aten::sum.IntList_out", sargs, 6), ==, ET_OK);
      memset (idx, 0, sizeof idx);
      do
        {
          double want = 0;
          int64_t full[ET_MAX_DIMS];
          memcpy (full, idx, sizeof full);
          for (;;)
            {
              want += ad[offset_of (&tad.t, ndim, full)];
              uint32_t d = ndim;
              while (d-- > 0)
                {
                  if (!red[d])
                    continue;
                  if (++full[d] < sizes[d])
                    break;
                  full[d] = 0;
                }
              if (d == UINT32_MAX)
                break;
            }
          assert_close (s[offset_of (&ts.t, ndim, idx)], want, 1e-12);
        }
      while (next_index (ndim, osz, idx));
    }
}

/* ---- Half ---- */

static void
test_half_add (void)
{
  /* 1.0, 2.0, -0.5, 65504 (largest half) in IEEE half bits. */
  uint16_t a[4] = { 0x3c00, 0x4000, 0xb800, 0x7bff }, o[4];
  int64_t sizes[1] = { 4 };
  Tensor ta, to;
  EtValue one = int_value (1);

  tensor_init (&ta, ET_SCALAR_HALF, 1, sizes, a);
  tensor_init (&to, ET_SCALAR_HALF, 1, sizes, o);
  EtValue *args[] = { &ta.v, &ta.v, &one, &to.v, &to.v };
  g_assert_cmpint (call ("aten::add.out", args, 5), ==, ET_OK);
  g_assert_cmphex (o[0], ==, 0x4000); /* 2.0 */
  g_assert_cmphex (o[1], ==, 0x4400); /* 4.0 */
  g_assert_cmphex (o[2], ==, 0xbc00); /* -1.0 */
  g_assert_cmphex (o[3], ==, 0x7c00); /* overflow to +inf */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  register_kernels_plugin ();

  g_test_add_func ("/kernels/plugin/descriptor", test_plugin_descriptor);
  g_test_add_func ("/kernels/add/same-shape", test_add_same_shape);
  g_test_add_func ("/kernels/add/broadcast", test_add_broadcast);
  g_test_add_func ("/kernels/binary/middle-broadcast", test_binary_middle_broadcast);
  g_test_add_func ("/kernels/binary/per-block", test_binary_per_block);
  g_test_add_func ("/kernels/add/mixed-dtypes", test_add_mixed_dtypes);
  g_test_add_func ("/kernels/add/int-wrap-and-bool", test_add_int_wraps_and_bool);
  g_test_add_func ("/kernels/add/errors", test_add_errors);
  g_test_add_func ("/kernels/add/channels-last", test_binary_channels_last);
  g_test_add_func ("/kernels/add/half", test_half_add);
  g_test_add_func ("/kernels/scalar/ops-and-comparisons", test_scalar_ops);
  g_test_add_func ("/kernels/mm/float", test_mm);
  g_test_add_func ("/kernels/mm/double", test_mm_double);
  g_test_add_func ("/kernels/addmm/bias", test_addmm);
  g_test_add_func ("/kernels/bmm/basic", test_bmm);
  g_test_add_func ("/kernels/relu/basic", test_relu);
  g_test_add_func ("/kernels/permute/basic", test_permute);
  g_test_add_func ("/kernels/view-copy/basic", test_view_copy);
  g_test_add_func ("/kernels/squeeze/unsqueeze-clone", test_squeeze_unsqueeze_clone);
  g_test_add_func ("/kernels/expand/basic", test_expand);
  g_test_add_func ("/kernels/cat/mixed-dtypes", test_cat);
  g_test_add_func ("/kernels/cat/dense", test_cat_dense);
  g_test_add_func ("/kernels/slice-select/basic", test_slice_select);
  g_test_add_func ("/kernels/reduce/sum-mean", test_sum_mean);
  g_test_add_func ("/kernels/softmax/basic", test_softmax);
  g_test_add_func ("/kernels/copy/broadcast", test_copy);
  g_test_add_func ("/kernels/dim-order/channels-last", test_dim_order_channels_last);
  g_test_add_func ("/kernels/dim-order/empty", test_empty_dim_order);
  g_test_add_func ("/kernels/resize/dynamic-out", test_resize_dynamic_out);
  g_test_add_func ("/kernels/layout/random", test_random_layouts);
  g_test_add_func ("/kernels/prim/arithmetic", test_prim_arithmetic);
  g_test_add_func ("/kernels/prim/tensor-queries", test_prim_tensor_queries);
  g_test_add_func ("/kernels/prim/et-view", test_prim_et_view);
  g_test_add_func ("/kernels/prim/et-copy-index", test_prim_et_copy_index);

  return g_test_run ();
}
