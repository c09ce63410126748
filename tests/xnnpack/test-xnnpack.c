/* test-xnnpack.c: libexecutorch-xnnpack on real fixtures and on hostile payloads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GObject API finds the backend through discovery (the build tree's
 * xnnpack.module).  The hostile-payload tests call the backend's internals
 * (linked statically) on delegate payloads cut out of the fixtures.
 */
#include <executorch.h>
#include <executorch-threadpool.h>
#include <math.h>
#include <string.h>

#include "executorch-plugin.h"
#include "fixture-util.h"
#include "backend-private.h"
#include "conv-split.h"
#include "xnnpack-api.h"

#define FIXTURES_DIR "xnnpack/"

static ExecutorchMethod *
load_method (const char *rel, GError **error)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, rel, NULL);
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (path, error);
  if (program == NULL)
    return NULL;
  return executorch_program_load_method (program, "forward", error);
}

/* Runs @method on the .npy input and checks the output against @expected. */
static void
check_run (ExecutorchMethod *method, const char *input, const char *expected, double rtol, double atol)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) x = fixture_npy_tensor (input);
  g_assert_nonnull (x);
  ExecutorchTensor *inputs[] = { x };
  g_autoptr (GPtrArray) outputs = executorch_method_run (method, inputs, 1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 1);
  g_assert_true (fixture_tensor_matches (g_ptr_array_index (outputs, 0), expected, rtol, atol));
}

static void
test_fixtures (void)
{
  static const struct
  {
    const char *name;
    double rtol, atol;
    gboolean upstream;
  } cases[] = {
    { "xnn_mlp", 1e-4, 1e-4, FALSE },
    { "xnn_mv2", 1e-4, 1e-4, FALSE },
    { "xnn_resnet18", 1e-4, 1e-4, FALSE },
    { "xnn_vit_tiny", 1e-4, 1e-4, FALSE },
    { "xnn_mlp_q8", 0, 0, TRUE },
    { "xnn_mlp_q8pc", 0, 0, TRUE },
    { "xnn_mv2_q8", 0, 0, TRUE },
    { "xnn_mixed", 1e-4, 1e-4, FALSE },
    /* squeeze-excitation: a 4-D global mean (XNN_FLAG_KEEP_DIMS on the 2024 library) */
    { "xnn_effnet", 1e-4, 1e-4, FALSE },
    /* an attention scale lifted to a 0-dim constant, a delegate input */
    { "xnn_vit_scale", 1e-4, 1e-4, FALSE },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *pte = g_strdup_printf (FIXTURES_DIR "%s/%s.pte", cases[i].name, cases[i].name);
      g_autoptr (ExecutorchMethod) method = load_method (pte, &error);
      g_assert_no_error (error);
      for (int k = 0; k < 2; k++)
        {
          g_autofree char *in = g_strdup_printf (FIXTURES_DIR "%s/forward.case%d.in0.npy", cases[i].name, k);
          g_autofree char *out = g_strdup_printf (FIXTURES_DIR "%s/forward.case%d.%s0.npy", cases[i].name, k,
                                                  cases[i].upstream ? "upstream" : "out");
          g_test_message ("%s case %d", cases[i].name, k);
          check_run (method, in, out, cases[i].rtol, cases[i].atol);
          /* again on the same method: the same numbers */
          check_run (method, in, out, cases[i].rtol, cases[i].atol);
        }
    }
}

static void
test_threads (void)
{
  guint old = executorch_threadpool_get_num_threads ();
  for (guint n = 1; n <= 2; n++)
    {
      executorch_threadpool_set_num_threads (n);
      g_autoptr (GError) error = NULL;
      g_autoptr (ExecutorchMethod) method = load_method (FIXTURES_DIR "xnn_mv2/xnn_mv2.pte", &error);
      g_assert_no_error (error);
      check_run (method, FIXTURES_DIR "xnn_mv2/forward.case0.in0.npy", FIXTURES_DIR "xnn_mv2/forward.case0.out0.npy",
                 1e-4, 1e-4);
      g_assert_cmpuint (executorch_threadpool_get_num_threads (), ==, n);
    }
  /* one method across pool resizes: its runtimes must follow the pool */
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchMethod) method = load_method (FIXTURES_DIR "xnn_resnet18/xnn_resnet18.pte", &error);
  g_assert_no_error (error);
  static const guint sizes[] = { 2, 1, 2, 3, 2 };
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      executorch_threadpool_set_num_threads (sizes[i]);
      check_run (method, FIXTURES_DIR "xnn_resnet18/forward.case1.in0.npy",
                 FIXTURES_DIR "xnn_resnet18/forward.case1.out0.npy", 1e-4, 1e-4);
    }
  executorch_threadpool_set_num_threads (old);
}

