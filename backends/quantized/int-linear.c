/* int-linear.c: the integer addmm / mm of an integer site
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reads the activation int-stage.c staged (int-kernels-private.h) and the
 * weight the rewrite copied at load, and writes the float result of the
 * linear's addmm.out or mm.out.
 */
#include "int-kernels-private.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <string.h>

/* ---- the linear product ---- */

/* out[m][n] = x[m] . (w[n] - zp[n]) scaled: rows of the staged int16 input
 * against the int8 weight rows as stored, widened on the fly, so a linear
 * needs no packing and no column buffer (its "pixels" are the few rows of
 * its input). */
typedef struct
{
  const int16_t *x; /* [M][K] */
  const int8_t *w;  /* [N][K] */
  const int32_t *w_zps;
  const double *scale;
  const float *bias;
  float *out; /* [M][N] */
  int64_t m, k, n;
  bool avx2;
} LinearJob;

#define LINEAR_BLOCK 16

static int32_t
row_dot_portable (const int16_t *x, const int8_t *w, int32_t zp, int64_t k)
{
  int32_t acc = 0;

  for (int64_t i = 0; i < k; i++)
    acc += (int32_t) x[i] * (int16_t) (w[i] - zp);
  return acc;
}

#ifdef QK_HAVE_AVX2
/* Rows [r, r + 4) of x against one weight row; acc gets four sums. */
__attribute__ ((target ("avx2"))) static void
row_dot4_avx2 (const int16_t *x, int64_t k, const int8_t *w, int32_t zp, int32_t *acc)
{
  __m256i a0 = _mm256_setzero_si256 (), a1 = a0, a2 = a0, a3 = a0, vzp = _mm256_set1_epi16 ((int16_t) zp);
  int64_t i = 0;

  for (; i + 16 <= k; i += 16)
    {
      __m256i wv = _mm256_sub_epi16 (_mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *) (w + i))), vzp);
      a0 = _mm256_add_epi32 (a0, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (x + i)), wv));
      a1 = _mm256_add_epi32 (a1, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (x + k + i)), wv));
      a2 = _mm256_add_epi32 (a2, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (x + 2 * k + i)), wv));
      a3 = _mm256_add_epi32 (a3, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (x + 3 * k + i)), wv));
    }
  __m256i s = _mm256_hadd_epi32 (_mm256_hadd_epi32 (a0, a1), _mm256_hadd_epi32 (a2, a3));
  _mm_storeu_si128 ((__m128i *) acc, _mm_add_epi32 (_mm256_castsi256_si128 (s), _mm256_extracti128_si256 (s, 1)));
  for (; i < k; i++)
    {
      int32_t wi = (int16_t) (w[i] - zp);
      for (int r = 0; r < 4; r++)
        acc[r] += (int32_t) x[r * k + i] * wi;
    }
}

__attribute__ ((target ("avx2"))) static int32_t
row_dot_avx2 (const int16_t *x, const int8_t *w, int32_t zp, int64_t k)
{
  __m256i a = _mm256_setzero_si256 (), vzp = _mm256_set1_epi16 ((int16_t) zp);
  int64_t i = 0;
  int32_t acc;

  for (; i + 16 <= k; i += 16)
    a = _mm256_add_epi32 (a, _mm256_madd_epi16 (_mm256_loadu_si256 ((const __m256i *) (x + i)),
                                                _mm256_sub_epi16 (_mm256_cvtepi8_epi16 (
                                                                      _mm_loadu_si128 ((const __m128i *) (w + i))),
                                                                  vzp)));
  __m128i r = _mm_add_epi32 (_mm256_castsi256_si128 (a), _mm256_extracti128_si256 (a, 1));
  r = _mm_hadd_epi32 (r, r);
  r = _mm_hadd_epi32 (r, r);
  acc = _mm_cvtsi128_si32 (r);
  for (; i < k; i++)
    acc += (int32_t) x[i] * (int16_t) (w[i] - zp);
  return acc;
}
#endif

static inline void
store_linear (const LinearJob *job, int64_t row, int64_t n, int32_t acc)
{
  job->out[row * job->n + n] =
      (float) ((double) acc * job->scale[n] + (job->bias != NULL ? (double) job->bias[n] : 0.0));
}

/* Task @block: output columns [block * 16, block * 16 + 16). */
static void
linear_block (void *data, size_t block)
{
  const LinearJob *job = data;
  int64_t first = (int64_t) block * LINEAR_BLOCK, end = MIN (first + LINEAR_BLOCK, job->n);

  for (int64_t n = first; n < end; n++)
    {
      const int8_t *w = job->w + n * job->k;
      int32_t zp = job->w_zps[n];
      int64_t r = 0;
#ifdef QK_HAVE_AVX2
      if (job->avx2)
        {
          int32_t acc[4];
          for (; r + 4 <= job->m; r += 4)
            {
              row_dot4_avx2 (job->x + r * job->k, job->k, w, zp, acc);
              for (int j = 0; j < 4; j++)
                store_linear (job, r + j, n, acc[j]);
            }
          for (; r < job->m; r++)
            store_linear (job, r, n, row_dot_avx2 (job->x + r * job->k, w, zp, job->k));
          continue;
        }
#endif
      for (; r < job->m; r++)
        store_linear (job, r, n, row_dot_portable (job->x + r * job->k, w, zp, job->k));
    }
}

