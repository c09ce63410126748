/* executorch-method-info.c: what a method takes, returns and needs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-private.h"

/**
 * ExecutorchMethodInfo:
 *
 * The description of one method of a program, read without loading it:
 * its inputs and outputs, the memory it plans and where, the delegate
 * backends and operators it uses, and its number of instructions.
 *
 * Method infos are immutable snapshots and MT safe.  Get one from
 * [method@Executorch.Program.get_method_info] or
 * [method@Executorch.Method.get_info].
 *
 * ```c
 * g_autoptr(ExecutorchMethodInfo) info =
 *   executorch_program_get_method_info (program, "forward", &error);
 *
 * for (guint i = 0; i < executorch_method_info_get_n_inputs (info); i++)
 *   {
 *     g_autofree char *text =
 *       executorch_value_info_to_string (executorch_method_info_get_input (info, i));
 *     g_print ("input %u: %s\n", i, text);
 *   }
 * ```
 *
 * Since: 1.0
 */

struct _ExecutorchMethodInfo
{
  GObject parent_instance;

  char *name;
  GPtrArray *inputs;  /* ExecutorchValueInfo */
  GPtrArray *outputs; /* ExecutorchValueInfo */
  guint n_buffers;
  gint64 *buffer_sizes;
  GPtrArray *buffer_devices; /* ExecutorchDevice */
  char **backends;
  char **operators;
  guint n_instructions;
  char *input_spec;
  char *output_spec;
};

G_DEFINE_FINAL_TYPE (ExecutorchMethodInfo, executorch_method_info, G_TYPE_OBJECT)

static void
executorch_method_info_dispose (GObject *object)
{
  ExecutorchMethodInfo *self = EXECUTORCH_METHOD_INFO (object);

  g_clear_pointer (&self->inputs, g_ptr_array_unref);
  g_clear_pointer (&self->outputs, g_ptr_array_unref);
  g_clear_pointer (&self->buffer_devices, g_ptr_array_unref);

  G_OBJECT_CLASS (executorch_method_info_parent_class)->dispose (object);
}

static void
executorch_method_info_finalize (GObject *object)
{
  ExecutorchMethodInfo *self = EXECUTORCH_METHOD_INFO (object);

  g_free (self->name);
  g_free (self->buffer_sizes);
  g_strfreev (self->backends);
  g_strfreev (self->operators);
  g_free (self->input_spec);
  g_free (self->output_spec);

  G_OBJECT_CLASS (executorch_method_info_parent_class)->finalize (object);
}

static void
executorch_method_info_class_init (ExecutorchMethodInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = executorch_method_info_dispose;
  object_class->finalize = executorch_method_info_finalize;
}

/* Empty until _executorch_method_info_new() fills it in: one made with
 * g_object_new() (Executorch.MethodInfo() in a binding) describes a method
 * with nothing in it rather than crashing its getters. */
static void
executorch_method_info_init (ExecutorchMethodInfo *self)
{
  self->name = g_strdup ("");
  self->inputs = g_ptr_array_new_with_free_func (g_object_unref);
  self->outputs = g_ptr_array_new_with_free_func (g_object_unref);
  self->buffer_sizes = g_new0 (gint64, 1);
  self->buffer_devices = g_ptr_array_new_with_free_func (g_object_unref);
  self->backends = g_new0 (char *, 1);
  self->operators = g_new0 (char *, 1);
  self->input_spec = g_strdup ("");
  self->output_spec = g_strdup ("");
}

static void
value_infos_append (GPtrArray *array, const EtValueMeta *metas, guint n)
{
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (array, _executorch_value_info_new (&metas[i]));
}

static char **
strv_copy_or_empty (char **strv)
{
  return strv != NULL ? g_strdupv (strv) : g_new0 (char *, 1);
}

