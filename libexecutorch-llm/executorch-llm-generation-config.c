/* executorch-llm-generation-config.c: the settings of one generation
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-llm-generation-config.h"

/**
 * ExecutorchLlmGenerationConfig:
 *
 * How [class@ExecutorchLlm.Generator] generates: how many tokens, how it
 * samples them, where it stops, and how the prompt is encoded.  The names
 * and defaults are upstream ExecuTorch's `GenerationConfig` where it has
 * the setting; this library adds top-k, a seed, stop strings, and
 * temperatures above 1.
 *
 * ```c
 * g_autoptr (ExecutorchLlmGenerationConfig) config = executorch_llm_generation_config_new ();
 * executorch_llm_generation_config_set_temperature (config, 0.0);   // greedy
 * executorch_llm_generation_config_set_max_new_tokens (config, 64);
 * ```
 *
 * A generation reads the config when it starts; changing it afterwards
 * affects the next generation only.  A config is not thread-safe: do not
 * change it from one thread while another starts a generation with it.
 *
 * Since: 1.0
 */
struct _ExecutorchLlmGenerationConfig
{
  GObject parent_instance;
  gint max_new_tokens;
  gdouble temperature;
  gdouble top_p;
  guint top_k;
  gint64 seed;
  guint n_bos;
  guint n_eos;
  gboolean ignore_eos;
  gboolean echo;
  char **stop_strings;
};

