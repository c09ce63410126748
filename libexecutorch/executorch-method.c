/* executorch-method.c: a loaded method, ready to execute
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-private.h"

#include <stdlib.h>
#include <string.h>

/**
 * ExecutorchMethod:
 *
 * A method of a [class@Executorch.Program], loaded and ready to execute:
 * it owns the method's planned memory, its resolved kernels and its
 * delegate handles.  All the mutable state of an inference lives here,
 * and carries over between executions (a model with a mutable buffer,
 * such as a KV cache, sees what the previous execution left).
 *
 * Bind every input with [method@Executorch.Method.set_input] (or the
 * scalar variants), call [method@Executorch.Method.execute], then read the
 * outputs with [method@Executorch.Method.get_output].  Output tensors are
 * views of the method's memory: their contents change on the next
 * execution, so use [method@Executorch.Tensor.copy] to keep one.
 * [method@Executorch.Method.run] does all three in one call.
 *
 * ```c
 * g_autoptr(ExecutorchMethod) method = executorch_program_load_method (program, "forward", &error);
 * ExecutorchTensor *inputs[] = { a, b };
 * g_autoptr(GPtrArray) outputs = executorch_method_run (method, inputs, 2, NULL, &error);
 * g_autofree float *values =
 *   executorch_tensor_get_floats (g_ptr_array_index (outputs, 0), NULL, &error);
 * ```
 *
 * A method is used by one thread at a time; a second execution while one
 * is running fails with %EXECUTORCH_ERROR_INVALID_STATE.
 * [method@Executorch.Method.execute_async] runs the execution in a worker
 * thread.  A method keeps its program alive.
 *
 * A method may also be built from its properties, with g_object_new() in
 * C, `Executorch.Method(program=p, name="forward")` in Python or
 * `new Executorch.Method({program: p, name: "forward"})` in GJS: it loads
 * as it is constructed.  If the load fails, g_initable_init() returns the
 * error, the functions that take a #GError report it, and the others log
 * a warning with it.
 *
 * Since: 1.0
 */

struct _ExecutorchMethod
{
  GObject parent_instance;

  ExecutorchProgram *program;
  char *name;

  GError *init_error; /* why the load in constructed failed */
  EtMethod *engine;
  ExecutorchMethodInfo *info;

  gboolean profiling_at_load;
  EtProfiling *profiling; /* NULL: not profiled */
};

enum
{
  PROP_0,
  PROP_PROGRAM,
  PROP_NAME,
  PROP_PROFILING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void executorch_method_initable_iface_init (GInitableIface *iface);
static void executorch_method_constructed (GObject *object);

G_DEFINE_FINAL_TYPE_WITH_CODE (ExecutorchMethod, executorch_method, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, executorch_method_initable_iface_init))

static void
executorch_method_dispose (GObject *object)
{
  ExecutorchMethod *self = EXECUTORCH_METHOD (object);

  g_clear_object (&self->info);

  G_OBJECT_CLASS (executorch_method_parent_class)->dispose (object);
}

static void
executorch_method_finalize (GObject *object)
{
  ExecutorchMethod *self = EXECUTORCH_METHOD (object);

  /* The engine goes first, the program last. */
  g_clear_pointer (&self->engine, _et_method_free);
  g_clear_pointer (&self->profiling, _et_profiling_free);
  g_clear_object (&self->program);
  g_clear_error (&self->init_error);
  g_free (self->name);

  G_OBJECT_CLASS (executorch_method_parent_class)->finalize (object);
}

