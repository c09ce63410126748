/* int-requant.c: an integer product's int32 sums to its float result, or to the quantized bytes after it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every output is (float) ((double) sum * scale + bias), as the float
 * convolution's result; a requantizing site then clamps it (relu,
 * hardtanh) and quantizes it with int8-fast.c's float steps.  The bytes
 * must be exactly those steps' (docs/quantized.md).
 */
#include "int-kernels-private.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#ifdef QK_HAVE_AVX2
/* Four at a time: double multiply, double add, round to float. */
__attribute__ ((target ("avx2"))) static int64_t
scale_avx2 (const int32_t *acc, float *out, int64_t n, double scale, double bias)
{
  __m256d vs = _mm256_set1_pd (scale), vb = _mm256_set1_pd (bias);
  int64_t p = 0;

  for (; p + 4 <= n; p += 4)
    {
      __m256d v = _mm256_cvtepi32_pd (_mm_loadu_si128 ((const __m128i *) (acc + p)));
      _mm_storeu_ps (out + p, _mm256_cvtpd_ps (_mm256_add_pd (_mm256_mul_pd (v, vs), vb)));
    }
  return p;
}
#endif

void
_executorch_qk_scale_row (const int32_t *acc, float *out, int64_t n, double scale, double bias, QkIsa isa)
{
  int64_t p = 0;

#ifdef QK_HAVE_AVX2
  if (isa != QK_ISA_PORTABLE)
    p = scale_avx2 (acc, out, n, scale, bias);
#else
  (void) isa;
#endif
  for (; p < n; p++)
    out[p] = (float) ((double) acc[p] * scale + bias);
}

static void
clamp_row (float *v, int64_t n, float lo, float hi)
{
  /* as the float relu and hardtanh do: max with lo, then min with hi */
  for (int64_t i = 0; i < n; i++)
    {
      float x = v[i] < lo ? lo : v[i];
      v[i] = x > hi ? hi : x;
    }
}

/* The short form of a row's requantization.  With inv = 1.0f / scale_q
 * and f = (float) ((double) sum * scale + bias), the exact steps give
 *
 *   clamp (zp + rint (inv * clamp (f, lo, hi)), qmin, qmax)
 *   = clamp (zp + rint (u), q_lo, q_hi),  u = (float) (inv * f),
 *
 * q_lo and q_hi being lo and hi through the same steps (every step is
 * non-decreasing in f, inv > 0).  One float multiply-add,
 * y = (float) sum * m + c with m = (float) (scale * inv) and
 * c = (float) (bias * inv + zp), is within 2^-21 (|y| + |zp| + 2 |c| + 1)
 * of u + zp: the roundings of sum, m, c and the fma against those of the
 * double sum, the float result and the product, each at most 2^-24
 * relative, plus 2^-100 absolute for subnormals under the limits below
 * (FAST_LIMIT).  So where y lies inside [q_lo, q_hi] and farther than
 * that from a rounding tie, rint (y) = zp + rint (u); where y lies beyond
 * the clamp, so does zp + rint (u).  A vector with a lane nearer a tie
 * than twice the bound takes the exact steps instead (about 1 % of
 * them): the bytes are always the exact steps' bytes (test-int-conv-tiles
 * checks it on rows full of ties). */
typedef struct
{
  float m, c;     /* c includes the zero point: y approximates u + zp */
  float tie;      /* |y - rint (y)| at most this: rint (y) is rint (u) + zp */
  float qlo, qhi; /* q_lo, q_hi */
} FastRequant;

/* @f through the exact steps after the clamp: int8-fast.c's quantize */
static float
level_of (float f, float inv, const QkRequant *rq)
{
  float zp = (float) rq->zero_point, s = zp + nearbyintf (inv * f);

  if (isnan (s))
    s = zp;
  s = s < (float) rq->qmin ? (float) rq->qmin : s;
  return s > (float) rq->qmax ? (float) rq->qmax : s;
}

#define FAST_LIMIT 0x1p40

