/* xnn-host.c: the nodes Debian's XNNPACK (2022) lacks, run by this library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Upstream's partitioner emits transposes around every NCHW convolution,
 * concatenations, slices, batch matrix multiplies and some unary ops that
 * the 2022 XNNPACK subgraph API cannot define.  They are plain data movement
 * or simple fp32 math, so they run here between XNNPACK runtimes.
 */
#include <math.h>
#include <string.h>

#include "xnn-private.h"

static size_t
numel (const XnnShape *s)
{
  size_t n = 1;
  for (uint32_t d = 0; d < s->ndim; d++)
    n *= s->dims[d];
  return n;
}

static gboolean
is_fp32 (const XnnGraph *g, uint32_t v)
{
  return g->values[v].datatype == XNN_DT_FP32;
}

gboolean
xnn_host_supports (const XnnGraph *g, const XnnNode *n, const char **why)
{
  *why = NULL;
  switch (n->type) {
  case XNN_NODE_STATIC_TRANSPOSE: case XNN_NODE_STATIC_SLICE: case XNN_NODE_COPY:
  case XNN_NODE_CONCATENATE2: case XNN_NODE_CONCATENATE3: case XNN_NODE_CONCATENATE4:
  case XNN_NODE_CONCATENATE5: {
    size_t es = xnn_datatype_size (g->values[n->outputs[0]].datatype);
    for (uint32_t i = 0; i < n->n_inputs; i++)
      if (xnn_datatype_size (g->values[n->inputs[i]].datatype) != es)
        es = 0;
    if (es == 0) {
      *why = "mixed or packed datatypes";
      return FALSE;
    }
    return TRUE;
  }
  case XNN_NODE_BATCH_MATRIX_MULTIPLY: case XNN_NODE_TANH: case XNN_NODE_EXP: case XNN_NODE_LOG:
  case XNN_NODE_GELU: case XNN_NODE_SIN: case XNN_NODE_COS: case XNN_NODE_RSQRT:
    for (uint32_t i = 0; i < n->n_inputs; i++)
      if (!is_fp32 (g, n->inputs[i])) {
        *why = "only fp32 is supported";
        return FALSE;
      }
    if (!is_fp32 (g, n->outputs[0])) {
      *why = "only fp32 is supported";
      return FALSE;
    }
    return TRUE;
  default:
    return FALSE;
  }
}

static void
transpose (const XnnNode *n, const XnnShape *is, const void *src, void *dst, size_t es)
{
  uint32_t r = is->ndim;
  size_t in_strides[XNN_PAYLOAD_MAX_DIMS], out_dims[XNN_PAYLOAD_MAX_DIMS], st[XNN_PAYLOAD_MAX_DIMS];
  size_t idx[XNN_PAYLOAD_MAX_DIMS] = { 0 };
  size_t s = 1;
  for (int d = (int) r - 1; d >= 0; d--) {
    in_strides[d] = s;
    s *= is->dims[d];
  }
  size_t total = s;
  for (uint32_t d = 0; d < r; d++) {
    out_dims[d] = is->dims[n->list_a[d]];
    st[d] = in_strides[n->list_a[d]];
  }
  if (total == 0)
    return;
  const uint8_t *in = src;
  uint8_t *out = dst;
  size_t inner = out_dims[r - 1], inner_stride = st[r - 1];
  for (size_t o = 0; o < total; o += inner) {
    size_t off = 0;
    for (uint32_t d = 0; d + 1 < r; d++)
      off += idx[d] * st[d];
    if (es == 4) {
      const uint32_t *ip = (const uint32_t *) (const void *) in;
      uint32_t *op = (uint32_t *) (void *) out + o;
      for (size_t i = 0; i < inner; i++)
        op[i] = ip[off + i * inner_stride];
    } else {
      for (size_t i = 0; i < inner; i++)
        memcpy (out + (o + i) * es, in + (off + i * inner_stride) * es, es);
    }
    for (int d = (int) r - 2; d >= 0; d--) {
      if (++idx[d] < out_dims[d])
        break;
      idx[d] = 0;
    }
  }
}

static void
slice (const XnnNode *n, const XnnShape *is, const XnnShape *os, const void *src, void *dst,
       size_t es)
{
  uint32_t r = is->ndim;
  size_t total = numel (os);
  if (total == 0)
    return;
  size_t in_strides[XNN_PAYLOAD_MAX_DIMS], idx[XNN_PAYLOAD_MAX_DIMS] = { 0 }, s = 1;
  for (int d = (int) r - 1; d >= 0; d--) {
    in_strides[d] = s;
    s *= is->dims[d];
  }
  size_t inner = os->dims[r - 1];
  const uint8_t *in = src;
  uint8_t *out = dst;
  for (size_t o = 0; o < total; o += inner) {
    size_t off = 0;
    for (uint32_t d = 0; d < r; d++)
      off += (idx[d] + n->list_a[d]) * in_strides[d];
    memcpy (out + o * es, in + off * es, inner * es);
    for (int d = (int) r - 2; d >= 0; d--) {
      if (++idx[d] < os->dims[d])
        break;
      idx[d] = 0;
    }
  }
}

