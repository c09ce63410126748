/* executorch-value-info.h
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

#define EXECUTORCH_TYPE_VALUE_INFO (executorch_value_info_get_type ())
EXECUTORCH_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchValueInfo, executorch_value_info, EXECUTORCH, VALUE_INFO, GObject)

EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchValueKind executorch_value_info_get_kind (ExecutorchValueInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchScalarType executorch_value_info_get_scalar_type (ExecutorchValueInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
const gint64 *executorch_value_info_get_sizes (ExecutorchValueInfo *info, gsize *n_dims);
EXECUTORCH_AVAILABLE_IN_1_0
const guint8 *executorch_value_info_get_dim_order (ExecutorchValueInfo *info, gsize *n_dims);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchShapeDynamism executorch_value_info_get_shape_dynamism (ExecutorchValueInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
gsize executorch_value_info_get_nbytes (ExecutorchValueInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_value_info_is_memory_planned (ExecutorchValueInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchDevice *executorch_value_info_get_device (ExecutorchValueInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
gint64 executorch_value_info_get_int_value (ExecutorchValueInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
gdouble executorch_value_info_get_double_value (ExecutorchValueInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_value_info_get_bool_value (ExecutorchValueInfo *info);
EXECUTORCH_AVAILABLE_IN_1_0
char *executorch_value_info_to_string (ExecutorchValueInfo *info);

G_END_DECLS
