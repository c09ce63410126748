/* test-upstream-generation.c: greedy text equal to upstream's text runner
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: test-upstream-generation MANIFEST.json REPOSITORY
 *   (MANIFEST.json: tests/models/llm; REPOSITORY: where the manifest's
 *   tokenizer_runs paths start)
 *
 * Through the installed API only (libexecutorch-llm.so).
 *
 * The fixture's tokenizer.json, and each program upstream's TextLLMRunner
 * generated with (fp32 and quantized; greedy, 30 new tokens, no BOS): the
 * prompt must encode to the same ids, and generation must give the same
 * ids and the same text.  Where upstream's runner fails, this one must
 * not: a prompt of exactly max_seq_len tokens, and generating to the end
 * of the KV cache.
 *
 * tokenizer_runs: upstream's runner with each tokenizer fixture of
 * tests/llm/tokenizers.  Only its printed text was recorded, so the text is
 * compared as upstream prints it: each generated token's piece
 * (decode_token, as upstream's decode (previous, id)), one-byte pieces that
 * are neither printable nor whitespace dropped (safe_printf), and the EOS
 * piece printed where upstream stops; our own text must be that without the
 * EOS piece (our EOS adds no text) wherever no piece was dropped.  Where
 * upstream failed on a prompt of max_seq_len tokens or more, ours must
 * generate.  Not compared, and listed in the output:
 *   - beyond_model_vocab: the tokenizer has ids past the model's 512
 *     logits; upstream reads past the logits row and the embedding (its
 *     result is undefined), and our generator refuses such a pair;
 *   - a tokenizer upstream loaded as another format than it is (loaded_as;
 *     e.g. the hf folders its HF reader refuses, which it then reads as
 *     tiktoken and encodes every prompt to id 0): upstream's text then says
 *     nothing about that format (docs/llm.md, "Tokenizers").
 * Every format must have a text compared (/llm/upstream/tokenizers/formats):
 * the fixture's tokenizer.json for Hugging Face, and the fixtures made to
 * fit the 512 logits for the others (tiktoken bytes256, llama2c and
 * SentencePiece sp-bpe400, SentencePiece char).
 */
#include <json-glib/json-glib.h>
#include <string.h>

#include <executorch-llm.h>

static char *dir;
static const char *repository;
static JsonArray *fixtures;
/* Text comparisons per tokenizer format (ExecutorchLlmTokenizerFormat). */
static guint compared[EXECUTORCH_LLM_TOKENIZER_FORMAT_LLAMA2C + 1];
static ExecutorchLlmTokenizer *tokenizer;

static void
on_token (ExecutorchLlmGenerator *g, guint id, GArray *ids)
{
  guint32 v = id;
  g_array_append_val (ids, v);
}

static GArray *
json_ids (JsonArray *a)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      guint32 v = (guint32) json_array_get_int_element (a, i);
      g_array_append_val (ids, v);
    }
  return ids;
}

static ExecutorchLlmGenerator *
load (JsonObject *fixture)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *pte = g_build_filename (dir, json_object_get_string_member (fixture, "pte"), NULL);
  ExecutorchLlmGenerator *g = executorch_llm_generator_new (pte, NULL, tokenizer, NULL, &error);
  g_assert_no_error (error);
  return g;
}