enum
{
  PROP_0,
  PROP_MAX_NEW_TOKENS,
  PROP_TEMPERATURE,
  PROP_TOP_P,
  PROP_TOP_K,
  PROP_SEED,
  PROP_N_BOS,
  PROP_N_EOS,
  PROP_IGNORE_EOS,
  PROP_ECHO,
  PROP_STOP_STRINGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (ExecutorchLlmGenerationConfig, executorch_llm_generation_config, G_TYPE_OBJECT)

static void
executorch_llm_generation_config_finalize (GObject *object)
{
  ExecutorchLlmGenerationConfig *self = EXECUTORCH_LLM_GENERATION_CONFIG (object);
  g_strfreev (self->stop_strings);
  G_OBJECT_CLASS (executorch_llm_generation_config_parent_class)->finalize (object);
}

static void
executorch_llm_generation_config_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  ExecutorchLlmGenerationConfig *self = EXECUTORCH_LLM_GENERATION_CONFIG (object);
  switch (prop_id)
    {
      case PROP_MAX_NEW_TOKENS: g_value_set_int (value, self->max_new_tokens); break;
      case PROP_TEMPERATURE: g_value_set_double (value, self->temperature); break;
      case PROP_TOP_P: g_value_set_double (value, self->top_p); break;
      case PROP_TOP_K: g_value_set_uint (value, self->top_k); break;
      case PROP_SEED: g_value_set_int64 (value, self->seed); break;
      case PROP_N_BOS: g_value_set_uint (value, self->n_bos); break;
      case PROP_N_EOS: g_value_set_uint (value, self->n_eos); break;
      case PROP_IGNORE_EOS: g_value_set_boolean (value, self->ignore_eos); break;
      case PROP_ECHO: g_value_set_boolean (value, self->echo); break;
      case PROP_STOP_STRINGS: g_value_set_boxed (value, self->stop_strings); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_llm_generation_config_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  ExecutorchLlmGenerationConfig *self = EXECUTORCH_LLM_GENERATION_CONFIG (object);
  switch (prop_id)
    {
      case PROP_MAX_NEW_TOKENS:
        executorch_llm_generation_config_set_max_new_tokens (self, g_value_get_int (value));
        break;
      case PROP_TEMPERATURE: executorch_llm_generation_config_set_temperature (self, g_value_get_double (value)); break;
      case PROP_TOP_P: executorch_llm_generation_config_set_top_p (self, g_value_get_double (value)); break;
      case PROP_TOP_K: executorch_llm_generation_config_set_top_k (self, g_value_get_uint (value)); break;
      case PROP_SEED: executorch_llm_generation_config_set_seed (self, g_value_get_int64 (value)); break;
      case PROP_N_BOS: executorch_llm_generation_config_set_n_bos (self, g_value_get_uint (value)); break;
      case PROP_N_EOS: executorch_llm_generation_config_set_n_eos (self, g_value_get_uint (value)); break;
      case PROP_IGNORE_EOS: executorch_llm_generation_config_set_ignore_eos (self, g_value_get_boolean (value)); break;
      case PROP_ECHO: executorch_llm_generation_config_set_echo (self, g_value_get_boolean (value)); break;
      case PROP_STOP_STRINGS:
        executorch_llm_generation_config_set_stop_strings (self, g_value_get_boxed (value));
        break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_llm_generation_config_class_init (ExecutorchLlmGenerationConfigClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = executorch_llm_generation_config_finalize;
  object_class->get_property = executorch_llm_generation_config_get_property;
  object_class->set_property = executorch_llm_generation_config_set_property;

#define FLAGS (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)
  /**
   * ExecutorchLlmGenerationConfig:max-new-tokens:
   *
   * The most tokens to generate, counting the first one (which the prompt gives) and an end-of-sequence token; -1: as many as fit in the context. Upstream's `max_new_tokens`.
   *
   * Since: 1.0
   */
  properties[PROP_MAX_NEW_TOKENS] = g_param_spec_int ("max-new-tokens", NULL, NULL, -1, G_MAXINT, -1, FLAGS);
  /**
   * ExecutorchLlmGenerationConfig:temperature:
   *
   * How random sampling is: the logits are divided by it before the softmax. 0 takes the most likely token (argmax, the lowest id on ties), exactly as upstream, so greedy text equals upstream's. Unlike upstream's runner, values above 1 are allowed, and the first token is sampled with it too (upstream takes it greedily). Default 0.8, upstream's.
   *
   * Since: 1.0
   */
  properties[PROP_TEMPERATURE] = g_param_spec_double ("temperature", NULL, NULL, 0.0, G_MAXDOUBLE, 0.8, FLAGS);
  /**
   * ExecutorchLlmGenerationConfig:top-p:
   *
   * Nucleus sampling: only the most likely tokens whose probabilities add up to more than this are drawn from; 1 (or 0) turns it off. Default 0.9, the value upstream's runner fixes.
   *
   * Since: 1.0
   */
  properties[PROP_TOP_P] = g_param_spec_double ("top-p", NULL, NULL, 0.0, 1.0, 0.9, FLAGS);
  /**
   * ExecutorchLlmGenerationConfig:top-k:
   *
   * Only the this many most likely tokens are drawn from; 0 turns it off (upstream's runner has no top-k).
   *
   * Since: 1.0
   */
  properties[PROP_TOP_K] = g_param_spec_uint ("top-k", NULL, NULL, 0, G_MAXUINT, 0, FLAGS);
  /**
   * ExecutorchLlmGenerationConfig:seed:
   *
   * The seed of the sampler's random numbers: the same seed, prompt and settings give the same text. -1: a new seed from the clock for each generation (upstream has no seed).
   *
   * Since: 1.0
   */
  properties[PROP_SEED] = g_param_spec_int64 ("seed", NULL, NULL, -1, G_MAXINT64, -1, FLAGS);
  /**
   * ExecutorchLlmGenerationConfig:n-bos:
   *
   * How many beginning-of-sequence tokens the tokenizer puts before the prompt (see [method@ExecutorchLlm.Tokenizer.encode]); upstream's `num_bos`, default 0.
   *
   * Since: 1.0
   */
  properties[PROP_N_BOS] = g_param_spec_uint ("n-bos", NULL, NULL, 0, G_MAXUINT, 0, FLAGS);
  /**
   * ExecutorchLlmGenerationConfig:n-eos:
   *
   * How many end-of-sequence tokens the tokenizer puts after the prompt; upstream's `num_eos`, default 0.
   *
   * Since: 1.0
   */
  properties[PROP_N_EOS] = g_param_spec_uint ("n-eos", NULL, NULL, 0, G_MAXUINT, 0, FLAGS);
  /**
   * ExecutorchLlmGenerationConfig:ignore-eos:
   *
   * Whether to go on past end-of-sequence tokens.
   *
   * Since: 1.0
   */
  properties[PROP_IGNORE_EOS] = g_param_spec_boolean ("ignore-eos", NULL, NULL, FALSE, FLAGS);
  /**
   * ExecutorchLlmGenerationConfig:echo:
   *
   * Whether the prompt's text comes first, in the [signal@ExecutorchLlm.Generator::text] signal and in the returned text. Upstream's runner echoes by default; this library does not.
   *
   * Since: 1.0
   */
  properties[PROP_ECHO] = g_param_spec_boolean ("echo", NULL, NULL, FALSE, FLAGS);
  /**
   * ExecutorchLlmGenerationConfig:stop-strings:
   *
   * Texts that end the generation: the text stops before the first of them
   * to appear in the generated text (the prompt is not searched).  While
   * the generated text ends with what could be the start of one, that part
   * is held back from the [signal@ExecutorchLlm.Generator::text] signal.
   * Empty strings are ignored.
   *
   * Since: 1.0
   */
  properties[PROP_STOP_STRINGS] = g_param_spec_boxed ("stop-strings", NULL, NULL, G_TYPE_STRV, FLAGS);
#undef FLAGS
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
executorch_llm_generation_config_init (ExecutorchLlmGenerationConfig *self)
{
  self->max_new_tokens = -1;
  self->temperature = 0.8;
  self->top_p = 0.9;
  self->top_k = 0;
  self->seed = -1;
  self->n_bos = 0;
  self->n_eos = 0;
  self->ignore_eos = FALSE;
  self->echo = FALSE;
}

/**
 * executorch_llm_generation_config_new:
 *
 * Makes a config with the default settings (see the properties).
 *
 * Returns: (transfer full): a new config
 *
 * Since: 1.0
 */
ExecutorchLlmGenerationConfig *
executorch_llm_generation_config_new (void)
{
  return g_object_new (EXECUTORCH_LLM_TYPE_GENERATION_CONFIG, NULL);
}

/**
 * executorch_llm_generation_config_copy:
 * @config: a config
 *
 * Copies a config.
 *
 * Returns: (transfer full): a new config with the settings of @config
 *
 * Since: 1.0
 */
ExecutorchLlmGenerationConfig *
executorch_llm_generation_config_copy (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), NULL);
  ExecutorchLlmGenerationConfig *copy = executorch_llm_generation_config_new ();
  copy->max_new_tokens = config->max_new_tokens;
  copy->temperature = config->temperature;
  copy->top_p = config->top_p;
  copy->top_k = config->top_k;
  copy->seed = config->seed;
  copy->n_bos = config->n_bos;
  copy->n_eos = config->n_eos;
  copy->ignore_eos = config->ignore_eos;
  copy->echo = config->echo;
  copy->stop_strings = g_strdupv (config->stop_strings);
  return copy;
}

/**
 * executorch_llm_generation_config_get_max_new_tokens:
 * @config: a config
 *
 * Gets the [property@ExecutorchLlm.GenerationConfig:max-new-tokens] setting.
 *
 * Returns: the setting
 *
 * Since: 1.0
 */
gint
executorch_llm_generation_config_get_max_new_tokens (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), -1);
  return config->max_new_tokens;
}

