/* executorch-method-info.h
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

#include "executorch-device.h"
#include "executorch-value-info.h"

#define EXECUTORCH_TYPE_METHOD_INFO (executorch_method_info_get_type ())
EXECUTORCH_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchMethodInfo, executorch_method_info, EXECUTORCH, METHOD_INFO, GObject)

EXECUTORCH_AVAILABLE_IN_1_0
const char *executorch_method_info_get_name (ExecutorchMethodInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
guint executorch_method_info_get_n_inputs (ExecutorchMethodInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchValueInfo *executorch_method_info_get_input (ExecutorchMethodInfo *info, guint index);
EXECUTORCH_AVAILABLE_IN_1_0
guint executorch_method_info_get_n_outputs (ExecutorchMethodInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchValueInfo *executorch_method_info_get_output (ExecutorchMethodInfo *info, guint index);
EXECUTORCH_AVAILABLE_IN_1_0
guint executorch_method_info_get_n_buffers (ExecutorchMethodInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
gint64 executorch_method_info_get_buffer_size (ExecutorchMethodInfo *info, guint index);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchDevice *executorch_method_info_get_buffer_device (ExecutorchMethodInfo *info, guint index);
EXECUTORCH_AVAILABLE_IN_1_0
char **executorch_method_info_list_backends (ExecutorchMethodInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
char **executorch_method_info_list_operators (ExecutorchMethodInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
guint executorch_method_info_get_n_instructions (ExecutorchMethodInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
const char *executorch_method_info_get_input_spec (ExecutorchMethodInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
const char *executorch_method_info_get_output_spec (ExecutorchMethodInfo *info);

G_END_DECLS
