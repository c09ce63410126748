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

/* ---- kernels (dynamic-quant-avx2.c) ---- */

/* Four rows @x[r] (dot1: one row) of int8 values widened to int16 against
 * one channel: dots[r] = sum x[r][i] * w[i] over @n pairs. */
void xb_dq_dot4_i8_avx2 (const int16_t *const x[4], const int8_t *w, size_t n, int32_t dots[4]);
void xb_dq_dot1_i8_avx2 (const int16_t *x, const int8_t *w, size_t n, int32_t *dot);
/* Four rows (dot1: one row) against one channel's 4-bit weights, stored in
 * pairs of 32-element chunks (32 bytes: byte j holds element j in its low
 * and element 32 + j in its high nibble, as value + 8): out[r] = sum over
 * the @n_chunks chunks of scales[chunk / block_chunks] * (the chunk's int32
 * dot product), the weights' + 8 taken back out with @xsums[r] (the sums of
 * x over each of the @n_blocks blocks' chunks). */
void xb_dq_dot4_i4_avx2 (const int8_t *const x[4], const uint8_t *w, size_t n_chunks, size_t block_chunks,
                         const float *scales, const float *const xsums[4], size_t n_blocks, float out[4]);
void xb_dq_dot1_i4_avx2 (const int8_t *x, const uint8_t *w, size_t n_chunks, size_t block_chunks, const float *scales,
                         const float *xsums, size_t n_blocks, float *out);

#ifdef XB_DQ_DEFINE_XNN
#include <xnnpack.h>
/* Defines value @value (at shape @shape) in @subgraph when it is one of the
 * dynamic-quantization kinds (*handled = TRUE); the delegate's own
 * definition otherwise. */
enum xnn_status xb_dq_define_value (xnn_subgraph_t subgraph, const XbValue *value, const XbShape *shape,
                                    uint32_t external_id, uint32_t flags, uint32_t *id, gboolean *handled);
#endif
