/* sentencepiece.c: SentencePiece .model files (unigram, BPE, word, char)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Loads a ModelProto (sp-model.c) with the checks sentencepiece makes, and
 * encodes as the sentencepiece library does: normalization
 * (sp-normalizer.c), segmentation (sp-encode.c), then unknown pieces become
 * their UTF-8 bytes' <0xHH> pieces with byte_fallback, or one unknown id
 * per run.  Text that looks like a control piece ("<s>") is plain text.
 * BOS and EOS are the control pieces named by trainer_spec.bos_piece and
 * eos_piece ("<s>", "</s>"), as SentencePieceProcessor::bos_id() finds them.
 *
 * Not supported: a denormalizer_spec with rules (refused), sampling and
 * n-best encoding, the self-test samples a model may carry (not run).
 */
#include <float.h>
#include <stdarg.h>
#include <string.h>

#include "byte-piece.h"
#include "sp-tokenizer.h"

#define SPACE_SYMBOL "\xe2\x96\x81"
#define SPACE_SYMBOL_LEN 3
#define DEFAULT_UNK_SURFACE " \xe2\x81\x87 " /* " ⁇ " */

/* The texts of control pieces, unknown and byte pieces. */
#define RESERVED_TYPES ((1u << SP_PIECE_CONTROL) | (1u << SP_PIECE_UNKNOWN) | (1u << SP_PIECE_BYTE))
#define PIECE_TYPES ((1u << SP_PIECE_NORMAL) | (1u << SP_PIECE_USER_DEFINED) | (1u << SP_PIECE_UNUSED))

static const LlmTokenizerVTable sp_vtable;

guint32
_llm_sp_piece_to_id (const SpTokenizer *self, const guint8 *text, gsize len)
{
  gint32 id = _llm_sp_trie_find (&self->reserved, text, len);
  if (id < 0)
    id = _llm_sp_trie_find (&self->pieces, text, len);
  return id < 0 ? self->unk_id : (guint32) id;
}

static void
sp_free (LlmTokenizerImpl *impl)
{
  SpTokenizer *self = (SpTokenizer *) impl;
  _llm_sp_trie_clear (&self->pieces);
  _llm_sp_trie_clear (&self->reserved);
  _llm_sp_trie_clear (&self->user_defined);
  _llm_sp_model_free (self->model);
  g_free (self);
}

static gboolean G_GNUC_PRINTF (4, 5) model_fail (const char *name, guint code, GError **error, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, LLM_TOKENIZER_ERROR, code, "%s: %s", name, what);
  return FALSE;
}

/* A piece's text for messages: valid UTF-8, at most 64 bytes of it. */
static char *
piece_text (const SpPiece *piece)
{
  return g_utf8_make_valid ((const char *) piece->text.data, (gssize) MIN (piece->text.len, 64));
}

/* Builds @trie over the pieces of @types; a text may be there once. */
static gboolean
build_unique (const SpTokenizer *self, SpTrie *trie, guint types, const char *name, GError **error)
{
  guint32 duplicate = 0, first = 0;
  if (_llm_sp_trie_build (trie, self->model, types, &duplicate, &first))
    return TRUE;
  g_autofree char *text = piece_text (&self->model->pieces[duplicate]);
  return model_fail (name, LLM_TOKENIZER_ERROR_MALFORMED, error,
                     "ModelProto.pieces[%u] \"%s\" is already defined (as piece %u)", duplicate, text, first);
}

