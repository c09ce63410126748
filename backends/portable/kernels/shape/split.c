/* split.c: split/unbind into tensor lists, stack, and slice/select scatter
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * List-returning ops take their outputs as a TensorList (`Tensor(a!)[] out`)
 * and return nothing; the trailing return slot is not touched.  Each piece
 * is a strided view of self copied in the out tensor's memory order, so any
 * dim order works.  split/unbind keep the dtype; stack converts like cat.
 */
#include "kernels-private.h"

#include <string.h>

/* Copies self's slab [start, start + len) along @d into @out (resized). */
static EtError
copy_slab (EtKernelContext *ctx, const EtTensor *self, uint32_t d, int64_t start, int64_t len, EtTensor *out)
{
  int64_t sizes[ET_MAX_DIMS];
  memcpy (sizes, self->sizes, sizeof sizes);
  sizes[d] = len;
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, sizes));
  return _executorch_copy_view (ctx, out, self, start * self->strides[d], self->strides);
}

static EtError
out_list (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *op, const EtTensor *self,
          const EtValueList **list)
{
  KERNEL_TRY (_executorch_arg_tensor_list (ctx, args, i, "out", list));
  for (uint32_t k = 0; k < (*list)->length; k++)
    {
      EtTensor *t = (*list)->items[k]->u.tensor;
      KERNEL_TRY (_executorch_check_tensor (ctx, t, "out"));
      KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, t, "out"));
    }
  return ET_OK;
}

/* (self, split_sizes, dim, out[], ret) */
static EtError
split_with_sizes_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "split_with_sizes_copy";
  EtTensor *self;
  const EtValueList *outs;
  const EtValue *sv;
  int64_t dim, total = 0;
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  sv = args[1];
  if (sv == NULL || sv->tag != ET_VALUE_LIST_INT || (sv->u.list.length > 0 && sv->u.list.items == NULL))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: split_sizes must be an IntList", op);
  for (uint32_t k = 0; k < sv->u.list.length; k++)
    if (sv->u.list.items[k] == NULL || sv->u.list.items[k]->tag != ET_VALUE_INT)
      return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: split_sizes item %u is not an Int", op, k);
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "dim", &dim));
  KERNEL_TRY (out_list (ctx, args, 3, op, self, &outs));
  if (self->ndim == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot split a 0-d tensor", op);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, false, &d));
  if (sv->u.list.length != outs->length)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %u split sizes but %u out tensors", op, sv->u.list.length,
                        outs->length);
  for (uint32_t k = 0; k < sv->u.list.length; k++)
    {
      int64_t s = sv->u.list.items[k]->u.int_value;
      if (s < 0 || s > self->sizes[d])
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: split size %" PRId64 " is invalid", op, s);
      total += s;
    }
  if (total != self->sizes[d])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: split sizes add up to %" PRId64 ", but dim %u has size %" PRId64, op, total, d,
                        self->sizes[d]);
  int64_t start = 0;
  for (uint32_t k = 0; k < outs->length; k++)
    {
      int64_t s = sv->u.list.items[k]->u.int_value;
      KERNEL_TRY (copy_slab (ctx, self, d, start, s, outs->items[k]->u.tensor));
      start += s;
    }
  return ET_OK;
}

/* (self, split_size, dim, out[], ret) */
static EtError
split_copy_tensor_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "split_copy";
  EtTensor *self;
  const EtValueList *outs;
  int64_t split_size, dim;
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "split_size", &split_size));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "dim", &dim));
  KERNEL_TRY (out_list (ctx, args, 3, op, self, &outs));
  if (self->ndim == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot split a 0-d tensor", op);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, false, &d));
  int64_t size = self->sizes[d];
  if (split_size < 0 || (split_size == 0 && size != 0))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: split_size %" PRId64 " is invalid for dim %u of size %" PRId64, op, split_size, d, size);
  /* Rounded up without size + split_size, which overflows for a huge one. */
  int64_t n = split_size == 0 || size == 0 ? 1 : (size - 1) / split_size + 1;
  if (n < 1)
    n = 1;
  if (n != outs->length)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %" PRId64 " chunks but %u out tensors", op, n,
                        outs->length);
  for (int64_t k = 0; k < n; k++)
    {
      int64_t start = k * split_size;
      int64_t len = size - start < split_size ? size - start : split_size;
      KERNEL_TRY (copy_slab (ctx, self, d, start, len, outs->items[k]->u.tensor));
    }
  return ET_OK;
}

