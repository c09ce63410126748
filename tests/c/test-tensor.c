/* test-tensor.c: ExecutorchTensor: construction, dim order, borrowed memory, copies and devices
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch.h>

#include <math.h>
#include <string.h>

static void
test_tensor_new (void)
{
  const gint64 sizes[] = { 2, 3 };
  const float values[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr (GBytes) data = g_bytes_new (values, sizeof values);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) t = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 2, data, &error);
  g_autoptr (GBytes) back = NULL;
  const gint64 *got;
  const guint8 *order;
  gsize n = 99;

  g_assert_no_error (error);
  g_assert_cmpint (executorch_tensor_get_scalar_type (t), ==, EXECUTORCH_SCALAR_TYPE_FLOAT);
  g_assert_cmpuint (executorch_tensor_get_n_dims (t), ==, 2);
  got = executorch_tensor_get_sizes (t, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (got[0], ==, 2);
  g_assert_cmpint (got[1], ==, 3);
  order = executorch_tensor_get_dim_order (t, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (order[0], ==, 0);
  g_assert_cmpuint (order[1], ==, 1);
  g_assert_cmpint (executorch_tensor_get_numel (t), ==, 6);
  g_assert_cmpuint (executorch_tensor_get_nbytes (t), ==, 24);
  g_assert_true (executorch_device_equal (executorch_tensor_get_device (t), executorch_device_get_cpu ()));

  /* A host tensor hands back the very bytes it was given. */
  back = executorch_tensor_get_bytes (t, &error);
  g_assert_no_error (error);
  g_assert_true (back == data);
}

static void
test_tensor_new_bad (void)
{
  const gint64 sizes[] = { 2, 3 };
  const gint64 negative[] = { 2, -3 };
  gint64 many[17];
  guint8 bytes[24] = { 0 };
  g_autoptr (GBytes) data = g_bytes_new (bytes, sizeof bytes);
  g_autoptr (GBytes) short_data = g_bytes_new (bytes, 20);
  GError *error = NULL;

  g_assert_null (executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 2, short_data, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "20"));
  g_assert_nonnull (strstr (error->message, "24"));
  g_clear_error (&error);

  g_assert_null (executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_DOUBLE, sizes, 2, data, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_null (executorch_tensor_new ((ExecutorchScalarType) 42, sizes, 2, data, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_assert_null (executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_FLOAT, negative, 2, data, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  for (gsize i = 0; i < G_N_ELEMENTS (many); i++)
    many[i] = 1;
  g_assert_null (executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_BYTE, many, 17, data, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* Sizes whose product overflows. */
  {
    const gint64 huge[] = { G_MAXINT64 / 2, 4 };
    g_assert_null (executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_FLOAT, huge, 2, data, &error));
    g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
  }
}

static void
test_tensor_rank16 (void)
{
  gint64 sizes[16];
  guint8 byte = 7;
  g_autoptr (GBytes) data = g_bytes_new (&byte, 1);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) t = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    sizes[i] = 1;
  t = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_BYTE, sizes, 16, data, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (executorch_tensor_get_n_dims (t), ==, 16);
  g_assert_cmpint (executorch_tensor_get_numel (t), ==, 1);
}

static void
test_tensor_scalar_and_empty (void)
{
  gint64 value = 42;
  const gint64 empty_sizes[] = { 0, 5 };
  g_autoptr (GBytes) data = g_bytes_new (&value, sizeof value);
  g_autoptr (GBytes) nothing = g_bytes_new (NULL, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) scalar = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_LONG, NULL, 0, data, &error);
  g_autoptr (ExecutorchTensor) empty = NULL;
  g_autofree float *floats = NULL;
  gsize n = 99;

  g_assert_no_error (error);
  g_assert_cmpuint (executorch_tensor_get_n_dims (scalar), ==, 0);
  g_assert_null (executorch_tensor_get_sizes (scalar, &n));
  g_assert_cmpuint (n, ==, 0);
  g_assert_cmpint (executorch_tensor_get_numel (scalar), ==, 1);
  g_assert_cmpuint (executorch_tensor_get_nbytes (scalar), ==, 8);

  empty = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_FLOAT, empty_sizes, 2, nothing, &error);
  g_assert_no_error (error);
  g_assert_cmpint (executorch_tensor_get_numel (empty), ==, 0);
  floats = executorch_tensor_get_floats (empty, &n, &error);
  g_assert_no_error (error);
  g_assert_nonnull (floats);
  g_assert_cmpuint (n, ==, 0);
}

