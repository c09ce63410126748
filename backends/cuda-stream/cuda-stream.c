/* cuda-stream.c: the process's one thread-local caller stream
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-cuda-stream.h"

#include <stdio.h>

/* Marks a scope that was entered and not yet left. */
#define SCOPE_ACTIVE 0x45435353u

static _Thread_local struct
{
  ExecutorchCudaStream stream;
  bool set;
  unsigned int depth;
} caller;

void
executorch_cuda_stream_scope_enter (ExecutorchCudaStreamScope *scope, ExecutorchCudaStream stream)
{
  if (scope == NULL)
    return;
  scope->previous = caller.stream;
  scope->previous_set = caller.set;
  scope->depth = ++caller.depth;
  scope->magic = SCOPE_ACTIVE;
  caller.stream = stream;
  caller.set = true;
}

void
executorch_cuda_stream_scope_leave (ExecutorchCudaStreamScope *scope)
{
  if (scope == NULL || scope->magic != SCOPE_ACTIVE)
    {
      fprintf (stderr, "executorch-cuda-stream: leaving a scope that is not active\n");
      return;
    }
  if (scope->depth != caller.depth)
    {
      fprintf (stderr, "executorch-cuda-stream: scope %u left while scope %u is innermost on this thread\n",
               scope->depth, caller.depth);
      return;
    }
  caller.stream = scope->previous;
  caller.set = scope->previous_set;
  caller.depth--;
  scope->magic = 0;
}

bool
executorch_cuda_stream_get_caller (ExecutorchCudaStream *stream)
{
  if (caller.set && stream != NULL)
    *stream = caller.stream;
  return caller.set;
}

unsigned int
executorch_cuda_stream_depth (void)
{
  return caller.depth;
}
