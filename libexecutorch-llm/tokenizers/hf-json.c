/* hf-json.c: Hugging Face tokenizer.json, as the `tokenizers` library reads it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Encoding follows the reference library (not upstream ExecuTorch's C++):
 *  1. added tokens with normalized=false are cut out of the raw text
 *     (leftmost-longest), honouring single_word, lstrip and rstrip;
 *  2. each remaining span is normalized (hf-normalizers.c), and added tokens
 *     with normalized=true are cut out of the result (matched against their
 *     normalized text);
 *  3. each remaining span is pre-tokenized (hf-pre-tokenizers.c) and every
 *     piece goes through the BPE model (hf-bpe.c; no other model type).
 * Decoding is token by token (hf-decoders.c says what one token decodes to,
 * so that the pieces joined equal the reference's decode of the sequence).
 *
 * BOS and EOS (n_bos, n_eos):
 *  - When the post_processor holds a TemplateProcessing (also inside a
 *    Sequence; BertProcessing and RobertaProcessing count as the template
 *    "CLS $A SEP"), n_bos > 0 adds the template's special tokens before $A
 *    and n_eos > 0 those after it, once each, whatever the count: (1, 1) is
 *    the reference's add_special_tokens=True, (0, 0) is False.  Upstream
 *    applies the whole template when either count is > 0.
 *  - Without one, n_bos copies of bos_id and n_eos of eos_id are added, as
 *    for the other formats (an error when the id is unknown).
 * bos_id and eos_id, each side on its own, come from the first of:
 *  1. special_tokens_map.json, then tokenizer_config.json, in the directory
 *     of the file: "bos_token"/"eos_token", a string or {"content": ...}
 *     (a name no token has goes on to the next rule; a config that is not
 *     JSON is an error);
 *  2. the template: its first special token before $A (BOS), its last one
 *     after $A (EOS);
 *  3. an added special token with a well-known name: BOS <|begin_of_text|>,
 *     <s>, <bos>, <|startoftext|>, <|endoftext|>; EOS <|end_of_text|>, </s>,
 *     <eos>, <|endoftext|>, <|im_end|> (the first found in that order).
 *
 * Not supported (a GError naming the component): models other than BPE, BPE
 * dropout, normalizers BertNormalizer and Precompiled, pre-tokenizers
 * UnicodeScripts, FixedLength and Metaspace with unknown schemes, decoders
 * WordPiece, BPEDecoder and CTC, ByteFallback or Strip's stop after Fuse,
 * post-processors other than the ones above.  Refused although the
 * reference loads them: an unk_token missing from the vocabulary, ids far
 * past the number of tokens (they must be dense), JSON nested deeper than
 * 128 levels.  Known differences: Metaspace's prepend_scheme "first" treats
 * a span as first when it starts the text (the reference looks at original
 * offsets, which a Strip normalizer shifts); a run of <0xHH> tokens that is
 * not UTF-8 decodes to its bytes, not U+FFFD; Unicode tables are GLib's and
 * PCRE2's rather than Rust's and Oniguruma's (\w is rewritten to
 * Oniguruma's meaning).
 */
#include "hf-private.h"

#include <string.h>

typedef struct
{
  LlmTokenizerImpl parent;
  HfNormalizer *normalizer;
  HfPreTokenizer *pre_tokenizer;
  HfBpe *model;
  HfDecoder *decoder;
  HfAddedVocab *added;
  gboolean has_template;
  GArray *prefix, *suffix; /* guint32: the template's ids around $A */
} HfTokenizer;

/* --- Post-processor ------------------------------------------------------ */

