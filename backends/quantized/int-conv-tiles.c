/* int-conv-tiles.c: the integer convolution's inner products, a tile of channels by pixels at a time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The columns are cols[kk][p_pad][2] (two int16 reduction indices per
 * pixel) and the weights w[oc][k_pairs] (the same two as one 32-bit word);
 * the sums are int32 and exact, so every version gives the same bits.
 *
 * A tile keeps up to 4 channels x 32 pixels of sums in registers over the
 * whole reduction, reading one cache line of columns per pair of indices:
 * int-conv.c calls it on a stretch of pixels small enough that its columns
 * stay in cache while every channel block passes over them.
 *
 *   AVX-512 VNNI  vpdpwssd: 16 pixels' pair products added in one instruction;
 *   AVX2          vpmaddwd then vpaddd, 8 pixels at a time;
 *   portable      plain C.
 */
#include "int-kernels-private.h"

#include <string.h>

static int isa_state = -1;

QkIsa
_executorch_qk_isa (void)
{
  int s = __atomic_load_n (&isa_state, __ATOMIC_ACQUIRE);

  if (s < 0)
    {
      s = QK_ISA_PORTABLE;
#ifdef QK_HAVE_AVX2
      if (_executorch_support_cpu_has_avx2_fma ())
        s = QK_ISA_AVX2;
      /* _executorch_support_cpu_has_avx512 honours EXECUTORCH_KERNELS_NO_AVX512 */
      if (_executorch_support_cpu_has_avx512 () && __builtin_cpu_supports ("avx512bw") &&
          __builtin_cpu_supports ("avx512vl") && __builtin_cpu_supports ("avx512vnni"))
        s = QK_ISA_AVX512_VNNI;
#endif
      __atomic_store_n (&isa_state, s, __ATOMIC_RELEASE);
    }
  return (QkIsa) s;
}

static void
sums_portable (const QkTile *t, int64_t n_channels, int64_t p0, int64_t p1)
{
  for (int64_t c = 0; c < n_channels; c++)
    {
      int32_t *acc = t->acc + c * t->acc_stride;
      const uint32_t *w = t->w + c * t->k_pairs;

      memset (acc + p0, 0, (size_t) (p1 - p0) * sizeof (int32_t));
      for (int64_t kk = 0; kk < t->k_pairs; kk++)
        {
          int32_t w0 = (int16_t) (w[kk] & 0xffff), w1 = (int16_t) (w[kk] >> 16);
          const int16_t *col = t->cols + kk * t->p_pad * 2;
          for (int64_t p = p0; p < p1; p++)
            acc[p] += col[2 * p] * w0 + col[2 * p + 1] * w1;
        }
    }
}

#ifdef QK_HAVE_AVX2
/* 4 channels x 16 pixels */
__attribute__ ((target ("avx2"))) static void
tile_avx2_4x16 (const QkTile *t, int64_t p)
{
  const uint32_t *w = t->w;
  const int16_t *c = t->cols + p * 2;
  int64_t kp = t->k_pairs, step = t->p_pad * 2;
  __m256i a00 = _mm256_setzero_si256 (), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;

  for (int64_t kk = 0; kk < kp; kk++, c += step)
    {
      __m256i x0 = _mm256_loadu_si256 ((const __m256i *) c);
      __m256i x1 = _mm256_loadu_si256 ((const __m256i *) (c + 16));
      __m256i w0 = _mm256_set1_epi32 ((int32_t) w[kk]), w1 = _mm256_set1_epi32 ((int32_t) w[kp + kk]);
      __m256i w2 = _mm256_set1_epi32 ((int32_t) w[2 * kp + kk]), w3 = _mm256_set1_epi32 ((int32_t) w[3 * kp + kk]);
      a00 = _mm256_add_epi32 (a00, _mm256_madd_epi16 (x0, w0));
      a01 = _mm256_add_epi32 (a01, _mm256_madd_epi16 (x1, w0));
      a10 = _mm256_add_epi32 (a10, _mm256_madd_epi16 (x0, w1));
      a11 = _mm256_add_epi32 (a11, _mm256_madd_epi16 (x1, w1));
      a20 = _mm256_add_epi32 (a20, _mm256_madd_epi16 (x0, w2));
      a21 = _mm256_add_epi32 (a21, _mm256_madd_epi16 (x1, w2));
      a30 = _mm256_add_epi32 (a30, _mm256_madd_epi16 (x0, w3));
      a31 = _mm256_add_epi32 (a31, _mm256_madd_epi16 (x1, w3));
    }
  int32_t *acc = t->acc + p;
  int64_t s = t->acc_stride;
  _mm256_storeu_si256 ((__m256i *) acc, a00);
  _mm256_storeu_si256 ((__m256i *) (acc + 8), a01);
  _mm256_storeu_si256 ((__m256i *) (acc + s), a10);
  _mm256_storeu_si256 ((__m256i *) (acc + s + 8), a11);
  _mm256_storeu_si256 ((__m256i *) (acc + 2 * s), a20);
  _mm256_storeu_si256 ((__m256i *) (acc + 2 * s + 8), a21);
  _mm256_storeu_si256 ((__m256i *) (acc + 3 * s), a30);
  _mm256_storeu_si256 ((__m256i *) (acc + 3 * s + 8), a31);
}