static void
executorch_method_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  ExecutorchMethod *self = EXECUTORCH_METHOD (object);

  switch (prop_id)
    {
      case PROP_PROGRAM: g_value_set_object (value, self->program); break;
      case PROP_NAME: g_value_set_string (value, self->name); break;
      case PROP_PROFILING: g_value_set_boolean (value, self->profiling != NULL); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_method_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  ExecutorchMethod *self = EXECUTORCH_METHOD (object);

  switch (prop_id)
    {
      case PROP_PROGRAM:
        g_clear_object (&self->program);
        self->program = g_value_dup_object (value);
        break;
      case PROP_NAME:
        g_free (self->name);
        self->name = g_value_dup_string (value);
        break;
      case PROP_PROFILING: self->profiling_at_load = g_value_get_boolean (value); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_method_class_init (ExecutorchMethodClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = executorch_method_constructed;
  object_class->dispose = executorch_method_dispose;
  object_class->finalize = executorch_method_finalize;
  object_class->get_property = executorch_method_get_property;
  object_class->set_property = executorch_method_set_property;

  /**
   * ExecutorchMethod:program:
   *
   * The program the method comes from; the method keeps it alive.
   *
   * Since: 1.0
   */
  properties[PROP_PROGRAM] = g_param_spec_object ("program", NULL, NULL, EXECUTORCH_TYPE_PROGRAM,
                                                  G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * ExecutorchMethod:name:
   *
   * The method's name in its program.
   *
   * Since: 1.0
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, "forward",
                                               G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * ExecutorchMethod:profiling:
   *
   * Whether the method records profile events.  Set at construction, the
   * method's load is recorded too; see
   * [method@Executorch.Method.enable_profiling].
   *
   * Since: 1.0
   */
  properties[PROP_PROFILING] =
      g_param_spec_boolean ("profiling", NULL, NULL, FALSE,
                            G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
executorch_method_init (ExecutorchMethod *self)
{
}

static gboolean
load (ExecutorchMethod *self, GError **error)
{
  EtProgram *program;

  if (self->program == NULL)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "%s",
                     "the method has no program to load from: set its “program”");
      return FALSE;
    }
  program = _executorch_program_check_loaded (self->program, error);
  if (program == NULL)
    return FALSE;
  if (self->name == NULL)
    self->name = g_strdup ("forward");
  if (self->profiling_at_load && (self->profiling = _et_profiling_new (self->name, error)) == NULL)
    return FALSE;
  self->engine = _et_method_load_full (program, self->name,
                                       self->profiling != NULL ? _et_profiling_tracer (self->profiling) : NULL,
                                       executorch_program_get_max_memory (self->program), error);
  if (self->engine == NULL)
    return FALSE;
  self->info = _executorch_method_info_new (_et_method_meta (self->engine));
  return TRUE;
}

/* As for a program: loading here makes a method built from properties
 * alone (PyGObject's and GJS's constructors never call g_initable_init())
 * as usable as one from g_initable_new(), and a failure is kept for
 * g_initable_init() and the methods to report. */
static void
executorch_method_constructed (GObject *object)
{
  ExecutorchMethod *self = EXECUTORCH_METHOD (object);

  G_OBJECT_CLASS (executorch_method_parent_class)->constructed (object);

  load (self, &self->init_error);
}

static gboolean
executorch_method_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  return _executorch_init_result (EXECUTORCH_METHOD (initable)->init_error, error);
}

static void
executorch_method_initable_iface_init (GInitableIface *iface)
{
  iface->init = executorch_method_initable_init;
}

/* A method built with g_object_new() may have failed to load without
 * anyone asking g_initable_init(): functions that take a GError report
 * the load's error (CHECK_LOADED_OR_ERROR), the others log it as a
 * warning (CHECK_LOADED). */
static gboolean
check_loaded (ExecutorchMethod *self, GError **error)
{
  if (self->engine != NULL)
    return TRUE;
  g_propagate_error (error, g_error_copy (self->init_error));
  return FALSE;
}

static gboolean
warn_unless_loaded (ExecutorchMethod *self, const char *function)
{
  if (self->engine != NULL)
    return TRUE;
  g_warning ("%s: the method did not load: %s", function, self->init_error->message);
  return FALSE;
}

#define CHECK_LOADED(self, val)                              \
  G_STMT_START                                               \
  {                                                          \
    g_return_val_if_fail (EXECUTORCH_IS_METHOD (self), val); \
    if (!warn_unless_loaded ((self), G_STRFUNC))             \
      return val;                                            \
  }                                                          \
  G_STMT_END

#define CHECK_LOADED_OR_ERROR(self, error, val)                      \
  G_STMT_START                                                       \
  {                                                                  \
    g_return_val_if_fail (EXECUTORCH_IS_METHOD (self), val);         \
    g_return_val_if_fail ((error) == NULL || *(error) == NULL, val); \
    if (!check_loaded ((self), (error)))                             \
      return val;                                                    \
  }                                                                  \
  G_STMT_END

static gboolean set_scalar (ExecutorchMethod *method, guint index, const EtValue *value, GError **error);

/**
 * executorch_method_get_name:
 * @method: a method
 *
 * Gets the name the method was loaded by, such as "forward". The string lives
 * as long as @method.
 *
 * Returns: (transfer none): the method's name; owned by @method
 *
 * Since: 1.0
 */
const char *
executorch_method_get_name (ExecutorchMethod *method)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD (method), NULL);

  return method->name;
}

/**
 * executorch_method_get_info:
 * @method: a method
 *
 * Gets the description of the method: its inputs and outputs, its planned
 * buffers and its instructions. The info stays valid as long as @method; it
 * does not change on execution.
 *
 * Returns: (transfer none) (nullable): the description of the method
 *   (inputs, outputs, planned memory, ...); owned by @method.  %NULL, with
 *   a warning giving the reason, for a method that failed to load.
 *
 * Since: 1.0
 */
ExecutorchMethodInfo *
executorch_method_get_info (ExecutorchMethod *method)
{
  CHECK_LOADED (method, NULL);

  return method->info;
}

/**
 * executorch_method_set_max_instructions:
 * @method: a method
 * @max_instructions: instructions, or 0 for the default (10 million)
 *
 * Sets the instruction budget: the most instructions one execution may
 * run.  An execution that would run more (a program that loops forever
 * through a jump-false back edge, say) stops with
 * %EXECUTORCH_ERROR_INVALID_PROGRAM.  To stop an execution by time
 * instead, cancel the #GCancellable given to
 * [method@Executorch.Method.execute].
 *
 * Since: 1.0
 */
