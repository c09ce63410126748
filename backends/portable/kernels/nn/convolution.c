/* convolution.c: aten::convolution.out
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * (input, weight, bias?, stride[], padding[], dilation[], transposed,
 *  output_padding[], groups, out, ret)
 *
 * 1-D (3-D input) and 2-D (4-D input) convolutions, plain or transposed,
 * with groups, dilation and an optional bias.  Every argument is checked
 * against the others before anything is read: the weight's shape against
 * the input's channels and the groups, the bias length against the output
 * channels (upstream's own check is vacuous), list lengths and values, and
 * an output size that would be zero or negative is an error.
 *
 * Float32 runs the fast paths of convolution-fast.c, on contiguous data
 * (channels-last or other dim orders are relaid out into temporaries);
 * Half and BFloat16 are converted to float and take the same paths.
 * Double and the integer types (in wrapping 64-bit arithmetic) take a
 * direct loop over converted copies, slower but exact in the way a naive
 * loop is.
 */
#include "convolution-private.h"

#include "nn-private.h"

#include <string.h>

#define OP "convolution"

/* Ints that keep every product of sizes and parameters inside int64. */
#define PARAM_MAX ((int64_t) 1 << 24)

static EtError
read_param_list (EtKernelContext *ctx, EtValue **args, uint32_t i, const char *name, uint32_t spatial, int64_t min,
                 int64_t *values)
{
  int64_t items[ET_MAX_DIMS];
  uint32_t n;

  KERNEL_TRY (_executorch_arg_int_list (ctx, args, i, name, NULL, items, &n));
  if (n != spatial && n != 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, OP ": %s must have %u values (or 1), got %u", name, spatial, n);
  for (uint32_t d = 0; d < spatial; d++)
    {
      int64_t v = items[n == 1 ? 0 : d];
      if (v < min || v > PARAM_MAX)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            OP ": %s[%u] = %" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", name, d, v, min,
                            PARAM_MAX);
      values[d] = v;
    }
  return ET_OK;
}

static bool
conv_dtype_ok (int type)
{
  return type != ET_SCALAR_BOOL && _executorch_type_is_supported (type);
}

/* Output extent of one spatial dimension, or an error when it is < 1. */
static EtError
output_extent (EtKernelContext *ctx, const char *dim, bool transposed, int64_t in, int64_t k, int64_t s, int64_t p,
               int64_t d, int64_t op, int64_t *out)
{
  int64_t v;

  if (transposed)
    v = (in - 1) * s - 2 * p + d * (k - 1) + op + 1;
  else
    {
      int64_t span = in + 2 * p - d * (k - 1) - 1;
      v = span < 0 ? 0 : span / s + 1;
    }
  if (v < 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        OP ": output %s would be %" PRId64 " (input %" PRId64 ", kernel %" PRId64 ", stride %" PRId64
                           ", padding %" PRId64 ", dilation %" PRId64 ")",
                        dim, v, in, k, s, p, d);
  *out = v;
  return ET_OK;
}

