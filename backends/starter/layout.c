/* layout.c: copies that change shape, dimension order or dtype
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kernels.h"

#include <string.h>

/* aten::permute_copy.out(self, dims, out, ret) */
static EtError
permute_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *x, *out;
  int64_t dims[ET_MAX_DIMS], sizes[ET_MAX_DIMS], coord[ET_MAX_DIMS] = { 0 }, src[ET_MAX_DIMS];
  uint32_t n_dims, seen = 0;
  EtError code;

  if (n != 4)
    return FAIL (ctx, "expected 4 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &x)) || (code = kernel_tensor_arg (ctx, args, 2, &out)) ||
      (code = kernel_int_list (ctx, args[1], dims, &n_dims)))
    return code;
  if (n_dims != x->ndim)
    return FAIL (ctx, "permutation has %u entries for a %u-d tensor", n_dims, x->ndim);
  for (uint32_t d = 0; d < n_dims; d++)
    {
      if (dims[d] < 0)
        dims[d] += x->ndim;
      if (dims[d] < 0 || dims[d] >= (int64_t) x->ndim || (seen & (1u << dims[d])))
        return FAIL (ctx, "dims is not a permutation");
      seen |= 1u << dims[d];
      sizes[d] = x->sizes[dims[d]];
    }
  if ((code = kernel_resize (ctx, out, n_dims, sizes)) != ET_OK)
    return code;
  for (int64_t i = 0; i < out->numel; i++)
    {
      for (uint32_t d = 0; d < n_dims; d++)
        src[dims[d]] = coord[d];
      kernel_store (out, kernel_offset (out, n_dims, coord), kernel_load (x, kernel_offset (x, n_dims, src)));
      kernel_next (n_dims, sizes, coord);
    }
  return ET_OK;
}

/* Resolves one -1 in @sizes against @numel. */
static EtError
infer_sizes (EtKernelContext *ctx, int64_t *sizes, uint32_t n, int64_t numel)
{
  int64_t known = 1;
  int infer = -1;

  for (uint32_t d = 0; d < n; d++)
    {
      if (sizes[d] == -1 && infer < 0)
        infer = (int) d;
      else if (sizes[d] < 0)
        return FAIL (ctx, "invalid size %lld", (long long) sizes[d]);
      else
        known *= sizes[d];
    }
  if (infer >= 0)
    {
      if (known == 0 || numel % known != 0)
        return FAIL (ctx, "cannot infer the size of dimension %d", infer);
      sizes[infer] = numel / known;
      known *= sizes[infer];
    }
  if (known != numel)
    return FAIL (ctx, "view of %lld elements as %lld", (long long) numel, (long long) known);
  return ET_OK;
}

/* aten::view_copy.out(self, size, out, ret) */
static EtError
view_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *x, *out;
  int64_t sizes[ET_MAX_DIMS];
  uint32_t n_dims;
  EtError code;

  if (n != 4)
    return FAIL (ctx, "expected 4 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &x)) || (code = kernel_tensor_arg (ctx, args, 2, &out)) ||
      (code = kernel_int_list (ctx, args[1], sizes, &n_dims)) || (code = infer_sizes (ctx, sizes, n_dims, x->numel)) ||
      (code = kernel_resize (ctx, out, n_dims, sizes)))
    return code;
  if (!et_tensor_is_contiguous (x) || !et_tensor_is_contiguous (out) || x->scalar_type != out->scalar_type)
    return et_kernel_context_failf (ctx, ET_ERROR_NOT_SUPPORTED, "view_copy needs contiguous tensors of one dtype");
  if (out->data != x->data)
    memmove (out->data, x->data, x->nbytes);
  return ET_OK;
}

/* dim_order_ops::_to_dim_order_copy.out / _clone_dim_order.out
 * (self, non_blocking, dim_order, out, ret): dtype and layout come from out. */
static EtError
dim_order_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *x, *out;
  int64_t order[ET_MAX_DIMS];
  uint32_t n_order;
  EtError code;

  if (n != 5)
    return FAIL (ctx, "expected 5 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &x)) || (code = kernel_tensor_arg (ctx, args, 3, &out)))
    return code;
  if (args[2]->tag != ET_VALUE_NONE)
    {
      if ((code = kernel_int_list (ctx, args[2], order, &n_order)) != ET_OK)
        return code;
      if (n_order != out->ndim)
        return FAIL (ctx, "dim_order has %u entries for a %u-d output", n_order, out->ndim);
      for (uint32_t d = 0; d < n_order; d++)
        if (order[d] != out->dim_order[d])
          return FAIL (ctx, "dim_order argument does not match the output's layout");
    }
  if ((code = kernel_resize (ctx, out, x->ndim, x->sizes)) != ET_OK)
    return code;
  kernel_copy (out, x);
  return ET_OK;
}

/* aten::clone.out(self, memory_format, out, ret) */
static EtError
clone_out (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *x, *out;
  EtError code;

  if (n != 4)
    return FAIL (ctx, "expected 4 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &x)) || (code = kernel_tensor_arg (ctx, args, 2, &out)) ||
      (code = kernel_resize (ctx, out, x->ndim, x->sizes)))
    return code;
  kernel_copy (out, x);
  return ET_OK;
}

const EtKernel kernel_layout[] = {
  { "aten::permute_copy.out", permute_copy_out, NULL },
  { "aten::view_copy.out", view_copy_out, NULL },
  { "aten::clone.out", clone_out, NULL },
  { "dim_order_ops::_to_dim_order_copy.out", dim_order_copy_out, NULL },
  { "dim_order_ops::_clone_dim_order.out", dim_order_copy_out, NULL },
};
const unsigned kernel_n_layout = sizeof kernel_layout / sizeof kernel_layout[0];
