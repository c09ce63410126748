/* test-quantized-kernels.c: edge cases and error paths of libexecutorch-kernels-quantized
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Registers the plug-in by hand and calls kernels with argument stacks laid
 * out as the interpreter does (schema order, out, return slot).  The
 * fixtures (fixtures-quant) check agreement with upstream's runtime; this
 * checks what upstream leaves undefined or aborts on: every bad argument is
 * an error naming the operator and the argument, never a crash.
 */
#include "kernel-test-util.h"

#include <math.h>
#include <string.h>

const EtPluginDesc *executorch_kernels_quantized_get_plugin (void);

/* A None argument slot. */
static EtValue none = { .tag = ET_VALUE_NONE };

static void
assert_fails (EtError err, EtError code, const char *op, const char *arg)
{
  g_assert_cmpint (err, ==, code);
  g_assert_nonnull (strstr (last_message, op));
  g_assert_nonnull (strstr (last_message, arg));
}

/* quantize_per_tensor.out on @n floats into int8 [-128, 127]. */
static EtError
quantize (const float *in, int8_t *out, int64_t n, double scale, int64_t zp, int out_type)
{
  Tensor x, o;
  int64_t sizes[1] = { n };
  EtValue s = double_value (scale), z = int_value (zp), lo = int_value (-128), hi = int_value (127),
          dt = int_value (ET_SCALAR_CHAR);
  tensor_init (&x, ET_SCALAR_FLOAT, 1, sizes, (void *) in);
  tensor_init (&o, out_type, 1, sizes, out);
  EtValue *args[] = { &x.v, &s, &z, &lo, &hi, &dt, &o.v, &o.v };
  return call ("quantized_decomposed::quantize_per_tensor.out", args, 8);
}

static void
test_quantize_rounding (void)
{
  /* half to even, the float reciprocal, clamping to the arguments, and the
   * values upstream leaves undefined: NaN -> zp, +-inf and huge -> bounds */
  float in[] = { 0.25f, 0.75f, -0.25f, 1.25f, 100.0f, -100.0f, NAN, INFINITY, -INFINITY, 3e38f, -3e38f };
  int8_t want[] = { 3, 5, 3, 5, 127, -128, 3, 127, -128, 127, -128 };
  int8_t out[G_N_ELEMENTS (in)];

  g_assert_cmpint (quantize (in, out, G_N_ELEMENTS (in), 0.5, 3, ET_SCALAR_CHAR), ==, ET_OK);
  g_assert_cmpmem (out, sizeof out, want, sizeof want);
}

static void
test_quantize_errors (void)
{
  float in[2] = { 0 };
  int8_t out[2];
  Tensor x, o;
  int64_t sizes[1] = { 2 };
  EtValue s = double_value (0.1), z = int_value (0), lo = int_value (-128), hi = int_value (300),
          dt = int_value (ET_SCALAR_CHAR);

  /* out dtype differs from dtype */
  assert_fails (quantize (in, out, 2, 0.1, 0, ET_SCALAR_BYTE), ET_ERROR_INVALID_ARGUMENT, "quantize_per_tensor.out",
                "out");
  /* quant_max outside int8 */
  tensor_init (&x, ET_SCALAR_FLOAT, 1, sizes, in);
  tensor_init (&o, ET_SCALAR_CHAR, 1, sizes, out);
  EtValue *args[] = { &x.v, &s, &z, &lo, &hi, &dt, &o.v, &o.v };
  assert_fails (call ("quantized_decomposed::quantize_per_tensor.out", args, 8), ET_ERROR_INVALID_ARGUMENT,
                "quantize_per_tensor.out", "quant_max");
  /* wrong argument count, wrong tag */
  assert_fails (call ("quantized_decomposed::quantize_per_tensor.out", args, 7), ET_ERROR_INVALID_PROGRAM,
                "quantize_per_tensor.out", "arguments");
  args[1] = &none;
  assert_fails (call ("quantized_decomposed::quantize_per_tensor.out", args, 8), ET_ERROR_INVALID_PROGRAM,
                "quantize_per_tensor.out", "scale");
  /* integer input */
  args[1] = &s;
  hi = int_value (127);
  x.t.scalar_type = ET_SCALAR_INT;
  assert_fails (call ("quantized_decomposed::quantize_per_tensor.out", args, 8), ET_ERROR_INVALID_ARGUMENT,
                "quantize_per_tensor.out", "input");
}

