/* host-nodes.c: the nodes Debian's XNNPACK (2022) lacks, run by this library
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

#include "executorch-plugin.h"
#include "backend-private.h"

static size_t
numel (const XbShape *s)
{
  size_t n = 1;
  for (uint32_t d = 0; d < s->ndim; d++)
    n *= s->dims[d];
  return n;
}

static gboolean
is_fp32 (const XbGraph *g, uint32_t v)
{
  return g->values[v].datatype == XB_DT_FP32;
}

gboolean
xb_host_supports (const XbGraph *g, const XbNode *n, const char **why)
{
  *why = NULL;
  switch (n->type)
    {
      case XB_NODE_STATIC_TRANSPOSE:
      case XB_NODE_STATIC_SLICE:
      case XB_NODE_COPY:
      case XB_NODE_CONCATENATE2:
      case XB_NODE_CONCATENATE3:
      case XB_NODE_CONCATENATE4:
      case XB_NODE_CONCATENATE5:
        {
          size_t es = xb_datatype_size (g->values[n->outputs[0]].datatype);
          for (uint32_t i = 0; i < n->n_inputs; i++)
            if (xb_datatype_size (g->values[n->inputs[i]].datatype) != es)
              es = 0;
          if (es == 0)
            {
              *why = "mixed or packed datatypes";
              return FALSE;
            }
          /* Data movement only: quantized values must share their parameters. */
          const XbValue *o = &g->values[n->outputs[0]];
          for (uint32_t i = 0; i < n->n_inputs; i++)
            {
              const XbValue *x = &g->values[n->inputs[i]];
              if (x->datatype != o->datatype || x->quant != o->quant ||
                  (o->quant == XB_QUANT_PER_TENSOR && (x->scale != o->scale || x->zero_point != o->zero_point)) ||
                  (o->quant != XB_QUANT_NONE && o->quant != XB_QUANT_PER_TENSOR))
                {
                  *why = "input and output differ in datatype or quantization (a requantizing copy)";
                  return FALSE;
                }
            }
          return TRUE;
        }
      case XB_NODE_BATCH_MATRIX_MULTIPLY:
      case XB_NODE_TANH:
      case XB_NODE_EXP:
      case XB_NODE_LOG:
      case XB_NODE_GELU:
      case XB_NODE_SIN:
      case XB_NODE_COS:
      case XB_NODE_RSQRT:
        for (uint32_t i = 0; i < n->n_inputs; i++)
          if (!is_fp32 (g, n->inputs[i]))
            {
              *why = "only fp32 is supported";
              return FALSE;
            }
        if (!is_fp32 (g, n->outputs[0]))
          {
            *why = "only fp32 is supported";
            return FALSE;
          }
        return TRUE;
      case XB_NODE_FULLY_CONNECTED:
        {
          /* The 2022 XNNPACK has no fully-connected with per-channel weights. */
          const XbValue *w = &g->values[n->inputs[1]];
          if (w->datatype != XB_DT_QCINT8)
            return FALSE;
          const XbValue *x = &g->values[n->inputs[0]], *y = &g->values[n->outputs[0]];
          const XbValue *b = n->inputs[2] == XB_PAYLOAD_NO_VALUE ? NULL : &g->values[n->inputs[2]];
          if (x->datatype != XB_DT_QINT8 || y->datatype != XB_DT_QINT8 || x->quant != XB_QUANT_PER_TENSOR ||
              y->quant != XB_QUANT_PER_TENSOR || w->quant != XB_QUANT_PER_CHANNEL || w->channel_dim != 0 ||
              (n->flags & 1) || (b && b->datatype != XB_DT_QCINT32 && b->datatype != XB_DT_QINT32))
            {
              *why = "per-channel int8 weights need qint8 input and output, [out, in] weights and an int32 bias";
              return FALSE;
            }
          return TRUE;
        }
      default: return FALSE;
    }
}

static int8_t
quantize_bound (float v, float scale, int32_t zp)
{
  if (v == -INFINITY || v < (-128 - zp) * scale)
    return -128;
  if (v == INFINITY || v > (127 - zp) * scale)
    return 127;
  long q = lrintf (v / scale) + zp;
  return (int8_t) (q < -128 ? -128 : q > 127 ? 127 : q);
}

/* int8 fully-connected with per-channel weights, requantized like XNNPACK's
 * qs8-qc8w kernels: int32 accumulation, one float scale per channel, round
 * to nearest even, clamp. */
