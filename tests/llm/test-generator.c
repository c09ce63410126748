/* test-generator.c: ExecutorchLlmGenerator on tiny llamas exported by upstream
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The programs (tests/llm/models, made by make_models.py) have random
 * weights and a vocabulary of 512: a byte-level tokenizer made here (ids
 * 0-255 bytes, 256 BOS, 257 EOS) stands for a real one, so the tests do not
 * depend on the tokenizer file formats.  reference.json holds the greedy
 * tokens upstream's runtime gives (fp16.pte: Half logits and KV cache).
 */
#include <json-glib/json-glib.h>
#include <string.h>

#include "executorch-llm.h"
#include "executorch-llm-tokenizer-private.h"
#include "fake-tokenizer.h"
#include "tiny-llama.h"
#include "llm-sampler.h"
#include "llm-text-stream.h"

/* ---- helpers ---------------------------------------------------------------- */

typedef struct
{
  GArray *tokens;
  GString *text;
  guint n_pieces;
  gboolean pieces_valid;
  GThread *thread;
  gboolean wrong_thread;
  /* Actions from the handlers. */
  guint cancel_after;
  GCancellable *cancellable;
  guint stop_after;
  gboolean reenter;
  GError *reenter_error;
} Recorder;

static void
on_token (ExecutorchLlmGenerator *g, guint id, Recorder *r)
{
  guint32 v = id;
  g_array_append_val (r->tokens, v);
  if (r->thread != NULL && g_thread_self () != r->thread)
    r->wrong_thread = TRUE;
  if (r->cancel_after > 0 && r->tokens->len == r->cancel_after)
    g_cancellable_cancel (r->cancellable);
  if (r->stop_after > 0 && r->tokens->len == r->stop_after)
    executorch_llm_generator_stop (g);
  if (r->reenter && r->reenter_error == NULL)
    {
      char *again = executorch_llm_generator_generate (g, "x", NULL, NULL, &r->reenter_error);
      g_assert_null (again);
    }
}

static void
on_text (ExecutorchLlmGenerator *g, const char *text, Recorder *r)
{
  g_assert_cmpstr (text, !=, "");
  if (!g_utf8_validate (text, -1, NULL))
    r->pieces_valid = FALSE;
  g_string_append (r->text, text);
  r->n_pieces++;
}

static Recorder *
recorder_new (ExecutorchLlmGenerator *g)
{
  Recorder *r = g_new0 (Recorder, 1);
  r->tokens = g_array_new (FALSE, FALSE, sizeof (guint32));
  r->text = g_string_new (NULL);
  r->pieces_valid = TRUE;
  g_signal_connect (g, "token", G_CALLBACK (on_token), r);
  g_signal_connect (g, "text", G_CALLBACK (on_text), r);
  return r;
}

static void
recorder_clear (Recorder *r)
{
  g_array_set_size (r->tokens, 0);
  g_string_truncate (r->text, 0);
  r->n_pieces = 0;
}

static void
recorder_free (Recorder *r)
{
  g_array_unref (r->tokens);
  g_string_free (r->text, TRUE);
  g_clear_error (&r->reenter_error);
  g_free (r);
}

static void
assert_tokens (GArray *got, const guint32 *want, guint n_want)
{
  g_assert_cmpmem (got->data, got->len * sizeof (guint32), want, n_want * sizeof (guint32));
}

/* ---- metadata ---------------------------------------------------------------- */

static void
test_metadata (void)
{
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 512, 257);
  struct
  {
    const char *name;
    gboolean kv, dynamic;
    guint chunk;
  } cases[] = { { "kv.pte", TRUE, TRUE, 7 }, { "static.pte", TRUE, FALSE, 1 }, { "nokv.pte", FALSE, TRUE, 7 } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (ExecutorchLlmGenerator) g = make_generator (cases[i].name, tok);
      g_assert_cmpint (executorch_llm_generator_get_max_seq_len (g), ==, 8);
      g_assert_cmpint (executorch_llm_generator_get_max_context_len (g), ==, 16);
      g_assert_cmpint (executorch_llm_generator_get_use_kv_cache (g), ==, cases[i].kv);
      g_assert_cmpint (executorch_llm_generator_get_dynamic_shape (g), ==, cases[i].dynamic);
      /* The token input's bound (7), not max_seq_len (8), which it refuses. */
      g_assert_cmpuint (executorch_llm_generator_get_max_prefill_chunk (g), ==, cases[i].chunk);
      g_assert_cmpuint (executorch_llm_generator_get_model_vocab_size (g), ==, 512);
      gsize n = 0;
      const guint32 *eos = executorch_llm_generator_get_eos_ids (g, &n);
      /* get_eos_ids replaces the tokenizer's EOS. */
      g_assert_cmpuint (n, ==, 1);
      g_assert_cmpuint (eos[0], ==, 257);
      g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, 0);
      g_assert_true (executorch_llm_generator_get_tokenizer (g) == tok);
      g_assert_nonnull (executorch_llm_generator_get_program (g));
    }
}

