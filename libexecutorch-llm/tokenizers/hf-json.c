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
 *     of the file: "bos_token"/"eos_token", a string or {"content": ...};
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
 * post-processors other than the ones above.  Known differences: Metaspace's
 * prepend_scheme "first" treats a span as first when it starts the text
 * (the reference looks at original offsets, which a Strip normalizer shifts);
 * Unicode tables are GLib's and PCRE2's rather than Rust's and Oniguruma's.
 */
#include "hf-private.h"

#include <string.h>

typedef struct
{
  guint32 id;
  char *content;
  char *match; /* content, normalized when the token is */
  gsize match_len;
  gboolean single_word, lstrip, rstrip, normalized, special;
} AddedToken;

/* Added tokens matched in one pass, indexed by their first byte. */
typedef struct
{
  GPtrArray *by_byte[256]; /* AddedToken, longest first */
  gboolean empty;
} AddedSet;

typedef struct
{
  LlmTokenizerImpl parent;
  HfNormalizer *normalizer;
  HfPreTokenizer *pre_tokenizer;
  HfBpe *model;
  HfDecoder *decoder;
  GArray *added;           /* AddedToken */
  GHashTable *added_by_id; /* id -> AddedToken */
  GHashTable *added_by_content;
  AddedSet raw_set, normalized_set;
  gboolean has_template;
  GArray *prefix, *suffix; /* guint32: the template's ids around $A */
} HfTokenizer;

/* --- JSON helpers ------------------------------------------------------ */

static JsonNode *
member (JsonObject *obj, const char *name)
{
  JsonNode *node = json_object_get_member (obj, name);
  return node == NULL || JSON_NODE_HOLDS_NULL (node) ? NULL : node;
}

static gboolean
holds (JsonNode *node, GType type)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

gboolean
_hf_json_string (JsonObject *obj, const char *name, const char *path, const char *fallback, const char **out,
                 GError **error)
{
  JsonNode *node = member (obj, name);
  *out = fallback;
  if (node == NULL)
    return TRUE;
  if (!holds (node, G_TYPE_STRING))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.%s: expected a string", path, name);
      return FALSE;
    }
  *out = json_node_get_string (node);
  return TRUE;
}

gboolean
_hf_json_bool (JsonObject *obj, const char *name, const char *path, gboolean fallback, gboolean *out, GError **error)
{
  JsonNode *node = member (obj, name);
  *out = fallback;
  if (node == NULL)
    return TRUE;
  if (!holds (node, G_TYPE_BOOLEAN))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.%s: expected true or false", path,
                   name);
      return FALSE;
    }
  *out = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
node_uint (JsonNode *node, const char *path, guint64 max, guint64 *out, GError **error)
{
  if (!holds (node, G_TYPE_INT64) || json_node_get_int (node) < 0 || (guint64) json_node_get_int (node) > max)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: expected an integer from 0 to %" G_GUINT64_FORMAT, path, max);
      return FALSE;
    }
  *out = (guint64) json_node_get_int (node);
  return TRUE;
}

gboolean
_hf_json_uint (JsonObject *obj, const char *name, const char *path, guint64 fallback, guint64 max, guint64 *out,
               GError **error)
{
  JsonNode *node = member (obj, name);
  *out = fallback;
  if (node == NULL)
    return TRUE;
  g_autofree char *member_path = g_strdup_printf ("%s.%s", path, name);
  return node_uint (node, member_path, max, out, error);
}

JsonObject *
_hf_json_object (JsonNode *node, const char *path, GError **error)
{
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: expected an object", path);
      return NULL;
    }
  return json_node_get_object (node);
}

const char *
_hf_json_type (JsonObject *obj, const char *path, GError **error)
{
  const char *type = NULL;
  if (!_hf_json_string (obj, "type", path, NULL, &type, error))
    return NULL;
  if (type == NULL)
    g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.type: missing", path);
  return type;
}

/* Oniguruma's \w and \W (letters, marks, digits, connectors) in PCRE2's
 * words; everything else means the same in both for tokenizer patterns. */