void
_executorch_qk_requant_prepare (QkRequant *rq)
{
  rq->inv = 1.0f / (float) rq->scale;
  rq->fast = isfinite (rq->inv) && rq->inv > 0.0f && rq->inv <= (float) FAST_LIMIT && rq->lo <= rq->hi &&
             rq->qmin >= -1024 && rq->qmax <= 1024 && rq->zero_point >= -1024 && rq->zero_point <= 1024;
  if (!rq->fast)
    return;
  rq->zp = (float) rq->zero_point;
  rq->qlo = level_of (rq->lo, rq->inv, rq);
  rq->qhi = level_of (rq->hi, rq->inv, rq);
  /* |y| where it is not clamped */
  rq->y_max = MAX (fabsf (rq->qlo), fabsf (rq->qhi)) + 1.0f;
}

/* False where the short form does not apply: scales, bias or clamps out
 * of the ranges the bound above assumes. */
static inline bool
fast_requant_init (const QkRequant *rq, double scale, double bias, FastRequant *fr)
{
  if (!rq->fast || !(fabs (scale) <= FAST_LIMIT) || !(fabs (bias) <= FAST_LIMIT))
    return false;
  fr->m = (float) (scale * (double) rq->inv);
  fr->c = (float) (bias * (double) rq->inv + (double) rq->zp);
  if (!(fabsf (fr->c) <= 2048.0f))
    return false;
  fr->qlo = rq->qlo;
  fr->qhi = rq->qhi;
  /* twice the bound, for |y| up to the clamps plus one */
  fr->tie = 0.5f - 0x1p-20f * (rq->y_max + fabsf (rq->zp) + 2.0f * fabsf (fr->c) + 1.0f);
  return true;
}

#ifdef QK_HAVE_AVX2
/* Eight at a time: the short form where it is sure, else every step as
 * the separate passes do it: scale_avx2's double scaling and float
 * rounding, the clamp, then int8-fast.c's quantize (multiply by the float
 * inverse, round to nearest even, add the zero point, NaN to the zero
 * point, clamp, narrow). */
