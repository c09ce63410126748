/* test-xnnpack-dq.c: dynamically quantized linears on synthetic payloads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each case builds an XNNPACK payload the way upstream's
 * XnnpackDynamicallyQuantizedPartitioner writes one (XNNConvert fp32 ->
 * per-token qdint8, XNNFullyConnected with qcint8, qcint4 or qbint4
 * weights), runs it through the delegate (XNNPACK's path where the installed
 * library has one, and the delegate's own kernels with
 * EXECUTORCH_XNNPACK_OWN_DQ=1) and compares the outputs with a
 * double-precision evaluation of the same quantized math: the activations
 * quantized per row as XNNPACK's qd8 convert does, exact integer dot
 * products, scales, bias, clamp.
 *
 * The delegate's own kernels run on every instruction set this CPU has
 * (dynamic-quant.h: portable, AVX2, AVX-VNNI, AVX-512 VNNI), which must
 * agree bit for bit.
 *
 * Bound: |ours - reference| <= 1e-6 * (|bias| + sum_k |x_k * w_k| (dequantized))
 * + 1e-7: float rounding of the block partial sums and scales (2^-24 per
 * operation, a few operations deep; measured: at most 3e-8 of that sum,
 * on both paths).  A quantized activation one level off would cost
 * xscale * |w| (about 1e-2 here), far above it.
 */
#include <executorch-threadpool.h>
#include <executorch.h>
#include <math.h>
#include <string.h>

#include "executorch-plugin.h"
#include "backend-private.h"
#include "dynamic-quant.h"
#include "fixture-util.h"
#include "payload-builder.h"

enum
{
  W_QC8,
  W_QC4,
  W_QB4,
};

typedef struct
{
  const char *name;
  int weights;
  guint rows, k, n, group; /* group: qb4 block size */
  gboolean bias, three_dims, clamp;
} Case;

typedef struct
{
  GBytes *payload;
  /* the reference's inputs */
  float *x;       /* [rows, k] */
  int8_t *w;      /* [n, k] signed values */
  double *wscale; /* [n, k / block] */
  float *bias;
  guint block;
  float lo, hi;
} Built;

