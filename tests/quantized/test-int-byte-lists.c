/* test-int-byte-lists.c: dequantize → cat / split_with_sizes_copy → quantize on staged bytes against the float path
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built with libexecutorch-kernels-quantized's sources (its kernels are not
 * exported).  The byte cat and split (int-cat.c) against the reference
 * steps (upstream's dequantize formula, a float cat or split, upstream's
 * quantize formula) on int8 and uint8 parts with the whole's qparams (a
 * byte copy) and with others (a table per part), along every dimension,
 * on tensors of several pool chunks at 1 and 2 threads; unstaged parts
 * fail with an error.  Then the fixture quant/cat_q8, loaded through the
 * plug-in that discovery finds: its two cats and its split must be taken
 * (seen by a rewrite of the test's own, run after the plug-in's), and every
 * output must equal, byte for byte, both the method loaded with
 * EXECUTORCH_QUANTIZED_REFERENCE=1 and upstream's runtime.
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

/* A cat's part has its dequantize's source; a split's its quantize's
 * arguments.  The whole likewise has the other. */
typedef struct
{
  QkByteSource source; /* cat */
  QkRequant rq;        /* split */
  int64_t along;       /* extent along dim */
} PartCase;

typedef struct
{
  uint32_t ndim;
  int64_t sizes[4]; /* the whole's; sizes[dim] is the parts' sum */
  int64_t dim;      /* as the program writes it: may be negative */
  uint32_t n_parts;
  PartCase parts[3];
  QkByteSource source; /* split */
  QkRequant rq;        /* cat */
} ListCase;

static void
dequantize (const QkByteSource *s, const uint8_t *in, float *out, int64_t n)
{
  _executorch_qk_dequantize_8bit_to_float (in, s->is_signed, out, n, s->zero_point, s->scale);
}

static void
quantize (const QkRequant *rq, const float *in, uint8_t *out, int64_t n)
{
  _executorch_qk_quantize_float_to_8bit (in, out, rq->is_signed, n, rq->scale, rq->zero_point, rq->qmin, rq->qmax);
}

/* The rewrite's table: the byte b of @s dequantized, then quantized. */
static void
table_of (const QkByteSource *s, const QkRequant *rq, uint8_t *table)
{
  uint8_t b[256];
  float v[256];

  for (int i = 0; i < 256; i++)
    b[i] = (uint8_t) i;
  dequantize (s, b, v, 256);
  quantize (rq, v, table, 256);
}

/* A float tensor's buffer with room for the staged bytes (as the float
 * tensors the program planned are). */
static float *
float_buffer (int64_t numel)
{
  return g_new0 (float, MAX (numel, 8));
}

static void
stage (Tensor *staged, const uint8_t *bytes, int64_t numel)
{
  StagedBytes head = { STAGE_BYTES_MAGIC, numel };

  memcpy (staged->t.data, &head, sizeof head);
  memcpy ((uint8_t *) staged->t.data + sizeof head, bytes, (size_t) numel);
}

/* Whole element @flat's part and the element's index in that part. */
static uint32_t
locate (const ListCase *lc, int64_t dim, int64_t flat, int64_t *in_part)
{
  int64_t inner = 1, outer, pos;
  uint32_t p = 0;

  for (uint32_t d = (uint32_t) dim + 1; d < lc->ndim; d++)
    inner *= lc->sizes[d];
  outer = flat / (lc->sizes[dim] * inner);
  pos = flat % (lc->sizes[dim] * inner);
  while (pos >= lc->parts[p].along * inner)
    pos -= lc->parts[p++].along * inner;
  *in_part = outer * lc->parts[p].along * inner + pos;
  return p;
}

