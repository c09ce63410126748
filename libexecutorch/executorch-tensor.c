/* executorch-tensor.c: n-dimensional arrays handed to and returned by methods
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-private.h"

#include <stdlib.h>
#include <string.h>

/**
 * ExecutorchTensor:
 *
 * An n-dimensional array of one element type, with up to 16 dimensions.
 *
 * A tensor is one of three things:
 *
 * - a host tensor that owns a [struct@GLib.Bytes] (made with
 *   [ctor@Executorch.Tensor.new] and friends; the data is never copied);
 * - a view of a method's output memory, returned by
 *   [method@Executorch.Method.get_output].  A view keeps its method alive,
 *   but its contents change on the next execution of that method: use
 *   [method@Executorch.Tensor.copy] to keep them;
 * - a tensor in device memory (for example on a CUDA GPU), made with
 *   [method@Executorch.Tensor.to_device].
 *
 * Sizes are in logical order.  The dim order tells how the elements are
 * laid out in memory, from the outermost dimension to the innermost:
 * (0, 1, ..., n-1) is the usual contiguous layout, (0, 2, 3, 1) is
 * "channels last".  [method@Executorch.Tensor.get_bytes] returns the
 * elements in memory order.
 *
 * Tensors never change after construction, and may be used from several
 * threads at once (a view's contents change when its method executes).
 *
 * ```c
 * const gint64 sizes[] = { 2, 3 };
 * const float values[] = { 1, 2, 3, 4, 5, 6 };
 * g_autoptr(ExecutorchTensor) x =
 *   executorch_tensor_new_from_floats (sizes, 2, values, 6, &error);
 * ```
 *
 * Since: 1.0
 */

typedef enum
{
  STORAGE_BYTES,  /* owns a GBytes (host) */
  STORAGE_VIEW,   /* points into an owner's memory */
  STORAGE_DEVICE, /* owns device memory from _et_device_alloc */
} Storage;

struct _ExecutorchTensor
{
  GObject parent_instance;

  Storage storage;
  ExecutorchScalarType scalar_type;
  guint n_dims;
  gint64 sizes[ET_MAX_DIMS];
  guint8 dim_order[ET_MAX_DIMS];
  gint64 numel;
  gsize nbytes;
  int device_type;
  int device_index;
  ExecutorchDevice *device;

  GBytes *bytes;  /* STORAGE_BYTES */
  GObject *owner; /* STORAGE_VIEW */
  void *data;     /* data of any storage */
};

G_DEFINE_FINAL_TYPE (ExecutorchTensor, executorch_tensor, G_TYPE_OBJECT)

static void
executorch_tensor_dispose (GObject *object)
{
  ExecutorchTensor *self = EXECUTORCH_TENSOR (object);

  g_clear_object (&self->device);
  if (self->storage == STORAGE_BYTES)
    {
      g_clear_pointer (&self->bytes, g_bytes_unref);
      self->data = NULL;
    }
  else if (self->storage == STORAGE_VIEW)
    {
      g_clear_object (&self->owner);
      self->data = NULL;
    }

  G_OBJECT_CLASS (executorch_tensor_parent_class)->dispose (object);
}

static void
executorch_tensor_finalize (GObject *object)
{
  ExecutorchTensor *self = EXECUTORCH_TENSOR (object);

  if (self->storage == STORAGE_DEVICE && self->data != NULL)
    _et_device_free (self->device_type, self->device_index, self->data);

  G_OBJECT_CLASS (executorch_tensor_parent_class)->finalize (object);
}

static void
executorch_tensor_class_init (ExecutorchTensorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = executorch_tensor_dispose;
  object_class->finalize = executorch_tensor_finalize;
}

/* g_object_new() alone (Executorch.Tensor() in a binding) gives an empty
 * 1-D Byte tensor in host memory; the constructors fill in the rest. */
static void
executorch_tensor_init (ExecutorchTensor *self)
{
  self->storage = STORAGE_BYTES;
  self->scalar_type = EXECUTORCH_SCALAR_TYPE_BYTE;
  self->n_dims = 1;
  self->device_type = ET_DEVICE_CPU;
}

/* --- helpers --- */