static char *
onig_to_pcre (const char *pattern)
{
  GString *out = g_string_new (NULL);
  guint depth = 0; /* inside a character class */
  for (const char *p = pattern; *p != '\0'; p++)
    {
      if (*p == '\\' && p[1] != '\0')
        {
          p++;
          if (*p == 'w')
            g_string_append (out, depth > 0 ? HF_WORD_CLASS : "[" HF_WORD_CLASS "]");
          else if (*p == 'W' && depth == 0)
            g_string_append (out, "[^" HF_WORD_CLASS "]");
          else
            {
              g_string_append_c (out, '\\');
              g_string_append_c (out, *p);
            }
          continue;
        }
      g_string_append_c (out, *p);
      if (*p == '[' && depth > 0 && p[1] == ':')
        {
          /* [:alpha:] inside a class */
          const char *end = strstr (p, ":]");
          if (end != NULL)
            {
              g_string_append_len (out, p + 1, end + 1 - p);
              p = end + 1;
            }
        }
      else if (*p == '[')
        {
          depth++;
          if (p[1] == '^')
            g_string_append_c (out, *++p);
          if (p[1] == ']')
            g_string_append_c (out, *++p); /* a literal ] first in the class */
        }
      else if (*p == ']' && depth > 0)
        depth--;
    }
  return g_string_free (out, FALSE);
}

GRegex *
_hf_json_pattern (JsonObject *obj, const char *name, const char *path, const char **literal, GError **error)
{
  g_autofree char *pattern_path = g_strdup_printf ("%s.%s", path, name);
  JsonObject *pattern = _hf_json_object (member (obj, name), pattern_path, error);
  if (pattern == NULL)
    return NULL;
  const char *string = NULL, *regex = NULL;
  if (!_hf_json_string (pattern, "String", pattern_path, NULL, &string, error) ||
      !_hf_json_string (pattern, "Regex", pattern_path, NULL, &regex, error))
    return NULL;
  if ((string == NULL) == (regex == NULL))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: expected String or Regex",
                   pattern_path);
      return NULL;
    }
  *literal = string;
  g_autofree char *escaped = string != NULL ? g_regex_escape_string (string, -1) : onig_to_pcre (regex);
  g_autoptr (GError) regex_error = NULL;
  /* Oniguruma's Ruby syntax, which the reference uses, has ^ and $ match at
   * line ends. */
  GRegex *compiled = g_regex_new (escaped, G_REGEX_OPTIMIZE | G_REGEX_MULTILINE, 0, &regex_error);
  if (compiled == NULL)
    g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED, "%s.%s: invalid regular expression: %s",
                 pattern_path, string != NULL ? "String" : "Regex", regex_error->message);
  return compiled;
}

/* --- Unicode classes and the byte alphabet ------------------------------- */

gboolean
_hf_is_white_space (gunichar c)
{
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

gboolean
_hf_is_word_char (gunichar c)
{
  switch (g_unichar_type (c))
    {
      case G_UNICODE_LOWERCASE_LETTER:
      case G_UNICODE_MODIFIER_LETTER:
      case G_UNICODE_OTHER_LETTER:
      case G_UNICODE_TITLECASE_LETTER:
      case G_UNICODE_UPPERCASE_LETTER:
      case G_UNICODE_LETTER_NUMBER:
      case G_UNICODE_DECIMAL_NUMBER:
      case G_UNICODE_SPACING_MARK:
      case G_UNICODE_ENCLOSING_MARK:
      case G_UNICODE_NON_SPACING_MARK:
      case G_UNICODE_CONNECT_PUNCTUATION: return TRUE;
      default: return c == 0x200C || c == 0x200D || (c >= 0x24B6 && c <= 0x24E9) || (c >= 0x1F130 && c <= 0x1F189);
    }
}

static gboolean
byte_is_printable (guint b)
{
  return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

static gunichar byte_chars[256];

static void
init_byte_chars (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done))
    {
      gunichar next = 0x100;
      for (guint b = 0; b < 256; b++)
        byte_chars[b] = byte_is_printable (b) ? b : next++;
      g_once_init_leave (&done, 1);
    }
}

gunichar
_hf_byte_to_char (guint8 byte)
{
  init_byte_chars ();
  return byte_chars[byte];
}

int
_hf_char_to_byte (gunichar c)
{
  init_byte_chars ();
  if (c < 0x100)
    return byte_is_printable (c) ? (int) c : -1;
  if (c < 0x100 + 68)
    for (guint b = 0; b < 256; b++)
      if (byte_chars[b] == c)
        return (int) b;
  return -1;
}

/* --- Added tokens -------------------------------------------------------- */

static void
added_token_clear (gpointer data)
{
  AddedToken *t = data;
  g_free (t->content);
  g_free (t->match);
}