static void
test_eos_from_tokenizer (void)
{
  /* plain.pte has no get_eos_ids: the tokenizer's EOS counts. */
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 512, 144);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("plain.pte", tok);
  gsize n = 0;
  const guint32 *eos = executorch_llm_generator_get_eos_ids (g, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (eos[0], ==, 144);
}

/* ---- greedy generation against upstream's runtime ---------------------------- */

static void
test_greedy_reference (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = model_path ("reference.json");
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_mapped_file (parser, path, &error));
  g_assert_no_error (error);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonArray *cases = json_object_get_array_member (root, "cases");
  gint64 new_tokens = json_object_get_int_member (root, "new_tokens");
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 512, 257);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config ((gint) new_tokens);

  g_assert_cmpuint (json_array_get_length (cases), >=, 10);
  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonObject *c = json_array_get_object_element (cases, i);
      JsonArray *prompt = json_object_get_array_member (c, "prompt");
      JsonArray *want = json_object_get_array_member (c, "tokens");
      g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_autoptr (GArray) want_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint k = 0; k < json_array_get_length (prompt); k++)
        {
          guint32 v = json_array_get_int_element (prompt, k);
          g_array_append_val (ids, v);
        }
      for (guint k = 0; k < json_array_get_length (want); k++)
        {
          guint32 v = json_array_get_int_element (want, k);
          g_array_append_val (want_ids, v);
        }
      g_test_message ("%s, prompt of %u tokens", json_object_get_string_member (c, "model"), ids->len);
      g_autoptr (ExecutorchLlmGenerator) g = make_generator (json_object_get_string_member (c, "model"), tok);
      Recorder *r = recorder_new (g);
      g_autofree char *text =
          executorch_llm_generator_generate_tokens (g, (const guint32 *) ids->data, ids->len, config, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (text);
      assert_tokens (r->tokens, (const guint32 *) want_ids->data, want_ids->len);
      /* The pieces are the text, each whole UTF-8. */
      g_assert_true (r->pieces_valid);
      g_assert_cmpstr (r->text->str, ==, text);
      const char *stop = json_object_get_string_member (c, "stop");
      /* The end of the KV cache is a clean stop, with the text so far. */
      g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==,
                       g_str_equal (stop, "context_full") ? EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL
                                                          : EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS);
      /* Every token but the last was fed. */
      g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, ids->len + want_ids->len - 1);
      recorder_free (r);
    }
}

/* ---- stops --------------------------------------------------------------------- */

static const guint32 hi[] = { 72, 105 }; /* greedy: 144 144 144 144 144 429 ... */

static void
test_eos_stop (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 429);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("plain.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  Recorder *r = recorder_new (g);
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  const guint32 want[] = { 144, 144, 144, 144, 144, 429 };
  assert_tokens (r->tokens, want, 6);
  /* The EOS token ends the text without its own. */
  g_assert_cmpstr (text, ==, "ooooo");
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_EOS);

  /* ignore-eos goes on. */
  executorch_llm_generator_reset (g);
  recorder_clear (r);
  executorch_llm_generation_config_set_ignore_eos (config, TRUE);
  executorch_llm_generation_config_set_max_new_tokens (config, 8);
  g_autofree char *more = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->tokens->len, ==, 8);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS);
  recorder_free (r);
}

static void
test_first_token_eos (void)
{
  /* Upstream never checks the first token; here it ends the generation. */
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 144);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("plain.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "");
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_EOS);
}

static void
test_length_stop (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (3);
  Recorder *r = recorder_new (g);
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->tokens->len, ==, 3);
  g_assert_cmpstr (text, ==, "ooo");
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS);

  /* Until the context is full: 16 positions, 2 of the prompt: 15 tokens. */
  executorch_llm_generator_reset (g);
  recorder_clear (r);
  executorch_llm_generation_config_set_max_new_tokens (config, -1);
  g_autofree char *all = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->tokens->len, ==, 15);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL);
  g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, 16);
  /* Nothing more fits. */
  g_autofree char *none = executorch_llm_generator_generate (g, "a", config, NULL, &error);
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_CONTEXT_FULL);
  g_assert_null (none);
  recorder_free (r);
}

static void
test_stop_strings (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  /* Greedy text "ooooon...": "oon" first appears after three o's. */
  const char *stops[] = { "xyz", "oon", NULL };
  executorch_llm_generation_config_set_stop_strings (config, stops);
  Recorder *r = recorder_new (g);
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "ooo");
  g_assert_cmpstr (r->text->str, ==, "ooo");
  g_assert_cmpuint (r->tokens->len, ==, 6);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_STOP_STRING);
  recorder_free (r);
}

/* ---- conversations ----------------------------------------------------------- */