GBytes *
_executorch_aligned_bytes_new (const void *data, gsize nbytes)
{
  void *copy = _et_device_alloc (ET_DEVICE_CPU, 0, nbytes, _EXECUTORCH_DATA_ALIGNMENT, NULL);

  if (copy == NULL)
    return NULL;
  if (nbytes > 0 && data != NULL)
    memcpy (copy, data, nbytes);
  return g_bytes_new_with_free_func (copy, nbytes, free, copy);
}

static char *
format_sizes (const gint64 *sizes, gsize n_dims)
{
  GString *s = g_string_new ("[");

  for (gsize i = 0; i < n_dims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", sizes[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* Checks type, rank, sizes and dim order; fills the metadata of @self. */
static gboolean
check_shape (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims, const guint8 *dim_order,
             gint64 *numel, gsize *nbytes, GError **error)
{
  int64_t et_sizes[ET_MAX_DIMS];
  guint seen = 0;

  if (et_scalar_type_size (scalar_type) == 0)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "%d is not a valid scalar type", (int) scalar_type);
      return FALSE;
    }
  if (n_dims > ET_MAX_DIMS)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "a tensor has at most %d dimensions, not %" G_GSIZE_FORMAT,
                     ET_MAX_DIMS, n_dims);
      return FALSE;
    }
  for (gsize i = 0; i < n_dims; i++)
    {
      if (sizes[i] < 0)
        {
          g_autofree char *shown = format_sizes (sizes, n_dims);
          _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "tensor sizes %s: size %" G_GSIZE_FORMAT " is negative",
                         shown, i);
          return FALSE;
        }
      et_sizes[i] = sizes[i];
    }
  if (dim_order != NULL)
    for (gsize i = 0; i < n_dims; i++)
      {
        if (dim_order[i] >= n_dims || (seen & (1u << dim_order[i])) != 0)
          {
            _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                           "the dim order is not a permutation of 0..%" G_GSIZE_FORMAT, n_dims - 1);
            return FALSE;
          }
        seen |= 1u << dim_order[i];
      }
  if (!_et_checked_nbytes (scalar_type, (uint32_t) n_dims, et_sizes, numel, nbytes))
    {
      g_autofree char *shown = format_sizes (sizes, n_dims);
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "a %s tensor of sizes %s does not fit in memory",
                     et_scalar_type_name (scalar_type), shown);
      return FALSE;
    }
  return TRUE;
}

static ExecutorchTensor *
tensor_alloc (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims, const guint8 *dim_order,
              gint64 numel, gsize nbytes)
{
  ExecutorchTensor *self = g_object_new (EXECUTORCH_TYPE_TENSOR, NULL);

  self->scalar_type = scalar_type;
  self->n_dims = (guint) n_dims;
  for (gsize i = 0; i < n_dims; i++)
    {
      self->sizes[i] = sizes[i];
      self->dim_order[i] = dim_order != NULL ? dim_order[i] : (guint8) i;
    }
  self->numel = numel;
  self->nbytes = nbytes;
  self->device_type = ET_DEVICE_CPU;
  self->device_index = 0;
  return self;
}

static ExecutorchTensor *
tensor_new_bytes (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims, const guint8 *dim_order,
                  gint64 numel, gsize nbytes, GBytes *data)
{
  ExecutorchTensor *self = tensor_alloc (scalar_type, sizes, n_dims, dim_order, numel, nbytes);

  self->storage = STORAGE_BYTES;
  self->bytes = g_bytes_ref (data);
  self->data = (void *) g_bytes_get_data (data, NULL);
  self->device = g_object_ref (executorch_device_get_cpu ());
  return self;
}

static ExecutorchTensor *
tensor_new_checked (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims, const guint8 *dim_order,
                    GBytes *data, GError **error)
{
  gint64 numel;
  gsize nbytes;

  if (!check_shape (scalar_type, sizes, n_dims, dim_order, &numel, &nbytes, error))
    return NULL;
  if (g_bytes_get_size (data) != nbytes)
    {
      g_autofree char *shown = format_sizes (sizes, n_dims);
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                     "the data holds %" G_GSIZE_FORMAT " bytes but a %s tensor of sizes %s needs %" G_GSIZE_FORMAT
                     " bytes",
                     g_bytes_get_size (data), et_scalar_type_name (scalar_type), shown, nbytes);
      return NULL;
    }
  return tensor_new_bytes (scalar_type, sizes, n_dims, dim_order, numel, nbytes, data);
}

/* --- constructors --- */

