/* executorch-program.c: a loaded .pte file
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-private.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

/**
 * ExecutorchProgram:
 *
 * An ExecuTorch program: the contents of a `.pte` file, with the methods
 * it defines (usually one, "forward"), plus any external weight files
 * (`.ptd`) it was exported with.
 *
 * Files are memory-mapped, not read: loading a large model is cheap and
 * its weights stay in the page cache.  The first program loaded in a
 * process also loads the installed plug-ins (kernels, backends, device
 * allocators), so no set-up call is needed.
 *
 * A program is immutable once loaded and MT safe: load several
 * [class@Executorch.Method]s from it, in as many threads as you like.  A
 * method keeps its program alive.
 *
 * ```c
 * g_autoptr(GError) error = NULL;
 * g_autoptr(ExecutorchProgram) program = executorch_program_new_from_file ("model.pte", &error);
 * g_autoptr(ExecutorchMethod) method = NULL;
 *
 * if (program == NULL)
 *   g_error ("%s", error->message);
 * method = executorch_program_load_method (program, "forward", &error);
 * ```
 *
 * From Python: `Executorch.Program.new_from_file("model.pte")`.
 *
 * A program may also be built from its properties alone, with
 * g_object_new() in C, `Executorch.Program(path="model.pte")` in Python or
 * `new Executorch.Program({path: "model.pte"})` in GJS: it loads as it is
 * constructed.  If the load fails, g_initable_init() returns the error,
 * the methods that take a #GError report it, and the others log a warning
 * with it and return nothing (no methods).
 *
 * Since: 1.0
 */

struct _ExecutorchProgram
{
  GObject parent_instance;

  char *path;
  GBytes *bytes;
  char **data_paths;
  GPtrArray *external_data; /* GBytes */

  GError *init_error; /* why the load in constructed failed */
  EtProgram *engine;
  guint64 max_memory; /* atomic: read by method loads in any thread */
  gboolean allow_native_code;
};

enum
{
  PROP_0,
  PROP_PATH,
  PROP_BYTES,
  PROP_DATA_PATHS,
  PROP_EXTERNAL_DATA,
  PROP_MAX_MEMORY,
  PROP_ALLOW_NATIVE_CODE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void executorch_program_initable_iface_init (GInitableIface *iface);
static void executorch_program_constructed (GObject *object);

G_DEFINE_FINAL_TYPE_WITH_CODE (ExecutorchProgram, executorch_program, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, executorch_program_initable_iface_init))

static void
executorch_program_dispose (GObject *object)
{
  ExecutorchProgram *self = EXECUTORCH_PROGRAM (object);

  g_clear_pointer (&self->external_data, g_ptr_array_unref);

  G_OBJECT_CLASS (executorch_program_parent_class)->dispose (object);
}

static void
executorch_program_finalize (GObject *object)
{
  ExecutorchProgram *self = EXECUTORCH_PROGRAM (object);

  g_clear_pointer (&self->engine, _et_program_unref);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_clear_error (&self->init_error);
  g_free (self->path);
  g_strfreev (self->data_paths);

  G_OBJECT_CLASS (executorch_program_parent_class)->finalize (object);
}

