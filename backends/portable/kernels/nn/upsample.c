/* upsample.c: nearest, bilinear and anti-aliased bilinear 2-D resampling,
 * grid_sampler_2d, pixel (un)shuffle
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * upsample_*2d.vec take exactly one of output_size and scale_factors; the
 * output size is floor(in * scale).  Source coordinates follow eager
 * PyTorch (area_pixel_compute_scale and friends), computed in float for
 * float/Half/BFloat16 and in double for Double:
 *   nearest:  src = min(floor(o * s), in - 1), s = 1/scale or in/out;
 *   bilinear: s = align_corners ? (in-1)/(out-1) : 1/scale or in/out,
 *             src = align_corners ? o * s : max((o + 0.5) * s - 0.5, 0).
 * Inputs are 4-D in any dim order.  Nearest and the shuffles copy raw
 * elements (any dtype); bilinear needs a floating dtype.
 */
#include "nn-private.h"

#include <math.h>
#include <string.h>

/* Output sizes and per-dim scales (0 = not given) from the .vec arguments. */
static EtError
vec_sizes (EtKernelContext *ctx, const char *op, const EtTensor *in, bool has_size, const int64_t *size,
           uint32_t n_size, bool has_scales, const double *scales, uint32_t n_scales, int64_t *out_hw, double *scale_hw)
{
  if (in->ndim != 4)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: input must be 4-D, not %u-D", op, in->ndim);
  if (has_size == has_scales)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: exactly one of output_size and scale_factors must be given", op);
  for (uint32_t d = 1; d < 4; d++)
    if (in->sizes[d] == 0)
      return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: non-batch input dims must be non-zero", op);
  if (has_size)
    {
      if (n_size != 2)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: output_size must have 2 values, not %u", op, n_size);
      for (int k = 0; k < 2; k++)
        {
          if (size[k] <= 0 || size[k] > (INT64_C (1) << 31))
            return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                                "%s: output_size values must be in [1, 2^31], not %" PRId64, op, size[k]);
          out_hw[k] = size[k];
          scale_hw[k] = 0.0;
        }
      return ET_OK;
    }
  if (n_scales != 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: scale_factors must have 2 values, not %u", op, n_scales);
  for (int k = 0; k < 2; k++)
    {
      double o = floor ((double) in->sizes[2 + k] * scales[k]);
      if (!(scales[k] > 0.0) || !(o >= 1.0) || o > (double) (INT64_C (1) << 31))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: scale factor %g gives an invalid output size", op,
                            scales[k]);
      out_hw[k] = (int64_t) o;
      scale_hw[k] = scales[k];
    }
  return ET_OK;
}

/* Resizes out to @sizes = [N, C, H', W'] for the .vec arguments (see
 * vec_sizes). */
static EtError
resize_vec_out (EtKernelContext *ctx, const char *op, const EtTensor *in, bool has_size, const int64_t *size,
                uint32_t n_size, bool has_scales, const double *scales, uint32_t n_scales, double *scale_hw,
                EtTensor *out, int64_t *sizes)
{
  KERNEL_TRY (vec_sizes (ctx, op, in, has_size, size, n_size, has_scales, scales, n_scales, sizes + 2, scale_hw));
  sizes[0] = in->sizes[0];
  sizes[1] = in->sizes[1];
  return _executorch_resize (ctx, out, 4, sizes);
}

/* ---- Nearest ---- */

static EtError
nearest_index (EtKernelContext *ctx, int64_t in, int64_t out, double scale_factor, int64_t **idx, KernelTemp *temp,
               int64_t *buf)
{
  (void) ctx;
  (void) temp;
  *idx = buf;
  float s = scale_factor > 0.0 ? (float) (1.0 / scale_factor) : (float) in / (float) out;
  for (int64_t o = 0; o < out; o++)
    {
      int64_t i;
      if (out == in)
        i = o;
      else if (out == 2 * in)
        i = o >> 1;
      else
        {
          i = (int64_t) floorf ((float) o * s);
          if (i > in - 1)
            i = in - 1;
        }
      buf[o] = i;
    }
  return ET_OK;
}

