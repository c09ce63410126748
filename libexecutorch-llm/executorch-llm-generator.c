/* executorch-llm-generator.c: prefill, decode, stream
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-llm-generator.h"

#include "executorch-llm-enum-types.h"
#include "executorch-llm-tokenizer-private.h"
#include "llm-generation.h"
#include "llm-model.h"
#include "llm-sampler.h"
#include "llm-text-stream.h"

/**
 * ExecutorchLlmGenerator:
 *
 * Generates text with a language model exported by upstream ExecuTorch's
 * `export_llama` (or any program with its methods: `forward` taking tokens
 * and, with a KV cache, their position, and the `get_max_seq_len` family of
 * metadata methods), and a [class@ExecutorchLlm.Tokenizer].
 *
 * ```c
 * g_autoptr (ExecutorchLlmTokenizer) tokenizer =
 *     executorch_llm_tokenizer_new_from_file ("tokenizer.json", &error);
 * g_autoptr (ExecutorchLlmGenerator) generator =
 *     executorch_llm_generator_new ("llama.pte", NULL, tokenizer, NULL, &error);
 * g_autoptr (ExecutorchLlmGenerationConfig) config = executorch_llm_generation_config_new ();
 * executorch_llm_generation_config_set_temperature (config, 0.0);
 * g_signal_connect (generator, "text", G_CALLBACK (print_piece), NULL);
 * g_autofree char *text =
 *     executorch_llm_generator_generate (generator, "Once upon a time", config, NULL, &error);
 * ```
 *
 * It follows upstream's `TextLLMRunner`: the metadata with upstream's
 * defaults (`get_max_context_len` defaults to `get_max_seq_len`,
 * `use_kv_cache` to whether `forward` takes a position, `enable_dynamic_shape`
 * to false, and
 * `get_eos_ids`, when present, replaces the tokenizer's EOS); the prompt
 * is run in chunks as large as the program takes (one call per chunk with
 * a dynamic token count, one call per token otherwise); temperature 0 is
 * argmax with upstream's tie rule, so greedy text equals upstream's.  Where
 * upstream's runner fails, this one does not: chunks are cut to the
 * `forward` method's real token bound (export_llama's programs take
 * `max_seq_len - 1` tokens, and upstream's `max_seq_len` chunks fail),
 * generation ends cleanly when the KV cache is full, and text is streamed
 * in whole UTF-8 characters.  An end-of-sequence token ends the text
 * without its own text being added (upstream adds it, and never checks the
 * first token).
 *
 * The KV cache position is kept between generations: a second
 * [method@ExecutorchLlm.Generator.generate] continues the conversation, as
 * upstream's does (the last token sampled, such as the EOS, is not fed to
 * the model, so the context is the first prompt, the text generated but for
 * its last token, then the second prompt).  An empty prompt continues the
 * generation where it stopped.  [method@ExecutorchLlm.Generator.reset]
 * starts over.
 *
 * Made from its properties alone (`new ExecutorchLlm.Generator({program,
 * tokenizer})` in GJS, `ExecutorchLlm.Generator(program=..., tokenizer=...)`
 * in Python), a generator sets itself up all the same; if that failed,
 * g_initable_init() and every generation return the error.
 *
 * [method@ExecutorchLlm.Generator.stream] gives the same generation as a
 * [class@ExecutorchLlm.TextStream], pulled a piece at a time (Vala's
 * `foreach` iterates over it).
 *
 * A generator runs one generation at a time, an open stream included
 * (another one meanwhile fails with %EXECUTORCH_LLM_GENERATOR_ERROR_BUSY).  The asynchronous form runs
 * in a worker thread and delivers its signals in the caller's
 * thread-default main context, all of them before the callback.
 *
 * Since: 1.0
 */
struct _ExecutorchLlmGenerator
{
  GObject parent_instance;

  ExecutorchProgram *program;
  ExecutorchLlmTokenizer *tokenizer;
  gboolean initialized;
  GError *init_error;

  LlmModel model;
  GArray *eos_ids; /* guint32 */

  /* The state of the conversation: every token fed to the model since the
   * last reset (the KV cache's contents), the last sampled token not fed
   * yet, and whether model.logits follow history. */
  GArray *history; /* guint32 */
  gint64 pending;
  gboolean logits_ready;

  gint busy;           /* atomic */
  gint stop_requested; /* atomic */

  GMutex lock; /* stats and stop_reason, read from other threads */
  ExecutorchLlmStats stats;
  ExecutorchLlmStopReason stop_reason;
};

enum
{
  PROP_0,
  PROP_PROGRAM,
  PROP_TOKENIZER,
  PROP_MAX_SEQ_LEN,
  PROP_MAX_CONTEXT_LEN,
  PROP_USE_KV_CACHE,
  PROP_DYNAMIC_SHAPE,
  PROP_POSITION,
  PROP_STOP_REASON,
  N_PROPS
};

enum
{
  SIGNAL_TOKEN,
  SIGNAL_TEXT,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void executorch_llm_generator_initable_iface_init (GInitableIface *iface);
static void executorch_llm_generator_constructed (GObject *object);

G_DEFINE_FINAL_TYPE_WITH_CODE (ExecutorchLlmGenerator, executorch_llm_generator, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, executorch_llm_generator_initable_iface_init))

/**
 * executorch_llm_generator_error_quark:
 *
 * The quark of %EXECUTORCH_LLM_GENERATOR_ERROR.
 *
 * Returns: the error domain of generators
 *
 * Since: 1.0
 */
G_DEFINE_QUARK (executorch - llm - generator - error - quark, executorch_llm_generator_error)

static void
executorch_llm_generator_dispose (GObject *object)
{
  ExecutorchLlmGenerator *self = EXECUTORCH_LLM_GENERATOR (object);
  _llm_model_clear (&self->model);
  g_clear_object (&self->program);
  g_clear_object (&self->tokenizer);
  G_OBJECT_CLASS (executorch_llm_generator_parent_class)->dispose (object);
}

static void
executorch_llm_generator_finalize (GObject *object)
{
  ExecutorchLlmGenerator *self = EXECUTORCH_LLM_GENERATOR (object);
  g_clear_error (&self->init_error);
  g_clear_pointer (&self->eos_ids, g_array_unref);
  g_clear_pointer (&self->history, g_array_unref);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (executorch_llm_generator_parent_class)->finalize (object);
}

