/* test-method-inputs.c: inputs bound once stay bound for every execution
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Memory planning gives a planned input's bytes to values computed after
 * its last use.  These real exports are ones where it does (two CNNs, a
 * transformer encoder and a llama-like decoder reading token ids, an MLP
 * whose input is read through planned views, an int64 gather): without the
 * runtime's care the second or third execution reads overwritten inputs.
 * Each is bound once and executed three times, and every execution must
 * give the eager outputs, byte for byte the same each time.
 */
#include "../../tools/npy.h"

#include <math.h>
#include <string.h>

typedef struct
{
  const char *pte;       /* under TEST_MODELS_DIR */
  const char *inputs[4]; /* NULL-terminated .npy names */
  const char *outputs[4];
  double rtol, atol;
} Case;

static const Case reused_input_cases[] = {
  { "nets/small_cnn/small_cnn.pte",
    { "nets/small_cnn/forward.case0.in0.npy" },
    { "nets/small_cnn/forward.case0.out0.npy" },
    1e-4,
    1e-4 },
  { "nets/resnet18/resnet18.pte",
    { "nets/resnet18/forward.case0.in0.npy" },
    { "nets/resnet18/forward.case0.out0.npy" },
    1e-4,
    1e-4 },
  { "nets/bert/bert.pte",
    { "nets/bert/forward.case0.in0.npy", "nets/bert/forward.case0.in1.npy", "nets/bert/forward.case0.in2.npy" },
    { "nets/bert/forward.case0.out0.npy", "nets/bert/forward.case0.out1.npy" },
    1e-4,
    1e-4 },
  /* Writes the same KV-cache rows each time, so its outputs repeat too. */
  { "nets/llama_prefill/llama_prefill.pte",
    { "nets/llama_prefill/forward.case0.in0.npy", "nets/llama_prefill/forward.case0.in1.npy" },
    { "nets/llama_prefill/forward.case0.out0.npy" },
    1e-4,
    1e-4 },
  { "nets/mlp3d/mlp3d.pte",
    { "nets/mlp3d/forward.case0.in0.npy" },
    { "nets/mlp3d/forward.case0.out0.npy" },
    1e-4,
    1e-4 },
  { "ops/gather/gather.pte",
    { "ops/gather/forward.case0.in0.npy", "ops/gather/forward.case0.in1.npy", "ops/gather/forward.case0.in2.npy" },
    { "ops/gather/forward.case0.out0.npy", "ops/gather/forward.case0.out1.npy" },
    0.0,
    0.0 },
};

static void
read_npy (const char *name, NpyArray *array)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, name, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (npy_read_file (path, array, &error));
  g_assert_no_error (error);
}

/* The method's tensor input @index from @name, shaped as the method wants
 * it when the .npy holds a 0-d value as [1]. */
static ExecutorchTensor *
input_tensor (ExecutorchMethod *method, guint index, const char *name)
{
  ExecutorchValueInfo *info = executorch_method_info_get_input (executorch_method_get_info (method), index);
  g_autoptr (GError) error = NULL;
  NpyArray array = { 0 };
  ExecutorchTensor *tensor;
  gsize n_dims;

  read_npy (name, &array);
  executorch_value_info_get_sizes (info, &n_dims);
  if (n_dims == 0 && array.numel == 1)
    tensor = executorch_tensor_new (array.scalar_type, NULL, 0, array.data, &error);
  else
    tensor = executorch_tensor_new (array.scalar_type, array.sizes, array.n_dims, array.data, &error);
  g_assert_no_error (error);
  npy_array_clear (&array);
  return tensor;
}

static void
bind_inputs (ExecutorchMethod *method, const char *const *inputs)
{
  for (guint i = 0; inputs[i] != NULL; i++)
    {
      g_autoptr (ExecutorchTensor) tensor = input_tensor (method, i, inputs[i]);
      g_autoptr (GError) error = NULL;

      g_assert_true (executorch_method_set_input (method, i, tensor, &error));
      g_assert_no_error (error);
    }
}

static double
element_as_double (ExecutorchScalarType type, const guint8 *data, gsize i)
{
  switch (type)
    {
      case EXECUTORCH_SCALAR_TYPE_FLOAT: return ((const float *) data)[i];
      case EXECUTORCH_SCALAR_TYPE_DOUBLE: return ((const double *) data)[i];
      case EXECUTORCH_SCALAR_TYPE_LONG: return (double) ((const gint64 *) data)[i];
      case EXECUTORCH_SCALAR_TYPE_INT: return ((const gint32 *) data)[i];
      case EXECUTORCH_SCALAR_TYPE_BOOL:
      case EXECUTORCH_SCALAR_TYPE_BYTE: return data[i];
      default: g_assert_not_reached ();
    }
}

