/* llm-model.h: an exported language model's forward method and metadata
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <executorch.h>

G_BEGIN_DECLS

typedef struct
{
  ExecutorchProgram *program;
  ExecutorchMethod *forward;

  /* Metadata (upstream's get_* methods), after upstream's defaults. */
  gint64 max_seq_len;
  gint64 max_context_len;
  gboolean use_kv_cache;
  gboolean has_use_kv_cache;
  gboolean enable_dynamic_shape;
  gint64 metadata_vocab_size; /* -1: absent */
  gint64 metadata_bos_id;     /* -1: absent */
  GArray *eos_ids;            /* guint32; empty: absent */

  /* What the forward method takes and gives. */
  ExecutorchScalarType token_type; /* Long, or Int */
  guint token_bound;               /* most tokens one call takes */
  gboolean tokens_dynamic;
  gboolean position_per_token; /* cache_position [n] rather than input_pos [1] */
  guint logits_width;          /* the vocabulary of the logits row */
  guint max_chunk;             /* tokens per prefill call */

  float *logits; /* the last row, logits_width entries, as floats */
  gint64 last_execution_start_ms, last_execution_end_ms, execution_time_ms;
} LlmModel;

gboolean _llm_model_init (LlmModel *self, ExecutorchProgram *program, GCancellable *cancellable, GError **error);
void _llm_model_clear (LlmModel *self);
/* Runs forward on @n tokens at cache position @start (ignored without a
 * KV cache, where @tokens is the whole sequence); the logits of the last
 * position are then in self->logits. */
gboolean _llm_model_run (LlmModel *self, const guint32 *tokens, guint n, gint64 start, GCancellable *cancellable,
                         GError **error);
gint64 _llm_now_ms (void);

G_END_DECLS
