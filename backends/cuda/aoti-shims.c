/* aoti-shims.c: the AOTInductor host functions a model .so imports
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Generated code calls these by name through the global symbol scope, so
 * they are this library's second public ABI (documented in docs/devices.md).
 * They follow torch's C shim: opaque handles, int32 results (0 = success),
 * torch dtype and device numbering.  No other library of ours defines any
 * aoti_* symbol.
 */
#include "cuda-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AOTI_EXPORT __attribute__ ((visibility ("default")))
#define AOTI_OK 0
#define AOTI_FAILURE 1

typedef AotiTensor *AtenTensorHandle;
typedef int32_t AOTITorchError;

/* The thread's current stream for generated code (one device: index 0). */
static _Thread_local struct
{
  void *stream;
  int32_t device_index;
} current;

void *
_aoti_current_stream (void)
{
  return current.stream;
}

void *
_aoti_swap_current_stream (void *stream)
{
  void *previous = current.stream;
  current.stream = stream;
  return previous;
}

#define CHECK_ARG(cond)      \
  do                         \
    {                        \
      if (!(cond))           \
        return AOTI_FAILURE; \
    }                        \
  while (0)

/* ---- dtype, device and layout constants (torch numbering) ---- */

#define DTYPE(name, value)                           \
  AOTI_EXPORT int32_t aoti_torch_dtype_##name (void) \
  {                                                  \
    return value;                                    \
  }
DTYPE (uint8, 0)
DTYPE (int8, 1)
DTYPE (int16, 2)
DTYPE (int32, 3)
DTYPE (int64, 4)
DTYPE (float16, 5)
DTYPE (float32, 6)
DTYPE (float64, 7)
DTYPE (complex32, 8)
DTYPE (complex64, 9)
DTYPE (complex128, 10)
DTYPE (bool, 11)
DTYPE (bfloat16, 15)
DTYPE (float8_e5m2, 23)
DTYPE (float8_e4m3fn, 24)
DTYPE (float8_e5m2fnuz, 25)
DTYPE (float8_e4m3fnuz, 26)
DTYPE (uint16, 27)
DTYPE (uint32, 28)
DTYPE (uint64, 29)
#undef DTYPE

AOTI_EXPORT int32_t
aoti_torch_device_type_cpu (void)
{
  return AOTI_DEVICE_CPU;
}
AOTI_EXPORT int32_t
aoti_torch_device_type_cuda (void)
{
  return AOTI_DEVICE_CUDA;
}
AOTI_EXPORT int32_t
aoti_torch_layout_strided (void)
{
  return 0;
}

/* ---- grad mode: inference only ---- */

AOTI_EXPORT bool
aoti_torch_grad_mode_is_enabled (void)
{
  return false;
}

AOTI_EXPORT void
aoti_torch_grad_mode_set_enabled (bool enabled)
{
  if (enabled)
    fprintf (stderr, "executorch-cuda: the model asked for autograd, which this runtime does not have\n");
}

/* ---- diagnostics ---- */

/* Generated code relies on this not returning when @condition is false,
 * and C cannot unwind through it: like upstream, it aborts. */
AOTI_EXPORT void
aoti_torch_check (bool condition, const char *func, const char *file, uint32_t line, const char *message)
{
  if (condition)
    return;
  fprintf (stderr, "executorch-cuda: model check failed in %s (%s:%u): %s\n", func ? func : "?", file ? file : "?",
           line, message ? message : "");
  abort ();
}

AOTI_EXPORT void
aoti_torch_warn (const char *func, const char *file, uint32_t line, const char *message)
{
  g_warning ("model: %s (%s, %s:%u)", message ? message : "", func ? func : "?", file ? file : "?", line);
}

/* ---- tensor getters ---- */

