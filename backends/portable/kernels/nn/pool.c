/* pool.c: 2-D max, average and adaptive average pooling, and the max
 * pooling backward
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Inputs are [C, H, W] or [N, C, H, W] in any dim order (channels-last
 * included; every access goes through strides), and out takes its own
 * dim order.  Planes (n, c) are split across the thread pool.
 *
 * max_pool2d_with_indices propagates NaN like eager PyTorch (a NaN
 * replaces the running maximum, so a window holding NaN gives NaN and the
 * index of its last NaN); upstream portable compares with '>' only and
 * skips NaN.  Indices are Long, the flat h * W + w position within the
 * input plane.  A window made only of -inf gives -inf and the index of
 * its first element inside the input.
 *
 * Output sizes follow eager: floor((in + 2p - d(k-1) - 1 + (ceil ? s-1 : 0)) / s) + 1,
 * dropping a last window that would start inside the right padding.
 * avg_pool2d divides by divisor_override, else by the window clipped to
 * input + padding (count_include_pad) or to the input alone; integer
 * dtypes divide with truncation.  Adaptive windows are
 * [floor(i*In/Out), ceil((i+1)*In/Out)) computed in exact integers.
 */
#include "nn-private.h"
#include "pool-private.h"

#include <math.h>
#include <string.h>

typedef enum
{
  POOL_MAX,
  POOL_AVG,
  POOL_ADAPTIVE,
} PoolKind;

typedef struct
{
  PoolKind kind;
  int64_t C, H, W, OH, OW;
  int64_t kH, kW, sH, sW, pH, pW, dH, dW;
  bool count_include_pad;
  bool has_divisor;
  int64_t divisor;
  const char *in;
  char *out;
  int64_t *idx;
  int64_t in_s[4], out_s[4], idx_s[4]; /* n, c, h, w strides (n = 0 for 3-D) */
} PoolJob;

static inline void
window (const PoolJob *j, int64_t o, bool is_h, int64_t *start, int64_t *end, int64_t *pool_size)
{
  int64_t in = is_h ? j->H : j->W, out = is_h ? j->OH : j->OW;
  if (j->kind == POOL_ADAPTIVE)
    {
      *start = (o * in) / out;
      *end = ((o + 1) * in + out - 1) / out;
      *pool_size = *end - *start;
      return;
    }
  int64_t k = is_h ? j->kH : j->kW, s = is_h ? j->sH : j->sW, p = is_h ? j->pH : j->pW;
  int64_t st = o * s - p;
  if (j->kind == POOL_MAX)
    {
      int64_t d = is_h ? j->dH : j->dW;
      /* first and one-past-last dilated taps inside the input */
      int64_t e = st + (k - 1) * d + 1;
      if (e > in)
        e = in;
      if (st < 0)
        st += ((-st + d - 1) / d) * d;
      *start = st;
      *end = e;
      *pool_size = 0;
      return;
    }
  int64_t e = st + k < in + p ? st + k : in + p;
  *pool_size = e - st;
  *start = st < 0 ? 0 : st;
  *end = e < in ? e : in;
}

/* One typed plane routine per dtype: T is the storage type, CT the compare
 * type (max), ACC the sum type (avg), LOAD/STORE convert. */