/**
 * executorch_llm_generation_config_set_max_new_tokens:
 * @config: a config
 * @max_new_tokens: the new setting
 *
 * Sets the [property@ExecutorchLlm.GenerationConfig:max-new-tokens] setting.
 *
 * Since: 1.0
 */
void
executorch_llm_generation_config_set_max_new_tokens (ExecutorchLlmGenerationConfig *config, gint max_new_tokens)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));
  g_return_if_fail (max_new_tokens >= -1);
  if (config->max_new_tokens == max_new_tokens)
    return;
  config->max_new_tokens = max_new_tokens;
  g_object_notify_by_pspec (G_OBJECT (config), properties[PROP_MAX_NEW_TOKENS]);
}

/**
 * executorch_llm_generation_config_get_temperature:
 * @config: a config
 *
 * Gets the [property@ExecutorchLlm.GenerationConfig:temperature] setting.
 *
 * Returns: the setting
 *
 * Since: 1.0
 */
gdouble
executorch_llm_generation_config_get_temperature (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), 0.8);
  return config->temperature;
}

/**
 * executorch_llm_generation_config_set_temperature:
 * @config: a config
 * @temperature: the new setting
 *
 * Sets the [property@ExecutorchLlm.GenerationConfig:temperature] setting.
 *
 * Since: 1.0
 */
