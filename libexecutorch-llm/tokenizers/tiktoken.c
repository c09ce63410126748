/* tiktoken.c: the tiktoken format (Llama 3's tokenizer.model)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The file is one "base64(bytes) SP rank" line per token; the rank is both
 * the id and the merge priority.  Llama 3's 256 special tokens follow the
 * ranks (ids n_ranks + i), as in upstream's runner.  Encoding follows
 * OpenAI's tiktoken library, the reference: split out special tokens, cut
 * the rest with Llama 3's pre-split pattern (lookahead included, which
 * upstream's C++ drops), then merge each piece's bytes by rank.
 */
#include "bpe-merge.h"
#include "token-table.h"
#include "tokenizer-impl.h"

#include <string.h>

/* Llama 3's pattern, with \s spelled as the Unicode White_Space set that
 * tiktoken's regex engine uses for it: \p{Z} plus \t..\r and U+0085
 * (PCRE2's \s leaves out U+0085). */
#define WS "\\t-\\r\\x{85}\\p{Z}"
static const char llama3_pattern[] = "(?i:'s|'t|'re|'ve|'m|'ll|'d)"
                                     "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+"
                                     "|\\p{N}{1,3}"
                                     "| ?[^" WS "\\p{L}\\p{N}]+[\\r\\n]*"
                                     "|[" WS "]*[\\r\\n]+"
                                     "|[" WS "]+(?![^" WS "])"
                                     "|[" WS "]+";
#undef WS

#define N_SPECIALS 256
#define N_NAMED_SPECIALS 11
/* Llama 3's special tokens as upstream's runner lists them; the rest of
 * the 256 are <|reserved_special_token_2|> onwards. */
static const char *const named_specials[N_NAMED_SPECIALS] = {
  "<|begin_of_text|>",
  "<|end_of_text|>",
  "<|reserved_special_token_0|>",
  "<|reserved_special_token_1|>",
  "<|finetune_right_pad_id|>",
  "<|step_id|>",
  "<|start_header_id|>",
  "<|end_header_id|>",
  "<|eom_id|>",
  "<|eot_id|>",
  "<|python_tag|>",
};
#define BOS_INDEX 0
#define EOS_INDEX 1

typedef struct
{
  LlmTokenizerImpl parent;
  guint32 n_ranks;
  guint8 *bytes;        /* every rank's bytes, back to back */
  gsize *token_start;   /* by rank: where its bytes start in @bytes */
  guint32 *token_len;   /* by rank */
  LlmTokenTable *ranks; /* bytes -> rank */
  guint32 byte_rank[256];
  char *specials[N_SPECIALS];
  gsize special_len[N_SPECIALS];
  LlmTokenTable *special_table;
  /* The specials starting with each byte, longest first (-1 ends). */
  gint16 *specials_by_first_byte[256];
  GRegex *pattern;
} Tiktoken;

static void
tiktoken_free (LlmTokenizerImpl *impl)
{
  Tiktoken *self = (Tiktoken *) impl;
  g_free (self->bytes);
  g_free (self->token_start);
  g_free (self->token_len);
  _llm_token_table_free (self->ranks);
  _llm_token_table_free (self->special_table);
  for (guint i = 0; i < N_SPECIALS; i++)
    g_free (self->specials[i]);
  for (guint i = 0; i < 256; i++)
    g_free (self->specials_by_first_byte[i]);
  if (self->pattern != NULL)
    g_regex_unref (self->pattern);
  g_free (self);
}

/* What the pair function needs: the ranks and the piece being merged. */
typedef struct
{
  const Tiktoken *self;
  const guint8 *piece;
} PieceMerge;

/* Parts are bytes of the piece; a pair joins when its bytes are a rank,
 * which is both its priority and its id. */
static gboolean
rank_pair (gpointer data, const LlmBpePart *left, const LlmBpePart *right, guint32 *priority, guint32 *merged)
{
  const PieceMerge *m = data;
  guint32 rank;
  if (!_llm_token_table_lookup (m->self->ranks, m->piece + left->start, right->end - left->start, &rank))
    return FALSE;
  *priority = rank;
  *merged = rank;
  return TRUE;
}

/* One pre-split piece: its rank if it is a token, else its bytes merged. */
static void
encode_piece (Tiktoken *self, const guint8 *piece, gsize len, GArray *parts, GArray *ids)
{
  guint32 rank;
  if (_llm_token_table_lookup (self->ranks, piece, len, &rank))
    {
      g_array_append_val (ids, rank);
      return;
    }
  g_array_set_size (parts, len);
  /* Pieces are below 2 GiB (encode_ordinary's check). */
  for (guint32 i = 0; i < len; i++)
    g_array_index (parts, LlmBpePart, i) = (LlmBpePart){ i, i + 1, self->byte_rank[piece[i]] };
  PieceMerge merge = { self, piece };
  _llm_bpe_merge (parts, rank_pair, &merge, LLM_BPE_MERGE_DEFAULT);
  for (guint i = 0; i < parts->len; i++)
    g_array_append_val (ids, g_array_index (parts, LlmBpePart, i).value);
}

