/* loadlib.c: dlopen()s each library given with RTLD_NOW, so that any symbol
 * it cannot resolve is an error (tests/install/check-installed).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dlfcn.h>
#include <stdio.h>

int
main (int argc, char **argv)
{
  int failed = 0;
  for (int i = 1; i < argc; i++)
    {
      void *handle = dlopen (argv[i], RTLD_NOW | RTLD_LOCAL);
      if (handle == NULL)
        {
          fprintf (stderr, "loadlib: %s\n", dlerror ());
          failed++;
        }
      else
        printf ("loaded %s\n", argv[i]);
    }
  return failed != 0;
}
