/* executorch-bundled-program.c: a program bundled with test cases (.bpte)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-private.h"

#include <math.h>
#include <string.h>

/**
 * ExecutorchBundledProgram:
 *
 * A bundled program (`.bpte`, made by upstream's
 * `executorch.devtools.bundled_program`): a complete program plus, for
 * some of its methods, test cases of inputs and expected outputs.
 *
 * [method@Executorch.BundledProgram.verify] runs one test case and checks
 * the method's outputs against the expected ones the way upstream's
 * `verify_method_outputs` does: same element type, sizes and dim order;
 * Float, Double and Half within `atol + rtol * |expected|` (NaN equals NaN),
 * everything else byte for byte.
 *
 * ```c
 * g_autoptr(ExecutorchBundledProgram) bundled =
 *   executorch_bundled_program_new_from_file ("model.bpte", &error);
 * for (guint i = 0; i < executorch_bundled_program_get_n_test_cases (bundled, "forward"); i++)
 *   if (!executorch_bundled_program_verify (bundled, "forward", i, EXECUTORCH_BUNDLED_DEFAULT_RTOL,
 *                                           EXECUTORCH_BUNDLED_DEFAULT_ATOL, &error))
 *     g_print ("case %u: %s\n", i, error->message);
 * ```
 *
 * The file is untrusted input: every offset and size in it is checked,
 * and a damaged file fails to load with %EXECUTORCH_ERROR_INVALID_PROGRAM.
 * A bundled program keeps one loaded method per method it verifies; it is
 * used by one thread at a time.
 *
 * It may also be built from its properties, with g_object_new() in C,
 * `Executorch.BundledProgram(path="model.bpte")` in Python or
 * `new Executorch.BundledProgram({path: "model.bpte"})` in GJS: it loads
 * as it is constructed.  If the load fails, g_initable_init() returns the
 * error, [method@Executorch.BundledProgram.verify] reports it, and the
 * other functions log a warning with it.
 *
 * Since: 1.0
 */

struct _ExecutorchBundledProgram
{
  GObject parent_instance;

  char *path;
  GBytes *file;
  GError *init_error; /* why the load in constructed failed */

  EtBundled *engine;
  ExecutorchProgram *program;
  GHashTable *methods; /* name -> ExecutorchMethod */
};

enum
{
  PROP_0,
  PROP_PATH,
  PROP_BYTES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void executorch_bundled_program_initable_iface_init (GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (ExecutorchBundledProgram, executorch_bundled_program, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, executorch_bundled_program_initable_iface_init))

static void
executorch_bundled_program_dispose (GObject *object)
{
  ExecutorchBundledProgram *self = EXECUTORCH_BUNDLED_PROGRAM (object);

  g_clear_pointer (&self->methods, g_hash_table_unref);
  g_clear_object (&self->program);

  G_OBJECT_CLASS (executorch_bundled_program_parent_class)->dispose (object);
}

static void
executorch_bundled_program_finalize (GObject *object)
{
  ExecutorchBundledProgram *self = EXECUTORCH_BUNDLED_PROGRAM (object);

  g_clear_pointer (&self->engine, _et_bundled_free);
  g_clear_pointer (&self->file, g_bytes_unref);
  g_clear_error (&self->init_error);
  g_free (self->path);

  G_OBJECT_CLASS (executorch_bundled_program_parent_class)->finalize (object);
}

static void
executorch_bundled_program_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  ExecutorchBundledProgram *self = EXECUTORCH_BUNDLED_PROGRAM (object);