static gboolean
parse_template (HfTokenizer *self, JsonObject *obj, const char *path, GArray *prefix, GArray *suffix, GError **error)
{
  JsonNode *single = _hf_json_member (obj, "single");
  JsonObject *specials = _hf_json_object (_hf_json_member (obj, "special_tokens"), "special_tokens", NULL);
  if (single == NULL || !JSON_NODE_HOLDS_ARRAY (single))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.single: expected an array", path);
      return FALSE;
    }
  JsonArray *items = json_node_get_array (single);
  gboolean seen_a = FALSE;
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      g_autofree char *item_path = g_strdup_printf ("%s.single[%u]", path, i);
      JsonObject *item = _hf_json_object (json_array_get_element (items, i), item_path, error);
      if (item == NULL)
        return FALSE;
      JsonNode *seq = _hf_json_member (item, "Sequence"), *special = _hf_json_member (item, "SpecialToken");
      if (seq != NULL && JSON_NODE_HOLDS_OBJECT (seq))
        {
          const char *id = NULL;
          if (!_hf_json_string (json_node_get_object (seq), "id", item_path, NULL, &id, error))
            return FALSE;
          if (g_strcmp0 (id, "A") != 0 || seen_a)
            {
              g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED,
                           "%s: a single template holds one sequence, $A", item_path);
              return FALSE;
            }
          seen_a = TRUE;
          continue;
        }
      const char *name = NULL;
      if (special == NULL || !JSON_NODE_HOLDS_OBJECT (special) ||
          !_hf_json_string (json_node_get_object (special), "id", item_path, NULL, &name, error) || name == NULL)
        {
          if (error == NULL || *error == NULL)
            g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                         "%s: expected Sequence or SpecialToken", item_path);
          return FALSE;
        }
      JsonNode *entry = specials != NULL ? _hf_json_member (specials, name) : NULL;
      JsonNode *ids = entry != NULL && JSON_NODE_HOLDS_OBJECT (entry)
                          ? _hf_json_member (json_node_get_object (entry), "ids")
                          : NULL;
      if (ids == NULL || !JSON_NODE_HOLDS_ARRAY (ids))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s.special_tokens[\"%s\"].ids: expected an array", path, name);
          return FALSE;
        }
      JsonArray *id_array = json_node_get_array (ids);
      for (guint k = 0; k < json_array_get_length (id_array); k++)
        {
          g_autofree char *id_path = g_strdup_printf ("%s.special_tokens[\"%s\"].ids[%u]", path, name, k);
          guint64 id = 0;
          if (!_hf_json_node_uint (json_array_get_element (id_array, k), id_path, self->parent.vocab_size - 1, &id,
                                   error))
            return FALSE;
          guint32 v = (guint32) id;
          g_array_append_val (seen_a ? suffix : prefix, v);
        }
    }
  if (!seen_a)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED, "%s.single: no $A sequence", path);
      return FALSE;
    }
  return TRUE;
}

/* "cls"/"sep": ["<s>", 0] */
static gboolean
parse_cls_sep (HfTokenizer *self, JsonObject *obj, const char *name, const char *path, GArray *out, GError **error)
{
  g_autofree char *member_path = g_strdup_printf ("%s.%s", path, name);
  JsonNode *node = _hf_json_member (obj, name);
  guint64 id = 0;
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) != 2)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: expected [token, id]", member_path);
      return FALSE;
    }
  g_autofree char *id_path = g_strdup_printf ("%s[1]", member_path);
  if (!_hf_json_node_uint (json_array_get_element (json_node_get_array (node), 1), id_path, self->parent.vocab_size - 1,
                           &id, error))
    return FALSE;
  guint32 v = (guint32) id;
  g_array_append_val (out, v);
  return TRUE;
}

static gboolean
parse_post_processor (gpointer data, JsonNode *node, const char *path, GError **error)
{
  HfTokenizer *self = data;
  JsonObject *obj = NULL;
  const char *type = NULL;
  if (!_hf_json_component (node, path, &obj, &type, error))
    return FALSE;
  if (obj == NULL || strcmp (type, "ByteLevel") == 0)
    return TRUE; /* none, or offsets only */
  if (strcmp (type, "Sequence") == 0)
    return _hf_json_each (obj, "processors", path, parse_post_processor, self, error);

  /* Each template wraps what the ones before it made. */
  g_autoptr (GArray) prefix = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GArray) suffix = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (strcmp (type, "TemplateProcessing") == 0)
    {
      if (!parse_template (self, obj, path, prefix, suffix, error))
        return FALSE;
    }
  else if (strcmp (type, "BertProcessing") == 0 || strcmp (type, "RobertaProcessing") == 0)
    {
      if (!parse_cls_sep (self, obj, "cls", path, prefix, error) ||
          !parse_cls_sep (self, obj, "sep", path, suffix, error))
        return FALSE;
    }
  else
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED,
                   "%s: post_processor %s is not supported", path, type);
      return FALSE;
    }
  self->has_template = TRUE;
  g_array_prepend_vals (self->prefix, prefix->data, prefix->len);
  g_array_append_vals (self->suffix, suffix->data, suffix->len);
  return TRUE;
}

