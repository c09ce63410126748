/* executorch-value-info.c: what one method input or output holds
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-private.h"

/**
 * ExecutorchValueInfo:
 *
 * The description of one input or output of a method, read from the
 * program: its kind, and for tensors the element type, sizes, memory
 * layout and placement.  For Int, Double and Bool values it also carries
 * the value the method was traced with (which an Int or Bool input must
 * be given again: the value is baked into the program).
 *
 * Value infos are immutable and MT safe.  Get them from
 * [method@Executorch.MethodInfo.get_input] and
 * [method@Executorch.MethodInfo.get_output].
 *
 * ```c
 * ExecutorchValueInfo *in = executorch_method_info_get_input (info, 0);
 * g_autofree char *text = executorch_value_info_to_string (in);
 *
 * g_print ("input 0: %s\n", text);   // "Tensor Float [2, 3] dim_order (0, 1) static planned cpu"
 * ```
 *
 * Since: 1.0
 */

struct _ExecutorchValueInfo
{
  GObject parent_instance;

  EtValueMeta meta;
  ExecutorchDevice *device;
};

G_DEFINE_FINAL_TYPE (ExecutorchValueInfo, executorch_value_info, G_TYPE_OBJECT)

static void
executorch_value_info_dispose (GObject *object)
{
  ExecutorchValueInfo *self = EXECUTORCH_VALUE_INFO (object);

  g_clear_object (&self->device);

  G_OBJECT_CLASS (executorch_value_info_parent_class)->dispose (object);
}

static void
executorch_value_info_class_init (ExecutorchValueInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = executorch_value_info_dispose;
}

static void
executorch_value_info_init (ExecutorchValueInfo *self)
{
}

ExecutorchValueInfo *
_executorch_value_info_new (const EtValueMeta *meta)
{
  ExecutorchValueInfo *self = g_object_new (EXECUTORCH_TYPE_VALUE_INFO, NULL);

  self->meta = *meta;
  if (self->meta.ndim > ET_MAX_DIMS)
    self->meta.ndim = ET_MAX_DIMS;
  self->device = _executorch_device_get (meta->device_type, meta->device_index);
  return self;
}

/**
 * executorch_value_info_get_kind:
 * @info: a value info
 *
 * Gets the kind of the value: a tensor, a scalar, a list and so on.
 *
 * Returns: what the value holds
 *
 * Since: 1.0
 */
ExecutorchValueKind
executorch_value_info_get_kind (ExecutorchValueInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), EXECUTORCH_VALUE_KIND_NONE);

  return (ExecutorchValueKind) info->meta.tag;
}

static gboolean
is_tensor (ExecutorchValueInfo *info)
{
  return info->meta.tag == ET_VALUE_TENSOR;
}

/**
 * executorch_value_info_get_scalar_type:
 * @info: a value info
 *
 * Gets the element type of a tensor value as stored in the program.
 *
 * Returns: the element type of a tensor value (%EXECUTORCH_SCALAR_TYPE_BYTE
 *   for other kinds)
 *
 * Since: 1.0
 */
ExecutorchScalarType
executorch_value_info_get_scalar_type (ExecutorchValueInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), EXECUTORCH_SCALAR_TYPE_BYTE);

  return is_tensor (info) ? (ExecutorchScalarType) info->meta.scalar_type : EXECUTORCH_SCALAR_TYPE_BYTE;
}

/**
 * executorch_value_info_get_sizes:
 * @info: a value info
 * @n_dims: (out) (optional): return location for the number of dimensions
 *
 * Gets the sizes of a tensor value as stored in the program.  For tensors
 * with a dynamic shape these are the upper bounds.
 *
 * Returns: (transfer none) (array length=n_dims) (nullable): the sizes,
 *   owned by @info; %NULL (and 0 dimensions) for 0-dimensional tensors and
 *   for values that are not tensors
 *
 * Since: 1.0
 */
const gint64 *
executorch_value_info_get_sizes (ExecutorchValueInfo *info, gsize *n_dims)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), NULL);

  if (!is_tensor (info) || info->meta.ndim == 0)
    {
      if (n_dims != NULL)
        *n_dims = 0;
      return NULL;
    }
  if (n_dims != NULL)
    *n_dims = info->meta.ndim;
  return (const gint64 *) info->meta.sizes;
}

/**
 * executorch_value_info_get_dim_order:
 * @info: a value info
 * @n_dims: (out) (optional): return location for the number of dimensions
 *
 * Gets the memory layout of a tensor value: its dimensions from the
 * outermost to the innermost in memory.  (0, 1, 2, 3) is the contiguous
 * layout; (0, 2, 3, 1) is "channels last".
 *
 * Returns: (transfer none) (array length=n_dims) (nullable): the dim order,
 *   owned by @info; %NULL (and 0 dimensions) for 0-dimensional tensors and
 *   for values that are not tensors
 *
 * Since: 1.0
 */
const guint8 *
executorch_value_info_get_dim_order (ExecutorchValueInfo *info, gsize *n_dims)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), NULL);

  if (!is_tensor (info) || info->meta.ndim == 0)
    {
      if (n_dims != NULL)
        *n_dims = 0;
      return NULL;
    }
  if (n_dims != NULL)
    *n_dims = info->meta.ndim;
  return info->meta.dim_order;
}

/**
 * executorch_value_info_get_shape_dynamism:
 * @info: a value info
 *
 * Tells whether a tensor value's sizes are fixed in the program or may change
 * between executions (up to the stored sizes, or beyond them).
 *
 * Returns: whether a tensor value's sizes may change between executions
 *   (%EXECUTORCH_SHAPE_DYNAMISM_STATIC for other kinds)
 *
 * Since: 1.0
 */
