/* call-context.c: what a backend sees of the runtime while it is set up and run
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "call-context.h"

#include <string.h>

const char *
et_backend_init_context_method_name (EtBackendInitContext *context)
{
  return context != NULL ? context->method_name : NULL;
}

EtError
et_backend_init_context_named_data (EtBackendInitContext *context, const char *key, const void **data, size_t *size)
{
  const EtNamedBlob *blob;

  if (context == NULL || key == NULL || data == NULL || size == NULL)
    return ET_ERROR_INVALID_ARGUMENT;
  blob = _et_program_named_blob (context->program, key);
  if (blob == NULL)
    return ET_ERROR_NOT_FOUND;
  *data = blob->data;
  *size = blob->size;
  return ET_OK;
}

bool
et_backend_init_context_allows_native_code (EtBackendInitContext *context)
{
  return context != NULL && _et_program_get_allow_native_code (context->program);
}

EtErrorContext *
et_backend_init_context_error (EtBackendInitContext *context)
{
  return context != NULL ? &context->error : NULL;
}

const char *
et_backend_execute_context_method_name (EtBackendExecuteContext *context)
{
  return context != NULL ? context->method_name : NULL;
}

EtErrorContext *
et_backend_execute_context_error (EtBackendExecuteContext *context)
{
  return context != NULL ? &context->scratch.error : NULL;
}

void *
et_backend_execute_context_scratch (EtBackendExecuteContext *context, size_t nbytes)
{
  return et_kernel_context_scratch (context != NULL ? &context->scratch : NULL, nbytes);
}
