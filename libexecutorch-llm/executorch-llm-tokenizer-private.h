/* executorch-llm-tokenizer-private.h: what the generator and tests reach of a tokenizer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "executorch-llm-tokenizer.h"
#include "tokenizers/tokenizer-impl.h"

G_BEGIN_DECLS

/* Wraps @impl (taking it). */
ExecutorchLlmTokenizer *_executorch_llm_tokenizer_new_for_impl (LlmTokenizerImpl *impl);
LlmTokenizerImpl *_executorch_llm_tokenizer_get_impl (ExecutorchLlmTokenizer *tokenizer);

G_END_DECLS
