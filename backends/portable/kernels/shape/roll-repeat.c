/* roll-repeat.c: roll, repeat and repeat_interleave
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Copies that move or repeat self's elements; all keep the dtype.
 */
#include "kernels-private.h"

#include <string.h>

/* (self, shifts, dims, out, ret) */
static EtError
roll_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "roll";
  EtTensor *self, *out;
  int64_t shifts[ET_MAX_DIMS], dims[ET_MAX_DIMS], shift[ET_MAX_DIMS] = { 0 };
  uint32_t n_shifts, n_dims;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "shifts", NULL, shifts, &n_shifts));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 2, "dims", NULL, dims, &n_dims));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  if (n_dims == 0 && n_shifts != 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: without dims, shifts must have one entry, not %u", op,
                        n_shifts);
  if (n_dims != 0 && n_dims != n_shifts)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %u shifts but %u dims", op, n_shifts, n_dims);
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  if (out->numel == 0)
    return ET_OK;
  size_t es = _executorch_type_size (self->scalar_type);

  if (n_dims == 0)
    {
      /* Roll the flattened tensor: out_flat[i] = self_flat[(i - s) mod n]. */
      int64_t n = self->numel, s = shifts[0] % n;
      if (s < 0)
        s += n;
      int64_t si[ET_MAX_DIMS] = { 0 }, oi[ET_MAX_DIMS] = { 0 }, soff = 0, ooff = 0;
      const int64_t (*ss)[ET_MAX_DIMS] = (const int64_t (*)[ET_MAX_DIMS]) self->strides;
      const int64_t (*os)[ET_MAX_DIMS] = (const int64_t (*)[ET_MAX_DIMS]) out->strides;
      /* Start the output at flat index s (which takes self's element 0). */
      for (int64_t rem = s, d = (int64_t) self->ndim - 1; d >= 0; d--)
        {
          oi[d] = rem % self->sizes[d];
          rem /= self->sizes[d];
          ooff += oi[d] * out->strides[d];
        }
      for (int64_t e = 0; e < n; e++)
        {
          memcpy ((char *) out->data + (size_t) ooff * es, (const char *) self->data + (size_t) soff * es, es);
          for (uint32_t d = self->ndim; d-- > 0;)
            {
              si[d]++;
              soff += ss[0][d];
              if (si[d] < self->sizes[d])
                break;
              soff -= ss[0][d] * self->sizes[d];
              si[d] = 0;
            }
          for (uint32_t d = self->ndim; d-- > 0;)
            {
              oi[d]++;
              ooff += os[0][d];
              if (oi[d] < self->sizes[d])
                break;
              ooff -= os[0][d] * self->sizes[d];
              oi[d] = 0;
            }
        }
      return ET_OK;
    }

  for (uint32_t k = 0; k < n_dims; k++)
    {
      uint32_t d;
      KERNEL_TRY (_executorch_wrap_dim (ctx, dims[k], self->ndim, false, &d));
      int64_t size = self->sizes[d];
      int64_t s = shifts[k] % size;
      shift[d] = ((shift[d] + s) % size + size) % size;
    }
  /* Each rolled dim splits into two pieces: [0, size - s) -> [s, size) and
   * [size - s, size) -> [0, s).  Copy every combination of pieces. */
  uint32_t rolled[ET_MAX_DIMS], n_rolled = 0;
  for (uint32_t d = 0; d < self->ndim; d++)
    if (shift[d] != 0)
      rolled[n_rolled++] = d;
  for (uint32_t combo = 0; combo < (1u << n_rolled); combo++)
    {
      int64_t sizes[ET_MAX_DIMS], soff = 0, ooff = 0;
      memcpy (sizes, self->sizes, sizeof sizes);
      for (uint32_t j = 0; j < n_rolled; j++)
        {
          uint32_t d = rolled[j];
          int64_t size = self->sizes[d], s = shift[d];
          if (combo & (1u << j))
            {
              sizes[d] = s;
              soff += (size - s) * self->strides[d];
            }
          else
            {
              sizes[d] = size - s;
              ooff += s * out->strides[d];
            }
        }
      KERNEL_TRY (_executorch_copy_strided (ctx, self->ndim, sizes, out->dim_order, out->data, out->scalar_type, ooff,
                                            out->strides, self->data, self->scalar_type, soff, self->strides));
    }
  return ET_OK;
}