static void
test_dynamic (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchMethod) method = load_method (FIXTURES_DIR "xnn_cnn_dyn/xnn_cnn_dyn.pte", &error);
  g_assert_no_error (error);
  /* cases 0, 1, 2 are batches 2, 1, 4 */
  static const int order[] = { 0, 1, 2, 0, 1 };
  for (gsize i = 0; i < G_N_ELEMENTS (order); i++)
    {
      g_autofree char *in = g_strdup_printf (FIXTURES_DIR "xnn_cnn_dyn/forward.case%d.in0.npy", order[i]);
      g_autofree char *out = g_strdup_printf (FIXTURES_DIR "xnn_cnn_dyn/forward.case%d.out0.npy", order[i]);
      check_run (method, in, out, 1e-4, 1e-4);
    }
  /* past the bound: an error, and the method still works */
  gint64 sizes[] = { 5, 3, 16, 16 };
  g_autoptr (ExecutorchTensor) big = executorch_tensor_new_zeros (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 4, &error);
  g_assert_no_error (error);
  ExecutorchTensor *inputs[] = { big };
  GPtrArray *outputs = executorch_method_run (method, inputs, 1, NULL, &error);
  g_assert_null (outputs);
  g_assert_nonnull (error);
  g_clear_error (&error);
  check_run (method, FIXTURES_DIR "xnn_cnn_dyn/forward.case1.in0.npy",
             FIXTURES_DIR "xnn_cnn_dyn/forward.case1.out0.npy", 1e-4, 1e-4);
}

/* The logits of tokens [1, @n] (ids 2, 3, ...) through the no-KV-cache llama
 * (tests/models/llm), or NULL with @error set. */
static GBytes *
run_tokens (ExecutorchMethod *method, gint64 n, GError **error)
{
  gint64 sizes[] = { 1, n };
  g_autofree gint64 *ids = g_new (gint64, n);
  g_autoptr (GBytes) data = NULL;
  g_autoptr (ExecutorchTensor) tokens = NULL;
  g_autoptr (GPtrArray) outputs = NULL;

  for (gint64 i = 0; i < n; i++)
    ids[i] = 2 + i;
  data = g_bytes_new (ids, n * sizeof ids[0]);
  tokens = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_LONG, sizes, 2, data, error);
  g_assert_no_error (error == NULL ? NULL : *error);
  ExecutorchTensor *inputs[] = { tokens };
  outputs = executorch_method_run (method, inputs, 1, NULL, error);
  if (outputs == NULL)
    return NULL;
  g_assert_cmpuint (outputs->len, ==, 1);
  return executorch_tensor_get_bytes (g_ptr_array_index (outputs, 0), error);
}

/* export_llama leaves the token input unplanned (read in place): a longer
 * sequence after a shorter one must bind, up to the bound and no further. */
static void
test_unplanned_input_grows (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchMethod) method = load_method ("llm/llama_fp32_nokv/llama_fp32_nokv.pte", &error);
  g_autoptr (GBytes) five = NULL;
  g_assert_no_error (error);

  five = run_tokens (method, 5, &error);
  g_assert_no_error (error);
  static const gint64 lengths[] = { 1, 63, 2, 5 };
  for (gsize i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      g_autoptr (GBytes) logits = run_tokens (method, lengths[i], &error);
      g_assert_no_error (error);
      g_assert_cmpuint (g_bytes_get_size (logits), ==, 512 * sizeof (float));
      if (lengths[i] == 5) /* no state: the same tokens, the same logits */
        g_assert_true (g_bytes_equal (logits, five));
    }
  g_assert_null (run_tokens (method, 64, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "bound [1, 63]"));
  g_clear_error (&error);
  {
    g_autoptr (GBytes) again = run_tokens (method, 5, &error);
    g_assert_no_error (error);
    g_assert_true (g_bytes_equal (again, five));
  }
}

/* A PT2E dynamically quantized MLP (XNNPACKQuantizer, is_dynamic): once
 * refused, now run by the dynamic-quantization path; tests/models/xnnpack_dq
 * has the fixtures with references. */
static void
test_dynamic_quant_pt2e (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, FIXTURES_DIR "unsupported/mlp_dynq.pte", NULL);
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (ExecutorchMethod) method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  gint64 sizes[] = { 4, 32 };
  float xd[128];
  for (int i = 0; i < 128; i++)
    xd[i] = (float) ((i * 37) % 19 - 9) / 4.0f;
  g_autoptr (ExecutorchTensor) x = executorch_tensor_new_from_floats (sizes, 2, xd, 128, &error);
  g_assert_no_error (error);
  ExecutorchTensor *inputs[] = { x };
  g_autoptr (GPtrArray) first = executorch_method_run (method, inputs, 1, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) second = executorch_method_run (method, inputs, 1, NULL, &error);
  g_assert_no_error (error);
  gsize n1, n2;
  g_autofree float *y1 = executorch_tensor_get_floats (g_ptr_array_index (first, 0), &n1, &error);
  g_assert_no_error (error);
  g_autofree float *y2 = executorch_tensor_get_floats (g_ptr_array_index (second, 0), &n2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n1, ==, 4 * 10);
  g_assert_cmpmem (y1, n1 * sizeof (float), y2, n2 * sizeof (float));
  gboolean nonzero = FALSE;
  for (gsize i = 0; i < n1; i++)
    {
      g_assert_true (isfinite (y1[i]));
      nonzero |= y1[i] != 0.0f;
    }
  g_assert_true (nonzero);
}

