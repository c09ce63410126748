/* convolution-private.h: the geometry of one convolution call, shared by the
 * argument checks (convolution.c) and the float32 paths (convolution-fast.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "kernels-private.h"

/* A 1-D convolution is a 2-D one with H = KH = OH = 1. */
typedef struct
{
  int64_t n, cin, h, w; /* input */
  int64_t cout, kh, kw; /* weight: [cout, cin/g, kh, kw], transposed [cin, cout/g, kh, kw] */
  int64_t oh, ow;       /* output */
  int64_t sh, sw, ph, pw, dh, dw, oph, opw;
  int64_t groups, cin_g, cout_g;
  bool transposed;
} KernelConv;

/* Computes a float32 convolution of contiguous NCHW @x with contiguous
 * @weight into contiguous NCHW @y, adding @bias (cout floats) when it is
 * not NULL.  Fails only when temporary memory runs out. */
/* What runs on each part of the output as soon as it is computed, while
 * it is still in cache: y += residual, then a clamp (relu is [0, +inf]);
 * NaN passes through the clamp as the activation kernels let it. */
typedef struct
{
  const float *residual; /* contiguous NCHW, the output's sizes; NULL: none */
  bool clamp;
  float lo, hi;
} KernelConvEpilogue;

/* @packed_weight: the GEMM path's weights as _executorch_conv_pack_weight()
 * laid them out, or NULL; @epilogue may be NULL. */
EtError _executorch_conv_f32 (EtKernelContext *ctx, const KernelConv *cv, const float *x, const float *weight,
                              const float *packed_weight, const float *bias, float *y,
                              const KernelConvEpilogue *epilogue);

/* _executorch_conv_f32() writing output channels [0, @low) to @y_low
 * (laid out as @y) instead of @y: a convolution whose out shares bytes
 * with its input only there computes those channels into a temporary.
 * Only for a GEMM-path convolution of one batch and one group, @low from
 * _executorch_conv_low_channels(). */
EtError _executorch_conv_f32_low (EtKernelContext *ctx, const KernelConv *cv, const float *x, const float *weight,
                                  const float *packed_weight, const float *bias, float *y, float *y_low, int64_t low,
                                  const KernelConvEpilogue *epilogue);
/* The first @channels output channels rounded up to where
 * _executorch_conv_f32_low() may split them (cout when it may not). */
int64_t _executorch_conv_low_channels (const KernelConv *cv, int64_t channels);

/* Depthwise (groups == cin, not transposed; convolution-depthwise.c):
 * writes every output with the bias and @epilogue (may be NULL) applied.
 * False when temporary memory runs out. */
typedef enum
{
  KERNEL_DEPTHWISE_PORTABLE,
  KERNEL_DEPTHWISE_AVX2,
  KERNEL_DEPTHWISE_AVX512,
} KernelDepthwiseIsa;

bool _executorch_conv_depthwise_f32 (const KernelConv *cv, const float *x, const float *weight, const float *bias,
                                     float *y, const KernelConvEpilogue *epilogue);
/* The same with a given instruction set (tests); the best this CPU runs. */
bool _executorch_conv_depthwise_f32_isa (const KernelConv *cv, const float *x, const float *weight, const float *bias,
                                         float *y, const KernelConvEpilogue *epilogue, KernelDepthwiseIsa isa);
KernelDepthwiseIsa _executorch_conv_depthwise_best_isa (void);

/* One float32 convolution's data, as _executorch_conv_f32() takes it. */
typedef struct
{
  const KernelConv *cv;
  const float *x, *weight, *packed_weight, *bias; /* packed_weight, bias: or NULL */
  float *y;
  const KernelConvEpilogue *epilogue; /* or NULL */
} KernelConvCall;

/* Two convolutions that take the GEMM path (not depthwise, not
 * transposed), their tasks in one parallel region (a SqueezeNet fire
 * module's two expand convolutions).  False when temporary memory runs
 * out. */
bool _executorch_conv_f32_two (const KernelConvCall *calls);

/* Floats of the packed weights of a convolution that takes the GEMM path
 * (not depthwise, not transposed) with @groups groups of @cout_g output
 * channels and @k = cin / groups * kh * kw taps; 0 for the other paths. */
int64_t _executorch_conv_packed_weight_floats (int64_t groups, int64_t cout_g, int64_t k, bool depthwise);
/* Packs contiguous @weight [groups * cout_g, k] into @dst. */
void _executorch_conv_pack_weight (const float *weight, int64_t groups, int64_t cout_g, int64_t k, float *dst);

/* Convolutions of one batch and one group over small planes, with the
 * output pixels as the GEMM's rows (convolution-rows.c; AVX-512 only).
 * _fits: this CPU and @cv's shape can take it; _pays: and it beats the
 * GEMM path, the choice made at load. */
bool _executorch_conv_rows_fits (const KernelConv *cv);
bool _executorch_conv_rows_pays (const KernelConv *cv);
/* Floats of the rows path's packing of weights [cout, k]
 * (k = cin kh kw), and the packing of contiguous @weight into @dst. */
int64_t _executorch_conv_rows_packed_floats (int64_t cout, int64_t k);
void _executorch_conv_rows_pack (const float *weight, int64_t cout, int64_t k, float *dst);
/* Layouts of a convolution's operands other than contiguous NCHW: bits of
 * @layout.  The residual is laid out as the output. */
