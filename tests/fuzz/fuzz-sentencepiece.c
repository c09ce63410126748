/* fuzz-sentencepiece.c: libFuzzer target for the SentencePiece .model reader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fuzzer's bytes are a .model file (seeds: the fixtures in
 * tests/llm/tokenizers/sentencepiece).  It must load or fail with a GError;
 * when it loads, a text with spaces, digits, byte-fallback and
 * normalizable characters is encoded and every id decoded.
 */
#include <stdint.h>

#include "tokenizer-impl.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

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
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (!_llm_tokenizer_encode (tokenizer, text, -1, 0, 0, ids, &error))
    g_error ("a loaded model failed to encode: %s", error->message);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint32 prev = G_MAXUINT32;
  for (guint i = 0; i < ids->len; i++)
    {
      guint32 id = g_array_index (ids, guint32, i);
      if (!_llm_tokenizer_decode (tokenizer, prev, id, out, &error))
        g_error ("id %u of a loaded model failed to decode: %s", id, error->message);
      prev = id;
    }
  return 0;
}