static void
added_set_clear (AddedSet *set)
{
  for (guint b = 0; b < 256; b++)
    g_clear_pointer (&set->by_byte[b], g_ptr_array_unref);
}

static gint
longest_first (gconstpointer a, gconstpointer b)
{
  const AddedToken *ta = *(AddedToken *const *) a, *tb = *(AddedToken *const *) b;
  return ta->match_len < tb->match_len ? 1 : ta->match_len > tb->match_len ? -1 : 0;
}

static void
added_set_build (AddedSet *set, GArray *added, gboolean normalized)
{
  set->empty = TRUE;
  for (guint i = 0; i < added->len; i++)
    {
      AddedToken *t = &g_array_index (added, AddedToken, i);
      if (t->normalized != normalized || t->match_len == 0)
        continue;
      guint8 first = (guint8) t->match[0];
      if (set->by_byte[first] == NULL)
        set->by_byte[first] = g_ptr_array_new ();
      g_ptr_array_add (set->by_byte[first], t);
      set->empty = FALSE;
    }
  for (guint b = 0; b < 256; b++)
    if (set->by_byte[b] != NULL)
      g_ptr_array_sort (set->by_byte[b], longest_first);
}

static gboolean
parse_added_tokens (HfTokenizer *self, JsonObject *root, guint64 max_id, GError **error)
{
  JsonNode *node = member (root, "added_tokens");
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "added_tokens: expected an array");
      return FALSE;
    }
  JsonArray *array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *path = g_strdup_printf ("added_tokens[%u]", i);
      g_autofree char *id_path = g_strdup_printf ("added_tokens[%u].id", i);
      JsonObject *obj = _hf_json_object (json_array_get_element (array, i), path, error);
      if (obj == NULL)
        return FALSE;
      AddedToken t = { 0 };
      guint64 id = 0;
      const char *content = NULL;
      JsonNode *id_node = json_object_get_member (obj, "id");
      if (id_node == NULL || !node_uint (id_node, id_path, max_id, &id, error) ||
          !_hf_json_string (obj, "content", path, NULL, &content, error) ||
          !_hf_json_bool (obj, "single_word", path, FALSE, &t.single_word, error) ||
          !_hf_json_bool (obj, "lstrip", path, FALSE, &t.lstrip, error) ||
          !_hf_json_bool (obj, "rstrip", path, FALSE, &t.rstrip, error) ||
          !_hf_json_bool (obj, "special", path, FALSE, &t.special, error) ||
          !_hf_json_bool (obj, "normalized", path, !t.special, &t.normalized, error))
        {
          if (id_node == NULL)
            g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: missing", id_path);
          return FALSE;
        }
      if (content == NULL)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.content: missing", path);
          return FALSE;
        }
      t.id = (guint32) id;
      if (g_hash_table_contains (self->added_by_id, GUINT_TO_POINTER (t.id)))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: id %u is already an added token",
                       id_path, t.id);
          return FALSE;
        }
      t.content = g_strdup (content);
      if (t.normalized && self->normalizer != NULL)
        t.match = g_string_free (_hf_normalizer_apply (self->normalizer, content, strlen (content)), FALSE);
      else
        t.match = g_strdup (content);
      t.match_len = strlen (t.match);
      g_array_append_val (self->added, t);
      /* A placeholder until the array stops growing (pointers move). */
      g_hash_table_insert (self->added_by_id, GUINT_TO_POINTER (t.id), NULL);
    }
  g_hash_table_remove_all (self->added_by_id);
  for (guint i = 0; i < self->added->len; i++)
    {
      AddedToken *t = &g_array_index (self->added, AddedToken, i);
      g_hash_table_insert (self->added_by_id, GUINT_TO_POINTER (t->id), t);
      if (!g_hash_table_contains (self->added_by_content, t->content))
        g_hash_table_insert (self->added_by_content, t->content, t);
    }
  added_set_build (&self->raw_set, self->added, FALSE);
  added_set_build (&self->normalized_set, self->added, TRUE);
  return TRUE;
}

static gboolean
ends_with_word (const char *text, gsize len)
{
  if (len == 0)
    return FALSE;
  const char *last = g_utf8_find_prev_char (text, text + len);
  return last != NULL && _hf_is_word_char (g_utf8_get_char (last));
}

typedef struct
{
  gsize start, end;
  const AddedToken *token; /* NULL: text */
} Span;

static void
add_span (GArray *spans, gsize start, gsize end, const AddedToken *token)
{
  Span s = { start, end, token };
  g_array_append_val (spans, s);
}

