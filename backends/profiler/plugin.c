/* plugin.c: the plug-in descriptor of libexecutorch-profiler
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's only exported symbol is executorch_profiler_get_plugin();
 * its init registers the process's profiler, which makes one tracing
 * session per profiled Method and writes sessions as ETDump.
 */
#include "profiler-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EXECUTORCH_PROFILER_VERSION
#define EXECUTORCH_PROFILER_VERSION "0.0.0"
#endif

static EtError
session_new (void *user_data, void **session, const EtEventTracer **tracer)
{
  EtpSession *self = _etp_session_new ();

  *session = self;
  *tracer = _etp_session_tracer (self);
  return ET_OK;
}

static void
session_free (void *user_data, void *session)
{
  _etp_session_free (session);
}

static void
session_clear (void *user_data, void *session)
{
  _etp_session_clear (session);
}

static size_t
n_events (void *user_data, void *session)
{
  return _etp_session_n_events (session);
}

static bool
get_event (void *user_data, void *session, size_t index, EtEventRecord *record)
{
  return _etp_session_get_event (session, index, record);
}

static EtError
write_etdump (void *user_data, void *session, uint8_t **data, size_t *size)
{
  gsize n;
  guint8 *buffer = _etp_write_etdump (session, &n);

  /* The ABI hands out malloc() memory. */
  *data = malloc (n > 0 ? n : 1);
  if (*data == NULL)
    {
      g_free (buffer);
      return ET_ERROR_MEMORY_ALLOCATION_FAILED;
    }
  memcpy (*data, buffer, n);
  *size = n;
  g_free (buffer);
  return ET_OK;
}

static EtError
set_debug_outputs (void *user_data, void *session, bool enable)
{
  _etp_session_set_debug_outputs (session, enable);
  return ET_OK;
}

static EtError
write_debug_buffer (void *user_data, void *session, uint8_t **data, size_t *size)
{
  gsize n;
  const guint8 *buffer = _etp_session_debug_buffer (session, &n);

  *data = malloc (n > 0 ? n : 1);
  if (*data == NULL)
    return ET_ERROR_MEMORY_ALLOCATION_FAILED;
  if (n > 0)
    memcpy (*data, buffer, n);
  *size = n;
  return ET_OK;
}

static const EtProfiler profiler = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "etdump",
  .session_new = session_new,
  .session_free = session_free,
  .session_clear = session_clear,
  .n_events = n_events,
  .get_event = get_event,
  .write_etdump = write_etdump,
  .set_debug_outputs = set_debug_outputs,
  .write_debug_buffer = write_debug_buffer,
};

static bool
profiler_init (EtRegistry *registry, EtErrorContext *error)
{
  return et_registry_add_profiler (registry, &profiler, error) == ET_OK;
}

static const EtPluginDesc plugin_desc = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "profiler",
  .version = EXECUTORCH_PROFILER_VERSION,
  .description = "Per-instruction and per-delegate timing, written as ETDump",
  .package = "libexecutorch-profiler0",
  .kind = ET_PLUGIN_PROFILER,
  .probe = NULL,
  .init = profiler_init,
};

ET_PLUGIN_EXPORT const EtPluginDesc *executorch_profiler_get_plugin (void);

ET_PLUGIN_EXPORT const EtPluginDesc *
executorch_profiler_get_plugin (void)
{
  return &plugin_desc;
}
