/* test-tokenizer-hf.c: tokenizer.json files the reader must refuse, and its
 * own rules (BOS/EOS, counts, decode of gaps)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The matching against the reference library is test-tokenizer-corpus's
 * job (tokenizer-hf-* tests); this checks what the reference cannot tell:
 * every refusal is a GError with the right code naming the JSON path.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "tokenizer-impl.h"

/* A valid file with @model_extra inside "model" and @extra at the top. */
#define VOCAB "\"vocab\":{\"a\":0,\"b\":1,\"ab\":2,\"<s>\":3,\"</s>\":4}"
#define FILE_WITH(extra, model_extra) \
  "{" extra "\"model\":{\"type\":\"BPE\"," VOCAB ",\"merges\":[\"a b\"]" model_extra "}}"

typedef struct
{
  const char *json;
  gint code;           /* LlmTokenizerErrorCode */
  const char *message; /* a part of the message */
} BadFile;

static const BadFile bad_files[] = {
  { "{", LLM_TOKENIZER_ERROR_MALFORMED, "not valid JSON" },
  { "", LLM_TOKENIZER_ERROR_MALFORMED, "expected a JSON object" },
  { "[1, 2]", LLM_TOKENIZER_ERROR_MALFORMED, "expected a JSON object" },
  { "{}", LLM_TOKENIZER_ERROR_MALFORMED, "model: expected an object" },
  { "{\"model\":{\"type\":\"Unigram\",\"vocab\":[]}}", LLM_TOKENIZER_ERROR_UNSUPPORTED,
    "model: model Unigram is not supported" },
  { "{\"model\":{\"type\":\"WordPiece\",\"vocab\":{}}}", LLM_TOKENIZER_ERROR_UNSUPPORTED, "model WordPiece" },
  { "{\"model\":{\"type\":7}}", LLM_TOKENIZER_ERROR_MALFORMED, "model.type: expected a string" },
  { "{\"model\":{\"type\":\"BPE\",\"vocab\":[]}}", LLM_TOKENIZER_ERROR_MALFORMED, "model.vocab: expected an object" },
  { "{\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]}}", LLM_TOKENIZER_ERROR_MALFORMED,
    "model.vocab: no tokens" },
  { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":\"0\"}}}", LLM_TOKENIZER_ERROR_MALFORMED,
    "model.vocab[\"a\"]: expected an id" },
  { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":-1}}}", LLM_TOKENIZER_ERROR_MALFORMED, "model.vocab[\"a\"]" },
  { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":1.5}}}", LLM_TOKENIZER_ERROR_MALFORMED, "model.vocab[\"a\"]" },
  { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":4000000000}}}", LLM_TOKENIZER_ERROR_MALFORMED,
    "model.vocab[\"a\"]" },
  { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":99999999999999999999999}}}", LLM_TOKENIZER_ERROR_MALFORMED, "" },
  { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":0}}}", LLM_TOKENIZER_ERROR_MALFORMED, "id 0 is also" },
  { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1,\"ab\":2},\"merges\":[\"a b\",\"a zz\"]}}",
    LLM_TOKENIZER_ERROR_MALFORMED, "model.merges[1]: token \"zz\" is not in the vocabulary" },
  { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[\"a b\"]}}", LLM_TOKENIZER_ERROR_MALFORMED,
    "model.merges[0]: token \"ab\" is not in the vocabulary" },
  { FILE_WITH ("", ",\"merges\":[[\"a\",2]]"), LLM_TOKENIZER_ERROR_MALFORMED, "model.merges[0][1]: expected a string" },
  { FILE_WITH ("", ",\"merges\":[\"a b c\"]"), LLM_TOKENIZER_ERROR_MALFORMED, "model.merges[0]: expected two tokens" },
  { FILE_WITH ("", ",\"merges\":[17]"), LLM_TOKENIZER_ERROR_MALFORMED, "model.merges[0]: expected" },
  { FILE_WITH ("", ",\"merges\":{}"), LLM_TOKENIZER_ERROR_MALFORMED, "model.merges: expected an array" },
  { FILE_WITH ("", ",\"unk_token\":\"<unk>\""), LLM_TOKENIZER_ERROR_MALFORMED, "model.unk_token" },
  { FILE_WITH ("", ",\"dropout\":0.1"), LLM_TOKENIZER_ERROR_UNSUPPORTED, "model.dropout" },
  { FILE_WITH ("", ",\"byte_fallback\":\"yes\""), LLM_TOKENIZER_ERROR_MALFORMED,
    "model.byte_fallback: expected true or false" },
  { FILE_WITH ("\"added_tokens\":{},", ""), LLM_TOKENIZER_ERROR_MALFORMED, "added_tokens: expected an array" },
  { FILE_WITH ("\"added_tokens\":[{\"id\":5,\"content\":\"x\"},{\"id\":5,\"content\":\"y\"}],", ""),
    LLM_TOKENIZER_ERROR_MALFORMED, "added_tokens[1].id: id 5 is already an added token" },
  { FILE_WITH ("\"added_tokens\":[{\"id\":5}],", ""), LLM_TOKENIZER_ERROR_MALFORMED, "added_tokens[0].content" },
  { FILE_WITH ("\"added_tokens\":[{\"content\":\"x\"}],", ""), LLM_TOKENIZER_ERROR_MALFORMED,
    "added_tokens[0].id: missing" },
  { FILE_WITH ("\"added_tokens\":[{\"id\":4294967295,\"content\":\"x\"}],", ""), LLM_TOKENIZER_ERROR_MALFORMED,
    "added_tokens[0].id: expected an integer" },
  { FILE_WITH ("\"added_tokens\":[{\"id\":1e300,\"content\":\"x\"}],", ""), LLM_TOKENIZER_ERROR_MALFORMED,
    "added_tokens[0].id" },
  { FILE_WITH ("\"added_tokens\":[{\"id\":6,\"content\":\"x\",\"special\":1}],", ""), LLM_TOKENIZER_ERROR_MALFORMED,
    "added_tokens[0].special: expected true or false" },
  { FILE_WITH ("\"normalizer\":{\"type\":\"BertNormalizer\"},", ""), LLM_TOKENIZER_ERROR_UNSUPPORTED,
    "normalizer: normalizer BertNormalizer is not supported" },
  { FILE_WITH (
        "\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"NFC\"},{\"type\":\"Precompiled\"}]},", ""),
    LLM_TOKENIZER_ERROR_UNSUPPORTED, "normalizer.normalizers[1]: normalizer Precompiled is not supported" },
  { FILE_WITH ("\"normalizer\":{\"type\":\"Sequence\"},", ""), LLM_TOKENIZER_ERROR_MALFORMED,
    "normalizer.normalizers: expected an array" },
  { FILE_WITH ("\"normalizer\":{\"type\":\"Replace\",\"pattern\":{\"Regex\":\"(\"},\"content\":\"\"},", ""),
    LLM_TOKENIZER_ERROR_UNSUPPORTED, "normalizer.pattern.Regex: invalid regular expression" },
  { FILE_WITH ("\"normalizer\":{\"type\":\"Replace\",\"pattern\":{},\"content\":\"\"},", ""),
    LLM_TOKENIZER_ERROR_MALFORMED, "normalizer.pattern: expected String or Regex" },
  { FILE_WITH ("\"normalizer\":[],", ""), LLM_TOKENIZER_ERROR_MALFORMED, "normalizer: expected an object" },
  { FILE_WITH ("\"normalizer\":{\"kind\":\"NFC\"},", ""), LLM_TOKENIZER_ERROR_MALFORMED, "normalizer.type: missing" },
  { FILE_WITH ("\"pre_tokenizer\":{\"type\":\"Split\",\"pattern\":{\"Regex\":\"[a-\"},\"behavior\":\"Isolated\"},", ""),
    LLM_TOKENIZER_ERROR_UNSUPPORTED, "pre_tokenizer.pattern.Regex: invalid regular expression" },
  { FILE_WITH ("\"pre_tokenizer\":{\"type\":\"Split\",\"pattern\":{\"String\":\" \"},\"behavior\":\"Sideways\"},", ""),
    LLM_TOKENIZER_ERROR_UNSUPPORTED, "pre_tokenizer.behavior: unknown behavior Sideways" },
  { FILE_WITH ("\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Metaspace\",\"replacement\":"
               "\"ab\"}]},",
               ""),
    LLM_TOKENIZER_ERROR_MALFORMED, "pre_tokenizer.pretokenizers[0].replacement: expected one character" },
  { FILE_WITH ("\"pre_tokenizer\":{\"type\":\"Metaspace\",\"replacement\":\"_\",\"prepend_scheme\":\"sometimes\"},",
               ""),
    LLM_TOKENIZER_ERROR_UNSUPPORTED, "pre_tokenizer.prepend_scheme: unknown scheme sometimes" },
  { FILE_WITH ("\"pre_tokenizer\":{\"type\":\"UnicodeScripts\"},", ""), LLM_TOKENIZER_ERROR_UNSUPPORTED,
    "pre_tokenizer: pre_tokenizer UnicodeScripts is not supported" },
  { FILE_WITH ("\"decoder\":{\"type\":\"WordPiece\"},", ""), LLM_TOKENIZER_ERROR_UNSUPPORTED,
    "decoder: decoder WordPiece is not supported" },
  { FILE_WITH ("\"decoder\":{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Fuse\"},{\"type\":\"Strip\",\"content\":"
               "\" \",\"start\":0,\"stop\":1}]},",
               ""),
    LLM_TOKENIZER_ERROR_UNSUPPORTED, "decoder.decoders[1]: decoder Strip with stop after Fuse" },
  { FILE_WITH ("\"decoder\":{\"type\":\"Strip\",\"content\":\" \",\"start\":-1,\"stop\":0},", ""),
    LLM_TOKENIZER_ERROR_MALFORMED, "decoder.start: expected an integer" },
  { FILE_WITH ("\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<s>\"}},"
               "{\"Sequence\":{\"id\":\"A\"}}],\"special_tokens\":{\"<s>\":{\"ids\":[99]}}},",
               ""),
    LLM_TOKENIZER_ERROR_MALFORMED, "post_processor.special_tokens[\"<s>\"].ids[0]: expected an integer from 0 to 4" },
  { FILE_WITH ("\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<s>\"}},"
               "{\"Sequence\":{\"id\":\"A\"}}],\"special_tokens\":{}},",
               ""),
    LLM_TOKENIZER_ERROR_MALFORMED, "post_processor.special_tokens[\"<s>\"].ids: expected an array" },
  { FILE_WITH ("\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"Sequence\":{\"id\":\"B\"}}]},", ""),
    LLM_TOKENIZER_ERROR_UNSUPPORTED, "post_processor.single[0]: a single template holds one sequence" },
  { FILE_WITH ("\"post_processor\":{\"type\":\"Sequence\",\"processors\":[{\"type\":\"BertProcessing\",\"cls\":[\"<s>"
               "\",3]}]},",
               ""),
    LLM_TOKENIZER_ERROR_MALFORMED, "post_processor.processors[0].sep: expected [token, id]" },
  { FILE_WITH ("\"post_processor\":{\"type\":\"Frobnicate\"},", ""), LLM_TOKENIZER_ERROR_UNSUPPORTED,
    "post_processor: post_processor Frobnicate is not supported" },
};

static LlmTokenizerImpl *
load_with_config (const char *json, const char *config_name, const char *config, GError **error)
{
  g_autofree char *dir = g_dir_make_tmp ("test-tokenizer-hf-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_autofree char *file = g_build_filename (dir, "tokenizer.json", NULL);
  g_autofree char *config_file = g_build_filename (dir, config_name, NULL);
  g_assert_true (g_file_set_contents (file, json, -1, NULL));
  g_assert_true (g_file_set_contents (config_file, config, -1, NULL));
  /* A directory: its tokenizer.json, with the config beside it. */
  LlmTokenizerImpl *tok = _llm_tokenizer_load_path (dir, LLM_TOKENIZER_FORMAT_AUTO, error);
  g_remove (file);
  g_remove (config_file);
  g_rmdir (dir);
  return tok;
}

/* BOS/EOS from the configs beside the file, before the well-known names. */
static void
test_configs (void)
{
  const char *json = FILE_WITH ("\"added_tokens\":[{\"id\":3,\"content\":\"<s>\",\"special\":true},"
                                "{\"id\":4,\"content\":\"</s>\",\"special\":true}],",
                                "");
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tok =
      load_with_config (json, "tokenizer_config.json", "{\"bos_token\":{\"content\":\"ab\"},\"eos_token\":\"b\"}",
                        &error);
  g_assert_no_error (error);
  g_assert_cmpint (tok->bos_id, ==, 2);
  g_assert_cmpint (tok->eos_id, ==, 1);
  g_clear_pointer (&tok, _llm_tokenizer_free);

  /* A name the vocabulary lacks: the next rule (here the well-known names). */
  tok = load_with_config (json, "special_tokens_map.json", "{\"bos_token\":\"<nope>\",\"eos_token\":null}", &error);
  g_assert_no_error (error);
  g_assert_cmpint (tok->bos_id, ==, 3);
  g_assert_cmpint (tok->eos_id, ==, 4);
  g_clear_pointer (&tok, _llm_tokenizer_free);

  tok = load_with_config (json, "tokenizer_config.json", "{\"bos_token\":{\"content\":5}}", &error);
  g_assert_null (tok);
  g_assert_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED);
  g_assert_nonnull (strstr (error->message, "tokenizer_config.json: bos_token"));
  g_clear_error (&error);

  tok = load_with_config (json, "tokenizer_config.json", "{\"bos_token\":", &error);
  g_assert_null (tok);
  g_assert_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED);
  g_assert_nonnull (strstr (error->message, "tokenizer_config.json"));
}

