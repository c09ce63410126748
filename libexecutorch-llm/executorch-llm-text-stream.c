/* executorch-llm-text-stream.c: a generation's text, pulled a piece at a time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-llm-text-stream.h"

#include "llm-generation.h"

/**
 * ExecutorchLlmTextStream:
 *
 * The text of one generation, made by [method@ExecutorchLlm.Generator.stream]
 * and pulled a piece at a time: each [method@ExecutorchLlm.TextStream.next]
 * runs the model just far enough for the next piece (whole UTF-8
 * characters, text that could start a stop string held back, as the
 * [signal@ExecutorchLlm.Generator::text] signal gives them), and
 * [method@ExecutorchLlm.TextStream.get] returns it.  It is the same
 * generation as [method@ExecutorchLlm.Generator.generate]'s, with the same
 * stop rules and signals; the generator refuses any other generation
 * (%EXECUTORCH_LLM_GENERATOR_ERROR_BUSY) until the stream ends or is
 * closed.
 *
 * ```c
 * g_autoptr (ExecutorchLlmTextStream) stream =
 *     executorch_llm_generator_stream (generator, "Once upon a time", config, &error);
 * while (stream != NULL && executorch_llm_text_stream_next (stream, NULL, &error))
 *   fputs (executorch_llm_text_stream_get (stream), stdout);
 * ```
 *
 [method@ExecutorchLlm.TextStream.close], or dropping the stream, ends the
 * generation exactly as [method@ExecutorchLlm.Generator.stop] does after
 * the last piece taken.  In Vala, `foreach (var piece in generator.stream
 * (prompt))` iterates over it (the loop's errors are those of `next`), and
 * leaving the loop, `break` included, ends the generation there (see
 * [method@ExecutorchLlm.TextStream.iterator]); Python's and GJS's overrides
 * make it iterable too.
 *
 * Since: 1.0
 */
/* What a stream and the iterators made from it share: the generation. */
typedef struct
{
  LlmGeneration *generation;
  GCancellable *cancellable;
  char *piece;
  gint running;         /* atomic: a next() is in progress */
  gint close_requested; /* atomic: close() came during one */
} State;

static void
state_clear (State *state)
{
  g_clear_pointer (&state->generation, _llm_generation_free);
  g_clear_object (&state->cancellable);
  g_free (state->piece);
}

struct _ExecutorchLlmTextStream
{
  GObject parent_instance;

  State *state; /* a g_rc_box */
  gboolean is_iterator;
};

G_DEFINE_FINAL_TYPE (ExecutorchLlmTextStream, executorch_llm_text_stream, G_TYPE_OBJECT)

static void
executorch_llm_text_stream_finalize (GObject *object)
{
  ExecutorchLlmTextStream *self = EXECUTORCH_LLM_TEXT_STREAM (object);
  /* Vala's foreach drops its iterator when the loop ends, `break`
   * included, but the stream only at the end of the block. */
  if (self->is_iterator)
    executorch_llm_text_stream_close (self);
  g_rc_box_release_full (self->state, (GDestroyNotify) state_clear);
  G_OBJECT_CLASS (executorch_llm_text_stream_parent_class)->finalize (object);
}

static void
executorch_llm_text_stream_class_init (ExecutorchLlmTextStreamClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = executorch_llm_text_stream_finalize;
}

static void
executorch_llm_text_stream_init (ExecutorchLlmTextStream *self)
{
}

ExecutorchLlmTextStream *
_executorch_llm_text_stream_new (LlmGeneration *g, GCancellable *cancellable)
{
  ExecutorchLlmTextStream *self = g_object_new (EXECUTORCH_LLM_TYPE_TEXT_STREAM, NULL);
  self->state = g_rc_box_new0 (State);
  self->state->generation = g;
  self->state->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  return self;
}

static gboolean
begin_running (ExecutorchLlmTextStream *self, GError **error)
{
  if (g_atomic_int_compare_and_exchange (&self->state->running, FALSE, TRUE))
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PENDING, "the text stream is already getting its next piece");
  return FALSE;
}

