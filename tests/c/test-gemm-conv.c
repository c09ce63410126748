/* test-gemm-conv.c: the float32 GEMM, linear, bmm and convolution kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GEMM (built into this program from backends/portable) is checked
 * against a double-precision loop for odd sizes, strided operands, both
 * microkernels and 1 or 2 threads.  The kernels are called through the
 * registry with argument stacks built by hand and compared with naive
 * references written here, for many random convolution shapes (groups,
 * depthwise, stride, padding, dilation, transposed, bias, channels-last,
 * batches, empty batch) and every supported dtype family; the error paths
 * must fail cleanly.
 */
#include "kernel-test-util.h"
#include "executorch-threadpool.h"
#include "gemm.h"

#include <math.h>
#include <string.h>

static GRand *rng;

static double
rnd (void)
{
  return g_rand_double_range (rng, -1.0, 1.0);
}

static int
rnd_int (int lo, int hi_inclusive)
{
  return g_rand_int_range (rng, lo, hi_inclusive + 1);
}

/* ---- GEMM ---- */

/* B through the pack_b callback, as convolution's implicit im2col gives
 * it: read from the strided matrix of the KernelSgemm in @user. */
static void
pack_b_from_matrix (const void *user, int64_t pc, int64_t kc, int64_t j0, int64_t cols, int64_t nr, float *dst)
{
  const KernelSgemm *g = user;

  g_assert_cmpint (cols, >=, 1);
  g_assert_cmpint (cols, <=, nr);
  g_assert_cmpint (nr, <=, KERNEL_SGEMM_NR_MAX);
  g_assert_cmpint (pc + kc, <=, g->k);
  g_assert_cmpint (j0 + cols, <=, g->n);
  g_assert_cmpuint ((guintptr) dst % 64, ==, 0);
  for (int64_t p = 0; p < kc; p++)
    for (int64_t j = 0; j < nr; j++)
      dst[p * nr + j] = j < cols ? g->b[(pc + p) * g->b_rs + (j0 + j) * g->b_cs] : 0.0f;
}