ExecutorchMethodInfo *
_executorch_method_info_new (const EtMethodMeta *meta)
{
  ExecutorchMethodInfo *self = g_object_new (EXECUTORCH_TYPE_METHOD_INFO, NULL);

  g_free (self->name);
  self->name = g_strdup (meta->name != NULL ? meta->name : "");
  value_infos_append (self->inputs, meta->inputs, meta->n_inputs);
  value_infos_append (self->outputs, meta->outputs, meta->n_outputs);
  self->n_buffers = meta->n_buffers;
  g_free (self->buffer_sizes);
  self->buffer_sizes = g_new0 (gint64, MAX (meta->n_buffers, 1));
  for (guint i = 0; i < meta->n_buffers; i++)
    {
      self->buffer_sizes[i] = meta->buffer_sizes != NULL ? meta->buffer_sizes[i] : 0;
      g_ptr_array_add (self->buffer_devices,
                       _executorch_device_get (meta->buffer_device_types != NULL ? meta->buffer_device_types[i] : 0,
                                               meta->buffer_device_indices != NULL ? meta->buffer_device_indices[i]
                                                                                   : 0));
    }
  g_strfreev (self->backends);
  self->backends = strv_copy_or_empty (meta->backends);
  g_strfreev (self->operators);
  self->operators = strv_copy_or_empty (meta->operators);
  self->n_instructions = meta->n_instructions;
  g_free (self->input_spec);
  self->input_spec = g_strdup (meta->input_spec != NULL ? meta->input_spec : "");
  g_free (self->output_spec);
  self->output_spec = g_strdup (meta->output_spec != NULL ? meta->output_spec : "");
  return self;
}

/**
 * executorch_method_info_get_name:
 * @info: a method info
 *
 * Gets the name of the method this info describes. The string lives as long
 * as @info.
 *
 * Returns: (transfer none): the method's name ("forward"); owned by @info
 *
 * Since: 1.0
 */
const char *
executorch_method_info_get_name (ExecutorchMethodInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), NULL);

  return info->name;
}

/**
 * executorch_method_info_get_n_inputs:
 * @info: a method info
 *
 * Gets the number of inputs the caller binds before an execution. Constant
 * weights are part of the program, not inputs.
 *
 * Returns: the number of user inputs of the method (weights are not inputs)
 *
 * Since: 1.0
 */
guint
executorch_method_info_get_n_inputs (ExecutorchMethodInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), 0);

  return info->inputs->len;
}

/**
 * executorch_method_info_get_input:
 * @info: a method info
 * @index: the input's position, below [method@Executorch.MethodInfo.get_n_inputs]
 *
 * Gets the description of one input: its kind and, for a tensor, its element
 * type, sizes and device.
 *
 * Returns: (transfer none): the description of input @index; owned by @info
 *
 * Since: 1.0
 */
ExecutorchValueInfo *
executorch_method_info_get_input (ExecutorchMethodInfo *info, guint index)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), NULL);
  g_return_val_if_fail (index < info->inputs->len, NULL);

  return g_ptr_array_index (info->inputs, index);
}

/**
 * executorch_method_info_get_n_outputs:
 * @info: a method info
 *
 * Gets the number of outputs one execution of the method produces.
 *
 * Returns: the number of outputs of the method
 *
 * Since: 1.0
 */
guint
executorch_method_info_get_n_outputs (ExecutorchMethodInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), 0);

  return info->outputs->len;
}

/**
 * executorch_method_info_get_output:
 * @info: a method info
 * @index: the output's position, below [method@Executorch.MethodInfo.get_n_outputs]
 *
 * Gets the description of one output: its kind and, for a tensor, its element
 * type, sizes and device.
 *
 * Returns: (transfer none): the description of output @index; owned by @info
 *
 * Since: 1.0
 */
ExecutorchValueInfo *
executorch_method_info_get_output (ExecutorchMethodInfo *info, guint index)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), NULL);
  g_return_val_if_fail (index < info->outputs->len, NULL);

  return g_ptr_array_index (info->outputs, index);
}