/* Nested brackets past json-glib's stack. */
static void
test_deep_nesting (void)
{
  g_autoptr (GString) json = g_string_new ("{\"model\":");
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (json, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (json, ']');
  g_string_append_c (json, '}');
  g_autoptr (GBytes) bytes = g_bytes_new (json->str, json->len);
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tok =
      _llm_tokenizer_load (bytes, "/nonexistent/tokenizer.json", LLM_TOKENIZER_FORMAT_HUGGING_FACE, &error);
  g_assert_null (tok);
  g_assert_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED);
  g_assert_nonnull (strstr (error->message, "nested deeper than"));
}

static LlmTokenizerImpl *
load (const char *json, GError **error)
{
  g_autoptr (GBytes) bytes = g_bytes_new_static (json, strlen (json));
  /* A name in no directory: no tokenizer_config.json is read. */
  return _llm_tokenizer_load (bytes, "/nonexistent/tokenizer.json", LLM_TOKENIZER_FORMAT_HUGGING_FACE, error);
}

static void
test_bad_file (gconstpointer data)
{
  const BadFile *bad = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tok = load (bad->json, &error);
  g_assert_null (tok);
  g_assert_error (error, LLM_TOKENIZER_ERROR, bad->code);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "/nonexistent/tokenizer.json: "));
  g_assert_nonnull (strstr (error->message, bad->message));
}

