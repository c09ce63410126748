/* executorch-method.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_H_INSIDE__) && !defined(EXECUTORCH_COMPILATION)
#error "Only <executorch/executorch.h> can be included directly."
#endif

#include <gio/gio.h>

#include "executorch-visibility.h"
#include "executorch-enums.h"

G_BEGIN_DECLS

#include "executorch-tensor.h"
#include "executorch-method-info.h"
#include "executorch-profile-event.h"

#define EXECUTORCH_TYPE_METHOD (executorch_method_get_type ())
EXECUTORCH_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchMethod, executorch_method, EXECUTORCH, METHOD, GObject)

EXECUTORCH_AVAILABLE_IN_1_0
const char *executorch_method_get_name (ExecutorchMethod *method);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchMethodInfo *executorch_method_get_info (ExecutorchMethod *method);
EXECUTORCH_AVAILABLE_IN_1_0
void executorch_method_set_max_instructions (ExecutorchMethod *method, guint64 max_instructions);
EXECUTORCH_AVAILABLE_IN_1_0
guint64 executorch_method_get_max_instructions (ExecutorchMethod *method);
EXECUTORCH_AVAILABLE_IN_1_0
guint executorch_method_get_n_inputs (ExecutorchMethod *method);
EXECUTORCH_AVAILABLE_IN_1_0
guint executorch_method_get_n_outputs (ExecutorchMethod *method);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_set_input (ExecutorchMethod *method, guint index, ExecutorchTensor *tensor, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_set_input_int (ExecutorchMethod *method, guint index, gint64 value, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_set_input_double (ExecutorchMethod *method, guint index, gdouble value, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_set_input_bool (ExecutorchMethod *method, guint index, gboolean value, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_execute (ExecutorchMethod *method, GCancellable *cancellable, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
void executorch_method_execute_async (ExecutorchMethod *method, GCancellable *cancellable, GAsyncReadyCallback callback,
                                      gpointer user_data);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_execute_finish (ExecutorchMethod *method, GAsyncResult *result, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchValueKind executorch_method_get_output_kind (ExecutorchMethod *method, guint index);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchTensor *executorch_method_get_output (ExecutorchMethod *method, guint index, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_get_output_int (ExecutorchMethod *method, guint index, gint64 *value, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_get_output_double (ExecutorchMethod *method, guint index, gdouble *value, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_get_output_bool (ExecutorchMethod *method, guint index, gboolean *value, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
GPtrArray *executorch_method_run (ExecutorchMethod *method, ExecutorchTensor **inputs, guint n_inputs,
                                  GCancellable *cancellable, GError **error);

EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_enable_profiling (ExecutorchMethod *method, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_is_profiling (ExecutorchMethod *method);
EXECUTORCH_AVAILABLE_IN_1_0
GPtrArray *executorch_method_get_profile_events (ExecutorchMethod *method);
EXECUTORCH_AVAILABLE_IN_1_0
void executorch_method_clear_profile_events (ExecutorchMethod *method);
EXECUTORCH_AVAILABLE_IN_1_0
GBytes *executorch_method_get_etdump (ExecutorchMethod *method, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_write_etdump (ExecutorchMethod *method, const char *path, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_method_set_record_outputs (ExecutorchMethod *method, gboolean record, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
GBytes *executorch_method_get_debug_buffer (ExecutorchMethod *method, GError **error);

G_END_DECLS
