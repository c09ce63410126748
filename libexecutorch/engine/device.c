/* device.c: device memory and the one routine that copies between devices
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "engine.h"
#include "executorch-error.h"

#include <stdlib.h>
#include <string.h>

const char *
_et_device_type_name (int device_type)
{
  switch (device_type)
    {
      case ET_DEVICE_CPU: return "cpu";
      case ET_DEVICE_CUDA: return "cuda";
      default: return "unknown";
    }
}

static const EtDeviceAllocator *
allocator_for (int device_type, GError **error)
{
  const EtDeviceAllocator *allocator = _et_registry_find_allocator (device_type);

  if (allocator == NULL)
    _et_set_error (error, ET_ERROR_NOT_FOUND, "no device allocator is registered for %s memory%s",
                   _et_device_type_name (device_type),
                   device_type == ET_DEVICE_CUDA ? " (libexecutorch-cuda0 provides it once a GPU and its driver "
                                                   "are present)"
                                                 : "");
  return allocator;
}

void *
_et_device_alloc (int device_type, int device_index, size_t nbytes, size_t alignment, GError **error)
{
  const EtDeviceAllocator *allocator;
  void *ptr = NULL;
  EtError code;

  if (alignment < sizeof (void *))
    alignment = sizeof (void *);
  if (device_type == ET_DEVICE_CPU)
    {
      /* Round up so that zero-byte buffers still get a unique pointer. */
      size_t rounded = nbytes == 0 ? alignment : nbytes;
      if (posix_memalign (&ptr, alignment, rounded) != 0)
        {
          _et_set_error (error, ET_ERROR_MEMORY_ALLOCATION_FAILED, "cannot allocate %zu bytes of host memory", nbytes);
          return NULL;
        }
      return ptr;
    }
  if ((allocator = allocator_for (device_type, error)) == NULL)
    return NULL;
  code = allocator->allocate (allocator->user_data, nbytes, device_index, alignment, &ptr);
  if (code != ET_OK || ptr == NULL)
    {
      _et_set_error (error, ET_ERROR_MEMORY_ALLOCATION_FAILED, "cannot allocate %zu bytes on %s:%d (%s)", nbytes,
                     _et_device_type_name (device_type), device_index, _et_error_name (code));
      return NULL;
    }
  return ptr;
}

void
_et_device_free (int device_type, int device_index, void *ptr)
{
  const EtDeviceAllocator *allocator;

  if (ptr == NULL)
    return;
  if (device_type == ET_DEVICE_CPU)
    {
      free (ptr);
      return;
    }
  allocator = _et_registry_find_allocator (device_type);
  if (allocator != NULL)
    allocator->deallocate (allocator->user_data, ptr, device_index);
}

gboolean
_et_device_copy (int dst_type, int dst_index, void *dst, int src_type, int src_index, const void *src, size_t nbytes,
                 GError **error)
{
  const EtDeviceAllocator *allocator;
  EtError code;

  if (nbytes == 0)
    return TRUE;
  if (dst == NULL || src == NULL)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "copy of %zu bytes with no %s memory", nbytes,
                     dst == NULL ? "destination" : "source");
      return FALSE;
    }
  if (dst_type == ET_DEVICE_CPU && src_type == ET_DEVICE_CPU)
    {
      memmove (dst, src, nbytes);
      return TRUE;
    }
  if (src_type == ET_DEVICE_CPU)
    {
      if ((allocator = allocator_for (dst_type, error)) == NULL)
        return FALSE;
      code = allocator->copy_host_to_device (allocator->user_data, dst, src, nbytes, dst_index);
    }
  else if (dst_type == ET_DEVICE_CPU)
    {
      if ((allocator = allocator_for (src_type, error)) == NULL)
        return FALSE;
      code = allocator->copy_device_to_host (allocator->user_data, dst, src, nbytes, src_index);
    }
  else
    {
      if (src_type != dst_type)
        {
          _et_set_error (error, ET_ERROR_NOT_SUPPORTED, "cannot copy directly from %s to %s memory",
                         _et_device_type_name (src_type), _et_device_type_name (dst_type));
          return FALSE;
        }
      if ((allocator = allocator_for (dst_type, error)) == NULL)
        return FALSE;
      if (allocator->copy_device_to_device == NULL)
        {
          _et_set_error (error, ET_ERROR_NOT_SUPPORTED, "the %s allocator cannot copy between devices",
                         _et_device_type_name (dst_type));
          return FALSE;
        }
      code = allocator->copy_device_to_device (allocator->user_data, dst, dst_index, src, src_index, nbytes);
    }
  if (code != ET_OK)
    {
      _et_set_error (error, code == ET_ERROR_NOT_SUPPORTED ? code : ET_ERROR_INTERNAL,
                     "copy of %zu bytes from %s:%d to %s:%d failed (%s)", nbytes, _et_device_type_name (src_type),
                     src_index, _et_device_type_name (dst_type), dst_index, _et_error_name (code));
      return FALSE;
    }
  return TRUE;
}

EtError
et_device_copy (int dst_device_type, int dst_device_index, void *dst, int src_device_type, int src_device_index,
                const void *src, size_t nbytes, EtErrorContext *error_context)
{
  g_autoptr (GError) error = NULL;

  if (_et_device_copy (dst_device_type, dst_device_index, dst, src_device_type, src_device_index, src, nbytes, &error))
    return ET_OK;
  /* Engine errors carry EtError codes in the EXECUTORCH_ERROR domain. */
  return et_error_context_fail (error_context,
                                error->domain == EXECUTORCH_ERROR ? (EtError) error->code : ET_ERROR_INTERNAL, "%s",
                                error->message);
}
