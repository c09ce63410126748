/* discovery.c: finds and initialises plug-in libraries, lazily and once
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Search order: the folders in EXECUTORCH_MODULE_PATH (colon-separated),
 * then EXECUTORCH_MODULE_SYSTEM_PATH if set (even to empty), else the
 * compiled-in module folder.  A folder holds one `*.module` manifest per
 * plug-in naming its versioned library; the first manifest of a given file
 * name wins, and a later one naming another copy of the library (a
 * different file) is reported as a duplicate registration naming both
 * files.  EXECUTORCH_MODULES_DISABLE lists plug-in names to skip.  The
 * environment is ignored in setuid processes.  Libraries are opened with
 * local binding and never unloaded.  The registry runs discovery on its
 * first lookup (registry.c); executorch_load_plugins() reports its errors.
 */
#include "engine.h"

#include <gmodule.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "../executorch-error.h"

static GPtrArray *discovery_errors; /* GError*, kept for executorch_load_plugins */

static gboolean
environment_trusted (void)
{
  return getauxval (AT_SECURE) == 0;
}

static gboolean
is_disabled (const char *name, char **disabled)
{
  for (guint i = 0; disabled != NULL && disabled[i] != NULL; i++)
    if (g_strcmp0 (g_strstrip (disabled[i]), name) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
load_manifest (const char *manifest_path, char **disabled, GError **error)
{
  g_autoptr (GKeyFile) keys = g_key_file_new ();
  g_autofree char *name = NULL, *library = NULL, *entry = NULL, *library_path = NULL;
  g_autoptr (GError) local_error = NULL;
  EtPluginGetDescFunc get_desc = NULL;
  const EtPluginDesc *desc;
  GModule *module;
  EtErrorContext *add_error;
  gboolean added;

  if (!g_key_file_load_from_file (keys, manifest_path, G_KEY_FILE_NONE, &local_error) ||
      (name = g_key_file_get_string (keys, "Plugin", "Name", &local_error)) == NULL ||
      (library = g_key_file_get_string (keys, "Plugin", "Library", &local_error)) == NULL ||
      (entry = g_key_file_get_string (keys, "Plugin", "Entry", &local_error)) == NULL)
    {
      _et_set_error_domain (error, EXECUTORCH_PLUGIN_ERROR, EXECUTORCH_PLUGIN_ERROR_MANIFEST, "%s: %s", manifest_path,
                            local_error->message);
      return FALSE;
    }
  if (is_disabled (name, disabled))
    return TRUE;

  if (g_path_is_absolute (library))
    library_path = g_strdup (library);
  else
    {
      g_autofree char *folder = g_path_get_dirname (manifest_path);
      library_path = g_build_filename (folder, library, NULL);
    }
  module = g_module_open (library_path, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      _et_set_error_domain (error, EXECUTORCH_PLUGIN_ERROR, EXECUTORCH_PLUGIN_ERROR_OPEN, "plug-in %s: %s", name,
                            g_module_error ());
      return FALSE;
    }
  /* Plug-ins may have threads or registered pointers: never unload. */
  g_module_make_resident (module);
  if (!g_module_symbol (module, entry, (gpointer *) &get_desc) || get_desc == NULL)
    {
      _et_set_error_domain (error, EXECUTORCH_PLUGIN_ERROR, EXECUTORCH_PLUGIN_ERROR_SYMBOL,
                            "plug-in %s: %s has no entry point %s", name, library_path, entry);
      return FALSE;
    }
  desc = get_desc ();
  if (desc == NULL || desc->abi_version != ET_PLUGIN_ABI_VERSION)
    {
      _et_set_error_domain (error, EXECUTORCH_PLUGIN_ERROR, EXECUTORCH_PLUGIN_ERROR_ABI,
                            "plug-in %s uses plug-in ABI %u, the runtime has %u", name,
                            desc != NULL ? desc->abi_version : 0, ET_PLUGIN_ABI_VERSION);
      return FALSE;
    }
  add_error = et_error_context_new ();
  added = et_registry_add_plugin (desc, add_error) == ET_OK;
  if (!added)
    _et_set_error_domain (error, EXECUTORCH_PLUGIN_ERROR, EXECUTORCH_PLUGIN_ERROR_INIT, "%s",
                          et_error_context_message (add_error));
  et_error_context_free (add_error);
  return added;
}

/* The real path of the library a manifest names, or NULL. */
static char *
manifest_library (const char *manifest_path, char **name)
{
  g_autoptr (GKeyFile) keys = g_key_file_new ();
  g_autofree char *library = NULL, *joined = NULL, *folder = NULL;
  char *real;

  if (!g_key_file_load_from_file (keys, manifest_path, G_KEY_FILE_NONE, NULL) ||
      (library = g_key_file_get_string (keys, "Plugin", "Library", NULL)) == NULL)
    return NULL;
  if (name != NULL)
    *name = g_key_file_get_string (keys, "Plugin", "Name", NULL);
  folder = g_path_get_dirname (manifest_path);
  joined = g_path_is_absolute (library) ? g_strdup (library) : g_build_filename (folder, library, NULL);
  real = realpath (joined, NULL);
  if (real == NULL)
    return NULL;
  {
    char *copy = g_strdup (real);
    free (real);
    return copy;
  }
}

/* @shadowed has the file name of @winner, an earlier folder's manifest:
 * only @winner is loaded.  Another copy of the library (not the same file
 * reached twice) is a duplicate registration, reported naming both —
 * unless @winner came from EXECUTORCH_MODULE_PATH and @shadowed from the
 * system folders: replacing an installed plug-in is what that variable is
 * for, so that is only a debug message. */
static void
check_shadowed (const char *winner, const char *shadowed, char **disabled, gboolean overrides)
{
  g_autofree char *name = NULL, *first = NULL, *second = NULL;
  GError *error = NULL;

  second = manifest_library (shadowed, &name);
  if (second == NULL || (name != NULL && is_disabled (name, disabled)))
    return;
  first = manifest_library (winner, NULL);
  if (first != NULL && strcmp (first, second) == 0)
    return;
  if (overrides)
    {
      g_debug ("plug-in %s: %s (%s) replaces %s (%s)", name != NULL ? name : "?", first != NULL ? first : "?", winner,
               second, shadowed);
      return;
    }
  _et_set_error_domain (&error, EXECUTORCH_PLUGIN_ERROR, EXECUTORCH_PLUGIN_ERROR_INIT,
                        "plug-in %s is registered twice: by %s (%s) and by %s (%s) (duplicate registration; "
                        "the second copy is not used)",
                        name != NULL ? name : "?", first != NULL ? first : "?", winner, second, shadowed);
  g_warning ("%s", error->message);
  g_ptr_array_add (discovery_errors, error);
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* @from_path: the manifests found in EXECUTORCH_MODULE_PATH's folders;
 * @system: whether @folder is one of the system folders. */
static void
scan_folder (const char *folder, GHashTable *seen, GHashTable *from_path, gboolean system, char **disabled)
{
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".module"))
      g_ptr_array_add (names, g_strdup (name));
  /* A stable order keeps registration (and its messages) reproducible. */
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *file = g_ptr_array_index (names, i);
      g_autofree char *path = NULL;
      GError *error = NULL;

      const char *winner = g_hash_table_lookup (seen, file);

      path = g_build_filename (folder, file, NULL);
      if (winner != NULL)
        {
          check_shadowed (winner, path, disabled, system && g_hash_table_contains (from_path, winner));
          continue;
        }
      g_hash_table_insert (seen, g_strdup (file), g_strdup (path));
      if (!system)
        g_hash_table_add (from_path, g_strdup (path));
      if (!load_manifest (path, disabled, &error))
        {
          g_warning ("%s", error->message);
          g_ptr_array_add (discovery_errors, error);
        }
    }
}