/* Text without special tokens: pre-split, then each piece. */
static gboolean
encode_ordinary (Tiktoken *self, const char *text, gsize len, GArray *parts, GArray *ids, GError **error)
{
  if (len == 0)
    return TRUE;
  /* GRegex reports match offsets as gint. */
  if (len > G_MAXINT)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_INVALID_TEXT,
                   "tiktoken: a text of %" G_GSIZE_FORMAT " bytes without special tokens is too long (2 GiB at most)",
                   len);
      return FALSE;
    }
  g_autoptr (GMatchInfo) match = NULL;
  GError *regex_error = NULL;
  g_regex_match_full (self->pattern, text, (gssize) len, 0, 0, &match, &regex_error);
  while (regex_error == NULL && g_match_info_matches (match))
    {
      gint start, end;
      g_match_info_fetch_pos (match, 0, &start, &end);
      encode_piece (self, (const guint8 *) text + start, (gsize) (end - start), parts, ids);
      g_match_info_next (match, &regex_error);
    }
  if (regex_error != NULL)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_INVALID_TEXT,
                   "tiktoken: the pre-split pattern failed on the text: %s", regex_error->message);
      g_error_free (regex_error);
      return FALSE;
    }
  return TRUE;
}

/* The first special token at or after @from: its index and offset. */
static gboolean
find_special (const Tiktoken *self, const char *text, gsize len, gsize from, guint *index, gsize *at)
{
  for (gsize i = from; i < len; i++)
    {
      const gint16 *candidates = self->specials_by_first_byte[(guint8) text[i]];
      if (candidates == NULL)
        continue;
      for (guint k = 0; candidates[k] >= 0; k++)
        {
          guint s = (guint) candidates[k];
          if (self->special_len[s] <= len - i && memcmp (text + i, self->specials[s], self->special_len[s]) == 0)
            {
              *index = s;
              *at = i;
              return TRUE;
            }
        }
    }
  return FALSE;
}

static gboolean
tiktoken_encode (LlmTokenizerImpl *impl, const char *text, gsize len, guint n_bos, guint n_eos, GArray *ids,
                 GError **error)
{
  Tiktoken *self = (Tiktoken *) impl;
  if (!_llm_tokenizer_add_bos (impl, n_bos, ids, error))
    return FALSE;
  g_autoptr (GArray) parts = g_array_new (FALSE, FALSE, sizeof (LlmBpePart));
  gsize pos = 0;
  while (pos < len)
    {
      guint special = 0;
      gsize at = len;
      gboolean found = find_special (self, text, len, pos, &special, &at);
      if (!encode_ordinary (self, text + pos, at - pos, parts, ids, error))
        return FALSE;
      if (!found)
        break;
      guint32 id = self->n_ranks + special;
      g_array_append_val (ids, id);
      pos = at + self->special_len[special];
    }
  return _llm_tokenizer_add_eos (impl, n_eos, ids, error);
}

static gboolean
tiktoken_decode (LlmTokenizerImpl *impl, guint32 prev, guint32 id, GByteArray *out, GError **error)
{
  Tiktoken *self = (Tiktoken *) impl;
  if (id < self->n_ranks)
    g_byte_array_append (out, self->bytes + self->token_start[id], self->token_len[id]);
  else
    {
      guint s = id - self->n_ranks;
      g_byte_array_append (out, (const guint8 *) self->specials[s], (guint) self->special_len[s]);
    }
  return TRUE;
}

static gboolean
tiktoken_lookup (LlmTokenizerImpl *impl, const char *piece, guint32 *id)
{
  Tiktoken *self = (Tiktoken *) impl;
  gsize len = strlen (piece);
  guint32 found;
  if (_llm_token_table_lookup (self->special_table, (const guint8 *) piece, len, &found))
    {
      *id = self->n_ranks + found;
      return TRUE;
    }
  return _llm_token_table_lookup (self->ranks, (const guint8 *) piece, len, id);
}

static const LlmTokenizerVTable tiktoken_vtable = {
  .name = "tiktoken",
  .free = tiktoken_free,
  .encode = tiktoken_encode,
  .decode = tiktoken_decode,
  .lookup = tiktoken_lookup,
};

