/* test-index-kernels.c: indexing, gather/scatter, creation, split, shape and reduction kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Builds argument stacks the way the interpreter does (schema order, the
 * extra return slot last, IntLists of Int slots, None entries of Tensor?[]
 * as NULL) and checks results against references computed here.  Error
 * cases check the code, never a crash.
 */
#include "kernel-test-util.h"

#include <math.h>
#include <string.h>

/* ---- index.Tensor ---- */

static void
test_index_tensor (void)
{
  float x[3 * 4];
  for (int i = 0; i < 12; i++)
    x[i] = (float) i;
  int64_t sx[2] = { 3, 4 };
  Tensor tx;
  tensor_init (&tx, ET_SCALAR_FLOAT, 2, sx, x);

  /* x[:, [3, -1, 0]] */
  int64_t i1[3] = { 3, -1, 0 }, si1[1] = { 3 };
  Tensor ti1;
  tensor_init (&ti1, ET_SCALAR_LONG, 1, si1, i1);
  TensorList l1;
  Tensor *items1[2] = { NULL, &ti1 };
  tensor_list_init (&l1, 2, items1, true);
  float o[12];
  int64_t so[2] = { 3, 3 };
  Tensor to;
  tensor_init (&to, ET_SCALAR_FLOAT, 2, so, o);
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l1.v, &to.v, &to.v), ==, ET_OK);
  for (int r = 0; r < 3; r++)
    {
      g_assert_cmpfloat (o[r * 3 + 0], ==, x[r * 4 + 3]);
      g_assert_cmpfloat (o[r * 3 + 1], ==, x[r * 4 + 3]);
      g_assert_cmpfloat (o[r * 3 + 2], ==, x[r * 4 + 0]);
    }

  /* Two broadcasting Int indices: rows [2,1] with cols [3] -> [2, 3]. */
  int32_t ri[2] = { 0, 2 }, ci[3] = { 1, 2, -4 };
  int64_t sri[2] = { 2, 1 }, sci[1] = { 3 };
  Tensor tri, tci;
  tensor_init (&tri, ET_SCALAR_INT, 2, sri, ri);
  tensor_init (&tci, ET_SCALAR_INT, 1, sci, ci);
  Tensor *items2[2] = { &tri, &tci };
  TensorList l2;
  tensor_list_init (&l2, 2, items2, true);
  float o2[6];
  int64_t so2[2] = { 2, 3 };
  Tensor to2;
  tensor_init_dynamic (&to2, ET_SCALAR_FLOAT, 2, so2, o2, 6);
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l2.v, &to2.v, &to2.v), ==, ET_OK);
  g_assert_cmpint (to2.t.sizes[0], ==, 2);
  g_assert_cmpint (to2.t.sizes[1], ==, 3);
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 3; b++)
      g_assert_cmpfloat (o2[a * 3 + b], ==, x[ri[a] * 4 + (ci[b] + 4) % 4]);

  /* Bool mask over both dims: x[x > 6] (values 7..11). */
  bool m[12];
  for (int i = 0; i < 12; i++)
    m[i] = x[i] > 6;
  Tensor tm;
  tensor_init (&tm, ET_SCALAR_BOOL, 2, sx, m);
  Tensor *items3[1] = { &tm };
  TensorList l3;
  tensor_list_init (&l3, 1, items3, true);
  float o3[12];
  int64_t so3[1] = { 12 };
  Tensor to3;
  tensor_init_dynamic (&to3, ET_SCALAR_FLOAT, 1, so3, o3, 12);
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l3.v, &to3.v, &to3.v), ==, ET_OK);
  g_assert_cmpint (to3.t.sizes[0], ==, 5);
  for (int i = 0; i < 5; i++)
    g_assert_cmpfloat (o3[i], ==, 7 + i);

  /* Out of range is an error (both signs), as is a Float index. */
  int64_t bad[1] = { 4 }, sb[1] = { 1 };
  Tensor tb;
  tensor_init (&tb, ET_SCALAR_LONG, 1, sb, bad);
  Tensor *items4[2] = { NULL, &tb };
  TensorList l4;
  tensor_list_init (&l4, 2, items4, true);
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l4.v, &to3.v, &to3.v), ==, ET_ERROR_INVALID_ARGUMENT);
  bad[0] = -5;
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l4.v, &to3.v, &to3.v), ==, ET_ERROR_INVALID_ARGUMENT);
  float fidx[1] = { 0 };
  Tensor tf;
  tensor_init (&tf, ET_SCALAR_FLOAT, 1, sb, fidx);
  Tensor *items5[1] = { &tf };
  TensorList l5;
  tensor_list_init (&l5, 1, items5, true);
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l5.v, &to3.v, &to3.v), ==, ET_ERROR_INVALID_ARGUMENT);
  /* Too many indices. */
  Tensor *items6[3] = { &ti1, &ti1, &ti1 };
  TensorList l6;
  tensor_list_init (&l6, 3, items6, true);
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l6.v, &to3.v, &to3.v), ==, ET_ERROR_INVALID_ARGUMENT);
  /* Wrong argument count. */
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l1.v, &to.v), ==, ET_ERROR_INVALID_PROGRAM);
  /* A mismatched static out is refused. */
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l2.v, &to.v, &to.v), !=, ET_OK);
}

static void
test_index_tensor_non_adjacent (void)
{
  /* x [2, 3, 4]; x[i0, :, i2] with i0, i2 of shape [2] -> [2, 3]. */
  int16_t x[24];
  for (int i = 0; i < 24; i++)
    x[i] = (int16_t) (i * 3 - 7);
  int64_t sx[3] = { 2, 3, 4 };
  Tensor tx;
  tensor_init (&tx, ET_SCALAR_SHORT, 3, sx, x);
  int64_t i0[2] = { 1, 0 }, i2[2] = { -1, 2 }, si[1] = { 2 };
  Tensor t0, t2;
  tensor_init (&t0, ET_SCALAR_LONG, 1, si, i0);
  tensor_init (&t2, ET_SCALAR_LONG, 1, si, i2);
  Tensor *items[3] = { &t0, NULL, &t2 };
  TensorList l;
  tensor_list_init (&l, 3, items, true);
  int16_t o[6];
  int64_t so[2] = { 2, 3 };
  Tensor to;
  tensor_init (&to, ET_SCALAR_SHORT, 2, so, o);
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l.v, &to.v, &to.v), ==, ET_OK);
  for (int b = 0; b < 2; b++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpint (o[b * 3 + j], ==, x[(i0[b] * 3 + j) * 4 + (i2[b] + 4) % 4]);

  /* x[:, [1, 2]] with a channels-last-ish self: dim order [2, 0, 1]... use [0, 2, 1]. */
  uint8_t order[3] = { 0, 2, 1 };
  int16_t y[24];
  Tensor ty;
  tensor_init_full (&ty, ET_SCALAR_SHORT, 3, sx, order, y, ET_SHAPE_STATIC, 0);
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 3; b++)
      for (int c = 0; c < 4; c++)
        y[a * ty.t.strides[0] + b * ty.t.strides[1] + c * ty.t.strides[2]] = x[(a * 3 + b) * 4 + c];
  int64_t i1[2] = { 1, 2 };
  Tensor t1;
  tensor_init (&t1, ET_SCALAR_LONG, 1, si, i1);
  Tensor *items2[2] = { NULL, &t1 };
  TensorList l2;
  tensor_list_init (&l2, 2, items2, true);
  int16_t o2[16];
  int64_t so2[3] = { 2, 2, 4 };
  Tensor to2;
  tensor_init (&to2, ET_SCALAR_SHORT, 3, so2, o2);
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &ty.v, &l2.v, &to2.v, &to2.v), ==, ET_OK);
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      for (int c = 0; c < 4; c++)
        g_assert_cmpint (o2[(a * 2 + b) * 4 + c], ==, x[(a * 3 + i1[b]) * 4 + c]);

  /* An empty index gives an empty result. */
  int64_t se[1] = { 0 };
  Tensor te;
  tensor_init (&te, ET_SCALAR_LONG, 1, se, NULL);
  Tensor *items3[1] = { &te };
  TensorList l3;
  tensor_list_init (&l3, 1, items3, true);
  int64_t so3[3] = { 0, 3, 4 };
  Tensor to3;
  tensor_init (&to3, ET_SCALAR_SHORT, 3, so3, NULL);
  g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l3.v, &to3.v, &to3.v), ==, ET_OK);
}

/* ---- index_put ---- */

