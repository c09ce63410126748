/* aoti-tensor.c: what stands behind an AtenTensorHandle
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A tensor is a view (sizes, strides, offset, dtype) on a reference-counted
 * storage.  Storage either owns device memory (from empty_strided, freed
 * stream-ordered when the last view goes) or borrows memory that someone
 * else frees: ExecuTorch's planned buffers and the model's constants.
 */
#include "cuda-private.h"

#include <stdlib.h>
#include <string.h>

struct _AotiStorage
{
  gint ref_count; /* atomic: generated code may share across threads */
  int32_t device_type;
  int32_t device_index;
  void *data;
  size_t nbytes;
  bool owned;
};

static gint64 live_tensors; /* atomic */

static const CudaDeviceOps *device_ops;

void
_executorch_cuda_set_ops (const CudaDeviceOps *ops)
{
  device_ops = ops;
}

const CudaDeviceOps *
_executorch_cuda_ops (void)
{
  return device_ops;
}

static AotiStorage *
storage_new (void *data, size_t nbytes, int32_t device_type, int32_t device_index, bool owned)
{
  AotiStorage *storage = g_new0 (AotiStorage, 1);

  storage->ref_count = 1;
  storage->data = data;
  storage->nbytes = nbytes;
  storage->device_type = device_type;
  storage->device_index = device_index;
  storage->owned = owned;
  return storage;
}

static void
storage_unref (AotiStorage *storage)
{
  if (!g_atomic_int_dec_and_test (&storage->ref_count))
    return;
  if (storage->owned && storage->data != NULL)
    {
      if (storage->device_type == AOTI_DEVICE_CPU)
        free (storage->data);
      else
        device_ops->free_async (storage->data, _aoti_current_stream ());
    }
  g_free (storage);
}

/* Sizes must be >= 0 and strides given for every dim; numel must fit. */
static AotiTensor *
tensor_new (AotiStorage *storage, int64_t ndim, const int64_t *sizes, const int64_t *strides, int64_t storage_offset,
            int32_t dtype)
{
  AotiTensor *tensor;
  int64_t numel = 1;

  if (ndim < 0 || ndim > ET_MAX_DIMS || (ndim > 0 && sizes == NULL) || storage_offset < 0 ||
      et_scalar_type_size (dtype) == 0)
    return NULL;
  for (int64_t d = 0; d < ndim; d++)
    {
      if (sizes[d] < 0 || (sizes[d] != 0 && numel > INT64_MAX / sizes[d]))
        return NULL;
      numel *= sizes[d];
    }
  tensor = g_new0 (AotiTensor, 1);
  tensor->storage = storage;
  tensor->storage_offset = storage_offset;
  tensor->dtype = dtype;
  tensor->ndim = ndim;
  tensor->numel = numel;
  tensor->sizes = tensor->inline_dims;
  tensor->strides = tensor->inline_dims + ET_MAX_DIMS;
  for (int64_t d = ndim - 1, running = 1; d >= 0; d--)
    {
      tensor->sizes[d] = sizes[d];
      tensor->strides[d] = strides != NULL ? strides[d] : running;
      running *= sizes[d] > 1 ? sizes[d] : 1;
    }
  __atomic_fetch_add (&live_tensors, 1, __ATOMIC_RELAXED);
  return tensor;
}

AotiTensor *
_aoti_tensor_new_borrowed (void *data, int64_t ndim, const int64_t *sizes, const int64_t *strides,
                           int64_t storage_offset, int32_t dtype, int32_t device_type, int32_t device_index)
{
  AotiStorage *storage = storage_new (data, 0, device_type, device_index, false);
  AotiTensor *tensor = tensor_new (storage, ndim, sizes, strides, storage_offset, dtype);

  if (tensor == NULL)
    storage_unref (storage);
  else if (!_aoti_tensor_span_nbytes (tensor, &storage->nbytes))
    {
      _aoti_tensor_free (tensor);
      return NULL;
    }
  else
    storage->nbytes += (size_t) storage_offset * et_scalar_type_size (dtype);
  return tensor;
}

