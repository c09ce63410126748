/* norm.c: batch, layer and group normalisation
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Batch norm (channel dimension 1, rank >= 2) is folded into a per-channel
 * scale and shift, out = x * scale[c] + shift[c] with
 * scale = w / sqrt(var + eps) and shift = b - mean * scale; it accepts
 * any dim order (channels-last too, an extension over upstream portable,
 * which needs contiguous input).  Batch statistics (training, no_stats)
 * are computed in double, variance biased; the running statistics of
 * _native_batch_norm_legit.out with training=True are updated in place
 * with the unbiased variance, as eager does.
 *
 * Layer norm and group norm need contiguous input and out (as upstream).
 * Moments are two-pass (mean, then squared deviations): in double for
 * every dtype except contiguous float32 layer norm, which uses the
 * vectorised helpers (float lanes combined in double).  mean and rstd are
 * written in their out tensors' dtypes.
 */
#include "nn-private.h"
#include "vector.h"

#include <math.h>
#include <string.h>

/* ---- Shared checks ---- */

static EtError
check_floating (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name)
{
  if (!_executorch_type_is_floating (t->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s must be floating, not %s", op, name,
                        _executorch_type_name (t->scalar_type));
  return ET_OK;
}

/* An optional per-channel tensor of @c elements (any floating dtype). */
static EtError
check_channel_vector (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name, int64_t c)
{
  if (t == NULL)
    return ET_OK;
  KERNEL_TRY (check_floating (ctx, op, t, name));
  if (t->ndim != 1 || t->sizes[0] != c)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s must have shape [%" PRId64 "] (one value per channel)",
                        op, name, c);
  return ET_OK;
}

/* Reads @t (1-D, or NULL = @fill) as @n doubles. */
static void
load_vector (const EtTensor *t, int64_t n, double fill, double *dst)
{
  if (t == NULL)
    {
      for (int64_t i = 0; i < n; i++)
        dst[i] = fill;
      return;
    }
  _executorch_load_f64 (t->scalar_type, t->data, 0, t->ndim ? t->strides[0] : 1, n, dst);
}

static EtError
resize_empty (EtKernelContext *ctx, EtTensor *t)
{
  int64_t zero = 0;
  return _executorch_resize (ctx, t, 1, &zero);
}

/* ---- Batch norm ---- */

typedef struct
{
  const EtTensor *in;
  EtTensor *out;
  const float *scale;
  const float *shift;
  int64_t channels, inner;
} BnJob;

/* Contiguous float32: one scale/shift per (n, c) block. */
static void
bn_fast_range (void *context, int64_t begin, int64_t end)
{
  BnJob *job = context;
  const float *x = job->in->data;
  float *o = job->out->data;
  for (int64_t b = begin; b < end; b++)
    {
      int64_t c = b % job->channels;
      _executorch_vec_scale_shift_f32 (job->inner, x + b * job->inner, job->scale[c], job->shift[c],
                                       o + b * job->inner);
    }
}

#define SCALE_SHIFT(NAME, T)                                                       \
  static void NAME (const void *user, int64_t n, void *out, const void *const *in) \
  {                                                                                \
    const T *restrict x = in[0], *restrict s = in[1], *restrict b = in[2];         \
    T *restrict o = out;                                                           \
    (void) user;                                                                   \
    for (int64_t i = 0; i < n; i++)                                                \
      o[i] = x[i] * s[i] + b[i];                                                   \
  }

SCALE_SHIFT (scale_shift_f32, float)
SCALE_SHIFT (scale_shift_f64, double)

