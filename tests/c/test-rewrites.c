/* test-rewrites.c: the kernel library's load-time rewrite on real exports
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The portable kernels come from discovery and offer their constant
 * transpose fold; a second rewrite, registered after theirs, sees the
 * method as the fold left it.  Each nn.Linear weight's permute must then
 * call no copying kernel, its output must be a transposed view of the
 * constant weight, and the outputs must still be the eager ones.
 */
#include "../../tools/npy.h"
#include "executorch-plugin.h"
#include "../../backends/portable/kernels/linalg/linalg-private.h"

#include <math.h>
#include <string.h>

typedef struct
{
  guint permutes;
  guint folded;
  guint convolutions, fused_convolutions;
  guint batch_norms, folded_batch_norms;
  guint adds, folded_adds;
  guint activations, folded_activations;
  guint sigmoids, fused_sigmoids, muls, folded_muls;
  guint max_pools, values_only_pools;
  guint addmms, many_row_addmms, packed_addmms; /* many rows: 8 or more */
  guint replaced;                               /* instructions whose kernel is not the registered one */
  guint channels_last_inputs;                   /* convolutions reading a channels-last input */
  guint cats, cats_in_place;
  guint fused_linears, fused_linear_adds;
} Seen;

static Seen seen;
static const EtKernel *registered_permute;

/* Counts @kernel in @total, and in @replaced when it is not the kernel
 * the registry holds for its name. */
static void
count (const EtKernel *kernel, const char *name, guint *total, guint *replaced)
{
  const EtKernel *registered;

  if (strcmp (kernel->name, name) != 0)
    return;
  registered = et_registry_find_kernel (et_registry_get_default (), name);
  g_assert_nonnull (registered);
  (*total)++;
  if (kernel->func != registered->func)
    (*replaced)++;
}