static GBytes *payload_of (const char *rel);

/* ---- 16-bit floats ---- */

static void
test_widen_conversions (void)
{
  /* fp16: exact values, rounding to nearest even, overflow, subnormals, nan */
  static const struct
  {
    guint16 half;
    float value;
  } exact[] = {
    { 0x0000, 0.0f },     { 0x8000, -0.0f },           { 0x3c00, 1.0f },           { 0xc000, -2.0f },
    { 0x7bff, 65504.0f }, { 0x0400, 6.103515625e-5f }, { 0x0001, 5.96046448e-8f }, { 0x03ff, 6.09755516e-5f },
    { 0x7c00, INFINITY }, { 0xfc00, -INFINITY },       { 0x3555, 0.333251953f },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (exact); i++)
    {
      float f;
      guint16 h;
      xb_widen_to_fp32 (XB_DT_FP16, &exact[i].half, &f, 1);
      g_assert_cmpfloat (f, ==, exact[i].value);
      g_assert_cmpint (signbit (f), ==, signbit (exact[i].value));
      xb_narrow_from_fp32 (XB_DT_FP16, &exact[i].value, &h, 1);
      g_assert_cmphex (h, ==, exact[i].half);
    }
  static const struct
  {
    float value;
    guint16 half;
  } rounded[] = {
    { 1.0f + 1.0f / 2048, 0x3c00 }, /* a tie: to even */
    { 1.0f + 3.0f / 2048, 0x3c02 }, /* a tie: to even (up) */
    { 1.0f + 1.0f / 2048 + 1e-6f, 0x3c01 },
    { 65519.0f, 0x7bff },
    { 65520.0f, 0x7c00 },
    { 1e9f, 0x7c00 },
    { 2.98023224e-8f, 0x0000 }, /* half the smallest subnormal: to even (0) */
    { 8.94069672e-8f, 0x0002 }, /* 1.5 subnormal units: to even (2) */
  };
  for (gsize i = 0; i < G_N_ELEMENTS (rounded); i++)
    {
      guint16 h;
      xb_narrow_from_fp32 (XB_DT_FP16, &rounded[i].value, &h, 1);
      g_assert_cmphex (h, ==, rounded[i].half);
    }
  float nan_in = NAN, nan_out;
  guint16 h;
  xb_narrow_from_fp32 (XB_DT_FP16, &nan_in, &h, 1);
  xb_widen_to_fp32 (XB_DT_FP16, &h, &nan_out, 1);
  g_assert_true (isnan (nan_out));

  /* bf16: the upper half of a float, rounded to nearest even */
  static const float bf_values[] = { 1.0f, -3.5f, 1.0f + 1.0f / 256, 1.0f + 3.0f / 256, 3.0e38f };
  static const guint16 bf_bits[] = { 0x3f80, 0xc060, 0x3f80, 0x3f82, 0x7f62 };
  for (gsize i = 0; i < G_N_ELEMENTS (bf_values); i++)
    {
      guint16 b;
      xb_narrow_from_fp32 (XB_DT_BF16, &bf_values[i], &b, 1);
      g_assert_cmphex (b, ==, bf_bits[i]);
      float back;
      xb_widen_to_fp32 (XB_DT_BF16, &b, &back, 1);
      g_assert_cmpfloat (fabsf (back - bf_values[i]), <=, fabsf (bf_values[i]) / 128);
    }
  xb_narrow_from_fp32 (XB_DT_BF16, &nan_in, &h, 1);
  xb_widen_to_fp32 (XB_DT_BF16, &h, &nan_out, 1);
  g_assert_true (isnan (nan_out));
}

/* The data of a .npy file whose dtype is @descr. */
static guint8 *
npy_data (const char *rel, const char *descr, gsize *size)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, rel, NULL);
  g_autofree char *contents = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (len, >, 10);
  gsize header = 10 + (guint8) contents[8] + ((guint8) contents[9] << 8);
  g_assert_cmpuint (header, <=, len);
  g_autofree char *text = g_strndup (contents + 10, header - 10);
  g_assert_nonnull (strstr (text, descr));
  *size = len - header;
  return g_memdup2 (contents + header, *size);
}

/* The fp16 CNN (fp16 input, weights and output): through XNNPACK's fp16
 * nodes where the library has them, else computed in fp32 (widen.c);
 * either way it matches eager PyTorch, run after run. */