  switch (prop_id)
    {
      case PROP_PATH: g_value_set_string (value, self->path); break;
      case PROP_BYTES: g_value_set_boxed (value, self->file); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_bundled_program_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  ExecutorchBundledProgram *self = EXECUTORCH_BUNDLED_PROGRAM (object);

  switch (prop_id)
    {
      case PROP_PATH:
        g_free (self->path);
        self->path = g_value_dup_string (value);
        break;
      case PROP_BYTES:
        g_clear_pointer (&self->file, g_bytes_unref);
        self->file = g_value_dup_boxed (value);
        break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* Reads the bundle in self->file and loads the program inside it. */
static gboolean
load_bundle (ExecutorchBundledProgram *self, GError **error)
{
  self->engine = _et_bundled_load (self->file, error);
  if (self->engine == NULL)
    {
      _et_prefix_error (error, "[bundled program][load] ");
      return FALSE;
    }
  self->program = executorch_program_new_from_bytes (self->engine->program, error);
  if (self->program == NULL)
    {
      _et_prefix_error (error, "[bundled program] the embedded program: ");
      return FALSE;
    }
  return TRUE;
}

static gboolean
load (ExecutorchBundledProgram *self, GError **error)
{
  if ((self->path == NULL) == (self->file == NULL))
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "%s",
                     self->path == NULL ? "the bundled program has nothing to load: set its “path” or its “bytes”"
                                        : "the bundled program has both a “path” and “bytes”: set only one of them");
      return FALSE;
    }
  if (self->path == NULL)
    return load_bundle (self, error);

  /* The map's errors name the file already. */
  self->file = _executorch_map_file (self->path, error);
  if (self->file == NULL)
    return FALSE;
  if (!load_bundle (self, error))
    {
      g_autofree char *shown = g_filename_display_name (self->path);
      _et_prefix_error (error, "%s: ", shown);
      return FALSE;
    }
  return TRUE;
}

/* Loading here makes a bundled program built from its properties alone
 * (PyGObject's and GJS's constructors never call g_initable_init()) as
 * usable as one from the constructors; a failure is kept for
 * g_initable_init() and the methods to report. */
static void
executorch_bundled_program_constructed (GObject *object)
{
  ExecutorchBundledProgram *self = EXECUTORCH_BUNDLED_PROGRAM (object);

  G_OBJECT_CLASS (executorch_bundled_program_parent_class)->constructed (object);

  load (self, &self->init_error);
}

static gboolean
executorch_bundled_program_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  return _executorch_init_result (EXECUTORCH_BUNDLED_PROGRAM (initable)->init_error, error);
}

static void
executorch_bundled_program_initable_iface_init (GInitableIface *iface)
{
  iface->init = executorch_bundled_program_initable_init;
}

