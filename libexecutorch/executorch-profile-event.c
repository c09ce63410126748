/* executorch-profile-event.c: one timed event recorded by the profiler
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-private.h"

/**
 * ExecutorchProfileEvent:
 *
 * One event recorded while a profiled [class@Executorch.Method] loaded or
 * executed: a kernel or other instruction, a delegate call, the method's
 * load or a whole execution.  Times are nanoseconds of `CLOCK_MONOTONIC`.
 *
 * Instruction and delegate events carry their chain and instruction
 * index; method-level events (`Method::load`, `Method::execute`) have -1
 * for both.  Events come from
 * [method@Executorch.Method.get_profile_events]; they are immutable and
 * MT safe to read.
 *
 * Since: 1.0
 */
struct _ExecutorchProfileEvent
{
  char *name;
  char *delegate;
  guint64 start;
  guint64 duration;
  gint chain_index;
  gint instruction_index;
  guint run_index;
};

G_DEFINE_BOXED_TYPE (ExecutorchProfileEvent, executorch_profile_event, executorch_profile_event_ref,
                     executorch_profile_event_unref)

ExecutorchProfileEvent *
_executorch_profile_event_new (const EtEventRecord *record)
{
  ExecutorchProfileEvent *event = g_atomic_rc_box_new0 (ExecutorchProfileEvent);

  event->name = g_strdup (record->name != NULL ? record->name : "");
  event->delegate = g_strdup (record->delegate);
  event->start = record->start_ns;
  event->duration = record->duration_ns;
  event->chain_index = record->chain_index;
  event->instruction_index = record->instruction_index;
  event->run_index = record->run_index;
  return event;
}

static void
clear_event (gpointer data)
{
  ExecutorchProfileEvent *event = data;

  g_free (event->name);
  g_free (event->delegate);
}

/**
 * executorch_profile_event_ref:
 * @event: an event
 *
 * Takes a reference to @event. Events are immutable, so a reference may be
 * passed to another thread.
 *
 * Returns: (transfer full): @event, with one more reference
 *
 * Since: 1.0
 */
ExecutorchProfileEvent *
executorch_profile_event_ref (ExecutorchProfileEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);

  return g_atomic_rc_box_acquire (event);
}

/**
 * executorch_profile_event_unref:
 * @event: (transfer full): an event
 *
 * Drops a reference; the last one frees the event.
 *
 * Since: 1.0
 */
void
executorch_profile_event_unref (ExecutorchProfileEvent *event)
{
  g_return_if_fail (event != NULL);

  g_atomic_rc_box_release_full (event, clear_event);
}

/**
 * executorch_profile_event_get_name:
 * @event: an event
 *
 * The operator for a kernel call (`aten::add.out`), `DELEGATE_CALL`,
 * `MOVE_CALL`, `JF_CALL` or `FREE_CALL` for other instructions, the backend
 * id for time spent inside a backend, and `Method::load` or
 * `Method::execute` for method-level events.
 *
 * Returns: (transfer none): the event's name; owned by @event
 *
 * Since: 1.0
 */
const char *
executorch_profile_event_get_name (ExecutorchProfileEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);

  return event->name;
}

/**
 * executorch_profile_event_get_start:
 * @event: an event
 *
 * Gets the time the event began, on the monotonic clock.
 *
 * Returns: when the event began, in nanoseconds of `CLOCK_MONOTONIC`
 *
 * Since: 1.0
 */
guint64
executorch_profile_event_get_start (ExecutorchProfileEvent *event)
{
  g_return_val_if_fail (event != NULL, 0);

  return event->start;
}

/**
 * executorch_profile_event_get_duration:
 * @event: an event
 *
 * Gets how long the event took.
 *
 * Returns: how long the event took, in nanoseconds
 *
 * Since: 1.0
 */
guint64
executorch_profile_event_get_duration (ExecutorchProfileEvent *event)
{
  g_return_val_if_fail (event != NULL, 0);

  return event->duration;
}

/**
 * executorch_profile_event_get_chain_index:
 * @event: an event
 *
 * Gets the index of the chain the event's instruction belongs to. Most
 * programs have one chain, 0.
 *
 * Returns: the chain of the instruction, or -1 for a method-level event
 *
 * Since: 1.0
 */
gint
executorch_profile_event_get_chain_index (ExecutorchProfileEvent *event)
{
  g_return_val_if_fail (event != NULL, -1);

  return event->chain_index;
}

/**
 * executorch_profile_event_get_instruction_index:
 * @event: an event
 *
 * Gets the index of the event's instruction within its chain.
 *
 * Returns: the instruction's index in its chain, or -1 for a method-level
 *   event
 *
 * Since: 1.0
 */
gint
executorch_profile_event_get_instruction_index (ExecutorchProfileEvent *event)
{
  g_return_val_if_fail (event != NULL, -1);

  return event->instruction_index;
}

/**
 * executorch_profile_event_get_delegate:
 * @event: an event
 *
 * Gets the id of the backend a delegate call ran on, for events that time a
 * call into a delegate.
 *
 * Returns: (transfer none) (nullable): the backend id ("XnnpackBackend")
 *   for time spent inside a delegate, else %NULL; owned by @event
 *
 * Since: 1.0
 */
const char *
executorch_profile_event_get_delegate (ExecutorchProfileEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);

  return event->delegate;
}

/**
 * executorch_profile_event_get_run_index:
 * @event: an event
 *
 * Gets which load or execution of the method the event belongs to.
 *
 * Returns: 0 for the method's load, 1 for the first execution recorded,
 *   2 for the next, and so on
 *
 * Since: 1.0
 */
guint
executorch_profile_event_get_run_index (ExecutorchProfileEvent *event)
{
  g_return_val_if_fail (event != NULL, 0);

  return event->run_index;
}