static void
test_dequantize_per_channel_int_zero_points (void)
{
  /* [2, 3] int8 along axis 1 with Int (not Long) zero points, Double scales */
  int8_t in[6] = { 10, 20, 30, -10, -20, -30 };
  double scales[3] = { 0.5, 0.25, 2.0 };
  int32_t zps[3] = { 0, 4, -2 };
  float out[6];
  float want[6] = { 5.0f, 4.0f, 64.0f, -5.0f, -6.0f, -56.0f };
  Tensor x, s, z, o;
  int64_t sizes[2] = { 2, 3 }, c[1] = { 3 };
  EtValue axis = int_value (1), lo = int_value (-128), hi = int_value (127), dt = int_value (ET_SCALAR_CHAR);

  tensor_init (&x, ET_SCALAR_CHAR, 2, sizes, in);
  tensor_init (&s, ET_SCALAR_DOUBLE, 1, c, scales);
  tensor_init (&z, ET_SCALAR_INT, 1, c, zps);
  tensor_init (&o, ET_SCALAR_FLOAT, 2, sizes, out);
  EtValue *args[] = { &x.v, &s.v, &z.v, &axis, &lo, &hi, &dt, &none, &o.v, &o.v };
  g_assert_cmpint (call ("quantized_decomposed::dequantize_per_channel.out", args, 10), ==, ET_OK);
  g_assert_cmpmem (out, sizeof out, want, sizeof want);
  /* axis out of range, scales of the wrong length */
  axis = int_value (2);
  assert_fails (call ("quantized_decomposed::dequantize_per_channel.out", args, 10), ET_ERROR_INVALID_ARGUMENT,
                "dequantize_per_channel.out", "axis");
  axis = int_value (0);
  assert_fails (call ("quantized_decomposed::dequantize_per_channel.out", args, 10), ET_ERROR_INVALID_ARGUMENT,
                "dequantize_per_channel.out", "scales");
}

static void
test_embedding_4bit (void)
{
  /* one row of 4 values packed in 2 bytes: even columns in the high nibble */
  uint8_t w[2][2] = { { 0x9f, 0x08 }, { 0x70, 0xff } };
  float scales[2] = { 0.5f, 2.0f };
  int64_t idx[3] = { 1, 0, 1 };
  float out[12];
  float want[12] = { -2.0f, -16.0f, 14.0f, 14.0f, 0.5f, 3.5f, -4.0f, 0.0f, -2.0f, -16.0f, 14.0f, 14.0f };
  Tensor wt, st, it, ot;
  int64_t wsz[2] = { 2, 2 }, ssz[1] = { 2 }, isz[1] = { 3 }, osz[2] = { 3, 4 };
  EtValue lo = int_value (-8), hi = int_value (7), dt = int_value (ET_SCALAR_FLOAT);

  tensor_init (&wt, ET_SCALAR_BYTE, 2, wsz, w);
  tensor_init (&st, ET_SCALAR_FLOAT, 1, ssz, scales);
  tensor_init (&it, ET_SCALAR_LONG, 1, isz, idx);
  tensor_init (&ot, ET_SCALAR_FLOAT, 2, osz, out);
  EtValue *args[] = { &wt.v, &st.v, &none, &lo, &hi, &it.v, &dt, &ot.v, &ot.v };
  g_assert_cmpint (call ("quantized_decomposed::embedding_4bit.dtype_out", args, 9), ==, ET_OK);
  g_assert_cmpmem (out, sizeof out, want, sizeof want);
  /* upstream does not bounds-check packed indices; we do */
  idx[1] = 2;
  assert_fails (call ("quantized_decomposed::embedding_4bit.dtype_out", args, 9), ET_ERROR_INVALID_ARGUMENT,
                "embedding_4bit.dtype_out", "indices");
  idx[1] = -1;
  assert_fails (call ("quantized_decomposed::embedding_4bit.dtype_out", args, 9), ET_ERROR_INVALID_ARGUMENT,
                "embedding_4bit.dtype_out", "indices");
}

static void
test_embedding_byte_half (void)
{
  /* .out overload, Half scales and out: (w - 0) * scale rounded to Half */
  int8_t w[2][2] = { { 3, -7 }, { 100, 1 } };
  uint16_t scales[2] = { 0x3555, 0x2e66 }; /* ~0.3333, ~0.1 */
  int64_t idx[1] = { 1 };
  uint16_t out[2];
  Tensor wt, st, it, ot;
  int64_t wsz[2] = { 2, 2 }, ssz[1] = { 2 }, isz[1] = { 1 }, osz[2] = { 1, 2 };
  EtValue lo = int_value (-128), hi = int_value (127);

  tensor_init (&wt, ET_SCALAR_CHAR, 2, wsz, w);
  tensor_init (&st, ET_SCALAR_HALF, 1, ssz, scales);
  tensor_init (&it, ET_SCALAR_LONG, 1, isz, idx);
  tensor_init (&ot, ET_SCALAR_HALF, 2, osz, out);
  EtValue *args[] = { &wt.v, &st.v, &none, &lo, &hi, &it.v, &ot.v, &ot.v };
  g_assert_cmpint (call ("quantized_decomposed::embedding_byte.out", args, 8), ==, ET_OK);
  /* 100 * 0.0999755859375 = 9.99755859375 -> Half 10.0 (0x4900);
   * 1 * 0.0999755859375 -> 0x2e66 */
  g_assert_cmphex (out[0], ==, 0x4900);
  g_assert_cmphex (out[1], ==, 0x2e66);
  /* the .out overload reads scales as the out dtype: they must agree */
  st.t.scalar_type = ET_SCALAR_BFLOAT16;
  assert_fails (call ("quantized_decomposed::embedding_byte.out", args, 8), ET_ERROR_INVALID_ARGUMENT,
                "embedding_byte.out", "weight_scales");
}

