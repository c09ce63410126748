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

/* An addmm followed by relu, hardtanh, clamp, gelu or a residual add runs
 * that operator on each tile of its result (linear-fusion.c); runs after
 * the packing above. */
extern const EtMethodRewrite _executorch_linear_fusion_rewrite;

/* A convolution followed by batch norm, residual add and/or activation
 * becomes one fused instruction (conv-fusion.c). */
extern const EtMethodRewrite _executorch_conv_fusion_rewrite;

/* What a fused-away instruction calls: nothing (conv-fusion.c). */
EtError _executorch_conv_folded_op (EtKernelContext *context, EtValue **args, uint32_t n_args);

/* Run by the convolution fusion after it: two consecutive independent
 * GEMM convolutions become one instruction (conv-pair.c). */
void _executorch_conv_pair_fuse (EtMethodGraph *graph);

/* A convolution conv-fusion.c fuses, as channels-last.c weighs it. */
typedef struct
{
  uint32_t conv;                            /* its instruction */
  int64_t fused_away[3];                    /* the instructions fused into it, or -1 */
  const EtValue *input, *out, *residual;    /* out: the fused output; residual: or NULL */
  bool capable;                             /* a kernel reads and writes it channels-last on this CPU */
  bool depthwise;                           /* its input and output only alike */
  bool exit_pays;                           /* it may read channels-last and write NCHW (the rows path pays) */
  bool in_channels_last, out_channels_last; /* the choice */
} ChainConv;

/* The index in @convs of the convolution whose fused output is @value,
 * or of the one at instruction @index; -1 for none (channels-last.c). */
int64_t _executorch_chain_conv_producing (const ChainConv *convs, uint32_t n, const EtValue *value);
int64_t _executorch_chain_conv_at (const ChainConv *convs, uint32_t n, uint32_t index);

/* Chooses the layout of each fused output of @convs (channels-last.c)
 * and makes those so channels-last. */
void _executorch_channels_last_choose (EtMethodGraph *graph, ChainConv *convs, uint32_t n);

/* Run by the convolution fusion after it: a channel cat of one batch
 * whose inputs are all fused outputs of @convs, read by it alone, has
 * them written in place as blocks of its out and does nothing
 * (cat-in-place.c). */
void _executorch_cat_in_place (EtMethodGraph *graph, const ChainConv *convs, uint32_t n);

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

/* Every kernel table of this library, as plugin.c registers them. */
typedef struct
{
  const EtKernel *kernels;
  const size_t *n_kernels;
} KernelTable;
extern const KernelTable _executorch_kernel_tables[];
extern const size_t _executorch_n_kernel_tables;

/* match.c: @value's tensor, or NULL. */
EtTensor *_executorch_rewrite_tensor (const EtValue *value);
/* Whether instruction @index calls this library's own kernel @name. */
bool _executorch_rewrite_calls_own (EtMethodGraph *graph, uint32_t index, const char *name);
/* A float32 CPU tensor of static shape, contiguous in its sizes' order. */
bool _executorch_rewrite_is_plain_f32 (const EtTensor *t);
/* An Int or Double scalar as a float (NaN included). */
bool _executorch_rewrite_scalar_f32 (const EtValue *value, float *out);
/* A kernel named @name that does nothing, for an instruction a fusion
 * absorbed (batch norm, add, relu, hardtanh, clamp, gelu), or NULL. */
const EtKernel *_executorch_rewrite_nothing (const char *name);

/* False when EXECUTORCH_KERNELS_NO_REWRITES is set (not to "0"): every
 * rewrite of this library leaves methods as exported (switch.c). */
bool _executorch_rewrites_enabled (void);