static GArray *
generate_ids (ExecutorchLlmGenerator *g, const guint32 *ids, guint n, gint max_new)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (max_new);
  Recorder *r = recorder_new (g);
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, ids, n, config, NULL, &error);
  g_assert_no_error (error);
  GArray *tokens = g_array_ref (r->tokens);
  g_signal_handlers_disconnect_by_data (g, r);
  recorder_free (r);
  return tokens;
}

static void
test_continuation (gconstpointer data)
{
  const char *name = data;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 512, 257);
  const guint32 p1[] = { 256, 84 }, p2[] = { 32, 71 };

  /* Two prompts in one conversation... */
  g_autoptr (ExecutorchLlmGenerator) a = make_generator (name, tok);
  g_autoptr (GArray) t1 = generate_ids (a, p1, 2, 3);
  g_assert_cmpuint (executorch_llm_generator_get_position (a), ==, 2 + 2);
  g_autoptr (GArray) t2 = generate_ids (a, p2, 2, 3);

  /* ...equal one long prompt: the first, the generated text but for its
   * last token (never fed, as upstream), the second. */
  g_autoptr (GArray) joined = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_vals (joined, p1, 2);
  g_array_append_vals (joined, t1->data, t1->len - 1);
  g_array_append_vals (joined, p2, 2);
  g_autoptr (ExecutorchLlmGenerator) b = make_generator (name, tok);
  g_autoptr (GArray) t2_once = generate_ids (b, (const guint32 *) joined->data, joined->len, 3);
  assert_tokens (t2, (const guint32 *) t2_once->data, t2_once->len);

  /* An empty prompt continues where the generation stopped. */
  executorch_llm_generator_reset (a);
  g_assert_cmpuint (executorch_llm_generator_get_position (a), ==, 0);
  g_autoptr (GArray) first = generate_ids (a, p1, 2, 2);
  g_autoptr (GArray) rest = generate_ids (a, NULL, 0, 3);
  executorch_llm_generator_reset (b);
  g_autoptr (GArray) whole = generate_ids (b, p1, 2, 5);
  g_array_append_vals (first, rest->data, rest->len);
  assert_tokens (first, (const guint32 *) whole->data, whole->len);

  /* After a reset the same prompt gives the same tokens. */
  executorch_llm_generator_reset (b);
  g_autoptr (GArray) again = generate_ids (b, p1, 2, 5);
  assert_tokens (again, (const guint32 *) whole->data, whole->len);
}

static void
test_prefill_only (void)
{
  /* max-new-tokens 0 runs the prompt only; "" then samples from it. */
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (GArray) none = generate_ids (g, hi, 2, 0);
  g_assert_cmpuint (none->len, ==, 0);
  g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, 2);
  g_autoptr (GArray) t = generate_ids (g, NULL, 0, 2);
  const guint32 want[] = { 144, 144 };
  assert_tokens (t, want, 2);
}

/* ---- stop, cancel, async ----------------------------------------------------- */

static void
test_stop (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  Recorder *r = recorder_new (g);
  r->stop_after = 2;
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "oo");
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_STOPPED);
  /* A stop asked for before a generation has no effect on it. */
  r->stop_after = 0;
  executorch_llm_generator_stop (g);
  executorch_llm_generation_config_set_max_new_tokens (config, 4);
  g_autofree char *more = executorch_llm_generator_generate (g, "", config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (more, ==, "ooon");
  recorder_free (r);
}

static void
test_cancel (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  Recorder *r = recorder_new (g);
  r->cancel_after = 3;
  r->cancellable = cancellable;
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, hi, 2, config, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (text);
  g_clear_error (&error);
  /* Mid-generation: three tokens came, the two before the third were fed. */
  g_assert_cmpuint (r->tokens->len, ==, 3);
  g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, 4);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_NONE);
  /* The conversation goes on from there. */
  r->cancel_after = 0;
  recorder_clear (r);
  executorch_llm_generation_config_set_max_new_tokens (config, 3);
  g_autofree char *rest = executorch_llm_generator_generate (g, "", config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (rest, ==, "oon");
  recorder_free (r);
}

typedef struct
{
  GMainLoop *loop;
  Recorder *r;
  guint pieces_at_callback;
  char *text;
  GError *error;
} AsyncState;

static void
async_done (GObject *source, GAsyncResult *result, gpointer data)
{
  AsyncState *s = data;
  s->pieces_at_callback = s->r->n_pieces;
  s->text = executorch_llm_generator_generate_finish (EXECUTORCH_LLM_GENERATOR (source), result, &s->error);
  g_main_loop_quit (s->loop);
}