/* (input, output_size?, scale_factors?, out, ret) */
static EtError
upsample_nearest2d_vec_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "upsample_nearest2d";
  EtTensor *in, *out;
  int64_t size[ET_MAX_DIMS], sizes[4];
  double scales[ET_MAX_DIMS], scale_hw[2];
  uint32_t n_size, n_scales;
  bool has_size, has_scales;
  KernelTemp temp;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 5));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &in));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "output_size", &has_size, size, &n_size));
  KERNEL_TRY (_executorch_arg_opt_double_list (ctx, args, 2, "scale_factors", &has_scales, scales, &n_scales));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 3, "out", &out));
  if (out->scalar_type != in->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out dtype %s differs from input dtype %s", op,
                        _executorch_type_name (out->scalar_type), _executorch_type_name (in->scalar_type));
  KERNEL_TRY (resize_vec_out (ctx, op, in, has_size, size, n_size, has_scales, scales, n_scales, scale_hw, out, sizes));
  if (out->numel == 0)
    return ET_OK;

  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) (sizes[2] + sizes[3]) * sizeof (int64_t), &temp));
  int64_t *ih, *iw, *buf = temp.data;
  nearest_index (ctx, in->sizes[2], sizes[2], scale_hw[0], &ih, &temp, buf);
  nearest_index (ctx, in->sizes[3], sizes[3], scale_hw[1], &iw, &temp, buf + sizes[2]);

  size_t es = _executorch_type_size (in->scalar_type);
  const char *src = in->data;
  char *dst = out->data;
  for (int64_t n = 0; n < sizes[0]; n++)
    for (int64_t c = 0; c < sizes[1]; c++)
      {
        int64_t sb = n * in->strides[0] + c * in->strides[1];
        int64_t db = n * out->strides[0] + c * out->strides[1];
        for (int64_t h = 0; h < sizes[2]; h++)
          for (int64_t w = 0; w < sizes[3]; w++)
            {
              int64_t so = sb + ih[h] * in->strides[2] + iw[w] * in->strides[3];
              int64_t dof = db + h * out->strides[2] + w * out->strides[3];
              memcpy (dst + (size_t) dof * es, src + (size_t) so * es, es);
            }
      }
  _executorch_temp_free (&temp);
  return ET_OK;
}

/* ---- Bilinear ---- */

typedef struct
{
  int64_t i0, i1;
  double l0, l1;
} Tap;

static void
bilinear_taps (int64_t in, int64_t out, bool align_corners, double scale_factor, bool f64, Tap *taps)
{
  if (f64)
    {
      double s = align_corners        ? (out > 1 ? (double) (in - 1) / (double) (out - 1) : 0.0)
                 : scale_factor > 0.0 ? 1.0 / scale_factor
                                      : (double) in / (double) out;
      for (int64_t o = 0; o < out; o++)
        {
          double src = align_corners ? s * (double) o : s * ((double) o + 0.5) - 0.5;
          if (src < 0)
            src = 0;
          int64_t i0 = (int64_t) src;
          if (i0 > in - 1)
            i0 = in - 1;
          taps[o].i0 = i0;
          taps[o].i1 = i0 + (i0 < in - 1 ? 1 : 0);
          taps[o].l1 = src - (double) i0;
          if (taps[o].l1 > 1.0)
            taps[o].l1 = 1.0;
          taps[o].l0 = 1.0 - taps[o].l1;
        }
      return;
    }
  float s = align_corners        ? (out > 1 ? (float) (in - 1) / (float) (out - 1) : 0.0f)
            : scale_factor > 0.0 ? (float) (1.0 / scale_factor)
                                 : (float) in / (float) out;
  for (int64_t o = 0; o < out; o++)
    {
      float src = align_corners ? s * (float) o : s * ((float) o + 0.5f) - 0.5f;
      if (src < 0)
        src = 0;
      int64_t i0 = (int64_t) src;
      if (i0 > in - 1)
        i0 = in - 1;
      float l1 = src - (float) i0;
      if (l1 > 1.0f)
        l1 = 1.0f;
      taps[o].i0 = i0;
      taps[o].i1 = i0 + (i0 < in - 1 ? 1 : 0);
      taps[o].l1 = l1;
      taps[o].l0 = 1.0f - l1;
    }
}