static void
check_list (const ListCase *lc, bool split)
{
  int64_t dim = lc->dim < 0 ? lc->dim + lc->ndim : lc->dim, whole_n = 1, part_n[3];
  uint8_t tables[3][256];
  uint8_t *bytes[3], *got[3];
  float *staged[3], *ref[3];
  Tensor parts[3], *items[3], whole;
  TensorList list;

  for (uint32_t d = 0; d < lc->ndim; d++)
    whole_n *= lc->sizes[d];
  for (uint32_t p = 0; p < lc->n_parts; p++)
    {
      int64_t sizes[4];
      memcpy (sizes, lc->sizes, sizeof sizes);
      sizes[dim] = lc->parts[p].along;
      part_n[p] = whole_n / lc->sizes[dim] * lc->parts[p].along;
      bytes[p] = g_new (uint8_t, part_n[p]);
      got[p] = g_new0 (uint8_t, part_n[p]);
      ref[p] = g_new (float, part_n[p]);
      staged[p] = float_buffer (part_n[p]);
      tensor_init (&parts[p], ET_SCALAR_FLOAT, lc->ndim, sizes, staged[p]);
      items[p] = &parts[p];
      for (int64_t i = 0; i < part_n[p]; i++)
        bytes[p][i] = (uint8_t) g_test_rand_int_range (0, 256);
    }
  uint8_t *whole_bytes = g_new (uint8_t, whole_n), *want = g_new (uint8_t, whole_n + part_n[0] + part_n[1]);
  float *whole_staged = float_buffer (whole_n), *whole_ref = g_new (float, whole_n);
  for (int64_t i = 0; i < whole_n; i++)
    whole_bytes[i] = (uint8_t) g_test_rand_int_range (0, 256);
  tensor_init (&whole, ET_SCALAR_FLOAT, lc->ndim, lc->sizes, whole_staged);
  tensor_list_init (&list, lc->n_parts, items, false);

  /* the reference steps, and the byte kernel with the rewrite's tables */
  if (split)
    {
      /* every part comes from the whole's source; each has its quantize */
      dequantize (&lc->source, whole_bytes, whole_ref, whole_n);
      for (int64_t i = 0; i < whole_n; i++)
        {
          int64_t at;
          uint32_t p = locate (lc, dim, i, &at);
          ref[p][at] = whole_ref[i];
        }
      for (uint32_t p = 0; p < lc->n_parts; p++)
        table_of (&lc->source, &lc->parts[p].rq, tables[p]);
      stage (&whole, whole_bytes, whole_n);
    }
  else
    {
      for (uint32_t p = 0; p < lc->n_parts; p++)
        {
          dequantize (&lc->parts[p].source, bytes[p], ref[p], part_n[p]);
          table_of (&lc->parts[p].source, &lc->rq, tables[p]);
          stage (&parts[p], bytes[p], part_n[p]);
        }
      for (int64_t i = 0; i < whole_n; i++)
        {
          int64_t at;
          uint32_t p = locate (lc, dim, i, &at);
          whole_ref[i] = ref[p][at];
        }
      quantize (&lc->rq, whole_ref, want, whole_n);
    }
  const EtKernel *kernel = _executorch_qk_byte_list_kernel_new (NULL, split, lc->n_parts, &tables[0][0]);
  g_assert_nonnull (kernel);
  EtValue v_dim = int_value (lc->dim), v_none = none_value ();
  int64_t split_sizes[3];
  for (uint32_t p = 0; p < lc->n_parts; p++)
    split_sizes[p] = lc->parts[p].along;
  IntList l_sizes;
  int_list_init (&l_sizes, lc->n_parts, split_sizes);
  EtValue *cat_args[] = { &list.v, &v_dim, &whole.v, &whole.v };
  EtValue *split_args[] = { &whole.v, &l_sizes.v, &v_dim, &list.v, &v_none };
  EtValue **args = split ? split_args : cat_args;
  uint32_t n_args = split ? G_N_ELEMENTS (split_args) : G_N_ELEMENTS (cat_args);

  for (guint threads = 1; threads <= 2; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      g_assert_cmpint (et_kernel_call (kernel, args, n_args, error_ctx), ==, ET_OK);
      if (split)
        for (uint32_t p = 0; p < lc->n_parts; p++)
          {
            g_assert_nonnull (_executorch_qk_staged_bytes (&parts[p].t));
            quantize (&lc->parts[p].rq, ref[p], want, part_n[p]);
            for (int64_t i = 0; i < part_n[p]; i++)
              if (((uint8_t *) staged[p])[sizeof (StagedBytes) + i] != want[i])
                g_error ("split along %" G_GINT64_FORMAT ", part %u element %" G_GINT64_FORMAT ": %d, expected %d",
                         lc->dim, p, i, ((uint8_t *) staged[p])[sizeof (StagedBytes) + i], want[i]);
          }
      else
        {
          g_assert_nonnull (_executorch_qk_staged_bytes (&whole.t));
          for (int64_t i = 0; i < whole_n; i++)
            if (((uint8_t *) whole_staged)[sizeof (StagedBytes) + i] != want[i])
              g_error ("cat along %" G_GINT64_FORMAT ", element %" G_GINT64_FORMAT ": %d, expected %d", lc->dim, i,
                       ((uint8_t *) whole_staged)[sizeof (StagedBytes) + i], want[i]);
        }
    }
  executorch_threadpool_set_num_threads (1);

  /* floats that were not staged: an error, not a copy of the floats */
  memset (split ? whole_staged : staged[lc->n_parts - 1], 0, sizeof (StagedBytes));
  g_assert_cmpint (et_kernel_call (kernel, args, n_args, error_ctx), !=, ET_OK);

  g_free ((gpointer) kernel);
  for (uint32_t p = 0; p < lc->n_parts; p++)
    g_free (bytes[p]), g_free (got[p]), g_free (ref[p]), g_free (staged[p]);
  g_free (whole_bytes), g_free (want), g_free (whole_staged), g_free (whole_ref);
}

