/* pack-ptd.c: writes a .ptd of opaque blobs: pack-ptd OUT.ptd KEY=FILE...
 * (the GPU check puts AOTInductor's model .so and weights in one)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "ptd-writer.h"

#include <string.h>

int
main (int argc, char **argv)
{
  g_autoptr (GPtrArray) contents = g_ptr_array_new_with_free_func (g_free);
  g_autofree PtdBlob *blobs = g_new0 (PtdBlob, argc);
  g_autoptr (GBytes) ptd = NULL;
  g_autoptr (GError) error = NULL;

  if (argc < 3)
    {
      g_printerr ("usage: pack-ptd OUT.ptd KEY=FILE...\n");
      return 2;
    }
  for (int i = 2; i < argc; i++)
    {
      char *equals = strchr (argv[i], '='), *data;
      gsize length;

      if (equals == NULL)
        {
          g_printerr ("pack-ptd: %s is not KEY=FILE\n", argv[i]);
          return 2;
        }
      *equals = '\0';
      if (!g_file_get_contents (equals + 1, &data, &length, &error))
        {
          g_printerr ("pack-ptd: %s\n", error->message);
          return 1;
        }
      g_ptr_array_add (contents, data);
      blobs[i - 2] = (PtdBlob){ argv[i], data, length };
    }
  ptd = ptd_write (blobs, (guint) argc - 2);
  if (!g_file_set_contents (argv[1], g_bytes_get_data (ptd, NULL), (gssize) g_bytes_get_size (ptd), &error))
    {
      g_printerr ("pack-ptd: %s\n", error->message);
      return 1;
    }
  return 0;
}