static void
test_fixture (gconstpointer data)
{
  JsonObject *fixture = (JsonObject *) data;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmGenerator) g = load (fixture);
  JsonObject *meta = json_object_get_object_member (fixture, "metadata");
  g_assert_cmpint (executorch_llm_generator_get_max_seq_len (g), ==,
                   json_object_get_int_member (meta, "get_max_seq_len"));
  g_assert_cmpint (executorch_llm_generator_get_max_context_len (g), ==,
                   json_object_get_int_member (meta, "get_max_context_len"));
  g_autoptr (ExecutorchLlmGenerationConfig) config = executorch_llm_generation_config_new ();
  executorch_llm_generation_config_set_temperature (config, 0.0);
  executorch_llm_generation_config_set_max_new_tokens (config, 30);
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_signal_connect (g, "token", G_CALLBACK (on_token), got);

  JsonArray *cases = json_object_get_array_member (fixture, "cases");
  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonObject *c = json_array_get_object_element (cases, i);
      const char *prompt = json_object_get_string_member (c, "prompt");
      g_autoptr (GArray) prompt_ids = json_ids (json_object_get_array_member (c, "prompt_ids"));
      g_autoptr (GArray) want = json_ids (json_object_get_array_member (c, "ids"));

      gsize n = 0;
      g_autofree guint32 *encoded = executorch_llm_tokenizer_encode (tokenizer, prompt, 0, 0, &n, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (encoded, n * sizeof (guint32), prompt_ids->data, prompt_ids->len * sizeof (guint32));

      executorch_llm_generator_reset (g);
      g_array_set_size (got, 0);
      g_autofree char *text = executorch_llm_generator_generate (g, prompt, config, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (got->data, got->len * sizeof (guint32), want->data, want->len * sizeof (guint32));
      g_assert_cmpstr (text, ==, json_object_get_string_member (c, "text"));
      g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS);
    }
}

/* Upstream's class for a tokenizer of our format (load_tokenizer). */
static const char *
upstream_class (ExecutorchLlmTokenizerFormat format)
{
  switch (format)
    {
      case EXECUTORCH_LLM_TOKENIZER_FORMAT_HUGGING_FACE: return "HFTokenizer";
      case EXECUTORCH_LLM_TOKENIZER_FORMAT_TIKTOKEN: return "Tiktoken";
      case EXECUTORCH_LLM_TOKENIZER_FORMAT_SENTENCEPIECE: return "SPTokenizer";
      case EXECUTORCH_LLM_TOKENIZER_FORMAT_LLAMA2C: return "Llama2cTokenizer";
      default: return "?";
    }
}

/* A tokenizer fixture: a file, or an hf folder with its tokenizer.json. */
static ExecutorchLlmTokenizer *
load_tokenizer_fixture (const char *relative, GError **error)
{
  g_autofree char *path = g_build_filename (repository, relative, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *json = g_build_filename (path, "tokenizer.json", NULL);
      return executorch_llm_tokenizer_new_from_file (json, error);
    }
  return executorch_llm_tokenizer_new_from_file (path, error);
}

static JsonObject *
fixture_named (const char *name)
{
  for (guint i = 0; i < json_array_get_length (fixtures); i++)
    {
      JsonObject *f = json_array_get_object_element (fixtures, i);
      if (g_str_equal (json_object_get_string_member (f, "name"), name))
        return f;
    }
  g_error ("no fixture %s", name);
}

/* What upstream's runner prints for one token: SentencePiece's byte
 * pieces as their literal text but for <0x0A> (its decode), then one-byte
 * pieces that are neither printable nor whitespace dropped (safe_printf). */
static void
append_printed (GString *out, ExecutorchLlmTokenizer *tok, guint32 id, GBytes *piece)
{
  gsize n = 0;
  const guchar *bytes = g_bytes_get_data (piece, &n);
  if (n == 1 && executorch_llm_tokenizer_get_format (tok) == EXECUTORCH_LLM_TOKENIZER_FORMAT_SENTENCEPIECE &&
      bytes[0] != '\n')
    {
      g_autofree char *name = g_strdup_printf ("<0x%02X>", bytes[0]);
      guint32 byte_id = 0;
      if (executorch_llm_tokenizer_lookup (tok, name, &byte_id) && byte_id == id)
        {
          g_string_append (out, name);
          return;
        }
    }
  if (n == 1 && !g_ascii_isprint (bytes[0]) && !g_ascii_isspace (bytes[0]))
    return;
  g_string_append_len (out, (const char *) bytes, n);
}