/* Reads and checks every argument, fills @cv and resizes out. */
static EtError
parse (EtKernelContext *ctx, EtValue **args, uint32_t n_args, EtTensor **input, EtTensor **weight, EtTensor **bias,
       EtTensor **out, KernelConv *cv)
{
  EtTensor *x, *w, *b = NULL, *y;
  int64_t stride[2], padding[2], dilation[2], out_pad[2], groups;
  bool transposed;
  char sx[160], sw[160];

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 11));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "input", &x));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 1, "weight", &w));
  if (args[2]->tag != ET_VALUE_NONE)
    KERNEL_TRY (_executorch_arg_tensor (ctx, args, 2, "bias", &b));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 9, "out", &y));

  if (x->ndim != 3 && x->ndim != 4)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, OP ": input must be 3-D or 4-D, got %u-D", x->ndim);
  if (w->ndim != x->ndim)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, OP ": weight must be %u-D like input, got %u-D", x->ndim,
                        w->ndim);
  if (y->ndim != x->ndim)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, OP ": out must be %u-D like input, got %u-D", x->ndim, y->ndim);
  if (!conv_dtype_ok (x->scalar_type) || w->scalar_type != x->scalar_type || y->scalar_type != x->scalar_type)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        OP ": input, weight and out must share one real dtype (no Bool), got %s, %s and %s",
                        _executorch_type_name (x->scalar_type), _executorch_type_name (w->scalar_type),
                        _executorch_type_name (y->scalar_type));
  if (b != NULL && !conv_dtype_ok (b->scalar_type))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, OP ": bias dtype %s is not supported",
                        _executorch_type_name (b->scalar_type));

  uint32_t spatial = x->ndim - 2;
  KERNEL_TRY (read_param_list (ctx, args, 3, "stride", spatial, 1, stride));
  KERNEL_TRY (read_param_list (ctx, args, 4, "padding", spatial, 0, padding));
  KERNEL_TRY (read_param_list (ctx, args, 5, "dilation", spatial, 1, dilation));
  KERNEL_TRY (_executorch_arg_bool (ctx, args, 6, "transposed", &transposed));
  KERNEL_TRY (read_param_list (ctx, args, 7, "output_padding", spatial, 0, out_pad));
  KERNEL_TRY (_executorch_arg_int (ctx, args, 8, "groups", &groups));

  memset (cv, 0, sizeof *cv);
  cv->transposed = transposed;
  cv->n = x->sizes[0];
  cv->cin = x->sizes[1];
  cv->h = spatial == 2 ? x->sizes[2] : 1;
  cv->w = x->sizes[x->ndim - 1];
  cv->kh = spatial == 2 ? w->sizes[2] : 1;
  cv->kw = w->sizes[w->ndim - 1];
  cv->sh = spatial == 2 ? stride[0] : 1;
  cv->sw = stride[spatial - 1];
  cv->ph = spatial == 2 ? padding[0] : 0;
  cv->pw = padding[spatial - 1];
  cv->dh = spatial == 2 ? dilation[0] : 1;
  cv->dw = dilation[spatial - 1];
  cv->oph = spatial == 2 && transposed ? out_pad[0] : 0;
  cv->opw = transposed ? out_pad[spatial - 1] : 0;

  if (cv->cin < 1 || cv->h < 1 || cv->w < 1)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, OP ": input %s must have non-zero channel and spatial sizes",
                        _executorch_format_sizes (sx, sizeof sx, x->ndim, x->sizes));
  if (cv->kh < 1 || cv->kw < 1 || cv->kh > PARAM_MAX || cv->kw > PARAM_MAX)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, OP ": weight %s has an empty or huge kernel",
                        _executorch_format_sizes (sw, sizeof sw, w->ndim, w->sizes));
  if (groups < 1 || groups > cv->cin || cv->cin % groups != 0)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        OP ": groups = %" PRId64 " must be positive and divide the %" PRId64 " input channels", groups,
                        cv->cin);
  cv->groups = groups;
  cv->cin_g = cv->cin / groups;
  if (!transposed)
    {
      if (w->sizes[1] != cv->cin_g || w->sizes[0] % groups != 0)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            OP ": weight %s does not fit input %s with groups = %" PRId64
                               " (expected [C_out (a multiple of groups), %" PRId64 ", ...])",
                            _executorch_format_sizes (sw, sizeof sw, w->ndim, w->sizes),
                            _executorch_format_sizes (sx, sizeof sx, x->ndim, x->sizes), groups, cv->cin_g);
      cv->cout = w->sizes[0];
      cv->cout_g = cv->cout / groups;
    }
  else
    {
      if (w->sizes[0] != cv->cin)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            OP ": transposed weight %s does not fit input %s (expected [%" PRId64
                               ", C_out / groups, ...])",
                            _executorch_format_sizes (sw, sizeof sw, w->ndim, w->sizes),
                            _executorch_format_sizes (sx, sizeof sx, x->ndim, x->sizes), cv->cin);
      cv->cout_g = w->sizes[1];
      cv->cout = cv->cout_g * groups;
      if ((cv->oph >= cv->sh && cv->oph >= cv->dh) || (cv->opw >= cv->sw && cv->opw >= cv->dw))
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                            OP ": output_padding must be smaller than either stride or dilation");
    }
  if (b != NULL && (b->ndim != 1 || b->sizes[0] != cv->cout))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        OP ": bias %s must be 1-D with %" PRId64 " elements (the output channels)",
                        _executorch_format_sizes (sx, sizeof sx, b->ndim, b->sizes), cv->cout);

  if (spatial == 2)
    KERNEL_TRY (output_extent (ctx, "height", transposed, cv->h, cv->kh, cv->sh, cv->ph, cv->dh, cv->oph, &cv->oh));
  else
    cv->oh = 1;
  KERNEL_TRY (output_extent (ctx, spatial == 2 ? "width" : "length", transposed, cv->w, cv->kw, cv->sw, cv->pw, cv->dw,
                             cv->opw, &cv->ow));

  int64_t sizes[4] = { cv->n, cv->cout, cv->oh, cv->ow };
  if (spatial == 1)
    sizes[2] = cv->ow;
  KERNEL_TRY (_executorch_resize (ctx, y, x->ndim, sizes));
  *input = x;
  *weight = w;
  *bias = b;
  *out = y;
  return ET_OK;
}

