/* strided-copy.cu: dst = src for two device tensors of the same shape and
 * different strides, one thread per element (generated code asks for such
 * copies through aoti_torch_copy_; element-by-element cudaMemcpy would be
 * one call per element).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <cuda_runtime_api.h>
#include <stdint.h>

#define MAX_DIMS 16

struct Layout {
  int64_t sizes[MAX_DIMS];
  int64_t dst_strides[MAX_DIMS];
  int64_t src_strides[MAX_DIMS];
  int ndim;
};

__global__ static void
strided_copy (char *dst, const char *src, int64_t numel, int element, Layout layout)
{
  int64_t n = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= numel)
    return;
  int64_t rest = n, to = 0, from = 0;
  for (int d = layout.ndim - 1; d >= 0; d--)
    {
      int64_t i = rest % layout.sizes[d];
      rest /= layout.sizes[d];
      to += i * layout.dst_strides[d];
      from += i * layout.src_strides[d];
    }
  for (int b = 0; b < element; b++)
    dst[to * element + b] = src[from * element + b];
}

extern "C" __attribute__ ((visibility ("hidden"))) int
_executorch_cuda_strided_copy (void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                               const int64_t *sizes, int ndim, int64_t numel, int element, void *stream)
{
  Layout layout;

  if (ndim < 0 || ndim > MAX_DIMS || element <= 0 || numel < 0)
    return (int) cudaErrorInvalidValue;
  if (numel == 0)
    return 0;
  layout.ndim = ndim;
  for (int d = 0; d < ndim; d++)
    {
      if (sizes[d] <= 0)
        return 0;
      layout.sizes[d] = sizes[d];
      layout.dst_strides[d] = dst_strides[d];
      layout.src_strides[d] = src_strides[d];
    }
  const int threads = 256;
  strided_copy<<<(unsigned) ((numel + threads - 1) / threads), threads, 0, (cudaStream_t) stream>>> (
    (char *) dst, (const char *) src, numel, element, layout);
  return (int) cudaGetLastError ();
}
