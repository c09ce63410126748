/* fuzz-hf-json.c: libFuzzer target for the tokenizer.json reader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fuzzer's bytes are a tokenizer.json (seeds: the tests/llm fixtures).
 * The file must load or fail with a GError; when it loads, a few texts are
 * encoded (with BOS/EOS asked for, which may fail with a GError) and their
 * ids, and the first ids of the vocabulary, decoded one by one.
 */
#include "fuzz-tokenizer-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const char *const texts[] = {
    "",
    " ",
    "Hello, world!  I'm   here\n\n",
    "<s>x</s> <|begin_of_text|>a<mask> b",
    "\xc3\xa9t\xc3\xa9 e\xcc\x81 \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80 \xe2\x96\x81\xe2\x96\x81x 123456",
  };
  g_autoptr (GBytes) bytes = g_bytes_new (data, size);
  g_autoptr (GError) error = NULL;
  /* A directory that does not exist: no tokenizer_config.json is read. */
  g_autoptr (LlmTokenizerImpl) tok =
      _llm_tokenizer_load (bytes, "/nonexistent/tokenizer.json", LLM_TOKENIZER_FORMAT_HUGGING_FACE, &error);
  if (tok == NULL)
    {
      g_assert_nonnull (error);
      return 0;
    }
  g_assert_cmpuint (tok->vocab_size, >, 0);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    if (!fuzz_round_trip (tok, texts[i], 1, 1, FUZZ_ENCODE_MAY_FAIL))
      fuzz_round_trip (tok, texts[i], 0, 0, FUZZ_STRICT);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  for (guint32 id = 0; id < MIN (tok->vocab_size, 512); id++)
    g_assert_true (_llm_tokenizer_decode (tok, id == 0 ? G_MAXUINT32 : id - 1, id, out, NULL));
  return 0;
}