#define POOL_PLANE(NAME, T, CT, ACC, LOAD, STORE, IS_INT, LOWEST)                      \
  static void NAME (const PoolJob *j, int64_t plane)                                   \
  {                                                                                    \
    int64_t n = plane / j->C, c = plane % j->C;                                        \
    const T *in = (const T *) j->in + n * j->in_s[0] + c * j->in_s[1];                 \
    T *out = (T *) j->out + n * j->out_s[0] + c * j->out_s[1];                         \
    int64_t *idx = j->idx != NULL ? j->idx + n * j->idx_s[0] + c * j->idx_s[1] : NULL; \
    for (int64_t oh = 0; oh < j->OH; oh++)                                             \
      {                                                                                \
        int64_t h0, h1, ph;                                                            \
        window (j, oh, true, &h0, &h1, &ph);                                           \
        for (int64_t ow = 0; ow < j->OW; ow++)                                         \
          {                                                                            \
            int64_t w0, w1, pw;                                                        \
            window (j, ow, false, &w0, &w1, &pw);                                      \
            T *dst = out + oh * j->out_s[2] + ow * j->out_s[3];                        \
            if (j->kind == POOL_MAX)                                                   \
              {                                                                        \
                CT best = LOWEST;                                                      \
                int64_t best_i = h0 * j->W + w0;                                       \
                bool first = true;                                                     \
                for (int64_t h = h0; h < h1; h += j->dH)                               \
                  for (int64_t w = w0; w < w1; w += j->dW)                             \
                    {                                                                  \
                      CT v = LOAD (in[h * j->in_s[2] + w * j->in_s[3]]);               \
                      if (first || v > best || v != v)                                 \
                        {                                                              \
                          best = v;                                                    \
                          best_i = h * j->W + w;                                       \
                          first = false;                                               \
                        }                                                              \
                    }                                                                  \
                *dst = STORE (best);                                                   \
                if (idx != NULL)                                                       \
                  idx[oh * j->idx_s[2] + ow * j->idx_s[3]] = best_i;                   \
              }                                                                        \
            else                                                                       \
              {                                                                        \
                ACC sum = 0;                                                           \
                int64_t div;                                                           \
                if (h0 >= h1 || w0 >= w1)                                              \
                  {                                                                    \
                    *dst = STORE ((CT) 0);                                             \
                    continue;                                                          \
                  }                                                                    \
                for (int64_t h = h0; h < h1; h++)                                      \
                  for (int64_t w = w0; w < w1; w++)                                    \
                    sum += (ACC) LOAD (in[h * j->in_s[2] + w * j->in_s[3]]);           \
                if (j->has_divisor)                                                    \
                  div = j->divisor;                                                    \
                else if (j->kind == POOL_AVG && j->count_include_pad)                  \
                  div = ph * pw;                                                       \
                else                                                                   \
                  div = (h1 - h0) * (w1 - w0);                                         \
                if (IS_INT)                                                            \
                  *dst = STORE ((CT) ((int64_t) sum / div));                           \
                else                                                                   \
                  *dst = STORE ((CT) (sum / (ACC) div));                               \
              }                                                                        \
          }                                                                            \
      }                                                                                \
  }

/* The first tap always becomes the running maximum, so a window of -inf
 * (or of an integer type's minimum) reports its first element; a window
 * with no tap inside the input gives LOWEST. */
#define ID(x) (x)
#define HALF_LOAD(x) et_half_to_float (x)
#define HALF_STORE(x) et_float_to_half (x)
#define BF16_LOAD(x) et_bfloat16_to_float (x)
#define BF16_STORE(x) et_float_to_bfloat16 (x)

POOL_PLANE (plane_f32, float, float, double, ID, (float), 0, -INFINITY)
POOL_PLANE (plane_f64, double, double, double, ID, (double), 0, -INFINITY)
POOL_PLANE (plane_f16, uint16_t, float, double, HALF_LOAD, HALF_STORE, 0, -INFINITY)
POOL_PLANE (plane_bf16, uint16_t, float, double, BF16_LOAD, BF16_STORE, 0, -INFINITY)
POOL_PLANE (plane_u8, uint8_t, int64_t, int64_t, ID, (uint8_t), 1, 0)
POOL_PLANE (plane_i8, int8_t, int64_t, int64_t, ID, (int8_t), 1, INT8_MIN)
POOL_PLANE (plane_i16, int16_t, int64_t, int64_t, ID, (int16_t), 1, INT16_MIN)
POOL_PLANE (plane_i32, int32_t, int64_t, int64_t, ID, (int32_t), 1, INT32_MIN)
POOL_PLANE (plane_i64, int64_t, int64_t, int64_t, ID, (int64_t), 1, INT64_MIN)

typedef void (*PlaneFn) (const PoolJob *j, int64_t plane);

/* Float32 max pooling of row-contiguous planes: pool-max-fast.c. */
static void
plane_max_f32_fast (const PoolJob *j, int64_t plane)
{
  int64_t n = plane / j->C, c = plane % j->C;
  KernelMaxPool p = {
    .in = (const float *) j->in + n * j->in_s[0] + c * j->in_s[1],
    .h = j->H,
    .w = j->W,
    .oh = j->OH,
    .ow = j->OW,
    .kh = j->kH,
    .kw = j->kW,
    .sh = j->sH,
    .sw = j->sW,
    .ph = j->pH,
    .pw = j->pW,
    .dh = j->dH,
  };
  float *out = (float *) j->out + n * j->out_s[0] + c * j->out_s[1];
  int64_t *idx = j->idx != NULL ? j->idx + n * j->idx_s[0] + c * j->idx_s[1] : NULL;

  if (!_executorch_max_pool_plane_f32 (&p, out, idx))
    plane_f32 (j, plane);
}

