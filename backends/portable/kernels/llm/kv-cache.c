/* kv-cache.c: the llama:: KV-cache kernels (update_cache, update_cache_with_indices)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The caches are [B, Smax, H, D] (sequence on dim 1), as in upstream's
 * custom ops; value [B, S, H, D] is written at rows start_pos.. (or at the
 * rows @indices names).  Every size, position and index is checked and
 * reported as an error (upstream aborts on several of them).
 * sdpa_with_kv_cache (sdpa.c) writes its caches through the same code.
 */
#include "kernels-private.h"
#include "llm-private.h"

#include <string.h>

EtError
_executorch_llm_check_4d (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name)
{
  if (t->ndim != 4)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s must be 4-D, not %u-D", op, name, t->ndim);
  return ET_OK;
}

/* Both 4-D, of one dtype. */
static EtError
check_value_and_cache (EtKernelContext *ctx, const char *op, const EtTensor *value, const EtTensor *cache)
{
  KERNEL_TRY (_executorch_llm_check_4d (ctx, op, value, "value"));
  KERNEL_TRY (_executorch_llm_check_4d (ctx, op, cache, "cache"));
  if (value->scalar_type != cache->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: value dtype %s differs from cache dtype %s", op,
                        _executorch_type_name (value->scalar_type), _executorch_type_name (cache->scalar_type));
  return ET_OK;
}

/* value [B, S, H, D] into cache [B, Smax, H, D] at rows start_pos.. */
EtError
_executorch_kv_cache_write (EtKernelContext *ctx, const char *op, const EtTensor *value, EtTensor *cache,
                            int64_t start_pos)
{
  char sa[160], sb[160];

  KERNEL_TRY (check_value_and_cache (ctx, op, value, cache));
  if (value->sizes[0] != cache->sizes[0] || value->sizes[2] != cache->sizes[2] || value->sizes[3] != cache->sizes[3])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: value of shape %s does not fit cache of shape %s", op,
                        _executorch_format_sizes (sa, sizeof sa, value->ndim, value->sizes),
                        _executorch_format_sizes (sb, sizeof sb, cache->ndim, cache->sizes));
  if (start_pos < 0 || start_pos > cache->sizes[1] - value->sizes[1])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: start_pos %" PRId64 " + seq_len %" PRId64 " exceeds the cache length %" PRId64, op,
                        start_pos, value->sizes[1], cache->sizes[1]);
  if (value->numel == 0)
    return ET_OK;
  return _executorch_copy_strided (ctx, 4, value->sizes, cache->dim_order, cache->data, cache->scalar_type,
                                   start_pos * cache->strides[1], cache->strides, value->data, value->scalar_type, 0,
                                   value->strides);
}

/* (value, cache, start_pos, out, ret): out is a placeholder, never written. */
static EtError
update_cache_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  EtTensor *value, *cache, *out;
  int64_t start_pos;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "value", &value));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "cache", &cache));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "start_pos", &start_pos));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  return _executorch_kv_cache_write (ctx, "update_cache", value, cache, start_pos);
}

/* (value, cache, start_pos, indices [B, S] Long, out, ret) */
static EtError
update_cache_with_indices_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "update_cache_with_indices";
  EtTensor *value, *cache, *indices, *out;
  int64_t start_pos, sizes[4], vst[4], cst[4];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "value", &value));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "cache", &cache));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "start_pos", &start_pos));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "indices", &indices));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  KERNEL_TRY (check_value_and_cache (ctx, op, value, cache));
  if (value->sizes[0] != cache->sizes[0] || value->sizes[2] != cache->sizes[2] || value->sizes[3] != cache->sizes[3])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: value does not fit the cache", op);
  if (indices->scalar_type != ET_SCALAR_LONG || indices->ndim != 2 || indices->sizes[0] != value->sizes[0] ||
      indices->sizes[1] != value->sizes[1])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: indices must be a Long tensor of shape [batch, seq_len]",
                        op);
  const int64_t *idx = indices->data;
  for (int64_t b = 0; b < value->sizes[0]; b++)
    for (int64_t s = 0; s < value->sizes[1]; s++)
      {
        int64_t p = idx[b * indices->strides[0] + s * indices->strides[1]];
        if (p < 0 || p >= cache->sizes[1])
          return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                              "%s: index %" PRId64 " is out of range for cache length %" PRId64, op, p,
                              cache->sizes[1]);
      }
  /* One token ([H, D]) at a time. */
  sizes[0] = 1;
  sizes[1] = 1;
  sizes[2] = value->sizes[2];
  sizes[3] = value->sizes[3];
  memcpy (vst, value->strides, sizeof vst);
  memcpy (cst, cache->strides, sizeof cst);
  for (int64_t b = 0; b < value->sizes[0] && value->numel > 0; b++)
    for (int64_t s = 0; s < value->sizes[1]; s++)
      {
        int64_t p = idx[b * indices->strides[0] + s * indices->strides[1]];
        KERNEL_TRY (_executorch_copy_strided (ctx, 4, sizes, NULL, cache->data, cache->scalar_type,
                                              b * cst[0] + p * cst[1], cst, value->data, value->scalar_type,
                                              b * vst[0] + s * vst[1], vst));
      }
  return ET_OK;
}

const EtKernel _executorch_kv_cache_kernels[] = {
  { "llama::update_cache.out", update_cache_out, NULL },
  { "llama::update_cache_with_indices.out", update_cache_with_indices_out, NULL },
};

const size_t _executorch_kv_cache_n_kernels = KERNEL_N_ELEMENTS (_executorch_kv_cache_kernels);
