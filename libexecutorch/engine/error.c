/* error.c: the one place runtime error codes become GErrors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "engine.h"

#include "../executorch-error.h"

/**
 * executorch_error_quark:
 *
 * Gets the quark of the runtime's error domain, %EXECUTORCH_ERROR.  Use the
 * macro rather than calling this function.
 *
 * Returns: the error domain of [error@Executorch.Error]
 *
 * Since: 1.0
 */
/* The quark name is a string, not an expression. */
/* clang-format off */
G_DEFINE_QUARK (executorch-error-quark, executorch_error)
/* clang-format on */

/**
 * executorch_plugin_error_quark:
 *
 * Gets the quark of the plug-in loading error domain,
 * %EXECUTORCH_PLUGIN_ERROR.  Use the macro rather than calling this
 * function.
 *
 * Returns: the error domain of [error@Executorch.PluginError]
 *
 * Since: 1.0
 */
/* The quark name is a string, not an expression. */
/* clang-format off */
G_DEFINE_QUARK (executorch-plugin-error-quark, executorch_plugin_error)
/* clang-format on */

GQuark
_et_error_quark (void)
{
  return executorch_error_quark ();
}

const char *
_et_error_name (EtError code)
{
  switch (code)
    {
      case ET_OK: return "ok";
      case ET_ERROR_INTERNAL: return "internal error";
      case ET_ERROR_INVALID_STATE: return "invalid state";
      case ET_ERROR_END_OF_METHOD: return "end of method";
      case ET_ERROR_ALREADY_LOADED: return "already loaded";
      case ET_ERROR_NOT_SUPPORTED: return "not supported";
      case ET_ERROR_NOT_IMPLEMENTED: return "not implemented";
      case ET_ERROR_INVALID_ARGUMENT: return "invalid argument";
      case ET_ERROR_INVALID_TYPE: return "invalid type";
      case ET_ERROR_OPERATOR_MISSING: return "operator missing";
      case ET_ERROR_REGISTRATION_EXCEEDING_MAX_KERNELS: return "too many kernels";
      case ET_ERROR_REGISTRATION_ALREADY_REGISTERED: return "already registered";
      case ET_ERROR_NOT_FOUND: return "not found";
      case ET_ERROR_MEMORY_ALLOCATION_FAILED: return "memory allocation failed";
      case ET_ERROR_ACCESS_FAILED: return "access failed";
      case ET_ERROR_INVALID_PROGRAM: return "invalid program";
      case ET_ERROR_INVALID_EXTERNAL_DATA: return "invalid external data";
      case ET_ERROR_OUT_OF_RESOURCES: return "out of resources";
      case ET_ERROR_DELEGATE_INVALID_COMPATIBILITY: return "delegate payload incompatible";
      case ET_ERROR_DELEGATE_MEMORY_ALLOCATION_FAILED: return "delegate memory allocation failed";
      case ET_ERROR_DELEGATE_INVALID_HANDLE: return "invalid delegate handle";
      default: return "unknown error";
    }
}

/* Codes we do not know (a plug-in built against a newer ABI) map to FAILED. */
static gint
error_code_for (EtError code)
{
  switch (code)
    {
      case ET_ERROR_INTERNAL:
      case ET_ERROR_INVALID_STATE:
      case ET_ERROR_END_OF_METHOD:
      case ET_ERROR_ALREADY_LOADED:
      case ET_ERROR_NOT_SUPPORTED:
      case ET_ERROR_NOT_IMPLEMENTED:
      case ET_ERROR_INVALID_ARGUMENT:
      case ET_ERROR_INVALID_TYPE:
      case ET_ERROR_OPERATOR_MISSING:
      case ET_ERROR_REGISTRATION_EXCEEDING_MAX_KERNELS:
      case ET_ERROR_REGISTRATION_ALREADY_REGISTERED:
      case ET_ERROR_NOT_FOUND:
      case ET_ERROR_MEMORY_ALLOCATION_FAILED:
      case ET_ERROR_ACCESS_FAILED:
      case ET_ERROR_INVALID_PROGRAM:
      case ET_ERROR_INVALID_EXTERNAL_DATA:
      case ET_ERROR_OUT_OF_RESOURCES:
      case ET_ERROR_DELEGATE_INVALID_COMPATIBILITY:
      case ET_ERROR_DELEGATE_MEMORY_ALLOCATION_FAILED:
      case ET_ERROR_DELEGATE_INVALID_HANDLE: return (gint) code;
      default: return EXECUTORCH_ERROR_FAILED;
    }
}

/* The one place the library builds a GError: every message is checked (and
 * made) valid UTF-8, since names and paths in it may come from hostile files. */
static void
set_error_valist (GError **error, GQuark domain, gint code, const char *format, va_list args)
{
  g_autofree char *message = NULL;

  if (error == NULL)
    return;
  message = g_strdup_vprintf (format, args);
  if (!g_utf8_validate (message, -1, NULL))
    {
      char *valid = g_utf8_make_valid (message, -1);
      g_free (message);
      message = valid;
    }
  g_set_error_literal (error, domain, code, message);
}

void
_et_set_error (GError **error, EtError code, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  set_error_valist (error, EXECUTORCH_ERROR, error_code_for (code), format, args);
  va_end (args);
}

void
_et_set_error_domain (GError **error, GQuark domain, gint code, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  set_error_valist (error, domain, code, format, args);
  va_end (args);
}

void
_et_prefix_error (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *prefix = NULL;

  if (error == NULL || *error == NULL)
    return;
  va_start (args, format);
  prefix = g_strdup_vprintf (format, args);
  va_end (args);
  if (!g_utf8_validate (prefix, -1, NULL))
    {
      char *valid = g_utf8_make_valid (prefix, -1);
      g_free (prefix);
      prefix = valid;
    }
  g_prefix_error (error, "%s", prefix);
}
