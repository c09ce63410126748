/* stream-consumer.c: a library that issues CUDA work, as the backend and
 * allocator do; built twice (consumer-a, consumer-b) to show that both see
 * the stream the application chose, through the one helper library.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch-cuda-stream.h>

#define EXPORT __attribute__ ((visibility ("default")))
#define CONCAT2(a, b) a##b
#define CONCAT(a, b) CONCAT2 (a, b)

/* The stream this library would run on: the caller's, else NULL. */
EXPORT ExecutorchCudaStream
CONCAT (CONSUMER, _stream) (void)
{
  ExecutorchCudaStream stream = NULL;
  return executorch_cuda_stream_get_caller (&stream) ? stream : NULL;
}