/* Runs after the kernel library's rewrites: counts what they changed. */
static void
observe (void *user_data, EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph);
  /* Memory that lives with the method comes zeroed; none for 0 bytes. */
  const guint8 *block = et_method_graph_alloc (graph, 64);

  g_assert_nonnull (block);
  for (guint b = 0; b < 64; b++)
    g_assert_cmpuint (block[b], ==, 0);
  g_assert_null (et_method_graph_alloc (graph, 0));
  for (uint32_t i = 0; i < n; i++)
    {
      const EtKernel *kernel = et_method_graph_kernel (graph, i);
      const EtTensor *self, *out;
      EtValue **args;
      uint32_t n_args;

      if (kernel == NULL)
        continue;
      /* The batch norm's return list restates its three outs: it does not
       * pin them (they are no method's outputs in these nets). */
      if (strcmp (kernel->name, "aten::_native_batch_norm_legit_no_training.out") == 0)
        {
          args = et_method_graph_args (graph, i, &n_args);
          g_assert_cmpuint (n_args, ==, 11);
          g_assert_cmpint (args[10]->tag, ==, ET_VALUE_LIST_TENSOR);
          for (guint o = 7; o <= 9; o++)
            g_assert_false (et_method_graph_value_is_pinned (graph, args[o]));
        }
      if (kernel->func != et_registry_find_kernel (et_registry_get_default (), kernel->name)->func)
        {
          seen.replaced++;
          /* An operator folded into a convolution reads an intermediate
           * nobody else can see: never a method input or output. */
          if (strcmp (kernel->name, "aten::permute_copy.out") != 0 &&
              strcmp (kernel->name, "aten::convolution.out") != 0 && strcmp (kernel->name, "aten::sigmoid.out") != 0 &&
              strcmp (kernel->name, "aten::max_pool2d_with_indices.out") != 0)
            {
              args = et_method_graph_args (graph, i, &n_args);
              g_assert_cmpuint (n_args, >, 0);
              g_assert_true (
                  !et_method_graph_value_is_pinned (graph, args[0]) ||
                  ((strcmp (kernel->name, "aten::add.out") == 0 || strcmp (kernel->name, "aten::mul.out") == 0) &&
                   !et_method_graph_value_is_pinned (graph, args[1])));
            }
        }
      count (kernel, "aten::convolution.out", &seen.convolutions, &seen.fused_convolutions);
      if (strcmp (kernel->name, "aten::convolution.out") == 0)
        {
          const EtTensor *x;
          args = et_method_graph_args (graph, i, &n_args);
          x = args[0]->u.tensor;
          if (x->ndim == 4 && x->dim_order[1] == 2 && x->dim_order[3] == 1)
            {
              /* Laid out as its dim order says. */
              g_assert_cmpint (x->strides[1], ==, 1);
              g_assert_cmpint (x->strides[3], ==, x->sizes[1]);
              g_assert_cmpint (x->strides[2], ==, x->sizes[1] * x->sizes[3]);
              seen.channels_last_inputs++;
            }
        }
      count (kernel, "aten::_native_batch_norm_legit_no_training.out", &seen.batch_norms, &seen.folded_batch_norms);
      count (kernel, "aten::add.out", &seen.adds, &seen.folded_adds);
      count (kernel, "aten::relu.out", &seen.activations, &seen.folded_activations);
      count (kernel, "aten::hardtanh.out", &seen.activations, &seen.folded_activations);
      count (kernel, "aten::clamp.out", &seen.activations, &seen.folded_activations);
      count (kernel, "aten::max_pool2d_with_indices.out", &seen.max_pools, &seen.values_only_pools);
      /* Pooled values only: the indices are read by nobody and not pinned. */
      if (strcmp (kernel->name, "aten::max_pool2d_with_indices.out") == 0 &&
          kernel->func != et_registry_find_kernel (et_registry_get_default (), kernel->name)->func)
        {
          args = et_method_graph_args (graph, i, &n_args);
          g_assert_cmpuint (n_args, ==, 9);
          g_assert_false (et_method_graph_value_is_pinned (graph, args[7]));
          for (uint32_t j = 0; j < n; j++)
            {
              EtValue **other;
              uint32_t n_other;
              if (j == i)
                continue;
              other = et_method_graph_args (graph, j, &n_other);
              for (uint32_t a = 0; a < n_other; a++)
                g_assert_true (other[a] != args[7]);
            }
        }
      if (strcmp (kernel->name, "aten::addmm.out") == 0)
        {
          /* Not addmm's own function: the linear fusion's. */
          bool fused = kernel->func != et_registry_find_kernel (et_registry_get_default (), kernel->name)->func;
          const KernelLinearFusion *fusion = fused ? kernel->user_data : NULL;
          const KernelPackedMat2 *packed = fused ? fusion->packed : kernel->user_data;
          args = et_method_graph_args (graph, i, &n_args);
          seen.addmms++;
          if (args[1]->u.tensor->sizes[0] >= 8)
            seen.many_row_addmms++;
          if (fused)
            {
              /* Fused with the operator after it, which now does nothing. */
              const EtKernel *next = et_method_graph_kernel (graph, i + 1);
              g_assert_nonnull (next);
              g_assert_true (next->func != et_registry_find_kernel (et_registry_get_default (), next->name)->func);
              seen.fused_linears++;
              if (fusion->then == KERNEL_LINEAR_THEN_ADD)
                seen.fused_linear_adds++;
            }
          if (packed != NULL)
            {
              /* The constant second matrix packed: a copy of that
               * matrix's shape and strides */
              g_assert_true (args[2]->u.tensor->flags & ET_TENSOR_FLAG_CONSTANT);
              g_assert_true (packed->data == args[2]->u.tensor->data);
              g_assert_cmpint (packed->k, ==, args[2]->u.tensor->sizes[0]);
              g_assert_cmpint (packed->n, ==, args[2]->u.tensor->sizes[1]);
              g_assert_cmpuint ((uintptr_t) packed->packed % 64, ==, 0);
              seen.packed_addmms++;
            }
        }
      count (kernel, "aten::sigmoid.out", &seen.sigmoids, &seen.fused_sigmoids);
      count (kernel, "aten::cat.out", &seen.cats, &seen.cats_in_place);
      if (strcmp (kernel->name, "aten::cat.out") == 0 &&
          kernel->func != et_registry_find_kernel (et_registry_get_default (), kernel->name)->func)
        {
          /* Each input is the next block of the out. */
          const EtTensor *cat_out;
          const char *at;
          args = et_method_graph_args (graph, i, &n_args);
          cat_out = args[2]->u.tensor;
          at = cat_out->data;
          for (uint32_t k = 0; k < args[0]->u.list.length; k++)
            {
              const EtTensor *t = args[0]->u.list.items[k]->u.tensor;
              g_assert_true ((const char *) t->data == at);
              at += t->nbytes;
            }
          g_assert_true (at == (const char *) cat_out->data + cat_out->nbytes);
        }
      count (kernel, "aten::mul.out", &seen.muls, &seen.folded_muls);
      if (strcmp (kernel->name, "aten::permute_copy.out") != 0)
        continue;
      seen.permutes++;
      if (kernel->func == registered_permute->func)
        continue;
      args = et_method_graph_args (graph, i, &n_args);
      g_assert_cmpuint (n_args, ==, 4);
      self = args[0]->u.tensor;
      out = args[2]->u.tensor;
      g_assert_true (self->flags & ET_TENSOR_FLAG_CONSTANT);
      g_assert_true (out->flags & ET_TENSOR_FLAG_CONSTANT);
      g_assert_false (out->flags & ET_TENSOR_FLAG_PLANNED);
      g_assert_true (out->data == self->data);
      g_assert_cmpint (out->dim_order[0], ==, 1);
      g_assert_cmpint (out->dim_order[1], ==, 0);
      g_assert_cmpint (out->strides[0], ==, 1);
      g_assert_cmpint (out->strides[1], ==, self->sizes[1]);
      seen.folded++;
    }
}