static void
executorch_llm_generator_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  ExecutorchLlmGenerator *self = EXECUTORCH_LLM_GENERATOR (object);
  switch (prop_id)
    {
      case PROP_PROGRAM: g_value_set_object (value, self->program); break;
      case PROP_TOKENIZER: g_value_set_object (value, self->tokenizer); break;
      case PROP_MAX_SEQ_LEN: g_value_set_int64 (value, self->model.max_seq_len); break;
      case PROP_MAX_CONTEXT_LEN: g_value_set_int64 (value, self->model.max_context_len); break;
      case PROP_USE_KV_CACHE: g_value_set_boolean (value, self->model.use_kv_cache); break;
      case PROP_DYNAMIC_SHAPE: g_value_set_boolean (value, self->model.enable_dynamic_shape); break;
      case PROP_POSITION: g_value_set_uint (value, self->history->len); break;
      case PROP_STOP_REASON: g_value_set_enum (value, executorch_llm_generator_get_stop_reason (self)); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_llm_generator_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  ExecutorchLlmGenerator *self = EXECUTORCH_LLM_GENERATOR (object);
  switch (prop_id)
    {
      case PROP_PROGRAM: self->program = g_value_dup_object (value); break;
      case PROP_TOKENIZER: self->tokenizer = g_value_dup_object (value); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_llm_generator_class_init (ExecutorchLlmGeneratorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->constructed = executorch_llm_generator_constructed;
  object_class->dispose = executorch_llm_generator_dispose;
  object_class->finalize = executorch_llm_generator_finalize;
  object_class->get_property = executorch_llm_generator_get_property;
  object_class->set_property = executorch_llm_generator_set_property;

#define RO (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)
  /**
   * ExecutorchLlmGenerator:program:
   *
   * The program the generator runs.
   *
   * Since: 1.0
   */
  properties[PROP_PROGRAM] = g_param_spec_object ("program", NULL, NULL, EXECUTORCH_TYPE_PROGRAM,
                                                  G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * ExecutorchLlmGenerator:tokenizer:
   *
   * The tokenizer of the program's vocabulary.
   *
   * Since: 1.0
   */
  properties[PROP_TOKENIZER] =
      g_param_spec_object ("tokenizer", NULL, NULL, EXECUTORCH_LLM_TYPE_TOKENIZER,
                           G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * ExecutorchLlmGenerator:max-seq-len:
   *
   * The program's `get_max_seq_len`: the longest prompt chunk it was
   * exported for.
   *
   * Since: 1.0
   */
  properties[PROP_MAX_SEQ_LEN] = g_param_spec_int64 ("max-seq-len", NULL, NULL, 0, G_MAXINT64, 0, RO);
  /**
   * ExecutorchLlmGenerator:max-context-len:
   *
   * The program's `get_max_context_len` (its `get_max_seq_len` when
   * absent): the length of the KV cache, the most tokens a conversation
   * holds.
   *
   * Since: 1.0
   */
  properties[PROP_MAX_CONTEXT_LEN] = g_param_spec_int64 ("max-context-len", NULL, NULL, 0, G_MAXINT64, 0, RO);
  /**
   * ExecutorchLlmGenerator:use-kv-cache:
   *
   * Whether the program keeps a KV cache (`use_kv_cache`; when absent,
   * whether `forward` takes a position as its second input); without one,
   * every step runs the whole sequence.
   *
   * Since: 1.0
   */
  properties[PROP_USE_KV_CACHE] = g_param_spec_boolean ("use-kv-cache", NULL, NULL, FALSE, RO);
  /**
   * ExecutorchLlmGenerator:dynamic-shape:
   *
   * The program's `enable_dynamic_shape` (false when absent): whether
   * `forward` takes several tokens per call.
   *
   * Since: 1.0
   */
  properties[PROP_DYNAMIC_SHAPE] = g_param_spec_boolean ("dynamic-shape", NULL, NULL, FALSE, RO);
  /**
   * ExecutorchLlmGenerator:position:
   *
   * How many tokens the conversation holds (the KV cache position).  Not
   * notified.
   *
   * Since: 1.0
   */
  properties[PROP_POSITION] = g_param_spec_uint ("position", NULL, NULL, 0, G_MAXUINT, 0, RO);
  /**
   * ExecutorchLlmGenerator:stop-reason:
   *
   * Why the last generation ended.  Not notified.
   *
   * Since: 1.0
   */
  properties[PROP_STOP_REASON] = g_param_spec_enum ("stop-reason", NULL, NULL, EXECUTORCH_LLM_TYPE_STOP_REASON,
                                                    EXECUTORCH_LLM_STOP_REASON_NONE, RO);
#undef RO
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * ExecutorchLlmGenerator::token:
   * @generator: the generator
   * @id: the token's id
   *
   * Emitted for each token sampled, end-of-sequence tokens included,
   * before its text.  During [method@ExecutorchLlm.Generator.generate_async]
   * it is emitted in the caller's main context.
   *
   * Since: 1.0
   */
  signals[SIGNAL_TOKEN] = g_signal_new ("token", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, G_TYPE_UINT);
  /**
   * ExecutorchLlmGenerator::text:
   * @generator: the generator
   * @text: the next piece of text, never empty
   *
   * Emitted with each piece of the generated text as it becomes known; the
   * pieces joined are the text the generation returns.  A piece is always
   * whole UTF-8 characters (a token ending inside a character waits for the
   * next), and text that could be the start of a stop string is held back
   * until it is known not to be one.  With
   * [property@ExecutorchLlm.GenerationConfig:echo], the prompt comes first.
   * During [method@ExecutorchLlm.Generator.generate_async] it is emitted in
   * the caller's main context.  A handler may call
   * [method@ExecutorchLlm.Generator.stop].
   *
   * Since: 1.0
   */
  signals[SIGNAL_TEXT] = g_signal_new ("text", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
executorch_llm_generator_init (ExecutorchLlmGenerator *self)
{
  g_mutex_init (&self->lock);
  self->eos_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->history = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->pending = -1;
}

static gboolean
generator_setup (ExecutorchLlmGenerator *self, GCancellable *cancellable, GError **error)
{
  if (self->program == NULL || self->tokenizer == NULL || _executorch_llm_tokenizer_get_impl (self->tokenizer) == NULL)
    {
      g_set_error_literal (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_PROGRAM,
                           "a generator needs a program and a tokenizer");
      return FALSE;
    }
  self->stats.model_load_start_ms = _llm_now_ms ();
  if (!_llm_model_init (&self->model, self->program, cancellable, error))
    return FALSE;
  self->stats.model_load_end_ms = _llm_now_ms ();

  guint vocab = executorch_llm_tokenizer_get_vocab_size (self->tokenizer);
  if (vocab == 0 || vocab > self->model.logits_width)
    {
      g_set_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_VOCABULARY_MISMATCH,
                   "the tokenizer has %u tokens, but the model's logits row has %u entries: the tokenizer is "
                   "not this model's",
                   vocab, self->model.logits_width);
      return FALSE;
    }
  if (self->model.eos_ids->len > 0)
    g_array_append_vals (self->eos_ids, self->model.eos_ids->data, self->model.eos_ids->len);
  else if (executorch_llm_tokenizer_get_eos_id (self->tokenizer) >= 0)
    {
      guint32 eos = (guint32) executorch_llm_tokenizer_get_eos_id (self->tokenizer);
      g_array_append_val (self->eos_ids, eos);
    }
  return TRUE;
}

/* Made with g_object_new() and both properties (GJS's and PyGObject's
 * `new Generator({program, tokenizer})`, which may not call init): set up
 * here, the failure kept for init and for generate. */
static void
executorch_llm_generator_constructed (GObject *object)
{
  ExecutorchLlmGenerator *self = EXECUTORCH_LLM_GENERATOR (object);
  G_OBJECT_CLASS (executorch_llm_generator_parent_class)->constructed (object);
  if (self->program != NULL && self->tokenizer != NULL)
    {
      self->initialized = TRUE;
      generator_setup (self, NULL, &self->init_error);
    }
}

static gboolean
executorch_llm_generator_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  ExecutorchLlmGenerator *self = EXECUTORCH_LLM_GENERATOR (initable);
  if (!self->initialized)
    {
      self->initialized = TRUE;
      generator_setup (self, cancellable, &self->init_error);
    }
  if (self->init_error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->init_error));
      return FALSE;
    }
  return TRUE;
}

static void
executorch_llm_generator_initable_iface_init (GInitableIface *iface)
{
  iface->init = executorch_llm_generator_initable_init;
}

/* Made by one of the constructors (not g_object_new() alone), successfully. */
static gboolean
is_ready (ExecutorchLlmGenerator *self)
{
  return EXECUTORCH_LLM_IS_GENERATOR (self) && self->initialized && self->init_error == NULL;
}

#define CHECK_READY(self, val) g_return_val_if_fail (is_ready (self), val)

/**
 * executorch_llm_generator_new:
 * @model_path: (type filename): the `.pte` program
 * @data_paths: (nullable) (array zero-terminated=1) (element-type filename): `.ptd` files
 *   holding the program's external weights, or %NULL
 * @tokenizer: the tokenizer of the model's vocabulary
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Loads a program and makes a generator for it: runs its metadata
 * methods, loads `forward`, and checks that the tokenizer's vocabulary fits
 * the logits.
 *
 * Returns: (transfer full) (nullable): the generator, or %NULL with @error
 *   set: the program's load error (%EXECUTORCH_ERROR, #GFileError), or
 *   %EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_PROGRAM or
 *   %EXECUTORCH_LLM_GENERATOR_ERROR_VOCABULARY_MISMATCH naming what is wrong
 *
 * Since: 1.0
 */
ExecutorchLlmGenerator *
executorch_llm_generator_new (const char *model_path, const char *const *data_paths, ExecutorchLlmTokenizer *tokenizer,
                              GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (model_path != NULL, NULL);
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TOKENIZER (tokenizer), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  g_autoptr (ExecutorchProgram) program =
      data_paths != NULL ? executorch_program_new_from_file_with_data (model_path, data_paths, error)
                         : executorch_program_new_from_file (model_path, error);
  if (program == NULL)
    return NULL;
  return executorch_llm_generator_new_for_program (program, tokenizer, cancellable, error);
}

/**
 * executorch_llm_generator_new_for_program:
 * @program: a loaded program
 * @tokenizer: the tokenizer of the model's vocabulary
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Makes a generator for a program already loaded (for instance with
 * executorch_program_set_allow_native_code() or a memory limit set).  The
 * generator keeps a reference to @program and loads its own `forward`
 * method.
 *
 * Returns: (transfer full) (nullable): the generator, or %NULL with @error set
 *
 * Since: 1.0
 */
ExecutorchLlmGenerator *
executorch_llm_generator_new_for_program (ExecutorchProgram *program, ExecutorchLlmTokenizer *tokenizer,
                                          GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_IS_PROGRAM (program), NULL);
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TOKENIZER (tokenizer), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  return g_initable_new (EXECUTORCH_LLM_TYPE_GENERATOR, cancellable, error, "program", program, "tokenizer", tokenizer,
                         NULL);
}

/**
 * executorch_llm_generator_get_program:
 * @generator: a generator
 *
 * Gets the program.
 *
 * Returns: (transfer none): the program
 *
 * Since: 1.0
 */
ExecutorchProgram *
executorch_llm_generator_get_program (ExecutorchLlmGenerator *generator)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATOR (generator), NULL);
  return generator->program;
}