/* The output's bytes, after checking them against the eager .npy. */
static GBytes *
checked_output (ExecutorchMethod *method, guint index, const char *name, double rtol, double atol)
{
  g_autoptr (GError) error = NULL;
  ExecutorchTensor *output = executorch_method_get_output (method, index, &error);
  NpyArray want = { 0 };
  const guint8 *got_data, *want_data;
  const gint64 *sizes;
  gsize n_dims, nbytes;
  GBytes *got;

  g_assert_no_error (error);
  g_assert_nonnull (output);
  got = executorch_tensor_get_bytes (output, &error);
  g_assert_no_error (error);
  read_npy (name, &want);
  g_assert_cmpint (executorch_tensor_get_scalar_type (output), ==, want.scalar_type);
  sizes = executorch_tensor_get_sizes (output, &n_dims);
  g_assert_cmpmem (sizes, n_dims * sizeof (gint64), want.sizes, want.n_dims * sizeof (gint64));
  got_data = g_bytes_get_data (got, &nbytes);
  want_data = g_bytes_get_data (want.data, NULL);
  g_assert_cmpuint (nbytes, ==, g_bytes_get_size (want.data));
  for (gint64 i = 0; i < want.numel; i++)
    {
      double a = element_as_double (want.scalar_type, got_data, i);
      double b = element_as_double (want.scalar_type, want_data, i);
      if (!(fabs (a - b) <= atol + rtol * fabs (b)))
        g_error ("%s element %" G_GINT64_FORMAT ": %g, eager %g", name, i, a, b);
    }
  npy_array_clear (&want);
  g_object_unref (output);
  return got;
}

static ExecutorchMethod *
load (const char *pte)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, pte, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (path, &error);
  ExecutorchMethod *method;

  g_assert_no_error (error);
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  return method;
}

static void
test_bound_once (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (ExecutorchMethod) method = load (c->pte);
  GBytes *first[4] = { NULL };

  bind_inputs (method, c->inputs);
  for (guint run = 0; run < 3; run++)
    {
      g_autoptr (GError) error = NULL;

      g_assert_true (executorch_method_execute (method, NULL, &error));
      g_assert_no_error (error);
      for (guint o = 0; c->outputs[o] != NULL; o++)
        {
          g_autoptr (GBytes) got = checked_output (method, o, c->outputs[o], c->rtol, c->atol);
          if (run == 0)
            first[o] = g_bytes_ref (got);
          else
            g_assert_true (g_bytes_equal (got, first[o]));
        }
    }
  for (guint o = 0; o < G_N_ELEMENTS (first); o++)
    g_clear_pointer (&first[o], g_bytes_unref);
}

/* Binding again replaces the input: the next executions see the new one. */
static void
test_bound_again (void)
{
  g_autoptr (ExecutorchMethod) method = load ("nets/small_cnn/small_cnn.pte");
  const char *case0[] = { "nets/small_cnn/forward.case0.in0.npy", NULL };
  const char *case1[] = { "nets/small_cnn/forward.case1.in0.npy", NULL };

  bind_inputs (method, case0);
  g_assert_true (executorch_method_execute (method, NULL, NULL));
  bind_inputs (method, case1);
  for (guint run = 0; run < 2; run++)
    {
      g_autoptr (GBytes) got = NULL;

      g_assert_true (executorch_method_execute (method, NULL, NULL));
      got = checked_output (method, 0, "nets/small_cnn/forward.case1.out0.npy", 1e-4, 1e-4);
    }
}

/* State the program keeps (a mutable buffer) still carries over: bound
 * once and executed three times gives the third call's eager output. */
static void
test_state_carries_over (void)
{
  g_autoptr (ExecutorchMethod) method = load ("mutable_buffer/mutable_buffer.pte");
  const char *inputs[] = { "mutable_buffer/forward.case2.in0.npy", NULL };
  g_autoptr (GBytes) got = NULL;

  bind_inputs (method, inputs);
  for (guint run = 0; run < 3; run++)
    g_assert_true (executorch_method_execute (method, NULL, NULL));
  got = checked_output (method, 0, "mutable_buffer/forward.case2.out0.npy", 1e-5, 1e-6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (reused_input_cases); i++)
    {
      g_autofree char *name = g_path_get_dirname (reused_input_cases[i].pte);
      g_autofree char *path = g_strdup_printf ("/method-inputs/bound-once/%s", name);
      g_test_add_data_func (path, &reused_input_cases[i], test_bound_once);
    }
  g_test_add_func ("/method-inputs/bound-again", test_bound_again);
  g_test_add_func ("/method-inputs/state-carries-over", test_state_carries_over);
  return g_test_run ();
}