void
executorch_method_set_max_instructions (ExecutorchMethod *method, guint64 max_instructions)
{
  g_return_if_fail (EXECUTORCH_IS_METHOD (method));

  if (!warn_unless_loaded (method, G_STRFUNC))
    return;
  _et_method_set_max_instructions (method->engine, max_instructions);
}

/**
 * executorch_method_get_max_instructions:
 * @method: a method
 *
 * Gets the instruction budget: the most instructions one execution may run
 * before it stops with %EXECUTORCH_ERROR_INVALID_PROGRAM.
 *
 * Returns: the instruction budget of one execution (see
 *   [method@Executorch.Method.set_max_instructions])
 *
 * Since: 1.0
 */
guint64
executorch_method_get_max_instructions (ExecutorchMethod *method)
{
  CHECK_LOADED (method, 0);

  return _et_method_get_max_instructions (method->engine);
}

/**
 * executorch_method_get_n_inputs:
 * @method: a method
 *
 * Gets the number of inputs. Every input must be bound (with
 * [method@Executorch.Method.set_input] or one of its siblings) before the
 * first execution.
 *
 * Returns: the number of inputs to bind before executing
 *
 * Since: 1.0
 */
guint
executorch_method_get_n_inputs (ExecutorchMethod *method)
{
  CHECK_LOADED (method, 0);

  return _et_method_n_inputs (method->engine);
}

/**
 * executorch_method_get_n_outputs:
 * @method: a method
 *
 * Gets the number of outputs an execution produces. Read them with
 * [method@Executorch.Method.get_output] and its siblings.
 *
 * Returns: the number of outputs
 *
 * Since: 1.0
 */
guint
executorch_method_get_n_outputs (ExecutorchMethod *method)
{
  CHECK_LOADED (method, 0);

  return _et_method_n_outputs (method->engine);
}

/**
 * executorch_method_set_input:
 * @method: a method
 * @index: the input's position
 * @tensor: (nullable): the value, in host or device memory; %NULL for an
 *   input of kind %EXECUTORCH_VALUE_KIND_NONE
 * @error: return location for a #GError, or %NULL
 *
 * Binds a tensor to a tensor input (or marks a None input as set).  The tensor must have the input's
 * element type and rank; a static input also needs its exact sizes, a
 * dynamic one accepts sizes up to its bounds.  When the tensor's dim
 * order differs from the input's, the elements are re-laid out.
 *
 * A bound input stays the method's input for every execution until it is
 * bound again: bind once, execute many times.
 *
 * Planned inputs are copied into the method's memory now.  Unplanned
 * inputs use the tensor's memory directly: the method keeps a reference on
 * it until the input is bound again or the method is freed, so the caller
 * has nothing to keep alive.
 *
 * Device memory: a host tensor bound to an input the program planned on a
 * device (such as CUDA) is copied there by that device's allocator; a
 * tensor already on the device is copied device to device, or, when the
 * input is not planned, read in place with no copy at all.
 *
 * Returns: %TRUE on success; %FALSE with @error set:
 *   %EXECUTORCH_ERROR_INVALID_ARGUMENT for a bad index, type or shape,
 *   %EXECUTORCH_ERROR_NOT_SUPPORTED for a tensor whose memory the program
 *   cannot read: an unplanned input on another device than the program
 *   expects, or device memory in another dim order,
 *   %EXECUTORCH_ERROR_INVALID_STATE while the method executes
 *
 * Since: 1.0
 */
gboolean
executorch_method_set_input (ExecutorchMethod *method, guint index, ExecutorchTensor *tensor, GError **error)
{
  ExecutorchDevice *device;
  g_autoptr (GBytes) keep = NULL;
  const gint64 *sizes;
  gsize n_dims, n_dim_order;
  EtInput input;

  CHECK_LOADED_OR_ERROR (method, error, FALSE);
  g_return_val_if_fail (tensor == NULL || EXECUTORCH_IS_TENSOR (tensor), FALSE);

  if (tensor == NULL)
    {
      EtValue none = { .tag = ET_VALUE_NONE };
      return set_scalar (method, index, &none, error);
    }
  device = executorch_tensor_get_device (tensor);
  sizes = executorch_tensor_get_sizes (tensor, &n_dims);
  if (n_dims > ET_MAX_DIMS)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                     "input %u of method %s: the tensor has %" G_GSIZE_FORMAT " dimensions, more than %d", index,
                     method->name, n_dims, ET_MAX_DIMS);
      return FALSE;
    }
  input = (EtInput){
    .scalar_type = executorch_tensor_get_scalar_type (tensor),
    .ndim = (uint32_t) n_dims,
    .sizes = sizes,
    .dim_order = executorch_tensor_get_dim_order (tensor, &n_dim_order),
    .data = _executorch_tensor_peek_data (tensor),
    .nbytes = executorch_tensor_get_nbytes (tensor),
    .device_type = executorch_device_get_device_type (device),
    .device_index = executorch_device_get_index (device),
  };
  /* What keeps the tensor's memory alive and unchanged: its own bytes, or
   * for device memory the tensor itself.  A view of memory that changes
   * (another method's output) has none, and is copied when read. */
  if (input.device_type != EXECUTORCH_DEVICE_TYPE_CPU)
    keep = g_bytes_new_with_free_func (input.data, input.nbytes, g_object_unref, g_object_ref (tensor));
  else if (_executorch_tensor_peek_bytes (tensor) != NULL)
    keep = g_bytes_ref (_executorch_tensor_peek_bytes (tensor));
  input.keep = keep;
  return _et_method_bind_input (method->engine, index, &input, error);
}

