/* llm-model.c: reading an export_llama program's metadata and running it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The metadata methods and their defaults are upstream's
 * (llm_runner_helper.cpp): get_max_seq_len is required, get_max_context_len
 * defaults to it, use_kv_cache to true (here: to whether forward takes a
 * position, which upstream's runner checks per call), enable_dynamic_shape
 * to false; get_eos_ids, when present, replaces the tokenizer's EOS.  Every
 * value and
 * every input and output of forward is checked before the first call, so
 * a program that is not a text model fails here with its method named.
 */
#include "llm-model.h"

#include "executorch-llm-enums.h"

#include <string.h>

/* A prompt or context beyond this is refused (positions are gint64 in the
 * model but counted in guint here). */
#define MAX_LENGTH G_GINT64_CONSTANT (1) << 30

gint64
_llm_now_ms (void)
{
  return g_get_real_time () / 1000;
}

static gboolean invalid (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
invalid (GError **error, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_PROGRAM, message);
  return FALSE;
}

/* Output @index of a method that ran, as an integer. */
static gboolean
output_as_int (ExecutorchMethod *method, const char *name, guint index, gint64 *value, GError **error)
{
  ExecutorchValueKind kind = executorch_method_get_output_kind (method, index);
  gboolean flag;
  gdouble d;
  switch (kind)
    {
      case EXECUTORCH_VALUE_KIND_INT: return executorch_method_get_output_int (method, index, value, error);
      case EXECUTORCH_VALUE_KIND_BOOL:
        if (!executorch_method_get_output_bool (method, index, &flag, error))
          return FALSE;
        *value = flag ? 1 : 0;
        return TRUE;
      case EXECUTORCH_VALUE_KIND_DOUBLE:
        if (!executorch_method_get_output_double (method, index, &d, error))
          return FALSE;
        if (!(d >= -9.0e18 && d <= 9.0e18) || d != (gdouble) (gint64) d)
          return invalid (error, "metadata method %s: output %u is %g, not an integer", name, index, d);
        *value = (gint64) d;
        return TRUE;
      default:
        return invalid (error, "metadata method %s: output %u is not a number (value kind %d)", name, index,
                        (int) kind);
    }
}

