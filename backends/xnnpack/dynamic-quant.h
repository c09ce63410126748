/* dynamic-quant.h: dynamically quantized linears (upstream's
 * XnnpackDynamicallyQuantizedPartitioner)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The partitioner emits XNNConvert (fp32 -> qdint8, per-token parameters
 * computed at run time) feeding XNNFullyConnected with constant qcint8,
 * qcint4 or qbint4 weights, an optional fp32 bias and an fp32 output.
 * Where the installed XNNPACK defines these values (xnnpack-features.h),
 * the delegate hands them to it; elsewhere the two nodes run here.
 */
#pragma once

#include <pthreadpool.h>

#include "backend-private.h"

/* TRUE when node @n reads or writes a value only the dynamic-quantization
 * path handles (qdint8, qcint4, qbint4, per-token or blockwise parameters). */
gboolean xb_dq_node_is_dynamic (const XbGraph *graph, const XbNode *n);

/* TRUE when the installed XNNPACK can define every such value of @graph;
 * otherwise @missing names the first thing it lacks ("blockwise int4
 * weights need xnn_define_blockwise_quantized_tensor_value").  The
 * environment variable EXECUTORCH_XNNPACK_OWN_DQ=1 makes it FALSE (the
 * delegate's own kernels then run, e.g. to compare them). */
gboolean xb_dq_library_supports (const XbGraph *graph, const char **missing);

/* TRUE when this library runs node @n itself: a per-token Convert from
 * fp32 to qdint8, or a FullyConnected from such a value.  Otherwise @why
 * says what it cannot take. */
gboolean xb_dq_host_supports (const XbGraph *graph, const XbNode *n, const char **why);

/* A qdint8 value in this library's memory: rows * row_length int8, then at
 * xb_dq_params_offset() one XbDqRowParams per row. */
typedef struct
{
  float scale; /* dequantization scale */
  int32_t zero_point;
} XbDqRowParams;

size_t xb_dq_params_offset (size_t numel);
/* Bytes of qdint8 value @value at shape @shape, its parameters included. */
size_t xb_dq_value_bytes (const XbValue *value, const XbShape *shape);

/* A FullyConnected's weights repacked for the kernels below, once. */
typedef struct XbDqLinear XbDqLinear;

XbDqLinear *xb_dq_linear_new (const XbGraph *graph, const XbNode *n, GError **error);
void xb_dq_linear_free (XbDqLinear *linear);

/* Runs host node @n (a Convert, or a FullyConnected with @linear) on
 * @pool (NULL: the calling thread). */
void xb_dq_run (const XbGraph *graph, const XbNode *n, const XbDqLinear *linear, const XbShape *shapes,
                void *const *ptr, struct pthreadpool *pool);

/* Quantizes one row as XNNPACK's f32 -> qd8 convert does: asymmetric, the
 * range widened to include 0, zero point nudged to an integer. */
XbDqRowParams xb_dq_quantize_row (const float *x, size_t n, int8_t *q);

/* ---- kernels ---- */

/* Instruction sets the kernels use, in the order they are preferred.  The
 * best one the CPU has runs, capped by the environment variable
 * EXECUTORCH_XNNPACK_DQ_KERNELS (portable, avx2, avxvnni or avx512vnni: to
 * compare them); EXECUTORCH_KERNELS_NO_SIMD=1 leaves only the portable one.
 * Every one gives the same results bit for bit: the integer dot products are
 * exact and the float operations happen in the same order on each. */
typedef enum
{
  XB_DQ_ISA_PORTABLE,
  XB_DQ_ISA_AVX2,       /* AVX2 + FMA */
  XB_DQ_ISA_AVXVNNI,    /* AVX2 + FMA + AVX-VNNI (256-bit vpdpbusd) */
  XB_DQ_ISA_AVX512VNNI, /* AVX2 + FMA + AVX-512 F/BW + AVX512-VNNI */
  XB_DQ_N_ISAS
} XbDqIsa;

