/* executorch-llm-generation-config.h: the settings of one generation
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_LLM_H_INSIDE__) && !defined(EXECUTORCH_LLM_COMPILATION)
#error "Only <executorch-llm/executorch-llm.h> can be included directly."
#endif

#include <gio/gio.h>

#include "executorch-llm-visibility.h"

G_BEGIN_DECLS

#define EXECUTORCH_LLM_TYPE_GENERATION_CONFIG (executorch_llm_generation_config_get_type ())
EXECUTORCH_LLM_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchLlmGenerationConfig, executorch_llm_generation_config, EXECUTORCH_LLM,
                      GENERATION_CONFIG, GObject)

EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmGenerationConfig *executorch_llm_generation_config_new (void) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmGenerationConfig *executorch_llm_generation_config_copy (ExecutorchLlmGenerationConfig *config)
    G_GNUC_WARN_UNUSED_RESULT;

EXECUTORCH_LLM_AVAILABLE_IN_1_0
gint executorch_llm_generation_config_get_max_new_tokens (ExecutorchLlmGenerationConfig *config);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generation_config_set_max_new_tokens (ExecutorchLlmGenerationConfig *config, gint max_new_tokens);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gdouble executorch_llm_generation_config_get_temperature (ExecutorchLlmGenerationConfig *config);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generation_config_set_temperature (ExecutorchLlmGenerationConfig *config, gdouble temperature);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gdouble executorch_llm_generation_config_get_top_p (ExecutorchLlmGenerationConfig *config);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generation_config_set_top_p (ExecutorchLlmGenerationConfig *config, gdouble top_p);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
guint executorch_llm_generation_config_get_top_k (ExecutorchLlmGenerationConfig *config);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generation_config_set_top_k (ExecutorchLlmGenerationConfig *config, guint top_k);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gint64 executorch_llm_generation_config_get_seed (ExecutorchLlmGenerationConfig *config);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generation_config_set_seed (ExecutorchLlmGenerationConfig *config, gint64 seed);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
const char *const *executorch_llm_generation_config_get_stop_strings (ExecutorchLlmGenerationConfig *config);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generation_config_set_stop_strings (ExecutorchLlmGenerationConfig *config,
                                                        const char *const *stop_strings);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
guint executorch_llm_generation_config_get_n_bos (ExecutorchLlmGenerationConfig *config);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generation_config_set_n_bos (ExecutorchLlmGenerationConfig *config, guint n_bos);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
guint executorch_llm_generation_config_get_n_eos (ExecutorchLlmGenerationConfig *config);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generation_config_set_n_eos (ExecutorchLlmGenerationConfig *config, guint n_eos);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gboolean executorch_llm_generation_config_get_ignore_eos (ExecutorchLlmGenerationConfig *config);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generation_config_set_ignore_eos (ExecutorchLlmGenerationConfig *config, gboolean ignore_eos);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gboolean executorch_llm_generation_config_get_echo (ExecutorchLlmGenerationConfig *config);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_generation_config_set_echo (ExecutorchLlmGenerationConfig *config, gboolean echo);

G_END_DECLS