#define I8(s, z) \
  {              \
    s, z, true   \
  }
#define U8(s, z) \
  {              \
    s, z, false  \
  }
#define Q_I8(s, z)                             \
  {                                            \
    -INFINITY, INFINITY, s, z, -128, 127, true \
  }
#define Q_U8(s, z)                           \
  {                                          \
    -INFINITY, INFINITY, s, z, 0, 255, false \
  }
#define NO_Q \
  {          \
    0        \
  }
#define NO_SOURCE \
  {               \
    0             \
  }

static const ListCase cat_cases[] = {
  /* SqueezeNet's fire module: the parts have the whole's qparams */
  { 4,
    { 1, 24, 11, 13 },
    1,
    2,
    { { I8 (0.036448750644922256f, -128), NO_Q, 8 }, { I8 (0.036448750644922256f, -128), NO_Q, 16 } },
    NO_SOURCE,
    Q_I8 (0.036448750644922256, -128) },
  /* other scales, zero points and types: tables; a negative dim */
  { 3,
    { 2, 5, 9 },
    -1,
    3,
    { { I8 (0.02f, 3), NO_Q, 2 }, { I8 (0.013f, -9), NO_Q, 4 }, { U8 (0.031f, 140), NO_Q, 3 } },
    NO_SOURCE,
    Q_I8 (0.017, 5) },
  { 3, { 4, 3, 7 }, 0, 2, { { U8 (0.05f, 128), NO_Q, 1 }, { I8 (0.05f, 0), NO_Q, 3 } }, NO_SOURCE, Q_U8 (0.05, 128) },
  /* several pool chunks, the parts meeting mid-chunk */
  { 2,
    { 2, 3 * 64 * 1024 + 5 },
    1,
    2,
    { { I8 (0.01f, 0), NO_Q, 64 * 1024 + 3 }, { I8 (0.02f, 1), NO_Q, 2 * 64 * 1024 + 2 } },
    NO_SOURCE,
    Q_I8 (0.01, 0) },
};

static const ListCase split_cases[] = {
  /* ShuffleNet v2's: the halves requantized to their own scales */
  { 4,
    { 1, 58, 7, 9 },
    1,
    2,
    { { NO_SOURCE, Q_I8 (0.0025014770217239857, -128), 29 }, { NO_SOURCE, Q_I8 (0.0030441342387348413, -128), 29 } },
    I8 (0.0030136287678033113f, -128),
    NO_Q },
  /* a part with the whole's qparams (copied), uint8 to int8 */
  { 3,
    { 2, 6, 5 },
    -2,
    3,
    { { NO_SOURCE, Q_U8 (0.031, 140), 1 }, { NO_SOURCE, Q_I8 (0.031, 12), 2 }, { NO_SOURCE, Q_U8 (0.05, 100), 3 } },
    U8 (0.031f, 140),
    NO_Q },
  { 2,
    { 3, 2 * 64 * 1024 + 11 },
    1,
    2,
    { { NO_SOURCE, Q_I8 (0.02, 3), 100 }, { NO_SOURCE, Q_I8 (0.03, -3), 2 * 64 * 1024 - 89 } },
    I8 (0.02f, 3),
    NO_Q },
};

static void
test_cat (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cat_cases); i++)
    check_list (&cat_cases[i], false);
}

static void
test_split (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (split_cases); i++)
    check_list (&split_cases[i], true);
}

/* ---- the fixture, through discovery ---- */

static guint byte_cats, byte_splits;