static bool
rows_contiguous (const int64_t *s, int64_t w)
{
  return s[3] == 1 && s[2] == w;
}

static PlaneFn
plane_fn (int type)
{
  switch (type)
    {
      case ET_SCALAR_FLOAT: return plane_f32;
      case ET_SCALAR_DOUBLE: return plane_f64;
      case ET_SCALAR_HALF: return plane_f16;
      case ET_SCALAR_BFLOAT16: return plane_bf16;
      case ET_SCALAR_BYTE: return plane_u8;
      case ET_SCALAR_CHAR: return plane_i8;
      case ET_SCALAR_SHORT: return plane_i16;
      case ET_SCALAR_INT: return plane_i32;
      case ET_SCALAR_LONG: return plane_i64;
      default: return NULL;
    }
}

typedef struct
{
  const PoolJob *job;
  PlaneFn fn;
} PoolTask;

static void
pool_range (void *context, int64_t begin, int64_t end)
{
  PoolTask *t = context;
  for (int64_t p = begin; p < end; p++)
    t->fn (t->job, p);
}

static void
strides4 (const EtTensor *t, int64_t *s)
{
  if (t->ndim == 4)
    {
      memcpy (s, t->strides, 4 * sizeof s[0]);
    }
  else
    {
      s[0] = 0;
      memcpy (s + 1, t->strides, 3 * sizeof s[0]);
    }
}

/* Resizes out (and indices) and runs the pool. */
static EtError
pool_run (EtKernelContext *ctx, PoolJob *j, const EtTensor *in, EtTensor *out, EtTensor *idx)
{
  int64_t sizes[4];
  uint32_t nd = in->ndim;
  int64_t batch = nd == 4 ? in->sizes[0] : 1;

  memcpy (sizes, in->sizes, nd * sizeof sizes[0]);
  sizes[nd - 2] = j->OH;
  sizes[nd - 1] = j->OW;
  KERNEL_TRY (_executorch_resize (ctx, out, nd, sizes));
  if (idx != NULL)
    KERNEL_TRY (_executorch_resize (ctx, idx, nd, sizes));
  if (out->numel == 0)
    return ET_OK;

  PoolTask task = { j, plane_fn (in->scalar_type) };
  if (task.fn == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "pool: dtype %s is not supported",
                        _executorch_type_name (in->scalar_type));
  j->in = in->data;
  j->out = out->data;
  j->idx = idx != NULL ? idx->data : NULL;
  strides4 (in, j->in_s);
  strides4 (out, j->out_s);
  if (idx != NULL)
    strides4 (idx, j->idx_s);
  if (in->scalar_type == ET_SCALAR_FLOAT && j->kind == POOL_MAX && j->dW == 1 && rows_contiguous (j->in_s, j->W) &&
      rows_contiguous (j->out_s, j->OW) && (idx == NULL || rows_contiguous (j->idx_s, j->OW)))
    task.fn = plane_max_f32_fast;
  int64_t per_plane = j->OH * j->OW * (j->kind == POOL_ADAPTIVE ? 4 : j->kH * j->kW);
  int64_t grain = per_plane >= KERNEL_GRAIN ? 1 : KERNEL_GRAIN / (per_plane > 0 ? per_plane : 1);
  _executorch_parallel_for (batch * j->C, grain, pool_range, &task);
  return ET_OK;
}

/* ---- Argument helpers ---- */

/* An int[1] or int[2] list as two values; @empty_ok gives @dflt. */
static EtError
pair_arg (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *op, const char *name, bool empty_ok,
          const int64_t *dflt, int64_t *v)
{
  int64_t items[ET_MAX_DIMS];
  uint32_t n;
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, i, name, NULL, items, &n));
  if (n == 0 && empty_ok)
    {
      v[0] = dflt[0];
      v[1] = dflt[1];
      return ET_OK;
    }
  if (n != 1 && n != 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s must have 1 or 2 values, not %u", op, name, n);
  v[0] = items[0];
  v[1] = n == 2 ? items[1] : items[0];
  return ET_OK;
}

