/* test-device-api.c: ExecutorchDevice: the CPU, names and CUDA devices
 *
 * (test-device.c is the engine's device memory: copies and plans)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch.h>

static void
test_device_cpu (void)
{
  ExecutorchDevice *cpu = executorch_device_get_cpu ();
  g_autoptr (ExecutorchDevice) other = executorch_device_new (EXECUTORCH_DEVICE_TYPE_CPU, 0);
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
  static const struct
  {
    const char *name;
    ExecutorchDeviceType type;
    gint index;
    const char *canonical;
  } good[] = {
    { "cpu", EXECUTORCH_DEVICE_TYPE_CPU, 0, "cpu" },        { "cpu:0", EXECUTORCH_DEVICE_TYPE_CPU, 0, "cpu" },
    { "cuda", EXECUTORCH_DEVICE_TYPE_CUDA, 0, "cuda:0" },   { "cuda:0", EXECUTORCH_DEVICE_TYPE_CUDA, 0, "cuda:0" },
    { "cuda:3", EXECUTORCH_DEVICE_TYPE_CUDA, 3, "cuda:3" },
  };
  static const char *const bad[] = {
    "",        "gpu",      "CPU",   "cuda:", "cuda:-1",  "cuda:+1", "cuda:x",
    "cuda:1x", "cuda:999", "cpu:1", ":0",    "cuda:0:0", "cuda: 1", "\xff\xfe",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (ExecutorchDevice) device = executorch_device_new_from_name (good[i].name, &error);

      g_assert_no_error (error);
      g_assert_cmpint (executorch_device_get_device_type (device), ==, good[i].type);
      g_assert_cmpint (executorch_device_get_index (device), ==, good[i].index);
      g_assert_cmpstr (executorch_device_get_name (device), ==, good[i].canonical);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (ExecutorchDevice) device = executorch_device_new_from_name (bad[i], &error);

      g_assert_null (device);
      g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
    }
}

static void
test_device_cuda (void)
{
  g_autoptr (ExecutorchDevice) a = executorch_device_new (EXECUTORCH_DEVICE_TYPE_CUDA, 1);
  g_autoptr (ExecutorchDevice) b =
      g_object_new (EXECUTORCH_TYPE_DEVICE, "device-type", EXECUTORCH_DEVICE_TYPE_CUDA, "index", 1, NULL);
  g_autoptr (ExecutorchDevice) c = executorch_device_new (EXECUTORCH_DEVICE_TYPE_CUDA, 0);

  g_assert_cmpstr (executorch_device_get_name (a), ==, "cuda:1");
  g_assert_true (executorch_device_equal (a, b));
  g_assert_false (executorch_device_equal (a, c));
  g_assert_false (executorch_device_equal (a, executorch_device_get_cpu ()));
  /* Whatever the machine, the answer must not crash. */
  (void) executorch_device_is_available (a);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/device/cpu", test_device_cpu);
  g_test_add_func ("/device/parse", test_device_parse);
  g_test_add_func ("/device/cuda", test_device_cuda);

  return g_test_run ();
}
