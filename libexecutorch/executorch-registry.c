/* executorch-registry.c: process-wide plug-in, operator and backend queries
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-private.h"

/**
 * executorch_load_plugins:
 * @error: return location for a #GError, or %NULL
 *
 * Loads every installed plug-in (kernel libraries, backends, device
 * allocators) found on the module path.  Discovery happens once per
 * process; later calls only report the outcome of that first scan.
 *
 * Calling this is never required: loading a [class@Executorch.Program]
 * or querying the registry runs discovery on first use.  It is useful to
 * learn early whether a plug-in failed to load.
 *
 * MT safe.
 *
 * Returns: %TRUE when every plug-in found was loaded; %FALSE with @error
 *   set to the first failure otherwise (the other plug-ins are still
 *   loaded).
 *
 * Since: 1.0
 */
gboolean
executorch_load_plugins (GError **error)
{
  return _et_discovery_ensure (error);
}

/* In libexecutorch.so the registry finds the plug-ins itself, on its first
 * lookup; the engine linked statically (engine-level tests) does not. */
__attribute__ ((constructor)) static void
use_discovery (void)
{
  _et_registry_use_discovery (TRUE);
}

/**
 * executorch_list_operators:
 *
 * Lists the operators that have a kernel registered, after running plug-in
 * discovery if it has not run yet.
 *
 * MT safe.
 *
 * Returns: (transfer full) (array zero-terminated=1): a sorted,
 *   %NULL-terminated array of operator names ("aten::add.out"); free it
 *   with g_strfreev().
 *
 * Since: 1.0
 */
char **
executorch_list_operators (void)
{
  return _et_registry_list_kernels ();
}

/**
 * executorch_list_backends:
 *
 * Lists the ids of the registered delegate backends ("XnnpackBackend"),
 * after running plug-in discovery if it has not run yet.
 *
 * MT safe.
 *
 * Returns: (transfer full) (array zero-terminated=1): a %NULL-terminated
 *   array of backend ids; free it with g_strfreev().
 *
 * Since: 1.0
 */
char **
executorch_list_backends (void)
{
  return _et_registry_list_backends ();
}

/**
 * executorch_list_plugins:
 *
 * Lists the plug-ins the registry knows, after running plug-in discovery
 * if it has not run yet.  Each entry reads "name version (state)", for
 * example "kernels 0.1.0 (loaded)"; the form is meant for people, not for
 * parsing.
 *
 * MT safe.
 *
 * Returns: (transfer full) (array zero-terminated=1): a %NULL-terminated
 *   array of plug-in descriptions; free it with g_strfreev().
 *
 * Since: 1.0
 */
char **
executorch_list_plugins (void)
{
  return _et_registry_list_plugins ();
}

/**
 * executorch_list_device_types:
 *
 * Lists the kinds of device memory that can be allocated: "cpu" and the
 * name of every registered device allocator ("cuda").
 *
 * MT safe.
 *
 * Returns: (transfer full) (array zero-terminated=1): a %NULL-terminated
 *   array of device type names; free it with g_strfreev().
 *
 * Since: 1.0
 */
char **
executorch_list_device_types (void)
{
  return _et_registry_list_device_types ();
}

/**
 * executorch_get_version:
 *
 * Gets the version of the libexecutorch the program runs with, which may
 * be newer than %EXECUTORCH_VERSION_STRING at compile time.
 *
 * MT safe.
 *
 * Returns: (transfer none): the version string, such as "1.0.0".
 *
 * Since: 1.0
 */
const char *
executorch_get_version (void)
{
  return EXECUTORCH_VERSION_STRING;
}