static void
check_close (const char *what, const float *c, int64_t ldc, const double *ref, int64_t m, int64_t n, int64_t k)
{
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      {
        double got = c[i * ldc + j], want = ref[i * n + j];
        if (!(fabs (got - want) <= 1e-5 * (double) (k + 1) * (1.0 + fabs (want))))
          g_error ("%s gemm %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " (%s): C[%" G_GINT64_FORMAT
                   ",%" G_GINT64_FORMAT "] = %.7g, expected %.7g",
                   what, m, n, k, _executorch_sgemm_kernel_name (), i, j, got, want);
      }
}

static void
check_gemm (int64_t m, int64_t n, int64_t k, bool ta, bool tb, bool accumulate)
{
  float *a = g_new (float, m *k + 1), *b = g_new (float, k *n + 1);
  int64_t ldc = n + 3;
  float *c = g_new (float, m *ldc + 1);
  double *ref = g_new (double, m *n);

  for (int64_t i = 0; i < m * k; i++)
    a[i] = (float) rnd ();
  for (int64_t i = 0; i < k * n; i++)
    b[i] = (float) rnd ();
  for (int64_t i = 0; i < m * ldc; i++)
    c[i] = (float) rnd ();

  KernelSgemm g = {
    .m = m,
    .n = n,
    .k = k,
    .a = a,
    .a_rs = ta ? 1 : k,
    .a_cs = ta ? m : 1,
    .b = b,
    .b_rs = tb ? 1 : n,
    .b_cs = tb ? k : 1,
    .c = c,
    .ldc = ldc,
    .accumulate = accumulate,
  };
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      {
        double acc = accumulate ? c[i * ldc + j] : 0.0;
        for (int64_t p = 0; p < k; p++)
          acc += (double) a[i * g.a_rs + p * g.a_cs] * b[p * g.b_rs + j * g.b_cs];
        ref[i * n + j] = acc;
      }
  float pad = m > 0 ? c[n] : 0.0f; /* columns past n are never written */
  float *c_before = g_memdup2 (c, (gsize) (m * ldc + 1) * sizeof (float));
  g_assert_true (_executorch_sgemm (&g));
  /* A packed once beforehand (a constant weight) gives the same bits
   * whenever the unpacked call packed it too (small products read A in
   * place, and now take the packed path: checked against the reference). */
  if (m > 0 && k > 0)
    {
      float *c_fresh = g_memdup2 (c, (gsize) (m * ldc + 1) * sizeof (float));
      float *packed = g_new (float, _executorch_sgemm_packed_a_floats (m, k));
      _executorch_sgemm_pack_a (&g, packed);
      memcpy (c, c_before, (gsize) (m * ldc + 1) * sizeof (float));
      g.a_packed = packed;
      g.a = NULL; /* never read */
      g_assert_true (_executorch_sgemm (&g));
      if ((double) m * n * k > 4096 && m > 4)
        g_assert_cmpmem (c, (gsize) (m * ldc + 1) * sizeof (float), c_fresh, (gsize) (m * ldc + 1) * sizeof (float));
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
          {
            double got = c[i * ldc + j], want = ref[i * n + j];
            if (!(fabs (got - want) <= 1e-5 * (double) (k + 1) * (1.0 + fabs (want))))
              g_error ("packed gemm %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ": C[%" G_GINT64_FORMAT
                       ",%" G_GINT64_FORMAT "] = %.7g, expected %.7g",
                       m, n, k, i, j, got, want);
          }
      g_assert_cmpfloat (c[n], ==, pad);
      /* B packed once beforehand (a linear's constant weight): the same
       * bits on the packed path, with A packed or not; packed for strips
       * of another width, it is not used. */
      if (n > 0)
        {
          int64_t nr = _executorch_sgemm_b_strip_width ();
          float *b_packed = g_aligned_alloc ((gsize) _executorch_sgemm_packed_b_floats (k, n, nr), sizeof (float), 64);
          _executorch_sgemm_pack_b (&g, nr, b_packed);
          for (int variant = 0; variant < 3; variant++)
            {
              KernelSgemm with_b = g;
              with_b.a = a;
              with_b.a_packed = variant == 1 ? packed : NULL;
              with_b.b_packed = b_packed;
              with_b.b_packed_nr = variant == 2 ? nr / 2 : nr;
              memcpy (c, c_before, (gsize) (m * ldc + 1) * sizeof (float));
              g_assert_true (_executorch_sgemm (&with_b));
              if ((double) m * n * k > 4096 && m > 4)
                g_assert_cmpmem (c, (gsize) (m * ldc + 1) * sizeof (float), c_fresh,
                                 (gsize) (m * ldc + 1) * sizeof (float));
              check_close (variant == 0   ? "packed B"
                           : variant == 1 ? "packed A and B"
                                          : "B packed for other strips",
                           c, ldc, ref, m, n, k);
            }
          g_aligned_free (b_packed);
        }
      /* B built by a pack_b callback, with A packed or not. */
      KernelSgemm plain = g;
      plain.a = a;
      plain.a_packed = NULL;
      for (int packed_a = 0; packed_a < 2; packed_a++)
        {
          KernelSgemm cb = plain;
          memcpy (c, c_before, (gsize) (m * ldc + 1) * sizeof (float));
          cb.pack_b = pack_b_from_matrix;
          cb.pack_b_user = &plain;
          cb.b = NULL; /* never read */
          if (packed_a)
            {
              cb.a_packed = packed;
              cb.a = NULL;
            }
          g_assert_true (_executorch_sgemm (&cb));
          check_close (packed_a ? "pack_b + packed A" : "pack_b", c, ldc, ref, m, n, k);
          g_assert_cmpfloat (c[n], ==, pad);
        }
      memcpy (c, c_fresh, (gsize) (m * ldc + 1) * sizeof (float));
      g_free (packed);
      g_free (c_fresh);
    }
  g_free (c_before);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      {
        double got = c[i * ldc + j], want = ref[i * n + j];
        if (!(fabs (got - want) <= 1e-5 * (double) (k + 1) * (1.0 + fabs (want))))
          g_error ("gemm %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                   " ta=%d tb=%d acc=%d: C[%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT "] = %.7g, expected %.7g",
                   m, n, k, ta, tb, accumulate, i, j, got, want);
      }
  if (m > 0)
    g_assert_cmpfloat (c[n], ==, pad);
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (ref);
}

/* Rows [row0, row0 + rows) of an m-row A packed whole (a_packed_row0), as
 * a convolution task taking a block of output channels runs them. */
static void
check_gemm_row_block (int64_t m, int64_t n, int64_t k, int64_t row0, int64_t rows)
{
  float *a = g_new (float, m *k), *b = g_new (float, k *n);
  float *c = g_new (float, rows *n + 1);
  float *packed = g_new (float, _executorch_sgemm_packed_a_floats (m, k));
  double *ref = g_new (double, rows *n);

  for (int64_t i = 0; i < m * k; i++)
    a[i] = (float) rnd ();
  for (int64_t i = 0; i < k * n; i++)
    b[i] = (float) rnd ();
  c[rows * n] = 42.0f;
  KernelSgemm whole = { .m = m, .k = k, .a = a, .a_rs = k, .a_cs = 1 };
  _executorch_sgemm_pack_a (&whole, packed);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < n; j++)
      {
        double acc = 0.0;
        for (int64_t p = 0; p < k; p++)
          acc += (double) a[(row0 + i) * k + p] * b[p * n + j];
        ref[i * n + j] = acc;
      }
  KernelSgemm g = {
    .m = rows,
    .n = n,
    .k = k,
    .b = b,
    .b_rs = n,
    .b_cs = 1,
    .c = c,
    .ldc = n,
    .a_packed = packed,
    .a_packed_m = m,
    .a_packed_row0 = row0,
  };
  g_assert_true (_executorch_sgemm (&g));
  check_close ("row block of packed A", c, n, ref, rows, n, k);
  g_assert_cmpfloat (c[rows * n], ==, 42.0f); /* nothing past the block's rows */
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (packed);
  g_free (ref);
}

/* Several k slices and row chunks: the packed A's panels are found where
 * the GEMM looks for them. */
static void
test_gemm_packed_a (void)
{
  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      check_gemm (100, 40, 600, false, false, false);
      check_gemm (37, 300, 257, true, false, true);
      check_gemm (3100, 17, 300, false, true, false);
      check_gemm_row_block (100, 40, 600, 12, 50);   /* three k slices, a short last strip */
      check_gemm_row_block (100, 49, 300, 96, 4);    /* the last rows only */
      check_gemm_row_block (3100, 17, 300, 6, 3090); /* across a row chunk */
    }
}

/* The microkernels this CPU can run: always the portable one. */
static const KernelSgemmLevel all_levels[] = { KERNEL_SGEMM_GENERIC, KERNEL_SGEMM_AVX2, KERNEL_SGEMM_AVX512 };

static bool
force_level (KernelSgemmLevel level)
{
  if (!_executorch_sgemm_force (level))
    {
      g_test_message ("GEMM level %d: not on this CPU", (int) level);
      return false;
    }
  g_test_message ("GEMM microkernel: %s", _executorch_sgemm_kernel_name ());
  return true;
}

static void
test_gemm_odd_sizes (void)
{
  static const int64_t sizes[] = { 1, 7, 17, 63, 129 };

  g_assert_true (_executorch_sgemm_force (KERNEL_SGEMM_GENERIC));
  g_assert_cmpstr (_executorch_sgemm_kernel_name (), ==, "generic");
  for (size_t level = 0; level < G_N_ELEMENTS (all_levels); level++)
    {
      if (!force_level (all_levels[level]))
        continue;
      for (guint threads = 1; threads <= 2; threads++)
        {
          executorch_threadpool_set_num_threads (threads);
          for (size_t i = 0; i < G_N_ELEMENTS (sizes); i++)
            for (size_t j = 0; j < G_N_ELEMENTS (sizes); j++)
              for (size_t l = 0; l < G_N_ELEMENTS (sizes); l++)
                {
                  int variant = (int) ((i + j + l + threads) % 4);
                  check_gemm (sizes[i], sizes[j], sizes[l], variant & 1, variant & 2, (i + l) % 2);
                }
        }
    }
  /* Larger than one block in every direction (k > 256, n > 2048 is too
   * slow here; m > 96 rows per tile and several column tiles). */
  executorch_threadpool_set_num_threads (2);
  check_gemm (200, 300, 300, false, false, false);
  check_gemm (131, 2100, 20, false, true, true);
  /* Few rows: dot products (B columns contiguous) or row sums, columns
   * split over threads. */
  check_gemm (1, 1000, 700, false, true, false);
  check_gemm (3, 600, 300, false, true, true);
  check_gemm (2, 600, 300, false, false, false);
  check_gemm (4, 513, 333, true, false, true);
  g_assert_true (_executorch_sgemm_force (KERNEL_SGEMM_AUTO));
  check_gemm (200, 300, 300, true, false, false);
  check_gemm (1, 1000, 700, false, true, false);
  check_gemm (3, 600, 300, false, true, true);
  check_gemm (2, 600, 300, false, false, false);
  check_gemm (0, 5, 5, false, false, false);
  check_gemm (5, 5, 0, false, false, true);
  check_gemm (5, 5, 0, false, false, false);
  executorch_threadpool_set_num_threads (0);
}

/* Every microkernel on tiles cut at every edge: m around multiples of the
 * 6 rows, n around the 16 and 32 columns of the strips and around the
 * 2048-column slices, k of 1 and around the 256-deep slices, strided and
 * transposed operands, with A and B packed by the GEMM, by the caller and
 * by a pack_b callback (check_gemm runs all three). */
static void
test_gemm_edge_tiles (void)
{
  static const int64_t ms[] = { 5, 6, 7, 13, 97 };
  static const int64_t ns[] = { 15, 16, 17, 31, 32, 33, 65 };
  static const int64_t ks[] = { 1, 2, 255, 257 };

  for (size_t level = 0; level < G_N_ELEMENTS (all_levels); level++)
    {
      if (!force_level (all_levels[level]))
        continue;
      for (guint threads = 1; threads <= 2; threads++)
        {
          executorch_threadpool_set_num_threads (threads);
          for (size_t i = 0; i < G_N_ELEMENTS (ms); i++)
            for (size_t j = 0; j < G_N_ELEMENTS (ns); j++)
              for (size_t l = 0; l < G_N_ELEMENTS (ks); l++)
                {
                  int variant = (int) ((i + j + l + threads) % 4);
                  check_gemm (ms[i], ns[j], ks[l], variant & 1, variant & 2, (i + j + l) % 2);
                }
          /* Several row chunks, column slices and k slices at once. */
          check_gemm (200, 300, 300, false, false, false);
          check_gemm (131, 2100, 20, false, true, true);
          check_gemm (7, 2081, 513, true, false, true);
        }
    }
  g_assert_true (_executorch_sgemm_force (KERNEL_SGEMM_AUTO));
  executorch_threadpool_set_num_threads (0);
}

/* What tile_done saw: each element's value once finished, and how many
 * times it was handed over. */
typedef struct
{
  float *seen;
  int *times;
  int64_t n;
} TilesSeen;

static void
record_tile (const void *user, const float *c, int64_t ldc, int64_t i0, int64_t j0, int64_t rows, int64_t cols)
{
  const TilesSeen *t = user;

  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < cols; j++)
      {
        t->seen[(i0 + r) * t->n + j0 + j] = c[r * ldc + j];
        t->times[(i0 + r) * t->n + j0 + j]++;
      }
}

