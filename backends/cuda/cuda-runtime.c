/* cuda-runtime.c: the CUDA runtime behind the backend, the CUDA device
 * allocator, and the plug-in descriptor of libexecutorch-cuda
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Only this file calls cudart.  With no driver or no device the probe says
 * so and the plug-in registers nothing: a CUDA program then fails at method
 * load because CudaBackend is missing, never with an abort.
 */
#include "cuda-private.h"

#include <cuda_runtime_api.h>
#include <executorch-cuda-stream.h>
#include <stdio.h>

#ifndef EXECUTORCH_CUDA_VERSION
#define EXECUTORCH_CUDA_VERSION "0.0.0"
#endif

static int
rt_malloc_async (void **ptr, size_t nbytes, void *stream)
{
  return (int) cudaMallocAsync (ptr, nbytes, (cudaStream_t) stream);
}

static int
rt_free_async (void *ptr, void *stream)
{
  return (int) cudaFreeAsync (ptr, (cudaStream_t) stream);
}

static int
rt_memcpy_async (void *dst, const void *src, size_t nbytes, CudaCopyKind kind, void *stream)
{
  enum cudaMemcpyKind rt_kind = kind == CUDA_COPY_HOST_TO_DEVICE   ? cudaMemcpyHostToDevice
                                : kind == CUDA_COPY_DEVICE_TO_HOST ? cudaMemcpyDeviceToHost
                                                                   : cudaMemcpyDeviceToDevice;
  return (int) cudaMemcpyAsync (dst, src, nbytes, rt_kind, (cudaStream_t) stream);
}

static int
rt_memset_async (void *ptr, int value, size_t nbytes, void *stream)
{
  return (int) cudaMemsetAsync (ptr, value, nbytes, (cudaStream_t) stream);
}

static int
rt_stream_create (void **stream)
{
  return (int) cudaStreamCreate ((cudaStream_t *) stream);
}

static int
rt_stream_destroy (void *stream)
{
  return (int) cudaStreamDestroy ((cudaStream_t) stream);
}

static int
rt_stream_synchronize (void *stream)
{
  return (int) cudaStreamSynchronize ((cudaStream_t) stream);
}

static int
rt_get_device (int *index)
{
  return (int) cudaGetDevice (index);
}

static int
rt_set_device (int index)
{
  return (int) cudaSetDevice (index);
}

static int
rt_is_device_pointer (const void *ptr)
{
  struct cudaPointerAttributes attributes;

  if (cudaPointerGetAttributes (&attributes, ptr) != cudaSuccess)
    {
      cudaGetLastError (); /* clear the sticky error */
      return 0;
    }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

static const char *
rt_error_string (int code)
{
  return cudaGetErrorString ((cudaError_t) code);
}

int _executorch_cuda_strided_copy (void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                                   const int64_t *sizes, int ndim, int64_t numel, int element, void *stream);

static const CudaDeviceOps runtime_ops = {
  .name = "cudart",
  .malloc_async = rt_malloc_async,
  .free_async = rt_free_async,
  .memcpy_async = rt_memcpy_async,
  .memset_async = rt_memset_async,
  .stream_create = rt_stream_create,
  .stream_destroy = rt_stream_destroy,
  .stream_synchronize = rt_stream_synchronize,
  .get_device = rt_get_device,
  .set_device = rt_set_device,
  .strided_copy = _executorch_cuda_strided_copy,
  .is_device_pointer = rt_is_device_pointer,
  .error_string = rt_error_string,
};

/* ---- the device allocator for planned CUDA buffers ---- */

/* Copies follow the caller's stream when one is set (async, then a sync
 * so the bytes are there when we return); else plain cudaMemcpy. */
static EtError
copy (void *dst, const void *src, size_t nbytes, enum cudaMemcpyKind kind)
{
  ExecutorchCudaStream stream;
  cudaError_t status;

  if (executorch_cuda_stream_get_caller (&stream))
    {
      status = cudaMemcpyAsync (dst, src, nbytes, kind, (cudaStream_t) stream);
      if (status == cudaSuccess)
        status = cudaStreamSynchronize ((cudaStream_t) stream);
    }
  else
    status = cudaMemcpy (dst, src, nbytes, kind);
  return status == cudaSuccess ? ET_OK : ET_ERROR_INTERNAL;
}

static EtError
allocator_allocate (void *user_data, size_t nbytes, int device_index, size_t alignment, void **out)
{
  int previous = 0;
  cudaError_t status;

  /* cudaMalloc aligns to at least 256 bytes. */
  if (alignment > 256)
    return ET_ERROR_NOT_SUPPORTED;
  if (device_index >= 0 && cudaGetDevice (&previous) == cudaSuccess && previous != device_index)
    cudaSetDevice (device_index);
  status = cudaMalloc (out, nbytes > 0 ? nbytes : 1);
  if (device_index >= 0 && previous != device_index)
    cudaSetDevice (previous);
  return status == cudaSuccess ? ET_OK : ET_ERROR_MEMORY_ALLOCATION_FAILED;
}

static void
allocator_deallocate (void *user_data, void *ptr, int device_index)
{
  cudaFree (ptr);
}

static EtError
allocator_h2d (void *user_data, void *dst, const void *src, size_t nbytes, int device_index)
{
  return copy (dst, src, nbytes, cudaMemcpyHostToDevice);
}

static EtError
allocator_d2h (void *user_data, void *dst, const void *src, size_t nbytes, int device_index)
{
  return copy (dst, src, nbytes, cudaMemcpyDeviceToHost);
}

static EtError
allocator_d2d (void *user_data, void *dst, int dst_index, const void *src, int src_index, size_t nbytes)
{
  if (dst_index == src_index)
    return copy (dst, src, nbytes, cudaMemcpyDeviceToDevice);
  return cudaMemcpyPeer (dst, dst_index, src, src_index, nbytes) == cudaSuccess ? ET_OK : ET_ERROR_INTERNAL;
}

static int
allocator_device_count (void *user_data)
{
  int count = 0;
  return cudaGetDeviceCount (&count) == cudaSuccess ? count : 0;
}

static const EtDeviceAllocator cuda_allocator = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .device_type = ET_DEVICE_CUDA,
  .name = "cuda",
  .allocate = allocator_allocate,
  .deallocate = allocator_deallocate,
  .copy_host_to_device = allocator_h2d,
  .copy_device_to_host = allocator_d2h,
  .copy_device_to_device = allocator_d2d,
  .device_count = allocator_device_count,
};

/* ---- the plug-in ---- */

static int
probe (void)
{
  int count = 0;

  if (cudaGetDeviceCount (&count) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  return count > 0;
}

static bool
init (EtRegistry *registry, EtErrorContext *error)
{
  _executorch_cuda_set_ops (&runtime_ops);
  return et_registry_add_device_allocator (registry, &cuda_allocator, error) == ET_OK &&
         et_registry_add_backend (registry, &_executorch_cuda_backend, error) == ET_OK;
}

static const EtPluginDesc plugin = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "cuda",
  .version = EXECUTORCH_CUDA_VERSION,
  .description = "CUDA backend: AOTInductor-compiled CUDA programs, device memory",
  .package = "libexecutorch-cuda0",
  .kind = ET_PLUGIN_BACKEND,
  .probe = probe,
  .init = init,
};

ET_PLUGIN_EXPORT const EtPluginDesc *executorch_cuda_get_plugin (void);

const EtPluginDesc *
executorch_cuda_get_plugin (void)
{
  return &plugin;
}