/* The instructions that take @value, directly or as a list item. */
static uint32_t
users_of (EtMethodGraph *graph, const EtValue *value, uint32_t *users)
{
  uint32_t n_users = 0;

  for (uint32_t i = 0; i < et_method_graph_n_instructions (graph); i++)
    {
      EtValue **args;
      uint32_t n_args;
      bool takes = false;

      args = et_method_graph_args (graph, i, &n_args);
      for (uint32_t a = 0; a < n_args; a++)
        {
          takes |= args[a] == value;
          if (args[a]->tag == ET_VALUE_LIST_TENSOR)
            for (uint32_t k = 0; k < args[a]->u.list.length; k++)
              takes |= args[a]->u.list.items[k] == value;
        }
      if (takes)
        users[n_users++] = i;
    }
  return n_users;
}

/* Runs after the plug-in's rewrite: counts the byte cats and splits, and
 * checks et_method_graph_value_used_only_by() on every tensor argument. */
static void
observe (void *user_data, EtMethodGraph *graph)
{
  (void) user_data;
  byte_cats = byte_splits = 0;
  for (uint32_t i = 0; i < et_method_graph_n_instructions (graph); i++)
    {
      const EtKernel *kernel = et_method_graph_kernel (graph, i);
      EtValue **args;
      uint32_t n_args, users[64], n_users;

      if (kernel == NULL)
        continue;
      byte_cats += strcmp (kernel->name, "aten::cat.out [int8 bytes]") == 0;
      byte_splits += strcmp (kernel->name, "aten::split_with_sizes_copy.out [int8 bytes]") == 0;
      args = et_method_graph_args (graph, i, &n_args);
      for (uint32_t a = 0; a < n_args; a++)
        {
          if (args[a]->tag != ET_VALUE_TENSOR)
            continue;
          n_users = users_of (graph, args[a], users);
          g_assert_cmpuint (n_users, <=, G_N_ELEMENTS (users));
          /* an unpinned value: used only by its users, not by fewer */
          if (!et_method_graph_value_is_pinned (graph, args[a]))
            g_assert_true (et_method_graph_value_used_only_by (graph, args[a], users, n_users));
          g_assert_false (et_method_graph_value_used_only_by (graph, args[a], users, n_users - 1));
        }
      /* a cat's parts are pinned list items, yet used only by the cat and
       * their dequantizes */
      if (strncmp (kernel->name, "aten::cat.out", 13) != 0)
        continue;
      g_assert_cmpint (args[0]->tag, ==, ET_VALUE_LIST_TENSOR);
      for (uint32_t p = 0; p < args[0]->u.list.length; p++)
        {
          const EtValue *part = args[0]->u.list.items[p];
          g_assert_true (et_method_graph_value_is_pinned (graph, part));
          n_users = users_of (graph, part, users);
          g_assert_cmpuint (n_users, ==, 2);
          g_assert_true (et_method_graph_value_used_only_by (graph, part, users, 2));
          g_assert_false (et_method_graph_value_used_only_by (graph, part, &i, 1));
        }
    }
}

static const EtMethodRewrite observer = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "test:observe-byte-lists",
  .rewrite = observe,
};

static void
test_fixture (void)
{
  g_autoptr (ExecutorchMethod) bytes = quant_fixture_load ("cat_q8", FALSE);
  g_assert_cmpuint (byte_cats, ==, 2);
  g_assert_cmpuint (byte_splits, ==, 1);
  g_autoptr (ExecutorchMethod) reference = quant_fixture_load ("cat_q8", TRUE);
  g_assert_cmpuint (byte_cats + byte_splits, ==, 0);

  for (guint c = 0; c < 2; c++)
    {
      g_autofree char *in_name = g_strdup_printf ("forward.case%u.in0.npy", c);
      NpyArray in = quant_fixture_npy ("cat_q8", in_name);
      for (guint o = 0; o < 4; o++)
        {
          g_autofree char *up_name = g_strdup_printf ("forward.case%u.upstream%u.npy", c, o);
          NpyArray upstream = quant_fixture_npy ("cat_q8", up_name);
          g_autoptr (GBytes) got = quant_fixture_run (bytes, &in, o);
          g_autoptr (GBytes) want = quant_fixture_run (reference, &in, o);
          if (!g_bytes_equal (got, want) || !g_bytes_equal (got, upstream.data))
            g_error ("case %u output %u: the byte cats and splits differ from the reference path", c, o);
          npy_array_clear (&upstream);
        }
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
  g_test_add_func ("/quantized/int-bytes/cat", test_cat);
  g_test_add_func ("/quantized/int-bytes/split", test_split);
  g_test_add_func ("/quantized/int-bytes/cat-q8-fixture", test_fixture);
  return g_test_run ();
}
