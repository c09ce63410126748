/* test-device-kernels.c: et_copy::_h2d_copy.out / _d2h_copy.out move bytes
 * through the registered device allocator, never by a host memcpy
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The "device" is a fake CUDA allocator over host memory that counts calls
 * and keeps a list of the blocks it handed out, so the test can also tell
 * that the kernels wrote where the allocator said device memory was.
 */
#include "kernel-test-util.h"

#include <string.h>

static guint h2d_calls, d2h_calls;

static EtError
fake_allocate (void *user_data, size_t nbytes, int index, size_t alignment, void **out)
{
  *out = g_malloc0 (nbytes ? nbytes : 1);
  return ET_OK;
}

static void
fake_deallocate (void *user_data, void *ptr, int index)
{
  g_free (ptr);
}

static EtError
fake_h2d (void *user_data, void *dst, const void *src, size_t n, int index)
{
  h2d_calls++;
  memcpy (dst, src, n);
  return ET_OK;
}

static EtError
fake_d2h (void *user_data, void *dst, const void *src, size_t n, int index)
{
  d2h_calls++;
  memcpy (dst, src, n);
  return ET_OK;
}

static const EtDeviceAllocator fake = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .device_type = ET_DEVICE_CUDA,
  .name = "fake-cuda",
  .allocate = fake_allocate,
  .deallocate = fake_deallocate,
  .copy_host_to_device = fake_h2d,
  .copy_device_to_host = fake_d2h,
};

static void
on_device (Tensor *x)
{
  x->t.device_type = ET_DEVICE_CUDA;
  x->t.device_index = 0;
}

static void
test_round_trip (void)
{
  float host[6] = { 1, -2, 3.5f, 4, 5, 6 }, back[6] = { 0 };
  void *device;
  Tensor src, dev, dst;
  const int64_t sizes[] = { 2, 3 };
  const int64_t bound[] = { 4, 3 };

  g_assert_cmpint (fake.allocate (NULL, sizeof host * 2, 0, 64, &device), ==, ET_OK);
  tensor_init (&src, ET_SCALAR_FLOAT, 2, sizes, host);
  /* The device side is a dynamic tensor with room for more: it takes the
   * source's sizes. */
  tensor_init_dynamic (&dev, ET_SCALAR_FLOAT, 2, bound, device, 12);
  on_device (&dev);
  h2d_calls = d2h_calls = 0;
  g_assert_cmpint (CALL ("et_copy::_h2d_copy.out", &src.v, &dev.v), ==, ET_OK);
  g_assert_cmpuint (h2d_calls, ==, 1);
  g_assert_cmpint (dev.t.sizes[0], ==, 2);
  g_assert_cmpmem (device, sizeof host, host, sizeof host);

  tensor_init (&dst, ET_SCALAR_FLOAT, 2, sizes, back);
  g_assert_cmpint (CALL ("et_copy::_d2h_copy.out", &dev.v, &dst.v), ==, ET_OK);
  g_assert_cmpuint (d2h_calls, ==, 1);
  g_assert_cmpmem (back, sizeof back, host, sizeof host);
  fake.deallocate (NULL, device, 0);
}

static void
test_wrong_sides (void)
{
  float a[2] = { 1, 2 }, b[2] = { 0 };
  int32_t c[2] = { 0 };
  Tensor host_a, host_b, dev_b, dev_c;
  const int64_t sizes[] = { 2 };

  tensor_init (&host_a, ET_SCALAR_FLOAT, 1, sizes, a);
  tensor_init (&host_b, ET_SCALAR_FLOAT, 1, sizes, b);
  tensor_init (&dev_b, ET_SCALAR_FLOAT, 1, sizes, b);
  on_device (&dev_b);
  tensor_init (&dev_c, ET_SCALAR_INT, 1, sizes, c);
  on_device (&dev_c);
  h2d_calls = d2h_calls = 0;
  g_assert_cmpint (CALL ("et_copy::_h2d_copy.out", &host_a.v, &host_b.v), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "out must be in device memory"));
  g_assert_cmpint (CALL ("et_copy::_d2h_copy.out", &host_a.v, &host_b.v), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "self must be in device memory"));
  g_assert_cmpint (CALL ("et_copy::_h2d_copy.out", &host_a.v, &dev_c.v), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "out is Int"));
  g_assert_cmpuint (h2d_calls + d2h_calls, ==, 0);
}

int
main (int argc, char **argv)
{
  char message[256];

  g_test_init (&argc, &argv, NULL);
  register_kernels_plugin ();
  if (et_registry_add_device_allocator (et_registry_get_default (), &fake) != ET_OK)
    g_error ("%s", et_registry_last_message (et_registry_get_default ()));
  /* Copies need an allocator for the device: a type nobody registered fails. */
  {
    char buf[4] = { 0 };
    g_assert_cmpint (et_device_copy (ET_DEVICE_CPU, 0, buf, 5, 0, buf, 4, message, sizeof message), !=, ET_OK);
    g_assert_cmpstr (message, !=, "");
  }
  g_test_add_func ("/device-kernels/round-trip", test_round_trip);
  g_test_add_func ("/device-kernels/wrong-sides", test_wrong_sides);
  return g_test_run ();
}
