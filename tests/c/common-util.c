/* common-util.c: helpers several C test programs share that need only GLib
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "common-util.h"

GBytes *
read_file (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  char *contents;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, &error))
    g_error ("cannot read test data: %s", error->message);
  return g_bytes_new_take (contents, length);
}

guint
count_threads (void)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc/self/task", 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}