static void
test_fp16 (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchMethod) method = load_method (FIXTURES_DIR "xnn_cnn_fp16/xnn_cnn_fp16.pte", &error);
  g_assert_no_error (error);
  for (int k = 0; k < 2; k++)
    {
      gsize in_size, want_size;
      g_autofree char *in = g_strdup_printf (FIXTURES_DIR "xnn_cnn_fp16/forward.case%d.in0.npy", k);
      g_autofree char *out = g_strdup_printf (FIXTURES_DIR "xnn_cnn_fp16/forward.case%d.out0.npy", k);
      g_autofree guint8 *input = npy_data (in, "'<f2'", &in_size);
      g_autofree guint8 *want = npy_data (out, "'<f2'", &want_size);
      static const gint64 sizes[] = { 2, 3, 16, 16 };
      g_assert_cmpuint (in_size, ==, 2 * 3 * 16 * 16 * 2);
      g_autoptr (GBytes) bytes = g_bytes_new (input, in_size);
      g_autoptr (ExecutorchTensor) x = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_HALF, sizes, 4, bytes, &error);
      g_assert_no_error (error);
      ExecutorchTensor *inputs[] = { x };
      for (int run = 0; run < 2; run++)
        {
          g_autoptr (GPtrArray) outputs = executorch_method_run (method, inputs, 1, NULL, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (outputs->len, ==, 1);
          ExecutorchTensor *y = g_ptr_array_index (outputs, 0);
          g_assert_cmpint (executorch_tensor_get_scalar_type (y), ==, EXECUTORCH_SCALAR_TYPE_HALF);
          g_autoptr (GBytes) got = executorch_tensor_get_bytes (y, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (g_bytes_get_size (got), ==, want_size);
          float a[64], b[64];
          gsize n = want_size / 2;
          g_assert_cmpuint (n, <=, G_N_ELEMENTS (a));
          xb_widen_to_fp32 (XB_DT_FP16, g_bytes_get_data (got, NULL), a, n);
          xb_widen_to_fp32 (XB_DT_FP16, want, b, n);
          for (gsize i = 0; i < n; i++)
            g_assert_cmpfloat (fabsf (a[i] - b[i]), <=, 2e-2 + 2e-2 * fabsf (b[i]));
        }
    }
}

/* ---- hostile payloads ---- */

#define zero_named_data xb_zero_named_data

/* The first XNNPACK payload of a fixture. */
static GBytes *
payload_of (const char *rel)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, rel, NULL);
  gchar *data;
  gsize len;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  const guint8 *b = (const guint8 *) data;
  for (gsize i = 4; i + 30 <= len; i++)
    {
      if (memcmp (b + i, "XH00", 4) != 0)
        continue;
      const guint8 *h = b + i - 4;
      guint32 co = h[18] | h[19] << 8 | h[20] << 16 | (guint32) h[21] << 24;
      guint64 cs = 0;
      for (int k = 7; k >= 0; k--)
        cs = cs << 8 | h[22 + k];
      g_assert_cmpuint (i - 4 + co + cs, <=, len);
      GBytes *out = g_bytes_new (h, co + cs);
      g_free (data);
      return out;
    }
  g_assert_not_reached ();
}

static void
test_payload_valid (void)
{
  g_autoptr (GBytes) payload = payload_of (FIXTURES_DIR "xnn_mlp/xnn_mlp.pte");
  gsize len;
  const guint8 *data = g_bytes_get_data (payload, &len);
  g_autoptr (GError) error = NULL;
  void *handle = xb_delegate_new (data, len, zero_named_data, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (handle);
  g_assert_cmpuint (xb_delegate_get_graph (handle)->n_nodes, >=, 3);
  xb_delegate_run_zeros (handle);
  xb_delegate_free (handle);
  /* without named data: an error naming the key */
  handle = xb_delegate_new (data, len, NULL, NULL, &error);
  g_assert_null (handle);
  g_assert_error (error, XB_ERROR, ET_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "named data"));
}

static void
test_payload_truncated (void)
{
  g_autoptr (GBytes) payload = payload_of (FIXTURES_DIR "xnn_mlp/xnn_mlp.pte");
  gsize len;
  const guint8 *data = g_bytes_get_data (payload, &len);
  for (gsize cut = 0; cut < len; cut++)
    {
      /* a copy of exactly @cut bytes, so ASan sees any over-read */
      guint8 *copy = g_memdup2 (data, cut ? cut : 1);
      GError *error = NULL;
      void *handle = xb_delegate_new (copy, cut, zero_named_data, NULL, &error);
      g_assert_null (handle);
      g_assert_nonnull (error);
      g_error_free (error);
      g_free (copy);
    }
}

/* The fuzz find in regressions/xnnpack/segv-in-xnn-run: a SAME-padded
 * 2x2 max pooling with dilation 64768 over 8x8 rows, so that XNNPACK's
 * implied padding holds whole windows, which its 2022 max pooling reads
 * outside the input for.  Refused at load, naming the window; with a
 * dilation that keeps each window on the input the same graph runs. */
