/* executorch-device.c: a place where tensor memory lives
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-private.h"

#include <string.h>

/**
 * ExecutorchDevice:
 *
 * A device that tensor memory can live on: the host CPU (`cpu`) or an
 * accelerator such as the first CUDA GPU (`cuda:0`).
 *
 * Devices are immutable values; two devices naming the same place compare
 * equal with [method@Executorch.Device.equal].  Whether memory can really be
 * allocated there depends on the installed plug-ins, see
 * [method@Executorch.Device.is_available].
 *
 * ```c
 * g_autoptr(GError) error = NULL;
 * g_autoptr(ExecutorchDevice) gpu = executorch_device_new_from_name ("cuda:0", &error);
 *
 * if (gpu != NULL && executorch_device_is_available (gpu))
 *   on_gpu = executorch_tensor_to_device (tensor, gpu, &error);
 * ```
 *
 * Devices are MT safe.
 *
 * Since: 1.0
 */

struct _ExecutorchDevice
{
  GObject parent_instance;

  ExecutorchDeviceType device_type;
  gint index;
  char *name;
};

enum
{
  PROP_0,
  PROP_DEVICE_TYPE,
  PROP_INDEX,
  PROP_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (ExecutorchDevice, executorch_device, G_TYPE_OBJECT)

static gboolean
device_type_is_valid (int device_type)
{
  return device_type >= 0 && device_type < ET_DEVICE_N_TYPES;
}

static void
executorch_device_constructed (GObject *object)
{
  ExecutorchDevice *self = EXECUTORCH_DEVICE (object);

  G_OBJECT_CLASS (executorch_device_parent_class)->constructed (object);

  if (self->device_type == EXECUTORCH_DEVICE_TYPE_CPU && self->index == 0)
    self->name = g_strdup ("cpu");
  else
    self->name = g_strdup_printf ("%s:%d", _et_device_type_name (self->device_type), self->index);
}

static void
executorch_device_finalize (GObject *object)
{
  ExecutorchDevice *self = EXECUTORCH_DEVICE (object);

  g_free (self->name);

  G_OBJECT_CLASS (executorch_device_parent_class)->finalize (object);
}

static void
executorch_device_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  ExecutorchDevice *self = EXECUTORCH_DEVICE (object);

