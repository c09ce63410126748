/* shape.c: view, permute and other shape-changing copy kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every kernel here describes its result as a strided view of self (or, for
 * cat, of out) and hands it to _executorch_copy_strided(), which walks the
 * view in out's memory order.  That makes them correct for any dim order of
 * self and of out.  They keep the dtype (cat converts).
 */
#include "kernels-private.h"
#include "nn-private.h"

#include <string.h>

EtError
_executorch_copy_view (EtKernelContext *ctx, EtTensor *out, const EtTensor *self, int64_t offset,
                       const int64_t *strides)
{
  if (out->numel == 0)
    return ET_OK;
  return _executorch_copy_strided (ctx, out->ndim, out->sizes, out->dim_order, out->data, out->scalar_type, 0,
                                   out->strides, self->data, self->scalar_type, offset, strides);
}

/* (self, dims, out, ret) */
static EtError
permute_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  int64_t dims[ET_MAX_DIMS], sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  uint32_t n_dims;
  bool seen[ET_MAX_DIMS] = { false };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "dims", NULL, dims, &n_dims));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  if (n_dims != self->ndim)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dims has %u entries for a %u-D tensor", n_dims, self->ndim);
  for (uint32_t i = 0; i < n_dims; i++)
    {
      uint32_t d;
      KERNEL_TRY (_executorch_wrap_dim (ctx, dims[i], self->ndim, false, &d));
      if (seen[d])
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dim %u repeats in dims", d);
      seen[d] = true;
      sizes[i] = self->sizes[d];
      strides[i] = self->strides[d];
    }
  KERNEL_TRY (_executorch_resize (ctx, out, n_dims, sizes));
  return _executorch_copy_view (ctx, out, self, 0, strides);
}

EtError
_executorch_view_sizes (EtKernelContext *ctx, const int64_t *req, uint32_t n, int64_t numel, int64_t *sizes)
{
  int infer = -1;
  int64_t known = 1;

  for (uint32_t i = 0; i < n; i++)
    {
      if (req[i] == -1)
        {
          if (infer >= 0)
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "only one size may be -1");
          infer = (int) i;
          continue;
        }
      if (req[i] < 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "invalid size %" PRId64, req[i]);
      if (req[i] != 0 && known > INT64_MAX / req[i])
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "sizes overflow");
      known *= req[i];
      sizes[i] = req[i];
    }
  if (infer >= 0)
    {
      if (known == 0 || numel % known != 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cannot infer -1 for %" PRId64 " elements", numel);
      sizes[infer] = numel / known;
      known = numel;
    }
  if (known != numel)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "size has %" PRId64 " elements, self has %" PRId64, known,
                        numel);
  return ET_OK;
}

/* (self, size, out, ret) */
static EtError
view_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  int64_t req[ET_MAX_DIMS], sizes[ET_MAX_DIMS];
  uint32_t n;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "size", NULL, req, &n));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  KERNEL_TRY (_executorch_view_sizes (ctx, req, n, self->numel, sizes));
  KERNEL_TRY (_executorch_resize (ctx, out, n, sizes));
  return _executorch_copy_reshape (ctx, out, self);
}

/* (self, memory_format?, out, ret) */
static EtError
clone_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  bool has_format;
  int64_t format;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 1, "memory_format", &has_format, &format));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  /* contiguous (0) or preserve (1); the copy follows out's dim order. */
  if (has_format && format != 0 && format != 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "memory_format %" PRId64 " is not supported", format);
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, self->sizes));
  return _executorch_copy_view (ctx, out, self, 0, self->strides);
}

/* Removes the marked size-1 dims of self and copies. */
static EtError
squeeze (EtKernelContext *ctx, EtTensor *self, EtTensor *out, const bool *marked)
{
  int64_t sizes[ET_MAX_DIMS];
  uint32_t n = 0;

  for (uint32_t d = 0; d < self->ndim; d++)
    if (!(marked[d] && self->sizes[d] == 1))
      sizes[n++] = self->sizes[d];
  KERNEL_TRY (_executorch_resize (ctx, out, n, sizes));
  return _executorch_copy_reshape (ctx, out, self);
}