/* --- BOS and EOS --------------------------------------------------------- */

static gboolean
lookup (LlmTokenizerImpl *impl, const char *piece, guint32 *id)
{
  HfTokenizer *self = (HfTokenizer *) impl;
  const HfAddedToken *t = _hf_added_by_content (self->added, piece);
  if (t != NULL)
    {
      *id = t->id;
      return TRUE;
    }
  return _hf_bpe_lookup (self->model, piece, id);
}

/* json-glib's parser recurses once per level, with no limit of its own: a
 * file of nested brackets would overflow the stack.  tokenizer.json nests
 * about ten levels deep. */
#define MAX_NESTING 128

static gboolean
check_nesting (const char *data, gsize size, const char *name, GError **error)
{
  guint depth = 0;
  gboolean in_string = FALSE;
  for (gsize i = 0; i < size; i++)
    {
      char c = data[i];
      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > MAX_NESTING)
            {
              g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                           "%s: JSON nested deeper than %d levels (at byte %" G_GSIZE_FORMAT ")", name, MAX_NESTING, i);
              return FALSE;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }
  return TRUE;
}

/* @data (@size bytes of the file @name) parsed into @parser. */
static gboolean
parse_json (JsonParser *parser, const char *data, gsize size, const char *name, GError **error)
{
  if (!check_nesting (data, size, name, error))
    return FALSE;
  g_autoptr (GError) local = NULL;
  if (size > G_MAXSSIZE || !json_parser_load_from_data (parser, data != NULL ? data : "", size, &local))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: not valid JSON: %s", name,
                   local != NULL ? local->message : "too large");
      return FALSE;
    }
  return TRUE;
}

/* "bos_token" in a config beside the file: "<s>" or {"content": "<s>"}. */
static gboolean
config_token (HfTokenizer *self, JsonObject *config, const char *key, const char *file, gint64 *id, GError **error)
{
  JsonNode *node = _hf_json_member (config, key);
  const char *content = NULL;
  if (node == NULL || *id >= 0)
    return TRUE;
  if (_hf_json_holds (node, G_TYPE_STRING))
    content = json_node_get_string (node);
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonNode *inner = _hf_json_member (json_node_get_object (node), "content");
      content = inner != NULL && _hf_json_holds (inner, G_TYPE_STRING) ? json_node_get_string (inner) : NULL;
    }
  if (content == NULL)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: %s: expected a string or an object with \"content\"", file, key);
      return FALSE;
    }
  guint32 found;
  if (lookup (&self->parent, content, &found))
    *id = found;
  return TRUE;
}

static gboolean
read_configs (HfTokenizer *self, const char *name, GError **error)
{
  static const char *const files[] = { "special_tokens_map.json", "tokenizer_config.json" };
  g_autofree char *dir = g_path_get_dirname (name);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *file = g_build_filename (dir, files[i], NULL);
      if (!g_file_test (file, G_FILE_TEST_IS_REGULAR))
        continue;
      g_autoptr (JsonParser) parser = json_parser_new_immutable ();
      g_autoptr (GError) local = NULL;
      g_autoptr (GMappedFile) mapped = g_mapped_file_new (file, FALSE, &local);
      if (mapped == NULL)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: %s", file, local->message);
          return FALSE;
        }
      if (!parse_json (parser, g_mapped_file_get_contents (mapped), g_mapped_file_get_length (mapped), file, error))
        return FALSE;
      JsonNode *root = json_parser_get_root (parser);
      if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
        continue;
      JsonObject *config = json_node_get_object (root);
      if (!config_token (self, config, "bos_token", file, &self->parent.bos_id, error) ||
          !config_token (self, config, "eos_token", file, &self->parent.eos_id, error))
        return FALSE;
    }
  return TRUE;
}