static void
test_choose_qparams (void)
{
  /* [-1, 3] over uint8: scale 4/255, zp from min: 0 - (-1)/scale = 63.75 -> 64 */
  float in[4] = { -1.0f, 0.5f, 3.0f, 2.0f };
  double scale = 0;
  int64_t zp = 0;
  Tensor x, s, z;
  int64_t sizes[1] = { 4 }, one[1] = { 1 };
  EtValue lo = int_value (0), hi = int_value (255), eps = double_value (1e-5), dt = int_value (ET_SCALAR_BYTE);

  tensor_init (&x, ET_SCALAR_FLOAT, 1, sizes, in);
  tensor_init (&s, ET_SCALAR_DOUBLE, 1, one, &scale);
  tensor_init (&z, ET_SCALAR_LONG, 1, one, &zp);
  EtValue *args[] = { &x.v, &lo, &hi, &eps, &dt, &s.v, &z.v, &none };
  g_assert_cmpint (call ("quantized_decomposed::choose_qparams.Tensor_out", args, 8), ==, ET_OK);
  g_assert_cmpfloat (scale, ==, 4.0 / 255.0);
  g_assert_cmpint (zp, ==, 64);
  /* all zeros: scale 0 becomes 0.1 */
  memset (in, 0, sizeof in);
  g_assert_cmpint (call ("quantized_decomposed::choose_qparams.Tensor_out", args, 8), ==, ET_OK);
  g_assert_cmpfloat (scale, ==, 0.1);
  g_assert_cmpint (zp, ==, 0);
  /* tiny range: the 6.1e-5 floor */
  in[0] = 1e-4f;
  g_assert_cmpint (call ("quantized_decomposed::choose_qparams.Tensor_out", args, 8), ==, ET_OK);
  g_assert_cmpfloat (scale, ==, (double) 6.1e-5f);
  /* empty input is undefined upstream: an error here */
  x.t.sizes[0] = 0;
  x.t.numel = 0;
  x.t.nbytes = 0;
  assert_fails (call ("quantized_decomposed::choose_qparams.Tensor_out", args, 8), ET_ERROR_INVALID_ARGUMENT,
                "choose_qparams.Tensor_out", "input");
  /* qmin >= qmax */
  x.t.sizes[0] = 4;
  x.t.numel = 4;
  x.t.nbytes = 16;
  hi = int_value (0);
  assert_fails (call ("quantized_decomposed::choose_qparams.Tensor_out", args, 8), ET_ERROR_INVALID_ARGUMENT,
                "choose_qparams.Tensor_out", "quant_min");
}

static void
test_per_token_resizes (void)
{
  /* scale/zp outs are resized to [..., 1] */
  float in[6] = { -1, 0, 1, 2, 4, 8 };
  double scales[4];
  int64_t zps[4];
  Tensor x, s, z;
  int64_t sizes[2] = { 2, 3 }, osz[2] = { 4, 1 };
  EtValue dt = int_value (ET_SCALAR_CHAR);

  tensor_init (&x, ET_SCALAR_FLOAT, 2, sizes, in);
  tensor_init_dynamic (&s, ET_SCALAR_DOUBLE, 2, osz, scales, 4);
  tensor_init_dynamic (&z, ET_SCALAR_LONG, 2, osz, zps, 4);
  EtValue *args[] = { &x.v, &dt, &s.v, &z.v, &none };
  g_assert_cmpint (call ("quantized_decomposed::choose_qparams_per_token_asymmetric.out", args, 5), ==, ET_OK);
  g_assert_cmpint (s.t.sizes[0], ==, 2);
  g_assert_cmpint (s.t.sizes[1], ==, 1);
  g_assert_cmpfloat (scales[0], ==, 2.0 / 255.0);
  g_assert_cmpfloat (scales[1], ==, 8.0 / 255.0);
  /* a static out of the wrong shape cannot be resized */
  s.t.shape_dynamism = ET_SHAPE_STATIC;
  s.t.sizes[0] = 4;
  s.t.numel = 4;
  s.t.nbytes = 32;
  et_strides_from_dim_order (2, s.t.sizes, s.t.dim_order, s.t.strides);
  g_assert_cmpint (call ("quantized_decomposed::choose_qparams_per_token_asymmetric.out", args, 5), !=, ET_OK);
  g_assert_nonnull (strstr (last_message, "scale_out"));
}