/**
 * executorch_llm_generator_get_tokenizer:
 * @generator: a generator
 *
 * Gets the tokenizer.
 *
 * Returns: (transfer none): the tokenizer
 *
 * Since: 1.0
 */
ExecutorchLlmTokenizer *
executorch_llm_generator_get_tokenizer (ExecutorchLlmGenerator *generator)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATOR (generator), NULL);
  return generator->tokenizer;
}

/**
 * executorch_llm_generator_get_max_seq_len:
 * @generator: a generator
 *
 * Gets [property@ExecutorchLlm.Generator:max-seq-len].
 *
 * Returns: the program's `get_max_seq_len`
 *
 * Since: 1.0
 */
gint64
executorch_llm_generator_get_max_seq_len (ExecutorchLlmGenerator *generator)
{
  CHECK_READY (generator, 0);
  return generator->model.max_seq_len;
}

/**
 * executorch_llm_generator_get_max_context_len:
 * @generator: a generator
 *
 * Gets [property@ExecutorchLlm.Generator:max-context-len].
 *
 * Returns: the length of the KV cache
 *
 * Since: 1.0
 */
gint64
executorch_llm_generator_get_max_context_len (ExecutorchLlmGenerator *generator)
{
  CHECK_READY (generator, 0);
  return generator->model.max_context_len;
}

/**
 * executorch_llm_generator_get_use_kv_cache:
 * @generator: a generator
 *
 * Gets [property@ExecutorchLlm.Generator:use-kv-cache].
 *
 * Returns: whether the program keeps a KV cache
 *
 * Since: 1.0
 */
gboolean
executorch_llm_generator_get_use_kv_cache (ExecutorchLlmGenerator *generator)
{
  CHECK_READY (generator, FALSE);
  return generator->model.use_kv_cache;
}

