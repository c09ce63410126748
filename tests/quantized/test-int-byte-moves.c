/* test-int-byte-moves.c: dequantize → permute_copy / clone → quantize on staged bytes against the float path
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built with libexecutorch-kernels-quantized's sources (its kernels are not
 * exported).  The rewrite (int-conv-rewrite.c, rewrite_byte_moves) gives
 * such a chain the byte kernels: the dequantize stages the int8 bytes,
 * permutes and clones move them, the quantize copies them out.  Each chain
 * here must give the bytes of the reference steps: upstream's dequantize
 * formula, a plain permutation of the floats, upstream's quantize formula
 * (int8-fast.c's, which match upstream byte for byte), on odd sizes, a
 * permutation that keeps the last dimensions (moved in blocks) and ones
 * that do not, negative dims, int8 and uint8.  Kernels handed data that
 * is not staged fail with an error.  The max pool on bytes (int-pool.c)
 * against each window's maximum through the table, on geometries with
 * tails, strides 1 and 2, padding, dilation and ceil mode.  Large
 * quantizes and dequantizes, which go over the thread pool in chunks,
 * against upstream's formula element by element, at 1 and 2 threads.
 */
#include "int-kernels-private.h"
#include "kernel-test-util.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <math.h>
#include <string.h>

static EtErrorContext *error_ctx;

static EtError
run (const EtKernel *kernel, EtValue **args, uint32_t n_args)
{
  return et_kernel_call (kernel, args, n_args, error_ctx);
}

/* index of element @flat of a contiguous tensor of @sizes after the
 * permutation @dims (out dimension i is in dimension dims[i]) */
static int64_t
permuted_source (const int64_t *sizes, const int64_t *dims, uint32_t ndim, int64_t flat)
{
  int64_t out_sizes[ET_MAX_DIMS], in_strides[ET_MAX_DIMS], from = 0;

  for (uint32_t i = ndim; i-- > 0;)
    in_strides[i] = i + 1 < ndim ? in_strides[i + 1] * sizes[i + 1] : 1;
  for (uint32_t i = 0; i < ndim; i++)
    out_sizes[i] = sizes[dims[i]];
  for (uint32_t i = ndim; i-- > 0;)
    {
      from += (flat % out_sizes[i]) * in_strides[dims[i]];
      flat /= out_sizes[i];
    }
  return from;
}

typedef struct
{
  uint32_t ndim;
  int64_t sizes[5];
  int64_t dims[5]; /* as the program writes them: may be negative */
} MoveCase;

