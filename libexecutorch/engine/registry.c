/* registry.c: the process's one table of kernels, backends, device allocators, rewrites and plug-ins
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Entries are never removed (plug-ins are never unloaded), so pointers
 * handed out stay valid for the life of the process.  MT safe.
 */
#define _GNU_SOURCE /* dladdr() */
#include "engine.h"
#include "error-context.h"

#include <dlfcn.h>
#include <string.h>

struct EtRegistry
{
  GMutex lock;
  GHashTable *kernels;  /* name -> KernelEntry */
  GHashTable *backends; /* id -> BackendEntry */
  const EtDeviceAllocator *allocators[ET_DEVICE_N_TYPES];
  char *allocator_owners[ET_DEVICE_N_TYPES];
  GPtrArray *plugins; /* PluginEntry */
  const EtProfiler *profiler;
  char *profiler_owner;
  GPtrArray *rewrites; /* RewriteEntry, in registration order */
};

typedef struct
{
  EtKernel kernel;
  char *owner;
} KernelEntry;

typedef struct
{
  const EtBackend *backend;
  char *owner;
} BackendEntry;

typedef struct
{
  const EtMethodRewrite *rewrite;
  char *owner;
} RewriteEntry;

typedef struct
{
  const EtPluginDesc *desc;
  char *state; /* "loaded", "unusable on this machine", "failed: ..." */
} PluginEntry;

/* Whether lookups run plug-in discovery first (lazily, once): set by
 * libexecutorch.so when it is loaded; engine-level tests that link the
 * engine statically register by hand and leave it off. */
static gint discovery_on;

void
_et_registry_use_discovery (gboolean use)
{
  g_atomic_int_set (&discovery_on, use);
}

static void
discover (void)
{
  /* Discovery warns once and executorch_load_plugins() reports its
   * failures; a lookup (some run per execution) copies and logs nothing,
   * and sees whatever did load. */
  if (g_atomic_int_get (&discovery_on))
    _et_discovery_ensure (NULL);
}

/* Name of the plug-in whose init is running on this thread, for messages. */
static GPrivate current_owner;

EtRegistry *
_et_registry (void)
{
  static EtRegistry *registry;

  if (g_once_init_enter (&registry))
    {
      EtRegistry *r = g_new0 (EtRegistry, 1);
      g_mutex_init (&r->lock);
      r->kernels = g_hash_table_new (g_str_hash, g_str_equal);
      r->backends = g_hash_table_new (g_str_hash, g_str_equal);
      r->plugins = g_ptr_array_new ();
      r->rewrites = g_ptr_array_new ();
      g_once_init_leave (&registry, r);
    }
  return registry;
}

EtRegistry *
et_registry_get_default (void)
{
  return _et_registry ();
}

static const char *
owner_name (void)
{
  const char *owner = g_private_get (&current_owner);
  return owner != NULL ? owner : "the application";
}

static EtError fail (EtErrorContext *error, EtError code, const char *format, ...) G_GNUC_PRINTF (3, 4);

static EtError
fail (EtErrorContext *error, EtError code, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  return et_error_context_fail (error, code, "%s", message);
}

