/* pad.c: constant, reflection and replication padding
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * constant_pad_nd takes pairs from the last dimension backwards, and a
 * negative pad crops.  reflection_pad{1,2,3}d and replication_pad{1,2,3}d
 * pad the last 1, 2 or 3 dims of a (k+1)- or (k+2)-D input (eager's
 * ranks); reflection needs pad < input size in each padded dim, negative
 * pads crop as in eager.  Every dtype is copied as raw elements (any dim
 * order); the constant is converted to self's dtype like eager (a float
 * into an integer dtype truncates; a value outside the dtype's range is an
 * error).
 */
#include "nn-private.h"

#include <string.h>

/* Fills @out (all of it) with @value (one element of @es bytes). */
static void
fill_elements (EtTensor *out, const void *value, size_t es)
{
  char *o = out->data;
  for (int64_t i = 0; i < out->numel; i++)
    memcpy (o + (size_t) i * es, value, es);
}

/* (self, pad[], value, out, ret) */
static EtError
constant_pad_nd_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "constant_pad_nd";
  EtTensor *in, *out;
  int64_t pad[ET_MAX_DIMS], sizes[ET_MAX_DIMS], lo[ET_MAX_DIMS] = { 0 }, hi[ET_MAX_DIMS] = { 0 };
  uint32_t n;
  KernelScalar value;
  KernelKindValue v;
  uint8_t elem[8];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "pad", NULL, pad, &n));
  KERNEL_TRY (_executorch_arg_scalar (ctx, args, 2, "value", &value));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, in, "self"));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, in, out, "out"));
  if (n % 2 != 0 || n / 2 > in->ndim)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: pad must have an even length of at most 2 * %u, not %u",
                        op, in->ndim, n);
  for (uint32_t k = 0; k < n / 2; k++)
    {
      uint32_t d = in->ndim - 1 - k;
      lo[d] = pad[2 * k];
      hi[d] = pad[2 * k + 1];
    }
  for (uint32_t d = 0; d < in->ndim; d++)
    {
      if (lo[d] > (INT64_C (1) << 40) || lo[d] < -(INT64_C (1) << 40) || hi[d] > (INT64_C (1) << 40) ||
          hi[d] < -(INT64_C (1) << 40))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: pad of dim %u is out of range", op, d);
      sizes[d] = in->sizes[d] + lo[d] + hi[d];
      if (sizes[d] < 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: padding dim %u gives a negative size %" PRId64, op, d,
                            sizes[d]);
    }
  /* Eager's checked conversion: truncated into integers, must fit the dtype. */
  KERNEL_TRY (_executorch_scalar_to_fill (ctx, &value, in->scalar_type, "constant_pad_nd: value", &v));
  _executorch_store_kind (_executorch_compute_kind (in->scalar_type), in->scalar_type, elem, 0, 1, 1, &v);
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, sizes));
  if (out->numel == 0)
    return ET_OK;

  size_t es = _executorch_type_size (in->scalar_type);
  fill_elements (out, elem, es);

  /* Copy the overlap of self and out. */
  int64_t copy[ET_MAX_DIMS], in_off = 0, out_off = 0;
  for (uint32_t d = 0; d < in->ndim; d++)
    {
      int64_t src0 = lo[d] < 0 ? -lo[d] : 0;
      int64_t dst0 = lo[d] > 0 ? lo[d] : 0;
      int64_t len = in->sizes[d] - src0 - (hi[d] < 0 ? -hi[d] : 0);
      if (len <= 0)
        return ET_OK;
      copy[d] = len;
      in_off += src0 * in->strides[d];
      out_off += dst0 * out->strides[d];
    }
  return _executorch_copy_strided (ctx, in->ndim, copy, out->dim_order, out->data, out->scalar_type, out_off,
                                   out->strides, in->data, in->scalar_type, in_off, in->strides);
}

/* ---- Reflection and replication ---- */

typedef struct
{
  const EtTensor *in;
  EtTensor *out;
  uint32_t k; /* padded dims: the last k */
  int64_t lo[3];
  bool reflect;
  size_t es;
} PadJob;

static inline int64_t
source_index (int64_t o, int64_t lo, int64_t size, bool reflect)
{
  int64_t i = o - lo;
  if (reflect)
    {
      /* size >= 2 is guaranteed when padding is non-zero */
      if (i < 0)
        i = -i;
      if (i >= size)
        i = 2 * (size - 1) - i;
    }
  else
    {
      i = i < 0 ? 0 : i >= size ? size - 1 : i;
    }
  return i;
}