/* TRUE when this CPU (and EXECUTORCH_KERNELS_NO_SIMD) lets @isa run. */
gboolean xb_dq_isa_available (XbDqIsa isa);
const char *xb_dq_isa_name (XbDqIsa isa);
/* The instruction set linears created now use. */
XbDqIsa xb_dq_isa_chosen (void);

/* The activations' quantization (xb_dq_quantize_row) on AVX2: the range
 * of @x widened to include @lo and @hi (NaN skipped), and @q from @x as the
 * portable loop computes it. */
void xb_dq_range_avx2 (const float *x, size_t n, float *lo, float *hi);
void xb_dq_quantize_avx2 (const float *x, size_t n, float scale, int32_t zero_point, int8_t *q);

/* 8-bit weights, one channel's row of @n int8 at @w, against 4 rows (dot1:
 * one row) of activations: dots[r] = sum x[r][i] * w[i], exactly.  AVX2
 * reads the activations widened to int16; the VNNI kernels read them as
 * x + 128 in uint8 (@xu) and return sum (x + 128) * w, modulo 2^32. */
void xb_dq_dot4_i8_avx2 (const int16_t *const x[4], const int8_t *w, size_t n, int32_t dots[4]);
void xb_dq_dot1_i8_avx2 (const int16_t *x, const int8_t *w, size_t n, int32_t *dot);
void xb_dq_dot_u8i8_avxvnni (const uint8_t *const xu[4], const int8_t *w, size_t n, uint32_t dots[4], int nr);
void xb_dq_dot_u8i8_avx512vnni (const uint8_t *const xu[4], const int8_t *w, size_t n, uint32_t dots[4], int nr);

/* 4-bit weights in tiles of XB_DQ_TILE channels: per block, per group of
 * 8 inputs, 64 bytes: byte 4 * j + i holds channel j's input i of the
 * group in its low and input 4 + i in its high nibble, as value + 8.
 * A tile kernel takes @nr rows (1..4) of activations @x (padded with zeros
 * to n_blocks * block_groups * 8) and @xsum8[r][b] = 8 * the sum of row
 * r's activations over block b, and gives for each row r and channel j
 *   out[r * XB_DQ_TILE + j] = the float a, starting from 0, after
 *   a = fmaf ((float) (dot_b - xsum8[r][b]), scales[b * XB_DQ_TILE + j], a)
 * for each block b in order, dot_b the int32 sum over the block of the
 * nibbles (value + 8) times the activations, the @scales in bfloat16 (the
 * bits of the float's upper half: blockwise weights' scales are exactly
 * that; per-channel weights have 1 here and their scale applied after). */
#define XB_DQ_TILE 16
/* A tile's outputs for one row, from the tile kernel's @acc: for each
 * channel j < @nc, separately rounded operations (no FMA),
 *   v = (acc[j] * cscales[j] - zp * sums[j]) * xscale + (bias ? bias[j] : 0)
 *   y[j] = v < lo ? lo : v > hi ? hi : v
 * the zero point's share (@sums: each channel's scale times weight sum)
 * taken back out; the AVX2 version gives the same bits. */
void xb_dq_epilogue_avx2 (const float *acc, size_t nc, const float *cscales, const float *sums, float zp, float xscale,
                          const float *bias, float lo, float hi, float *y);
/* fmaf (a, b, c), correctly rounded (to nearest), without a libm call on
 * x86-64: the portable tile kernel's. */
float xb_dq_fmaf (float a, float b, float c);
typedef void (*XbDqTile4Kernel) (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                                 const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr);
void xb_dq_tile4_portable (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                           const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr);
void xb_dq_tile4_avx2 (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                       const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr);
void xb_dq_tile4_avxvnni (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                          const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr);
void xb_dq_tile4_avx512vnni (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                             const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr);

#ifdef XB_DQ_DEFINE_XNN
#include <xnnpack.h>
/* Defines value @value (at shape @shape) in @subgraph when it is one of the
 * dynamic-quantization kinds (*handled = TRUE); the delegate's own
 * definition otherwise. */
enum xnn_status xb_dq_define_value (xnn_subgraph_t subgraph, const XbValue *value, const XbShape *shape,
                                    uint32_t external_id, uint32_t flags, uint32_t *id, gboolean *handled);
#endif
