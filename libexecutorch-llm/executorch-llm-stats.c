/* executorch-llm-stats.c: upstream's Stats record and its JSON report
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-llm-stats.h"

#include <math.h>

G_DEFINE_BOXED_TYPE (ExecutorchLlmStats, executorch_llm_stats, executorch_llm_stats_copy, executorch_llm_stats_free)

/**
 * executorch_llm_stats_copy:
 * @stats: a stats record
 *
 * Copies a stats record.
 *
 * Returns: (transfer full): a copy (free with executorch_llm_stats_free())
 *
 * Since: 1.0
 */
ExecutorchLlmStats *
executorch_llm_stats_copy (const ExecutorchLlmStats *stats)
{
  g_return_val_if_fail (stats != NULL, NULL);
  return g_memdup2 (stats, sizeof *stats);
}

/**
 * executorch_llm_stats_free:
 * @stats: (nullable): a stats record
 *
 * Frees a stats record.
 *
 * Since: 1.0
 */
void
executorch_llm_stats_free (ExecutorchLlmStats *stats)
{
  g_free (stats);
}

/**
 * executorch_llm_stats_get_time_to_first_token_ms:
 * @stats: a stats record
 *
 * Gets the time from the start of the generation to the first new token
 * (upstream's "Time to first generated token").
 *
 * Returns: milliseconds
 *
 * Since: 1.0
 */
gint64
executorch_llm_stats_get_time_to_first_token_ms (const ExecutorchLlmStats *stats)
{
  g_return_val_if_fail (stats != NULL, 0);
  return stats->first_token_ms - stats->inference_start_ms;
}

/**
 * executorch_llm_stats_get_prefill_tokens_per_second:
 * @stats: a stats record
 *
 * Gets the prompt rate: prompt tokens over the time from the start of the
 * generation to the end of the prefill, as upstream's report computes it.
 *
 * Returns: tokens per second, or 0 when no time was measured
 *
 * Since: 1.0
 */
gdouble
executorch_llm_stats_get_prefill_tokens_per_second (const ExecutorchLlmStats *stats)
{
  g_return_val_if_fail (stats != NULL, 0.0);
  gint64 ms = stats->prompt_eval_end_ms - stats->inference_start_ms;
  return ms > 0 ? (gdouble) stats->num_prompt_tokens / ms * 1000.0 : 0.0;
}

/**
 * executorch_llm_stats_get_decode_tokens_per_second:
 * @stats: a stats record
 *
 * Gets the generation rate: generated tokens over the time from the end of
 * the prefill to the end of the generation, as upstream's report computes
 * it.
 *
 * Returns: tokens per second, or 0 when no time was measured
 *
 * Since: 1.0
 */
gdouble
executorch_llm_stats_get_decode_tokens_per_second (const ExecutorchLlmStats *stats)
{
  g_return_val_if_fail (stats != NULL, 0.0);
  gint64 ms = stats->inference_end_ms - stats->prompt_eval_end_ms;
  return ms > 0 ? (gdouble) stats->num_generated_tokens / ms * 1000.0 : 0.0;
}

/* iostream's default: six significant digits, no trailing zeros. */
static void
append_double (GString *json, gdouble v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.6g", v);
  g_string_append (json, buf);
}

/**
 * executorch_llm_stats_to_json:
 * @stats: a stats record
 *
 * Writes the JSON object that upstream's runner prints after
 * `PyTorchObserver ` (and that its Python `Stats.to_json_string()`
 * returns), with the same keys in the same order:
 * `prefill_token_per_sec` and `decode_token_per_sec` (each only when its
 * time is above zero), `prompt_tokens`, `generated_tokens`, the times in
 * milliseconds, and `SCALING_FACTOR_UNITS_PER_SECOND` (1000).
 *
 * Returns: (transfer full): compact JSON (free with g_free())
 *
 * Since: 1.0
 */
char *
executorch_llm_stats_to_json (const ExecutorchLlmStats *stats)
{
  g_return_val_if_fail (stats != NULL, NULL);
  GString *json = g_string_new ("{");
  if (stats->prompt_eval_end_ms - stats->inference_start_ms > 0)
    {
      g_string_append (json, "\"prefill_token_per_sec\":");
      append_double (json, executorch_llm_stats_get_prefill_tokens_per_second (stats));
      g_string_append_c (json, ',');
    }
  if (stats->inference_end_ms - stats->prompt_eval_end_ms > 0)
    {
      g_string_append (json, "\"decode_token_per_sec\":");
      append_double (json, executorch_llm_stats_get_decode_tokens_per_second (stats));
      g_string_append_c (json, ',');
    }
  g_string_append_printf (json,
                          "\"prompt_tokens\":%" G_GINT64_FORMAT ",\"generated_tokens\":%" G_GINT64_FORMAT
                          ",\"model_load_start_ms\":%" G_GINT64_FORMAT ",\"model_load_end_ms\":%" G_GINT64_FORMAT
                          ",\"inference_start_ms\":%" G_GINT64_FORMAT ",\"inference_end_ms\":%" G_GINT64_FORMAT
                          ",\"model_execution_start_ms\":%" G_GINT64_FORMAT
                          ",\"model_execution_end_ms\":%" G_GINT64_FORMAT ",\"prompt_eval_end_ms\":%" G_GINT64_FORMAT
                          ",\"first_token_ms\":%" G_GINT64_FORMAT ",\"aggregate_sampling_time_ms\":%" G_GINT64_FORMAT
                          ",\"aggregate_model_execution_time_ms\":%" G_GINT64_FORMAT
                          ",\"SCALING_FACTOR_UNITS_PER_SECOND\":1000}",
                          stats->num_prompt_tokens, stats->num_generated_tokens, stats->model_load_start_ms,
                          stats->model_load_end_ms, stats->inference_start_ms, stats->inference_end_ms,
                          stats->model_execution_start_ms, stats->model_execution_end_ms, stats->prompt_eval_end_ms,
                          stats->first_token_ms, stats->aggregate_sampling_time_ms,
                          stats->aggregate_model_execution_time_ms);
  return g_string_free (json, FALSE);
}
