/* owners.c: an LD_PRELOAD library that records, for every registration a
 * plug-in makes into libexecutorch's registry, which library made it and in
 * which library the registered code lives (tests/install/check-installed).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * It interposes the et_registry_add_* functions of <executorch-plugin.h>
 * (plug-ins call them through their PLT), writes one line per registered
 * item to the file named by $OWNERS_LOG and forwards to libexecutorch:
 *
 *   kernel NAME CALLER CODE      CODE: the library holding the kernel function
 *   backend ID CALLER CODE       CODE: the library holding execute()
 *   allocator NAME CALLER CODE   CODE: the library holding allocate()
 *   profiler NAME CALLER CODE    CODE: the library holding session_new()
 */
#define _GNU_SOURCE
#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#include <executorch/executorch-plugin.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static const char *
library_of (const void *address)
{
  Dl_info info;
  if (address == NULL)
    return "(null)";
  if (dladdr (address, &info) == 0 || info.dli_fname == NULL)
    return "(unknown)";
  return info.dli_fname;
}

static void
record (const char *kind, const char *name, const void *caller, const void *code)
{
  const char *path = getenv ("OWNERS_LOG");
  FILE *log = path != NULL ? fopen (path, "a") : NULL;
  if (log == NULL)
    return;
  fprintf (log, "%s %s %s %s\n", kind, name != NULL ? name : "(null)", library_of (caller), library_of (code));
  fclose (log);
}

#define FORWARD(type, name, ...)                                \
  static type (*real) (__VA_ARGS__);                            \
  if (real == NULL)                                             \
    real = (type (*) (__VA_ARGS__)) dlsym (RTLD_NEXT, name);    \
  if (real == NULL)                                             \
    {                                                           \
      fprintf (stderr, "owners: no %s after the shim\n", name); \
      abort ();                                                 \
    }

EtError
et_registry_add_kernels (EtRegistry *registry, const EtKernel *kernels, size_t n_kernels, EtErrorContext *error)
{
  FORWARD (EtError, "et_registry_add_kernels", EtRegistry *, const EtKernel *, size_t, EtErrorContext *);
  const void *caller = __builtin_return_address (0);
  for (size_t i = 0; i < n_kernels; i++)
    record ("kernel", kernels[i].name, caller, (const void *) kernels[i].func);
  return real (registry, kernels, n_kernels, error);
}

EtError
et_registry_add_backend (EtRegistry *registry, const EtBackend *backend, EtErrorContext *error)
{
  FORWARD (EtError, "et_registry_add_backend", EtRegistry *, const EtBackend *, EtErrorContext *);
  record ("backend", backend->id, __builtin_return_address (0), (const void *) backend->execute);
  return real (registry, backend, error);
}

EtError
et_registry_add_device_allocator (EtRegistry *registry, const EtDeviceAllocator *allocator, EtErrorContext *error)
{
  FORWARD (EtError, "et_registry_add_device_allocator", EtRegistry *, const EtDeviceAllocator *, EtErrorContext *);
  record ("allocator", allocator->name, __builtin_return_address (0), (const void *) allocator->allocate);
  return real (registry, allocator, error);
}

EtError
et_registry_add_profiler (EtRegistry *registry, const EtProfiler *profiler, EtErrorContext *error)
{
  FORWARD (EtError, "et_registry_add_profiler", EtRegistry *, const EtProfiler *, EtErrorContext *);
  record ("profiler", profiler->name, __builtin_return_address (0), (const void *) profiler->session_new);
  return real (registry, profiler, error);
}
