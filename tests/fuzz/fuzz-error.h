/* fuzz-error.h: how every fuzz target checks a failure (private to tests/fuzz)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

/* Every failure must be a GError with a message (G_MESSAGES_DEBUG=all
 * shows them). */
#define FUZZ_CHECK_ERROR(error)                                                            \
  G_STMT_START                                                                             \
  {                                                                                        \
    g_assert ((error) != NULL && (error)->message != NULL && (error)->message[0] != '\0'); \
    g_debug ("%s", (error)->message);                                                      \
    g_clear_error (&(error));                                                              \
  }                                                                                        \
  G_STMT_END
