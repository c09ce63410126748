/* test-device.c: copies between devices are routed through the allocator registry
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A fake CUDA allocator backed by host memory counts every call, so the
 * routing is proven without a GPU.  Links the engine statically.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#include "executorch-error.h"

typedef struct {
  guint allocate, deallocate, h2d, d2h, d2d;
  int last_index;
} Counts;

static Counts counts;

static EtError
fake_allocate (void *user_data, size_t nbytes, int index, size_t alignment, void **out)
{
  counts.allocate++;
  counts.last_index = index;
  return posix_memalign (out, alignment, nbytes ? nbytes : 1) == 0 ? ET_OK : ET_ERROR_MEMORY_ALLOCATION_FAILED;
}

static void
fake_deallocate (void *user_data, void *ptr, int index)
{
  counts.deallocate++;
  free (ptr);
}

static EtError
fake_h2d (void *user_data, void *dst, const void *src, size_t n, int index)
{
  counts.h2d++;
  counts.last_index = index;
  memcpy (dst, src, n);
  return ET_OK;
}

static EtError
fake_d2h (void *user_data, void *dst, const void *src, size_t n, int index)
{
  counts.d2h++;
  counts.last_index = index;
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
test_no_allocator (void)
{
  g_autoptr (GError) error = NULL;
  char host[8] = "abcdefg", device[8];

  /* Host to host never needs an allocator. */
  g_assert_true (_et_device_copy (ET_DEVICE_CPU, 0, device, ET_DEVICE_CPU, 0, host, 8, &error));
  g_assert_cmpmem (device, 8, host, 8);
  g_assert_false (_et_device_copy (ET_DEVICE_CUDA, 0, device, ET_DEVICE_CPU, 0, host, 8, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (_et_device_alloc (ET_DEVICE_CUDA, 0, 16, 64, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_NOT_FOUND);
}

static void
test_routing (void)
{
  g_autoptr (GError) error = NULL;
  char host[16] = "0123456789abcde", back[16] = { 0 };
  void *device;

  g_assert_cmpint (et_registry_add_device_allocator (et_registry_get_default (), &fake), ==, ET_OK);
  /* A second allocator for the same type names both owners. */
  g_assert_cmpint (et_registry_add_device_allocator (et_registry_get_default (), &fake), ==,
                   ET_ERROR_REGISTRATION_ALREADY_REGISTERED);
  g_assert_nonnull (strstr (et_registry_last_message (et_registry_get_default ()), "cuda"));

  memset (&counts, 0, sizeof counts);
  device = _et_device_alloc (ET_DEVICE_CUDA, 1, 16, 64, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (counts.allocate, ==, 1);
  g_assert_cmpint (counts.last_index, ==, 1);

  g_assert_true (_et_device_copy (ET_DEVICE_CUDA, 1, device, ET_DEVICE_CPU, 0, host, 16, &error));
  g_assert_true (_et_device_copy (ET_DEVICE_CPU, 0, back, ET_DEVICE_CUDA, 1, device, 16, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (counts.h2d, ==, 1);
  g_assert_cmpuint (counts.d2h, ==, 1);
  g_assert_cmpmem (back, 16, host, 16);

  /* Host to host still bypasses the allocator. */
  g_assert_true (_et_device_copy (ET_DEVICE_CPU, 0, back, ET_DEVICE_CPU, 0, host, 16, &error));
  g_assert_cmpuint (counts.h2d + counts.d2h, ==, 2);

  /* Zero bytes is accepted and calls nothing. */
  g_assert_true (_et_device_copy (ET_DEVICE_CUDA, 0, device, ET_DEVICE_CPU, 0, host, 0, &error));
  g_assert_cmpuint (counts.h2d, ==, 1);

  /* Device to device is optional for an allocator. */
  g_assert_false (_et_device_copy (ET_DEVICE_CUDA, 0, device, ET_DEVICE_CUDA, 1, device, 16, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_NOT_SUPPORTED);

  _et_device_free (ET_DEVICE_CUDA, 1, device);
  g_assert_cmpuint (counts.deallocate, ==, 1);
  g_assert_true (g_strv_contains ((const char *const *) _et_registry_list_device_types (), "cuda"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/device/copy/no-allocator", test_no_allocator);
  g_test_add_func ("/device/copy/routing", test_routing);
  return g_test_run ();
}