/* Runs the constant method @name; FALSE without error when it is absent. */
static ExecutorchMethod *
run_metadata (ExecutorchProgram *program, const char *name, GCancellable *cancellable, GError **error)
{
  if (!executorch_program_has_method (program, name))
    return NULL;
  g_autoptr (ExecutorchMethod) method = executorch_program_load_method (program, name, error);
  if (method == NULL || !executorch_method_execute (method, cancellable, error))
    {
      if (error != NULL && *error != NULL && !g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_prefix_error (error, "metadata method %s: ", name);
      return NULL;
    }
  if (executorch_method_get_n_outputs (method) < 1)
    {
      invalid (error, "metadata method %s returns nothing", name);
      return NULL;
    }
  return g_steal_pointer (&method);
}

/* Reads the one integer of metadata method @name into @value; leaves it
 * alone when the method is absent. */
static gboolean
read_int (ExecutorchProgram *program, const char *name, gint64 *value, gboolean *present, GCancellable *cancellable,
          GError **error)
{
  GError *local = NULL;
  g_autoptr (ExecutorchMethod) method = run_metadata (program, name, cancellable, &local);
  if (present != NULL)
    *present = method != NULL;
  if (method == NULL)
    {
      if (local != NULL)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      return TRUE;
    }
  return output_as_int (method, name, 0, value, error);
}

static gboolean
read_metadata (LlmModel *self, GCancellable *cancellable, GError **error)
{
  ExecutorchProgram *program = self->program;
  gboolean present = FALSE;
  gint64 v;

  if (!read_int (program, "get_max_seq_len", &self->max_seq_len, &present, cancellable, error))
    return FALSE;
  if (!present)
    return invalid (error, "the program has no get_max_seq_len method: it was not exported for text generation "
                           "(export_llama writes it), and the longest prompt chunk is unknown");
  if (self->max_seq_len < 1 || self->max_seq_len > MAX_LENGTH)
    return invalid (error, "get_max_seq_len returned %" G_GINT64_FORMAT ", outside 1..%" G_GINT64_FORMAT,
                    self->max_seq_len, MAX_LENGTH);
  self->max_context_len = self->max_seq_len;
  if (!read_int (program, "get_max_context_len", &self->max_context_len, NULL, cancellable, error))
    return FALSE;
  if (self->max_context_len < 1 || self->max_context_len > MAX_LENGTH)
    return invalid (error, "get_max_context_len returned %" G_GINT64_FORMAT ", outside 1..%" G_GINT64_FORMAT,
                    self->max_context_len, MAX_LENGTH);
  v = 1;
  if (!read_int (program, "use_kv_cache", &v, &self->has_use_kv_cache, cancellable, error))
    return FALSE;
  self->use_kv_cache = v != 0;
  v = 0;
  if (!read_int (program, "enable_dynamic_shape", &v, NULL, cancellable, error))
    return FALSE;
  self->enable_dynamic_shape = v != 0;
  self->metadata_vocab_size = -1;
  if (!read_int (program, "get_vocab_size", &self->metadata_vocab_size, NULL, cancellable, error))
    return FALSE;
  self->metadata_bos_id = -1;
  if (!read_int (program, "get_bos_id", &self->metadata_bos_id, NULL, cancellable, error))
    return FALSE;

  GError *local = NULL;
  g_autoptr (ExecutorchMethod) eos = run_metadata (program, "get_eos_ids", cancellable, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  for (guint i = 0; eos != NULL && i < executorch_method_get_n_outputs (eos); i++)
    {
      if (!output_as_int (eos, "get_eos_ids", i, &v, error))
        return FALSE;
      if (v < 0 || v > G_MAXUINT32)
        return invalid (error, "get_eos_ids: output %u is %" G_GINT64_FORMAT ", not a token id", i, v);
      guint32 id = (guint32) v;
      g_array_append_val (self->eos_ids, id);
    }
  return TRUE;
}

/* Upstream's sampler takes these too (-d fp16 / bf16 exports). */
static gboolean
is_logits_type (ExecutorchScalarType t)
{
  return t == EXECUTORCH_SCALAR_TYPE_FLOAT || t == EXECUTORCH_SCALAR_TYPE_HALF || t == EXECUTORCH_SCALAR_TYPE_BFLOAT16;
}

static gboolean
is_token_type (ExecutorchScalarType t)
{
  return t == EXECUTORCH_SCALAR_TYPE_LONG || t == EXECUTORCH_SCALAR_TYPE_INT;
}

/* The forward method's inputs and output, as upstream's runner uses them:
 * tokens [1, T] (Long, or Int on some backends), input_pos [1] or
 * cache_position [T] with a KV cache, and logits [1, V] or [1, T, V]. */
static gboolean
check_signature (LlmModel *self, GError **error)
{
  g_autoptr (ExecutorchMethodInfo) info = executorch_program_get_method_info (self->program, "forward", error);
  if (info == NULL)
    return FALSE;
  guint n_inputs = executorch_method_info_get_n_inputs (info);
  gboolean kv = n_inputs == 2;
  if (n_inputs != 1 && n_inputs != 2)
    return invalid (error,
                    "forward takes %u inputs; a text model takes the tokens and, with a KV cache, "
                    "their position",
                    n_inputs);
  /* Absent, it follows forward's inputs, as upstream's runner decides per
   * call from their number. */
  if (!self->has_use_kv_cache)
    self->use_kv_cache = kv;
  if (kv != self->use_kv_cache)
    return invalid (error, "use_kv_cache says %s, but forward takes %u input%s", self->use_kv_cache ? "true" : "false",
                    n_inputs, n_inputs == 1 ? "" : "s");

  ExecutorchValueInfo *tokens = executorch_method_info_get_input (info, 0);
  gsize n_dims = 0;
  const gint64 *sizes = executorch_value_info_get_sizes (tokens, &n_dims);
  if (executorch_value_info_get_kind (tokens) != EXECUTORCH_VALUE_KIND_TENSOR ||
      !is_token_type (executorch_value_info_get_scalar_type (tokens)) || n_dims != 2 || sizes[0] != 1 || sizes[1] < 1)
    {
      g_autofree char *s = executorch_value_info_to_string (tokens);
      return invalid (error, "forward's input 0 is %s, not tokens: a Long or Int tensor [1, T]", s);
    }
  self->token_type = executorch_value_info_get_scalar_type (tokens);
  self->token_bound = (guint) MIN (sizes[1], MAX_LENGTH);
  self->tokens_dynamic = executorch_value_info_get_shape_dynamism (tokens) != EXECUTORCH_SHAPE_DYNAMISM_STATIC;

  if (kv)
    {
      ExecutorchValueInfo *pos = executorch_method_info_get_input (info, 1);
      const gint64 *psizes = executorch_value_info_get_sizes (pos, &n_dims);
      if (executorch_value_info_get_kind (pos) != EXECUTORCH_VALUE_KIND_TENSOR ||
          !is_token_type (executorch_value_info_get_scalar_type (pos)) || n_dims != 1 || psizes[0] < 1)
        {
          g_autofree char *s = executorch_value_info_to_string (pos);
          return invalid (error, "forward's input 1 is %s, not a position: a Long or Int tensor [1] or [T]", s);
        }
      self->position_per_token = psizes[0] > 1;
    }

  if (executorch_method_info_get_n_outputs (info) < 1)
    return invalid (error, "forward returns nothing");
  ExecutorchValueInfo *out = executorch_method_info_get_output (info, 0);
  sizes = executorch_value_info_get_sizes (out, &n_dims);
  if (executorch_value_info_get_kind (out) != EXECUTORCH_VALUE_KIND_TENSOR ||
      !is_logits_type (executorch_value_info_get_scalar_type (out)) || n_dims < 2 || n_dims > 3 || sizes[0] != 1 ||
      sizes[n_dims - 1] < 1 || sizes[n_dims - 1] > G_MAXINT32)
    {
      g_autofree char *s = executorch_value_info_to_string (out);
      return invalid (error,
                      "forward's output 0 is %s, not logits: a Float, Half or BFloat16 tensor [1, V] or "
                      "[1, T, V]",
                      s);
    }
  self->logits_width = (guint) sizes[n_dims - 1];

  /* Prefill chunks: up to the tokens input's real bound, which is
   * max_seq_len - 1 in export_llama's programs (upstream cuts chunks of
   * max_seq_len, which such a program refuses). */
  if (self->tokens_dynamic)
    self->max_chunk = (guint) MIN ((gint64) self->token_bound, self->max_seq_len);
  else if (self->token_bound == 1 || !kv)
    self->max_chunk = self->token_bound;
  else
    return invalid (error,
                    "forward takes exactly %u tokens per call (a static shape): this library feeds a "
                    "static-shape program one token at a time",
                    self->token_bound);
  if (!kv && !self->tokens_dynamic)
    return invalid (error, "forward has no KV cache and a static token count: it cannot take a growing sequence");
  return TRUE;
}

gboolean
_llm_model_init (LlmModel *self, ExecutorchProgram *program, GCancellable *cancellable, GError **error)
{
  memset (self, 0, sizeof *self);
  self->program = g_object_ref (program);
  self->eos_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (!executorch_program_has_method (program, "forward"))
    return invalid (error, "the program has no forward method");
  if (!read_metadata (self, cancellable, error) || !check_signature (self, error))
    return FALSE;
  self->forward = executorch_program_load_method (program, "forward", error);
  if (self->forward == NULL)
    return FALSE;
  self->logits = g_new0 (float, self->logits_width);
  return TRUE;
}

void
_llm_model_clear (LlmModel *self)
{
  g_clear_object (&self->forward);
  g_clear_object (&self->program);
  g_clear_pointer (&self->eos_ids, g_array_unref);
  g_clear_pointer (&self->logits, g_free);
}

static ExecutorchTensor *
int_tensor (ExecutorchScalarType type, const gint64 *sizes, gsize n_dims, const gint64 *values, gsize n, GError **error)
{
  gsize elem = type == EXECUTORCH_SCALAR_TYPE_LONG ? 8 : 4;
  guint8 *data = g_malloc (n * elem);
  for (gsize i = 0; i < n; i++)
    {
      if (elem == 8)
        memcpy (data + i * 8, &values[i], 8);
      else
        {
          gint32 v = (gint32) values[i];
          memcpy (data + i * 4, &v, 4);
        }
    }
  g_autoptr (GBytes) bytes = g_bytes_new_take (data, n * elem);
  return executorch_tensor_new (type, sizes, n_dims, bytes, error);
}

gboolean
_llm_model_run (LlmModel *self, const guint32 *tokens, guint n, gint64 start, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (n >= 1 && n <= self->token_bound, FALSE);

  g_autofree gint64 *values = g_new (gint64, n);
  for (guint i = 0; i < n; i++)
    values[i] = tokens[i];
  gint64 tsizes[2] = { 1, n };
  g_autoptr (ExecutorchTensor) t = int_tensor (self->token_type, tsizes, 2, values, n, error);
  if (t == NULL || !executorch_method_set_input (self->forward, 0, t, error))
    return FALSE;
  if (self->use_kv_cache)
    {
      guint np = self->position_per_token ? n : 1;
      for (guint i = 0; i < np; i++)
        values[i] = start + i;
      gint64 psizes[1] = { np };
      g_autoptr (ExecutorchTensor) p = int_tensor (self->token_type, psizes, 1, values, np, error);
      if (p == NULL || !executorch_method_set_input (self->forward, 1, p, error))
        return FALSE;
    }

  self->last_execution_start_ms = _llm_now_ms ();
  gint64 t0 = g_get_monotonic_time ();
  gboolean ok = executorch_method_execute (self->forward, cancellable, error);
  self->execution_time_ms += (g_get_monotonic_time () - t0) / 1000;
  self->last_execution_end_ms = _llm_now_ms ();
  if (!ok)
    return FALSE;

  g_autoptr (ExecutorchTensor) out = executorch_method_get_output (self->forward, 0, error);
  if (out == NULL)
    return FALSE;
  gsize n_dims = 0;
  const gint64 *sizes = executorch_tensor_get_sizes (out, &n_dims);
  if (n_dims < 2 || sizes[n_dims - 1] != self->logits_width)
    return invalid (error, "forward returned logits of another width than its signature says");
  gsize n_logits = 0;
  g_autofree float *logits = executorch_tensor_to_floats (out, &n_logits, error);
  if (logits == NULL)
    return FALSE;
  if (n_logits < self->logits_width)
    return invalid (error, "forward returned %" G_GSIZE_FORMAT " logits, fewer than one row", n_logits);
  /* [1, T, V]: the last position's row. */
  memcpy (self->logits, logits + (n_logits / self->logits_width - 1) * self->logits_width,
          self->logits_width * sizeof (float));
  return TRUE;
}