AOTI_EXPORT AOTITorchError
aoti_torch_get_data_ptr (AtenTensorHandle tensor, void **ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = _aoti_tensor_data (tensor);
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_mutable_data_ptr (AtenTensorHandle tensor, void **ret)
{
  return aoti_torch_get_data_ptr (tensor, ret);
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_const_data_ptr (AtenTensorHandle tensor, const void **ret)
{
  return aoti_torch_get_data_ptr (tensor, (void **) ret);
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_sizes (AtenTensorHandle tensor, int64_t **ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = tensor->sizes;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_strides (AtenTensorHandle tensor, int64_t **ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = tensor->strides;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_size (AtenTensorHandle tensor, int64_t dim, int64_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL && dim >= 0 && dim < tensor->ndim);
  *ret = tensor->sizes[dim];
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_stride (AtenTensorHandle tensor, int64_t dim, int64_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL && dim >= 0 && dim < tensor->ndim);
  *ret = tensor->strides[dim];
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_dtype (AtenTensorHandle tensor, int32_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = tensor->dtype;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_dim (AtenTensorHandle tensor, int64_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = tensor->ndim;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_numel (AtenTensorHandle tensor, int64_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = tensor->numel;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_storage_offset (AtenTensorHandle tensor, int64_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = tensor->storage_offset;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_storage_size (AtenTensorHandle tensor, int64_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = (int64_t) _aoti_tensor_storage_nbytes (tensor);
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_storage_numel (AtenTensorHandle tensor, int64_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = (int64_t) (_aoti_tensor_storage_nbytes (tensor) / et_scalar_type_size (tensor->dtype));
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_device_type (AtenTensorHandle tensor, int32_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = _aoti_tensor_device_type (tensor);
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_device_index (AtenTensorHandle tensor, int32_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = _aoti_tensor_device_index (tensor);
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_layout (AtenTensorHandle tensor, int32_t *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = 0;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_is_contiguous (AtenTensorHandle tensor, bool *ret)
{
  CHECK_ARG (tensor != NULL && ret != NULL);
  *ret = _aoti_tensor_is_contiguous (tensor);
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_is_defined (AtenTensorHandle tensor, bool *ret)
{
  CHECK_ARG (ret != NULL);
  *ret = tensor != NULL;
  return AOTI_OK;
}

/* ---- tensor lifecycle ---- */

AOTI_EXPORT AOTITorchError
aoti_torch_create_tensor_from_blob (void *data, int64_t ndim, const int64_t *sizes, const int64_t *strides,
                                    int64_t storage_offset, int32_t dtype, int32_t device_type, int32_t device_index,
                                    AtenTensorHandle *ret)
{
  CHECK_ARG (ret != NULL && (device_type == AOTI_DEVICE_CPU || device_type == AOTI_DEVICE_CUDA));
  *ret = _aoti_tensor_new_borrowed (data, ndim, sizes, strides, storage_offset, dtype, device_type, device_index);
  return *ret != NULL ? AOTI_OK : AOTI_FAILURE;
}

AOTI_EXPORT AOTITorchError
aoti_torch_create_tensor_from_blob_v2 (void *data, int64_t ndim, const int64_t *sizes, const int64_t *strides,
                                       int64_t storage_offset, int32_t dtype, int32_t device_type, int32_t device_index,
                                       AtenTensorHandle *ret, int32_t layout, const uint8_t *opaque_metadata,
                                       int64_t opaque_metadata_size)
{
  /* Only strided tensors; opaque (MKLDNN) metadata has no meaning here. */
  CHECK_ARG (layout == 0 && opaque_metadata_size == 0);
  return aoti_torch_create_tensor_from_blob (data, ndim, sizes, strides, storage_offset, dtype, device_type,
                                             device_index, ret);
}

AOTI_EXPORT AOTITorchError
aoti_torch_empty_strided (int64_t ndim, const int64_t *sizes, const int64_t *strides, int32_t dtype,
                          int32_t device_type, int32_t device_index, AtenTensorHandle *ret)
{
  CHECK_ARG (ret != NULL && (device_type == AOTI_DEVICE_CPU || device_type == AOTI_DEVICE_CUDA));
  *ret = _aoti_tensor_new_empty (ndim, sizes, strides, dtype, device_type, device_index, current.stream);
  return *ret != NULL ? AOTI_OK : AOTI_FAILURE;
}

AOTI_EXPORT AOTITorchError
aoti_torch_delete_tensor_object (AtenTensorHandle tensor)
{
  CHECK_ARG (tensor != NULL);
  _aoti_tensor_free (tensor);
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_new_tensor_handle (AtenTensorHandle original, AtenTensorHandle *ret)
{
  CHECK_ARG (original != NULL && ret != NULL);
  *ret = _aoti_tensor_new_view (original, original->ndim, original->sizes, original->strides, original->storage_offset);
  return *ret != NULL ? AOTI_OK : AOTI_FAILURE;
}

AOTI_EXPORT AOTITorchError
aoti_torch_assign_tensors_out (AtenTensorHandle src, AtenTensorHandle *ret)
{
  return aoti_torch_new_tensor_handle (src, ret);
}

AOTI_EXPORT AOTITorchError
aoti_torch_new_uninitialized_tensor (AtenTensorHandle *ret)
{
  CHECK_ARG (ret != NULL);
  *ret = _aoti_tensor_new_borrowed (NULL, 0, NULL, NULL, 0, 6, AOTI_DEVICE_CPU, 0);
  return *ret != NULL ? AOTI_OK : AOTI_FAILURE;
}

AOTI_EXPORT AOTITorchError
aoti_torch__reinterpret_tensor (AtenTensorHandle self, int64_t ndim, const int64_t *sizes, const int64_t *strides,
                                int64_t storage_offset, AtenTensorHandle *ret)
{
  CHECK_ARG (self != NULL && ret != NULL && strides != NULL);
  *ret = _aoti_tensor_new_view (self, ndim, sizes, strides, storage_offset);
  return *ret != NULL ? AOTI_OK : AOTI_FAILURE;
}

AOTI_EXPORT AOTITorchError
aoti_torch_as_strided (AtenTensorHandle self, const int64_t *sizes, const int64_t *strides, AtenTensorHandle *ret)
{
  CHECK_ARG (self != NULL && ret != NULL && strides != NULL);
  *ret = _aoti_tensor_new_view (self, self->ndim, sizes, strides, self->storage_offset);
  return *ret != NULL ? AOTI_OK : AOTI_FAILURE;
}

static AOTITorchError
clone (AtenTensorHandle self, bool preserve_strides, AtenTensorHandle *ret)
{
  AtenTensorHandle copy;

  CHECK_ARG (self != NULL && ret != NULL);
  copy = _aoti_tensor_new_empty (self->ndim, self->sizes, preserve_strides ? self->strides : NULL, self->dtype,
                                 _aoti_tensor_device_type (self), _aoti_tensor_device_index (self), current.stream);
  if (copy == NULL)
    return AOTI_FAILURE;
  if (_aoti_tensor_copy (copy, self, current.stream) != 0)
    {
      _aoti_tensor_free (copy);
      return AOTI_FAILURE;
    }
  *ret = copy;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_clone (AtenTensorHandle self, AtenTensorHandle *ret)
{
  return clone (self, false, ret);
}

AOTI_EXPORT AOTITorchError
aoti_torch_clone_preserve_strides (AtenTensorHandle self, AtenTensorHandle *ret)
{
  return clone (self, true, ret);
}

AOTI_EXPORT AOTITorchError
aoti_torch_copy_ (AtenTensorHandle self, AtenTensorHandle src, int32_t non_blocking)
{
  CHECK_ARG (self != NULL && src != NULL);
  return _aoti_tensor_copy (self, src, current.stream) == 0 ? AOTI_OK : AOTI_FAILURE;
}

AOTI_EXPORT AOTITorchError
aoti_torch_tensor_copy_ (AtenTensorHandle src, AtenTensorHandle dst)
{
  return aoti_torch_copy_ (dst, src, 0);
}

AOTI_EXPORT AOTITorchError
aoti_torch_assign_tensors (AtenTensorHandle src, AtenTensorHandle dst)
{
  return aoti_torch_copy_ (dst, src, 0);
}

AOTI_EXPORT AOTITorchError
aoti_torch_zero_ (AtenTensorHandle tensor)
{
  size_t nbytes;

  CHECK_ARG (tensor != NULL && _aoti_tensor_span_nbytes (tensor, &nbytes));
  if (nbytes == 0)
    return AOTI_OK;
  CHECK_ARG (_aoti_tensor_is_contiguous (tensor));
  if (_aoti_tensor_device_type (tensor) == AOTI_DEVICE_CPU)
    {
      memset (_aoti_tensor_data (tensor), 0, nbytes);
      return AOTI_OK;
    }
  const CudaDeviceOps *ops = _executorch_cuda_ops ();
  return ops != NULL && ops->memset_async (_aoti_tensor_data (tensor), 0, nbytes, current.stream) == 0 ? AOTI_OK
                                                                                                       : AOTI_FAILURE;
}

/* One element back to the host. */
static AOTITorchError
item (AtenTensorHandle tensor, int32_t dtype, void *ret, size_t size)
{
  CHECK_ARG (tensor != NULL && ret != NULL && tensor->dtype == dtype && tensor->numel == 1);
  if (_aoti_tensor_device_type (tensor) == AOTI_DEVICE_CPU)
    {
      memcpy (ret, _aoti_tensor_data (tensor), size);
      return AOTI_OK;
    }
  const CudaDeviceOps *ops = _executorch_cuda_ops ();
  if (ops == NULL ||
      ops->memcpy_async (ret, _aoti_tensor_data (tensor), size, CUDA_COPY_DEVICE_TO_HOST, current.stream) != 0 ||
      ops->stream_synchronize (current.stream) != 0)
    return AOTI_FAILURE;
  return AOTI_OK;
}

#define ITEM(name, type, dtype)                                                          \
  AOTI_EXPORT AOTITorchError aoti_torch_item_##name (AtenTensorHandle tensor, type *ret) \
  {                                                                                      \
    return item (tensor, dtype, ret, sizeof (type));                                     \
  }
ITEM (bool, bool, 11)
ITEM (uint8, uint8_t, 0)
ITEM (int8, int8_t, 1)
ITEM (int16, int16_t, 2)
ITEM (int32, int32_t, 3)
ITEM (int64, int64_t, 4)
ITEM (float32, float, 6)
ITEM (float64, double, 7)
#undef ITEM

#define SCALAR_TO_TENSOR(name, type, dtype)                                                         \
  AOTI_EXPORT AOTITorchError aoti_torch_scalar_to_tensor_##name (type value, AtenTensorHandle *ret) \
  {                                                                                                 \
    CHECK_ARG (ret != NULL);                                                                        \
    *ret = _aoti_tensor_new_empty (0, NULL, NULL, dtype, AOTI_DEVICE_CPU, 0, NULL);                 \
    if (*ret == NULL)                                                                               \
      return AOTI_FAILURE;                                                                          \
    memcpy (_aoti_tensor_data (*ret), &value, sizeof value);                                        \
    return AOTI_OK;                                                                                 \
  }
SCALAR_TO_TENSOR (bool, bool, 11)
SCALAR_TO_TENSOR (int32, int32_t, 3)
SCALAR_TO_TENSOR (int64, int64_t, 4)
SCALAR_TO_TENSOR (float32, float, 6)
SCALAR_TO_TENSOR (float64, double, 7)
#undef SCALAR_TO_TENSOR

/* ---- device guards and streams ---- */

typedef struct
{
  int32_t previous_device;
} DeviceGuard;

typedef struct
{
  int32_t previous_device;
  void *previous_stream;
} StreamGuard;

static int
switch_device (int32_t index, int32_t *previous)
{
  const CudaDeviceOps *ops = _executorch_cuda_ops ();
  int now = 0;

  *previous = current.device_index;
  if (ops != NULL && ops->get_device (&now) == 0)
    *previous = now;
  if (index >= 0 && ops != NULL && ops->set_device (index) != 0)
    return AOTI_FAILURE;
  if (index >= 0)
    current.device_index = index;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_create_cuda_guard (int32_t device_index, void **ret)
{
  DeviceGuard *guard;

  CHECK_ARG (ret != NULL);
  guard = g_new0 (DeviceGuard, 1);
  if (switch_device (device_index, &guard->previous_device) != AOTI_OK)
    {
      g_free (guard);
      return AOTI_FAILURE;
    }
  *ret = guard;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_cuda_guard_set_index (void *guard, int32_t device_index)
{
  int32_t ignored;
  CHECK_ARG (guard != NULL);
  return switch_device (device_index, &ignored);
}

AOTI_EXPORT AOTITorchError
aoti_torch_delete_cuda_guard (void *guard)
{
  int32_t ignored;
  DeviceGuard *device_guard = guard;

  CHECK_ARG (guard != NULL);
  switch_device (device_guard->previous_device, &ignored);
  g_free (guard);
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_create_device_guard (int32_t device_index, void **ret)
{
  return aoti_torch_create_cuda_guard (device_index, ret);
}

AOTI_EXPORT AOTITorchError
aoti_torch_device_guard_set_index (void *guard, int32_t device_index)
{
  return aoti_torch_cuda_guard_set_index (guard, device_index);
}

AOTI_EXPORT AOTITorchError
aoti_torch_delete_device_guard (void *guard)
{
  return aoti_torch_delete_cuda_guard (guard);
}

AOTI_EXPORT AOTITorchError
aoti_torch_create_cuda_stream_guard (void *stream, int32_t device_index, void **ret)
{
  StreamGuard *guard;

  CHECK_ARG (ret != NULL);
  guard = g_new0 (StreamGuard, 1);
  if (switch_device (device_index, &guard->previous_device) != AOTI_OK)
    {
      g_free (guard);
      return AOTI_FAILURE;
    }
  guard->previous_stream = _aoti_swap_current_stream (stream);
  *ret = guard;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_delete_cuda_stream_guard (void *guard)
{
  StreamGuard *stream_guard = guard;
  int32_t ignored;

  CHECK_ARG (guard != NULL);
  _aoti_swap_current_stream (stream_guard->previous_stream);
  switch_device (stream_guard->previous_device, &ignored);
  g_free (guard);
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_current_cuda_stream (int32_t device_index, void **ret)
{
  CHECK_ARG (ret != NULL);
  *ret = current.stream;
  return AOTI_OK;
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_current_stream (int32_t device_index, void **ret)
{
  return aoti_torch_get_current_cuda_stream (device_index, ret);
}

AOTI_EXPORT AOTITorchError
aoti_torch_get_current_device_index (int32_t *ret)
{
  CHECK_ARG (ret != NULL);
  *ret = current.device_index;
  return AOTI_OK;
}

/* Sorted: looked up with bsearch by the import check. */
const char *const _aoti_shim_names[] = {
  "aoti_torch__reinterpret_tensor",
  "aoti_torch_as_strided",
  "aoti_torch_assign_tensors",
  "aoti_torch_assign_tensors_out",
  "aoti_torch_check",
  "aoti_torch_clone",
  "aoti_torch_clone_preserve_strides",
  "aoti_torch_copy_",
  "aoti_torch_create_cuda_guard",
  "aoti_torch_create_cuda_stream_guard",
  "aoti_torch_create_device_guard",
  "aoti_torch_create_tensor_from_blob",
  "aoti_torch_create_tensor_from_blob_v2",
  "aoti_torch_cuda_guard_set_index",
  "aoti_torch_delete_cuda_guard",
  "aoti_torch_delete_cuda_stream_guard",
  "aoti_torch_delete_device_guard",
  "aoti_torch_delete_tensor_object",
  "aoti_torch_device_guard_set_index",
  "aoti_torch_device_type_cpu",
  "aoti_torch_device_type_cuda",
  "aoti_torch_dtype_bfloat16",
  "aoti_torch_dtype_bool",
  "aoti_torch_dtype_complex128",
  "aoti_torch_dtype_complex32",
  "aoti_torch_dtype_complex64",
  "aoti_torch_dtype_float16",
  "aoti_torch_dtype_float32",
  "aoti_torch_dtype_float64",
  "aoti_torch_dtype_float8_e4m3fn",
  "aoti_torch_dtype_float8_e4m3fnuz",
  "aoti_torch_dtype_float8_e5m2",
  "aoti_torch_dtype_float8_e5m2fnuz",
  "aoti_torch_dtype_int16",
  "aoti_torch_dtype_int32",
  "aoti_torch_dtype_int64",
  "aoti_torch_dtype_int8",
  "aoti_torch_dtype_uint16",
  "aoti_torch_dtype_uint32",
  "aoti_torch_dtype_uint64",
  "aoti_torch_dtype_uint8",
  "aoti_torch_empty_strided",
  "aoti_torch_get_const_data_ptr",
  "aoti_torch_get_current_cuda_stream",
  "aoti_torch_get_current_device_index",
  "aoti_torch_get_current_stream",
  "aoti_torch_get_data_ptr",
  "aoti_torch_get_device_index",
  "aoti_torch_get_device_type",
  "aoti_torch_get_dim",
  "aoti_torch_get_dtype",
  "aoti_torch_get_layout",
  "aoti_torch_get_mutable_data_ptr",
  "aoti_torch_get_numel",
  "aoti_torch_get_size",
  "aoti_torch_get_sizes",
  "aoti_torch_get_storage_numel",
  "aoti_torch_get_storage_offset",
  "aoti_torch_get_storage_size",
  "aoti_torch_get_stride",
  "aoti_torch_get_strides",
  "aoti_torch_grad_mode_is_enabled",
  "aoti_torch_grad_mode_set_enabled",
  "aoti_torch_is_contiguous",
  "aoti_torch_is_defined",
  "aoti_torch_item_bool",
  "aoti_torch_item_float32",
  "aoti_torch_item_float64",
  "aoti_torch_item_int16",
  "aoti_torch_item_int32",
  "aoti_torch_item_int64",
  "aoti_torch_item_int8",
  "aoti_torch_item_uint8",
  "aoti_torch_layout_strided",
  "aoti_torch_new_tensor_handle",
  "aoti_torch_new_uninitialized_tensor",
  "aoti_torch_scalar_to_tensor_bool",
  "aoti_torch_scalar_to_tensor_float32",
  "aoti_torch_scalar_to_tensor_float64",
  "aoti_torch_scalar_to_tensor_int32",
  "aoti_torch_scalar_to_tensor_int64",
  "aoti_torch_tensor_copy_",
  "aoti_torch_warn",
  "aoti_torch_zero_",
};
const size_t _aoti_shim_n_names = G_N_ELEMENTS (_aoti_shim_names);

static int
compare_name (const void *key, const void *item)
{
  return strcmp (key, *(const char *const *) item);
}

bool
_aoti_shim_provided (const char *name)
{
  return bsearch (name, _aoti_shim_names, _aoti_shim_n_names, sizeof _aoti_shim_names[0], compare_name) != NULL;
}
