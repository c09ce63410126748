/* int-kernels-private.h: what the integer kernels' staging kernels leave for the products
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * int-conv-rewrite.c gives a matched site these kernels:
 *
 *   dequantize(x)  → stage_input (int-stage.c):  (x - zero point) as
 *                    int16 into the float result's own buffer, after a
 *                    header;
 *   dequantize(w)  → stage_weight (int-stage.c): one scale and zero point
 *                    per channel and a copy of the constant int8 weights
 *                    (a quarter of what dequantizing wrote);
 *   permute_copy   → forward_weight (int-stage.c): a linear's transposed
 *                    weight, the staged weight copied along;
 *   convolution    → int_conv (int-conv.c), addmm / mm → int_linear
 *                    (int-linear.c): int16 products summed in int32,
 *                    scaled once per output by x_scale × w_scale[oc], plus
 *                    the float bias, into the float result.
 *
 * The staged buffers are the planned float results the dequantizations
 * wrote before, live exactly from producer to product, so the data moves
 * along the program's own edges (the int8 input may be dead, its memory
 * reused, by the time the product runs).  Products are exact; only the
 * float rounding of one scaling per output differs from upstream's float
 * product, so the quantized result is within one unit of it
 * (docs/quantized.md).
 */
#pragma once

#include "quantized-private.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define QK_HAVE_AVX2 1
#endif

#define STAGE_INPUT_MAGIC UINT64_C (0x3174757069786b71)  /* "qkxinpt1" */
#define STAGE_WEIGHT_MAGIC UINT64_C (0x3174686769776b71) /* "qkwight1" */

typedef struct
{
  uint64_t magic;
  double scale;
  int64_t numel;
  int64_t pad;
} StagedInput; /* followed by numel int16 */

/* No pointers: the buffer is planned memory another value may share in a
 * hostile program, so everything read from it is data checked against the
 * tensor's own sizes, never an address. */
typedef struct
{
  uint64_t magic;
  int32_t pad;
  int32_t n_channels;
  int64_t numel;
} StagedWeightHead; /* followed by n_channels doubles (scales), n_channels
                     * int32 (zero points), numel int8 (the weights, [OC][K]) */

/* What a product reads back: both headers and where the data starts. */
typedef struct
{
  StagedInput input;
  StagedWeightHead weight;
  const int16_t *x;
  const int8_t *w;
  const double *w_scales;
  const int32_t *w_zps;
} QkStaged;

/* The staged int8 weights after @wh's scales and zero points. */
const int8_t *_executorch_qk_staged_weights (const void *data, const StagedWeightHead *wh);

/* Checks the headers stage_input and stage_weight left in @input and
 * @weight (whose dimension @channel_dim counts the weight's rows) against
 * the tensors' own sizes and bytes. */
EtError _executorch_qk_read_staged (const QkCall *c, const EtTensor *input, const EtTensor *weight,
                                    uint32_t channel_dim, QkStaged *staged);

/* Work below which the pool's hand-off costs more than it saves. */
#define QK_PARALLEL_MIN_MACS (1 << 18)