static void
test_async (void)
{
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (-1);
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_main_context_push_thread_default (context);
  AsyncState s = { g_main_loop_new (context, FALSE), recorder_new (g), 0, NULL, NULL };
  s.r->thread = g_thread_self ();

  executorch_llm_generator_generate_async (g, "Hi", config, NULL, async_done, &s);
  g_main_loop_run (s.loop);
  g_assert_no_error (s.error);
  /* Every signal in this thread, every piece before the callback. */
  g_assert_false (s.r->wrong_thread);
  g_assert_cmpuint (s.r->tokens->len, ==, 15);
  g_assert_cmpuint (s.pieces_at_callback, ==, s.r->n_pieces);
  g_assert_cmpstr (s.text, ==, s.r->text->str);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL);
  g_free (s.text);
  s.text = NULL;

  /* Cancelled: the error, in the callback. */
  executorch_llm_generator_reset (g);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_cancellable_cancel (cancellable);
  executorch_llm_generator_generate_async (g, "Hi", config, cancellable, async_done, &s);
  g_main_loop_run (s.loop);
  g_assert_error (s.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (s.text);
  g_clear_error (&s.error);

  g_main_context_pop_thread_default (context);
  g_main_loop_unref (s.loop);
  recorder_free (s.r);
}

static void
test_async_idle_context (void)
{
  /* The global default context, which no thread holds until the loop
   * runs: the worker must still not emit the signals itself. */
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (4);
  AsyncState s = { g_main_loop_new (NULL, FALSE), recorder_new (g), 0, NULL, NULL };
  s.r->thread = g_thread_self ();
  executorch_llm_generator_generate_async (g, "Hi", config, NULL, async_done, &s);
  /* Let the worker finish before anything iterates the context. */
  while (executorch_llm_generator_get_stop_reason (g) == EXECUTORCH_LLM_STOP_REASON_NONE)
    g_usleep (1000);
  g_assert_cmpuint (s.r->tokens->len, ==, 0);
  g_main_loop_run (s.loop);
  g_assert_no_error (s.error);
  g_assert_false (s.r->wrong_thread);
  g_assert_cmpuint (s.r->tokens->len, ==, 4);
  g_assert_cmpstr (s.text, ==, "oooo");
  g_assert_cmpuint (s.pieces_at_callback, ==, s.r->n_pieces);
  g_free (s.text);
  g_main_loop_unref (s.loop);
  recorder_free (s.r);
}

static void
test_reentry (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (2);
  Recorder *r = recorder_new (g);
  r->reenter = TRUE;
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "oo");
  g_assert_error (r->reenter_error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_BUSY);
  recorder_free (r);
}

/* ---- text ------------------------------------------------------------------------ */

static void
test_utf8_halves (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_HALVES, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (6);
  Recorder *r = recorder_new (g);
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  /* Six tokens of one byte each: three whole characters, three pieces. */
  g_assert_cmpstr (text, ==, "ééé");
  g_assert_true (r->pieces_valid);
  g_assert_cmpuint (r->n_pieces, ==, 3);

  /* An odd count leaves half a character at the end: U+FFFD. */
  recorder_clear (r);
  executorch_llm_generator_reset (g);
  executorch_llm_generation_config_set_max_new_tokens (config, 5);
  g_autofree char *odd = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (odd, ==, "éé\xEF\xBF\xBD");
  g_assert_true (r->pieces_valid);
  recorder_free (r);
}

static void
test_echo (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (3);
  executorch_llm_generation_config_set_echo (config, TRUE);
  Recorder *r = recorder_new (g);
  g_autofree char *text = executorch_llm_generator_generate (g, "Hi", config, NULL, &error);
  g_assert_no_error (error);
  /* "Hi" encodes to 72 105 as above. */
  g_assert_cmpstr (text, ==, "Hiooo");
  g_assert_cmpstr (r->text->str, ==, "Hiooo");
  recorder_free (r);
}

static void
test_text_stream (void)
{
  LlmTextStream s;
  const char *stops[] = { "bc", "\xF0\x9F\x98\x80!", NULL };
  _llm_text_stream_init (&s, stops);
  g_autofree char *a = _llm_text_stream_push (&s, (const guint8 *) "ab", 2);
  g_assert_cmpstr (a, ==, "a"); /* "b" may start "bc" */
  g_autofree char *b = _llm_text_stream_push (&s, (const guint8 *) "x", 1);
  g_assert_cmpstr (b, ==, "bx");
  /* A four-byte character in four tokens. */
  const guint8 emoji[] = { 0xF0, 0x9F, 0x98, 0x80 };
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *part = _llm_text_stream_push (&s, emoji + i, 1);
      g_assert_cmpstr (part, ==, "");
    }
  g_autofree char *held = _llm_text_stream_push (&s, emoji + 3, 1);
  g_assert_cmpstr (held, ==, ""); /* may start the second stop string */
  g_autofree char *out = _llm_text_stream_push (&s, (const guint8 *) "?", 1);
  g_assert_cmpstr (out, ==, "\xF0\x9F\x98\x80?");
  /* Invalid bytes become U+FFFD, one each, and the stream goes on. */
  const guint8 bad[] = { 0xFF, 'z', 0xC3, 'y' };
  g_autofree char *repl = _llm_text_stream_push (&s, bad, 4);
  g_assert_cmpstr (repl, ==, "\xEF\xBF\xBDz\xEF\xBF\xBDy");
  g_autofree char *stop = _llm_text_stream_push (&s, (const guint8 *) "abcd", 4);
  g_assert_cmpstr (stop, ==, "a");
  g_assert_true (s.stopped);
  g_autofree char *after = _llm_text_stream_push (&s, (const guint8 *) "more", 4);
  g_assert_cmpstr (after, ==, "");
  _llm_text_stream_clear (&s);

  /* The end releases what was held, a cut character as U+FFFD. */
  _llm_text_stream_init (&s, stops);
  g_autofree char *c = _llm_text_stream_push (&s, (const guint8 *) "xb\xE2\x82", 4);
  g_assert_cmpstr (c, ==, "x");
  g_autofree char *end = _llm_text_stream_finish (&s);
  g_assert_cmpstr (end, ==, "b\xEF\xBF\xBD");
  _llm_text_stream_clear (&s);
}