void
executorch_llm_generation_config_set_temperature (ExecutorchLlmGenerationConfig *config, gdouble temperature)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));
  g_return_if_fail (temperature >= 0.0 && temperature <= G_MAXDOUBLE);
  if (config->temperature == temperature)
    return;
  config->temperature = temperature;
  g_object_notify_by_pspec (G_OBJECT (config), properties[PROP_TEMPERATURE]);
}

/**
 * executorch_llm_generation_config_get_top_p:
 * @config: a config
 *
 * Gets the [property@ExecutorchLlm.GenerationConfig:top-p] setting.
 *
 * Returns: the setting
 *
 * Since: 1.0
 */
gdouble
executorch_llm_generation_config_get_top_p (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), 0.9);
  return config->top_p;
}

/**
 * executorch_llm_generation_config_set_top_p:
 * @config: a config
 * @top_p: the new setting
 *
 * Sets the [property@ExecutorchLlm.GenerationConfig:top-p] setting.
 *
 * Since: 1.0
 */
void
executorch_llm_generation_config_set_top_p (ExecutorchLlmGenerationConfig *config, gdouble top_p)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));
  g_return_if_fail (top_p >= 0.0 && top_p <= 1.0);
  if (config->top_p == top_p)
    return;
  config->top_p = top_p;
  g_object_notify_by_pspec (G_OBJECT (config), properties[PROP_TOP_P]);
}

/**
 * executorch_llm_generation_config_get_top_k:
 * @config: a config
 *
 * Gets the [property@ExecutorchLlm.GenerationConfig:top-k] setting.
 *
 * Returns: the setting
 *
 * Since: 1.0
 */
guint
executorch_llm_generation_config_get_top_k (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), 0);
  return config->top_k;
}

/**
 * executorch_llm_generation_config_set_top_k:
 * @config: a config
 * @top_k: the new setting
 *
 * Sets the [property@ExecutorchLlm.GenerationConfig:top-k] setting.
 *
 * Since: 1.0
 */
void
executorch_llm_generation_config_set_top_k (ExecutorchLlmGenerationConfig *config, guint top_k)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));
  if (config->top_k == top_k)
    return;
  config->top_k = top_k;
  g_object_notify_by_pspec (G_OBJECT (config), properties[PROP_TOP_K]);
}

/**
 * executorch_llm_generation_config_get_seed:
 * @config: a config
 *
 * Gets the [property@ExecutorchLlm.GenerationConfig:seed] setting.
 *
 * Returns: the setting
 *
 * Since: 1.0
 */
gint64
executorch_llm_generation_config_get_seed (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), -1);
  return config->seed;
}

/**
 * executorch_llm_generation_config_set_seed:
 * @config: a config
 * @seed: the new setting
 *
 * Sets the [property@ExecutorchLlm.GenerationConfig:seed] setting.
 *
 * Since: 1.0
 */
void
executorch_llm_generation_config_set_seed (ExecutorchLlmGenerationConfig *config, gint64 seed)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));
  g_return_if_fail (seed >= -1);
  if (config->seed == seed)
    return;
  config->seed = seed;
  g_object_notify_by_pspec (G_OBJECT (config), properties[PROP_SEED]);
}

/**
 * executorch_llm_generation_config_get_n_bos:
 * @config: a config
 *
 * Gets the [property@ExecutorchLlm.GenerationConfig:n-bos] setting.
 *
 * Returns: the setting
 *
 * Since: 1.0
 */
guint
executorch_llm_generation_config_get_n_bos (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), 0);
  return config->n_bos;
}

/**
 * executorch_llm_generation_config_set_n_bos:
 * @config: a config
 * @n_bos: the new setting
 *
 * Sets the [property@ExecutorchLlm.GenerationConfig:n-bos] setting.
 *
 * Since: 1.0
 */
void
executorch_llm_generation_config_set_n_bos (ExecutorchLlmGenerationConfig *config, guint n_bos)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));
  if (config->n_bos == n_bos)
    return;
  config->n_bos = n_bos;
  g_object_notify_by_pspec (G_OBJECT (config), properties[PROP_N_BOS]);
}