#define KERNEL_CONV_X_CHANNELS_LAST 1u /* input NHWC (dim order 0, 2, 3, 1) */
#define KERNEL_CONV_Y_CHANNELS_LAST 2u /* output NHWC */
/* _executorch_conv_rows_fits() with operands laid out as @layout says
 * (a channels-last input only for a 1x1 convolution). */
bool _executorch_conv_rows_fits_layout (const KernelConv *cv, unsigned layout);
/* The convolution, @packed from _executorch_conv_rows_pack(), into @y
 * with the bias and @epilogue (may be NULL) applied, the operands laid
 * out as @layout says; only where _executorch_conv_rows_fits_layout().
 * False when temporary memory runs out. */
bool _executorch_conv_rows_f32 (const KernelConv *cv, const float *x, const float *packed, const float *bias, float *y,
                                const KernelConvEpilogue *epilogue, unsigned layout);

/* Depthwise convolutions of a channels-last input into a channels-last
 * output (convolution-depthwise-nhwc.c; AVX-512 only).  _fits: this CPU
 * and @cv's shape can take it.  The weights [channels, 1, kh, kw] are
 * packed at load as [taps][channels rounded up to 16]. */
bool _executorch_conv_depthwise_nhwc_fits (const KernelConv *cv);
int64_t _executorch_conv_depthwise_nhwc_packed_floats (int64_t channels, int64_t taps);
void _executorch_conv_depthwise_nhwc_pack (const float *weight, int64_t channels, int64_t taps, float *dst);
/* The convolution into @y with the bias and @epilogue (may be NULL; its
 * residual channels-last too) applied; only where _fits(). */
bool _executorch_conv_depthwise_nhwc_f32 (const KernelConv *cv, const float *x, const float *packed, const float *bias,
                                          float *y, const KernelConvEpilogue *epilogue);

/* Packs rows [pc, pc + kc) of columns [j0, j0 + cols) of the im2col matrix
 * of the (batch, group) whose first input channel is @xg, column 0 being
 * output pixel @p0, as a KernelSgemmPackB strip @nr wide, with vector
 * loads (convolution-im2col.c); false, writing nothing, where this CPU or
 * shape has no such path. */
bool _executorch_conv_im2col_pack_simd (const KernelConv *cv, const float *xg, int64_t p0, int64_t pc, int64_t kc,
                                        int64_t j0, int64_t cols, int64_t nr, float *dst);

/* A convolution instruction fused by rewrites/conv-fusion.c with the batch
 * norm, residual add and activation after it: the convolution of its own
 * arguments, with @weight and @bias instead of theirs when set (the batch
 * norm folded in), then the epilogue, written to @out (the last fused
 * operator's out) instead of its own out.  Lives as long as the method;
 * kernel.user_data points back here. */
/* How a fusion's packed_weight is laid out. */
typedef enum
{
  KERNEL_CONV_PACKED_GEMM,           /* _executorch_conv_pack_weight() */
  KERNEL_CONV_PACKED_ROWS,           /* _executorch_conv_rows_pack() */
  KERNEL_CONV_PACKED_DEPTHWISE_NHWC, /* _executorch_conv_depthwise_nhwc_pack() */
} KernelConvPacking;

typedef struct
{
  EtKernel kernel;
  const float *weight;                            /* [cout, cin / groups, kh, kw] contiguous, or NULL */
  bool folded_into_packed;                        /* the folded weights exist only packed */
  const float *bias;                              /* [cout], or NULL */
  const float *packed_weight;                     /* the weights packed for one path, or NULL */
  KernelConvPacking packing;                      /* for which */
  int64_t packed_groups, packed_cout_g, packed_k; /* what it was packed for */
  EtValue *residual;                              /* float32 tensor of the output's sizes, or NULL */
  bool clamp;
  float lo, hi;
  EtValue *out;
} KernelConvFusion;

/* The plain kernel (to recognise this library's own instructions) and the
 * one a fused instruction calls. */
EtError _executorch_convolution_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args);
EtError _executorch_convolution_fused_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args);

/* The first of two consecutive convolution instructions (only fused-away
 * ones between them) where the second reads nothing the first writes
 * (rewrites/conv-pair.c): it runs both, their tasks in one parallel region
 * where both take the GEMM path and no out shares bytes with an input,
 * else one after the other as their own (fused) instructions would.  The
 * second instruction then does nothing. */
typedef struct
{
  EtKernel kernel;
  const KernelConvFusion *conv[2]; /* in instruction order */
  EtValue **args[2];
  uint32_t n_args[2];
} KernelConvTwo;

EtError _executorch_convolution_two_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args);

/* Copies @n floats between buffers that do not overlap, on the pool
 * above 512 KiB (a smaller copy takes less than a region costs). */
void _executorch_conv_copy_floats (float *dst, const float *src, int64_t n);

/* The fusion's weights when packed as @packing for @cv's shape, else NULL
 * (convolution.c). */
const float *_executorch_conv_fusion_packed (const KernelConvFusion *fusion, const KernelConv *cv,
                                             KernelConvPacking packing);

/* A float32 convolution with a channels-last input or output
 * (convolution-channels-last.c), on the paths that read and write them
 * in place: @weight dense [cout, cin / groups, kh, kw] (or NULL where only
 * the fusion's packing has them), @residual (or NULL) laid out as @y.
 * Sets *@taken false, writing nothing, where no such path applies. */
EtError _executorch_conv_channels_last_run (EtKernelContext *ctx, const KernelConv *cv, const EtTensor *x,
                                            const float *weight, const float *bias, const KernelConvFusion *fusion,
                                            EtTensor *y, const EtTensor *residual, bool *taken);