static const EtMethodRewrite observer = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "test:observe-folds",
  .rewrite = observe,
};

static NpyArray
read_npy (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, dir, name, NULL);
  g_autoptr (GError) error = NULL;
  NpyArray array = { 0 };

  g_assert_true (npy_read_file (path, &array, &error));
  g_assert_no_error (error);
  return array;
}

/* Runs case @n of @dir's one-input, one-output float fixture; returns
 * the output, checked against eager's. */
static GBytes *
run_case (ExecutorchMethod *method, const char *dir, guint n)
{
  g_autofree char *in_name = g_strdup_printf ("forward.case%u.in0.npy", n);
  g_autofree char *out_name = g_strdup_printf ("forward.case%u.out0.npy", n);
  NpyArray in = read_npy (dir, in_name), want = read_npy (dir, out_name);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) input = NULL;
  g_autoptr (ExecutorchTensor) output = NULL;
  g_autoptr (GBytes) got = NULL;
  const float *got_data, *want_data;

  input = executorch_tensor_new (in.scalar_type, in.sizes, in.n_dims, in.data, &error);
  g_assert_no_error (error);
  g_assert_true (executorch_method_set_input (method, 0, input, &error));
  g_assert_true (executorch_method_execute (method, NULL, &error));
  g_assert_no_error (error);
  output = executorch_method_get_output (method, 0, &error);
  g_assert_no_error (error);
  got = executorch_tensor_get_bytes (output, &error);
  g_assert_no_error (error);
  g_assert_cmpint (want.scalar_type, ==, EXECUTORCH_SCALAR_TYPE_FLOAT);
  g_assert_cmpuint (g_bytes_get_size (got), ==, g_bytes_get_size (want.data));
  got_data = g_bytes_get_data (got, NULL);
  want_data = g_bytes_get_data (want.data, NULL);
  for (gint64 i = 0; i < want.numel; i++)
    if (!(fabs (got_data[i] - want_data[i]) <= 1e-4 + 1e-4 * fabs (want_data[i])))
      g_error ("%s/%s element %" G_GINT64_FORMAT ": %g, eager %g", dir, out_name, i, got_data[i], want_data[i]);
  npy_array_clear (&in);
  npy_array_clear (&want);
  return g_steal_pointer (&got);
}

