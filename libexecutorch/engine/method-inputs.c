/* method-inputs.c: a method's inputs: their memory and binding them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An input that was bound stays the method's input for every execution
 * until it is bound again, as with upstream's Module.  Memory planning may
 * give a planned input's bytes to values computed after its last use, and
 * to views of it (which must keep seeing it), so such an input cannot move
 * out of the plan: the method keeps a copy of what was bound and puts it
 * back before an execution that follows another.  An input whose bytes
 * nothing else shares costs nothing.
 */
#include "method-private.h"

#include <math.h>
#include <string.h>

static gboolean
regions_overlap (const EtTensor *a, const EtTensor *b)
{
  const guint8 *a_start = a->data, *b_start = b->data;

  return a_start < b_start + b->capacity && b_start < a_start + a->capacity;
}

/* Whether another planned tensor of the method uses any of @input's bytes. */
static gboolean
memory_is_shared (EtMethod *method, const EtTensor *input)
{
  for (guint t = 0; t < method->n_tensors; t++)
    {
      const EtTensor *other = &method->tensors[t];

      if (other != input && (other->flags & ET_TENSOR_FLAG_PLANNED) && other->capacity > 0 &&
          regions_overlap (input, other))
        return TRUE;
    }
  return FALSE;
}

gboolean
_et_method_find_shared_inputs (EtMethod *method, GError **error)
{
  method->input_copies = g_new0 (PlannedBuffer, MAX (method->meta->n_inputs, 1));
  for (guint i = 0; i < method->meta->n_inputs; i++)
    {
      EtValue *value = &method->values[method->input_indices[i]];
      PlannedBuffer *copy = &method->input_copies[i];
      EtTensor *tensor;

      if (value->tag != ET_VALUE_TENSOR)
        continue;
      tensor = value->u.tensor;
      if (!(tensor->flags & ET_TENSOR_FLAG_PLANNED) || tensor->capacity == 0 || !memory_is_shared (method, tensor))
        continue;
      copy->device_type = tensor->device_type;
      copy->device_index = tensor->device_index;
      copy->size = tensor->capacity;
      copy->data = _et_device_alloc (copy->device_type, copy->device_index, copy->size, ET_PLANNED_ALIGNMENT, error);
      if (copy->data == NULL)
        {
          _et_prefix_error (error, "input %u: ", i);
          return FALSE;
        }
    }
  return TRUE;
}

void
_et_method_free_input_copies (EtMethod *method)
{
  if (method->input_copies == NULL)
    return;
  for (guint i = 0; i < method->meta->n_inputs; i++)
    _et_device_free (method->input_copies[i].device_type, method->input_copies[i].device_index,
                     method->input_copies[i].data);
  g_clear_pointer (&method->input_copies, g_free);
}

/* Keeps what set_input just wrote into the plan, for later executions. */
static gboolean
keep_input_copy (EtMethod *method, guint index, const EtTensor *tensor, GError **error)
{
  PlannedBuffer *copy = &method->input_copies[index];

  if (copy->data == NULL)
    return TRUE;
  return _et_device_copy (copy->device_type, copy->device_index, copy->data, tensor->device_type, tensor->device_index,
                          tensor->data, tensor->nbytes, error);
}

gboolean
_et_method_restore_inputs (EtMethod *method, GError **error)
{
  for (guint i = 0; i < method->meta->n_inputs; i++)
    {
      const PlannedBuffer *copy = &method->input_copies[i];
      const EtTensor *tensor;

      if (copy->data == NULL)
        continue;
      /* The execution right after set_input finds the bytes in place. */
      if (method->input_fresh[i])
        {
          method->input_fresh[i] = FALSE;
          continue;
        }
      tensor = method->values[method->input_indices[i]].u.tensor;
      if (!_et_device_copy (tensor->device_type, tensor->device_index, tensor->data, copy->device_type,
                            copy->device_index, copy->data, tensor->nbytes, error))
        {
          _et_prefix_error (error, "input %u: ", i);
          return FALSE;
        }
    }
  return TRUE;
}