static EtError
check_input (EtKernelContext *ctx, const char *op, const EtTensor *in, const EtTensor *out)
{
  KERNEL_TRY (_executorch_check_supported (ctx, in, "self"));
  if (in->ndim != 3 && in->ndim != 4)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self must be 3-D or 4-D, not %u-D", op, in->ndim);
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, in, out, "out"));
  if (in->scalar_type == ET_SCALAR_BOOL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: Bool is not supported", op);
  return ET_OK;
}

static EtError
output_size (EtKernelContext *ctx, const char *op, int64_t in, int64_t k, int64_t p, int64_t s, int64_t d,
             bool ceil_mode, int64_t *out)
{
  int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceil_mode && o > 0 && (o - 1) * s >= in + p)
    o--;
  if (o < 1 && in > 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: output size %" PRId64 " is too small (input %" PRId64 ", kernel %" PRId64
                        ", padding %" PRId64 ", stride %" PRId64 ", dilation %" PRId64 ")",
                        op, o, in, k, p, s, d);
  *out = o < 0 ? 0 : o;
  return ET_OK;
}

/* kernel, stride, padding checks shared by max and avg pooling. */
static EtError
window_args (EtKernelContext *ctx, const char *op, PoolJob *j, const EtTensor *in, bool ceil_mode)
{
  uint32_t nd = in->ndim;
  if (j->kH <= 0 || j->kW <= 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: kernel_size must be positive", op);
  if (j->sH <= 0 || j->sW <= 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: stride must be positive", op);
  if (j->dH <= 0 || j->dW <= 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: dilation must be positive", op);
  if (j->pH < 0 || j->pW < 0 || j->pH > j->kH / 2 || j->pW > j->kW / 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: padding must be between 0 and half the kernel size", op);
  /* Keep the arithmetic below far from overflow. */
  if (j->kH > (1 << 24) || j->kW > (1 << 24) || j->sH > (1 << 24) || j->sW > (1 << 24) || j->dH > (1 << 24) ||
      j->dW > (1 << 24))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: window parameters are too large", op);
  j->C = in->sizes[nd - 3];
  j->H = in->sizes[nd - 2];
  j->W = in->sizes[nd - 1];
  if ((j->H == 0 || j->W == 0) && in->numel == 0 && j->C > 0 && (nd == 3 || in->sizes[0] > 0))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: spatial input dims must be non-zero", op);
  KERNEL_TRY (output_size (ctx, op, j->H, j->kH, j->pH, j->sH, j->dH, ceil_mode, &j->OH));
  KERNEL_TRY (output_size (ctx, op, j->W, j->kW, j->pW, j->sW, j->dW, ceil_mode, &j->OW));
  return ET_OK;
}

/* Sets @j's window from the kernel_size, stride, padding and dilation
 * pairs (@d NULL keeps @j's dilation) and checks it with window_args. */
static EtError
window_from_pairs (EtKernelContext *ctx, const char *op, PoolJob *j, const EtTensor *in, bool ceil_mode,
                   const int64_t *k, const int64_t *s, const int64_t *p, const int64_t *d)
{
  j->kH = k[0];
  j->kW = k[1];
  j->sH = s[0];
  j->sW = s[1];
  j->pH = p[0];
  j->pW = p[1];
  if (d != NULL)
    {
      j->dH = d[0];
      j->dW = d[1];
    }
  return window_args (ctx, op, j, in, ceil_mode);
}

/* (self, kernel_size[], stride[], padding[], dilation[], ceil_mode, out, indices, ret);
 * with @keep_indices false the indices are checked but not written. */
static EtError
max_pool2d_with_indices_run (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool keep_indices)
{
  const char *op = "max_pool2d_with_indices";
  EtTensor *in, *out, *idx;
  int64_t k[2], s[2], p[2], d[2], zero[2] = { 0, 0 }, one[2] = { 1, 1 };
  bool ceil_mode;
  PoolJob j = { .kind = POOL_MAX };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 9));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (pair_arg (ctx, args, 1, op, "kernel_size", false, NULL, k));
  KERNEL_TRY (pair_arg (ctx, args, 2, op, "stride", true, k, s));
  KERNEL_TRY (pair_arg (ctx, args, 3, op, "padding", true, zero, p));
  KERNEL_TRY (pair_arg (ctx, args, 4, op, "dilation", true, one, d));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 5, "ceil_mode", &ceil_mode));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 6, "out", &out));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 7, "indices", &idx));
  KERNEL_TRY (check_input (ctx, op, in, out));
  KERNEL_TRY (_executorch_check_long (ctx, op, idx, "indices"));
  KERNEL_TRY (window_from_pairs (ctx, op, &j, in, ceil_mode, k, s, p, d));
  return pool_run (ctx, &j, in, out, keep_indices ? idx : NULL);
}