static void
check_case (ExecutorchMethod *method, const char *dir, guint n)
{
  g_autoptr (GBytes) got = run_case (method, dir, n);
}

static ExecutorchMethod *
load (const char *dir)
{
  g_autofree char *base = g_path_get_basename (dir);
  g_autofree char *file = g_strconcat (base, ".pte", NULL);
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, dir, file, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (path, &error);
  ExecutorchMethod *method;

  g_assert_no_error (error);
  memset (&seen, 0, sizeof seen);
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  return method;
}

/* Every Linear's weight transpose is folded; the eager outputs still come. */
static void
test_linear_weights_folded (gconstpointer data)
{
  const char *dir = data;
  g_autoptr (ExecutorchMethod) method = load (dir);

  g_assert_cmpuint (seen.permutes, >, 0);
  g_assert_cmpuint (seen.folded, ==, seen.permutes);
  check_case (method, dir, 0);
  check_case (method, dir, 1);
}

/* Every Linear of a ViT's encoder (17 tokens a product) reads its weight
 * packed at load; the eager outputs still come.  Its head (the class
 * token alone) and an MLP on a batch of 2 or 4 rows take the GEMM's paths
 * without packing: their weights are not copied. */
static void
test_mat2_packed (void)
{
  g_autoptr (ExecutorchMethod) vit = load ("nets/vit_tiny");
  g_assert_cmpuint (seen.many_row_addmms, >, 0);
  g_assert_cmpuint (seen.many_row_addmms, <, seen.addmms);
  g_assert_cmpuint (seen.packed_addmms, ==, seen.many_row_addmms);
  check_case (vit, "nets/vit_tiny", 0);
  check_case (vit, "nets/vit_tiny", 1);

  for (guint i = 0; i < 2; i++)
    {
      const char *dir = i == 0 ? "mlp" : "nets/mlp_deep";
      g_autoptr (ExecutorchMethod) mlp = load (dir);
      g_assert_cmpuint (seen.addmms, >, 0);
      g_assert_cmpuint (seen.packed_addmms, ==, 0);
    }
}

/* A permute of a method input is not a constant's: it stays a copy. */
static void
test_input_permute_kept (void)
{
  g_autoptr (ExecutorchMethod) method = load ("permute_view");

  g_assert_cmpuint (seen.permutes, >, 0);
  g_assert_cmpuint (seen.folded, <, seen.permutes);
}

static gboolean
has_case (const char *dir, guint n)
{
  g_autofree char *name = g_strdup_printf ("forward.case%u.in0.npy", n);
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, dir, name, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* Every case of @dir on @changed and on @as_exported: the same outputs
 * but for rounding, and @changed's again on a second execution (which
 * reuses the memory plan). */
static void
assert_same_outputs (ExecutorchMethod *changed, ExecutorchMethod *as_exported, const char *dir)
{
  for (guint n = 0; has_case (dir, n); n++)
    {
      g_autoptr (GBytes) a = run_case (changed, dir, n);
      g_autoptr (GBytes) b = run_case (as_exported, dir, n);
      const float *x = g_bytes_get_data (a, NULL), *y = g_bytes_get_data (b, NULL);

      g_assert_cmpuint (g_bytes_get_size (a), ==, g_bytes_get_size (b));
      for (gsize i = 0; i < g_bytes_get_size (a) / sizeof (float); i++)
        if (!(fabs (x[i] - y[i]) <= 1e-4 + 1e-4 * fabs (y[i])))
          g_error ("%s case %u element %" G_GSIZE_FORMAT ": rewritten %g, as exported %g", dir, n, i, x[i], y[i]);
      g_autoptr (GBytes) again = run_case (changed, dir, n);
      g_assert_true (g_bytes_equal (again, a));
    }
}

