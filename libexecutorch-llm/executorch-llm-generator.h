/* executorch-llm-generator.h: text generation with an exported language model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_LLM_H_INSIDE__) && !defined(EXECUTORCH_LLM_COMPILATION)
#error "Only <executorch-llm/executorch-llm.h> can be included directly."
#endif

#include <gio/gio.h>
#include <executorch.h>

#include "executorch-llm-visibility.h"
#include "executorch-llm-enums.h"
#include "executorch-llm-tokenizer.h"
#include "executorch-llm-generation-config.h"
#include "executorch-llm-stats.h"
#include "executorch-llm-text-stream.h"

G_BEGIN_DECLS

#define EXECUTORCH_LLM_TYPE_GENERATOR (executorch_llm_generator_get_type ())
EXECUTORCH_LLM_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchLlmGenerator, executorch_llm_generator, EXECUTORCH_LLM, GENERATOR, GObject)

EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmGenerator *executorch_llm_generator_new (const char *model_path, const char *const *data_paths,
                                                      ExecutorchLlmTokenizer *tokenizer, GCancellable *cancellable,
                                                      GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmGenerator *executorch_llm_generator_new_for_program (ExecutorchProgram *program,
                                                                  ExecutorchLlmTokenizer *tokenizer,
                                                                  GCancellable *cancellable,
                                                                  GError **error) G_GNUC_WARN_UNUSED_RESULT;

EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchProgram *executorch_llm_generator_get_program (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmTokenizer *executorch_llm_generator_get_tokenizer (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gint64 executorch_llm_generator_get_max_seq_len (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gint64 executorch_llm_generator_get_max_context_len (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gboolean executorch_llm_generator_get_use_kv_cache (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gboolean executorch_llm_generator_get_dynamic_shape (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
guint executorch_llm_generator_get_max_prefill_chunk (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
guint executorch_llm_generator_get_model_vocab_size (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
const guint32 *executorch_llm_generator_get_eos_ids (ExecutorchLlmGenerator *generator, gsize *n_ids);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
guint executorch_llm_generator_get_position (ExecutorchLlmGenerator *generator);

EXECUTORCH_LLM_AVAILABLE_IN_1_0
char *executorch_llm_generator_generate (ExecutorchLlmGenerator *generator, const char *prompt,
                                         ExecutorchLlmGenerationConfig *config, GCancellable *cancellable,
                                         GError **error);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
char *executorch_llm_generator_generate_tokens (ExecutorchLlmGenerator *generator, const guint32 *ids, gsize n_ids,
                                                ExecutorchLlmGenerationConfig *config, GCancellable *cancellable,
                                                GError **error);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generator_generate_async (ExecutorchLlmGenerator *generator, const char *prompt,
                                              ExecutorchLlmGenerationConfig *config, GCancellable *cancellable,
                                              GAsyncReadyCallback callback, gpointer user_data);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
char *executorch_llm_generator_generate_finish (ExecutorchLlmGenerator *generator, GAsyncResult *result,
                                                GError **error);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmTextStream *executorch_llm_generator_stream (ExecutorchLlmGenerator *generator, const char *prompt,
                                                          ExecutorchLlmGenerationConfig *config,
                                                          GCancellable *cancellable,
                                                          GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generator_stop (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generator_reset (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmStopReason executorch_llm_generator_get_stop_reason (ExecutorchLlmGenerator *generator);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmStats *executorch_llm_generator_get_stats (ExecutorchLlmGenerator *generator);

G_END_DECLS
