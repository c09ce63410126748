/* int-move.c: permute_copy of int8 data between a dequantize and a quantize, on the bytes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * dequantize → permute_copy → quantize moves values without changing
 * them, so the rewrite (int-conv-rewrite.c, rewrite_byte_moves) stages the
 * bytes instead of floats (a StagedBytes header and the bytes, in the
 * float buffers the program planned) and this permutes them: a quarter
 * of the data, and no float conversion either side.
 */
#include "int-kernels-private.h"

#include <glib.h>
#include <string.h>

/* out = self's bytes permuted: out dimension i is self's dims[i]; both
 * contiguous.  The trailing dimensions the permutation leaves in place
 * move as one block. */
static void
permute (const uint8_t *in, uint8_t *out, const int64_t *sizes, const int64_t *dims, uint32_t ndim)
{
  int64_t in_strides[ET_MAX_DIMS], out_sizes[ET_MAX_DIMS], index[ET_MAX_DIMS] = { 0 };
  int64_t block = 1, n_blocks = 1;
  uint32_t kept = ndim;

  for (uint32_t i = ndim; i-- > 0;)
    in_strides[i] = i + 1 < ndim ? in_strides[i + 1] * sizes[i + 1] : 1;
  while (kept > 0 && dims[kept - 1] == (int64_t) kept - 1)
    kept--;
  for (uint32_t i = kept; i < ndim; i++)
    block *= sizes[i];
  for (uint32_t i = 0; i < kept; i++)
    n_blocks *= out_sizes[i] = sizes[dims[i]];
  if (kept == 0)
    {
      memcpy (out, in, (size_t) block);
      return;
    }
  for (int64_t b = 0; b < n_blocks; b++)
    {
      int64_t from = 0;
      for (uint32_t i = 0; i < kept; i++)
        from += index[i] * in_strides[dims[i]];
      if (block == 1)
        out[b] = in[from];
      else
        memcpy (out + b * block, in + from, (size_t) block);
      for (uint32_t i = kept; i-- > 0;)
        {
          if (++index[i] < out_sizes[i])
            break;
          index[i] = 0;
        }
    }
}

/* permute_copy.out (self, dims, out, ret) of staged bytes. */
static EtError
permute_bytes (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "aten::permute_copy.out", args, n_args };
  EtTensor *self, *out;
  int64_t dims[ET_MAX_DIMS], sizes[ET_MAX_DIMS];
  bool seen[ET_MAX_DIMS] = { false };
  const EtValueList *list;

  QK_TRY (_executorch_qk_check_n_args (&c, 4));
  QK_TRY (_executorch_qk_tensor (&c, 0, "self", &self));
  QK_TRY (_executorch_qk_tensor (&c, 2, "out", &out));
  if (args[1]->tag != ET_VALUE_LIST_INT || args[1]->u.list.length != self->ndim || self->ndim > ET_MAX_DIMS)
    return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "dims is not a list of %u integers", self->ndim);
  list = &args[1]->u.list;
  for (uint32_t i = 0; i < self->ndim; i++)
    {
      const EtValue *item = list->items[i];
      int64_t d = item != NULL && item->tag == ET_VALUE_INT ? item->u.int_value : -1;
      if (d < 0)
        d += self->ndim;
      if (d < 0 || d >= (int64_t) self->ndim || seen[d])
        return _executorch_qk_fail (&c, ET_ERROR_INVALID_ARGUMENT, "dims is not a permutation");
      seen[d] = true;
      dims[i] = d;
      sizes[i] = self->sizes[d];
    }
  QK_TRY (_executorch_qk_resize (&c, out, "out", self->ndim, sizes));
  if (_executorch_qk_staged_bytes (self) == NULL || !et_tensor_is_contiguous (self) || !et_tensor_is_contiguous (out) ||
      out->data == NULL || out->nbytes < sizeof (StagedBytes) + (size_t) self->numel)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "self not staged");
  memcpy (out->data, self->data, sizeof (StagedBytes));
  if (self->numel > 0)
    permute ((const uint8_t *) self->data + sizeof (StagedBytes), (uint8_t *) out->data + sizeof (StagedBytes),
             self->sizes, dims, self->ndim);
  return ET_OK;
}

const EtKernel _executorch_qk_permute_bytes_kernel = { "aten::permute_copy.out [int8 bytes]", permute_bytes, NULL };