static gboolean
set_scalar (ExecutorchMethod *method, guint index, const EtValue *value, GError **error)
{
  return _et_method_set_input_scalar (method->engine, index, value, error);
}

/**
 * executorch_method_set_input_int:
 * @method: a method
 * @index: the input's position
 * @value: the value
 * @error: return location for a #GError, or %NULL
 *
 * Sets an Int input.  The value was baked into the program when it was
 * traced: it must equal [method@Executorch.ValueInfo.get_int_value].
 *
 * Returns: %TRUE on success; %FALSE with @error set to
 *   %EXECUTORCH_ERROR_INVALID_ARGUMENT when the input is not an Int or the
 *   value differs from the traced one
 *
 * Since: 1.0
 */
gboolean
executorch_method_set_input_int (ExecutorchMethod *method, guint index, gint64 value, GError **error)
{
  EtValue v = { .tag = ET_VALUE_INT, .u.int_value = value };

  CHECK_LOADED_OR_ERROR (method, error, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return set_scalar (method, index, &v, error);
}

/**
 * executorch_method_set_input_double:
 * @method: a method
 * @index: the input's position
 * @value: the value
 * @error: return location for a #GError, or %NULL
 *
 * Sets a Double input.  The value must match the traced one within a
 * small tolerance.
 *
 * Returns: %TRUE on success; %FALSE with @error set to
 *   %EXECUTORCH_ERROR_INVALID_ARGUMENT when the input is not a Double or
 *   the value differs from the traced one
 *
 * Since: 1.0
 */
gboolean
executorch_method_set_input_double (ExecutorchMethod *method, guint index, gdouble value, GError **error)
{
  EtValue v = { .tag = ET_VALUE_DOUBLE, .u.double_value = value };

  CHECK_LOADED_OR_ERROR (method, error, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return set_scalar (method, index, &v, error);
}

/**
 * executorch_method_set_input_bool:
 * @method: a method
 * @index: the input's position
 * @value: the value
 * @error: return location for a #GError, or %NULL
 *
 * Sets a Bool input.  The value must equal the traced one.
 *
 * Returns: %TRUE on success; %FALSE with @error set to
 *   %EXECUTORCH_ERROR_INVALID_ARGUMENT when the input is not a Bool or the
 *   value differs from the traced one
 *
 * Since: 1.0
 */
gboolean
executorch_method_set_input_bool (ExecutorchMethod *method, guint index, gboolean value, GError **error)
{
  EtValue v = { .tag = ET_VALUE_BOOL, .u.bool_value = value != FALSE };

  CHECK_LOADED_OR_ERROR (method, error, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return set_scalar (method, index, &v, error);
}

static gboolean
execute_claimed (ExecutorchMethod *self, GCancellable *cancellable, GError **error)
{
  if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
    {
      /* The engine's words when it stops between instructions. */
      _et_set_error_domain (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "execution was cancelled");
      return FALSE;
    }
  return _et_method_execute_claimed (self->engine, cancellable, error);
}

/**
 * executorch_method_execute:
 * @method: a method
 * @cancellable: (nullable): a #GCancellable, checked between instructions
 * @error: return location for a #GError, or %NULL
 *
 * Executes the method once, blocking until it finishes.  Every input must
 * be set.  Outputs from earlier executions (views) now show the new
 * results.
 *
 * Returns: %TRUE on success; %FALSE with @error set:
 *   %EXECUTORCH_ERROR_INVALID_ARGUMENT when an input is not set,
 *   %EXECUTORCH_ERROR_INVALID_STATE when the method is already executing,
 *   %G_IO_ERROR_CANCELLED when @cancellable was cancelled,
 *   %EXECUTORCH_ERROR_INVALID_PROGRAM when the instruction budget
 *   ([method@Executorch.Method.set_max_instructions]) runs out, or the
 *   failure of a kernel or backend
 *
 * Since: 1.0
 */
gboolean
executorch_method_execute (ExecutorchMethod *method, GCancellable *cancellable, GError **error)
{
  gboolean ok;

  CHECK_LOADED_OR_ERROR (method, error, FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!_et_method_claim (method->engine, error))
    return FALSE;
  ok = execute_claimed (method, cancellable, error);
  _et_method_release (method->engine);
  return ok;
}

typedef struct
{
  GAsyncReadyCallback callback;
  gpointer user_data;
} AsyncData;

static void
execute_async_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncData *data = user_data;

  _et_method_release (EXECUTORCH_METHOD (source)->engine);
  if (data->callback != NULL)
    data->callback (source, result, data->user_data);
  g_free (data);
}

static void
execute_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  ExecutorchMethod *self = source_object;
  GError *error = NULL;

  if (execute_claimed (self, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * executorch_method_execute_async:
 * @method: a method
 * @cancellable: (nullable): a #GCancellable, checked between instructions
 * @callback: (scope async) (nullable): called when the execution finishes
 * @user_data: data for @callback
 *
 * Executes the method once in a worker thread.  @callback runs in the
 * thread-default main context of the calling thread; call
 * [method@Executorch.Method.execute_finish] there.  Until @callback runs,
 * the method is busy: binding inputs, reading outputs or starting another
 * execution fails with %EXECUTORCH_ERROR_INVALID_STATE.
 *
 * Since: 1.0
 */
void
executorch_method_execute_async (ExecutorchMethod *method, GCancellable *cancellable, GAsyncReadyCallback callback,
                                 gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  AsyncData *data;
  GError *error = NULL;

  g_return_if_fail (EXECUTORCH_IS_METHOD (method));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  if (!check_loaded (method, &error) || !_et_method_claim (method->engine, &error))
    {
      g_task_report_error (method, callback, user_data, executorch_method_execute_async, error);
      return;
    }
  /* The method stays busy until the result is delivered, so that a second
   * execution or a read of the outputs before the callback is refused. */
  data = g_new0 (AsyncData, 1);
  data->callback = callback;
  data->user_data = user_data;
  task = g_task_new (method, cancellable, execute_async_done, data);
  g_task_set_source_tag (task, executorch_method_execute_async);
  g_task_set_name (task, "[executorch] execute");
  g_task_run_in_thread (task, execute_thread);
}

/**
 * executorch_method_execute_finish:
 * @method: a method
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError, or %NULL
 *
 * Finishes an execution started with
 * [method@Executorch.Method.execute_async].
 *
 * Returns: %TRUE on success; %FALSE with @error set (see
 *   [method@Executorch.Method.execute])
 *
 * Since: 1.0
 */
gboolean
executorch_method_execute_finish (ExecutorchMethod *method, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD (method), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, method), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == executorch_method_execute_async, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * executorch_method_get_output_kind:
 * @method: a method
 * @index: the output's position, below [method@Executorch.Method.get_n_outputs]
 *
 * Tells what output @index currently holds, to choose between
 * [method@Executorch.Method.get_output] and its scalar variants.
 *
 * Returns: the kind of value
 *
 * Since: 1.0
 */
ExecutorchValueKind
executorch_method_get_output_kind (ExecutorchMethod *method, guint index)
{
  const EtValue *value;

  CHECK_LOADED (method, EXECUTORCH_VALUE_KIND_NONE);
  g_return_val_if_fail (index < _et_method_n_outputs (method->engine), EXECUTORCH_VALUE_KIND_NONE);

  value = _et_method_output (method->engine, index);
  return value != NULL ? (ExecutorchValueKind) value->tag : EXECUTORCH_VALUE_KIND_NONE;
}

static const char *
kind_nick (guint tag)
{
  GEnumClass *klass = g_type_class_ref (EXECUTORCH_TYPE_VALUE_KIND);
  GEnumValue *value = g_enum_get_value (klass, (gint) tag);
  const char *nick = value != NULL ? value->value_nick : "unknown";

  g_type_class_unref (klass); /* enum classes are never freed */
  return nick;
}

static const EtValue *
get_output_value (ExecutorchMethod *self, guint index, EtValueTag want, GError **error)
{
  guint n = _et_method_n_outputs (self->engine);
  const EtValue *value;

  if (!_et_method_check_idle (self->engine, error))
    return NULL;
  if (index >= n)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "output %u does not exist: method %s has %u outputs", index,
                     self->name, n);
      return NULL;
    }
  value = _et_method_output (self->engine, index);
  if (value == NULL || value->tag != want)
    {
      _et_set_error (error, ET_ERROR_INVALID_TYPE, "output %u of method %s is %s, not %s", index, self->name,
                     kind_nick (value != NULL ? value->tag : ET_VALUE_NONE), kind_nick (want));
      return NULL;
    }
  return value;
}

/**
 * executorch_method_get_output:
 * @method: a method
 * @index: the output's position
 * @error: return location for a #GError, or %NULL
 *
 * Gets a tensor output as a view of the method's memory, with the sizes it
 * has now.  The view keeps the method alive, but its contents change on
 * the next execution: use [method@Executorch.Tensor.copy] for an
 * independent copy.
 *
 * Returns: (transfer full) (nullable): a view of output @index, or %NULL
 *   with @error set: %EXECUTORCH_ERROR_INVALID_TYPE when the output is not
 *   a tensor, %EXECUTORCH_ERROR_INVALID_ARGUMENT for a bad index,
 *   %EXECUTORCH_ERROR_INVALID_STATE while the method executes
 *
 * Since: 1.0
 */
ExecutorchTensor *
executorch_method_get_output (ExecutorchMethod *method, guint index, GError **error)
{
  const EtValue *value;

  CHECK_LOADED_OR_ERROR (method, error, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  value = get_output_value (method, index, ET_VALUE_TENSOR, error);
  if (value == NULL)
    return NULL;
  return _executorch_tensor_new_view (G_OBJECT (method), value->u.tensor);
}

/**
 * executorch_method_get_output_int:
 * @method: a method
 * @index: the output's position
 * @value: (out) (optional): return location for the value
 * @error: return location for a #GError, or %NULL
 *
 * Gets an Int output.
 *
 * Returns: %TRUE on success; %FALSE with @error set to
 *   %EXECUTORCH_ERROR_INVALID_TYPE when the output is not an Int
 *
 * Since: 1.0
 */
gboolean
executorch_method_get_output_int (ExecutorchMethod *method, guint index, gint64 *value, GError **error)
{
  const EtValue *v;

  CHECK_LOADED_OR_ERROR (method, error, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((v = get_output_value (method, index, ET_VALUE_INT, error)) == NULL)
    return FALSE;
  if (value != NULL)
    *value = v->u.int_value;
  return TRUE;
}

/**
 * executorch_method_get_output_double:
 * @method: a method
 * @index: the output's position
 * @value: (out) (optional): return location for the value
 * @error: return location for a #GError, or %NULL
 *
 * Gets a Double output.
 *
 * Returns: %TRUE on success; %FALSE with @error set to
 *   %EXECUTORCH_ERROR_INVALID_TYPE when the output is not a Double
 *
 * Since: 1.0
 */
gboolean
executorch_method_get_output_double (ExecutorchMethod *method, guint index, gdouble *value, GError **error)
{
  const EtValue *v;

  CHECK_LOADED_OR_ERROR (method, error, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((v = get_output_value (method, index, ET_VALUE_DOUBLE, error)) == NULL)
    return FALSE;
  if (value != NULL)
    *value = v->u.double_value;
  return TRUE;
}

/**
 * executorch_method_get_output_bool:
 * @method: a method
 * @index: the output's position
 * @value: (out) (optional): return location for the value
 * @error: return location for a #GError, or %NULL
 *
 * Gets a Bool output.
 *
 * Returns: %TRUE on success; %FALSE with @error set to
 *   %EXECUTORCH_ERROR_INVALID_TYPE when the output is not a Bool
 *
 * Since: 1.0
 */
gboolean
executorch_method_get_output_bool (ExecutorchMethod *method, guint index, gboolean *value, GError **error)
{
  const EtValue *v;

  CHECK_LOADED_OR_ERROR (method, error, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((v = get_output_value (method, index, ET_VALUE_BOOL, error)) == NULL)
    return FALSE;
  if (value != NULL)
    *value = v->u.bool_value ? TRUE : FALSE;
  return TRUE;
}

static ExecutorchTensor *
scalar_tensor (ExecutorchScalarType type, const void *value, gsize size)
{
  g_autoptr (GBytes) bytes = _executorch_aligned_bytes_new (value, size);

  return executorch_tensor_new (type, NULL, 0, bytes, NULL);
}

/**
 * executorch_method_run:
 * @method: a method
 * @inputs: (array length=n_inputs) (nullable): one tensor per input, in order
 *   (%NULL entries for None inputs)
 * @n_inputs: the number of tensors, equal to [method@Executorch.Method.get_n_inputs]
 * @cancellable: (nullable): a #GCancellable, checked between instructions
 * @error: return location for a #GError, or %NULL
 *
 * Binds @inputs, executes the method once and returns its outputs.
 *
 * Tensor outputs are views of the method's memory (see
 * [method@Executorch.Method.get_output]): their contents change on the
 * next execution.  Int, Double and Bool outputs are returned as new
 * 0-dimensional Long, Double and Bool tensors.  Methods whose inputs are
 * not all tensors are bound with the scalar setters and run with
 * [method@Executorch.Method.execute]; a %NULL entry in @inputs sets a
 * None input.
 *
 * The returned array owns its tensors: freeing it (g_ptr_array_unref())
 * frees them.  Keep a reference to an element that must outlive it.
 *
 * Returns: (transfer container) (element-type ExecutorchTensor) (nullable): the
 *   outputs in order, or %NULL with @error set:
 *   %EXECUTORCH_ERROR_INVALID_ARGUMENT when @n_inputs is not the method's
 *   number of inputs, %EXECUTORCH_ERROR_NOT_SUPPORTED for an output that
 *   is neither a tensor nor a scalar, or an error of
 *   [method@Executorch.Method.set_input] or
 *   [method@Executorch.Method.execute]
 *
 * Since: 1.0
 */
GPtrArray *
executorch_method_run (ExecutorchMethod *method, ExecutorchTensor **inputs, guint n_inputs, GCancellable *cancellable,
                       GError **error)
{
  g_autoptr (GPtrArray) outputs = NULL;
  guint n_outputs;

  CHECK_LOADED_OR_ERROR (method, error, NULL);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (n_inputs != _et_method_n_inputs (method->engine))
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "method %s takes %u inputs, not %u", method->name,
                     _et_method_n_inputs (method->engine), n_inputs);
      return NULL;
    }
  for (guint i = 0; i < n_inputs; i++)
    {
      if (!executorch_method_set_input (method, i, inputs[i], error))
        return NULL;
    }
  if (!executorch_method_execute (method, cancellable, error))
    return NULL;

  n_outputs = _et_method_n_outputs (method->engine);
  outputs = g_ptr_array_new_full (n_outputs, g_object_unref);
  for (guint i = 0; i < n_outputs; i++)
    {
      const EtValue *value = _et_method_output (method->engine, i);
      ExecutorchTensor *tensor = NULL;
      gint64 l;
      gdouble d;
      guint8 b;

      switch (value != NULL ? value->tag : ET_VALUE_NONE)
        {
          case ET_VALUE_TENSOR: tensor = _executorch_tensor_new_view (G_OBJECT (method), value->u.tensor); break;
          case ET_VALUE_INT:
            l = value->u.int_value;
            tensor = scalar_tensor (EXECUTORCH_SCALAR_TYPE_LONG, &l, sizeof l);
            break;
          case ET_VALUE_DOUBLE:
            d = value->u.double_value;
            tensor = scalar_tensor (EXECUTORCH_SCALAR_TYPE_DOUBLE, &d, sizeof d);
            break;
          case ET_VALUE_BOOL:
            b = value->u.bool_value ? 1 : 0;
            tensor = scalar_tensor (EXECUTORCH_SCALAR_TYPE_BOOL, &b, sizeof b);
            break;
          default:
            _et_set_error (error, ET_ERROR_NOT_SUPPORTED,
                           "output %u of method %s is %s, which run() cannot return; use "
                           "executorch_method_execute() and the output getters",
                           i, method->name, kind_nick (value != NULL ? value->tag : ET_VALUE_NONE));
            return NULL;
        }
      if (tensor == NULL)
        {
          _et_set_error (error, ET_ERROR_MEMORY_ALLOCATION_FAILED, "cannot allocate output %u", i);
          return NULL;
        }
      g_ptr_array_add (outputs, tensor);
    }
  /* (transfer container) and a free function: bindings take their own
   * references to the elements and free the array, which drops ours; in C
   * and Vala one unref frees everything. */
  return g_steal_pointer (&outputs);
}

static gboolean
check_profiled (ExecutorchMethod *self, const char *what, GError **error)
{
  if (self->profiling != NULL)
    return TRUE;
  _et_set_error (error, ET_ERROR_INVALID_STATE, "[method %s][%s] the method is not profiled", self->name, what);
  return FALSE;
}

/**
 * executorch_method_enable_profiling:
 * @method: a method
 * @error: return location for a #GError, or %NULL
 *
 * Starts recording a [struct@Executorch.ProfileEvent] for every
 * instruction, delegate call and execution, from the next execution on.
 * The method's load is only recorded when the method was made with
 * [method@Executorch.Program.load_method_profiled].  Recording costs a
 * clock read per event; a method that is not profiled pays nothing
 * measurable.  Enabling twice does nothing.
 *
 * The events are kept by the profiler plug-in, libexecutorch-profiler,
 * which is found like every other part.
 *
 * Returns: %TRUE on success; %FALSE with @error set:
 *   %EXECUTORCH_ERROR_NOT_SUPPORTED when no profiler is installed (the
 *   message names the package), %EXECUTORCH_ERROR_INVALID_STATE while the
 *   method executes
 *
 * Since: 1.0
 */
gboolean
executorch_method_enable_profiling (ExecutorchMethod *method, GError **error)
{
  CHECK_LOADED_OR_ERROR (method, error, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!_et_method_check_idle (method->engine, error))
    return FALSE;
  if (method->profiling != NULL)
    return TRUE;
  if ((method->profiling = _et_profiling_new (method->name, error)) == NULL)
    return FALSE;
  _et_method_set_tracer (method->engine, _et_profiling_tracer (method->profiling));
  g_object_notify_by_pspec (G_OBJECT (method), properties[PROP_PROFILING]);
  return TRUE;
}

/**
 * executorch_method_is_profiling:
 * @method: a method
 *
 * Tells whether the executions of @method record profile events: it was
 * loaded with [method@Executorch.Program.load_method_profiled], or
 * [method@Executorch.Method.enable_profiling] succeeded on it.
 *
 * Returns: whether @method records profile events
 *
 * Since: 1.0
 */
gboolean
executorch_method_is_profiling (ExecutorchMethod *method)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD (method), FALSE);

  return method->profiling != NULL;
}

/**
 * executorch_method_get_profile_events:
 * @method: a method
 *
 * The events recorded so far, in the order they ended (an instruction
 * before the execution that holds it).  Empty when @method is not
 * profiled.
 *
 * As with [method@Executorch.Method.run], the returned array owns its
 * events: freeing it frees them.
 *
 * Returns: (transfer container) (element-type ExecutorchProfileEvent): a
 *   new array holding a reference on each event
 *
 * Since: 1.0
 */
GPtrArray *
executorch_method_get_profile_events (ExecutorchMethod *method)
{
  GPtrArray *events;
  size_t n;

  g_return_val_if_fail (EXECUTORCH_IS_METHOD (method), NULL);

  events = g_ptr_array_new_with_free_func ((GDestroyNotify) executorch_profile_event_unref);
  if (method->profiling == NULL)
    return events;
  n = _et_profiling_n_events (method->profiling);
  for (size_t i = 0; i < n; i++)
    {
      EtEventRecord record;

      if (_et_profiling_get_event (method->profiling, i, &record))
        g_ptr_array_add (events, _executorch_profile_event_new (&record));
    }
  return events;
}

/**
 * executorch_method_clear_profile_events:
 * @method: a method
 *
 * Forgets the executions recorded so far (the load event stays), so the
 * next execution is run 1 again.
 *
 * Since: 1.0
 */
void
executorch_method_clear_profile_events (ExecutorchMethod *method)
{
  g_return_if_fail (EXECUTORCH_IS_METHOD (method));

  if (method->profiling != NULL)
    _et_profiling_clear (method->profiling);
}

/**
 * executorch_method_get_etdump:
 * @method: a method
 * @error: return location for a #GError, or %NULL
 *
 * The recorded events as an ETDump: the size-prefixed FlatBuffer that
 * upstream's `executorch.devtools.Inspector` reads, with the load in a
 * run named "Default" and each execution in one named "Execute".
 *
 * Returns: (transfer full) (nullable): the file's bytes, or %NULL with
 *   @error set (%EXECUTORCH_ERROR_INVALID_STATE when @method is not
 *   profiled)
 *
 * Since: 1.0
 */
GBytes *
executorch_method_get_etdump (ExecutorchMethod *method, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD (method), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_profiled (method, "etdump", error))
    return NULL;
  return _et_profiling_etdump (method->profiling, error);
}

/**
 * executorch_method_write_etdump:
 * @method: a method
 * @path: (type filename): the file to write (conventionally `.etdp`)
 * @error: return location for a #GError, or %NULL
 *
 * Writes [method@Executorch.Method.get_etdump]'s bytes to @path,
 * replacing it atomically.
 *
 * Returns: %TRUE on success; %FALSE with @error set (an
 *   %EXECUTORCH_ERROR or a #GFileError)
 *
 * Since: 1.0
 */
gboolean
executorch_method_write_etdump (ExecutorchMethod *method, const char *path, GError **error)
{
  g_autoptr (GBytes) bytes = NULL;
  gsize size;
  const char *data;

  g_return_val_if_fail (EXECUTORCH_IS_METHOD (method), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  bytes = executorch_method_get_etdump (method, error);
  if (bytes == NULL)
    return FALSE;
  data = g_bytes_get_data (bytes, &size);
  return g_file_set_contents (path, data, (gssize) size, error);
}

/**
 * executorch_method_set_record_outputs:
 * @method: a profiled method
 * @record: whether to record kernel outputs
 * @error: return location for a #GError, or %NULL
 *
 * While @record is set, the output tensor of every kernel call is kept
 * as well: the ETDump gets a debug event per call (chain, instruction,
 * element type, sizes, strides and an offset) and the tensor's bytes go to
 * the debug buffer ([method@Executorch.Method.get_debug_buffer]), each
 * aligned to 64 bytes, which upstream's Inspector reads with
 * `debug_buffer_path`.  This copies every intermediate tensor: use it to
 * debug numerics, not to time.
 *
 * Returns: %TRUE on success; %FALSE with @error set:
 *   %EXECUTORCH_ERROR_INVALID_STATE when @method is not profiled,
 *   %EXECUTORCH_ERROR_NOT_SUPPORTED when the profiler cannot do it
 *
 * Since: 1.0
 */
gboolean
executorch_method_set_record_outputs (ExecutorchMethod *method, gboolean record, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD (method), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return _et_method_check_idle (method->engine, error) && check_profiled (method, "profile", error) &&
         _et_profiling_record_outputs (method->profiling, record, error);
}

/**
 * executorch_method_get_debug_buffer:
 * @method: a profiled method
 * @error: return location for a #GError, or %NULL
 *
 * The kernel outputs recorded since profiling began (or the last
 * [method@Executorch.Method.clear_profile_events]); the offsets in the
 * ETDump's debug events point into it.  Empty when nothing was recorded.
 *
 * Returns: (transfer full) (nullable): the buffer, or %NULL with @error
 *   set (%EXECUTORCH_ERROR_INVALID_STATE when @method is not profiled)
 *
 * Since: 1.0
 */
GBytes *
executorch_method_get_debug_buffer (ExecutorchMethod *method, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD (method), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_profiled (method, "profile", error))
    return NULL;
  return _et_profiling_debug_buffer (method->profiling, error);
}
