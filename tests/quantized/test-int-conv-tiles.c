/* test-int-conv-tiles.c: the integer convolution's inner kernels against plain sums
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built with libexecutorch-kernels-quantized's sources (its kernels are not
 * exported).  Every instruction set the CPU offers (portable, AVX2,
 * AVX-512 VNNI, and its u8 x s8 form) must give the exact int32 sums of the tiles and the same
 * float and requantized bytes of the depthwise kernel as a naive loop
 * (reading staged values, int8 or uint8 bytes, or bytes it writes over), on
 * shapes that leave tails everywhere: channel counts that are not a
 * multiple of four, pixel ranges that are not a multiple of 32, odd K,
 * padding, stride, dilation and non-square kernels; and the column fills
 * (int16 pairs, u8 quads from the staged values and from the bytes) must
 * put every tap's value where the products read it.
 */
#include "int-kernels-private.h"

#include <glib.h>
#include <math.h>
#include <string.h>

static QkIsa isas[3];

static int
n_isas (void)
{
  QkIsa best = _executorch_qk_isa ();
  int n = 0;

  isas[n++] = QK_ISA_PORTABLE;
  if (best >= QK_ISA_AVX2)
    isas[n++] = QK_ISA_AVX2;
  if (best >= QK_ISA_AVX512_VNNI)
    isas[n++] = QK_ISA_AVX512_VNNI;
  return n;
}

static void
test_tiles (void)
{
  static const int64_t k_pairs_cases[] = { 1, 2, 5, 13, 289 };
  static const int64_t p_pad_cases[] = { 16, 48, 96 };
  GRand *rand = g_rand_new_with_seed (11);
  int isa_count = n_isas ();

  for (guint ki = 0; ki < G_N_ELEMENTS (k_pairs_cases); ki++)
    for (guint pi = 0; pi < G_N_ELEMENTS (p_pad_cases); pi++)
      {
        int64_t k_pairs = k_pairs_cases[ki], p_pad = p_pad_cases[pi];
        int16_t *cols = g_new (int16_t, k_pairs * p_pad * 2);
        uint32_t *w = g_new (uint32_t, QK_TILE_CHANNELS * k_pairs);
        int32_t *acc = g_new (int32_t, QK_TILE_CHANNELS * p_pad);

        /* the extremes the staged data can hold: (x - zp) of uint8 with
         * a zero point of -128, weights minus their zero point */
        for (int64_t i = 0; i < k_pairs * p_pad * 2; i++)
          cols[i] = (int16_t) g_rand_int_range (rand, -383, 384);
        for (int64_t i = 0; i < QK_TILE_CHANNELS * k_pairs; i++)
          w[i] = (uint16_t) g_rand_int_range (rand, -255, 256) |
                 ((uint32_t) (uint16_t) g_rand_int_range (rand, -255, 256) << 16);
        for (int is = 0; is < isa_count; is++)
          for (int64_t n_channels = 1; n_channels <= QK_TILE_CHANNELS; n_channels++)
            for (int64_t p0 = 0; p0 < p_pad; p0 += 16)
              for (int64_t p1 = p0 + 16; p1 <= p_pad; p1 += 32)
                {
                  QkTile tile = { cols, p_pad, k_pairs, w, acc, p_pad };
                  memset (acc, 0x5a, (size_t) (QK_TILE_CHANNELS * p_pad) * sizeof (int32_t));
                  _executorch_qk_tile_sums (&tile, isas[is], n_channels, p0, p1);
                  for (int64_t ch = 0; ch < QK_TILE_CHANNELS; ch++)
                    for (int64_t p = 0; p < p_pad; p++)
                      {
                        int64_t want = 0;
                        if (ch >= n_channels || p < p0 || p >= p1)
                          {
                            /* nothing outside the tile is written */
                            g_assert_cmpint (acc[ch * p_pad + p], ==, 0x5a5a5a5a);
                            continue;
                          }
                        for (int64_t kk = 0; kk < k_pairs; kk++)
                          want += (int64_t) cols[(kk * p_pad + p) * 2] * (int16_t) (w[ch * k_pairs + kk] & 0xffff) +
                                  (int64_t) cols[(kk * p_pad + p) * 2 + 1] * (int16_t) (w[ch * k_pairs + kk] >> 16);
                        if (acc[ch * p_pad + p] != want)
                          g_error ("isa %d, k_pairs %" G_GINT64_FORMAT ", channels %" G_GINT64_FORMAT
                                   ", [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "): sum of channel %" G_GINT64_FORMAT
                                   " pixel %" G_GINT64_FORMAT " is %d, expected %" G_GINT64_FORMAT,
                                   isas[is], k_pairs, n_channels, p0, p1, ch, p, acc[ch * p_pad + p], want);
                      }
                }
        g_free (cols);
        g_free (w);
        g_free (acc);
      }
  g_rand_free (rand);
}