/* out = in * scale[c] + shift[c] along dim 1, for any dim order. */
static EtError
apply_scale_shift (EtKernelContext *ctx, const EtTensor *in, EtTensor *out, const double *scale, const double *shift)
{
  int64_t c = in->sizes[1];
  int64_t inner = in->numel / (in->sizes[0] * c);
  bool f64 = in->scalar_type == ET_SCALAR_DOUBLE;
  KernelTemp temp;

  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) c * 2 * sizeof (double), &temp));
  float *sf = temp.data, *bf = sf + c;
  double *sd = temp.data, *bd = sd + c;
  for (int64_t i = 0; i < c; i++)
    {
      if (f64)
        {
          sd[i] = scale[i];
          bd[i] = shift[i];
        }
      else
        {
          sf[i] = (float) scale[i];
          bf[i] = (float) shift[i];
        }
    }

  if (in->scalar_type == ET_SCALAR_FLOAT && out->scalar_type == ET_SCALAR_FLOAT &&
      _executorch_dim_order_is_identity (in) && _executorch_dim_order_is_identity (out))
    {
      BnJob job = { in, out, sf, bf, c, inner };
      int64_t blocks = in->sizes[0] * c;
      int64_t grain = inner >= KERNEL_GRAIN ? 1 : KERNEL_GRAIN / (inner > 0 ? inner : 1);
      _executorch_parallel_for (blocks, grain, bn_fast_range, &job);
      _executorch_temp_free (&temp);
      return ET_OK;
    }

  /* [C, 1, ..., 1] tensors broadcast against in. */
  EtTensor ts, tb;
  memset (&ts, 0, sizeof ts);
  ts.ndim = in->ndim - 1;
  ts.sizes[0] = c;
  for (uint32_t d = 1; d < ts.ndim; d++)
    ts.sizes[d] = 1;
  for (uint32_t d = 0; d < ts.ndim; d++)
    ts.dim_order[d] = (uint8_t) d;
  _executorch_contiguous_strides (ts.ndim, ts.sizes, ts.strides);
  ts.scalar_type = f64 ? ET_SCALAR_DOUBLE : ET_SCALAR_FLOAT;
  ts.numel = c;
  ts.nbytes = (size_t) c * (f64 ? 8 : 4);
  ts.data = f64 ? (void *) sd : (void *) sf;
  tb = ts;
  tb.data = f64 ? (void *) bd : (void *) bf;
  const EtTensor *inputs[3] = { in, &ts, &tb };
  KernelComputeKind kind = f64 ? KERNEL_COMPUTE_F64 : KERNEL_COMPUTE_F32;
  EtError err = _executorch_map (ctx, out, kind, 3, inputs, kind, f64 ? scale_shift_f64 : scale_shift_f32, NULL);
  _executorch_temp_free (&temp);
  return err;
}

/* Per-channel mean and biased variance of @in over every dim but 1. */
static EtError
channel_moments (EtKernelContext *ctx, const EtTensor *in, double *mean, double *var)
{
  int64_t c = in->sizes[1];
  uint32_t rest = in->ndim - 2;
  int64_t count = in->numel / c;
  double buf[KERNEL_CHUNK];

  for (int pass = 0; pass < 2; pass++)
    {
      for (int64_t ch = 0; ch < c; ch++)
        {
          double acc = 0.0;
          for (int64_t n = 0; n < in->sizes[0]; n++)
            {
              int64_t base = n * in->strides[0] + ch * in->strides[1];
              const int64_t *strides[1] = { in->strides + 2 };
              KernelIter it;
              _executorch_iter_init (&it, rest, in->sizes + 2, NULL, 1, strides);
              for (int64_t r = 0; r < it.n_rows; r++, _executorch_iter_next (&it))
                {
                  for (int64_t j = 0; j < it.inner; j += KERNEL_CHUNK)
                    {
                      int64_t m = it.inner - j < KERNEL_CHUNK ? it.inner - j : KERNEL_CHUNK;
                      _executorch_load_f64 (in->scalar_type, in->data, base + it.offsets[0] + j * it.inner_strides[0],
                                            it.inner_strides[0], m, buf);
                      if (pass == 0)
                        {
                          for (int64_t k = 0; k < m; k++)
                            acc += buf[k];
                        }
                      else
                        {
                          for (int64_t k = 0; k < m; k++)
                            acc += (buf[k] - mean[ch]) * (buf[k] - mean[ch]);
                        }
                    }
                }
            }
          if (pass == 0)
            mean[ch] = acc / (double) count;
          else
            var[ch] = acc / (double) count;
        }
    }
  (void) ctx;
  return ET_OK;
}