/* @dir loaded with the library's rewrites and with
 * EXECUTORCH_KERNELS_NO_REWRITES=1: the switch turns every rewrite off,
 * and both methods give eager's outputs and (but for rounding) each
 * other's.  Returns what the rewrites did. */
static Seen
load_both_ways (const char *dir)
{
  g_autoptr (ExecutorchMethod) fused = NULL;
  g_autoptr (ExecutorchMethod) plain = NULL;
  Seen with_rewrites;

  g_assert_true (g_setenv ("EXECUTORCH_KERNELS_NO_REWRITES", "1", TRUE));
  plain = load (dir);
  g_assert_cmpuint (seen.replaced, ==, 0);
  g_unsetenv ("EXECUTORCH_KERNELS_NO_REWRITES");
  fused = load (dir);
  with_rewrites = seen;
  g_assert_cmpuint (seen.replaced, >, 0);
  assert_same_outputs (fused, plain, dir);
  return with_rewrites;
}

/* ResNet: every batch norm folds, every block's add and relu join a
 * convolution. */
static void
test_fusion_resnet (gconstpointer data)
{
  Seen s = load_both_ways (data);

  g_assert_cmpuint (s.batch_norms, >, 0);
  g_assert_cmpuint (s.folded_batch_norms, ==, s.batch_norms);
  g_assert_cmpuint (s.adds, >, 0);
  g_assert_cmpuint (s.folded_adds, ==, s.adds);
  g_assert_cmpuint (s.fused_convolutions, ==, s.convolutions);
  g_assert_cmpuint (s.folded_activations, ==, s.activations);
  /* The stem's max pool: its indices are read by nobody. */
  g_assert_cmpuint (s.max_pools, ==, 1);
  g_assert_cmpuint (s.values_only_pools, ==, 1);
}

/* MobileNet v2: batch norms fold, ReLU6 (hardtanh) and the residual adds
 * join the convolutions; the classifier's Linear stays a GEMM. */
static void
test_fusion_mobilenet (gconstpointer data)
{
  Seen s = load_both_ways (data);

  g_assert_cmpuint (s.folded_batch_norms, ==, s.batch_norms);
  g_assert_cmpuint (s.fused_convolutions, ==, s.convolutions);
  g_assert_cmpuint (s.activations, >, 0);
  g_assert_cmpuint (s.folded_activations, ==, s.activations);
  g_assert_cmpuint (s.adds, >, 0);
  g_assert_cmpuint (s.folded_adds, ==, s.adds);
}

/* Whatever fuses, the outputs hold: nets with pools between the
 * operators, dynamic batches, channels-last layouts, hard-swish. */
static void
test_fusion_outputs (gconstpointer data)
{
  Seen s = load_both_ways (data);

  g_assert_cmpuint (s.fused_convolutions, >, 0);
  g_assert_cmpuint (s.folded_batch_norms, >, 0);
}

/* Whether this CPU runs the channels-last convolution kernels (the
 * plug-ins' AVX-512 F and DQ, and VL). */
static gboolean
cpu_runs_channels_last (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  const char *off = g_getenv ("EXECUTORCH_KERNELS_NO_AVX512");
  return __builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512dq") &&
         __builtin_cpu_supports ("avx512vl") && (off == NULL || off[0] == '\0' || strcmp (off, "0") == 0);
#else
  return FALSE;
#endif
}

/* MobileNet v2's 1x1 and depthwise convolutions run channels-last where
 * the CPU has the kernels, and give what they give NCHW (within rounding:
 * the rows path adds the bias first); EXECUTORCH_KERNELS_NO_CHANNELS_LAST
 * keeps every tensor as exported. */