static char *
format_sizes (uint32_t ndim, const int64_t *sizes)
{
  GString *text = g_string_new ("[");
  for (uint32_t i = 0; i < ndim; i++)
    g_string_append_printf (text, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", sizes[i]);
  g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

gboolean
_et_method_check_idle (EtMethod *method, GError **error)
{
  if (g_atomic_int_get (&method->busy))
    {
      _et_set_error (error, ET_ERROR_INVALID_STATE, "method %s is executing", method->meta->name);
      return FALSE;
    }
  return TRUE;
}

/* The input tensor @index of @method, with @input's type checked. */
static EtTensor *
tensor_input (EtMethod *method, guint index, int scalar_type, GError **error)
{
  EtValue *value;

  if (index >= method->meta->n_inputs)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "input %u does not exist: method %s has %u inputs", index,
                     method->meta->name, method->meta->n_inputs);
      return NULL;
    }
  value = &method->values[method->input_indices[index]];
  if (value->tag != ET_VALUE_TENSOR)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "input %u of method %s is a %s, not a tensor", index,
                     method->meta->name, et_value_tag_name (value->tag));
      return NULL;
    }
  if (value->u.tensor->scalar_type != scalar_type)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "input %u of method %s must be %s, not %s", index,
                     method->meta->name, et_scalar_type_name (value->u.tensor->scalar_type),
                     et_scalar_type_name (scalar_type) != NULL ? et_scalar_type_name (scalar_type) : "invalid");
      return NULL;
    }
  return value->u.tensor;
}

/* Whether @input must be rearranged into @tensor's dim order. */
static gboolean
needs_relayout (const EtInput *input, const EtTensor *tensor)
{
  return input->dim_order != NULL && input->ndim == tensor->ndim && input->ndim > 1 &&
         memcmp (input->dim_order, tensor->dim_order, input->ndim) != 0;
}

/* Copies the elements of @src (strides @src_strides) to @dst (strides
 * @dst_strides), walking the indices in row-major order. */
static void
copy_strided (guint8 *dst, const int64_t *dst_strides, const guint8 *src, const int64_t *src_strides, uint32_t ndim,
              const int64_t *sizes, size_t element)
{
  int64_t index[ET_MAX_DIMS] = { 0 };
  int64_t numel = 1;

  for (uint32_t i = 0; i < ndim; i++)
    numel *= sizes[i];
  for (int64_t n = 0; n < numel; n++)
    {
      int64_t s = 0, d = 0;

      for (uint32_t i = 0; i < ndim; i++)
        {
          s += index[i] * src_strides[i];
          d += index[i] * dst_strides[i];
        }
      memcpy (dst + d * element, src + s * element, element);
      for (int i = (int) ndim - 1; i >= 0; i--)
        {
          if (++index[i] < sizes[i])
            break;
          index[i] = 0;
        }
    }
}

/* Host bytes the method may read in place: @input's own when they stay
 * valid and are aligned, else an aligned copy (rearranged to @dim_order
 * when it is not NULL). */
static GBytes *
host_bytes_for (const EtInput *input, const uint8_t *dim_order, GError **error)
{
  int64_t sizes[ET_MAX_DIMS], src_strides[ET_MAX_DIMS], dst_strides[ET_MAX_DIMS];
  size_t element = et_scalar_type_size (input->scalar_type);
  guint8 *copy;

  if (dim_order == NULL && input->keep != NULL &&
      ((guintptr) input->data % ET_INPUT_ALIGNMENT == 0 || input->nbytes == 0))
    return g_bytes_ref (input->keep);
  copy = _et_device_alloc (ET_DEVICE_CPU, 0, input->nbytes, ET_INPUT_ALIGNMENT, error);
  if (copy == NULL)
    return NULL;
  if (dim_order == NULL)
    {
      if (input->nbytes > 0)
        memcpy (copy, input->data, input->nbytes);
    }
  else
    {
      memcpy (sizes, input->sizes, input->ndim * sizeof sizes[0]);
      et_strides_from_dim_order (input->ndim, sizes, input->dim_order, src_strides);
      et_strides_from_dim_order (input->ndim, sizes, dim_order, dst_strides);
      copy_strided (copy, dst_strides, input->data, src_strides, input->ndim, sizes, element);
    }
  return g_bytes_new_with_free_func (copy, input->nbytes, free, copy);
}