/* The u8 x s8 forms run only where the CPU has AVX-512 VNNI: elsewhere
 * their tests are skipped, and say so. */
static bool
has_vnni (void)
{
  if (_executorch_qk_isa () >= QK_ISA_AVX512_VNNI)
    return true;
  g_test_skip ("no AVX-512 VNNI on this CPU");
  return false;
}

/* The u8 x s8 tiles (AVX-512 VNNI only): sums of unsigned column bytes by
 * signed weight bytes, less the per-channel offset, wrapping as int32. */
static void
test_tiles_u8 (void)
{
  static const int64_t k_quads_cases[] = { 1, 3, 144, 577 };
  static const int64_t p_pad_cases[] = { 16, 48, 96 };
  if (!has_vnni ())
    return;
  GRand *rand = g_rand_new_with_seed (13);

  for (guint ki = 0; ki < G_N_ELEMENTS (k_quads_cases); ki++)
    for (guint pi = 0; pi < G_N_ELEMENTS (p_pad_cases); pi++)
      {
        int64_t k_quads = k_quads_cases[ki], p_pad = p_pad_cases[pi];
        uint8_t *cols8 = g_new (uint8_t, k_quads * p_pad * 4);
        uint32_t *w8 = g_new (uint32_t, QK_TILE_CHANNELS * k_quads);
        int32_t offset[QK_TILE_CHANNELS], *acc = g_new (int32_t, QK_TILE_CHANNELS * p_pad);

        for (int64_t i = 0; i < k_quads * p_pad * 4; i++)
          cols8[i] = (uint8_t) g_rand_int_range (rand, 0, 256);
        for (int64_t i = 0; i < QK_TILE_CHANNELS * k_quads; i++)
          w8[i] = g_rand_int (rand);
        for (int ch = 0; ch < QK_TILE_CHANNELS; ch++)
          offset[ch] = (int32_t) g_rand_int_range (rand, -5000000, 5000000);
        for (int64_t n_channels = 1; n_channels <= QK_TILE_CHANNELS; n_channels++)
          for (int64_t p0 = 0; p0 < p_pad; p0 += 16)
            for (int64_t p1 = p0 + 16; p1 <= p_pad; p1 += 32)
              {
                QkTile8 tile = { cols8, p_pad, k_quads, w8, offset, acc, p_pad };
                memset (acc, 0x5a, (size_t) (QK_TILE_CHANNELS * p_pad) * sizeof (int32_t));
                _executorch_qk_tile8_sums (&tile, n_channels, p0, p1);
                for (int64_t ch = 0; ch < QK_TILE_CHANNELS; ch++)
                  for (int64_t p = 0; p < p_pad; p++)
                    {
                      int64_t want = -offset[ch];
                      if (ch >= n_channels || p < p0 || p >= p1)
                        {
                          g_assert_cmpint (acc[ch * p_pad + p], ==, 0x5a5a5a5a);
                          continue;
                        }
                      for (int64_t q = 0; q < k_quads; q++)
                        for (int b = 0; b < 4; b++)
                          want += (int64_t) cols8[(q * p_pad + p) * 4 + b] *
                                  (int8_t) (uint8_t) (w8[ch * k_quads + q] >> (8 * b));
                      if (acc[ch * p_pad + p] != (int32_t) want)
                        g_error ("k_quads %" G_GINT64_FORMAT ", channels %" G_GINT64_FORMAT ", [%" G_GINT64_FORMAT
                                 ", %" G_GINT64_FORMAT "): sum of channel %" G_GINT64_FORMAT " pixel %" G_GINT64_FORMAT
                                 " is %d, expected %" G_GINT64_FORMAT,
                                 k_quads, n_channels, p0, p1, ch, p, acc[ch * p_pad + p], want);
                    }
              }
        g_free (cols8);
        g_free (w8);
        g_free (acc);
      }
  g_rand_free (rand);
}