/* (self, dims, out, ret) */
static EtError
squeeze_copy_dims_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  int64_t dims[ET_MAX_DIMS];
  uint32_t n_dims;
  bool marked[ET_MAX_DIMS] = { false };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "dims", NULL, dims, &n_dims));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  for (uint32_t i = 0; i < n_dims; i++)
    {
      uint32_t d;
      KERNEL_TRY (_executorch_wrap_dim (ctx, dims[i], self->ndim, true, &d));
      if (self->ndim == 0)
        continue;
      if (marked[d])
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "dim %u repeats in dims", d);
      marked[d] = true;
    }
  return squeeze (ctx, self, out, marked);
}

/* (self, dim, out, ret) */
static EtError
squeeze_copy_dim_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  int64_t dim;
  uint32_t d;
  bool marked[ET_MAX_DIMS] = { false };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, true, &d));
  if (self->ndim > 0)
    marked[d] = true;
  return squeeze (ctx, self, out, marked);
}

/* (self, dim, out, ret) */
static EtError
unsqueeze_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  int64_t dim, sizes[ET_MAX_DIMS];
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  if (self->ndim + 1 > ET_MAX_DIMS)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "rank would exceed %d", ET_MAX_DIMS);
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim + 1, false, &d));
  for (uint32_t i = 0, j = 0; i < self->ndim + 1; i++)
    sizes[i] = i == d ? 1 : self->sizes[j++];
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim + 1, sizes));
  return _executorch_copy_reshape (ctx, out, self);
}

/* (self, size, implicit, out, ret) */
static EtError
expand_copy_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  int64_t req[ET_MAX_DIMS], sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  uint32_t n;
  bool implicit;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "size", NULL, req, &n));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "implicit", &implicit));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  if (n < self->ndim)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "size has %u entries, fewer than self's rank %u", n,
                        self->ndim);

  uint32_t lead = n - self->ndim;
  for (uint32_t i = 0; i < n; i++)
    {
      if (i < lead)
        {
          if (req[i] < 0)
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "new leading dim %u needs a size, got %" PRId64, i,
                                req[i]);
          sizes[i] = req[i];
          strides[i] = 0;
          continue;
        }
      int64_t have = self->sizes[i - lead];
      if (req[i] == -1 || req[i] == have)
        {
          sizes[i] = have;
          strides[i] = self->strides[i - lead];
        }
      else if (have == 1 && req[i] >= 0)
        {
          sizes[i] = req[i];
          strides[i] = 0;
        }
      else
        {
          return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cannot expand dim %u of size %" PRId64 " to %" PRId64,
                              i - lead, have, req[i]);
        }
    }
  KERNEL_TRY (_executorch_resize (ctx, out, n, sizes));
  return _executorch_copy_view (ctx, out, self, 0, strides);
}

static bool
is_legacy_empty (const EtTensor *t)
{
  return t->ndim == 1 && t->sizes[0] == 0;
}

/* A cat of dense tensors of out's dtype into dense out: each input is
 * one contiguous run per index of the dims before @d (outer), so out's
 * elements [begin, end) are pieces of memcpy, cut across the pool (a
 * SqueezeNet fire module's cat would otherwise be a serial pass). */
typedef struct
{
  const EtValueList *list;
  char *out;
  size_t es;
  int64_t outer_run; /* out elements per outer index */
  int64_t *run;      /* per input: elements per outer index */
} CatJob;

static void
cat_range (void *context, int64_t begin, int64_t end)
{
  CatJob *job = context;

  while (begin < end)
    {
      int64_t o = begin / job->outer_run, at = begin % job->outer_run, first = 0;
      uint32_t i = 0;

      while (at >= first + job->run[i])
        first += job->run[i++];
      int64_t n = first + job->run[i] - at;
      n = n < end - begin ? n : end - begin;
      const char *src = job->list->items[i]->u.tensor->data;
      memcpy (job->out + (size_t) begin * job->es, src + (size_t) (o * job->run[i] + at - first) * job->es,
              (size_t) n * job->es);
      begin += n;
    }
}

/* False, copying nothing, when some tensor is not dense in out's dtype,
 * is empty or shares bytes with out. */