#define BILINEAR_PLANES(NAME, T, CT, LOAD, STORE)                                                                     \
  static void NAME (const EtTensor *in, EtTensor *out, const Tap *th, const Tap *tw)                                  \
  {                                                                                                                   \
    const T *src = in->data;                                                                                          \
    T *dst = out->data;                                                                                               \
    for (int64_t n = 0; n < out->sizes[0]; n++)                                                                       \
      for (int64_t c = 0; c < out->sizes[1]; c++)                                                                     \
        {                                                                                                             \
          const T *p = src + n * in->strides[0] + c * in->strides[1];                                                 \
          T *q = dst + n * out->strides[0] + c * out->strides[1];                                                     \
          int64_t sh = in->strides[2], sw = in->strides[3];                                                           \
          for (int64_t h = 0; h < out->sizes[2]; h++)                                                                 \
            {                                                                                                         \
              CT h0 = (CT) th[h].l0, h1 = (CT) th[h].l1;                                                              \
              const T *r0 = p + th[h].i0 * sh, *r1 = p + th[h].i1 * sh;                                               \
              for (int64_t w = 0; w < out->sizes[3]; w++)                                                             \
                {                                                                                                     \
                  CT w0 = (CT) tw[w].l0, w1 = (CT) tw[w].l1;                                                          \
                  int64_t a = tw[w].i0 * sw, b = tw[w].i1 * sw;                                                       \
                  CT v = h0 * (w0 * LOAD (r0[a]) + w1 * LOAD (r0[b])) + h1 * (w0 * LOAD (r1[a]) + w1 * LOAD (r1[b])); \
                  q[h * out->strides[2] + w * out->strides[3]] = STORE (v);                                           \
                }                                                                                                     \
            }                                                                                                         \
        }                                                                                                             \
  }

#define ID(x) (x)
BILINEAR_PLANES (bilinear_f32, float, float, ID, ID)
BILINEAR_PLANES (bilinear_f64, double, double, ID, ID)
BILINEAR_PLANES (bilinear_f16, uint16_t, float, et_half_to_float, et_float_to_half)
BILINEAR_PLANES (bilinear_bf16, uint16_t, float, et_bfloat16_to_float, et_float_to_bfloat16)

/* (input, output_size?, align_corners, scale_factors?, out, ret) */
static EtError
upsample_bilinear2d_vec_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "upsample_bilinear2d";
  EtTensor *in, *out;
  int64_t size[ET_MAX_DIMS], sizes[4];
  double scales[ET_MAX_DIMS], scale_hw[2];
  uint32_t n_size, n_scales;
  bool has_size, has_scales, align_corners;
  KernelTemp temp;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 6));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &in));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "output_size", &has_size, size, &n_size));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "align_corners", &align_corners));
  KERNEL_TRY (_executorch_arg_opt_double_list (ctx, args, 3, "scale_factors", &has_scales, scales, &n_scales));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 4, "out", &out));
  if (!_executorch_type_is_floating (in->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: input must be floating, not %s", op,
                        _executorch_type_name (in->scalar_type));
  if (out->scalar_type != in->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: out dtype %s differs from input dtype %s", op,
                        _executorch_type_name (out->scalar_type), _executorch_type_name (in->scalar_type));
  KERNEL_TRY (resize_vec_out (ctx, op, in, has_size, size, n_size, has_scales, scales, n_scales, scale_hw, out, sizes));
  if (out->numel == 0)
    return ET_OK;

  bool f64 = in->scalar_type == ET_SCALAR_DOUBLE;
  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) (sizes[2] + sizes[3]) * sizeof (Tap), &temp));
  Tap *th = temp.data, *tw = th + sizes[2];
  bilinear_taps (in->sizes[2], sizes[2], align_corners, scale_hw[0], f64, th);
  bilinear_taps (in->sizes[3], sizes[3], align_corners, scale_hw[1], f64, tw);
  switch (in->scalar_type)
    {
      case ET_SCALAR_FLOAT: bilinear_f32 (in, out, th, tw); break;
      case ET_SCALAR_DOUBLE: bilinear_f64 (in, out, th, tw); break;
      case ET_SCALAR_HALF: bilinear_f16 (in, out, th, tw); break;
      default: bilinear_bf16 (in, out, th, tw); break;
    }
  _executorch_temp_free (&temp);
  return ET_OK;
}

/* ---- Anti-aliased bilinear ----
 *
 * Eager's separable PIL-style filter: along each dim, output i averages the
 * inputs under a triangle of half-width support = max(scale, 1) centred on
 * scale * (i + 0.5), weights normalised to sum 1.  Here both dims' weights
 * are applied in one double sum. */

typedef struct
{
  int64_t start, size;
  int64_t w_offset; /* into the weight array */
} AaWindow;