/* The reference's AddedVocabulary::find_matches over @text. */
static void
find_added (const AddedSet *set, const char *text, gsize len, GArray *spans)
{
  gsize start_offset = 0, i = 0;
  while (!set->empty && i < len)
    {
      const GPtrArray *bucket = set->by_byte[(guint8) text[i]];
      const AddedToken *hit = NULL;
      for (guint k = 0; bucket != NULL && k < bucket->len && hit == NULL; k++)
        {
          const AddedToken *t = g_ptr_array_index (bucket, k);
          if (t->match_len <= len - i && memcmp (text + i, t->match, t->match_len) == 0)
            hit = t;
        }
      if (hit == NULL)
        {
          i++;
          continue;
        }
      gsize start = i, stop = i + hit->match_len;
      i = stop; /* the search goes on after the match, whatever becomes of it */
      if (hit->single_word)
        {
          gboolean start_space = start == 0 || !ends_with_word (text, start);
          gboolean stop_space = stop == len || !_hf_is_word_char (g_utf8_get_char (text + stop));
          if (!start_space || !stop_space)
            continue;
        }
      if (hit->lstrip)
        {
          gsize new_start = start;
          while (new_start > 0)
            {
              const char *prev = g_utf8_find_prev_char (text, text + new_start);
              if (prev == NULL || !_hf_is_white_space (g_utf8_get_char (prev)))
                break;
              new_start = prev - text;
            }
          start = MAX (new_start, start_offset);
        }
      if (hit->rstrip)
        while (stop < len && _hf_is_white_space (g_utf8_get_char (text + stop)))
          stop = g_utf8_next_char (text + stop) - text;
      if (start_offset < start)
        add_span (spans, start_offset, start, NULL);
      add_span (spans, start, stop, hit);
      start_offset = stop;
    }
  if (start_offset < len)
    add_span (spans, start_offset, len, NULL);
}

/* --- Post-processor ------------------------------------------------------ */

static gboolean
parse_template (HfTokenizer *self, JsonObject *obj, const char *path, GArray *prefix, GArray *suffix, GError **error)
{
  JsonNode *single = member (obj, "single");
  JsonObject *specials = _hf_json_object (member (obj, "special_tokens"), "special_tokens", NULL);
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
      JsonNode *seq = member (item, "Sequence"), *special = member (item, "SpecialToken");
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
      JsonNode *entry = specials != NULL ? member (specials, name) : NULL;
      JsonNode *ids =
          entry != NULL && JSON_NODE_HOLDS_OBJECT (entry) ? member (json_node_get_object (entry), "ids") : NULL;
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
          if (!node_uint (json_array_get_element (id_array, k), id_path, self->parent.vocab_size - 1, &id, error))
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
  JsonNode *node = member (obj, name);
  guint64 id = 0;
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) != 2)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: expected [token, id]", member_path);
      return FALSE;
    }
  g_autofree char *id_path = g_strdup_printf ("%s[1]", member_path);
  if (!node_uint (json_array_get_element (json_node_get_array (node), 1), id_path, self->parent.vocab_size - 1, &id,
                  error))
    return FALSE;
  guint32 v = (guint32) id;
  g_array_append_val (out, v);
  return TRUE;
}

static gboolean
parse_post_processor (HfTokenizer *self, JsonNode *node, const char *path, GError **error)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  JsonObject *obj = _hf_json_object (node, path, error);
  const char *type = obj != NULL ? _hf_json_type (obj, path, error) : NULL;
  if (type == NULL)
    return FALSE;
  if (strcmp (type, "ByteLevel") == 0)
    return TRUE; /* offsets only */
  if (strcmp (type, "Sequence") == 0)
    {
      JsonNode *list = member (obj, "processors");
      if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.processors: expected an array",
                       path);
          return FALSE;
        }
      JsonArray *array = json_node_get_array (list);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          g_autofree char *child_path = g_strdup_printf ("%s.processors[%u]", path, i);
          if (!parse_post_processor (self, json_array_get_element (array, i), child_path, error))
            return FALSE;
        }
      return TRUE;
    }
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
  const AddedToken *t = g_hash_table_lookup (self->added_by_content, piece);
  if (t != NULL)
    {
      *id = t->id;
      return TRUE;
    }
  return _hf_bpe_lookup (self->model, piece, id);
}

