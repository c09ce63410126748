/* test-method-info.c: ExecutorchMethodInfo and ExecutorchValueInfo (with the Tensor, the other
 * class without a constructor of its own) made by g_object_new alone
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch.h>

/* The classes without a constructor of their own: g_object_new() gives an
 * empty but usable object (what Executorch.Tensor() does in a binding). */
static void
test_plain_classes_construct_empty (void)
{
  g_autoptr (ExecutorchTensor) tensor = g_object_new (EXECUTORCH_TYPE_TENSOR, NULL);
  g_autoptr (ExecutorchMethodInfo) info = g_object_new (EXECUTORCH_TYPE_METHOD_INFO, NULL);
  g_autoptr (ExecutorchValueInfo) value = g_object_new (EXECUTORCH_TYPE_VALUE_INFO, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = executorch_tensor_get_bytes (tensor, &error);
  g_autoptr (ExecutorchTensor) copy = NULL;
  g_auto (GStrv) operators = executorch_method_info_list_operators (info);
  g_auto (GStrv) backends = executorch_method_info_list_backends (info);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/construct/plain-classes", test_plain_classes_construct_empty);

  return g_test_run ();
}
