/* test-text-stream.c: ExecutorchLlmTextStream, the generation pulled a piece at a time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * On the tiny llamas of tests/llm/models with the tokenizer made in
 * fake-tokenizer.h: a stream must give the pieces, text, signals, stop
 * reason and KV position generate() gives, and closing it mid-way must
 * leave the conversation exactly where stop() leaves it.
 */
#include "fake-tokenizer.h"
#include "tiny-llama.h"

/* What the generator's signals said, and the pieces a handler stops at. */
typedef struct
{
  GPtrArray *pieces; /* char * */
  GArray *tokens;    /* guint32 */
  guint stop_after;  /* pieces; 0: never */
} Recorder;

static void
on_text (ExecutorchLlmGenerator *g, const char *text, Recorder *r)
{
  g_ptr_array_add (r->pieces, g_strdup (text));
  if (r->stop_after > 0 && r->pieces->len == r->stop_after)
    executorch_llm_generator_stop (g);
}

static void
on_token (ExecutorchLlmGenerator *g, guint id, Recorder *r)
{
  guint32 v = id;
  g_array_append_val (r->tokens, v);
}

static Recorder *
recorder_new (ExecutorchLlmGenerator *g)
{
  Recorder *r = g_new0 (Recorder, 1);
  r->pieces = g_ptr_array_new_with_free_func (g_free);
  r->tokens = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_signal_connect (g, "text", G_CALLBACK (on_text), r);
  g_signal_connect (g, "token", G_CALLBACK (on_token), r);
  return r;
}

static void
recorder_free (ExecutorchLlmGenerator *g, Recorder *r)
{
  g_signal_handlers_disconnect_by_data (g, r);
  g_ptr_array_unref (r->pieces);
  g_array_unref (r->tokens);
  g_free (r);
}

static void
assert_same_pieces (GPtrArray *got, GPtrArray *want)
{
  g_assert_cmpuint (got->len, ==, want->len);
  for (guint i = 0; i < got->len; i++)
    g_assert_cmpstr (g_ptr_array_index (got, i), ==, g_ptr_array_index (want, i));
}

/* Pulls every piece; the stream must end cleanly. */
static GPtrArray *
pull_all (ExecutorchLlmTextStream *stream)
{
  g_autoptr (GError) error = NULL;
  GPtrArray *pieces = g_ptr_array_new_with_free_func (g_free);
  g_assert_cmpint (executorch_llm_text_stream_get_stop_reason (stream), ==, EXECUTORCH_LLM_STOP_REASON_NONE);
  while (executorch_llm_text_stream_next (stream, &error))
    {
      const char *piece = executorch_llm_text_stream_get (stream);
      g_assert_nonnull (piece);
      g_assert_cmpstr (piece, !=, "");
      g_ptr_array_add (pieces, g_strdup (piece));
    }
  g_assert_no_error (error);
  g_assert_null (executorch_llm_text_stream_get (stream));
  /* The end stays the end. */
  g_assert_false (executorch_llm_text_stream_next (stream, &error));
  g_assert_no_error (error);
  return pieces;
}

/* ---- the same generation as generate() ------------------------------------ */

typedef struct
{
  const char *model;
  gint64 eos;
  gint max_new;
  const char *stop_string; /* or NULL */
  gboolean echo;
  ExecutorchLlmStopReason reason;
} Case;

static const Case cases[] = {
  { "plain.pte", 429, -1, NULL, FALSE, EXECUTORCH_LLM_STOP_REASON_EOS },
  { "kv.pte", 257, 3, NULL, FALSE, EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS },
  { "kv.pte", 257, 0, NULL, FALSE, EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS },
  { "kv.pte", 257, -1, "oon", FALSE, EXECUTORCH_LLM_STOP_REASON_STOP_STRING },
  { "kv.pte", 257, -1, NULL, FALSE, EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL },
  { "nokv.pte", 257, -1, NULL, FALSE, EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL },
  { "static.pte", 257, 4, NULL, TRUE, EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS },
};

