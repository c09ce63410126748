/* convolution-depthwise-simd.h: the vector loops of convolution-depthwise.c,
 * included once per instruction set
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The includer defines DW_ISA (a name suffix), DW_TARGET (the target
 * attribute), DW_V (floats per vector) and the vector operations:
 * DwVec, DW_LOAD, DW_STORE, DW_SET1, DW_FMA (a * b + c, fused),
 * DW_ADD, DW_MAX, DW_MIN, DW_LOAD_N / DW_STORE_N (the first n < DW_V
 * lanes only).  Nothing else is read: DW_LOAD may read past a row, into
 * the scratch plane's zero slack, but a store never passes the output.
 */

#define DW_CAT2(a, b) a##_##b
#define DW_CAT(a, b) DW_CAT2 (a, b)
#define DW_FN(name) DW_CAT (name, DW_ISA)
#define DW_INLINE static inline __attribute__ ((always_inline, DW_TARGET))

/* The epilogue of one vector of outputs, then its store: @n lanes, or the
 * whole vector where @whole (the lanes past @n belong to later rows of the
 * plane, written after this one). */
DW_INLINE void
DW_FN (dw_finish) (const DwPlane *p, DwVec acc, float *y, const float *res, int64_t n, bool whole)
{
  bool cut = n < DW_V && !whole;

  if (res != NULL)
    acc = DW_ADD (acc, cut ? DW_LOAD_N (res, n) : DW_LOAD (res));
  if (p->clamp)
    acc = DW_MIN (DW_SET1 (p->hi), DW_MAX (DW_SET1 (p->lo), acc));
  if (cut)
    DW_STORE_N (y, acc, n);
  else
    DW_STORE (y, acc);
}

/* Copies @rows rows of @n floats from @src into the scratch, @step floats
 * apart, for stride 1.  A row's last vector is copied whole where the
 * source has that many floats before @src_end, and the cells after the
 * row (padding) are zeroed again: masked stores are slow on some CPUs. */
static __attribute__ ((DW_TARGET)) void
DW_FN (dw_copy_rows) (const float *src, const float *src_end, int64_t rows, int64_t n, float *dst, int64_t step)
{
  for (int64_t r = 0; r < rows; r++)
    {
      const float *s = src + r * n;
      float *d = dst + r * step;
      int64_t j = 0;

      for (; j + DW_V <= n; j += DW_V)
        DW_STORE (d + j, DW_LOAD (s + j));
      if (j == n)
        continue;
      if (src_end - (s + j) >= DW_V)
        {
          DW_STORE (d + j, DW_LOAD (s + j));
          DW_STORE (d + n, DW_SET1 (0.0f));
        }
      else
        DW_STORE_N (d + j, DW_LOAD_N (s + j, n - j), n - j);
    }
}

/* Splits @n input columns into the even ones, to @even, and the odd ones,
 * to @odd (stride 2's two phases). */
DW_INLINE void
DW_FN (dw_split_row) (const float *src, int64_t n, float *even, float *odd)
{
  int64_t m = 0;

  for (; 2 * (m + DW_V) <= n; m += DW_V)
    {
      DwVec e, o;
      DW_DEINTERLEAVE (DW_LOAD (src + 2 * m), DW_LOAD (src + 2 * m + DW_V), e, o);
      DW_STORE (even + m, e);
      DW_STORE (odd + m, o);
    }
  if (2 * m < n)
    {
      /* The last r < 2 V columns through masked loads and stores. */
      int64_t r = n - 2 * m, ra = r < DW_V ? r : DW_V;
      DwVec e, o;
      DW_DEINTERLEAVE (DW_LOAD_N (src + 2 * m, ra), DW_LOAD_N (src + 2 * m + DW_V, r - ra), e, o);
      DW_STORE_N (even + m, e, (r + 1) / 2);
      DW_STORE_N (odd + m, o, r / 2);
    }
}

/* dw_split_row for @rows rows of @n columns, @step floats apart in the
 * scratch. */
static __attribute__ ((DW_TARGET)) void
DW_FN (dw_split_rows) (const float *src, int64_t rows, int64_t n, float *even, float *odd, int64_t step)
{
  for (int64_t r = 0; r < rows; r++)
    DW_FN (dw_split_row) (src + r * n, n, even + r * step, odd + r * step);
}

/* R output rows (1, 2 or 4) by NB vectors of output columns from column
 * j0, the last vector cut to @last lanes: the whole K x K window (stride
 * S, no dilation; K and S constants, or 0 for the plane's runtime values)
 * from the scratch plane, which has every tap of these columns.  The
 * first @spill_rows rows store their last vector whole. */