/**
 * executorch_tensor_new:
 * @scalar_type: the element type
 * @sizes: (array length=n_dims) (nullable): the size of each dimension
 * @n_dims: the number of dimensions, at most 16 (0 for a single value)
 * @data: the elements, contiguous in row-major order
 * @error: return location for a #GError, or %NULL
 *
 * Creates a host tensor holding @data.  The tensor takes a reference on
 * @data and never copies or changes it.
 *
 * Returns: (transfer full) (nullable): a new tensor, or %NULL with @error
 *   set to %EXECUTORCH_ERROR_INVALID_ARGUMENT when the scalar type is not
 *   valid, a size is negative, there are more than 16 dimensions, or @data
 *   does not hold exactly the number of bytes the sizes call for.
 *
 * Since: 1.0
 */
ExecutorchTensor *
executorch_tensor_new (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims, GBytes *data,
                       GError **error)
{
  g_return_val_if_fail (sizes != NULL || n_dims == 0, NULL);
  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return tensor_new_checked (scalar_type, sizes, n_dims, NULL, data, error);
}

/**
 * executorch_tensor_new_with_dim_order:
 * @scalar_type: the element type
 * @sizes: (array length=n_dims) (nullable): the size of each dimension, in logical order
 * @n_dims: the number of dimensions, at most 16
 * @dim_order: (array length=n_dim_order) (nullable): the dimensions from the
 *   outermost to the innermost in memory, a permutation of 0..@n_dims-1
 * @n_dim_order: the length of @dim_order, equal to @n_dims
 * @data: the elements, laid out as @dim_order says
 * @error: return location for a #GError, or %NULL
 *
 * Creates a host tensor whose memory layout is not the usual row-major
 * one, for example "channels last" (0, 2, 3, 1).  The tensor takes a
 * reference on @data and never copies or changes it.
 *
 * When a tensor is bound to a method input whose layout differs, the
 * method re-lays the elements out; binding a tensor in the input's own
 * layout avoids that copy.
 *
 * Returns: (transfer full) (nullable): a new tensor, or %NULL with @error
 *   set to %EXECUTORCH_ERROR_INVALID_ARGUMENT (see
 *   [ctor@Executorch.Tensor.new]; also when @dim_order is not a permutation)
 *
 * Since: 1.0
 */
ExecutorchTensor *
executorch_tensor_new_with_dim_order (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims,
                                      const guint8 *dim_order, gsize n_dim_order, GBytes *data, GError **error)
{
  g_return_val_if_fail (sizes != NULL || n_dims == 0, NULL);
  g_return_val_if_fail (dim_order != NULL || n_dim_order == 0, NULL);
  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (n_dim_order != n_dims)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                     "the dim order has %" G_GSIZE_FORMAT " entries for %" G_GSIZE_FORMAT " dimensions", n_dim_order,
                     n_dims);
      return NULL;
    }
  return tensor_new_checked (scalar_type, sizes, n_dims, dim_order, data, error);
}

/**
 * executorch_tensor_new_borrowed:
 * @scalar_type: the element type
 * @sizes: (array length=n_dims) (nullable): the size of each dimension
 * @n_dims: the number of dimensions, at most 16 (0 for a single value)
 * @data: (nullable): the address of the elements, contiguous in row-major
 *   order; %NULL only when @nbytes is 0
 * @nbytes: the number of bytes at @data
 * @owner: (nullable): an object that keeps @data valid, or %NULL for memory
 *   that lives as long as the process
 * @error: return location for a #GError, or %NULL
 *
 * Creates a host tensor over memory that the caller lends, without copying
 * it: a language binding can wrap its own array this way (the Python
 * override module lends numpy arrays through a small object holding the
 * array).  The tensor keeps a reference on @owner for as long as it needs
 * @data; @data must stay unchanged while the tensor is in use.
 *
 * Returns: (transfer full) (nullable): a new tensor, or %NULL with @error
 *   set to %EXECUTORCH_ERROR_INVALID_ARGUMENT (see
 *   [ctor@Executorch.Tensor.new])
 *
 * Since: 1.0
 */
