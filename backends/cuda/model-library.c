/* model-library.c: loading an AOTInductor model .so from memory
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bytes go to a memfd and are opened through /proc/self/fd, so nothing
 * is left behind and a /tmp mounted noexec does not matter; without memfd
 * they go to a private file under $XDG_RUNTIME_DIR or the temp folder.
 * Each load gets its own file: two identical partitions must not share one.
 */
#define _GNU_SOURCE
#include "model-library.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

static GQuark
model_error_quark (void)
{
  return g_quark_from_static_string ("executorch-cuda-model");
}

static gboolean
write_all (int fd, const guint8 *data, gsize size)
{
  while (size > 0)
    {
      ssize_t n = write (fd, data, size);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      size -= (gsize) n;
    }
  return TRUE;
}

/* The model resolves our host functions through the global scope: if this
 * library was opened locally (by plug-in discovery, say), promote it once. */
static void
make_shims_global (void)
{
  static gsize done;
  Dl_info info;

  if (!g_once_init_enter (&done))
    return;
  if (dladdr ((void *) make_shims_global, &info) != 0 && info.dli_fname != NULL)
    dlopen (info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  g_once_init_leave (&done, 1);
}

static void *
open_from_memfd (ModelLibrary *library, const guint8 *data, gsize size)
{
  g_autofree char *path = NULL;
  int fd = memfd_create ("executorch-cuda-model", MFD_CLOEXEC | MFD_EXEC);

  if (fd < 0 && errno == EINVAL)
    fd = memfd_create ("executorch-cuda-model", MFD_CLOEXEC); /* kernels before 6.3 */
  if (fd < 0)
    return NULL;
  if (!write_all (fd, data, size))
    {
      close (fd);
      return NULL;
    }
  library->fd = fd;
  path = g_strdup_printf ("/proc/self/fd/%d", fd);
  return dlopen (path, RTLD_LAZY | RTLD_LOCAL);
}

static void *
open_from_file (ModelLibrary *library, const guint8 *data, gsize size, GError **error)
{
  const char *dir = g_getenv ("XDG_RUNTIME_DIR");
  g_autofree char *template = NULL;
  int fd;

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    dir = g_get_tmp_dir ();
  template = g_build_filename (dir, "executorch-cuda-model-XXXXXX", NULL);
  fd = g_mkstemp_full (template, O_RDWR | O_CLOEXEC, 0700);
  if (fd < 0 || !write_all (fd, data, size))
    {
      g_set_error (error, model_error_quark (), 0, "cannot write the model .so to %s: %s", template,
                   g_strerror (errno));
      if (fd >= 0)
        {
          close (fd);
          g_unlink (template);
        }
      return NULL;
    }
  close (fd);
  library->path = g_steal_pointer (&template);
  return dlopen (library->path, RTLD_LAZY | RTLD_LOCAL);
}

#define RESOLVE(field, name, required)                                                               \
  G_STMT_START                                                                                       \
  {                                                                                                  \
    *(void **) &library->field = dlsym (library->handle, name);                                      \
    if (required && library->field == NULL)                                                          \
      {                                                                                              \
        g_set_error (error, model_error_quark (), 0, "model .so: %s not found after loading", name); \
        _executorch_model_library_free (library);                                                    \
        return NULL;                                                                                 \
      }                                                                                              \
  }                                                                                                  \
  G_STMT_END

ModelLibrary *
_executorch_model_library_load (const guint8 *data, gsize size, GError **error)
{
  ModelLibrary *library;

  if (!_executorch_cuda_check_model (data, size, error))
    return NULL;
  make_shims_global ();
  library = g_new0 (ModelLibrary, 1);
  library->fd = -1;
  library->handle = open_from_memfd (library, data, size);
  if (library->handle == NULL && library->fd < 0)
    {
      library->handle = open_from_file (library, data, size, error);
      if (library->handle == NULL && library->path == NULL)
        {
          _executorch_model_library_free (library);
          return NULL;
        }
    }
  if (library->handle == NULL)
    {
      g_set_error (error, model_error_quark (), 0, "cannot load the model .so: %s", dlerror ());
      _executorch_model_library_free (library);
      return NULL;
    }
  RESOLVE (create_with_device, "AOTInductorModelContainerCreateWithDevice", TRUE);
  RESOLVE (delete_container, "AOTInductorModelContainerDelete", TRUE);
  RESOLVE (get_num_inputs, "AOTInductorModelContainerGetNumInputs", TRUE);
  RESOLVE (get_num_outputs, "AOTInductorModelContainerGetNumOutputs", TRUE);
  RESOLVE (run, "AOTInductorModelContainerRun", TRUE);
  RESOLVE (update_constants_from_blob, "AOTInductorModelUpdateConstantsFromBlob", FALSE);
  return library;
}

void
_executorch_model_library_free (ModelLibrary *library)
{
  if (library == NULL)
    return;
  if (library->handle != NULL)
    dlclose (library->handle);
  if (library->fd >= 0)
    close (library->fd);
  if (library->path != NULL)
    {
      g_unlink (library->path);
      g_free (library->path);
    }
  g_free (library);
}