/* Ends a next(): a close() that came meanwhile takes effect now. */
static void
end_running (ExecutorchLlmTextStream *self)
{
  g_atomic_int_set (&self->state->running, FALSE);
  if (g_atomic_int_get (&self->state->close_requested))
    executorch_llm_text_stream_close (self);
}

/* The work of next(), in the caller's thread or a worker: signals go to
 * @context. */
static gboolean
advance (ExecutorchLlmTextStream *self, GMainContext *context, GError **error)
{
  char *piece = NULL;
  gboolean ok = !g_atomic_int_get (&self->state->close_requested) &&
                _llm_generation_next (self->state->generation, context, self->state->cancellable, &piece, error);
  g_free (self->state->piece);
  self->state->piece = piece;
  return ok && piece != NULL;
}

/**
 * executorch_llm_text_stream_next:
 * @stream: a text stream
 * @error: return location for a #GError, or %NULL
 *
 * Runs the generation until its next piece of text (the first call runs
 * the prompt through the model; with
 * [property@ExecutorchLlm.GenerationConfig:echo] the prompt is the first
 * piece).  The generator's [signal@ExecutorchLlm.Generator::token] and
 * [signal@ExecutorchLlm.Generator::text] signals are emitted on the way.
 *
 * Cancelling the stream's cancellable (given to
 * [method@ExecutorchLlm.Generator.stream]) ends the generation with
 * %G_IO_ERROR_CANCELLED, as [method@ExecutorchLlm.Generator.generate]'s
 * cancellable does.
 *
 * Returns: %TRUE with the piece in [method@ExecutorchLlm.TextStream.get];
 *   %FALSE at the end of the text, after a close, or with @error set: the
 *   errors of [method@ExecutorchLlm.Generator.generate] (the generation
 *   has ended then), or %G_IO_ERROR_PENDING while another call runs
 *
 * Since: 1.0
 */
gboolean
executorch_llm_text_stream_next (ExecutorchLlmTextStream *stream, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TEXT_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (!begin_running (stream, error))
    return FALSE;
  gboolean more = advance (stream, NULL, error);
  end_running (stream);
  return more;
}

static void
next_in_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  ExecutorchLlmTextStream *self = source;
  GError *error = NULL;
  gboolean more = advance (self, data, &error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, more);
}

static void
next_done (GObject *source, GAsyncResult *result, gpointer data)
{
  GTask *outer = data;
  end_running (EXECUTORCH_LLM_TEXT_STREAM (source));
  GError *error = NULL;
  gboolean more = g_task_propagate_boolean (G_TASK (result), &error);
  if (error != NULL)
    g_task_return_error (outer, error);
  else
    g_task_return_boolean (outer, more);
  g_object_unref (outer);
}

/**
 * executorch_llm_text_stream_next_async:
 * @stream: a text stream
 * @callback: (scope async) (closure user_data): called with the next piece
 * @user_data: data for @callback
 *
 * Runs [method@ExecutorchLlm.TextStream.next] in a worker thread; the
 * generator's signals are emitted in the caller's thread-default main
 * context, before @callback.  Finish it with
 * [method@ExecutorchLlm.TextStream.next_finish].
 *
 * Since: 1.0
 */
void
executorch_llm_text_stream_next_async (ExecutorchLlmTextStream *stream, GAsyncReadyCallback callback,
                                       gpointer user_data)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_TEXT_STREAM (stream));
  GTask *outer = g_task_new (stream, NULL, callback, user_data);
  g_task_set_source_tag (outer, executorch_llm_text_stream_next_async);
  GError *error = NULL;
  if (!begin_running (stream, &error))
    {
      g_task_return_error (outer, error);
      g_object_unref (outer);
      return;
    }
  /* An inner task, so that end_running() happens in the caller's thread
   * before @callback sees the stream. */
  g_autoptr (GTask) inner = g_task_new (stream, NULL, next_done, outer);
  g_task_set_task_data (inner, g_main_context_ref_thread_default (), (GDestroyNotify) g_main_context_unref);
  g_task_run_in_thread (inner, next_in_thread);
}