/* Runs where upstream's own greedy choice is a near tie on a quantized
 * program: the top two logits of upstream's step `agree` differ by less
 * than the program's arithmetic differs from upstream's (dynamic int8
 * quantization; margin measured with upstream's runtime on its tokens).
 * The text must agree up to that step. */
static const struct
{
  const char *tokenizer, *model, *prompt;
  guint agree;
  const char *margin;
} near_ties[] = {
  { "tests/llm/tokenizers/tiktoken/bytes256.tiktoken", "llama_8da4w", "This License applies to any", 16, "0.039" },
};

static guint
near_tie_step (JsonObject *run)
{
  for (guint i = 0; i < G_N_ELEMENTS (near_ties); i++)
    if (g_str_equal (near_ties[i].tokenizer, json_object_get_string_member (run, "tokenizer")) &&
        g_str_equal (near_ties[i].model, json_object_get_string_member (run, "model")) &&
        g_str_equal (near_ties[i].prompt, json_object_get_string_member (run, "prompt")))
      {
        g_test_message ("near tie at step %u (upstream's margin %s): compared up to it", near_ties[i].agree,
                        near_ties[i].margin);
        return near_ties[i].agree;
      }
  return G_MAXUINT;
}

static void
test_tokenizer_run (gconstpointer data)
{
  JsonObject *run = (JsonObject *) data;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tok =
      load_tokenizer_fixture (json_object_get_string_member (run, "tokenizer"), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (upstream_class (executorch_llm_tokenizer_get_format (tok)), ==,
                   json_object_get_string_member (run, "loaded_as"));
  g_assert_cmpint (executorch_llm_tokenizer_get_vocab_size (tok), ==, json_object_get_int_member (run, "vocab_size"));

  const char *prompt = json_object_get_string_member (run, "prompt");
  g_autoptr (GArray) prompt_ids = json_ids (json_object_get_array_member (run, "prompt_ids"));
  gsize n = 0;
  g_autofree guint32 *encoded = executorch_llm_tokenizer_encode (tok, prompt, 0, 0, &n, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (encoded, n * sizeof (guint32), prompt_ids->data, prompt_ids->len * sizeof (guint32));

  JsonObject *fixture = fixture_named (json_object_get_string_member (run, "model"));
  g_autofree char *pte = g_build_filename (dir, json_object_get_string_member (fixture, "pte"), NULL);
  g_autoptr (ExecutorchLlmGenerator) g = executorch_llm_generator_new (pte, NULL, tok, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (ExecutorchLlmGenerationConfig) config = executorch_llm_generation_config_new ();
  executorch_llm_generation_config_set_temperature (config, 0.0);
  executorch_llm_generation_config_set_max_new_tokens (config, 30);
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_signal_connect (g, "token", G_CALLBACK (on_token), got);
  g_autofree char *text = executorch_llm_generator_generate (g, prompt, config, NULL, &error);
  g_assert_no_error (error);

  if (json_object_has_member (run, "error"))
    {
      /* Upstream's prompt chunk of max_seq_len tokens is one past the
       * program's bound (docs/llm.md, "Prompt chunks fit the program"). */
      g_assert_nonnull (strstr (json_object_get_string_member (run, "error"), "Error resizing tensor at input 0"));
      g_assert_cmpint (prompt_ids->len, >=, executorch_llm_generator_get_max_seq_len (g));
      ExecutorchLlmStopReason reason = executorch_llm_generator_get_stop_reason (g);
      if (reason == EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL)
        g_assert_cmpuint (executorch_llm_generator_get_position (g), ==,
                          executorch_llm_generator_get_max_context_len (g));
      else
        g_assert_cmpuint (got->len, ==, 30);
      g_test_message ("upstream failed on a prompt of %u tokens; this one generated %u", prompt_ids->len, got->len);
      return;
    }

  /* The text as upstream prints it, from our tokens: its first piece is
   * decode (id, id), the others decode (previous, id); the EOS is printed. */
  g_autoptr (GString) printed = g_string_new (NULL);
  g_autoptr (GString) pieces = g_string_new (NULL);
  g_autoptr (GString) agreed = g_string_new (NULL);
  guint agree = near_tie_step (run);
  gboolean eos = executorch_llm_generator_get_stop_reason (g) == EXECUTORCH_LLM_STOP_REASON_EOS;
  for (guint i = 0; i < got->len; i++)
    {
      guint32 id = g_array_index (got, guint32, i);
      guint32 previous = g_array_index (got, guint32, i > 0 ? i - 1 : 0);
      g_autoptr (GBytes) piece = executorch_llm_tokenizer_decode_token (tok, previous, id, &error);
      g_assert_no_error (error);
      append_printed (printed, tok, id, piece);
      if (i < agree)
        g_string_assign (agreed, printed->str);
      if (!(eos && i == got->len - 1))
        g_string_append_len (pieces, g_bytes_get_data (piece, NULL), g_bytes_get_size (piece));
    }
  g_test_message ("%u tokens, stop reason %d", got->len, executorch_llm_generator_get_stop_reason (g));
  if (agree < got->len)
    {
      g_assert_true (g_str_has_prefix (json_object_get_string_member (run, "printed"), agreed->str));
      return;
    }
  g_assert_cmpstr (printed->str, ==, json_object_get_string_member (run, "printed"));
  if (!eos)
    g_assert_cmpuint (got->len, ==, 30);

  /* Our own text: the same tokens' pieces, but for the EOS, which adds no
   * text (and where a piece ends inside a character, whole characters). */
  if (g_utf8_validate_len (pieces->str, pieces->len, NULL))
    g_assert_cmpstr (text, ==, pieces->str);
}

/* The tokenizer runs where upstream's result says something about the
 * format; the others are listed. */
static void
add_tokenizer_runs (JsonArray *runs)
{
  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      JsonObject *run = json_array_get_object_element (runs, i);
      const char *path = json_object_get_string_member (run, "tokenizer");
      const char *model = json_object_get_string_member (run, "model");
      const char *prompt = json_object_get_string_member (run, "prompt");
      g_autoptr (GError) error = NULL;
      g_autoptr (ExecutorchLlmTokenizer) tok = load_tokenizer_fixture (path, &error);
      if (tok == NULL)
        g_error ("%s: %s", path, error->message);
      const char *ours = upstream_class (executorch_llm_tokenizer_get_format (tok));
      const char *loaded_as = json_object_get_string_member (run, "loaded_as");
      if (json_object_get_boolean_member_with_default (run, "beyond_model_vocab", FALSE))
        g_print ("# not compared: %s (%s, %u ids) with %s: beyond the model's vocabulary\n", path, loaded_as,
                 (guint) json_object_get_int_member (run, "vocab_size"), model);
      else if (!g_str_equal (ours, loaded_as))
        g_print ("# not compared: %s (%s) with %s: upstream loaded it as %s\n", path, ours, model, loaded_as);
      else
        {
          g_autofree char *name =
              g_strdup_printf ("/llm/upstream/tokenizers/%s/%s/%u", path + strlen ("tests/llm/tokenizers/"), model, i);
          g_test_add_data_func (name, run, test_tokenizer_run);
          if (!json_object_has_member (run, "error"))
            compared[executorch_llm_tokenizer_get_format (tok)]++;
          g_print ("# compared: %s (%s) with %s: \"%s\"%s\n", path, ours, model, prompt,
                   json_object_has_member (run, "error") ? " (upstream failed: ours must generate)" : "");
        }
    }
}

/* Issue 18: a tokenizer of each format compared with upstream's text. */
static void
test_formats (void)
{
  for (guint f = EXECUTORCH_LLM_TOKENIZER_FORMAT_HUGGING_FACE; f <= EXECUTORCH_LLM_TOKENIZER_FORMAT_LLAMA2C; f++)
    {
      g_test_message ("%s: %u texts compared", upstream_class (f), compared[f]);
      g_assert_cmpuint (compared[f], >, 0);
    }
}

static void
test_edges (gconstpointer data)
{
  JsonObject *fixture = (JsonObject *) data;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmGenerator) g = load (fixture);
  g_autoptr (ExecutorchLlmGenerationConfig) config = executorch_llm_generation_config_new ();
  executorch_llm_generation_config_set_temperature (config, 0.0);
  gint64 max_seq = executorch_llm_generator_get_max_seq_len (g);
  gint64 max_context = executorch_llm_generator_get_max_context_len (g);
  JsonObject *c = json_array_get_object_element (json_object_get_array_member (fixture, "cases"), 0);
  g_autoptr (GArray) want = json_ids (json_object_get_array_member (c, "ids"));
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_signal_connect (g, "token", G_CALLBACK (on_token), got);

  /* Generating to the end of the KV cache: the same tokens as far as
   * upstream went, then a clean stop (upstream fails in the model). */
  g_autofree char *all =
      executorch_llm_generator_generate (g, json_object_get_string_member (c, "prompt"), config, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (got->len, >, want->len);
  g_assert_cmpmem (got->data, want->len * sizeof (guint32), want->data, want->len * sizeof (guint32));
  g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, max_context);
  g_assert_cmpint (executorch_llm_generator_get_stop_reason (g), ==, EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL);

  /* A prompt of exactly max_seq_len tokens (upstream's chunk is one over
   * the program's bound), and one of several chunks filling the context
   * but for the positions of the tokens generated. */
  gint64 lengths[] = { max_seq, max_context - 2 };
  for (guint k = 0; k < G_N_ELEMENTS (lengths); k++)
    {
      gint64 len = lengths[k];
      g_autoptr (GArray) prompt = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (gint64 i = 0; i < len; i++)
        g_array_append_val (prompt, g_array_index (want, guint32, i % want->len));
      executorch_llm_generator_reset (g);
      executorch_llm_generation_config_set_max_new_tokens (config, 3);
      g_autofree char *t = executorch_llm_generator_generate_tokens (g, (const guint32 *) prompt->data, prompt->len,
                                                                     config, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (executorch_llm_generator_get_position (g), ==, len + 2);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 3)
    g_error ("usage: test-upstream-generation MANIFEST.json REPOSITORY");
  repository = argv[2];
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_mapped_file (parser, argv[1], &error))
    g_error ("%s", error->message);
  dir = g_path_get_dirname (argv[1]);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  g_autofree char *tok_path = g_build_filename (dir, json_object_get_string_member (root, "tokenizer"), NULL);
  tokenizer = executorch_llm_tokenizer_new_from_file (tok_path, &error);
  if (tokenizer == NULL)
    g_error ("%s", error->message);

  fixtures = json_object_get_array_member (root, "fixtures");
  for (guint i = 0; i < json_array_get_length (fixtures); i++)
    {
      JsonObject *f = json_array_get_object_element (fixtures, i);
      /* Programs that need more of the XNNPACK delegate than it has are
       * fixtures-llm's (known failures there). */
      if (json_object_has_member (f, "needs"))
        continue;
      g_autofree char *name = g_strdup_printf ("/llm/upstream/%s", json_object_get_string_member (f, "name"));
      g_test_add_data_func (name, f, test_fixture);
      compared[executorch_llm_tokenizer_get_format (tokenizer)] +=
          json_array_get_length (json_object_get_array_member (f, "cases"));
      if (json_object_get_boolean_member (f, "kv_cache"))
        {
          g_autofree char *edges =
              g_strdup_printf ("/llm/upstream/%s/edges", json_object_get_string_member (f, "name"));
          g_test_add_data_func (edges, f, test_edges);
        }
    }
  add_tokenizer_runs (json_object_get_array_member (root, "tokenizer_runs"));
  g_test_add_func ("/llm/upstream/tokenizers/formats", test_formats);
  int rc = g_test_run ();
  g_object_unref (tokenizer);
  g_free (dir);
  return rc;
}