static void
well_known (HfTokenizer *self, const char *const *names, gint64 *id)
{
  for (guint i = 0; names[i] != NULL && *id < 0; i++)
    {
      const HfAddedToken *t = _hf_added_by_content (self->added, names[i]);
      if (t != NULL && t->special)
        *id = t->id;
    }
}

static gboolean
find_bos_eos (HfTokenizer *self, const char *name, GError **error)
{
  static const char *const bos_names[] = {
    "<|begin_of_text|>", "<s>", "<bos>", "<|startoftext|>", "<|endoftext|>", NULL
  };
  static const char *const eos_names[] = { "<|end_of_text|>", "</s>", "<eos>", "<|endoftext|>", "<|im_end|>", NULL };
  self->parent.bos_id = self->parent.eos_id = -1;
  if (name != NULL && !read_configs (self, name, error))
    return FALSE;
  if (self->parent.bos_id < 0 && self->prefix->len > 0)
    self->parent.bos_id = g_array_index (self->prefix, guint32, 0);
  if (self->parent.eos_id < 0 && self->suffix->len > 0)
    self->parent.eos_id = g_array_index (self->suffix, guint32, self->suffix->len - 1);
  well_known (self, bos_names, &self->parent.bos_id);
  well_known (self, eos_names, &self->parent.eos_id);
  return TRUE;
}

/* --- Encoding and decoding ----------------------------------------------- */

/* Normalizes, pre-tokenizes and encodes one text span (no added token in it
 * that is matched on raw text). */
static gboolean
encode_span (HfTokenizer *self, const char *text, gsize len, gboolean at_start, GArray *ids, GError **error)
{
  g_autoptr (GString) normal =
      self->normalizer != NULL ? _hf_normalizer_apply (self->normalizer, text, len) : g_string_new_len (text, len);
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (HfSpan));
  _hf_added_find (self->added, TRUE, normal->str, normal->len, spans);
  g_autoptr (GArray) pieces = _hf_pieces_new ();
  for (guint i = 0; i < spans->len; i++)
    {
      HfSpan *s = &g_array_index (spans, HfSpan, i);
      if (s->token != NULL)
        {
          g_array_append_val (ids, s->token->id);
          continue;
        }
      g_array_set_size (pieces, 0);
      _hf_pieces_add (pieces, normal->str + s->start, s->end - s->start, at_start && s->start == 0);
      if (self->pre_tokenizer != NULL)
        _hf_pre_tokenizer_apply (self->pre_tokenizer, pieces);
      for (guint k = 0; k < pieces->len; k++)
        {
          HfPiece *piece = &g_array_index (pieces, HfPiece, k);
          /* The BPE model numbers a word's symbols with 32 bits. */
          if (piece->len >= G_MAXUINT32 - 2)
            {
              g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_INVALID_TEXT,
                           "a word of %" G_GSIZE_FORMAT " bytes is too long (4 GiB at most)", piece->len);
              return FALSE;
            }
          _hf_bpe_encode (self->model, piece->text, piece->len, ids);
        }
    }
  return TRUE;
}

static gboolean
encode (LlmTokenizerImpl *impl, const char *text, gsize len, guint n_bos, guint n_eos, GArray *ids, GError **error)
{
  HfTokenizer *self = (HfTokenizer *) impl;
  if (self->has_template)
    {
      if (n_bos > 0)
        g_array_append_vals (ids, self->prefix->data, self->prefix->len);
    }
  else if (!_llm_tokenizer_add_bos (impl, n_bos, ids, error))
    return FALSE;

  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (HfSpan));
  _hf_added_find (self->added, FALSE, text, len, spans);
  for (guint i = 0; i < spans->len; i++)
    {
      HfSpan *s = &g_array_index (spans, HfSpan, i);
      if (s->token != NULL)
        g_array_append_val (ids, s->token->id);
      else if (!encode_span (self, text + s->start, s->end - s->start, s->start == 0, ids, error))
        return FALSE;
    }

  if (self->has_template)
    {
      if (n_eos > 0)
        g_array_append_vals (ids, self->suffix->data, self->suffix->len);
      return TRUE;
    }
  return _llm_tokenizer_add_eos (impl, n_eos, ids, error);
}

