/* fuzz-sentencepiece.c: libFuzzer target for the SentencePiece .model reader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fuzzer's bytes are a .model file (seeds: the fixtures in
 * tests/llm/tokenizers/sentencepiece).  It must load or fail with a GError;
 * when it loads, a text with spaces, digits, byte-fallback and
 * normalizable characters is encoded and every id decoded.
 */
#include "fuzz-tokenizer-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GBytes) contents = g_bytes_new (data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tokenizer =
      _llm_tokenizer_load (contents, "fuzz.model", LLM_TOKENIZER_FORMAT_SENTENCEPIECE, &error);
  if (tokenizer == NULL)
    {
      g_assert (error != NULL && error->domain == LLM_TOKENIZER_ERROR);
      return 0;
    }
  static const char text[] = "  Héllo,\twörld!  0123 <s>\xe2\x96\x81 😀 ﬁ ＡＢ \xe3\x80\x80"
                             "end ";
  fuzz_round_trip (tokenizer, text, 0, 0, FUZZ_STRICT);
  return 0;
}
