/* provider-hints.c: what to install for a missing operator or backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The hint matters exactly when a plug-in is not installed, so it cannot
 * come from the plug-in (its descriptor's package, its manifest): the one
 * table of which plug-in provides which operator namespaces and backend
 * ids, and in which package, ships with the core here, names only, and is
 * read only on the error path.  The registry then says whether that
 * plug-in is present: only an absent one gets an install hint; a present
 * one that lacks the operator means no installed library provides it.
 * A new part adds a row; the plug-in's name is its descriptor's name
 * (test run-cli checks the hints against the built plug-ins).
 */
#include "provider-hints.h"

#include "engine.h"

#include <string.h>

typedef struct {
  const char *what;      /* an operator namespace ("aten::") or a backend id */
  const char *plugin;    /* EtPluginDesc.name of the part that provides it */
  const char *package;
} Provider;

static const Provider operator_providers[] = {
  { "aten::", "kernels", "libexecutorch-kernels0" },
  { "dim_order_ops::", "kernels", "libexecutorch-kernels0" },
  { "executorch_prim::", "kernels", "libexecutorch-kernels0" },
  { "et_copy::", "kernels", "libexecutorch-kernels0" },
  { "llama::", "kernels", "libexecutorch-kernels0" },
  { "quantized_decomposed::", "kernels-quantized", "libexecutorch-kernels-quantized0" },
  { "quantized::", "kernels-quantized", "libexecutorch-kernels-quantized0" },
};

static const Provider backend_providers[] = {
  { "XnnpackBackend", "xnnpack", "libexecutorch-xnnpack0" },
  { "CudaBackend", "cuda", "libexecutorch-cuda0" },
};

static const Provider *
operator_provider (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (operator_providers); i++)
    if (g_str_has_prefix (name, operator_providers[i].what))
      return &operator_providers[i];
  return NULL;
}

static const Provider *
backend_provider (const char *id)
{
  for (gsize i = 0; i < G_N_ELEMENTS (backend_providers); i++)
    if (strcmp (id, backend_providers[i].what) == 0)
      return &backend_providers[i];
  return NULL;
}

/* NULL when @provider's plug-in is loaded, else what to say about it:
 * install it, or why the installed one does not count. */
static char *
absent_because (const Provider *provider)
{
  g_autofree char *state = _et_registry_plugin_state (provider->plugin);

  if (state == NULL)
    return g_strdup_printf ("install %s", provider->package);
  if (strcmp (state, "loaded") == 0)
    return NULL;
  return g_strdup_printf ("the %s plug-in (%s) is %s", provider->plugin, provider->package, state);
}

char *
_et_operator_hint (const char *const *missing, guint n_missing)
{
  g_autoptr (GPtrArray) reasons = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) unprovided = g_string_new (NULL);
  g_autoptr (GString) hint = g_string_new (" (");
  guint n_unprovided = 0;

  for (guint i = 0; i < n_missing; i++)
    {
      const Provider *provider = operator_provider (missing[i]);
      char *reason = provider != NULL ? absent_because (provider) : NULL;

      if (reason == NULL)
        g_string_append_printf (unprovided, "%s%s", n_unprovided++ > 0 ? ", " : "", missing[i]);
      else if (g_ptr_array_find_with_equal_func (reasons, reason, g_str_equal, NULL))
        g_free (reason);
      else
        g_ptr_array_add (reasons, reason);
    }
  for (guint i = 0; i < reasons->len; i++)
    g_string_append_printf (hint, "%s%s", i > 0 ? "; " : "", (char *) g_ptr_array_index (reasons, i));
  if (n_unprovided > 0 && reasons->len == 0)
    g_string_append_printf (hint, "no installed library provides %s", n_missing == 1 ? "it" : "them");
  else if (n_unprovided > 0)
    g_string_append_printf (hint, "; no installed library provides %s", unprovided->str);
  g_string_append_c (hint, ')');
  return g_string_free (g_steal_pointer (&hint), FALSE);
}

char *
_et_backend_hint (const char *id)
{
  const Provider *provider = backend_provider (id);
  g_autofree char *reason = provider != NULL ? absent_because (provider) : NULL;

  return g_strdup_printf (" (%s)", reason != NULL ? reason : "no installed library provides it");
}