ExecutorchShapeDynamism
executorch_value_info_get_shape_dynamism (ExecutorchValueInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), EXECUTORCH_SHAPE_DYNAMISM_STATIC);

  return is_tensor (info) ? (ExecutorchShapeDynamism) info->meta.shape_dynamism : EXECUTORCH_SHAPE_DYNAMISM_STATIC;
}

/**
 * executorch_value_info_get_nbytes:
 * @info: a value info
 *
 * Gets the size in bytes of a tensor value at its stored sizes.
 *
 * Returns: the size in bytes of a tensor value at its stored sizes (the
 *   upper bound for dynamic shapes); 0 for other kinds
 *
 * Since: 1.0
 */
gsize
executorch_value_info_get_nbytes (ExecutorchValueInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), 0);

  return is_tensor (info) ? info->meta.nbytes : 0;
}

/**
 * executorch_value_info_is_memory_planned:
 * @info: a value info
 *
 * Tells whether a tensor value lives in memory the method owns (planned
 * memory, or constant program data).  Inputs that are planned are copied
 * when bound; unplanned inputs use the caller's memory directly.
 *
 * Returns: %TRUE for planned tensors
 *
 * Since: 1.0
 */
gboolean
executorch_value_info_is_memory_planned (ExecutorchValueInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), FALSE);

  return is_tensor (info) && info->meta.memory_planned;
}

/**
 * executorch_value_info_get_device:
 * @info: a value info
 *
 * Gets the device a tensor value is planned on.
 *
 * Returns: (transfer none): the device a tensor value lives on (the CPU
 *   for other kinds); owned by @info
 *
 * Since: 1.0
 */
ExecutorchDevice *
executorch_value_info_get_device (ExecutorchValueInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), NULL);

  /* NULL only for one made by g_object_new() alone, describing nothing. */
  return info->device != NULL ? info->device : executorch_device_get_cpu ();
}

/**
 * executorch_value_info_get_int_value:
 * @info: a value info
 *
 * Gets the value an Int input or output was traced with.  An Int input
 * must be set to this value.
 *
 * Returns: the traced value, or 0 when @info is not an Int
 *
 * Since: 1.0
 */
gint64
executorch_value_info_get_int_value (ExecutorchValueInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), 0);

  return info->meta.tag == ET_VALUE_INT ? info->meta.int_value : 0;
}

/**
 * executorch_value_info_get_double_value:
 * @info: a value info
 *
 * Gets the value a Double input or output was traced with.
 *
 * Returns: the traced value, or 0.0 when @info is not a Double
 *
 * Since: 1.0
 */
gdouble
executorch_value_info_get_double_value (ExecutorchValueInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), 0.0);

  return info->meta.tag == ET_VALUE_DOUBLE ? info->meta.double_value : 0.0;
}

/**
 * executorch_value_info_get_bool_value:
 * @info: a value info
 *
 * Gets the value a Bool input or output was traced with.  A Bool input
 * must be set to this value.
 *
 * Returns: the traced value, or %FALSE when @info is not a Bool
 *
 * Since: 1.0
 */
gboolean
executorch_value_info_get_bool_value (ExecutorchValueInfo *info)
{
  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), FALSE);

  return info->meta.tag == ET_VALUE_BOOL && info->meta.bool_value;
}

static const char *
dynamism_name (int dynamism)
{
  switch (dynamism)
    {
      case ET_SHAPE_STATIC: return "static";
      case ET_SHAPE_DYNAMIC_BOUND: return "dynamic_bound";
      case ET_SHAPE_DYNAMIC_UNBOUND: return "dynamic_unbound";
      default: return "unknown";
    }
}

/**
 * executorch_value_info_to_string:
 * @info: a value info
 *
 * Describes the value in one line, for people: for example
 * "Tensor Float [2, 3] dim_order (0, 1) static planned cpu", "Int 3",
 * "Double 0.5", "Bool true" or "None".
 *
 * Returns: (transfer full): a new string; free it with g_free()
 *
 * Since: 1.0
 */
char *
executorch_value_info_to_string (ExecutorchValueInfo *info)
{
  GString *out;
  const EtValueMeta *m;

  g_return_val_if_fail (EXECUTORCH_IS_VALUE_INFO (info), NULL);

  m = &info->meta;
  out = g_string_new (et_value_tag_name (m->tag));
  switch (m->tag)
    {
      case ET_VALUE_TENSOR:
        {
          const char *type = et_scalar_type_name (m->scalar_type);

          if (type != NULL)
            g_string_append_printf (out, " %s [", type);
          else
            g_string_append_printf (out, " ScalarType(%d) [", m->scalar_type);
          for (guint i = 0; i < m->ndim; i++)
            g_string_append_printf (out, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", (gint64) m->sizes[i]);
          g_string_append (out, "] dim_order (");
          for (guint i = 0; i < m->ndim; i++)
            g_string_append_printf (out, "%s%u", i > 0 ? ", " : "", m->dim_order[i]);
          g_string_append_printf (out, ") %s %s %s", dynamism_name (m->shape_dynamism),
                                  m->memory_planned ? "planned" : "unplanned",
                                  executorch_device_get_name (info->device));
          break;
        }
      case ET_VALUE_INT: g_string_append_printf (out, " %" G_GINT64_FORMAT, (gint64) m->int_value); break;
      case ET_VALUE_DOUBLE:
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_string_append_c (out, ' ');
          g_string_append (out, g_ascii_dtostr (buf, sizeof buf, m->double_value));
          break;
        }
      case ET_VALUE_BOOL: g_string_append (out, m->bool_value ? " true" : " false"); break;
      default: break;
    }
  return g_string_free (out, FALSE);
}