static void
executorch_program_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  ExecutorchProgram *self = EXECUTORCH_PROGRAM (object);

  switch (prop_id)
    {
      case PROP_PATH: g_value_set_string (value, self->path); break;
      case PROP_BYTES: g_value_set_boxed (value, self->bytes); break;
      case PROP_DATA_PATHS: g_value_set_boxed (value, self->data_paths); break;
      case PROP_EXTERNAL_DATA: g_value_set_boxed (value, self->external_data); break;
      case PROP_MAX_MEMORY: g_value_set_uint64 (value, executorch_program_get_max_memory (self)); break;
      case PROP_ALLOW_NATIVE_CODE: g_value_set_boolean (value, executorch_program_get_allow_native_code (self)); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_program_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  ExecutorchProgram *self = EXECUTORCH_PROGRAM (object);

  switch (prop_id)
    {
      case PROP_PATH:
        g_free (self->path);
        self->path = g_value_dup_string (value);
        break;
      case PROP_BYTES:
        g_clear_pointer (&self->bytes, g_bytes_unref);
        self->bytes = g_value_dup_boxed (value);
        break;
      case PROP_DATA_PATHS:
        g_strfreev (self->data_paths);
        self->data_paths = g_value_dup_boxed (value);
        break;
      case PROP_EXTERNAL_DATA:
        g_clear_pointer (&self->external_data, g_ptr_array_unref);
        self->external_data = g_value_dup_boxed (value);
        break;
      case PROP_MAX_MEMORY: executorch_program_set_max_memory (self, g_value_get_uint64 (value)); break;
      case PROP_ALLOW_NATIVE_CODE: executorch_program_set_allow_native_code (self, g_value_get_boolean (value)); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_program_class_init (ExecutorchProgramClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = executorch_program_constructed;
  object_class->dispose = executorch_program_dispose;
  object_class->finalize = executorch_program_finalize;
  object_class->get_property = executorch_program_get_property;
  object_class->set_property = executorch_program_set_property;

  /**
   * ExecutorchProgram:path: (type filename)
   *
   * The `.pte` file to load, memory-mapped.  Exactly one of this and
   * [property@Executorch.Program:bytes] is set.
   *
   * Since: 1.0
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL,
                                               G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * ExecutorchProgram:bytes:
   *
   * The contents of a `.pte` file.  The program keeps a reference and
   * does not copy them (unless they are not 16-byte aligned).
   *
   * Since: 1.0
   */
  properties[PROP_BYTES] = g_param_spec_boxed ("bytes", NULL, NULL, G_TYPE_BYTES,
                                               G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * ExecutorchProgram:data-paths:
   *
   * External data files (`.ptd`) to memory-map along with
   * [property@Executorch.Program:path].
   *
   * Since: 1.0
   */
  properties[PROP_DATA_PATHS] =
      g_param_spec_boxed ("data-paths", NULL, NULL, G_TYPE_STRV,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * ExecutorchProgram:external-data:
   *
   * The contents of external data files (`.ptd`), a #GPtrArray of
   * #GBytes, to go with [property@Executorch.Program:bytes].
   *
   * Since: 1.0
   */
  properties[PROP_EXTERNAL_DATA] =
      g_param_spec_boxed ("external-data", NULL, NULL, G_TYPE_PTR_ARRAY,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * ExecutorchProgram:max-memory:
   *
   * The most memory, in bytes, that the planned buffers of one method
   * loaded from this program may add up to.  A method whose plan asks for
   * more fails to load with %EXECUTORCH_ERROR_MEMORY_ALLOCATION_FAILED,
   * before anything is allocated.  Tensors never grow past their planned
   * capacity, so this bounds a method's data memory.  The default is
   * 4 GiB; setting 0 restores it.  A change applies to methods loaded
   * afterwards.
   *
   * Since: 1.0
   */
  properties[PROP_MAX_MEMORY] =
      g_param_spec_uint64 ("max-memory", NULL, NULL, 1, G_MAXUINT64, ET_DEFAULT_MAX_MEMORY,
                           G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * ExecutorchProgram:allow-native-code:
   *
   * Whether delegates may load and run native code that the program
   * carries.  A CUDA program holds an AOTInductor-compiled shared object
   * that runs with the caller's privileges; no check of the file can make
   * that safe, so it is the caller's decision.  While this is %FALSE (the
   * default), loading a method that needs it fails with
   * %EXECUTORCH_ERROR_NOT_SUPPORTED and a message saying so.  Applies to
   * methods loaded afterwards.
   *
   * Since: 1.0
   */
  properties[PROP_ALLOW_NATIVE_CODE] =
      g_param_spec_boolean ("allow-native-code", NULL, NULL, FALSE,
                            G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
executorch_program_init (ExecutorchProgram *self)
{
  self->max_memory = ET_DEFAULT_MAX_MEMORY;
}

/* Maps @path.  A file that cannot be opened gives a %G_IO_ERROR with the
 * code of its errno (%G_IO_ERROR_NOT_FOUND when it does not exist), a
 * folder %G_IO_ERROR_IS_DIRECTORY and an empty file
 * %EXECUTORCH_ERROR_INVALID_PROGRAM; each message starts with @path. */
GBytes *
_executorch_map_file (const char *path, GError **error)
{
  g_autofree char *shown = g_filename_display_name (path);
  g_autoptr (GMappedFile) mapped = NULL;
  g_autoptr (GError) local = NULL;
  GStatBuf st;
  int fd;

  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      int saved = errno;

      if (fd >= 0)
        g_close (fd, NULL);
      _et_set_error_domain (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", shown, g_strerror (saved));
      return NULL;
    }
  if (S_ISDIR (st.st_mode))
    {
      g_close (fd, NULL);
      _et_set_error_domain (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY, "%s: is a folder, not a file", shown);
      return NULL;
    }
  mapped = g_mapped_file_new_from_fd (fd, FALSE, &local);
  g_close (fd, NULL);
  if (mapped == NULL)
    {
      _et_set_error_domain (error, G_IO_ERROR, g_io_error_from_file_error (local->code), "%s: %s", shown,
                            local->message);
      return NULL;
    }
  if (g_mapped_file_get_length (mapped) == 0)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "%s: the file is empty", shown);
      return NULL;
    }
  return g_mapped_file_get_bytes (mapped);
}

static gboolean
load (ExecutorchProgram *self, GError **error)
{
  g_autoptr (GPtrArray) external = NULL;
  g_autofree char *shown = NULL;

  if ((self->path == NULL) == (self->bytes == NULL))
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "%s",
                     self->path == NULL ? "the program has nothing to load: set its “path” or its “bytes”"
                                        : "the program has both a “path” and “bytes”: set only one of them");
      return FALSE;
    }
  if (self->path != NULL && self->external_data != NULL)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "%s",
                     "“external-data” goes with “bytes”; use “data-paths” with “path”");
      return FALSE;
    }
  if (self->bytes != NULL && self->data_paths != NULL && self->data_paths[0] != NULL)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "%s",
                     "“data-paths” goes with “path”; use “external-data” with “bytes”");
      return FALSE;
    }

  external = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  if (self->path != NULL)
    {
      shown = g_filename_display_name (self->path);
      self->bytes = _executorch_map_file (self->path, error);
      if (self->bytes == NULL)
        return FALSE;
      for (guint i = 0; self->data_paths != NULL && self->data_paths[i] != NULL; i++)
        {
          GBytes *data = _executorch_map_file (self->data_paths[i], error);
          if (data == NULL)
            return FALSE;
          g_ptr_array_add (external, data);
        }
    }
  else if (self->external_data != NULL)
    {
      for (guint i = 0; i < self->external_data->len; i++)
        {
          GBytes *data = g_ptr_array_index (self->external_data, i);
          if (data == NULL)
            {
              _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "external data %u is missing", i);
              return FALSE;
            }
          g_ptr_array_add (external, g_bytes_ref (data));
        }
    }

  if (g_bytes_get_size (self->bytes) == 0)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "%s", "the program is empty");
      return FALSE;
    }
  self->engine = _et_program_load (self->bytes, (GBytes *const *) external->pdata, external->len, error);
  if (self->engine != NULL)
    _et_program_set_allow_native_code (self->engine, self->allow_native_code);
  if (self->engine == NULL)
    {
      if (shown != NULL && error != NULL && *error != NULL)
        _et_prefix_error (error, "%s: ", shown);
      return FALSE;
    }
  return TRUE;
}

