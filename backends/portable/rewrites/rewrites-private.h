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

/* The constant second matrix of an addmm with enough rows is packed for
 * the GEMM once (mat2-packing.c); runs after the transposes above. */
extern const EtMethodRewrite _executorch_mat2_packing_rewrite;

/* A convolution followed by batch norm, residual add and/or activation
 * becomes one fused instruction (conv-fusion.c). */
extern const EtMethodRewrite _executorch_conv_fusion_rewrite;

/* What a fused-away instruction calls: nothing (conv-fusion.c). */
EtError _executorch_conv_folded_op (EtKernelContext *context, EtValue **args, uint32_t n_args);

/* Run by the convolution fusion after it: two consecutive independent
 * GEMM convolutions become one instruction (conv-pair.c). */
void _executorch_conv_pair_fuse (EtMethodGraph *graph);

/* sigmoid then multiply by the sigmoid's input becomes one SiLU
 * instruction (silu-fusion.c). */
extern const EtMethodRewrite _executorch_silu_fusion_rewrite;

/* max_pool2d_with_indices whose indices nothing reads leaves them
 * unwritten (pool-indices.c). */
extern const EtMethodRewrite _executorch_pool_indices_rewrite;

/* True when @value is not pinned and its only uses are by instruction
 * @producer and, once, by instruction @reader (UINT32_MAX: by nobody), so
 * nothing else sees that it is no longer written (uses.c). */
bool _executorch_rewrite_only_used_by (EtMethodGraph *graph, const EtValue *value, uint32_t producer, uint32_t reader);

/* False when EXECUTORCH_KERNELS_NO_REWRITES is set (not to "0"): every
 * rewrite of this library leaves methods as exported (switch.c). */
bool _executorch_rewrites_enabled (void);
