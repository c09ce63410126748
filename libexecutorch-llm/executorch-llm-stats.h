/* executorch-llm-stats.h: timings and token counts of one generation
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_LLM_H_INSIDE__) && !defined(EXECUTORCH_LLM_COMPILATION)
#error "Only <executorch-llm/executorch-llm.h> can be included directly."
#endif

#include <glib-object.h>

#include "executorch-llm-visibility.h"

G_BEGIN_DECLS

/**
 * ExecutorchLlmStats:
 * @model_load_start_ms: when loading the model's methods began, as the generator was made
 *   (upstream loads them in its first generate); wall clock, milliseconds since the Unix epoch,
 *   as every time here
 * @model_load_end_ms: when loading the model's methods ended
 * @inference_start_ms: when the generation began, before the prompt was encoded
 * @prompt_eval_end_ms: when the prompt had been run through the model (prefill done)
 * @first_token_ms: when the first new token was sampled (equal to @prompt_eval_end_ms, as upstream)
 * @inference_end_ms: when the generation ended
 * @model_execution_start_ms: when the most recent model execution began
 * @model_execution_end_ms: when the most recent model execution ended
 * @aggregate_model_execution_time_ms: the time spent in model executions (prefill and decode),
 *   summed since the generator was made or last reset
 * @aggregate_sampling_time_ms: the time spent sampling, summed since the generator was made or
 *   last reset
 * @num_prompt_tokens: the tokens of this generation's prompt
 * @num_generated_tokens: the tokens generated after the first one (upstream counts the token that
 *   the prefill gives apart; the total of new tokens is one more when any was generated)
 *
 * What upstream ExecuTorch's text runner records about a generation (its
 * `Stats`, with the same field names and meanings), as a plain record.
 * [method@ExecutorchLlm.Stats.to_json] writes the JSON of upstream's
 * `PyTorchObserver` report line.
 *
 * Since: 1.0
 */
typedef struct
{
  gint64 model_load_start_ms;
  gint64 model_load_end_ms;
  gint64 inference_start_ms;
  gint64 prompt_eval_end_ms;
  gint64 first_token_ms;
  gint64 inference_end_ms;
  gint64 model_execution_start_ms;
  gint64 model_execution_end_ms;
  gint64 aggregate_model_execution_time_ms;
  gint64 aggregate_sampling_time_ms;
  gint64 num_prompt_tokens;
  gint64 num_generated_tokens;
  /*< private >*/
  gpointer padding[4];
} ExecutorchLlmStats;

#define EXECUTORCH_LLM_TYPE_STATS (executorch_llm_stats_get_type ())
EXECUTORCH_LLM_AVAILABLE_IN_1_0
GType executorch_llm_stats_get_type (void) G_GNUC_CONST;

EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmStats *executorch_llm_stats_copy (const ExecutorchLlmStats *stats) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_stats_free (ExecutorchLlmStats *stats);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gint64 executorch_llm_stats_get_time_to_first_token_ms (const ExecutorchLlmStats *stats);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gdouble executorch_llm_stats_get_prefill_tokens_per_second (const ExecutorchLlmStats *stats);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gdouble executorch_llm_stats_get_decode_tokens_per_second (const ExecutorchLlmStats *stats);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
char *executorch_llm_stats_to_json (const ExecutorchLlmStats *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExecutorchLlmStats, executorch_llm_stats_free)

G_END_DECLS