/* Loading here rather than in g_initable_init() makes a program built
 * from properties alone as usable as one from g_initable_new(): PyGObject
 * and GJS constructors never call g_initable_init().  A failure is kept
 * for g_initable_init() and the methods to report. */
static void
executorch_program_constructed (GObject *object)
{
  ExecutorchProgram *self = EXECUTORCH_PROGRAM (object);

  G_OBJECT_CLASS (executorch_program_parent_class)->constructed (object);

  load (self, &self->init_error);
}

gboolean
_executorch_init_result (const GError *init_error, GError **error)
{
  if (init_error == NULL)
    return TRUE;
  g_propagate_error (error, g_error_copy (init_error));
  return FALSE;
}

static gboolean
executorch_program_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  return _executorch_init_result (EXECUTORCH_PROGRAM (initable)->init_error, error);
}

static void
executorch_program_initable_iface_init (GInitableIface *iface)
{
  iface->init = executorch_program_initable_init;
}

EtProgram *
_executorch_program_get_engine (ExecutorchProgram *program)
{
  return program->engine;
}

/* A program built with g_object_new() may have failed to load without
 * anyone asking g_initable_init(); the methods of such a program report
 * why.  Those that take a GError set it to a copy of the load's error. */
EtProgram *
_executorch_program_check_loaded (ExecutorchProgram *program, GError **error)
{
  if (program->engine == NULL)
    g_propagate_error (error, g_error_copy (program->init_error));
  return program->engine;
}