typedef struct
{
  EtTensor *in, *weight, *bias, *running_mean, *running_var;
  double momentum, eps;
  EtTensor *out, *save_mean, *save_invstd;
} BnArgs;

static EtError
bn_check (EtKernelContext *ctx, const char *op, BnArgs *a)
{
  KERNEL_TRY (check_floating (ctx, op, a->in, "input"));
  if (a->in->ndim < 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: input must have at least 2 dims, not %u", op, a->in->ndim);
  if (a->out->scalar_type != a->in->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out dtype %s differs from input dtype %s", op,
                        _executorch_type_name (a->out->scalar_type), _executorch_type_name (a->in->scalar_type));
  int64_t c = a->in->sizes[1];
  KERNEL_TRY (check_channel_vector (ctx, op, a->weight, "weight", c));
  KERNEL_TRY (check_channel_vector (ctx, op, a->bias, "bias", c));
  KERNEL_TRY (check_channel_vector (ctx, op, a->running_mean, "running_mean", c));
  KERNEL_TRY (check_channel_vector (ctx, op, a->running_var, "running_var", c));
  if (a->save_mean != NULL)
    KERNEL_TRY (check_floating (ctx, op, a->save_mean, "save_mean"));
  if (a->save_invstd != NULL)
    KERNEL_TRY (check_floating (ctx, op, a->save_invstd, "save_invstd"));
  if (!(a->eps >= 0.0))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: eps must be >= 0", op);
  return ET_OK;
}

/* Normalises with running stats (@training false) or batch stats. */
static EtError
bn_run (EtKernelContext *ctx, BnArgs *a, bool training, bool update_running)
{
  int64_t c = a->in->sizes[1];
  KernelTemp temp;
  EtError err = ET_OK;

  KERNEL_TRY (_executorch_resize (ctx, a->out, a->in->ndim, a->in->sizes));
  if (training)
    {
      KERNEL_TRY (_executorch_resize (ctx, a->save_mean, 1, &c));
      KERNEL_TRY (_executorch_resize (ctx, a->save_invstd, 1, &c));
    }
  else
    {
      KERNEL_TRY (resize_empty (ctx, a->save_mean));
      KERNEL_TRY (resize_empty (ctx, a->save_invstd));
    }
  if (c == 0)
    return ET_OK;
  if (a->in->numel == 0 && !training)
    return ET_OK;

  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) c * 6 * sizeof (double), &temp));
  double *mean = temp.data, *var = mean + c, *w = var + c, *b = w + c, *scale = b + c, *shift = scale + c;

  if (training)
    {
      if (a->in->numel == 0)
        {
          for (int64_t i = 0; i < c; i++)
            mean[i] = var[i] = NAN;
        }
      else
        {
          KERNEL_TRY (channel_moments (ctx, a->in, mean, var));
        }
    }
  else
    {
      load_vector (a->running_mean, c, 0.0, mean);
      load_vector (a->running_var, c, 1.0, var);
    }
  load_vector (a->weight, c, 1.0, w);
  load_vector (a->bias, c, 0.0, b);
  for (int64_t i = 0; i < c; i++)
    {
      double invstd = 1.0 / sqrt (var[i] + a->eps);
      scale[i] = w[i] * invstd;
      shift[i] = b[i] - mean[i] * scale[i];
    }
  if (a->in->numel > 0)
    err = apply_scale_shift (ctx, a->in, a->out, scale, shift);

  if (err == ET_OK && training)
    {
      int64_t count = c > 0 ? a->in->numel / c : 0;
      /* save_invstd = 1 / sqrt(var + eps) */
      for (int64_t i = 0; i < c; i++)
        scale[i] = 1.0 / sqrt (var[i] + a->eps);
      _executorch_store_f64 (a->save_mean->scalar_type, a->save_mean->data, 0, a->save_mean->strides[0], c, mean);
      _executorch_store_f64 (a->save_invstd->scalar_type, a->save_invstd->data, 0, a->save_invstd->strides[0], c,
                             scale);
      if (update_running && a->running_mean != NULL && a->running_var != NULL)
        {
          double m = a->momentum;
          load_vector (a->running_mean, c, 0.0, w);
          load_vector (a->running_var, c, 1.0, b);
          for (int64_t i = 0; i < c; i++)
            {
              double unbiased = count > 1 ? var[i] * (double) count / (double) (count - 1) : var[i];
              w[i] = (1.0 - m) * w[i] + m * mean[i];
              b[i] = (1.0 - m) * b[i] + m * unbiased;
            }
          _executorch_store_f64 (a->running_mean->scalar_type, a->running_mean->data, 0, a->running_mean->strides[0], c,
                                 w);
          _executorch_store_f64 (a->running_var->scalar_type, a->running_var->data, 0, a->running_var->strides[0], c,
                                 b);
        }
    }
  _executorch_temp_free (&temp);
  return err;
}

