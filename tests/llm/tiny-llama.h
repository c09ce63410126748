/* tiny-llama.h: the tiny llamas of tests/llm/models, loaded for a test
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared by the generator's and the text stream's tests: a generator for
 * one of the models with a given tokenizer, and a greedy configuration.
 */
#pragma once

#include "executorch-llm.h"

static inline char *
model_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "llm", "models", name, NULL);
}

static inline ExecutorchLlmGenerator *
make_generator (const char *name, ExecutorchLlmTokenizer *tokenizer)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = model_path (name);
  ExecutorchLlmGenerator *g = executorch_llm_generator_new (path, NULL, tokenizer, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (g);
  return g;
}

/* Temperature 0 (argmax) and at most @max_new_tokens. */
static inline ExecutorchLlmGenerationConfig *
greedy_config (gint max_new_tokens)
{
  ExecutorchLlmGenerationConfig *c = executorch_llm_generation_config_new ();
  executorch_llm_generation_config_set_temperature (c, 0.0);
  executorch_llm_generation_config_set_max_new_tokens (c, max_new_tokens);
  return c;
}
