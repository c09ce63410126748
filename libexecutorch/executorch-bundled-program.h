/* executorch-bundled-program.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_H_INSIDE__) && !defined(EXECUTORCH_COMPILATION)
#error "Only <executorch/executorch.h> can be included directly."
#endif

#include <gio/gio.h>

#include "executorch-visibility.h"

G_BEGIN_DECLS

#include "executorch-program.h"

#define EXECUTORCH_TYPE_BUNDLED_PROGRAM (executorch_bundled_program_get_type ())
EXECUTORCH_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchBundledProgram, executorch_bundled_program, EXECUTORCH, BUNDLED_PROGRAM, GObject)

/**
 * EXECUTORCH_BUNDLED_DEFAULT_RTOL:
 *
 * The relative tolerance upstream's bundled-program verification uses by default.
 *
 * Since: 1.0
 */
#define EXECUTORCH_BUNDLED_DEFAULT_RTOL 1e-5
/**
 * EXECUTORCH_BUNDLED_DEFAULT_ATOL:
 *
 * The absolute tolerance upstream's bundled-program verification uses by default.
 *
 * Since: 1.0
 */
#define EXECUTORCH_BUNDLED_DEFAULT_ATOL 1e-8

EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchBundledProgram *executorch_bundled_program_new_from_file (const char *path,
                                                                    GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchBundledProgram *executorch_bundled_program_new_from_bytes (GBytes *data,
                                                                     GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchProgram *executorch_bundled_program_get_program (ExecutorchBundledProgram *bundled);
EXECUTORCH_AVAILABLE_IN_1_0
char **executorch_bundled_program_list_methods (ExecutorchBundledProgram *bundled);
EXECUTORCH_AVAILABLE_IN_1_0
guint executorch_bundled_program_get_n_test_cases (ExecutorchBundledProgram *bundled, const char *method_name);
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_bundled_program_verify (ExecutorchBundledProgram *bundled, const char *method_name, guint index,
                                            gdouble rtol, gdouble atol, GError **error);

G_END_DECLS
