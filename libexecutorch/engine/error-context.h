/* error-context.h: the EtErrorContext a plug-in reports through (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "engine.h"

struct EtErrorContext
{
  EtError code;  /* ET_OK: nothing recorded */
  char *message; /* NULL or any length */
};

/* Forgets what was recorded. */
void _et_error_context_clear (EtErrorContext *error);
/* Sets @gerror from a failure: @code (or, for ET_OK, the recorded one),
 * the printf-style prefix, then the recorded message (or the code's name),
 * and clears @error. */
void _et_error_context_take (EtErrorContext *error, EtError code, GError **gerror, const char *format, ...)
    G_GNUC_PRINTF (4, 5);