AotiTensor *
_aoti_tensor_new_empty (int64_t ndim, const int64_t *sizes, const int64_t *strides, int32_t dtype, int32_t device_type,
                        int32_t device_index, void *stream)
{
  AotiStorage *storage = storage_new (NULL, 0, device_type, device_index, true);
  AotiTensor *tensor = tensor_new (storage, ndim, sizes, strides, 0, dtype);
  size_t nbytes;
  void *data = NULL;

  if (tensor == NULL)
    {
      storage_unref (storage);
      return NULL;
    }
  if (!_aoti_tensor_span_nbytes (tensor, &nbytes))
    goto failed;
  if (device_type == AOTI_DEVICE_CPU)
    data = aligned_alloc (64, (nbytes + 63) / 64 * 64 + 64);
  else if (device_type == AOTI_DEVICE_CUDA && device_ops != NULL)
    {
      if (device_ops->malloc_async (&data, nbytes > 0 ? nbytes : 1, stream) != 0)
        data = NULL;
    }
  if (data == NULL)
    goto failed;
  storage->data = data;
  storage->nbytes = nbytes;
  return tensor;

failed:
  _aoti_tensor_free (tensor);
  return NULL;
}

AotiTensor *
_aoti_tensor_new_view (const AotiTensor *base, int64_t ndim, const int64_t *sizes, const int64_t *strides,
                       int64_t storage_offset)
{
  AotiTensor *tensor;
  size_t span;

  g_atomic_int_inc (&base->storage->ref_count);
  tensor = tensor_new (base->storage, ndim, sizes, strides, storage_offset, base->dtype);
  if (tensor == NULL)
    {
      storage_unref (base->storage);
      return NULL;
    }
  /* A view may not reach outside its storage. */
  if (!_aoti_tensor_span_nbytes (tensor, &span) ||
      (tensor->numel > 0 &&
       (size_t) storage_offset * et_scalar_type_size (tensor->dtype) + span > base->storage->nbytes))
    {
      _aoti_tensor_free (tensor);
      return NULL;
    }
  return tensor;
}

void
_aoti_tensor_free (AotiTensor *tensor)
{
  if (tensor == NULL)
    return;
  storage_unref (tensor->storage);
  __atomic_fetch_sub (&live_tensors, 1, __ATOMIC_RELAXED);
  g_free (tensor);
}

int64_t
_aoti_tensor_live_count (void)
{
  return __atomic_load_n (&live_tensors, __ATOMIC_RELAXED);
}

void *
_aoti_tensor_data (const AotiTensor *tensor)
{
  if (tensor->storage->data == NULL)
    return NULL;
  return (guint8 *) tensor->storage->data + tensor->storage_offset * (int64_t) et_scalar_type_size (tensor->dtype);
}

int32_t
_aoti_tensor_device_type (const AotiTensor *tensor)
{
  return tensor->storage->device_type;
}

int32_t
_aoti_tensor_device_index (const AotiTensor *tensor)
{
  return tensor->storage->device_index;
}

size_t
_aoti_tensor_storage_nbytes (const AotiTensor *tensor)
{
  return tensor->storage->nbytes;
}

bool
_aoti_tensor_is_contiguous (const AotiTensor *tensor)
{
  int64_t expected = 1;

  for (int64_t d = tensor->ndim - 1; d >= 0; d--)
    {
      if (tensor->sizes[d] != 1 && tensor->strides[d] != expected)
        return false;
      expected *= tensor->sizes[d];
    }
  return true;
}