ExecutorchTensor *
executorch_tensor_new_borrowed (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims, gpointer data,
                                gsize nbytes, GObject *owner, GError **error)
{
  g_autoptr (GBytes) bytes = NULL;

  g_return_val_if_fail (sizes != NULL || n_dims == 0, NULL);
  g_return_val_if_fail (data != NULL || nbytes == 0, NULL);
  g_return_val_if_fail (owner == NULL || G_IS_OBJECT (owner), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The GBytes holds the loan: its last unref drops @owner. */
  if (owner != NULL)
    bytes = g_bytes_new_with_free_func (data, nbytes, g_object_unref, g_object_ref (owner));
  else
    bytes = g_bytes_new_static (data, nbytes);
  return tensor_new_checked (scalar_type, sizes, n_dims, NULL, bytes, error);
}

/**
 * executorch_tensor_new_zeros:
 * @scalar_type: the element type
 * @sizes: (array length=n_dims) (nullable): the size of each dimension
 * @n_dims: the number of dimensions, at most 16
 * @error: return location for a #GError, or %NULL
 *
 * Creates a host tensor whose elements are all zero bytes (0, 0.0 or
 * false).
 *
 * Returns: (transfer full) (nullable): a new tensor, or %NULL with @error
 *   set to %EXECUTORCH_ERROR_INVALID_ARGUMENT for a bad type or shape, or
 *   %EXECUTORCH_ERROR_MEMORY_ALLOCATION_FAILED
 *
 * Since: 1.0
 */
ExecutorchTensor *
executorch_tensor_new_zeros (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims, GError **error)
{
  gint64 numel;
  gsize nbytes;
  void *memory;
  g_autoptr (GBytes) bytes = NULL;

  g_return_val_if_fail (sizes != NULL || n_dims == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_shape (scalar_type, sizes, n_dims, NULL, &numel, &nbytes, error))
    return NULL;
  memory = _et_device_alloc (ET_DEVICE_CPU, 0, nbytes, _EXECUTORCH_DATA_ALIGNMENT, error);
  if (memory == NULL)
    return NULL;
  memset (memory, 0, nbytes);
  bytes = g_bytes_new_with_free_func (memory, nbytes, free, memory);
  return tensor_new_bytes (scalar_type, sizes, n_dims, NULL, numel, nbytes, bytes);
}

/**
 * executorch_tensor_new_from_floats:
 * @sizes: (array length=n_dims) (nullable): the size of each dimension
 * @n_dims: the number of dimensions, at most 16
 * @values: (array length=n_values) (nullable): the elements in row-major order
 * @n_values: the number of elements, the product of @sizes
 * @error: return location for a #GError, or %NULL
 *
 * Creates a host %EXECUTORCH_SCALAR_TYPE_FLOAT tensor holding a copy of
 * @values; convenient from language bindings.
 *
 * Returns: (transfer full) (nullable): a new tensor, or %NULL with @error
 *   set to %EXECUTORCH_ERROR_INVALID_ARGUMENT when @n_values does not
 *   match @sizes
 *
 * Since: 1.0
 */
ExecutorchTensor *
executorch_tensor_new_from_floats (const gint64 *sizes, gsize n_dims, const gfloat *values, gsize n_values,
                                   GError **error)
{
  gint64 numel;
  gsize nbytes;
  g_autoptr (GBytes) bytes = NULL;

  g_return_val_if_fail (sizes != NULL || n_dims == 0, NULL);
  g_return_val_if_fail (values != NULL || n_values == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_shape (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, n_dims, NULL, &numel, &nbytes, error))
    return NULL;
  if ((guint64) numel != n_values)
    {
      g_autofree char *shown = format_sizes (sizes, n_dims);
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                     "%" G_GSIZE_FORMAT " values given for a tensor of sizes %s, which holds %" G_GINT64_FORMAT,
                     n_values, shown, numel);
      return NULL;
    }
  bytes = _executorch_aligned_bytes_new (values, nbytes);
  if (bytes == NULL)
    {
      _et_set_error (error, ET_ERROR_MEMORY_ALLOCATION_FAILED, "cannot allocate %" G_GSIZE_FORMAT " bytes", nbytes);
      return NULL;
    }
  return tensor_new_bytes (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, n_dims, NULL, numel, nbytes, bytes);
}