static void
test_same_as_generate (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, c->eos);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (c->max_new);
  const char *stops[] = { c->stop_string, NULL };
  if (c->stop_string != NULL)
    executorch_llm_generation_config_set_stop_strings (config, stops);
  executorch_llm_generation_config_set_echo (config, c->echo);

  /* generate(), twice: the second continues the conversation. */
  g_autoptr (ExecutorchLlmGenerator) a = make_generator (c->model, tok);
  Recorder *ra = recorder_new (a);
  g_autofree char *text = executorch_llm_generator_generate (a, "Hi", config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (a), ==, c->reason);
  guint position = executorch_llm_generator_get_position (a);

  /* The stream, on a generator of its own. */
  g_autoptr (ExecutorchLlmGenerator) b = make_generator (c->model, tok);
  Recorder *rb = recorder_new (b);
  g_autoptr (ExecutorchLlmTextStream) stream = executorch_llm_generator_stream (b, "Hi", config, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (GPtrArray) pieces = pull_all (stream);
  assert_same_pieces (pieces, ra->pieces);
  /* Its signals too. */
  assert_same_pieces (rb->pieces, ra->pieces);
  g_assert_cmpmem (rb->tokens->data, rb->tokens->len * 4, ra->tokens->data, ra->tokens->len * 4);
  g_autoptr (GString) joined = g_string_new (NULL);
  for (guint i = 0; i < pieces->len; i++)
    g_string_append (joined, g_ptr_array_index (pieces, i));
  g_assert_cmpstr (joined->str, ==, text);
  g_assert_cmpint (executorch_llm_text_stream_get_stop_reason (stream), ==, c->reason);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (b), ==, c->reason);
  g_assert_cmpuint (executorch_llm_generator_get_position (b), ==, position);

  /* Ended by itself, the stream left the generator free: both go on alike
   * (unless the context is full). */
  if (c->reason != EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL)
    {
      g_autoptr (ExecutorchLlmGenerationConfig) more = greedy_config (2);
      g_autofree char *next_a = executorch_llm_generator_generate (a, "a", more, NULL, &error);
      g_assert_no_error (error);
      g_autofree char *next_b = executorch_llm_generator_generate (b, "a", more, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (next_b, ==, next_a);
    }
  recorder_free (a, ra);
  recorder_free (b, rb);
}

/* ---- ending early ------------------------------------------------------------ */

/* Where generate() stopped by stop() after @k pieces leaves the
 * conversation: its position and the text an empty prompt continues with. */
static void
stopped_after (const char *model, guint k, guint *position, char **continued)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator (model, tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  Recorder *r = recorder_new (g);
  r->stop_after = k;
  g_autofree char *text = executorch_llm_generator_generate (g, "Hi", config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->pieces->len, ==, k);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_STOPPED);
  *position = executorch_llm_generator_get_position (g);
  recorder_free (g, r);
  g_autoptr (ExecutorchLlmGenerationConfig) more = greedy_config (4);
  *continued = executorch_llm_generator_generate (g, "", more, NULL, &error);
  g_assert_no_error (error);
}

static void
test_close_is_stop (gconstpointer data)
{
  const char *model = data;
  g_autoptr (GError) error = NULL;
  guint position;
  g_autofree char *continued = NULL;
  stopped_after (model, 3, &position, &continued);

  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator (model, tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  g_autoptr (ExecutorchLlmTextStream) stream = executorch_llm_generator_stream (g, "Hi", config, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_true (executorch_llm_text_stream_next (stream, &error));
      g_assert_no_error (error);
    }
  executorch_llm_text_stream_close (stream);
  g_assert_null (executorch_llm_text_stream_get (stream));
  g_assert_cmpint (executorch_llm_text_stream_get_stop_reason (stream), ==, EXECUTORCH_LLM_STOP_REASON_STOPPED);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_STOPPED);
  g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, position);
  /* Closed: no more pieces, and a second close does nothing. */
  g_assert_false (executorch_llm_text_stream_next (stream, &error));
  g_assert_no_error (error);
  executorch_llm_text_stream_close (stream);
  g_autoptr (ExecutorchLlmGenerationConfig) more = greedy_config (4);
  g_autofree char *text = executorch_llm_generator_generate (g, "", more, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, continued);
}

static void
test_stop_between_pieces (void)
{
  /* stop() between two next()s ends the stream where close() would. */
  g_autoptr (GError) error = NULL;
  guint position;
  g_autofree char *continued = NULL;
  stopped_after ("kv.pte", 2, &position, &continued);

  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  g_autoptr (ExecutorchLlmTextStream) stream = executorch_llm_generator_stream (g, "Hi", config, NULL, &error);
  g_assert_true (executorch_llm_text_stream_next (stream, &error));
  g_assert_true (executorch_llm_text_stream_next (stream, &error));
  executorch_llm_generator_stop (g);
  g_assert_false (executorch_llm_text_stream_next (stream, &error));
  g_assert_no_error (error);
  g_assert_cmpint (executorch_llm_text_stream_get_stop_reason (stream), ==, EXECUTORCH_LLM_STOP_REASON_STOPPED);
  g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, position);
  g_autoptr (ExecutorchLlmGenerationConfig) more = greedy_config (4);
  g_autofree char *text = executorch_llm_generator_generate (g, "", more, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, continued);
}