/* Contiguous data of @t in @type (t's own buffer when it already is). */
static EtError
dense_copy (EtKernelContext *ctx, const EtTensor *t, int type, KernelTemp *temp, void **data)
{
  int64_t strides[ET_MAX_DIMS];

  temp->data = NULL;
  temp->heap = false;
  if (t->scalar_type == type && _executorch_dim_order_is_identity (t))
    {
      *data = t->data;
      return ET_OK;
    }
  KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) t->numel * _executorch_type_size (type), temp));
  _executorch_contiguous_strides (t->ndim, t->sizes, strides);
  KERNEL_TRY (_executorch_copy_strided (ctx, t->ndim, t->sizes, NULL, temp->data, type, 0, strides, t->data,
                                        t->scalar_type, 0, t->strides));
  *data = temp->data;
  return ET_OK;
}

/* The direct loop of the generic path, on contiguous NCHW copies in the
 * compute dtype T; integer products wrap through uint64_t (U). */
#define DIRECT_CONV(NAME, T, U)                                                                               \
  static void NAME (const KernelConv *cv, const T *x, const T *w, const T *bias, T *y)                        \
  {                                                                                                           \
    int64_t opix = cv->oh * cv->ow;                                                                           \
    for (int64_t b = 0; b < cv->n; b++)                                                                       \
      for (int64_t co = 0; co < cv->cout; co++)                                                               \
        {                                                                                                     \
          T *yp = y + (b * cv->cout + co) * opix;                                                             \
          for (int64_t p = 0; p < opix; p++)                                                                  \
            yp[p] = bias != NULL ? bias[co] : (T) 0;                                                          \
        }                                                                                                     \
    for (int64_t b = 0; b < cv->n; b++)                                                                       \
      for (int64_t g = 0; g < cv->groups; g++)                                                                \
        for (int64_t cig = 0; cig < cv->cin_g; cig++)                                                         \
          {                                                                                                   \
            int64_t ci = g * cv->cin_g + cig;                                                                 \
            const T *xp = x + (b * cv->cin + ci) * cv->h * cv->w;                                             \
            for (int64_t cog = 0; cog < cv->cout_g; cog++)                                                    \
              {                                                                                               \
                int64_t co = g * cv->cout_g + cog;                                                            \
                T *yp = y + (b * cv->cout + co) * opix;                                                       \
                const T *wp = cv->transposed ? w + (ci * cv->cout_g + cog) * cv->kh * cv->kw                  \
                                             : w + (co * cv->cin_g + cig) * cv->kh * cv->kw;                  \
                if (!cv->transposed)                                                                          \
                  {                                                                                           \
                    for (int64_t oh = 0; oh < cv->oh; oh++)                                                   \
                      for (int64_t ow = 0; ow < cv->ow; ow++)                                                 \
                        {                                                                                     \
                          T acc = 0;                                                                          \
                          for (int64_t kh = 0; kh < cv->kh; kh++)                                             \
                            {                                                                                 \
                              int64_t ih = oh * cv->sh - cv->ph + kh * cv->dh;                                \
                              if (ih < 0 || ih >= cv->h)                                                      \
                                continue;                                                                     \
                              for (int64_t kw = 0; kw < cv->kw; kw++)                                         \
                                {                                                                             \
                                  int64_t iw = ow * cv->sw - cv->pw + kw * cv->dw;                            \
                                  if (iw >= 0 && iw < cv->w)                                                  \
                                    acc = (T) ((U) acc + (U) xp[ih * cv->w + iw] * (U) wp[kh * cv->kw + kw]); \
                                }                                                                             \
                            }                                                                                 \
                          yp[oh * cv->ow + ow] = (T) ((U) yp[oh * cv->ow + ow] + (U) acc);                    \
                        }                                                                                     \
                  }                                                                                           \
                else                                                                                          \
                  {                                                                                           \
                    for (int64_t ih = 0; ih < cv->h; ih++)                                                    \
                      for (int64_t iw = 0; iw < cv->w; iw++)                                                  \
                        {                                                                                     \
                          U xv = (U) xp[ih * cv->w + iw];                                                     \
                          for (int64_t kh = 0; kh < cv->kh; kh++)                                             \
                            {                                                                                 \
                              int64_t oh = ih * cv->sh - cv->ph + kh * cv->dh;                                \
                              if (oh < 0 || oh >= cv->oh)                                                     \
                                continue;                                                                     \
                              for (int64_t kw = 0; kw < cv->kw; kw++)                                         \
                                {                                                                             \
                                  int64_t ow = iw * cv->sw - cv->pw + kw * cv->dw;                            \
                                  if (ow >= 0 && ow < cv->ow)                                                 \
                                    yp[oh * cv->ow + ow] =                                                    \
                                        (T) ((U) yp[oh * cv->ow + ow] + xv * (U) wp[kh * cv->kw + kw]);       \
                                }                                                                             \
                            }                                                                                 \
                        }                                                                                     \
                  }                                                                                           \
              }                                                                                               \
          }                                                                                                   \
  }

