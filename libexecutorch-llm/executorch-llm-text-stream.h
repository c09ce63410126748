/* executorch-llm-text-stream.h: a generation's text, pulled a piece at a time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_LLM_H_INSIDE__) && !defined(EXECUTORCH_LLM_COMPILATION)
#error "Only <executorch-llm/executorch-llm.h> can be included directly."
#endif

#include <gio/gio.h>

#include "executorch-llm-visibility.h"
#include "executorch-llm-enums.h"

G_BEGIN_DECLS

#define EXECUTORCH_LLM_TYPE_TEXT_STREAM (executorch_llm_text_stream_get_type ())
EXECUTORCH_LLM_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchLlmTextStream, executorch_llm_text_stream, EXECUTORCH_LLM, TEXT_STREAM, GObject)

EXECUTORCH_LLM_AVAILABLE_IN_1_0
gboolean executorch_llm_text_stream_next (ExecutorchLlmTextStream *stream, GError **error);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_text_stream_next_async (ExecutorchLlmTextStream *stream, GAsyncReadyCallback callback,
                                            gpointer user_data);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
gboolean executorch_llm_text_stream_next_finish (ExecutorchLlmTextStream *stream, GAsyncResult *result, GError **error);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
const char *executorch_llm_text_stream_get (ExecutorchLlmTextStream *stream);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmStopReason executorch_llm_text_stream_get_stop_reason (ExecutorchLlmTextStream *stream);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
void executorch_llm_text_stream_close (ExecutorchLlmTextStream *stream);
EXECUTORCH_LLM_AVAILABLE_IN_1_0
ExecutorchLlmTextStream *executorch_llm_text_stream_iterator (ExecutorchLlmTextStream *stream);

G_END_DECLS
