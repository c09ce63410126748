/* common-util.h: helpers several C test programs share that need only GLib
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

/* The contents of @dir/@name (a test error when it cannot be read). */
GBytes *read_file (const char *dir, const char *name);
/* The number of threads in this process (/proc/self/task). */
guint count_threads (void);
