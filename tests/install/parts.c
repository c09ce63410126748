/* parts.c: loads every installed plug-in through discovery and prints what
 * the registry holds: "plugin NAME", "operator NAME", "backend ID" lines
 * (run under owners.c by tests/install/check-installed).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch/executorch.h>

#include <stdio.h>

static void
print_all (const char *kind, char **names)
{
  for (char **name = names; *name != NULL; name++)
    printf ("%s %s\n", kind, *name);
  g_strfreev (names);
}

int
main (void)
{
  g_autoptr (GError) error = NULL;
  if (!executorch_load_plugins (&error))
    return fprintf (stderr, "parts: %s\n", error->message), 1;
  print_all ("plugin", executorch_list_plugins ());
  print_all ("operator", executorch_list_operators ());
  print_all ("backend", executorch_list_backends ());
  print_all ("device", executorch_list_device_types ());
  return 0;
}
