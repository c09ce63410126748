/* dynamic-quant-vnni.c: the int8 dot products of dynamic-quant.c on
 * AVX-VNNI (256-bit) and AVX-512 VNNI
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vpdpbusd multiplies unsigned bytes by signed bytes and adds each group
 * of four products to an int32 lane, without saturation (modulo 2^32).
 * 4-bit weights go in as the unsigned operand (value + 8, 0..15: the 8
 * comes back out with the activations' block sums); against 8-bit weights
 * the activations go in as x + 128 (uint8) and the caller takes
 * 128 * sum (w) back out.  Built with target attributes and called only
 * when xb_dq_isa_available() says so.  The float operations are those of
 * the portable loops in their order: results equal theirs bit for bit.
 */
#include "dynamic-quant.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* how far ahead of the kernels the weights are fetched: the hardware
 * prefetchers alone leave the dot products waiting (measured: decode of a
 * dim-512 llama ~12% faster) */
#define PREFETCH_BYTES 1024

#define VNNI256 __attribute__ ((target ("avx2,fma,avxvnni")))
#define VNNI512 __attribute__ ((target ("avx2,fma,avx512f,avx512bw,avx512vnni")))

static inline int32_t
load_i32 (const int8_t *p)
{
  int32_t v;
  memcpy (&v, p, 4);
  return v;
}

/* ---- 4-bit tiles ---- */

/* Half @h of a tile (channels 8h..8h+7, bytes 32h..32h+31 of each 64-byte
 * group); the low and high nibbles feed separate accumulators so that two
 * vpdpbusd chains run side by side. */
VNNI256 static inline __attribute__ ((always_inline)) void
tile4_half_256 (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups, const int8_t *const *x,
                const int32_t *const *xsum8, float *out, const int nr, const int h)
{
  const __m256i low = _mm256_set1_epi8 (15);
  __m256 facc[4] = { _mm256_setzero_ps (), _mm256_setzero_ps (), _mm256_setzero_ps (), _mm256_setzero_ps () };
  const uint8_t *wp = w + 32 * h;
  size_t k = 0;
  for (size_t b = 0; b < n_blocks; b++)
    {
      __m256i acc_lo[4], acc_hi[4];
      for (int r = 0; r < nr; r++)
        acc_lo[r] = acc_hi[r] = _mm256_setzero_si256 ();
      for (size_t g = 0; g < block_groups; g++, wp += 64, k += 8)
        {
          if (h == 0) /* the second half finds the tile in cache */
            _mm_prefetch ((const char *) (wp + PREFETCH_BYTES), _MM_HINT_T0);
          __m256i packed = _mm256_loadu_si256 ((const __m256i *) (const void *) wp);
          __m256i lo = _mm256_and_si256 (packed, low);
          __m256i hi = _mm256_and_si256 (_mm256_srli_epi16 (packed, 4), low);
          for (int r = 0; r < nr; r++)
            {
              acc_lo[r] = _mm256_dpbusd_avx_epi32 (acc_lo[r], lo, _mm256_set1_epi32 (load_i32 (x[r] + k)));
              acc_hi[r] = _mm256_dpbusd_avx_epi32 (acc_hi[r], hi, _mm256_set1_epi32 (load_i32 (x[r] + k + 4)));
            }
        }
      __m256 scale = _mm256_castsi256_ps (
          _mm256_slli_epi32 (_mm256_cvtepu16_epi32 (
                                 _mm_loadu_si128 ((const __m128i *) (const void *) (scales + b * XB_DQ_TILE + 8 * h))),
                             16));
      for (int r = 0; r < nr; r++)
        {
          __m256i d = _mm256_sub_epi32 (_mm256_add_epi32 (acc_lo[r], acc_hi[r]), _mm256_set1_epi32 (xsum8[r][b]));
          facc[r] = _mm256_fmadd_ps (_mm256_cvtepi32_ps (d), scale, facc[r]);
        }
    }
  for (int r = 0; r < nr; r++)
    _mm256_storeu_ps (out + r * XB_DQ_TILE + 8 * h, facc[r]);
}

VNNI256 static inline __attribute__ ((always_inline)) void
tile4_rows_256 (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups, const int8_t *const *x,
                const int32_t *const *xsum8, float *out, const int nr)
{
  tile4_half_256 (w, scales, n_blocks, block_groups, x, xsum8, out, nr, 0);
  tile4_half_256 (w, scales, n_blocks, block_groups, x, xsum8, out, nr, 1);
}

VNNI256 void
xb_dq_tile4_avxvnni (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                     const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr)
{
  switch (nr)
    {
      case 1: tile4_rows_256 (w, scales, n_blocks, block_groups, x, xsum8, out, 1); break;
      case 2: tile4_rows_256 (w, scales, n_blocks, block_groups, x, xsum8, out, 2); break;
      case 3: tile4_rows_256 (w, scales, n_blocks, block_groups, x, xsum8, out, 3); break;
      default: tile4_rows_256 (w, scales, n_blocks, block_groups, x, xsum8, out, 4); break;
    }
}

