/* sdpa.c: the llama:: attention kernels (custom_sdpa, sdpa_with_kv_cache)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Layouts follow upstream's custom ops: q is [B, S, Hq, D] and the caches
 * are [B, Smax, Hkv, D] (sequence on dim 1; custom_sdpa's is_seq_dim_2
 * flag selects [B, H, S, D]).  Attention covers the keys [0, start_pos + S),
 * or as many as an attn_mask is wide; with is_causal, query i (absolute
 * position start_pos + i) sees keys up to start_pos + i.  Grouped-query attention
 * maps query head h to kv head h / (Hq / Hkv).
 *
 * Every size, position and index is checked and reported as an error
 * (upstream aborts on several of them).  The arithmetic is a plain
 * two-pass softmax in double, for Float, Double, Half and BFloat16 (upstream
 * runs a blocked online softmax in the input type and rejects Half/BF16), so
 * results agree with upstream within the usual fp32 tolerances.  Rows whose
 * keys are all masked out give zeros, as eager PyTorch's _safe_softmax does.
 * dropout_p is ignored, as upstream does.
 */
#include "kernels-private.h"
#include "llm-private.h"

#include <math.h>
#include <string.h>

typedef struct
{
  const EtTensor *mask; /* NULL when absent (or empty) */
  bool is_causal;
  bool has_scale;
  double scale;
} SdpaOptions;