/* upstream's quantize of one float (int8-fast.c's formula) */
static int32_t
quantize_ref (float v, const QkRequant *rq)
{
  float inv = 1.0f / (float) rq->scale, s = (float) rq->zero_point + nearbyintf (inv * v);
  if (isnan (s))
    s = (float) rq->zero_point;
  s = s < (float) rq->qmin ? (float) rq->qmin : s;
  s = s > (float) rq->qmax ? (float) rq->qmax : s;
  return (int32_t) s;
}

typedef struct
{
  int64_t channels, ih, iw, kh, kw, stride[2], padding[2], dilation[2];
} DwCase;

/* Where the depthwise kernel reads its input: the staged int16 values,
 * int8 or uint8 bytes minus a zero point, or int8 bytes it writes its
 * requantized result over (a depthwise convolution in place). */
typedef enum
{
  DW_STAGED,
  DW_INT8,
  DW_UINT8,
  DW_IN_PLACE,
} DwSource;

static void
check_depthwise (GRand *rand, const DwCase *dc, QkIsa isa, const QkRequant *rq, DwSource source)
{
  int64_t oh = (dc->ih + 2 * dc->padding[0] - dc->dilation[0] * (dc->kh - 1) - 1) / dc->stride[0] + 1;
  int64_t ow = (dc->iw + 2 * dc->padding[1] - dc->dilation[1] * (dc->kw - 1) - 1) / dc->stride[1] + 1;
  int64_t n_in = dc->channels * dc->ih * dc->iw, n_out = dc->channels * oh * ow;
  int16_t *x = g_new (int16_t, n_in), *w = g_new (int16_t, dc->channels * dc->kh * dc->kw);
  double *scale = g_new (double, dc->channels);
  float *bias = g_new (float, dc->channels), *out = g_new0 (float, n_out);
  int8_t *q = g_new0 (int8_t, n_out);
  uint8_t *bytes = g_new (uint8_t, n_in);
  bool is_signed = source != DW_UINT8;
  int zp = is_signed ? g_rand_int_range (rand, -128, 128) : g_rand_int_range (rand, 0, 256);

  for (int64_t i = 0; i < n_in; i++)
    if (source == DW_STAGED)
      x[i] = (int16_t) g_rand_int_range (rand, -255, 256);
    else
      {
        bytes[i] = (uint8_t) g_rand_int_range (rand, 0, 256);
        x[i] = (int16_t) ((is_signed ? (int) (int8_t) bytes[i] : (int) bytes[i]) - zp);
      }
  for (int64_t i = 0; i < dc->channels * dc->kh * dc->kw; i++)
    w[i] = (int16_t) g_rand_int_range (rand, -127, 128);
  for (int64_t c = 0; c < dc->channels; c++)
    {
      scale[c] = (double) (float) g_rand_double_range (rand, 1e-5, 1e-3);
      bias[c] = (float) g_rand_double_range (rand, -1, 1);
    }
  QkDepthwise dw = {
    .x = source == DW_STAGED ? x : NULL,
    .bytes = source == DW_STAGED ? NULL : bytes,
    .is_signed = is_signed,
    .zp = (int16_t) zp,
    .in_place = source == DW_IN_PLACE,
    .w = w,
    .scale = scale,
    .bias = bias,
    .out = { .f = rq == NULL ? out : NULL, .q = rq != NULL ? q : NULL, .requant = rq, .isa = isa },
    .base = 0,
    .channels = dc->channels,
    .ih = dc->ih,
    .iw = dc->iw,
    .kh = dc->kh,
    .kw = dc->kw,
    .oh = oh,
    .ow = ow,
    .stride = { dc->stride[0], dc->stride[1] },
    .padding = { dc->padding[0], dc->padding[1] },
    .dilation = { dc->dilation[0], dc->dilation[1] },
    .isa = isa,
  };
  if (source == DW_IN_PLACE)
    {
      g_assert_true (rq != NULL && n_out == n_in && rq->is_signed);
      g_free (q);
      q = (int8_t *) bytes, bytes = NULL;
      dw.out.q = q;
    }
  g_assert_true (_executorch_qk_depthwise (&dw, false));
  for (int64_t c = 0; c < dc->channels; c++)
    for (int64_t y = 0; y < oh; y++)
      for (int64_t xo = 0; xo < ow; xo++)
        {
          int64_t acc = 0, at = (c * oh + y) * ow + xo;
          for (int64_t ky = 0; ky < dc->kh; ky++)
            for (int64_t kx = 0; kx < dc->kw; kx++)
              {
                int64_t yy = y * dc->stride[0] + ky * dc->dilation[0] - dc->padding[0];
                int64_t xx = xo * dc->stride[1] + kx * dc->dilation[1] - dc->padding[1];
                if (yy >= 0 && yy < dc->ih && xx >= 0 && xx < dc->iw)
                  acc += (int64_t) w[(c * dc->kh + ky) * dc->kw + kx] * x[(c * dc->ih + yy) * dc->iw + xx];
              }
          float v = (float) ((double) acc * scale[c] + (double) bias[c]);
          if (rq == NULL)
            {
              if (memcmp (&v, &out[at], sizeof v) != 0)
                g_error ("isa %d: depthwise output %" G_GINT64_FORMAT " is %.9g, expected %.9g", isa, at, out[at], v);
              continue;
            }
          v = v < rq->lo ? rq->lo : v;
          v = v > rq->hi ? rq->hi : v;
          int32_t want = quantize_ref (v, rq);
          int32_t got = rq->is_signed ? q[at] : ((uint8_t *) q)[at];
          if (got != want)
            g_error ("isa %d: requantized output %" G_GINT64_FORMAT " is %d, expected %d", isa, at, got, want);
        }
  g_free (x);
  g_free (w);
  g_free (scale);
  g_free (bias);
  g_free (out);
  g_free (q);
  g_free (bytes);
}