DIRECT_CONV (direct_f64, double, double)
DIRECT_CONV (direct_i64, int64_t, uint64_t)

/* The fused instruction's residual, checked against its output. */
static EtError
fusion_residual (EtKernelContext *ctx, const KernelConvFusion *fusion, const EtTensor *y, const EtTensor **residual)
{
  const EtTensor *r;

  *residual = NULL;
  if (fusion == NULL || fusion->residual == NULL)
    return ET_OK;
  r = fusion->residual->tag == ET_VALUE_TENSOR ? fusion->residual->u.tensor : NULL;
  if (r == NULL || r->scalar_type != ET_SCALAR_FLOAT || !_executorch_same_sizes (r, y) ||
      (!_executorch_dim_order_is_identity (r) && !_executorch_dim_order_is_channels_last (r)) || r->data == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT,
                        OP ": the fused residual add's other input must be a float32 tensor of the output's sizes, "
                           "contiguous or channels-last");
  *residual = r;
  return ET_OK;
}

const float *
_executorch_conv_fusion_packed (const KernelConvFusion *fusion, const KernelConv *cv, KernelConvPacking packing)
{
  if (fusion == NULL || fusion->packed_weight == NULL || fusion->packing != packing ||
      fusion->packed_groups != cv->groups || fusion->packed_cout_g != cv->cout_g ||
      fusion->packed_k != cv->cin_g * cv->kh * cv->kw || cv->transposed ||
      (packing == KERNEL_CONV_PACKED_ROWS && !_executorch_conv_rows_fits (cv)))
    return NULL;
  return fusion->packed_weight;
}

static const float *
packed_weight (const KernelConvFusion *fusion, const KernelConv *cv, bool rows)
{
  return _executorch_conv_fusion_packed (fusion, cv, rows ? KERNEL_CONV_PACKED_ROWS : KERNEL_CONV_PACKED_GEMM);
}

typedef struct
{
  float *dst;
  const float *src;
} CopyJob;

static void
copy_range (void *context, int64_t begin, int64_t end)
{
  CopyJob *job = context;

  memcpy (job->dst + begin, job->src + begin, (size_t) (end - begin) * sizeof (float));
}