static void
fc_qc8 (const XbGraph *g, const XbNode *n, const XbShape *shapes, void *const *ptr)
{
  const XbValue *x = &g->values[n->inputs[0]], *w = &g->values[n->inputs[1]];
  const XbValue *y = &g->values[n->outputs[0]];
  const XbShape *ws = &shapes[n->inputs[1]], *ys = &shapes[n->outputs[0]];
  size_t oc = ws->dims[0], k = ws->dims[1];
  size_t rows = oc ? numel (ys) / oc : 0;
  const int8_t *in = ptr[n->inputs[0]], *wt = ptr[n->inputs[1]];
  const int32_t *bias = n->inputs[2] == XB_PAYLOAD_NO_VALUE ? NULL : ptr[n->inputs[2]];
  int8_t *out = ptr[n->outputs[0]];
  int8_t lo = quantize_bound (n->output_min, y->scale, y->zero_point);
  int8_t hi = quantize_bound (n->output_max, y->scale, y->zero_point);
  for (size_t c = 0; c < oc; c++)
    {
      const int8_t *wr = wt + c * k;
      int32_t wsum = 0;
      for (size_t p = 0; p < k; p++)
        wsum += wr[p];
      float scale = x->scale * w->scales[c] / y->scale;
      for (size_t r = 0; r < rows; r++)
        {
          const int8_t *xr = in + r * k;
          int32_t acc = bias ? bias[c] : 0;
          for (size_t p = 0; p < k; p++)
            acc += (int32_t) xr[p] * wr[p];
          acc -= x->zero_point * wsum;
          float v = (float) acc * scale;
          float vmin = (float) (lo - y->zero_point), vmax = (float) (hi - y->zero_point);
          v = v < vmin ? vmin : v > vmax ? vmax : v;
          out[r * oc + c] = (int8_t) (lrintf (v) + y->zero_point);
        }
    }
}

static void
transpose (const XbNode *n, const XbShape *is, const void *src, void *dst, size_t es)
{
  uint32_t r = is->ndim;
  size_t in_strides[XB_PAYLOAD_MAX_DIMS], out_dims[XB_PAYLOAD_MAX_DIMS], st[XB_PAYLOAD_MAX_DIMS];
  size_t idx[XB_PAYLOAD_MAX_DIMS] = { 0 };
  size_t s = 1;
  for (int d = (int) r - 1; d >= 0; d--)
    {
      in_strides[d] = s;
      s *= is->dims[d];
    }
  size_t total = s;
  for (uint32_t d = 0; d < r; d++)
    {
      out_dims[d] = is->dims[n->list_a[d]];
      st[d] = in_strides[n->list_a[d]];
    }
  if (total == 0)
    return;
  const uint8_t *in = src;
  uint8_t *out = dst;
  size_t inner = out_dims[r - 1], inner_stride = st[r - 1];
  for (size_t o = 0; o < total; o += inner)
    {
      size_t off = 0;
      for (uint32_t d = 0; d + 1 < r; d++)
        off += idx[d] * st[d];
      if (es == 4)
        {
          const uint32_t *ip = (const uint32_t *) (const void *) in;
          uint32_t *op = (uint32_t *) (void *) out + o;
          for (size_t i = 0; i < inner; i++)
            op[i] = ip[off + i * inner_stride];
        }
      else
        {
          for (size_t i = 0; i < inner; i++)
            memcpy (out + (o + i) * es, in + (off + i * inner_stride) * es, es);
        }
      for (int d = (int) r - 2; d >= 0; d--)
        {
          if (++idx[d] < out_dims[d])
            break;
          idx[d] = 0;
        }
    }
}

static void
slice (const XbNode *n, const XbShape *is, const XbShape *os, const void *src, void *dst, size_t es)
{
  uint32_t r = is->ndim;
  size_t total = numel (os);
  if (total == 0)
    return;
  size_t in_strides[XB_PAYLOAD_MAX_DIMS], idx[XB_PAYLOAD_MAX_DIMS] = { 0 }, s = 1;
  for (int d = (int) r - 1; d >= 0; d--)
    {
      in_strides[d] = s;
      s *= is->dims[d];
    }
  size_t inner = os->dims[r - 1];
  const uint8_t *in = src;
  uint8_t *out = dst;
  for (size_t o = 0; o < total; o += inner)
    {
      size_t off = 0;
      for (uint32_t d = 0; d < r; d++)
        off += (idx[d] + n->list_a[d]) * in_strides[d];
      memcpy (out + o * es, in + off * es, inner * es);
      for (int d = (int) r - 2; d >= 0; d--)
        {
          if (++idx[d] < os->dims[d])
            break;
          idx[d] = 0;
        }
    }
}

static void
concat (const XbNode *n, const XbShape *shapes, void *const *ptr, size_t es)
{
  const XbShape *os = &shapes[n->outputs[0]];
  uint32_t axis = n->p[0];
  size_t outer = 1, inner = es;
  for (uint32_t d = 0; d < axis; d++)
    outer *= os->dims[d];
  for (uint32_t d = axis + 1; d < os->ndim; d++)
    inner *= os->dims[d];
  uint8_t *out = ptr[n->outputs[0]];
  size_t row = os->dims[axis] * inner, at = 0;
  for (uint32_t i = 0; i < n->n_inputs; i++)
    {
      size_t chunk = shapes[n->inputs[i]].dims[axis] * inner;
      const uint8_t *src = ptr[n->inputs[i]];
      for (size_t o = 0; o < outer; o++)
        memcpy (out + o * row + at, src + o * chunk, chunk);
      at += chunk;
    }
}

