/* tokenizer-impl.c: format detection and dispatch for the tokenizers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tokenizer-impl.h"

#include <string.h>

/* clang-format off */
G_DEFINE_QUARK (executorch-llm-tokenizer-error-quark, _llm_tokenizer_error)
/* clang-format on */

LlmTokenizerFormat
_llm_tokenizer_detect (GBytes *contents, const char *name)
{
  gsize size = 0;
  const guint8 *p = g_bytes_get_data (contents, &size);
  gsize i = 0;
  while (i < size && g_ascii_isspace (p[i]))
    i++;
  if (i < size && p[i] == '{')
    return LLM_TOKENIZER_FORMAT_HUGGING_FACE;
  /* Before the SentencePiece test: a vocab_size of 10 modulo 256 starts
   * with 0x0a too. */
  if (_llm_llama2c_header_fits (p, size))
    return LLM_TOKENIZER_FORMAT_LLAMA2C;
  /* A SentencePiece ModelProto starts with field 1 (pieces), length-delimited. */
  if (size > 0 && p[0] == 0x0a)
    return LLM_TOKENIZER_FORMAT_SENTENCEPIECE;
  /* tiktoken: "<base64> <rank>\n" lines. */
  gsize j = 0;
  while (j < size && j < 256 && (g_ascii_isalnum (p[j]) || p[j] == '+' || p[j] == '/' || p[j] == '='))
    j++;
  if (j > 0 && j < size && p[j] == ' ' && j + 1 < size && g_ascii_isdigit (p[j + 1]))
    return LLM_TOKENIZER_FORMAT_TIKTOKEN;
  if (size >= 16)
    return LLM_TOKENIZER_FORMAT_LLAMA2C;
  return LLM_TOKENIZER_FORMAT_AUTO;
}

LlmTokenizerImpl *
_llm_tokenizer_load (GBytes *contents, const char *name, LlmTokenizerFormat format, GError **error)
{
  if (format == LLM_TOKENIZER_FORMAT_AUTO)
    format = _llm_tokenizer_detect (contents, name);
  LlmTokenizerImpl *self = NULL;
  switch (format)
    {
      case LLM_TOKENIZER_FORMAT_HUGGING_FACE: self = _llm_hf_load (contents, name, error); break;
      case LLM_TOKENIZER_FORMAT_TIKTOKEN: self = _llm_tiktoken_load (contents, name, error); break;
      case LLM_TOKENIZER_FORMAT_SENTENCEPIECE: self = _llm_sentencepiece_load (contents, name, error); break;
      case LLM_TOKENIZER_FORMAT_LLAMA2C: self = _llm_llama2c_load (contents, name, error); break;
      case LLM_TOKENIZER_FORMAT_AUTO:
      default:
        g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNKNOWN_FORMAT,
                     "%s: not a tokenizer file of a known format (tokenizer.json, tiktoken, SentencePiece "
                     ".model or llama2.c tokenizer.bin)",
                     name);
        return NULL;
    }
  if (self != NULL)
    self->format = format;
  return self;
}

LlmTokenizerImpl *
_llm_tokenizer_load_path (const char *path, LlmTokenizerFormat format, GError **error)
{
  g_autofree char *file = NULL;
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    file = g_build_filename (path, "tokenizer.json", NULL);
  else
    file = g_strdup (path);
  g_autoptr (GMappedFile) mapped = g_mapped_file_new (file, FALSE, error);
  if (mapped == NULL)
    return NULL;
  g_autoptr (GBytes) contents = g_mapped_file_get_bytes (mapped);
  return _llm_tokenizer_load (contents, file, format, error);
}

void
_llm_tokenizer_free (LlmTokenizerImpl *self)
{
  if (self != NULL)
    self->vtable->free (self);
}

gboolean
_llm_tokenizer_encode (LlmTokenizerImpl *self, const char *text, gssize len, guint n_bos, guint n_eos, GArray *ids,
                       GError **error)
{
  gsize n = len < 0 ? strlen (text) : (gsize) len;
  const char *end = NULL;
  if (!g_utf8_validate_len (text, n, &end))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_INVALID_TEXT,
                   "the text is not valid UTF-8 (at byte %" G_GSIZE_FORMAT ")", (gsize) (end - text));
      return FALSE;
    }
  return self->vtable->encode (self, text, n, n_bos, n_eos, ids, error);
}

gboolean
_llm_tokenizer_decode (LlmTokenizerImpl *self, guint32 prev, guint32 id, GByteArray *out, GError **error)
{
  if (id >= self->vocab_size)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_INVALID_TOKEN,
                   "token %u is outside the %s vocabulary of %u tokens", id, self->vtable->name, self->vocab_size);
      return FALSE;
    }
  return self->vtable->decode (self, prev, id, out, error);
}

static gboolean
add_special (LlmTokenizerImpl *self, gint64 id, const char *which, guint count, GArray *ids, GError **error)
{
  if (count == 0)
    return TRUE;
  if (id < 0)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED,
                   "%u %s token(s) asked for, but the %s tokenizer names no %s token", count, which, self->vtable->name,
                   which);
      return FALSE;
    }
  guint32 v = (guint32) id;
  for (guint k = 0; k < count; k++)
    {
      g_array_append_val (ids, v);
    }
  return TRUE;
}

gboolean
_llm_tokenizer_add_bos (LlmTokenizerImpl *self, guint n_bos, GArray *ids, GError **error)
{
  return add_special (self, self->bos_id, "BOS", n_bos, ids, error);
}

gboolean
_llm_tokenizer_add_eos (LlmTokenizerImpl *self, guint n_eos, GArray *ids, GError **error)
{
  return add_special (self, self->eos_id, "EOS", n_eos, ids, error);
}