/* 1 channel x 16 pixels (the last channels of a group not a multiple of 4) */
__attribute__ ((target ("avx2"))) static void
tile_avx2_1x16 (const QkTile *t, int64_t channel, int64_t p)
{
  const uint32_t *w = t->w + channel * t->k_pairs;
  const int16_t *c = t->cols + p * 2;
  int64_t step = t->p_pad * 2;
  __m256i a0 = _mm256_setzero_si256 (), a1 = a0;

  for (int64_t kk = 0; kk < t->k_pairs; kk++, c += step)
    {
      __m256i wv = _mm256_set1_epi32 ((int32_t) w[kk]);
      a0 = _mm256_add_epi32 (a0, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) c), wv));
      a1 = _mm256_add_epi32 (a1, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (c + 16)), wv));
    }
  _mm256_storeu_si256 ((__m256i *) (t->acc + channel * t->acc_stride + p), a0);
  _mm256_storeu_si256 ((__m256i *) (t->acc + channel * t->acc_stride + p + 8), a1);
}

/* 4 channels x 32 pixels */
__attribute__ ((target ("avx512f,avx512bw,avx512vnni"))) static void
tile_vnni_4x32 (const QkTile *t, int64_t p)
{
  const uint32_t *w = t->w;
  const int16_t *c = t->cols + p * 2;
  int64_t kp = t->k_pairs, step = t->p_pad * 2;
  __m512i a00 = _mm512_setzero_si512 (), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;

  for (int64_t kk = 0; kk < kp; kk++, c += step)
    {
      __m512i x0 = _mm512_loadu_si512 ((const void *) c);
      __m512i x1 = _mm512_loadu_si512 ((const void *) (c + 32));
      __m512i w0 = _mm512_set1_epi32 ((int32_t) w[kk]), w1 = _mm512_set1_epi32 ((int32_t) w[kp + kk]);
      __m512i w2 = _mm512_set1_epi32 ((int32_t) w[2 * kp + kk]), w3 = _mm512_set1_epi32 ((int32_t) w[3 * kp + kk]);
      a00 = _mm512_dpwssd_epi32 (a00, x0, w0);
      a01 = _mm512_dpwssd_epi32 (a01, x1, w0);
      a10 = _mm512_dpwssd_epi32 (a10, x0, w1);
      a11 = _mm512_dpwssd_epi32 (a11, x1, w1);
      a20 = _mm512_dpwssd_epi32 (a20, x0, w2);
      a21 = _mm512_dpwssd_epi32 (a21, x1, w2);
      a30 = _mm512_dpwssd_epi32 (a30, x0, w3);
      a31 = _mm512_dpwssd_epi32 (a31, x1, w3);
    }
  int32_t *acc = t->acc + p;
  int64_t s = t->acc_stride;
  _mm512_storeu_si512 ((void *) acc, a00);
  _mm512_storeu_si512 ((void *) (acc + 16), a01);
  _mm512_storeu_si512 ((void *) (acc + s), a10);
  _mm512_storeu_si512 ((void *) (acc + s + 16), a11);
  _mm512_storeu_si512 ((void *) (acc + 2 * s), a20);
  _mm512_storeu_si512 ((void *) (acc + 2 * s + 16), a21);
  _mm512_storeu_si512 ((void *) (acc + 3 * s), a30);
  _mm512_storeu_si512 ((void *) (acc + 3 * s + 16), a31);
}