/**
 * executorch_method_info_get_n_buffers:
 * @info: a method info
 *
 * Gets the number of memory-planned buffers the method needs (allocated
 * when the method is loaded).
 *
 * Returns: the number of planned buffers
 *
 * Since: 1.0
 */
guint
executorch_method_info_get_n_buffers (ExecutorchMethodInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), 0);

  return info->n_buffers;
}

/**
 * executorch_method_info_get_buffer_size:
 * @info: a method info
 * @index: the buffer's position, below [method@Executorch.MethodInfo.get_n_buffers]
 *
 * Gets the size of one planned memory buffer. Loading the method allocates
 * each planned buffer once, at this size.
 *
 * Returns: the size in bytes of planned buffer @index
 *
 * Since: 1.0
 */
gint64
executorch_method_info_get_buffer_size (ExecutorchMethodInfo *info, guint index)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), 0);
  g_return_val_if_fail (index < info->n_buffers, 0);

  return info->buffer_sizes[index];
}

/**
 * executorch_method_info_get_buffer_device:
 * @info: a method info
 * @index: the buffer's position, below [method@Executorch.MethodInfo.get_n_buffers]
 *
 * Gets the device that planned buffer @index is allocated on when the method
 * is loaded: the CPU, unless the exporter planned the buffer for a device.
 *
 * Returns: (transfer none): the device planned buffer @index is allocated
 *   on; owned by @info
 *
 * Since: 1.0
 */
ExecutorchDevice *
executorch_method_info_get_buffer_device (ExecutorchMethodInfo *info, guint index)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), NULL);
  g_return_val_if_fail (index < info->n_buffers, NULL);

  return g_ptr_array_index (info->buffer_devices, index);
}

/**
 * executorch_method_info_list_backends:
 * @info: a method info
 *
 * Lists the delegate backends the method uses, each once, in the order
 * they first appear.
 *
 * Returns: (transfer full) (array zero-terminated=1): a %NULL-terminated
 *   array of backend ids ("XnnpackBackend"), empty when the method uses
 *   none; free it with g_strfreev()
 *
 * Since: 1.0
 */
char **
executorch_method_info_list_backends (ExecutorchMethodInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), NULL);

  return g_strdupv (info->backends);
}

/**
 * executorch_method_info_list_operators:
 * @info: a method info
 *
 * Lists the operators the method calls.
 *
 * Returns: (transfer full) (array zero-terminated=1): a %NULL-terminated
 *   array of operator names ("aten::add.out"); free it with g_strfreev()
 *
 * Since: 1.0
 */
char **
executorch_method_info_list_operators (ExecutorchMethodInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), NULL);

  return g_strdupv (info->operators);
}

/**
 * executorch_method_info_get_n_instructions:
 * @info: a method info
 *
 * Gets the number of instructions of the method, counted over all its chains.
 *
 * Returns: the number of instructions of the method, over all its chains
 *
 * Since: 1.0
 */
guint
executorch_method_info_get_n_instructions (ExecutorchMethodInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), 0);

  return info->n_instructions;
}

/**
 * executorch_method_info_get_input_spec:
 * @info: a method info
 *
 * Gets the exporter's description of how the Python arguments were
 * flattened into the inputs (a pytree spec, JSON or compact form).  The
 * runtime does not interpret it.
 *
 * Returns: (transfer none): the spec, "" when the program has none; owned
 *   by @info
 *
 * Since: 1.0
 */
const char *
executorch_method_info_get_input_spec (ExecutorchMethodInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), NULL);

  return info->input_spec;
}

/**
 * executorch_method_info_get_output_spec:
 * @info: a method info
 *
 * Gets the exporter's description of how the Python return value was
 * flattened into the outputs.  The runtime does not interpret it.
 *
 * Returns: (transfer none): the spec, "" when the program has none; owned
 *   by @info
 *
 * Since: 1.0
 */
const char *
executorch_method_info_get_output_spec (ExecutorchMethodInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_METHOD_INFO (info), NULL);

  return info->output_spec;
}
