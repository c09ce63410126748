/* pool-private.h: the vectorised float32 max pooling (pool-max-fast.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "kernels-private.h"

/* One contiguous plane: in [h, w] to out (and idx, or NULL) [oh, ow],
 * rows of ow; unit column dilation. */
typedef struct
{
  const float *in;
  int64_t h, w, oh, ow;
  int64_t kh, kw, sh, sw, ph, pw, dh;
} KernelMaxPool;

/* False (nothing written) when the geometry is not one it takes. */
bool _executorch_max_pool_plane_f32 (const KernelMaxPool *p, float *out, int64_t *idx);

/* max_pool2d_with_indices.out that leaves the indices unwritten, for
 * instructions whose indices nothing reads (rewrites/pool-indices.c). */
EtError _executorch_max_pool2d_values_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args);
