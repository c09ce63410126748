/* test-int-byte-adds.c: dequantize → add → [relu | hardtanh] → quantize on staged bytes against the float path
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built with libexecutorch-kernels-quantized's sources (its kernels are not
 * exported).  The byte add (int-add.c) against the reference steps
 * (upstream's dequantize formula, a float add, the clamp, upstream's
 * quantize formula): int8 and uint8 in and out, either argument staged,
 * no clamp, relu and hardtanh bounds, several pool chunks at 1 and 2
 * threads, and a result over either input (the memory plan may put it
 * there); an unstaged input fails with an error.  Then the fixture
 * quant/resblock_q8, loaded through the plug-in that discovery finds: its
 * add must be taken (seen by a rewrite of the test's own, run after the
 * plug-in's), and every output must equal, byte for byte, both the method
 * loaded with EXECUTORCH_QUANTIZED_REFERENCE=1 and upstream's runtime.
 */
#include "int-kernels-private.h"
#include "quant-fixture.h"
#include "kernel-test-util.h"

#include "executorch-threadpool.h"

#include <executorch.h>
#include <glib.h>
#include <math.h>
#include <string.h>

static EtErrorContext *error_ctx;
static guint byte_adds;

/* Where the add writes its result. */
typedef enum
{
  OUT_APART,
  OUT_OVER_X,      /* the float input's memory */
  OUT_OVER_STAGED, /* the staged bytes' memory */
  OUT_INSIDE_X,    /* from the float input's element 225 on: written
                    * before the elements under it are read, unless the
                    * kernel makes the result aside */
} OutPlace;

static void
check_add (int64_t n, const QkByteSource *source, const QkRequant *rq, uint32_t staged_arg, OutPlace place)
{
  uint8_t *bytes = g_new (uint8_t, n), *want = g_new (uint8_t, n);
  float *x = g_new (float, n + 225), *x_copy = g_new (float, n), *ref = g_new (float, n);
  float *staged_mem = g_new0 (float, n), *out_mem = g_new0 (float, n);
  int64_t sizes[1] = { n };

  for (int64_t i = 0; i < n; i++)
    {
      bytes[i] = (uint8_t) g_test_rand_int_range (0, 256);
      /* values near the sum's rounding ties too: multiples of half the
       * output scale */
      x[i] = i % 5 == 0 ? (float) (g_test_rand_int_range (-40, 40) * 0.5 * rq->scale)
                        : (float) g_test_rand_double_range (-3.0, 3.0);
    }
  memcpy (x_copy, x, (size_t) n * sizeof (float));
  _executorch_qk_dequantize_8bit_to_float (bytes, source->is_signed, ref, n, source->zero_point, source->scale);
  for (int64_t i = 0; i < n; i++)
    {
      float v = staged_arg == 0 ? ref[i] + x[i] : x[i] + ref[i];
      v = v < rq->lo ? rq->lo : v;
      ref[i] = v > rq->hi ? rq->hi : v;
    }
  _executorch_qk_quantize_float_to_8bit (ref, want, rq->is_signed, n, rq->scale, rq->zero_point, rq->qmin, rq->qmax);

  const EtKernel *kernel = _executorch_qk_byte_add_kernel_new (NULL, staged_arg, source, rq);
  g_assert_nonnull (kernel);
  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      memcpy (x, x_copy, (size_t) n * sizeof (float));
      StagedBytes head = { STAGE_BYTES_MAGIC, n };
      memcpy (staged_mem, &head, sizeof head);
      memcpy ((uint8_t *) staged_mem + sizeof head, bytes, (size_t) n);
      float *out_data = place == OUT_OVER_X        ? x
                        : place == OUT_INSIDE_X    ? x + 225
                        : place == OUT_OVER_STAGED ? staged_mem
                                                   : out_mem;
      Tensor staged, other, out;
      tensor_init (&staged, ET_SCALAR_FLOAT, 1, sizes, staged_mem);
      tensor_init (&other, ET_SCALAR_FLOAT, 1, sizes, x);
      tensor_init (&out, ET_SCALAR_FLOAT, 1, sizes, out_data);
      EtValue alpha = int_value (1);
      EtValue *args[] = { staged_arg == 0 ? &staged.v : &other.v, staged_arg == 0 ? &other.v : &staged.v, &alpha,
                          &out.v, &out.v };
      g_assert_cmpint (et_kernel_call (kernel, args, G_N_ELEMENTS (args), error_ctx), ==, ET_OK);
      g_assert_nonnull (_executorch_qk_staged_bytes (&out.t));
      const uint8_t *got = (const uint8_t *) out_data + sizeof head;
      for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
          g_error ("n %" G_GINT64_FORMAT ", staged argument %u, out %d, %u threads, element %" G_GINT64_FORMAT
                   ": %d, expected %d",
                   n, staged_arg, (int) place, threads, i, got[i], want[i]);
    }
  executorch_threadpool_set_num_threads (0);
  g_free ((gpointer) kernel);
  g_free (bytes);
  g_free (want);
  g_free (x);
  g_free (x_copy);
  g_free (ref);
  g_free (staged_mem);
  g_free (out_mem);
}

