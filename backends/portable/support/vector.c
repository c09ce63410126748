/* vector.c: vectorised float32 loops (AVX2+FMA with a portable fallback)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See vector.h for the accuracy of each helper.  The AVX2 functions are
 * compiled with a target attribute, so the library itself still runs on
 * any x86-64; libexecutorch-support decides once per process whether they
 * run (_executorch_support_cpu_has_avx2_fma).
 */
#include "vector.h"
#include "support-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_PATH 1
#include <immintrin.h>
#endif

/* ---- Portable scalar forms ---- */

static inline float
gelu_scalar (float x, bool tanh_form)
{
  if (x == -INFINITY)
    return 0.0f;
  if (tanh_form)
    {
      /* 0.5 x (1 + tanh(y)) = x / (1 + e^{-2y}): no cancellation for x << 0 */
      const float k = 0.7978845608028654f; /* sqrt(2/pi) */
      float inner = k * (x + 0.044715f * x * x * x);
      return x / (1.0f + expf (-2.0f * inner));
    }
  /* 1 + erf(u) = erfc(-u): no cancellation for x << 0 */
  return 0.5f * x * erfcf (-x * 0.7071067811865476f);
}

static void
binary_portable (KernelVecOp op, int64_t n, const float *restrict a, const float *restrict b, float alpha,
                 float *restrict o)
{
  switch (op)
    {
      case KERNEL_VEC_ADD:
        if (alpha == 1.0f)
          for (int64_t i = 0; i < n; i++)
            o[i] = a[i] + b[i];
        else
          for (int64_t i = 0; i < n; i++)
            o[i] = a[i] + alpha * b[i];
        break;
      case KERNEL_VEC_SUB:
        if (alpha == 1.0f)
          for (int64_t i = 0; i < n; i++)
            o[i] = a[i] - b[i];
        else
          for (int64_t i = 0; i < n; i++)
            o[i] = a[i] - alpha * b[i];
        break;
      case KERNEL_VEC_MUL:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] * b[i];
        break;
      case KERNEL_VEC_DIV:
        for (int64_t i = 0; i < n; i++)
          o[i] = a[i] / b[i];
        break;
    }
}

static void
binary_scalar_portable (KernelVecOp op, int64_t n, const float *restrict a, float s, bool scalar_first, float alpha,
                        float *restrict o)
{
  if (!scalar_first)
    {
      switch (op)
        {
          case KERNEL_VEC_ADD:
            {
              float v = alpha * s;
              for (int64_t i = 0; i < n; i++)
                o[i] = a[i] + v;
              break;
            }
          case KERNEL_VEC_SUB:
            {
              float v = alpha * s;
              for (int64_t i = 0; i < n; i++)
                o[i] = a[i] - v;
              break;
            }
          case KERNEL_VEC_MUL:
            for (int64_t i = 0; i < n; i++)
              o[i] = a[i] * s;
            break;
          case KERNEL_VEC_DIV:
            for (int64_t i = 0; i < n; i++)
              o[i] = a[i] / s;
            break;
        }
    }
  else
    {
      switch (op)
        {
          case KERNEL_VEC_ADD:
            for (int64_t i = 0; i < n; i++)
              o[i] = s + alpha * a[i];
            break;
          case KERNEL_VEC_SUB:
            for (int64_t i = 0; i < n; i++)
              o[i] = s - alpha * a[i];
            break;
          case KERNEL_VEC_MUL:
            for (int64_t i = 0; i < n; i++)
              o[i] = s * a[i];
            break;
          case KERNEL_VEC_DIV:
            for (int64_t i = 0; i < n; i++)
              o[i] = s / a[i];
            break;
        }
    }
}

static void
clamp_portable (int64_t n, const float *restrict x, float lo, float hi, float *restrict o)
{
  for (int64_t i = 0; i < n; i++)
    {
      float v = x[i];
      /* Comparisons are false for NaN, which passes through. */
      v = v < lo ? lo : v;
      v = v > hi ? hi : v;
      o[i] = v;
    }
}

/* ---- AVX2 ---- */

#ifdef HAVE_AVX2_PATH
#define AVX2 __attribute__ ((target ("avx2,fma")))

