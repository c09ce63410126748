/* shape-inference.c: output shapes of XNNPACK nodes, checked
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Debian's XNNPACK sizes each operator's output from the value's declared
 * dims and trusts the caller that they agree with the inputs and the node's
 * parameters.  The payload is untrusted, so every node's output shape is
 * computed here and the graph is refused when the declared one differs; the
 * same code gives the new shapes when an input's shape changes.
 */
#include "executorch-plugin.h"

#include "backend-private.h"

#define XB_FLAG_SAME_PADDING 0x4u
#define XB_FLAG_TRANSPOSE 0x1u
#define XB_FLAG_RESHAPE_2D 0x4u
#define XB_FLAG_KEEP_DIMS 0x40u

typedef struct
{
  const XbGraph *graph;
  uint32_t index;
  const XbNode *node;
  GError **error;
} Ctx;

static gboolean bad (Ctx *c, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
bad (Ctx *c, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (c->error, XB_ERROR, ET_ERROR_INVALID_PROGRAM, "XNNPACK payload: node %u (%s): %s", c->index,
               xb_node_type_name (c->node->type), msg);
  return FALSE;
}

static gboolean
nhwc (Ctx *c, const XbShape *s, const char *what)
{
  if (s->ndim != 4)
    return bad (c, "%s has %u dims, expected 4 (NHWC)", what, s->ndim);
  return TRUE;
}

/* One spatial output size; FALSE when the window does not fit. */
static gboolean
window (Ctx *c, size_t in, uint32_t pad0, uint32_t pad1, uint32_t kernel, uint32_t stride, uint32_t dilation,
        gboolean same, size_t *out)
{
  if (kernel == 0 || stride == 0 || dilation == 0 || kernel > 1u << 16 || dilation > 1u << 16)
    return bad (c, "kernel %u, stride %u, dilation %u", kernel, stride, dilation);
  if (same)
    {
      if (pad0 || pad1)
        return bad (c, "explicit padding with SAME padding");
      *out = (in + stride - 1) / stride;
      return TRUE;
    }
  uint64_t padded = (uint64_t) in + pad0 + pad1;
  uint64_t eff = (uint64_t) (kernel - 1) * dilation + 1;
  if (padded < eff)
    return bad (c, "window %llu larger than the padded input %llu", (unsigned long long) eff,
                (unsigned long long) padded);
  *out = (size_t) ((padded - eff) / stride + 1);
  return TRUE;
}

/* Whether a window whose first tap is at @first (negative: in the padding)
 * has a tap on one of the @in input elements. */
static gboolean
window_hits_input (int64_t first, uint32_t kernel, uint32_t dilation, size_t in)
{
  if (first >= 0)
    return (uint64_t) first < in;
  uint64_t k = ((uint64_t) -first + dilation - 1) / dilation; /* the first tap at or after 0 */
  return k < kernel && (uint64_t) (first + (int64_t) (k * dilation)) < in;
}

/* Whether every pooling window along one axis (@out of them, from
 * window()) holds at least one input element.  Debian's 2022 XNNPACK reads
 * outside the input for a max pooling window that lies wholly in the
 * padding (found by fuzz-xnnpack: tests/fuzz/regressions/xnnpack), and
 * such a window has no value to pool anyway.  PyTorch's own limit (padding
 * at most half the kernel) keeps exported graphs clear of it. */
static gboolean
windows_see_input (Ctx *c, size_t in, uint32_t pad_before, uint32_t kernel, uint32_t stride, uint32_t dilation,
                   gboolean same, size_t out)
{
  uint64_t eff = (uint64_t) (kernel - 1) * dilation + 1;
  if (out == 0)
    return TRUE;
  if (same)
    {
      /* XNNPACK pads SAME windows by the total below, top/left getting the
     * smaller half. */
      uint64_t need = (uint64_t) (out - 1) * stride + eff;
      pad_before = need > in ? (uint32_t) ((need - in) / 2) : 0;
    }
  /* With taps no further apart than the input is long, a window misses the
   * input only when it ends before it or starts after it: the first and the
   * last window say.  Otherwise every window is looked at (bounded). */
  gboolean gapless = dilation <= in;
  if (!gapless && out > (1u << 20))
    return bad (c, "dilation %u over an input of %zu with %zu outputs", dilation, in, out);
  for (size_t o = 0; o < out; o = (gapless && o == 0) ? MAX (out - 1, 1) : o + 1)
    {
      int64_t first = (int64_t) o * stride - pad_before;
      if (!window_hits_input (first, kernel, dilation, in))
        return bad (c,
                    "pooling window %zu (from %lld, %llu wide) lies wholly in the padding of an "
                    "input of %zu",
                    o, (long long) first, (unsigned long long) eff, in);
    }
  return TRUE;
}

static const XbShape *
in (const XbShape *shapes, const XbNode *n, unsigned i)
{
  return n->inputs[i] == XB_PAYLOAD_NO_VALUE ? NULL : &shapes[n->inputs[i]];
}

static gboolean
check_bias (Ctx *c, const XbShape *bias, size_t channels)
{
  if (bias && (bias->ndim != 1 || bias->dims[0] != channels))
    return bad (c, "bias is not [%zu]", channels);
  return TRUE;
}

gboolean
xb_shape_infer_node (const XbGraph *graph, uint32_t index, XbShape *shapes, GError **error)
{
  const XbNode *n = &graph->nodes[index];
  Ctx c = { graph, index, n, error };
  XbShape out = { 0 };
  const XbShape *a = in (shapes, n, 0);

  switch (n->type)
    {
      case XB_NODE_ADD:
      case XB_NODE_DIV:
      case XB_NODE_MINIMUM:
      case XB_NODE_MULTIPLY:
      case XB_NODE_SUBTRACT:
      case XB_NODE_MAXIMUM:
        {
          const XbShape *b = in (shapes, n, 1);
          out.ndim = MAX (a->ndim, b->ndim);
          for (uint32_t d = 0; d < out.ndim; d++)
            {
              size_t da = d + a->ndim >= out.ndim ? a->dims[d + a->ndim - out.ndim] : 1;
              size_t db = d + b->ndim >= out.ndim ? b->dims[d + b->ndim - out.ndim] : 1;
              if (da != db && da != 1 && db != 1)
                return bad (&c, "inputs do not broadcast (dim %u: %zu vs %zu)", d, da, db);
              out.dims[d] = da == 1 ? db : da;
            }
          break;
        }
      case XB_NODE_PRELU:
        {
          const XbShape *slope = in (shapes, n, 1);
          if (a->ndim < 1 || slope->ndim != 1 || slope->dims[0] != a->dims[a->ndim - 1])
            return bad (&c, "slope is not one value per channel");
          out = *a;
          break;
        }
      case XB_NODE_FULLY_CONNECTED:
        {
          const XbShape *w = in (shapes, n, 1), *bias = in (shapes, n, 2);
          if (n->flags & ~(XB_FLAG_TRANSPOSE | XB_FLAG_RESHAPE_2D))
            return bad (&c, "flags 0x%x", n->flags);
          if (w->ndim != 2 || a->ndim < 1)
            return bad (&c, "filter has %u dims, input %u", w->ndim, a->ndim);
          size_t k = (n->flags & XB_FLAG_TRANSPOSE) ? w->dims[0] : w->dims[1];
          size_t outc = (n->flags & XB_FLAG_TRANSPOSE) ? w->dims[1] : w->dims[0];
          if (!check_bias (&c, bias, outc))
            return FALSE;
          if (n->flags & XB_FLAG_RESHAPE_2D)
            {
              size_t numel = 1;
              for (uint32_t d = 0; d < a->ndim; d++)
                numel *= a->dims[d];
              if (k == 0 || numel % k)
                return bad (&c, "input of %zu elements is not a multiple of %zu", numel, k);
              out.ndim = 2;
              out.dims[0] = numel / k;
              out.dims[1] = outc;
            }
          else
            {
              if (a->dims[a->ndim - 1] != k)
                return bad (&c, "input has %zu channels, the filter %zu", a->dims[a->ndim - 1], k);
              out = *a;
              out.dims[a->ndim - 1] = outc;
            }
          break;
        }
      case XB_NODE_CONV2D:
      case XB_NODE_DEPTHWISE_CONV2D:
      case XB_NODE_CONV_TRANSPOSE_2D:
        {
          const XbShape *w = in (shapes, n, 1), *bias = in (shapes, n, 2);
          const uint32_t *p = n->p;
          if (!nhwc (&c, a, "input") || !nhwc (&c, w, "filter"))
            return FALSE;
          uint32_t groups = p[12];
          size_t gin = p[10], gout = p[11];
          if (groups == 0 || gin == 0 || gout == 0 || gin > 1u << 20 || gout > 1u << 20 || groups > 1u << 20)
            return bad (&c, "groups %u, group channels %zu/%zu", groups, gin, gout);
          size_t cin = groups * gin, cout = groups * gout;
          gboolean same = (n->flags & XB_FLAG_SAME_PADDING) != 0;
          if (n->flags & ~XB_FLAG_SAME_PADDING)
            return bad (&c, "flags 0x%x", n->flags);
          if (n->type == XB_NODE_DEPTHWISE_CONV2D)
            {
              if (gin != 1 || w->dims[0] != 1 || w->dims[1] != p[4] || w->dims[2] != p[5] || w->dims[3] != cout)
                return bad (&c, "filter is not [1, %u, %u, %zu]", p[4], p[5], cout);
            }
          else if (w->dims[0] != cout || w->dims[1] != p[4] || w->dims[2] != p[5] || w->dims[3] != gin)
            return bad (&c, "filter is not [%zu, %u, %u, %zu]", cout, p[4], p[5], gin);
          if (a->dims[3] != cin)
            return bad (&c, "input has %zu channels, expected %zu", a->dims[3], cin);
          if (!check_bias (&c, bias, cout))
            return FALSE;
          out.ndim = 4;
          out.dims[0] = a->dims[0];
          out.dims[3] = cout;
          if (n->type == XB_NODE_CONV_TRANSPOSE_2D)
            {
              if (same || p[6] == 0 || p[7] == 0 || p[8] == 0 || p[9] == 0 || p[6] > 1u << 16 || p[7] > 1u << 16 ||
                  p[13] >= p[6] || p[14] >= p[7])
                return bad (&c, "stride %u/%u, adjustment %u/%u", p[6], p[7], p[13], p[14]);
              for (int d = 0; d < 2; d++)
                {
                  if (a->dims[1 + d] == 0)
                    return bad (&c, "empty input");
                  uint64_t full =
                      (uint64_t) p[6 + d] * (a->dims[1 + d] - 1) + p[13 + d] + (uint64_t) (p[4 + d] - 1) * p[8 + d] + 1;
                  uint64_t pads = (uint64_t) p[d == 0 ? 0 : 3] + p[d == 0 ? 2 : 1];
                  if (full <= pads)
                    return bad (&c, "padding removes the whole output");
                  out.dims[1 + d] = full - pads;
                }
            }
          else
            {
              if (!window (&c, a->dims[1], p[0], p[2], p[4], p[6], p[8], same, &out.dims[1]) ||
                  !window (&c, a->dims[2], p[3], p[1], p[5], p[7], p[9], same, &out.dims[2]))
                return FALSE;
            }
          break;
        }
      case XB_NODE_AVG_POOLING_2D:
      case XB_NODE_MAX_POOLING_2D:
        {
          const uint32_t *p = n->p;
          gboolean same = (n->flags & XB_FLAG_SAME_PADDING) != 0;
          uint32_t dh = n->type == XB_NODE_AVG_POOLING_2D ? 1 : p[8];
          uint32_t dw = n->type == XB_NODE_AVG_POOLING_2D ? 1 : p[9];
          if (!nhwc (&c, a, "input"))
            return FALSE;
          if (n->flags & ~(XB_FLAG_SAME_PADDING | XB_FLAG_KEEP_DIMS))
            return bad (&c, "flags 0x%x", n->flags);
          out = *a;
          if (!window (&c, a->dims[1], p[0], p[2], p[4], p[6], dh, same, &out.dims[1]) ||
              !window (&c, a->dims[2], p[3], p[1], p[5], p[7], dw, same, &out.dims[2]) ||
              !windows_see_input (&c, a->dims[1], p[0], p[4], p[6], dh, same, out.dims[1]) ||
              !windows_see_input (&c, a->dims[2], p[3], p[5], p[7], dw, same, out.dims[2]))
            return FALSE;
          if (p[4] * (uint64_t) p[5] <= 1)
            return bad (&c, "a 1x1 pooling window");
          break;
        }
      case XB_NODE_GLOBAL_AVG_POOLING_2D:
        {
          if (!nhwc (&c, a, "input"))
            return FALSE;
          const XbShape *declared = &shapes[n->outputs[0]];
          out = *a;
          out.dims[1] = out.dims[2] = 1;
          if (declared->ndim == 2)
            {
              out.ndim = 2;
              out.dims[1] = a->dims[3];
            }
          break;
        }
      case XB_NODE_STATIC_TRANSPOSE:
        {
          if (n->n_list != a->ndim || a->ndim == 0)
            return bad (&c, "permutation of %u dims for a %u-dim input", n->n_list, a->ndim);
          guint seen = 0;
          out.ndim = a->ndim;
          for (uint32_t d = 0; d < a->ndim; d++)
            {
              if (n->list_a[d] >= a->ndim || (seen & (1u << n->list_a[d])))
                return bad (&c, "perm is not a permutation");
              seen |= 1u << n->list_a[d];
              out.dims[d] = a->dims[n->list_a[d]];
            }
          break;
        }
      case XB_NODE_STATIC_RESHAPE:
        {
          size_t numel = 1, known = 1;
          int unknown = -1;
          for (uint32_t d = 0; d < a->ndim; d++)
            numel *= a->dims[d];
          out.ndim = n->n_list;
          for (uint32_t d = 0; d < n->n_list; d++)
            {
              out.dims[d] = n->list_a[d];
              if (out.dims[d] == 0)
                {
                  if (unknown >= 0)
                    return bad (&c, "new_shape has two dims to infer");
                  unknown = d;
                }
              else
                {
                  if (out.dims[d] > (1ull << 40) || known > (1ull << 40) / out.dims[d])
                    return bad (&c, "new_shape too large");
                  known *= out.dims[d];
                }
            }
          if (unknown >= 0)
            {
              if (numel % known)
                return bad (&c, "cannot infer a dim of %zu elements over %zu", numel, known);
              out.dims[unknown] = numel / known;
            }
          else if (known != numel)
            return bad (&c, "new_shape has %zu elements, the input %zu", known, numel);
          break;
        }
      case XB_NODE_STATIC_SLICE:
        {
          if (n->n_list != a->ndim)
            return bad (&c, "%u offsets for %u dims", n->n_list, a->ndim);
          out.ndim = a->ndim;
          for (uint32_t d = 0; d < a->ndim; d++)
            {
              size_t off = n->list_a[d], size = n->list_b[d];
              if (size == 0 && off <= a->dims[d])
                size = a->dims[d] - off;
              if (off > a->dims[d] || size > a->dims[d] - off)
                return bad (&c, "slice [%zu, +%zu) of a dim of %zu", off, size, a->dims[d]);
              out.dims[d] = size;
            }
          break;
        }
      case XB_NODE_STATIC_CONSTANT_PAD:
        if (n->n_list != a->ndim)
          return bad (&c, "%u paddings for %u dims", n->n_list, a->ndim);
        out.ndim = a->ndim;
        for (uint32_t d = 0; d < a->ndim; d++)
          {
            if (n->list_a[d] > 1u << 20 || n->list_b[d] > 1u << 20)
              return bad (&c, "padding too large");
            out.dims[d] = a->dims[d] + n->list_a[d] + n->list_b[d];
          }
        break;
      case XB_NODE_STATIC_RESIZE_BILINEAR_2D:
        if (!nhwc (&c, a, "input"))
          return FALSE;
        if (n->p[0] == 0 || n->p[1] == 0 || n->p[0] > 1u << 16 || n->p[1] > 1u << 16)
          return bad (&c, "new size %ux%u", n->p[0], n->p[1]);
        out = *a;
        out.dims[1] = n->p[0];
        out.dims[2] = n->p[1];
        break;
      case XB_NODE_CONCATENATE2:
      case XB_NODE_CONCATENATE3:
      case XB_NODE_CONCATENATE4:
      case XB_NODE_CONCATENATE5:
        {
          uint32_t axis = n->p[0];
          if (axis >= a->ndim)
            return bad (&c, "axis %u of %u dims", axis, a->ndim);
          out = *a;
          for (uint32_t i = 1; i < n->n_inputs; i++)
            {
              const XbShape *b = in (shapes, n, i);
              if (b->ndim != a->ndim)
                return bad (&c, "input %u has %u dims, input 0 %u", i, b->ndim, a->ndim);
              for (uint32_t d = 0; d < a->ndim; d++)
                if (d != axis && b->dims[d] != a->dims[d])
                  return bad (&c, "input %u differs in dim %u", i, d);
              out.dims[axis] += b->dims[axis];
            }
          break;
        }
      case XB_NODE_BATCH_MATRIX_MULTIPLY:
        {
          const XbShape *b = in (shapes, n, 1);
          if (n->flags & ~XB_FLAG_TRANSPOSE)
            return bad (&c, "flags 0x%x", n->flags);
          if (a->ndim < 2 || b->ndim != a->ndim)
            return bad (&c, "inputs of %u and %u dims", a->ndim, b->ndim);
          uint32_t r = a->ndim;
          for (uint32_t d = 0; d + 2 < r; d++)
            if (a->dims[d] != b->dims[d])
              return bad (&c, "batch dims differ");
          size_t k = a->dims[r - 1];
          size_t kb = (n->flags & XB_FLAG_TRANSPOSE) ? b->dims[r - 1] : b->dims[r - 2];
          size_t nn = (n->flags & XB_FLAG_TRANSPOSE) ? b->dims[r - 2] : b->dims[r - 1];
          if (k != kb)
            return bad (&c, "inner dims %zu and %zu", k, kb);
          out = *a;
          out.dims[r - 1] = nn;
          break;
        }
      case XB_NODE_ARGMAX_POOLING_2D:
      case XB_NODE_SDPA: return bad (&c, "not supported by this runtime");
      default: /* elementwise unary */ out = *a; break;
    }

  for (uint32_t i = 0; i < n->n_outputs; i++)
    shapes[n->outputs[i]] = out;
  return TRUE;
}