static void
executorch_bundled_program_class_init (ExecutorchBundledProgramClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = executorch_bundled_program_constructed;
  object_class->dispose = executorch_bundled_program_dispose;
  object_class->finalize = executorch_bundled_program_finalize;
  object_class->get_property = executorch_bundled_program_get_property;
  object_class->set_property = executorch_bundled_program_set_property;

  /**
   * ExecutorchBundledProgram:path: (type filename)
   *
   * The `.bpte` file to load, memory-mapped.  Exactly one of this and
   * [property@Executorch.BundledProgram:bytes] is set.
   *
   * Since: 1.0
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL,
                                               G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * ExecutorchBundledProgram:bytes:
   *
   * The contents of a `.bpte` file, referenced rather than copied.
   *
   * Since: 1.0
   */
  properties[PROP_BYTES] = g_param_spec_boxed ("bytes", NULL, NULL, G_TYPE_BYTES,
                                               G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
executorch_bundled_program_init (ExecutorchBundledProgram *self)
{
  self->methods = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
}

/* A bundled program built with g_object_new() may have failed to load
 * without anyone asking g_initable_init(); functions without a GError
 * log why as a warning. */
static gboolean
warn_unless_loaded (ExecutorchBundledProgram *self, const char *function)
{
  if (self->engine != NULL)
    return TRUE;
  g_warning ("%s: the bundled program did not load: %s", function, self->init_error->message);
  return FALSE;
}

/**
 * executorch_bundled_program_new_from_bytes:
 * @data: the whole `.bpte` file
 * @error: return location for a #GError, or %NULL
 *
 * Reads a bundled program and loads the program inside it.  @data is
 * referenced, not copied (the embedded program is copied only when it is
 * not suitably aligned).
 *
 * Returns: (transfer full) (nullable): the bundled program, or %NULL with
 *   @error set (%EXECUTORCH_ERROR_INVALID_PROGRAM for a damaged file, or
 *   any error of [ctor@Executorch.Program.new_from_bytes])
 *
 * Since: 1.0
 */
ExecutorchBundledProgram *
executorch_bundled_program_new_from_bytes (GBytes *data, GError **error)
{
  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_initable_new (EXECUTORCH_TYPE_BUNDLED_PROGRAM, NULL, error, "bytes", data, NULL);
}

/**
 * executorch_bundled_program_new_from_file:
 * @path: (type filename): a `.bpte` file
 * @error: return location for a #GError, or %NULL
 *
 * Maps @path and reads it as [ctor@Executorch.BundledProgram.new_from_bytes]
 * does.
 *
 * Returns: (transfer full) (nullable): the bundled program, or %NULL with
 *   @error set, its message starting with @path: %G_IO_ERROR_NOT_FOUND
 *   when the file does not exist, another #GIOErrorEnum code when it
 *   cannot be read, or an error of
 *   [ctor@Executorch.BundledProgram.new_from_bytes]
 *
 * Since: 1.0
 */
ExecutorchBundledProgram *
executorch_bundled_program_new_from_file (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_initable_new (EXECUTORCH_TYPE_BUNDLED_PROGRAM, NULL, error, "path", path, NULL);
}

/**
 * executorch_bundled_program_get_program:
 * @bundled: a bundled program
 *
 * Gets the program embedded in the bundle. It is a plain
 * [class@Executorch.Program]: load its methods with
 * [method@Executorch.Program.load_method] as for any other program.
 *
 * Returns: (transfer none) (nullable): the embedded program; owned by
 *   @bundled.  %NULL, with a warning giving the reason, when @bundled
 *   failed to load.
 *
 * Since: 1.0
 */
ExecutorchProgram *
executorch_bundled_program_get_program (ExecutorchBundledProgram *bundled)
{
  g_return_val_if_fail (EXECUTORCH_IS_BUNDLED_PROGRAM (bundled), NULL);

  if (!warn_unless_loaded (bundled, G_STRFUNC))
    return NULL;
  return bundled->program;
}

/**
 * executorch_bundled_program_list_methods:
 * @bundled: a bundled program
 *
 * Lists the methods of the embedded program that have bundled test cases.
 * Free the result with g_strfreev().
 *
 * Returns: (transfer full) (array zero-terminated=1): the methods that have
 *   test cases, in file order (none, with a warning giving the reason, when
 *   @bundled failed to load)
 *
 * Since: 1.0
 */
char **
executorch_bundled_program_list_methods (ExecutorchBundledProgram *bundled)
{
  char **names;

  g_return_val_if_fail (EXECUTORCH_IS_BUNDLED_PROGRAM (bundled), NULL);

  if (!warn_unless_loaded (bundled, G_STRFUNC))
    return g_new0 (char *, 1);
  names = g_new0 (char *, bundled->engine->n_suites + 1);
  for (guint i = 0; i < bundled->engine->n_suites; i++)
    names[i] = g_strdup (bundled->engine->suites[i].method);
  return names;
}

static const EtBundledSuite *
find_suite (ExecutorchBundledProgram *self, const char *name)
{
  for (guint i = 0; i < self->engine->n_suites; i++)
    if (strcmp (self->engine->suites[i].method, name) == 0)
      return &self->engine->suites[i];
  return NULL;
}

/**
 * executorch_bundled_program_get_n_test_cases:
 * @bundled: a bundled program
 * @method_name: a method's name
 *
 * Counts the test cases bundled for one method. Each case holds the inputs to
 * bind and the outputs the method is expected to produce;
 * [method@Executorch.BundledProgram.verify] runs one.
 *
 * Returns: how many test cases @method_name has (0 for a method without
 *   any, or one the program does not have)
 *
 * Since: 1.0
 */
guint
executorch_bundled_program_get_n_test_cases (ExecutorchBundledProgram *bundled, const char *method_name)
{
  const EtBundledSuite *suite;

  g_return_val_if_fail (EXECUTORCH_IS_BUNDLED_PROGRAM (bundled), 0);
  g_return_val_if_fail (method_name != NULL, 0);

  if (!warn_unless_loaded (bundled, G_STRFUNC))
    return 0;
  suite = find_suite (bundled, method_name);
  return suite != NULL ? suite->n_cases : 0;
}

/* Bundled outputs compare as any tensors do (executorch_tensor_compare);
 * a mismatch is NOT_FOUND, as upstream's verification reports it. */
static gboolean
compare_output (ExecutorchMethod *method, guint index, const EtBundledValue *want, double rtol, double atol,
                GError **error)
{
  g_autoptr (ExecutorchTensor) got = NULL;
  g_autoptr (ExecutorchTensor) expected = NULL;
  g_autoptr (GBytes) expected_bytes = NULL;
  gint64 sizes[ET_MAX_DIMS];

  if (want->tag != ET_VALUE_TENSOR)
    {
      _et_set_error (error, ET_ERROR_NOT_SUPPORTED,
                     "expected output %u is not a tensor; only tensor outputs can be verified", index);
      return FALSE;
    }
  if (executorch_method_get_output_kind (method, index) != EXECUTORCH_VALUE_KIND_TENSOR)
    {
      _et_set_error (error, ET_ERROR_NOT_FOUND, "output %u is not a tensor, but a tensor is expected", index);
      return FALSE;
    }
  got = executorch_method_get_output (method, index, error);
  if (got == NULL)
    return FALSE;
  for (guint d = 0; d < want->ndim; d++)
    sizes[d] = want->sizes[d];
  /* The expected bytes stay in the file the bundled program holds. */
  expected_bytes = g_bytes_new_static (want->data, want->nbytes);
  expected = executorch_tensor_new_with_dim_order ((ExecutorchScalarType) want->scalar_type, sizes, want->ndim,
                                                   want->dim_order, want->ndim, expected_bytes, error);
  if (expected == NULL || !executorch_tensor_compare (got, expected, rtol, atol, error))
    {
      _et_prefix_error (error, "output %u: ", index);
      if (error != NULL && *error != NULL && (*error)->domain == EXECUTORCH_ERROR &&
          (*error)->code == EXECUTORCH_ERROR_INVALID_ARGUMENT)
        (*error)->code = EXECUTORCH_ERROR_NOT_FOUND;
      return FALSE;
    }
  return TRUE;
}

static gboolean
bind_input (ExecutorchBundledProgram *self, ExecutorchMethod *method, guint index, const EtBundledValue *value,
            GError **error)
{
  switch (value->tag)
    {
      case ET_VALUE_TENSOR:
        {
          const guint8 *base = g_bytes_get_data (self->engine->file, NULL);
          g_autoptr (GBytes) data =
              value->nbytes > 0
                  ? g_bytes_new_from_bytes (self->engine->file, (gsize) (value->data - base), value->nbytes)
                  : g_bytes_new (NULL, 0);
          g_autoptr (ExecutorchTensor) tensor =
              executorch_tensor_new_with_dim_order ((ExecutorchScalarType) value->scalar_type, value->sizes,
                                                    value->ndim, value->dim_order, value->ndim, data, error);
          return tensor != NULL && executorch_method_set_input (method, index, tensor, error);
        }
      case ET_VALUE_INT: return executorch_method_set_input_int (method, index, value->int_value, error);
      case ET_VALUE_BOOL: return executorch_method_set_input_bool (method, index, value->bool_value, error);
      case ET_VALUE_DOUBLE: return executorch_method_set_input_double (method, index, value->double_value, error);
      default: _et_set_error (error, ET_ERROR_NOT_SUPPORTED, "input %u has an unsupported kind", index); return FALSE;
    }
}

/**
 * executorch_bundled_program_verify:
 * @bundled: a bundled program
 * @method_name: the method to test
 * @index: the test case, below [method@Executorch.BundledProgram.get_n_test_cases]
 * @rtol: relative tolerance for floating-point outputs
 *   (%EXECUTORCH_BUNDLED_DEFAULT_RTOL is upstream's)
 * @atol: absolute tolerance (%EXECUTORCH_BUNDLED_DEFAULT_ATOL is upstream's)
 * @error: return location for a #GError, or %NULL
 *
 * Binds the test case's inputs to @method_name (loaded on first use and
 * kept), executes it and compares every output with the expected one.
 *
 * Returns: %TRUE when every output matches; %FALSE with @error set:
 *   %EXECUTORCH_ERROR_NOT_FOUND for a mismatch (the message says where),
 *   %EXECUTORCH_ERROR_INVALID_ARGUMENT for an unknown method or case,
 *   %EXECUTORCH_ERROR_NOT_SUPPORTED when the case expects no outputs or
 *   an output other than a tensor, or the error of loading (@bundled's
 *   own, when it was built with g_object_new() and failed to load) or
 *   executing
 *
 * Since: 1.0
 */
gboolean
executorch_bundled_program_verify (ExecutorchBundledProgram *bundled, const char *method_name, guint index,
                                   gdouble rtol, gdouble atol, GError **error)
{
  const EtBundledSuite *suite;
  const EtBundledCase *test;
  ExecutorchMethod *method;
  guint n_outputs;

  g_return_val_if_fail (EXECUTORCH_IS_BUNDLED_PROGRAM (bundled), FALSE);
  g_return_val_if_fail (method_name != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (bundled->engine == NULL)
    {
      g_propagate_error (error, g_error_copy (bundled->init_error));
      return FALSE;
    }
  suite = find_suite (bundled, method_name);
  if (suite == NULL || index >= suite->n_cases)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "[bundled program][verify] method %s has no test case %u",
                     method_name, index);
      return FALSE;
    }
  test = &suite->cases[index];
  if (test->n_expected == 0)
    {
      _et_set_error (error, ET_ERROR_NOT_SUPPORTED, "[bundled program][verify] %s case %u expects no outputs",
                     method_name, index);
      return FALSE;
    }
  method = g_hash_table_lookup (bundled->methods, method_name);
  if (method == NULL)
    {
      method = executorch_program_load_method (bundled->program, method_name, error);
      if (method == NULL)
        return FALSE;
      g_hash_table_insert (bundled->methods, g_strdup (method_name), method);
    }
  if (test->n_inputs != executorch_method_get_n_inputs (method))
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                     "[bundled program][verify] %s case %u has %u inputs, the method takes %u", method_name, index,
                     test->n_inputs, executorch_method_get_n_inputs (method));
      return FALSE;
    }
  for (guint i = 0; i < test->n_inputs; i++)
    if (!bind_input (bundled, method, i, &test->inputs[i], error))
      {
        _et_prefix_error (error, "[bundled program][verify] %s case %u: ", method_name, index);
        return FALSE;
      }
  if (!executorch_method_execute (method, NULL, error))
    return FALSE;
  n_outputs = executorch_method_get_n_outputs (method);
  if (n_outputs != test->n_expected)
    {
      _et_set_error (error, ET_ERROR_NOT_FOUND,
                     "[bundled program][verify] %s case %u expects %u outputs, the method has %u", method_name, index,
                     test->n_expected, n_outputs);
      return FALSE;
    }
  for (guint i = 0; i < n_outputs; i++)
    if (!compare_output (method, i, &test->expected[i], rtol, atol, error))
      {
        _et_prefix_error (error, "[bundled program][verify] %s case %u: ", method_name, index);
        return FALSE;
      }
  return TRUE;
}