/* (input, weight?, bias?, running_mean, running_var, momentum, eps, out,
 *  save_mean, save_invstd, ret) */
static EtError
batch_norm_no_training_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "_native_batch_norm_legit_no_training";
  BnArgs a = { 0 };
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 11));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &a.in));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 1, "weight", &a.weight));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 2, "bias", &a.bias));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "running_mean", &a.running_mean));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "running_var", &a.running_var));
  KERNEL_TRY (_executorch_arg_double (ctx, args, 5, "momentum", &a.momentum));
  KERNEL_TRY (_executorch_arg_double (ctx, args, 6, "eps", &a.eps));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 7, "out0", &a.out));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 8, "out1", &a.save_mean));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 9, "out2", &a.save_invstd));
  KERNEL_TRY (bn_check (ctx, op, &a));
  return bn_run (ctx, &a, false, false);
}

/* (input, weight?, bias?, running_mean, running_var, training, momentum,
 *  eps, out, save_mean, save_invstd, ret) */
static EtError
batch_norm_legit_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "_native_batch_norm_legit";
  BnArgs a = { 0 };
  bool training;
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 12));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &a.in));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 1, "weight", &a.weight));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 2, "bias", &a.bias));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "running_mean", &a.running_mean));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "running_var", &a.running_var));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 5, "training", &training));
  KERNEL_TRY (_executorch_arg_double (ctx, args, 6, "momentum", &a.momentum));
  KERNEL_TRY (_executorch_arg_double (ctx, args, 7, "eps", &a.eps));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 8, "out", &a.out));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 9, "save_mean", &a.save_mean));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 10, "save_invstd", &a.save_invstd));
  KERNEL_TRY (bn_check (ctx, op, &a));
  return bn_run (ctx, &a, training, true);
}

/* (input, weight?, bias?, training, momentum, eps, out, save_mean,
 *  save_invstd, ret): always batch statistics. */
static EtError
batch_norm_no_stats_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "_native_batch_norm_legit.no_stats";
  BnArgs a = { 0 };
  bool training;
  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 10));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &a.in));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 1, "weight", &a.weight));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 2, "bias", &a.bias));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 3, "training", &training));
  KERNEL_TRY (_executorch_arg_double (ctx, args, 4, "momentum", &a.momentum));
  KERNEL_TRY (_executorch_arg_double (ctx, args, 5, "eps", &a.eps));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 6, "out", &a.out));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 7, "save_mean", &a.save_mean));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 8, "save_invstd", &a.save_invstd));
  KERNEL_TRY (bn_check (ctx, op, &a));
  return bn_run (ctx, &a, true, false);
}

/* ---- Layer norm ---- */

typedef struct
{
  const EtTensor *in;
  EtTensor *out, *mean_t, *rstd_t;
  const float *w, *b;    /* float path (NULL = absent) */
  const double *wd, *bd; /* generic path (NULL = absent) */
  int64_t n;
  double eps;
} LnJob;