static void
concat (const XnnNode *n, const XnnShape *shapes, void *const *ptr, size_t es)
{
  const XnnShape *os = &shapes[n->outputs[0]];
  uint32_t axis = n->p[0];
  size_t outer = 1, inner = es;
  for (uint32_t d = 0; d < axis; d++)
    outer *= os->dims[d];
  for (uint32_t d = axis + 1; d < os->ndim; d++)
    inner *= os->dims[d];
  uint8_t *out = ptr[n->outputs[0]];
  size_t row = os->dims[axis] * inner, at = 0;
  for (uint32_t i = 0; i < n->n_inputs; i++) {
    size_t chunk = shapes[n->inputs[i]].dims[axis] * inner;
    const uint8_t *src = ptr[n->inputs[i]];
    for (size_t o = 0; o < outer; o++)
      memcpy (out + o * row + at, src + o * chunk, chunk);
    at += chunk;
  }
}

static void
bmm (const XnnNode *n, const XnnShape *as, const XnnShape *bs, const float *a, const float *b,
     float *out)
{
  uint32_t r = as->ndim;
  size_t batch = 1;
  for (uint32_t d = 0; d + 2 < r; d++)
    batch *= as->dims[d];
  size_t m = as->dims[r - 2], k = as->dims[r - 1];
  gboolean tb = (n->flags & 1) != 0;
  size_t nn = tb ? bs->dims[r - 2] : bs->dims[r - 1];
  for (size_t bi = 0; bi < batch; bi++) {
    const float *A = a + bi * m * k, *B = b + bi * k * nn;
    float *C = out + bi * m * nn;
    for (size_t i = 0; i < m; i++) {
      float *c = C + i * nn;
      memset (c, 0, nn * sizeof *c);
      if (tb) {
        for (size_t j = 0; j < nn; j++) {
          float acc = 0.0f;
          for (size_t p = 0; p < k; p++)
            acc += A[i * k + p] * B[j * k + p];
          c[j] = acc;
        }
      } else {
        for (size_t p = 0; p < k; p++) {
          float av = A[i * k + p];
          const float *brow = B + p * nn;
          for (size_t j = 0; j < nn; j++)
            c[j] += av * brow[j];
        }
      }
    }
  }
}

void
xnn_host_run (const XnnGraph *g, const XnnNode *n, const XnnShape *shapes, void *const *ptr)
{
  const XnnShape *is = &shapes[n->inputs[0]], *os = &shapes[n->outputs[0]];
  void *dst = ptr[n->outputs[0]];
  const void *src = ptr[n->inputs[0]];
  size_t es = xnn_datatype_size (g->values[n->outputs[0]].datatype);
  size_t count = numel (os);
  const float *x = src;
  float *y = dst;
  float lo = n->output_min, hi = n->output_max;

  switch (n->type) {
  case XNN_NODE_STATIC_TRANSPOSE:
    transpose (n, is, src, dst, es);
    return;
  case XNN_NODE_STATIC_SLICE:
    slice (n, is, os, src, dst, es);
    return;
  case XNN_NODE_COPY:
    memmove (dst, src, count * es);
    return;
  case XNN_NODE_CONCATENATE2: case XNN_NODE_CONCATENATE3: case XNN_NODE_CONCATENATE4:
  case XNN_NODE_CONCATENATE5:
    concat (n, shapes, ptr, es);
    return;
  case XNN_NODE_BATCH_MATRIX_MULTIPLY:
    bmm (n, is, &shapes[n->inputs[1]], src, ptr[n->inputs[1]], dst);
    return;
  default:
    break;
  }
  for (size_t i = 0; i < count; i++) {
    float v = x[i];
    switch (n->type) {
    case XNN_NODE_TANH: v = tanhf (v); break;
    case XNN_NODE_EXP: v = expf (v); break;
    case XNN_NODE_LOG: v = logf (v); break;
    case XNN_NODE_SIN: v = sinf (v); break;
    case XNN_NODE_COS: v = cosf (v); break;
    case XNN_NODE_RSQRT: v = 1.0f / sqrtf (v); break;
    case XNN_NODE_GELU: v = 0.5f * v * (1.0f + erff (v * (float) M_SQRT1_2)); break;
    default: break;
    }
    y[i] = v < lo ? lo : v > hi ? hi : v;
  }
}