/* ...and those without one log it as a warning. */
static gboolean
warn_unless_loaded (ExecutorchProgram *program, const char *function)
{
  if (program->engine != NULL)
    return TRUE;
  g_warning ("%s: the program did not load, so it has no methods: %s", function, program->init_error->message);
  return FALSE;
}

const char *
_executorch_program_get_path (ExecutorchProgram *program)
{
  return program->path;
}

/**
 * executorch_program_set_max_memory:
 * @program: a program
 * @max_memory: bytes, or 0 for the default (4 GiB)
 *
 * Sets [property@Executorch.Program:max-memory], the cap on the planned
 * memory of each method loaded from @program from now on.  Methods
 * already loaded keep their memory.
 *
 * MT safe.
 *
 * Since: 1.0
 */
void
executorch_program_set_max_memory (ExecutorchProgram *program, guint64 max_memory)
{
  g_return_if_fail (EXECUTORCH_IS_PROGRAM (program));

  if (max_memory == 0)
    max_memory = ET_DEFAULT_MAX_MEMORY;
  if (__atomic_exchange_n (&program->max_memory, max_memory, __ATOMIC_SEQ_CST) != max_memory)
    g_object_notify_by_pspec (G_OBJECT (program), properties[PROP_MAX_MEMORY]);
}

/**
 * executorch_program_get_max_memory:
 * @program: a program
 *
 * Gets [property@Executorch.Program:max-memory].
 *
 * MT safe.
 *
 * Returns: the cap, in bytes, on the planned memory of a method loaded
 *   from @program
 *
 * Since: 1.0
 */
guint64
executorch_program_get_max_memory (ExecutorchProgram *program)
{
  g_return_val_if_fail (EXECUTORCH_IS_PROGRAM (program), 0);

  return __atomic_load_n (&program->max_memory, __ATOMIC_SEQ_CST);
}

/**
 * executorch_program_new_from_file:
 * @path: (type filename): a `.pte` file
 * @error: return location for a #GError, or %NULL
 *
 * Memory-maps and loads a program file.  The first program loaded in the
 * process also loads the installed plug-ins.
 *
 * Returns: (transfer full) (nullable): the program, or %NULL with @error
 *   set, its message starting with @path: %G_IO_ERROR_NOT_FOUND when the
 *   file does not exist, another #GIOErrorEnum code when it cannot be read
 *   (%G_IO_ERROR_PERMISSION_DENIED, %G_IO_ERROR_IS_DIRECTORY, ...),
 *   %EXECUTORCH_ERROR_INVALID_PROGRAM when it is empty or malformed, ...
 *
 * Since: 1.0
 */
ExecutorchProgram *
executorch_program_new_from_file (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_initable_new (EXECUTORCH_TYPE_PROGRAM, NULL, error, "path", path, NULL);
}

/**
 * executorch_program_new_from_file_with_data:
 * @path: (type filename): a `.pte` file
 * @data_paths: (array zero-terminated=1) (element-type filename) (nullable):
 *   the external data files (`.ptd`) the program was exported with
 * @error: return location for a #GError, or %NULL
 *
 * Memory-maps and loads a program whose weights live in separate files.
 *
 * Returns: (transfer full) (nullable): the program, or %NULL with @error
 *   set (see [ctor@Executorch.Program.new_from_file], which applies to
 *   each data file too; %EXECUTORCH_ERROR_INVALID_EXTERNAL_DATA when a data
 *   file is malformed or does not match the program)
 *
 * Since: 1.0
 */
ExecutorchProgram *
executorch_program_new_from_file_with_data (const char *path, const char *const *data_paths, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_initable_new (EXECUTORCH_TYPE_PROGRAM, NULL, error, "path", path, "data-paths", data_paths, NULL);
}