static bool
cat_dense (const EtValueList *list, EtTensor *out, uint32_t d)
{
  int64_t outer = 1, run[64];

  if (list->length > KERNEL_N_ELEMENTS (run) || !_executorch_dim_order_is_identity (out))
    return false;
  for (uint32_t k = 0; k < d; k++)
    outer *= out->sizes[k];
  if (outer <= 0)
    return false;
  for (uint32_t i = 0; i < list->length; i++)
    {
      const EtTensor *t = list->items[i]->u.tensor;
      if (t->scalar_type != out->scalar_type || !_executorch_dim_order_is_identity (t) || t->numel % outer != 0 ||
          t->numel == 0 || t->data == NULL)
        return false;
      /* Bytes shared with out (a hostile memory plan) take the general copy. */
      const char *a = t->data, *b = out->data;
      size_t na = (size_t) t->numel * _executorch_type_size (t->scalar_type);
      size_t nb = (size_t) out->numel * _executorch_type_size (out->scalar_type);
      if (a < b + nb && b < a + na)
        return false;
      run[i] = t->numel / outer;
    }
  CatJob job = { list, out->data, _executorch_type_size (out->scalar_type), out->numel / outer, run };
  /* On the pool above 512 KiB: a smaller copy takes less than a region costs. */
  _executorch_parallel_for (out->numel, (int64_t) (512 * 1024 / job.es), cat_range, &job);
  return true;
}

/* (tensors, dim, out, ret) */
static EtError
cat_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const EtValueList *list;
  EtTensor *out, *ref = NULL;
  int64_t dim, sizes[ET_MAX_DIMS];
  uint32_t d = 0;
  char sa[160], sb[160];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor_list (ctx, args, 0, "tensors", &list));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, out, "out"));
  if (list->length == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cat needs at least one tensor");

  for (uint32_t i = 0; i < list->length; i++)
    {
      EtTensor *t = list->items[i]->u.tensor;
      KERNEL_TRY (_executorch_check_tensor (ctx, t, "tensors"));
      if (t->scalar_type != out->scalar_type && !_executorch_can_cast (t->scalar_type, out->scalar_type))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "tensor %u: cannot cast %s to %s", i,
                            _executorch_type_name (t->scalar_type), _executorch_type_name (out->scalar_type));
      if (ref == NULL && !is_legacy_empty (t))
        ref = t;
    }
  if (ref == NULL)
    {
      /* Only legacy empty tensors: the result is empty too. */
      sizes[0] = 0;
      return _executorch_resize (ctx, out, 1, sizes);
    }
  if (ref->ndim == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cannot concatenate 0-d tensors");
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, ref->ndim, false, &d));

  memcpy (sizes, ref->sizes, ref->ndim * sizeof sizes[0]);
  sizes[d] = 0;
  for (uint32_t i = 0; i < list->length; i++)
    {
      const EtTensor *t = list->items[i]->u.tensor;
      bool ok = t->ndim == ref->ndim;
      if (is_legacy_empty (t))
        continue;
      for (uint32_t k = 0; ok && k < ref->ndim; k++)
        if (k != d && t->sizes[k] != ref->sizes[k])
          ok = false;
      if (!ok)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "tensor %u has shape %s, incompatible with %s along dim %u",
                            i, _executorch_format_sizes (sa, sizeof sa, t->ndim, t->sizes),
                            _executorch_format_sizes (sb, sizeof sb, ref->ndim, ref->sizes), d);
      sizes[d] += t->sizes[d];
    }
  KERNEL_TRY (_executorch_resize (ctx, out, ref->ndim, sizes));
  if (out->numel == 0)
    return ET_OK;

  if (cat_dense (list, out, d))
    return ET_OK;
  int64_t offset = 0;
  for (uint32_t i = 0; i < list->length; i++)
    {
      const EtTensor *t = list->items[i]->u.tensor;
      if (t->numel == 0)
        continue;
      KERNEL_TRY (_executorch_copy_strided (ctx, t->ndim, t->sizes, out->dim_order, out->data, out->scalar_type,
                                            offset * out->strides[d], out->strides, t->data, t->scalar_type, 0,
                                            t->strides));
      offset += t->sizes[d];
    }
  return ET_OK;
}

