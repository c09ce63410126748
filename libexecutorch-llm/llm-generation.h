/* llm-generation.h: one generation of a generator, a piece at a time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "executorch-llm-generator.h"

G_BEGIN_DECLS

/* The generator's own generation loop, driven from outside by
 * ExecutorchLlmTextStream.  Calls on one generation must not overlap. */
typedef struct _LlmGeneration LlmGeneration;

/* Claims @generator (BUSY while another generation runs); nothing runs
 * yet. */
LlmGeneration *_llm_generation_open (ExecutorchLlmGenerator *generator, const char *prompt,
                                     ExecutorchLlmGenerationConfig *config, GError **error);
/* Runs the model until the next piece of text: TRUE with *piece set (full
 * transfer), TRUE with NULL at the end, FALSE with @error when the
 * generation failed (it has ended then).  Signals go to @context (NULL:
 * emitted now). */
gboolean _llm_generation_next (LlmGeneration *g, GMainContext *context, GCancellable *cancellable, char **piece,
                               GError **error);
/* Ends the generation where it is, as ExecutorchLlmGenerator.stop() would:
 * stop reason STOPPED unless it had ended; the text not taken is dropped. */
void _llm_generation_close (LlmGeneration *g);
gboolean _llm_generation_is_ended (LlmGeneration *g);
/* Why it ended; NONE while it runs and after a failure. */
ExecutorchLlmStopReason _llm_generation_get_stop_reason (LlmGeneration *g);
ExecutorchLlmGenerator *_llm_generation_get_generator (LlmGeneration *g);
/* Closes it first. */
void _llm_generation_free (LlmGeneration *g);

G_END_DECLS

G_BEGIN_DECLS
/* The public face of @g (taken over). */
ExecutorchLlmTextStream *_executorch_llm_text_stream_new (LlmGeneration *g, GCancellable *cancellable);
G_END_DECLS
