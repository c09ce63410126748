/* executorch-program.h
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

#include "executorch-method.h"
#include "executorch-method-info.h"

#define EXECUTORCH_TYPE_PROGRAM (executorch_program_get_type ())
EXECUTORCH_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchProgram, executorch_program, EXECUTORCH, PROGRAM, GObject)

EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchProgram *executorch_program_new_from_file (const char *path, GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchProgram *executorch_program_new_from_file_with_data (const char *path, const char *const *data_paths,
                                                               GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchProgram *executorch_program_new_from_bytes (GBytes *data, GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchProgram *executorch_program_new_from_bytes_with_data (GBytes *data, GBytes *const *external_data,
                                                                gsize n_external_data,
                                                                GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
guint executorch_program_get_n_methods (ExecutorchProgram *program);
EXECUTORCH_AVAILABLE_IN_1_0
char **executorch_program_list_methods (ExecutorchProgram *program);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_program_has_method (ExecutorchProgram *program, const char *name);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchMethodInfo *executorch_program_get_method_info (ExecutorchProgram *program, const char *name, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchMethod *executorch_program_load_method (ExecutorchProgram *program, const char *name,
                                                  GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
void executorch_program_set_max_memory (ExecutorchProgram *program, guint64 max_memory);
EXECUTORCH_AVAILABLE_IN_1_0
guint64 executorch_program_get_max_memory (ExecutorchProgram *program);
EXECUTORCH_AVAILABLE_IN_1_0
void executorch_program_set_allow_native_code (ExecutorchProgram *program, gboolean allow);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_program_get_allow_native_code (ExecutorchProgram *program);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchMethod *executorch_program_load_method_profiled (ExecutorchProgram *program, const char *name,
                                                           GError **error) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
