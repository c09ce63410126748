/* error-context.c: how plug-ins report failures (EtErrorContext)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A code and a heap message of any length: nothing a plug-in says is cut.
 * The engine embeds one in each call context and turns it into a GError
 * with _et_error_context_take().
 */
#include "error-context.h"

#include <stdarg.h>

EtError
et_error_context_fail (EtErrorContext *error, EtError code, const char *format, ...)
{
  va_list args;

  if (code == ET_OK)
    code = ET_ERROR_INTERNAL;
  if (error == NULL)
    return code;
  g_free (error->message);
  va_start (args, format);
  error->message = format != NULL ? g_strdup_vprintf (format, args) : NULL;
  va_end (args);
  error->code = code;
  return code;
}

EtErrorContext *
et_error_context_new (void)
{
  return g_new0 (EtErrorContext, 1);
}

void
et_error_context_free (EtErrorContext *error)
{
  if (error == NULL)
    return;
  _et_error_context_clear (error);
  g_free (error);
}

EtError
et_error_context_code (const EtErrorContext *error)
{
  return error != NULL ? error->code : ET_OK;
}

const char *
et_error_context_message (const EtErrorContext *error)
{
  return error != NULL && error->message != NULL ? error->message : "";
}

void
_et_error_context_clear (EtErrorContext *error)
{
  g_clear_pointer (&error->message, g_free);
  error->code = ET_OK;
}

void
_et_error_context_take (EtErrorContext *error, EtError code, GError **gerror, const char *format, ...)
{
  g_autofree char *context = NULL;
  va_list args;

  va_start (args, format);
  context = g_strdup_vprintf (format, args);
  va_end (args);
  if (code == ET_OK)
    code = error->code != ET_OK ? error->code : ET_ERROR_INTERNAL;
  _et_set_error (gerror, code, "%s%s", context,
                 error->message != NULL && error->message[0] != '\0' ? error->message : _et_error_name (code));
  _et_error_context_clear (error);
}
