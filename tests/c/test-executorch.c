/* test-executorch.c: the functions of executorch.h that belong to no class: the enums,
 * the error domains, the version and the registry's lists
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch.h>

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

/* --- registry --- */

static void
test_registry (void)
{
  g_auto (GStrv) operators = executorch_list_operators ();
  g_auto (GStrv) backends = executorch_list_backends ();
  g_auto (GStrv) plugins = executorch_list_plugins ();
  g_auto (GStrv) device_types = executorch_list_device_types ();

  g_assert_cmpstr (executorch_get_version (), ==, EXECUTORCH_VERSION_STRING);
  g_assert_nonnull (operators);
  g_assert_nonnull (backends);
  g_assert_nonnull (plugins);
  g_assert_nonnull (device_types);
  g_assert_true (g_strv_contains ((const char *const *) device_types, "cpu"));
  /* Discovery is once per process: a second call reports the same. */
  {
    g_autoptr (GError) first = NULL;
    g_autoptr (GError) second = NULL;
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
  g_test_add_func ("/registry/lists", test_registry);

  return g_test_run ();
}
