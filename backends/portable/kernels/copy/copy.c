/* copy.c: copy_, copy.out, _to_copy and the dim-order ops
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The dtype change of _to_copy and _to_dim_order_copy is implied by out's
 * dtype (a C cast: float -> int truncates toward zero, anything -> Bool is
 * != 0); the layout change is implied by out's dim order, which an explicit
 * dim_order argument must match.  Copies walk out's memory order, so any
 * pair of layouts is handled.
 */
#include "kernels-private.h"

#include <string.h>

static EtError
check_convertible (EtKernelContext *ctx, const EtTensor *from, const EtTensor *to)
{
  if (from->scalar_type == to->scalar_type)
    return ET_OK;
  if (!_executorch_type_is_supported (from->scalar_type) || !_executorch_type_is_supported (to->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_NOT_SUPPORTED, "cannot convert %s to %s",
                        _executorch_type_name (from->scalar_type), _executorch_type_name (to->scalar_type));
  return ET_OK;
}

/* (self, src, non_blocking, ret): self <- broadcast (src), in place. */
static EtError
copy_ (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *src;
  bool non_blocking;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "src", &src));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "non_blocking", &non_blocking));
  KERNEL_TRY (check_convertible (ctx, src, self));
  if (self->data == src->data && self->scalar_type == src->scalar_type && _executorch_same_sizes (self, src) &&
      _executorch_same_dim_order (self, src))
    return ET_OK;
  return _executorch_copy_broadcast (ctx, self, src);
}

/* (self, src, non_blocking, out, ret): out <- broadcast (src) shaped like self. */
static EtError
copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *src, *out;
  bool non_blocking;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "src", &src));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "non_blocking", &non_blocking));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  KERNEL_TRY (check_convertible (ctx, src, out));
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  return _executorch_copy_broadcast (ctx, out, src);
}

/* out <- self, same shape, converting dtype and layout. */
static EtError
relayout (EtKernelContext *ctx, EtTensor *self, EtTensor *out)
{
  KERNEL_TRY (check_convertible (ctx, self, out));
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  if (out->numel == 0)
    return ET_OK;
  return _executorch_copy_strided (ctx, self->ndim, self->sizes, out->dim_order, out->data, out->scalar_type, 0,
                                   out->strides, self->data, self->scalar_type, 0, self->strides);
}

/* An explicit dim_order must be a permutation of self's dims equal to out's. */
static EtError
check_dim_order (EtKernelContext *ctx, EtValue **args, uint32_t i, uint32_t ndim, const EtTensor *out)
{
  int64_t order[ET_MAX_DIMS];
  uint32_t n;
  bool present, seen[ET_MAX_DIMS] = { false };

  KERNEL_TRY (_executorch_arg_int_list (ctx, args, i, "dim_order", &present, order, &n));
  if (!present)
    return ET_OK;
  if (n != ndim)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dim_order has %u entries for rank %u", n, ndim);
  for (uint32_t k = 0; k < n; k++)
    {
      if (order[k] < 0 || order[k] >= (int64_t) n || seen[order[k]])
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dim_order is not a permutation");
      seen[order[k]] = true;
    }
  if (out->ndim != n)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "out has rank %u, dim_order %u", out->ndim, n);
  for (uint32_t k = 0; k < n; k++)
    if (out->dim_order[k] != order[k])
      return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dim_order does not match out's dim order");
  return ET_OK;
}

/* (self, non_blocking, dim_order?, out, ret) */
static EtError
dim_order_copy (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool same_dtype)
{
  EtTensor *self, *out;
  bool non_blocking;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 1, "non_blocking", &non_blocking));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (check_dim_order (ctx, args, 2, self->ndim, out));
  if (same_dtype && self->scalar_type != out->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "out dtype %s differs from self dtype %s",
                        _executorch_type_name (out->scalar_type), _executorch_type_name (self->scalar_type));
  return relayout (ctx, self, out);
}

static EtError
to_dim_order_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return dim_order_copy (ctx, args, n_args, false);
}

static EtError
clone_dim_order_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return dim_order_copy (ctx, args, n_args, true);
}

/* (self, non_blocking, memory_format?, out, ret) */
static EtError
to_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool non_blocking, has_format;
  int64_t format;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 1, "non_blocking", &non_blocking));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 2, "memory_format", &has_format, &format));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  if (has_format && format != 0 && format != 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "memory_format %" PRId64 " is not supported", format);
  return relayout (ctx, self, out);
}

/* (size, dim_order?, out, ret): shapes out, leaves its contents alone. */
static EtError
empty_dim_order_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *out;
  int64_t sizes[ET_MAX_DIMS];
  uint32_t n;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 0, "size", NULL, sizes, &n));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  for (uint32_t k = 0; k < n; k++)
    if (sizes[k] < 0)
      return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "invalid size %" PRId64, sizes[k]);
  KERNEL_TRY (check_dim_order (ctx, args, 1, n, out));
  return _executorch_resize (ctx, out, n, sizes);
}

const EtKernel _executorch_copy_kernels[] = {
  { "aten::copy_", copy_, NULL },
  { "aten::copy.out", copy_out, NULL },
  { "aten::_to_copy.out", to_copy_out, NULL },
  { "dim_order_ops::_to_dim_order_copy.out", to_dim_order_copy_out, NULL },
  { "dim_order_ops::_clone_dim_order.out", clone_dim_order_out, NULL },
  { "dim_order_ops::_empty_dim_order.out", empty_dim_order_out, NULL },
};

const size_t _executorch_copy_n_kernels = KERNEL_N_ELEMENTS (_executorch_copy_kernels);
