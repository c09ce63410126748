/* rewrites-private.h: the load-time rewrites libexecutorch-kernels offers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each knows something about this library's kernels that the engine does
 * not; plugin.c registers them after the kernel tables.
 */
#pragma once

#include "executorch-plugin.h"

/* Constant 2-D permutes read only as mm/addmm's second matrix become
 * transposed views (constant-transpose.c). */
extern const EtMethodRewrite _executorch_constant_transpose_rewrite;

/* A convolution followed by batch norm, residual add and/or activation
 * becomes one fused instruction (conv-fusion.c). */
extern const EtMethodRewrite _executorch_conv_fusion_rewrite;

/* sigmoid then multiply by the sigmoid's input becomes one SiLU
 * instruction (silu-fusion.c). */
extern const EtMethodRewrite _executorch_silu_fusion_rewrite;

/* False when EXECUTORCH_KERNELS_NO_REWRITES is set (not to "0"): every
 * rewrite of this library leaves methods as exported (switch.c). */
bool _executorch_rewrites_enabled (void);
