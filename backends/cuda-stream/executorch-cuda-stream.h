/* executorch-cuda-stream.h: the CUDA stream the caller chose for this thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An application that wants ExecuTorch's CUDA work (the delegate, the
 * allocator's copies) on a stream of its own, say one confined to part of
 * the GPU, enters a scope with that stream around its calls.  Every library
 * that issues CUDA work asks this library for the caller's stream.
 *
 * The choice is one thread-local value, and it lives in exactly one shared
 * library, libexecutorch-cuda-stream.so.0: a static copy in each consumer
 * would give each its own thread-local, and a stream the application set
 * would be silently invisible to the backend.  Link it; never embed it.
 *
 * Plain C with no CUDA headers: a stream is CUDA's opaque struct CUstream_st
 * pointer, the same type as cudaStream_t and CUstream.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(EXECUTORCH_CUDA_STREAM_COMPILATION)
#define EXECUTORCH_CUDA_STREAM_API __attribute__ ((visibility ("default"))) extern
#else
#define EXECUTORCH_CUDA_STREAM_API extern
#endif

/* cudaStream_t without <cuda_runtime.h>.  NULL is CUDA's legacy default stream. */
typedef struct CUstream_st *ExecutorchCudaStream;

/* Caller-allocated (usually on the stack); the fields are private. */
typedef struct
{
  ExecutorchCudaStream previous;
  bool previous_set;
  unsigned int depth;
  unsigned int magic;
} ExecutorchCudaStreamScope;

/* Makes @stream the caller's stream on this thread until the matching
 * executorch_cuda_stream_scope_leave().  Scopes nest: leaving restores the
 * stream of the enclosing scope, or no caller stream at all. */
EXECUTORCH_CUDA_STREAM_API
void executorch_cuda_stream_scope_enter (ExecutorchCudaStreamScope *scope, ExecutorchCudaStream stream);

/* Ends @scope.  Scopes must end innermost first on the thread that entered
 * them; a scope left out of order or twice is reported on stderr and
 * otherwise ignored, so the thread's state is never corrupted. */
EXECUTORCH_CUDA_STREAM_API
void executorch_cuda_stream_scope_leave (ExecutorchCudaStreamScope *scope);

/* True, with the stream in *@stream, when a scope is active on this thread. */
EXECUTORCH_CUDA_STREAM_API
bool executorch_cuda_stream_get_caller (ExecutorchCudaStream *stream);

/* How many scopes are active on this thread (0 = none). */
EXECUTORCH_CUDA_STREAM_API
unsigned int executorch_cuda_stream_depth (void);

#ifdef __cplusplus
}
#endif
