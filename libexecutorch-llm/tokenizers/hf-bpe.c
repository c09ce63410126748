/* hf-bpe.c: the tokenizer.json BPE model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * As the reference library's BPE: a word starts as its characters (with
 * continuing_subword_prefix on all but the first and end_of_word_suffix on
 * the last), each looked up in the vocabulary; a missing one becomes its
 * <0xHH> byte tokens when byte_fallback is set and all exist, else the unk
 * token (consecutive ones fused into one with fuse_unk), else nothing.  Then
 * the adjacent pair with the lowest merge rank (leftmost on ties) is merged
 * until none is left, with a heap so that a long word (Metaspace without
 * split makes the whole text one word) stays O(n log n).  With
 * ignore_merges a word that is a vocabulary entry is that entry.  Results
 * for words under 256 bytes are cached (10000 words), as the reference does.
 * Dropout is refused: the reference draws random numbers for it.
 */
#include "bpe-merge.h"
#include "byte-piece.h"
#include "hf-private.h"

#include <string.h>

#define CACHE_MAX_WORD 256
#define CACHE_MAX_ENTRIES 10000

typedef struct
{
  guint64 key; /* left id << 32 | right id; 0 with rank G_MAXUINT32 marks a free slot */
  guint32 rank;
  guint32 new_id;
} MergeSlot;

struct _HfBpe
{
  GHashTable *vocab; /* token text (owned) -> GUINT_TO_POINTER (id + 1) */
  const char **id_to_token;
  guint32 id_limit;
  MergeSlot *merges;
  gsize merge_mask;
  gint64 unk_id;
  gboolean byte_fallback, fuse_unk, ignore_merges;
  char *prefix, *suffix;
  guint32 byte_ids[256]; /* G_MAXUINT32: no <0xHH> token */
  GMutex cache_lock;
  GHashTable *cache; /* word -> guint32 array, [0] the count */
};

void
_hf_bpe_free (HfBpe *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->vocab);
  g_free (self->id_to_token);
  g_free (self->merges);
  g_free (self->prefix);
  g_free (self->suffix);
  g_mutex_clear (&self->cache_lock);
  g_hash_table_unref (self->cache);
  g_free (self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HfBpe, _hf_bpe_free)

static gsize
merge_hash (guint64 key)
{
  key ^= key >> 33;
  key *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  key ^= key >> 33;
  return (gsize) key;
}

static MergeSlot *
merge_find (const HfBpe *self, guint32 left, guint32 right)
{
  guint64 key = ((guint64) left << 32) | right;
  for (gsize i = merge_hash (key) & self->merge_mask;; i = (i + 1) & self->merge_mask)
    {
      MergeSlot *slot = &self->merges[i];
      if (slot->rank == G_MAXUINT32 || slot->key == key)
        return slot;
    }
}

gboolean
_hf_bpe_lookup (const HfBpe *self, const char *token, guint32 *id)
{
  gpointer value = g_hash_table_lookup (self->vocab, token);
  if (value == NULL)
    return FALSE;
  *id = GPOINTER_TO_UINT (value) - 1;
  return TRUE;
}

const char *
_hf_bpe_token (const HfBpe *self, guint32 id)
{
  return id < self->id_limit ? self->id_to_token[id] : NULL;
}

guint32
_hf_bpe_id_limit (const HfBpe *self)
{
  return self->id_limit;
}

