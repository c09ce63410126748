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
EtError _executorch_conv_f32 (EtKernelContext *ctx, const KernelConv *cv, const float *x, const float *weight,
                              const float *bias, float *y);