/**
 * executorch_llm_generator_get_dynamic_shape:
 * @generator: a generator
 *
 * Gets [property@ExecutorchLlm.Generator:dynamic-shape].
 *
 * Returns: the program's `enable_dynamic_shape`
 *
 * Since: 1.0
 */
gboolean
executorch_llm_generator_get_dynamic_shape (ExecutorchLlmGenerator *generator)
{
  CHECK_READY (generator, FALSE);
  return generator->model.enable_dynamic_shape;
}

/**
 * executorch_llm_generator_get_max_prefill_chunk:
 * @generator: a generator
 *
 * Gets the most prompt tokens one call of `forward` takes: the smaller of
 * `get_max_seq_len` and the bound of its token input with a dynamic token
 * count, 1 with a static one.
 *
 * Returns: tokens per prefill call
 *
 * Since: 1.0
 */
guint
executorch_llm_generator_get_max_prefill_chunk (ExecutorchLlmGenerator *generator)
{
  CHECK_READY (generator, 0);
  return generator->model.max_chunk;
}

/**
 * executorch_llm_generator_get_model_vocab_size:
 * @generator: a generator
 *
 * Gets the width of the model's logits row, which is at least the
 * tokenizer's vocabulary size (sampling looks only at the tokenizer's
 * tokens, as upstream's does).
 *
 * Returns: the model's vocabulary size
 *
 * Since: 1.0
 */
guint
executorch_llm_generator_get_model_vocab_size (ExecutorchLlmGenerator *generator)
{
  CHECK_READY (generator, 0);
  return generator->model.logits_width;
}

/**
 * executorch_llm_generator_get_eos_ids:
 * @generator: a generator
 * @n_ids: (out): return location for the number of ids
 *
 * Gets the tokens that end a generation: the program's `get_eos_ids` when
 * it has that method, else the tokenizer's EOS (none when it names none).
 *
 * Returns: (transfer none) (array length=n_ids): the end-of-sequence ids
 *
 * Since: 1.0
 */
const guint32 *
executorch_llm_generator_get_eos_ids (ExecutorchLlmGenerator *generator, gsize *n_ids)
{
  CHECK_READY (generator, NULL);
  g_return_val_if_fail (n_ids != NULL, NULL);
  *n_ids = generator->eos_ids->len;
  return (const guint32 *) generator->eos_ids->data;
}

/**
 * executorch_llm_generator_get_position:
 * @generator: a generator
 *
 * Gets how many tokens the conversation holds: the KV cache position,
 * where the next prompt will be written.  The context is full when it
 * reaches [property@ExecutorchLlm.Generator:max-context-len] (or, without
 * a KV cache, the bound of `forward`'s token input).
 *
 * Returns: the position
 *
 * Since: 1.0
 */
guint
executorch_llm_generator_get_position (ExecutorchLlmGenerator *generator)
{
  CHECK_READY (generator, 0);
  return generator->history->len;
}

/**
 * executorch_llm_generator_get_stop_reason:
 * @generator: a generator
 *
 * Gets why the last generation ended (MT safe).
 *
 * Returns: the reason; %EXECUTORCH_LLM_STOP_REASON_NONE before any
 *   generation, after a reset, while one runs, and after one that failed
 *
 * Since: 1.0
 */
ExecutorchLlmStopReason
executorch_llm_generator_get_stop_reason (ExecutorchLlmGenerator *generator)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATOR (generator), EXECUTORCH_LLM_STOP_REASON_NONE);
  g_mutex_lock (&generator->lock);
  ExecutorchLlmStopReason reason = generator->stop_reason;
  g_mutex_unlock (&generator->lock);
  return reason;
}

/**
 * executorch_llm_generator_get_stats:
 * @generator: a generator
 *
 * Gets the timings and counts of the last generation, as upstream's
 * runner records them (MT safe: during a generation, as far as it got).
 *
 * Returns: (transfer full): a copy of the stats
 *
 * Since: 1.0
 */
ExecutorchLlmStats *
executorch_llm_generator_get_stats (ExecutorchLlmGenerator *generator)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATOR (generator), NULL);
  g_mutex_lock (&generator->lock);
  ExecutorchLlmStats *stats = executorch_llm_stats_copy (&generator->stats);
  g_mutex_unlock (&generator->lock);
  return stats;
}

/**
 * executorch_llm_generator_stop:
 * @generator: a generator
 *
 * Asks the running generation to end after the token it is at (MT safe:
 * from any thread, or from a signal handler).  The generation then returns
 * the text so far, with [property@ExecutorchLlm.Generator:stop-reason]
 * %EXECUTORCH_LLM_STOP_REASON_STOPPED, and the conversation can go on.  To
 * abandon a generation with an error instead, cancel its #GCancellable.
 * Without a running generation it does nothing.
 *
 * Since: 1.0
 */
void
executorch_llm_generator_stop (ExecutorchLlmGenerator *generator)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATOR (generator));
  if (g_atomic_int_get (&generator->busy))
    g_atomic_int_set (&generator->stop_requested, TRUE);
}

/**
 * executorch_llm_generator_reset:
 * @generator: a generator
 *
 * Starts a new conversation: the position goes back to 0 and the
 * aggregate times of the stats to 0 (the load times stay), as upstream's
 * `reset()`.  The KV cache memory is not cleared (attention reads only the
 * positions written since).  It must not be called while a generation
 * runs.
 *
 * Since: 1.0
 */
void
executorch_llm_generator_reset (ExecutorchLlmGenerator *generator)
{
  g_return_if_fail (is_ready (generator));
  g_return_if_fail (!g_atomic_int_get (&generator->busy));
  g_array_set_size (generator->history, 0);
  generator->pending = -1;
  generator->logits_ready = FALSE;
  generator->model.execution_time_ms = 0;
  g_mutex_lock (&generator->lock);
  ExecutorchLlmStats fresh = { 0 };
  fresh.model_load_start_ms = generator->stats.model_load_start_ms;
  fresh.model_load_end_ms = generator->stats.model_load_end_ms;
  generator->stats = fresh;
  generator->stop_reason = EXECUTORCH_LLM_STOP_REASON_NONE;
  g_mutex_unlock (&generator->lock);
}

/* ---- one generation ---------------------------------------------------- */

/* One generation, run to its end by generate() or a step at a time by an
 * ExecutorchLlmTextStream: both go through generation_begin(),
 * generation_step() and generation_end(). */
struct _LlmGeneration
{
  ExecutorchLlmGenerator *self; /* a reference */
  char *prompt;                 /* or NULL when ids */
  GArray *ids;                  /* guint32, or NULL when prompt */
  ExecutorchLlmGenerationConfig *config;
  GMainContext *context; /* where signals go; NULL: this thread, now */
  GString *text;
  GQueue *pieces; /* char *: the text not taken yet; streams only */