static EtError
max_pool2d_with_indices_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return max_pool2d_with_indices_run (ctx, args, n_args, true);
}

EtError
_executorch_max_pool2d_values_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return max_pool2d_with_indices_run (ctx, args, n_args, false);
}

/* (self, kernel_size[], stride[], padding[], ceil_mode, count_include_pad,
 *  divisor_override?, out, ret) */
static EtError
avg_pool2d_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "avg_pool2d";
  EtTensor *in, *out;
  int64_t k[2], s[2], p[2], zero[2] = { 0, 0 };
  bool ceil_mode;
  PoolJob j = { .kind = POOL_AVG, .dH = 1, .dW = 1 };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 9));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (pair_arg (ctx, args, 1, op, "kernel_size", false, NULL, k));
  KERNEL_TRY (pair_arg (ctx, args, 2, op, "stride", true, k, s));
  KERNEL_TRY (pair_arg (ctx, args, 3, op, "padding", true, zero, p));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 4, "ceil_mode", &ceil_mode));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 5, "count_include_pad", &j.count_include_pad));
  KERNEL_TRY (_executorch_arg_opt_int (ctx, args, 6, "divisor_override", &j.has_divisor, &j.divisor));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 7, "out", &out));
  KERNEL_TRY (check_input (ctx, op, in, out));
  if (j.has_divisor && j.divisor == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: divisor_override must be non-zero", op);
  KERNEL_TRY (window_from_pairs (ctx, op, &j, in, ceil_mode, k, s, p, NULL));
  return pool_run (ctx, &j, in, out, NULL);
}