/* out = x . w^T scaled, x [m][k] staged int16 with scale x_scale, w
 * [nn][k] int8 with per-row scales and zero points; bias, out checked
 * by the callers' shape checks below. */
static EtError
run_linear (const QkCall *c, EtKernelContext *ctx, EtTensor *bias, EtTensor *out, const int16_t *x, double x_scale,
            int64_t m, int64_t k, int64_t nn, const int8_t *w, const double *w_scales, const int32_t *w_zps)
{
  int64_t sizes[2];
  double *scale;

  if (bias != NULL && (bias->scalar_type != ET_SCALAR_FLOAT || bias->numel != nn || !et_tensor_is_contiguous (bias)))
    return _executorch_qk_fail (c, ET_ERROR_INVALID_ARGUMENT, "self is not %" PRId64 " floats", nn);
  sizes[0] = m, sizes[1] = nn;
  QK_TRY (_executorch_qk_resize (c, out, "out", 2, sizes));
  QK_TRY (_executorch_qk_contiguous (c, out, "out"));
  if (out->scalar_type != ET_SCALAR_FLOAT)
    return _executorch_qk_fail (c, ET_ERROR_INVALID_ARGUMENT, "out is not Float");
  if (m == 0 || nn == 0)
    return ET_OK;
  scale = et_kernel_context_scratch (ctx, (size_t) nn * sizeof (double));
  if (scale == NULL)
    return _executorch_qk_fail (c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory for the product");
  for (int64_t o = 0; o < nn; o++)
    scale[o] = x_scale * w_scales[o];

  LinearJob job = {
    .x = x,
    .w = w,
    .w_zps = w_zps,
    .scale = scale,
    .bias = bias != NULL ? (const float *) bias->data : NULL,
    .out = (float *) out->data,
    .m = m,
    .k = k,
    .n = nn,
    .avx2 = _executorch_support_cpu_has_avx2_fma (),
  };
  size_t n_blocks = (size_t) ((nn + LINEAR_BLOCK - 1) / LINEAR_BLOCK);
  if ((double) m * (double) nn * (double) k >= QK_PARALLEL_MIN_MACS && n_blocks > 1 &&
      executorch_threadpool_get_num_threads () > 1)
    executorch_threadpool_parallelize_1d (linear_block, &job, n_blocks);
  else
    for (size_t blk = 0; blk < n_blocks; blk++)
      linear_block (&job, blk);
  return ET_OK;
}

/* What the rewrite copied for one site at load: the int8 weight rows as
 * stored ([N][K]) and their scales and zero points. */
typedef struct
{
  EtKernel kernel;
  int64_t n, k;
  const int8_t *w;
  const double *w_scales;
  const int32_t *w_zps;
} PackedLinear;

/* As int_linear, the weight from the site: mat2 (the transposed weight,
 * which nothing computed) is only checked for its shape. */
static EtError
int_linear_packed (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  bool addmm = n_args == 7;
  QkCall c = { ctx, addmm ? "aten::addmm.out" : "aten::mm.out", args, n_args };
  const PackedLinear *site = et_kernel_context_user_data (ctx);
  EtTensor *input, *weight, *bias = NULL, *out;
  StagedInput head;
  const int16_t *x;

  if (addmm)
    QK_TRY (_executorch_qk_opt_tensor (&c, 0, "self", &bias));
  else
    QK_TRY (_executorch_qk_check_n_args (&c, 4));
  QK_TRY (_executorch_qk_tensor (&c, addmm ? 1 : 0, "mat1", &input));
  QK_TRY (_executorch_qk_tensor (&c, addmm ? 2 : 1, "mat2", &weight));
  QK_TRY (_executorch_qk_tensor (&c, addmm ? 5 : 2, "out", &out));
  if (site == NULL || input->ndim != 2 || weight->ndim != 2 || weight->sizes[0] != site->k ||
      weight->sizes[1] != site->n || input->sizes[1] != site->k)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "mat1 or mat2 not the packed weight's shape");
  QK_TRY (_executorch_qk_read_staged_input (&c, input, &head, &x));
  return run_linear (&c, ctx, bias, out, x, head.scale, input->sizes[0], site->k, site->n, site->w, site->w_scales,
                     site->w_zps);
}

const EtKernel *
_executorch_qk_int_linear_packed (EtMethodGraph *graph, const EtTensor *w, const double *scales, const int32_t *zps,
                                  bool addmm)
{
  int64_t n = w->sizes[0], k = w->sizes[1];
  PackedLinear *site = et_method_graph_alloc (graph, sizeof *site);
  int8_t *copy = et_method_graph_alloc (graph, (size_t) (n * k));
  double *w_scales = et_method_graph_alloc (graph, (size_t) n * sizeof (double));
  int32_t *w_zps = et_method_graph_alloc (graph, (size_t) n * sizeof (int32_t));

  if (site == NULL || copy == NULL || w_scales == NULL || w_zps == NULL)
    return NULL;
  memcpy (copy, w->data, (size_t) (n * k));
  memcpy (w_scales, scales, (size_t) n * sizeof (double));
  memcpy (w_zps, zps, (size_t) n * sizeof (int32_t));
  *site = (PackedLinear){
    .kernel = { addmm ? "aten::addmm.out [int8]" : "aten::mm.out [int8]", int_linear_packed, site },
    .n = n,
    .k = k,
    .w = copy,
    .w_scales = w_scales,
    .w_zps = w_zps,
  };
  return &site->kernel;
}
