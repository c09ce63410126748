/* widen.c: fp16 and bf16 graphs computed in fp32, for an XNNPACK without them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Debian 12's XNNPACK (2022) defines no fp16 nodes and no release before
 * 2024 has bf16 ones.  Rather than refuse such a graph, its 16-bit float
 * values become fp32: constants are converted once here, and the delegate
 * converts its 16-bit arguments at the boundary (xb_widen_to_fp32,
 * xb_narrow_from_fp32).  fp32 holds every fp16 and bf16 value exactly, so
 * only the rounding of intermediate results differs from a 16-bit run.
 */
#include <math.h>
#include <string.h>

#include "payload-reader.h"

static float
half_to_float (uint16_t h)
{
  uint32_t sign = (uint32_t) (h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) /* inf, nan */
    bits = sign | 0x7f800000u | mantissa << 13;
  else if (exponent != 0)
    bits = sign | (exponent + 112) << 23 | mantissa << 13;
  else if (mantissa == 0)
    bits = sign;
  else /* subnormal: exact as a float */
    {
      float f = ldexpf ((float) mantissa, -24);
      return sign ? -f : f;
    }
  float f;
  memcpy (&f, &bits, sizeof f);
  return f;
}

/* Round to nearest even, like a hardware conversion. */
static uint16_t
float_to_half (float f)
{
  uint32_t bits;
  memcpy (&bits, &f, sizeof bits);
  uint16_t sign = (uint16_t) ((bits >> 16) & 0x8000);
  uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u)
    return sign | 0x7e00; /* nan */
  if (abs >= 0x477ff000u) /* rounds to 65520 or more: inf */
    return sign | 0x7c00;
  if (abs < 0x38800000u) /* below the smallest normal half: a subnormal or 0 */
    {
      float a;
      memcpy (&a, &abs, sizeof a);
      return sign | (uint16_t) lrintf (a * 16777216.0f); /* units of 2^-24 */
    }
  uint32_t rounded = abs + 0xfff + ((abs >> 13) & 1);
  return sign | (uint16_t) ((rounded - (112u << 23)) >> 13);
}

static float
bf16_to_float (uint16_t b)
{
  uint32_t bits = (uint32_t) b << 16;
  float f;
  memcpy (&f, &bits, sizeof f);
  return f;
}

static uint16_t
float_to_bf16 (float f)
{
  uint32_t bits;
  memcpy (&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t) ((bits >> 16) | 0x40); /* nan stays nan */
  return (uint16_t) ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

void
xb_widen_to_fp32 (int datatype, const void *src, float *dst, size_t n)
{
  const uint16_t *s = src;
  for (size_t i = 0; i < n; i++)
    dst[i] = datatype == XB_DT_BF16 ? bf16_to_float (s[i]) : half_to_float (s[i]);
}

void
xb_narrow_from_fp32 (int datatype, const float *src, void *dst, size_t n)
{
  uint16_t *d = dst;
  for (size_t i = 0; i < n; i++)
    d[i] = datatype == XB_DT_BF16 ? float_to_bf16 (src[i]) : float_to_half (src[i]);
}

gboolean
xb_graph_has_16bit_floats (const XbGraph *graph)
{
  for (uint32_t v = 0; v < graph->n_values; v++)
    if (graph->values[v].datatype == XB_DT_FP16 || graph->values[v].datatype == XB_DT_BF16)
      return TRUE;
  return FALSE;
}

gboolean
xb_graph_widen (XbGraph *graph)
{
  gboolean changed = FALSE;
  for (uint32_t v = 0; v < graph->n_values; v++)
    {
      XbValue *val = &graph->values[v];
      if (val->datatype != XB_DT_FP16 && val->datatype != XB_DT_BF16)
        continue;
      if (val->data)
        {
          /* The parser checked that the data holds numel elements. */
          size_t n = xb_value_numel (val);
          float *wide = g_aligned_alloc0 (1, n * sizeof (float) + 16, 64);
          xb_widen_to_fp32 (val->datatype, val->data, wide, n);
          g_ptr_array_add (graph->owned, wide);
          val->data = wide;
          val->data_size = n * sizeof (float);
        }
      if (val->flags)
        val->narrow_datatype = val->datatype;
      val->datatype = XB_DT_FP32;
      changed = TRUE;
    }
  /* A conversion between 16-bit and 32-bit floats is now a copy. */
  for (uint32_t i = 0; changed && i < graph->n_nodes; i++)
    {
      XbNode *n = &graph->nodes[i];
      if (n->type == XB_NODE_CONVERT && graph->values[n->inputs[0]].datatype == XB_DT_FP32 &&
          graph->values[n->outputs[0]].datatype == XB_DT_FP32)
        n->type = XB_NODE_COPY;
    }
  return changed;
}