static void
test_depthwise (void)
{
  static const DwCase cases[] = {
    { 3, 9, 11, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 } },   /* mobilenet's */
    { 5, 17, 13, 3, 3, { 2, 2 }, { 1, 1 }, { 1, 1 } },  /* stride 2, odd sizes */
    { 2, 7, 19, 3, 5, { 1, 1 }, { 1, 2 }, { 1, 1 } },   /* 3x5 kernel */
    { 4, 12, 12, 3, 3, { 1, 1 }, { 2, 2 }, { 2, 2 } },  /* dilation 2 */
    { 1, 6, 40, 5, 5, { 2, 1 }, { 0, 3 }, { 1, 1 } },   /* unpadded rows, padded columns */
    { 2, 3, 600, 1, 7, { 1, 3 }, { 0, 3 }, { 1, 1 } },  /* a row longer than the stack's */
    { 2, 15, 100, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 } }, /* rows requantized ten at a time, then five */
    { 3, 31, 201, 3, 3, { 2, 2 }, { 1, 1 }, { 1, 1 } }, /* stride 2: nine, then seven */
    { 6, 7, 7, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 } },    /* 7x7: the plane as one row */
    { 5, 14, 14, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 } },  /* 14x14 */
    { 3, 14, 14, 5, 5, { 1, 1 }, { 2, 2 }, { 1, 1 } },  /* efficientnet's 5x5 */
    { 2, 9, 13, 5, 3, { 1, 1 }, { 4, 2 }, { 2, 2 } },   /* 5x3 at dilation 2 */
    { 2, 40, 37, 3, 3, { 1, 1 }, { 1, 1 }, { 1, 1 } },  /* bands of 25, then 15 rows */
  };
  QkRequant relu6 = {
    .lo = 0.0f, .hi = 6.0f, .scale = 0.03, .zero_point = -100, .qmin = -128, .qmax = 127, .is_signed = true
  };
  QkRequant u8 = {
    .lo = -INFINITY, .hi = INFINITY, .scale = 0.007, .zero_point = 131, .qmin = 0, .qmax = 255, .is_signed = false
  };
  GRand *rand = g_rand_new_with_seed (5);
  int isa_count = n_isas ();

  _executorch_qk_requant_prepare (&relu6);
  _executorch_qk_requant_prepare (&u8);

  for (int is = 0; is < isa_count; is++)
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        const DwCase *dc = &cases[i];
        check_depthwise (rand, dc, isas[is], NULL, DW_STAGED);
        check_depthwise (rand, dc, isas[is], &relu6, DW_STAGED);
        check_depthwise (rand, dc, isas[is], &u8, DW_STAGED);
        check_depthwise (rand, dc, isas[is], &relu6, DW_INT8);
        check_depthwise (rand, dc, isas[is], &u8, DW_UINT8);
        /* in place where the kernel allows it: stride 1, "same" padding,
         * each plane copied before it is written */
        if (dc->stride[0] == 1 && dc->stride[1] == 1 && 2 * dc->padding[0] == dc->dilation[0] * (dc->kh - 1) &&
            2 * dc->padding[1] == dc->dilation[1] * (dc->kw - 1) &&
            _executorch_qk_depthwise_copies_planes (isas[is], dc->kh, dc->kw, 1, dc->dilation[1]))
          check_depthwise (rand, dc, isas[is], &relu6, DW_IN_PLACE);
      }
  g_rand_free (rand);
}

