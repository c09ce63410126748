/* replay.c: feeds files to a fuzz target without libFuzzer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: replay-TARGET FILE|DIR...  Every file (directories: every file in
 * them, not recursively) goes through LLVMFuzzerTestOneInput, as libFuzzer
 * would pass it.  A crash, an assertion or a sanitizer report fails the
 * run; so does a missing file.  The meson test replay-TARGET replays
 * tests/fuzz/regressions/TARGET/ and the target's seeds this way.
 */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static gint
compare_paths (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

static gboolean
replay_file (const char *path, guint *n_files)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, &error))
    {
      fprintf (stderr, "replay: %s\n", error->message);
      return FALSE;
    }
  /* An exact-size copy, so ASan sees a read past the end. */
  {
    g_autofree guint8 *copy = g_memdup2 (contents, length);
    LLVMFuzzerTestOneInput (copy, length);
  }
  (*n_files)++;
  return TRUE;
}

int
main (int argc, char **argv)
{
  guint n_files = 0;
  gboolean ok = TRUE;

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s FILE|DIR...\n", argv[0]);
      return 2;
    }
  for (int i = 1; i < argc; i++)
    {
      if (g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          g_autoptr (GError) error = NULL;
          g_autoptr (GDir) dir = g_dir_open (argv[i], 0, &error);
          g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
          const char *name;

          if (dir == NULL)
            {
              fprintf (stderr, "replay: %s\n", error->message);
              ok = FALSE;
              continue;
            }
          while ((name = g_dir_read_name (dir)) != NULL)
            if (name[0] != '.' && !g_str_has_suffix (name, ".md"))
              g_ptr_array_add (names, g_build_filename (argv[i], name, NULL));
          g_ptr_array_sort (names, compare_paths);
          for (guint j = 0; j < names->len; j++)
            {
              printf ("replay %s\n", (char *) names->pdata[j]);
              fflush (stdout);
              ok &= replay_file (names->pdata[j], &n_files);
            }
        }
      else
        {
          printf ("replay %s\n", argv[i]);
          fflush (stdout);
          ok &= replay_file (argv[i], &n_files);
        }
    }
  printf ("replayed %u files\n", n_files);
  return ok ? 0 : 1;
}
