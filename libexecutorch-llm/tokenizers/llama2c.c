/* llama2c.c: placeholder until the format's reader lands (refuses every file)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tokenizer-impl.h"

LlmTokenizerImpl *
_llm_llama2c_load (GBytes *contents, const char *name, GError **error)
{
  g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED, "%s: this format is not read yet", name);
  return NULL;
}