static void
test_mixed_linear_errors (void)
{
  float in[4] = { 1, 2, 3, 4 }, scales[2] = { 1, 1 }, zps[2] = { 0, 0 }, out[4];
  int8_t w[4] = { 1, 2, 3, 4 };
  Tensor x, wt, st, zt, o;
  int64_t sz[2] = { 2, 2 }, ssz[1] = { 2 };

  tensor_init (&x, ET_SCALAR_FLOAT, 2, sz, in);
  tensor_init (&wt, ET_SCALAR_CHAR, 2, sz, w);
  tensor_init (&st, ET_SCALAR_FLOAT, 1, ssz, scales);
  tensor_init (&zt, ET_SCALAR_FLOAT, 1, ssz, zps);
  tensor_init (&o, ET_SCALAR_FLOAT, 2, sz, out);
  EtValue *args[] = { &x.v, &wt.v, &st.v, &none, &none, &o.v, &o.v };
  g_assert_cmpint (call ("quantized_decomposed::mixed_linear.out", args, 7), ==, ET_OK);
  /* out[i][j] = sum_k x[i][k] * w[j][k] */
  g_assert_cmpfloat (out[0], ==, 5.0f);
  g_assert_cmpfloat (out[1], ==, 11.0f);
  g_assert_cmpfloat (out[3], ==, 25.0f);
  args[3] = &zt.v;
  assert_fails (call ("quantized_decomposed::mixed_linear.out", args, 7), ET_ERROR_NOT_SUPPORTED, "mixed_linear.out",
                "weight_zero_points");
  args[3] = &none;
  wt.t.scalar_type = ET_SCALAR_BYTE;
  assert_fails (call ("quantized_decomposed::mixed_linear.out", args, 7), ET_ERROR_INVALID_ARGUMENT, "mixed_linear.out",
                "weight");
}

static void
test_add_errors (void)
{
  uint8_t a[2] = { 10, 20 }, b[3] = { 1, 2, 3 }, out[2];
  Tensor at, bt, ot;
  int64_t two[1] = { 2 }, three[1] = { 3 };
  EtValue s = double_value (0.1), z = int_value (0), lo = int_value (0), hi = int_value (255);

  tensor_init (&at, ET_SCALAR_BYTE, 1, two, a);
  tensor_init (&bt, ET_SCALAR_BYTE, 1, three, b);
  tensor_init (&ot, ET_SCALAR_BYTE, 1, two, out);
  EtValue *args[] = { &at.v, &s, &z, &lo, &hi, &bt.v, &s, &z, &lo, &hi, &s, &z, &lo, &hi, &ot.v, &ot.v };
  assert_fails (call ("quantized_decomposed::add.out", args, 16), ET_ERROR_INVALID_ARGUMENT, "add.out", "shape");
  tensor_init (&bt, ET_SCALAR_BYTE, 1, two, b);
  g_assert_cmpint (call ("quantized_decomposed::add.out", args, 16), ==, ET_OK);
  g_assert_cmpint (out[0], ==, 11);
  g_assert_cmpint (out[1], ==, 22);
  hi = int_value (256);
  assert_fails (call ("quantized_decomposed::add.out", args, 16), ET_ERROR_INVALID_ARGUMENT, "add.out", "quant_max");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (et_registry_add_plugin (executorch_kernels_quantized_get_plugin (), NULL), ==, ET_OK);
  g_test_add_func ("/quantized/quantize/rounding", test_quantize_rounding);
  g_test_add_func ("/quantized/quantize/errors", test_quantize_errors);
  g_test_add_func ("/quantized/dequantize-per-channel/int-zero-points", test_dequantize_per_channel_int_zero_points);
  g_test_add_func ("/quantized/embedding-4bit", test_embedding_4bit);
  g_test_add_func ("/quantized/embedding-byte/half", test_embedding_byte_half);
  g_test_add_func ("/quantized/choose-qparams", test_choose_qparams);
  g_test_add_func ("/quantized/choose-qparams-per-token/resize", test_per_token_resizes);
  g_test_add_func ("/quantized/mixed-linear", test_mixed_linear_errors);
  g_test_add_func ("/quantized/add", test_add_errors);
  return g_test_run ();
}