static void
plain_tensor (EtTensor *t, EtValue *v, float *data, int64_t d0, int64_t d1, int64_t d2)
{
  memset (t, 0, sizeof *t);
  t->data = data;
  t->ndim = 3;
  t->sizes[0] = d0;
  t->sizes[1] = d1;
  t->sizes[2] = d2;
  for (int i = 0; i < 3; i++)
    t->dim_order[i] = (uint8_t) i;
  et_strides_from_dim_order (3, t->sizes, t->dim_order, t->strides);
  t->scalar_type = ET_SCALAR_FLOAT;
  t->numel = d0 * d1 * d2;
  t->nbytes = t->capacity = (size_t) t->numel * sizeof (float);
  v->tag = ET_VALUE_TENSOR;
  v->u.tensor = t;
}

/* aten::bmm.out of the CPU kernel library (libexecutorch-kernels: blocked,
 * vectorised, on the shared pool), when it is registered. */
static gboolean
bmm_with_kernel (size_t batch, size_t m, size_t k, size_t nn, const float *a, const float *b, float *out)
{
  static const EtKernel *kernel;
  static gsize looked_up;
  if (g_once_init_enter (&looked_up))
    {
      kernel = et_registry_find_kernel (et_registry_get_default (), "aten::bmm.out");
      g_once_init_leave (&looked_up, 1);
    }
  if (kernel == NULL)
    return FALSE;
  EtTensor ta, tb, to;
  EtValue va, vb, vo;
  plain_tensor (&ta, &va, (float *) a, (int64_t) batch, (int64_t) m, (int64_t) k);
  plain_tensor (&tb, &vb, (float *) b, (int64_t) batch, (int64_t) k, (int64_t) nn);
  plain_tensor (&to, &vo, out, (int64_t) batch, (int64_t) m, (int64_t) nn);
  EtValue *args[] = { &va, &vb, &vo, &vo };
  return et_kernel_call (kernel, args, 4, NULL) == ET_OK;
}

static void
bmm (const XbNode *n, const XbShape *as, const XbShape *bs, const float *a, const float *b, float *out)
{
  uint32_t r = as->ndim;
  size_t batch = 1;
  for (uint32_t d = 0; d + 2 < r; d++)
    batch *= as->dims[d];
  size_t m = as->dims[r - 2], k = as->dims[r - 1];
  gboolean tb = (n->flags & 1) != 0;
  size_t nn = tb ? bs->dims[r - 2] : bs->dims[r - 1];
  if (!tb && batch * m * k * nn > 4096 && bmm_with_kernel (batch, m, k, nn, a, b, out))
    return;
  for (size_t bi = 0; bi < batch; bi++)
    {
      const float *A = a + bi * m * k, *B = b + bi * k * nn;
      float *C = out + bi * m * nn;
      for (size_t i = 0; i < m; i++)
        {
          float *c = C + i * nn;
          memset (c, 0, nn * sizeof *c);
          if (tb)
            {
              for (size_t j = 0; j < nn; j++)
                {
                  float acc = 0.0f;
                  for (size_t p = 0; p < k; p++)
                    acc += A[i * k + p] * B[j * k + p];
                  c[j] = acc;
                }
            }
          else
            {
              for (size_t p = 0; p < k; p++)
                {
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
xb_host_run (const XbGraph *g, const XbNode *n, const XbShape *shapes, void *const *ptr)
{
  const XbShape *is = &shapes[n->inputs[0]], *os = &shapes[n->outputs[0]];
  void *dst = ptr[n->outputs[0]];
  const void *src = ptr[n->inputs[0]];
  size_t es = xb_datatype_size (g->values[n->outputs[0]].datatype);
  size_t count = numel (os);
  const float *x = src;
  float *y = dst;
  float lo = n->output_min, hi = n->output_max;

  switch (n->type)
    {
      case XB_NODE_STATIC_TRANSPOSE: transpose (n, is, src, dst, es); return;
      case XB_NODE_STATIC_SLICE: slice (n, is, os, src, dst, es); return;
      case XB_NODE_COPY: memmove (dst, src, count * es); return;
      case XB_NODE_CONCATENATE2:
      case XB_NODE_CONCATENATE3:
      case XB_NODE_CONCATENATE4:
      case XB_NODE_CONCATENATE5: concat (n, shapes, ptr, es); return;
      case XB_NODE_BATCH_MATRIX_MULTIPLY: bmm (n, is, &shapes[n->inputs[1]], src, ptr[n->inputs[1]], dst); return;
      case XB_NODE_FULLY_CONNECTED: fc_qc8 (g, n, shapes, ptr); return;
      default: break;
    }
  for (size_t i = 0; i < count; i++)
    {
      float v = x[i];
      switch (n->type)
        {
          case XB_NODE_TANH: v = tanhf (v); break;
          case XB_NODE_EXP: v = expf (v); break;
          case XB_NODE_LOG: v = logf (v); break;
          case XB_NODE_SIN: v = sinf (v); break;
          case XB_NODE_COS: v = cosf (v); break;
          case XB_NODE_RSQRT: v = 1.0f / sqrtf (v); break;
          case XB_NODE_GELU: v = 0.5f * v * (1.0f + erff (v * (float) M_SQRT1_2)); break;
          default: break;
        }
      y[i] = v < lo ? lo : v > hi ? hi : v;
    }
}