/* Bias per row and clamp applied by the GEMM, on every path: direct (tiny),
 * few rows, packed with edge tiles and several k slices, B from a pack_b
 * callback, k = 0, accumulating; and every element handed to tile_done
 * once, finished. */
static void
check_gemm_epilogue (int64_t m, int64_t n, int64_t k, bool accumulate, bool callback)
{
  TilesSeen tiles = { g_new0 (float, m *n + 1), g_new0 (int, m *n + 1), n };
  float *a = g_new (float, m *k + 1), *b = g_new (float, k *n + 1), *bias = g_new (float, m + 1);
  float *c = g_new (float, m *n + 1);
  double *ref = g_new (double, m *n + 1);

  for (int64_t i = 0; i < m * k; i++)
    a[i] = (float) rnd ();
  for (int64_t i = 0; i < k * n; i++)
    b[i] = (float) rnd ();
  for (int64_t i = 0; i < m; i++)
    bias[i] = (float) rnd ();
  /* A NaN row passes through the clamp (row 0: a full tile when m >= 6). */
  if (m >= 2)
    bias[0] = NAN;
  for (int64_t i = 0; i < m * n; i++)
    c[i] = (float) rnd ();
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      {
        double acc = 0.0;
        for (int64_t p = 0; p < k; p++)
          acc += (double) a[i * k + p] * b[p * n + j];
        acc = (accumulate ? c[i * n + j] : 0.0) + acc + bias[i];
        ref[i * n + j] = acc < -0.25 ? -0.25 : acc > 0.5 ? 0.5 : acc;
      }
  KernelSgemm g = {
    .m = m,
    .n = n,
    .k = k,
    .a = a,
    .a_rs = k,
    .a_cs = 1,
    .b = b,
    .b_rs = n,
    .b_cs = 1,
    .c = c,
    .ldc = n,
    .accumulate = accumulate,
    .row_bias = bias,
    .clamp = true,
    .lo = -0.25f,
    .hi = 0.5f,
    .tile_done = record_tile,
    .tile_done_user = &tiles,
  };
  KernelSgemm plain = g;
  if (callback)
    {
      g.pack_b = pack_b_from_matrix;
      g.pack_b_user = &plain;
      g.b = NULL;
    }
  g_assert_true (_executorch_sgemm (&g));
  for (int64_t i = 0; i < m * n; i++)
    {
      g_assert_cmpint (tiles.times[i], ==, 1);
      g_assert_true (memcmp (&tiles.seen[i], &c[i], sizeof (float)) == 0);
    }
  for (int64_t j = 0; j < n && m >= 2; j++)
    {
      g_assert_true (isnan (c[j]));
      c[j] = 0.0f;
      ref[j] = 0.0;
    }
  check_close ("epilogue", c, n, ref, m, n, k);
  g_free (tiles.seen);
  g_free (tiles.times);
  g_free (a);
  g_free (b);
  g_free (bias);
  g_free (c);
  g_free (ref);
}

static void
test_gemm_epilogue (void)
{
  for (size_t level = 0; level < G_N_ELEMENTS (all_levels); level++)
    {
      if (!force_level (all_levels[level]))
        continue;
      for (guint threads = 1; threads <= 2; threads++)
        {
          executorch_threadpool_set_num_threads (threads);
          check_gemm_epilogue (3, 5, 7, false, false);      /* direct */
          check_gemm_epilogue (2, 300, 40, true, false);    /* few rows */
          check_gemm_epilogue (13, 77, 300, false, false);  /* edge tiles, two k slices */
          check_gemm_epilogue (13, 77, 300, true, true);    /* pack_b */
          check_gemm_epilogue (64, 3000, 20, false, false); /* many strips, threads */
          check_gemm_epilogue (600, 40, 300, true, false);  /* A panel past L2 */
          check_gemm_epilogue (7, 9, 0, false, false);      /* k = 0 */
          check_gemm_epilogue (7, 9, 0, true, false);
        }
    }
  g_assert_true (_executorch_sgemm_force (KERNEL_SGEMM_AUTO));
  executorch_threadpool_set_num_threads (0);
}

/* ---- Kernel arguments ---- */

/* Storage for @sizes in @dim_order (NULL = contiguous), filled from the
 * logical row-major @values (NULL = zeros). */
static void
tensor_new (Tensor *x, int type, uint32_t ndim, const int64_t *sizes, const uint8_t *dim_order, const double *values)
{
  tensor_init_full (x, type, ndim, sizes, dim_order, NULL, ET_SHAPE_DYNAMIC_BOUND, 0);
  x->t.data = g_malloc0 (x->t.nbytes + 8);
  if (values == NULL)
    return;
  for (int64_t i = 0; i < x->t.numel; i++)
    tensor_set (x, i, values[i]);
}

static void
tensor_free (Tensor *x)
{
  g_free (x->t.data);
}

/* ---- Convolution ---- */

typedef struct
{
  int spatial; /* 1 or 2 */
  int64_t n, cin, h, w, cout, kh, kw;
  int64_t sh, sw, ph, pw, dh, dw, oph, opw, groups;
  bool transposed, bias, channels_last_in, channels_last_out, channels_last_w;
  int type, bias_type;
} ConvCase;

static void
conv_out_size (const ConvCase *c, int64_t *oh, int64_t *ow)
{
  if (c->transposed)
    {
      *oh = (c->h - 1) * c->sh - 2 * c->ph + c->dh * (c->kh - 1) + c->oph + 1;
      *ow = (c->w - 1) * c->sw - 2 * c->pw + c->dw * (c->kw - 1) + c->opw + 1;
    }
  else
    {
      int64_t a = c->h + 2 * c->ph - c->dh * (c->kh - 1) - 1, b = c->w + 2 * c->pw - c->dw * (c->kw - 1) - 1;
      *oh = a < 0 || c->sh < 1 ? 0 : a / c->sh + 1;
      *ow = b < 0 || c->sw < 1 ? 0 : b / c->sw + 1;
    }
}