static void
test_payload_pooling_in_padding (void)
{
  g_autofree char *path =
      g_build_filename (TEST_MODELS_DIR, "..", "fuzz", "regressions", "xnnpack", "segv-in-xnn-run", NULL);
  g_autofree guint8 *data = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (path, (char **) &data, &len, NULL));
  const guint8 dilation[4] = { 0x00, 0xfd, 0x00, 0x00 }; /* 64768, little-endian */
  guint8 *at = NULL;
  for (gsize i = 0; i + sizeof dilation <= len; i++)
    if (memcmp (data + i, dilation, sizeof dilation) == 0)
      {
        g_assert_null (at); /* the only such word */
        at = data + i;
      }
  g_assert_nonnull (at);

  GError *error = NULL;
  void *handle = xb_delegate_new (data, len, zero_named_data, NULL, &error);
  g_assert_null (handle);
  g_assert_error (error, XB_ERROR, ET_ERROR_INVALID_PROGRAM);
  g_assert_nonnull (strstr (error->message, "XNNMaxPooling2d"));
  g_assert_nonnull (strstr (error->message, "lies wholly in the padding"));
  g_clear_error (&error);

  at[0] = 7; /* dilation 7: an 8-row window, no larger than the input */
  at[1] = 0;
  handle = xb_delegate_new (data, len, zero_named_data, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (handle);
  xb_delegate_run_zeros (handle);
  xb_delegate_free (handle);
}

static void
test_payload_words (void)
{
  static const guint32 hostile[] = { 0, 1, 3, 0x10, 0xff, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };
  const char *fixtures[] = { FIXTURES_DIR "xnn_mlp/xnn_mlp.pte", FIXTURES_DIR "xnn_cnn_dyn/xnn_cnn_dyn.pte",
                             FIXTURES_DIR "xnn_mlp_q8pc/xnn_mlp_q8pc.pte",
                             FIXTURES_DIR "xnn_cnn_fp16/xnn_cnn_fp16.pte" };
  for (gsize f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autoptr (GBytes) payload = payload_of (fixtures[f]);
      gsize len;
      const guint8 *data = g_bytes_get_data (payload, &len);
      guint8 *copy = g_memdup2 (data, len);
      guint built = 0, tried = 0;
      for (gsize at = 0; at + 4 <= len; at += 4)
        {
          for (gsize h = 0; h < G_N_ELEMENTS (hostile); h++)
            {
              guint32 saved;
              memcpy (&saved, copy + at, 4);
              if (saved == hostile[h])
                continue;
              memcpy (copy + at, &hostile[h], 4);
              GError *error = NULL;
              void *handle = xb_delegate_new (copy, len, zero_named_data, NULL, &error);
              tried++;
              if (handle)
                {
                  built++;
                  xb_delegate_run_zeros (handle);
                  xb_delegate_free (handle);
                }
              else
                {
                  g_assert_nonnull (error);
                  g_error_free (error);
                }
              memcpy (copy + at, &saved, 4);
            }
        }
      g_test_message ("%s: %u of %u mutations still built", fixtures[f], built, tried);
      g_assert_cmpuint (built, <, tried);
      g_free (copy);
    }
}

/* Every delegate payload of a fixture, in order. */
static GPtrArray *
payloads_of (const char *rel)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, rel, NULL);
  g_autofree gchar *data = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  const guint8 *b = (const guint8 *) data;
  for (gsize i = 4; i + 30 <= len; i++)
    {
      if (memcmp (b + i, "XH00", 4) != 0)
        continue;
      const guint8 *h = b + i - 4;
      guint32 co = h[18] | h[19] << 8 | h[20] << 16 | (guint32) h[21] << 24;
      guint64 cs = 0;
      for (int k = 7; k >= 0; k--)
        cs = cs << 8 | h[22 + k];
      g_assert_cmpuint (i - 4 + co + cs, <=, len);
      g_ptr_array_add (out, g_bytes_new (h, co + cs));
    }
  return out;
}

/* A delegate built from payload @i of @payloads (zeros for named data). */
static void *
delegate_of (GPtrArray *payloads, guint i)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (g_ptr_array_index (payloads, i), &len);
  g_autoptr (GError) error = NULL;
  void *handle = xb_delegate_new (data, len, zero_named_data, NULL, &error);
  g_assert_no_error (error);
  return handle;
}

/* Where the library defines transposes, slices, concatenations, batch
 * matmuls and gelu (2024), a ViT's delegates are one XNNPACK runtime each;
 * the 2022 library runs those nodes on the host between runtimes. */