static void
test_drop_closes (void)
{
  /* The last reference dropped mid-way closes the stream. */
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  ExecutorchLlmTextStream *stream = executorch_llm_generator_stream (g, "Hi", config, NULL, &error);
  g_assert_true (executorch_llm_text_stream_next (stream, &error));
  g_object_unref (stream);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_STOPPED);
  g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, 2);
  g_autofree char *text = executorch_llm_generator_generate (g, "", config, NULL, &error);
  g_assert_no_error (error);
}

static void
test_iterator (void)
{
  /* Vala's foreach: the iterator shares the generation; dropping it ends
   * the generation though the stream lives on. */
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  g_autoptr (ExecutorchLlmTextStream) stream = executorch_llm_generator_stream (g, "Hi", config, NULL, &error);
  ExecutorchLlmTextStream *it = executorch_llm_text_stream_iterator (stream);
  g_assert_true (it != stream);
  g_assert_true (executorch_llm_text_stream_next (it, &error));
  g_assert_cmpstr (executorch_llm_text_stream_get (it), ==, "o");
  g_assert_cmpstr (executorch_llm_text_stream_get (stream), ==, "o");
  g_assert_true (executorch_llm_text_stream_next (stream, &error));
  g_object_unref (it);
  g_assert_cmpint (executorch_llm_text_stream_get_stop_reason (stream), ==, EXECUTORCH_LLM_STOP_REASON_STOPPED);
  g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, 3);
  g_assert_false (executorch_llm_text_stream_next (stream, &error));
  g_assert_no_error (error);

  /* The stream dropped first: its iterator goes on. */
  g_autoptr (ExecutorchLlmGenerator) h = make_generator ("kv.pte", tok);
  ExecutorchLlmTextStream *first = executorch_llm_generator_stream (h, "Hi", config, NULL, &error);
  g_autoptr (ExecutorchLlmTextStream) second = executorch_llm_text_stream_iterator (first);
  g_object_unref (first);
  g_assert_true (executorch_llm_text_stream_next (second, &error));
  g_assert_true (executorch_llm_text_stream_next (second, &error));
  g_assert_cmpint (executorch_llm_text_stream_get_stop_reason (second), ==, EXECUTORCH_LLM_STOP_REASON_NONE);
}

static void
test_cancel (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (ExecutorchLlmTextStream) stream = executorch_llm_generator_stream (g, "Hi", config, cancellable, &error);
  g_autoptr (GString) text = g_string_new (NULL);
  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (executorch_llm_text_stream_next (stream, &error));
      g_string_append (text, executorch_llm_text_stream_get (stream));
    }
  g_cancellable_cancel (cancellable);
  g_assert_false (executorch_llm_text_stream_next (stream, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_cmpint (executorch_llm_text_stream_get_stop_reason (stream), ==, EXECUTORCH_LLM_STOP_REASON_NONE);
  /* Ended: the two tokens sampled, the first fed; the generator is free
   * and goes on from there, as after generate()'s cancellation. */
  g_assert_false (executorch_llm_text_stream_next (stream, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, 3);
  g_autoptr (ExecutorchLlmGenerationConfig) more = greedy_config (3);
  g_autofree char *rest = executorch_llm_generator_generate (g, "", more, NULL, &error);
  g_assert_no_error (error);
  g_string_append (text, rest);

  g_autoptr (ExecutorchLlmGenerator) fresh = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) five = greedy_config (5);
  g_autofree char *whole = executorch_llm_generator_generate (fresh, "Hi", five, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text->str, ==, whole);
}

static void
test_errors_from_next (void)
{
  /* The prompt's errors come from the first next(), which ends the stream. */
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmTextStream) empty = executorch_llm_generator_stream (g, "", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (executorch_llm_text_stream_next (empty, &error));
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_EMPTY_PROMPT);
  g_clear_error (&error);
  g_autoptr (ExecutorchLlmTextStream) long_one =
      executorch_llm_generator_stream (g, "a prompt longer than the context", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (executorch_llm_text_stream_next (long_one, &error));
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_PROMPT_TOO_LONG);
  g_clear_error (&error);
  g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, 0);
}

