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
#include "fuzz-tokenizer-common.h"

#define N_FORMATS 5

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
      FUZZ_CHECK_ERROR (error);
      return 0;
    }
  g_assert (tokenizer->vocab_size > 0);
  g_assert (tokenizer->bos_id < (gint64) tokenizer->vocab_size && tokenizer->eos_id < (gint64) tokenizer->vocab_size);

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      fuzz_round_trip (tokenizer, texts[i], 0, 0, FUZZ_ENCODE_MAY_FAIL | FUZZ_DECODE_MAY_FAIL);
      fuzz_round_trip (tokenizer, texts[i], 1, 1, FUZZ_ENCODE_MAY_FAIL | FUZZ_DECODE_MAY_FAIL);
    }
  {
    g_autofree char *text = g_utf8_make_valid ((const char *) data + 2 + file_len, (gssize) text_len);
    fuzz_round_trip (tokenizer, text, 0, 0, FUZZ_ENCODE_MAY_FAIL | FUZZ_DECODE_MAY_FAIL);
    fuzz_round_trip (tokenizer, text, 2, 0, FUZZ_ENCODE_MAY_FAIL | FUZZ_DECODE_MAY_FAIL);
  }
  /* Ids at both ends of the vocabulary, and one past it. */
  {
    g_autoptr (GByteArray) out = g_byte_array_new ();
    guint32 last = tokenizer->vocab_size - 1;
    g_assert (_llm_tokenizer_decode (tokenizer, G_MAXUINT32, 0, out, &error));
    g_assert (_llm_tokenizer_decode (tokenizer, 0, last, out, &error));
    g_assert (!_llm_tokenizer_decode (tokenizer, last, tokenizer->vocab_size, out, &error));
    FUZZ_CHECK_ERROR (error);
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