/* The whole tile in 16 lanes.  Groups go two at a time, each with its own
 * low- and high-nibble accumulators: four independent vpdpbusd chains per
 * row, so that a single row (decode) is not bound by their latency. */
VNNI512 static inline __attribute__ ((always_inline)) void
tile4_rows_512 (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups, const int8_t *const *x,
                const int32_t *const *xsum8, float *out, const int nr)
{
  const __m512i low = _mm512_set1_epi8 (15);
  __m512 facc[4];
  for (int r = 0; r < nr; r++)
    facc[r] = _mm512_setzero_ps ();
  const uint8_t *wp = w;
  size_t k = 0;
  for (size_t b = 0; b < n_blocks; b++)
    {
      __m512i acc[4][4];
      for (int r = 0; r < nr; r++)
        acc[r][0] = acc[r][1] = acc[r][2] = acc[r][3] = _mm512_setzero_si512 ();
      size_t g = 0;
      for (; g + 2 <= block_groups; g += 2, wp += 128, k += 16)
        {
          _mm_prefetch ((const char *) (wp + PREFETCH_BYTES), _MM_HINT_T0);
          _mm_prefetch ((const char *) (wp + PREFETCH_BYTES + 64), _MM_HINT_T0);
          __m512i p0 = _mm512_loadu_si512 ((const void *) wp);
          __m512i p1 = _mm512_loadu_si512 ((const void *) (wp + 64));
          __m512i lo0 = _mm512_and_si512 (p0, low), hi0 = _mm512_and_si512 (_mm512_srli_epi16 (p0, 4), low);
          __m512i lo1 = _mm512_and_si512 (p1, low), hi1 = _mm512_and_si512 (_mm512_srli_epi16 (p1, 4), low);
          for (int r = 0; r < nr; r++)
            {
              acc[r][0] = _mm512_dpbusd_epi32 (acc[r][0], lo0, _mm512_set1_epi32 (load_i32 (x[r] + k)));
              acc[r][1] = _mm512_dpbusd_epi32 (acc[r][1], hi0, _mm512_set1_epi32 (load_i32 (x[r] + k + 4)));
              acc[r][2] = _mm512_dpbusd_epi32 (acc[r][2], lo1, _mm512_set1_epi32 (load_i32 (x[r] + k + 8)));
              acc[r][3] = _mm512_dpbusd_epi32 (acc[r][3], hi1, _mm512_set1_epi32 (load_i32 (x[r] + k + 12)));
            }
        }
      if (g < block_groups)
        {
          __m512i p0 = _mm512_loadu_si512 ((const void *) wp);
          __m512i lo0 = _mm512_and_si512 (p0, low), hi0 = _mm512_and_si512 (_mm512_srli_epi16 (p0, 4), low);
          for (int r = 0; r < nr; r++)
            {
              acc[r][0] = _mm512_dpbusd_epi32 (acc[r][0], lo0, _mm512_set1_epi32 (load_i32 (x[r] + k)));
              acc[r][1] = _mm512_dpbusd_epi32 (acc[r][1], hi0, _mm512_set1_epi32 (load_i32 (x[r] + k + 4)));
            }
          wp += 64, k += 8;
        }
      __m512 scale =
          _mm512_castsi512_ps (_mm512_slli_epi32 (_mm512_cvtepu16_epi32 (_mm256_loadu_si256 (
                                                      (const __m256i *) (const void *) (scales + b * XB_DQ_TILE))),
                                                  16));
      for (int r = 0; r < nr; r++)
        {
          __m512i sum =
              _mm512_add_epi32 (_mm512_add_epi32 (acc[r][0], acc[r][1]), _mm512_add_epi32 (acc[r][2], acc[r][3]));
          __m512i d = _mm512_sub_epi32 (sum, _mm512_set1_epi32 (xsum8[r][b]));
          facc[r] = _mm512_fmadd_ps (_mm512_cvtepi32_ps (d), scale, facc[r]);
        }
    }
  for (int r = 0; r < nr; r++)
    _mm512_storeu_ps (out + r * XB_DQ_TILE, facc[r]);
}

VNNI512 void
xb_dq_tile4_avx512vnni (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                        const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr)
{
  switch (nr)
    {
      case 1: tile4_rows_512 (w, scales, n_blocks, block_groups, x, xsum8, out, 1); break;
      case 2: tile4_rows_512 (w, scales, n_blocks, block_groups, x, xsum8, out, 2); break;
      case 3: tile4_rows_512 (w, scales, n_blocks, block_groups, x, xsum8, out, 3); break;
      default: tile4_rows_512 (w, scales, n_blocks, block_groups, x, xsum8, out, 4); break;
    }
}

/* ---- 8-bit weights, one channel's row ---- */