static void
test_channels_last (gconstpointer data)
{
  g_autoptr (ExecutorchMethod) chained = NULL;
  g_autoptr (ExecutorchMethod) planes = NULL;
  guint inputs;

  chained = load (data);
  inputs = seen.channels_last_inputs;
  g_assert_cmpuint (seen.fused_convolutions, ==, seen.convolutions);
  g_assert_true (g_setenv ("EXECUTORCH_KERNELS_NO_CHANNELS_LAST", "1", TRUE));
  planes = load (data);
  g_unsetenv ("EXECUTORCH_KERNELS_NO_CHANNELS_LAST");
  g_assert_cmpuint (seen.channels_last_inputs, ==, 0);
  if (cpu_runs_channels_last ())
    /* All but the first four: the stem; the first depthwise, which reads
     * the stem's NCHW output; the first 1x1, which adds that output as its
     * residual and so writes NCHW; and the one that reads it. */
    g_assert_cmpuint (inputs, ==, seen.convolutions - 4);
  else
    g_assert_cmpuint (inputs, ==, 0);
  assert_same_outputs (chained, planes, data);
}

/* A SqueezeNet fire module's two expand convolutions write their halves
 * of the cat that joins them, and the cat does nothing. */
static void
test_cat_in_place (gconstpointer data)
{
  Seen s = load_both_ways (data);

  g_assert_cmpuint (s.cats, ==, 3);
  g_assert_cmpuint (s.cats_in_place, ==, s.cats);
  g_assert_cmpuint (s.fused_convolutions, ==, s.convolutions);
}

/* A ViT's linears absorb the GELU or residual add after them (read
 * through the planned 3-D alias of their 2-D product), an MLP's the ReLU
 * (its product itself); both give what they gave. */
static void
test_linear_fusion (gconstpointer data)
{
  Seen s = load_both_ways (data);

  g_test_message ("%s: %u of %u linears fused, %u with a residual add", (const char *) data, s.fused_linears, s.addmms,
                  s.fused_linear_adds);
  if (strcmp (data, "nets/vit_tiny") == 0)
    {
      g_assert_cmpuint (s.fused_linear_adds, >, 0);
      g_assert_cmpuint (s.fused_linears, >, s.fused_linear_adds);
    }
  else
    g_assert_cmpuint (s.fused_linears, >, 0);
}

/* SiLU (sigmoid, then multiply by its input) is one instruction, and
 * gives the two instructions' bits. */
static void
test_silu_fusion (gconstpointer data)
{
  const char *dir = data;
  Seen s = load_both_ways (dir);

  g_assert_cmpuint (s.sigmoids, ==, 1);
  g_assert_cmpuint (s.fused_sigmoids, ==, 1);
  g_assert_cmpuint (s.muls, ==, 1);
  g_assert_cmpuint (s.folded_muls, ==, 1);

  g_autoptr (ExecutorchMethod) fused = load (dir);
  g_assert_true (g_setenv ("EXECUTORCH_KERNELS_NO_REWRITES", "1", TRUE));
  g_autoptr (ExecutorchMethod) plain = load (dir);
  g_unsetenv ("EXECUTORCH_KERNELS_NO_REWRITES");
  g_autoptr (GBytes) a = run_case (fused, dir, 0);
  g_autoptr (GBytes) b = run_case (plain, dir, 0);
  g_assert_true (g_bytes_equal (a, b));
}

/* The bundled fuzz seed (bundled/conv_bp.bpte) reaches every rewrite, so
 * that the fuzzers' mutations of it reach them with hostile programs; its
 * cases still pass. */