static ExecutorchTensor *
tensor_from_et (const EtTensor *t)
{
  ExecutorchTensor *self = g_object_new (EXECUTORCH_TYPE_TENSOR, NULL);
  guint n = MIN (t->ndim, ET_MAX_DIMS);

  self->scalar_type = (ExecutorchScalarType) t->scalar_type;
  self->n_dims = n;
  for (guint i = 0; i < n; i++)
    {
      self->sizes[i] = t->sizes[i];
      self->dim_order[i] = t->dim_order[i];
    }
  self->numel = t->numel;
  self->nbytes = t->nbytes;
  self->device_type = t->device_type;
  self->device_index = t->device_index;
  self->device = _executorch_device_get (t->device_type, t->device_index);
  return self;
}

ExecutorchTensor *
_executorch_tensor_new_view (GObject *owner, const EtTensor *t)
{
  ExecutorchTensor *self = tensor_from_et (t);

  self->storage = STORAGE_VIEW;
  self->owner = owner != NULL ? g_object_ref (owner) : NULL;
  self->data = t->data;
  return self;
}

const void *
_executorch_tensor_peek_data (ExecutorchTensor *tensor)
{
  return tensor->data;
}

GBytes *
_executorch_tensor_peek_bytes (ExecutorchTensor *tensor)
{
  return tensor->storage == STORAGE_BYTES ? tensor->bytes : NULL;
}

gboolean
_executorch_tensor_is_view (ExecutorchTensor *tensor)
{
  return tensor->storage == STORAGE_VIEW;
}

/* --- getters --- */

/**
 * executorch_tensor_get_scalar_type:
 * @tensor: a tensor
 *
 * Gets the type of the tensor's elements.
 *
 * Returns: the element type
 *
 * Since: 1.0
 */
ExecutorchScalarType
executorch_tensor_get_scalar_type (ExecutorchTensor *tensor)
{
  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), EXECUTORCH_SCALAR_TYPE_BYTE);

  return tensor->scalar_type;
}

/**
 * executorch_tensor_get_sizes:
 * @tensor: a tensor
 * @n_dims: (out) (optional): return location for the number of dimensions
 *
 * Gets the size of each dimension of the tensor, in logical order (whatever
 * its dimension order in memory).
 *
 * Returns: (transfer none) (array length=n_dims) (nullable): the size of
 *   each dimension in logical order, owned by @tensor; %NULL for a
 *   0-dimensional tensor
 *
 * Since: 1.0
 */
const gint64 *
executorch_tensor_get_sizes (ExecutorchTensor *tensor, gsize *n_dims)
{
  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), NULL);

  if (n_dims != NULL)
    *n_dims = tensor->n_dims;
  return tensor->n_dims > 0 ? tensor->sizes : NULL;
}

/**
 * executorch_tensor_get_dim_order:
 * @tensor: a tensor
 * @n_dims: (out) (optional): return location for the number of dimensions
 *
 * Gets the tensor's dimension order: the order in which its dimensions are
 * laid out in memory, from the outermost to the innermost. A contiguous
 * tensor has the order 0, 1, 2, ...; channels-last 4-D tensors have 0, 2, 3,
 * 1.
 *
 * Returns: (transfer none) (array length=n_dims) (nullable): the dimensions
 *   from the outermost to the innermost in memory, owned by @tensor; %NULL
 *   for a 0-dimensional tensor
 *
 * Since: 1.0
 */
const guint8 *
executorch_tensor_get_dim_order (ExecutorchTensor *tensor, gsize *n_dims)
{
  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), NULL);

  if (n_dims != NULL)
    *n_dims = tensor->n_dims;
  return tensor->n_dims > 0 ? tensor->dim_order : NULL;
}

/**
 * executorch_tensor_get_n_dims:
 * @tensor: a tensor
 *
 * Gets the number of dimensions of the tensor.
 *
 * Returns: the number of dimensions (0 for a single value)
 *
 * Since: 1.0
 */
gsize
executorch_tensor_get_n_dims (ExecutorchTensor *tensor)
{
  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), 0);

  return tensor->n_dims;
}

/**
 * executorch_tensor_get_numel:
 * @tensor: a tensor
 *
 * Gets the number of elements of the tensor.
 *
 * Returns: the number of elements, the product of the sizes
 *
 * Since: 1.0
 */
gint64
executorch_tensor_get_numel (ExecutorchTensor *tensor)
{
  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), 0);

  return tensor->numel;
}

/**
 * executorch_tensor_get_nbytes:
 * @tensor: a tensor
 *
 * Gets the size of the tensor's elements in bytes: the number of elements
 * times the size of one.
 *
 * Returns: the size of the elements in bytes
 *
 * Since: 1.0
 */