static int
base64_value (guint8 c)
{
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

/* Strict base64 (padded, standard alphabet) of @len bytes at @s, appended
 * to @out.  On failure sets *@bad to the offending column (0-based). */
static gboolean
base64_decode (const guint8 *s, gsize len, GByteArray *out, gsize *bad)
{
  if (len == 0 || len % 4 != 0)
    {
      *bad = len;
      return FALSE;
    }
  for (gsize i = 0; i < len; i += 4)
    {
      gboolean last = i + 4 == len;
      int v[4];
      guint n_pad = 0;
      for (guint k = 0; k < 4; k++)
        {
          guint8 c = s[i + k];
          if (c == '=' && last && k >= 2 && (k == 3 || s[i + 3] == '='))
            {
              v[k] = 0;
              n_pad++;
              continue;
            }
          v[k] = base64_value (c);
          if (v[k] < 0 || n_pad > 0)
            {
              *bad = i + k;
              return FALSE;
            }
        }
      guint32 word = ((guint32) v[0] << 18) | ((guint32) v[1] << 12) | ((guint32) v[2] << 6) | (guint32) v[3];
      guint8 b[3] = { word >> 16, (word >> 8) & 0xff, word & 0xff };
      g_byte_array_append (out, b, 3 - n_pad);
    }
  return TRUE;
}

/* The line holding each rank while the file is read, for messages. */
typedef struct
{
  const char *name;
  gsize *line_of_rank; /* 0: not seen yet */
} LoadState;

static gboolean
parse_line (Tiktoken *self, LoadState *state, GByteArray *bytes, const guint8 *line, gsize len, gsize line_no,
            guint32 n_lines, GError **error)
{
  const guint8 *space = memchr (line, ' ', len);
  if (space == NULL)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: line %" G_GSIZE_FORMAT ": not \"base64 rank\" (no space)", state->name, line_no);
      return FALSE;
    }
  gsize token_chars = (gsize) (space - line);
  gsize start = bytes->len;
  gsize bad = 0;
  if (!base64_decode (line, token_chars, bytes, &bad))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: line %" G_GSIZE_FORMAT ", column %" G_GSIZE_FORMAT ": the token is not padded base64",
                   state->name, line_no, bad + 1);
      return FALSE;
    }
  const guint8 *digits = space + 1;
  gsize n_digits = len - token_chars - 1;
  guint64 rank = 0;
  for (gsize i = 0; i < n_digits; i++)
    {
      if (!g_ascii_isdigit (digits[i]) || i >= 10)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s: line %" G_GSIZE_FORMAT ", column %" G_GSIZE_FORMAT ": the rank is not a number below %u",
                       state->name, line_no, token_chars + 2 + i, n_lines);
          return FALSE;
        }
      rank = rank * 10 + (digits[i] - '0');
    }
  if (n_digits == 0)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: line %" G_GSIZE_FORMAT ": no rank",
                   state->name, line_no);
      return FALSE;
    }
  if (rank >= n_lines)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: line %" G_GSIZE_FORMAT ": rank %" G_GUINT64_FORMAT
                   " is not below the file's %u tokens (ranks must be 0 to %u, without gaps)",
                   state->name, line_no, rank, n_lines, n_lines - 1);
      return FALSE;
    }
  if (state->line_of_rank[rank] != 0)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: line %" G_GSIZE_FORMAT ": rank %" G_GUINT64_FORMAT " is also on line %" G_GSIZE_FORMAT,
                   state->name, line_no, rank, state->line_of_rank[rank]);
      return FALSE;
    }
  state->line_of_rank[rank] = line_no;
  self->token_start[rank] = start;
  self->token_len[rank] = (guint32) (bytes->len - start);
  return TRUE;
}