EtError
et_registry_add_kernels (EtRegistry *registry, const EtKernel *kernels, size_t n_kernels, EtErrorContext *error)
{
  EtError result = ET_OK;

  if (registry == NULL || (kernels == NULL && n_kernels > 0))
    return fail (error, ET_ERROR_INVALID_ARGUMENT, "no registry or kernels given");
  g_mutex_lock (&registry->lock);
  /* Check every name first so a failed call registers nothing. */
  for (size_t i = 0; i < n_kernels && result == ET_OK; i++)
    {
      KernelEntry *existing;

      if (kernels[i].name == NULL || kernels[i].func == NULL)
        result = fail (error, ET_ERROR_INVALID_ARGUMENT, "kernel %zu registered by %s has no name or function", i,
                       owner_name ());
      else if ((existing = g_hash_table_lookup (registry->kernels, kernels[i].name)) != NULL)
        result =
            fail (error, ET_ERROR_REGISTRATION_ALREADY_REGISTERED, "operator %s is registered twice: by %s and by %s",
                  kernels[i].name, existing->owner, owner_name ());
      for (size_t j = 0; j < i && result == ET_OK; j++)
        if (strcmp (kernels[i].name, kernels[j].name) == 0)
          result =
              fail (error, ET_ERROR_REGISTRATION_ALREADY_REGISTERED, "operator %s is registered twice: by %s and by %s",
                    kernels[i].name, owner_name (), owner_name ());
    }
  for (size_t i = 0; i < n_kernels && result == ET_OK; i++)
    {
      KernelEntry *entry = g_new0 (KernelEntry, 1);
      entry->kernel = kernels[i];
      entry->kernel.name = g_strdup (kernels[i].name);
      entry->owner = g_strdup (owner_name ());
      g_hash_table_insert (registry->kernels, (char *) entry->kernel.name, entry);
    }
  g_mutex_unlock (&registry->lock);
  return result;
}

EtError
et_registry_add_backend (EtRegistry *registry, const EtBackend *backend, EtErrorContext *error)
{
  EtError result = ET_OK;
  BackendEntry *existing;

  if (registry == NULL || backend == NULL || backend->id == NULL || backend->init == NULL || backend->execute == NULL)
    return fail (error, ET_ERROR_INVALID_ARGUMENT, "backend registered by %s lacks an id, init or execute",
                 owner_name ());
  if (backend->abi_version != ET_PLUGIN_ABI_VERSION)
    return fail (error, ET_ERROR_NOT_SUPPORTED, "backend %s from %s uses plug-in ABI %u, the runtime has %u",
                 backend->id, owner_name (), backend->abi_version, ET_PLUGIN_ABI_VERSION);
  g_mutex_lock (&registry->lock);
  if ((existing = g_hash_table_lookup (registry->backends, backend->id)) != NULL)
    result = fail (error, ET_ERROR_REGISTRATION_ALREADY_REGISTERED, "backend %s is registered twice: by %s and by %s",
                   backend->id, existing->owner, owner_name ());
  else
    {
      BackendEntry *entry = g_new0 (BackendEntry, 1);
      entry->backend = backend;
      entry->owner = g_strdup (owner_name ());
      g_hash_table_insert (registry->backends, g_strdup (backend->id), entry);
    }
  g_mutex_unlock (&registry->lock);
  return result;
}

EtError
et_registry_add_device_allocator (EtRegistry *registry, const EtDeviceAllocator *allocator, EtErrorContext *error)
{
  EtError result = ET_OK;

  if (registry == NULL || allocator == NULL || allocator->allocate == NULL || allocator->deallocate == NULL ||
      allocator->copy_host_to_device == NULL || allocator->copy_device_to_host == NULL)
    return fail (error, ET_ERROR_INVALID_ARGUMENT, "device allocator registered by %s lacks a required function",
                 owner_name ());
  if (allocator->abi_version != ET_PLUGIN_ABI_VERSION)
    return fail (error, ET_ERROR_NOT_SUPPORTED, "device allocator from %s uses plug-in ABI %u, the runtime has %u",
                 owner_name (), allocator->abi_version, ET_PLUGIN_ABI_VERSION);
  if (allocator->device_type <= ET_DEVICE_CPU || allocator->device_type >= ET_DEVICE_N_TYPES)
    return fail (error, ET_ERROR_INVALID_ARGUMENT, "device allocator from %s is for unknown device type %d",
                 owner_name (), allocator->device_type);
  g_mutex_lock (&registry->lock);
  if (registry->allocators[allocator->device_type] != NULL)
    result = fail (error, ET_ERROR_REGISTRATION_ALREADY_REGISTERED,
                   "a device allocator for %s is registered twice: by %s and by %s",
                   _et_device_type_name (allocator->device_type), registry->allocator_owners[allocator->device_type],
                   owner_name ());
  else
    {
      registry->allocators[allocator->device_type] = allocator;
      registry->allocator_owners[allocator->device_type] = g_strdup (owner_name ());
    }
  g_mutex_unlock (&registry->lock);
  return result;
}

