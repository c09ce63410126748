/* executorch-profile-event.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_H_INSIDE__) && !defined(EXECUTORCH_COMPILATION)
#error "Only <executorch/executorch.h> can be included directly."
#endif

#include <glib-object.h>

#include "executorch-visibility.h"

G_BEGIN_DECLS

#define EXECUTORCH_TYPE_PROFILE_EVENT (executorch_profile_event_get_type ())

typedef struct _ExecutorchProfileEvent ExecutorchProfileEvent;

EXECUTORCH_AVAILABLE_IN_1_0
GType executorch_profile_event_get_type (void) G_GNUC_CONST;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchProfileEvent *executorch_profile_event_ref (ExecutorchProfileEvent *event);
EXECUTORCH_AVAILABLE_IN_1_0
void executorch_profile_event_unref (ExecutorchProfileEvent *event);
EXECUTORCH_AVAILABLE_IN_1_0
const char *executorch_profile_event_get_name (ExecutorchProfileEvent *event);
EXECUTORCH_AVAILABLE_IN_1_0
guint64 executorch_profile_event_get_start (ExecutorchProfileEvent *event);
EXECUTORCH_AVAILABLE_IN_1_0
guint64 executorch_profile_event_get_duration (ExecutorchProfileEvent *event);
EXECUTORCH_AVAILABLE_IN_1_0
gint executorch_profile_event_get_chain_index (ExecutorchProfileEvent *event);
EXECUTORCH_AVAILABLE_IN_1_0
gint executorch_profile_event_get_instruction_index (ExecutorchProfileEvent *event);
EXECUTORCH_AVAILABLE_IN_1_0
const char *executorch_profile_event_get_delegate (ExecutorchProfileEvent *event);
EXECUTORCH_AVAILABLE_IN_1_0
guint executorch_profile_event_get_run_index (ExecutorchProfileEvent *event);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExecutorchProfileEvent, executorch_profile_event_unref)

G_END_DECLS