void
_executorch_conv_copy_floats (float *dst, const float *src, int64_t n)
{
  CopyJob job = { dst, src };

  _executorch_parallel_for (n, 4 * KERNEL_GRAIN, copy_range, &job);
}

/* convolution.out, or with @fusion the fused instruction it describes:
 * the output goes to fusion->out, and only float32 is fused. */
static EtError
convolution_run (EtKernelContext *ctx, EtValue **args, uint32_t n_args, const KernelConvFusion *fusion)
{
  EtTensor *x, *w, *b, *y;
  const EtTensor *r = NULL;
  KernelConv cv;

  KERNEL_TRY (parse (ctx, args, n_args, &x, &w, &b, &y, &cv));
  if (fusion != NULL)
    {
      EtTensor *last = fusion->out->tag == ET_VALUE_TENSOR ? fusion->out->u.tensor : NULL;

      if (last == NULL || x->scalar_type != ET_SCALAR_FLOAT || last->scalar_type != ET_SCALAR_FLOAT)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, OP ": a fused convolution computes float32 only");
      KERNEL_TRY (_executorch_resize (ctx, last, y->ndim, y->sizes));
      y = last;
      KERNEL_TRY (fusion_residual (ctx, fusion, y, &r));
    }
  if (y->numel == 0)
    return ET_OK;
  if (x->scalar_type == ET_SCALAR_FLOAT && y->scalar_type == ET_SCALAR_FLOAT && w->scalar_type == ET_SCALAR_FLOAT)
    {
      /* Folded weights kept only packed are not w's. */
      bool folded = fusion != NULL && (fusion->weight != NULL || fusion->folded_into_packed);
      const float *weight = folded ? (fusion->weight) : _executorch_dim_order_is_identity (w) ? w->data : NULL;
      const float *bias = fusion != NULL && fusion->bias != NULL ? fusion->bias : NULL;
      bool taken = false;

      if (bias == NULL && b != NULL)
        bias = b->scalar_type == ET_SCALAR_FLOAT && b->strides[0] == 1 ? b->data : NULL;
      if (bias != NULL || b == NULL)
        KERNEL_TRY (_executorch_conv_channels_last_run (ctx, &cv, x, weight, bias, fusion, y, r, &taken));
      if (taken)
        return ET_OK;
    }

  /* Work in the compute dtype: Float for Float/Half/BFloat16, Double, Long. */
  KernelComputeKind kind = _executorch_compute_kind (x->scalar_type);
  int ctype = _executorch_compute_kind_type (kind);
  size_t es = _executorch_type_size (ctype);
  KernelTemp tx, tw, tb, ty, tr;
  void *dx = NULL, *dw = NULL, *db = NULL, *dy = NULL, *dr = NULL;
  /* Written straight into out unless it shares bytes with what is read. */
  bool in_place = y->scalar_type == ctype && _executorch_dim_order_is_identity (y) &&
                  !_executorch_tensors_overlap (y, x) && !_executorch_tensors_overlap (y, w) &&
                  (b == NULL || !_executorch_tensors_overlap (y, b)) &&
                  (r == NULL || !_executorch_tensors_overlap (y, r));
  KernelConvEpilogue epilogue = { 0 };
  EtError err = ET_OK;

  tw.data = tb.data = ty.data = tr.data = NULL;
  tw.heap = tb.heap = ty.heap = tr.heap = false;
  if (fusion != NULL)
    {
      epilogue.clamp = fusion->clamp;
      epilogue.lo = fusion->lo;
      epilogue.hi = fusion->hi;
    }
  const float *rows_weight = packed_weight (fusion, &cv, true);
  if (fusion != NULL && fusion->folded_into_packed && packed_weight (fusion, &cv, false) == NULL && rows_weight == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INTERNAL, OP ": the folded weights were packed for another shape");
  KERNEL_TRY (dense_copy (ctx, x, ctype, &tx, &dx));
  if (fusion != NULL && fusion->weight != NULL)
    dw = (void *) fusion->weight;
  else
    err = dense_copy (ctx, w, ctype, &tw, &dw);
  /* A channels-last residual whose convolution took this path. */
  if (err == ET_OK && r != NULL)
    err = dense_copy (ctx, r, ET_SCALAR_FLOAT, &tr, &dr);
  epilogue.residual = dr;
  if (err == ET_OK && fusion != NULL && fusion->bias != NULL)
    {
      db = (void *) fusion->bias;
    }
  else if (err == ET_OK && b != NULL)
    {
      err = _executorch_temp_alloc (ctx, (size_t) cv.cout * es, &tb);
      if (err == ET_OK)
        {
          _executorch_load_kind (kind, b->scalar_type, b->data, 0, b->strides[0], cv.cout, tb.data);
          db = tb.data;
        }
    }
  /* An out over the input (the memory plan lets it when the input's life
   * ends here: an image's stem, a classifier) shares bytes with it only in
   * its first channels: just those go through a temporary. */
  int64_t low = 0;
  if (!in_place && rows_weight == NULL && kind == KERNEL_COMPUTE_F32 && y->scalar_type == ET_SCALAR_FLOAT &&
      _executorch_dim_order_is_identity (y) && !_executorch_tensors_overlap (y, w) &&
      (b == NULL || !_executorch_tensors_overlap (y, b)) && (r == NULL || !_executorch_tensors_overlap (y, r)) &&
      cv.oh * cv.ow > 0)
    {
      size_t plane = (size_t) (cv.oh * cv.ow) * sizeof (float);
      const char *x_end = (const char *) x->data + (size_t) x->numel * _executorch_type_size (x->scalar_type);
      int64_t channels = (int64_t) (((size_t) (x_end - (const char *) y->data) + plane - 1) / plane);
      low = _executorch_conv_low_channels (&cv, channels);
      low = low < cv.cout ? low : 0;
    }
  if (err == ET_OK)
    {
      if (in_place)
        {
          dy = y->data;
        }
      else
        {
          err = _executorch_temp_alloc (ctx, (size_t) (low > 0 ? low * cv.oh * cv.ow : y->numel) * es, &ty);
          dy = ty.data;
        }
    }
  if (err == ET_OK)
    {
      switch (kind)
        {
          case KERNEL_COMPUTE_F32:
            /* Half and BFloat16 were converted to float above. */
            if (rows_weight != NULL)
              err = _executorch_conv_rows_f32 (&cv, dx, rows_weight, db, dy, &epilogue, 0)
                        ? ET_OK
                        : KERNEL_FAIL (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED,
                                       "convolution: out of memory for temporary buffers");
            else if (low > 0)
              err = _executorch_conv_f32_low (ctx, &cv, dx, dw, packed_weight (fusion, &cv, false), db, y->data, dy,
                                              low, fusion != NULL ? &epilogue : NULL);
            else
              err = _executorch_conv_f32 (ctx, &cv, dx, dw, packed_weight (fusion, &cv, false), db, dy,
                                          fusion != NULL ? &epilogue : NULL);
            break;
          case KERNEL_COMPUTE_F64: direct_f64 (&cv, dx, dw, db, dy); break;
          case KERNEL_COMPUTE_I64: direct_i64 (&cv, dx, dw, db, dy); break;
        }
    }
  if (err == ET_OK && low > 0)
    {
      _executorch_conv_copy_floats (y->data, dy, low * cv.oh * cv.ow);
    }
  else if (err == ET_OK && !in_place && y->scalar_type == ET_SCALAR_FLOAT && ctype == ET_SCALAR_FLOAT &&
           _executorch_dim_order_is_identity (y))
    {
      _executorch_conv_copy_floats (y->data, dy, y->numel);
    }
  else if (err == ET_OK && !in_place)
    {
      int64_t strides[ET_MAX_DIMS];
      _executorch_contiguous_strides (y->ndim, y->sizes, strides);
      err = _executorch_copy_strided (ctx, y->ndim, y->sizes, y->dim_order, y->data, y->scalar_type, 0, y->strides, dy,
                                      ctype, 0, strides);
    }
  _executorch_temp_free (&ty);
  _executorch_temp_free (&tr);
  _executorch_temp_free (&tb);
  _executorch_temp_free (&tw);
  _executorch_temp_free (&tx);
  return err;
}

