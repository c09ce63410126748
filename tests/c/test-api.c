/* test-api.c: the GObject layer: tensors, devices, errors, enums, and construction through properties
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch.h>

#include <glib/gstdio.h>
#include <unistd.h>
#include <string.h>

/* --- enums and errors --- */

static void
test_scalar_type (void)
{
  g_assert_cmpuint (executorch_scalar_type_get_element_size (EXECUTORCH_SCALAR_TYPE_FLOAT), ==, 4);
  g_assert_cmpuint (executorch_scalar_type_get_element_size (EXECUTORCH_SCALAR_TYPE_LONG), ==, 8);
  g_assert_cmpuint (executorch_scalar_type_get_element_size (EXECUTORCH_SCALAR_TYPE_BOOL), ==, 1);
  g_assert_cmpuint (executorch_scalar_type_get_element_size (EXECUTORCH_SCALAR_TYPE_HALF), ==, 2);
  g_assert_cmpuint (executorch_scalar_type_get_element_size (EXECUTORCH_SCALAR_TYPE_COMPLEX_DOUBLE), ==, 16);
  g_assert_cmpuint (executorch_scalar_type_get_element_size (EXECUTORCH_SCALAR_TYPE_UINT64), ==, 8);
  g_assert_cmpuint (executorch_scalar_type_get_element_size ((ExecutorchScalarType) 30), ==, 0);
  g_assert_cmpuint (executorch_scalar_type_get_element_size ((ExecutorchScalarType) -1), ==, 0);

  g_assert_cmpstr (executorch_scalar_type_to_string (EXECUTORCH_SCALAR_TYPE_FLOAT), ==, "Float");
  g_assert_cmpstr (executorch_scalar_type_to_string (EXECUTORCH_SCALAR_TYPE_LONG), ==, "Long");
  g_assert_cmpstr (executorch_scalar_type_to_string (EXECUTORCH_SCALAR_TYPE_BFLOAT16), ==, "BFloat16");
  g_assert_null (executorch_scalar_type_to_string ((ExecutorchScalarType) 99));
}

static void
test_enum_types (void)
{
  GEnumClass *klass = g_type_class_ref (EXECUTORCH_TYPE_SCALAR_TYPE);
  GEnumValue *value = g_enum_get_value (klass, EXECUTORCH_SCALAR_TYPE_FLOAT);

  g_assert_nonnull (value);
  g_assert_cmpstr (value->value_nick, ==, "float");
  g_type_class_unref (klass);

  g_assert_true (G_TYPE_IS_ENUM (EXECUTORCH_TYPE_DEVICE_TYPE));
  g_assert_true (G_TYPE_IS_ENUM (EXECUTORCH_TYPE_VALUE_KIND));
  g_assert_true (G_TYPE_IS_ENUM (EXECUTORCH_TYPE_SHAPE_DYNAMISM));
  g_assert_true (G_TYPE_IS_ENUM (EXECUTORCH_TYPE_ERROR));
}

static void
test_error_domain (void)
{
  g_assert_cmpstr (g_quark_to_string (EXECUTORCH_ERROR), ==, "executorch-error-quark");
  g_assert_cmpstr (g_quark_to_string (EXECUTORCH_PLUGIN_ERROR), ==, "executorch-plugin-error-quark");
  /* Same numbers as upstream runtime::Error. */
  g_assert_cmpint (EXECUTORCH_ERROR_INVALID_ARGUMENT, ==, 0x12);
  g_assert_cmpint (EXECUTORCH_ERROR_OPERATOR_MISSING, ==, 0x14);
  g_assert_cmpint (EXECUTORCH_ERROR_DELEGATE_INVALID_HANDLE, ==, 0x32);
}

/* --- devices --- */