  /* The decode loop, between two steps. */
  gboolean begun;  /* generation_begin() ran */
  gboolean active; /* sampler and text stream set up */
  gboolean done;   /* a stop reason was found */
  gboolean ended;  /* generation_end() ran, the generator released */
  gboolean failed;
  gboolean need_feed; /* token sampled but not fed yet */
  LlmSampler sampler;
  LlmTextStream stream;
  GByteArray *bytes;
  guint32 prev, next;
  gint max_new;
  gboolean ignore_eos;
  gint64 n_sampled;
  ExecutorchLlmStopReason reason;
};
typedef LlmGeneration Generation;

static void
generation_free (Generation *g)
{
  if (g->active)
    {
      _llm_text_stream_clear (&g->stream);
      _llm_sampler_clear (&g->sampler);
    }
  g_clear_object (&g->self);
  g_free (g->prompt);
  g_clear_pointer (&g->ids, g_array_unref);
  g_clear_object (&g->config);
  g_clear_pointer (&g->context, g_main_context_unref);
  if (g->text != NULL)
    g_string_free (g->text, TRUE);
  if (g->pieces != NULL)
    g_queue_free_full (g->pieces, g_free);
  g_clear_pointer (&g->bytes, g_byte_array_unref);
  g_free (g);
}

typedef struct
{
  ExecutorchLlmGenerator *self;
  guint signal;
  guint32 id;
  char *text;
} Emission;

static void
emission_free (gpointer data)
{
  Emission *e = data;
  g_object_unref (e->self);
  g_free (e->text);
  g_free (e);
}

static gboolean
emission_dispatch (gpointer data)
{
  Emission *e = data;
  if (e->signal == SIGNAL_TOKEN)
    g_signal_emit (e->self, signals[SIGNAL_TOKEN], 0, e->id);
  else
    g_signal_emit (e->self, signals[SIGNAL_TEXT], 0, e->text);
  return G_SOURCE_REMOVE;
}

/* Emits now, or queues for the caller's context: at the priority the
 * task's completion uses, so every signal comes before the callback. */
static void
emit (Generation *g, guint signal, guint32 id, const char *text)
{
  if (signal == SIGNAL_TEXT)
    {
      if (text[0] == '\0')
        return;
      g_string_append (g->text, text);
      if (g->pieces != NULL)
        g_queue_push_tail (g->pieces, g_strdup (text));
    }
  if (g->context == NULL)
    {
      if (signal == SIGNAL_TOKEN)
        g_signal_emit (g->self, signals[SIGNAL_TOKEN], 0, id);
      else
        g_signal_emit (g->self, signals[SIGNAL_TEXT], 0, text);
      return;
    }
  Emission *e = g_new0 (Emission, 1);
  e->self = g_object_ref (g->self);
  e->signal = signal;
  e->id = id;
  e->text = g_strdup (text);
  /* A source, never g_main_context_invoke(): that would run the handler
   * here, in the worker, whenever no thread holds the context (before the
   * caller's loop runs). */
  GSource *source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, emission_dispatch, e, emission_free);
  g_source_set_static_name (source, "[executorch-llm] generator signal");
  g_source_attach (source, g->context);
  g_source_unref (source);
}

static gboolean
is_eos (ExecutorchLlmGenerator *self, guint32 id)
{
  for (guint i = 0; i < self->eos_ids->len; i++)
    if (g_array_index (self->eos_ids, guint32, i) == id)
      return TRUE;
  return FALSE;
}

/* The most tokens the conversation may hold. */
static guint
capacity (ExecutorchLlmGenerator *self)
{
  LlmModel *m = &self->model;
  if (m->use_kv_cache)
    return (guint) m->max_context_len;
  return (guint) MIN ((gint64) m->token_bound, m->max_context_len);
}

static void
record_execution (ExecutorchLlmGenerator *self)
{
  g_mutex_lock (&self->lock);
  self->stats.model_execution_start_ms = self->model.last_execution_start_ms;
  self->stats.model_execution_end_ms = self->model.last_execution_end_ms;
  self->stats.aggregate_model_execution_time_ms = self->model.execution_time_ms;
  g_mutex_unlock (&self->lock);
}

/* Feeds @n tokens after the history; on success they join it and
 * model.logits follow them. */
static gboolean
feed (ExecutorchLlmGenerator *self, const guint32 *tokens, guint n, GCancellable *cancellable, GError **error)
{
  LlmModel *m = &self->model;
  gboolean ok;
  if (m->use_kv_cache)
    {
      for (guint done = 0; done < n;)
        {
          guint chunk = MIN (n - done, m->max_chunk);
          ok = _llm_model_run (m, tokens + done, chunk, self->history->len, cancellable, error);
          record_execution (self);
          if (!ok)
            return FALSE;
          g_array_append_vals (self->history, tokens + done, chunk);
          self->logits_ready = TRUE;
          self->pending = -1;
          done += chunk;
        }
      return TRUE;
    }
  /* No KV cache: the whole sequence each time. */
  guint old = self->history->len;
  g_array_append_vals (self->history, tokens, n);
  ok = _llm_model_run (m, (const guint32 *) self->history->data, self->history->len, 0, cancellable, error);
  record_execution (self);
  if (!ok)
    {
      g_array_set_size (self->history, old);
      return FALSE;
    }
  self->logits_ready = TRUE;
  self->pending = -1;
  return TRUE;
}

static guint64
pick_seed (gint64 seed)
{
  if (seed >= 0)
    return (guint64) seed;
  return ((guint64) g_get_real_time () << 20) ^ (guint64) g_get_monotonic_time () ^ g_random_int ();
}

static gboolean
claim (ExecutorchLlmGenerator *self, GError **error)
{
  if (!g_atomic_int_compare_and_exchange (&self->busy, FALSE, TRUE))
    {
      g_set_error_literal (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_BUSY,
                           "the generator is already generating");
      return FALSE;
    }
  g_atomic_int_set (&self->stop_requested, FALSE);
  return TRUE;
}

static void
release (ExecutorchLlmGenerator *self)
{
  g_atomic_int_set (&self->stop_requested, FALSE);
  g_atomic_int_set (&self->busy, FALSE);
}

/* Encodes and checks the prompt, echoes it, runs it through the model and
 * sets up the decode loop. */