static void
test_busy (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (2);
  g_autoptr (ExecutorchLlmTextStream) stream = executorch_llm_generator_stream (g, "Hi", config, NULL, &error);
  g_assert_no_error (error);

  /* Open, even before its first piece: no other generation. */
  g_autofree char *text = executorch_llm_generator_generate (g, "a", NULL, NULL, &error);
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_BUSY);
  g_assert_null (text);
  g_clear_error (&error);
  g_assert_true (executorch_llm_text_stream_next (stream, &error));
  g_autoptr (ExecutorchLlmTextStream) second = executorch_llm_generator_stream (g, "a", NULL, NULL, &error);
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_BUSY);
  g_assert_null (second);
  g_clear_error (&error);

  /* Ended by its last piece: free again, without a close. */
  g_autoptr (GPtrArray) rest = pull_all (stream);
  g_assert_cmpuint (rest->len, ==, 1);
  g_autofree char *after = executorch_llm_generator_generate (g, "a", config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (after, !=, "");
}

/* ---- asynchronous -------------------------------------------------------------- */

typedef struct
{
  GMainLoop *loop;
  ExecutorchLlmTextStream *stream;
  GPtrArray *pieces;
  Recorder *signals;
  gboolean signals_first;
  gboolean ended;
} AsyncPull;

static void
next_done (GObject *source, GAsyncResult *result, gpointer data)
{
  AsyncPull *p = data;
  g_autoptr (GError) error = NULL;
  gboolean more = executorch_llm_text_stream_next_finish (EXECUTORCH_LLM_TEXT_STREAM (source), result, &error);
  g_assert_no_error (error);
  if (!more)
    {
      p->ended = TRUE;
      g_main_loop_quit (p->loop);
      return;
    }
  g_ptr_array_add (p->pieces, g_strdup (executorch_llm_text_stream_get (p->stream)));
  /* The piece's signal came before the callback. */
  if (p->signals->pieces->len != p->pieces->len)
    p->signals_first = FALSE;
  executorch_llm_text_stream_next_async (p->stream, next_done, p);
}

static void
test_async (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (6);

  g_autoptr (ExecutorchLlmGenerator) a = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmTextStream) sync = executorch_llm_generator_stream (a, "Hi", config, NULL, &error);
  g_autoptr (GPtrArray) want = pull_all (sync);

  g_autoptr (ExecutorchLlmGenerator) b = make_generator ("kv.pte", tok);
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr (ExecutorchLlmTextStream) stream = executorch_llm_generator_stream (b, "Hi", config, NULL, &error);
  AsyncPull p = { loop, stream, g_ptr_array_new_with_free_func (g_free), recorder_new (b), TRUE, FALSE };
  executorch_llm_text_stream_next_async (stream, next_done, &p);
  /* One at a time. */
  g_assert_false (executorch_llm_text_stream_next (stream, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PENDING);
  g_clear_error (&error);
  g_main_loop_run (loop);
  g_assert_true (p.ended);
  g_assert_true (p.signals_first);
  assert_same_pieces (p.pieces, want);
  g_assert_cmpint (executorch_llm_text_stream_get_stop_reason (stream), ==, EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS);
  g_ptr_array_unref (p.pieces);
  recorder_free (b, p.signals);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/llm/text-stream/same-as-generate/%u-%s", i, cases[i].model);
      g_test_add_data_func (name, &cases[i], test_same_as_generate);
    }
  g_test_add_data_func ("/llm/text-stream/close-is-stop/kv", "kv.pte", test_close_is_stop);
  g_test_add_data_func ("/llm/text-stream/close-is-stop/nokv", "nokv.pte", test_close_is_stop);
  g_test_add_func ("/llm/text-stream/stop-between-pieces", test_stop_between_pieces);
  g_test_add_func ("/llm/text-stream/drop-closes", test_drop_closes);
  g_test_add_func ("/llm/text-stream/iterator", test_iterator);
  g_test_add_func ("/llm/text-stream/cancel", test_cancel);
  g_test_add_func ("/llm/text-stream/errors-from-next", test_errors_from_next);
  g_test_add_func ("/llm/text-stream/busy", test_busy);
  g_test_add_func ("/llm/text-stream/async", test_async);
  return g_test_run ();
}