static gboolean
parse_vocab (HfBpe *self, JsonObject *model, const char *path, GError **error)
{
  JsonNode *node = json_object_get_member (model, "vocab");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.vocab: expected an object", path);
      return FALSE;
    }
  JsonObject *vocab = json_node_get_object (node);
  guint n = json_object_get_size (vocab);
  /* Ids are dense in real files; a bound keeps a hostile one from making
   * the id table huge. */
  guint64 max_id = 2 * (guint64) n + 1024;
  guint32 limit = 0;
  JsonObjectIter members;
  const char *name;
  JsonNode *value;
  json_object_iter_init (&members, vocab);
  while (json_object_iter_next (&members, &name, &value))
    {
      guint64 id = 0;
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_INT64 ||
          json_node_get_int (value) < 0 || (guint64) json_node_get_int (value) >= max_id)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s.vocab[\"%s\"]: expected an id from 0 to %" G_GUINT64_FORMAT, path, name, max_id - 1);
          return FALSE;
        }
      id = json_node_get_int (value);
      g_hash_table_insert (self->vocab, g_strdup (name), GUINT_TO_POINTER ((guint32) id + 1));
      limit = MAX (limit, (guint32) id + 1);
    }
  self->id_limit = limit;
  self->id_to_token = g_new0 (const char *, limit + 1);
  GHashTableIter iter;
  gpointer key, stored;
  g_hash_table_iter_init (&iter, self->vocab);
  while (g_hash_table_iter_next (&iter, &key, &stored))
    {
      guint32 id = GPOINTER_TO_UINT (stored) - 1;
      if (self->id_to_token[id] != NULL)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s.vocab[\"%s\"]: id %u is also \"%s\"", path, (const char *) key, id, self->id_to_token[id]);
          return FALSE;
        }
      self->id_to_token[id] = key;
    }
  return TRUE;
}

/* One merge: "a b" or ["a", "b"]. */
static gboolean
parse_merge (HfBpe *self, JsonNode *node, const char *path, guint32 *left, guint32 *right, guint32 *merged,
             GError **error)
{
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (node);
      const char *space = strchr (s, ' ');
      if (space == NULL || strchr (space + 1, ' ') != NULL)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s: expected two tokens separated by one space", path);
          return FALSE;
        }
      a = g_strndup (s, space - s);
      b = g_strdup (space + 1);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node) && json_array_get_length (json_node_get_array (node)) == 2)
    {
      JsonArray *pair = json_node_get_array (node);
      for (guint k = 0; k < 2; k++)
        {
          JsonNode *e = json_array_get_element (pair, k);
          if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING)
            {
              g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s[%u]: expected a string", path,
                           k);
              return FALSE;
            }
        }
      a = g_strdup (json_array_get_string_element (pair, 0));
      b = g_strdup (json_array_get_string_element (pair, 1));
    }
  else
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: expected \"a b\" or a pair of strings", path);
      return FALSE;
    }
  const char *b_rest = b;
  if (self->prefix != NULL && g_str_has_prefix (b, self->prefix))
    b_rest += strlen (self->prefix);
  g_autofree char *ab = g_strconcat (a, b_rest, NULL);
  const char *parts[] = { a, b, ab };
  guint32 *ids[] = { left, right, merged };
  for (guint k = 0; k < 3; k++)
    if (!_hf_bpe_lookup (self, parts[k], ids[k]))
      {
        g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                     "%s: token \"%s\" is not in the vocabulary", path, parts[k]);
        return FALSE;
      }
  return TRUE;
}

static gboolean
parse_merges (HfBpe *self, JsonObject *model, const char *path, GError **error)
{
  JsonNode *node = json_object_get_member (model, "merges");
  JsonArray *merges = NULL;
  guint n = 0;
  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_ARRAY (node))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.merges: expected an array", path);
          return FALSE;
        }
      merges = json_node_get_array (node);
      n = json_array_get_length (merges);
    }
  gsize slots = 16;
  while (slots < 2 * (gsize) n)
    slots *= 2;
  self->merges = g_new (MergeSlot, slots);
  self->merge_mask = slots - 1;
  for (gsize i = 0; i < slots; i++)
    self->merges[i] = (MergeSlot){ 0, G_MAXUINT32, 0 };
  for (guint i = 0; i < n; i++)
    {
      guint32 left, right, merged;
      g_autoptr (GError) local = NULL;
      /* The path is only spelt out for a message. */
      if (!parse_merge (self, json_array_get_element (merges, i), "", &left, &right, &merged, &local))
        {
          g_set_error (error, local->domain, local->code, "%s.merges[%u]%s", path, i, local->message);
          return FALSE;
        }
      /* A repeated pair takes its last rank, as in the reference. */
      MergeSlot *slot = merge_find (self, left, right);
      *slot = (MergeSlot){ ((guint64) left << 32) | right, i, merged };
    }
  return TRUE;
}