static GArray *
encode (LlmTokenizerImpl *tok, const char *text, guint n_bos, guint n_eos, GError **error)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (!_llm_tokenizer_encode (tok, text, -1, n_bos, n_eos, ids, error))
    g_clear_pointer (&ids, g_array_unref);
  return ids;
}

static char *
ids_string (GArray *ids)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf (s, "%s%u", i ? "," : "", g_array_index (ids, guint32, i));
  return g_string_free (s, FALSE);
}

/* Without a template, the counts add BOS/EOS found by their names. */
static void
test_counts_without_template (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tok =
      load (FILE_WITH ("\"added_tokens\":[{\"id\":3,\"content\":\"<s>\",\"special\":true},"
                       "{\"id\":4,\"content\":\"</s>\",\"special\":true}],",
                       ""),
            &error);
  g_assert_no_error (error);
  g_assert_cmpint (tok->bos_id, ==, 3);
  g_assert_cmpint (tok->eos_id, ==, 4);
  g_assert_cmpuint (tok->vocab_size, ==, 5);
  g_autoptr (GArray) ids = encode (tok, "ab<s>ba", 2, 1, &error);
  g_assert_no_error (error);
  g_autofree char *s = ids_string (ids);
  g_assert_cmpstr (s, ==, "3,3,2,3,1,0,4");
}