gsize
executorch_tensor_get_nbytes (ExecutorchTensor *tensor)
{
  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), 0);

  return tensor->nbytes;
}

/**
 * executorch_tensor_get_device:
 * @tensor: a tensor
 *
 * Gets the device the tensor's elements live on. Use
 * [method@Executorch.Tensor.to_device] to copy them to another one.
 *
 * Returns: (transfer none): the device the elements live on; owned by @tensor
 *
 * Since: 1.0
 */
ExecutorchDevice *
executorch_tensor_get_device (ExecutorchTensor *tensor)
{
  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), NULL);

  /* NULL only for an empty tensor made by g_object_new() alone. */
  return tensor->device != NULL ? tensor->device : executorch_device_get_cpu ();
}

static gboolean
check_has_data (ExecutorchTensor *tensor, GError **error)
{
  if (tensor->data == NULL && tensor->nbytes > 0)
    {
      _et_set_error (error, ET_ERROR_INVALID_STATE, "the tensor has no memory (an output the method never wrote)");
      return FALSE;
    }
  return TRUE;
}

/**
 * executorch_tensor_get_bytes:
 * @tensor: a tensor
 * @error: return location for a #GError, or %NULL
 *
 * Gets the elements in host memory, in memory order (see
 * [method@Executorch.Tensor.get_dim_order]).  For a host tensor this is
 * the #GBytes it holds; for a view it is a copy taken now (later
 * executions do not change it); for a device tensor the elements are
 * copied to the host.
 *
 * Returns: (transfer full) (nullable): the elements, or %NULL with @error
 *   set when they cannot be copied from the device or a view has no memory
 *
 * Since: 1.0
 */
GBytes *
executorch_tensor_get_bytes (ExecutorchTensor *tensor, GError **error)
{
  void *host;

  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  switch (tensor->storage)
    {
      case STORAGE_BYTES:
        /* NULL only for an empty tensor made by g_object_new() alone. */
        return tensor->bytes != NULL ? g_bytes_ref (tensor->bytes) : g_bytes_new (NULL, 0);
      case STORAGE_VIEW:
        if (tensor->device_type == ET_DEVICE_CPU)
          {
            if (!check_has_data (tensor, error))
              return NULL;
            return _executorch_aligned_bytes_new (tensor->data, tensor->nbytes);
          }
        G_GNUC_FALLTHROUGH;
      case STORAGE_DEVICE:
      default:
        if (!check_has_data (tensor, error))
          return NULL;
        host = _et_device_alloc (ET_DEVICE_CPU, 0, tensor->nbytes, _EXECUTORCH_DATA_ALIGNMENT, error);
        if (host == NULL)
          return NULL;
        if (!_et_device_copy (ET_DEVICE_CPU, 0, host, tensor->device_type, tensor->device_index, tensor->data,
                              tensor->nbytes, error))
          {
            _et_device_free (ET_DEVICE_CPU, 0, host);
            return NULL;
          }
        return g_bytes_new_with_free_func (host, tensor->nbytes, free, host);
    }
}

/**
 * executorch_tensor_get_floats:
 * @tensor: a %EXECUTORCH_SCALAR_TYPE_FLOAT tensor
 * @n_values: (out) (optional): return location for the number of elements
 * @error: return location for a #GError, or %NULL
 *
 * Copies the elements of a Float tensor into a new array, in memory order
 * (see [method@Executorch.Tensor.get_dim_order]); convenient from
 * language bindings.
 *
 * Returns: (transfer full) (array length=n_values) (nullable): the
 *   elements (free with g_free()), or %NULL with @error set to
 *   %EXECUTORCH_ERROR_INVALID_TYPE when the tensor is not Float, or
 *   another error when the elements cannot be read.  An empty tensor gives
 *   a non-%NULL array of 0 elements.
 *
 * Since: 1.0
 */
gfloat *
executorch_tensor_get_floats (ExecutorchTensor *tensor, gsize *n_values, GError **error)
{
  g_autoptr (GBytes) bytes = NULL;
  gfloat *values;

  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (n_values != NULL)
    *n_values = 0;
  if (tensor->scalar_type != EXECUTORCH_SCALAR_TYPE_FLOAT)
    {
      _et_set_error (error, ET_ERROR_INVALID_TYPE, "the tensor holds %s, not Float",
                     et_scalar_type_name (tensor->scalar_type));
      return NULL;
    }
  bytes = executorch_tensor_get_bytes (tensor, error);
  if (bytes == NULL)
    return NULL;
  values = g_new (gfloat, MAX (tensor->numel, 1));
  if (tensor->nbytes > 0)
    memcpy (values, g_bytes_get_data (bytes, NULL), tensor->nbytes);
  if (n_values != NULL)
    *n_values = (gsize) tensor->numel;
  return values;
}