/* Reference on logical NCHW arrays (H = 1 for 1-D). */
static void
conv_reference (const ConvCase *c, const double *x, const double *w, const double *bias, int64_t oh_n, int64_t ow_n,
                double *y)
{
  int64_t cin_g = c->cin / c->groups, cout_g = c->cout / c->groups;

  for (int64_t b = 0; b < c->n; b++)
    for (int64_t co = 0; co < c->cout; co++)
      for (int64_t p = 0; p < oh_n * ow_n; p++)
        y[(b * c->cout + co) * oh_n * ow_n + p] = c->bias ? bias[co] : 0.0;
  for (int64_t b = 0; b < c->n; b++)
    for (int64_t g = 0; g < c->groups; g++)
      for (int64_t cig = 0; cig < cin_g; cig++)
        for (int64_t cog = 0; cog < cout_g; cog++)
          for (int64_t kh = 0; kh < c->kh; kh++)
            for (int64_t kw = 0; kw < c->kw; kw++)
              {
                int64_t ci = g * cin_g + cig, co = g * cout_g + cog;
                double wv = c->transposed ? w[((ci * cout_g + cog) * c->kh + kh) * c->kw + kw]
                                          : w[((co * cin_g + cig) * c->kh + kh) * c->kw + kw];
                if (!c->transposed)
                  {
                    for (int64_t oh = 0; oh < oh_n; oh++)
                      for (int64_t ow = 0; ow < ow_n; ow++)
                        {
                          int64_t ih = oh * c->sh - c->ph + kh * c->dh, iw = ow * c->sw - c->pw + kw * c->dw;
                          if (ih >= 0 && ih < c->h && iw >= 0 && iw < c->w)
                            y[((b * c->cout + co) * oh_n + oh) * ow_n + ow] +=
                                x[((b * c->cin + ci) * c->h + ih) * c->w + iw] * wv;
                        }
                  }
                else
                  {
                    for (int64_t ih = 0; ih < c->h; ih++)
                      for (int64_t iw = 0; iw < c->w; iw++)
                        {
                          int64_t oh = ih * c->sh - c->ph + kh * c->dh, ow = iw * c->sw - c->pw + kw * c->dw;
                          if (oh >= 0 && oh < oh_n && ow >= 0 && ow < ow_n)
                            y[((b * c->cout + co) * oh_n + oh) * ow_n + ow] +=
                                x[((b * c->cin + ci) * c->h + ih) * c->w + iw] * wv;
                        }
                  }
              }
}

static double
rounded_value (int type)
{
  switch (type)
    {
      case ET_SCALAR_FLOAT:
      case ET_SCALAR_DOUBLE: return rnd ();
      case ET_SCALAR_HALF:
      case ET_SCALAR_BFLOAT16: return (double) rnd_int (-8, 8) / 8.0; /* exact in both */
      default: return rnd_int (-5, 5);
    }
}

static double
tolerance (int type)
{
  switch (type)
    {
      case ET_SCALAR_FLOAT: return 1e-4;
      case ET_SCALAR_DOUBLE: return 1e-10;
      case ET_SCALAR_HALF: return 2e-2;
      case ET_SCALAR_BFLOAT16: return 1e-1;
      default: return 0;
    }
}

static const uint8_t channels_last[4] = { 0, 2, 3, 1 };

/* Builds the call of @c; returns the kernel's result.  On success compares
 * with the reference. */
static EtError
run_conv (const ConvCase *c, bool check)
{
  uint32_t nd = (uint32_t) c->spatial + 2;
  int64_t cin_g = c->cin / (c->groups > 0 ? c->groups : 1);
  int64_t xs[4] = { c->n, c->cin, c->h, c->w };
  int64_t ws[4];
  int64_t oh, ow;
  conv_out_size (c, &oh, &ow);
  if (c->transposed)
    {
      ws[0] = c->cin;
      ws[1] = c->cout / (c->groups > 0 ? c->groups : 1);
    }
  else
    {
      ws[0] = c->cout;
      ws[1] = cin_g;
    }
  ws[2] = c->kh;
  ws[3] = c->kw;
  int64_t ys[4] = { c->n, c->cout, oh > 0 ? oh : 1, ow > 0 ? ow : 1 };
  if (c->spatial == 1)
    {
      xs[2] = c->w;
      ws[2] = c->kw;
      ys[2] = ys[3];
    }
  int64_t xn = c->n * c->cin * c->h * c->w, wn = ws[0] * ws[1] * c->kh * c->kw;
  int64_t yn = ys[0] * ys[1] * (c->spatial == 2 ? ys[2] * ys[3] : ys[2]);
  double *xv = g_new (double, xn + 1), *wv = g_new (double, wn + 1), *bv = g_new (double, c->cout + 1);
  double *ref = g_new (double, yn + 1);
  for (int64_t i = 0; i < xn; i++)
    xv[i] = rounded_value (c->type);
  for (int64_t i = 0; i < wn; i++)
    wv[i] = rounded_value (c->type);
  for (int64_t i = 0; i < c->cout; i++)
    bv[i] = rounded_value (c->bias_type);

  Tensor x, w, b, y;
  bool cl = c->spatial == 2;
  tensor_new (&x, c->type, nd, xs, cl && c->channels_last_in ? channels_last : NULL, xv);
  tensor_new (&w, c->type, nd, ws, cl && c->channels_last_w ? channels_last : NULL, wv);
  tensor_new (&b, c->bias_type, 1, &c->cout, NULL, bv);
  tensor_new (&y, c->type, nd, ys, cl && c->channels_last_out ? channels_last : NULL, NULL);

  int64_t stride[2] = { c->sh, c->sw }, pad[2] = { c->ph, c->pw }, dil[2] = { c->dh, c->dw };
  int64_t opad[2] = { c->oph, c->opw };
  int off = c->spatial == 2 ? 0 : 1;
  IntList ls, lp, ld, lo;
  int_list_init (&ls, (uint32_t) c->spatial, stride + off);
  int_list_init (&lp, (uint32_t) c->spatial, pad + off);
  int_list_init (&ld, (uint32_t) c->spatial, dil + off);
  int_list_init (&lo, (uint32_t) c->spatial, opad + off);
  EtValue none = { .tag = ET_VALUE_NONE }, tr = { .tag = ET_VALUE_BOOL }, groups = { .tag = ET_VALUE_INT };
  tr.u.bool_value = c->transposed;
  groups.u.int_value = c->groups;
  EtValue *args[11] = { &x.v, &w.v, c->bias ? &b.v : &none, &ls.v, &lp.v, &ld.v, &tr, &lo.v, &groups, &y.v, &y.v };
  EtError err = call ("aten::convolution.out", args, 11);

  if (err == ET_OK && check)
    {
      g_assert_cmpint (y.t.sizes[0], ==, c->n);
      g_assert_cmpint (y.t.sizes[1], ==, c->cout);
      g_assert_cmpint (y.t.sizes[nd - 1], ==, ow);
      if (c->spatial == 2)
        g_assert_cmpint (y.t.sizes[2], ==, oh);
      conv_reference (c, xv, wv, bv, c->spatial == 2 ? oh : 1, ow, ref);
      double tol = tolerance (c->type);
      int64_t k = cin_g * c->kh * c->kw;
      for (int64_t i = 0; i < y.t.numel; i++)
        {
          double got = tensor_get (&y, i), want = ref[i];
          if (!(fabs (got - want) <= tol * (1.0 + sqrt ((double) k)) * (1.0 + fabs (want))))
            g_error ("conv %dd %s n=%" G_GINT64_FORMAT " cin=%" G_GINT64_FORMAT " cout=%" G_GINT64_FORMAT
                     " k=%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " s=%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                     " p=%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT " d=%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                     " g=%" G_GINT64_FORMAT " type=%d: element %" G_GINT64_FORMAT " = %.7g, expected %.7g",
                     c->spatial, c->transposed ? "transposed" : "", c->n, c->cin, c->cout, c->kh, c->kw, c->sh, c->sw,
                     c->ph, c->pw, c->dh, c->dw, c->groups, c->type, i, got, want);
        }
    }
  tensor_free (&x);
  tensor_free (&w);
  tensor_free (&b);
  tensor_free (&y);
  g_free (xv);
  g_free (wv);
  g_free (bv);
  g_free (ref);
  return err;
}