/**
 * executorch_program_new_from_bytes:
 * @data: the contents of a `.pte` file
 * @error: return location for a #GError, or %NULL
 *
 * Loads a program from memory.  The program takes a reference on @data and
 * uses it in place, unless it is not 16-byte aligned (then it is copied).
 *
 * Returns: (transfer full) (nullable): the program, or %NULL with @error
 *   set in %EXECUTORCH_ERROR (%EXECUTORCH_ERROR_INVALID_PROGRAM when
 *   @data is not a valid program)
 *
 * Since: 1.0
 */
ExecutorchProgram *
executorch_program_new_from_bytes (GBytes *data, GError **error)
{
  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_initable_new (EXECUTORCH_TYPE_PROGRAM, NULL, error, "bytes", data, NULL);
}

/**
 * executorch_program_new_from_bytes_with_data:
 * @data: the contents of a `.pte` file
 * @external_data: (array length=n_external_data) (nullable): the contents
 *   of the external data files (`.ptd`)
 * @n_external_data: the number of external data files
 * @error: return location for a #GError, or %NULL
 *
 * Loads a program and its external data from memory.  The program takes a
 * reference on each #GBytes and uses them in place.
 *
 * Returns: (transfer full) (nullable): the program, or %NULL with @error
 *   set (see [ctor@Executorch.Program.new_from_bytes])
 *
 * Since: 1.0
 */