static void
test_tensor_dim_order (void)
{
  const gint64 sizes[] = { 1, 2, 3, 4 };
  const guint8 channels_last[] = { 0, 2, 3, 1 };
  const guint8 not_a_permutation[] = { 0, 2, 2, 1 };
  const guint8 out_of_range[] = { 0, 2, 4, 1 };
  guint8 bytes[24 * 4] = { 0 };
  g_autoptr (GBytes) data = g_bytes_new (bytes, sizeof bytes);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) t = NULL;
  const guint8 *order;
  gsize n;

  t = executorch_tensor_new_with_dim_order (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 4, channels_last, 4, data, &error);
  g_assert_no_error (error);
  order = executorch_tensor_get_dim_order (t, &n);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpmem (order, 4, channels_last, 4);

  g_assert_null (executorch_tensor_new_with_dim_order (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 4, not_a_permutation, 4,
                                                       data, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (
      executorch_tensor_new_with_dim_order (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 4, out_of_range, 4, data, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (
      executorch_tensor_new_with_dim_order (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 4, channels_last, 3, data, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
}

static void
test_tensor_zeros (void)
{
  const gint64 sizes[] = { 3, 5 };
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) t = executorch_tensor_new_zeros (EXECUTORCH_SCALAR_TYPE_INT, sizes, 2, &error);
  g_autoptr (GBytes) bytes = NULL;
  const guint8 *p;
  gsize size;

  g_assert_no_error (error);
  bytes = executorch_tensor_get_bytes (t, &error);
  g_assert_no_error (error);
  p = g_bytes_get_data (bytes, &size);
  g_assert_cmpuint (size, ==, 60);
  for (gsize i = 0; i < size; i++)
    g_assert_cmpuint (p[i], ==, 0);

  g_assert_null (executorch_tensor_new_zeros ((ExecutorchScalarType) 77, sizes, 2, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
}

/* A borrowed tensor reads the lender's memory in place and holds the owner
 * exactly as long as it needs the memory; a failure drops it at once. */
static void
test_tensor_borrowed (void)
{
  const gint64 sizes[] = { 2, 2 };
  float values[] = { 1, 2, 3, 4 };
  g_autoptr (GError) error = NULL;
  GObject *owner = g_object_new (G_TYPE_OBJECT, NULL);
  ExecutorchTensor *t;
  g_autoptr (GBytes) bytes = NULL;

  g_object_add_weak_pointer (owner, (gpointer *) &owner);
  t = executorch_tensor_new_borrowed (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 2, values, sizeof values, owner, &error);
  g_assert_no_error (error);
  g_object_unref (owner);
  g_assert_nonnull (owner); /* the tensor holds it */
  values[3] = 40;           /* not copied: the tensor sees the lender's memory */
  bytes = executorch_tensor_get_bytes (t, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_get_data (bytes, NULL) == (gconstpointer) values);
  g_assert_cmpfloat (((const float *) g_bytes_get_data (bytes, NULL))[3], ==, 40);
  g_clear_pointer (&bytes, g_bytes_unref);
  g_object_unref (t);
  g_assert_null (owner); /* released with the last user of the memory */

  owner = g_object_new (G_TYPE_OBJECT, NULL);
  g_object_add_weak_pointer (owner, (gpointer *) &owner);
  g_assert_null (executorch_tensor_new_borrowed (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 2, values, 8, owner, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_object_unref (owner);
  g_assert_null (owner); /* not kept after a failure */

  g_clear_error (&error);
  t = executorch_tensor_new_borrowed (EXECUTORCH_SCALAR_TYPE_FLOAT, NULL, 0, values, sizeof (float), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (executorch_tensor_get_numel (t), ==, 1);
  g_object_unref (t);
}

static void
test_tensor_floats (void)
{
  const gint64 sizes[] = { 2, 2 };
  const float values[] = { 0.5f, -1.0f, 3.25f, 1e6f };
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) t = executorch_tensor_new_from_floats (sizes, 2, values, 4, &error);
  g_autofree float *back = NULL;
  gsize n = 0;

  g_assert_no_error (error);
  g_assert_cmpint (executorch_tensor_get_scalar_type (t), ==, EXECUTORCH_SCALAR_TYPE_FLOAT);
  back = executorch_tensor_get_floats (t, &n, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpmem (back, n * sizeof (float), values, sizeof values);

  g_assert_null (executorch_tensor_new_from_floats (sizes, 2, values, 3, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  {
    const gint64 one[] = { 1 };
    gint64 v = 1;
    g_autoptr (GBytes) data = g_bytes_new (&v, sizeof v);
    g_autoptr (ExecutorchTensor) l = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_LONG, one, 1, data, &error);
    g_assert_no_error (error);
    g_assert_null (executorch_tensor_get_floats (l, &n, &error));
    g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_TYPE);
    g_clear_error (&error);
    g_assert_null (executorch_tensor_to_floats (l, &n, &error));
    g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_TYPE);
    g_clear_error (&error);
  }

  /* to_floats: Float as it is, Half and BFloat16 converted exactly. */
  {
    const gint64 three[] = { 3 };
    g_autofree gfloat *same = executorch_tensor_to_floats (t, &n, &error);
    g_assert_no_error (error);
    g_assert_cmpmem (same, n * sizeof (float), values, sizeof values);
    /* 1.0, -2.5, 65504 (the largest half) */
    const guint16 half[] = { 0x3C00, 0xC100, 0x7BFF };
    g_autoptr (GBytes) hb = g_bytes_new (half, sizeof half);
    g_autoptr (ExecutorchTensor) h = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_HALF, three, 1, hb, &error);
    g_assert_no_error (error);
    g_autofree gfloat *hf = executorch_tensor_to_floats (h, &n, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (n, ==, 3);
    g_assert_cmpfloat (hf[0], ==, 1.0f);
    g_assert_cmpfloat (hf[1], ==, -2.5f);
    g_assert_cmpfloat (hf[2], ==, 65504.0f);
    /* 1.0, -2.5, 3.0e38 rounded to bfloat16's 0x7F62 */
    const guint16 bf[] = { 0x3F80, 0xC020, 0x7F62 };
    g_autoptr (GBytes) bb = g_bytes_new (bf, sizeof bf);
    g_autoptr (ExecutorchTensor) b = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_BFLOAT16, three, 1, bb, &error);
    g_assert_no_error (error);
    g_autofree gfloat *bff = executorch_tensor_to_floats (b, NULL, &error);
    g_assert_no_error (error);
    guint32 top = 0x7F620000;
    float big;
    memcpy (&big, &top, sizeof big);
    g_assert_cmpfloat (bff[0], ==, 1.0f);
    g_assert_cmpfloat (bff[1], ==, -2.5f);
    g_assert_cmpfloat (bff[2], ==, big);
  }
}

static void
test_tensor_copy (void)
{
  const gint64 sizes[] = { 3 };
  const float values[] = { 1, 2, 3 };
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) t = executorch_tensor_new_from_floats (sizes, 1, values, 3, &error);
  g_autoptr (ExecutorchTensor) copy = NULL;
  g_autoptr (ExecutorchTensor) on_cpu = NULL;
  g_autofree float *a = NULL;
  g_autofree float *b = NULL;

  g_assert_no_error (error);
  copy = executorch_tensor_copy (t, &error);
  g_assert_no_error (error);
  g_assert_true (copy != t);
  a = executorch_tensor_get_floats (copy, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (a, sizeof values, values, sizeof values);

  on_cpu = executorch_tensor_to_device (t, executorch_device_get_cpu (), &error);
  g_assert_no_error (error);
  g_assert_true (on_cpu != t);
  b = executorch_tensor_get_floats (on_cpu, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (b, sizeof values, values, sizeof values);
}

static void
test_tensor_to_missing_device (void)
{
  const gint64 sizes[] = { 3 };
  const float values[] = { 1, 2, 3 };
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) t = executorch_tensor_new_from_floats (sizes, 1, values, 3, &error);
  g_autoptr (ExecutorchDevice) gpu = executorch_device_new (EXECUTORCH_DEVICE_TYPE_CUDA, 0);
  g_autoptr (ExecutorchTensor) moved = NULL;

  if (executorch_device_is_available (gpu))
    {
      g_autoptr (ExecutorchTensor) back = NULL;
      g_autofree float *floats = NULL;

      moved = executorch_tensor_to_device (t, gpu, &error);
      g_assert_no_error (error);
      g_assert_true (executorch_device_equal (executorch_tensor_get_device (moved), gpu));
      back = executorch_tensor_to_device (moved, executorch_device_get_cpu (), &error);
      g_assert_no_error (error);
      floats = executorch_tensor_get_floats (back, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (floats, sizeof values, values, sizeof values);
      return;
    }
  moved = executorch_tensor_to_device (t, gpu, &error);
  g_assert_null (moved);
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_FOUND);
}

static ExecutorchTensor *
floats_tensor (const gint64 *sizes, gsize n_dims, const guint8 *dim_order, const float *values, gsize n)
{
  g_autoptr (GBytes) bytes = g_bytes_new (values, n * sizeof (float));
  g_autoptr (GError) error = NULL;
  ExecutorchTensor *tensor = executorch_tensor_new_with_dim_order (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, n_dims,
                                                                   dim_order, n_dims, bytes, &error);

  g_assert_no_error (error);
  return tensor;
}

/* The one comparison BundledProgram.verify and executorch-run --compare use. */
static void
test_tensor_compare (void)
{
  static const gint64 sizes[] = { 2, 3 };
  static const guint8 contiguous[] = { 0, 1 }, transposed[] = { 1, 0 };
  static const float want[] = { 1, 2, 3, 4, 5, NAN };
  /* The same logical values stored column by column. */
  static const float want_by_column[] = { 1, 4, 2, 5, 3, NAN };
  static const float near[] = { 1, 2, 3.0001f, 4, 5, NAN };
  static const float far[] = { 1, 2.5f, 3, 4, 9, 0 };
  g_autoptr (ExecutorchTensor) expected = floats_tensor (sizes, 2, contiguous, want, 6);
  g_autoptr (ExecutorchTensor) by_column = floats_tensor (sizes, 2, transposed, want_by_column, 6);
  g_autoptr (ExecutorchTensor) close = floats_tensor (sizes, 2, contiguous, near, 6);
  g_autoptr (ExecutorchTensor) wrong = floats_tensor (sizes, 2, contiguous, far, 6);
  g_autoptr (ExecutorchTensor) other_shape = floats_tensor ((const gint64[]){ 3, 2 }, 2, contiguous, want, 6);
  static const gint64 longs_a[] = { G_MAXINT64, 1 }, longs_b[] = { G_MAXINT64 - 1, 1 };
  static const gint64 two[] = { 2 };
  g_autoptr (GBytes) bytes_a = g_bytes_new_static (longs_a, sizeof longs_a);
  g_autoptr (GBytes) bytes_b = g_bytes_new_static (longs_b, sizeof longs_b);
  g_autoptr (ExecutorchTensor) la = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_LONG, two, 1, bytes_a, NULL);
  g_autoptr (ExecutorchTensor) lb = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_LONG, two, 1, bytes_b, NULL);
  g_autoptr (GError) error = NULL;

  /* NaN matches NaN; dim orders differ but the logical values are equal. */
  g_assert_true (executorch_tensor_compare (expected, expected, 0, 0, &error));
  g_assert_no_error (error);
  g_assert_true (executorch_tensor_compare (by_column, expected, 0, 0, &error));
  g_assert_no_error (error);
  /* Within atol + rtol * |expected|, and not without tolerance. */
  g_assert_true (executorch_tensor_compare (close, expected, 1e-4, 1e-6, &error));
  g_assert_no_error (error);
  g_assert_false (executorch_tensor_compare (close, expected, 0, 0, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "1 of 6 elements differ; worst at [0, 2]"));
  g_clear_error (&error);
  /* Three elements differ (a NaN against a number among them); the worst is named. */
  g_assert_false (executorch_tensor_compare (wrong, expected, 1e-5, 1e-8, &error));
  g_assert_nonnull (strstr (error->message, "3 of 6 elements differ; worst at [1, 2]"));
  g_clear_error (&error);
  g_assert_false (executorch_tensor_compare (other_shape, expected, 1e-5, 1e-8, &error));
  g_assert_nonnull (strstr (error->message, "sizes [3, 2], the expected one [2, 3]"));
  g_clear_error (&error);
  /* 64-bit integers are exact, beyond what a double tells apart. */
  g_assert_false (executorch_tensor_compare (la, lb, 1, 1, &error));
  g_assert_nonnull (strstr (error->message, "1 of 2 elements differ; first at [0]"));
  g_clear_error (&error);
  g_assert_false (executorch_tensor_compare (la, expected, 1, 1, &error));
  g_assert_nonnull (strstr (error->message, "the tensor is Long, the expected one Float"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/tensor/new", test_tensor_new);
  g_test_add_func ("/tensor/new/bad", test_tensor_new_bad);
  g_test_add_func ("/tensor/new/rank16", test_tensor_rank16);
  g_test_add_func ("/tensor/new/scalar-and-empty", test_tensor_scalar_and_empty);
  g_test_add_func ("/tensor/dim-order", test_tensor_dim_order);
  g_test_add_func ("/tensor/zeros", test_tensor_zeros);
  g_test_add_func ("/tensor/borrowed", test_tensor_borrowed);
  g_test_add_func ("/tensor/floats", test_tensor_floats);
  g_test_add_func ("/tensor/copy", test_tensor_copy);
  g_test_add_func ("/tensor/to-device", test_tensor_to_missing_device);
  g_test_add_func ("/tensor/compare", test_tensor_compare);

  return g_test_run ();
}