EtError
_executorch_convolution_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return convolution_run (ctx, args, n_args, NULL);
}

EtError
_executorch_convolution_fused_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const KernelConvFusion *fusion = et_kernel_context_user_data (ctx);

  if (fusion == NULL || fusion->out == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INTERNAL, OP ": fused instruction without its fusion");
  return convolution_run (ctx, args, n_args, fusion);
}

/* Float32 data of @t in NCHW order as it is, or NULL. */
static const float *
dense_f32 (const EtTensor *t)
{
  return t != NULL && t->scalar_type == ET_SCALAR_FLOAT && _executorch_dim_order_is_identity (t) ? t->data : NULL;
}

/* The instruction of two independent convolutions
 * (rewrites/conv-pair.c): one region where convolution-fast.c takes
 * them, else one after the other. */
EtError
_executorch_convolution_two_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const KernelConvTwo *two = et_kernel_context_user_data (ctx);
  EtTensor *x[2], *w[2], *b[2], *raw[2], *out[2];
  KernelConv cv[2];
  KernelConvEpilogue epilogue[2];
  KernelConvCall calls[2];
  bool together = true;

  (void) args;
  (void) n_args;
  if (two == NULL || two->conv[0] == NULL || two->conv[1] == NULL)
    return KERNEL_FAIL (ctx, ET_ERROR_INTERNAL, OP ": paired instruction without its pair");
  for (int i = 0; i < 2; i++)
    {
      KERNEL_TRY (parse (ctx, two->args[i], two->n_args[i], &x[i], &w[i], &b[i], &raw[i], &cv[i]));
      out[i] = two->conv[i]->out->tag == ET_VALUE_TENSOR ? two->conv[i]->out->u.tensor : NULL;
      if (out[i] == NULL)
        return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, OP ": a paired convolution's out must be a tensor");
      KERNEL_TRY (_executorch_resize (ctx, out[i], raw[i]->ndim, raw[i]->sizes));
    }
  for (int i = 0; i < 2 && together; i++)
    {
      const KernelConvFusion *f = two->conv[i];
      calls[i] = (KernelConvCall){
        .cv = &cv[i],
        .x = dense_f32 (x[i]),
        .weight = f->weight != NULL ? f->weight : dense_f32 (w[i]),
        .packed_weight = packed_weight (f, &cv[i], false),
        .bias = f->bias != NULL ? f->bias : dense_f32 (b[i]),
        .y = (float *) dense_f32 (out[i]),
        .epilogue = &epilogue[i],
      };
      epilogue[i] = (KernelConvEpilogue){ .clamp = f->clamp, .lo = f->lo, .hi = f->hi };
      together = f->residual == NULL && calls[i].x != NULL &&
                 (calls[i].weight != NULL || calls[i].packed_weight != NULL) &&
                 (calls[i].bias != NULL || b[i] == NULL) && calls[i].y != NULL && !cv[i].transposed &&
                 !(cv[i].groups == cv[i].cin && cv[i].cin_g == 1 && cv[i].kh * cv[i].kw > 1) &&
                 !_executorch_tensors_overlap (out[i], x[0]) && !_executorch_tensors_overlap (out[i], x[1]) &&
                 !_executorch_tensors_overlap (out[i], out[1 - i]);
    }
  if (!together)
    {
      KERNEL_TRY (convolution_run (ctx, two->args[0], two->n_args[0], two->conv[0]));
      return convolution_run (ctx, two->args[1], two->n_args[1], two->conv[1]);
    }
  if (out[0]->numel == 0 || out[1]->numel == 0)
    {
      /* Nothing to share a region with: each alone (an empty one writes nothing). */
      KERNEL_TRY (convolution_run (ctx, two->args[0], two->n_args[0], two->conv[0]));
      return convolution_run (ctx, two->args[1], two->n_args[1], two->conv[1]);
    }
  if (!_executorch_conv_f32_two (calls))
    return KERNEL_FAIL (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED, "convolution: out of memory for temporary buffers");
  return ET_OK;
}

const EtKernel _executorch_conv_kernels[] = {
  { "aten::convolution.out", _executorch_convolution_out, NULL },
};

const size_t _executorch_conv_n_kernels = KERNEL_N_ELEMENTS (_executorch_conv_kernels);