/* ---- sampling --------------------------------------------------------------------- */

static void
test_sampler (void)
{
  /* Argmax: the lowest index wins ties. */
  float logits[] = { 1.0f, 3.0f, 3.0f, 2.0f, 3.0f };
  g_assert_cmpuint (_llm_argmax (logits, 5), ==, 1);
  LlmSampler s;
  _llm_sampler_init (&s, 5, 0.0, 0.9, 0, 1);
  g_assert_cmpuint (_llm_sampler_sample (&s, logits), ==, 1);
  _llm_sampler_clear (&s);
  /* Only the vocabulary's entries count. */
  float wide[] = { 0.0f, 1.0f, 9.0f };
  g_assert_cmpuint (_llm_argmax (wide, 2), ==, 1);

  /* top-k 1 is argmax at any temperature; a huge temperature with top-k 2
   * draws both of the two best and nothing else. */
  gboolean seen[5] = { FALSE };
  _llm_sampler_init (&s, 5, 50.0, 1.0, 2, 99);
  for (guint i = 0; i < 200; i++)
    {
      float l[] = { 1.0f, 3.0f, 2.0f, 0.0f, 2.5f };
      seen[_llm_sampler_sample (&s, l)] = TRUE;
    }
  g_assert_true (seen[1] && seen[4]);
  g_assert_false (seen[0] || seen[2] || seen[3]);
  _llm_sampler_clear (&s);
  _llm_sampler_init (&s, 5, 2.0, 0.9, 1, 5);
  for (guint i = 0; i < 50; i++)
    {
      float l[] = { 1.0f, 3.0f, 2.0f, 0.0f, 2.5f };
      g_assert_cmpuint (_llm_sampler_sample (&s, l), ==, 1);
    }
  _llm_sampler_clear (&s);
}

static GArray *
sample_run (ExecutorchLlmGenerator *g, gint64 seed)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmGenerationConfig) config = executorch_llm_generation_config_new ();
  executorch_llm_generation_config_set_temperature (config, 1.5); /* above 1: upstream refuses it */
  executorch_llm_generation_config_set_top_p (config, 0.95);
  executorch_llm_generation_config_set_top_k (config, 100);
  executorch_llm_generation_config_set_seed (config, seed);
  executorch_llm_generation_config_set_max_new_tokens (config, 10);
  executorch_llm_generation_config_set_ignore_eos (config, TRUE);
  executorch_llm_generator_reset (g);
  Recorder *r = recorder_new (g);
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, hi, 2, config, NULL, &error);
  g_assert_no_error (error);
  GArray *tokens = g_array_ref (r->tokens);
  g_signal_handlers_disconnect_by_data (g, r);
  recorder_free (r);
  return tokens;
}

static void
test_seed (void)
{
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (GArray) a = sample_run (g, 42);
  g_autoptr (GArray) b = sample_run (g, 42);
  g_autoptr (GArray) c = sample_run (g, 43);
  g_assert_cmpuint (a->len, ==, 10);
  assert_tokens (b, (const guint32 *) a->data, a->len);
  /* Sampling at this temperature does not just repeat the greedy tokens. */
  const guint32 greedy[] = { 144, 144, 144, 144, 144, 429 };
  g_assert_false (memcmp (a->data, greedy, sizeof greedy) == 0 && memcmp (c->data, greedy, sizeof greedy) == 0);
  g_assert_false (a->len == c->len && memcmp (a->data, c->data, a->len * sizeof (guint32)) == 0);
}

/* ---- stats ------------------------------------------------------------------------ */