static gboolean
optional_string (JsonObject *model, const char *member, const char *path, char **out, GError **error)
{
  const char *s = NULL;
  if (!_hf_json_string (model, member, path, NULL, &s, error))
    return FALSE;
  *out = s != NULL && *s != '\0' ? g_strdup (s) : NULL;
  return TRUE;
}

HfBpe *
_hf_bpe_parse (JsonNode *node, const char *path, GError **error)
{
  JsonObject *model = _hf_json_object (node, path, error);
  if (model == NULL)
    return NULL;
  const char *type = NULL;
  if (!_hf_json_string (model, "type", path, NULL, &type, error))
    return NULL;
  /* Files without a type are BPE when they have merges, as the reference guesses. */
  if (type == NULL && json_object_has_member (model, "merges"))
    type = "BPE";
  if (g_strcmp0 (type, "BPE") != 0)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED, "%s: model %s is not supported", path,
                   type != NULL ? type : "(without a type)");
      return NULL;
    }
  JsonNode *dropout = json_object_get_member (model, "dropout");
  if (dropout != NULL && !JSON_NODE_HOLDS_NULL (dropout) &&
      !(JSON_NODE_HOLDS_VALUE (dropout) && json_node_get_double (dropout) == 0.0))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED,
                   "%s.dropout: BPE dropout is not supported", path);
      return NULL;
    }

  g_autoptr (HfBpe) self = g_new0 (HfBpe, 1);
  self->vocab = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_mutex_init (&self->cache_lock);
  self->unk_id = -1;
  const char *unk = NULL;
  if (!_hf_json_bool (model, "byte_fallback", path, FALSE, &self->byte_fallback, error) ||
      !_hf_json_bool (model, "fuse_unk", path, FALSE, &self->fuse_unk, error) ||
      !_hf_json_bool (model, "ignore_merges", path, FALSE, &self->ignore_merges, error) ||
      !optional_string (model, "continuing_subword_prefix", path, &self->prefix, error) ||
      !optional_string (model, "end_of_word_suffix", path, &self->suffix, error) ||
      !_hf_json_string (model, "unk_token", path, NULL, &unk, error) || !parse_vocab (self, model, path, error) ||
      !parse_merges (self, model, path, error))
    return NULL;
  if (unk != NULL)
    {
      guint32 id;
      if (!_hf_bpe_lookup (self, unk, &id))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s.unk_token: \"%s\" is not in the vocabulary", path, unk);
          return NULL;
        }
      self->unk_id = id;
    }
  for (guint b = 0; b < 256; b++)
    {
      char name[LLM_BYTE_PIECE_SIZE];
      _llm_byte_piece_format ((guint8) b, name);
      if (!_hf_bpe_lookup (self, name, &self->byte_ids[b]))
        self->byte_ids[b] = G_MAXUINT32;
    }
  return g_steal_pointer (&self);
}

/* --- Encoding -------------------------------------------------------- */

/* Parts are symbols (part i spans [i, i + 1) at first) with their token
 * ids; a pair joins when the merges list it, its rank is the priority. */
static gboolean
merge_pair (gpointer data, const LlmBpePart *left, const LlmBpePart *right, guint32 *priority, guint32 *merged)
{
  const MergeSlot *slot = merge_find (data, left->value, right->value);
  if (slot->rank == G_MAXUINT32)
    return FALSE;
  *priority = slot->rank;
  *merged = slot->new_id;
  return TRUE;
}