ExecutorchProgram *
executorch_program_new_from_bytes_with_data (GBytes *data, GBytes *const *external_data, gsize n_external_data,
                                             GError **error)
{
  g_autoptr (GPtrArray) external = NULL;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (external_data != NULL || n_external_data == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  external = g_ptr_array_new_full ((guint) n_external_data, (GDestroyNotify) g_bytes_unref);
  for (gsize i = 0; i < n_external_data; i++)
    {
      g_return_val_if_fail (external_data[i] != NULL, NULL);
      g_ptr_array_add (external, g_bytes_ref (external_data[i]));
    }
  return g_initable_new (EXECUTORCH_TYPE_PROGRAM, NULL, error, "bytes", data, "external-data", external, NULL);
}

/**
 * executorch_program_get_n_methods:
 * @program: a program
 *
 * Gets the number of methods the program defines.
 * [method@Executorch.Program.list_methods] gives their names.
 *
 * Returns: the number of methods the program defines (0, with a warning
 *   giving the reason, for a program that failed to load)
 *
 * Since: 1.0
 */
guint
executorch_program_get_n_methods (ExecutorchProgram *program)
{
  g_return_val_if_fail (EXECUTORCH_IS_PROGRAM (program), 0);

  if (!warn_unless_loaded (program, G_STRFUNC))
    return 0;
  return _et_program_n_methods (program->engine);
}

/**
 * executorch_program_list_methods:
 * @program: a program
 *
 * Lists the methods the program defines, in file order.
 *
 * Returns: (transfer full) (array zero-terminated=1): a %NULL-terminated
 *   array of method names; free it with g_strfreev().  It is empty, with a
 *   warning giving the reason, for a program that failed to load.
 *
 * Since: 1.0
 */
char **
executorch_program_list_methods (ExecutorchProgram *program)
{
  guint n;
  char **names;

  g_return_val_if_fail (EXECUTORCH_IS_PROGRAM (program), NULL);

  if (!warn_unless_loaded (program, G_STRFUNC))
    return g_new0 (char *, 1);
  n = _et_program_n_methods (program->engine);
  names = g_new0 (char *, n + 1);
  for (guint i = 0; i < n; i++)
    names[i] = g_strdup (_et_program_method_name (program->engine, i));
  return names;
}

/**
 * executorch_program_has_method:
 * @program: a program
 * @name: a method name
 *
 * Tells whether the program defines a method called @name, without loading
 * it. MT safe.
 *
 * Returns: %TRUE when the program defines a method called @name
 *
 * Since: 1.0
 */
gboolean
executorch_program_has_method (ExecutorchProgram *program, const char *name)
{
  guint n;

  g_return_val_if_fail (EXECUTORCH_IS_PROGRAM (program), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (!warn_unless_loaded (program, G_STRFUNC))
    return FALSE;
  n = _et_program_n_methods (program->engine);
  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (_et_program_method_name (program->engine, i), name) == 0)
      return TRUE;
  return FALSE;
}

/**
 * executorch_program_get_method_info:
 * @program: a program
 * @name: a method name
 * @error: return location for a #GError, or %NULL
 *
 * Describes a method without loading it: its inputs, outputs, planned
 * memory, backends and operators.
 *
 * Returns: (transfer full) (nullable): a description, or %NULL with @error
 *   set to %EXECUTORCH_ERROR_NOT_FOUND when there is no such method, or to
 *   the error of the load when @program was built with g_object_new() and
 *   failed to load
 *
 * Since: 1.0
 */
ExecutorchMethodInfo *
executorch_program_get_method_info (ExecutorchProgram *program, const char *name, GError **error)
{
  const EtMethodMeta *meta;

  g_return_val_if_fail (EXECUTORCH_IS_PROGRAM (program), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (_executorch_program_check_loaded (program, error) == NULL)
    return NULL;
  meta = _et_program_method_meta (program->engine, name, error);
  if (meta == NULL)
    return NULL;
  return _executorch_method_info_new (meta);
}

/**
 * executorch_program_load_method:
 * @program: a program
 * @name: a method name, usually "forward"
 * @error: return location for a #GError, or %NULL
 *
 * Loads a method: allocates its planned memory, resolves its operators and
 * initialises its delegates.  The method keeps a reference on @program.
 * Methods loaded from one program are independent of each other.
 *
 * Returns: (transfer full) (nullable): the method, or %NULL with @error
 *   set: %EXECUTORCH_ERROR_NOT_FOUND when there is no such method or a
 *   backend it needs is not installed, %EXECUTORCH_ERROR_OPERATOR_MISSING
 *   when no kernel is registered for one of its operators, the error of
 *   the load when @program was built with g_object_new() and failed to
 *   load, ...
 *
 * Since: 1.0
 */
ExecutorchMethod *
executorch_program_load_method (ExecutorchProgram *program, const char *name, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_IS_PROGRAM (program), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (_executorch_program_check_loaded (program, error) == NULL)
    return NULL;
  return g_initable_new (EXECUTORCH_TYPE_METHOD, NULL, error, "program", program, "name", name, NULL);
}

/**
 * executorch_program_load_method_profiled:
 * @program: a program
 * @name: the method's name, such as "forward"
 * @error: return location for a #GError, or %NULL
 *
 * As [method@Executorch.Program.load_method], with profiling enabled
 * from the start, so the method's load is recorded as well (see
 * [method@Executorch.Method.enable_profiling]).
 *
 * Returns: (transfer full) (nullable): the method, or %NULL with @error
 *   set as there; %EXECUTORCH_ERROR_NOT_SUPPORTED when no profiler is
 *   installed
 *
 * Since: 1.0
 */
ExecutorchMethod *
executorch_program_load_method_profiled (ExecutorchProgram *program, const char *name, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_IS_PROGRAM (program), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (_executorch_program_check_loaded (program, error) == NULL)
    return NULL;
  return g_initable_new (EXECUTORCH_TYPE_METHOD, NULL, error, "program", program, "name", name, "profiling", TRUE,
                         NULL);
}

/**
 * executorch_program_set_allow_native_code:
 * @program: a program
 * @allow: whether delegates may run native code the program carries
 *
 * Sets [property@Executorch.Program:allow-native-code].
 *
 * Since: 1.0
 */
void
executorch_program_set_allow_native_code (ExecutorchProgram *program, gboolean allow)
{
  g_return_if_fail (EXECUTORCH_IS_PROGRAM (program));

  allow = !!allow;
  if (program->allow_native_code == allow)
    return;
  program->allow_native_code = allow;
  if (program->engine != NULL)
    _et_program_set_allow_native_code (program->engine, allow);
  g_object_notify_by_pspec (G_OBJECT (program), properties[PROP_ALLOW_NATIVE_CODE]);
}

/**
 * executorch_program_get_allow_native_code:
 * @program: a program
 *
 * Gets [property@Executorch.Program:allow-native-code].
 *
 * Returns: whether delegates may run native code the program carries
 *
 * Since: 1.0
 */
gboolean
executorch_program_get_allow_native_code (ExecutorchProgram *program)
{
  g_return_val_if_fail (EXECUTORCH_IS_PROGRAM (program), FALSE);

  return program->allow_native_code;
}