gboolean
_et_method_bind_input (EtMethod *method, guint index, const EtInput *input, GError **error)
{
  g_autoptr (GBytes) host = NULL;
  EtTensor *tensor;
  const void *data = input->data;
  GBytes *borrowed = input->keep;
  gboolean on_host = input->device_type == ET_DEVICE_CPU;
  const EtTensor *bound;
  EtTensor sized;
  EtError code;

  if (!_et_method_check_idle (method, error) ||
      (tensor = tensor_input (method, index, input->scalar_type, error)) == NULL)
    return FALSE;
  if (input->data == NULL && input->nbytes > 0)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "input %u of method %s has no data", index, method->meta->name);
      return FALSE;
    }
  /* Sized on a copy, committed once the input is bound: a failed binding
   * leaves the tensor as it was.  An input read in place gets new memory at
   * each binding, so it may grow up to the program's bound whatever size
   * was bound before. */
  bound = &method->input_bounds[index];
  sized = *tensor;
  if (!(tensor->flags & (ET_TENSOR_FLAG_PLANNED | ET_TENSOR_FLAG_CONSTANT)))
    sized.capacity = bound->nbytes;
  code = et_tensor_resize (&sized, input->ndim, input->sizes);
  if (code != ET_OK)
    {
      g_autofree char *given = format_sizes (input->ndim, input->sizes);
      g_autofree char *expected = format_sizes (bound->ndim, bound->sizes);
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                     "input %u of method %s has sizes %s, which do not fit the "
                     "method's %s%s",
                     index, method->meta->name, given, tensor->shape_dynamism == ET_SHAPE_STATIC ? "" : "bound ",
                     expected);
      return FALSE;
    }
  if (input->nbytes != sized.nbytes)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "input %u of method %s: %zu bytes given, %zu needed", index,
                     method->meta->name, input->nbytes, sized.nbytes);
      return FALSE;
    }
  if (tensor->flags & ET_TENSOR_FLAG_CONSTANT)
    {
      _et_set_error (error, ET_ERROR_INVALID_STATE, "input %u of method %s is constant program data", index,
                     method->meta->name);
      return FALSE;
    }
  if (needs_relayout (input, tensor))
    {
      /* Device memory is used as it is: only host elements are moved. */
      if (!on_host)
        {
          _et_set_error (error, ET_ERROR_NOT_SUPPORTED,
                         "input %u of method %s: the tensor in %s memory has "
                         "another dim order than the program's, and device memory is not rearranged",
                         index, method->meta->name, _et_device_type_name (input->device_type));
          return FALSE;
        }
      if ((host = host_bytes_for (input, tensor->dim_order, error)) == NULL)
        return FALSE;
    }
  else if (on_host && !(tensor->flags & ET_TENSOR_FLAG_PLANNED))
    {
      /* Borrowed: the method reads these bytes at every execution. */
      if ((host = host_bytes_for (input, NULL, error)) == NULL)
        return FALSE;
    }
  if (host != NULL)
    {
      data = g_bytes_get_data (host, NULL);
      borrowed = host;
    }

  if (tensor->flags & ET_TENSOR_FLAG_PLANNED)
    {
      /* Copied in; never a host memcpy into device memory: the allocators
       * move it.  The planned bytes hold the bound, whatever is copied. */
      *tensor = sized;
      if (input->nbytes > 0 && (!_et_device_copy (tensor->device_type, tensor->device_index, tensor->data,
                                                  on_host ? ET_DEVICE_CPU : input->device_type, input->device_index,
                                                  data, input->nbytes, error) ||
                                !keep_input_copy (method, index, tensor, error)))
        {
          _et_prefix_error (error, "input %u of method %s: ", index, method->meta->name);
          return FALSE;
        }
      method->input_fresh[index] = TRUE;
      borrowed = NULL;
    }
  else
    {
      /* Borrowed memory must already be where the program reads it. */
      if (input->device_type != tensor->device_type || (!on_host && input->device_index != tensor->device_index))
        {
          _et_set_error (error, ET_ERROR_NOT_SUPPORTED,
                         "input %u of method %s is read from %s:%d memory, but "
                         "the tensor given is in %s:%d memory; copy it there first",
                         index, method->meta->name, _et_device_type_name (tensor->device_type), tensor->device_index,
                         _et_device_type_name (input->device_type), input->device_index);
          return FALSE;
        }
      if (borrowed == NULL && input->nbytes > 0)
        {
          _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                         "input %u of method %s: memory that may change cannot "
                         "be read in place",
                         index, method->meta->name);
          return FALSE;
        }
      *tensor = sized;
      tensor->data = (void *) data;
      tensor->capacity = input->nbytes;
    }
  /* The method holds what it reads in place until the input is bound again. */
  if (borrowed != NULL)
    g_bytes_ref (borrowed);
  g_clear_pointer (&method->input_borrowed[index], g_bytes_unref);
  method->input_borrowed[index] = borrowed;
  method->input_set[index] = TRUE;
  return TRUE;
}