static void
ln_fast_range (void *context, int64_t begin, int64_t end)
{
  LnJob *job = context;
  const float *x = job->in->data;
  float *o = job->out->data;
  for (int64_t r = begin; r < end; r++)
    {
      double mean, var;
      _executorch_vec_moments_f32 (job->n, x + r * job->n, &mean, &var);
      double rstd = 1.0 / sqrt (var + job->eps);
      _executorch_vec_normalize_f32 (job->n, x + r * job->n, (float) mean, (float) rstd, job->w, job->b,
                                     o + r * job->n);
      _executorch_store_f64 (job->mean_t->scalar_type, job->mean_t->data, r, 1, 1, &mean);
      _executorch_store_f64 (job->rstd_t->scalar_type, job->rstd_t->data, r, 1, 1, &rstd);
    }
}

/* Generic dtype rows through a double buffer (@buf holds n doubles). */
static void
ln_generic_row (LnJob *job, int64_t r, double *buf)
{
  int64_t n = job->n;
  double mean = 0.0, var = 0.0, rstd;
  _executorch_load_f64 (job->in->scalar_type, job->in->data, r * n, 1, n, buf);
  for (int64_t k = 0; k < n; k++)
    mean += buf[k];
  mean = n > 0 ? mean / (double) n : NAN;
  for (int64_t k = 0; k < n; k++)
    var += (buf[k] - mean) * (buf[k] - mean);
  var = n > 0 ? var / (double) n : NAN;
  rstd = 1.0 / sqrt (var + job->eps);
  for (int64_t k = 0; k < n; k++)
    {
      double y = (buf[k] - mean) * rstd;
      if (job->wd != NULL)
        y *= job->wd[k];
      if (job->bd != NULL)
        y += job->bd[k];
      buf[k] = y;
    }
  _executorch_store_f64 (job->out->scalar_type, job->out->data, r * n, 1, n, buf);
  _executorch_store_f64 (job->mean_t->scalar_type, job->mean_t->data, r, 1, 1, &mean);
  _executorch_store_f64 (job->rstd_t->scalar_type, job->rstd_t->data, r, 1, 1, &rstd);
}

static EtError
check_contiguous (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name)
{
  if (!_executorch_dim_order_is_identity (t))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s must be contiguous", op, name);
  return ET_OK;
}

/* Checks an optional affine tensor against the normalised shape. */
static EtError
check_affine (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name, uint32_t k,
              const int64_t *shape)
{
  char a[160], b[160];
  if (t == NULL)
    return ET_OK;
  KERNEL_TRY (check_floating (ctx, op, t, name));
  bool ok = t->ndim == k;
  for (uint32_t d = 0; ok && d < k; d++)
    ok = t->sizes[d] == shape[d];
  if (!ok)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s shape %s must be %s", op, name,
                        _executorch_format_sizes (a, sizeof a, t->ndim, t->sizes),
                        _executorch_format_sizes (b, sizeof b, k, shape));
  return check_contiguous (ctx, op, t, name);
}