static int64_t
aa_weights (int64_t in, int64_t out, bool align_corners, bool has_scale, double scale_factor, AaWindow *win,
            double *weights, int64_t cap)
{
  double scale = align_corners                     ? (out > 1 ? (double) (in - 1) / (double) (out - 1) : 0.0)
                 : has_scale && scale_factor > 0.0 ? 1.0 / scale_factor
                                                   : (double) in / (double) out;
  double support = scale >= 1.0 ? scale : 1.0;
  double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  int64_t used = 0;
  for (int64_t o = 0; o < out; o++)
    {
      double center = scale * ((double) o + 0.5);
      int64_t lo = (int64_t) (center - support + 0.5);
      int64_t hi = (int64_t) (center + support + 0.5);
      if (lo < 0)
        lo = 0;
      if (hi > in)
        hi = in;
      if (hi < lo)
        hi = lo;
      if (used + (hi - lo) > cap)
        hi = lo + (cap - used);
      double total = 0.0;
      win[o].start = lo;
      win[o].size = hi - lo;
      win[o].w_offset = used;
      for (int64_t j = lo; j < hi; j++)
        {
          double x = fabs (((double) j - center + 0.5) * invscale);
          double w = x < 1.0 ? 1.0 - x : 0.0;
          weights[used + (j - lo)] = w;
          total += w;
        }
      if (total != 0.0)
        for (int64_t j = 0; j < hi - lo; j++)
          weights[used + j] /= total;
      used += hi - lo;
    }
  return used;
}

/* (self, output_size[2], align_corners, scales_h?, scales_w?, out, ret) */
static EtError
upsample_bilinear2d_aa_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "_upsample_bilinear2d_aa";
  EtTensor *in, *out;
  int64_t size[ET_MAX_DIMS], sizes[4];
  uint32_t n_size;
  bool align_corners, has_sh, has_sw;
  double sh, sw;
  KernelTemp temp;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 7));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_int_list (ctx, args, 1, "output_size", NULL, size, &n_size));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 2, "align_corners", &align_corners));
  KERNEL_TRY (_executorch_arg_opt_double (ctx, args, 3, "scales_h", &has_sh, &sh));
  KERNEL_TRY (_executorch_arg_opt_double (ctx, args, 4, "scales_w", &has_sw, &sw));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 5, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, in, "self"));
  if (!_executorch_type_is_floating (in->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self must be floating, not %s", op,
                        _executorch_type_name (in->scalar_type));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, in, out, "out"));
  KERNEL_TRY (resize_vec_out (ctx, op, in, true, size, n_size, false, NULL, 0, (double[2]){ 0, 0 }, out, sizes));
  if (out->numel == 0)
    return ET_OK;

  int64_t H = in->sizes[2], W = in->sizes[3], OH = sizes[2], OW = sizes[3];
  /* Each output's window covers at most 2 * support + 1 inputs, and the
   * windows of one dim cover every input at most ~3 times: bound the
   * weights by in * 3 + out * 3. */
  int64_t cap_h = 3 * (H + OH) + 8, cap_w = 3 * (W + OW) + 8;
  KERNEL_TRY (
      _executorch_temp_alloc (ctx, (size_t) (OH + OW) * sizeof (AaWindow) + (size_t) (cap_h + cap_w) * sizeof (double),
                              &temp));
  AaWindow *wh = temp.data, *ww = wh + OH;
  double *fh = (double *) (ww + OW), *fw = fh + cap_h;
  aa_weights (H, OH, align_corners, has_sh, sh, wh, fh, cap_h);
  aa_weights (W, OW, align_corners, has_sw, sw, ww, fw, cap_w);

  double row[KERNEL_CHUNK];
  for (int64_t n = 0; n < sizes[0]; n++)
    for (int64_t c = 0; c < sizes[1]; c++)
      {
        int64_t ib = n * in->strides[0] + c * in->strides[1];
        int64_t ob = n * out->strides[0] + c * out->strides[1];
        for (int64_t oh = 0; oh < OH; oh++)
          for (int64_t ow = 0; ow < OW; ow++)
            {
              double acc = 0.0;
              for (int64_t i = 0; i < wh[oh].size; i++)
                {
                  int64_t h = wh[oh].start + i;
                  double wgt = fh[wh[oh].w_offset + i], racc = 0.0;
                  for (int64_t j0 = 0; j0 < ww[ow].size; j0 += KERNEL_CHUNK)
                    {
                      int64_t m = ww[ow].size - j0 < KERNEL_CHUNK ? ww[ow].size - j0 : KERNEL_CHUNK;
                      _executorch_load_f64 (in->scalar_type, in->data,
                                            ib + h * in->strides[2] + (ww[ow].start + j0) * in->strides[3],
                                            in->strides[3], m, row);
                      for (int64_t j = 0; j < m; j++)
                        racc += fw[ww[ow].w_offset + j0 + j] * row[j];
                    }
                  acc += wgt * racc;
                }
              _executorch_store_f64 (out->scalar_type, out->data, ob + oh * out->strides[2] + ow * out->strides[3], 1,
                                     1, &acc);
            }
      }
  _executorch_temp_free (&temp);
  return ET_OK;
}