/* "bos_token" in a config beside the file: "<s>" or {"content": "<s>"}. */
static gboolean
config_token (HfTokenizer *self, JsonObject *config, const char *key, const char *file, gint64 *id, GError **error)
{
  JsonNode *node = member (config, key);
  const char *content = NULL;
  if (node == NULL || *id >= 0)
    return TRUE;
  if (holds (node, G_TYPE_STRING))
    content = json_node_get_string (node);
  else if (JSON_NODE_HOLDS_OBJECT (node))
    content = json_object_get_string_member_with_default (json_node_get_object (node), "content", NULL);
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
      if (!json_parser_load_from_mapped_file (parser, file, &local))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: %s", file, local->message);
          return FALSE;
        }
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
      const AddedToken *t = g_hash_table_lookup (self->added_by_content, names[i]);
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
static void
encode_span (HfTokenizer *self, const char *text, gsize len, gboolean at_start, GArray *ids)
{
  g_autoptr (GString) normal =
      self->normalizer != NULL ? _hf_normalizer_apply (self->normalizer, text, len) : g_string_new_len (text, len);
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));
  find_added (&self->normalized_set, normal->str, normal->len, spans);
  g_autoptr (GArray) pieces = _hf_pieces_new ();
  for (guint i = 0; i < spans->len; i++)
    {
      Span *s = &g_array_index (spans, Span, i);
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
          _hf_bpe_encode (self->model, piece->text, piece->len, ids);
        }
    }
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

  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));
  find_added (&self->raw_set, text, len, spans);
  for (guint i = 0; i < spans->len; i++)
    {
      Span *s = &g_array_index (spans, Span, i);
      if (s->token != NULL)
        g_array_append_val (ids, s->token->id);
      else
        encode_span (self, text + s->start, s->end - s->start, s->start == 0, ids);
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
  const AddedToken *added = g_hash_table_lookup (self->added_by_id, GUINT_TO_POINTER (id));
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
  added_set_clear (&self->raw_set);
  added_set_clear (&self->normalized_set);
  g_hash_table_unref (self->added_by_id);
  g_hash_table_unref (self->added_by_content);
  g_array_unref (self->added);
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
  if (!_hf_normalizer_parse (member (root, "normalizer"), "normalizer", &self->normalizer, error) ||
      !_hf_pre_tokenizer_parse (member (root, "pre_tokenizer"), "pre_tokenizer", &self->pre_tokenizer, error))
    return FALSE;
  JsonNode *model = json_object_get_member (root, "model");
  self->model = _hf_bpe_parse (model, "model", error);
  if (self->model == NULL)
    return FALSE;
  /* Added ids may go past the vocabulary, not without bound. */
  guint64 max_id = 2 * ((guint64) _hf_bpe_id_limit (self->model) + 1024) + 1024;
  JsonNode *added = member (root, "added_tokens");
  if (added != NULL && JSON_NODE_HOLDS_ARRAY (added))
    max_id += 2 * (guint64) json_array_get_length (json_node_get_array (added));
  if (!parse_added_tokens (self, root, MIN (max_id, G_MAXUINT32 - 1), error))
    return FALSE;
  self->parent.vocab_size = _hf_bpe_id_limit (self->model);
  for (guint i = 0; i < self->added->len; i++)
    self->parent.vocab_size = MAX (self->parent.vocab_size, g_array_index (self->added, AddedToken, i).id + 1);
  if (self->parent.vocab_size == 0)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "model.vocab: no tokens");
      return FALSE;
    }
  return parse_post_processor (self, member (root, "post_processor"), "post_processor", error) &&
         _hf_decoder_parse (member (root, "decoder"), "decoder", &self->decoder, error) &&
         find_bos_eos (self, name, error);
}

LlmTokenizerImpl *
_llm_hf_load (GBytes *contents, const char *name, GError **error)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (contents, &size);
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_autoptr (GError) local = NULL;
  if (size > G_MAXSSIZE || !json_parser_load_from_data (parser, data != NULL ? data : "", size, &local))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: not valid JSON: %s", name,
                   local != NULL ? local->message : "too large");
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: expected a JSON object", name);
      return NULL;
    }

  HfTokenizer *self = g_new0 (HfTokenizer, 1);
  self->parent.vtable = &hf_vtable;
  self->parent.bos_id = self->parent.eos_id = -1;
  self->added = g_array_new (FALSE, TRUE, sizeof (AddedToken));
  g_array_set_clear_func (self->added, added_token_clear);
  self->added_by_id = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->added_by_content = g_hash_table_new (g_str_hash, g_str_equal);
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