/**
 * executorch_tensor_to_floats:
 * @tensor: a %EXECUTORCH_SCALAR_TYPE_FLOAT, %EXECUTORCH_SCALAR_TYPE_HALF or
 *   %EXECUTORCH_SCALAR_TYPE_BFLOAT16 tensor
 * @n_values: (out) (optional): return location for the number of elements
 * @error: return location for a #GError, or %NULL
 *
 * Copies the elements of a floating-point tensor into a new array of
 * floats, in memory order, converting Half and BFloat16 elements (exactly:
 * every value of theirs is a float).  For a Float tensor it is
 * [method@Executorch.Tensor.get_floats].  Convenient for the outputs of a
 * program exported in half precision, such as a language model's logits.
 *
 * Returns: (transfer full) (array length=n_values) (nullable): the
 *   elements (free with g_free()), or %NULL with @error set to
 *   %EXECUTORCH_ERROR_INVALID_TYPE when the tensor holds another type, or
 *   another error when the elements cannot be read
 *
 * Since: 1.0
 */
gfloat *
executorch_tensor_to_floats (ExecutorchTensor *tensor, gsize *n_values, GError **error)
{
  g_autoptr (GBytes) bytes = NULL;
  const guint16 *bits;
  gfloat *values;

  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (tensor->scalar_type == EXECUTORCH_SCALAR_TYPE_FLOAT)
    return executorch_tensor_get_floats (tensor, n_values, error);
  if (n_values != NULL)
    *n_values = 0;
  if (tensor->scalar_type != EXECUTORCH_SCALAR_TYPE_HALF && tensor->scalar_type != EXECUTORCH_SCALAR_TYPE_BFLOAT16)
    {
      _et_set_error (error, ET_ERROR_INVALID_TYPE, "the tensor holds %s, not Float, Half or BFloat16",
                     et_scalar_type_name (tensor->scalar_type));
      return NULL;
    }
  bytes = executorch_tensor_get_bytes (tensor, error);
  if (bytes == NULL)
    return NULL;
  bits = g_bytes_get_data (bytes, NULL);
  values = g_new (gfloat, MAX (tensor->numel, 1));
  float (*widen) (uint16_t) =
      tensor->scalar_type == EXECUTORCH_SCALAR_TYPE_HALF ? et_half_to_float : et_bfloat16_to_float;
  for (gint64 i = 0; i < tensor->numel; i++)
    values[i] = widen (bits[i]);
  if (n_values != NULL)
    *n_values = (gsize) tensor->numel;
  return values;
}

/* A tensor with @self's metadata on another device, owning @data. */
static ExecutorchTensor *
tensor_like (ExecutorchTensor *self, int device_type, int device_index)
{
  ExecutorchTensor *t =
      tensor_alloc (self->scalar_type, self->sizes, self->n_dims, self->dim_order, self->numel, self->nbytes);

  t->device_type = device_type;
  t->device_index = device_index;
  t->device = _executorch_device_get (device_type, device_index);
  return t;
}

static ExecutorchTensor *
host_tensor_from_bytes (ExecutorchTensor *self, GBytes *bytes)
{
  ExecutorchTensor *t = tensor_like (self, ET_DEVICE_CPU, 0);

  t->storage = STORAGE_BYTES;
  t->bytes = g_bytes_ref (bytes);
  t->data = (void *) g_bytes_get_data (bytes, NULL);
  return t;
}

static ExecutorchTensor *
device_tensor_new (ExecutorchTensor *self, int device_type, int device_index, GError **error)
{
  void *memory = _et_device_alloc (device_type, device_index, self->nbytes, 64, error);
  ExecutorchTensor *t;

  if (memory == NULL)
    return NULL;
  t = tensor_like (self, device_type, device_index);
  t->storage = STORAGE_DEVICE;
  t->data = memory;
  return t;
}