VNNI256 static inline __attribute__ ((always_inline)) void
dot_u8i8_256 (const uint8_t *const *xu, const int8_t *w, size_t n, uint32_t *dots, const int nr)
{
  __m256i acc[4][2];
  for (int r = 0; r < nr; r++)
    acc[r][0] = acc[r][1] = _mm256_setzero_si256 ();
  size_t i = 0;
  for (; i + 64 <= n; i += 64)
    {
      __m256i w0 = _mm256_loadu_si256 ((const __m256i *) (const void *) (w + i));
      __m256i w1 = _mm256_loadu_si256 ((const __m256i *) (const void *) (w + i + 32));
      for (int r = 0; r < nr; r++)
        {
          __m256i x0 = _mm256_loadu_si256 ((const __m256i *) (const void *) (xu[r] + i));
          __m256i x1 = _mm256_loadu_si256 ((const __m256i *) (const void *) (xu[r] + i + 32));
          acc[r][0] = _mm256_dpbusd_avx_epi32 (acc[r][0], x0, w0);
          acc[r][1] = _mm256_dpbusd_avx_epi32 (acc[r][1], x1, w1);
        }
    }
  for (; i + 32 <= n; i += 32)
    {
      __m256i w0 = _mm256_loadu_si256 ((const __m256i *) (const void *) (w + i));
      for (int r = 0; r < nr; r++)
        acc[r][0] =
            _mm256_dpbusd_avx_epi32 (acc[r][0], _mm256_loadu_si256 ((const __m256i *) (const void *) (xu[r] + i)), w0);
    }
  for (int r = 0; r < nr; r++)
    {
      __m256i v = _mm256_add_epi32 (acc[r][0], acc[r][1]);
      __m128i s = _mm_add_epi32 (_mm256_castsi256_si128 (v), _mm256_extracti128_si256 (v, 1));
      s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, _MM_SHUFFLE (1, 0, 3, 2)));
      s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, _MM_SHUFFLE (2, 3, 0, 1)));
      uint32_t sum = (uint32_t) _mm_cvtsi128_si32 (s);
      for (size_t j = i; j < n; j++)
        sum += (uint32_t) ((int32_t) xu[r][j] * w[j]);
      dots[r] = sum;
    }
}

VNNI256 void
xb_dq_dot_u8i8_avxvnni (const uint8_t *const xu[4], const int8_t *w, size_t n, uint32_t dots[4], int nr)
{
  if (nr == 4)
    dot_u8i8_256 (xu, w, n, dots, 4);
  else
    for (int r = 0; r < nr; r++)
      dot_u8i8_256 (&xu[r], w, n, &dots[r], 1);
}

/* The tail goes through masked loads (zeros past @n, no access there). */
VNNI512 static inline __attribute__ ((always_inline)) void
dot_u8i8_512 (const uint8_t *const *xu, const int8_t *w, size_t n, uint32_t *dots, const int nr)
{
  __m512i acc[4][2];
  for (int r = 0; r < nr; r++)
    acc[r][0] = acc[r][1] = _mm512_setzero_si512 ();
  size_t i = 0;
  for (; i + 128 <= n; i += 128)
    {
      __m512i w0 = _mm512_loadu_si512 ((const void *) (w + i));
      __m512i w1 = _mm512_loadu_si512 ((const void *) (w + i + 64));
      for (int r = 0; r < nr; r++)
        {
          acc[r][0] = _mm512_dpbusd_epi32 (acc[r][0], _mm512_loadu_si512 ((const void *) (xu[r] + i)), w0);
          acc[r][1] = _mm512_dpbusd_epi32 (acc[r][1], _mm512_loadu_si512 ((const void *) (xu[r] + i + 64)), w1);
        }
    }
  for (; i < n; i += 64)
    {
      __mmask64 mask = n - i >= 64 ? ~(__mmask64) 0 : ((__mmask64) 1 << (n - i)) - 1;
      __m512i w0 = _mm512_maskz_loadu_epi8 (mask, w + i);
      for (int r = 0; r < nr; r++)
        acc[r][0] = _mm512_dpbusd_epi32 (acc[r][0], _mm512_maskz_loadu_epi8 (mask, xu[r] + i), w0);
    }
  for (int r = 0; r < nr; r++)
    dots[r] = (uint32_t) _mm512_reduce_add_epi32 (_mm512_add_epi32 (acc[r][0], acc[r][1]));
}

VNNI512 void
xb_dq_dot_u8i8_avx512vnni (const uint8_t *const xu[4], const int8_t *w, size_t n, uint32_t dots[4], int nr)
{
  if (nr == 4)
    dot_u8i8_512 (xu, w, n, dots, 4);
  else
    for (int r = 0; r < nr; r++)
      dot_u8i8_512 (&xu[r], w, n, &dots[r], 1);
}

#else

void
xb_dq_tile4_avxvnni (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                     const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr)
{
  g_assert_not_reached ();
}

void
xb_dq_tile4_avx512vnni (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                        const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr)
{
  g_assert_not_reached ();
}

void
xb_dq_dot_u8i8_avxvnni (const uint8_t *const xu[4], const int8_t *w, size_t n, uint32_t dots[4], int nr)
{
  g_assert_not_reached ();
}

void
xb_dq_dot_u8i8_avx512vnni (const uint8_t *const xu[4], const int8_t *w, size_t n, uint32_t dots[4], int nr)
{
  g_assert_not_reached ();
}

#endif
