/* hf-decoders.c: tokenizer.json "decoder" components, one token at a time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reference decodes a whole id sequence: each decoder turns the list of
 * token strings into another list, and Fuse joins the list into one string.
 * Here a token is decoded alone, knowing only whether it is the first of the
 * stream, so that the decoded tokens joined give the reference's decode of
 * the whole sequence:
 *   ByteLevel    the token's characters mapped back to bytes (raw UTF-8 when
 *                one is outside the byte alphabet, as the reference does);
 *                the reference joins the tokens here, so it counts as Fuse.
 *   ByteFallback <0xHH> becomes the byte 0xHH.  The reference turns a run of
 *                byte tokens that is not valid UTF-8 into U+FFFD per byte;
 *                here the raw bytes come out (the caller joins the pieces).
 *   Replace      in each token (a match spanning two tokens after Fuse is
 *                not replaced).
 *   Fuse         nothing: joining is the caller's.
 *   Strip        start: before a Fuse, from every token; after it, from the
 *                first token of the stream only (the fused string's start).
 *                stop after a Fuse needs the last token: refused.
 *   Metaspace    the replacement becomes a space; in the stream's first
 *                token (or, after a Fuse, in every token: the fused string
 *                is the reference's token 0) it is dropped unless
 *                prepend_scheme is "never", as the reference does.
 * Other decoders (WordPiece, BPEDecoder, CTC) are refused.
 */
#include "byte-piece.h"
#include "hf-private.h"

#include <string.h>

typedef enum
{
  DEC_BYTE_LEVEL,
  DEC_REPLACE,
  DEC_BYTE_FALLBACK,
  DEC_FUSE,
  DEC_STRIP,
  DEC_METASPACE,
} DecKind;

typedef struct
{
  DecKind kind;
  gboolean fused; /* comes after a Fuse */
  GRegex *regex;  /* Replace with a Regex */
  char *literal;  /* Replace with a String, Strip's and Metaspace's character */
  char *content;  /* Replace */
  guint64 start, stop;
  gboolean drop_first; /* Metaspace: prepend_scheme is not "never" */
} Step;

struct _HfDecoder
{
  GArray *steps; /* Step, flattened from nested Sequences */
  gboolean fused;
};

static void
step_clear (gpointer data)
{
  Step *step = data;
  if (step->regex != NULL)
    g_regex_unref (step->regex);
  g_free (step->literal);
  g_free (step->content);
}

void
_hf_decoder_free (HfDecoder *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->steps);
  g_free (self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HfDecoder, _hf_decoder_free)

/* A member holding exactly one character, copied. */
static gboolean
parse_char (JsonObject *obj, const char *member, const char *path, char **out, GError **error)
{
  const char *s = NULL;
  if (!_hf_json_char (obj, member, path, &s, error))
    return FALSE;
  *out = g_strdup (s);
  return TRUE;
}

/* One decoder, or a Sequence's steps (flattened). */
static gboolean
parse_step (gpointer data, JsonNode *node, const char *path, GError **error)
{
  HfDecoder *self = data;
  JsonObject *obj = _hf_json_object (node, path, error);
  if (obj == NULL)
    return FALSE;
  const char *type = _hf_json_type (obj, path, error);
  if (type == NULL)
    return FALSE;

  if (strcmp (type, "Sequence") == 0)
    return _hf_json_each (obj, "decoders", path, parse_step, self, error);

  Step step = { 0 };
  step.fused = self->fused;
  g_array_append_val (self->steps, step);
  Step *s = &g_array_index (self->steps, Step, self->steps->len - 1);
  if (strcmp (type, "ByteLevel") == 0)
    {
      /* The reference's ByteLevel returns one string: it fuses too. */
      s->kind = DEC_BYTE_LEVEL;
      self->fused = TRUE;
    }
  else if (strcmp (type, "Fuse") == 0)
    {
      s->kind = DEC_FUSE;
      self->fused = TRUE;
    }
  else if (strcmp (type, "ByteFallback") == 0)
    {
      s->kind = DEC_BYTE_FALLBACK;
      if (s->fused)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED,
                       "%s: decoder ByteFallback after Fuse is not supported", path);
          return FALSE;
        }
    }
  else if (strcmp (type, "Replace") == 0)
    {
      const char *literal = NULL, *content = NULL;
      s->kind = DEC_REPLACE;
      s->regex = _hf_json_pattern (obj, "pattern", path, &literal, error);
      if (s->regex == NULL || !_hf_json_string (obj, "content", path, NULL, &content, error))
        return FALSE;
      if (content == NULL)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.content: expected a string",
                       path);
          return FALSE;
        }
      s->content = g_strdup (content);
      if (literal != NULL && *literal != '\0')
        s->literal = g_strdup (literal);
    }
  else if (strcmp (type, "Strip") == 0)
    {
      s->kind = DEC_STRIP;
      if (!parse_char (obj, "content", path, &s->literal, error) ||
          !_hf_json_uint (obj, "start", path, 0, G_MAXUINT32, &s->start, error) ||
          !_hf_json_uint (obj, "stop", path, 0, G_MAXUINT32, &s->stop, error))
        return FALSE;
      if (s->fused && s->stop > 0)
        {
          g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED,
                       "%s: decoder Strip with stop after Fuse is not supported (it needs the last token)", path);
          return FALSE;
        }
    }
  else if (strcmp (type, "Metaspace") == 0)
    {
      HfPrependScheme scheme = HF_PREPEND_ALWAYS;
      s->kind = DEC_METASPACE;
      if (!parse_char (obj, "replacement", path, &s->literal, error) ||
          !_hf_json_prepend_scheme (obj, path, &scheme, error))
        return FALSE;
      s->drop_first = scheme != HF_PREPEND_NEVER;
    }
  else
    {
      g_array_set_size (self->steps, self->steps->len - 1);
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED, "%s: decoder %s is not supported", path,
                   type);
      return FALSE;
    }
  return TRUE;
}

