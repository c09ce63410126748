/* fuzz-tokenizer.c: libFuzzer target for the tokenizer readers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The first byte picks the format (its LlmTokenizerFormat value, modulo
 * the number of formats: 0 auto-detects); the second says how many of the
 * last bytes are a text to encode (made valid UTF-8); the bytes between are
 * the file.  It must load or fail with a GError.  When it loads, that text
 * and a few fixed ones are encoded with and without BOS/EOS, every id must
 * be in the vocabulary, and the ids decode one by one.  Seeds in
 * tests/fuzz/seeds/tokenizer/: tiktoken and llama2c, written with their
 * fixtures by tests/llm/export/tokenizers_tiktoken_llama2c.py; a
 * tokenizer.json and two SentencePiece models, framed copies of fixtures
 * in tests/llm/tokenizers/.
 */
#include <glib.h>
#include <stdint.h>

#include "tokenizer-impl.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define N_FORMATS 5

#define CHECK_ERROR(error)                                                                 \
  G_STMT_START                                                                             \
  {                                                                                        \
    g_assert ((error) != NULL && (error)->message != NULL && (error)->message[0] != '\0'); \
    g_debug ("%s", (error)->message);                                                      \
    g_clear_error (&(error));                                                              \
  }                                                                                        \
  G_STMT_END

static void
encode_and_decode (LlmTokenizerImpl *tokenizer, const char *text, guint n_bos, guint n_eos)
{
  GError *error = NULL;
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (!_llm_tokenizer_encode (tokenizer, text, -1, n_bos, n_eos, ids, &error))
    {
      CHECK_ERROR (error);
      return;
    }
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint32 prev = G_MAXUINT32;
  for (guint i = 0; i < ids->len; i++)
    {
      guint32 id = g_array_index (ids, guint32, i);
      g_assert (id < tokenizer->vocab_size);
      if (!_llm_tokenizer_decode (tokenizer, prev, id, out, &error))
        CHECK_ERROR (error);
      prev = id;
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const char *const texts[] = {
    "Hello, world!",
    "",
    "  a   b\n\n\t x ",
    "<|begin_of_text|>x<|eot_id|><s>y</s><|end_of_text|",
    "Ünïcödé 😀 中文 <0x41> ",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1234567 don't",
  };
  GError *error = NULL;

  if (size < 2)
    return 0;
  LlmTokenizerFormat format = (LlmTokenizerFormat) (data[0] % N_FORMATS);
  gsize text_len = MIN (data[1], size - 2);
  gsize file_len = size - 2 - text_len;
  g_autoptr (GBytes) contents = g_bytes_new (data + 2, file_len);
  g_autoptr (LlmTokenizerImpl) tokenizer = _llm_tokenizer_load (contents, "fuzz", format, &error);
  if (tokenizer == NULL)
    {
      CHECK_ERROR (error);
      return 0;
    }
  g_assert (tokenizer->vocab_size > 0);
  g_assert (tokenizer->bos_id < (gint64) tokenizer->vocab_size && tokenizer->eos_id < (gint64) tokenizer->vocab_size);

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      encode_and_decode (tokenizer, texts[i], 0, 0);
      encode_and_decode (tokenizer, texts[i], 1, 1);
    }
  {
    g_autofree char *text = g_utf8_make_valid ((const char *) data + 2 + file_len, (gssize) text_len);
    encode_and_decode (tokenizer, text, 0, 0);
    encode_and_decode (tokenizer, text, 2, 0);
  }
  /* Ids at both ends of the vocabulary, and one past it. */
  {
    g_autoptr (GByteArray) out = g_byte_array_new ();
    guint32 last = tokenizer->vocab_size - 1;
    g_assert (_llm_tokenizer_decode (tokenizer, G_MAXUINT32, 0, out, &error));
    g_assert (_llm_tokenizer_decode (tokenizer, 0, last, out, &error));
    g_assert (!_llm_tokenizer_decode (tokenizer, last, tokenizer->vocab_size, out, &error));
    CHECK_ERROR (error);
  }
  {
    guint32 id;
    if (tokenizer->vtable->lookup (tokenizer, "<s>", &id))
      g_assert (id < tokenizer->vocab_size);
    if (tokenizer->vtable->lookup (tokenizer, " ", &id))
      g_assert (id < tokenizer->vocab_size);
  }
  return 0;
}
