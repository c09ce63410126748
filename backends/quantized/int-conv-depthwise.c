/* int-conv-depthwise.c: the integer convolution of a depthwise site, tap by tap along output rows
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * With one input and one output channel per group, the column fill of
 * int-conv.c copies every input element kh x kw times to multiply it once:
 * here each tap adds weight x input row straight into an int32 row of
 * sums, then the row gets its one float scaling.  The sums are the same
 * exact integers, so the result is the same bits.
 */
#include "int-kernels-private.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <string.h>

/* acc[xo] += w * row[xo * stride] for xo in [lo, hi) */
static inline void
add_tap (int32_t *acc, const int16_t *row, int64_t stride, int32_t w, int64_t lo, int64_t hi)
{
  if (stride == 1)
    for (int64_t xo = lo; xo < hi; xo++)
      acc[xo] += w * row[xo];
  else
    for (int64_t xo = lo; xo < hi; xo++)
      acc[xo] += w * row[xo * stride];
}

static inline void
channel_rows (const QkDepthwise *dw, int64_t channel, int32_t *acc)
{
  const int16_t *plane = dw->x + channel * dw->ih * dw->iw;
  const int16_t *w = dw->w + channel * dw->kh * dw->kw;
  int64_t base = dw->base + channel * dw->oh * dw->ow;
  double scale = dw->scale[channel], bias = dw->bias != NULL ? (double) dw->bias[channel] : 0.0;

  for (int64_t y = 0; y < dw->oh; y++)
    {
      memset (acc, 0, (size_t) dw->ow * sizeof (int32_t));
      for (int64_t ky = 0; ky < dw->kh; ky++)
        {
          int64_t yy = y * dw->stride[0] + ky * dw->dilation[0] - dw->padding[0];
          if (yy < 0 || yy >= dw->ih)
            continue;
          for (int64_t kx = 0; kx < dw->kw; kx++)
            {
              int64_t off = kx * dw->dilation[1] - dw->padding[1], s = dw->stride[1];
              /* output columns whose input column off + xo * s is inside */
              int64_t lo = off >= 0 ? 0 : (-off + s - 1) / s;
              int64_t hi = dw->iw - 1 - off < 0 ? 0 : MIN ((dw->iw - 1 - off) / s + 1, dw->ow);
              if (lo < hi)
                add_tap (acc, plane + yy * dw->iw + off, s, w[ky * dw->kw + kx], lo, hi);
            }
        }
      _executorch_qk_emit_row (&dw->out, acc, base + y * dw->ow, dw->ow, scale, bias);
    }
}

#ifdef QK_HAVE_AVX2
/* The same loops, vectorised by the compiler for AVX2. */
__attribute__ ((target ("avx2"))) static void
channel_rows_avx2 (const QkDepthwise *dw, int64_t channel, int32_t *acc)
{
  channel_rows (dw, channel, acc);
}
#endif

static void
depthwise_task (void *data, size_t channel)
{
  const QkDepthwise *dw = data;
  /* a row of sums per task: on the stack when it is small */
  int32_t small[512];
  int32_t *acc = dw->ow <= (int64_t) G_N_ELEMENTS (small) ? small : g_new (int32_t, dw->ow);

#ifdef QK_HAVE_AVX2
  if (dw->isa != QK_ISA_PORTABLE)
    channel_rows_avx2 (dw, (int64_t) channel, acc);
  else
#endif
    channel_rows (dw, (int64_t) channel, acc);
  if (acc != small)
    g_free (acc);
}

void
_executorch_qk_depthwise (const QkDepthwise *dw, bool parallel)
{
  if (parallel)
    executorch_threadpool_parallelize_1d (depthwise_task, (gpointer) dw, (size_t) dw->channels);
  else
    for (int64_t channel = 0; channel < dw->channels; channel++)
      depthwise_task ((gpointer) dw, (size_t) channel);
}