/* (input, normalized_shape[], weight?, bias?, eps, out0, out1, out2, ret) */
static EtError
native_layer_norm_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "native_layer_norm";
  EtTensor *in, *weight, *bias, *out, *mean_t, *rstd_t;
  int64_t shape[ET_MAX_DIMS], stat_sizes[ET_MAX_DIMS];
  uint32_t k;
  double eps;
  char a[160], b[160];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 9));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &in));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "normalized_shape", NULL, shape, &k));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 2, "weight", &weight));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 3, "bias", &bias));
  KERNEL_TRY (_executorch_arg_double (ctx, args, 4, "eps", &eps));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 5, "out0", &out));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 6, "out1", &mean_t));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 7, "out2", &rstd_t));
  KERNEL_TRY (check_floating (ctx, op, in, "input"));
  KERNEL_TRY (check_floating (ctx, op, mean_t, "mean (out1)"));
  KERNEL_TRY (check_floating (ctx, op, rstd_t, "rstd (out2)"));
  if (out->scalar_type != in->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out dtype %s differs from input dtype %s", op,
                        _executorch_type_name (out->scalar_type), _executorch_type_name (in->scalar_type));
  if (k == 0 || k > in->ndim)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: normalized_shape must have 1 to %u entries, not %u", op,
                        in->ndim, k);
  uint32_t lead = in->ndim - k;
  for (uint32_t d = 0; d < k; d++)
    if (in->sizes[lead + d] != shape[d])
      return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                          "%s: normalized_shape %s does not match the end of input shape %s", op,
                          _executorch_format_sizes (a, sizeof a, k, shape),
                          _executorch_format_sizes (b, sizeof b, in->ndim, in->sizes));
  KERNEL_TRY (check_affine (ctx, op, weight, "weight", k, shape));
  KERNEL_TRY (check_affine (ctx, op, bias, "bias", k, shape));
  KERNEL_TRY (check_contiguous (ctx, op, in, "input"));
  if (!(eps >= 0.0))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: eps must be >= 0", op);

  for (uint32_t d = 0; d < in->ndim; d++)
    stat_sizes[d] = d < lead ? in->sizes[d] : 1;
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, in->sizes));
  KERNEL_TRY (_executorch_resize (ctx, mean_t, in->ndim, stat_sizes));
  KERNEL_TRY (_executorch_resize (ctx, rstd_t, in->ndim, stat_sizes));
  KERNEL_TRY (check_contiguous (ctx, op, out, "out0"));

  int64_t n = _executorch_numel (k, shape);
  int64_t rows = _executorch_numel (lead, in->sizes);
  if (rows == 0)
    return ET_OK;

  LnJob job = { in, out, mean_t, rstd_t, NULL, NULL, NULL, NULL, n, eps };
  KernelTemp temp;
  bool fast = in->scalar_type == ET_SCALAR_FLOAT && n > 0;
  size_t elem = fast ? sizeof (float) : sizeof (double);
  /* weight, bias, and (generic) one row buffer */
  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) (n > 0 ? n : 1) * elem * 3, &temp));
  if (fast)
    {
      float *wf = temp.data, *bf = wf + n;
      if (weight != NULL)
        {
          _executorch_load_f32 (weight->scalar_type, weight->data, 0, 1, n, wf);
          job.w = wf;
        }
      if (bias != NULL)
        {
          _executorch_load_f32 (bias->scalar_type, bias->data, 0, 1, n, bf);
          job.b = bf;
        }
      int64_t grain = n >= KERNEL_GRAIN / 4 ? 1 : (KERNEL_GRAIN / 4) / n;
      _executorch_parallel_for (rows, grain, ln_fast_range, &job);
    }
  else
    {
      double *wd = temp.data, *bd = wd + n, *buf = bd + n;
      if (weight != NULL)
        {
          _executorch_load_f64 (weight->scalar_type, weight->data, 0, 1, n, wd);
          job.wd = wd;
        }
      if (bias != NULL)
        {
          _executorch_load_f64 (bias->scalar_type, bias->data, 0, 1, n, bd);
          job.bd = bd;
        }
      for (int64_t r = 0; r < rows; r++)
        ln_generic_row (&job, r, buf);
    }
  _executorch_temp_free (&temp);
  return ET_OK;
}

/* ---- Group norm ---- */