static void
test_index_put_kv_cache (void)
{
  /* cache [1, 2, 5, 3]; cache[:, :, [pos]] = v [1, 2, 1, 3]. */
  float cache[30] = { 0 }, v[6], o[30];
  for (int i = 0; i < 6; i++)
    v[i] = (float) (i + 1);
  int64_t sc[4] = { 1, 2, 5, 3 }, sv[4] = { 1, 2, 1, 3 }, sp[1] = { 1 };
  int64_t pos[1] = { 3 };
  Tensor tc, tv, tp, to;
  tensor_init (&tc, ET_SCALAR_FLOAT, 4, sc, cache);
  tensor_init (&tv, ET_SCALAR_FLOAT, 4, sv, v);
  tensor_init (&tp, ET_SCALAR_LONG, 1, sp, pos);
  tensor_init (&to, ET_SCALAR_FLOAT, 4, sc, o);
  Tensor *items[3] = { NULL, NULL, &tp };
  TensorList l;
  tensor_list_init (&l, 3, items, true);
  EtValue acc = bool_value (false);
  g_assert_cmpint (CALL ("aten::index_put.out", &tc.v, &l.v, &tv.v, &acc, &to.v, &to.v), ==, ET_OK);
  for (int h = 0; h < 2; h++)
    for (int s = 0; s < 5; s++)
      for (int d = 0; d < 3; d++)
        g_assert_cmpfloat (o[(h * 5 + s) * 3 + d], ==, s == 3 ? v[h * 3 + d] : 0.0f);

  /* In place, out aliasing self (the re-inplaced form). */
  g_assert_cmpint (CALL ("aten::index_put_", &tc.v, &l.v, &tv.v, &acc, &tc.v), ==, ET_OK);
  g_assert_cmpint (memcmp (cache, o, sizeof o), ==, 0);
  g_assert_cmpint (CALL ("aten::index_put.out", &tc.v, &l.v, &tv.v, &acc, &tc.v, &tc.v), ==, ET_OK);
  g_assert_cmpint (memcmp (cache, o, sizeof o), ==, 0);

  /* Broadcast values [3] to [1, 2, 1, 3]. */
  float v3[3] = { -1, -2, -3 };
  int64_t s3[1] = { 3 };
  Tensor tv3;
  tensor_init (&tv3, ET_SCALAR_FLOAT, 1, s3, v3);
  pos[0] = -1; /* wraps to 4 */
  g_assert_cmpint (CALL ("aten::index_put.out", &tc.v, &l.v, &tv3.v, &acc, &to.v, &to.v), ==, ET_OK);
  for (int h = 0; h < 2; h++)
    for (int d = 0; d < 3; d++)
      g_assert_cmpfloat (o[(h * 5 + 4) * 3 + d], ==, v3[d]);

  /* Values with an extra leading size-1 dim ([1, 1, 2, 1, 3]). */
  int64_t s5[5] = { 1, 1, 2, 1, 3 };
  Tensor tv5;
  tensor_init (&tv5, ET_SCALAR_FLOAT, 5, s5, v);
  pos[0] = 0;
  g_assert_cmpint (CALL ("aten::index_put.out", &tc.v, &l.v, &tv5.v, &acc, &to.v, &to.v), ==, ET_OK);
  for (int h = 0; h < 2; h++)
    for (int d = 0; d < 3; d++)
      g_assert_cmpfloat (o[(h * 5 + 0) * 3 + d], ==, v[h * 3 + d]);

  /* Out of range position. */
  pos[0] = 5;
  g_assert_cmpint (CALL ("aten::index_put.out", &tc.v, &l.v, &tv.v, &acc, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);
  /* Values that don't broadcast, and values of another dtype. */
  pos[0] = 0;
  int64_t sbad[1] = { 2 };
  Tensor tbad;
  tensor_init (&tbad, ET_SCALAR_FLOAT, 1, sbad, v);
  g_assert_cmpint (CALL ("aten::index_put.out", &tc.v, &l.v, &tbad.v, &acc, &to.v, &to.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
  double dv[6] = { 0 };
  Tensor tdv;
  tensor_init (&tdv, ET_SCALAR_DOUBLE, 4, sv, dv);
  g_assert_cmpint (CALL ("aten::index_put.out", &tc.v, &l.v, &tdv.v, &acc, &to.v, &to.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
}

static void
test_index_put_accumulate (void)
{
  int32_t x[5] = { 10, 20, 30, 40, 50 }, o[5];
  int64_t idx[4] = { 1, 1, -1, 0 }, sx[1] = { 5 }, si[1] = { 4 };
  int32_t vals[4] = { 1, 2, 3, 4 };
  Tensor tx, ti, tv, to;
  tensor_init (&tx, ET_SCALAR_INT, 1, sx, x);
  tensor_init (&ti, ET_SCALAR_LONG, 1, si, idx);
  tensor_init (&tv, ET_SCALAR_INT, 1, si, vals);
  tensor_init (&to, ET_SCALAR_INT, 1, sx, o);
  Tensor *items[1] = { &ti };
  TensorList l;
  tensor_list_init (&l, 1, items, true);
  EtValue acc = bool_value (true);
  g_assert_cmpint (CALL ("aten::index_put.out", &tx.v, &l.v, &tv.v, &acc, &to.v, &to.v), ==, ET_OK);
  int32_t want[5] = { 14, 23, 30, 40, 53 };
  g_assert_cmpint (memcmp (o, want, sizeof want), ==, 0);

  /* Bool mask index_put: x[m] = 0 with a 0-d value. */
  bool m[5] = { true, false, true, false, false };
  int32_t zero = 0;
  Tensor tm, tz;
  tensor_init (&tm, ET_SCALAR_BOOL, 1, sx, m);
  tensor_init (&tz, ET_SCALAR_INT, 0, NULL, &zero);
  Tensor *items2[1] = { &tm };
  TensorList l2;
  tensor_list_init (&l2, 1, items2, true);
  EtValue noacc = bool_value (false);
  g_assert_cmpint (CALL ("aten::index_put.out", &tx.v, &l2.v, &tz.v, &noacc, &to.v, &to.v), ==, ET_OK);
  int32_t want2[5] = { 0, 20, 0, 40, 50 };
  g_assert_cmpint (memcmp (o, want2, sizeof want2), ==, 0);

  /* A mask of the wrong shape. */
  int64_t s4[1] = { 4 };
  Tensor tm4;
  tensor_init (&tm4, ET_SCALAR_BOOL, 1, s4, m);
  Tensor *items3[1] = { &tm4 };
  TensorList l3;
  tensor_list_init (&l3, 1, items3, true);
  g_assert_cmpint (CALL ("aten::index_put.out", &tx.v, &l3.v, &tz.v, &noacc, &to.v, &to.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
}

/* ---- embedding and index_select ---- */

static void
test_embedding (void)
{
  float w[4 * 3];
  for (int i = 0; i < 12; i++)
    w[i] = (float) i * 0.5f;
  int64_t sw[2] = { 4, 3 };
  int32_t idx[2 * 2] = { 3, 0, 1, 3 };
  int64_t si[2] = { 2, 2 }, so[3] = { 2, 2, 3 };
  float o[12];
  Tensor tw, ti, to;
  tensor_init (&tw, ET_SCALAR_FLOAT, 2, sw, w);
  tensor_init (&ti, ET_SCALAR_INT, 2, si, idx);
  tensor_init (&to, ET_SCALAR_FLOAT, 3, so, o);
  EtValue pad = int_value (-1), f = bool_value (false);
  g_assert_cmpint (CALL ("aten::embedding.out", &tw.v, &ti.v, &pad, &f, &f, &to.v, &to.v), ==, ET_OK);
  for (int k = 0; k < 4; k++)
    g_assert_cmpint (memcmp (o + k * 3, w + idx[k] * 3, 3 * sizeof (float)), ==, 0);

  idx[2] = 4;
  g_assert_cmpint (CALL ("aten::embedding.out", &tw.v, &ti.v, &pad, &f, &f, &to.v, &to.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
  idx[2] = -1; /* embedding does not wrap */
  g_assert_cmpint (CALL ("aten::embedding.out", &tw.v, &ti.v, &pad, &f, &f, &to.v, &to.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (CALL ("aten::embedding.out", &tw.v, &ti.v, &pad, &f, &to.v, &to.v), ==, ET_ERROR_INVALID_PROGRAM);
}

static void
test_index_select (void)
{
  int64_t x[2 * 3];
  for (int i = 0; i < 6; i++)
    x[i] = i * 11;
  int64_t sx[2] = { 2, 3 }, idx[3] = { 2, 2, 0 }, si[1] = { 3 }, so[2] = { 2, 3 };
  int64_t o[6];
  Tensor tx, ti, to;
  tensor_init (&tx, ET_SCALAR_LONG, 2, sx, x);
  tensor_init (&ti, ET_SCALAR_LONG, 1, si, idx);
  tensor_init (&to, ET_SCALAR_LONG, 2, so, o);
  EtValue dim = int_value (-1);
  g_assert_cmpint (CALL ("aten::index_select.out", &tx.v, &dim, &ti.v, &to.v, &to.v), ==, ET_OK);
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 3; c++)
      g_assert_cmpint (o[r * 3 + c], ==, x[r * 3 + idx[c]]);
  idx[1] = 3;
  g_assert_cmpint (CALL ("aten::index_select.out", &tx.v, &dim, &ti.v, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);
  EtValue dim5 = int_value (5);
  g_assert_cmpint (CALL ("aten::index_select.out", &tx.v, &dim5, &ti.v, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);
}

/* ---- gather and scatter ---- */

static void
test_gather_scatter (void)
{
  float x[2 * 3] = { 1, 2, 3, 4, 5, 6 };
  int64_t sx[2] = { 2, 3 }, idx[2 * 2] = { 2, 0, 1, 1 }, si[2] = { 2, 2 };
  float o[4];
  Tensor tx, ti, to;
  tensor_init (&tx, ET_SCALAR_FLOAT, 2, sx, x);
  tensor_init (&ti, ET_SCALAR_LONG, 2, si, idx);
  tensor_init (&to, ET_SCALAR_FLOAT, 2, si, o);
  EtValue dim1 = int_value (1), f = bool_value (false);
  g_assert_cmpint (CALL ("aten::gather.out", &tx.v, &dim1, &ti.v, &f, &to.v, &to.v), ==, ET_OK);
  g_assert_cmpfloat (o[0], ==, 3);
  g_assert_cmpfloat (o[1], ==, 1);
  g_assert_cmpfloat (o[2], ==, 5);
  g_assert_cmpfloat (o[3], ==, 5);
  idx[3] = 3;
  g_assert_cmpint (CALL ("aten::gather.out", &tx.v, &dim1, &ti.v, &f, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);
  idx[3] = -1;
  g_assert_cmpint (CALL ("aten::gather.out", &tx.v, &dim1, &ti.v, &f, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);
  idx[3] = 1;

  /* scatter.src: out = x; out[i][idx[i][j]] = src[i][j]. */
  float src[4] = { -1, -2, -3, -4 }, so[6];
  Tensor tsrc, tso;
  tensor_init (&tsrc, ET_SCALAR_FLOAT, 2, si, src);
  tensor_init (&tso, ET_SCALAR_FLOAT, 2, sx, so);
  g_assert_cmpint (CALL ("aten::scatter.src_out", &tx.v, &dim1, &ti.v, &tsrc.v, &tso.v, &tso.v), ==, ET_OK);
  float want[6] = { -2, 2, -1, 4, -4, 6 };
  g_assert_cmpint (memcmp (so, want, sizeof want), ==, 0);

  /* scatter_add accumulates duplicates. */
  g_assert_cmpint (CALL ("aten::scatter_add.out", &tx.v, &dim1, &ti.v, &tsrc.v, &tso.v, &tso.v), ==, ET_OK);
  float want_add[6] = { -1, 2, 2, 4, 5 - 3 - 4, 6 };
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (so[i], ==, want_add[i]);

  /* scatter.value */
  EtValue val = double_value (9.5);
  g_assert_cmpint (CALL ("aten::scatter.value_out", &tx.v, &dim1, &ti.v, &val, &tso.v, &tso.v), ==, ET_OK);
  float want_v[6] = { 9.5f, 2, 9.5f, 4, 9.5f, 6 };
  g_assert_cmpint (memcmp (so, want_v, sizeof want_v), ==, 0);

  /* Errors: index out of range, src of another dtype, index wider than src. */
  idx[0] = 3;
  g_assert_cmpint (CALL ("aten::scatter.src_out", &tx.v, &dim1, &ti.v, &tsrc.v, &tso.v, &tso.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
  idx[0] = 2;
  double dsrc[4];
  Tensor tdsrc;
  tensor_init (&tdsrc, ET_SCALAR_DOUBLE, 2, si, dsrc);
  g_assert_cmpint (CALL ("aten::scatter.src_out", &tx.v, &dim1, &ti.v, &tdsrc.v, &tso.v, &tso.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
  int64_t s21[2] = { 2, 1 };
  Tensor tsmall;
  tensor_init (&tsmall, ET_SCALAR_FLOAT, 2, s21, src);
  g_assert_cmpint (CALL ("aten::scatter.src_out", &tx.v, &dim1, &ti.v, &tsmall.v, &tso.v, &tso.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
  /* An Int self refuses a value that overflows it. */
  int8_t cx[6] = { 0 }, co[6];
  Tensor tcx, tco;
  tensor_init (&tcx, ET_SCALAR_CHAR, 2, sx, cx);
  tensor_init (&tco, ET_SCALAR_CHAR, 2, sx, co);
  EtValue big = int_value (300);
  g_assert_cmpint (CALL ("aten::scatter.value_out", &tcx.v, &dim1, &ti.v, &big, &tco.v, &tco.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
}

/* ---- Masks and nonzero ---- */

static void
test_masks_nonzero (void)
{
  int32_t x[2 * 3] = { 1, 0, 3, 0, 5, 6 };
  bool m[3] = { true, false, true };
  int64_t sx[2] = { 2, 3 }, sm[1] = { 3 }, so[1] = { 6 };
  int32_t o[6];
  Tensor tx, tm, to;
  tensor_init (&tx, ET_SCALAR_INT, 2, sx, x);
  tensor_init (&tm, ET_SCALAR_BOOL, 1, sm, m);
  tensor_init_dynamic (&to, ET_SCALAR_INT, 1, so, o, 6);
  g_assert_cmpint (CALL ("aten::masked_select.out", &tx.v, &tm.v, &to.v, &to.v), ==, ET_OK);
  g_assert_cmpint (to.t.sizes[0], ==, 4);
  int32_t want[4] = { 1, 3, 0, 6 };
  g_assert_cmpint (memcmp (o, want, sizeof want), ==, 0);
  /* A static out that doesn't fit fails cleanly. */
  Tensor ts;
  tensor_init (&ts, ET_SCALAR_INT, 1, so, o);
  g_assert_cmpint (CALL ("aten::masked_select.out", &tx.v, &tm.v, &ts.v, &ts.v), !=, ET_OK);
  /* A Byte mask is refused. */
  Tensor tbm;
  tensor_init (&tbm, ET_SCALAR_BYTE, 1, sm, m);
  g_assert_cmpint (CALL ("aten::masked_select.out", &tx.v, &tbm.v, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* masked_scatter: fill the selected positions from source in order. */
  int32_t src[5] = { -1, -2, -3, -4, -5 }, o2[6];
  int64_t ss[1] = { 5 };
  Tensor tsrc, to2;
  tensor_init (&tsrc, ET_SCALAR_INT, 1, ss, src);
  tensor_init (&to2, ET_SCALAR_INT, 2, sx, o2);
  g_assert_cmpint (CALL ("aten::masked_scatter.out", &tx.v, &tm.v, &tsrc.v, &to2.v, &to2.v), ==, ET_OK);
  int32_t want2[6] = { -1, 0, -2, -3, 5, -4 };
  g_assert_cmpint (memcmp (o2, want2, sizeof want2), ==, 0);
  ss[0] = 3;
  Tensor tshort;
  tensor_init (&tshort, ET_SCALAR_INT, 1, ss, src);
  g_assert_cmpint (CALL ("aten::masked_scatter.out", &tx.v, &tm.v, &tshort.v, &to2.v, &to2.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);

  /* nonzero */
  int64_t nz[12], snz[2] = { 6, 2 };
  Tensor tnz;
  tensor_init_dynamic (&tnz, ET_SCALAR_LONG, 2, snz, nz, 12);
  g_assert_cmpint (CALL ("aten::nonzero.out", &tx.v, &tnz.v, &tnz.v), ==, ET_OK);
  g_assert_cmpint (tnz.t.sizes[0], ==, 4);
  g_assert_cmpint (tnz.t.sizes[1], ==, 2);
  int64_t want_nz[8] = { 0, 0, 0, 2, 1, 1, 1, 2 };
  g_assert_cmpint (memcmp (nz, want_nz, sizeof want_nz), ==, 0);
  /* Floating: -0.0 is zero, NaN is not. */
  float fx[4] = { -0.0f, NAN, 0.0f, 1.0f };
  int64_t sf[1] = { 4 };
  Tensor tfx;
  tensor_init (&tfx, ET_SCALAR_FLOAT, 1, sf, fx);
  tensor_init_dynamic (&tnz, ET_SCALAR_LONG, 2, snz, nz, 12);
  g_assert_cmpint (CALL ("aten::nonzero.out", &tfx.v, &tnz.v, &tnz.v), ==, ET_OK);
  g_assert_cmpint (tnz.t.sizes[0], ==, 2);
  g_assert_cmpint (tnz.t.sizes[1], ==, 1);
  g_assert_cmpint (nz[0], ==, 1);
  g_assert_cmpint (nz[1], ==, 3);
  /* Static out of the wrong size. */
  Tensor tnzs;
  tensor_init (&tnzs, ET_SCALAR_LONG, 2, snz, nz);
  g_assert_cmpint (CALL ("aten::nonzero.out", &tx.v, &tnzs.v, &tnzs.v), !=, ET_OK);
}

/* ---- Creation ---- */

static void
test_full_and_friends (void)
{
  IntList size;
  int64_t sz[2] = { 2, 3 };
  int_list_init (&size, 2, sz);
  float o[6];
  Tensor to;
  tensor_init (&to, ET_SCALAR_FLOAT, 2, sz, o);
  EtValue v = double_value (1.5);
  g_assert_cmpint (CALL ("aten::full.out", &size.v, &v, &to.v, &to.v), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (o[i], ==, 1.5f);
  g_assert_cmpint (CALL ("aten::zeros.out", &size.v, &to.v, &to.v), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (o[i], ==, 0.0f);
  g_assert_cmpint (CALL ("aten::ones.out", &size.v, &to.v, &to.v), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (o[i], ==, 1.0f);
  EtValue none = none_value ();
  g_assert_cmpint (CALL ("aten::empty.out", &size.v, &none, &to.v, &to.v), ==, ET_OK);

  /* The fill must fit the dtype. */
  uint8_t bo[6];
  Tensor tb;
  tensor_init (&tb, ET_SCALAR_BYTE, 2, sz, bo);
  EtValue big = int_value (300), neg = int_value (-1), ok = int_value (255);
  g_assert_cmpint (CALL ("aten::full.out", &size.v, &big, &tb.v, &tb.v), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (CALL ("aten::full.out", &size.v, &neg, &tb.v, &tb.v), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (CALL ("aten::full.out", &size.v, &ok, &tb.v, &tb.v), ==, ET_OK);
  g_assert_cmpuint (bo[5], ==, 255);
  uint16_t ho[6];
  Tensor th;
  tensor_init (&th, ET_SCALAR_HALF, 2, sz, ho);
  EtValue huge = double_value (1e6), two = int_value (2);
  g_assert_cmpint (CALL ("aten::full.out", &size.v, &huge, &th.v, &th.v), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (CALL ("aten::full.out", &size.v, &two, &th.v, &th.v), ==, ET_OK);
  g_assert_cmphex (ho[3], ==, 0x4000);
  /* A float fill into an integer dtype truncates. */
  int64_t lo[6];
  Tensor tl;
  tensor_init (&tl, ET_SCALAR_LONG, 2, sz, lo);
  EtValue m27 = double_value (-2.7);
  g_assert_cmpint (CALL ("aten::full.out", &size.v, &m27, &tl.v, &tl.v), ==, ET_OK);
  g_assert_cmpint (lo[0], ==, -2);

  /* full_like follows self's shape; scalar_tensor is 0-d. */
  bool bl[6];
  Tensor tbl;
  tensor_init (&tbl, ET_SCALAR_BOOL, 2, sz, bl);
  EtValue t = bool_value (true);
  g_assert_cmpint (CALL ("aten::full_like.out", &to.v, &t, &none, &tbl.v, &tbl.v), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    g_assert_true (bl[i]);
  double d0;
  Tensor td;
  tensor_init (&td, ET_SCALAR_DOUBLE, 0, NULL, &d0);
  EtValue pi = double_value (3.25);
  g_assert_cmpint (CALL ("aten::scalar_tensor.out", &pi, &td.v, &td.v), ==, ET_OK);
  g_assert_cmpfloat (d0, ==, 3.25);

  /* fill.Scalar and fill.Tensor */
  EtValue seven = int_value (7);
  g_assert_cmpint (CALL ("aten::fill.Scalar_out", &tl.v, &seven, &tl.v, &tl.v), ==, ET_OK);
  g_assert_cmpint (lo[4], ==, 7);
  g_assert_cmpint (CALL ("aten::fill.Tensor_out", &to.v, &td.v, &to.v, &to.v), ==, ET_OK);
  g_assert_cmpfloat (o[2], ==, 3.25f);
  g_assert_cmpint (CALL ("aten::fill.Tensor_out", &to.v, &to.v, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);
  /* A 0-d value that overflows self's dtype is refused, like a Scalar. */
  int64_t v300 = 300;
  Tensor t300;
  tensor_init (&t300, ET_SCALAR_LONG, 0, NULL, &v300);
  g_assert_cmpint (CALL ("aten::fill.Tensor_out", &tb.v, &t300.v, &tb.v, &tb.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* Negative sizes. */
  int64_t bad[1] = { -1 };
  IntList bsize;
  int_list_init (&bsize, 1, bad);
  g_assert_cmpint (CALL ("aten::zeros.out", &bsize.v, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_arange (void)
{
  int64_t o[16], s[1] = { 16 };
  Tensor to;
  tensor_init_dynamic (&to, ET_SCALAR_LONG, 1, s, o, 16);
  EtValue end = int_value (5);
  g_assert_cmpint (CALL ("aten::arange.out", &end, &to.v, &to.v), ==, ET_OK);
  g_assert_cmpint (to.t.sizes[0], ==, 5);
  for (int i = 0; i < 5; i++)
    g_assert_cmpint (o[i], ==, i);

  EtValue a = int_value (10), b = int_value (1), st = int_value (-3);
  g_assert_cmpint (CALL ("aten::arange.start_out", &a, &b, &st, &to.v, &to.v), ==, ET_OK);
  g_assert_cmpint (to.t.sizes[0], ==, 3);
  g_assert_cmpint (o[0], ==, 10);
  g_assert_cmpint (o[1], ==, 7);
  g_assert_cmpint (o[2], ==, 4);

  /* Step sign inconsistent with the bounds; zero step. */
  EtValue pst = int_value (3), zero = int_value (0);
  g_assert_cmpint (CALL ("aten::arange.start_out", &a, &b, &pst, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (CALL ("aten::arange.start_out", &b, &a, &zero, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);
  /* Empty range. */
  g_assert_cmpint (CALL ("aten::arange.start_out", &b, &b, &pst, &to.v, &to.v), ==, ET_OK);
  g_assert_cmpint (to.t.sizes[0], ==, 0);

  /* Float: arange(0, 1, 0.3) has 4 elements. */
  float f[8];
  Tensor tf;
  int64_t sf[1] = { 8 };
  tensor_init_dynamic (&tf, ET_SCALAR_FLOAT, 1, sf, f, 8);
  EtValue fa = int_value (0), fb = int_value (1), fs = double_value (0.3);
  g_assert_cmpint (CALL ("aten::arange.start_out", &fa, &fb, &fs, &tf.v, &tf.v), ==, ET_OK);
  g_assert_cmpint (tf.t.sizes[0], ==, 4);
  for (int i = 0; i < 4; i++)
    assert_close (f[i], 0.3 * i, 1e-6);
  /* Integer outs truncate a floating step like eager: Long takes its length
   * from the truncated step (arange(0, 5, 1.5) -> 0..4), Int from the
   * doubles (-> 0..3); a step truncated to 0 is an error. */
  EtValue i5 = int_value (5), f15 = double_value (1.5), f05 = double_value (0.5);
  g_assert_cmpint (CALL ("aten::arange.start_out", &fa, &i5, &f15, &to.v, &to.v), ==, ET_OK);
  g_assert_cmpint (to.t.sizes[0], ==, 5);
  g_assert_cmpint (o[4], ==, 4);
  int32_t io[8];
  Tensor tio;
  tensor_init_dynamic (&tio, ET_SCALAR_INT, 1, sf, io, 8);
  g_assert_cmpint (CALL ("aten::arange.start_out", &fa, &i5, &f15, &tio.v, &tio.v), ==, ET_OK);
  g_assert_cmpint (tio.t.sizes[0], ==, 4);
  g_assert_cmpint (io[3], ==, 3);
  g_assert_cmpint (CALL ("aten::arange.start_out", &fa, &i5, &f05, &tio.v, &tio.v), ==, ET_ERROR_INVALID_ARGUMENT);
  /* Values that overflow the out dtype. */
  int8_t c[8];
  Tensor tc;
  tensor_init_dynamic (&tc, ET_SCALAR_CHAR, 1, sf, c, 8);
  EtValue cb = int_value (120), ce = int_value (130), cs = int_value (2);
  g_assert_cmpint (CALL ("aten::arange.start_out", &cb, &ce, &cs, &tc.v, &tc.v), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_tril_dropout (void)
{
  int32_t x[2 * 3 * 4], o[24];
  for (int i = 0; i < 24; i++)
    x[i] = i + 1;
  int64_t sx[3] = { 2, 3, 4 };
  Tensor tx, to;
  tensor_init (&tx, ET_SCALAR_INT, 3, sx, x);
  tensor_init (&to, ET_SCALAR_INT, 3, sx, o);
  /* -3..4, and the extremes (no overflow in i + diagonal: test-mutations). */
  static const int64_t diags[] = { -3, -2, -1, 0, 1, 2, 3, 4, G_MININT64, G_MAXINT64 };
  for (guint n = 0; n < G_N_ELEMENTS (diags); n++)
    {
      int64_t diag = diags[n];
      EtValue dv = int_value (diag);
      g_assert_cmpint (CALL ("aten::tril.out", &tx.v, &dv, &to.v, &to.v), ==, ET_OK);
      for (int b = 0; b < 2; b++)
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 4; j++)
            {
              int k = (b * 3 + i) * 4 + j;
              g_assert_cmpint (o[k], ==, j - i <= diag ? x[k] : 0);
            }
    }
  for (guint n = 0; n < G_N_ELEMENTS (diags); n++)
    {
      int64_t diag = diags[n];
      EtValue dv = int_value (diag);
      g_assert_cmpint (CALL ("aten::triu.out", &tx.v, &dv, &to.v, &to.v), ==, ET_OK);
      for (int b = 0; b < 2; b++)
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 4; j++)
            {
              int k = (b * 3 + i) * 4 + j;
              g_assert_cmpint (o[k], ==, j - i >= diag ? x[k] : 0);
            }
    }
  EtValue dv = int_value (0);
  int64_t s1[1] = { 4 };
  Tensor t1;
  tensor_init (&t1, ET_SCALAR_INT, 1, s1, x);
  g_assert_cmpint (CALL ("aten::tril.out", &t1.v, &dv, &t1.v, &t1.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* native_dropout in eval form: identity and an all-true mask. */
  bool mask[24];
  Tensor tm;
  tensor_init (&tm, ET_SCALAR_BOOL, 3, sx, mask);
  EtValue p = double_value (0.5), train = bool_value (false), ret = none_value ();
  g_assert_cmpint (CALL ("aten::native_dropout.out", &tx.v, &p, &train, &to.v, &tm.v, &ret), ==, ET_OK);
  g_assert_cmpint (memcmp (o, x, sizeof x), ==, 0);
  for (int i = 0; i < 24; i++)
    g_assert_true (mask[i]);
  EtValue yes = bool_value (true);
  g_assert_cmpint (CALL ("aten::native_dropout.out", &tx.v, &p, &yes, &to.v, &tm.v, &ret), ==, ET_ERROR_NOT_SUPPORTED);
  /* train=None means training; p=1 drops everything (NaN * 0 stays NaN). */
  float fx[3] = { 1.5f, NAN, -2.0f }, fo[3];
  bool fm[3];
  int64_t s3[1] = { 3 };
  Tensor tfx, tfo, tfm;
  tensor_init (&tfx, ET_SCALAR_FLOAT, 1, s3, fx);
  tensor_init (&tfo, ET_SCALAR_FLOAT, 1, s3, fo);
  tensor_init (&tfm, ET_SCALAR_BOOL, 1, s3, fm);
  EtValue p1 = double_value (1.0), nonet = none_value ();
  g_assert_cmpint (CALL ("aten::native_dropout.out", &tfx.v, &p1, &nonet, &tfo.v, &tfm.v, &ret), ==, ET_OK);
  g_assert_cmpfloat (fo[0], ==, 0.0f);
  g_assert_true (isnan (fo[1]));
  g_assert_false (fm[0]);
  g_assert_cmpint (CALL ("aten::native_dropout.out", &tfx.v, &p, &nonet, &tfo.v, &tfm.v, &ret), ==,
                   ET_ERROR_NOT_SUPPORTED);
}

/* ---- split, stack, scatter views ---- */

static void
test_split_unbind_stack (void)
{
  float x[5 * 2];
  for (int i = 0; i < 10; i++)
    x[i] = (float) i;
  int64_t sx[2] = { 5, 2 };
  Tensor tx;
  tensor_init (&tx, ET_SCALAR_FLOAT, 2, sx, x);

  /* split_with_sizes [2, 0, 3] along dim 0. */
  float a[4], c[6];
  int64_t sa[2] = { 2, 2 }, sb[2] = { 0, 2 }, sc[2] = { 3, 2 };
  Tensor ta, tb, tc;
  tensor_init (&ta, ET_SCALAR_FLOAT, 2, sa, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 2, sb, NULL);
  tensor_init (&tc, ET_SCALAR_FLOAT, 2, sc, c);
  Tensor *outs[3] = { &ta, &tb, &tc };
  TensorList lo;
  tensor_list_init (&lo, 3, outs, false);
  int64_t sizes[3] = { 2, 0, 3 };
  IntList ls;
  int_list_init (&ls, 3, sizes);
  EtValue d0 = int_value (0);
  g_assert_cmpint (CALL ("aten::split_with_sizes_copy.out", &tx.v, &ls.v, &d0, &lo.v, &lo.v), ==, ET_OK);
  g_assert_cmpint (memcmp (a, x, sizeof a), ==, 0);
  g_assert_cmpint (memcmp (c, x + 4, sizeof c), ==, 0);
  sizes[2] = 2;
  int_list_init (&ls, 3, sizes);
  g_assert_cmpint (CALL ("aten::split_with_sizes_copy.out", &tx.v, &ls.v, &d0, &lo.v, &lo.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);

  /* split_copy with split_size 2 -> [2, 2, 1]. */
  float p[4], q[4], r[2];
  int64_t s1[2] = { 1, 2 };
  Tensor tp, tq, tr;
  tensor_init (&tp, ET_SCALAR_FLOAT, 2, sa, p);
  tensor_init (&tq, ET_SCALAR_FLOAT, 2, sa, q);
  tensor_init (&tr, ET_SCALAR_FLOAT, 2, s1, r);
  Tensor *outs2[3] = { &tp, &tq, &tr };
  TensorList lo2;
  tensor_list_init (&lo2, 3, outs2, false);
  EtValue two = int_value (2);
  g_assert_cmpint (CALL ("aten::split_copy.Tensor_out", &tx.v, &two, &d0, &lo2.v, &lo2.v), ==, ET_OK);
  g_assert_cmpint (memcmp (q, x + 4, sizeof q), ==, 0);
  g_assert_cmpint (memcmp (r, x + 8, sizeof r), ==, 0);
  EtValue three = int_value (3);
  g_assert_cmpint (CALL ("aten::split_copy.Tensor_out", &tx.v, &three, &d0, &lo2.v, &lo2.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
  /* A huge split size is one chunk, counted without overflow (test-mutations). */
  EtValue huge = int_value (G_MAXINT64);
  g_assert_cmpint (CALL ("aten::split_copy.Tensor_out", &tx.v, &huge, &d0, &lo2.v, &lo2.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);

  /* unbind along dim -1 -> two [5] tensors. */
  float u0[5], u1[5];
  int64_t s5[1] = { 5 };
  Tensor tu0, tu1;
  tensor_init (&tu0, ET_SCALAR_FLOAT, 1, s5, u0);
  tensor_init (&tu1, ET_SCALAR_FLOAT, 1, s5, u1);
  Tensor *outs3[2] = { &tu0, &tu1 };
  TensorList lo3;
  tensor_list_init (&lo3, 2, outs3, false);
  EtValue dm1 = int_value (-1);
  g_assert_cmpint (CALL ("aten::unbind_copy.int_out", &tx.v, &dm1, &lo3.v, &lo3.v), ==, ET_OK);
  for (int i = 0; i < 5; i++)
    {
      g_assert_cmpfloat (u0[i], ==, x[i * 2]);
      g_assert_cmpfloat (u1[i], ==, x[i * 2 + 1]);
    }

  /* stack the two back along dim -1 (Int converted into Float out). */
  int32_t iu[5] = { 10, 11, 12, 13, 14 };
  Tensor tiu;
  tensor_init (&tiu, ET_SCALAR_INT, 1, s5, iu);
  Tensor *ins[2] = { &tu0, &tiu };
  TensorList li;
  tensor_list_init (&li, 2, ins, false);
  float st[10];
  Tensor tst;
  tensor_init (&tst, ET_SCALAR_FLOAT, 2, sx, st);
  g_assert_cmpint (CALL ("aten::stack.out", &li.v, &dm1, &tst.v, &tst.v), ==, ET_OK);
  for (int i = 0; i < 5; i++)
    {
      g_assert_cmpfloat (st[i * 2], ==, x[i * 2]);
      g_assert_cmpfloat (st[i * 2 + 1], ==, (float) iu[i]);
    }
  /* Shapes that differ. */
  Tensor *ins2[2] = { &tu0, &tx };
  TensorList li2;
  tensor_list_init (&li2, 2, ins2, false);
  g_assert_cmpint (CALL ("aten::stack.out", &li2.v, &d0, &tst.v, &tst.v), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_slice_select_scatter (void)
{
  int64_t x[4 * 3], o[12];
  for (int i = 0; i < 12; i++)
    x[i] = i;
  int64_t sx[2] = { 4, 3 }, ss[2] = { 2, 3 };
  int64_t src[6] = { -1, -2, -3, -4, -5, -6 };
  Tensor tx, to, tsrc;
  tensor_init (&tx, ET_SCALAR_LONG, 2, sx, x);
  tensor_init (&to, ET_SCALAR_LONG, 2, sx, o);
  tensor_init (&tsrc, ET_SCALAR_LONG, 2, ss, src);
  EtValue d0 = int_value (0), start = int_value (-4), none = none_value (), step = int_value (2);
  g_assert_cmpint (CALL ("aten::slice_scatter.out", &tx.v, &tsrc.v, &d0, &start, &none, &step, &to.v, &to.v), ==,
                   ET_OK);
  int64_t want[12] = { -1, -2, -3, 3, 4, 5, -4, -5, -6, 9, 10, 11 };
  g_assert_cmpint (memcmp (o, want, sizeof want), ==, 0);
  EtValue step1 = int_value (1);
  g_assert_cmpint (CALL ("aten::slice_scatter.out", &tx.v, &tsrc.v, &d0, &start, &none, &step1, &to.v, &to.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);

  int64_t row[4] = { 7, 8, 9, 10 };
  int64_t s4[1] = { 4 };
  Tensor trow;
  tensor_init (&trow, ET_SCALAR_LONG, 1, s4, row);
  EtValue d1 = int_value (1), idx = int_value (-1);
  g_assert_cmpint (CALL ("aten::select_scatter.out", &tx.v, &trow.v, &d1, &idx, &to.v, &to.v), ==, ET_OK);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpint (o[i * 3 + j], ==, j == 2 ? row[i] : x[i * 3 + j]);
  EtValue idx3 = int_value (3);
  g_assert_cmpint (CALL ("aten::select_scatter.out", &tx.v, &trow.v, &d1, &idx3, &to.v, &to.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
}

/* ---- Shape and copy ---- */

static void
test_shape_extra (void)
{
  float x[2 * 3 * 4];
  for (int i = 0; i < 24; i++)
    x[i] = (float) i;
  int64_t sx[3] = { 2, 3, 4 };
  Tensor tx;
  tensor_init (&tx, ET_SCALAR_FLOAT, 3, sx, x);
  float o[64];

  /* transpose(0, 2) -> [4, 3, 2] */
  int64_t st[3] = { 4, 3, 2 };
  Tensor to;
  tensor_init (&to, ET_SCALAR_FLOAT, 3, st, o);
  EtValue d0 = int_value (0), dm1 = int_value (-1);
  g_assert_cmpint (CALL ("aten::transpose_copy.int_out", &tx.v, &d0, &dm1, &to.v, &to.v), ==, ET_OK);
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 3; b++)
      for (int c = 0; c < 2; c++)
        g_assert_cmpfloat (o[(a * 3 + b) * 2 + c], ==, x[(c * 3 + b) * 4 + a]);

  /* alias/detach/lift_fresh */
  Tensor tc;
  tensor_init (&tc, ET_SCALAR_FLOAT, 3, sx, o);
  g_assert_cmpint (CALL ("aten::alias_copy.out", &tx.v, &tc.v, &tc.v), ==, ET_OK);
  g_assert_cmpint (memcmp (o, x, sizeof x), ==, 0);
  g_assert_cmpint (CALL ("aten::detach_copy.out", &tx.v, &tc.v, &tc.v), ==, ET_OK);
  g_assert_cmpint (CALL ("aten::lift_fresh_copy.out", &tx.v, &tc.v, &tc.v), ==, ET_OK);
  g_assert_cmpint (CALL ("aten::t_copy.out", &tx.v, &tc.v, &tc.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* t on 2-D */
  int64_t s23[2] = { 2, 3 }, s32[2] = { 3, 2 };
  Tensor t2, tt;
  tensor_init (&t2, ET_SCALAR_FLOAT, 2, s23, x);
  tensor_init (&tt, ET_SCALAR_FLOAT, 2, s32, o);
  g_assert_cmpint (CALL ("aten::t_copy.out", &t2.v, &tt.v, &tt.v), ==, ET_OK);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 2; b++)
      g_assert_cmpfloat (o[a * 2 + b], ==, x[b * 3 + a]);

  /* narrow(dim=2, start=-3, length=2) -> [2, 3, 2] */
  int64_t sn[3] = { 2, 3, 2 };
  Tensor tn;
  tensor_init (&tn, ET_SCALAR_FLOAT, 3, sn, o);
  EtValue d2 = int_value (2), sm3 = int_value (-3), len2 = int_value (2), len4 = int_value (4);
  g_assert_cmpint (CALL ("aten::narrow_copy.out", &tx.v, &d2, &sm3, &len2, &tn.v, &tn.v), ==, ET_OK);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 2; c++)
      g_assert_cmpfloat (o[r * 2 + c], ==, x[r * 4 + 1 + c]);
  g_assert_cmpint (CALL ("aten::narrow_copy.out", &tx.v, &d2, &sm3, &len4, &tn.v, &tn.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);

  /* diagonal(offset=1, dim1=1, dim2=2) -> [2, 3] */
  int64_t sd[2] = { 2, 3 };
  Tensor td;
  tensor_init (&td, ET_SCALAR_FLOAT, 2, sd, o);
  EtValue one = int_value (1);
  g_assert_cmpint (CALL ("aten::diagonal_copy.out", &tx.v, &one, &one, &d2, &td.v, &td.v), ==, ET_OK);
  for (int b = 0; b < 2; b++)
    for (int k = 0; k < 3; k++)
      g_assert_cmpfloat (o[b * 3 + k], ==, x[(b * 3 + k) * 4 + k + 1]);
  /* offset -2 on dims (1, 2): length 1 */
  int64_t sd1[2] = { 2, 1 };
  Tensor td1;
  tensor_init (&td1, ET_SCALAR_FLOAT, 2, sd1, o);
  EtValue m2 = int_value (-2);
  g_assert_cmpint (CALL ("aten::diagonal_copy.out", &tx.v, &m2, &one, &d2, &td1.v, &td1.v), ==, ET_OK);
  g_assert_cmpfloat (o[0], ==, x[2 * 4 + 0]);
  g_assert_cmpfloat (o[1], ==, x[(3 + 2) * 4 + 0]);

  /* unfold(dim=2, size=2, step=2) -> [2, 3, 2, 2] */
  int64_t su[4] = { 2, 3, 2, 2 };
  Tensor tu;
  tensor_init (&tu, ET_SCALAR_FLOAT, 4, su, o);
  g_assert_cmpint (CALL ("aten::unfold_copy.out", &tx.v, &d2, &len2, &len2, &tu.v, &tu.v), ==, ET_OK);
  for (int r = 0; r < 6; r++)
    for (int w = 0; w < 2; w++)
      for (int k = 0; k < 2; k++)
        g_assert_cmpfloat (o[(r * 2 + w) * 2 + k], ==, x[r * 4 + w * 2 + k]);

  /* as_strided: [3, 3] with strides [4, 1], offset 1; reaching past the end fails. */
  int64_t asz[2] = { 3, 3 }, astr[2] = { 4, 1 };
  IntList lsz, lstr;
  int_list_init (&lsz, 2, asz);
  int_list_init (&lstr, 2, astr);
  Tensor tas;
  tensor_init (&tas, ET_SCALAR_FLOAT, 2, asz, o);
  g_assert_cmpint (CALL ("aten::as_strided_copy.out", &tx.v, &lsz.v, &lstr.v, &one, &tas.v, &tas.v), ==, ET_OK);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      g_assert_cmpfloat (o[a * 3 + b], ==, x[1 + a * 4 + b]);
  astr[0] = 12;
  int_list_init (&lstr, 2, astr);
  g_assert_cmpint (CALL ("aten::as_strided_copy.out", &tx.v, &lsz.v, &lstr.v, &one, &tas.v, &tas.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);

  /* view_as_real of a ComplexFloat [3] -> Float [3, 2]; a Float self is refused. */
  float cx[6] = { 1, -1, 2, -2, 3, -3 }, ro[6];
  int64_t s3[1] = { 3 }, s32r[2] = { 3, 2 };
  Tensor tcx, tro;
  tensor_init (&tcx, ET_SCALAR_COMPLEX_FLOAT, 1, s3, cx);
  tensor_init (&tro, ET_SCALAR_FLOAT, 2, s32r, ro);
  g_assert_cmpint (CALL ("aten::view_as_real_copy.out", &tcx.v, &tro.v, &tro.v), ==, ET_OK);
  g_assert_cmpint (memcmp (ro, cx, sizeof cx), ==, 0);
  g_assert_cmpint (CALL ("aten::view_as_real_copy.out", &tro.v, &tro.v, &tro.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* flip dims [0, -1] */
  int64_t fd[2] = { 0, -1 };
  IntList lfd;
  int_list_init (&lfd, 2, fd);
  Tensor tf;
  tensor_init (&tf, ET_SCALAR_FLOAT, 3, sx, o);
  g_assert_cmpint (CALL ("aten::flip.out", &tx.v, &lfd.v, &tf.v, &tf.v), ==, ET_OK);
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 3; b++)
      for (int c = 0; c < 4; c++)
        g_assert_cmpfloat (o[(a * 3 + b) * 4 + c], ==, x[((1 - a) * 3 + b) * 4 + 3 - c]);
}

static void
test_roll_repeat (void)
{
  int32_t x[2 * 3];
  for (int i = 0; i < 6; i++)
    x[i] = i;
  int64_t sx[2] = { 2, 3 };
  Tensor tx;
  tensor_init (&tx, ET_SCALAR_INT, 2, sx, x);
  int32_t o[64];
  Tensor to;
  tensor_init (&to, ET_SCALAR_INT, 2, sx, o);

  /* roll shifts [1, -1] dims [0, 1] */
  int64_t sh[2] = { 1, -1 }, dm[2] = { 0, 1 };
  IntList lsh, ldm;
  int_list_init (&lsh, 2, sh);
  int_list_init (&ldm, 2, dm);
  g_assert_cmpint (CALL ("aten::roll.out", &tx.v, &lsh.v, &ldm.v, &to.v, &to.v), ==, ET_OK);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      g_assert_cmpint (o[i * 3 + j], ==, x[((i + 1) % 2) * 3 + (j + 1) % 3]);
  /* Flattened roll by 2. */
  int64_t s2[1] = { 2 };
  IntList ls2, lnone;
  int_list_init (&ls2, 1, s2);
  int_list_init (&lnone, 0, NULL);
  g_assert_cmpint (CALL ("aten::roll.out", &tx.v, &ls2.v, &lnone.v, &to.v, &to.v), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    g_assert_cmpint (o[i], ==, x[(i + 4) % 6]);
  g_assert_cmpint (CALL ("aten::roll.out", &tx.v, &lsh.v, &lnone.v, &to.v, &to.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* repeat [2, 1, 2] -> [2, 2, 6] */
  int64_t rp[3] = { 2, 1, 2 }, sr[3] = { 2, 2, 6 };
  IntList lrp;
  int_list_init (&lrp, 3, rp);
  Tensor tr;
  tensor_init (&tr, ET_SCALAR_INT, 3, sr, o);
  g_assert_cmpint (CALL ("aten::repeat.out", &tx.v, &lrp.v, &tr.v, &tr.v), ==, ET_OK);
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      for (int c = 0; c < 6; c++)
        g_assert_cmpint (o[(a * 2 + b) * 6 + c], ==, x[b * 3 + c % 3]);
  IntList lshort;
  int_list_init (&lshort, 1, rp);
  g_assert_cmpint (CALL ("aten::repeat.out", &tx.v, &lshort.v, &tr.v, &tr.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* repeat_interleave [2, 0, 3] -> [0, 0, 2, 2, 2] */
  int64_t reps[3] = { 2, 0, 3 }, s3[1] = { 3 }, ri[8], s8[1] = { 8 };
  Tensor treps, tri;
  tensor_init (&treps, ET_SCALAR_LONG, 1, s3, reps);
  tensor_init_dynamic (&tri, ET_SCALAR_LONG, 1, s8, ri, 8);
  EtValue none = none_value ();
  g_assert_cmpint (CALL ("aten::repeat_interleave.Tensor_out", &treps.v, &none, &tri.v, &tri.v), ==, ET_OK);
  g_assert_cmpint (tri.t.sizes[0], ==, 5);
  int64_t want[5] = { 0, 0, 2, 2, 2 };
  g_assert_cmpint (memcmp (ri, want, sizeof want), ==, 0);
  reps[1] = -1;
  g_assert_cmpint (CALL ("aten::repeat_interleave.Tensor_out", &treps.v, &none, &tri.v, &tri.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
}

/* ---- Reductions ---- */

static void
test_any_argmax (void)
{
  float x[2 * 3] = { 0, 0, 0, 0, -0.5f, 0 };
  int64_t sx[2] = { 2, 3 }, s2[1] = { 2 };
  Tensor tx;
  tensor_init (&tx, ET_SCALAR_FLOAT, 2, sx, x);
  bool b[2];
  Tensor tb;
  tensor_init (&tb, ET_SCALAR_BOOL, 1, s2, b);
  int64_t dims[1] = { -1 };
  IntList ld;
  int_list_init (&ld, 1, dims);
  EtValue f = bool_value (false);
  g_assert_cmpint (CALL ("aten::any.dims_out", &tx.v, &ld.v, &f, &tb.v, &tb.v), ==, ET_OK);
  g_assert_false (b[0]);
  g_assert_true (b[1]);
  /* any.dims with [] reduces nothing (eager): an elementwise != 0. */
  IntList lempty;
  int_list_init (&lempty, 0, NULL);
  bool be[6];
  Tensor tbe;
  tensor_init (&tbe, ET_SCALAR_BOOL, 2, sx, be);
  g_assert_cmpint (CALL ("aten::any.dims_out", &tx.v, &lempty.v, &f, &tbe.v, &tbe.v), ==, ET_OK);
  for (int i = 0; i < 6; i++)
    g_assert_true (be[i] == (x[i] != 0));
  EtValue d1 = int_value (1);
  g_assert_cmpint (CALL ("aten::any.out", &tx.v, &d1, &f, &tb.v, &tb.v), ==, ET_OK);
  g_assert_true (b[1]);
  bool all;
  Tensor tall;
  tensor_init (&tall, ET_SCALAR_BOOL, 0, NULL, &all);
  g_assert_cmpint (CALL ("aten::any.all_out", &tx.v, &tall.v, &tall.v), ==, ET_OK);
  g_assert_true (all);
  float o[2];
  Tensor tfo;
  tensor_init (&tfo, ET_SCALAR_FLOAT, 1, s2, o);
  g_assert_cmpint (CALL ("aten::any.out", &tx.v, &d1, &f, &tfo.v, &tfo.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* argmax: ties go to the first index, NaN wins. */
  float y[2 * 3] = { 1, 5, 5, 2, NAN, 9 };
  Tensor ty;
  tensor_init (&ty, ET_SCALAR_FLOAT, 2, sx, y);
  int64_t am[2];
  Tensor tam;
  tensor_init (&tam, ET_SCALAR_LONG, 1, s2, am);
  EtValue dv = int_value (1);
  g_assert_cmpint (CALL ("aten::argmax.out", &ty.v, &dv, &f, &tam.v, &tam.v), ==, ET_OK);
  g_assert_cmpint (am[0], ==, 1);
  g_assert_cmpint (am[1], ==, 1);
  g_assert_cmpint (CALL ("aten::argmin.out", &ty.v, &dv, &f, &tam.v, &tam.v), ==, ET_OK);
  g_assert_cmpint (am[0], ==, 0);
  g_assert_cmpint (am[1], ==, 1);
  /* No dim: the flat index; keepdim gives [1, 1]. */
  int64_t flat;
  Tensor tflat;
  tensor_init (&tflat, ET_SCALAR_LONG, 0, NULL, &flat);
  EtValue none = none_value (), t = bool_value (true);
  y[4] = 0;
  g_assert_cmpint (CALL ("aten::argmax.out", &ty.v, &none, &f, &tflat.v, &tflat.v), ==, ET_OK);
  g_assert_cmpint (flat, ==, 5);
  int64_t s11[2] = { 1, 1 };
  Tensor tk;
  tensor_init (&tk, ET_SCALAR_LONG, 2, s11, &flat);
  g_assert_cmpint (CALL ("aten::argmin.out", &ty.v, &none, &t, &tk.v, &tk.v), ==, ET_OK);
  g_assert_cmpint (flat, ==, 4);
  /* Empty reduction is an error. */
  int64_t s0[1] = { 0 };
  Tensor te;
  tensor_init (&te, ET_SCALAR_FLOAT, 1, s0, NULL);
  g_assert_cmpint (CALL ("aten::argmax.out", &te.v, &none, &f, &tflat.v, &tflat.v), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_extremes (void)
{
  int32_t x[2 * 3 * 2];
  for (int i = 0; i < 12; i++)
    x[i] = (i * 7) % 11 - 5;
  int64_t sx[3] = { 2, 3, 2 }, s3[1] = { 3 };
  Tensor tx;
  tensor_init (&tx, ET_SCALAR_INT, 3, sx, x);

  /* amax over dims [0, 2] -> [3] */
  int64_t dims[2] = { 0, 2 };
  IntList ld;
  int_list_init (&ld, 2, dims);
  int32_t o[3];
  Tensor to;
  tensor_init (&to, ET_SCALAR_INT, 1, s3, o);
  EtValue f = bool_value (false);
  g_assert_cmpint (CALL ("aten::amax.out", &tx.v, &ld.v, &f, &to.v, &to.v), ==, ET_OK);
  for (int j = 0; j < 3; j++)
    {
      int32_t m = INT32_MIN;
      for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++)
          m = MAX (m, x[(a * 3 + j) * 2 + c]);
      g_assert_cmpint (o[j], ==, m);
    }
  g_assert_cmpint (CALL ("aten::amin.out", &tx.v, &ld.v, &f, &to.v, &to.v), ==, ET_OK);
  for (int j = 0; j < 3; j++)
    {
      int32_t m = INT32_MAX;
      for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++)
          m = MIN (m, x[(a * 3 + j) * 2 + c]);
      g_assert_cmpint (o[j], ==, m);
    }
  /* A wrongly typed out. */
  int64_t lo[3];
  Tensor tlo;
  tensor_init (&tlo, ET_SCALAR_LONG, 1, s3, lo);
  g_assert_cmpint (CALL ("aten::amax.out", &tx.v, &ld.v, &f, &tlo.v, &tlo.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* max.dim with keepdim on dim 1 -> [2, 1, 2] values and indices. */
  float y[2 * 3 * 2] = { 1, 2, 3, 2, 3, NAN, 0, 0, -1, 5, 0, 5 };
  Tensor ty;
  tensor_init (&ty, ET_SCALAR_FLOAT, 3, sx, y);
  float mv[4];
  int64_t mi[4], sk[3] = { 2, 1, 2 };
  Tensor tmv, tmi;
  tensor_init (&tmv, ET_SCALAR_FLOAT, 3, sk, mv);
  tensor_init (&tmi, ET_SCALAR_LONG, 3, sk, mi);
  EtValue d1 = int_value (1), t = bool_value (true), ret = none_value ();
  g_assert_cmpint (CALL ("aten::max.dim_max", &ty.v, &d1, &t, &tmv.v, &tmi.v, &ret), ==, ET_OK);
  g_assert_cmpfloat (mv[0], ==, 3);
  g_assert_cmpint (mi[0], ==, 1);
  g_assert_true (isnan (mv[1]));
  g_assert_cmpint (mi[1], ==, 2);
  g_assert_cmpfloat (mv[2], ==, 0);
  g_assert_cmpint (mi[2], ==, 0);
  g_assert_cmpfloat (mv[3], ==, 5);
  g_assert_cmpint (mi[3], ==, 1);
  g_assert_cmpint (CALL ("aten::min.dim_min", &ty.v, &d1, &t, &tmv.v, &tmi.v, &ret), ==, ET_OK);
  g_assert_cmpfloat (mv[0], ==, 1);
  g_assert_cmpint (mi[0], ==, 0);
  g_assert_cmpfloat (mv[2], ==, -1);
  g_assert_cmpint (mi[2], ==, 1);
  float all;
  Tensor tall;
  tensor_init (&tall, ET_SCALAR_FLOAT, 0, NULL, &all);
  g_assert_cmpint (CALL ("aten::max.unary_out", &ty.v, &tall.v, &tall.v), ==, ET_OK);
  g_assert_true (isnan (all));
  g_assert_cmpint (CALL ("aten::min.unary_out", &tx.v, &tall.v, &tall.v), ==, ET_ERROR_INVALID_ARGUMENT);
  int32_t imin;
  Tensor timin;
  tensor_init (&timin, ET_SCALAR_INT, 0, NULL, &imin);
  g_assert_cmpint (CALL ("aten::min.unary_out", &tx.v, &timin.v, &timin.v), ==, ET_OK);
  g_assert_cmpint (imin, ==, -5);
}

static void
test_prod_var_cumsum (void)
{
  int32_t x[2 * 3] = { 1, 2, 3, -4, 5, 6 };
  int64_t sx[2] = { 2, 3 }, s2[1] = { 2 };
  Tensor tx;
  tensor_init (&tx, ET_SCALAR_INT, 2, sx, x);
  int64_t lo[2];
  Tensor tlo;
  tensor_init (&tlo, ET_SCALAR_LONG, 1, s2, lo);
  EtValue d1 = int_value (1), f = bool_value (false), none = none_value ();
  g_assert_cmpint (CALL ("aten::prod.int_out", &tx.v, &d1, &f, &none, &tlo.v, &tlo.v), ==, ET_OK);
  g_assert_cmpint (lo[0], ==, 6);
  g_assert_cmpint (lo[1], ==, -120);
  int64_t all;
  Tensor tall;
  tensor_init (&tall, ET_SCALAR_LONG, 0, NULL, &all);
  g_assert_cmpint (CALL ("aten::prod.out", &tx.v, &none, &tall.v, &tall.v), ==, ET_OK);
  g_assert_cmpint (all, ==, -720);
  /* A dtype that differs from out's. */
  EtValue dt = int_value (ET_SCALAR_FLOAT);
  g_assert_cmpint (CALL ("aten::prod.out", &tx.v, &dt, &tall.v, &tall.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* var with correction 0 and 1; var_mean */
  double y[2 * 3] = { 1, 2, 4, -1, -1, 5 };
  Tensor ty;
  tensor_init (&ty, ET_SCALAR_DOUBLE, 2, sx, y);
  double v[2], m[2];
  Tensor tv, tm;
  tensor_init (&tv, ET_SCALAR_DOUBLE, 1, s2, v);
  tensor_init (&tm, ET_SCALAR_DOUBLE, 1, s2, m);
  int64_t dims[1] = { 1 };
  IntList ld;
  int_list_init (&ld, 1, dims);
  EtValue c0 = int_value (0);
  g_assert_cmpint (CALL ("aten::var.correction_out", &ty.v, &ld.v, &c0, &f, &tv.v, &tv.v), ==, ET_OK);
  for (int r = 0; r < 2; r++)
    {
      double mu = (y[r * 3] + y[r * 3 + 1] + y[r * 3 + 2]) / 3, ss = 0;
      for (int k = 0; k < 3; k++)
        ss += (y[r * 3 + k] - mu) * (y[r * 3 + k] - mu);
      assert_close (v[r], ss / 3, 1e-12);
    }
  EtValue t = bool_value (true), ret = none_value ();
  g_assert_cmpint (CALL ("aten::var.out", &ty.v, &ld.v, &t, &f, &tv.v, &tv.v), ==, ET_OK);
  assert_close (v[0], 7 / 3.0, 1e-12);
  g_assert_cmpint (CALL ("aten::var_mean.correction_out", &ty.v, &ld.v, &none, &f, &tv.v, &tm.v, &ret), ==, ET_OK);
  assert_close (m[0], 7 / 3.0, 1e-12);
  assert_close (m[1], 1.0, 1e-12);
  assert_close (v[1], 12.0, 1e-12);
  g_assert_cmpint (CALL ("aten::var.out", &tx.v, &ld.v, &t, &f, &tv.v, &tv.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* cumsum of Int into Long along dim 0, and along -1 with Float out. */
  int64_t cs[6];
  Tensor tcs;
  tensor_init (&tcs, ET_SCALAR_LONG, 2, sx, cs);
  EtValue d0 = int_value (0), dl = int_value (ET_SCALAR_LONG);
  g_assert_cmpint (CALL ("aten::cumsum.out", &tx.v, &d0, &dl, &tcs.v, &tcs.v), ==, ET_OK);
  int64_t want[6] = { 1, 2, 3, -3, 7, 9 };
  g_assert_cmpint (memcmp (cs, want, sizeof want), ==, 0);
  float fcs[6];
  Tensor tfcs;
  tensor_init (&tfcs, ET_SCALAR_FLOAT, 2, sx, fcs);
  EtValue dm1 = int_value (-1);
  g_assert_cmpint (CALL ("aten::cumsum.out", &tx.v, &dm1, &none, &tfcs.v, &tfcs.v), ==, ET_OK);
  float wantf[6] = { 1, 3, 6, -4, 1, 7 };
  g_assert_cmpint (memcmp (fcs, wantf, sizeof wantf), ==, 0);
  int8_t bcs[6];
  Tensor tbcs;
  tensor_init (&tbcs, ET_SCALAR_BOOL, 2, sx, bcs);
  g_assert_cmpint (CALL ("aten::cumsum.out", &tx.v, &dm1, &none, &tbcs.v, &tbcs.v), ==, ET_ERROR_INVALID_ARGUMENT);
}

static void
test_topk (void)
{
  float x[2 * 5] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3 };
  int64_t sx[2] = { 2, 5 }, sk[2] = { 2, 3 };
  Tensor tx;
  tensor_init (&tx, ET_SCALAR_FLOAT, 2, sx, x);
  float v[6];
  int64_t idx[6];
  Tensor tv, ti;
  tensor_init (&tv, ET_SCALAR_FLOAT, 2, sk, v);
  tensor_init (&ti, ET_SCALAR_LONG, 2, sk, idx);
  EtValue k = int_value (3), dm1 = int_value (-1), t = bool_value (true), f = bool_value (false);
  EtValue ret = none_value ();
  g_assert_cmpint (CALL ("aten::topk.values", &tx.v, &k, &dm1, &t, &t, &tv.v, &ti.v, &ret), ==, ET_OK);
  float wv[6] = { 5, 4, 3, 9, 6, 5 };
  int64_t wi[6] = { 4, 2, 0, 0, 2, 3 };
  g_assert_cmpint (memcmp (v, wv, sizeof wv), ==, 0);
  g_assert_cmpint (memcmp (idx, wi, sizeof wi), ==, 0);
  g_assert_cmpint (CALL ("aten::topk.values", &tx.v, &k, &dm1, &f, &t, &tv.v, &ti.v, &ret), ==, ET_OK);
  float sv[6] = { 1, 1, 3, 2, 3, 5 };
  int64_t si[6] = { 1, 3, 0, 1, 4, 3 };
  g_assert_cmpint (memcmp (v, sv, sizeof sv), ==, 0);
  g_assert_cmpint (memcmp (idx, si, sizeof si), ==, 0);
  /* topk along dim 0 writes through strided outs. */
  int64_t s1[2] = { 1, 5 };
  Tensor tv1, ti1;
  tensor_init (&tv1, ET_SCALAR_FLOAT, 2, s1, v);
  tensor_init (&ti1, ET_SCALAR_LONG, 2, s1, idx);
  EtValue one = int_value (1), d0 = int_value (0);
  g_assert_cmpint (CALL ("aten::topk.values", &tx.v, &one, &d0, &t, &t, &tv1.v, &ti1.v, &ret), ==, ET_OK);
  for (int j = 0; j < 5; j++)
    {
      g_assert_cmpfloat (v[j], ==, MAX (x[j], x[5 + j]));
      g_assert_cmpint (idx[j], ==, x[5 + j] > x[j] ? 1 : 0);
    }
  EtValue k6 = int_value (6);
  g_assert_cmpint (CALL ("aten::topk.values", &tx.v, &k6, &dm1, &t, &t, &tv.v, &ti.v, &ret), ==,
                   ET_ERROR_INVALID_ARGUMENT);
}

/* ---- Existing shape kernels: cat ---- */

static void
test_cat_converts_and_skips_empty (void)
{
  int32_t a[2 * 2] = { 1, 2, 3, 4 };
  float b[2 * 1] = { 0.5f, 1.5f };
  int64_t sa[2] = { 2, 2 }, sb[2] = { 2, 1 }, se[1] = { 0 }, so[2] = { 2, 3 };
  Tensor ta, tb, te, to;
  tensor_init (&ta, ET_SCALAR_INT, 2, sa, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 2, sb, b);
  tensor_init (&te, ET_SCALAR_FLOAT, 1, se, NULL);
  float o[6];
  tensor_init (&to, ET_SCALAR_FLOAT, 2, so, o);
  Tensor *items[3] = { &te, &ta, &tb };
  TensorList l;
  tensor_list_init (&l, 3, items, false);
  EtValue d1 = int_value (1);
  g_assert_cmpint (CALL ("aten::cat.out", &l.v, &d1, &to.v, &to.v), ==, ET_OK);
  float want[6] = { 1, 2, 0.5f, 3, 4, 1.5f };
  g_assert_cmpint (memcmp (o, want, sizeof want), ==, 0);
}

/* ---- llama:: custom ops ---- */

/* Reference attention over the first kv_len cache rows, in double. */
static void
ref_sdpa (const float *q, const float *k, const float *v, int B, int S, int Hq, int Hkv, int D, int Smax, int start_pos,
          bool causal, const float *mask, float *out)
{
  int kv_len = start_pos + S;
  for (int b = 0; b < B; b++)
    for (int i = 0; i < S; i++)
      for (int h = 0; h < Hq; h++)
        {
          int hk = h / (Hq / Hkv);
          double sc[64], mx = -INFINITY, sum = 0;
          int n = causal ? start_pos + i + 1 : kv_len;
          for (int j = 0; j < n; j++)
            {
              double s = 0;
              for (int d = 0; d < D; d++)
                s += (double) q[((b * S + i) * Hq + h) * D + d] * k[((b * Smax + j) * Hkv + hk) * D + d];
              s /= sqrt ((double) D);
              if (mask)
                s += mask[i * kv_len + j];
              sc[j] = s;
              mx = MAX (mx, s);
            }
          for (int j = 0; j < n; j++)
            sum += exp (sc[j] - mx);
          for (int d = 0; d < D; d++)
            {
              double acc = 0;
              for (int j = 0; j < n; j++)
                acc += exp (sc[j] - mx) / sum * v[((b * Smax + j) * Hkv + hk) * D + d];
              out[((b * S + i) * Hq + h) * D + d] = (float) acc;
            }
        }
}

static void
test_llama_update_cache (void)
{
  enum
  {
    B = 2,
    SMAX = 6,
    H = 2,
    D = 3,
    S = 2
  };
  float cache[B * SMAX * H * D] = { 0 }, val[B * S * H * D], dummy;
  for (int i = 0; i < B * S * H * D; i++)
    val[i] = (float) (i + 1);
  int64_t sc[4] = { B, SMAX, H, D }, sv[4] = { B, S, H, D }, s1[1] = { 1 };
  Tensor tc, tv, td;
  tensor_init (&tc, ET_SCALAR_FLOAT, 4, sc, cache);
  tensor_init (&tv, ET_SCALAR_FLOAT, 4, sv, val);
  tensor_init (&td, ET_SCALAR_FLOAT, 1, s1, &dummy);
  EtValue pos = int_value (3);
  g_assert_cmpint (CALL ("llama::update_cache.out", &tv.v, &tc.v, &pos, &td.v, &td.v), ==, ET_OK);
  for (int b = 0; b < B; b++)
    for (int s = 0; s < SMAX; s++)
      for (int e = 0; e < H * D; e++)
        {
          float want = (s >= 3 && s < 3 + S) ? val[(b * S + s - 3) * H * D + e] : 0.0f;
          g_assert_cmpfloat (cache[(b * SMAX + s) * H * D + e], ==, want);
        }
  EtValue bad = int_value (5);
  g_assert_cmpint (CALL ("llama::update_cache.out", &tv.v, &tc.v, &bad, &td.v, &td.v), ==, ET_ERROR_INVALID_ARGUMENT);
  EtValue neg = int_value (-1);
  g_assert_cmpint (CALL ("llama::update_cache.out", &tv.v, &tc.v, &neg, &td.v, &td.v), ==, ET_ERROR_INVALID_ARGUMENT);

  /* With indices: token (b, s) goes to row idx[b][s]. */
  int64_t idx[B * S] = { 5, 0, 1, 5 }, si[2] = { B, S };
  Tensor ti;
  tensor_init (&ti, ET_SCALAR_LONG, 2, si, idx);
  EtValue zero = int_value (0);
  g_assert_cmpint (CALL ("llama::update_cache_with_indices.out", &tv.v, &tc.v, &zero, &ti.v, &td.v, &td.v), ==, ET_OK);
  for (int b = 0; b < B; b++)
    for (int s = 0; s < S; s++)
      g_assert_cmpint (memcmp (cache + (b * SMAX + idx[b * S + s]) * H * D, val + (b * S + s) * H * D,
                               H * D * sizeof (float)),
                       ==, 0);
  idx[3] = 6;
  g_assert_cmpint (CALL ("llama::update_cache_with_indices.out", &tv.v, &tc.v, &zero, &ti.v, &td.v, &td.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
}

static void
test_llama_sdpa (void)
{
  enum
  {
    B = 1,
    SMAX = 8,
    HQ = 4,
    HKV = 2,
    D = 5,
    S = 3
  };
  static float q[B * S * HQ * D], kc[B * SMAX * HKV * D], vc[B * SMAX * HKV * D];
  static float o[B * S * HQ * D], want[B * S * HQ * D];
  for (size_t i = 0; i < G_N_ELEMENTS (q); i++)
    q[i] = (float) g_test_rand_double_range (-1, 1);
  for (size_t i = 0; i < G_N_ELEMENTS (kc); i++)
    {
      kc[i] = (float) g_test_rand_double_range (-1, 1);
      vc[i] = (float) g_test_rand_double_range (-1, 1);
    }
  int64_t sq[4] = { B, S, HQ, D }, sc[4] = { B, SMAX, HKV, D };
  Tensor tq, tk, tv, to;
  tensor_init (&tq, ET_SCALAR_FLOAT, 4, sq, q);
  tensor_init (&tk, ET_SCALAR_FLOAT, 4, sc, kc);
  tensor_init (&tv, ET_SCALAR_FLOAT, 4, sc, vc);
  tensor_init (&to, ET_SCALAR_FLOAT, 4, sq, o);
  EtValue pos = int_value (2), none = none_value (), drop = double_value (0.0);
  EtValue causal = bool_value (true), nocausal = bool_value (false);

  for (int c = 0; c < 2; c++)
    {
      g_assert_cmpint (CALL ("llama::custom_sdpa.out", &tq.v, &tk.v, &tv.v, &pos, &none, &drop, c ? &causal : &nocausal,
                             &none, &to.v, &to.v),
                       ==, ET_OK);
      ref_sdpa (q, kc, vc, B, S, HQ, HKV, D, SMAX, 2, c, NULL, want);
      for (size_t i = 0; i < G_N_ELEMENTS (o); i++)
        assert_close (o[i], want[i], 1e-5);
    }

  /* An additive float mask [S, start_pos + S]. */
  float mask[S * 5];
  for (int i = 0; i < S * 5; i++)
    mask[i] = (i % 3 == 0) ? -INFINITY : (float) (i % 4) * 0.25f;
  int64_t sm[2] = { S, 5 };
  Tensor tm;
  tensor_init (&tm, ET_SCALAR_FLOAT, 2, sm, mask);
  g_assert_cmpint (CALL ("llama::custom_sdpa.out", &tq.v, &tk.v, &tv.v, &pos, &tm.v, &drop, &nocausal, &none, &to.v,
                         &to.v),
                   ==, ET_OK);
  ref_sdpa (q, kc, vc, B, S, HQ, HKV, D, SMAX, 2, false, mask, want);
  for (size_t i = 0; i < G_N_ELEMENTS (o); i++)
    assert_close (o[i], want[i], 1e-5);
  /* A mask over the whole cache [S, SMAX] (newer upstream): keys past
   * start_pos + S masked with -inf give the same result. */
  float wide[S * SMAX];
  for (int i = 0; i < S; i++)
    for (int j = 0; j < SMAX; j++)
      wide[i * SMAX + j] = j < 5 ? mask[i * 5 + j] : -INFINITY;
  int64_t sw[2] = { S, SMAX };
  Tensor tw;
  tensor_init (&tw, ET_SCALAR_FLOAT, 2, sw, wide);
  g_assert_cmpint (CALL ("llama::custom_sdpa.out", &tq.v, &tk.v, &tv.v, &pos, &tw.v, &drop, &nocausal, &none, &to.v,
                         &to.v),
                   ==, ET_OK);
  for (size_t i = 0; i < G_N_ELEMENTS (o); i++)
    assert_close (o[i], want[i], 1e-5);

  /* is_seq_dim_2: the same data laid out [B, H, S, D]. */
  static float qt[B * HQ * S * D], kt[B * HKV * SMAX * D], vt[B * HKV * SMAX * D], ot[B * HQ * S * D];
  for (int i = 0; i < S; i++)
    for (int h = 0; h < HQ; h++)
      memcpy (qt + (h * S + i) * D, q + (i * HQ + h) * D, D * sizeof (float));
  for (int j = 0; j < SMAX; j++)
    for (int h = 0; h < HKV; h++)
      {
        memcpy (kt + (h * SMAX + j) * D, kc + (j * HKV + h) * D, D * sizeof (float));
        memcpy (vt + (h * SMAX + j) * D, vc + (j * HKV + h) * D, D * sizeof (float));
      }
  int64_t sqt[4] = { B, HQ, S, D }, skt[4] = { B, HKV, SMAX, D };
  Tensor tqt, tkt, tvt, tot;
  tensor_init (&tqt, ET_SCALAR_FLOAT, 4, sqt, qt);
  tensor_init (&tkt, ET_SCALAR_FLOAT, 4, skt, kt);
  tensor_init (&tvt, ET_SCALAR_FLOAT, 4, skt, vt);
  tensor_init (&tot, ET_SCALAR_FLOAT, 4, sqt, ot);
  EtValue t2 = bool_value (true);
  g_assert_cmpint (CALL ("llama::custom_sdpa.out", &tqt.v, &tkt.v, &tvt.v, &pos, &none, &drop, &causal, &none, &t2,
                         &tot.v, &tot.v),
                   ==, ET_OK);
  ref_sdpa (q, kc, vc, B, S, HQ, HKV, D, SMAX, 2, true, NULL, want);
  for (int i = 0; i < S; i++)
    for (int h = 0; h < HQ; h++)
      for (int d = 0; d < D; d++)
        assert_close (ot[(h * S + i) * D + d], want[(i * HQ + h) * D + d], 1e-5);

  /* Mask plus is_causal, a wrong mask shape, start_pos past the cache. */
  g_assert_cmpint (CALL ("llama::custom_sdpa.out", &tq.v, &tk.v, &tv.v, &pos, &tm.v, &drop, &causal, &none, &to.v,
                         &to.v),
                   ==, ET_ERROR_INVALID_ARGUMENT);
  EtValue pos3 = int_value (3);
  g_assert_cmpint (CALL ("llama::custom_sdpa.out", &tq.v, &tk.v, &tv.v, &pos3, &tm.v, &drop, &nocausal, &none, &to.v,
                         &to.v),
                   ==, ET_ERROR_INVALID_ARGUMENT);
  EtValue pos6 = int_value (6);
  g_assert_cmpint (CALL ("llama::custom_sdpa.out", &tq.v, &tk.v, &tv.v, &pos6, &none, &drop, &causal, &none, &to.v,
                         &to.v),
                   ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (CALL ("llama::custom_sdpa.out", &tq.v, &tk.v, &tv.v, &pos6, &none, &drop, &causal, &none, &to.v), ==,
                   ET_ERROR_INVALID_PROGRAM);

  /* sdpa_with_kv_cache writes k, v at start_pos and attends causally. */
  static float kn[B * S * HKV * D], vn[B * S * HKV * D];
  for (size_t i = 0; i < G_N_ELEMENTS (kn); i++)
    {
      kn[i] = (float) g_test_rand_double_range (-1, 1);
      vn[i] = (float) g_test_rand_double_range (-1, 1);
    }
  int64_t skv[4] = { B, S, HKV, D };
  Tensor tkn, tvn;
  tensor_init (&tkn, ET_SCALAR_FLOAT, 4, skv, kn);
  tensor_init (&tvn, ET_SCALAR_FLOAT, 4, skv, vn);
  EtValue seq = int_value (S), scale = none_value ();
  g_assert_cmpint (CALL ("llama::sdpa_with_kv_cache.out", &tq.v, &tkn.v, &tvn.v, &tk.v, &tv.v, &pos, &seq, &none, &drop,
                         &causal, &scale, &to.v, &to.v),
                   ==, ET_OK);
  g_assert_cmpint (memcmp (kc + 2 * HKV * D, kn, sizeof kn), ==, 0);
  g_assert_cmpint (memcmp (vc + 2 * HKV * D, vn, sizeof vn), ==, 0);
  ref_sdpa (q, kc, vc, B, S, HQ, HKV, D, SMAX, 2, true, NULL, want);
  for (size_t i = 0; i < G_N_ELEMENTS (o); i++)
    assert_close (o[i], want[i], 1e-5);
  EtValue seq2 = int_value (2);
  g_assert_cmpint (CALL ("llama::sdpa_with_kv_cache.out", &tq.v, &tkn.v, &tvn.v, &tk.v, &tv.v, &pos, &seq2, &none,
                         &drop, &causal, &scale, &to.v, &to.v),
                   ==, ET_ERROR_INVALID_ARGUMENT);
}

/* ---- Randomised index / index_put against an element-wise reference ---- */

static int64_t
offset_of (const EtTensor *t, const int64_t *idx)
{
  int64_t o = 0;
  for (uint32_t d = 0; d < t->ndim; d++)
    o += idx[d] * t->strides[d];
  return o;
}

static void
test_index_random (void)
{
  for (int iter = 0; iter < 200; iter++)
    {
      uint32_t ndim = (uint32_t) g_test_rand_int_range (1, 5);
      int64_t sizes[4];
      for (uint32_t d = 0; d < ndim; d++)
        sizes[d] = g_test_rand_int_range (1, 5);
      uint8_t order[4], oorder[5];
      random_dim_order (ndim, order);
      int64_t numel = 1;
      for (uint32_t d = 0; d < ndim; d++)
        numel *= sizes[d];
      int32_t *x = g_new (int32_t, numel);
      for (int64_t i = 0; i < numel; i++)
        x[i] = g_test_rand_int_range (-1000, 1000);
      Tensor tx;
      tensor_init_full (&tx, ET_SCALAR_INT, ndim, sizes, order, x, ET_SHAPE_STATIC, 0);

      /* Entries: None or a 1-D Long index of length n (or 1, broadcasting). */
      uint32_t n_entries = (uint32_t) g_test_rand_int_range (1, (gint32) ndim + 1);
      int64_t n = g_test_rand_int_range (1, 4);
      int64_t idx[4][3], ilen[4];
      bool indexed[4] = { false };
      Tensor ti[4], *items[4];
      uint32_t n_src = 0;
      for (uint32_t e = 0; e < n_entries; e++)
        {
          if (g_test_rand_bit () && !(e == n_entries - 1 && n_src == 0))
            {
              items[e] = NULL;
              continue;
            }
          indexed[e] = true;
          ilen[e] = g_test_rand_bit () ? n : 1;
          for (int64_t k = 0; k < ilen[e]; k++)
            idx[e][k] = g_test_rand_int_range ((gint32) -sizes[e], (gint32) sizes[e]);
          tensor_init (&ti[e], ET_SCALAR_LONG, 1, &ilen[e], idx[e]);
          items[e] = &ti[e];
          n_src++;
        }
      int64_t bn = 1;
      for (uint32_t e = 0; e < n_entries; e++)
        if (indexed[e] && ilen[e] > bn)
          bn = ilen[e];
      int first = -1, last = -1;
      for (uint32_t e = 0; e < n_entries; e++)
        if (indexed[e])
          {
            if (first < 0)
              first = (int) e;
            last = (int) e;
          }
      bool adjacent = true;
      for (int e = first; e <= last; e++)
        if (!indexed[e])
          adjacent = false;
      /* Result dims: -1 marks the B dim, otherwise the self dim. */
      int rdims[5], nr = 0;
      if (adjacent)
        {
          for (int d = 0; d < first; d++)
            rdims[nr++] = d;
          rdims[nr++] = -1;
          for (int d = last + 1; d < (int) ndim; d++)
            rdims[nr++] = d;
        }
      else
        {
          rdims[nr++] = -1;
          for (int d = 0; d < (int) ndim; d++)
            if (!(d < (int) n_entries && indexed[d]))
              rdims[nr++] = d;
        }
      int64_t rsizes[5], rnumel = 1;
      for (int r = 0; r < nr; r++)
        {
          rsizes[r] = rdims[r] < 0 ? bn : sizes[rdims[r]];
          rnumel *= rsizes[r];
        }
      random_dim_order ((uint32_t) nr, oorder);
      int32_t *o = g_new (int32_t, rnumel);
      Tensor to;
      tensor_init_full (&to, ET_SCALAR_INT, (uint32_t) nr, rsizes, oorder, o, ET_SHAPE_STATIC, 0);
      TensorList l;
      tensor_list_init (&l, n_entries, items, true);
      g_assert_cmpint (CALL ("aten::index.Tensor_out", &tx.v, &l.v, &to.v, &to.v), ==, ET_OK);

      /* index_put: out = x with the same positions set to v (accumulated). */
      int32_t *v = g_new (int32_t, rnumel), *po = g_new (int32_t, numel), *want = g_new (int32_t, numel);
      for (int64_t i = 0; i < rnumel; i++)
        v[i] = g_test_rand_int_range (-50, 50);
      Tensor tv, tpo;
      tensor_init (&tv, ET_SCALAR_INT, (uint32_t) nr, rsizes, v);
      tensor_init_full (&tpo, ET_SCALAR_INT, ndim, sizes, order, po, ET_SHAPE_STATIC, 0);
      EtValue acc = bool_value (true);
      g_assert_cmpint (CALL ("aten::index_put.out", &tx.v, &l.v, &tv.v, &acc, &tpo.v, &tpo.v), ==, ET_OK);
      memcpy (want, x, (size_t) numel * sizeof (int32_t));

      int64_t r_idx[5] = { 0 };
      for (int64_t e = 0; e < rnumel; e++)
        {
          int64_t s_idx[4] = { 0 }, b = 0;
          for (int r = 0; r < nr; r++)
            if (rdims[r] < 0)
              b = r_idx[r];
            else
              s_idx[rdims[r]] = r_idx[r];
          for (uint32_t d = 0; d < n_entries; d++)
            if (indexed[d])
              {
                int64_t k = idx[d][ilen[d] == 1 ? 0 : b];
                s_idx[d] = k < 0 ? k + sizes[d] : k;
              }
          int32_t got = o[offset_of (&to.t, r_idx)];
          g_assert_cmpint (got, ==, x[offset_of (&tx.t, s_idx)]);
          want[offset_of (&tx.t, s_idx)] += v[e];
          for (int r = nr; r-- > 0;)
            {
              if (++r_idx[r] < rsizes[r])
                break;
              r_idx[r] = 0;
            }
        }
      g_assert_cmpint (memcmp (po, want, (size_t) numel * sizeof (int32_t)), ==, 0);
      g_free (x);
      g_free (o);
      g_free (v);
      g_free (po);
      g_free (want);
    }
}

/* ---- Randomised reductions over dim orders against a reference ---- */

static void
test_reduce_random (void)
{
  for (int iter = 0; iter < 100; iter++)
    {
      uint32_t ndim = (uint32_t) g_test_rand_int_range (1, 5);
      int64_t sizes[4], numel = 1;
      for (uint32_t d = 0; d < ndim; d++)
        {
          sizes[d] = g_test_rand_int_range (1, 5);
          numel *= sizes[d];
        }
      uint8_t order[4], oorder[4];
      random_dim_order (ndim, order);
      random_dim_order (ndim, oorder);
      uint32_t dim = (uint32_t) g_test_rand_int_range (0, (gint32) ndim);
      double *x = g_new (double, numel);
      for (int64_t i = 0; i < numel; i++)
        x[i] = (double) g_test_rand_int_range (-4, 5); /* ties on purpose */
      Tensor tx;
      tensor_init_full (&tx, ET_SCALAR_DOUBLE, ndim, sizes, order, x, ET_SHAPE_STATIC, 0);

      /* keepdim outputs share self's rank, so they can take a random dim order. */
      int64_t ksizes[4];
      memcpy (ksizes, sizes, sizeof ksizes);
      ksizes[dim] = 1;
      int64_t kn = numel / sizes[dim];
      double *mx = g_new (double, kn), *cs = g_new (double, numel), *var = g_new (double, kn);
      int64_t *am = g_new (int64_t, kn);
      Tensor tmx, tam, tcs, tvar;
      tensor_init_full (&tmx, ET_SCALAR_DOUBLE, ndim, ksizes, oorder, mx, ET_SHAPE_STATIC, 0);
      tensor_init_full (&tam, ET_SCALAR_LONG, ndim, ksizes, oorder, am, ET_SHAPE_STATIC, 0);
      tensor_init_full (&tcs, ET_SCALAR_DOUBLE, ndim, sizes, oorder, cs, ET_SHAPE_STATIC, 0);
      tensor_init_full (&tvar, ET_SCALAR_DOUBLE, ndim, ksizes, oorder, var, ET_SHAPE_STATIC, 0);
      EtValue dv = int_value (dim), t = bool_value (true), none = none_value (), ret = none_value ();
      IntList ld;
      int64_t dl[1] = { dim };
      int_list_init (&ld, 1, dl);
      g_assert_cmpint (CALL ("aten::max.dim_max", &tx.v, &dv, &t, &tmx.v, &tam.v, &ret), ==, ET_OK);
      g_assert_cmpint (CALL ("aten::cumsum.out", &tx.v, &dv, &none, &tcs.v, &tcs.v), ==, ET_OK);
      g_assert_cmpint (CALL ("aten::var.correction_out", &tx.v, &ld.v, &none, &t, &tvar.v, &tvar.v), ==, ET_OK);
      /* topk with k = 2 (or 1) along dim, largest first. */
      int64_t k = MIN (2, sizes[dim]), tsizes[4];
      memcpy (tsizes, sizes, sizeof tsizes);
      tsizes[dim] = k;
      int64_t tn = kn * k;
      double *tv = g_new (double, tn);
      int64_t *ti = g_new (int64_t, tn);
      Tensor ttv, tti;
      tensor_init_full (&ttv, ET_SCALAR_DOUBLE, ndim, tsizes, oorder, tv, ET_SHAPE_STATIC, 0);
      tensor_init_full (&tti, ET_SCALAR_LONG, ndim, tsizes, oorder, ti, ET_SHAPE_STATIC, 0);
      EtValue kv = int_value (k);
      g_assert_cmpint (CALL ("aten::topk.values", &tx.v, &kv, &dv, &t, &t, &ttv.v, &tti.v, &ret), ==, ET_OK);

      /* Walk every line along dim. */
      int64_t idx[4] = { 0 };
      for (int64_t line = 0; line < kn; line++)
        {
          int64_t best = 0, o_idx[4];
          double sum = 0, sq = 0, run = 0;
          memcpy (o_idx, idx, sizeof o_idx);
          for (int64_t j = 0; j < sizes[dim]; j++)
            {
              idx[dim] = j;
              double v = x[offset_of (&tx.t, idx)];
              idx[dim] = best;
              if (v > x[offset_of (&tx.t, idx)])
                best = j;
              run += v;
              idx[dim] = j;
              g_assert_cmpfloat (cs[offset_of (&tcs.t, idx)], ==, run);
              sum += v;
            }
          double mean = sum / (double) sizes[dim];
          for (int64_t j = 0; j < sizes[dim]; j++)
            {
              idx[dim] = j;
              sq += (x[offset_of (&tx.t, idx)] - mean) * (x[offset_of (&tx.t, idx)] - mean);
            }
          o_idx[dim] = 0;
          g_assert_cmpint (am[offset_of (&tam.t, o_idx)], ==, best);
          idx[dim] = best;
          g_assert_cmpfloat (mx[offset_of (&tmx.t, o_idx)], ==, x[offset_of (&tx.t, idx)]);
          double want_var = sizes[dim] > 1 ? sq / (double) (sizes[dim] - 1) : (sq > 0 ? INFINITY : NAN);
          assert_close (var[offset_of (&tvar.t, o_idx)], want_var, 1e-12);
          /* topk[0] is the max (first index on ties); topk[1] is the next one. */
          g_assert_cmpint (ti[offset_of (&tti.t, o_idx)], ==, best);
          if (k == 2)
            {
              o_idx[dim] = 1;
              int64_t second = -1;
              for (int64_t j = 0; j < sizes[dim]; j++)
                {
                  if (j == best)
                    continue;
                  idx[dim] = j;
                  double v = x[offset_of (&tx.t, idx)];
                  if (second < 0)
                    {
                      second = j;
                      continue;
                    }
                  idx[dim] = second;
                  if (v > x[offset_of (&tx.t, idx)])
                    second = j;
                }
              g_assert_cmpint (ti[offset_of (&tti.t, o_idx)], ==, second);
              idx[dim] = second;
              g_assert_cmpfloat (tv[offset_of (&ttv.t, o_idx)], ==, x[offset_of (&tx.t, idx)]);
            }
          /* Next line: advance every dim but dim. */
          idx[dim] = 0;
          for (uint32_t d = ndim; d-- > 0;)
            {
              if (d == dim)
                continue;
              if (++idx[d] < sizes[d])
                break;
              idx[d] = 0;
            }
        }
      g_free (x);
      g_free (mx);
      g_free (cs);
      g_free (var);
      g_free (am);
      g_free (tv);
      g_free (ti);
    }
}

/* ---- Distances ---- */

static double
ref_dist (const float *a, const float *b, int m, double p)
{
  double acc = 0;
  for (int k = 0; k < m; k++)
    {
      double d = fabs ((double) a[k] - b[k]);
      if (p == 0)
        acc += d != 0;
      else if (isinf (p))
        acc = MAX (acc, d);
      else
        acc += pow (d, p);
    }
  return (p == 0 || isinf (p)) ? acc : pow (acc, 1 / p);
}

static void
test_distances (void)
{
  /* x1 [2, 3, 4] with x2 [1, 5, 4]: batch broadcasts to 2, out [2, 3, 5]. */
  float x1[24], x2[20], o[30];
  for (int i = 0; i < 24; i++)
    x1[i] = (float) g_test_rand_int_range (-3, 4);
  for (int i = 0; i < 20; i++)
    x2[i] = (float) g_test_rand_int_range (-3, 4);
  int64_t s1[3] = { 2, 3, 4 }, s2[3] = { 1, 5, 4 }, so[3] = { 2, 3, 5 };
  Tensor t1, t2, to;
  tensor_init (&t1, ET_SCALAR_FLOAT, 3, s1, x1);
  tensor_init (&t2, ET_SCALAR_FLOAT, 3, s2, x2);
  tensor_init (&to, ET_SCALAR_FLOAT, 3, so, o);
  double ps[5] = { 0, 1, 2, 3.5, INFINITY };
  EtValue none = none_value ();
  for (int k = 0; k < 5; k++)
    {
      EtValue pv = double_value (ps[k]);
      g_assert_cmpint (CALL ("aten::_cdist_forward.out", &t1.v, &t2.v, &pv, &none, &to.v, &to.v), ==, ET_OK);
      for (int b = 0; b < 2; b++)
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 5; j++)
            assert_close (o[(b * 3 + i) * 5 + j], ref_dist (x1 + (b * 3 + i) * 4, x2 + j * 4, 4, ps[k]), 1e-6);
    }
  EtValue neg = double_value (-1);
  g_assert_cmpint (CALL ("aten::_cdist_forward.out", &t1.v, &t2.v, &neg, &none, &to.v, &to.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);
  int64_t s3[2] = { 5, 3 };
  Tensor t3;
  tensor_init (&t3, ET_SCALAR_FLOAT, 2, s3, x2);
  EtValue two = double_value (2);
  g_assert_cmpint (CALL ("aten::_cdist_forward.out", &t1.v, &t3.v, &two, &none, &to.v, &to.v), ==,
                   ET_ERROR_INVALID_ARGUMENT);

  /* pdist of [4, 4] rows -> 6 pairs in (0,1), (0,2), ... order. */
  int64_t sp[2] = { 4, 4 }, s6[1] = { 6 };
  Tensor tp, tpo;
  tensor_init (&tp, ET_SCALAR_FLOAT, 2, sp, x1);
  tensor_init (&tpo, ET_SCALAR_FLOAT, 1, s6, o);
  g_assert_cmpint (CALL ("aten::_pdist_forward.out", &tp.v, &two, &tpo.v, &tpo.v), ==, ET_OK);
  int w = 0;
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++, w++)
      assert_close (o[w], ref_dist (x1 + i * 4, x1 + j * 4, 4, 2), 1e-6);
  g_assert_cmpint (CALL ("aten::_pdist_forward.out", &t1.v, &two, &tpo.v, &tpo.v), ==, ET_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  register_kernels_plugin ();

  g_test_add_func ("/index-kernels/index/basic", test_index_tensor);
  g_test_add_func ("/index-kernels/index/non-adjacent", test_index_tensor_non_adjacent);
  g_test_add_func ("/index-kernels/index/random", test_index_random);
  g_test_add_func ("/index-kernels/index-put/kv-cache", test_index_put_kv_cache);
  g_test_add_func ("/index-kernels/index-put/accumulate-mask", test_index_put_accumulate);
  g_test_add_func ("/index-kernels/embedding/basic", test_embedding);
  g_test_add_func ("/index-kernels/index-select/basic", test_index_select);
  g_test_add_func ("/index-kernels/gather-scatter/basic", test_gather_scatter);
  g_test_add_func ("/index-kernels/masks/nonzero", test_masks_nonzero);
  g_test_add_func ("/index-kernels/creation/full", test_full_and_friends);
  g_test_add_func ("/index-kernels/creation/arange", test_arange);
  g_test_add_func ("/index-kernels/creation/tril-dropout", test_tril_dropout);
  g_test_add_func ("/index-kernels/split/unbind-stack", test_split_unbind_stack);
  g_test_add_func ("/index-kernels/split/scatter-views", test_slice_select_scatter);
  g_test_add_func ("/index-kernels/shape/views", test_shape_extra);
  g_test_add_func ("/index-kernels/shape/roll-repeat", test_roll_repeat);
  g_test_add_func ("/index-kernels/reduce/any-argmax", test_any_argmax);
  g_test_add_func ("/index-kernels/reduce/extremes", test_extremes);
  g_test_add_func ("/index-kernels/reduce/prod-var-cumsum", test_prod_var_cumsum);
  g_test_add_func ("/index-kernels/reduce/topk", test_topk);
  g_test_add_func ("/index-kernels/reduce/random", test_reduce_random);
  g_test_add_func ("/index-kernels/cat/convert-skip-empty", test_cat_converts_and_skips_empty);
  g_test_add_func ("/index-kernels/llama/update-cache", test_llama_update_cache);
  g_test_add_func ("/index-kernels/distance/cdist-pdist", test_distances);
  g_test_add_func ("/index-kernels/llama/sdpa", test_llama_sdpa);

  return g_test_run ();
}