static void
test_fuzz_seed (void)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, "bundled", "conv_bp.bpte", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchBundledProgram) bundled = executorch_bundled_program_new_from_file (path, &error);
  g_autoptr (ExecutorchMethod) method = NULL;

  g_assert_no_error (error);
  memset (&seen, 0, sizeof seen);
  method = executorch_program_load_method (executorch_bundled_program_get_program (bundled), "forward", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (seen.batch_norms, ==, 1);
  g_assert_cmpuint (seen.folded_batch_norms, ==, 1);
  g_assert_cmpuint (seen.convolutions, ==, 12);
  g_assert_cmpuint (seen.fused_convolutions, ==, seen.convolutions);
  g_assert_cmpuint (seen.adds, ==, 2); /* the inverted residual's and the linear's */
  g_assert_cmpuint (seen.folded_adds, ==, 2);
  g_assert_cmpuint (seen.cats_in_place, ==, 1);
  g_assert_cmpuint (seen.values_only_pools, ==, 1);
  g_assert_cmpuint (seen.fused_sigmoids, ==, 1);
  g_assert_cmpuint (seen.folded, ==, 3);
  g_assert_cmpuint (seen.fused_linears, ==, 2);
  g_assert_cmpuint (seen.fused_linear_adds, ==, 1);
  if (cpu_runs_channels_last ())
    /* From the first depthwise convolution to the chain's last 1x1 (the
     * first expansion reads the stem's NCHW output). */
    g_assert_cmpuint (seen.channels_last_inputs, ==, 7);
  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (executorch_bundled_program_verify (bundled, "forward", i, EXECUTORCH_BUNDLED_DEFAULT_RTOL,
                                                        EXECUTORCH_BUNDLED_DEFAULT_ATOL, &error));
      g_assert_no_error (error);
    }
}

int
main (int argc, char **argv)
{
  EtErrorContext *error;

  g_test_init (&argc, &argv, NULL);
  /* Discovery first, so the kernel library's rewrite runs before ours. */
  g_assert_true (executorch_load_plugins (NULL));
  registered_permute = et_registry_find_kernel (et_registry_get_default (), "aten::permute_copy.out");
  g_assert_nonnull (registered_permute);
  error = et_error_context_new ();
  g_assert_cmpint (et_registry_add_rewrite (et_registry_get_default (), &observer, error), ==, ET_OK);
  et_error_context_free (error);

  g_test_add_data_func ("/rewrites/constant-transposes/mlp", "mlp", test_linear_weights_folded);
  g_test_add_data_func ("/rewrites/constant-transposes/mlp-deep", "nets/mlp_deep", test_linear_weights_folded);
  g_test_add_func ("/rewrites/constant-transposes/input-permute-kept", test_input_permute_kept);
  g_test_add_func ("/rewrites/mat2-packing/vit", test_mat2_packed);
  g_test_add_data_func ("/rewrites/conv-fusion/resnet18", "nets/resnet18", test_fusion_resnet);
  g_test_add_data_func ("/rewrites/conv-fusion/mv2", "nets/mv2", test_fusion_mobilenet);
  g_test_add_data_func ("/rewrites/conv-fusion/small-cnn", "nets/small_cnn", test_fusion_outputs);
  g_test_add_data_func ("/rewrites/conv-fusion/small-cnn-dyn", "nets/small_cnn_dyn", test_fusion_outputs);
  g_test_add_data_func ("/rewrites/conv-fusion/mv3-small", "nets/mv3_small", test_fusion_outputs);
  g_test_add_data_func ("/rewrites/conv-fusion/resnet18-cl", "nets/resnet18_cl", test_fusion_outputs);
  g_test_add_data_func ("/rewrites/silu-fusion/silu", "ops/silu", test_silu_fusion);
  g_test_add_data_func ("/rewrites/channels-last/mv2", "nets/mv2", test_channels_last);
  g_test_add_data_func ("/rewrites/cat-in-place/fire-cnn", "nets/fire_cnn", test_cat_in_place);
  g_test_add_data_func ("/rewrites/linear-fusion/vit", "nets/vit_tiny", test_linear_fusion);
  g_test_add_data_func ("/rewrites/linear-fusion/mlp", "nets/mlp_deep", test_linear_fusion);
  g_test_add_func ("/rewrites/fuzz-seed", test_fuzz_seed);
  return g_test_run ();
}
