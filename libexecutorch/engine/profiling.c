/* profiling.c: a method's profiling session with the profiler plug-in
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one place that calls the profiler's vtable: the GObject Method asks
 * this small object for its tracer, its events and its ETDump.
 */
#include "engine.h"
#include "provider-hints.h"

#include <stdlib.h>

struct _EtProfiling
{
  const EtProfiler *profiler;
  void *session;
  const EtEventTracer *tracer;
  char *method_name; /* for messages */
};

EtProfiling *
_et_profiling_new (const char *method_name, GError **error)
{
  const EtProfiler *profiler;
  EtProfiling *profiling;
  EtError code;

  profiler = _et_registry_find_profiler ();
  if (profiler == NULL)
    {
      g_autofree char *hint = _et_profiler_hint ();
      _et_set_error (error, ET_ERROR_NOT_SUPPORTED, "[method %s][profile] no profiler is installed%s", method_name,
                     hint);
      return NULL;
    }
  profiling = g_new0 (EtProfiling, 1);
  profiling->profiler = profiler;
  code = profiler->session_new (profiler->user_data, &profiling->session, &profiling->tracer);
  if (code != ET_OK)
    {
      g_free (profiling);
      _et_set_error (error, code, "[method %s][profile] the profiler could not start: %s", method_name,
                     _et_error_name (code));
      return NULL;
    }
  profiling->method_name = g_strdup (method_name);
  return profiling;
}

void
_et_profiling_free (EtProfiling *profiling)
{
  if (profiling == NULL)
    return;
  profiling->profiler->session_free (profiling->profiler->user_data, profiling->session);
  g_free (profiling->method_name);
  g_free (profiling);
}

const EtEventTracer *
_et_profiling_tracer (EtProfiling *profiling)
{
  return profiling->tracer;
}

size_t
_et_profiling_n_events (EtProfiling *profiling)
{
  return profiling->profiler->n_events (profiling->profiler->user_data, profiling->session);
}

gboolean
_et_profiling_get_event (EtProfiling *profiling, size_t index, EtEventRecord *record)
{
  return profiling->profiler->get_event (profiling->profiler->user_data, profiling->session, index, record);
}

void
_et_profiling_clear (EtProfiling *profiling)
{
  if (profiling->profiler->session_clear != NULL)
    profiling->profiler->session_clear (profiling->profiler->user_data, profiling->session);
}

/* @write's bytes (malloc'd by the plug-in) as GBytes. */
static GBytes *
written_bytes (EtProfiling *profiling, EtError (*write) (void *, void *, uint8_t **, size_t *), const char *what,
               GError **error)
{
  uint8_t *data = NULL;
  size_t size = 0;
  EtError code = write (profiling->profiler->user_data, profiling->session, &data, &size);
  GBytes *bytes;

  if (code != ET_OK)
    {
      _et_set_error (error, code, "[method %s][%s] %s", profiling->method_name, what, _et_error_name (code));
      return NULL;
    }
  bytes = g_bytes_new (data, size);
  free (data);
  return bytes;
}

GBytes *
_et_profiling_etdump (EtProfiling *profiling, GError **error)
{
  if (profiling->profiler->write_etdump == NULL)
    {
      _et_set_error (error, ET_ERROR_NOT_SUPPORTED, "[method %s][etdump] the profiler %s cannot write an ETDump",
                     profiling->method_name, profiling->profiler->name);
      return NULL;
    }
  return written_bytes (profiling, profiling->profiler->write_etdump, "etdump", error);
}

GBytes *
_et_profiling_debug_buffer (EtProfiling *profiling, GError **error)
{
  if (profiling->profiler->write_debug_buffer == NULL)
    return g_bytes_new (NULL, 0);
  return written_bytes (profiling, profiling->profiler->write_debug_buffer, "profile", error);
}

gboolean
_et_profiling_record_outputs (EtProfiling *profiling, gboolean record, GError **error)
{
  EtError code;

  if (profiling->profiler->set_debug_outputs == NULL)
    {
      _et_set_error (error, ET_ERROR_NOT_SUPPORTED, "[method %s][profile] the profiler %s cannot record outputs",
                     profiling->method_name, profiling->profiler->name);
      return FALSE;
    }
  code = profiling->profiler->set_debug_outputs (profiling->profiler->user_data, profiling->session, record);
  if (code != ET_OK)
    {
      _et_set_error (error, code, "[method %s][profile] %s", profiling->method_name, _et_error_name (code));
      return FALSE;
    }
  return TRUE;
}
