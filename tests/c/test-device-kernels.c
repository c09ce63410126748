/* test-device-kernels.c: et_copy::_h2d_copy.out / _d2h_copy.out move bytes
 * through the registered device allocator, never by a host memcpy
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The "device" is a fake CUDA allocator over host memory that counts its
 * calls (fake-cuda-allocator.c), so the test can tell that every byte
 * crossed through the allocator's copies.
 */
#include "kernel-test-util.h"
#include "fake-cuda-allocator.h"

#include <string.h>

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

  g_assert_cmpint (fake_cuda_allocator.allocate (NULL, sizeof host * 2, 0, 64, &device), ==, ET_OK);
  tensor_init (&src, ET_SCALAR_FLOAT, 2, sizes, host);
  /* The device side is a dynamic tensor with room for more: it takes the
   * source's sizes. */
  tensor_init_dynamic (&dev, ET_SCALAR_FLOAT, 2, bound, device, 12);
  on_device (&dev);
  memset (&fake_cuda_counts, 0, sizeof fake_cuda_counts);
  g_assert_cmpint (CALL ("et_copy::_h2d_copy.out", &src.v, &dev.v), ==, ET_OK);
  g_assert_cmpuint (fake_cuda_counts.h2d, ==, 1);
  g_assert_cmpint (dev.t.sizes[0], ==, 2);
  g_assert_cmpmem (device, sizeof host, host, sizeof host);

  tensor_init (&dst, ET_SCALAR_FLOAT, 2, sizes, back);
  g_assert_cmpint (CALL ("et_copy::_d2h_copy.out", &dev.v, &dst.v), ==, ET_OK);
  g_assert_cmpuint (fake_cuda_counts.d2h, ==, 1);
  g_assert_cmpmem (back, sizeof back, host, sizeof host);
  fake_cuda_allocator.deallocate (NULL, device, 0);
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
  memset (&fake_cuda_counts, 0, sizeof fake_cuda_counts);
  g_assert_cmpint (CALL ("et_copy::_h2d_copy.out", &host_a.v, &host_b.v), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "out must be in device memory"));
  g_assert_cmpint (CALL ("et_copy::_d2h_copy.out", &host_a.v, &host_b.v), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "self must be in device memory"));
  g_assert_cmpint (CALL ("et_copy::_h2d_copy.out", &host_a.v, &dev_c.v), ==, ET_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (last_message, "out is Int"));
  g_assert_cmpuint (fake_cuda_counts.h2d + fake_cuda_counts.d2h, ==, 0);
}

int
main (int argc, char **argv)
{
  EtErrorContext *error = et_error_context_new ();

  g_test_init (&argc, &argv, NULL);
  register_kernels_plugin ();
  if (et_registry_add_device_allocator (et_registry_get_default (), &fake_cuda_allocator, error) != ET_OK)
    g_error ("%s", et_error_context_message (error));
  /* Copies need an allocator for the device: a type nobody registered fails. */
  {
    char buf[4] = { 0 };
    g_assert_cmpint (et_device_copy (ET_DEVICE_CPU, 0, buf, 5, 0, buf, 4, error), !=, ET_OK);
    g_assert_cmpstr (et_error_context_message (error), !=, "");
  }
  et_error_context_free (error);
  g_test_add_func ("/device-kernels/round-trip", test_round_trip);
  g_test_add_func ("/device-kernels/wrong-sides", test_wrong_sides);
  return g_test_run ();
}