static gboolean
read_ranks (Tiktoken *self, const guint8 *data, gsize size, const char *name, GError **error)
{
  /* First pass: count the tokens, so every rank can be checked against it. */
  gsize n_lines = 0;
  for (gsize pos = 0; pos < size;)
    {
      const guint8 *nl = memchr (data + pos, '\n', size - pos);
      gsize end = nl != NULL ? (gsize) (nl - data) : size;
      gsize stop = end > pos && data[end - 1] == '\r' ? end - 1 : end;
      if (stop > pos)
        n_lines++;
      pos = end + 1;
    }
  if (n_lines == 0)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: no tokens in the file", name);
      return FALSE;
    }
  if (n_lines > G_MAXUINT32 - N_SPECIALS - 1)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: %" G_GSIZE_FORMAT " tokens are more than ids can count", name, n_lines);
      return FALSE;
    }
  self->n_ranks = (guint32) n_lines;
  self->token_start = g_new0 (gsize, n_lines);
  self->token_len = g_new0 (guint32, n_lines);
  g_autofree gsize *line_of_rank = g_new0 (gsize, n_lines);
  LoadState state = { name, line_of_rank };
  g_autoptr (GByteArray) bytes = g_byte_array_sized_new (size < G_MAXUINT ? (guint) (size / 4 * 3 / 2) : 0);

  gsize line_no = 0;
  for (gsize pos = 0; pos < size;)
    {
      const guint8 *nl = memchr (data + pos, '\n', size - pos);
      gsize end = nl != NULL ? (gsize) (nl - data) : size;
      gsize stop = end > pos && data[end - 1] == '\r' ? end - 1 : end;
      line_no++;
      if (stop > pos && !parse_line (self, &state, bytes, data + pos, stop - pos, line_no, self->n_ranks, error))
        return FALSE;
      pos = end + 1;
    }
  /* Every line took a distinct rank below the line count: ranks 0..n-1. */

  self->ranks = _llm_token_table_new (self->n_ranks);
  self->bytes = g_byte_array_free (g_steal_pointer (&bytes), FALSE);
  for (guint32 rank = 0; rank < self->n_ranks; rank++)
    {
      guint32 other;
      if (!_llm_token_table_insert (self->ranks, self->bytes + self->token_start[rank], self->token_len[rank], rank,
                                    &other))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s: line %" G_GSIZE_FORMAT ": the token of rank %u is already rank %u (line %" G_GSIZE_FORMAT
                       ")",
                       name, line_of_rank[rank], rank, other, line_of_rank[other]);
          return FALSE;
        }
    }
  for (guint b = 0; b < 256; b++)
    {
      guint8 byte = (guint8) b;
      if (!_llm_token_table_lookup (self->ranks, &byte, 1, &self->byte_rank[b]))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s: no token for the byte 0x%02x (byte-level BPE needs all 256)", name, b);
          return FALSE;
        }
    }
  return TRUE;
}

static void
add_specials (Tiktoken *self)
{
  self->special_table = _llm_token_table_new (N_SPECIALS);
  for (guint i = 0; i < N_SPECIALS; i++)
    {
      self->specials[i] = i < N_NAMED_SPECIALS ? g_strdup (named_specials[i])
                                               : g_strdup_printf ("<|reserved_special_token_%u|>", i - 9);
      self->special_len[i] = strlen (self->specials[i]);
      _llm_token_table_insert (self->special_table, (const guint8 *) self->specials[i], self->special_len[i], i, NULL);
    }
  /* Candidates by first byte, longest first, so the longest special
   * starting at a position wins. */
  guint count[256] = { 0 };
  for (guint i = 0; i < N_SPECIALS; i++)
    count[(guint8) self->specials[i][0]]++;
  for (guint b = 0; b < 256; b++)
    {
      if (count[b] == 0)
        continue;
      gint16 *list = g_new (gint16, count[b] + 1);
      guint n = 0;
      for (guint i = 0; i < N_SPECIALS; i++)
        {
          if ((guint8) self->specials[i][0] != b)
            continue;
          guint k = n++;
          while (k > 0 && self->special_len[list[k - 1]] < self->special_len[i])
            {
              list[k] = list[k - 1];
              k--;
            }
          list[k] = (gint16) i;
        }
      list[n] = -1;
      self->specials_by_first_byte[b] = list;
    }
}

LlmTokenizerImpl *
_llm_tiktoken_load (GBytes *contents, const char *name, GError **error)
{
  gsize size = 0;
  const guint8 *data = g_bytes_get_data (contents, &size);
  Tiktoken *self = g_new0 (Tiktoken, 1);
  self->parent.vtable = &tiktoken_vtable;
  g_autoptr (LlmTokenizerImpl) impl = &self->parent;

  if (!read_ranks (self, data, size, name, error))
    return NULL;
  add_specials (self);
  g_autoptr (GError) regex_error = NULL;
  self->pattern = g_regex_new (llama3_pattern, G_REGEX_OPTIMIZE, 0, &regex_error);
  if (self->pattern == NULL)
    {
      /* A GLib without PCRE2's Unicode properties: not the file's fault. */
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED,
                   "%s: cannot compile the Llama 3 pre-split pattern: %s", name, regex_error->message);
      return NULL;
    }
  self->parent.vocab_size = self->n_ranks + N_SPECIALS;
  self->parent.bos_id = self->n_ranks + BOS_INDEX;
  self->parent.eos_id = self->n_ranks + EOS_INDEX;
  return g_steal_pointer (&impl);
}
