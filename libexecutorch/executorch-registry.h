/* executorch-registry.h
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

EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_load_plugins (GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
char **executorch_list_operators (void);
EXECUTORCH_AVAILABLE_IN_1_0
char **executorch_list_backends (void);
EXECUTORCH_AVAILABLE_IN_1_0
char **executorch_list_plugins (void);
EXECUTORCH_AVAILABLE_IN_1_0
char **executorch_list_device_types (void);
EXECUTORCH_AVAILABLE_IN_1_0
const char *executorch_get_version (void);

G_END_DECLS
