/* fuzz-hf-json.c: libFuzzer target for the tokenizer.json reader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fuzzer's bytes are a tokenizer.json (seeds: the tests/llm fixtures).
 * The file must load or fail with a GError; when it loads, a few texts are
 * encoded (with BOS/EOS asked for, which may fail with a GError) and their
 * ids, and the first ids of the vocabulary, decoded one by one.
 */
#include <stdint.h>
#include <string.h>

#include "tokenizer-impl.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
round_trip (LlmTokenizerImpl *tok, const char *text)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GError) error = NULL;
  if (!_llm_tokenizer_encode (tok, text, -1, 1, 1, ids, &error))
    {
      g_assert_nonnull (error);
      g_clear_error (&error);
      g_array_set_size (ids, 0);
      if (!_llm_tokenizer_encode (tok, text, -1, 0, 0, ids, &error))
        g_error ("encode without BOS/EOS failed: %s", error->message);
    }
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint32 prev = G_MAXUINT32;
  for (guint i = 0; i < ids->len; i++)
    {
      guint32 id = g_array_index (ids, guint32, i);
      g_assert_cmpuint (id, <, tok->vocab_size);
      if (!_llm_tokenizer_decode (tok, prev, id, out, &error))
        g_error ("decode of an encoded id failed: %s", error->message);
      prev = id;
    }
}

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
    round_trip (tok, texts[i]);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  for (guint32 id = 0; id < MIN (tok->vocab_size, 512); id++)
    g_assert_true (_llm_tokenizer_decode (tok, id == 0 ? G_MAXUINT32 : id - 1, id, out, NULL));
  return 0;
}