/* With no BOS known, asking for one is an error; without a decoder the
 * pieces are joined with spaces (the reference's default). */
static void
test_no_bos (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tok = load (FILE_WITH ("", ""), &error);
  g_assert_no_error (error);
  g_assert_cmpint (tok->bos_id, ==, -1);
  g_autoptr (GArray) ids = encode (tok, "ab", 1, 0, &error);
  g_assert_null (ids);
  g_assert_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED);

  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint32 prev = G_MAXUINT32;
  for (guint32 id = 0; id < 3; prev = id++)
    g_assert_true (_llm_tokenizer_decode (tok, prev, id, out, NULL));
  g_assert_cmpmem (out->data, out->len, "a b ab", 6);
}

/* A template's counts: BOS part and EOS part each once; the template names
 * BOS and EOS when no config does. */
static void
test_template_counts (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tok =
      load (FILE_WITH ("\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<s>"
                       "\"}},"
                       "{\"Sequence\":{\"id\":\"A\"}},{\"SpecialToken\":{\"id\":\"</s>\"}}],"
                       "\"special_tokens\":{\"<s>\":{\"ids\":[3]},\"</s>\":{\"ids\":[4, 4]}}},",
                       ""),
            &error);
  g_assert_no_error (error);
  g_assert_cmpint (tok->bos_id, ==, 3);
  g_assert_cmpint (tok->eos_id, ==, 4);
  const struct
  {
    guint n_bos, n_eos;
    const char *ids;
  } cases[] = { { 0, 0, "2" }, { 1, 0, "3,2" }, { 3, 0, "3,2" }, { 0, 1, "2,4,4" }, { 2, 2, "3,2,4,4" } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GArray) ids = encode (tok, "ab", cases[i].n_bos, cases[i].n_eos, &error);
      g_assert_no_error (error);
      g_autofree char *s = ids_string (ids);
      g_assert_cmpstr (s, ==, cases[i].ids);
    }
}