gboolean
_et_method_set_input_tensor (EtMethod *method, guint index, int scalar_type, uint32_t ndim, const int64_t *sizes,
                             const void *data, size_t nbytes, GError **error)
{
  EtInput input = {
    .scalar_type = scalar_type,
    .ndim = ndim,
    .sizes = sizes,
    .data = data,
    .nbytes = nbytes,
    .device_type = ET_DEVICE_CPU,
  };

  return _et_method_bind_input (method, index, &input, error);
}

gboolean
_et_method_set_input_scalar (EtMethod *method, guint index, const EtValue *given, GError **error)
{
  const EtValue *value;
  gboolean equal;

  if (!_et_method_check_idle (method, error))
    return FALSE;
  if (index >= method->meta->n_inputs)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "input %u does not exist: method %s has %u inputs", index,
                     method->meta->name, method->meta->n_inputs);
      return FALSE;
    }
  value = &method->values[method->input_indices[index]];
  if (value->tag != given->tag)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "input %u of method %s is a %s, not a %s", index,
                     method->meta->name, et_value_tag_name (value->tag), et_value_tag_name (given->tag));
      return FALSE;
    }
  /* Scalars are baked into the program at export: only the traced value is accepted. */
  switch (value->tag)
    {
      case ET_VALUE_INT: equal = value->u.int_value == given->u.int_value; break;
      case ET_VALUE_BOOL: equal = value->u.bool_value == given->u.bool_value; break;
      case ET_VALUE_DOUBLE:
        {
          double a = value->u.double_value, b = given->u.double_value;
          equal = (isnan (a) && isnan (b)) || a == b || fabs (a - b) <= 1e-4 + 1e-5 * fabs (b);
          break;
        }
      case ET_VALUE_NONE: equal = TRUE; break;
      default: equal = FALSE; break;
    }
  if (!equal)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                     "input %u of method %s was fixed when the program was "
                     "exported; only the traced value is accepted",
                     index, method->meta->name);
      return FALSE;
    }
  g_clear_pointer (&method->input_borrowed[index], g_bytes_unref);
  method->input_set[index] = TRUE;
  return TRUE;
}