static void
pad_rows (PadJob *j)
{
  const EtTensor *in = j->in;
  EtTensor *out = j->out;
  uint32_t nd = out->ndim;
  int64_t idx[ET_MAX_DIMS] = { 0 };
  const char *src = in->data;
  char *dst = out->data;

  for (int64_t e = 0; e < out->numel; e++)
    {
      int64_t so = 0, doff = 0;
      for (uint32_t d = 0; d < nd; d++)
        {
          int64_t i = idx[d];
          uint32_t pd = d + j->k >= nd ? d - (nd - j->k) : 3;
          if (pd < 3)
            i = source_index (i, j->lo[pd], in->sizes[d], j->reflect);
          so += i * in->strides[d];
          doff += idx[d] * out->strides[d];
        }
      memcpy (dst + (size_t) doff * j->es, src + (size_t) so * j->es, j->es);
      for (uint32_t d = nd; d-- > 0;)
        {
          if (++idx[d] < out->sizes[d])
            break;
          idx[d] = 0;
        }
    }
}

/* (self, padding[2k], out, ret) */
static EtError
pad_nd (EtKernelContext *ctx, EtValue **args, uint32_t n_args, uint32_t k, bool reflect)
{
  const char *op = reflect ? "reflection_pad" : "replication_pad";
  EtTensor *in, *out;
  int64_t pad[ET_MAX_DIMS], sizes[ET_MAX_DIMS];
  uint32_t n;
  PadJob j = { .k = k, .reflect = reflect };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "padding", NULL, pad, &n));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, in, "self"));
  if (out->scalar_type != in->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s%ud: out dtype %s differs from self dtype %s", op, k,
                        _executorch_type_name (out->scalar_type), _executorch_type_name (in->scalar_type));
  if (n != 2 * k)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s%ud: padding must have %u values, not %u", op, k, 2 * k, n);
  if (in->ndim != k + 1 && in->ndim != k + 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s%ud: self must be %u-D or %u-D, not %u-D", op, k, k + 1,
                        k + 2, in->ndim);
  memcpy (sizes, in->sizes, sizeof sizes);
  for (uint32_t p = 0; p < k; p++)
    {
      /* padding pairs run from the last dim backwards */
      uint32_t d = in->ndim - 1 - p;
      int64_t l = pad[2 * p], h = pad[2 * p + 1], s = in->sizes[d];
      uint32_t pd = k - 1 - p;
      if (l > (INT64_C (1) << 40) || h > (INT64_C (1) << 40) || l < -(INT64_C (1) << 40) || h < -(INT64_C (1) << 40))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s%ud: padding is out of range", op, k);
      if (reflect && (l >= s || h >= s))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            "%s%ud: padding (%" PRId64 ", %" PRId64 ") must be smaller than the "
                            "input size %" PRId64 " of dim %u",
                            op, k, l, h, s, d);
      if (s == 0 && (l != 0 || h != 0))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s%ud: cannot pad an empty dim %u", op, k, d);
      sizes[d] = s + l + h;
      if (sizes[d] < 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s%ud: padding dim %u gives a negative size", op, k, d);
      j.lo[pd] = l;
    }
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, sizes));
  if (out->numel == 0)
    return ET_OK;
  j.in = in;
  j.out = out;
  j.es = _executorch_type_size (in->scalar_type);
  pad_rows (&j);
  return ET_OK;
}

#define PAD_KERNEL(NAME, K, REFLECT)                                          \
  static EtError NAME (EtKernelContext *ctx, EtValue **args, uint32_t n_args) \
  {                                                                           \
    return pad_nd (ctx, args, n_args, K, REFLECT);                            \
  }

PAD_KERNEL (reflection_pad1d_out, 1, true)
PAD_KERNEL (reflection_pad2d_out, 2, true)
PAD_KERNEL (reflection_pad3d_out, 3, true)
PAD_KERNEL (replication_pad1d_out, 1, false)
PAD_KERNEL (replication_pad2d_out, 2, false)
PAD_KERNEL (replication_pad3d_out, 3, false)

const EtKernel _executorch_pad_kernels[] = {
  { "aten::constant_pad_nd.out", constant_pad_nd_out, NULL },
  { "aten::reflection_pad1d.out", reflection_pad1d_out, NULL },
  { "aten::reflection_pad2d.out", reflection_pad2d_out, NULL },
  { "aten::reflection_pad3d.out", reflection_pad3d_out, NULL },
  { "aten::replication_pad1d.out", replication_pad1d_out, NULL },
  { "aten::replication_pad2d.out", replication_pad2d_out, NULL },
  { "aten::replication_pad3d.out", replication_pad3d_out, NULL },
};

const size_t _executorch_pad_n_kernels = KERNEL_N_ELEMENTS (_executorch_pad_kernels);