static void
test_device_cpu (void)
{
  ExecutorchDevice *cpu = executorch_device_get_cpu ();
  g_autoptr(ExecutorchDevice) other = executorch_device_new (EXECUTORCH_DEVICE_TYPE_CPU, 0);
  g_autofree char *name = NULL;

  g_assert_true (EXECUTORCH_IS_DEVICE (cpu));
  g_assert_true (cpu == executorch_device_get_cpu ());
  g_assert_cmpint (executorch_device_get_device_type (cpu), ==, EXECUTORCH_DEVICE_TYPE_CPU);
  g_assert_cmpint (executorch_device_get_index (cpu), ==, 0);
  g_assert_cmpstr (executorch_device_get_name (cpu), ==, "cpu");
  g_assert_true (executorch_device_equal (cpu, other));
  g_assert_true (executorch_device_is_available (cpu));

  g_object_get (cpu, "name", &name, NULL);
  g_assert_cmpstr (name, ==, "cpu");
}

static void
test_device_parse (void)
{
  static const struct {
    const char *name;
    ExecutorchDeviceType type;
    gint index;
    const char *canonical;
  } good[] = {
    { "cpu", EXECUTORCH_DEVICE_TYPE_CPU, 0, "cpu" },
    { "cpu:0", EXECUTORCH_DEVICE_TYPE_CPU, 0, "cpu" },
    { "cuda", EXECUTORCH_DEVICE_TYPE_CUDA, 0, "cuda:0" },
    { "cuda:0", EXECUTORCH_DEVICE_TYPE_CUDA, 0, "cuda:0" },
    { "cuda:3", EXECUTORCH_DEVICE_TYPE_CUDA, 3, "cuda:3" },
  };
  static const char *const bad[] = {
    "", "gpu", "CPU", "cuda:", "cuda:-1", "cuda:+1", "cuda:x", "cuda:1x", "cuda:999", "cpu:1", ":0", "cuda:0:0",
    "cuda: 1", "\xff\xfe",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(ExecutorchDevice) device = executorch_device_new_from_name (good[i].name, &error);

      g_assert_no_error (error);
      g_assert_cmpint (executorch_device_get_device_type (device), ==, good[i].type);
      g_assert_cmpint (executorch_device_get_index (device), ==, good[i].index);
      g_assert_cmpstr (executorch_device_get_name (device), ==, good[i].canonical);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(ExecutorchDevice) device = executorch_device_new_from_name (bad[i], &error);

      g_assert_null (device);
      g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
    }
}

static void
test_device_cuda (void)
{
  g_autoptr(ExecutorchDevice) a = executorch_device_new (EXECUTORCH_DEVICE_TYPE_CUDA, 1);
  g_autoptr(ExecutorchDevice) b = g_object_new (EXECUTORCH_TYPE_DEVICE, "device-type", EXECUTORCH_DEVICE_TYPE_CUDA,
                                                "index", 1, NULL);
  g_autoptr(ExecutorchDevice) c = executorch_device_new (EXECUTORCH_DEVICE_TYPE_CUDA, 0);

  g_assert_cmpstr (executorch_device_get_name (a), ==, "cuda:1");
  g_assert_true (executorch_device_equal (a, b));
  g_assert_false (executorch_device_equal (a, c));
  g_assert_false (executorch_device_equal (a, executorch_device_get_cpu ()));
  /* Whatever the machine, the answer must not crash. */
  (void) executorch_device_is_available (a);
}

/* --- tensors --- */

