/* cli.c: what the command-line tools report the same way
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int
cli_usage_error (const char *program, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "%s: %s\nTry “%s --help” for more information.\n", program, message, program);
  return CLI_EXIT_USAGE;
}

char *
cli_data_beside (const char *model)
{
  if (!g_str_has_suffix (model, ".pte"))
    return NULL;
  g_autofree char *stem = g_strndup (model, strlen (model) - strlen (".pte"));
  g_autofree char *candidate = g_strconcat (stem, ".ptd", NULL);
  return g_file_test (candidate, G_FILE_TEST_IS_REGULAR) ? g_steal_pointer (&candidate) : NULL;
}
