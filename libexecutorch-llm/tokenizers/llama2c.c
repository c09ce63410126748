/* llama2c.c: llama2.c's tokenizer.bin (a SentencePiece BPE model, converted)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The file: four little-endian int32 (vocab_size, bos_id, eos_id,
 * max_token_length), then per token an f32 score, an int32 byte length and
 * the bytes.  The converter (pytorch_tokenizers' llama2c tool) writes the
 * SentencePiece pieces with U+2581 turned into a space and BOS/EOS as
 * "<s>"/"</s>".  Encoding matches the sentencepiece library on the model
 * the file came from (identity normalizer, dummy prefix): a space is
 * prepended, the text is cut into characters, and the adjacent pair whose
 * join is a piece with the highest score merges first (leftmost on ties);
 * a character that is no piece becomes its bytes' <0xHH> pieces.  As in
 * SentencePiece, control and byte pieces never come out of a merge.
 */
#include "bpe-merge.h"
#include "byte-piece.h"
#include "token-table.h"
#include "tokenizer-impl.h"

#include <math.h>
#include <string.h>

#define HEADER_SIZE 16
/* The value of a character no merge has made: its id is not known yet. */
#define UNMERGED G_MAXUINT32

typedef struct
{
  LlmTokenizerImpl parent;
  GBytes *contents;      /* the pieces point into it */
  const guint8 **piece;  /* by id */
  guint32 *piece_len;    /* by id */
  float *score;          /* by id */
  LlmTokenTable *pieces; /* the pieces a merge may make (normal pieces) */
  LlmTokenTable *all;    /* every piece, for lookup (the lowest id wins) */
  gint64 byte_id[256];   /* the <0xHH> pieces, -1 where absent */
  gint64 unk_id;         /* "<unk>", -1 where absent */
} Llama2c;

static void
llama2c_free (LlmTokenizerImpl *impl)
{
  Llama2c *self = (Llama2c *) impl;
  if (self->contents != NULL)
    g_bytes_unref (self->contents);
  g_free (self->piece);
  g_free (self->piece_len);
  g_free (self->score);
  _llm_token_table_free (self->pieces);
  _llm_token_table_free (self->all);
  g_free (self);
}

/* What the pair function needs: the pieces and the text being merged. */
typedef struct
{
  const Llama2c *self;
  const guint8 *text;
} TextMerge;

/* A pair joins when its bytes are a piece; the higher its score, the
 * earlier. */
static gboolean
score_pair (gpointer data, const LlmBpePart *left, const LlmBpePart *right, guint32 *priority, guint32 *merged)
{
  const TextMerge *m = data;
  guint32 id;
  if (!_llm_token_table_lookup (m->self->pieces, m->text + left->start, right->end - left->start, &id))
    return FALSE;
  *priority = _llm_bpe_score_priority (m->self->score[id]);
  *merged = id;
  return TRUE;
}

static gboolean
llama2c_encode (LlmTokenizerImpl *impl, const char *text, gsize len, guint n_bos, guint n_eos, GArray *ids,
                GError **error)
{
  Llama2c *self = (Llama2c *) impl;
  if (!_llm_tokenizer_add_bos (impl, n_bos, ids, error))
    return FALSE;
  if (len > 0)
    {
      /* The merge numbers the text's bytes (and a space) with 32 bits. */
      if (len >= G_MAXUINT32 - 3)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_INVALID_TEXT,
                       "llama2c: a text of %" G_GSIZE_FORMAT " bytes is too long (4 GiB at most)", len);
          return FALSE;
        }
      /* The dummy prefix: a space before the text, merged like the rest. */
      g_autofree guint8 *work = g_malloc (len + 1);
      work[0] = ' ';
      memcpy (work + 1, text, len);
      g_autoptr (GArray) parts = g_array_new (FALSE, FALSE, sizeof (LlmBpePart));
      for (guint32 start = 0; start < len + 1;)
        {
          guint32 end = (guint32) (g_utf8_next_char ((const char *) work + start) - (const char *) work);
          LlmBpePart part = { start, end, UNMERGED };
          g_array_append_val (parts, part);
          start = end;
        }
      TextMerge merge = { self, work };
      _llm_bpe_merge (parts, score_pair, &merge, LLM_BPE_MERGE_DEFAULT);
      for (guint i = 0; i < parts->len; i++)
        {
          const LlmBpePart *part = &g_array_index (parts, LlmBpePart, i);
          gsize start = part->start, end = part->end;
          guint32 id = part->value;
          if (id != UNMERGED || _llm_token_table_lookup (self->pieces, work + start, end - start, &id))
            g_array_append_val (ids, id);
          else
            /* A character that is no piece (a merge only makes pieces). */
            for (gsize b = start; b < end; b++)
              {
                gint64 fallback = self->byte_id[work[b]] >= 0 ? self->byte_id[work[b]] : self->unk_id;
                if (fallback < 0)
                  {
                    g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_INVALID_TEXT,
                                 "llama2c: the text's byte %" G_GSIZE_FORMAT
                                 " is in no piece, and the tokenizer has neither <0x%02X> nor <unk>",
                                 b - 1, work[b]);
                    return FALSE;
                  }
                guint32 fallback_id = (guint32) fallback;
                g_array_append_val (ids, fallback_id);
              }
        }
    }
  return _llm_tokenizer_add_eos (impl, n_eos, ids, error);
}