static void
test_tensor_new (void)
{
  const gint64 sizes[] = { 2, 3 };
  const float values[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(GBytes) data = g_bytes_new (values, sizeof values);
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchTensor) t = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 2, data, &error);
  g_autoptr(GBytes) back = NULL;
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
  g_autoptr(GBytes) data = g_bytes_new (bytes, sizeof bytes);
  g_autoptr(GBytes) short_data = g_bytes_new (bytes, 20);
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
  g_autoptr(GBytes) data = g_bytes_new (&byte, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchTensor) t = NULL;

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
  g_autoptr(GBytes) data = g_bytes_new (&value, sizeof value);
  g_autoptr(GBytes) nothing = g_bytes_new (NULL, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchTensor) scalar = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_LONG, NULL, 0, data, &error);
  g_autoptr(ExecutorchTensor) empty = NULL;
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
  g_autoptr(GBytes) data = g_bytes_new (bytes, sizeof bytes);
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchTensor) t = NULL;
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
  g_assert_null (executorch_tensor_new_with_dim_order (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 4, out_of_range, 4,
                                                       data, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (executorch_tensor_new_with_dim_order (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 4, channels_last, 3,
                                                       data, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
}

static void
test_tensor_zeros (void)
{
  const gint64 sizes[] = { 3, 5 };
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchTensor) t = executorch_tensor_new_zeros (EXECUTORCH_SCALAR_TYPE_INT, sizes, 2, &error);
  g_autoptr(GBytes) bytes = NULL;
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
  g_autoptr(GError) error = NULL;
  GObject *owner = g_object_new (G_TYPE_OBJECT, NULL);
  ExecutorchTensor *t;
  g_autoptr(GBytes) bytes = NULL;

  g_object_add_weak_pointer (owner, (gpointer *) &owner);
  t = executorch_tensor_new_borrowed (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 2, values, sizeof values, owner, &error);
  g_assert_no_error (error);
  g_object_unref (owner);
  g_assert_nonnull (owner);   /* the tensor holds it */
  values[3] = 40;             /* not copied: the tensor sees the lender's memory */
  bytes = executorch_tensor_get_bytes (t, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_get_data (bytes, NULL) == (gconstpointer) values);
  g_assert_cmpfloat (((const float *) g_bytes_get_data (bytes, NULL))[3], ==, 40);
  g_clear_pointer (&bytes, g_bytes_unref);
  g_object_unref (t);
  g_assert_null (owner);      /* released with the last user of the memory */

  owner = g_object_new (G_TYPE_OBJECT, NULL);
  g_object_add_weak_pointer (owner, (gpointer *) &owner);
  g_assert_null (executorch_tensor_new_borrowed (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, 2, values, 8, owner, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_object_unref (owner);
  g_assert_null (owner);      /* not kept after a failure */

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
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchTensor) t = executorch_tensor_new_from_floats (sizes, 2, values, 4, &error);
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
    g_autoptr(GBytes) data = g_bytes_new (&v, sizeof v);
    g_autoptr(ExecutorchTensor) l = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_LONG, one, 1, data, &error);
    g_assert_no_error (error);
    g_assert_null (executorch_tensor_get_floats (l, &n, &error));
    g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_TYPE);
  }
}

static void
test_tensor_copy (void)
{
  const gint64 sizes[] = { 3 };
  const float values[] = { 1, 2, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchTensor) t = executorch_tensor_new_from_floats (sizes, 1, values, 3, &error);
  g_autoptr(ExecutorchTensor) copy = NULL;
  g_autoptr(ExecutorchTensor) on_cpu = NULL;
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
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchTensor) t = executorch_tensor_new_from_floats (sizes, 1, values, 3, &error);
  g_autoptr(ExecutorchDevice) gpu = executorch_device_new (EXECUTORCH_DEVICE_TYPE_CUDA, 0);
  g_autoptr(ExecutorchTensor) moved = NULL;

  if (executorch_device_is_available (gpu))
    {
      g_autoptr(ExecutorchTensor) back = NULL;
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

/* --- program loading failures (no model needed) --- */

static void
test_program_missing_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchProgram) program = executorch_program_new_from_file ("/nonexistent/model.pte", &error);

  g_assert_null (program);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "/nonexistent/model.pte: No such file or directory");
}