static gboolean
generation_begin (Generation *g, GCancellable *cancellable, GError **error)
{
  ExecutorchLlmGenerator *self = g->self;
  ExecutorchLlmGenerationConfig *cfg = g->config;
  LlmTokenizerImpl *tok = _executorch_llm_tokenizer_get_impl (self->tokenizer);

  g->begun = TRUE;
  g_mutex_lock (&self->lock);
  self->stats.inference_start_ms = _llm_now_ms ();
  self->stats.prompt_eval_end_ms = self->stats.first_token_ms = self->stats.inference_end_ms = 0;
  self->stats.num_prompt_tokens = self->stats.num_generated_tokens = 0;
  self->stop_reason = EXECUTORCH_LLM_STOP_REASON_NONE;
  g_mutex_unlock (&self->lock);

  /* The prompt's tokens. */
  g_autoptr (GArray) ids = g->ids != NULL ? g_array_ref (g->ids) : g_array_new (FALSE, FALSE, sizeof (guint32));
  if (g->prompt != NULL && g->prompt[0] != '\0' &&
      !_llm_tokenizer_encode (tok, g->prompt, -1, executorch_llm_generation_config_get_n_bos (cfg),
                              executorch_llm_generation_config_get_n_eos (cfg), ids, error))
    return FALSE;
  for (guint i = 0; i < ids->len; i++)
    if (g_array_index (ids, guint32, i) >= tok->vocab_size)
      {
        g_set_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_TOKEN,
                     "prompt token %u is %u, outside the vocabulary of %u tokens", i, g_array_index (ids, guint32, i),
                     tok->vocab_size);
        return FALSE;
      }
  gboolean continuing = ids->len == 0;
  gboolean have_prompt = g->prompt != NULL && g->prompt[0] != '\0';
  if (continuing)
    {
      if (self->pending >= 0)
        {
          guint32 last = (guint32) self->pending;
          g_array_append_val (ids, last);
        }
      else if (!self->logits_ready)
        {
          g_set_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_EMPTY_PROMPT,
                       have_prompt ? "the prompt encodes to no token"
                                   : "the prompt is empty, and there is no "
                                     "generation to continue");
          return FALSE;
        }
    }

  /* Room: every prompt token needs a position. */
  guint cap = capacity (self), used = self->history->len;
  if (ids->len > 0 && used >= cap)
    {
      g_set_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_CONTEXT_FULL,
                   "the context of %u tokens is full; reset the generator to start over", cap);
      return FALSE;
    }
  if (ids->len > cap - used)
    {
      g_set_error (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_PROMPT_TOO_LONG,
                   "the prompt has %u tokens, but only %u of the context's %u positions are free", ids->len, cap - used,
                   cap);
      return FALSE;
    }

  if (executorch_llm_generation_config_get_echo (cfg) && !continuing)
    {
      if (have_prompt)
        emit (g, SIGNAL_TEXT, 0, g->prompt);
      else
        {
          g_autofree char *echo =
              executorch_llm_tokenizer_decode (self->tokenizer, (const guint32 *) ids->data, ids->len, error);
          if (echo == NULL)
            return FALSE;
          emit (g, SIGNAL_TEXT, 0, echo);
        }
    }

  /* Prefill.  A new prompt drops the last token sampled (upstream never
   * feeds it either). */
  guint32 prev = self->history->len > 0 ? g_array_index (self->history, guint32, self->history->len - 1) : G_MAXUINT32;
  if (!continuing)
    self->pending = -1;
  if (ids->len > 0)
    {
      if (!feed (self, (const guint32 *) ids->data, ids->len, cancellable, error))
        return FALSE;
      prev = g_array_index (ids, guint32, ids->len - 1);
    }
  g_mutex_lock (&self->lock);
  self->stats.num_prompt_tokens = continuing ? 0 : ids->len;
  self->stats.prompt_eval_end_ms = self->stats.first_token_ms = _llm_now_ms ();
  g_mutex_unlock (&self->lock);

  /* Decode. */
  g->prev = prev;
  g->max_new = executorch_llm_generation_config_get_max_new_tokens (cfg);
  g->ignore_eos = executorch_llm_generation_config_get_ignore_eos (cfg);
  _llm_sampler_init (&g->sampler, tok->vocab_size, executorch_llm_generation_config_get_temperature (cfg),
                     executorch_llm_generation_config_get_top_p (cfg), executorch_llm_generation_config_get_top_k (cfg),
                     pick_seed (executorch_llm_generation_config_get_seed (cfg)));
  _llm_text_stream_init (&g->stream, executorch_llm_generation_config_get_stop_strings (cfg));
  g->bytes = g_byte_array_new ();
  g->active = TRUE;
  if (g->max_new == 0)
    {
      g->reason = EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS;
      g->done = TRUE;
    }
  return TRUE;
}

/* One token: feeds the one sampled before (unless asked to stop first),
 * samples the next, emits its text and checks the stop rules.  Between two
 * steps the last token sampled is not fed yet, the state stop() leaves. */
static gboolean
generation_step (Generation *g, GCancellable *cancellable, GError **error)
{
  ExecutorchLlmGenerator *self = g->self;
  LlmTokenizerImpl *tok = _executorch_llm_tokenizer_get_impl (self->tokenizer);

  if (g->need_feed)
    {
      if (g_atomic_int_get (&self->stop_requested))
        {
          g->reason = EXECUTORCH_LLM_STOP_REASON_STOPPED;
          g->done = TRUE;
          return TRUE;
        }
      if (!feed (self, &g->next, 1, cancellable, error))
        return FALSE;
      g->need_feed = FALSE;
    }

  gint64 t0 = g_get_monotonic_time ();
  guint32 next = _llm_sampler_sample (&g->sampler, self->model.logits);
  gint64 spent = (g_get_monotonic_time () - t0) / 1000;
  self->logits_ready = FALSE;
  self->pending = next;
  g->next = next;
  g->n_sampled++;
  g_mutex_lock (&self->lock);
  self->stats.aggregate_sampling_time_ms += spent;
  self->stats.num_generated_tokens = g->n_sampled - 1;
  g_mutex_unlock (&self->lock);

  emit (g, SIGNAL_TOKEN, next, NULL);
  ExecutorchLlmStopReason reason = EXECUTORCH_LLM_STOP_REASON_NONE;
  if (!g->ignore_eos && is_eos (self, next))
    reason = EXECUTORCH_LLM_STOP_REASON_EOS;
  else
    {
      g_byte_array_set_size (g->bytes, 0);
      if (!_llm_tokenizer_decode (tok, g->prev, next, g->bytes, error))
        return FALSE;
      g->prev = next;
      g_autofree char *piece = _llm_text_stream_push (&g->stream, g->bytes->data, g->bytes->len);
      emit (g, SIGNAL_TEXT, 0, piece);
      if (g->stream.stopped)
        reason = EXECUTORCH_LLM_STOP_REASON_STOP_STRING;
      else if (g->max_new > 0 && g->n_sampled >= g->max_new)
        reason = EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS;
      else if (g_atomic_int_get (&self->stop_requested))
        reason = EXECUTORCH_LLM_STOP_REASON_STOPPED;
      else if (self->history->len >= capacity (self))
        reason = EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL;
    }
  g->reason = reason;
  g->done = reason != EXECUTORCH_LLM_STOP_REASON_NONE;
  g->need_feed = !g->done;
  return TRUE;
}

