/* switch.c: the one switch that turns this library's load-time rewrites off
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * EXECUTORCH_KERNELS_NO_REWRITES=1 makes every method run as it was
 * exported: to compare against the rewritten method, or to see every
 * intermediate a fusion no longer writes.  Read at each method load (a
 * test can load the same program both ways); ignored in setuid processes
 * like the library's other switches.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* secure_getenv */
#endif
#include "rewrites-private.h"

#include <stdlib.h>
#include <string.h>

bool
_executorch_rewrites_enabled (void)
{
  const char *off = secure_getenv ("EXECUTORCH_KERNELS_NO_REWRITES");

  return off == NULL || off[0] == '\0' || strcmp (off, "0") == 0;
}