/* A folder, and a missing .ptd beside a good .pte: GIO's codes too. */
static void
test_program_unreadable_files (void)
{
  const char *const missing_data[] = { "/nonexistent/weights.ptd", NULL };
  g_autoptr(GError) error = NULL;

  g_assert_null (executorch_program_new_from_file (TEST_MODELS_DIR, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY);
  g_assert_true (g_str_has_prefix (error->message, TEST_MODELS_DIR ": "));
  g_clear_error (&error);

  g_assert_null (executorch_program_new_from_file_with_data (TEST_MODELS_DIR "/add/add.pte", missing_data, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "/nonexistent/weights.ptd: "));
  g_clear_error (&error);

  g_assert_null (executorch_bundled_program_new_from_file ("/nonexistent/model.bpte", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "/nonexistent/model.bpte: No such file or directory");
}

static void
test_program_empty_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr(ExecutorchProgram) program = NULL;
  int fd = g_file_open_tmp ("empty-XXXXXX.pte", &path, &error);

  g_assert_no_error (error);
  close (fd);
  program = executorch_program_new_from_file (path, &error);
  g_assert_null (program);
  g_assert_nonnull (error);
  g_assert_true (error->domain == EXECUTORCH_ERROR);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_unlink (path);
}

static void
test_program_garbage_bytes (void)
{
  static const guint8 junk[64] = { 'n', 'o', 't', ' ', 'a', ' ', 'p', 't', 'e' };
  g_autoptr(GBytes) data = g_bytes_new_static (junk, sizeof junk);
  g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchProgram) program = executorch_program_new_from_bytes (data, &error);

  g_assert_null (program);
  g_assert_nonnull (error);
  g_assert_true (error->domain == EXECUTORCH_ERROR);
  g_clear_error (&error);

  g_assert_null (executorch_program_new_from_bytes (empty, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_PROGRAM);
  g_clear_error (&error);

  /* GInitable: a binding constructing it with no source gets an error. */
  g_assert_null (g_initable_new (EXECUTORCH_TYPE_PROGRAM, NULL, &error, NULL));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
}

/* --- construction through properties alone (what PyGObject and GJS do:
 * g_object_new, no g_initable_init) --- */

#define ADD_PTE TEST_MODELS_DIR "/add/add.pte"

/* Usable at once: methods are listed and load without g_initable_init. */
static void
test_program_construct_properties (void)
{
  g_autoptr(ExecutorchProgram) program = g_object_new (EXECUTORCH_TYPE_PROGRAM, "path", ADD_PTE, NULL);
  g_auto(GStrv) names = executorch_program_list_methods (program);
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchMethod) method = NULL;
  g_autoptr(ExecutorchMethodInfo) info = NULL;

  g_assert_cmpstrv (names, ((const char *const[]) { "forward", NULL }));
  g_assert_cmpuint (executorch_program_get_n_methods (program), ==, 1);
  g_assert_true (executorch_program_has_method (program, "forward"));
  info = executorch_program_get_method_info (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (executorch_method_info_get_n_inputs (info), ==, 2);
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (executorch_method_get_n_inputs (method), ==, 2);
  g_assert_true (g_initable_init (G_INITABLE (program), NULL, &error));
  g_assert_no_error (error);
}

/* A failed load is kept: g_initable_init and every function with a
 * GError report it; the others warn with it and return nothing. */
static void
test_program_construct_failed (void)
{
  g_autoptr(ExecutorchProgram) program =
    g_object_new (EXECUTORCH_TYPE_PROGRAM, "path", "/nonexistent/model.pte", NULL);
  g_autoptr(ExecutorchProgram) nothing = g_object_new (EXECUTORCH_TYPE_PROGRAM, NULL);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;

  g_assert_null (executorch_program_load_method (program, "forward", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "/nonexistent/model.pte: No such file or directory");
  g_clear_error (&error);
  g_assert_null (executorch_program_load_method_profiled (program, "forward", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (executorch_program_get_method_info (program, "forward", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (g_initable_init (G_INITABLE (program), NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_test_expect_message ("Executorch", G_LOG_LEVEL_WARNING,
                         "executorch_program_list_methods: the program did not load, so it has no methods: "
                         "/nonexistent/model.pte: No such file or directory");
  names = executorch_program_list_methods (program);
  g_test_assert_expected_messages ();
  g_assert_nonnull (names);
  g_assert_null (names[0]);
  g_test_expect_message ("Executorch", G_LOG_LEVEL_WARNING, "executorch_program_has_method: *");
  g_assert_false (executorch_program_has_method (program, "forward"));
  g_test_assert_expected_messages ();

  /* No path and no bytes: the message says what to set. */
  g_assert_false (g_initable_init (G_INITABLE (nothing), NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "the program has nothing to load: set its “path” or its “bytes”");
  g_clear_error (&error);
  g_assert_null (executorch_program_load_method (nothing, "forward", &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
}

static void
test_method_construct_properties (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ExecutorchProgram) program = executorch_program_new_from_file (ADD_PTE, &error);
  g_autoptr(ExecutorchProgram) missing =
    g_object_new (EXECUTORCH_TYPE_PROGRAM, "path", "/nonexistent/model.pte", NULL);
  g_autoptr(ExecutorchMethod) method = NULL;
  g_autoptr(ExecutorchMethod) orphan = NULL;
  g_autoptr(ExecutorchMethod) from_missing = NULL;
  g_autoptr(ExecutorchTensor) ones = NULL;
  const float values[] = { 1, 1, 1, 1, 1, 1 };
  const gint64 sizes[] = { 2, 3 };

  g_assert_no_error (error);
  method = g_object_new (EXECUTORCH_TYPE_METHOD, "program", program, "name", "forward", NULL);
  g_assert_cmpuint (executorch_method_get_n_inputs (method), ==, 2);
  ones = executorch_tensor_new_from_floats (sizes, 2, values, 6, &error);
  g_assert_no_error (error);
  g_assert_true (executorch_method_set_input (method, 0, ones, &error));
  g_assert_true (executorch_method_set_input (method, 1, ones, &error));
  g_assert_true (executorch_method_execute (method, NULL, &error));
  g_assert_no_error (error);

  /* No program, or one that did not load: the error says why. */
  orphan = g_object_new (EXECUTORCH_TYPE_METHOD, NULL);
  g_assert_false (executorch_method_execute (orphan, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "the method has no program to load from: set its “program”");
  g_clear_error (&error);
  g_assert_false (g_initable_init (G_INITABLE (orphan), NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_test_expect_message ("Executorch", G_LOG_LEVEL_WARNING, "executorch_method_get_n_inputs: the method did not load: *");
  g_assert_cmpuint (executorch_method_get_n_inputs (orphan), ==, 0);
  g_test_assert_expected_messages ();

  from_missing = g_object_new (EXECUTORCH_TYPE_METHOD, "program", missing, NULL);
  g_assert_false (executorch_method_set_input (from_missing, 0, ones, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

static void
test_bundled_construct_properties (void)
{
  g_autoptr(ExecutorchBundledProgram) bundled =
    g_object_new (EXECUTORCH_TYPE_BUNDLED_PROGRAM, "path", TEST_MODELS_DIR "/bundled/add_bp.bpte", NULL);
  g_autoptr(ExecutorchBundledProgram) nothing = g_object_new (EXECUTORCH_TYPE_BUNDLED_PROGRAM, NULL);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = executorch_bundled_program_list_methods (bundled);
  g_auto(GStrv) none = NULL;

  g_assert_cmpstrv (names, ((const char *const[]) { "forward", NULL }));
  g_assert_true (EXECUTORCH_IS_PROGRAM (executorch_bundled_program_get_program (bundled)));
  g_assert_true (executorch_bundled_program_verify (bundled, "forward", 0, EXECUTORCH_BUNDLED_DEFAULT_RTOL,
                                                    EXECUTORCH_BUNDLED_DEFAULT_ATOL, &error));
  g_assert_no_error (error);

  g_assert_false (g_initable_init (G_INITABLE (nothing), NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (executorch_bundled_program_verify (nothing, "forward", 0, EXECUTORCH_BUNDLED_DEFAULT_RTOL,
                                                     EXECUTORCH_BUNDLED_DEFAULT_ATOL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_test_expect_message ("Executorch", G_LOG_LEVEL_WARNING,
                         "executorch_bundled_program_list_methods: the bundled program did not load: *");
  none = executorch_bundled_program_list_methods (nothing);
  g_test_assert_expected_messages ();
  g_assert_nonnull (none);
  g_assert_null (none[0]);
}

/* The classes without a constructor of their own: g_object_new() gives an
 * empty but usable object (what Executorch.Tensor() does in a binding). */
static void
test_plain_classes_construct_empty (void)
{
  g_autoptr(ExecutorchTensor) tensor = g_object_new (EXECUTORCH_TYPE_TENSOR, NULL);
  g_autoptr(ExecutorchMethodInfo) info = g_object_new (EXECUTORCH_TYPE_METHOD_INFO, NULL);
  g_autoptr(ExecutorchValueInfo) value = g_object_new (EXECUTORCH_TYPE_VALUE_INFO, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = executorch_tensor_get_bytes (tensor, &error);
  g_autoptr(ExecutorchTensor) copy = NULL;
  g_auto(GStrv) operators = executorch_method_info_list_operators (info);
  g_auto(GStrv) backends = executorch_method_info_list_backends (info);
  gsize n_dims = 0;
  const gint64 *sizes = executorch_tensor_get_sizes (tensor, &n_dims);

  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 0);
  g_assert_cmpuint (n_dims, ==, 1);
  g_assert_cmpint (sizes[0], ==, 0);
  g_assert_cmpint (executorch_tensor_get_numel (tensor), ==, 0);
  g_assert_true (executorch_device_equal (executorch_tensor_get_device (tensor), executorch_device_get_cpu ()));
  copy = executorch_tensor_copy (tensor, &error);
  g_assert_no_error (error);
  g_assert_cmpint (executorch_tensor_get_numel (copy), ==, 0);

  g_assert_cmpstr (executorch_method_info_get_name (info), ==, "");
  g_assert_cmpuint (executorch_method_info_get_n_inputs (info), ==, 0);
  g_assert_cmpuint (executorch_method_info_get_n_outputs (info), ==, 0);
  g_assert_cmpuint (executorch_method_info_get_n_buffers (info), ==, 0);
  g_assert_nonnull (operators);
  g_assert_null (operators[0]);
  g_assert_nonnull (backends);
  g_assert_null (backends[0]);
  g_assert_cmpstr (executorch_method_info_get_input_spec (info), ==, "");

  g_assert_true (executorch_device_equal (executorch_value_info_get_device (value), executorch_device_get_cpu ()));
}

/* --- registry --- */

static void
test_registry (void)
{
  g_auto(GStrv) operators = executorch_list_operators ();
  g_auto(GStrv) backends = executorch_list_backends ();
  g_auto(GStrv) plugins = executorch_list_plugins ();
  g_auto(GStrv) device_types = executorch_list_device_types ();

  g_assert_cmpstr (executorch_get_version (), ==, EXECUTORCH_VERSION_STRING);
  g_assert_nonnull (operators);
  g_assert_nonnull (backends);
  g_assert_nonnull (plugins);
  g_assert_nonnull (device_types);
  g_assert_true (g_strv_contains ((const char *const *) device_types, "cpu"));
  /* Discovery is once per process: a second call reports the same. */
  {
    g_autoptr(GError) first = NULL;
    g_autoptr(GError) second = NULL;
    gboolean a = executorch_load_plugins (&first);
    gboolean b = executorch_load_plugins (&second);
    g_assert_cmpint (a, ==, b);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/enums/scalar-type", test_scalar_type);
  g_test_add_func ("/enums/gtypes", test_enum_types);
  g_test_add_func ("/error/domain", test_error_domain);
  g_test_add_func ("/device/cpu", test_device_cpu);
  g_test_add_func ("/device/parse", test_device_parse);
  g_test_add_func ("/device/cuda", test_device_cuda);
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
  g_test_add_func ("/program/load/missing-file", test_program_missing_file);
  g_test_add_func ("/program/load/empty-file", test_program_empty_file);
  g_test_add_func ("/program/load/garbage", test_program_garbage_bytes);
  g_test_add_func ("/program/load/unreadable", test_program_unreadable_files);
  g_test_add_func ("/program/construct/properties", test_program_construct_properties);
  g_test_add_func ("/program/construct/failed", test_program_construct_failed);
  g_test_add_func ("/method/construct/properties", test_method_construct_properties);
  g_test_add_func ("/bundled/construct/properties", test_bundled_construct_properties);
  g_test_add_func ("/construct/plain-classes", test_plain_classes_construct_empty);
  g_test_add_func ("/registry/lists", test_registry);

  return g_test_run ();
}
