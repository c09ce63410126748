/* convolution-channels-last.c: float32 convolutions whose input or output
 * is laid out channels-last, computed in that layout
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A program exported channels-last, or a chain of convolutions that
 * rewrites/channels-last.c turned channels-last at load, hands the kernel
 * NHWC tensors.  The generic path copies them to NCHW and back; here the
 * paths that read and write NHWC in place take them instead:
 * - a depthwise convolution, NHWC to NHWC (convolution-depthwise-nhwc.c);
 * - one of one group on the pixels-as-rows tiles (convolution-rows.c):
 *   any output layout, and a channels-last input for 1x1 only.
 * Their weights come packed by the load-time rewrite, or are packed into
 * a temporary for the call (an unfused instruction, a changed shape).
 */
#include "convolution-private.h"

#include "nn-private.h"

#include <string.h>

/* A dense NHWC tensor: dim order 0, 2, 3, 1 and the strides it implies. */
static bool
is_nhwc (const EtTensor *t)
{
  int64_t strides[ET_MAX_DIMS];

  if (t->ndim != 4 || !_executorch_dim_order_is_channels_last (t))
    return false;
  et_strides_from_dim_order (t->ndim, t->sizes, t->dim_order, strides);
  return memcmp (strides, t->strides, 4 * sizeof (int64_t)) == 0;
}

static bool
is_depthwise (const KernelConv *cv)
{
  return cv->groups == cv->cin && cv->cout == cv->cin && cv->cin_g == 1;
}

EtError
_executorch_conv_channels_last_run (EtKernelContext *ctx, const KernelConv *cv, const EtTensor *x, const float *weight,
                                    const float *bias, const KernelConvFusion *fusion, EtTensor *y,
                                    const EtTensor *residual, bool *taken)
{
  unsigned layout = (is_nhwc (x) ? KERNEL_CONV_X_CHANNELS_LAST : 0) | (is_nhwc (y) ? KERNEL_CONV_Y_CHANNELS_LAST : 0);
  bool depthwise = is_depthwise (cv);
  int64_t taps = cv->kh * cv->kw, k = cv->cin_g * taps;
  KernelConvPacking packing = depthwise ? KERNEL_CONV_PACKED_DEPTHWISE_NHWC : KERNEL_CONV_PACKED_ROWS;
  KernelTemp packed_temp = { 0 }, out_temp = { 0 };
  EtError err = ET_OK;

  *taken = false;
  if (layout == 0 || (residual != NULL &&
                      ((layout & KERNEL_CONV_Y_CHANNELS_LAST) != 0 ? !is_nhwc (residual)
                                                                   : !_executorch_dim_order_is_identity (residual))))
    return ET_OK;
  if (depthwise ? layout != (KERNEL_CONV_X_CHANNELS_LAST | KERNEL_CONV_Y_CHANNELS_LAST) ||
                      !_executorch_conv_depthwise_nhwc_fits (cv)
                : !_executorch_conv_rows_fits_layout (cv, layout))
    return ET_OK;

  const float *packed = _executorch_conv_fusion_packed (fusion, cv, packing);
  if (packed == NULL)
    {
      int64_t floats = depthwise ? _executorch_conv_depthwise_nhwc_packed_floats (cv->cout, taps)
                                 : _executorch_conv_rows_packed_floats (cv->cout, k);
      if (weight == NULL)
        return ET_OK;
      KERNEL_TRY (_executorch_temp_alloc (ctx, (size_t) floats * sizeof (float), &packed_temp));
      if (depthwise)
        _executorch_conv_depthwise_nhwc_pack (weight, cv->cout, taps, packed_temp.data);
      else
        _executorch_conv_rows_pack (weight, cv->cout, k, packed_temp.data);
      packed = packed_temp.data;
    }

  /* An out sharing bytes with the input (the memory plan lets it where
   * the input's life ends here) is computed aside; a residual read in
   * place is read before its place is written. */
  float *out = y->data;
  if (_executorch_tensors_overlap (y, x) ||
      (residual != NULL && residual->data != y->data && _executorch_tensors_overlap (y, residual)))
    {
      err = _executorch_temp_alloc (ctx, (size_t) y->numel * sizeof (float), &out_temp);
      out = out_temp.data;
    }
  if (err == ET_OK)
    {
      KernelConvEpilogue epilogue = { .residual = residual != NULL ? residual->data : NULL };
      if (fusion != NULL)
        {
          epilogue.clamp = fusion->clamp;
          epilogue.lo = fusion->lo;
          epilogue.hi = fusion->hi;
        }
      bool done = depthwise ? _executorch_conv_depthwise_nhwc_f32 (cv, x->data, packed, bias, out, &epilogue)
                            : _executorch_conv_rows_f32 (cv, x->data, packed, bias, out, &epilogue, layout);
      if (!done)
        err = KERNEL_FAIL (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED, "convolution: out of memory for temporary buffers");
      else if (out != y->data)
        _executorch_conv_copy_floats (y->data, out, y->numel);
    }
  _executorch_temp_free (&out_temp);
  _executorch_temp_free (&packed_temp);
  *taken = true;
  return err;
}