/* One row of sums requantized by _executorch_qk_emit_row against the
 * exact steps, element by element. */
static void
check_requant_row (const int32_t *acc, int64_t n, double scale, double bias, const QkRequant *rq, QkIsa isa)
{
  uint8_t *q = g_new0 (uint8_t, n + 1);
  QkOutput o = { .q = q, .requant = rq, .isa = isa };

  q[n] = 0xa5;
  _executorch_qk_emit_row (&o, acc, 0, n, scale, bias);
  g_assert_cmpuint (q[n], ==, 0xa5); /* nothing past the row */
  for (int64_t i = 0; i < n; i++)
    {
      float v = (float) ((double) acc[i] * scale + bias);
      v = v < rq->lo ? rq->lo : v;
      v = v > rq->hi ? rq->hi : v;
      int32_t want = quantize_ref (v, rq), got = rq->is_signed ? (int8_t) q[i] : q[i];
      if (got != want)
        g_error ("isa %d: sum %d (scale %.17g, bias %.9g, out scale %.9g, zp %d) gives %d, expected %d", isa, acc[i],
                 scale, bias, rq->scale, rq->zero_point, got, want);
    }
  g_free (q);
}

static void
test_requant_rows (void)
{
  static const int64_t lengths[] = { 1, 7, 15, 16, 17, 33, 64, 255, 300, 1001 };
  QkRequant kinds[] = {
    { .lo = 0.0f, .hi = 6.0f, .scale = 0.0235, .zero_point = -128, .qmin = -128, .qmax = 127, .is_signed = true },
    { .lo = -INFINITY, .hi = INFINITY, .scale = 0.05, .zero_point = 3, .qmin = -128, .qmax = 127, .is_signed = true },
    { .lo = 0.0f, .hi = INFINITY, .scale = 0.011, .zero_point = 0, .qmin = 0, .qmax = 255, .is_signed = false },
    { .lo = -1.5f, .hi = 0.75f, .scale = 0.007, .zero_point = 131, .qmin = 0, .qmax = 255, .is_signed = false },
    { .lo = -INFINITY, .hi = INFINITY, .scale = 0.1, .zero_point = -5, .qmin = -20, .qmax = 30, .is_signed = true },
    /* out of the short form's range: the exact steps everywhere */
    { .lo = -INFINITY, .hi = INFINITY, .scale = 1e-30, .zero_point = 0, .qmin = -128, .qmax = 127, .is_signed = true },
  };
  GRand *rand = g_rand_new_with_seed (11);
  int isa_count = n_isas ();
  int32_t *acc = g_new (int32_t, 1001);

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    _executorch_qk_requant_prepare (&kinds[k]);

  for (int is = 0; is < isa_count; is++)
    for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
      for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
        for (int round = 0; round < 8; round++)
          {
            const QkRequant *rq = &kinds[k];
            int64_t n = lengths[l];
            /* sums of a narrow layer, of a wide one, and extremes */
            int32_t range = round < 3 ? 1 << 12 : round < 6 ? 1 << 20 : G_MAXINT32;
            double scale = (double) (float) g_rand_double_range (rand, 1e-6, 1e-3);
            double bias = (double) (float) g_rand_double_range (rand, -2, 2);
            for (int64_t i = 0; i < n; i++)
              acc[i] = range == G_MAXINT32 ? (int32_t) g_rand_int (rand) : g_rand_int_range (rand, -range, range);
            if (round == 7)
              {
                /* every odd sum lands on a tie: u = sum / 2 exactly */
                float inv = 1.0f / (float) rq->scale;
                scale = 0.5 / (double) inv;
                bias = 0.0;
                for (int64_t i = 0; i < n; i++)
                  acc[i] = g_rand_int_range (rand, -600, 600);
              }
            check_requant_row (acc, n, scale, bias, rq, isas[is]);
          }
  g_free (acc);
  g_rand_free (rand);
}

/* @numel random int8 (@is_signed) or uint8 bytes and their staged values
 * x = value - zero point, for a random zero point; returns the u8 form's
 * offset (zero point, plus 128 for int8), which maps x back to the byte. */