  switch (prop_id)
    {
      case PROP_DEVICE_TYPE: g_value_set_enum (value, self->device_type); break;
      case PROP_INDEX: g_value_set_int (value, self->index); break;
      case PROP_NAME: g_value_set_string (value, self->name); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_device_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  ExecutorchDevice *self = EXECUTORCH_DEVICE (object);

  switch (prop_id)
    {
      case PROP_DEVICE_TYPE: self->device_type = g_value_get_enum (value); break;
      case PROP_INDEX: self->index = g_value_get_int (value); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_device_class_init (ExecutorchDeviceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = executorch_device_constructed;
  object_class->finalize = executorch_device_finalize;
  object_class->get_property = executorch_device_get_property;
  object_class->set_property = executorch_device_set_property;

  /**
   * ExecutorchDevice:device-type:
   *
   * The kind of device.
   *
   * Since: 1.0
   */
  properties[PROP_DEVICE_TYPE] =
      g_param_spec_enum ("device-type", NULL, NULL, EXECUTORCH_TYPE_DEVICE_TYPE, EXECUTORCH_DEVICE_TYPE_CPU,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * ExecutorchDevice:index:
   *
   * The number of the device among those of its type, from 0.  The CPU is
   * always 0.
   *
   * Since: 1.0
   */
  properties[PROP_INDEX] = g_param_spec_int ("index", NULL, NULL, 0, G_MAXINT8, 0,
                                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * ExecutorchDevice:name:
   *
   * The device's name: "cpu", "cuda:0", ...
   *
   * Since: 1.0
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
executorch_device_init (ExecutorchDevice *self)
{
}

/**
 * executorch_device_new:
 * @device_type: the kind of device
 * @index: the device number, from 0 (0 for the CPU)
 *
 * Creates a device value.  This does not check that the device exists; see
 * [method@Executorch.Device.is_available].
 *
 * Returns: (transfer full): a new device
 *
 * Since: 1.0
 */
ExecutorchDevice *
executorch_device_new (ExecutorchDeviceType device_type, gint index)
{
  g_return_val_if_fail (device_type_is_valid (device_type), NULL);
  g_return_val_if_fail (index >= 0 && index <= G_MAXINT8, NULL);
  g_return_val_if_fail (device_type != EXECUTORCH_DEVICE_TYPE_CPU || index == 0, NULL);

  return g_object_new (EXECUTORCH_TYPE_DEVICE, "device-type", device_type, "index", index, NULL);
}

/**
 * executorch_device_new_from_name:
 * @name: a device name: "cpu", "cpu:0", "cuda" (the same as "cuda:0"), "cuda:1", ...
 * @error: return location for a #GError, or %NULL
 *
 * Parses a device name as written on command lines and in messages.
 *
 * Returns: (transfer full) (nullable): a new device, or %NULL with @error
 *   set to %EXECUTORCH_ERROR_INVALID_ARGUMENT when @name is not a device name.
 *
 * Since: 1.0
 */
ExecutorchDevice *
executorch_device_new_from_name (const char *name, GError **error)
{
  const char *colon;
  g_autofree char *type_name = NULL;
  guint64 index = 0;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  colon = strchr (name, ':');
  type_name = colon != NULL ? g_strndup (name, colon - name) : g_strdup (name);
  if (colon != NULL && (colon[1] == '\0' || !g_ascii_isdigit (colon[1]) ||
                        !g_ascii_string_to_unsigned (colon + 1, 10, 0, G_MAXINT8, &index, NULL)))
    goto bad;

  for (int type = 0; type < ET_DEVICE_N_TYPES; type++)
    if (g_str_equal (type_name, _et_device_type_name (type)))
      {
        if (type == ET_DEVICE_CPU && index != 0)
          goto bad;
        return executorch_device_new ((ExecutorchDeviceType) type, (gint) index);
      }

bad:
  /* The helper makes the message (and so @name in it) valid UTF-8. */
  _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "“%s” is not a device name (expected “cpu” or “cuda:N”)", name);
  return NULL;
}

/**
 * executorch_device_get_cpu:
 *
 * Gets the host CPU device.  It is shared and lives as long as the process.
 *
 * MT safe.
 *
 * Returns: (transfer none): the CPU device
 *
 * Since: 1.0
 */
ExecutorchDevice *
executorch_device_get_cpu (void)
{
  static gsize cpu;

  if (g_once_init_enter (&cpu))
    g_once_init_leave (&cpu, (gsize) executorch_device_new (EXECUTORCH_DEVICE_TYPE_CPU, 0));
  return (ExecutorchDevice *) cpu;
}

ExecutorchDevice *
_executorch_device_get (int device_type, int device_index)
{
  if (device_type == ET_DEVICE_CPU || !device_type_is_valid (device_type))
    return g_object_ref (executorch_device_get_cpu ());
  return executorch_device_new ((ExecutorchDeviceType) device_type, MAX (device_index, 0));
}

/**
 * executorch_device_get_device_type:
 * @device: a device
 *
 * Gets the kind of device, such as %EXECUTORCH_DEVICE_TYPE_CPU or
 * %EXECUTORCH_DEVICE_TYPE_CUDA.
 *
 * Returns: the kind of device
 *
 * Since: 1.0
 */
ExecutorchDeviceType
executorch_device_get_device_type (ExecutorchDevice *device)
{
  g_return_val_if_fail (EXECUTORCH_IS_DEVICE (device), EXECUTORCH_DEVICE_TYPE_CPU);

  return device->device_type;
}

/**
 * executorch_device_get_index:
 * @device: a device
 *
 * Gets the device's number among the devices of its type: 1 for `cuda:1`. The
 * CPU is always device 0.
 *
 * Returns: the device's number among those of its type (0 for the CPU)
 *
 * Since: 1.0
 */
gint
executorch_device_get_index (ExecutorchDevice *device)
{
  g_return_val_if_fail (EXECUTORCH_IS_DEVICE (device), 0);

  return device->index;
}

/**
 * executorch_device_get_name:
 * @device: a device
 *
 * Gets the device's name, which [ctor@Executorch.Device.new_from_name]
 * parses back.
 *
 * Returns: (transfer none): "cpu", "cuda:0", ...; owned by @device
 *
 * Since: 1.0
 */
const char *
executorch_device_get_name (ExecutorchDevice *device)
{
  g_return_val_if_fail (EXECUTORCH_IS_DEVICE (device), NULL);

  return device->name;
}

/**
 * executorch_device_equal:
 * @device: a device
 * @other: another device
 *
 * Compares two devices.
 *
 * Returns: %TRUE when both name the same device
 *
 * Since: 1.0
 */
gboolean
executorch_device_equal (ExecutorchDevice *device, ExecutorchDevice *other)
{
  g_return_val_if_fail (EXECUTORCH_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (EXECUTORCH_IS_DEVICE (other), FALSE);

  return device->device_type == other->device_type && device->index == other->index;
}

/**
 * executorch_device_is_available:
 * @device: a device
 *
 * Checks whether memory can be allocated on @device: always true for the
 * CPU; for other devices, true when a plug-in registered an allocator for
 * the device type and (where the allocator can tell) the device exists.
 * Runs plug-in discovery first if it has not run yet.
 *
 * MT safe.
 *
 * Returns: %TRUE when @device can be used
 *
 * Since: 1.0
 */
gboolean
executorch_device_is_available (ExecutorchDevice *device)
{
  const EtDeviceAllocator *allocator;

  g_return_val_if_fail (EXECUTORCH_IS_DEVICE (device), FALSE);

  if (device->device_type == EXECUTORCH_DEVICE_TYPE_CPU)
    return TRUE;
  allocator = _et_registry_find_allocator (device->device_type);
  if (allocator == NULL)
    return FALSE;
  if (allocator->device_count != NULL)
    return device->index < allocator->device_count (allocator->user_data);
  return TRUE;
}
