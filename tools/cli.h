/* cli.h: what the command-line tools report the same way
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

/* Exit status of a wrong invocation, as getopt-style tools use it. */
#define CLI_EXIT_USAGE 2

/* Prints "PROGRAM: MESSAGE" and the --help hint to stderr; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error (const char *program, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* MODEL.ptd beside MODEL.pte, the name upstream's exporter suggests for a
 * program's external data, when that file exists; NULL otherwise. */
char *cli_data_beside (const char *model);