/* Reads attn_mask?, dropout_p, is_causal, scale? starting at @i. */
static EtError
sdpa_options (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t i, SdpaOptions *o)
{
  memset (o, 0, sizeof *o);
  if (args[i] == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: attn_mask is missing", op);
  if (args[i]->tag != ET_VALUE_NONE)
    {
      EtTensor *m;
      KERNEL_TRY (_executorch_arg_tensor (ctx, args, i, "attn_mask", &m));
      if (m->numel > 0)
        o->mask = m;
    }
  if (args[i + 1] == NULL || (args[i + 1]->tag != ET_VALUE_DOUBLE && args[i + 1]->tag != ET_VALUE_INT))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: dropout_p must be a Double", op);
  KERNEL_TRY (_executorch_arg_bool (ctx, args, i + 2, "is_causal", &o->is_causal));
  const EtValue *s = args[i + 3];
  if (s == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: scale is missing", op);
  if (s->tag == ET_VALUE_DOUBLE)
    {
      o->has_scale = true;
      o->scale = s->u.double_value;
    }
  else if (s->tag == ET_VALUE_INT)
    {
      o->has_scale = true;
      o->scale = (double) s->u.int_value;
    }
  else if (s->tag != ET_VALUE_NONE)
    {
      return KERNEL_FAIL (ctx, ET_ERROR_INVALID_PROGRAM, "%s: scale must be a Double or None", op);
    }
  if (o->mask != NULL && o->is_causal)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: attn_mask and is_causal cannot be set at the same time",
                        op);
  return ET_OK;
}

static EtError
sdpa (EtKernelContext *ctx, const char *op, const EtTensor *q, const EtTensor *k, const EtTensor *v, int64_t start_pos,
      const SdpaOptions *o, EtTensor *out)
{
  char sa[160], sb[160], sc[160];

  KERNEL_TRY (_executorch_llm_check_4d (ctx, op, q, "query"));
  KERNEL_TRY (_executorch_llm_check_4d (ctx, op, k, "key"));
  KERNEL_TRY (_executorch_llm_check_4d (ctx, op, v, "value"));
  if (!_executorch_type_is_floating (q->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: query must be floating, not %s", op,
                        _executorch_type_name (q->scalar_type));
  if (k->scalar_type != q->scalar_type || v->scalar_type != q->scalar_type || out->scalar_type != q->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: key, value and out must have query's dtype %s", op,
                        _executorch_type_name (q->scalar_type));
  int64_t B = q->sizes[0], S = q->sizes[1], Hq = q->sizes[2], D = q->sizes[3];
  int64_t Hkv = k->sizes[2];
  if (k->sizes[0] != B || v->sizes[0] != B || v->sizes[2] != Hkv || k->sizes[3] != D || v->sizes[3] != D ||
      k->sizes[1] != v->sizes[1])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: key %s and value %s do not match query %s", op,
                        _executorch_format_sizes (sa, sizeof sa, 4, k->sizes),
                        _executorch_format_sizes (sb, sizeof sb, 4, v->sizes),
                        _executorch_format_sizes (sc, sizeof sc, 4, q->sizes));
  if (Hkv == 0 ? Hq != 0 : Hq % Hkv != 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: %" PRId64 " query heads are not a multiple of %" PRId64 " kv heads", op, Hq, Hkv);
  if (start_pos < 0 || start_pos > k->sizes[1] - S)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: start_pos %" PRId64 " + seq_len %" PRId64 " exceeds the cache length %" PRId64, op,
                        start_pos, S, k->sizes[1]);
  int64_t kv_len = start_pos + S;
  const EtTensor *mask = o->mask;
  if (mask != NULL)
    {
      /* [S, start_pos + S] (older upstream) or [S, Smax] over the whole cache
     * (newer upstream); the mask's width decides how many keys are used. */
      if (mask->ndim != 2 || mask->sizes[0] != S || (mask->sizes[1] != kv_len && mask->sizes[1] != k->sizes[1]))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            "%s: attn_mask must have shape [%" PRId64 ", %" PRId64 "] or [%" PRId64 ", %" PRId64
                            "], not %s",
                            op, S, kv_len, S, k->sizes[1],
                            _executorch_format_sizes (sa, sizeof sa, mask->ndim, mask->sizes));
      kv_len = mask->sizes[1];
      if (!_executorch_type_is_floating (mask->scalar_type) && mask->scalar_type != ET_SCALAR_BOOL)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: attn_mask must be floating or Bool, not %s", op,
                            _executorch_type_name (mask->scalar_type));
    }
  KERNEL_TRY (_executorch_resize (ctx, out, 4, q->sizes));
  if (out->numel == 0)
    return ET_OK;

  double scale = o->has_scale ? o->scale : 1.0 / sqrt ((double) D);
  int64_t reps = Hq / Hkv;
  /* Scratch: K and V of one (batch, kv head) as [kv_len, D] doubles, a
   * query row, the scores and an output row. */
  size_t n = (size_t) (2 * kv_len * D + 2 * D + kv_len + (mask ? kv_len : 0));
  KernelTemp temp;
  KERNEL_TRY (_executorch_temp_alloc (ctx, n * sizeof (double), &temp));
  double *K = temp.data, *V = K + kv_len * D, *qr = V + kv_len * D, *acc = qr + D, *p = acc + D;
  double *mrow = p + kv_len;

  for (int64_t b = 0; b < B; b++)
    for (int64_t hk = 0; hk < Hkv; hk++)
      {
        for (int64_t j = 0; j < kv_len; j++)
          {
            _executorch_load_f64 (k->scalar_type, k->data, b * k->strides[0] + j * k->strides[1] + hk * k->strides[2],
                                  k->strides[3], D, K + j * D);
            _executorch_load_f64 (v->scalar_type, v->data, b * v->strides[0] + j * v->strides[1] + hk * v->strides[2],
                                  v->strides[3], D, V + j * D);
          }
        for (int64_t h = hk * reps; h < (hk + 1) * reps; h++)
          for (int64_t i = 0; i < S; i++)
            {
              int64_t n_keys = o->is_causal ? start_pos + i + 1 : kv_len;
              double mx = -INFINITY, sum = 0.0;
              _executorch_load_f64 (q->scalar_type, q->data, b * q->strides[0] + i * q->strides[1] + h * q->strides[2],
                                    q->strides[3], D, qr);
              if (mask != NULL)
                _executorch_load_f64 (mask->scalar_type, mask->data, i * mask->strides[0], mask->strides[1], kv_len,
                                      mrow);
              for (int64_t j = 0; j < n_keys; j++)
                {
                  double s = 0.0;
                  for (int64_t d = 0; d < D; d++)
                    s += qr[d] * K[j * D + d];
                  s *= scale;
                  if (mask != NULL)
                    s = mask->scalar_type == ET_SCALAR_BOOL ? (mrow[j] != 0.0 ? s : -INFINITY) : s + mrow[j];
                  p[j] = s;
                  if (s > mx)
                    mx = s;
                }
              memset (acc, 0, (size_t) D * sizeof acc[0]);
              if (mx > -INFINITY)
                {
                  for (int64_t j = 0; j < n_keys; j++)
                    {
                      p[j] = exp (p[j] - mx);
                      sum += p[j];
                    }
                  for (int64_t j = 0; j < n_keys; j++)
                    {
                      double w = p[j] / sum;
                      if (w == 0.0)
                        continue;
                      for (int64_t d = 0; d < D; d++)
                        acc[d] += w * V[j * D + d];
                    }
                }
              _executorch_store_f64 (out->scalar_type, out->data,
                                     b * out->strides[0] + i * out->strides[1] + h * out->strides[2], out->strides[3],
                                     D, acc);
            }
      }
  _executorch_temp_free (&temp);
  return ET_OK;
}