static void
test_add (void)
{
  /* from 6: a float tensor holds its bytes after the header (16 bytes) */
  static const int64_t lengths[] = { 6, 37, 300, 3 * 64 * 1024 + 5 };
  QkByteSource int8 = { .scale = 0.0213f, .zero_point = -7, .is_signed = true };
  QkByteSource uint8 = { .scale = 0.0171f, .zero_point = 131, .is_signed = false };
  QkRequant plain = {
    .scale = 0.0337, .zero_point = 5, .qmin = -128, .qmax = 127, .is_signed = true, .lo = -INFINITY, .hi = INFINITY
  };
  QkRequant relu = plain, hardtanh = plain,
            to_uint8 = { .scale = 0.029, .zero_point = 122, .qmin = 0, .qmax = 255, .lo = -INFINITY, .hi = INFINITY };
  relu.lo = 0.0f;
  hardtanh.lo = -1.0f;
  hardtanh.hi = 1.5f;

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    for (uint32_t arg = 0; arg < 2; arg++)
      {
        check_add (lengths[l], &int8, &plain, arg, OUT_APART);
        check_add (lengths[l], &uint8, &relu, arg, OUT_APART);
        check_add (lengths[l], &int8, &hardtanh, arg, OUT_APART);
        check_add (lengths[l], &uint8, &to_uint8, arg, OUT_APART);
      }
  for (OutPlace place = OUT_OVER_X; place <= OUT_INSIDE_X; place++)
    for (uint32_t arg = 0; arg < 2; arg++)
      {
        check_add (3 * 64 * 1024 + 5, &int8, &relu, arg, place);
        check_add (300, &uint8, &plain, arg, place);
      }
}

/* An input that is not staged bytes is an error, never a read of floats
 * as bytes. */
static void
test_unstaged (void)
{
  QkByteSource int8 = { .scale = 0.02f, .zero_point = 0, .is_signed = true };
  QkRequant rq = { .scale = 0.03, .qmin = -128, .qmax = 127, .is_signed = true, .lo = -INFINITY, .hi = INFINITY };
  const EtKernel *kernel = _executorch_qk_byte_add_kernel_new (NULL, 1, &int8, &rq);
  float a[64] = { 0 }, b[64] = { 1.0f }, out[64];
  int64_t sizes[1] = { 64 };
  Tensor ta, tb, tout;

  tensor_init (&ta, ET_SCALAR_FLOAT, 1, sizes, a);
  tensor_init (&tb, ET_SCALAR_FLOAT, 1, sizes, b);
  tensor_init (&tout, ET_SCALAR_FLOAT, 1, sizes, out);
  EtValue alpha = int_value (1);
  EtValue *args[] = { &ta.v, &tb.v, &alpha, &tout.v, &tout.v };
  g_assert_cmpint (et_kernel_call (kernel, args, G_N_ELEMENTS (args), error_ctx), ==, ET_ERROR_INTERNAL);
  g_free ((gpointer) kernel);
}

/* Runs after the quantized plug-in's rewrite: counts its byte adds. */
static void
observe (void *user_data, EtMethodGraph *graph)
{
  (void) user_data;
  byte_adds = 0;
  for (uint32_t i = 0; i < et_method_graph_n_instructions (graph); i++)
    {
      const EtKernel *kernel = et_method_graph_kernel (graph, i);
      byte_adds += kernel != NULL && strcmp (kernel->name, "aten::add.out [int8 bytes]") == 0;
    }
}

static const EtMethodRewrite observer = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "test:observe-byte-adds",
  .rewrite = observe,
};

static void
test_fixture (void)
{
  g_autoptr (ExecutorchMethod) bytes = quant_fixture_load ("resblock_q8", FALSE);
  g_assert_cmpuint (byte_adds, ==, 2); /* both its residual adds */
  g_autoptr (ExecutorchMethod) reference = quant_fixture_load ("resblock_q8", TRUE);
  g_assert_cmpuint (byte_adds, ==, 0);

  for (guint c = 0; c < 3; c++)
    {
      g_autofree char *in_name = g_strdup_printf ("forward.case%u.in0.npy", c);
      g_autofree char *up_name = g_strdup_printf ("forward.case%u.upstream0.npy", c);
      NpyArray in = quant_fixture_npy ("resblock_q8", in_name), upstream = quant_fixture_npy ("resblock_q8", up_name);
      g_autoptr (GBytes) got = quant_fixture_run (bytes, &in, 0);
      g_autoptr (GBytes) want = quant_fixture_run (reference, &in, 0);
      if (!g_bytes_equal (got, want) || !g_bytes_equal (got, upstream.data))
        g_error ("case %u: the byte add differs from the reference path or from upstream", c);
      npy_array_clear (&upstream);
      npy_array_clear (&in);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  error_ctx = et_error_context_new ();
  /* Discovery first, so the plug-in's rewrite runs before the observer. */
  g_assert_true (executorch_load_plugins (NULL));
  g_assert_cmpint (et_registry_add_rewrite (et_registry_get_default (), &observer, error_ctx), ==, ET_OK);
  g_test_add_func ("/quantized/int-bytes/add", test_add);
  g_test_add_func ("/quantized/int-bytes/add-unstaged", test_unstaged);
  g_test_add_func ("/quantized/int-bytes/add-resblock-q8-fixture", test_fixture);
  return g_test_run ();
}
