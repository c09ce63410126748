/* session.c: one tracing session per Method: records timed events
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Events are appended as they end, so nested events come before the ones
 * that enclose them (the order upstream's ETDump has).  Load events carry
 * run index 0, each execution the next index.
 */
#include "profiler-private.h"

#include <string.h>
#include <time.h>

typedef struct
{
  const char *name; /* interned in the session's string chunk */
  const char *delegate;
  guint64 start;
  guint64 end;
  gint32 chain;
  gint32 instruction;
  guint32 kind;
  guint32 run;
} Event;

struct _EtpSession
{
  EtEventTracer tracer;
  GArray *events; /* Event */
  GStringChunk *strings;
  guint n_load_events;
  guint32 run;
  gboolean executed;
  guint64 load_start;
  guint64 execute_start;
  guint64 instruction_start;
  guint64 delegate_start;
  EtpClock clock;
  gpointer clock_data;
  GArray *debug_events; /* EtpDebugEvent */
  GByteArray *debug_buffer;
};

#define DEBUG_ALIGNMENT 64
/* Kernel outputs are copied up to this much in total per session. */
#define DEBUG_BUFFER_LIMIT ((gsize) 1 << 30)

static guint64
monotonic_ns (gpointer user_data)
{
  struct timespec now;

  clock_gettime (CLOCK_MONOTONIC, &now);
  return (guint64) now.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) now.tv_nsec;
}

static void
add_event (EtpSession *self, const char *name, const char *delegate, guint64 start, gint32 chain, gint32 instruction,
           guint32 kind)
{
  Event event = {
    .name = g_string_chunk_insert_const (self->strings, name != NULL ? name : ""),
    .delegate = delegate != NULL ? g_string_chunk_insert_const (self->strings, delegate) : NULL,
    .start = start,
    .end = self->clock (self->clock_data),
    .chain = chain,
    .instruction = instruction,
    .kind = kind,
    .run = self->run,
  };

  if (event.end < event.start)
    event.end = event.start;
  g_array_append_val (self->events, event);
  if (!self->executed)
    self->n_load_events = self->events->len;
}

static void
load_begin (void *user_data, const char *method_name)
{
  EtpSession *self = user_data;
  self->load_start = self->clock (self->clock_data);
}

static void
load_end (void *user_data, const char *method_name, EtError result)
{
  EtpSession *self = user_data;
  add_event (self, "Method::load", NULL, self->load_start, -1, 0, ET_EVENT_METHOD_LOAD);
}

static void
execute_begin (void *user_data, const char *method_name)
{
  EtpSession *self = user_data;
  self->executed = TRUE;
  self->run++;
  self->execute_start = self->clock (self->clock_data);
}

static void
execute_end (void *user_data, const char *method_name, EtError result)
{
  EtpSession *self = user_data;
  add_event (self, "Method::execute", NULL, self->execute_start, -1, 0, ET_EVENT_EXECUTE);
}

static void
instruction_begin (void *user_data, uint32_t chain, uint32_t instruction, const char *name)
{
  EtpSession *self = user_data;
  self->instruction_start = self->clock (self->clock_data);
}

static void
instruction_end (void *user_data, uint32_t chain, uint32_t instruction, const char *name)
{
  EtpSession *self = user_data;
  add_event (self, name, NULL, self->instruction_start, (gint32) chain, (gint32) instruction, ET_EVENT_INSTRUCTION);
}

static void
delegate_begin (void *user_data, uint32_t chain, uint32_t instruction, uint32_t delegate_index, const char *backend_id)
{
  EtpSession *self = user_data;
  self->delegate_start = self->clock (self->clock_data);
}

static void
delegate_end (void *user_data, uint32_t chain, uint32_t instruction, uint32_t delegate_index, const char *backend_id)
{
  EtpSession *self = user_data;
  add_event (self, backend_id, backend_id, self->delegate_start, (gint32) chain, (gint32) instruction,
             ET_EVENT_DELEGATE);
}