/**
 * executorch_llm_generation_config_get_n_eos:
 * @config: a config
 *
 * Gets the [property@ExecutorchLlm.GenerationConfig:n-eos] setting.
 *
 * Returns: the setting
 *
 * Since: 1.0
 */
guint
executorch_llm_generation_config_get_n_eos (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), 0);
  return config->n_eos;
}

/**
 * executorch_llm_generation_config_set_n_eos:
 * @config: a config
 * @n_eos: the new setting
 *
 * Sets the [property@ExecutorchLlm.GenerationConfig:n-eos] setting.
 *
 * Since: 1.0
 */
void
executorch_llm_generation_config_set_n_eos (ExecutorchLlmGenerationConfig *config, guint n_eos)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));
  if (config->n_eos == n_eos)
    return;
  config->n_eos = n_eos;
  g_object_notify_by_pspec (G_OBJECT (config), properties[PROP_N_EOS]);
}

/**
 * executorch_llm_generation_config_get_ignore_eos:
 * @config: a config
 *
 * Gets the [property@ExecutorchLlm.GenerationConfig:ignore-eos] setting.
 *
 * Returns: the setting
 *
 * Since: 1.0
 */
gboolean
executorch_llm_generation_config_get_ignore_eos (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), FALSE);
  return config->ignore_eos;
}

/**
 * executorch_llm_generation_config_set_ignore_eos:
 * @config: a config
 * @ignore_eos: the new setting
 *
 * Sets the [property@ExecutorchLlm.GenerationConfig:ignore-eos] setting.
 *
 * Since: 1.0
 */
void
executorch_llm_generation_config_set_ignore_eos (ExecutorchLlmGenerationConfig *config, gboolean ignore_eos)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));
  ignore_eos = ignore_eos != FALSE;
  if (config->ignore_eos == ignore_eos)
    return;
  config->ignore_eos = ignore_eos;
  g_object_notify_by_pspec (G_OBJECT (config), properties[PROP_IGNORE_EOS]);
}

/**
 * executorch_llm_generation_config_get_echo:
 * @config: a config
 *
 * Gets the [property@ExecutorchLlm.GenerationConfig:echo] setting.
 *
 * Returns: the setting
 *
 * Since: 1.0
 */
gboolean
executorch_llm_generation_config_get_echo (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), FALSE);
  return config->echo;
}

/**
 * executorch_llm_generation_config_set_echo:
 * @config: a config
 * @echo: the new setting
 *
 * Sets the [property@ExecutorchLlm.GenerationConfig:echo] setting.
 *
 * Since: 1.0
 */
void
executorch_llm_generation_config_set_echo (ExecutorchLlmGenerationConfig *config, gboolean echo)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));
  echo = echo != FALSE;
  if (config->echo == echo)
    return;
  config->echo = echo;
  g_object_notify_by_pspec (G_OBJECT (config), properties[PROP_ECHO]);
}

/**
 * executorch_llm_generation_config_get_stop_strings:
 * @config: a config
 *
 * Gets the [property@ExecutorchLlm.GenerationConfig:stop-strings].
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the stop
 *   strings, or %NULL when there are none
 *
 * Since: 1.0
 */
const char *const *
executorch_llm_generation_config_get_stop_strings (ExecutorchLlmGenerationConfig *config)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), NULL);
  return (const char *const *) config->stop_strings;
}

/**
 * executorch_llm_generation_config_set_stop_strings:
 * @config: a config
 * @stop_strings: (nullable) (array zero-terminated=1): UTF-8 texts that end
 *   the generation, or %NULL for none
 *
 * Sets the [property@ExecutorchLlm.GenerationConfig:stop-strings]; the
 * strings are copied.
 *
 * Since: 1.0
 */
void
executorch_llm_generation_config_set_stop_strings (ExecutorchLlmGenerationConfig *config,
                                                   const char *const *stop_strings)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));
  for (guint i = 0; stop_strings != NULL && stop_strings[i] != NULL; i++)
    g_return_if_fail (g_utf8_validate (stop_strings[i], -1, NULL));
  g_strfreev (config->stop_strings);
  config->stop_strings = g_strdupv ((char **) stop_strings);
  g_object_notify_by_pspec (G_OBJECT (config), properties[PROP_STOP_STRINGS]);
}