/* A random valid case. */
static void
random_case (ConvCase *c, int type)
{
  memset (c, 0, sizeof *c);
  c->type = type;
  c->bias_type = rnd_int (0, 3) == 0 && type == ET_SCALAR_FLOAT ? ET_SCALAR_DOUBLE : type;
  c->spatial = rnd_int (1, 4) == 1 ? 1 : 2;
  c->n = rnd_int (0, 9) == 0 ? 0 : rnd_int (1, 3);
  int shape = rnd_int (0, 5);
  c->groups = shape == 0 ? rnd_int (2, 3) : 1;
  int64_t cin_g = rnd_int (1, 5), cout_g = rnd_int (1, 5);
  if (shape == 1)
    { /* depthwise */
      c->groups = rnd_int (1, 8);
      cin_g = 1;
      cout_g = rnd_int (1, 2);
    }
  c->cin = cin_g * c->groups;
  c->cout = cout_g * c->groups;
  c->transposed = rnd_int (0, 4) == 0;
  c->kh = c->spatial == 2 ? rnd_int (1, 5) : 1;
  c->kw = rnd_int (1, 5);
  if (shape == 2)
    c->kh = c->kw = 1;
  c->sh = c->spatial == 2 ? rnd_int (1, 3) : 1;
  c->sw = rnd_int (1, 3);
  c->dh = c->spatial == 2 ? rnd_int (1, 2) : 1;
  c->dw = rnd_int (1, 2);
  if (shape == 2 && rnd_int (0, 1))
    {
      c->sh = c->sw = 1;
      c->dh = c->dw = 1;
    }
  c->ph = c->spatial == 2 ? rnd_int (0, 2) : 0;
  c->pw = rnd_int (0, 2);
  if (shape == 2 && !c->transposed && rnd_int (0, 1))
    c->ph = c->pw = 0;
  c->h = c->spatial == 2 ? rnd_int (1, 12) : 1;
  c->w = rnd_int (1, 40);
  if (c->transposed)
    {
      int64_t mh = c->sh > c->dh ? c->sh : c->dh, mw = c->sw > c->dw ? c->sw : c->dw;
      c->oph = c->spatial == 2 ? rnd_int (0, (int) mh - 1) : 0;
      c->opw = rnd_int (0, (int) mw - 1);
    }
  c->bias = rnd_int (0, 1);
  c->channels_last_in = rnd_int (0, 3) == 0;
  c->channels_last_out = rnd_int (0, 3) == 0;
  c->channels_last_w = rnd_int (0, 5) == 0;
}

static void
test_conv_random_float (void)
{
  int done = 0;

  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      for (int i = 0; i < 300; i++)
        {
          ConvCase c;
          int64_t oh, ow;
          random_case (&c, ET_SCALAR_FLOAT);
          conv_out_size (&c, &oh, &ow);
          EtError err = run_conv (&c, true);
          if ((c.spatial == 2 && oh < 1) || ow < 1)
            {
              g_assert_cmpint (err, ==, ET_ERROR_INVALID_ARGUMENT);
              g_assert_nonnull (strstr (last_message, "output"));
              continue;
            }
          if (err != ET_OK)
            g_error ("case %d failed: %s", i, last_message);
          done++;
        }
    }
  g_assert_cmpint (done, >, 300);
  executorch_threadpool_set_num_threads (0);
}