EtError
et_registry_add_profiler (EtRegistry *registry, const EtProfiler *profiler, EtErrorContext *error)
{
  EtError result = ET_OK;

  if (registry == NULL || profiler == NULL || profiler->name == NULL || profiler->session_new == NULL ||
      profiler->session_free == NULL || profiler->n_events == NULL || profiler->get_event == NULL)
    return fail (error, ET_ERROR_INVALID_ARGUMENT, "profiler registered by %s lacks a required function",
                 owner_name ());
  if (profiler->abi_version != ET_PLUGIN_ABI_VERSION)
    return fail (error, ET_ERROR_NOT_SUPPORTED, "profiler %s from %s uses plug-in ABI %u, the runtime has %u",
                 profiler->name, owner_name (), profiler->abi_version, ET_PLUGIN_ABI_VERSION);
  g_mutex_lock (&registry->lock);
  if (registry->profiler != NULL)
    result = fail (error, ET_ERROR_REGISTRATION_ALREADY_REGISTERED, "a profiler is registered twice: by %s and by %s",
                   registry->profiler_owner, owner_name ());
  else
    {
      registry->profiler = profiler;
      registry->profiler_owner = g_strdup (owner_name ());
    }
  g_mutex_unlock (&registry->lock);
  return result;
}

EtError
et_registry_add_rewrite (EtRegistry *registry, const EtMethodRewrite *rewrite, EtErrorContext *error)
{
  EtError result = ET_OK;

  if (registry == NULL || rewrite == NULL || rewrite->name == NULL || rewrite->rewrite == NULL)
    return fail (error, ET_ERROR_INVALID_ARGUMENT, "rewrite registered by %s lacks a name or function", owner_name ());
  if (rewrite->abi_version != ET_PLUGIN_ABI_VERSION)
    return fail (error, ET_ERROR_NOT_SUPPORTED, "rewrite %s from %s uses plug-in ABI %u, the runtime has %u",
                 rewrite->name, owner_name (), rewrite->abi_version, ET_PLUGIN_ABI_VERSION);
  g_mutex_lock (&registry->lock);
  for (guint i = 0; i < registry->rewrites->len && result == ET_OK; i++)
    {
      RewriteEntry *existing = g_ptr_array_index (registry->rewrites, i);
      if (strcmp (existing->rewrite->name, rewrite->name) == 0)
        result =
            fail (error, ET_ERROR_REGISTRATION_ALREADY_REGISTERED, "rewrite %s is registered twice: by %s and by %s",
                  rewrite->name, existing->owner, owner_name ());
    }
  if (result == ET_OK)
    {
      RewriteEntry *entry = g_new0 (RewriteEntry, 1);
      entry->rewrite = rewrite;
      entry->owner = g_strdup (owner_name ());
      g_ptr_array_add (registry->rewrites, entry);
    }
  g_mutex_unlock (&registry->lock);
  return result;
}

const EtMethodRewrite **
_et_registry_rewrites (guint *n_rewrites)
{
  EtRegistry *registry = _et_registry ();
  const EtMethodRewrite **rewrites;

  discover ();
  g_mutex_lock (&registry->lock);
  *n_rewrites = registry->rewrites->len;
  rewrites = g_new (const EtMethodRewrite *, MAX (registry->rewrites->len, 1));
  for (guint i = 0; i < registry->rewrites->len; i++)
    rewrites[i] = ((RewriteEntry *) g_ptr_array_index (registry->rewrites, i))->rewrite;
  g_mutex_unlock (&registry->lock);
  return rewrites;
}

const EtProfiler *
_et_registry_find_profiler (void)
{
  EtRegistry *registry = _et_registry ();
  const EtProfiler *profiler;

  discover ();
  g_mutex_lock (&registry->lock);
  profiler = registry->profiler;
  g_mutex_unlock (&registry->lock);
  return profiler;
}