/* ---- Grid sampler ----
 *
 * Eager's grid_sampler_2d: grid [N, Ho, Wo, 2] holds (x, y) in [-1, 1];
 * interpolation 0 bilinear, 1 nearest (half to even), 2 bicubic (A = -0.75);
 * padding 0 zeros, 1 border, 2 reflection.  Computed in double. */

static double
gs_unnormalize (double coord, int64_t size, bool align_corners)
{
  return align_corners ? (coord + 1) / 2 * (double) (size - 1) : ((coord + 1) * (double) size - 1) / 2;
}

static double
gs_clip (double x, int64_t size)
{
  return fmin ((double) (size - 1), fmax (x, 0.0));
}

static double
gs_reflect (double x, double twice_low, double twice_high)
{
  if (twice_low == twice_high)
    return 0;
  double mn = twice_low / 2, span = (twice_high - twice_low) / 2;
  x = fabs (x - mn);
  double extra = fmod (x, span);
  double flips = floor (x / span);
  return fmod (flips, 2) == 0 ? extra + mn : span - extra + mn;
}

static double
gs_coordinates (double x, int64_t size, int64_t padding, bool align_corners)
{
  if (padding == 1)
    {
      x = gs_clip (x, size);
    }
  else if (padding == 2)
    {
      x = align_corners ? gs_reflect (x, 0, 2 * (double) (size - 1)) : gs_reflect (x, -1, 2 * (double) size - 1);
      x = gs_clip (x, size);
    }
  /* keep later int conversions defined (eager maps these to -100) */
  if (!isfinite (x) || x > 1e15 || x < -1e15)
    x = -100;
  return x;
}

typedef struct
{
  const EtTensor *in;
  int64_t base; /* offset of the (n, c) plane */
  int64_t H, W;
} GsPlane;

static double
gs_at (const GsPlane *p, int64_t y, int64_t x)
{
  double v;
  if (x < 0 || x >= p->W || y < 0 || y >= p->H)
    return 0.0;
  _executorch_load_f64 (p->in->scalar_type, p->in->data, p->base + y * p->in->strides[2] + x * p->in->strides[3], 1, 1,
                        &v);
  return v;
}

static double
cubic1 (double x, double A)
{
  return ((A + 2) * x - (A + 3)) * x * x + 1;
}

static double
cubic2 (double x, double A)
{
  return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
}

static double
gs_bounded (const GsPlane *p, double x, double y, int64_t padding, bool align_corners)
{
  double cx = gs_coordinates (x, p->W, padding, align_corners);
  double cy = gs_coordinates (y, p->H, padding, align_corners);
  return gs_at (p, (int64_t) cy, (int64_t) cx);
}