static int16_t
random_input (GRand *rand, bool is_signed, int64_t numel, uint8_t **bytes, int16_t **x)
{
  int zp = is_signed ? g_rand_int_range (rand, -20, 20) : g_rand_int_range (rand, 100, 140);

  *bytes = g_new (uint8_t, numel);
  *x = g_new (int16_t, numel);
  for (int64_t i = 0; i < numel; i++)
    {
      (*bytes)[i] = (uint8_t) g_rand_int_range (rand, 0, 256);
      (*x)[i] = (int16_t) ((is_signed ? (int) (int8_t) (*bytes)[i] : (int) (*bytes)[i]) - zp);
    }
  return (int16_t) ((is_signed ? 128 : 0) + zp);
}

/* The columns of one group as the products read them, element by element:
 * the staged value of tap 4 kq + t (input channel, kernel row and column)
 * for pixel p, or 0 (int16 pairs) / the offset (u8 quads) for padding,
 * for K's padding and for the pixels past the last. */
static int
naive_tap (const QkConvGeometry *geo, const int16_t *x, int64_t j, int64_t p, bool *inside)
{
  int64_t ci = j / (geo->kh * geo->kw), r = j % (geo->kh * geo->kw), y = p / geo->ow, xo = p % geo->ow;
  int64_t yy = y * geo->stride[0] + (r / geo->kw) * geo->dilation[0] - geo->padding[0];
  int64_t xx = xo * geo->stride[1] + (r % geo->kw) * geo->dilation[1] - geo->padding[1];

  *inside = j < geo->k && p < geo->oh * geo->ow && yy >= 0 && yy < geo->ih && xx >= 0 && xx < geo->iw;
  return *inside ? x[(ci * geo->ih + yy) * geo->iw + xx] : 0;
}

static void
test_columns (void)
{
  /* icg, ih, iw, kh, kw, stride, padding, dilation */
  static const int64_t cases[][11] = {
    { 5, 9, 56, 3, 3, 1, 1, 1, 1, 1, 1 },   /* stride 1: sixteens, then eight */
    { 3, 7, 14, 3, 3, 1, 1, 1, 1, 1, 1 },   /* 14 wide: eights only */
    { 7, 5, 7, 3, 3, 1, 1, 1, 1, 1, 1 },    /* 7 wide: scalar */
    { 4, 11, 57, 3, 3, 2, 2, 1, 1, 1, 1 },  /* stride 2, odd width */
    { 3, 20, 80, 7, 7, 2, 2, 3, 3, 1, 1 },  /* a stem: 7x7 at stride 2 */
    { 9, 6, 40, 1, 1, 2, 2, 0, 0, 1, 1 },   /* 1x1 at stride 2 */
    { 6, 10, 35, 1, 1, 1, 1, 0, 0, 1, 1 },  /* pointwise, K not a multiple of 4 */
    { 2, 12, 45, 3, 3, 1, 1, 2, 2, 2, 2 },  /* dilation 2 */
    { 3, 13, 50, 3, 5, 3, 2, 1, 2, 1, 1 },  /* stride 3 and 2, non-square */
  };
  GRand *rand = g_rand_new_with_seed (17);

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (int is_signed = 0; is_signed < 2; is_signed++)
      {
        const int64_t *cs = cases[c];
        QkConvGeometry geo = {
          .icg = cs[0], .ih = cs[1], .iw = cs[2], .kh = cs[3], .kw = cs[4],
          .stride = { cs[5], cs[6] }, .padding = { cs[7], cs[8] }, .dilation = { cs[9], cs[10] },
        };
        geo.oh = (geo.ih + 2 * geo.padding[0] - geo.dilation[0] * (geo.kh - 1) - 1) / geo.stride[0] + 1;
        geo.ow = (geo.iw + 2 * geo.padding[1] - geo.dilation[1] * (geo.kw - 1) - 1) / geo.stride[1] + 1;
        geo.k = geo.icg * geo.kh * geo.kw;
        geo.k_pairs = (geo.k + 1) / 2;
        geo.p_pad = (geo.oh * geo.ow + QK_TILE_PIXELS - 1) / QK_TILE_PIXELS * QK_TILE_PIXELS;
        int64_t numel = geo.icg * geo.ih * geo.iw, k_quads = (geo.k + 3) / 4;
        uint8_t *bytes;
        int16_t *x;
        int16_t offset = random_input (rand, is_signed, numel, &bytes, &x);
        QkColumnTap *taps = g_new (QkColumnTap, geo.k);
        _executorch_qk_column_taps (&geo, taps);
        int16_t *cols = g_new0 (int16_t, geo.k_pairs * geo.p_pad * 2);
        uint8_t *from_staged = g_new0 (uint8_t, k_quads * geo.p_pad * 4);
        uint8_t *from_bytes = g_new0 (uint8_t, k_quads * geo.p_pad * 4);
        QkFill fill = { .geo = &geo, .taps = taps, .planes = x, .cols = cols, .n_rows = geo.k_pairs, .per_task = 3 };
        _executorch_qk_fill_columns (&fill, false);
        fill = (QkFill){ .geo = &geo, .taps = taps, .u8 = { .x = x, .pad = offset }, .cols8 = from_staged,
                         .n_rows = k_quads, .per_task = 2 };
        _executorch_qk_fill_columns (&fill, false);
        fill.u8 = (QkU8Source){ .bytes = bytes, .flip = is_signed ? 0x80 : 0, .pad = offset };
        fill.cols8 = from_bytes;
        _executorch_qk_fill_columns (&fill, false);

        for (int64_t j = 0; j < k_quads * 4; j++)
          for (int64_t p = 0; p < geo.p_pad; p++)
            {
              bool inside;
              int v = naive_tap (&geo, x, j, p, &inside);
              uint8_t u = inside ? (uint8_t) (v + offset) : (uint8_t) offset;
              if (j < geo.k_pairs * 2)
                g_assert_cmpint (cols[((j / 2) * geo.p_pad + p) * 2 + j % 2], ==, v);
              g_assert_cmpint (from_staged[((j / 4) * geo.p_pad + p) * 4 + j % 4], ==, u);
              g_assert_cmpint (from_bytes[((j / 4) * geo.p_pad + p) * 4 + j % 4], ==, u);
            }
        g_free (bytes);
        g_free (x);
        g_free (taps);
        g_free (cols);
        g_free (from_staged);
        g_free (from_bytes);
      }
  g_rand_free (rand);
}