/**
 * executorch_llm_text_stream_next_finish:
 * @stream: a text stream
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes [method@ExecutorchLlm.TextStream.next_async].
 *
 * Returns: as [method@ExecutorchLlm.TextStream.next]
 *
 * Since: 1.0
 */
gboolean
executorch_llm_text_stream_next_finish (ExecutorchLlmTextStream *stream, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TEXT_STREAM (stream), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * executorch_llm_text_stream_get:
 * @stream: a text stream
 *
 * Gets the piece the last successful [method@ExecutorchLlm.TextStream.next]
 * produced.
 *
 * Returns: (nullable): the piece, never empty; %NULL before the first
 *   piece and after the end
 *
 * Since: 1.0
 */
const char *
executorch_llm_text_stream_get (ExecutorchLlmTextStream *stream)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TEXT_STREAM (stream), NULL);
  return stream->state->piece;
}

/**
 * executorch_llm_text_stream_get_stop_reason:
 * @stream: a text stream
 *
 * Gets why the generation ended.
 *
 * Returns: the reason (%EXECUTORCH_LLM_STOP_REASON_STOPPED after an early
 *   close); %EXECUTORCH_LLM_STOP_REASON_NONE while it runs and after a
 *   failure
 *
 * Since: 1.0
 */
ExecutorchLlmStopReason
executorch_llm_text_stream_get_stop_reason (ExecutorchLlmTextStream *stream)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TEXT_STREAM (stream), EXECUTORCH_LLM_STOP_REASON_NONE);
  if (g_atomic_int_get (&stream->state->running))
    return EXECUTORCH_LLM_STOP_REASON_NONE;
  return _llm_generation_get_stop_reason (stream->state->generation);
}

/**
 * executorch_llm_text_stream_close:
 * @stream: a text stream
 *
 * Ends the generation after the last piece taken, exactly as
 * [method@ExecutorchLlm.Generator.stop] would have there (the stop reason
 * becomes %EXECUTORCH_LLM_STOP_REASON_STOPPED, the conversation can go
 * on), and frees the generator for another generation.  Text not taken
 * is dropped; later calls of [method@ExecutorchLlm.TextStream.next] return
 * %FALSE.  After the end, or a second time, it does nothing.  During
 * [method@ExecutorchLlm.TextStream.next_async] the generation ends when
 * that call returns, with no piece.  Dropping the last reference closes
 * the stream too.
 *
 * Since: 1.0
 */
void
executorch_llm_text_stream_close (ExecutorchLlmTextStream *stream)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_TEXT_STREAM (stream));
  g_atomic_int_set (&stream->state->close_requested, TRUE);
  if (!g_atomic_int_compare_and_exchange (&stream->state->running, FALSE, TRUE))
    {
      executorch_llm_generator_stop (_llm_generation_get_generator (stream->state->generation));
      return;
    }
  _llm_generation_close (stream->state->generation);
  g_clear_pointer (&stream->state->piece, g_free);
  g_atomic_int_set (&stream->state->running, FALSE);
}

/**
 * executorch_llm_text_stream_iterator:
 * @stream: a text stream
 *
 * Makes an iterator for Vala's `foreach`, which iterates over what
 * `iterator ()` returns with its `next ()` and `get ()`: another
 * #ExecutorchLlmTextStream on the same generation (a piece taken from one
 * is taken from both) that closes the generation when its last reference
 * is dropped, so that leaving the loop early ends the generation there.
 *
 * Returns: (transfer full): the iterator
 *
 * Since: 1.0
 */
ExecutorchLlmTextStream *
executorch_llm_text_stream_iterator (ExecutorchLlmTextStream *stream)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TEXT_STREAM (stream), NULL);
  ExecutorchLlmTextStream *iterator = g_object_new (EXECUTORCH_LLM_TYPE_TEXT_STREAM, NULL);
  iterator->state = g_rc_box_acquire (stream->state);
  iterator->is_iterator = TRUE;
  return iterator;
}