static void
test_stats (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_LETTERS, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (5);
  const guint32 prompt[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
  g_autofree char *text = executorch_llm_generator_generate_tokens (g, prompt, 10, config, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (ExecutorchLlmStats) st = executorch_llm_generator_get_stats (g);
  g_assert_cmpint (st->num_prompt_tokens, ==, 10);
  g_assert_cmpint (st->num_generated_tokens, ==, 4); /* upstream leaves the first out */
  g_assert_cmpint (st->model_load_start_ms, >, 0);
  g_assert_cmpint (st->model_load_start_ms, <=, st->model_load_end_ms);
  g_assert_cmpint (st->model_load_end_ms, <=, st->inference_start_ms);
  g_assert_cmpint (st->inference_start_ms, <=, st->prompt_eval_end_ms);
  g_assert_cmpint (st->prompt_eval_end_ms, ==, st->first_token_ms);
  g_assert_cmpint (st->prompt_eval_end_ms, <=, st->inference_end_ms);
  g_assert_cmpint (st->model_execution_start_ms, <=, st->model_execution_end_ms);
  g_assert_cmpint (st->model_execution_end_ms, <=, st->inference_end_ms);
  g_assert_cmpint (st->aggregate_model_execution_time_ms, >=, 0);
  g_assert_cmpint (executorch_llm_stats_get_time_to_first_token_ms (st), ==,
                   st->first_token_ms - st->inference_start_ms);

  /* The JSON: upstream's keys, in its order. */
  st->inference_start_ms = 1000;
  st->prompt_eval_end_ms = st->first_token_ms = 1004;
  st->inference_end_ms = 1006;
  g_autofree char *json = executorch_llm_stats_to_json (st);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  const char *keys[] = { "prefill_token_per_sec",
                         "decode_token_per_sec",
                         "prompt_tokens",
                         "generated_tokens",
                         "model_load_start_ms",
                         "model_load_end_ms",
                         "inference_start_ms",
                         "inference_end_ms",
                         "model_execution_start_ms",
                         "model_execution_end_ms",
                         "prompt_eval_end_ms",
                         "first_token_ms",
                         "aggregate_sampling_time_ms",
                         "aggregate_model_execution_time_ms",
                         "SCALING_FACTOR_UNITS_PER_SECOND" };
  g_autoptr (GList) members = json_object_get_members (o);
  g_assert_cmpuint (g_list_length (members), ==, G_N_ELEMENTS (keys));
  guint i = 0;
  for (GList *l = members; l != NULL; l = l->next, i++)
    g_assert_cmpstr (l->data, ==, keys[i]);
  g_assert_cmpfloat (json_object_get_double_member (o, "prefill_token_per_sec"), ==, 2500.0);
  g_assert_cmpfloat (json_object_get_double_member (o, "decode_token_per_sec"), ==, 2000.0);
  g_assert_true (strstr (json, "\"prefill_token_per_sec\":2500,") != NULL);
  /* No time: no rate. */
  st->prompt_eval_end_ms = st->inference_start_ms;
  g_autofree char *norate = executorch_llm_stats_to_json (st);
  g_assert_null (strstr (norate, "prefill_token_per_sec"));

  /* reset keeps the load times, clears the rest. */
  gint64 load = st->model_load_start_ms;
  executorch_llm_generator_reset (g);
  g_autoptr (ExecutorchLlmStats) after = executorch_llm_generator_get_stats (g);
  g_assert_cmpint (after->model_load_start_ms, ==, load);
  g_assert_cmpint (after->num_prompt_tokens, ==, 0);
  g_assert_cmpint (after->aggregate_model_execution_time_ms, ==, 0);
}

/* ---- errors --------------------------------------------------------------------- */

static void
test_no_metadata (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 128, 1);
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "models", "nets", "llama", "llama.pte", NULL);
  g_autoptr (ExecutorchLlmGenerator) g = executorch_llm_generator_new (path, NULL, tok, NULL, &error);
  g_assert_null (g);
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_PROGRAM);
  g_assert_nonnull (strstr (error->message, "get_max_seq_len"));
  g_clear_error (&error);

  /* Not a program at all. */
  g_autofree char *json = model_path ("reference.json");
  g_autoptr (ExecutorchLlmGenerator) g2 = executorch_llm_generator_new (json, NULL, tok, NULL, &error);
  g_assert_null (g2);
  g_assert_nonnull (error);
}

static void
test_bad_metadata (void)
{
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 512, 257);
  struct
  {
    const char *model, *says;
  } cases[] = {
    { "badcontext.pte", "get_max_context_len returned 0" },
    { "badkv.pte", "use_kv_cache says false, but forward takes 2 inputs" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = model_path (cases[i].model);
      g_autoptr (ExecutorchLlmGenerator) g = executorch_llm_generator_new (path, NULL, tok, NULL, &error);
      g_assert_null (g);
      g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_PROGRAM);
      g_assert_nonnull (strstr (error->message, cases[i].says));
    }
}

static void
test_vocab_mismatch (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 600, 257);
  g_autofree char *path = model_path ("kv.pte");
  g_autoptr (ExecutorchLlmGenerator) g = executorch_llm_generator_new (path, NULL, tok, NULL, &error);
  g_assert_null (g);
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_VOCABULARY_MISMATCH);
  g_assert_nonnull (strstr (error->message, "600"));
  g_assert_nonnull (strstr (error->message, "512"));
}