/* (input, weight?, bias?, N, C, HxW, group, eps, out0, out1, out2, ret) */
static EtError
native_group_norm_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "native_group_norm";
  EtTensor *in, *weight, *bias, *out, *mean_t, *rstd_t;
  int64_t N, C, HxW, G;
  double eps;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 12));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &in));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 1, "weight", &weight));
  KERNEL_TRY (_executorch_arg_opt_tensor (ctx, args, 2, "bias", &bias));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 3, "N", &N));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 4, "C", &C));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 5, "HxW", &HxW));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 6, "group", &G));
  KERNEL_TRY (_executorch_arg_double (ctx, args, 7, "eps", &eps));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 8, "out0", &out));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 9, "out1", &mean_t));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 10, "out2", &rstd_t));
  KERNEL_TRY (check_floating (ctx, op, in, "input"));
  KERNEL_TRY (check_floating (ctx, op, mean_t, "mean (out1)"));
  KERNEL_TRY (check_floating (ctx, op, rstd_t, "rstd (out2)"));
  if (out->scalar_type != in->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out dtype %s differs from input dtype %s", op,
                        _executorch_type_name (out->scalar_type), _executorch_type_name (in->scalar_type));
  if (in->ndim < 2 || in->sizes[0] != N || in->sizes[1] != C || N < 0 || C < 0 || HxW < 0 ||
      (N * C > 0 && in->numel / (N * C) != HxW) || (N * C == 0 && in->numel != 0))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: input shape does not match N=%" PRId64 ", C=%" PRId64 ", HxW=%" PRId64, op, N, C, HxW);
  if (G <= 0 || C % G != 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: group %" PRId64 " must be positive and divide C=%" PRId64,
                        op, G, C);
  KERNEL_TRY (check_channel_vector (ctx, op, weight, "weight", C));
  KERNEL_TRY (check_channel_vector (ctx, op, bias, "bias", C));
  KERNEL_TRY (check_contiguous (ctx, op, in, "input"));
  if (!(eps >= 0.0))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: eps must be >= 0", op);

  int64_t stat_sizes[2] = { N, G };
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, in->sizes));
  KERNEL_TRY (_executorch_resize (ctx, mean_t, 2, stat_sizes));
  KERNEL_TRY (_executorch_resize (ctx, rstd_t, 2, stat_sizes));
  KERNEL_TRY (check_contiguous (ctx, op, out, "out0"));
  if (N * G == 0)
    return ET_OK;

  int64_t cpg = C / G, block = cpg * HxW;
  KernelTemp temp;
  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) (2 * C + (block > 0 ? block : 1)) * sizeof (double), &temp));
  double *w = temp.data, *b = w + C, *buf = b + C;
  load_vector (weight, C, 1.0, w);
  load_vector (bias, C, 0.0, b);
  for (int64_t ng = 0; ng < N * G; ng++)
    {
      int64_t g = ng % G;
      double mean = 0.0, var = 0.0, rstd;
      _executorch_load_f64 (in->scalar_type, in->data, ng * block, 1, block, buf);
      for (int64_t k = 0; k < block; k++)
        mean += buf[k];
      mean = block > 0 ? mean / (double) block : NAN;
      for (int64_t k = 0; k < block; k++)
        var += (buf[k] - mean) * (buf[k] - mean);
      var = block > 0 ? var / (double) block : NAN;
      rstd = 1.0 / sqrt (var + eps);
      for (int64_t k = 0; k < block; k++)
        {
          int64_t c = g * cpg + k / (HxW > 0 ? HxW : 1);
          buf[k] = (buf[k] - mean) * rstd * w[c] + b[c];
        }
      _executorch_store_f64 (out->scalar_type, out->data, ng * block, 1, block, buf);
      _executorch_store_f64 (mean_t->scalar_type, mean_t->data, ng, 1, 1, &mean);
      _executorch_store_f64 (rstd_t->scalar_type, rstd_t->data, ng, 1, 1, &rstd);
    }
  _executorch_temp_free (&temp);
  return ET_OK;
}

const EtKernel _executorch_norm_kernels[] = {
  { "aten::_native_batch_norm_legit_no_training.out", batch_norm_no_training_out, NULL },
  { "aten::_native_batch_norm_legit.out", batch_norm_legit_out, NULL },
  { "aten::_native_batch_norm_legit.no_stats_out", batch_norm_no_stats_out, NULL },
  { "aten::native_layer_norm.out", native_layer_norm_out, NULL },
  { "aten::native_group_norm.out", native_group_norm_out, NULL },
};

const size_t _executorch_norm_n_kernels = KERNEL_N_ELEMENTS (_executorch_norm_kernels);