/* sentencepiece's InitializePieces checks, and what encoding needs. */
static gboolean
sp_init (SpTokenizer *self, const char *name, GError **error)
{
  const SpModel *model = self->model;
  gint64 unk = -1;
  gboolean byte_found[256] = { FALSE };
  gboolean has_user_defined = FALSE;
  self->min_score = FLT_MAX;
  self->max_score = FLT_MIN; /* sic: upstream starts from the least positive float */

  for (guint32 i = 0; i < model->n_pieces; i++)
    {
      const SpPiece *piece = &model->pieces[i];
      if (piece->text.len == 0)
        return model_fail (name, LLM_TOKENIZER_ERROR_MALFORMED, error, "ModelProto.pieces[%u] is empty", i);
      switch (piece->type)
        {
          case SP_PIECE_NORMAL:
            self->min_score = MIN (self->min_score, piece->score);
            self->max_score = MAX (self->max_score, piece->score);
            break;
          case SP_PIECE_UNKNOWN:
            if (unk >= 0)
              return model_fail (name, LLM_TOKENIZER_ERROR_MALFORMED, error,
                                 "ModelProto.pieces[%u] is a second unknown piece (the first is %" G_GINT64_FORMAT ")",
                                 i, unk);
            unk = i;
            break;
          case SP_PIECE_USER_DEFINED: has_user_defined = TRUE; break;
          case SP_PIECE_BYTE:
            {
              int byte = _llm_byte_piece_parse (piece->text.data, piece->text.len, TRUE);
              if (!model->byte_fallback)
                return model_fail (name, LLM_TOKENIZER_ERROR_MALFORMED, error,
                                   "ModelProto.pieces[%u] is a byte piece, but trainer_spec.byte_fallback is false", i);
              if (byte < 0)
                {
                  g_autofree char *text = piece_text (piece);
                  return model_fail (name, LLM_TOKENIZER_ERROR_MALFORMED, error,
                                     "ModelProto.pieces[%u] is a byte piece, but \"%s\" is not <0xHH>", i, text);
                }
              byte_found[byte] = TRUE;
              break;
            }
          default: break;
        }
    }
  if (unk < 0)
    return model_fail (name, LLM_TOKENIZER_ERROR_MALFORMED, error, "no piece is of type UNKNOWN");
  self->unk_id = (guint32) unk;
  if (model->byte_fallback)
    for (guint b = 0; b < 256; b++)
      if (!byte_found[b])
        return model_fail (name, LLM_TOKENIZER_ERROR_MALFORMED, error,
                           "trainer_spec.byte_fallback is true, but there is no byte piece <0x%02X>", b);
  if (model->has_denormalizer)
    return model_fail (name, LLM_TOKENIZER_ERROR_UNSUPPORTED, error,
                       "the model has a denormalizer_spec, which is not supported");

  if (!build_unique (self, &self->pieces, PIECE_TYPES, name, error) ||
      !build_unique (self, &self->reserved, RESERVED_TYPES, name, error))
    return FALSE;
  if (has_user_defined)
    build_unique (self, &self->user_defined, 1u << SP_PIECE_USER_DEFINED, name, error); /* a subset: unique */
  if (model->byte_fallback)
    for (guint b = 0; b < 256; b++)
      {
        char text[LLM_BYTE_PIECE_SIZE];
        _llm_byte_piece_format ((guint8) b, text);
        self->byte_ids[b] = _llm_sp_piece_to_id (self, (const guint8 *) text, 6);
      }

  if (model->charsmap.len > 0 && !_llm_sp_charsmap_init (&self->charsmap, model, name, error))
    return FALSE;
  self->normalizer = (SpNormalizer){
    .charsmap = model->charsmap.len > 0 ? &self->charsmap : NULL,
    .user_defined = has_user_defined ? &self->user_defined : NULL,
    .add_dummy_prefix = model->add_dummy_prefix,
    .remove_extra_whitespaces = model->remove_extra_whitespaces,
    .escape_whitespaces = model->escape_whitespaces,
    .treat_whitespace_as_suffix = model->treat_whitespace_as_suffix,
  };
  return TRUE;
}

/* As SentencePieceProcessor::bos_id(): the id of the piece's text if that
 * is a control piece, else -1. */
static gint64
control_id (const SpTokenizer *self, const SpString *text, const char *fallback)
{
  const guint8 *data = text->len > 0 ? text->data : (const guint8 *) fallback;
  gsize len = text->len > 0 ? text->len : strlen (fallback);
  guint32 id = _llm_sp_piece_to_id (self, data, len);
  return self->model->pieces[id].type == SP_PIECE_CONTROL ? (gint64) id : -1;
}

LlmTokenizerImpl *
_llm_sentencepiece_load (GBytes *contents, const char *name, GError **error)
{
  SpModel *model = _llm_sp_model_parse (contents, name, error);
  if (model == NULL)
    return NULL;
  SpTokenizer *self = g_new0 (SpTokenizer, 1);
  self->parent.vtable = &sp_vtable;
  self->parent.format = LLM_TOKENIZER_FORMAT_SENTENCEPIECE;
  self->model = model;
  if (!sp_init (self, name, error))
    {
      sp_free (&self->parent);
      return NULL;
    }
  self->parent.vocab_size = model->n_pieces;
  self->parent.bos_id = control_id (self, &model->bos_piece, "<s>");
  self->parent.eos_id = control_id (self, &model->eos_piece, "</s>");
  return &self->parent;
}

static gboolean
sp_encode (LlmTokenizerImpl *impl, const char *text, gsize len, guint n_bos, guint n_eos, GArray *ids, GError **error)
{
  SpTokenizer *self = (SpTokenizer *) impl;
  if (!_llm_tokenizer_add_bos (impl, n_bos, ids, error))
    return FALSE;

  g_autoptr (GString) normalized = g_string_sized_new (len + len / 2 + 4);
  _llm_sp_normalize (&self->normalizer, text, len, normalized);
  if (normalized->len > G_MAXINT32 / 2)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_INVALID_TEXT,
                   "the text is too long to encode at once (%" G_GSIZE_FORMAT " bytes normalized)", normalized->len);
      return FALSE;
    }
  g_autoptr (GArray) segments = g_array_new (FALSE, FALSE, sizeof (SpSegment));
  _llm_sp_segment (self, normalized->str, normalized->len, segments);

  /* SentencePieceProcessor::PopulateSentencePieceText's ids. */
  gboolean prev_is_unknown = FALSE;
  for (guint i = 0; i < segments->len; i++)
    {
      const SpSegment *s = &g_array_index (segments, SpSegment, i);
      gboolean is_unknown = self->model->pieces[s->id].type == SP_PIECE_UNKNOWN;
      if (is_unknown && self->model->byte_fallback)
        for (guint32 k = 0; k < s->len; k++)
          g_array_append_val (ids, self->byte_ids[(guint8) normalized->str[s->start + k]]);
      else if (!(is_unknown && prev_is_unknown))
        g_array_append_val (ids, s->id);
      prev_is_unknown = is_unknown;
    }
  return _llm_tokenizer_add_eos (impl, n_eos, ids, error);
}