static gboolean
llama2c_decode (LlmTokenizerImpl *impl, guint32 prev, guint32 id, GByteArray *out, GError **error)
{
  Llama2c *self = (Llama2c *) impl;
  const guint8 *piece = self->piece[id];
  gsize len = self->piece_len[id];
  /* After BOS the dummy prefix's space is dropped. */
  if (self->parent.bos_id >= 0 && prev == (guint32) self->parent.bos_id && len > 0 && piece[0] == ' ')
    {
      piece++;
      len--;
    }
  int byte = _llm_byte_piece_parse (piece, len, FALSE);
  if (byte >= 0)
    {
      guint8 b = (guint8) byte;
      g_byte_array_append (out, &b, 1);
    }
  else
    g_byte_array_append (out, piece, (guint) len);
  return TRUE;
}

static gboolean
llama2c_lookup (LlmTokenizerImpl *impl, const char *piece, guint32 *id)
{
  Llama2c *self = (Llama2c *) impl;
  return _llm_token_table_lookup (self->all, (const guint8 *) piece, strlen (piece), id);
}

static const LlmTokenizerVTable llama2c_vtable = {
  .name = "llama2c",
  .free = llama2c_free,
  .encode = llama2c_encode,
  .decode = llama2c_decode,
  .lookup = llama2c_lookup,
};

static gint32
read_i32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  return (gint32) GUINT32_FROM_LE (v);
}

static float
read_f32 (const guint8 *p)
{
  guint32 v;
  memcpy (&v, p, 4);
  v = GUINT32_FROM_LE (v);
  float f;
  memcpy (&f, &v, 4);
  return f;
}

/* vocab_size tokens of at least 8 bytes, BOS/EOS ids -1 or in the
 * vocabulary, and a first token whose length is within max_token_length. */
gboolean
_llm_llama2c_header_fits (const guint8 *p, gsize size)
{
  if (size < HEADER_SIZE + 8)
    return FALSE;
  gint32 vocab_size = read_i32 (p), bos = read_i32 (p + 4), eos = read_i32 (p + 8), max_len = read_i32 (p + 12);
  gint32 first_len = read_i32 (p + HEADER_SIZE + 4);
  return vocab_size > 0 && (gsize) vocab_size <= (size - HEADER_SIZE) / 8 && bos >= -1 && bos < vocab_size &&
         eos >= -1 && eos < vocab_size && max_len >= 0 && first_len >= 0 && first_len <= max_len;
}

/* A header id: -1 for none (the converter writes SentencePiece's -1 as
 * 0xffffffff), else below vocab_size. */
static gboolean
check_header_id (gint32 value, const char *which, gint32 vocab_size, gint64 *out, const char *name, GError **error)
{
  if (value != -1 && (value < 0 || value >= vocab_size))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: the header's %s id %d is outside the vocabulary of %d tokens", name, which, value, vocab_size);
      return FALSE;
    }
  *out = value;
  return TRUE;
}