static void
test_prompt_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 512, 257);
  g_autoptr (ExecutorchLlmGenerator) kv = make_generator ("kv.pte", tok);
  g_autoptr (ExecutorchLlmGenerator) nokv = make_generator ("nokv.pte", tok);
  g_autoptr (ExecutorchLlmGenerationConfig) config = greedy_config (2);

  /* Longer than the context (16). */
  g_autofree char *t = executorch_llm_generator_generate (kv, "seventeen bytes!!", config, NULL, &error);
  g_assert_null (t);
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_PROMPT_TOO_LONG);
  g_assert_nonnull (strstr (error->message, "17"));
  g_clear_error (&error);
  g_assert_cmpuint (executorch_llm_generator_get_position (kv), ==, 0);
  /* Exactly the context: one token comes, then the context is full. */
  g_autofree char *fits = executorch_llm_generator_generate (kv, "sixteen bytes!!!", config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (kv), ==, EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL);

  /* Without a KV cache the whole sequence must fit the token input (7). */
  g_autofree char *t2 = executorch_llm_generator_generate (nokv, "8 bytes!", config, NULL, &error);
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_PROMPT_TOO_LONG);
  g_clear_error (&error);

  /* Nothing to continue. */
  g_autofree char *t3 = executorch_llm_generator_generate (nokv, "", config, NULL, &error);
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_EMPTY_PROMPT);
  g_clear_error (&error);

  /* Ids outside the vocabulary. */
  const guint32 bad[] = { 1, 512 };
  g_autofree char *t4 = executorch_llm_generator_generate_tokens (nokv, bad, 2, config, NULL, &error);
  g_assert_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_TOKEN);
  g_clear_error (&error);

  /* Not UTF-8. */
  g_autofree char *t5 = executorch_llm_generator_generate (nokv, "\xFF", config, NULL, &error);
  g_assert_error (error, EXECUTORCH_LLM_TOKENIZER_ERROR, EXECUTORCH_LLM_TOKENIZER_ERROR_INVALID_TEXT);
  g_clear_error (&error);

  /* A BOS asked for from a tokenizer that has none. */
  g_autoptr (ExecutorchLlmTokenizer) nobos = fake_tokenizer (FAKE_BYTES, 512, 257);
  _executorch_llm_tokenizer_get_impl (nobos)->bos_id = -1;
  g_autoptr (ExecutorchLlmGenerator) g = make_generator ("kv.pte", nobos);
  executorch_llm_generation_config_set_n_bos (config, 1);
  g_autofree char *t6 = executorch_llm_generator_generate (g, "a", config, NULL, &error);
  g_assert_error (error, EXECUTORCH_LLM_TOKENIZER_ERROR, EXECUTORCH_LLM_TOKENIZER_ERROR_UNSUPPORTED);
}

/* ---- the tokenizer object ------------------------------------------------------- */

static void
test_tokenizer_object (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok = fake_tokenizer (FAKE_BYTES, 512, 257);
  g_assert_cmpuint (executorch_llm_tokenizer_get_vocab_size (tok), ==, 512);
  g_assert_cmpint (executorch_llm_tokenizer_get_bos_id (tok), ==, 256);
  g_assert_cmpint (executorch_llm_tokenizer_get_eos_id (tok), ==, 257);
  g_assert_cmpint (executorch_llm_tokenizer_get_format (tok), ==, EXECUTORCH_LLM_TOKENIZER_FORMAT_TIKTOKEN);
  guint vocab = 0;
  gint64 eos = 0;
  ExecutorchLlmTokenizerFormat format = 0;
  g_object_get (tok, "vocab-size", &vocab, "eos-id", &eos, "format", &format, NULL);
  g_assert_cmpuint (vocab, ==, 512);
  g_assert_cmpint (eos, ==, 257);
  g_assert_cmpint (format, ==, EXECUTORCH_LLM_TOKENIZER_FORMAT_TIKTOKEN);

  gsize n = 0;
  g_autofree guint32 *ids = executorch_llm_tokenizer_encode (tok, "é!", 2, 1, &n, &error);
  g_assert_no_error (error);
  const guint32 want[] = { 256, 256, 0xC3, 0xA9, '!', 257 };
  g_assert_cmpmem (ids, n * sizeof (guint32), want, sizeof want);

  /* One token: its bytes, half a character as it is. */
  g_autoptr (GBytes) half = executorch_llm_tokenizer_decode_token (tok, -1, 0xC3, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (half), ==, 1);
  g_autoptr (GBytes) out = executorch_llm_tokenizer_decode_token (tok, 0, 600, &error);
  g_assert_null (out);
  g_assert_error (error, EXECUTORCH_LLM_TOKENIZER_ERROR, EXECUTORCH_LLM_TOKENIZER_ERROR_INVALID_TOKEN);
  g_clear_error (&error);

  /* A sequence: joined, and valid UTF-8 whatever the bytes. */
  g_autofree char *text = executorch_llm_tokenizer_decode (tok, want + 2, 3, &error);
  g_assert_cmpstr (text, ==, "é!");
  const guint32 cut[] = { 'a', 0xC3 };
  g_autofree char *cut_text = executorch_llm_tokenizer_decode (tok, cut, 2, &error);
  g_assert_cmpstr (cut_text, ==, "a\xEF\xBF\xBD");

  guint32 id = 0;
  g_assert_true (executorch_llm_tokenizer_lookup (tok, "<|end_of_text|>", &id));
  g_assert_cmpuint (id, ==, 257);
  g_assert_false (executorch_llm_tokenizer_lookup (tok, "nothing", NULL));
}