/* @n_channels (1 to 4) x 16 pixels */
__attribute__ ((target ("avx512f,avx512bw,avx512vnni"))) static void
tile_vnni_nx16 (const QkTile *t, int64_t n_channels, int64_t p)
{
  for (int64_t ch = 0; ch < n_channels; ch++)
    {
      const uint32_t *w = t->w + ch * t->k_pairs;
      const int16_t *c = t->cols + p * 2;
      int64_t step = t->p_pad * 2;
      __m512i a = _mm512_setzero_si512 (), b = a;
      int64_t kk = 0;

      /* two chains, so consecutive vpdpwssd do not wait on each other */
      for (; kk + 2 <= t->k_pairs; kk += 2, c += 2 * step)
        {
          a = _mm512_dpwssd_epi32 (a, _mm512_loadu_si512 ((const void *) c), _mm512_set1_epi32 ((int32_t) w[kk]));
          b = _mm512_dpwssd_epi32 (b, _mm512_loadu_si512 ((const void *) (c + step)),
                                   _mm512_set1_epi32 ((int32_t) w[kk + 1]));
        }
      if (kk < t->k_pairs)
        a = _mm512_dpwssd_epi32 (a, _mm512_loadu_si512 ((const void *) c), _mm512_set1_epi32 ((int32_t) w[kk]));
      _mm512_storeu_si512 ((void *) (t->acc + ch * t->acc_stride + p), _mm512_add_epi32 (a, b));
    }
}
#endif

#ifdef QK_HAVE_AVX2
/* Row q of the quads: at q * p_pad * 4 bytes of cols8, or at koff[q]
 * bytes (the direct form's taps); each kernel below is built for both, the
 * table costing a load per row. */
#define QUAD_ROW(t, c0, q, step, taps) ((taps) ? (c0) + (t)->koff[q] : (c0) + (q) * (step))

/* 4 channels x 32 pixels of u8 x s8 quads */
__attribute__ ((target ("avx512f,avx512bw,avx512vnni"))) static inline __attribute__ ((always_inline)) void
tile8_vnni_4x32_body (const QkTile8 *t, int64_t p, bool taps)
{
  const uint32_t *w = t->w8;
  const uint8_t *c0 = t->cols8 + p * 4;
  int64_t kq = t->k_quads, step = t->p_pad * 4;
  __m512i a00 = _mm512_setzero_si512 (), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;

  for (int64_t q = 0; q < kq; q++)
    {
      const uint8_t *c = QUAD_ROW (t, c0, q, step, taps);
      __m512i x0 = _mm512_loadu_si512 ((const void *) c);
      __m512i x1 = _mm512_loadu_si512 ((const void *) (c + 64));
      __m512i w0 = _mm512_set1_epi32 ((int32_t) w[q]), w1 = _mm512_set1_epi32 ((int32_t) w[kq + q]);
      __m512i w2 = _mm512_set1_epi32 ((int32_t) w[2 * kq + q]), w3 = _mm512_set1_epi32 ((int32_t) w[3 * kq + q]);
      a00 = _mm512_dpbusd_epi32 (a00, x0, w0);
      a01 = _mm512_dpbusd_epi32 (a01, x1, w0);
      a10 = _mm512_dpbusd_epi32 (a10, x0, w1);
      a11 = _mm512_dpbusd_epi32 (a11, x1, w1);
      a20 = _mm512_dpbusd_epi32 (a20, x0, w2);
      a21 = _mm512_dpbusd_epi32 (a21, x1, w2);
      a30 = _mm512_dpbusd_epi32 (a30, x0, w3);
      a31 = _mm512_dpbusd_epi32 (a31, x1, w3);
    }
  int32_t *acc = t->acc + p;
  int64_t s = t->acc_stride;
  __m512i o0 = _mm512_set1_epi32 (t->offset[0]), o1 = _mm512_set1_epi32 (t->offset[1]);
  __m512i o2 = _mm512_set1_epi32 (t->offset[2]), o3 = _mm512_set1_epi32 (t->offset[3]);
  _mm512_storeu_si512 ((void *) acc, _mm512_sub_epi32 (a00, o0));
  _mm512_storeu_si512 ((void *) (acc + 16), _mm512_sub_epi32 (a01, o0));
  _mm512_storeu_si512 ((void *) (acc + s), _mm512_sub_epi32 (a10, o1));
  _mm512_storeu_si512 ((void *) (acc + s + 16), _mm512_sub_epi32 (a11, o1));
  _mm512_storeu_si512 ((void *) (acc + 2 * s), _mm512_sub_epi32 (a20, o2));
  _mm512_storeu_si512 ((void *) (acc + 2 * s + 16), _mm512_sub_epi32 (a21, o2));
  _mm512_storeu_si512 ((void *) (acc + 3 * s), _mm512_sub_epi32 (a30, o3));
  _mm512_storeu_si512 ((void *) (acc + 3 * s + 16), _mm512_sub_epi32 (a31, o3));
}