/* After the last step (@ok), a failed one, or a stream closed early: the
 * text held back goes out (unless @emit_rest is false), the stats and the
 * stop reason are recorded, and the generator is free again. */
static void
generation_end (Generation *g, gboolean ok, gboolean emit_rest)
{
  ExecutorchLlmGenerator *self = g->self;
  if (g->ended)
    return;
  g->ended = TRUE;
  if (g->active)
    {
      if (ok && emit_rest)
        {
          g_autofree char *rest = _llm_text_stream_finish (&g->stream);
          emit (g, SIGNAL_TEXT, 0, rest);
        }
      _llm_text_stream_clear (&g->stream);
      _llm_sampler_clear (&g->sampler);
      g->active = FALSE;
      g_mutex_lock (&self->lock);
      self->stats.inference_end_ms = _llm_now_ms ();
      if (ok)
        self->stop_reason = g->reason;
      g_mutex_unlock (&self->lock);
    }
  release (self);
}

static gboolean
generation_run (Generation *g, GCancellable *cancellable, GError **error)
{
  gboolean ok = generation_begin (g, cancellable, error);
  while (ok && !g->done)
    ok = generation_step (g, cancellable, error);
  generation_end (g, ok, TRUE);
  return ok;
}

static Generation *
generation_new (ExecutorchLlmGenerator *self, const char *prompt, const guint32 *ids, gsize n_ids,
                ExecutorchLlmGenerationConfig *config)
{
  Generation *g = g_new0 (Generation, 1);
  g->self = g_object_ref (self);
  g->prompt = g_strdup (prompt);
  if (prompt == NULL)
    {
      g->ids = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n_ids);
      g_array_append_vals (g->ids, ids, n_ids);
    }
  /* A copy: the caller may change its config while a worker runs. */
  g->config = config != NULL ? executorch_llm_generation_config_copy (config) : executorch_llm_generation_config_new ();
  g->text = g_string_new (NULL);
  return g;
}

/* A generator whose setup failed (made without init) says why. */
static gboolean
check_setup (ExecutorchLlmGenerator *self, GError **error)
{
  if (self->init_error == NULL)
    return TRUE;
  g_propagate_error (error, g_error_copy (self->init_error));
  return FALSE;
}

static char *
generate_now (ExecutorchLlmGenerator *self, Generation *g, GCancellable *cancellable, GError **error)
{
  if (!check_setup (self, error) || !claim (self, error))
    {
      generation_free (g);
      return NULL;
    }
  gboolean ok = generation_run (g, cancellable, error);
  char *text = ok ? g_string_free (g_steal_pointer (&g->text), FALSE) : NULL;
  generation_free (g);
  return text;
}

/**
 * executorch_llm_generator_generate:
 * @generator: a generator
 * @prompt: UTF-8 text to continue; "" continues the last generation where it stopped
 * @config: (nullable): the settings, or %NULL for the defaults
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Encodes @prompt (with the config's BOS and EOS counts), runs it through
 * the model after what the conversation already holds, and generates until
 * an end-of-sequence token, the config's token count or stop string, the
 * end of the context, or [method@ExecutorchLlm.Generator.stop].  Each piece
 * of text is emitted by [signal@ExecutorchLlm.Generator::text] as it comes;
 * [property@ExecutorchLlm.Generator:stop-reason] tells why it ended.
 *
 * Cancelling @cancellable ends the generation between two model calls, or
 * inside one between two instructions, with %G_IO_ERROR_CANCELLED; the
 * tokens fed before stay in the conversation.
 *
 * Returns: (transfer full) (nullable): the generated text (after the
 *   prompt, when echoed), or %NULL with @error set:
 *   %EXECUTORCH_LLM_GENERATOR_ERROR_PROMPT_TOO_LONG when the prompt does
 *   not fit in the free context, %EXECUTORCH_LLM_GENERATOR_ERROR_CONTEXT_FULL,
 *   %EXECUTORCH_LLM_GENERATOR_ERROR_EMPTY_PROMPT,
 *   %EXECUTORCH_LLM_GENERATOR_ERROR_BUSY, a tokenizer error, or the model's
 *   own error (%EXECUTORCH_ERROR)
 *
 * Since: 1.0
 */
char *
executorch_llm_generator_generate (ExecutorchLlmGenerator *generator, const char *prompt,
                                   ExecutorchLlmGenerationConfig *config, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATOR (generator) && generator->initialized, NULL);
  g_return_val_if_fail (prompt != NULL, NULL);
  g_return_val_if_fail (config == NULL || EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  return generate_now (generator, generation_new (generator, prompt, NULL, 0, config), cancellable, error);
}

/**
 * executorch_llm_generator_generate_tokens:
 * @generator: a generator
 * @ids: (array length=n_ids): the prompt as token ids (BOS included if wanted)
 * @n_ids: the number of ids; 0 continues the last generation where it stopped
 * @config: (nullable): the settings, or %NULL for the defaults
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Generates as [method@ExecutorchLlm.Generator.generate] does, from a
 * prompt already encoded (the config's BOS and EOS counts do not apply).
 *
 * Returns: (transfer full) (nullable): the generated text, or %NULL with
 *   @error set (%EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_TOKEN for an id
 *   not below the tokenizer's vocabulary size)
 *
 * Since: 1.0
 */
char *
executorch_llm_generator_generate_tokens (ExecutorchLlmGenerator *generator, const guint32 *ids, gsize n_ids,
                                          ExecutorchLlmGenerationConfig *config, GCancellable *cancellable,
                                          GError **error)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATOR (generator) && generator->initialized, NULL);
  g_return_val_if_fail (ids != NULL || n_ids == 0, NULL);
  g_return_val_if_fail (n_ids <= G_MAXUINT, NULL);
  g_return_val_if_fail (config == NULL || EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  return generate_now (generator, generation_new (generator, NULL, ids, n_ids, config), cancellable, error);
}

static void
generate_in_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Generation *g = data;
  GError *error = NULL;
  gboolean ok = generation_run (g, cancellable, &error);
  if (ok)
    g_task_return_pointer (task, g_string_free (g_steal_pointer (&g->text), FALSE), g_free);
  else
    g_task_return_error (task, error);
}

