/* test-upstream-generation.c: greedy text equal to upstream's text runner
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: test-upstream-generation MANIFEST.json (tests/models/llm)
 *
 * Through the installed API only (libexecutorch-llm.so): the fixture's
 * tokenizer.json, and each program upstream's TextLLMRunner generated with
 * (greedy, 30 new tokens, no BOS): the prompt must encode to the same ids,
 * and generation must give the same ids and the same text.  Where
 * upstream's runner fails, this one must not: a prompt of exactly
 * max_seq_len tokens, and generating to the end of the KV cache.
 */
#include <json-glib/json-glib.h>
#include <string.h>

#include <executorch-llm.h>

static char *dir;
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
  if (argc < 2)
    g_error ("usage: test-upstream-generation MANIFEST.json");
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

  JsonArray *fixtures = json_object_get_array_member (root, "fixtures");
  for (guint i = 0; i < json_array_get_length (fixtures); i++)
    {
      JsonObject *f = json_array_get_object_element (fixtures, i);
      /* Programs that need more of the XNNPACK delegate than it has are
       * fixtures-llm's (known failures there). */
      if (json_object_has_member (f, "needs"))
        continue;
      g_autofree char *name = g_strdup_printf ("/llm/upstream/%s", json_object_get_string_member (f, "name"));
      g_test_add_data_func (name, f, test_fixture);
      if (json_object_get_boolean_member (f, "kv_cache"))
        {
          g_autofree char *edges =
              g_strdup_printf ("/llm/upstream/%s/edges", json_object_get_string_member (f, "name"));
          g_test_add_data_func (edges, f, test_edges);
        }
    }
  int rc = g_test_run ();
  g_object_unref (tokenizer);
  g_free (dir);
  return rc;
}