static double
gs_sample (const GsPlane *p, double gx, double gy, int64_t mode, int64_t padding, bool align_corners)
{
  if (mode == 2)
    {
      double ix = gs_unnormalize (gx, p->W, align_corners);
      double iy = gs_unnormalize (gy, p->H, align_corners);
      if (!isfinite (ix) || !isfinite (iy))
        return NAN;
      double x0 = floor (ix), y0 = floor (iy), tx = ix - x0, ty = iy - y0;
      double cx[4] = { cubic2 (tx + 1, -0.75), cubic1 (tx, -0.75), cubic1 (1 - tx, -0.75), cubic2 (2 - tx, -0.75) };
      double cy[4] = { cubic2 (ty + 1, -0.75), cubic1 (ty, -0.75), cubic1 (1 - ty, -0.75), cubic2 (2 - ty, -0.75) };
      double acc = 0;
      for (int i = 0; i < 4; i++)
        {
          double r = 0;
          for (int j = 0; j < 4; j++)
            r += cx[j] * gs_bounded (p, x0 - 1 + j, y0 - 1 + i, padding, align_corners);
          acc += cy[i] * r;
        }
      return acc;
    }
  double ix = gs_coordinates (gs_unnormalize (gx, p->W, align_corners), p->W, padding, align_corners);
  double iy = gs_coordinates (gs_unnormalize (gy, p->H, align_corners), p->H, padding, align_corners);
  if (mode == 1)
    return gs_at (p, (int64_t) nearbyint (iy), (int64_t) nearbyint (ix));
  double x0 = floor (ix), y0 = floor (iy), x1 = x0 + 1, y1 = y0 + 1;
  double nw = (x1 - ix) * (y1 - iy), ne = (ix - x0) * (y1 - iy);
  double sw = (x1 - ix) * (iy - y0), se = (ix - x0) * (iy - y0);
  int64_t xi = (int64_t) x0, yi = (int64_t) y0;
  return gs_at (p, yi, xi) * nw + gs_at (p, yi, xi + 1) * ne + gs_at (p, yi + 1, xi) * sw +
         gs_at (p, yi + 1, xi + 1) * se;
}