static gboolean
read_pieces (Llama2c *self, const guint8 *data, gsize size, guint32 vocab_size, gint32 max_len, const char *name,
             GError **error)
{
  gsize pos = HEADER_SIZE;
  for (guint32 id = 0; id < vocab_size; id++)
    {
      if (size - pos < 8)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s: the file ends at byte %" G_GSIZE_FORMAT
                       " inside token %u's score and length (of %u tokens)",
                       name, size, id, vocab_size);
          return FALSE;
        }
      float score = read_f32 (data + pos);
      gint32 len = read_i32 (data + pos + 4);
      if (isnan (score))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s: token %u (byte %" G_GSIZE_FORMAT "): the score is not a number", name, id, pos);
          return FALSE;
        }
      if (len < 0 || len > max_len)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s: token %u (byte %" G_GSIZE_FORMAT "): length %d is not between 0 and the header's "
                       "max_token_length %d",
                       name, id, pos + 4, len, max_len);
          return FALSE;
        }
      pos += 8;
      if ((gsize) len > size - pos)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s: token %u (byte %" G_GSIZE_FORMAT
                       "): its %d bytes run past the end of the file (%" G_GSIZE_FORMAT " bytes)",
                       name, id, pos, len, size);
          return FALSE;
        }
      const char *bad;
      if (!g_utf8_validate_len ((const char *) data + pos, (gsize) len, &bad))
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                       "%s: token %u (byte %" G_GSIZE_FORMAT "): the piece is not UTF-8", name, id,
                       pos + (gsize) ((const guint8 *) bad - (data + pos)));
          return FALSE;
        }
      self->piece[id] = data + pos;
      self->piece_len[id] = (guint32) len;
      self->score[id] = score;
      pos += (gsize) len;
    }
  /* Bytes after the last token are left alone: the converter's
   * --prepend-padding writes one record more than vocab_size. */
  return TRUE;
}

static void
index_pieces (Llama2c *self)
{
  guint32 n = self->parent.vocab_size;
  self->pieces = _llm_token_table_new (n);
  self->all = _llm_token_table_new (n);
  for (guint b = 0; b < 256; b++)
    self->byte_id[b] = -1;
  self->unk_id = -1;
  for (guint32 id = 0; id < n; id++)
    {
      const guint8 *piece = self->piece[id];
      gsize len = self->piece_len[id];
      /* A duplicate piece keeps its first id, in both tables. */
      _llm_token_table_insert (self->all, piece, len, id, NULL);
      int byte = _llm_byte_piece_parse (piece, len, FALSE);
      if (byte >= 0)
        {
          if (self->byte_id[byte] < 0)
            self->byte_id[byte] = id;
          continue;
        }
      if ((gint64) id == self->parent.bos_id || (gint64) id == self->parent.eos_id)
        continue;
      if (len == 5 && memcmp (piece, "<unk>", 5) == 0)
        {
          if (self->unk_id < 0)
            self->unk_id = id;
          continue;
        }
      _llm_token_table_insert (self->pieces, piece, len, id, NULL);
    }
}

LlmTokenizerImpl *
_llm_llama2c_load (GBytes *contents, const char *name, GError **error)
{
  gsize size = 0;
  const guint8 *data = g_bytes_get_data (contents, &size);
  if (size < HEADER_SIZE)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: %" G_GSIZE_FORMAT " bytes are too few for the llama2.c tokenizer header (16 bytes)", name,
                   size);
      return NULL;
    }
  gint32 vocab_size = read_i32 (data);
  gint32 max_len = read_i32 (data + 12);
  /* Each token takes at least 8 bytes: a count the file cannot hold is
   * refused before anything is allocated for it. */
  if (vocab_size <= 0 || (gsize) vocab_size > (size - HEADER_SIZE) / 8)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: the header's vocab_size %d does not fit the file's %" G_GSIZE_FORMAT
                   " bytes (at least 8 per token)",
                   name, vocab_size, size);
      return NULL;
    }
  if (max_len < 0)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: the header's max_token_length %d is negative", name, max_len);
      return NULL;
    }

  Llama2c *self = g_new0 (Llama2c, 1);
  self->parent.vtable = &llama2c_vtable;
  g_autoptr (LlmTokenizerImpl) impl = &self->parent;
  self->parent.vocab_size = (guint32) vocab_size;
  if (!check_header_id (read_i32 (data + 4), "BOS", vocab_size, &self->parent.bos_id, name, error) ||
      !check_header_id (read_i32 (data + 8), "EOS", vocab_size, &self->parent.eos_id, name, error))
    return NULL;
  self->contents = g_bytes_ref (contents);
  self->piece = g_new (const guint8 *, vocab_size);
  self->piece_len = g_new (guint32, vocab_size);
  self->score = g_new (float, vocab_size);
  if (!read_pieces (self, data, size, (guint32) vocab_size, max_len, name, error))
    return NULL;
  index_pieces (self);
  return g_steal_pointer (&impl);
}
