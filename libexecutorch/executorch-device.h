/* executorch-device.h
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

#define EXECUTORCH_TYPE_DEVICE (executorch_device_get_type ())
EXECUTORCH_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchDevice, executorch_device, EXECUTORCH, DEVICE, GObject)

EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchDevice *executorch_device_new (ExecutorchDeviceType device_type, gint index) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchDevice *executorch_device_new_from_name (const char *name, GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchDevice *executorch_device_get_cpu (void);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchDeviceType executorch_device_get_device_type (ExecutorchDevice *device);
EXECUTORCH_AVAILABLE_IN_1_0
gint executorch_device_get_index (ExecutorchDevice *device);
EXECUTORCH_AVAILABLE_IN_1_0
const char *executorch_device_get_name (ExecutorchDevice *device);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_device_equal (ExecutorchDevice *device, ExecutorchDevice *other);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_device_is_available (ExecutorchDevice *device);

G_END_DECLS