/* Shapes big enough for the GEMM's blocking, threading and every path. */
static void
test_conv_large (void)
{
  static const ConvCase cases[] = {
    /* 3x3 pad 1 (ResNet), im2col with several tiles */
    { 2,
      2,
      16,
      20,
      20,
      32,
      3,
      3,
      1,
      1,
      1,
      1,
      1,
      1,
      0,
      0,
      1,
      false,
      true,
      false,
      false,
      false,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
    /* 1x1 direct GEMM, channels-last input and output */
    { 2,
      1,
      64,
      14,
      14,
      40,
      1,
      1,
      1,
      1,
      0,
      0,
      1,
      1,
      0,
      0,
      1,
      false,
      true,
      true,
      true,
      false,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
    /* depthwise 3x3 stride 2 (MobileNet) */
    { 2,
      1,
      32,
      17,
      17,
      32,
      3,
      3,
      2,
      2,
      1,
      1,
      1,
      1,
      0,
      0,
      32,
      false,
      true,
      false,
      false,
      false,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
    /* depthwise 5x5 dilation 2 */
    { 2,
      2,
      8,
      19,
      23,
      8,
      5,
      5,
      1,
      1,
      4,
      4,
      2,
      2,
      0,
      0,
      8,
      false,
      false,
      false,
      false,
      false,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
    /* k slices of 256 that start mid-window (3x3: tap 4 of channel 28;
     * stride 2; 5x5 dilation 2; 1x1 stride 2, gathered), on planes wider
     * and narrower than a strip of 32 pixels */
    { 2,
      1,
      40,
      33,
      37,
      13,
      3,
      3,
      1,
      1,
      1,
      1,
      1,
      1,
      0,
      0,
      1,
      false,
      true,
      false,
      false,
      false,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
    { 2,
      2,
      30,
      9,
      7,
      20,
      3,
      3,
      2,
      2,
      1,
      1,
      1,
      1,
      0,
      0,
      1,
      false,
      false,
      false,
      false,
      false,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
    { 2,
      1,
      12,
      17,
      19,
      7,
      5,
      5,
      1,
      1,
      4,
      3,
      2,
      2,
      0,
      0,
      1,
      false,
      true,
      false,
      false,
      false,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
    { 2,
      1,
      300,
      11,
      13,
      9,
      1,
      1,
      2,
      2,
      0,
      0,
      1,
      1,
      0,
      0,
      1,
      false,
      true,
      false,
      false,
      false,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
    /* 7x7 stride 2 stem */
    { 2,
      1,
      3,
      40,
      40,
      16,
      7,
      7,
      2,
      2,
      3,
      3,
      1,
      1,
      0,
      0,
      1,
      false,
      true,
      true,
      false,
      false,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
    /* transposed 4x4 stride 2 */
    { 2,
      2,
      16,
      9,
      9,
      8,
      4,
      4,
      2,
      2,
      1,
      1,
      1,
      1,
      1,
      0,
      2,
      true,
      true,
      false,
      false,
      true,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
    /* 1-D, wide */
    { 1,
      3,
      12,
      1,
      300,
      24,
      1,
      5,
      1,
      2,
      0,
      2,
      1,
      1,
      0,
      0,
      3,
      false,
      true,
      false,
      false,
      false,
      ET_SCALAR_FLOAT,
      ET_SCALAR_FLOAT },
  };

  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
        if (run_conv (&cases[i], true) != ET_OK)
          g_error ("large case %zu failed: %s", i, last_message);
    }
  executorch_threadpool_set_num_threads (0);
}

/* Each way a convolution's GEMM is cut into tasks (convolution-fast.c,
 * choose_split): blocks of output channels that are no whole number of
 * the weights' 6-row strips, pixel tiles with a short last one, groups,
 * with 1, 2 and 3 threads (an odd share). */
static void
test_conv_split (void)
{
#define SPLIT_CASE(N, CIN, H, W, COUT, K, PAD, GROUPS)                                                                 \
  {                                                                                                                    \
    .spatial = 2, .n = N, .cin = CIN, .h = H, .w = W, .cout = COUT, .kh = K, .kw = K, .sh = 1, .sw = 1, .ph = PAD,     \
    .pw = PAD, .dh = 1, .dw = 1, .groups = GROUPS, .bias = true, .type = ET_SCALAR_FLOAT, .bias_type = ET_SCALAR_FLOAT \
  }
  static const ConvCase cases[] = {
    SPLIT_CASE (1, 40, 7, 7, 100, 3, 1, 1),    /* weights outweigh the image: channel blocks, im2col */
    SPLIT_CASE (1, 300, 14, 14, 250, 1, 0, 1), /* channel blocks, direct 1x1 */
    SPLIT_CASE (1, 16, 30, 30, 20, 3, 1, 1),   /* pixel tiles */
    SPLIT_CASE (1, 64, 7, 7, 128, 3, 1, 2),    /* two groups */
    SPLIT_CASE (2, 48, 9, 9, 98, 3, 1, 1),     /* a batch of two */
  };
#undef SPLIT_CASE

  for (guint threads = 1; threads <= 3; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
        if (run_conv (&cases[i], true) != ET_OK)
          g_error ("split case %zu, %u threads, failed: %s", i, threads, last_message);
    }
  executorch_threadpool_set_num_threads (0);
}

static void
test_conv_dtypes (void)
{
  static const int types[] = { ET_SCALAR_DOUBLE, ET_SCALAR_HALF, ET_SCALAR_BFLOAT16,
                               ET_SCALAR_INT,    ET_SCALAR_LONG, ET_SCALAR_CHAR };

  for (size_t t = 0; t < G_N_ELEMENTS (types); t++)
    for (int i = 0; i < 40; i++)
      {
        ConvCase c;
        int64_t oh, ow;
        random_case (&c, types[t]);
        c.bias_type = types[t];
        if (types[t] == ET_SCALAR_CHAR)
          c.bias_type = ET_SCALAR_LONG; /* bias may differ in dtype */
        if (types[t] == ET_SCALAR_HALF || types[t] == ET_SCALAR_BFLOAT16)
          {
            /* Keep sums small enough to be exact. */
            c.kh = c.kh > 2 ? 2 : c.kh;
            c.kw = c.kw > 2 ? 2 : c.kw;
          }
        conv_out_size (&c, &oh, &ow);
        if ((c.spatial == 2 && oh < 1) || ow < 1)
          continue;
        if (types[t] == ET_SCALAR_CHAR)
          {
            /* int8 wraps; keep the reference exact by using tiny kernels. */
            c.cin = c.groups;
            c.kh = c.kw = 1;
            conv_out_size (&c, &oh, &ow);
            if ((c.spatial == 2 && oh < 1) || ow < 1)
              continue;
          }
        if (run_conv (&c, true) != ET_OK)
          g_error ("dtype %d case %d failed: %s", types[t], i, last_message);
      }
}

static void
expect_conv_error (const ConvCase *c, const char *what)
{
  EtError err = run_conv (c, false);
  if (err == ET_OK)
    g_error ("expected an error for %s", what);
  g_test_message ("%s: %s", what, last_message);
  g_assert_cmpstr (last_message, !=, "");
}

static void
test_conv_errors (void)
{
  const ConvCase good = { 2,
                          1,
                          4,
                          6,
                          6,
                          6,
                          3,
                          3,
                          1,
                          1,
                          1,
                          1,
                          1,
                          1,
                          0,
                          0,
                          2,
                          false,
                          true,
                          false,
                          false,
                          false,
                          ET_SCALAR_FLOAT,
                          ET_SCALAR_FLOAT };
  ConvCase c;

  g_assert_cmpint (run_conv (&good, true), ==, ET_OK);

  c = good;
  c.groups = 3; /* does not divide cin */
  expect_conv_error (&c, "groups not dividing channels");
  c = good;
  c.groups = 0;
  expect_conv_error (&c, "groups 0");
  c = good;
  c.sh = 0;
  expect_conv_error (&c, "stride 0");
  c = good;
  c.ph = -1;
  expect_conv_error (&c, "negative padding");
  c = good;
  c.dw = 0;
  expect_conv_error (&c, "dilation 0");
  c = good;
  c.kh = 9;
  c.ph = 0;
  expect_conv_error (&c, "output size <= 0");
  c = good;
  c.type = ET_SCALAR_BOOL;
  c.bias = false;
  expect_conv_error (&c, "Bool");
  c = good;
  c.transposed = true;
  c.oph = 1; /* stride 1, dilation 1 */
  expect_conv_error (&c, "output_padding >= stride and dilation");
  c = good;
  c.h = 0;
  expect_conv_error (&c, "empty spatial input");

  /* Hand-made stacks: wrong bias length, wrong weight shape, dtype
   * mismatch, wrong argument count and tags. */
  int64_t xs[4] = { 1, 4, 5, 5 }, ws[4] = { 6, 2, 3, 3 }, bs = 5, ys[4] = { 1, 6, 3, 3 };
  Tensor x, w, b, y, wd;
  tensor_new (&x, ET_SCALAR_FLOAT, 4, xs, NULL, NULL);
  tensor_new (&w, ET_SCALAR_FLOAT, 4, ws, NULL, NULL);
  tensor_new (&b, ET_SCALAR_FLOAT, 1, &bs, NULL, NULL);
  tensor_new (&y, ET_SCALAR_FLOAT, 4, ys, NULL, NULL);
  tensor_new (&wd, ET_SCALAR_DOUBLE, 4, ws, NULL, NULL);
  int64_t one[2] = { 1, 1 }, zero[2] = { 0, 0 };
  IntList ls, lp, ld, lo, l3;
  int_list_init (&ls, 2, one);
  int_list_init (&lp, 2, zero);
  int_list_init (&ld, 2, one);
  int_list_init (&lo, 2, zero);
  int64_t three[3] = { 1, 1, 1 };
  int_list_init (&l3, 3, three);
  EtValue none = { .tag = ET_VALUE_NONE }, tr = { .tag = ET_VALUE_BOOL }, groups = { .tag = ET_VALUE_INT };
  groups.u.int_value = 2;
  EtValue *args[11] = { &x.v, &w.v, &b.v, &ls.v, &lp.v, &ld.v, &tr, &lo.v, &groups, &y.v, &y.v };

  g_assert_cmpint (call ("aten::convolution.out", args, 11), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "bias"));
  args[2] = &none;
  g_assert_cmpint (call ("aten::convolution.out", args, 11), ==, ET_OK);
  groups.u.int_value = 1; /* weight [6, 2, ...] needs cin/groups == 2 */
  g_assert_cmpint (call ("aten::convolution.out", args, 11), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "weight"));
  groups.u.int_value = 2;
  args[1] = &wd.v;
  g_assert_cmpint (call ("aten::convolution.out", args, 11), ==, ET_ERROR_INVALID_ARGUMENT);
  args[1] = &w.v;
  args[3] = &l3.v;
  g_assert_cmpint (call ("aten::convolution.out", args, 11), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "stride"));
  args[3] = &ls.v;
  args[6] = &groups; /* transposed must be a Bool */
  g_assert_cmpint (call ("aten::convolution.out", args, 11), !=, ET_OK);
  args[6] = &tr;
  g_assert_cmpint (call ("aten::convolution.out", args, 10), !=, ET_OK);
  args[0] = &w.v; /* input [6, 2, 3, 3] vs weight: cin mismatch */
  g_assert_cmpint (call ("aten::convolution.out", args, 11), ==, ET_ERROR_INVALID_ARGUMENT);
  tensor_free (&x);
  tensor_free (&w);
  tensor_free (&b);
  tensor_free (&y);
  tensor_free (&wd);
}

/* ---- linear and bmm ---- */

static void
run_linear_typed (int type, uint32_t nd, const int64_t *in_sizes, int64_t out_f, int bias_kind,
                  bool weight_transposed_view)
{
  int64_t in_f = in_sizes[nd - 1], m = 1;
  for (uint32_t d = 0; d + 1 < nd; d++)
    m *= in_sizes[d];
  double *xv = g_new (double, m *in_f + 1), *wv = g_new (double, out_f *in_f + 1);
  double bv[4096];
  for (int64_t i = 0; i < m * in_f; i++)
    xv[i] = rounded_value (type);
  for (int64_t i = 0; i < out_f * in_f; i++)
    wv[i] = rounded_value (type);
  for (int64_t i = 0; i < out_f; i++)
    bv[i] = rounded_value (type);

  int64_t ws[2] = { out_f, in_f }, bsz = bias_kind == 2 ? 1 : out_f, ys[ET_MAX_DIMS];
  memcpy (ys, in_sizes, nd * sizeof (int64_t));
  ys[nd - 1] = out_f;
  static const uint8_t transposed_order[2] = { 1, 0 };
  Tensor x, w, b, y;
  tensor_new (&x, type, nd, in_sizes, NULL, xv);
  tensor_new (&w, type, 2, ws, weight_transposed_view ? transposed_order : NULL, wv);
  tensor_new (&b, type, 1, &bsz, NULL, bv);
  tensor_new (&y, type, nd, ys, NULL, NULL);
  EtValue none = { .tag = ET_VALUE_NONE };
  EtValue *args[5] = { &x.v, &w.v, bias_kind ? &b.v : &none, &y.v, &y.v };
  if (call ("aten::linear.out", args, 5) != ET_OK)
    g_error ("linear failed: %s", last_message);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < out_f; j++)
      {
        double want = bias_kind == 1 ? bv[j] : bias_kind == 2 ? bv[0] : 0.0;
        for (int64_t p = 0; p < in_f; p++)
          want += tensor_get (&x, i * in_f + p) * tensor_get (&w, j * in_f + p);
        double got = tensor_get (&y, i * out_f + j);
        if (type == ET_SCALAR_HALF)
          want = (double) (_Float16) want;
        if (!(fabs (got - want) <= tolerance (type) * (1.0 + sqrt ((double) in_f)) * (1.0 + fabs (want))))
          g_error ("linear [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "] -> %" G_GINT64_FORMAT ": %.7g, expected %.7g",
                   m, in_f, out_f, got, want);
      }
  tensor_free (&x);
  tensor_free (&w);
  tensor_free (&b);
  tensor_free (&y);
  g_free (xv);
  g_free (wv);
}

static void
run_linear (uint32_t nd, const int64_t *in_sizes, int64_t out_f, int bias_kind, bool weight_transposed_view)
{
  run_linear_typed (ET_SCALAR_FLOAT, nd, in_sizes, out_f, bias_kind, weight_transposed_view);
}

static void
test_linear (void)
{
  static const int64_t odd[] = { 1, 7, 17, 63, 129 };

  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      for (size_t i = 0; i < G_N_ELEMENTS (odd); i++)
        for (size_t j = 0; j < G_N_ELEMENTS (odd); j++)
          {
            int64_t s2[2] = { odd[i], odd[j] };
            run_linear (2, s2, odd[(i + j) % 5], (int) ((i + j) % 3), (i * j) % 2);
          }
      int64_t s3[3] = { 2, 5, 33 }, s1[1] = { 20 }, s4[4] = { 2, 1, 3, 70 };
      run_linear (3, s3, 130, 1, false);
      run_linear (1, s1, 9, 1, false);
      run_linear (4, s4, 300, 2, true);
    }
  /* The other dtypes: Double and the integers exactly, Half/BFloat16 in float. */
  static const int types[] = { ET_SCALAR_DOUBLE, ET_SCALAR_HALF, ET_SCALAR_BFLOAT16, ET_SCALAR_INT, ET_SCALAR_LONG };
  for (size_t t = 0; t < G_N_ELEMENTS (types); t++)
    {
      int64_t s2[2] = { 5, 6 }, s3[3] = { 2, 3, 7 };
      run_linear_typed (types[t], 2, s2, 4, 1, false);
      run_linear_typed (types[t], 3, s3, 9, 0, true);
      run_linear_typed (types[t], 2, s2, 3, 2, false);
    }
  executorch_threadpool_set_num_threads (0);

  /* Errors: in-feature mismatch, bias length, dtype. */
  int64_t xs[2] = { 3, 4 }, ws[2] = { 5, 4 }, wbad[2] = { 5, 3 }, b3 = 3, ys[2] = { 3, 5 };
  Tensor x, w, wb, b, y, xd;
  tensor_new (&x, ET_SCALAR_FLOAT, 2, xs, NULL, NULL);
  tensor_new (&xd, ET_SCALAR_DOUBLE, 2, xs, NULL, NULL);
  tensor_new (&w, ET_SCALAR_FLOAT, 2, ws, NULL, NULL);
  tensor_new (&wb, ET_SCALAR_FLOAT, 2, wbad, NULL, NULL);
  tensor_new (&b, ET_SCALAR_FLOAT, 1, &b3, NULL, NULL);
  tensor_new (&y, ET_SCALAR_FLOAT, 2, ys, NULL, NULL);
  EtValue none = { .tag = ET_VALUE_NONE };
  EtValue *args[5] = { &x.v, &wb.v, &none, &y.v, &y.v };
  g_assert_cmpint (call ("aten::linear.out", args, 5), ==, ET_ERROR_INVALID_ARGUMENT);
  args[1] = &w.v;
  args[2] = &b.v;
  g_assert_cmpint (call ("aten::linear.out", args, 5), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "bias"));
  args[2] = &none;
  args[0] = &xd.v;
  g_assert_cmpint (call ("aten::linear.out", args, 5), ==, ET_ERROR_INVALID_ARGUMENT);
  args[0] = &x.v;
  g_assert_cmpint (call ("aten::linear.out", args, 4), !=, ET_OK);
  g_assert_cmpint (call ("aten::linear.out", args, 5), ==, ET_OK);
  tensor_free (&x);
  tensor_free (&xd);
  tensor_free (&w);
  tensor_free (&wb);
  tensor_free (&b);
  tensor_free (&y);
}

/* addmm: self broadcast as a row, a column or the full matrix; beta 0
 * ignores self (even NaN), alpha 1 takes the accumulate-into-out path. */
static void
test_addmm (void)
{
  static const double betas[] = { 1.0, 0.0, 2.0 }, alphas[] = { 1.0, 0.5 };
  int64_t m = 17, k = 63, n = 129;
  int64_t as[2] = { m, k }, bs[2] = { k, n }, cs[2] = { m, n };
  double *av = g_new (double, m *k), *bv = g_new (double, k *n), *sv = g_new (double, m *n);
  for (int64_t i = 0; i < m * k; i++)
    av[i] = rnd ();
  for (int64_t i = 0; i < k * n; i++)
    bv[i] = rnd ();
  for (int64_t i = 0; i < m * n; i++)
    sv[i] = rnd ();

  for (int shape = 0; shape < 3; shape++)
    for (size_t bi = 0; bi < G_N_ELEMENTS (betas); bi++)
      for (size_t ai = 0; ai < G_N_ELEMENTS (alphas); ai++)
        {
          int64_t ss[2] = { shape == 1 ? m : 1, shape == 0 ? n : 1 };
          uint32_t snd = shape == 0 ? 1 : 2;
          if (shape == 2)
            {
              ss[0] = m;
              ss[1] = n;
            }
          Tensor a, b, self, c;
          tensor_new (&a, ET_SCALAR_FLOAT, 2, as, NULL, av);
          tensor_new (&b, ET_SCALAR_FLOAT, 2, bs, NULL, bv);
          tensor_new (&self, ET_SCALAR_FLOAT, snd, shape == 0 ? ss + 1 : ss, NULL, sv);
          if (betas[bi] == 0.0)
            ((float *) self.t.data)[0] = NAN;
          tensor_new (&c, ET_SCALAR_FLOAT, 2, cs, NULL, NULL);
          EtValue beta = { .tag = ET_VALUE_DOUBLE }, alpha = { .tag = ET_VALUE_DOUBLE };
          beta.u.double_value = betas[bi];
          alpha.u.double_value = alphas[ai];
          EtValue *args[7] = { &self.v, &a.v, &b.v, &beta, &alpha, &c.v, &c.v };
          if (call ("aten::addmm.out", args, 7) != ET_OK)
            g_error ("addmm failed: %s", last_message);
          for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
              {
                double prod = 0;
                for (int64_t p = 0; p < k; p++)
                  prod += tensor_get (&a, i * k + p) * tensor_get (&b, p * n + j);
                int64_t si = shape == 0 ? j : shape == 1 ? i : i * n + j;
                double want = alphas[ai] * prod + (betas[bi] != 0.0 ? betas[bi] * tensor_get (&self, si) : 0.0);
                double got = tensor_get (&c, i * n + j);
                if (!(fabs (got - want) <= 1e-4 * (1.0 + fabs (want))))
                  g_error ("addmm shape %d beta %g alpha %g: [%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
                           "] = %.7g, expected %.7g",
                           shape, betas[bi], alphas[ai], i, j, got, want);
              }
          tensor_free (&a);
          tensor_free (&b);
          tensor_free (&self);
          tensor_free (&c);
        }
  g_free (av);
  g_free (bv);
  g_free (sv);
}

/* bmm: many small batches go one batch per task. */
static void
test_bmm_batches (void)
{
  int64_t bsz = 37, m = 7, k = 17, n = 9;
  int64_t as[3] = { bsz, m, k }, bs[3] = { bsz, k, n }, cs[3] = { bsz, m, n };
  double *av = g_new (double, bsz *m *k), *bv = g_new (double, bsz *k *n);
  for (int64_t i = 0; i < bsz * m * k; i++)
    av[i] = rnd ();
  for (int64_t i = 0; i < bsz * k * n; i++)
    bv[i] = rnd ();
  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      Tensor a, b, c;
      tensor_new (&a, ET_SCALAR_FLOAT, 3, as, NULL, av);
      tensor_new (&b, ET_SCALAR_FLOAT, 3, bs, NULL, bv);
      tensor_new (&c, ET_SCALAR_FLOAT, 3, cs, NULL, NULL);
      EtValue *args[4] = { &a.v, &b.v, &c.v, &c.v };
      g_assert_cmpint (call ("aten::bmm.out", args, 4), ==, ET_OK);
      for (int64_t z = 0; z < bsz; z++)
        for (int64_t i = 0; i < m; i++)
          for (int64_t j = 0; j < n; j++)
            {
              double want = 0;
              for (int64_t p = 0; p < k; p++)
                want += (double) (float) av[(z * m + i) * k + p] * (double) (float) bv[(z * k + p) * n + j];
              g_assert_cmpfloat_with_epsilon (tensor_get (&c, (z * m + i) * n + j), want, 1e-4);
            }
      tensor_free (&a);
      tensor_free (&b);
      tensor_free (&c);
    }
  executorch_threadpool_set_num_threads (0);
  g_free (av);
  g_free (bv);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (20261202);
  register_kernels_plugin ();
  g_test_message ("GEMM microkernel: %s", _executorch_sgemm_kernel_name ());

  g_test_add_func ("/gemm/odd-sizes", test_gemm_odd_sizes);
  g_test_add_func ("/gemm/packed-a", test_gemm_packed_a);
  g_test_add_func ("/gemm/edge-tiles", test_gemm_edge_tiles);
  g_test_add_func ("/gemm/epilogue", test_gemm_epilogue);
  g_test_add_func ("/linear/shapes-and-errors", test_linear);
  g_test_add_func ("/bmm/batches", test_bmm_batches);
  g_test_add_func ("/addmm/broadcast-beta-alpha", test_addmm);
  g_test_add_func ("/convolution/random-float", test_conv_random_float);
  g_test_add_func ("/convolution/large", test_conv_large);
  g_test_add_func ("/convolution/split", test_conv_split);
  g_test_add_func ("/convolution/dtypes", test_conv_dtypes);
  g_test_add_func ("/convolution/errors", test_conv_errors);
  int ret = g_test_run ();
  g_rand_free (rng);
  return ret;
}