static void
test_one_runtime (void)
{
  g_autoptr (GPtrArray) payloads = payloads_of (FIXTURES_DIR "xnn_vit_tiny/xnn_vit_tiny.pte");
  g_assert_cmpuint (payloads->len, >, 0);
  uint32_t total_runtimes = 0, total_host = 0;
  for (guint i = 0; i < payloads->len; i++)
    {
      void *handle = delegate_of (payloads, i);
      uint32_t runtimes, host;
      xb_delegate_count_steps (handle, &runtimes, &host);
      g_test_message ("delegate %u: %u nodes, %u XNNPACK runtimes, %u host nodes", i,
                      xb_delegate_get_graph (handle)->n_nodes, runtimes, host);
      total_runtimes += runtimes;
      total_host += host;
#if defined(HAVE_XNN_DEFINE_STATIC_TRANSPOSE) && defined(HAVE_XNN_DEFINE_BATCH_MATRIX_MULTIPLY) && \
    defined(HAVE_XNN_DEFINE_UNARY) && defined(HAVE_XNN_DEFINE_STATIC_SLICE) && defined(HAVE_XNN_DEFINE_CONCATENATE2)
      g_assert_cmpuint (host, ==, 0);
      g_assert_cmpuint (runtimes, ==, 1);
#endif
      xb_delegate_free (handle);
    }
#ifndef HAVE_XNN_DEFINE_STATIC_TRANSPOSE
  g_assert_cmpuint (total_host, >, 0); /* the 2022 library: transposes on the host */
#endif
  g_assert_cmpuint (total_runtimes, >=, payloads->len);
}

/* int8 fully-connected layers with per-channel weights (the classifier of
 * MobileNetV2 int8, an MLP): where the library runs them (qs8-qc8w, 2024)
 * they stay in the runtime, so an int8 delegate is one runtime; the 2022
 * library runs them on the host between runtimes. */
/* EXECUTORCH_XNNPACK_PROFILE prints, when the delegate is freed, its
 * executions (here forced onto the pool, then onto the calling thread by
 * EXECUTORCH_XNNPACK_THREADING) and, where XNNPACK times its operators
 * (2024), one line per operator. */
static void
test_profile (void)
{
  if (g_test_subprocess ())
    {
      g_setenv ("EXECUTORCH_XNNPACK_PROFILE", "1", TRUE);
      executorch_threadpool_set_num_threads (2);
      /* Its runtime is big enough for the pool (step-work.c). */
      g_autoptr (GPtrArray) payloads = payloads_of (FIXTURES_DIR "xnn_resnet18/xnn_resnet18.pte");
      g_assert_cmpuint (payloads->len, ==, 1);
      g_setenv ("EXECUTORCH_XNNPACK_THREADING", "pool", TRUE);
      void *pooled = delegate_of (payloads, 0);
      g_setenv ("EXECUTORCH_XNNPACK_THREADING", "serial", TRUE);
      void *serial = delegate_of (payloads, 0);
      for (int i = 0; i < 3; i++)
        {
          xb_delegate_run_zeros (pooled);
          xb_delegate_run_zeros (serial);
        }
      xb_delegate_free (pooled);
      xb_delegate_free (serial);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*XNNPACK operators: 3 executions (3 on the thread pool, 0 on the calling thread)*"
                             "XNNPACK operators: 3 executions (0 on the thread pool, 3 on the calling thread)*");
#ifdef HAVE_XNN_GET_RUNTIME_PROFILING_INFO
  g_test_trap_assert_stderr ("*share  ms/run  min ms   runs  operator*Convolution (NHWC, F32)*      3  *");
#endif
}

/* Named data of 1.0f floats: per-channel scales must not be zero. */
static gboolean
ones_named_data (gpointer user_data, const char *key, const void **data, size_t *size)
{
  static float ones[1 << 18];
  if (ones[0] == 0.0f)
    for (gsize i = 0; i < G_N_ELEMENTS (ones); i++)
      ones[i] = 1.0f;
  *data = ones;
  *size = sizeof ones;
  return TRUE;
}

static void
test_qc8w_fc_in_runtime (void)
{
  static const char *const names[] = { "xnn_mv2_q8", "xnn_mlp_q8pc" };
  uint32_t total_host = 0;
  for (gsize n = 0; n < G_N_ELEMENTS (names); n++)
    {
      g_autofree char *pte = g_strdup_printf (FIXTURES_DIR "%s/%s.pte", names[n], names[n]);
      g_autoptr (GPtrArray) payloads = payloads_of (pte);
      g_assert_cmpuint (payloads->len, >, 0);
      for (guint i = 0; i < payloads->len; i++)
        {
          gsize len;
          const guint8 *data = g_bytes_get_data (g_ptr_array_index (payloads, i), &len);
          g_autoptr (GError) error = NULL;
          void *handle = xb_delegate_new (data, len, ones_named_data, NULL, &error);
          g_assert_no_error (error);
          uint32_t runtimes, host;
          xb_delegate_count_steps (handle, &runtimes, &host);
          g_test_message ("%s delegate %u: %u XNNPACK runtimes, %u host nodes", names[n], i, runtimes, host);
#ifdef HAVE_XNN_CREATE_FULLY_CONNECTED_NC_QS8_QC8W
          g_assert_cmpuint (host, ==, 0);
          g_assert_cmpuint (runtimes, ==, 1);
#endif
          total_host += host;
          xb_delegate_run_zeros (handle);
          xb_delegate_free (handle);
        }
    }
#ifndef HAVE_XNN_CREATE_FULLY_CONNECTED_NC_QS8_QC8W
  g_assert_cmpuint (total_host, >, 0);
#endif
}