/* A view of @t with dims 1 and 2 swapped ([B, H, S, D] read as [B, S, H, D]). */
static void
swap_12 (const EtTensor *t, EtTensor *view)
{
  *view = *t;
  if (t->ndim != 4)
    return;
  view->sizes[1] = t->sizes[2];
  view->sizes[2] = t->sizes[1];
  view->strides[1] = t->strides[2];
  view->strides[2] = t->strides[1];
  for (uint32_t j = 0; j < 4; j++)
    if (t->dim_order[j] == 1 || t->dim_order[j] == 2)
      view->dim_order[j] = (uint8_t) (3 - t->dim_order[j]);
}

/* (q, k, v, start_pos, attn_mask?, dropout_p, is_causal, scale?, [is_seq_dim_2,] out, ret) */
static EtError
custom_sdpa_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "custom_sdpa";
  EtTensor *q, *k, *v, *out;
  int64_t start_pos;
  bool seq_dim_2 = false;
  SdpaOptions o;

  /* Newer upstream schemas add a trailing is_seq_dim_2 flag. */
  if (n_args != 11)
    KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 10));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "query", &q));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "key", &k));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "value", &v));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 3, "start_pos", &start_pos));
  KERNEL_TRY (sdpa_options (ctx, op, args, 4, &o));
  if (n_args == 11)
    KERNEL_TRY (_executorch_arg_bool (ctx, args, 8, "is_seq_dim_2", &seq_dim_2));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, n_args - 2, "out", &out));
  if (!seq_dim_2)
    return sdpa (ctx, op, q, k, v, start_pos, &o, out);

  /* [B, H, S, D] tensors: compute on swapped views; out takes q's shape. */
  EtTensor qv, kv, vv, ov;
  KERNEL_TRY (_executorch_llm_check_4d (ctx, op, q, "query"));
  KERNEL_TRY (_executorch_llm_check_4d (ctx, op, out, "out"));
  KERNEL_TRY (_executorch_resize (ctx, out, 4, q->sizes));
  swap_12 (q, &qv);
  swap_12 (k, &kv);
  swap_12 (v, &vv);
  swap_12 (out, &ov); /* already shaped like qv: sdpa's resize is a no-op */
  return sdpa (ctx, op, &qv, &kv, &vv, start_pos, &o, &ov);
}

/* (q, k, v, key_cache, value_cache, start_pos, seq_len, attn_mask?, dropout_p, is_causal,
 *  scale?, out, ret) */
static EtError
sdpa_with_kv_cache_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "sdpa_with_kv_cache";
  EtTensor *q, *k, *v, *kc, *vc, *out;
  int64_t start_pos, seq_len;
  SdpaOptions o;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 13));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "query", &q));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "key", &k));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "value", &v));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "key_cache", &kc));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "value_cache", &vc));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 5, "start_pos", &start_pos));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 6, "seq_len", &seq_len));
  KERNEL_TRY (sdpa_options (ctx, op, args, 7, &o));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 11, "out", &out));
  KERNEL_TRY (_executorch_llm_check_4d (ctx, op, q, "query"));
  KERNEL_TRY (_executorch_llm_check_4d (ctx, op, kc, "key_cache"));
  KERNEL_TRY (_executorch_llm_check_4d (ctx, op, vc, "value_cache"));
  if (seq_len != q->sizes[1])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: seq_len %" PRId64 " differs from the query length %" PRId64, op, seq_len, q->sizes[1]);
  KERNEL_TRY (_executorch_kv_cache_write (ctx, op, k, kc, start_pos));
  KERNEL_TRY (_executorch_kv_cache_write (ctx, op, v, vc, start_pos));
  return sdpa (ctx, op, q, kc, vc, start_pos, &o, out);
}

const EtKernel _executorch_sdpa_kernels[] = {
  { "llama::custom_sdpa.out", custom_sdpa_out, NULL },
  { "llama::sdpa_with_kv_cache.out", sdpa_with_kv_cache_out, NULL },
};

const size_t _executorch_sdpa_n_kernels = KERNEL_N_ELEMENTS (_executorch_sdpa_kernels);