static void
intermediate_output (void *user_data, uint32_t chain, uint32_t instruction, const EtValue *value)
{
  EtpSession *self = user_data;
  const EtTensor *tensor;
  EtpDebugEvent event = { 0 };

  if (value == NULL || value->tag != ET_VALUE_TENSOR || value->u.tensor == NULL)
    return;
  tensor = value->u.tensor;
  event.run = self->run;
  event.chain = chain;
  event.instruction = (gint32) instruction;
  event.scalar_type = tensor->scalar_type;
  event.ndim = MIN (tensor->ndim, ET_MAX_DIMS);
  memcpy (event.sizes, tensor->sizes, sizeof event.sizes);
  memcpy (event.strides, tensor->strides, sizeof event.strides);
  event.offset = -1;
  if (tensor->device_type == ET_DEVICE_CPU && (tensor->data != NULL || tensor->nbytes == 0) &&
      self->debug_buffer->len + tensor->nbytes + DEBUG_ALIGNMENT <= DEBUG_BUFFER_LIMIT)
    {
      static const guint8 zeros[DEBUG_ALIGNMENT];
      guint pad = (DEBUG_ALIGNMENT - self->debug_buffer->len % DEBUG_ALIGNMENT) % DEBUG_ALIGNMENT;

      g_byte_array_append (self->debug_buffer, zeros, pad);
      event.offset = self->debug_buffer->len;
      if (tensor->nbytes > 0)
        g_byte_array_append (self->debug_buffer, tensor->data, (guint) tensor->nbytes);
    }
  g_array_append_val (self->debug_events, event);
}

void
_etp_session_set_debug_outputs (EtpSession *self, gboolean enable)
{
  self->tracer.intermediate_output = enable ? intermediate_output : NULL;
}

gsize
_etp_session_n_debug_events (EtpSession *self)
{
  return self->debug_events->len;
}

const EtpDebugEvent *
_etp_session_debug_event (EtpSession *self, gsize index)
{
  return index < self->debug_events->len ? &g_array_index (self->debug_events, EtpDebugEvent, index) : NULL;
}

const guint8 *
_etp_session_debug_buffer (EtpSession *self, gsize *size)
{
  *size = self->debug_buffer->len;
  return self->debug_buffer->data;
}

EtpSession *
_etp_session_new (void)
{
  EtpSession *self = g_new0 (EtpSession, 1);

  self->tracer.abi_version = ET_PLUGIN_ABI_VERSION;
  self->tracer.user_data = self;
  self->tracer.method_load_begin = load_begin;
  self->tracer.method_load_end = load_end;
  self->tracer.execute_begin = execute_begin;
  self->tracer.execute_end = execute_end;
  self->tracer.instruction_begin = instruction_begin;
  self->tracer.instruction_end = instruction_end;
  self->tracer.delegate_begin = delegate_begin;
  self->tracer.delegate_end = delegate_end;
  self->events = g_array_new (FALSE, FALSE, sizeof (Event));
  self->strings = g_string_chunk_new (256);
  self->debug_events = g_array_new (FALSE, FALSE, sizeof (EtpDebugEvent));
  self->debug_buffer = g_byte_array_new ();
  self->clock = monotonic_ns;
  return self;
}

void
_etp_session_free (EtpSession *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->events);
  g_array_unref (self->debug_events);
  g_byte_array_unref (self->debug_buffer);
  g_string_chunk_free (self->strings);
  g_free (self);
}

void
_etp_session_set_clock (EtpSession *self, EtpClock clock, gpointer user_data)
{
  self->clock = clock != NULL ? clock : monotonic_ns;
  self->clock_data = user_data;
}

const EtEventTracer *
_etp_session_tracer (EtpSession *self)
{
  return &self->tracer;
}

void
_etp_session_clear (EtpSession *self)
{
  /* Names stay in the chunk: records handed out before stay readable. */
  g_array_set_size (self->events, self->n_load_events);
  g_array_set_size (self->debug_events, 0);
  g_byte_array_set_size (self->debug_buffer, 0);
  self->run = 0;
}

gsize
_etp_session_n_events (EtpSession *self)
{
  return self->events->len;
}

gboolean
_etp_session_get_event (EtpSession *self, gsize index, EtEventRecord *record)
{
  const Event *event;

  if (index >= self->events->len || record == NULL)
    return FALSE;
  event = &g_array_index (self->events, Event, index);
  *record = (EtEventRecord){
    .name = event->name,
    .delegate = event->delegate,
    .start_ns = event->start,
    .duration_ns = event->end - event->start,
    .chain_index = event->kind == ET_EVENT_INSTRUCTION || event->kind == ET_EVENT_DELEGATE ? event->chain : -1,
    .instruction_index =
        event->kind == ET_EVENT_INSTRUCTION || event->kind == ET_EVENT_DELEGATE ? event->instruction : -1,
    .kind = event->kind,
    .run_index = event->run,
  };
  return TRUE;
}

gboolean
_etp_session_peek (EtpSession *self, gsize index, const char **name, const char **delegate, guint64 *start,
                   guint64 *end, gint32 *chain, gint32 *instruction, guint32 *run)
{
  const Event *event;

  if (index >= self->events->len)
    return FALSE;
  event = &g_array_index (self->events, Event, index);
  *name = event->name;
  *delegate = event->delegate;
  *start = event->start;
  *end = event->end;
  *chain = event->chain;
  *instruction = event->instruction;
  *run = event->run;
  return TRUE;
}