static void
check_chain (const MoveCase *mc, bool is_signed, bool clone_after)
{
  int type = is_signed ? ET_SCALAR_CHAR : ET_SCALAR_BYTE;
  double scale = is_signed ? 0.0123 : 0.0456;
  int64_t zp = is_signed ? -7 : 131, qmin = is_signed ? -128 : 0, qmax = is_signed ? 127 : 255;
  int64_t dims[5], out_sizes[5], numel = 1;

  for (uint32_t i = 0; i < mc->ndim; i++)
    {
      dims[i] = mc->dims[i] < 0 ? mc->dims[i] + mc->ndim : mc->dims[i];
      numel *= mc->sizes[i];
    }
  for (uint32_t i = 0; i < mc->ndim; i++)
    out_sizes[i] = mc->sizes[dims[i]];

  uint8_t *x = g_new (uint8_t, numel), *y = g_new0 (uint8_t, numel), *want = g_new (uint8_t, numel);
  float *staged = g_new0 (float, numel), *permuted = g_new0 (float, numel), *cloned = g_new0 (float, numel);
  float *ref_f = g_new (float, numel), *ref_p = g_new (float, numel);
  for (int64_t i = 0; i < numel; i++)
    x[i] = (uint8_t) g_test_rand_int_range (0, 256);

  /* the reference: dequantize, permute the floats, quantize */
  _executorch_qk_dequantize_8bit_to_float (x, is_signed, ref_f, numel, (int32_t) zp, (float) scale);
  for (int64_t i = 0; i < numel; i++)
    ref_p[i] = ref_f[permuted_source (mc->sizes, dims, mc->ndim, i)];
  _executorch_qk_quantize_float_to_8bit (ref_p, want, is_signed, numel, scale, (int32_t) zp, qmin, qmax);

  Tensor tx, ts, tp, tc, ty;
  tensor_init (&tx, type, mc->ndim, mc->sizes, x);
  tensor_init (&ts, ET_SCALAR_FLOAT, mc->ndim, mc->sizes, staged);
  tensor_init (&tp, ET_SCALAR_FLOAT, mc->ndim, out_sizes, permuted);
  tensor_init (&tc, ET_SCALAR_FLOAT, mc->ndim, out_sizes, cloned);
  tensor_init (&ty, type, mc->ndim, out_sizes, y);
  EtValue v_scale = double_value (scale), v_zp = int_value (zp), v_qmin = int_value (qmin), v_qmax = int_value (qmax);
  EtValue v_type = int_value (type), v_none = none_value (), v_false = bool_value (false);
  IntList l_dims;
  int_list_init (&l_dims, mc->ndim, mc->dims);

  EtValue *deq[] = { &tx.v, &v_scale, &v_zp, &v_qmin, &v_qmax, &v_type, &v_none, &ts.v, &ts.v };
  g_assert_cmpint (run (&_executorch_qk_stage_bytes_kernel, deq, G_N_ELEMENTS (deq)), ==, ET_OK);
  EtValue *perm[] = { &ts.v, &l_dims.v, &tp.v, &tp.v };
  g_assert_cmpint (run (&_executorch_qk_permute_bytes_kernel, perm, G_N_ELEMENTS (perm)), ==, ET_OK);
  Tensor *last = &tp;
  if (clone_after)
    {
      EtValue *clone[] = { &tp.v, &v_false, &v_none, &tc.v, &tc.v };
      g_assert_cmpint (run (&_executorch_qk_clone_bytes_kernel, clone, G_N_ELEMENTS (clone)), ==, ET_OK);
      last = &tc;
    }
  EtValue *q[] = { &last->v, &v_scale, &v_zp, &v_qmin, &v_qmax, &v_type, &ty.v, &ty.v };
  g_assert_cmpint (run (&_executorch_qk_unstage_bytes_kernel, q, G_N_ELEMENTS (q)), ==, ET_OK);
  for (int64_t i = 0; i < numel; i++)
    if (y[i] != want[i])
      g_error ("%s, dims case of %u dimensions: element %" G_GINT64_FORMAT " is %d, expected %d",
               is_signed ? "int8" : "uint8", mc->ndim, i, y[i], want[i]);

  /* a permute of floats that were not staged fails, and writes nothing
   * past its out */
  memset (staged, 0, (size_t) numel * sizeof (float));
  g_assert_cmpint (run (&_executorch_qk_permute_bytes_kernel, perm, G_N_ELEMENTS (perm)), !=, ET_OK);

  g_free (x), g_free (y), g_free (want), g_free (staged), g_free (permuted), g_free (cloned);
  g_free (ref_f), g_free (ref_p);
}

static void
test_permute_chains (void)
{
  static const MoveCase cases[] = {
    { 5, { 1, 2, 5, 9, 11 }, { 0, 2, 1, 3, 4 } }, /* ShuffleNet's shuffle: 9 x 11 blocks */
    { 4, { 1, 10, 9, 11 }, { 0, 2, 3, 1 } },      /* to NHWC: byte by byte */
    { 4, { 1, 9, 11, 10 }, { 0, 3, 1, 2 } },      /* and back */
    { 2, { 3, 7 }, { 1, 0 } },
    { 3, { 2, 3, 5 }, { -1, 0, 1 } },      /* negative dims */
    { 3, { 3, 1, 7 }, { 0, 1, 2 } },       /* the identity: one block */
    { 4, { 2, 3, 4, 5 }, { 1, 0, 2, 3 } }, /* two dimensions kept */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int s = 0; s < 2; s++)
      for (int c = 0; c < 2; c++)
        check_chain (&cases[i], s == 0, c == 1);
}

