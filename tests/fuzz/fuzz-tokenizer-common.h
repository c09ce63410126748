/* fuzz-tokenizer-common.h: what the tokenizer fuzz targets share (private
 * to tests/fuzz)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdint.h>

#include "fuzz-error.h"
#include "tokenizer-impl.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

typedef enum
{
  FUZZ_STRICT = 0,
  FUZZ_ENCODE_MAY_FAIL = 1 << 0, /* with a GError, e.g. BOS/EOS the file has not */
  FUZZ_DECODE_MAY_FAIL = 1 << 1,
} FuzzRoundTrip;

/* Encodes @text with @n_bos BOS and @n_eos EOS ids and decodes the ids one
 * by one; every id must be in the vocabulary.  A failure @flags allow must
 * be a GError with a message; any other aborts.  Returns whether @text
 * encoded. */
static inline gboolean
fuzz_round_trip (LlmTokenizerImpl *tokenizer, const char *text, guint n_bos, guint n_eos, FuzzRoundTrip flags)
{
  GError *error = NULL;
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (!_llm_tokenizer_encode (tokenizer, text, -1, n_bos, n_eos, ids, &error))
    {
      if (!(flags & FUZZ_ENCODE_MAY_FAIL))
        g_error ("a loaded tokenizer failed to encode: %s", error->message);
      FUZZ_CHECK_ERROR (error);
      return FALSE;
    }
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint32 prev = G_MAXUINT32;
  for (guint i = 0; i < ids->len; i++)
    {
      guint32 id = g_array_index (ids, guint32, i);
      g_assert_cmpuint (id, <, tokenizer->vocab_size);
      if (!_llm_tokenizer_decode (tokenizer, prev, id, out, &error))
        {
          if (!(flags & FUZZ_DECODE_MAY_FAIL))
            g_error ("id %u of a loaded tokenizer failed to decode: %s", id, error->message);
          FUZZ_CHECK_ERROR (error);
        }
      prev = id;
    }
  return TRUE;
}