const EtKernel *
et_registry_find_kernel (EtRegistry *registry, const char *name)
{
  KernelEntry *entry;

  if (registry == NULL || name == NULL)
    return NULL;
  discover ();
  g_mutex_lock (&registry->lock);
  entry = g_hash_table_lookup (registry->kernels, name);
  g_mutex_unlock (&registry->lock);
  return entry != NULL ? &entry->kernel : NULL;
}

const char *
_et_registry_kernel_owner (const char *name)
{
  EtRegistry *registry = _et_registry ();
  KernelEntry *entry;

  discover ();
  g_mutex_lock (&registry->lock);
  entry = g_hash_table_lookup (registry->kernels, name);
  g_mutex_unlock (&registry->lock);
  return entry != NULL ? entry->owner : NULL;
}

const EtBackend *
_et_registry_find_backend (const char *id)
{
  EtRegistry *registry = _et_registry ();
  BackendEntry *entry;

  discover ();
  g_mutex_lock (&registry->lock);
  entry = g_hash_table_lookup (registry->backends, id);
  g_mutex_unlock (&registry->lock);
  return entry != NULL ? entry->backend : NULL;
}

const EtDeviceAllocator *
_et_registry_find_allocator (int device_type)
{
  EtRegistry *registry = _et_registry ();
  const EtDeviceAllocator *allocator = NULL;

  discover ();
  if (device_type < 0 || device_type >= ET_DEVICE_N_TYPES)
    return NULL;
  g_mutex_lock (&registry->lock);
  allocator = registry->allocators[device_type];
  g_mutex_unlock (&registry->lock);
  return allocator;
}