typedef struct
{
  int64_t ih, iw, k[2], s[2], p[2], d[2];
  bool ceil_mode;
} PoolCase;

static int64_t
pool_out (int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode)
{
  int64_t o = (in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0)) / s + 1;
  if (ceil_mode && (o - 1) * s >= in + p)
    o--;
  return o;
}

static void
check_pool (const PoolCase *pc, bool is_signed, bool identity)
{
  int64_t oh = pool_out (pc->ih, pc->k[0], pc->s[0], pc->p[0], pc->d[0], pc->ceil_mode);
  int64_t ow = pool_out (pc->iw, pc->k[1], pc->s[1], pc->p[1], pc->d[1], pc->ceil_mode);
  int64_t channels = 3, n_in = channels * pc->ih * pc->iw, n_out = channels * oh * ow;
  uint8_t table[256];

  for (int b = 0; b < 256; b++)
    table[b] = identity ? (uint8_t) b : (uint8_t) (b * 7 + 3);
  const EtKernel *kernel =
      _executorch_qk_pool_kernel_new (NULL, table, is_signed, pc->k, pc->s, pc->p, pc->d, pc->ih, pc->iw, oh, ow);
  g_assert_nonnull (kernel);

  /* the staged float buffers: a header, then the bytes */
  float *in = g_new0 (float, n_in + 8), *out = g_new0 (float, n_out + 8);
  int64_t *indices = g_new0 (int64_t, n_out);
  uint8_t *x = (uint8_t *) in + sizeof (StagedBytes), *y = (uint8_t *) out + sizeof (StagedBytes);
  StagedBytes head = { STAGE_BYTES_MAGIC, n_in };
  memcpy (in, &head, sizeof head);
  for (int64_t i = 0; i < n_in; i++)
    x[i] = (uint8_t) g_test_rand_int_range (0, 256);

  int64_t in_sizes[] = { 1, channels, pc->ih, pc->iw }, out_sizes[] = { 1, channels, oh, ow };
  Tensor ti, to, tx;
  tensor_init (&ti, ET_SCALAR_FLOAT, 4, in_sizes, in);
  tensor_init (&to, ET_SCALAR_FLOAT, 4, out_sizes, out);
  tensor_init (&tx, ET_SCALAR_LONG, 4, out_sizes, indices);
  ti.t.nbytes = (size_t) n_in * sizeof (float); /* the program's, without the slack */
  IntList lk, ls, lp, ld;
  int_list_init (&lk, 2, pc->k);
  int_list_init (&ls, 2, pc->s);
  int_list_init (&lp, 2, pc->p);
  int_list_init (&ld, 2, pc->d);
  EtValue v_ceil = bool_value (pc->ceil_mode);
  EtValue *args[] = { &ti.v, &lk.v, &ls.v, &lp.v, &ld.v, &v_ceil, &to.v, &tx.v, &to.v };
  g_assert_cmpint (run (kernel, args, G_N_ELEMENTS (args)), ==, ET_OK);

  for (int64_t c = 0; c < channels; c++)
    for (int64_t oy = 0; oy < oh; oy++)
      for (int64_t ox = 0; ox < ow; ox++)
        {
          int best = -1000, best_byte = 0;
          for (int64_t ky = 0; ky < pc->k[0]; ky++)
            for (int64_t kx = 0; kx < pc->k[1]; kx++)
              {
                int64_t iy = oy * pc->s[0] - pc->p[0] + ky * pc->d[0], ix = ox * pc->s[1] - pc->p[1] + kx * pc->d[1];
                if (iy < 0 || iy >= pc->ih || ix < 0 || ix >= pc->iw)
                  continue;
                uint8_t b = x[(c * pc->ih + iy) * pc->iw + ix];
                int v = is_signed ? (int8_t) b : b;
                if (v > best)
                  best = v, best_byte = b;
              }
          uint8_t got = y[(c * oh + oy) * ow + ox], want = table[best_byte];
          if (got != want)
            g_error ("pool %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " s%" G_GINT64_FORMAT " on %" G_GINT64_FORMAT
                     "x%" G_GINT64_FORMAT ": output (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                     ") is %d, expected %d",
                     pc->k[0], pc->k[1], pc->s[1], pc->ih, pc->iw, c, oy, ox, got, want);
        }
  g_free ((gpointer) kernel);
  g_free (in), g_free (out), g_free (indices);
}

