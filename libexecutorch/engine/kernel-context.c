/* kernel-context.c: what a kernel sees of the runtime during one call
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kernel-context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
_et_kernel_context_init (EtKernelContext *context, const EtKernel *kernel)
{
  memset (context, 0, sizeof *context);
  context->kernel = kernel;
}

void
_et_kernel_context_reset (EtKernelContext *context)
{
  for (guint i = 0; i < context->n_scratch; i++)
    free (context->scratch[i]);
  context->n_scratch = 0;
  _et_error_context_clear (&context->error);
}

EtErrorContext *
et_kernel_context_error (EtKernelContext *context)
{
  return context != NULL ? &context->error : NULL;
}

void *
et_kernel_context_scratch (EtKernelContext *context, size_t nbytes)
{
  void *ptr = NULL;

  if (context == NULL || context->n_scratch >= G_N_ELEMENTS (context->scratch))
    return NULL;
  if (posix_memalign (&ptr, 64, nbytes == 0 ? 64 : nbytes) != 0)
    return NULL;
  context->scratch[context->n_scratch++] = ptr;
  return ptr;
}

void *
et_kernel_context_user_data (EtKernelContext *context)
{
  return context != NULL && context->kernel != NULL ? context->kernel->user_data : NULL;
}

EtError
et_kernel_call (const EtKernel *kernel, EtValue **args, uint32_t n_args, EtErrorContext *error)
{
  EtKernelContext context;
  EtError result;

  if (kernel == NULL || kernel->func == NULL)
    return et_error_context_fail (error, ET_ERROR_INVALID_ARGUMENT, "no kernel given");
  _et_kernel_context_init (&context, kernel);
  result = kernel->func (&context, args, n_args);
  if (result != ET_OK)
    et_error_context_fail (error, result, "%s", et_error_context_message (&context.error));
  _et_kernel_context_reset (&context);
  return result;
}