static int
compare_strings (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* A sorted, NULL-terminated copy of a table's keys. */
static char **
sorted_keys (GHashTable *table)
{
  EtRegistry *registry = _et_registry ();
  char **keys;
  guint n;

  g_mutex_lock (&registry->lock);
  keys = (char **) g_hash_table_get_keys_as_array (table, &n);
  for (guint i = 0; i < n; i++)
    keys[i] = g_strdup (keys[i]);
  g_mutex_unlock (&registry->lock);
  qsort (keys, n, sizeof (char *), compare_strings);
  return keys;
}

char **
_et_registry_list_kernels (void)
{
  discover ();
  return sorted_keys (_et_registry ()->kernels);
}

char **
_et_registry_list_backends (void)
{
  discover ();
  return sorted_keys (_et_registry ()->backends);
}

char **
_et_registry_list_device_types (void)
{
  EtRegistry *registry = _et_registry ();
  GPtrArray *names = g_ptr_array_new ();

  discover ();
  g_ptr_array_add (names, g_strdup (_et_device_type_name (ET_DEVICE_CPU)));
  g_mutex_lock (&registry->lock);
  for (int type = ET_DEVICE_CPU + 1; type < ET_DEVICE_N_TYPES; type++)
    if (registry->allocators[type] != NULL)
      g_ptr_array_add (names, g_strdup (_et_device_type_name (type)));
  g_mutex_unlock (&registry->lock);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

char **
_et_registry_list_plugins (void)
{
  EtRegistry *registry = _et_registry ();
  GPtrArray *names = g_ptr_array_new ();

  discover ();
  g_mutex_lock (&registry->lock);
  for (guint i = 0; i < registry->plugins->len; i++)
    {
      PluginEntry *entry = g_ptr_array_index (registry->plugins, i);
      g_ptr_array_add (names, g_strdup_printf ("%s %s (%s)", entry->desc->name,
                                               entry->desc->version != NULL ? entry->desc->version : "", entry->state));
    }
  g_mutex_unlock (&registry->lock);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

char *
_et_registry_plugin_state (const char *name)
{
  EtRegistry *registry = _et_registry ();
  char *state = NULL;

  discover ();
  g_mutex_lock (&registry->lock);
  for (guint i = 0; i < registry->plugins->len && state == NULL; i++)
    {
      PluginEntry *entry = g_ptr_array_index (registry->plugins, i);
      if (strcmp (entry->desc->name, name) == 0)
        state = g_strdup (entry->state);
    }
  g_mutex_unlock (&registry->lock);
  return state;
}

static EtError
plugin_fail (EtErrorContext *error, EtError code, const char *text)
{
  return et_error_context_fail (error, code, "%s", text);
}

/* States are read by list_plugins from any thread: change them under the lock. */
static void
set_state (EtRegistry *registry, PluginEntry *entry, char *state)
{
  g_mutex_lock (&registry->lock);
  g_free (entry->state);
  entry->state = state;
  g_mutex_unlock (&registry->lock);
}

/* The file a plug-in descriptor lives in (two copies of one library are
 * two descriptors), for messages. */
static char *
descriptor_file (const EtPluginDesc *desc)
{
  Dl_info info;

  if (dladdr (desc, &info) != 0 && info.dli_fname != NULL && info.dli_fname[0] != '\0')
    return g_strdup (info.dli_fname);
  return g_strdup ("the application");
}

/* Serialises plug-in initialisation so that init runs once per descriptor. */
static GRecMutex plugin_init_lock;

EtError
et_registry_add_plugin (const EtPluginDesc *desc, EtErrorContext *error)
{
  EtRegistry *registry = _et_registry ();
  g_autofree char *text = NULL;
  PluginEntry *entry;
  EtErrorContext init_error = { ET_OK, NULL };
  EtError result = ET_OK;

  if (desc == NULL || desc->name == NULL)
    return plugin_fail (error, ET_ERROR_INVALID_ARGUMENT, "plug-in descriptor has no name");
  if (desc->abi_version != ET_PLUGIN_ABI_VERSION)
    {
      text = g_strdup_printf ("plug-in %s uses plug-in ABI %u, the runtime has %u", desc->name, desc->abi_version,
                              ET_PLUGIN_ABI_VERSION);
      return plugin_fail (error, ET_ERROR_NOT_SUPPORTED, text);
    }

  g_rec_mutex_lock (&plugin_init_lock);
  g_mutex_lock (&registry->lock);
  for (guint i = 0; i < registry->plugins->len; i++)
    {
      PluginEntry *other = g_ptr_array_index (registry->plugins, i);
      if (other->desc == desc)
        {
          g_mutex_unlock (&registry->lock);
          g_rec_mutex_unlock (&plugin_init_lock);
          return ET_OK; /* the same library, arriving a second way */
        }
      if (strcmp (other->desc->name, desc->name) == 0 && result == ET_OK)
        {
          g_autofree char *first = descriptor_file (other->desc);
          g_autofree char *second = descriptor_file (desc);
          text = g_strdup_printf ("plug-in %s is registered twice: by %s and by %s (duplicate registration; "
                                  "the second copy is not used)",
                                  desc->name, first, second);
          result = ET_ERROR_REGISTRATION_ALREADY_REGISTERED;
        }
    }
  if (result == ET_OK)
    {
      entry = g_new0 (PluginEntry, 1);
      entry->desc = desc;
      entry->state = g_strdup ("loading");
      g_ptr_array_add (registry->plugins, entry);
    }
  g_mutex_unlock (&registry->lock);
  if (result != ET_OK)
    {
      g_rec_mutex_unlock (&plugin_init_lock);
      return plugin_fail (error, result, text);
    }

  if (desc->probe != NULL && desc->probe () <= 0)
    set_state (registry, entry, g_strdup ("unusable on this machine"));
  else
    {
      const char *previous = g_private_get (&current_owner);
      gboolean ok;

      g_private_set (&current_owner, (gpointer) desc->name);
      ok = desc->init != NULL && desc->init (registry, &init_error);
      g_private_set (&current_owner, (gpointer) previous);
      if (ok)
        set_state (registry, entry, g_strdup ("loaded"));
      else
        {
          const char *why = init_error.message != NULL ? init_error.message : "no reason given";

          set_state (registry, entry, g_strdup_printf ("failed: %s", why));
          text = g_strdup_printf ("plug-in %s failed to initialise: %s", desc->name, why);
          result = ET_ERROR_INTERNAL;
        }
      _et_error_context_clear (&init_error);
    }
  g_rec_mutex_unlock (&plugin_init_lock);
  if (result != ET_OK)
    return plugin_fail (error, result, text);
  return ET_OK;
}