AVX2 static inline __m256
exp256 (__m256 x)
{
  /* x = n ln2 + r, |r| <= ln2/2; e^x = 2^n p(r), with 2^n built as two
   * factors so that n in [-150, 128] (denormals, overflow) stays exact. */
  const __m256 hi = _mm256_set1_ps (88.8f), lo = _mm256_set1_ps (-104.0f);
  x = _mm256_min_ps (hi, x); /* operand order keeps a NaN x */
  x = _mm256_max_ps (lo, x);
  __m256 fn = _mm256_round_ps (_mm256_mul_ps (x, _mm256_set1_ps (1.44269504088896341f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps (fn, _mm256_set1_ps (0.693359375f), x);
  r = _mm256_fnmadd_ps (fn, _mm256_set1_ps (-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps (1.9875691500e-4f);
  p = _mm256_fmadd_ps (p, r, _mm256_set1_ps (1.3981999507e-3f));
  p = _mm256_fmadd_ps (p, r, _mm256_set1_ps (8.3334519073e-3f));
  p = _mm256_fmadd_ps (p, r, _mm256_set1_ps (4.1665795894e-2f));
  p = _mm256_fmadd_ps (p, r, _mm256_set1_ps (1.6666665459e-1f));
  p = _mm256_fmadd_ps (p, r, _mm256_set1_ps (5.0000001201e-1f));
  p = _mm256_fmadd_ps (p, _mm256_mul_ps (r, r), r);
  p = _mm256_add_ps (p, _mm256_set1_ps (1.0f));
  __m256 tiny = _mm256_cmp_ps (x, lo, _CMP_LE_OQ); /* e^-104 rounds to 0 */
  __m256i n = _mm256_cvtps_epi32 (fn);
  __m256i n1 = _mm256_srai_epi32 (n, 1);
  __m256i n2 = _mm256_sub_epi32 (n, n1);
  __m256i bias = _mm256_set1_epi32 (127);
  __m256 s1 = _mm256_castsi256_ps (_mm256_slli_epi32 (_mm256_add_epi32 (n1, bias), 23));
  __m256 s2 = _mm256_castsi256_ps (_mm256_slli_epi32 (_mm256_add_epi32 (n2, bias), 23));
  return _mm256_andnot_ps (tiny, _mm256_mul_ps (_mm256_mul_ps (p, s1), s2));
}

AVX2 static inline __m256
tanh256 (__m256 x)
{
  const __m256 sign = _mm256_set1_ps (-0.0f);
  __m256 ax = _mm256_andnot_ps (sign, x);
  __m256 s = _mm256_and_ps (sign, x);
  /* 1 - 2 / (e^{2|x|} + 1), saturating to 1. */
  __m256 e = exp256 (_mm256_add_ps (ax, ax));
  __m256 big = _mm256_sub_ps (_mm256_set1_ps (1.0f),
                              _mm256_div_ps (_mm256_set1_ps (2.0f), _mm256_add_ps (e, _mm256_set1_ps (1.0f))));
  /* Small |x|: odd Taylor polynomial to x^9 (error < 1e-12 below 0.125). */
  __m256 x2 = _mm256_mul_ps (ax, ax);
  __m256 q = _mm256_set1_ps (62.0f / 2835.0f);
  q = _mm256_fmadd_ps (q, x2, _mm256_set1_ps (-17.0f / 315.0f));
  q = _mm256_fmadd_ps (q, x2, _mm256_set1_ps (2.0f / 15.0f));
  q = _mm256_fmadd_ps (q, x2, _mm256_set1_ps (-1.0f / 3.0f));
  __m256 small = _mm256_fmadd_ps (_mm256_mul_ps (q, x2), ax, ax);
  __m256 use_small = _mm256_cmp_ps (ax, _mm256_set1_ps (0.125f), _CMP_LT_OQ);
  __m256 t = _mm256_blendv_ps (big, small, use_small);
  return _mm256_or_ps (t, s);
}

AVX2 static inline __m256
sigmoid256 (__m256 x)
{
  __m256 e = exp256 (_mm256_sub_ps (_mm256_setzero_ps (), x));
  return _mm256_div_ps (_mm256_set1_ps (1.0f), _mm256_add_ps (_mm256_set1_ps (1.0f), e));
}

/* The polynomial of erfc256 and erfc512, highest power first. */
static const float erfc_poly[10] = { 0.17087277f,  -0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f,
                                     -0.18628806f, 0.09678418f,  0.37409196f, 1.00002368f,  -1.26551223f };

/* erfc(a) for a >= 0 with a relative error below 1.2e-7 (the Chebyshev
 * fit of Numerical Recipes' erfcc), exp included. */
AVX2 static inline __m256
erfc256 (__m256 a)
{
  __m256 t = _mm256_div_ps (_mm256_set1_ps (1.0f), _mm256_fmadd_ps (_mm256_set1_ps (0.5f), a, _mm256_set1_ps (1.0f)));
  __m256 p = _mm256_set1_ps (erfc_poly[0]);
  for (int k = 1; k < 10; k++)
    p = _mm256_fmadd_ps (p, t, _mm256_set1_ps (erfc_poly[k]));
  __m256 e = exp256 (_mm256_fnmadd_ps (a, a, p));
  return _mm256_mul_ps (t, e);
}

AVX2 static inline __m256
gelu256 (__m256 x, bool tanh_form)
{
  __m256 half_x = _mm256_mul_ps (_mm256_set1_ps (0.5f), x);
  __m256 g;
  if (tanh_form)
    {
      /* x / (1 + e^{-2y}), y = sqrt(2/pi) (x + 0.044715 x^3) */
      __m256 x3 = _mm256_mul_ps (_mm256_mul_ps (x, x), x);
      __m256 inner =
          _mm256_mul_ps (_mm256_set1_ps (-1.5957691216057308f), _mm256_fmadd_ps (_mm256_set1_ps (0.044715f), x3, x));
      g = _mm256_div_ps (x, _mm256_add_ps (_mm256_set1_ps (1.0f), exp256 (inner)));
    }
  else
    {
      /* 1 + erf(u) = erfc(-u): erfc(|u|) for x < 0, 2 - erfc(|u|) otherwise */
      const __m256 sign = _mm256_set1_ps (-0.0f);
      __m256 au = _mm256_andnot_ps (sign, _mm256_mul_ps (x, _mm256_set1_ps (0.7071067811865476f)));
      __m256 ec = erfc256 (au);
      __m256 neg = _mm256_cmp_ps (x, _mm256_setzero_ps (), _CMP_LT_OQ);
      __m256 onep = _mm256_blendv_ps (_mm256_sub_ps (_mm256_set1_ps (2.0f), ec), ec, neg);
      g = _mm256_mul_ps (half_x, onep);
    }
  /* -inf gives 0 (not -inf * 0). */
  __m256 ninf = _mm256_cmp_ps (x, _mm256_set1_ps (-INFINITY), _CMP_EQ_OQ);
  return _mm256_andnot_ps (ninf, g);
}

/* Runs @BODY on full vectors, then on a zero-padded copy of the tail. */
#define AVX2_MAP(n, x, o, BODY)                                          \
  do                                                                     \
    {                                                                    \
      int64_t i_ = 0;                                                    \
      for (; i_ + 8 <= (n); i_ += 8)                                     \
        {                                                                \
          __m256 v = _mm256_loadu_ps ((x) + i_);                         \
          _mm256_storeu_ps ((o) + i_, (BODY));                           \
        }                                                                \
      if (i_ < (n))                                                      \
        {                                                                \
          float tin_[8] = { 0 }, tout_[8];                               \
          memcpy (tin_, (x) + i_, (size_t) ((n) -i_) * sizeof (float));  \
          __m256 v = _mm256_loadu_ps (tin_);                             \
          _mm256_storeu_ps (tout_, (BODY));                              \
          memcpy ((o) + i_, tout_, (size_t) ((n) -i_) * sizeof (float)); \
        }                                                                \
    }                                                                    \
  while (0)

AVX2 static void
binary_avx2 (KernelVecOp op, int64_t n, const float *a, const float *b, float alpha, float *o)
{
  __m256 va = _mm256_set1_ps (alpha);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    {
      __m256 x = _mm256_loadu_ps (a + i), y = _mm256_loadu_ps (b + i), r;
      switch (op)
        {
          case KERNEL_VEC_ADD: r = _mm256_add_ps (x, alpha == 1.0f ? y : _mm256_mul_ps (va, y)); break;
          case KERNEL_VEC_SUB: r = _mm256_sub_ps (x, alpha == 1.0f ? y : _mm256_mul_ps (va, y)); break;
          case KERNEL_VEC_MUL: r = _mm256_mul_ps (x, y); break;
          case KERNEL_VEC_DIV:
          default: r = _mm256_div_ps (x, y); break;
        }
      _mm256_storeu_ps (o + i, r);
    }
  /* GCC emits no vzeroupper before this tail call into code without AVX:
   * upper halves left dirty slow down every SSE instruction after it (libm's
   * exp among them) until the next vzeroupper. */
  _mm256_zeroupper ();
  binary_portable (op, n - i, a + i, b + i, alpha, o + i);
}

AVX2 static inline __m256
binary_scalar256 (KernelVecOp op, __m256 x, __m256 vs, __m256 va, __m256 vas, bool scalar_first)
{
  if (!scalar_first)
    switch (op)
      {
        case KERNEL_VEC_ADD: return _mm256_add_ps (x, vas);
        case KERNEL_VEC_SUB: return _mm256_sub_ps (x, vas);
        case KERNEL_VEC_MUL: return _mm256_mul_ps (x, vs);
        case KERNEL_VEC_DIV:
        default: return _mm256_div_ps (x, vs);
      }
  switch (op)
    {
      case KERNEL_VEC_ADD: return _mm256_add_ps (vs, _mm256_mul_ps (va, x));
      case KERNEL_VEC_SUB: return _mm256_sub_ps (vs, _mm256_mul_ps (va, x));
      case KERNEL_VEC_MUL: return _mm256_mul_ps (vs, x);
      case KERNEL_VEC_DIV:
      default: return _mm256_div_ps (vs, x);
    }
}

AVX2 static void
binary_scalar_avx2 (KernelVecOp op, int64_t n, const float *a, float s, bool scalar_first, float alpha, float *o)
{
  __m256 vs = _mm256_set1_ps (s), va = _mm256_set1_ps (alpha);
  __m256 vas = _mm256_set1_ps (alpha * s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps (o + i, binary_scalar256 (op, _mm256_loadu_ps (a + i), vs, va, vas, scalar_first));
  if (i < n)
    {
      /* The last n - i < 8 through masked loads and stores (a squeeze-
       * excitation gate scales many short planes: 49 or 196 floats). */
      __m256i m = _mm256_cmpgt_epi32 (_mm256_set1_epi32 ((int) (n - i)), _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7));
      __m256 r = binary_scalar256 (op, _mm256_maskload_ps (a + i, m), vs, va, vas, scalar_first);
      _mm256_maskstore_ps (o + i, m, r);
    }
}

AVX2 static void
clamp_avx2 (int64_t n, const float *x, float lo, float hi, float *o)
{
  __m256 vlo = _mm256_set1_ps (lo), vhi = _mm256_set1_ps (hi);
  /* max/min return the second operand when one is NaN: x goes second. */
  AVX2_MAP (n, x, o, _mm256_min_ps (vhi, _mm256_max_ps (vlo, v)));
}

AVX2 static void
exp_avx2 (int64_t n, const float *x, float *o)
{
  AVX2_MAP (n, x, o, exp256 (v));
}

AVX2 static void
sigmoid_avx2 (int64_t n, const float *x, float *o)
{
  AVX2_MAP (n, x, o, sigmoid256 (v));
}

AVX2 static void
silu_avx2 (int64_t n, const float *x, float *o)
{
  AVX2_MAP (n, x, o, _mm256_mul_ps (v, sigmoid256 (v)));
}

AVX2 static void
tanh_avx2 (int64_t n, const float *x, float *o)
{
  AVX2_MAP (n, x, o, tanh256 (v));
}

AVX2 static void
gelu_avx2 (int64_t n, const float *x, bool tanh_form, float *o)
{
  AVX2_MAP (n, x, o, gelu256 (v, tanh_form));
}

AVX2 static void
scale_shift_avx2 (int64_t n, const float *x, float scale, float shift, float *o)
{
  __m256 vs = _mm256_set1_ps (scale), vb = _mm256_set1_ps (shift);
  AVX2_MAP (n, x, o, _mm256_add_ps (_mm256_mul_ps (v, vs), vb));
}

AVX2 static inline float
hsum256 (__m256 v)
{
  __m128 lo = _mm256_castps256_ps128 (v), hi = _mm256_extractf128_ps (v, 1);
  float t[4];
  _mm_storeu_ps (t, _mm_add_ps (lo, hi));
  return (t[0] + t[1]) + (t[2] + t[3]);
}

AVX2 static inline float
hmax256 (__m256 v)
{
  float t[8], m;
  _mm256_storeu_ps (t, v);
  m = t[0];
  for (int k = 1; k < 8; k++)
    m = t[k] > m ? t[k] : m;
  return m;
}

/* False when the row holds a NaN (the caller then uses the scalar path). */
AVX2 static bool
softmax_avx2 (int64_t n, const float *x, bool log_form, float *o)
{
  __m256 vmax = _mm256_set1_ps (-INFINITY), nan = _mm256_setzero_ps ();
  int64_t i = 0;
  float mx = -INFINITY;

  for (; i + 8 <= n; i += 8)
    {
      __m256 v = _mm256_loadu_ps (x + i);
      nan = _mm256_or_ps (nan, _mm256_cmp_ps (v, v, _CMP_UNORD_Q));
      vmax = _mm256_max_ps (vmax, v);
    }
  if (_mm256_movemask_ps (nan) != 0)
    return false;
  mx = hmax256 (vmax);
  for (; i < n; i++)
    {
      if (isnan (x[i]))
        return false;
      mx = x[i] > mx ? x[i] : mx;
    }

  __m256 vm = _mm256_set1_ps (mx), vsum = _mm256_setzero_ps ();
  double sum = 0.0;
  for (i = 0; i + 8 <= n; i += 8)
    {
      __m256 e = exp256 (_mm256_sub_ps (_mm256_loadu_ps (x + i), vm));
      if (!log_form)
        _mm256_storeu_ps (o + i, e);
      vsum = _mm256_add_ps (vsum, e);
    }
  sum = hsum256 (vsum);
  if (i < n)
    {
      float tin[8], tout[8];
      for (int k = 0; k < 8; k++)
        tin[k] = i + k < n ? x[i + k] - mx : -INFINITY;
      _mm256_storeu_ps (tout, exp256 (_mm256_loadu_ps (tin)));
      for (int64_t k = 0; i + k < n; k++)
        {
          if (!log_form)
            o[i + k] = tout[k];
          sum += tout[k];
        }
    }

  if (log_form)
    {
      float shift = mx + (float) log (sum);
      __m256 vsh = _mm256_set1_ps (shift);
      AVX2_MAP (n, x, o, _mm256_sub_ps (v, vsh));
    }
  else
    {
      __m256 vs = _mm256_set1_ps ((float) sum);
      AVX2_MAP (n, o, o, _mm256_div_ps (v, vs));
    }
  return true;
}

AVX2 static void
moments_avx2 (int64_t n, const float *x, double *mean, double *var)
{
  __m256 acc = _mm256_setzero_ps ();
  int64_t i = 0;
  double s = 0.0;
  for (; i + 8 <= n; i += 8)
    acc = _mm256_add_ps (acc, _mm256_loadu_ps (x + i));
  s = hsum256 (acc);
  for (; i < n; i++)
    s += x[i];
  double m = s / (double) n;

  __m256 vm = _mm256_set1_ps ((float) m);
  acc = _mm256_setzero_ps ();
  double q = 0.0;
  for (i = 0; i + 8 <= n; i += 8)
    {
      __m256 d = _mm256_sub_ps (_mm256_loadu_ps (x + i), vm);
      acc = _mm256_fmadd_ps (d, d, acc);
    }
  q = hsum256 (acc);
  for (; i < n; i++)
    {
      double d = x[i] - (float) m;
      q += d * d;
    }
  /* The deviations were taken from (float) m; correct for the rounding. */
  double dm = m - (double) (float) m;
  *mean = m;
  *var = q / (double) n - dm * dm;
  if (*var < 0.0)
    *var = 0.0;
}

AVX2 static double
sum_avx2 (int64_t n, const float *x)
{
  /* Four chains (the add latency) of eight float lanes, each block of
   * 4096 floats then added in double, so long rows keep their precision. */
  double s = 0.0;
  int64_t i = 0;
  while (i + 32 <= n)
    {
      __m256 a0 = _mm256_setzero_ps (), a1 = a0, a2 = a0, a3 = a0;
      int64_t end = n - i > 4096 ? i + 4096 : n;
      for (; i + 32 <= end; i += 32)
        {
          a0 = _mm256_add_ps (a0, _mm256_loadu_ps (x + i));
          a1 = _mm256_add_ps (a1, _mm256_loadu_ps (x + i + 8));
          a2 = _mm256_add_ps (a2, _mm256_loadu_ps (x + i + 16));
          a3 = _mm256_add_ps (a3, _mm256_loadu_ps (x + i + 24));
        }
      s += hsum256 (a0) + hsum256 (a1) + hsum256 (a2) + hsum256 (a3);
    }
  for (; i < n; i++)
    s += x[i];
  return s;
}

AVX2 static void
normalize_avx2 (int64_t n, const float *x, float mean, float rstd, const float *w, const float *b, float *o)
{
  __m256 vm = _mm256_set1_ps (mean), vr = _mm256_set1_ps (rstd);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    {
      __m256 y = _mm256_mul_ps (_mm256_sub_ps (_mm256_loadu_ps (x + i), vm), vr);
      if (w != NULL)
        y = _mm256_mul_ps (y, _mm256_loadu_ps (w + i));
      if (b != NULL)
        y = _mm256_add_ps (y, _mm256_loadu_ps (b + i));
      _mm256_storeu_ps (o + i, y);
    }
  for (; i < n; i++)
    {
      float y = (x[i] - mean) * rstd;
      if (w != NULL)
        y *= w[i];
      if (b != NULL)
        y += b[i];
      o[i] = y;
    }
}

/* ---- AVX-512: sigmoid, SiLU and GELU, lane for lane the AVX2 forms above ---- */

#define AVX512 __attribute__ ((target ("avx512f,avx512dq,fma")))

AVX512 static inline __m512
exp512 (__m512 x)
{
  const __m512 hi = _mm512_set1_ps (88.8f), lo = _mm512_set1_ps (-104.0f);
  x = _mm512_min_ps (hi, x);
  x = _mm512_max_ps (lo, x);
  __m512 fn = _mm512_roundscale_ps (_mm512_mul_ps (x, _mm512_set1_ps (1.44269504088896341f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps (fn, _mm512_set1_ps (0.693359375f), x);
  r = _mm512_fnmadd_ps (fn, _mm512_set1_ps (-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps (1.9875691500e-4f);
  p = _mm512_fmadd_ps (p, r, _mm512_set1_ps (1.3981999507e-3f));
  p = _mm512_fmadd_ps (p, r, _mm512_set1_ps (8.3334519073e-3f));
  p = _mm512_fmadd_ps (p, r, _mm512_set1_ps (4.1665795894e-2f));
  p = _mm512_fmadd_ps (p, r, _mm512_set1_ps (1.6666665459e-1f));
  p = _mm512_fmadd_ps (p, r, _mm512_set1_ps (5.0000001201e-1f));
  p = _mm512_fmadd_ps (p, _mm512_mul_ps (r, r), r);
  p = _mm512_add_ps (p, _mm512_set1_ps (1.0f));
  __mmask16 tiny = _mm512_cmp_ps_mask (x, lo, _CMP_LE_OQ);
  /* p * 2^fn rounded once, as the AVX2 form's two exact power-of-two
   * products give it, in one instruction. */
  return _mm512_maskz_scalef_ps ((__mmask16) ~tiny, p, fn);
}

AVX512 static inline __m512
sigmoid512 (__m512 x)
{
  __m512 e = exp512 (_mm512_sub_ps (_mm512_setzero_ps (), x));
  return _mm512_div_ps (_mm512_set1_ps (1.0f), _mm512_add_ps (_mm512_set1_ps (1.0f), e));
}

/* o = f(x) sixteen at a time, the tail through a masked load and store. */
#define AVX512_MAP(n, x, o, BODY)                             \
  do                                                          \
    {                                                         \
      int64_t i_ = 0;                                         \
      for (; i_ + 16 <= (n); i_ += 16)                        \
        {                                                     \
          __m512 v = _mm512_loadu_ps ((x) + i_);              \
          _mm512_storeu_ps ((o) + i_, (BODY));                \
        }                                                     \
      if (i_ < (n))                                           \
        {                                                     \
          __mmask16 m_ = (__mmask16) ((1u << ((n) -i_)) - 1); \
          __m512 v = _mm512_maskz_loadu_ps (m_, (x) + i_);    \
          _mm512_mask_storeu_ps ((o) + i_, m_, (BODY));       \
        }                                                     \
    }                                                         \
  while (0)

/* erfc256 and gelu256, lane for lane. */
AVX512 static inline __m512
erfc512 (__m512 a)
{
  __m512 t = _mm512_div_ps (_mm512_set1_ps (1.0f), _mm512_fmadd_ps (_mm512_set1_ps (0.5f), a, _mm512_set1_ps (1.0f)));
  __m512 p = _mm512_set1_ps (erfc_poly[0]);
  for (int k = 1; k < 10; k++)
    p = _mm512_fmadd_ps (p, t, _mm512_set1_ps (erfc_poly[k]));
  return _mm512_mul_ps (t, exp512 (_mm512_fnmadd_ps (a, a, p)));
}

AVX512 static inline __m512
gelu512 (__m512 x, bool tanh_form)
{
  __m512 half_x = _mm512_mul_ps (_mm512_set1_ps (0.5f), x);
  __m512 g;
  if (tanh_form)
    {
      __m512 x3 = _mm512_mul_ps (_mm512_mul_ps (x, x), x);
      __m512 inner =
          _mm512_mul_ps (_mm512_set1_ps (-1.5957691216057308f), _mm512_fmadd_ps (_mm512_set1_ps (0.044715f), x3, x));
      g = _mm512_div_ps (x, _mm512_add_ps (_mm512_set1_ps (1.0f), exp512 (inner)));
    }
  else
    {
      __m512 au = _mm512_abs_ps (_mm512_mul_ps (x, _mm512_set1_ps (0.7071067811865476f)));
      __m512 ec = erfc512 (au);
      __mmask16 neg = _mm512_cmp_ps_mask (x, _mm512_setzero_ps (), _CMP_LT_OQ);
      __m512 onep = _mm512_mask_blend_ps (neg, _mm512_sub_ps (_mm512_set1_ps (2.0f), ec), ec);
      g = _mm512_mul_ps (half_x, onep);
    }
  __mmask16 ninf = _mm512_cmp_ps_mask (x, _mm512_set1_ps (-INFINITY), _CMP_EQ_OQ);
  return _mm512_maskz_mov_ps ((__mmask16) ~ninf, g);
}

/* Two vectors an iteration: the erfc polynomial and exp are chains of
 * dependent steps, and one vector at a time left the core waiting on
 * them (about 11 cycles an element with AVX2). */
AVX512 static void
gelu_avx512 (int64_t n, const float *x, bool tanh_form, float *o)
{
  int64_t i = 0;

  for (; i + 32 <= n; i += 32)
    {
      __m512 a = gelu512 (_mm512_loadu_ps (x + i), tanh_form);
      __m512 b = gelu512 (_mm512_loadu_ps (x + i + 16), tanh_form);
      _mm512_storeu_ps (o + i, a);
      _mm512_storeu_ps (o + i + 16, b);
    }
  AVX512_MAP (n - i, x + i, o + i, gelu512 (v, tanh_form));
}

AVX512 static void
sigmoid_avx512 (int64_t n, const float *x, float *o)
{
  AVX512_MAP (n, x, o, sigmoid512 (v));
}

AVX512 static void
silu_avx512 (int64_t n, const float *x, float *o)
{
  AVX512_MAP (n, x, o, _mm512_mul_ps (v, sigmoid512 (v)));
}

#endif /* HAVE_AVX2_PATH */

#ifdef HAVE_AVX2_PATH
#define DISPATCH(call)                             \
  do                                               \
    {                                              \
      if (_executorch_support_cpu_has_avx2_fma ()) \
        {                                          \
          call;                                    \
          return;                                  \
        }                                          \
    }                                              \
  while (0)
#else
#define DISPATCH(call) \
  do                   \
    {                  \
    }                  \
  while (0)
#endif

/* ---- Public helpers ---- */

void
_executorch_vec_binary_f32 (KernelVecOp op, int64_t n, const float *a, const float *b, float alpha, float *o)
{
  DISPATCH (binary_avx2 (op, n, a, b, alpha, o));
  binary_portable (op, n, a, b, alpha, o);
}

void
_executorch_vec_binary_scalar_f32 (KernelVecOp op, int64_t n, const float *a, float s, bool scalar_first, float alpha,
                                   float *o)
{
  DISPATCH (binary_scalar_avx2 (op, n, a, s, scalar_first, alpha, o));
  binary_scalar_portable (op, n, a, s, scalar_first, alpha, o);
}

void
_executorch_vec_clamp_f32 (int64_t n, const float *x, float lo, float hi, float *o)
{
  DISPATCH (clamp_avx2 (n, x, lo, hi, o));
  clamp_portable (n, x, lo, hi, o);
}

void
_executorch_vec_exp_f32 (int64_t n, const float *x, float *o)
{
  DISPATCH (exp_avx2 (n, x, o));
  for (int64_t i = 0; i < n; i++)
    o[i] = expf (x[i]);
}

void
_executorch_vec_sigmoid_f32 (int64_t n, const float *x, float *o)
{
#ifdef HAVE_AVX2_PATH
  if (_executorch_support_cpu_has_avx512 ())
    {
      sigmoid_avx512 (n, x, o);
      return;
    }
#endif
  DISPATCH (sigmoid_avx2 (n, x, o));
  for (int64_t i = 0; i < n; i++)
    o[i] = 1.0f / (1.0f + expf (-x[i]));
}

void
_executorch_vec_silu_f32 (int64_t n, const float *x, float *o)
{
#ifdef HAVE_AVX2_PATH
  if (_executorch_support_cpu_has_avx512 ())
    {
      silu_avx512 (n, x, o);
      return;
    }
#endif
  DISPATCH (silu_avx2 (n, x, o));
  for (int64_t i = 0; i < n; i++)
    {
      float s = 1.0f / (1.0f + expf (-x[i]));
      o[i] = x[i] * s;
    }
}

void
_executorch_vec_tanh_f32 (int64_t n, const float *x, float *o)
{
  DISPATCH (tanh_avx2 (n, x, o));
  for (int64_t i = 0; i < n; i++)
    o[i] = tanhf (x[i]);
}

void
_executorch_vec_gelu_f32 (int64_t n, const float *x, bool tanh_form, float *o)
{
#ifdef HAVE_AVX2_PATH
  if (_executorch_support_cpu_has_avx512 ())
    {
      gelu_avx512 (n, x, tanh_form, o);
      return;
    }
#endif
  DISPATCH (gelu_avx2 (n, x, tanh_form, o));
  for (int64_t i = 0; i < n; i++)
    o[i] = gelu_scalar (x[i], tanh_form);
}

void
_executorch_vec_scale_shift_f32 (int64_t n, const float *x, float scale, float shift, float *o)
{
  DISPATCH (scale_shift_avx2 (n, x, scale, shift, o));
  for (int64_t i = 0; i < n; i++)
    o[i] = x[i] * scale + shift;
}

static void
softmax_portable (int64_t n, const float *x, bool log_form, float *o)
{
  double mx = -INFINITY, sum = 0.0;
  for (int64_t k = 0; k < n; k++)
    mx = x[k] > mx || isnan (x[k]) ? x[k] : mx;
  for (int64_t k = 0; k < n; k++)
    sum += exp ((double) x[k] - mx);
  if (log_form)
    {
      double ls = log (sum);
      for (int64_t k = 0; k < n; k++)
        o[k] = (float) ((double) x[k] - mx - ls);
    }
  else
    {
      for (int64_t k = 0; k < n; k++)
        o[k] = (float) (exp ((double) x[k] - mx) / sum);
    }
}

void
_executorch_vec_softmax_row_f32 (int64_t n, const float *x, bool log_form, float *o)
{
#ifdef HAVE_AVX2_PATH
  if (_executorch_support_cpu_has_avx2_fma () && softmax_avx2 (n, x, log_form, o))
    return;
#endif
  softmax_portable (n, x, log_form, o);
}

void
_executorch_vec_moments_f32 (int64_t n, const float *x, double *mean, double *var)
{
  if (n <= 0)
    {
      *mean = 0.0;
      *var = 0.0;
      return;
    }
  DISPATCH (moments_avx2 (n, x, mean, var));
  double s = 0.0, q = 0.0;
  for (int64_t i = 0; i < n; i++)
    s += x[i];
  double m = s / (double) n;
  for (int64_t i = 0; i < n; i++)
    q += (x[i] - m) * (x[i] - m);
  *mean = m;
  *var = q / (double) n;
}

double
_executorch_vec_sum_f32 (int64_t n, const float *x)
{
#ifdef HAVE_AVX2_PATH
  if (_executorch_support_cpu_has_avx2_fma ())
    return sum_avx2 (n, x);
#endif
  double s = 0.0;
  for (int64_t i = 0; i < n; i++)
    s += x[i];
  return s;
}

void
_executorch_vec_normalize_f32 (int64_t n, const float *x, float mean, float rstd, const float *w, const float *b,
                               float *o)
{
  DISPATCH (normalize_avx2 (n, x, mean, rstd, w, b, o));
  for (int64_t i = 0; i < n; i++)
    {
      float y = (x[i] - mean) * rstd;
      if (w != NULL)
        y *= w[i];
      if (b != NULL)
        y += b[i];
      o[i] = y;
    }
}
