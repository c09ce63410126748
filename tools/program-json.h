/* program-json.h: a program's methods as JSON (executorch-run --info --json)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <executorch.h>

G_BEGIN_DECLS

/* Appends @text as a JSON string literal, quotes included; bytes that are
 * not UTF-8 become U+FFFD. */
void json_append_string (GString *json, const char *text);

/* Appends a finite number, or null for NaN and the infinities (which JSON
 * cannot hold). */
void json_append_double (GString *json, double value);

/* What --info prints, as one JSON object: the program's file name and, per
 * method, its inputs and outputs, planned buffers, backends, operators and
 * instruction count.  NULL with @error set when a method cannot be read. */
char *program_describe_json (ExecutorchProgram *program, const char *path, GError **error);

G_END_DECLS