/* (self, repeats, out, ret) */
static EtError
repeat_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "repeat";
  EtTensor *self, *out;
  int64_t repeats[ET_MAX_DIMS], sizes[ET_MAX_DIMS];
  uint32_t n;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "repeats", NULL, repeats, &n));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, self, out, "out"));
  if (n < self->ndim)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %u repeats for a %u-D tensor", op, n, self->ndim);
  uint32_t lead = n - self->ndim;
  for (uint32_t k = 0; k < n; k++)
    {
      int64_t have = k < lead ? 1 : self->sizes[k - lead];
      if (repeats[k] < 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: negative repeat %" PRId64, op, repeats[k]);
      if (have != 0 && repeats[k] > INT64_MAX / have)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: size overflows", op);
      sizes[k] = have * repeats[k];
    }
  KERNEL_TRY (_executorch_resize (ctx, out, n, sizes));
  if (out->numel == 0)
    return ET_OK;

  /* Out dim k of size r*s splits into (r, stride s*S) x (s, stride S); self
   * reads with stride 0 along r.  Trivial dims are dropped; if more than
   * ET_MAX_DIMS remain, the outermost ones are looped here. */
  int64_t ls[2 * ET_MAX_DIMS], os[2 * ET_MAX_DIMS], ss[2 * ET_MAX_DIMS];
  uint32_t m = 0;
  for (uint32_t k = 0; k < n; k++)
    {
      int64_t have = k < lead ? 1 : self->sizes[k - lead];
      int64_t sst = k < lead ? 0 : self->strides[k - lead];
      if (repeats[k] != 1)
        {
          ls[m] = repeats[k];
          os[m] = have * out->strides[k];
          ss[m] = 0;
          m++;
        }
      if (have != 1)
        {
          ls[m] = have;
          os[m] = out->strides[k];
          ss[m] = sst;
          m++;
        }
    }
  uint32_t outer = m > ET_MAX_DIMS ? m - ET_MAX_DIMS : 0;
  int64_t idx[2 * ET_MAX_DIMS] = { 0 }, n_outer = 1, ooff = 0, soff = 0;
  for (uint32_t k = 0; k < outer; k++)
    n_outer *= ls[k];
  for (int64_t t = 0; t < n_outer; t++)
    {
      KERNEL_TRY (_executorch_copy_strided (ctx, m - outer, ls + outer, NULL, out->data, out->scalar_type, ooff,
                                            os + outer, self->data, self->scalar_type, soff, ss + outer));
      for (uint32_t k = outer; k-- > 0;)
        {
          idx[k]++;
          ooff += os[k];
          soff += ss[k];
          if (idx[k] < ls[k])
            break;
          ooff -= os[k] * ls[k];
          soff -= ss[k] * ls[k];
          idx[k] = 0;
        }
    }
  return ET_OK;
}

/* (repeats, output_size?, out, ret) */
static EtError
repeat_interleave_tensor_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "repeat_interleave";
  EtTensor *repeats, *out;
  bool has_size;
  int64_t output_size, total = 0;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "repeats", &repeats));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 1, "output_size", &has_size, &output_size));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  if (repeats->scalar_type != ET_SCALAR_LONG && repeats->scalar_type != ET_SCALAR_INT)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: repeats must be Long or Int, not %s", op,
                        _executorch_type_name (repeats->scalar_type));
  if (out->scalar_type != repeats->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out dtype %s differs from repeats dtype %s", op,
                        _executorch_type_name (out->scalar_type), _executorch_type_name (repeats->scalar_type));
  if (repeats->ndim != 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: repeats must be 1-D, not %u-D", op, repeats->ndim);
  int64_t rs = repeats->strides[0];
  bool is_long = repeats->scalar_type == ET_SCALAR_LONG;
  for (int64_t i = 0; i < repeats->numel; i++)
    {
      int64_t r = is_long ? ((const int64_t *) repeats->data)[i * rs] : ((const int32_t *) repeats->data)[i * rs];
      if (r < 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: repeats must be non-negative, got %" PRId64, op, r);
      if (r > INT64_MAX - total)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: the output size overflows", op);
      total += r;
    }
  if (has_size && output_size != total)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: output_size %" PRId64 " differs from the sum of repeats %" PRId64, op, output_size, total);
  if (!is_long && total > INT32_MAX)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: index %" PRId64 " does not fit Int", op, total);
  KERNEL_TRY (_executorch_resize (ctx, out, 1, &total));
  int64_t w = 0, os = out->strides[0];
  for (int64_t i = 0; i < repeats->numel; i++)
    {
      int64_t r = is_long ? ((const int64_t *) repeats->data)[i * rs] : ((const int32_t *) repeats->data)[i * rs];
      for (int64_t k = 0; k < r; k++, w++)
        {
          if (is_long)
            ((int64_t *) out->data)[w * os] = i;
          else
            ((int32_t *) out->data)[w * os] = (int32_t) i;
        }
    }
  return ET_OK;
}

const EtKernel _executorch_roll_repeat_kernels[] = {
  { "aten::roll.out", roll_out, NULL },
  { "aten::repeat.out", repeat_out, NULL },
  { "aten::repeat_interleave.Tensor_out", repeat_interleave_tensor_out, NULL },
};

const size_t _executorch_roll_repeat_n_kernels = KERNEL_N_ELEMENTS (_executorch_roll_repeat_kernels);