/* (self, dim, out[], ret) */
static EtError
unbind_copy_int_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "unbind_copy";
  EtTensor *self;
  const EtValueList *outs;
  int64_t dim, sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (out_list (ctx, args, 2, op, self, &outs));
  if (self->ndim == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot unbind a 0-d tensor", op);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, false, &d));
  if (self->sizes[d] != outs->length)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: dim %u has size %" PRId64 " but there are %u out tensors",
                        op, d, self->sizes[d], outs->length);
  uint32_t n = _executorch_drop_dim (self->ndim, self->sizes, self->strides, d, sizes, strides);
  for (uint32_t k = 0; k < outs->length; k++)
    {
      EtTensor *out = outs->items[k]->u.tensor;
      KERNEL_TRY (_executorch_resize (ctx, out, n, sizes));
      if (out->numel == 0)
        continue;
      KERNEL_TRY (_executorch_copy_strided (ctx, n, sizes, out->dim_order, out->data, out->scalar_type, 0, out->strides,
                                            self->data, self->scalar_type, (int64_t) k * self->strides[d], strides));
    }
  return ET_OK;
}

/* (tensors, dim, out, ret) */
static EtError
stack_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "stack";
  const EtValueList *list;
  EtTensor *out, *ref;
  int64_t dim, sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  uint32_t d;
  char sa[160], sb[160];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor_list (ctx, args, 0, "tensors", &list));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  if (list->length == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: needs at least one tensor", op);
  ref = list->items[0]->u.tensor;
  KERNEL_TRY (_executorch_check_tensor (ctx, ref, "tensors"));
  if (ref->ndim + 1 > ET_MAX_DIMS)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: rank would exceed %d", op, ET_MAX_DIMS);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, ref->ndim + 1, false, &d));
  for (uint32_t i = 0; i < list->length; i++)
    {
      const EtTensor *t = list->items[i]->u.tensor;
      KERNEL_TRY (_executorch_check_tensor (ctx, t, "tensors"));
      if (!_executorch_same_sizes (t, ref))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: tensor %u has shape %s, expected %s", op, i,
                            _executorch_format_sizes (sa, sizeof sa, t->ndim, t->sizes),
                            _executorch_format_sizes (sb, sizeof sb, ref->ndim, ref->sizes));
      if (t->scalar_type != out->scalar_type && !_executorch_can_cast (t->scalar_type, out->scalar_type))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: tensor %u: cannot cast %s to %s", op, i,
                            _executorch_type_name (t->scalar_type), _executorch_type_name (out->scalar_type));
    }
  for (uint32_t k = 0, j = 0; k < ref->ndim + 1; k++)
    sizes[k] = k == d ? (int64_t) list->length : ref->sizes[j++];
  KERNEL_TRY (_executorch_resize (ctx, out, ref->ndim + 1, sizes));
  if (out->numel == 0)
    return ET_OK;
  /* Out's strides without dim d describe each slab. */
  for (uint32_t k = 0, j = 0; k < out->ndim; k++)
    if (k != d)
      strides[j++] = out->strides[k];
  for (uint32_t i = 0; i < list->length; i++)
    {
      const EtTensor *t = list->items[i]->u.tensor;
      KERNEL_TRY (_executorch_copy_strided (ctx, t->ndim, t->sizes, NULL, out->data, out->scalar_type,
                                            (int64_t) i * out->strides[d], strides, t->data, t->scalar_type, 0,
                                            t->strides));
    }
  return ET_OK;
}