gboolean
_hf_decoder_parse (JsonNode *node, const char *path, HfDecoder **out, GError **error)
{
  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  g_autoptr (HfDecoder) self = g_new0 (HfDecoder, 1);
  self->steps = g_array_new (FALSE, TRUE, sizeof (Step));
  g_array_set_clear_func (self->steps, step_clear);
  if (!parse_step (self, node, path, error))
    return FALSE;
  *out = g_steal_pointer (&self);
  return TRUE;
}

static void
set_bytes (GByteArray *piece, const void *data, gsize len)
{
  g_byte_array_set_size (piece, 0);
  g_byte_array_append (piece, data, len);
}

static void
byte_level (GByteArray *piece)
{
  const char *text = (const char *) piece->data;
  if (!g_utf8_validate_len (text, piece->len, NULL))
    return;
  g_autoptr (GByteArray) bytes = g_byte_array_sized_new (piece->len);
  for (const char *p = text; p < text + piece->len; p = g_utf8_next_char (p))
    {
      int b = _hf_char_to_byte (g_utf8_get_char (p));
      if (b < 0)
        return; /* the token as it is */
      guint8 byte = (guint8) b;
      g_byte_array_append (bytes, &byte, 1);
    }
  set_bytes (piece, bytes->data, bytes->len);
}

static void
replace (const Step *step, GByteArray *piece)
{
  g_autoptr (GByteArray) out = g_byte_array_sized_new (piece->len);
  if (step->literal != NULL)
    {
      gsize n = strlen (step->literal);
      gsize i = 0;
      while (i < piece->len)
        {
          if (i + n <= piece->len && memcmp (piece->data + i, step->literal, n) == 0)
            {
              g_byte_array_append (out, (const guint8 *) step->content, strlen (step->content));
              i += n;
            }
          else
            g_byte_array_append (out, piece->data + i++, 1);
        }
    }
  else
    {
      if (!g_utf8_validate_len ((const char *) piece->data, piece->len, NULL))
        return;
      g_autofree char *replaced =
          g_regex_replace_literal (step->regex, (const char *) piece->data, piece->len, 0, step->content, 0, NULL);
      if (replaced == NULL)
        return;
      g_byte_array_append (out, (const guint8 *) replaced, strlen (replaced));
    }
  set_bytes (piece, out->data, out->len);
}

static void
byte_fallback (GByteArray *piece)
{
  int byte = _llm_byte_piece_parse (piece->data, piece->len, FALSE);
  if (byte >= 0)
    {
      guint8 b = (guint8) byte;
      set_bytes (piece, &b, 1);
    }
}

static void
strip (const Step *step, gboolean first, GByteArray *piece)
{
  gsize n = strlen (step->literal);
  gsize begin = 0, end = piece->len;
  if (!step->fused || first)
    for (guint64 k = 0; k < step->start && begin + n <= end && memcmp (piece->data + begin, step->literal, n) == 0; k++)
      begin += n;
  for (guint64 k = 0; k < step->stop && end >= begin + n && memcmp (piece->data + end - n, step->literal, n) == 0; k++)
    end -= n;
  g_byte_array_remove_range (piece, end, piece->len - end);
  g_byte_array_remove_range (piece, 0, begin);
}

static void
metaspace (const Step *step, gboolean first, GByteArray *piece)
{
  gsize n = strlen (step->literal);
  gboolean drop = step->drop_first && (first || step->fused);
  g_autoptr (GByteArray) out = g_byte_array_sized_new (piece->len);
  for (gsize i = 0; i < piece->len;)
    {
      if (i + n <= piece->len && memcmp (piece->data + i, step->literal, n) == 0)
        {
          if (!drop)
            g_byte_array_append (out, (const guint8 *) " ", 1);
          i += n;
        }
      else
        g_byte_array_append (out, piece->data + i++, 1);
    }
  set_bytes (piece, out->data, out->len);
}

void
_hf_decoder_apply (const HfDecoder *self, gboolean first, GByteArray *piece)
{
  if (self == NULL)
    {
      /* No decoder: the reference joins the tokens with spaces. */
      if (!first)
        g_byte_array_prepend (piece, (const guint8 *) " ", 1);
      return;
    }
  /* Every decoder turns an empty token into an empty one. */
  for (guint i = 0; i < self->steps->len && piece->len > 0; i++)
    {
      const Step *step = &g_array_index (self->steps, Step, i);
      switch (step->kind)
        {
          case DEC_BYTE_LEVEL: byte_level (piece); break;
          case DEC_REPLACE: replace (step, piece); break;
          case DEC_BYTE_FALLBACK: byte_fallback (piece); break;
          case DEC_FUSE: break;
          case DEC_STRIP: strip (step, first, piece); break;
          case DEC_METASPACE: metaspace (step, first, piece); break;
        }
    }
}