/* Ids with no token (a gap in the vocabulary) decode to nothing. */
static void
test_gap (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tok =
      load ("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":7},\"merges\":[]},\"decoder\":{\"type\":\"Fuse\"}}",
            &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tok->vocab_size, ==, 8);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_assert_true (_llm_tokenizer_decode (tok, G_MAXUINT32, 0, out, NULL));
  g_assert_true (_llm_tokenizer_decode (tok, 0, 3, out, NULL));
  g_assert_true (_llm_tokenizer_decode (tok, 3, 7, out, NULL));
  g_assert_cmpmem (out->data, out->len, "ab", 2);
  guint32 id = 0;
  g_assert_true (tok->vtable->lookup (tok, "b", &id));
  g_assert_cmpuint (id, ==, 7);
  g_assert_false (tok->vtable->lookup (tok, "c", &id));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (bad_files); i++)
    {
      g_autofree char *name = g_strdup_printf ("/tokenizer/hf/bad-file/%u", i);
      g_test_add_data_func (name, &bad_files[i], test_bad_file);
    }
  g_test_add_func ("/tokenizer/hf/counts-without-template", test_counts_without_template);
  g_test_add_func ("/tokenizer/hf/no-bos", test_no_bos);
  g_test_add_func ("/tokenizer/hf/template-counts", test_template_counts);
  g_test_add_func ("/tokenizer/hf/gap", test_gap);
  g_test_add_func ("/tokenizer/hf/deep-nesting", test_deep_nesting);
  g_test_add_func ("/tokenizer/hf/configs", test_configs);
  return g_test_run ();
}