ExecutorchTensor *
_executorch_tensor_new_copy_of (const EtTensor *t)
{
  ExecutorchTensor *view = _executorch_tensor_new_view (NULL, t);
  ExecutorchTensor *copy = executorch_tensor_copy (view, NULL);

  g_object_unref (view);
  return copy;
}

/**
 * executorch_tensor_copy:
 * @tensor: a tensor
 * @error: return location for a #GError, or %NULL
 *
 * Makes an independent copy of @tensor on the same device, with the same
 * sizes and layout.  Use it to keep an output after the method executes
 * again.  (A host tensor that owns its #GBytes shares them with the copy:
 * they never change.)
 *
 * Returns: (transfer full) (nullable): a new tensor, or %NULL with @error
 *   set when memory cannot be allocated or copied
 *
 * Since: 1.0
 */
ExecutorchTensor *
executorch_tensor_copy (ExecutorchTensor *tensor, GError **error)
{
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) local = NULL;
  ExecutorchTensor *copy;

  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (tensor->device_type == ET_DEVICE_CPU)
    {
      bytes = executorch_tensor_get_bytes (tensor, error);
      return bytes != NULL ? host_tensor_from_bytes (tensor, bytes) : NULL;
    }
  if (!check_has_data (tensor, error))
    return NULL;
  copy = device_tensor_new (tensor, tensor->device_type, tensor->device_index, error);
  if (copy == NULL)
    return NULL;
  if (_et_device_copy (copy->device_type, copy->device_index, copy->data, tensor->device_type, tensor->device_index,
                       tensor->data, tensor->nbytes, &local))
    return copy;
  if (!g_error_matches (local, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      g_object_unref (copy);
      return NULL;
    }
  /* No device-to-device copy: go through the host. */
  bytes = executorch_tensor_get_bytes (tensor, error);
  if (bytes == NULL || !_et_device_copy (copy->device_type, copy->device_index, copy->data, ET_DEVICE_CPU, 0,
                                         g_bytes_get_data (bytes, NULL), tensor->nbytes, error))
    {
      g_object_unref (copy);
      return NULL;
    }
  return copy;
}

/**
 * executorch_tensor_to_device:
 * @tensor: a tensor
 * @device: where the copy goes
 * @error: return location for a #GError, or %NULL
 *
 * Copies @tensor to @device, allocating memory there with the device's
 * allocator plug-in.  Copying to the device the tensor is on gives an
 * independent copy, as [method@Executorch.Tensor.copy] does.
 *
 * Returns: (transfer full) (nullable): a new tensor on @device, or %NULL
 *   with @error set: %EXECUTORCH_ERROR_NOT_FOUND when no allocator is
 *   registered for the device type, or the allocator's failure
 *
 * Since: 1.0
 */
ExecutorchTensor *
executorch_tensor_to_device (ExecutorchTensor *tensor, ExecutorchDevice *device, GError **error)
{
  int dst_type, dst_index;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) local = NULL;
  ExecutorchTensor *copy;

  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), NULL);
  g_return_val_if_fail (EXECUTORCH_IS_DEVICE (device), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  dst_type = executorch_device_get_device_type (device);
  dst_index = executorch_device_get_index (device);
  if (dst_type == tensor->device_type && dst_index == tensor->device_index)
    return executorch_tensor_copy (tensor, error);
  if (dst_type == ET_DEVICE_CPU)
    {
      bytes = executorch_tensor_get_bytes (tensor, error);
      return bytes != NULL ? host_tensor_from_bytes (tensor, bytes) : NULL;
    }
  if (!check_has_data (tensor, error))
    return NULL;
  copy = device_tensor_new (tensor, dst_type, dst_index, error);
  if (copy == NULL)
    return NULL;
  if (_et_device_copy (dst_type, dst_index, copy->data, tensor->device_type, tensor->device_index, tensor->data,
                       tensor->nbytes, &local))
    return copy;
  if (tensor->device_type == ET_DEVICE_CPU ||
      !g_error_matches (local, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      g_object_unref (copy);
      return NULL;
    }
  bytes = executorch_tensor_get_bytes (tensor, error);
  if (bytes == NULL || !_et_device_copy (dst_type, dst_index, copy->data, ET_DEVICE_CPU, 0,
                                         g_bytes_get_data (bytes, NULL), tensor->nbytes, error))
    {
      g_object_unref (copy);
      return NULL;
    }
  return copy;
}