DW_INLINE void
DW_FN (dw_block) (const DwPlane *p, const float *in, float *y, const float *res, int R, int NB, int64_t last,
                  int spill_rows, int K, int S)
{
  DwVec acc[4][4];
  int64_t pr = p->pr;
  int kh = K ? K : (int) p->kh, kw = K ? K : (int) p->kw;
  int s = S ? S : (int) p->s, sh = S ? S : (int) p->sh;
  DwVec b = DW_SET1 (p->bias);

  for (int r = 0; r < R; r++)
    for (int c = 0; c < NB; c++)
      acc[r][c] = b;
  for (int t = 0; t < kh; t++)
    for (int u = 0; u < kw; u++)
      {
        DwVec w = DW_SET1 (p->w[t * kw + u]);
        int64_t off = K ? (int64_t) (t * s + u % s) * pr + u / s : p->tap_off[t * kw + u];
        for (int r = 0; r < R; r++)
          for (int c = 0; c < NB; c++)
            acc[r][c] = DW_FMA (DW_LOAD (in + (int64_t) r * sh * s * pr + off + c * DW_V), w, acc[r][c]);
      }
  for (int r = 0; r < R; r++)
    for (int c = 0; c < NB; c++)
      DW_FN (dw_finish)
  (p, acc[r][c], y + r * p->ow + c * DW_V, res != NULL ? res + r * p->ow + c * DW_V : NULL, c == NB - 1 ? last : DW_V,
   r < spill_rows);
}

/* Output rows [oh, oh + R) of the plane: blocks of four vectors, then one
 * block of the one to four vectors left, the last of them cut at the
 * row's end or spilling into the rows below.  Four rows at a time only where a row takes at most two
 * vectors: then the block still has four to eight independent sums. */
DW_INLINE void
DW_FN (dw_rows) (const DwPlane *p, int64_t oh, int R, int64_t below, int K, int S)
{
  int64_t ow = p->ow;
  const float *in = p->scratch + oh * p->sh * p->s * p->pr;
  float *y = p->y + oh * ow;
  const float *res = p->res != NULL ? p->res + oh * ow : NULL;
  int64_t j = 0;

  for (; ow - j > 4 * DW_V; j += 4 * DW_V)
    DW_FN (dw_block) (p, in + j, y + j, res != NULL ? res + j : NULL, R, 4, DW_V, 0, K, S);

  int64_t nb = (ow - j + DW_V - 1) / DW_V, last = ow - j - (nb - 1) * DW_V;
  /* A row's last vector may spill into the @below rows after it where
   * those are in the plane and written later: none of their columns in
   * an earlier block. */
  int spill = j == 0 ? (int) CLAMP (p->oh - oh - below, 0, R) : 0;
  in += j;
  y += j;
  res = res != NULL ? res + j : NULL;
  if (R == 4 && nb == 1)
    DW_FN (dw_block) (p, in, y, res, 4, 1, last, spill, K, S);
  else if (R == 4)
    DW_FN (dw_block) (p, in, y, res, 4, 2, last, spill, K, S);
  else if (nb == 1)
    DW_FN (dw_block) (p, in, y, res, R, 1, last, spill, K, S);
  else if (nb == 2)
    DW_FN (dw_block) (p, in, y, res, R, 2, last, spill, K, S);
  else if (nb == 3)
    DW_FN (dw_block) (p, in, y, res, R, 3, last, spill, K, S);
  else
    DW_FN (dw_block) (p, in, y, res, R, 4, last, spill, K, S);
}

DW_INLINE void
DW_FN (dw_plane_k) (const DwPlane *p, int K, int S)
{
  int64_t oh = 0;
  /* The rows a row's last vector spills into: all where it must not. */
  int64_t past = (DW_V - p->ow % DW_V) % DW_V;
  int64_t below = p->spill ? (past + p->ow - 1) / p->ow : p->oh;

  if (p->ow <= 2 * DW_V)
    for (; oh + 4 <= p->oh; oh += 4)
      DW_FN (dw_rows) (p, oh, 4, below, K, S);
  for (; oh + 2 <= p->oh; oh += 2)
    DW_FN (dw_rows) (p, oh, 2, below, K, S);
  if (oh < p->oh)
    DW_FN (dw_rows) (p, oh, 1, below, K, S);
}

/* One plane: 3x3 and 5x5 at stride 1 or 2 (no dilation) with the window
 * unrolled, anything else with the taps read from p->tap_off. */
static __attribute__ ((DW_TARGET)) void
DW_FN (dw_plane) (const DwPlane *p)
{
  bool square = p->kh == p->kw && p->sh == p->s && p->dh == 1 && p->dw == 1;

  if (square && p->kh == 3 && p->s == 1)
    DW_FN (dw_plane_k) (p, 3, 1);
  else if (square && p->kh == 3 && p->s == 2)
    DW_FN (dw_plane_k) (p, 3, 2);
  else if (square && p->kh == 5 && p->s == 1)
    DW_FN (dw_plane_k) (p, 5, 1);
  else if (square && p->kh == 5 && p->s == 2)
    DW_FN (dw_plane_k) (p, 5, 2);
  else
    DW_FN (dw_plane_k) (p, 0, 0);
}

#undef DW_CAT2
#undef DW_CAT
#undef DW_FN
#undef DW_INLINE