/* (self, output_size[2], out, ret) */
static EtError
adaptive_avg_pool2d_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "_adaptive_avg_pool2d";
  EtTensor *in, *out;
  int64_t os[2];
  PoolJob j = { .kind = POOL_ADAPTIVE, .kH = 1, .kW = 1, .dH = 1, .dW = 1 };

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (pair_arg (ctx, args, 1, op, "output_size", false, NULL, os));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (check_input (ctx, op, in, out));
  if (!_executorch_type_is_floating (in->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self must be floating, not %s", op,
                        _executorch_type_name (in->scalar_type));
  if (os[0] < 0 || os[1] < 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: output_size must be >= 0", op);
  uint32_t nd = in->ndim;
  j.C = in->sizes[nd - 3];
  j.H = in->sizes[nd - 2];
  j.W = in->sizes[nd - 1];
  for (uint32_t d = nd == 4 ? 1 : 0; d < nd; d++)
    if (in->sizes[d] == 0)
      return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: non-batch dims of self must be non-zero", op);
  if (j.H > (INT64_C (1) << 31) || j.W > (INT64_C (1) << 31) || os[0] > (INT64_C (1) << 31) ||
      os[1] > (INT64_C (1) << 31))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: sizes are too large", op);
  j.OH = os[0];
  j.OW = os[1];
  return pool_run (ctx, &j, in, out, NULL);
}

/* (grad_output, self, kernel_size[], stride[], padding[], dilation[], ceil_mode,
 *  indices, grad_input, ret): scatters each gradient to the input position
 * its index names (summing where windows overlap); indices are checked. */
static EtError
max_pool2d_with_indices_backward_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "max_pool2d_with_indices_backward";
  EtTensor *grad, *in, *idx, *gin;
  int64_t k[2], s[2], p[2], d[2], zero[2] = { 0, 0 }, one[2] = { 1, 1 };
  bool ceil_mode;
  PoolJob j = { .kind = POOL_MAX };
  char a[160], b[160];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 10));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "grad_output", &grad));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "self", &in));
  KERNEL_TRY (pair_arg (ctx, args, 2, op, "kernel_size", false, NULL, k));
  KERNEL_TRY (pair_arg (ctx, args, 3, op, "stride", true, k, s));
  KERNEL_TRY (pair_arg (ctx, args, 4, op, "padding", true, zero, p));
  KERNEL_TRY (pair_arg (ctx, args, 5, op, "dilation", true, one, d));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 6, "ceil_mode", &ceil_mode));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 7, "indices", &idx));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 8, "grad_input", &gin));
  KERNEL_TRY (check_input (ctx, op, in, gin));
  if (!_executorch_type_is_floating (in->scalar_type) || grad->scalar_type != in->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: grad_output, self and grad_input must share one floating dtype", op);
  KERNEL_TRY (_executorch_check_long (ctx, op, idx, "indices"));
  KERNEL_TRY (window_from_pairs (ctx, op, &j, in, ceil_mode, k, s, p, d));
  int64_t want[4];
  uint32_t nd = in->ndim;
  memcpy (want, in->sizes, nd * sizeof want[0]);
  want[nd - 2] = j.OH;
  want[nd - 1] = j.OW;
  for (uint32_t t = 0; t < 2; t++)
    {
      const EtTensor *x = t ? idx : grad;
      bool ok = x->ndim == nd;
      for (uint32_t dd = 0; ok && dd < nd; dd++)
        ok = x->sizes[dd] == want[dd];
      if (!ok)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: %s shape %s must be %s", op,
                            t ? "indices" : "grad_output", _executorch_format_sizes (a, sizeof a, x->ndim, x->sizes),
                            _executorch_format_sizes (b, sizeof b, nd, want));
    }
  KERNEL_TRY (_executorch_resize (ctx, gin, nd, in->sizes));
  if (gin->numel == 0)
    return ET_OK;

  int64_t batch = nd == 4 ? in->sizes[0] : 1, plane = j.H * j.W;
  int64_t gs[4], is[4], os[4];
  strides4 (grad, gs);
  strides4 (idx, is);
  strides4 (gin, os);
  KernelTemp temp;
  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) plane * sizeof (double), &temp));
  double *acc = temp.data;
  const int64_t *iv = idx->data;
  EtError err = ET_OK;
  for (int64_t n = 0; n < batch && err == ET_OK; n++)
    for (int64_t c = 0; c < j.C && err == ET_OK; c++)
      {
        memset (acc, 0, (size_t) plane * sizeof (double));
        for (int64_t oh = 0; oh < j.OH && err == ET_OK; oh++)
          for (int64_t ow = 0; ow < j.OW; ow++)
            {
              int64_t at = iv[n * is[0] + c * is[1] + oh * is[2] + ow * is[3]];
              double g;
              if (at < 0 || at >= plane)
                {
                  err = KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                                     "%s: index %" PRId64 " is outside the %" PRId64 "x%" PRId64 " plane", op, at, j.H,
                                     j.W);
                  break;
                }
              _executorch_load_f64 (grad->scalar_type, grad->data, n * gs[0] + c * gs[1] + oh * gs[2] + ow * gs[3], 1,
                                    1, &g);
              acc[at] += g;
            }
        for (int64_t h = 0; h < j.H && err == ET_OK; h++)
          for (int64_t w = 0; w < j.W; w++)
            _executorch_store_f64 (gin->scalar_type, gin->data, n * os[0] + c * os[1] + h * os[2] + w * os[3], 1, 1,
                                   &acc[h * j.W + w]);
      }
  _executorch_temp_free (&temp);
  return err;
}

const EtKernel _executorch_pool_kernels[] = {
  { "aten::max_pool2d_with_indices_backward.grad_input", max_pool2d_with_indices_backward_out, NULL },
  { "aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out, NULL },
  { "aten::avg_pool2d.out", avg_pool2d_out, NULL },
  { "aten::_adaptive_avg_pool2d.out", adaptive_avg_pool2d_out, NULL },
};

const size_t _executorch_pool_n_kernels = KERNEL_N_ELEMENTS (_executorch_pool_kernels);
