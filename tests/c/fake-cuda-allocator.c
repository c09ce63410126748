/* fake-cuda-allocator.c: see fake-cuda-allocator.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fake-cuda-allocator.h"

#include <stdlib.h>
#include <string.h>

FakeCudaCounts fake_cuda_counts;

static EtError
fake_allocate (void *user_data, size_t nbytes, int index, size_t alignment, void **out)
{
  fake_cuda_counts.allocate++;
  fake_cuda_counts.last_index = index;
  if (posix_memalign (out, alignment < sizeof (void *) ? sizeof (void *) : alignment, nbytes ? nbytes : 1) != 0)
    return ET_ERROR_MEMORY_ALLOCATION_FAILED;
  memset (*out, 0, nbytes);
  return ET_OK;
}

static void
fake_deallocate (void *user_data, void *ptr, int index)
{
  fake_cuda_counts.deallocate++;
  free (ptr);
}

static EtError
fake_h2d (void *user_data, void *dst, const void *src, size_t n, int index)
{
  fake_cuda_counts.h2d++;
  fake_cuda_counts.last_index = index;
  memcpy (dst, src, n);
  return ET_OK;
}

static EtError
fake_d2h (void *user_data, void *dst, const void *src, size_t n, int index)
{
  fake_cuda_counts.d2h++;
  fake_cuda_counts.last_index = index;
  memcpy (dst, src, n);
  return ET_OK;
}

const EtDeviceAllocator fake_cuda_allocator = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .device_type = ET_DEVICE_CUDA,
  .name = "fake-cuda",
  .allocate = fake_allocate,
  .deallocate = fake_deallocate,
  .copy_host_to_device = fake_h2d,
  .copy_device_to_host = fake_d2h,
};