/* @n_channels (1 to 4) x 16 pixels */
__attribute__ ((target ("avx512f,avx512bw,avx512vnni"))) static inline __attribute__ ((always_inline)) void
tile8_vnni_nx16_body (const QkTile8 *t, int64_t n_channels, int64_t p, bool taps)
{
  for (int64_t ch = 0; ch < n_channels; ch++)
    {
      const uint32_t *w = t->w8 + ch * t->k_quads;
      const uint8_t *c0 = t->cols8 + p * 4;
      int64_t step = t->p_pad * 4, q = 0;
      __m512i a = _mm512_setzero_si512 (), b = a;

      for (; q + 2 <= t->k_quads; q += 2)
        {
          a = _mm512_dpbusd_epi32 (a, _mm512_loadu_si512 ((const void *) QUAD_ROW (t, c0, q, step, taps)),
                                   _mm512_set1_epi32 ((int32_t) w[q]));
          b = _mm512_dpbusd_epi32 (b, _mm512_loadu_si512 ((const void *) QUAD_ROW (t, c0, q + 1, step, taps)),
                                   _mm512_set1_epi32 ((int32_t) w[q + 1]));
        }
      if (q < t->k_quads)
        a = _mm512_dpbusd_epi32 (a, _mm512_loadu_si512 ((const void *) QUAD_ROW (t, c0, q, step, taps)),
                                 _mm512_set1_epi32 ((int32_t) w[q]));
      _mm512_storeu_si512 ((void *) (t->acc + ch * t->acc_stride + p),
                           _mm512_sub_epi32 (_mm512_add_epi32 (a, b), _mm512_set1_epi32 (t->offset[ch])));
    }
}

/* The pixels [p0, p1) of a tile, rows at @taps' offsets or not. */
__attribute__ ((target ("avx512f,avx512bw,avx512vnni"))) static inline __attribute__ ((always_inline)) void
tile8_vnni_body (const QkTile8 *tile, int64_t n_channels, int64_t p0, int64_t p1, bool taps)
{
  int64_t p = p0;

  if (n_channels == QK_TILE_CHANNELS)
    for (; p + 32 <= p1; p += 32)
      tile8_vnni_4x32_body (tile, p, taps);
  for (; p < p1; p += 16)
    tile8_vnni_nx16_body (tile, n_channels, p, taps);
}

__attribute__ ((target ("avx512f,avx512bw,avx512vnni"))) static void
tile8_vnni_rows (const QkTile8 *tile, int64_t n_channels, int64_t p0, int64_t p1)
{
  tile8_vnni_body (tile, n_channels, p0, p1, false);
}

__attribute__ ((target ("avx512f,avx512bw,avx512vnni"))) static void
tile8_vnni_taps (const QkTile8 *tile, int64_t n_channels, int64_t p0, int64_t p1)
{
  tile8_vnni_body (tile, n_channels, p0, p1, true);
}
#endif

void
_executorch_qk_tile8_sums (const QkTile8 *tile, int64_t n_channels, int64_t p0, int64_t p1)
{
#ifdef QK_HAVE_AVX2
  if (tile->koff != NULL)
    tile8_vnni_taps (tile, n_channels, p0, p1);
  else
    tile8_vnni_rows (tile, n_channels, p0, p1);
#else
  (void) tile, (void) n_channels, (void) p0, (void) p1;
#endif
}

void
_executorch_qk_tile_sums (const QkTile *tile, QkIsa isa, int64_t n_channels, int64_t p0, int64_t p1)
{
  int64_t p = p0;

#ifdef QK_HAVE_AVX2
  if (isa == QK_ISA_AVX512_VNNI)
    {
      if (n_channels == QK_TILE_CHANNELS)
        for (; p + 32 <= p1; p += 32)
          tile_vnni_4x32 (tile, p);
      for (; p < p1; p += 16)
        tile_vnni_nx16 (tile, n_channels, p);
      return;
    }
  if (isa == QK_ISA_AVX2)
    {
      for (; p < p1; p += 16)
        if (n_channels == QK_TILE_CHANNELS)
          tile_avx2_4x16 (tile, p);
        else
          for (int64_t ch = 0; ch < n_channels; ch++)
            tile_avx2_1x16 (tile, ch, p);
      return;
    }
#endif
  (void) isa;
  sums_portable (tile, n_channels, p0, p1);
}