bool
_aoti_tensor_span_nbytes (const AotiTensor *tensor, size_t *nbytes)
{
  uint64_t last = 0;
  size_t element = et_scalar_type_size (tensor->dtype);

  if (tensor->numel == 0)
    {
      *nbytes = 0;
      return true;
    }
  for (int64_t d = 0; d < tensor->ndim; d++)
    {
      uint64_t step;
      if (tensor->strides[d] < 0)
        return false;
      if (__builtin_mul_overflow ((uint64_t) (tensor->sizes[d] - 1), (uint64_t) tensor->strides[d], &step) ||
          __builtin_add_overflow (last, step, &last))
        return false;
    }
  if (__builtin_add_overflow (last, 1, &last) || __builtin_mul_overflow (last, (uint64_t) element, &last) ||
      last > SIZE_MAX)
    return false;
  *nbytes = (size_t) last;
  return true;
}

static CudaCopyKind
copy_kind (const AotiTensor *dst, const AotiTensor *src)
{
  if (_aoti_tensor_device_type (src) == AOTI_DEVICE_CPU)
    return CUDA_COPY_HOST_TO_DEVICE;
  return _aoti_tensor_device_type (dst) == AOTI_DEVICE_CPU ? CUDA_COPY_DEVICE_TO_HOST : CUDA_COPY_DEVICE_TO_DEVICE;
}

static int
copy_bytes (const AotiTensor *dst, void *to, const AotiTensor *src, const void *from, size_t nbytes, void *stream)
{
  if (nbytes == 0)
    return 0;
  if (_aoti_tensor_device_type (dst) == AOTI_DEVICE_CPU && _aoti_tensor_device_type (src) == AOTI_DEVICE_CPU)
    {
      memmove (to, from, nbytes);
      return 0;
    }
  if (device_ops == NULL)
    return -1;
  return device_ops->memcpy_async (to, from, nbytes, copy_kind (dst, src), stream);
}

int
_aoti_tensor_copy (AotiTensor *dst, const AotiTensor *src, void *stream)
{
  size_t element = et_scalar_type_size (dst->dtype);
  int64_t index[ET_MAX_DIMS] = { 0 };

  if (dst->dtype != src->dtype || dst->numel != src->numel)
    return -1;
  if (dst->numel == 0)
    return 0;
  if (_aoti_tensor_is_contiguous (dst) && _aoti_tensor_is_contiguous (src))
    return copy_bytes (dst, _aoti_tensor_data (dst), src, _aoti_tensor_data (src), (size_t) dst->numel * element,
                       stream);
  if (copy_kind (dst, src) == CUDA_COPY_DEVICE_TO_DEVICE && device_ops != NULL && device_ops->strided_copy != NULL &&
      dst->ndim == src->ndim && memcmp (dst->sizes, src->sizes, (size_t) dst->ndim * sizeof dst->sizes[0]) == 0)
    return device_ops->strided_copy (_aoti_tensor_data (dst), dst->strides, _aoti_tensor_data (src), src->strides,
                                     dst->sizes, (int) dst->ndim, dst->numel, (int) element, stream);
  /* Otherwise one element at a time, in dst's logical order over src's. */
  for (int64_t n = 0; n < dst->numel; n++)
    {
      int64_t from = 0, to = 0, rest = n;
      for (int64_t d = dst->ndim - 1; d >= 0; d--)
        {
          index[d] = dst->sizes[d] ? rest % dst->sizes[d] : 0;
          rest = dst->sizes[d] ? rest / dst->sizes[d] : 0;
          to += index[d] * dst->strides[d];
        }
      rest = n;
      for (int64_t d = src->ndim - 1; d >= 0; d--)
        {
          int64_t i = src->sizes[d] ? rest % src->sizes[d] : 0;
          rest = src->sizes[d] ? rest / src->sizes[d] : 0;
          from += i * src->strides[d];
        }
      if (copy_bytes (dst, (guint8 *) _aoti_tensor_data (dst) + to * (int64_t) element, src,
                      (const guint8 *) _aoti_tensor_data (src) + from * (int64_t) element, element, stream) != 0)
        return -1;
    }
  return 0;
}
