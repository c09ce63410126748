/* int8-fast.c: Float ⇄ 8-bit per-tensor (de)quantization without per-element dispatch
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every activation of a PT2E int8 program passes through a quantize and a
 * dequantize, and the generic loops of quantize.c look up the element
 * type of every element.  These are the same formulas for the one common
 * case, contiguous Float and Char/Byte, so the results stay byte for byte
 * upstream's:
 *
 *   quantize:   s = (float) zp + nearbyintf (inv * x), NaN → zp, then the
 *               [quant_min, quant_max] clamp (integer-valued, so clamping
 *               in float is the same as in int64);
 *   dequantize: (float) (q - zp) * (float) scale.
 *
 * The AVX2 versions round with _mm256_round_ps to nearest even, which is
 * nearbyintf in the default rounding mode the library assumes.
 */
#include "quantized-private.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <math.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define QK_HAVE_AVX2 1
#endif

static inline int32_t
quantize_one (float x, float inv, float zp, float lo, float hi)
{
  float s = zp + nearbyintf (inv * x);

  if (isnan (s))
    s = zp;
  s = s < lo ? lo : s;
  s = s > hi ? hi : s;
  return (int32_t) s;
}

#ifdef QK_HAVE_AVX2
__attribute__ ((target ("avx2"))) static int64_t
quantize_avx2 (const float *in, void *out, bool is_signed, int64_t n, float inv, float zp, float lo, float hi)
{
  __m256 vinv = _mm256_set1_ps (inv), vzp = _mm256_set1_ps (zp), vlo = _mm256_set1_ps (lo), vhi = _mm256_set1_ps (hi);
  int64_t i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m256 v = _mm256_mul_ps (vinv, _mm256_loadu_ps (in + i));
      __m256 s = _mm256_add_ps (vzp, _mm256_round_ps (v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
      s = _mm256_blendv_ps (s, vzp, _mm256_cmp_ps (s, s, _CMP_UNORD_Q));
      s = _mm256_min_ps (_mm256_max_ps (s, vlo), vhi);
      __m256i q = _mm256_cvtps_epi32 (s);
      __m128i q16 = _mm_packs_epi32 (_mm256_castsi256_si128 (q), _mm256_extracti128_si256 (q, 1));
      __m128i q8 = is_signed ? _mm_packs_epi16 (q16, q16) : _mm_packus_epi16 (q16, q16);
      _mm_storel_epi64 ((__m128i *) ((char *) out + i), q8);
    }
  return i;
}

__attribute__ ((target ("avx2"))) static int64_t
dequantize_avx2 (const void *in, bool is_signed, float *out, int64_t n, int32_t zp, float scale)
{
  __m256i vzp = _mm256_set1_epi32 (zp);
  __m256 vscale = _mm256_set1_ps (scale);
  int64_t i = 0;

  for (; i + 8 <= n; i += 8)
    {
      __m128i b = _mm_loadl_epi64 ((const __m128i *) ((const char *) in + i));
      __m256i q = is_signed ? _mm256_cvtepi8_epi32 (b) : _mm256_cvtepu8_epi32 (b);
      __m256 f = _mm256_cvtepi32_ps (_mm256_sub_epi32 (q, vzp));
      _mm256_storeu_ps (out + i, _mm256_mul_ps (f, vscale));
    }
  return i;
}
#endif

static void
quantize_range (const float *in, void *out, bool is_signed, int64_t n, float inv, float zp, float lo, float hi)
{
  int64_t i = 0;

#ifdef QK_HAVE_AVX2
  if (_executorch_support_cpu_has_avx2_fma ())
    i = quantize_avx2 (in, out, is_signed, n, inv, zp, lo, hi);
#endif
  if (is_signed)
    for (; i < n; i++)
      ((int8_t *) out)[i] = (int8_t) quantize_one (in[i], inv, zp, lo, hi);
  else
    for (; i < n; i++)
      ((uint8_t *) out)[i] = (uint8_t) quantize_one (in[i], inv, zp, lo, hi);
}

static void
dequantize_range (const void *in, bool is_signed, float *out, int64_t n, int32_t zero_point, float scale)
{
  int64_t i = 0;

#ifdef QK_HAVE_AVX2
  if (_executorch_support_cpu_has_avx2_fma ())
    i = dequantize_avx2 (in, is_signed, out, n, zero_point, scale);
#endif
  if (is_signed)
    for (; i < n; i++)
      out[i] = (float) (((const int8_t *) in)[i] - zero_point) * scale;
  else
    for (; i < n; i++)
      out[i] = (float) (((const uint8_t *) in)[i] - zero_point) * scale;
}

#define CHUNK (64 * 1024)

typedef struct
{
  QkChunkFunc func;
  const void *job;
  int64_t n;
} Chunked;

static void
chunk_task (void *data, size_t chunk)
{
  const Chunked *c = data;
  int64_t first = (int64_t) chunk * CHUNK;

  c->func (c->job, first, MIN (CHUNK, c->n - first));
}

void
_executorch_qk_run_chunked (QkChunkFunc func, const void *job, int64_t n, int64_t min_parallel)
{
  Chunked c = { func, job, n };
  size_t n_chunks = (size_t) ((n + CHUNK - 1) / CHUNK);

  if (n >= MAX (min_parallel, 2 * CHUNK) && executorch_threadpool_get_num_threads () > 1)
    executorch_threadpool_parallelize_1d (chunk_task, &c, n_chunks);
  else
    for (size_t chunk = 0; chunk < n_chunks; chunk++)
      chunk_task (&c, chunk);
}

/* Large tensors go over the pool (SqueezeNet's dequantize and quantize
 * around its cats were a fifth of the calling thread's time at 2 threads,
 * the worker idle).  Each element gets the same formula: the same bytes. */
typedef struct
{
  const void *in;
  void *out;
  bool is_signed;
  int32_t zero_point;
  float inv, zp, lo, hi, scale;
} Job;

static void
quantize_chunk (const void *data, int64_t first, int64_t n)
{
  const Job *job = data;

  quantize_range ((const float *) job->in + first, (char *) job->out + first, job->is_signed, n, job->inv, job->zp,
                  job->lo, job->hi);
}

static void
dequantize_chunk (const void *data, int64_t first, int64_t n)
{
  const Job *job = data;

  dequantize_range ((const char *) job->in + first, job->is_signed, (float *) job->out + first, n, job->zero_point,
                    job->scale);
}

/* Elements [0, n) of contiguous Float @in into Char (@is_signed) or Byte
 * @out; qmin/qmax already checked against the type's range. */
void
_executorch_qk_quantize_float_to_8bit (const float *in, void *out, bool is_signed, int64_t n, double scale,
                                       int32_t zero_point, int64_t qmin, int64_t qmax)
{
  Job job = { .in = in,
              .out = out,
              .is_signed = is_signed,
              .inv = 1.0f / (float) scale,
              .zp = (float) zero_point,
              .lo = (float) qmin,
              .hi = (float) qmax };

  _executorch_qk_run_chunked (quantize_chunk, &job, n, QK_CHUNKED_FLOAT);
}

void
_executorch_qk_dequantize_8bit_to_float (const void *in, bool is_signed, float *out, int64_t n, int32_t zero_point,
                                         float scale)
{
  Job job = { .in = in, .out = out, .is_signed = is_signed, .zero_point = zero_point, .scale = scale };

  _executorch_qk_run_chunked (dequantize_chunk, &job, n, QK_CHUNKED_FLOAT);
}
