/* hf-added-tokens.c: tokenizer.json "added_tokens" and how they are cut out
 * of the text
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * As the reference's AddedVocabulary: the tokens are matched leftmost-longest
 * (normalized=false ones on the raw text, normalized=true ones, by their
 * normalized text, on the normalized text); a single_word token must not
 * touch a word character (Rust's \w) on either side, lstrip and rstrip take
 * the whitespace around a match into the token.  After a match, the search
 * goes on after it, even when the match is then dropped (single_word).
 */
#include "hf-private.h"

#include <string.h>

static void
added_token_clear (gpointer data)
{
  HfAddedToken *t = data;
  g_free (t->content);
  g_free (t->match);
}

static void
added_set_clear (HfAddedSet *set)
{
  for (guint b = 0; b < 256; b++)
    g_clear_pointer (&set->by_byte[b], g_ptr_array_unref);
}

static gint
longest_first (gconstpointer a, gconstpointer b)
{
  const HfAddedToken *ta = *(HfAddedToken *const *) a, *tb = *(HfAddedToken *const *) b;
  return ta->match_len < tb->match_len ? 1 : ta->match_len > tb->match_len ? -1 : 0;
}

static void
added_set_build (HfAddedSet *set, GArray *added, gboolean normalized)
{
  set->empty = TRUE;
  for (guint i = 0; i < added->len; i++)
    {
      HfAddedToken *t = &g_array_index (added, HfAddedToken, i);
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

void
_hf_added_free (HfAddedVocab *self)
{
  if (self == NULL)
    return;
  added_set_clear (&self->raw_set);
  added_set_clear (&self->normalized_set);
  g_hash_table_unref (self->by_id);
  g_hash_table_unref (self->by_content);
  g_array_unref (self->tokens);
  g_free (self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HfAddedVocab, _hf_added_free)

static gboolean
parse_tokens (HfAddedVocab *self, JsonNode *node, const HfNormalizer *normalizer, guint64 max_id, GError **error)
{
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
      HfAddedToken t = { 0 };
      guint64 id = 0;
      const char *content = NULL;
      JsonNode *id_node = json_object_get_member (obj, "id");
      if (id_node == NULL || !_hf_json_node_uint (id_node, id_path, max_id, &id, error) ||
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
      if (g_hash_table_contains (self->by_id, GUINT_TO_POINTER (t.id)))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: id %u is already an added token",
                       id_path, t.id);
          return FALSE;
        }
      t.content = g_strdup (content);
      if (t.normalized && normalizer != NULL)
        t.match = g_string_free (_hf_normalizer_apply (normalizer, content, strlen (content)), FALSE);
      else
        t.match = g_strdup (content);
      t.match_len = strlen (t.match);
      g_array_append_val (self->tokens, t);
      /* A placeholder until the array stops growing (pointers move). */
      g_hash_table_insert (self->by_id, GUINT_TO_POINTER (t.id), NULL);
    }
  g_hash_table_remove_all (self->by_id);
  for (guint i = 0; i < self->tokens->len; i++)
    {
      HfAddedToken *t = &g_array_index (self->tokens, HfAddedToken, i);
      g_hash_table_insert (self->by_id, GUINT_TO_POINTER (t->id), t);
      if (!g_hash_table_contains (self->by_content, t->content))
        g_hash_table_insert (self->by_content, t->content, t);
    }
  added_set_build (&self->raw_set, self->tokens, FALSE);
  added_set_build (&self->normalized_set, self->tokens, TRUE);
  return TRUE;
}

HfAddedVocab *
_hf_added_parse (JsonNode *node, const HfNormalizer *normalizer, guint64 max_id, GError **error)
{
  g_autoptr (HfAddedVocab) self = g_new0 (HfAddedVocab, 1);
  self->tokens = g_array_new (FALSE, TRUE, sizeof (HfAddedToken));
  g_array_set_clear_func (self->tokens, added_token_clear);
  self->by_id = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->by_content = g_hash_table_new (g_str_hash, g_str_equal);
  if (!parse_tokens (self, node, normalizer, max_id, error))
    return NULL;
  for (guint i = 0; i < self->tokens->len; i++)
    self->id_limit = MAX (self->id_limit, g_array_index (self->tokens, HfAddedToken, i).id + 1);
  return g_steal_pointer (&self);
}

const HfAddedToken *
_hf_added_by_id (const HfAddedVocab *self, guint32 id)
{
  return g_hash_table_lookup (self->by_id, GUINT_TO_POINTER (id));
}

const HfAddedToken *
_hf_added_by_content (const HfAddedVocab *self, const char *content)
{
  return g_hash_table_lookup (self->by_content, content);
}

static gboolean
ends_with_word (const char *text, gsize len)
{
  if (len == 0)
    return FALSE;
  const char *last = g_utf8_find_prev_char (text, text + len);
  return last != NULL && _hf_is_word_char (g_utf8_get_char (last));
}

static void
add_span (GArray *spans, gsize start, gsize end, const HfAddedToken *token)
{
  HfSpan s = { start, end, token };
  g_array_append_val (spans, s);
}

/* The reference's AddedVocabulary::find_matches over @text. */
void
_hf_added_find (const HfAddedVocab *self, gboolean normalized, const char *text, gsize len, GArray *spans)
{
  const HfAddedSet *set = normalized ? &self->normalized_set : &self->raw_set;
  gsize start_offset = 0, i = 0;
  while (!set->empty && i < len)
    {
      const GPtrArray *bucket = set->by_byte[(guint8) text[i]];
      const HfAddedToken *hit = NULL;
      for (guint k = 0; bucket != NULL && k < bucket->len && hit == NULL; k++)
        {
          const HfAddedToken *t = g_ptr_array_index (bucket, k);
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