static void
test_tokenizer_files (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) none = executorch_llm_tokenizer_new_from_file ("/nonexistent/tokenizer", &error);
  g_assert_null (none);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);
  g_autoptr (GBytes) junk = g_bytes_new_static ("xyz", 3);
  g_autoptr (ExecutorchLlmTokenizer) t = executorch_llm_tokenizer_new_from_bytes (junk, 0, &error);
  g_assert_null (t);
  g_assert_error (error, EXECUTORCH_LLM_TOKENIZER_ERROR, EXECUTORCH_LLM_TOKENIZER_ERROR_UNKNOWN_FORMAT);
}

/* ---- libexecutorch: an unplanned input growing again ------------------------- */

static ExecutorchTensor *
tokens_tensor (guint n)
{
  g_autofree gint64 *v = g_new0 (gint64, n);
  gint64 sizes[2] = { 1, n };
  g_autoptr (GBytes) bytes = g_bytes_new (v, n * sizeof (gint64));
  return executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_LONG, sizes, 2, bytes, NULL);
}

static void
test_unplanned_input_grows (void)
{
  /* export_llama leaves inputs unplanned: each binding brings its memory,
   * and a token input may grow back up to its bound (7) after a shorter
   * binding; beyond the bound it is refused. */
  g_autoptr (GError) error = NULL;
  g_autofree char *path = model_path ("nokv.pte");
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (ExecutorchMethod) method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  guint lengths[] = { 2, 3, 1, 7 };
  for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
    {
      g_autoptr (ExecutorchTensor) t = tokens_tensor (lengths[i]);
      g_assert_true (executorch_method_set_input (method, 0, t, &error));
      g_assert_no_error (error);
      g_assert_true (executorch_method_execute (method, NULL, &error));
      g_assert_no_error (error);
    }
  g_autoptr (ExecutorchTensor) big = tokens_tensor (8);
  g_assert_false (executorch_method_set_input (method, 0, big, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "bound [1, 7]"));
  g_clear_error (&error);
  /* The refused binding leaves the previous one. */
  g_assert_true (executorch_method_execute (method, NULL, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/llm/generator/metadata", test_metadata);
  g_test_add_func ("/llm/generator/eos-from-tokenizer", test_eos_from_tokenizer);
  g_test_add_func ("/llm/generator/greedy-reference", test_greedy_reference);
  g_test_add_func ("/llm/generator/eos-stop", test_eos_stop);
  g_test_add_func ("/llm/generator/first-token-eos", test_first_token_eos);
  g_test_add_func ("/llm/generator/length-stop", test_length_stop);
  g_test_add_func ("/llm/generator/stop-strings", test_stop_strings);
  g_test_add_data_func ("/llm/generator/continuation/kv", "kv.pte", test_continuation);
  g_test_add_data_func ("/llm/generator/continuation/static", "static.pte", test_continuation);
  g_test_add_data_func ("/llm/generator/continuation/nokv", "nokv.pte", test_continuation);
  g_test_add_func ("/llm/generator/prefill-only", test_prefill_only);
  g_test_add_func ("/llm/generator/stop", test_stop);
  g_test_add_func ("/llm/generator/cancel", test_cancel);
  g_test_add_func ("/llm/generator/async", test_async);
  g_test_add_func ("/llm/generator/async-idle-context", test_async_idle_context);
  g_test_add_func ("/llm/generator/reentry", test_reentry);
  g_test_add_func ("/llm/generator/utf8-halves", test_utf8_halves);
  g_test_add_func ("/llm/generator/echo", test_echo);
  g_test_add_func ("/llm/generator/seed", test_seed);
  g_test_add_func ("/llm/generator/stats", test_stats);
  g_test_add_func ("/llm/generator/no-metadata", test_no_metadata);
  g_test_add_func ("/llm/generator/bad-metadata", test_bad_metadata);
  g_test_add_func ("/llm/generator/vocab-mismatch", test_vocab_mismatch);
  g_test_add_func ("/llm/generator/prompt-errors", test_prompt_errors);
  g_test_add_func ("/llm/text-stream", test_text_stream);
  g_test_add_func ("/llm/sampler", test_sampler);
  g_test_add_func ("/llm/tokenizer/object", test_tokenizer_object);
  g_test_add_func ("/llm/tokenizer/files", test_tokenizer_files);
  g_test_add_func ("/llm/method/unplanned-input-grows", test_unplanned_input_grows);
  return g_test_run ();
}