/* The direct form: the image of the padded input and the taps' offsets,
 * through the u8 x s8 tiles, give each output pixel (y, x) at flat index
 * y * wp + x the naive sums of the convolution at stride 1. */
static void
test_direct (void)
{
  /* icg, ih, iw, kh, kw, padding, dilation */
  static const int64_t cases[][9] = {
    { 8, 9, 13, 3, 3, 1, 1, 1, 1 },  /* a 3x3 window, padded */
    { 6, 7, 7, 3, 3, 1, 1, 1, 1 },   /* channels not a multiple of 4, a 7x7 plane */
    { 5, 10, 12, 5, 5, 2, 2, 2, 2 }, /* dilation 2 */
    { 4, 6, 9, 3, 2, 0, 1, 1, 1 },   /* non-square, unpadded rows */
    { 12, 5, 40, 1, 3, 0, 1, 1, 1 }, /* one row of taps, rows past 16 wide */
  };
  if (!has_vnni ())
    return;
  GRand *rand = g_rand_new_with_seed (23);

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (int source = 0; source < 3; source++) /* int8 bytes, uint8 bytes, staged */
      {
        const int64_t *cs = cases[c];
        QkConvGeometry geo = {
          .icg = cs[0],
          .ih = cs[1],
          .iw = cs[2],
          .kh = cs[3],
          .kw = cs[4],
          .stride = { 1, 1 },
          .padding = { cs[5], cs[6] },
          .dilation = { cs[7], cs[8] },
        };
        geo.oh = geo.ih + 2 * geo.padding[0] - geo.dilation[0] * (geo.kh - 1);
        geo.ow = geo.iw + 2 * geo.padding[1] - geo.dilation[1] * (geo.kw - 1);
        geo.k = geo.icg * geo.kh * geo.kw;
        QkDirect d;
        g_assert_true (_executorch_qk_direct_init (&geo, &d));
        QkDirect not_direct;
        geo.stride[1] = 2;
        g_assert_false (_executorch_qk_direct_init (&geo, &not_direct));
        geo.stride[1] = 1;
        /* a hostile file's padding, cancelled by its dilation */
        QkConvGeometry wide = geo;
        wide.padding[1] = (int64_t) 1 << 40;
        wide.dilation[1] = wide.kw > 1 ? wide.padding[1] * 2 / (wide.kw - 1) : 1;
        g_assert_false (_executorch_qk_direct_init (&wide, &not_direct));

        bool is_signed = source == 0;
        int64_t numel = geo.icg * geo.ih * geo.iw, taps = geo.kh * geo.kw, k_quads = taps * d.c_quads;
        uint8_t *bytes;
        int16_t *x;
        int16_t offset = random_input (rand, is_signed, numel, &bytes, &x);
        QkU8Source src = source < 2 ? (QkU8Source){ .bytes = bytes, .flip = is_signed ? 0x80 : 0, .pad = offset }
                                    : (QkU8Source){ .x = x, .pad = offset };
        /* poisoned: the fill writes every byte a tap reads */
        uint8_t *image = g_new (uint8_t, d.c_quads * d.plane * 4);
        memset (image, 0x5a, (size_t) (d.c_quads * d.plane * 4));
        _executorch_qk_fill_image (&d, &src, image, 0, 1);
        _executorch_qk_fill_image (&d, &src, image, 1, d.c_quads);
        int64_t *koff = g_new (int64_t, k_quads);
        _executorch_qk_direct_offsets (&d, koff);

        /* weights [channel][tap][quad], 0 for the channels past the last */
        uint32_t *w8 = g_new0 (uint32_t, QK_TILE_CHANNELS * k_quads);
        int8_t *w = g_new (int8_t, QK_TILE_CHANNELS * geo.icg * taps);
        for (int64_t ch = 0; ch < QK_TILE_CHANNELS; ch++)
          for (int64_t ci = 0; ci < geo.icg; ci++)
            for (int64_t t = 0; t < taps; t++)
              {
                int8_t v = (int8_t) g_rand_int_range (rand, -128, 128);
                w[(ch * geo.icg + ci) * taps + t] = v;
                w8[ch * k_quads + t * d.c_quads + ci / 4] |= (uint32_t) (uint8_t) v << (8 * (ci % 4));
              }
        int32_t offsets[QK_TILE_CHANNELS];
        for (int ch = 0; ch < QK_TILE_CHANNELS; ch++)
          offsets[ch] = (int32_t) g_rand_int_range (rand, -5000000, 5000000);
        int32_t *acc = g_new (int32_t, QK_TILE_CHANNELS * d.p_pad);
        QkTile8 tile = { image, d.p_pad, k_quads, w8, offsets, acc, d.p_pad, koff };
        /* in two parts, as two tasks would */
        int64_t half = d.p_pad / 2 / QK_TILE_PIXELS * QK_TILE_PIXELS;
        _executorch_qk_tile8_sums (&tile, QK_TILE_CHANNELS, 0, half);
        _executorch_qk_tile8_sums (&tile, QK_TILE_CHANNELS, half, d.p_pad);

        for (int64_t ch = 0; ch < QK_TILE_CHANNELS; ch++)
          for (int64_t y = 0; y < geo.oh; y++)
            for (int64_t xo = 0; xo < geo.ow; xo++)
              {
                int64_t want = -offsets[ch];
                for (int64_t ci = 0; ci < geo.icg; ci++)
                  for (int64_t ky = 0; ky < geo.kh; ky++)
                    for (int64_t kx = 0; kx < geo.kw; kx++)
                      {
                        int64_t yy = y + ky * geo.dilation[0] - geo.padding[0];
                        int64_t xx = xo + kx * geo.dilation[1] - geo.padding[1];
                        bool inside = yy >= 0 && yy < geo.ih && xx >= 0 && xx < geo.iw;
                        int u = inside ? x[(ci * geo.ih + yy) * geo.iw + xx] + offset : offset;
                        want += (int64_t) u * w[(ch * geo.icg + ci) * taps + ky * geo.kw + kx];
                      }
                int32_t got = acc[ch * d.p_pad + y * d.wp + xo];
                if (got != (int32_t) want)
                  g_error ("case %u source %d: channel %" G_GINT64_FORMAT " pixel (%" G_GINT64_FORMAT
                           ", %" G_GINT64_FORMAT ") sums to %d, expected %" G_GINT64_FORMAT,
                           c, source, ch, y, xo, got, want);
              }
        g_free (bytes);
        g_free (x);
        g_free (image);
        g_free (koff);
        g_free (w8);
        g_free (w);
        g_free (acc);
      }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/quantized/int-conv/tiles", test_tiles);
  g_test_add_func ("/quantized/int-conv/tiles-u8", test_tiles_u8);
  g_test_add_func ("/quantized/int-conv/depthwise", test_depthwise);
  g_test_add_func ("/quantized/int-conv/requant-rows", test_requant_rows);
  g_test_add_func ("/quantized/int-conv/columns", test_columns);
  g_test_add_func ("/quantized/int-conv/direct", test_direct);
  return g_test_run ();
}