/* Python-style clamping of a slice bound. */
static int64_t
clamp_bound (int64_t v, int64_t size)
{
  if (v < 0)
    v = v < -size ? 0 : v + size;
  return v > size ? size : v;
}

void
_executorch_slice_range (int64_t size, bool has_start, int64_t start, bool has_end, int64_t end, int64_t step,
                         int64_t *first, int64_t *len)
{
  start = has_start ? clamp_bound (start, size) : 0;
  end = has_end ? clamp_bound (end, size) : size;
  *first = start;
  /* Rounds up without end - start + step, which overflows for a huge step. */
  *len = end > start ? (end - start - 1) / step + 1 : 0;
}

uint32_t
_executorch_drop_dim (uint32_t ndim, const int64_t *sizes, const int64_t *strides, uint32_t d, int64_t *kept_sizes,
                      int64_t *kept_strides)
{
  uint32_t n = 0;

  for (uint32_t k = 0; k < ndim; k++)
    {
      if (k == d)
        continue;
      kept_sizes[n] = sizes[k];
      kept_strides[n] = strides[k];
      n++;
    }
  return n;
}

/* (self, dim, start?, end?, step, out, ret) */
static EtError
slice_copy_tensor_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  int64_t dim, start, end, step, sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  bool has_start, has_end;
  uint32_t d;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 7));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 2, "start", &has_start, &start));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 3, "end", &has_end, &end));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 4, "step", &step));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 5, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  if (self->ndim == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cannot slice a 0-d tensor");
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, false, &d));
  if (step <= 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "step must be positive, got %" PRId64, step);

  int64_t len;
  _executorch_slice_range (self->sizes[d], has_start, start, has_end, end, step, &start, &len);

  memcpy (sizes, self->sizes, self->ndim * sizeof sizes[0]);
  memcpy (strides, self->strides, self->ndim * sizeof strides[0]);
  sizes[d] = len;
  /* With one element the step is unused (and may be huge). */
  strides[d] = len > 1 ? self->strides[d] * step : self->strides[d];
  KERNEL_TRY (_executorch_resize (ctx, out, self->ndim, sizes));
  return _executorch_copy_view (ctx, out, self, len > 0 ? start * self->strides[d] : 0, strides);
}

/* (self, dim, index, out, ret) */
static EtError
select_copy_int_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *self, *out;
  int64_t dim, index, sizes[ET_MAX_DIMS], strides[ET_MAX_DIMS];
  uint32_t d, n;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &self));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, "dim", &dim));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "index", &index));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, NULL, self, out, "out"));
  if (self->ndim == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "cannot select from a 0-d tensor");
  KERNEL_TRY (_executorch_wrap_dim (ctx, dim, self->ndim, false, &d));
  int64_t size = self->sizes[d];
  if (index < -size || index >= size)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "index %" PRId64 " is out of range for dim %u of size %" PRId64,
                        index, d, size);
  if (index < 0)
    index += size;
  n = _executorch_drop_dim (self->ndim, self->sizes, self->strides, d, sizes, strides);
  KERNEL_TRY (_executorch_resize (ctx, out, n, sizes));
  return _executorch_copy_view (ctx, out, self, index * self->strides[d], strides);
}

const EtKernel _executorch_shape_kernels[] = {
  { "aten::permute_copy.out", permute_copy_out, NULL },
  { "aten::view_copy.out", view_copy_out, NULL },
  { "aten::clone.out", clone_out, NULL },
  { "aten::squeeze_copy.dims_out", squeeze_copy_dims_out, NULL },
  { "aten::squeeze_copy.dim_out", squeeze_copy_dim_out, NULL },
  { "aten::unsqueeze_copy.out", unsqueeze_copy_out, NULL },
  { "aten::expand_copy.out", expand_copy_out, NULL },
  { "aten::cat.out", cat_out, NULL },
  { "aten::slice_copy.Tensor_out", slice_copy_tensor_out, NULL },
  { "aten::select_copy.int_out", select_copy_int_out, NULL },
};

const size_t _executorch_shape_n_kernels = KERNEL_N_ELEMENTS (_executorch_shape_kernels);