/* One piece, given the one before it.  Joined, the pieces of an encoded
 * text give what sentencepiece's whole-sequence decode gives:
 *  - "▁" becomes " ", and the first piece of the stream (prev G_MAXUINT32
 *    or BOS) loses one leading "▁" when the model adds a dummy prefix or
 *    removes extra whitespace;
 *  - byte pieces give their raw byte (the caller joins bytes into UTF-8);
 *  - control pieces give nothing, as in sentencepiece (the C++ runner of
 *    meta-pytorch/tokenizers gives " " for them, which would put spaces
 *    around <s> and </s> that the reference decode does not have);
 *  - the unknown piece gives trainer_spec.unk_surface, by default " ⁇ ".
 * Where upstream differs, it is because it sees the whole sequence: with
 * remove_extra_whitespaces it drops the leading "▁" of every piece until
 * some text has come out (here only the first piece's: encoding gives two
 * such pieces in a row only for text that itself holds "▁"), and it turns
 * byte pieces that are not valid UTF-8 into U+FFFD. */
static gboolean
sp_decode (LlmTokenizerImpl *impl, guint32 prev, guint32 id, GByteArray *out, GError **error)
{
  SpTokenizer *self = (SpTokenizer *) impl;
  const SpModel *model = self->model;
  const SpPiece *piece = &model->pieces[id];
  switch (piece->type)
    {
      case SP_PIECE_CONTROL: return TRUE;
      case SP_PIECE_UNKNOWN:
        if (model->has_unk_surface)
          {
            /* Upstream takes it as a C string. */
            const guint8 *nul = memchr (model->unk_surface.data, '\0', model->unk_surface.len);
            gsize n = nul != NULL ? (gsize) (nul - model->unk_surface.data) : model->unk_surface.len;
            g_byte_array_append (out, model->unk_surface.data, (guint) n);
          }
        else
          g_byte_array_append (out, (const guint8 *) DEFAULT_UNK_SURFACE, strlen (DEFAULT_UNK_SURFACE));
        return TRUE;
      case SP_PIECE_BYTE:
        {
          guint8 byte = (guint8) _llm_byte_piece_parse (piece->text.data, piece->text.len, TRUE); /* checked at load */
          g_byte_array_append (out, &byte, 1);
          return TRUE;
        }
      default: break;
    }

  const guint8 *p = piece->text.data;
  gsize len = piece->text.len;
  gboolean at_start = prev == G_MAXUINT32 || (self->parent.bos_id >= 0 && prev == (guint32) self->parent.bos_id);
  if (at_start && (model->add_dummy_prefix || model->remove_extra_whitespaces) && len >= SPACE_SYMBOL_LEN &&
      memcmp (p, SPACE_SYMBOL, SPACE_SYMBOL_LEN) == 0)
    {
      p += SPACE_SYMBOL_LEN;
      len -= SPACE_SYMBOL_LEN;
    }
  for (gsize i = 0; i < len;)
    {
      if (len - i >= SPACE_SYMBOL_LEN && memcmp (p + i, SPACE_SYMBOL, SPACE_SYMBOL_LEN) == 0)
        {
          g_byte_array_append (out, (const guint8 *) " ", 1);
          i += SPACE_SYMBOL_LEN;
          continue;
        }
      gsize run = i + 1;
      while (run < len && p[run] != 0xe2)
        run++;
      g_byte_array_append (out, p + i, (guint) (run - i));
      i = run;
    }
  (void) error;
  return TRUE;
}

static gboolean
sp_lookup (LlmTokenizerImpl *impl, const char *piece, guint32 *id)
{
  SpTokenizer *self = (SpTokenizer *) impl;
  gsize len = strlen (piece);
  gint32 found = _llm_sp_trie_find (&self->reserved, (const guint8 *) piece, len);
  if (found < 0)
    found = _llm_sp_trie_find (&self->pieces, (const guint8 *) piece, len);
  if (found < 0)
    return FALSE;
  *id = (guint32) found;
  return TRUE;
}

static const LlmTokenizerVTable sp_vtable = {
  .name = "SentencePiece",
  .free = sp_free,
  .encode = sp_encode,
  .decode = sp_decode,
  .lookup = sp_lookup,
};