static gboolean
decode (LlmTokenizerImpl *impl, guint32 prev, guint32 id, GByteArray *out, GError **error)
{
  HfTokenizer *self = (HfTokenizer *) impl;
  const HfAddedToken *added = _hf_added_by_id (self->added, id);
  /* A normalized added token decodes as its normalized text, as in the
   * reference. */
  const char *text = added != NULL ? added->match : _hf_bpe_token (self->model, id);
  if (text == NULL)
    return TRUE; /* an id no token has: the reference skips it */
  g_autoptr (GByteArray) piece = g_byte_array_new ();
  g_byte_array_append (piece, (const guint8 *) text, strlen (text));
  _hf_decoder_apply (self->decoder, prev == G_MAXUINT32, piece);
  g_byte_array_append (out, piece->data, piece->len);
  return TRUE;
}

static void
hf_free (LlmTokenizerImpl *impl)
{
  HfTokenizer *self = (HfTokenizer *) impl;
  _hf_normalizer_free (self->normalizer);
  _hf_pre_tokenizer_free (self->pre_tokenizer);
  _hf_bpe_free (self->model);
  _hf_decoder_free (self->decoder);
  _hf_added_free (self->added);
  g_array_unref (self->prefix);
  g_array_unref (self->suffix);
  g_free (self);
}

static const LlmTokenizerVTable hf_vtable = {
  .name = "Hugging Face",
  .free = hf_free,
  .encode = encode,
  .decode = decode,
  .lookup = lookup,
};

static gboolean
load_components (HfTokenizer *self, JsonObject *root, const char *name, GError **error)
{
  if (!_hf_normalizer_parse (_hf_json_member (root, "normalizer"), "normalizer", &self->normalizer, error) ||
      !_hf_pre_tokenizer_parse (_hf_json_member (root, "pre_tokenizer"), "pre_tokenizer", &self->pre_tokenizer, error))
    return FALSE;
  JsonNode *model = json_object_get_member (root, "model");
  self->model = _hf_bpe_parse (model, "model", error);
  if (self->model == NULL)
    return FALSE;
  /* Added ids may go past the vocabulary, not without bound. */
  guint64 max_id = 2 * ((guint64) _hf_bpe_id_limit (self->model) + 1024) + 1024;
  JsonNode *added = _hf_json_member (root, "added_tokens");
  if (added != NULL && JSON_NODE_HOLDS_ARRAY (added))
    max_id += 2 * (guint64) json_array_get_length (json_node_get_array (added));
  self->added = _hf_added_parse (added, self->normalizer, MIN (max_id, G_MAXUINT32 - 1), error);
  if (self->added == NULL)
    return FALSE;
  self->parent.vocab_size = _hf_bpe_id_limit (self->model);
  self->parent.vocab_size = MAX (self->parent.vocab_size, self->added->id_limit);
  if (self->parent.vocab_size == 0)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "model.vocab: no tokens");
      return FALSE;
    }
  return parse_post_processor (self, _hf_json_member (root, "post_processor"), "post_processor", error) &&
         _hf_decoder_parse (_hf_json_member (root, "decoder"), "decoder", &self->decoder, error) &&
         find_bos_eos (self, name, error);
}

LlmTokenizerImpl *
_llm_hf_load (GBytes *contents, const char *name, GError **error)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (contents, &size);
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  if (!parse_json (parser, data, size, name, error))
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: expected a JSON object", name);
      return NULL;
    }

  HfTokenizer *self = g_new0 (HfTokenizer, 1);
  self->parent.vtable = &hf_vtable;
  self->parent.bos_id = self->parent.eos_id = -1;
  self->prefix = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->suffix = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GError) load_error = NULL;
  if (!load_components (self, json_node_get_object (root), name, &load_error))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, load_error->code, "%s: %s", name, load_error->message);
      hf_free (&self->parent);
      return NULL;
    }
  return &self->parent;
}