static void
test_max_pool (void)
{
  static const PoolCase cases[] = {
    { 109, 109, { 3, 3 }, { 2, 2 }, { 0, 0 }, { 1, 1 }, true },  /* SqueezeNet's */
    { 112, 112, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, false }, /* ShuffleNet's */
    { 13, 37, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, true },
    { 9, 21, { 2, 5 }, { 1, 1 }, { 0, 2 }, { 1, 1 }, false },  /* stride 1 */
    { 11, 19, { 2, 2 }, { 1, 1 }, { 0, 0 }, { 2, 2 }, false }, /* dilation: the plain loop */
    { 8, 50, { 3, 8 }, { 1, 2 }, { 1, 4 }, { 1, 1 }, false },  /* the widest window taken */
    { 6, 7, { 3, 9 }, { 2, 2 }, { 1, 4 }, { 1, 1 }, false },   /* wider: the plain loop */
    { 5, 701, { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, true },  /* a row on the heap */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (int s = 0; s < 2; s++)
      for (int t = 0; t < 2; t++)
        check_pool (&cases[i], s == 0, t == 0);
}

/* Tensors of several pool chunks and a tail: every element as upstream's
 * formulas give it, on one thread and on two. */
static void
test_chunked_quantize (void)
{
  const int64_t n = 3 * 64 * 1024 + 77;
  const double scale = 0.037;
  const int32_t zp = -5;
  guint old = executorch_threadpool_get_num_threads ();
  g_autofree float *x = g_new (float, n), *back = g_new (float, n);
  g_autofree int8_t *q = g_new (int8_t, n);
  GRand *rand = g_rand_new_with_seed (7);

  for (int64_t i = 0; i < n; i++)
    x[i] = (float) g_rand_double_range (rand, -6.0, 6.0);
  x[12345] = NAN;
  x[n - 1] = 1e30f;
  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      memset (q, 0x55, (size_t) n);
      _executorch_qk_quantize_float_to_8bit (x, q, true, n, scale, zp, -128, 127);
      float inv = 1.0f / (float) scale;
      for (int64_t i = 0; i < n; i++)
        {
          float v = (float) zp + nearbyintf (inv * x[i]);
          int32_t want = isnan (v) ? zp : (int32_t) (v < -128.0f ? -128.0f : v > 127.0f ? 127.0f : v);
          if (q[i] != want)
            g_error ("%u threads: element %" G_GINT64_FORMAT " quantized to %d, not %d", threads, i, q[i], want);
        }
      _executorch_qk_dequantize_8bit_to_float (q, true, back, n, zp, (float) scale);
      for (int64_t i = 0; i < n; i++)
        g_assert_cmpfloat (back[i], ==, (float) (q[i] - zp) * (float) scale);
    }
  executorch_threadpool_set_num_threads (old);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  error_ctx = et_error_context_new ();
  g_test_add_func ("/quantized/int-bytes/permute-chains", test_permute_chains);
  g_test_add_func ("/quantized/int-bytes/max-pool", test_max_pool);
  g_test_add_func ("/quantized/int-bytes/chunked-quantize", test_chunked_quantize);
  return g_test_run ();
}