/* The llama's delegates are fully-connected nodes only.  Where runtimes
 * cannot be resized (the 2022 library), those run as operators that keep
 * their packed weights across token counts (fc-operator.c), and give the
 * runtime's logits to the bit; EXECUTORCH_XNNPACK_FC_IN_RUNTIME=1 keeps them
 * in runtimes. */
static void
test_fc_operators (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) payloads = payloads_of ("llm/llama_fp32_nokv/llama_fp32_nokv.pte");
  g_assert_cmpuint (payloads->len, >, 0);
  for (int in_runtime = 0; in_runtime < 2; in_runtime++)
    {
      if (in_runtime)
        g_setenv ("EXECUTORCH_XNNPACK_FC_IN_RUNTIME", "1", TRUE);
      for (guint i = 0; i < payloads->len; i++)
        {
          gsize len;
          const guint8 *data = g_bytes_get_data (g_ptr_array_index (payloads, i), &len);
          void *handle = xb_delegate_new (data, len, zero_named_data, NULL, &error);
          g_assert_no_error (error);
          const XbGraph *g = xb_delegate_get_graph (handle);
          for (uint32_t n = 0; n < g->n_nodes; n++)
            g_assert_cmpint (g->nodes[n].type, ==, XB_NODE_FULLY_CONNECTED);
          uint32_t runtimes, host;
          xb_delegate_count_steps (handle, &runtimes, &host);
#ifdef HAVE_XNN_RESHAPE_RUNTIME
          g_assert_cmpuint (runtimes, ==, 1);
          g_assert_cmpuint (host, ==, 0);
#else
          g_assert_cmpuint (runtimes, ==, in_runtime ? 1 : 0);
          g_assert_cmpuint (host, ==, in_runtime ? 0 : g->n_nodes);
#endif
          xb_delegate_free (handle);
        }
    }

  /* Both ways at changing token counts: the same logits. */
  g_autoptr (ExecutorchMethod) in_runtimes = load_method ("llm/llama_fp32_nokv/llama_fp32_nokv.pte", &error);
  g_assert_no_error (error);
  g_unsetenv ("EXECUTORCH_XNNPACK_FC_IN_RUNTIME");
  g_autoptr (ExecutorchMethod) operators = load_method ("llm/llama_fp32_nokv/llama_fp32_nokv.pte", &error);
  g_assert_no_error (error);
  static const gint64 lengths[] = { 5, 1, 17, 1, 5, 63, 2 };
  for (gsize i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      g_autoptr (GBytes) a = run_tokens (in_runtimes, lengths[i], &error);
      g_assert_no_error (error);
      g_autoptr (GBytes) b = run_tokens (operators, lengths[i], &error);
      g_assert_no_error (error);
      g_assert_true (g_bytes_equal (a, b));
    }
}

/* On a busy machine a delegate's steps run on the calling thread instead of
 * the pool (executorch_threadpool_span_begin): the outputs must be the same
 * bytes either way, or results would depend on the machine's load. */
static void
test_serial_matches_pool (void)
{
  static const char *const names[] = { "xnn_mv2", "xnn_resnet18", "xnn_effnet", "xnn_vit_tiny", "xnn_cnn_fp16" };
  guint old = executorch_threadpool_get_num_threads ();
  uint32_t pooled = 0;

  executorch_threadpool_set_num_threads (2);
  for (gsize n = 0; n < G_N_ELEMENTS (names); n++)
    {
      g_autofree char *pte = g_strdup_printf (FIXTURES_DIR "%s/%s.pte", names[n], names[n]);
      g_autoptr (GPtrArray) payloads = payloads_of (pte);
      g_assert_cmpuint (payloads->len, >, 0);
      for (guint i = 0; i < payloads->len; i++)
        {
          void *handle = delegate_of (payloads, i);
          g_test_message ("%s delegate %u: %u runtimes on the pool", names[n], i,
                          xb_delegate_count_pooled_steps (handle));
          pooled += xb_delegate_count_pooled_steps (handle);
          g_assert_true (xb_delegate_serial_matches_pool (handle));
          xb_delegate_free (handle);
        }
    }
  /* The comparison means something only where runtimes use the pool. */
  g_assert_cmpuint (pooled, >, 0);
  executorch_threadpool_set_num_threads (old);
}

/* Convolutions and fully-connected nodes whose weights exceed the slice
 * budget are defined as such nodes over slices of their output channels
 * and a concatenation (conv-split.c): on the 2024 library they are, and
 * give the unsplit outputs to the bit; the 2022 library (no concatenation
 * node) never splits. */
