/* profiler-private.h: tracing sessions and the ETDump writer (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API 1
#include "executorch-plugin.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct _EtpSession EtpSession;

/* Nanoseconds; the default reads CLOCK_MONOTONIC.  Tests inject their own. */
typedef guint64 (*EtpClock) (gpointer user_data);

EtpSession *_etp_session_new (void);
void _etp_session_free (EtpSession *session);
void _etp_session_set_clock (EtpSession *session, EtpClock clock, gpointer user_data);
/* Owned by the session. */
const EtEventTracer *_etp_session_tracer (EtpSession *session);
/* Forgets the executions recorded so far; load events stay. */
void _etp_session_clear (EtpSession *session);
gsize _etp_session_n_events (EtpSession *session);
gboolean _etp_session_get_event (EtpSession *session, gsize index, EtEventRecord *record);

/* Kernel outputs as debug events (off by default). */
void _etp_session_set_debug_outputs (EtpSession *session, gboolean enable);
/* The debug events of run @run (in recording order) and the buffer their
 * tensor data is in (each blob 64-byte aligned). */
typedef struct
{
  guint32 run;
  guint32 chain;
  gint32 instruction;
  gint8 scalar_type;
  guint32 ndim;
  gint64 sizes[ET_MAX_DIMS];
  gint64 strides[ET_MAX_DIMS];
  gint64 offset; /* into the debug buffer; -1 when the data was not copied */
} EtpDebugEvent;
gsize _etp_session_n_debug_events (EtpSession *session);
const EtpDebugEvent *_etp_session_debug_event (EtpSession *session, gsize index);
const guint8 *_etp_session_debug_buffer (EtpSession *session, gsize *size);

/* Raw access in recording order (for the writer); chain and instruction
 * are as recorded (-1 and 0 for method-level events, as upstream writes). */
gboolean _etp_session_peek (EtpSession *session, gsize index, const char **name, const char **delegate, guint64 *start,
                            guint64 *end, gint32 *chain, gint32 *instruction, guint32 *run);

/* The recorded events as a size-prefixed ETDump ("ED00") buffer; g_free() it. */
guint8 *_etp_write_etdump (EtpSession *session, gsize *size);

G_END_DECLS
