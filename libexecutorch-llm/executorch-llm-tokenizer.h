/* executorch-llm-tokenizer.h: text to token ids and back
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_LLM_H_INSIDE__) && !defined(EXECUTORCH_LLM_COMPILATION)
#error "Only <executorch-llm/executorch-llm.h> can be included directly."
#endif

#include <gio/gio.h>

#include "executorch-llm-visibility.h"
#include "executorch-llm-enums.h"

G_BEGIN_DECLS

#define EXECUTORCH_LLM_TYPE_TOKENIZER (executorch_llm_tokenizer_get_type ())
EXECUTORCH_LLM_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchLlmTokenizer, executorch_llm_tokenizer, EXECUTORCH_LLM, TOKENIZER, GObject)

EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmTokenizer *executorch_llm_tokenizer_new_from_file (const char *path,
                                                                GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmTokenizer *executorch_llm_tokenizer_new_from_file_with_format (const char *path,
                                                                            ExecutorchLlmTokenizerFormat format,
                                                                            GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmTokenizer *executorch_llm_tokenizer_new_from_bytes (GBytes *data, ExecutorchLlmTokenizerFormat format,
                                                                 GError **error) G_GNUC_WARN_UNUSED_RESULT;

EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmTokenizerFormat executorch_llm_tokenizer_get_format (ExecutorchLlmTokenizer *tokenizer);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
guint executorch_llm_tokenizer_get_vocab_size (ExecutorchLlmTokenizer *tokenizer);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gint64 executorch_llm_tokenizer_get_bos_id (ExecutorchLlmTokenizer *tokenizer);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gint64 executorch_llm_tokenizer_get_eos_id (ExecutorchLlmTokenizer *tokenizer);

EXECUTORCH_LLM_AVAILABLE_IN_1_0
guint32 *executorch_llm_tokenizer_encode (ExecutorchLlmTokenizer *tokenizer, const char *text, guint n_bos, guint n_eos,
                                          gsize *n_ids, GError **error);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
GBytes *executorch_llm_tokenizer_decode_token (ExecutorchLlmTokenizer *tokenizer, gint64 previous, guint32 id,
                                               GError **error);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
char *executorch_llm_tokenizer_decode (ExecutorchLlmTokenizer *tokenizer, const guint32 *ids, gsize n_ids,
                                       GError **error);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gboolean executorch_llm_tokenizer_lookup (ExecutorchLlmTokenizer *tokenizer, const char *piece, guint32 *id);

G_END_DECLS
