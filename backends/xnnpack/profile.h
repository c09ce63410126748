/* profile.h: time per XNNPACK operator (EXECUTORCH_XNNPACK_PROFILE), see profile.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <xnnpack.h>

typedef struct _XbProfile XbProfile;

/* %NULL unless EXECUTORCH_XNNPACK_PROFILE is set and the installed XNNPACK
 * can time its operators; every call below accepts %NULL and does nothing. */
XbProfile *xb_profile_new (void);
/* Flags for xnn_create_runtime_*: XNN_FLAG_BASIC_PROFILING when profiling. */
uint32_t xb_profile_runtime_flags (const XbProfile *profile);
/* After xnn_invoke_runtime: adds each operator's time of that run.  @step
 * names the runtime's step when the delegate has more than one, else -1. */
void xb_profile_add_runtime (XbProfile *profile, int step, xnn_runtime_t runtime);
/* After each execution: whether it ran on the thread pool. */
void xb_profile_count_execution (XbProfile *profile, gboolean pooled);
/* Prints the totals to stderr, largest first, and frees @profile. */
void xb_profile_report_and_free (XbProfile *profile);