/* out <- self, then src written into the view (@offset, @sizes, @strides of out). */
static EtError
scatter_view (EtKernelContext *ctx, const char *op, EtTensor *self, EtTensor *src, EtTensor *out, uint32_t ndim,
              const int64_t *sizes, int64_t offset, const int64_t *strides)
{
  char sa[160], sb[160];
  bool same = src->ndim == ndim;
  for (uint32_t k = 0; same && k < ndim; k++)
    if (src->sizes[k] != sizes[k])
      same = false;
  if (!same)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: src has shape %s, expected %s", op,
                        _executorch_format_sizes (sa, sizeof sa, src->ndim, src->sizes),
                        _executorch_format_sizes (sb, sizeof sb, ndim, sizes));
  if (src->scalar_type != out->scalar_type &&
      (!_executorch_type_is_supported (src->scalar_type) || !_executorch_type_is_supported (out->scalar_type)))
    return KERNEL_FAIL (ctx, ET_ERROR_NOT_SUPPORTED, "%s: cannot convert src %s to %s", op,
                        _executorch_type_name (src->scalar_type), _executorch_type_name (out->scalar_type));
  KERNEL_TRY (_executorch_resize_copy (ctx, out, self));
  if (out->numel == 0)
    return ET_OK;
  if (_executorch_numel (ndim, sizes) == 0)
    return ET_OK;
  return _executorch_copy_strided (ctx, ndim, sizes, NULL, out->data, out->scalar_type, offset, strides, src->data,
                                   src->scalar_type, 0, src->strides);
}

/* (self, src, dim, start?, end?, step, out, ret) */
static EtError
slice_scatter_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "slice_scatter";
  EtTensor *self, *src, *out;
  int64_t dim, start, end, step, sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  bool has_start, has_end;
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 8));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "src", &src));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "dim", &dim));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 3, "start", &has_start, &start));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 4, "end", &has_end, &end));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 5, "step", &step));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 6, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  if (self->ndim == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot slice a 0-d tensor", op);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, false, &d));
  if (step <= 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: step must be positive, got %" PRId64, op, step);
  int64_t len;
  _executorch_slice_range (self->sizes[d], has_start, start, has_end, end, step, &start, &len);
  /* The view is taken of out, after out is resized like self. */
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  memcpy (sizes, self->sizes, sizeof sizes);
  memcpy (strides, out->strides, sizeof strides);
  sizes[d] = len;
  strides[d] = len > 1 ? out->strides[d] * step : out->strides[d];
  return scatter_view (ctx, op, self, src, out, self->ndim, sizes, len > 0 ? start * out->strides[d] : 0, strides);
}

/* (self, src, dim, index, out, ret) */
static EtError
select_scatter_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "select_scatter";
  EtTensor *self, *src, *out;
  int64_t dim, index, sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "src", &src));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "dim", &dim));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 3, "index", &index));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  if (self->ndim == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: cannot select from a 0-d tensor", op);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, false, &d));
  int64_t size = self->sizes[d];
  if (index < -size || index >= size)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: index %" PRId64 " is out of range for dim %u of size %" PRId64, op, index, d, size);
  if (index < 0)
    index += size;
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  uint32_t n = _executorch_drop_dim (self->ndim, self->sizes, out->strides, d, sizes, strides);
  return scatter_view (ctx, op, self, src, out, n, sizes, index * out->strides[d], strides);
}

const EtKernel _executorch_split_kernels[] = {
  { "aten::split_with_sizes_copy.out", split_with_sizes_copy_out, NULL },
  { "aten::split_copy.Tensor_out", split_copy_tensor_out, NULL },
  { "aten::unbind_copy.int_out", unbind_copy_int_out, NULL },
  { "aten::stack.out", stack_out, NULL },
  { "aten::slice_scatter.out", slice_scatter_out, NULL },
  { "aten::select_scatter.out", select_scatter_out, NULL },
};

const size_t _executorch_split_n_kernels = KERNEL_N_ELEMENTS (_executorch_split_kernels);