static void
add_symbol (GArray *symbols, guint32 id)
{
  LlmBpePart part = { symbols->len, symbols->len + 1, id };
  g_array_append_val (symbols, part);
}

/* The word's characters as symbols, with byte fallback and unk. */
static void
initial_symbols (const HfBpe *self, const char *word, gsize len, GArray *symbols)
{
  g_autoptr (GString) s = g_string_new (NULL);
  gint64 pending_unk = -1;
  for (const char *p = word; p < word + len;)
    {
      const char *next = g_utf8_next_char (p);
      if (next > word + len)
        next = word + len;
      g_string_truncate (s, 0);
      if (p != word && self->prefix != NULL)
        g_string_append (s, self->prefix);
      g_string_append_len (s, p, next - p);
      if (next == word + len && self->suffix != NULL)
        g_string_append (s, self->suffix);
      p = next;

      guint32 id;
      if (_hf_bpe_lookup (self, s->str, &id))
        {
          if (pending_unk >= 0)
            add_symbol (symbols, (guint32) pending_unk);
          pending_unk = -1;
          add_symbol (symbols, id);
          continue;
        }
      if (self->byte_fallback)
        {
          gboolean all = TRUE;
          for (gsize k = 0; k < s->len; k++)
            all = all && self->byte_ids[(guint8) s->str[k]] != G_MAXUINT32;
          if (all)
            {
              /* As the reference: a pending unk stays pending. */
              for (gsize k = 0; k < s->len; k++)
                add_symbol (symbols, self->byte_ids[(guint8) s->str[k]]);
              continue;
            }
        }
      if (self->unk_id >= 0)
        {
          if (pending_unk >= 0 && !self->fuse_unk)
            add_symbol (symbols, (guint32) pending_unk);
          pending_unk = self->unk_id;
        }
    }
  if (pending_unk >= 0)
    add_symbol (symbols, (guint32) pending_unk);
}

static void
merge_word (const HfBpe *self, const char *word, gsize len, GArray *ids)
{
  g_autoptr (GArray) symbols = g_array_new (FALSE, FALSE, sizeof (LlmBpePart));
  initial_symbols (self, word, len, symbols);
  _llm_bpe_merge (symbols, merge_pair, (gpointer) self, LLM_BPE_MERGE_SAME_VALUE_IS_CURRENT);
  for (guint i = 0; i < symbols->len; i++)
    g_array_append_val (ids, g_array_index (symbols, LlmBpePart, i).value);
}

void
_hf_bpe_encode (HfBpe *self, const char *word, gsize len, GArray *ids)
{
  if (len == 0)
    return;
  g_autofree char *key = g_strndup (word, len);
  guint32 id;
  if (self->ignore_merges && _hf_bpe_lookup (self, key, &id))
    {
      g_array_append_val (ids, id);
      return;
    }
  gboolean cacheable = len < CACHE_MAX_WORD;
  if (cacheable)
    {
      g_mutex_lock (&self->cache_lock);
      const guint32 *hit = g_hash_table_lookup (self->cache, key);
      if (hit != NULL)
        g_array_append_vals (ids, hit + 1, hit[0]);
      g_mutex_unlock (&self->cache_lock);
      if (hit != NULL)
        return;
    }
  guint start = ids->len;
  merge_word (self, word, len, ids);
  if (cacheable)
    {
      guint n = ids->len - start;
      guint32 *entry = g_new (guint32, n + 1);
      entry[0] = n;
      if (n > 0)
        memcpy (entry + 1, &g_array_index (ids, guint32, start), n * sizeof (guint32));
      g_mutex_lock (&self->cache_lock);
      if (g_hash_table_size (self->cache) < CACHE_MAX_ENTRIES)
        g_hash_table_replace (self->cache, g_steal_pointer (&key), entry);
      else
        g_free (entry);
      g_mutex_unlock (&self->cache_lock);
    }
}