/**
 * executorch_llm_generator_generate_async:
 * @generator: a generator
 * @prompt: UTF-8 text to continue; "" continues the last generation where it stopped
 * @config: (nullable): the settings, or %NULL for the defaults (copied now)
 * @cancellable: (nullable): a #GCancellable, or %NULL
 * @callback: (scope async) (closure user_data): called when the generation ends
 * @user_data: data for @callback
 *
 * Runs [method@ExecutorchLlm.Generator.generate] in a worker thread.  The
 * [signal@ExecutorchLlm.Generator::token] and
 * [signal@ExecutorchLlm.Generator::text] signals are emitted in the
 * thread-default main context of the caller, each of them before
 * @callback; cancelling @cancellable ends the generation mid-way with
 * %G_IO_ERROR_CANCELLED.  Get the text with
 * [method@ExecutorchLlm.Generator.generate_finish].
 *
 * Since: 1.0
 */
void
executorch_llm_generator_generate_async (ExecutorchLlmGenerator *generator, const char *prompt,
                                         ExecutorchLlmGenerationConfig *config, GCancellable *cancellable,
                                         GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (EXECUTORCH_LLM_IS_GENERATOR (generator) && generator->initialized);
  g_return_if_fail (prompt != NULL);
  g_return_if_fail (config == NULL || EXECUTORCH_LLM_IS_GENERATION_CONFIG (config));

  g_autoptr (GTask) task = g_task_new (generator, cancellable, callback, user_data);
  g_task_set_source_tag (task, executorch_llm_generator_generate_async);
  GError *error = NULL;
  if (!check_setup (generator, &error) || !claim (generator, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  Generation *g = generation_new (generator, prompt, NULL, 0, config);
  g->context = g_main_context_ref_thread_default ();
  g_task_set_task_data (task, g, (GDestroyNotify) generation_free);
  g_task_run_in_thread (task, generate_in_thread);
}

/**
 * executorch_llm_generator_generate_finish:
 * @generator: a generator
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes [method@ExecutorchLlm.Generator.generate_async].
 *
 * Returns: (transfer full) (nullable): the generated text, or %NULL with
 *   @error set as [method@ExecutorchLlm.Generator.generate] sets it
 *
 * Since: 1.0
 */
char *
executorch_llm_generator_generate_finish (ExecutorchLlmGenerator *generator, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATOR (generator), NULL);
  g_return_val_if_fail (g_task_is_valid (result, generator), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- a generation a piece at a time (llm-generation.h) ----------------- */

LlmGeneration *
_llm_generation_open (ExecutorchLlmGenerator *generator, const char *prompt, ExecutorchLlmGenerationConfig *config,
                      GError **error)
{
  if (!check_setup (generator, error) || !claim (generator, error))
    return NULL;
  Generation *g = generation_new (generator, prompt, NULL, 0, config);
  g->pieces = g_queue_new ();
  return g;
}

gboolean
_llm_generation_next (LlmGeneration *g, GMainContext *context, GCancellable *cancellable, char **piece, GError **error)
{
  *piece = NULL;
  if (g->context != context)
    {
      g_clear_pointer (&g->context, g_main_context_unref);
      g->context = context != NULL ? g_main_context_ref (context) : NULL;
    }
  while (g_queue_is_empty (g->pieces) && !g->ended)
    {
      gboolean ok = !g_cancellable_set_error_if_cancelled (cancellable, error) &&
                    (g->begun ? generation_step (g, cancellable, error) : generation_begin (g, cancellable, error));
      if (!ok)
        {
          generation_end (g, FALSE, FALSE);
          g->failed = TRUE;
          return FALSE;
        }
      if (g->done)
        generation_end (g, TRUE, TRUE);
    }
  *piece = g_queue_pop_head (g->pieces);
  return TRUE;
}

void
_llm_generation_close (LlmGeneration *g)
{
  if (!g->ended && g->begun && !g->done)
    {
      g->reason = EXECUTORCH_LLM_STOP_REASON_STOPPED;
      g->done = TRUE;
    }
  generation_end (g, g->begun, FALSE);
  g_queue_clear_full (g->pieces, g_free);
}

gboolean
_llm_generation_is_ended (LlmGeneration *g)
{
  return g->ended && g_queue_is_empty (g->pieces);
}

ExecutorchLlmStopReason
_llm_generation_get_stop_reason (LlmGeneration *g)
{
  return g->ended && !g->failed ? g->reason : EXECUTORCH_LLM_STOP_REASON_NONE;
}

ExecutorchLlmGenerator *
_llm_generation_get_generator (LlmGeneration *g)
{
  return g->self;
}

void
_llm_generation_free (LlmGeneration *g)
{
  _llm_generation_close (g);
  generation_free (g);
}

/**
 * executorch_llm_generator_stream:
 * @generator: a generator
 * @prompt: UTF-8 text to continue; "" continues the last generation where it stopped
 * @config: (nullable): the settings, or %NULL for the defaults (copied now)
 * @cancellable: (nullable): a #GCancellable for every
 *   [method@ExecutorchLlm.TextStream.next] of the stream, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Starts a generation whose text is pulled a piece at a time with
 * [method@ExecutorchLlm.TextStream.next]: the generation of
 * [method@ExecutorchLlm.Generator.generate], which runs only as far as the
 * pieces taken.  Nothing runs yet; the prompt's errors come from the first
 * [method@ExecutorchLlm.TextStream.next].  Until the stream ends or is
 * closed, the generator refuses other generations.
 *
 * ```vala
 * foreach (var piece in generator.stream ("Once upon a time", config))
 *     stdout.printf ("%s", piece);
 * ```
 *
 * Returns: (transfer full) (nullable): the stream, or %NULL with @error
 *   set: %EXECUTORCH_LLM_GENERATOR_ERROR_BUSY while another generation
 *   runs, or the generator's setup error
 *
 * Since: 1.0
 */
ExecutorchLlmTextStream *
executorch_llm_generator_stream (ExecutorchLlmGenerator *generator, const char *prompt,
                                 ExecutorchLlmGenerationConfig *config, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_GENERATOR (generator) && generator->initialized, NULL);
  g_return_val_if_fail (prompt != NULL, NULL);
  g_return_val_if_fail (config == NULL || EXECUTORCH_LLM_IS_GENERATION_CONFIG (config), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  LlmGeneration *g = _llm_generation_open (generator, prompt, config, error);
  return g != NULL ? _executorch_llm_text_stream_new (g, cancellable) : NULL;
}