static void
discover (void)
{
  gboolean trusted = environment_trusted ();
  const char *extra = trusted ? g_getenv ("EXECUTORCH_MODULE_PATH") : NULL;
  const char *system = trusted ? g_getenv ("EXECUTORCH_MODULE_SYSTEM_PATH") : NULL;
  g_auto (GStrv) disabled = NULL;
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GHashTable) from_path = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if (!g_module_supported ())
    return;
  if (trusted && g_getenv ("EXECUTORCH_MODULES_DISABLE") != NULL)
    disabled = g_strsplit_set (g_getenv ("EXECUTORCH_MODULES_DISABLE"), ",:", -1);

  if (extra != NULL)
    {
      g_auto (GStrv) folders = g_strsplit (extra, G_SEARCHPATH_SEPARATOR_S, -1);
      for (guint i = 0; folders[i] != NULL; i++)
        if (folders[i][0] != '\0')
          scan_folder (folders[i], seen, from_path, FALSE, disabled);
    }
  if (system != NULL)
    {
      g_auto (GStrv) folders = g_strsplit (system, G_SEARCHPATH_SEPARATOR_S, -1);
      for (guint i = 0; folders[i] != NULL; i++)
        if (folders[i][0] != '\0')
          scan_folder (folders[i], seen, from_path, TRUE, disabled);
    }
  else
    scan_folder (EXECUTORCH_MODULE_DIR, seen, from_path, TRUE, disabled);
}

gboolean
_et_discovery_ensure (GError **error)
{
  static gsize done;
  static GPrivate discovering; /* this thread is running discover() */

  /* A plug-in's init that looks something up in the registry. */
  if (g_private_get (&discovering) != NULL)
    return TRUE;
  if (g_once_init_enter (&done))
    {
      discovery_errors = g_ptr_array_new ();
      g_private_set (&discovering, GINT_TO_POINTER (1));
      discover ();
      g_private_set (&discovering, NULL);
      g_once_init_leave (&done, 1);
    }
  if (discovery_errors->len > 0)
    {
      GError *first = g_ptr_array_index (discovery_errors, 0);
      if (error != NULL)
        *error = g_error_copy (first);
      return FALSE;
    }
  return TRUE;
}
