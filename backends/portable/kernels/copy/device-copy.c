/* device-copy.c: et_copy::_h2d_copy.out and _d2h_copy.out
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Upstream's device-aware memory planning puts these in front of and behind
 * a delegate whose inputs and outputs live on a device (CUDA).  They only
 * check where each side lives and hand the bytes to the device allocator
 * the runtime has registered for that device, so this library needs no
 * device runtime of its own.
 */
#include "kernels-private.h"

static EtError
device_copy (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool to_device)
{
  EtTensor *self, *out;

  /* self, out, and the return slot (the same tensor as out). */
  if (n_args != 2 && n_args != 3)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "expected 3 arguments (self, out, return), got %u", n_args);
  KERNEL_TRY (_executorch_arg_tensor_any_device (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor_any_device (ctx, args, 1, "out", &out));
  if ((self->device_type == ET_DEVICE_CPU) != to_device)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "self must be in %s memory", to_device ? "host" : "device");
  if ((out->device_type == ET_DEVICE_CPU) == to_device)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "out must be in %s memory", to_device ? "device" : "host");
  if (self->scalar_type != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "out is %s, self is %s",
                        _executorch_type_name (out->scalar_type), _executorch_type_name (self->scalar_type));
  /* Not _executorch_resize(): that one also insists on host memory. */
  if (et_tensor_resize (out, self->ndim, self->sizes) != ET_OK)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "out cannot take the sizes of self (%zu bytes)", self->nbytes);
  return et_device_copy (out->device_type, out->device_index, out->data, self->device_type, self->device_index,
                         self->data, self->nbytes, et_kernel_context_error (ctx));
}

static EtError
h2d_copy (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return device_copy (ctx, args, n_args, true);
}

static EtError
d2h_copy (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return device_copy (ctx, args, n_args, false);
}

const EtKernel _executorch_device_copy_kernels[] = {
  { "et_copy::_h2d_copy.out", h2d_copy, NULL },
  { "et_copy::_d2h_copy.out", d2h_copy, NULL },
};

const size_t _executorch_device_copy_n_kernels = KERNEL_N_ELEMENTS (_executorch_device_copy_kernels);
