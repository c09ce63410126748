/* test-tokenizer-corpus.c: one tokenizer against its reference library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: test-tokenizer-corpus REFERENCE.json
 *
 * REFERENCE.json (written by the fixture scripts, from the reference
 * library: tokenizers, tiktoken or sentencepiece):
 *   { "tokenizer": "FILE relative to the json", "format": "auto|hf|tiktoken|sentencepiece|llama2c",
 *     "vocab_size": N, "bos_id": N|null, "eos_id": N|null,
 *     "cases": [ { "text": "...", "n_bos": 0, "n_eos": 0, "ids": [...],
 *                  "decoded": "..." (optional: the pieces of "ids" joined) } ] }
 * Each case is a subtest: encode must give "ids" exactly; decoding "ids"
 * token by token (each with the one before it) must give "decoded".
 */
#include <json-glib/json-glib.h>
#include <string.h>

#include "tokenizer-impl.h"

static LlmTokenizerImpl *tokenizer;

static LlmTokenizerFormat
format_from_name (const char *name)
{
  if (g_strcmp0 (name, "hf") == 0)
    return LLM_TOKENIZER_FORMAT_HUGGING_FACE;
  if (g_strcmp0 (name, "tiktoken") == 0)
    return LLM_TOKENIZER_FORMAT_TIKTOKEN;
  if (g_strcmp0 (name, "sentencepiece") == 0)
    return LLM_TOKENIZER_FORMAT_SENTENCEPIECE;
  if (g_strcmp0 (name, "llama2c") == 0)
    return LLM_TOKENIZER_FORMAT_LLAMA2C;
  return LLM_TOKENIZER_FORMAT_AUTO;
}

static char *
ids_to_string (const guint32 *ids, guint n)
{
  GString *s = g_string_new ("[");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%u", i ? "," : "", ids[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static void
test_case (gconstpointer data)
{
  JsonObject *c = (JsonObject *) data;
  const char *text = json_object_get_string_member (c, "text");
  guint n_bos = json_object_get_int_member_with_default (c, "n_bos", 0);
  guint n_eos = json_object_get_int_member_with_default (c, "n_eos", 0);
  JsonArray *want = json_object_get_array_member (c, "ids");
  guint n_want = json_array_get_length (want);
  g_autofree guint32 *want_ids = g_new0 (guint32, n_want + 1);
  for (guint i = 0; i < n_want; i++)
    want_ids[i] = (guint32) json_array_get_int_element (want, i);

  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  gboolean ok = _llm_tokenizer_encode (tokenizer, text, -1, n_bos, n_eos, ids, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  if (ids->len != n_want || (n_want > 0 && memcmp (ids->data, want_ids, n_want * sizeof (guint32)) != 0))
    {
      g_autofree char *got_s = ids_to_string ((guint32 *) ids->data, ids->len);
      g_autofree char *want_s = ids_to_string (want_ids, n_want);
      g_test_message ("text %s\n   got %s\n  want %s", text, got_s, want_s);
      g_test_fail ();
      return;
    }

  if (!json_object_has_member (c, "decoded"))
    return;
  const char *decoded = json_object_get_string_member (c, "decoded");
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint32 prev = G_MAXUINT32;
  for (guint i = 0; i < n_want; i++)
    {
      g_assert_true (_llm_tokenizer_decode (tokenizer, prev, want_ids[i], out, &error));
      g_assert_no_error (error);
      prev = want_ids[i];
    }
  g_assert_cmpmem (out->data, out->len, decoded, strlen (decoded));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 2)
    g_error ("usage: test-tokenizer-corpus REFERENCE.json");

  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_mapped_file (parser, argv[1], &error))
    g_error ("%s: %s", argv[1], error->message);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  g_autofree char *dir = g_path_get_dirname (argv[1]);
  g_autofree char *path = g_build_filename (dir, json_object_get_string_member (root, "tokenizer"), NULL);
  LlmTokenizerFormat format = format_from_name (json_object_get_string_member_with_default (root, "format", "auto"));
  tokenizer = _llm_tokenizer_load_path (path, format, &error);
  if (tokenizer == NULL)
    g_error ("%s", error->message);

  /* The loader's facts, as the reference library states them. */
  if (json_object_has_member (root, "vocab_size") &&
      tokenizer->vocab_size != (guint32) json_object_get_int_member (root, "vocab_size"))
    g_error ("vocab_size %u, reference %" G_GINT64_FORMAT, tokenizer->vocab_size,
             json_object_get_int_member (root, "vocab_size"));
  for (guint k = 0; k < 2; k++)
    {
      const char *key = k == 0 ? "bos_id" : "eos_id";
      gint64 got = k == 0 ? tokenizer->bos_id : tokenizer->eos_id;
      if (!json_object_has_member (root, key))
        continue;
      JsonNode *node = json_object_get_member (root, key);
      gint64 want = JSON_NODE_HOLDS_NULL (node) ? -1 : json_node_get_int (node);
      if (got != want)
        g_error ("%s %" G_GINT64_FORMAT ", reference %" G_GINT64_FORMAT, key, got, want);
    }

  JsonArray *cases = json_object_get_array_member (root, "cases");
  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/tokenizer/corpus/%u", i);
      g_test_add_data_func (name, json_array_get_object_element (cases, i), test_case);
    }
  int rc = g_test_run ();
  _llm_tokenizer_free (tokenizer);
  return rc;
}