/* (input, grid, interpolation_mode, padding_mode, align_corners, out, ret) */
static EtError
grid_sampler_2d_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const char *op = "grid_sampler_2d";
  EtTensor *in, *grid, *out;
  int64_t mode, padding, sizes[4];
  bool align_corners;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 7));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &in));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "grid", &grid));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 2, "interpolation_mode", &mode));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 3, "padding_mode", &padding));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 4, "align_corners", &align_corners));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 5, "out", &out));
  KERNEL_TRY (_executorch_check_supported (ctx, in, "input"));
  KERNEL_TRY (_executorch_check_supported (ctx, grid, "grid"));
  if (!_executorch_type_is_floating (in->scalar_type) || grid->scalar_type != in->scalar_type ||
      out->scalar_type != in->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: input, grid and out must share one floating dtype", op);
  if (in->ndim != 4 || grid->ndim != 4 || grid->sizes[3] != 2 || grid->sizes[0] != in->sizes[0])
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: input must be [N, C, H, W] and grid [N, Ho, Wo, 2]", op);
  if (mode < 0 || mode > 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: interpolation_mode %" PRId64 " is not 0 (bilinear), 1 (nearest) or 2 (bicubic)", op, mode);
  if (padding < 0 || padding > 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        "%s: padding_mode %" PRId64 " is not 0 (zeros), 1 (border) or 2 (reflection)", op, padding);
  if (in->sizes[2] == 0 || in->sizes[3] == 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: input H and W must be non-zero", op);
  sizes[0] = in->sizes[0];
  sizes[1] = in->sizes[1];
  sizes[2] = grid->sizes[1];
  sizes[3] = grid->sizes[2];
  KERNEL_TRY (_executorch_resize (ctx, out, 4, sizes));
  if (out->numel == 0)
    return ET_OK;

  for (int64_t n = 0; n < sizes[0]; n++)
    for (int64_t c = 0; c < sizes[1]; c++)
      {
        GsPlane p = { in, n * in->strides[0] + c * in->strides[1], in->sizes[2], in->sizes[3] };
        for (int64_t h = 0; h < sizes[2]; h++)
          for (int64_t w = 0; w < sizes[3]; w++)
            {
              double g[2];
              int64_t go = n * grid->strides[0] + h * grid->strides[1] + w * grid->strides[2];
              _executorch_load_f64 (grid->scalar_type, grid->data, go, grid->strides[3], 2, g);
              double v = gs_sample (&p, g[0], g[1], mode, padding, align_corners);
              _executorch_store_f64 (out->scalar_type, out->data,
                                     n * out->strides[0] + c * out->strides[1] + h * out->strides[2] +
                                         w * out->strides[3],
                                     1, 1, &v);
            }
      }
  return ET_OK;
}

/* ---- Pixel shuffle ---- */

/* (self, factor, out, ret); @shuffle: [*, C r^2, H, W] -> [*, C, H r, W r],
 * otherwise the inverse. */
static EtError
pixel_shuffle_common (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool shuffle)
{
  const char *op = shuffle ? "pixel_shuffle" : "pixel_unshuffle";
  EtTensor *in, *out;
  int64_t r, sizes[ET_MAX_DIMS];
  int64_t isz[ET_MAX_DIMS], is[ET_MAX_DIMS], os[ET_MAX_DIMS];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 4));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &in));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 1, shuffle ? "upscale_factor" : "downscale_factor", &r));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "out", &out));
  KERNEL_TRY (_executorch_check_same_dtype (ctx, op, in, out, "out"));
  if (in->ndim < 3 || in->ndim > ET_MAX_DIMS - 2)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: self must have 3 to %d dims, not %u", op, ET_MAX_DIMS - 2,
                        in->ndim);
  if (r <= 0 || r > (1 << 16))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "%s: factor %" PRId64 " must be positive", op, r);
  uint32_t lead = in->ndim - 3;
  int64_t C = in->sizes[lead], H = in->sizes[lead + 1], W = in->sizes[lead + 2];
  memcpy (sizes, in->sizes, sizeof sizes);
  if (shuffle)
    {
      if (C % (r * r) != 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            "%s: channels %" PRId64 " must be divisible by factor^2 = %" PRId64, op, C, r * r);
      sizes[lead] = C / (r * r);
      sizes[lead + 1] = H * r;
      sizes[lead + 2] = W * r;
    }
  else
    {
      if (H % r != 0 || W % r != 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            "%s: height %" PRId64 " and width %" PRId64 " must be divisible by %" PRId64, op, H, W, r);
      sizes[lead] = C * r * r;
      sizes[lead + 1] = H / r;
      sizes[lead + 2] = W / r;
    }
  KERNEL_TRY (_executorch_resize (ctx, out, in->ndim, sizes));
  if (out->numel == 0)
    return ET_OK;

  for (uint32_t d = 0; d < lead; d++)
    {
      isz[d] = in->sizes[d];
      is[d] = in->strides[d];
      os[d] = out->strides[d];
    }
  int64_t sC = in->strides[lead], sH = in->strides[lead + 1], sW = in->strides[lead + 2];
  int64_t oC = out->strides[lead], oH = out->strides[lead + 1], oW = out->strides[lead + 2];
  int64_t *z = isz + lead, *a = is + lead, *b = os + lead;
  if (shuffle)
    {
      /* index space (c, h, i, w, j): in channel c r^2 + i r + j at (h, w) */
      int64_t c = C / (r * r);
      int64_t zz[5] = { c, H, r, W, r };
      int64_t aa[5] = { r * r * sC, sH, r * sC, sW, sC };
      int64_t bb[5] = { oC, r * oH, oH, r * oW, oW };
      memcpy (z, zz, sizeof zz);
      memcpy (a, aa, sizeof aa);
      memcpy (b, bb, sizeof bb);
    }
  else
    {
      /* index space (c, i, j, h, w): out channel c r^2 + i r + j at (h, w) */
      int64_t zz[5] = { C, r, r, H / r, W / r };
      int64_t aa[5] = { sC, sH, sW, r * sH, r * sW };
      int64_t bb[5] = { r * r * oC, r * oC, oC, oH, oW };
      memcpy (z, zz, sizeof zz);
      memcpy (a, aa, sizeof aa);
      memcpy (b, bb, sizeof bb);
    }
  return _executorch_copy_strided (ctx, lead + 5, isz, NULL, out->data, out->scalar_type, 0, os, in->data,
                                   in->scalar_type, 0, is);
}

static EtError
pixel_shuffle_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return pixel_shuffle_common (ctx, args, n_args, true);
}

static EtError
pixel_unshuffle_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return pixel_shuffle_common (ctx, args, n_args, false);
}

const EtKernel _executorch_upsample_kernels[] = {
  { "aten::upsample_nearest2d.vec_out", upsample_nearest2d_vec_out, NULL },
  { "aten::upsample_bilinear2d.vec_out", upsample_bilinear2d_vec_out, NULL },
  { "aten::_upsample_bilinear2d_aa.out", upsample_bilinear2d_aa_out, NULL },
  { "aten::grid_sampler_2d.out", grid_sampler_2d_out, NULL },
  { "aten::pixel_shuffle.out", pixel_shuffle_out, NULL },
  { "aten::pixel_unshuffle.out", pixel_unshuffle_out, NULL },
};

const size_t _executorch_upsample_n_kernels = KERNEL_N_ELEMENTS (_executorch_upsample_kernels);