static uint16_t
bf16_round (float f)
{
  uint32_t bits;
  memcpy (&bits, &f, 4);
  return (uint16_t) ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

static float
bf16_value (uint16_t h)
{
  uint32_t bits = (uint32_t) h << 16;
  float f;
  memcpy (&f, &bits, 4);
  return f;
}

static Built
build (const Case *c, GRand *rng)
{
  Built b = { 0 };
  guint k = c->k, n = c->n, rows = c->rows;
  b.block = c->weights == W_QB4 ? c->group : k;
  guint n_blocks = k / b.block;
  b.x = g_new (float, rows *k);
  for (guint i = 0; i < rows * k; i++)
    b.x[i] = (float) g_rand_double_range (rng, -3.0, 3.0) * (float) (1 + i / k); /* rows differ in range */
  if (rows > 2)
    for (guint i = 0; i < k; i++)
      b.x[k + i] = (float) g_rand_double_range (rng, 0.5, 2.0); /* an all-positive row */
  b.w = g_new (int8_t, n * k);
  b.wscale = g_new (double, n *n_blocks);
  int qmin = c->weights == W_QC8 ? -128 : -8, qmax = c->weights == W_QC8 ? 127 : 7;
  for (guint i = 0; i < n * k; i++)
    b.w[i] = (int8_t) g_rand_int_range (rng, qmin, qmax + 1);
  if (c->bias)
    {
      b.bias = g_new (float, n);
      for (guint i = 0; i < n; i++)
        b.bias[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
    }
  b.lo = c->clamp ? -0.5f : -INFINITY;
  b.hi = c->clamp ? 0.75f : INFINITY;

  XbGraphBuilder *g = xb_graph_builder_new (2);
  uint32_t xdims[3], ydims[3], wdims[2] = { n, k };
  guint nd = c->three_dims ? 3 : 2;
  if (c->three_dims)
    {
      xdims[0] = ydims[0] = 1;
      xdims[1] = ydims[1] = rows;
    }
  else
    xdims[0] = ydims[0] = rows;
  xdims[nd - 1] = k;
  ydims[nd - 1] = n;
  /* 0: fp32 input; 1: qdint8; 2: weights; 3: bias; 4: output */
  xb_graph_builder_value (g, 0, XB_DT_FP32, nd, xdims, 0, 0, 1);
  XbFbObject *token = xb_fb_table ();
  xb_fb_set_i32 (token, 0, 1);
  xb_graph_builder_quantized_value (g, 1, XB_DT_QDINT8, nd, xdims, 0, 0, 0, XB_QUANT_PER_TOKEN, token);
  uint32_t wconst;
  if (c->weights == W_QC8)
    wconst = xb_graph_builder_constant (g, b.w, n * k);
  else
    {
      /* two a byte, element 2j low, 2j+1 high, q + 8, rows padded to bytes */
      guint row = (k + 1) / 2;
      g_autofree uint8_t *packed = g_new0 (uint8_t, n * row);
      for (guint r = 0; r < n; r++)
        for (guint i = 0; i < k; i++)
          packed[r * row + i / 2] |= (uint8_t) ((b.w[r * k + i] + 8) << (i % 2 ? 4 : 0));
      wconst = xb_graph_builder_constant (g, packed, n * row);
    }
  XbFbObject *wq = xb_fb_table ();
  if (c->weights == W_QB4)
    {
      g_autofree uint16_t *scales = g_new (uint16_t, n * n_blocks);
      for (guint i = 0; i < n * n_blocks; i++)
        {
          scales[i] = bf16_round ((float) g_rand_double_range (rng, 0.002, 0.05));
          b.wscale[i] = bf16_value (scales[i]);
        }
      xb_fb_set_i32 (wq, 1, 0);
      xb_fb_set_i32 (wq, 2, (int32_t) b.block);
      xb_fb_set_u32 (wq, 4, xb_graph_builder_constant (g, scales, n * n_blocks * 2));
      xb_fb_set_u32 (wq, 5, n * n_blocks);
      xb_graph_builder_quantized_value (g, 2, XB_DT_QBINT4, 2, wdims, wconst, 0, 0, XB_QUANT_PER_CHANNEL_GROUP, wq);
    }
  else
    {
      g_autofree float *scales = g_new (float, n);
      for (guint i = 0; i < n; i++)
        {
          scales[i] = (float) g_rand_double_range (rng, 0.002, 0.05) / (c->weights == W_QC8 ? 16 : 1);
          b.wscale[i] = scales[i];
        }
      xb_fb_set_object (wq, 0, xb_fb_vector_f32 (scales, n));
      xb_fb_set_i32 (wq, 1, 0);
      xb_graph_builder_quantized_value (g, 2, c->weights == W_QC8 ? XB_DT_QCINT8 : XB_DT_QCINT4, 2, wdims, wconst, 0, 0,
                                        XB_QUANT_PER_CHANNEL, wq);
    }
  if (c->bias)
    xb_graph_builder_value (g, 3, XB_DT_FP32, 1, &wdims[0], xb_graph_builder_constant (g, b.bias, n * 4), 0, 0);
  xb_graph_builder_value (g, 4, XB_DT_FP32, nd, ydims, 0, 1, 2);

  XbFbObject *convert = xb_fb_table ();
  xb_fb_set_u32 (convert, 0, 0);
  xb_fb_set_u32 (convert, 1, 1);
  xb_graph_builder_node (g, XB_NODE_CONVERT, convert, FALSE, 0, 0);
  XbFbObject *fc = xb_fb_table ();
  xb_fb_set_u32 (fc, 0, 1);
  xb_fb_set_u32 (fc, 1, 2);
  xb_fb_set_u32 (fc, 2, c->bias ? 3 : XB_PAYLOAD_NO_VALUE);
  xb_fb_set_u32 (fc, 3, 4);
  xb_graph_builder_node (g, XB_NODE_FULLY_CONNECTED, fc, c->clamp, b.lo, b.hi);
  b.payload = xb_graph_builder_finish (g);
  return b;
}

static void
built_clear (Built *b)
{
  g_bytes_unref (b->payload);
  g_free (b->x);
  g_free (b->w);
  g_free (b->wscale);
  g_free (b->bias);
}

/* XNNPACK's qd8 parameters (src/xnnpack/quantization.h), in float as it
 * computes them; then the quantized row. */
static void
reference_quantize (const float *x, guint k, int8_t *q, double *scale, int *zero_point)
{
  float lo = 0.0f, hi = 0.0f;
  for (guint i = 0; i < k; i++)
    {
      lo = fminf (lo, x[i]);
      hi = fmaxf (hi, x[i]);
    }
  float inv = lo == hi ? 1.0f : 255.0f / (hi - lo);
  float zp = (-128.0f + lo * inv) + (127.0f + hi * inv) > 0 ? -128.0f - lo * inv : 127.0f - hi * inv;
  zp = fminf (fmaxf (zp, -128.0f), 127.0f);
  *zero_point = (int) rintf (zp);
  for (guint i = 0; i < k; i++)
    {
      float v = fminf (fmaxf (x[i] * inv, -128.0f - (float) *zero_point), 127.0f - (float) *zero_point);
      q[i] = (int8_t) ((int) rintf (v) + *zero_point);
    }
  *scale = (double) (1.0f / inv);
}

/* Runs @payload on @b's input; returns the outputs (rows * n floats). */
static float *
run (const Case *c, const Built *b, GError **error)
{
  gsize size;
  const void *data = g_bytes_get_data (b->payload, &size);
  void *handle = xb_delegate_new (data, size, NULL, NULL, error);
  if (handle == NULL)
    return NULL;
  EtTensor tx = { 0 }, ty = { 0 };
  EtValue vx = { .tag = ET_VALUE_TENSOR, .u.tensor = &tx }, vy = { .tag = ET_VALUE_TENSOR, .u.tensor = &ty };
  guint nd = c->three_dims ? 3 : 2;
  EtTensor *ts[2] = { &tx, &ty };
  float *y = g_new0 (float, c->rows * c->n);
  void *bufs[2] = { b->x, y };
  guint last[2] = { c->k, c->n };
  for (int t = 0; t < 2; t++)
    {
      ts[t]->ndim = nd;
      ts[t]->scalar_type = ET_SCALAR_FLOAT;
      for (guint d = 0; d < nd; d++)
        {
          ts[t]->sizes[d] = d + 1 == nd ? last[t] : (d + 2 == nd ? c->rows : 1);
          ts[t]->dim_order[d] = (uint8_t) d;
        }
      et_strides_from_dim_order (nd, ts[t]->sizes, ts[t]->dim_order, ts[t]->strides);
      ts[t]->numel = (int64_t) c->rows * last[t];
      ts[t]->nbytes = ts[t]->capacity = (size_t) ts[t]->numel * 4;
      ts[t]->data = bufs[t];
    }
  EtValue *args[2] = { &vx, &vy };
  EtErrorContext *report = et_error_context_new ();
  int code = xb_delegate_execute (handle, args, 2, report);
  if (code != ET_OK)
    {
      g_set_error (error, XB_ERROR, code, "%s", et_error_context_message (report));
      g_clear_pointer (&y, g_free);
    }
  et_error_context_free (report);
  xb_delegate_free (handle);
  return y;
}

/* Checks outputs @y of case @c against the double reference. */
static void
check_outputs (const Case *c, const Built *b, const float *y, const char *path)
{
  g_autofree int8_t *q = g_new (int8_t, c->k);
  double worst = 0.0;
  for (guint r = 0; r < c->rows; r++)
    {
      double xs;
      int zp;
      reference_quantize (b->x + r * c->k, c->k, q, &xs, &zp);
      for (guint o = 0; o < c->n; o++)
        {
          double acc = 0.0, mag = 0.0;
          for (guint i = 0; i < c->k; i++)
            {
              double term = (double) (q[i] - zp) * xs * (double) b->w[o * c->k + i] *
                            b->wscale[o * (c->k / b->block) + i / b->block];
              acc += term;
              mag += fabs (term);
            }
          double bias = b->bias ? b->bias[o] : 0.0;
          double want = fmin (fmax (acc + bias, b->lo), b->hi);
          double got = y[r * c->n + o];
          double bound = 1e-6 * (mag + fabs (bias)) + 1e-7;
          worst = fmax (worst, fabs (got - want) / bound);
          if (!(fabs (got - want) <= bound))
            g_error ("%s (%s) row %u channel %u: got %.9g, reference %.9g (bound %.3g)", c->name, path, r, o, got, want,
                     bound);
        }
    }
  g_test_message ("%s (%s): worst error %.3f of the bound", c->name, path, worst);
}

/* The delegate's own kernels on each instruction set the CPU has: each
 * within the bound, all the same bit for bit. */
static void
check_own_kernels (const Case *c, const Built *b)
{
  g_setenv ("EXECUTORCH_XNNPACK_OWN_DQ", "1", TRUE);
  g_autofree float *first = NULL;
  XbDqIsa first_isa = XB_DQ_ISA_PORTABLE;
  for (XbDqIsa isa = XB_DQ_ISA_PORTABLE; isa < XB_DQ_N_ISAS; isa++)
    {
      if (!xb_dq_isa_available (isa))
        continue;
      g_setenv ("EXECUTORCH_XNNPACK_DQ_KERNELS", xb_dq_isa_name (isa), TRUE);
      g_assert_cmpint (xb_dq_isa_chosen (), ==, isa);
      g_autoptr (GError) error = NULL;
      g_autofree float *y = run (c, b, &error);
      g_assert_no_error (error);
      g_assert_nonnull (y);
      g_autofree char *path = g_strdup_printf ("own kernels, %s", xb_dq_isa_name (isa));
      check_outputs (c, b, y, path);
      if (first == NULL)
        {
          first = g_steal_pointer (&y);
          first_isa = isa;
          continue;
        }
      for (guint i = 0; i < c->rows * c->n; i++)
        if (memcmp (&y[i], &first[i], sizeof (float)) != 0)
          g_error ("%s: %s gives %.9g, %s %.9g at output %u", c->name, xb_dq_isa_name (isa), y[i],
                   xb_dq_isa_name (first_isa), first[i], i);
    }
  g_unsetenv ("EXECUTORCH_XNNPACK_DQ_KERNELS");
}

static void
check_case (const Case *c, gboolean own)
{
  GRand *rng = g_rand_new_with_seed (g_str_hash (c->name));
  Built b = build (c, rng);
  g_rand_free (rng);
  if (own)
    check_own_kernels (c, &b);
  else
    {
      g_setenv ("EXECUTORCH_XNNPACK_OWN_DQ", "0", TRUE);
      g_autoptr (GError) error = NULL;
      g_autofree float *y = run (c, &b, &error);
      g_assert_no_error (error);
      g_assert_nonnull (y);
      check_outputs (c, &b, y, "default path");
    }
  built_clear (&b);
}

static const Case cases[] = {
  { "qc8w-k37-n5-bias", W_QC8, 3, 37, 5, 0, TRUE, FALSE, FALSE },
  { "qc8w-k37-n5", W_QC8, 1, 37, 5, 0, FALSE, FALSE, FALSE },
  { "qc8w-k100-n33-3d", W_QC8, 7, 100, 33, 0, FALSE, TRUE, FALSE },
  { "qc8w-k64-n17-clamp", W_QC8, 4, 64, 17, 0, TRUE, FALSE, TRUE },
  { "qc4w-k37-n17", W_QC4, 3, 37, 17, 0, FALSE, FALSE, FALSE },
  { "qc4w-k37-n17-bias", W_QC4, 1, 37, 17, 0, TRUE, FALSE, FALSE },
  { "qc4w-k64-n9-bias-3d", W_QC4, 5, 64, 9, 0, TRUE, TRUE, FALSE },
  { "qb4w-g32-k96-n20", W_QB4, 3, 96, 20, 32, FALSE, FALSE, FALSE },
  { "qb4w-g32-k96-n20-bias", W_QB4, 1, 96, 20, 32, TRUE, FALSE, FALSE },
  { "qb4w-g64-k192-n18-bias-3d", W_QB4, 6, 192, 18, 64, TRUE, TRUE, FALSE },
  { "qb4w-g64-k64-n7", W_QB4, 2, 64, 7, 64, FALSE, FALSE, FALSE },
  { "qb4w-g128-k384-n33", W_QB4, 5, 384, 33, 128, FALSE, TRUE, FALSE },
  { "qb4w-g128-k256-n16-bias", W_QB4, 1, 256, 16, 128, TRUE, FALSE, FALSE },
  { "qb4w-g256-k512-n24", W_QB4, 2, 512, 24, 256, FALSE, FALSE, FALSE },
  { "qb4w-g256-k256-n40-bias-clamp", W_QB4, 9, 256, 40, 256, TRUE, FALSE, TRUE },
};

static void
test_case (gconstpointer data)
{
  check_case (data, FALSE);
  check_case (data, TRUE);
}

/* Every weight kind and block size against odd channel counts (partial
 * tiles), input lengths off the kernels' steps and 1 to 9 rows (partial
 * row blocks), on each instruction set. */
static void
test_sweep (void)
{
  static const struct
  {
    int weights;
    guint group, k;
  } shapes[] = {
    { W_QC8, 0, 37 },    { W_QC8, 0, 200 },   { W_QC8, 0, 1000 },  { W_QC4, 0, 37 },     { W_QC4, 0, 136 },
    { W_QC4, 0, 1000 },  { W_QB4, 32, 32 },   { W_QB4, 32, 224 },  { W_QB4, 64, 192 },   { W_QB4, 96, 288 },
    { W_QB4, 128, 384 }, { W_QB4, 160, 320 }, { W_QB4, 256, 256 }, { W_QB4, 256, 1024 }, { W_QB4, 44, 44 },
  };
  static const guint channels[] = { 1, 15, 17, 33, 50 };
  static const guint rows[] = { 1, 2, 3, 4, 5, 9 };
  for (gsize s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (gsize ch = 0; ch < G_N_ELEMENTS (channels); ch++)
      for (gsize r = 0; r < G_N_ELEMENTS (rows); r++)
        {
          g_autofree char *name = g_strdup_printf ("sweep-%s-g%u-k%u-n%u-rows%u",
                                                   shapes[s].weights == W_QC8   ? "qc8w"
                                                   : shapes[s].weights == W_QC4 ? "qc4w"
                                                                                : "qb4w",
                                                   shapes[s].group, shapes[s].k, channels[ch], rows[r]);
          Case c = { name,         shapes[s].weights, rows[r],           shapes[s].k,
                     channels[ch], shapes[s].group,   (r + ch) % 2 == 0, FALSE,
                     r == 3 };
          GRand *rng = g_rand_new_with_seed (g_str_hash (name));
          Built b = build (&c, rng);
          g_rand_free (rng);
          check_own_kernels (&c, &b);
          built_clear (&b);
        }
}

/* The portable kernel's fmaf against libm's, bit for bit: random
 * triples, and sums that round in double to exactly halfway between two
 * floats (c + 2^-24 - x^2 2^-70 in [1, 2), scaled), where converting the
 * double to float rounds the wrong way half the time. */
static void
test_fmaf (void)
{
  GRand *rng = g_rand_new_with_seed (11);
  guint halfway = 0;
  for (int i = 0; i < 200000; i++)
    {
      float a, b, c;
      if (i % 2)
        {
          a = (float) g_rand_double_range (rng, -1e3, 1e3);
          b = (float) g_rand_double_range (rng, -1e-2, 1e-2);
          c = (float) g_rand_double_range (rng, -10.0, 10.0);
        }
      else
        {
          int e = g_rand_int_range (rng, -60, 60), x = g_rand_int_range (rng, 1, 256);
          float sign = g_rand_boolean (rng) ? 1.0f : -1.0f;
          c = sign * ldexpf ((float) g_rand_double_range (rng, 1.0, 2.0), e);
          a = sign * ldexpf (1.0f + (float) x * 0x1p-23f, e - 24);
          b = 1.0f - (float) x * 0x1p-23f;
          double sum = (double) a * b + c;
          uint64_t bits;
          memcpy (&bits, &sum, 8);
          halfway += (bits & 0x1fffffff) == 0x10000000;
        }
      float want = fmaf (a, b, c), got = xb_dq_fmaf (a, b, c);
      if (memcmp (&want, &got, 4) != 0)
        g_error ("fmaf (%a, %a, %a): libm %a, ours %a", a, b, c, want, got);
    }
  g_rand_free (rng);
  g_assert_cmpuint (halfway, >, 50000); /* the hard case was exercised */
}

/* What the delegate's kernels cannot take is refused at init, naming it. */
static void
test_refused (void)
{
  g_setenv ("EXECUTORCH_XNNPACK_OWN_DQ", "1", TRUE);
  Case c = { "qb4w-g16", W_QB4, 1, 64, 4, 16, FALSE, FALSE, FALSE };
  GRand *rng = g_rand_new_with_seed (7);
  Built b = build (&c, rng);
  g_rand_free (rng);
  g_autoptr (GError) error = NULL;
  float *y = run (&c, &b, &error);
  g_assert_null (y);
  g_assert_error (error, XB_ERROR, ET_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "XNNFullyConnected"));
  g_assert_nonnull (strstr (error->message, "multiple of 32"));
  built_clear (&b);
}

/* Hostile payloads: a GError, never a crash. */
static void
test_hostile (void)
{
  g_setenv ("EXECUTORCH_XNNPACK_OWN_DQ", "1", TRUE);
  Case c = { "hostile", W_QB4, 2, 64, 4, 32, TRUE, FALSE, FALSE };
  GRand *rng = g_rand_new_with_seed (9);
  Built b = build (&c, rng);
  g_rand_free (rng);
  gsize size;
  const guint8 *data = g_bytes_get_data (b.payload, &size);
  /* every single-byte change of the graph: parse, build and run if it builds */
  g_autofree guint8 *copy = g_memdup2 (data, size);
  for (gsize i = 8; i < size; i++)
    {
      for (int delta = 1; delta < 256; delta += 127)
        {
          copy[i] = (guint8) (data[i] + delta);
          g_autoptr (GError) error = NULL;
          void *handle = xb_delegate_new (copy, size, NULL, NULL, &error);
          if (handle)
            {
              xb_delegate_run_zeros (handle);
              xb_delegate_free (handle);
            }
          else
            g_assert_nonnull (error);
          copy[i] = data[i];
        }
    }
  built_clear (&b);
}

/* One loaded method across changing token counts (its runtimes and
 * buffers rebuilt per shape), at 1 and 2 threads: upstream's outputs
 * within the fixture set's bound (tests/models/xnnpack_dq). */
static void
test_dynamic_tokens (void)
{
  g_unsetenv ("EXECUTORCH_XNNPACK_OWN_DQ");
  guint old = executorch_threadpool_get_num_threads ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, "xnnpack_dq/dq_8da4w_dyn/dq_8da4w_dyn.pte", NULL);
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (ExecutorchMethod) method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  static const int order[] = { 0, 1, 2, 1, 0, 2 }; /* T = 5, 1, 8 */
  for (gsize i = 0; i < G_N_ELEMENTS (order); i++)
    {
      executorch_threadpool_set_num_threads (1 + i % 2);
      g_autofree char *in = g_strdup_printf ("xnnpack_dq/dq_8da4w_dyn/forward.case%d.in0.npy", order[i]);
      g_autofree char *up = g_strdup_printf ("xnnpack_dq/dq_8da4w_dyn/forward.case%d.upstream0.npy", order[i]);
      g_autoptr (ExecutorchTensor) x = fixture_npy_tensor (in);
      g_assert_nonnull (x);
      ExecutorchTensor *inputs[] = { x };
      g_autoptr (GPtrArray) outputs = executorch_method_run (method, inputs, 1, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (fixture_tensor_matches (g_ptr_array_index (outputs, 0), up, 0.0, 2e-6));
    }
  executorch_threadpool_set_num_threads (old);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/xnnpack-dq/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/xnnpack-dq/sweep", test_sweep);
  g_test_add_func ("/xnnpack-dq/fmaf", test_fmaf);
  g_test_add_func ("/xnnpack-dq/refused", test_refused);
  g_test_add_func ("/xnnpack-dq/hostile", test_hostile);
  g_test_add_func ("/xnnpack-dq/dynamic-tokens", test_dynamic_tokens);
  return g_test_run ();
}