static void
test_conv_split (void)
{
  static const char *const names[] = { "xnn_resnet18", "xnn_mv2", "xnn_effnet", "xnn_mlp", "xnn_vit_tiny" };
  uint32_t split_nodes = 0, split_fc = 0;
  /* Linears are sliced only in runtimes on the calling thread. */
  guint old_threads = executorch_threadpool_get_num_threads ();
  executorch_threadpool_set_num_threads (1);
  for (gsize n = 0; n < G_N_ELEMENTS (names); n++)
    {
      g_autofree char *pte = g_strdup_printf (FIXTURES_DIR "%s/%s.pte", names[n], names[n]);
      g_autoptr (GPtrArray) payloads = payloads_of (pte);
      g_assert_cmpuint (payloads->len, >, 0);
      for (guint i = 0; i < payloads->len; i++)
        {
          xb_conv_split_set_budget (G_MAXSIZE);
          void *whole = delegate_of (payloads, i);
          /* 4 KiB: a slice of 32 channels of a 3x3 convolution over up to
           * 8 input channels; more channels give one slice of 32 each. */
          xb_conv_split_set_budget (4 * 1024);
          void *sliced = delegate_of (payloads, i);
          const XbGraph *g = xb_delegate_get_graph (sliced);
          uint32_t wanted = 0;
          for (uint32_t k = 0; k < g->n_nodes; k++)
            if (xb_conv_split_wanted (g, &g->nodes[k], xb_delegate_get_shapes (sliced)))
              {
                wanted++;
                split_fc += g->nodes[k].type == XB_NODE_FULLY_CONNECTED;
              }
          g_test_message ("%s delegate %u: %u of %u nodes in slices", names[n], i, wanted, g->n_nodes);
          split_nodes += wanted;
          g_assert_true (xb_delegates_match (whole, sliced));
          xb_delegate_free (whole);
          xb_delegate_free (sliced);
        }
    }
  xb_conv_split_set_budget (0);
  executorch_threadpool_set_num_threads (old_threads);
#if defined(HAVE_XNN_DEFINE_CONCATENATE2) && defined(HAVE_XNN_DEFINE_CONCATENATE5)
  g_assert_cmpuint (split_nodes, >, 0);
  g_assert_cmpuint (split_fc, >, 0);
#else
  g_assert_cmpuint (split_nodes, ==, 0);
#endif
}

static void
test_payload_header (void)
{
  g_autoptr (GBytes) payload = payload_of (FIXTURES_DIR "xnn_mlp/xnn_mlp.pte");
  gsize len;
  const guint8 *data = g_bytes_get_data (payload, &len);
  guint8 *copy = g_memdup2 (data, len);
  /* the graph's identifier */
  copy[32 + 4] = 'Z';
  GError *error = NULL;
  g_assert_null (xb_delegate_new (copy, len, zero_named_data, NULL, &error));
  g_assert_error (error, XB_ERROR, ET_ERROR_DELEGATE_INVALID_COMPATIBILITY);
  g_clear_error (&error);
  memcpy (copy, data, len);
  /* flatbuffer size past the end */
  copy[14] = 0xff;
  copy[15] = 0xff;
  copy[16] = 0xff;
  g_assert_null (xb_delegate_new (copy, len, zero_named_data, NULL, &error));
  g_assert_error (error, XB_ERROR, ET_ERROR_INVALID_PROGRAM);
  g_assert_nonnull (strstr (error->message, "XNNHeader"));
  g_clear_error (&error);
  g_free (copy);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/xnnpack/fixtures", test_fixtures);
  g_test_add_func ("/xnnpack/threads", test_threads);
  g_test_add_func ("/xnnpack/dynamic", test_dynamic);
  g_test_add_func ("/xnnpack/fp16", test_fp16);
  g_test_add_func ("/xnnpack/one-runtime", test_one_runtime);
  g_test_add_func ("/xnnpack/serial-matches-pool", test_serial_matches_pool);
  g_test_add_func ("/xnnpack/conv-split", test_conv_split);
  g_test_add_func ("/xnnpack/qc8w-fc-in-runtime", test_qc8w_fc_in_runtime);
  g_test_add_func ("/xnnpack/profile", test_profile);
  g_test_add_func ("/xnnpack/widen-conversions", test_widen_conversions);
  g_test_add_func ("/xnnpack/unplanned-input-grows", test_unplanned_input_grows);
  g_test_add_func ("/xnnpack/fc-operators", test_fc_operators);
  g_test_add_func ("/xnnpack/dynamic-quant-pt2e", test_dynamic_quant_pt2e);
  g_test_add_func ("/xnnpack/payload/valid", test_payload_valid);
  g_test_add_func ("/xnnpack/payload/truncated", test_payload_truncated);
  g_test_add_func ("/xnnpack/payload/words", test_payload_words);
  g_test_add_func ("/xnnpack/payload/header", test_payload_header);
  g_test_add_func ("/xnnpack/payload/pooling-in-padding", test_payload_pooling_in_padding);
  return g_test_run ();
}
