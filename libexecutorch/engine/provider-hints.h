/* provider-hints.h: what to install for a missing operator or backend (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The hint that ends a "no kernel is registered" message for the
 * @n_missing operator names: " (install PACKAGE)" when the plug-in that
 * provides them is absent, " (no installed library provides it)" when it
 * is loaded (or no known plug-in provides them), or both for a mixed set. */
char *_et_operator_hint (const char *const *missing, guint n_missing);

/* The same for a backend id that is not registered. */
char *_et_backend_hint (const char *id);

/* The same when no profiler is registered, or "" when the part catalogue
 * names no profiler. */
char *_et_profiler_hint (void);

G_END_DECLS