__attribute__ ((target ("avx2,fma"))) static int64_t
requant_avx2 (const int32_t *acc, void *q, int64_t n, double scale, double bias, const QkRequant *rq)
{
  __m256d vs = _mm256_set1_pd (scale), vb = _mm256_set1_pd (bias);
  __m256 lo = _mm256_set1_ps (rq->lo), hi = _mm256_set1_ps (rq->hi);
  __m256 vinv = _mm256_set1_ps (1.0f / (float) rq->scale), vzp = _mm256_set1_ps ((float) rq->zero_point);
  __m256 qlo = _mm256_set1_ps ((float) rq->qmin), qhi = _mm256_set1_ps ((float) rq->qmax);
  FastRequant fr = { 0 };
  bool fast = fast_requant_init (rq, scale, bias, &fr);
  __m256 vm = _mm256_set1_ps (fr.m), vc = _mm256_set1_ps (fr.c), vtie = _mm256_set1_ps (fr.tie);
  __m256 vqlo = _mm256_set1_ps (fr.qlo), vqhi = _mm256_set1_ps (fr.qhi), sign = _mm256_set1_ps (-0.0f);
  int64_t p = 0;

  for (; p + 8 <= n; p += 8)
    {
      __m256i a = _mm256_loadu_si256 ((const __m256i *) (acc + p)), i32;
      __m256 y = _mm256_fmadd_ps (_mm256_cvtepi32_ps (a), vm, vc);
      /* requant_avx512's steps */
      y = _mm256_min_ps (_mm256_max_ps (y, vqlo), vqhi);
      i32 = _mm256_cvtps_epi32 (y);
      __m256 d = _mm256_sub_ps (y, _mm256_cvtepi32_ps (i32));
      __m256 sure = _mm256_cmp_ps (_mm256_andnot_ps (sign, d), vtie, _CMP_LE_OQ);
      if (!fast || _mm256_movemask_ps (sure) != 0xff)
        {
          __m128 f0 =
              _mm256_cvtpd_ps (_mm256_add_pd (_mm256_mul_pd (_mm256_cvtepi32_pd (_mm256_castsi256_si128 (a)), vs), vb));
          __m128 f1 = _mm256_cvtpd_ps (
              _mm256_add_pd (_mm256_mul_pd (_mm256_cvtepi32_pd (_mm256_extracti128_si256 (a, 1)), vs), vb));
          __m256 v = _mm256_insertf128_ps (_mm256_castps128_ps256 (f0), f1, 1);
          v = _mm256_max_ps (v, lo);
          v = _mm256_min_ps (v, hi);
          v = _mm256_mul_ps (vinv, v);
          __m256 e = _mm256_add_ps (vzp, _mm256_round_ps (v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
          e = _mm256_blendv_ps (e, vzp, _mm256_cmp_ps (e, e, _CMP_UNORD_Q));
          e = _mm256_min_ps (_mm256_max_ps (e, qlo), qhi);
          i32 = _mm256_cvtps_epi32 (e);
        }
      __m128i i16 = _mm_packs_epi32 (_mm256_castsi256_si128 (i32), _mm256_extracti128_si256 (i32, 1));
      __m128i i8 = rq->is_signed ? _mm_packs_epi16 (i16, i16) : _mm_packus_epi16 (i16, i16);
      _mm_storel_epi64 ((__m128i *) ((char *) q + p), i8);
    }
  return p;
}

/* Sixteen at a time, the tail under a mask, with the same steps as
 * requant_avx2 on 512-bit vectors: the exact form. */
__attribute__ ((target ("avx512f,avx512bw,avx512vl,avx512dq"))) static inline __m512i
exact_avx512 (__m512i a, double scale, double bias, const QkRequant *rq)
{
  __m512d vs = _mm512_set1_pd (scale), vb = _mm512_set1_pd (bias);
  __m512 lo = _mm512_set1_ps (rq->lo), hi = _mm512_set1_ps (rq->hi);
  __m512 vinv = _mm512_set1_ps (1.0f / (float) rq->scale), vzp = _mm512_set1_ps ((float) rq->zero_point);
  __m512 qlo = _mm512_set1_ps ((float) rq->qmin), qhi = _mm512_set1_ps ((float) rq->qmax);
  __m256 f0 = _mm512_cvtpd_ps (_mm512_add_pd (_mm512_mul_pd (_mm512_cvtepi32_pd (_mm512_castsi512_si256 (a)), vs), vb));
  __m256 f1 =
      _mm512_cvtpd_ps (_mm512_add_pd (_mm512_mul_pd (_mm512_cvtepi32_pd (_mm512_extracti64x4_epi64 (a, 1)), vs), vb));
  __m512 v = _mm512_insertf32x8 (_mm512_castps256_ps512 (f0), f1, 1);
  v = _mm512_max_ps (v, lo);
  v = _mm512_min_ps (v, hi);
  v = _mm512_mul_ps (vinv, v);
  __m512 r = _mm512_add_ps (vzp, _mm512_roundscale_ps (v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  r = _mm512_mask_blend_ps (_mm512_cmp_ps_mask (r, r, _CMP_UNORD_Q), r, vzp);
  r = _mm512_min_ps (_mm512_max_ps (r, qlo), qhi);
  return _mm512_cvtps_epi32 (r);
}

__attribute__ ((target ("avx512f,avx512bw,avx512vl,avx512dq"))) static void
requant_avx512 (const int32_t *acc, void *q, int64_t n, double scale, double bias, const QkRequant *rq)
{
  FastRequant fr = { 0 };
  bool fast = fast_requant_init (rq, scale, bias, &fr);
  __m512 vm = _mm512_set1_ps (fr.m), vc = _mm512_set1_ps (fr.c), vtie = _mm512_set1_ps (fr.tie);
  __m512 vqlo = _mm512_set1_ps (fr.qlo), vqhi = _mm512_set1_ps (fr.qhi);
  int64_t p = 0;

  /* four vectors a step, one test of their four masks: the steps are
   * independent, so they overlap where one vector's chain would stall */
  for (; fast && p + 64 <= n; p += 64)
    {
      __m512i a[4], i32[4];
      __mmask16 sure[4];
      for (int k = 0; k < 4; k++)
        {
          a[k] = _mm512_loadu_si512 ((const void *) (acc + p + 16 * k));
          __m512 y = _mm512_fmadd_ps (_mm512_cvtepi32_ps (a[k]), vm, vc);
          y = _mm512_min_ps (_mm512_max_ps (y, vqlo), vqhi);
          i32[k] = _mm512_cvtps_epi32 (y);
          sure[k] = _mm512_cmp_ps_mask (_mm512_abs_ps (_mm512_sub_ps (y, _mm512_cvtepi32_ps (i32[k]))), vtie, _CMP_LE_OQ);
        }
      if ((sure[0] & sure[1] & sure[2] & sure[3]) != 0xffff)
        for (int k = 0; k < 4; k++)
          if (sure[k] != 0xffff)
            i32[k] = exact_avx512 (a[k], scale, bias, rq);
      __m512i bytes = _mm512_castsi128_si512 (rq->is_signed ? _mm512_cvtsepi32_epi8 (i32[0]) : _mm512_cvtusepi32_epi8 (i32[0]));
      bytes = _mm512_inserti32x4 (bytes, rq->is_signed ? _mm512_cvtsepi32_epi8 (i32[1]) : _mm512_cvtusepi32_epi8 (i32[1]), 1);
      bytes = _mm512_inserti32x4 (bytes, rq->is_signed ? _mm512_cvtsepi32_epi8 (i32[2]) : _mm512_cvtusepi32_epi8 (i32[2]), 2);
      bytes = _mm512_inserti32x4 (bytes, rq->is_signed ? _mm512_cvtsepi32_epi8 (i32[3]) : _mm512_cvtusepi32_epi8 (i32[3]), 3);
      _mm512_storeu_si512 ((void *) ((char *) q + p), bytes);
    }
  for (; p < n; p += 16)
    {
      __mmask16 m = n - p >= 16 ? (__mmask16) 0xffff : (__mmask16) ((1u << (n - p)) - 1);
      __m512i a = _mm512_maskz_loadu_epi32 (m, acc + p), i32;
      __m512 y = _mm512_fmadd_ps (_mm512_cvtepi32_ps (a), vm, vc);
      /* clamped first to [q_lo, q_hi], integers: a lane clamped rounds to
       * its bound whatever u was, and passes the test (y - rint (y) = 0);
       * the rounding is the conversion's, to nearest even; y - rint (y)
       * is exact (Sterbenz) */
      y = _mm512_min_ps (_mm512_max_ps (y, vqlo), vqhi);
      i32 = _mm512_cvtps_epi32 (y);
      __m512 d = _mm512_sub_ps (y, _mm512_cvtepi32_ps (i32));
      __mmask16 sure = _mm512_mask_cmp_ps_mask (m, _mm512_abs_ps (d), vtie, _CMP_LE_OQ);
      if (!fast || sure != m)
        i32 = exact_avx512 (a, scale, bias, rq);
      /* in [qmin, qmax], inside the byte's range: the saturation never
       * acts; narrowed in registers (the masked narrowing store is slow) */
      __m128i bytes = rq->is_signed ? _mm512_cvtsepi32_epi8 (i32) : _mm512_cvtusepi32_epi8 (i32);
      if (m == 0xffff)
        _mm_storeu_si128 ((__m128i *) ((char *) q + p), bytes);
      else
        _mm_mask_storeu_epi8 ((char *) q + p, m, bytes);
    }
}
#endif

void
_executorch_qk_emit_row (const QkOutput *o, const int32_t *acc, int64_t offset, int64_t n, double scale, double bias)
{
  float row[256];
  int64_t done = 0;

  if (o->q == NULL)
    {
      _executorch_qk_scale_row (acc, o->f + offset, n, scale, bias, o->isa);
      return;
    }
#ifdef QK_HAVE_AVX2
  if (o->isa == QK_ISA_AVX512_VNNI)
    {
      requant_avx512 (acc, (char *) o->q + offset, n, scale, bias, o->requant);
      return;
    }
  if (o->isa != QK_ISA_PORTABLE)
    done = requant_avx2 (acc, (char *) o->q + offset, n, scale, bias, o->requant);
#endif
  acc += done, offset += done, n -= done;
  for (int64_t i = 0; i < n; i += (int64_t) G_N_ELEMENTS (row))
    {
      int64_t m = MIN (n - i, (int64_t) G_N_ELEMENTS (row));
      const QkRequant *rq = o->requant;
      _executorch_qk_scale_row (acc + i, row, m, scale, bias, o->isa);
      clamp_row (row, m, rq->lo, rq->hi);
      _executorch_qk_quantize_float_to_8bit (row, (char *) o->q + offset + i, rq->is_signed, m, rq->scale,
                                             rq->zero_point, rq->qmin, rq->qmax);
    }
}
