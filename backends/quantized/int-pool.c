/* int-pool.c: max_pool2d between a dequantize and a quantize, on the int8 bytes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * dequantize is increasing in the byte (scale > 0) and so is quantize in
 * the float, so the float max of a window is the dequantized byte max and
 * quantize(max_pool(dequantize(x))) is table[max_pool(x)], the table
 * holding quantize(dequantize(b)) for the 256 bytes, computed at load with
 * the same float steps.  Padding takes the smallest byte, which no max
 * picks over a real element: the rewrite only takes geometries where every
 * window holds one.  The indices are not computed: the rewrite only takes
 * a max_pool2d_with_indices whose indices nobody reads.
 */
#include "int-kernels-private.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <string.h>

typedef struct
{
  EtKernel kernel;
  uint8_t table[256];
  bool is_signed; /* the input bytes are int8 (else uint8) */
  bool identity;  /* table[b] = b */
  int64_t k[2], s[2], p[2], d[2], oh, ow;
} PoolKernel;

/* acc[i] = max (acc[i], row[i]) in the input's byte order. */
static inline void
max_into (uint8_t *acc, const uint8_t *row, int64_t n, bool is_signed)
{
  if (is_signed)
    for (int64_t i = 0; i < n; i++)
      {
        int8_t a = (int8_t) acc[i], b = (int8_t) row[i];
        acc[i] = (uint8_t) (b > a ? b : a);
      }
  else
    for (int64_t i = 0; i < n; i++)
      acc[i] = row[i] > acc[i] ? row[i] : acc[i];
}

/* One plane: rows of vertical maxima into a padded row, then each output
 * the horizontal max of its window, through the table. */
static inline void
pool_plane (const PoolKernel *pk, const uint8_t *in, int64_t ih, int64_t iw, uint8_t *out, uint8_t *row,
            int64_t row_width)
{
  uint8_t lowest = pk->is_signed ? 0x80 : 0x00;

  for (int64_t oy = 0; oy < pk->oh; oy++)
    {
      memset (row, lowest, (size_t) row_width);
      for (int64_t ky = 0; ky < pk->k[0]; ky++)
        {
          int64_t iy = oy * pk->s[0] - pk->p[0] + ky * pk->d[0];
          if (iy >= 0 && iy < ih)
            max_into (row + pk->p[1], in + iy * iw, iw, pk->is_signed);
        }
      for (int64_t ox = 0; ox < pk->ow; ox++)
        {
          const uint8_t *w = row + ox * pk->s[1];
          uint8_t m = w[0];
          for (int64_t kx = 1; kx < pk->k[1]; kx++)
            {
              uint8_t v = w[kx * pk->d[1]];
              if (pk->is_signed ? (int8_t) v > (int8_t) m : v > m)
                m = v;
            }
          out[oy * pk->ow + ox] = pk->table[m];
        }
    }
}

#ifdef QK_HAVE_AVX2
/* pool_plane with the horizontal maxima sixteen outputs at a time (stride
 * 1 or 2, no dilation, windows up to 8 wide) into @maxima (ow + 16
 * bytes), then through the table; the row holds lowest bytes far enough
 * past its end for every load. */
__attribute__ ((target ("avx2"))) static void
pool_plane_avx2 (const PoolKernel *pk, const uint8_t *in, int64_t ih, int64_t iw, uint8_t *out, uint8_t *row,
                 int64_t row_width, uint8_t *maxima)
{
  uint8_t lowest = pk->is_signed ? 0x80 : 0x00;
  /* the even bytes of each 128-bit lane to its low half */
  const __m256i evens = _mm256_setr_epi8 (0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1, 0, 2, 4, 6, 8, 10,
                                          12, 14, -1, -1, -1, -1, -1, -1, -1, -1);

  if (pk->d[1] != 1 || (pk->s[1] != 1 && pk->s[1] != 2) || pk->k[1] > 8)
    {
      pool_plane (pk, in, ih, iw, out, row, row_width);
      return;
    }
  for (int64_t oy = 0; oy < pk->oh; oy++)
    {
      memset (row, lowest, (size_t) row_width);
      for (int64_t ky = 0; ky < pk->k[0]; ky++)
        {
          int64_t iy = oy * pk->s[0] - pk->p[0] + ky * pk->d[0];
          if (iy >= 0 && iy < ih)
            max_into (row + pk->p[1], in + iy * iw, iw, pk->is_signed);
        }
      for (int64_t ox = 0; ox < pk->ow; ox += 16)
        {
          __m128i m;
          if (pk->s[1] == 1)
            {
              m = _mm_loadu_si128 ((const __m128i *) (row + ox));
              for (int64_t kx = 1; kx < pk->k[1]; kx++)
                {
                  __m128i v = _mm_loadu_si128 ((const __m128i *) (row + ox + kx));
                  m = pk->is_signed ? _mm_max_epi8 (m, v) : _mm_max_epu8 (m, v);
                }
            }
          else
            {
              __m256i w = _mm256_loadu_si256 ((const __m256i *) (row + 2 * ox));
              for (int64_t kx = 1; kx < pk->k[1]; kx++)
                {
                  __m256i v = _mm256_loadu_si256 ((const __m256i *) (row + 2 * ox + kx));
                  w = pk->is_signed ? _mm256_max_epi8 (w, v) : _mm256_max_epu8 (w, v);
                }
              w = _mm256_permute4x64_epi64 (_mm256_shuffle_epi8 (w, evens), 0x08);
              m = _mm256_castsi256_si128 (w);
            }
          _mm_storeu_si128 ((__m128i *) (maxima + ox), m);
        }
      if (pk->identity)
        memcpy (out + oy * pk->ow, maxima, (size_t) pk->ow);
      else
        for (int64_t ox = 0; ox < pk->ow; ox++)
          out[oy * pk->ow + ox] = pk->table[maxima[ox]];
    }
}
#endif

typedef struct
{
  const PoolKernel *pk;
  const uint8_t *in;
  uint8_t *out;
  int64_t ih, iw, row_width;
  bool failed; /* no memory for a row (set by any task) */
} PoolJob;

static void
pool_task (void *data, size_t plane)
{
  PoolJob *job = data;
  const PoolKernel *pk = job->pk;
  uint8_t small[1024];
  /* the row, then the horizontal maxima of pool_plane_avx2 */
  int64_t need = job->row_width + pk->ow + 16;
  uint8_t *row = need <= (int64_t) sizeof small ? small : g_try_malloc (need);
  const uint8_t *in = job->in + (int64_t) plane * job->ih * job->iw;
  uint8_t *dst = job->out + (int64_t) plane * pk->oh * pk->ow;

  if (row == NULL)
    {
      __atomic_store_n (&job->failed, true, __ATOMIC_RELAXED);
      return;
    }
#ifdef QK_HAVE_AVX2
  if (_executorch_qk_isa () != QK_ISA_PORTABLE)
    pool_plane_avx2 (pk, in, job->ih, job->iw, dst, row, job->row_width, row + job->row_width);
  else
#endif
    pool_plane (pk, in, job->ih, job->iw, dst, row, job->row_width);
  if (row != small)
    g_free (row);
}

/* max_pool2d_with_indices.out (self, kernel_size, stride, padding,
 * dilation, ceil_mode, out, indices, ret) on the bytes a dequantize
 * staged; the bytes of out after a StagedBytes header. */
static EtError
pool_bytes (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "aten::max_pool2d_with_indices.out", args, n_args };
  const PoolKernel *pk = et_kernel_context_user_data (ctx);
  EtTensor *self, *out;
  StagedBytes head;
  int64_t sizes[4], planes, row_width;

  QK_TRY (_executorch_qk_check_n_args (&c, 9));
  QK_TRY (_executorch_qk_tensor (&c, 0, "self", &self));
  QK_TRY (_executorch_qk_tensor (&c, 6, "out", &out));
  if (pk == NULL || self->ndim != 4 || self->data == NULL || self->nbytes < sizeof head + (size_t) self->numel)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "self not staged");
  memcpy (&head, self->data, sizeof head);
  if (head.magic != STAGE_BYTES_MAGIC || head.numel != self->numel)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "self not staged");
  sizes[0] = self->sizes[0], sizes[1] = self->sizes[1], sizes[2] = pk->oh, sizes[3] = pk->ow;
  QK_TRY (_executorch_qk_resize (&c, out, "out", 4, sizes));
  if (out->data == NULL || out->nbytes < sizeof head + (size_t) out->numel)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "out cannot hold the bytes");
  /* the rewrite checked the geometry against these sizes */
  planes = self->sizes[0] * self->sizes[1];
  /* room for pool_plane_avx2's loads: 32 bytes from s * ox + kx, ox up
   * to ow + 15 */
  row_width = self->sizes[3] + 2 * pk->p[1] + pk->s[1] * (pk->ow + 16) + pk->k[1] * pk->d[1] + 32;
  PoolJob job = {
    .pk = pk,
    .in = (const uint8_t *) self->data + sizeof head,
    .out = (uint8_t *) out->data + sizeof head,
    .ih = self->sizes[2],
    .iw = self->sizes[3],
    .row_width = row_width,
  };
  if (planes > 1 && (double) self->numel * (double) pk->k[0] >= QK_PARALLEL_MIN_MACS &&
      executorch_threadpool_get_num_threads () > 1)
    executorch_threadpool_parallelize_1d (pool_task, &job, (size_t) planes);
  else
    for (int64_t pl = 0; pl < planes; pl++)
      pool_task (&job, (size_t) pl);
  if (__atomic_load_n (&job.failed, __ATOMIC_RELAXED))
    return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no memory for a pooled row");
  head.numel = out->numel;
  memcpy (out->data, &head, sizeof head);
  return ET_OK;
}

/* Whether every window along one dimension holds a real element. */
static bool
windows_hit (int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d)
{
  for (int64_t o = 0; o < out; o++)
    {
      bool hit = false;
      for (int64_t j = 0; j < k && !hit; j++)
        hit = o * s - p + j * d >= 0 && o * s - p + j * d < in;
      if (!hit)
        return false;
    }
  return true;
}

const EtKernel *
_executorch_qk_pool_kernel_new (EtMethodGraph *graph, const uint8_t table[256], bool is_signed, const int64_t k[2],
                                const int64_t s[2], const int64_t p[2], const int64_t d[2], int64_t ih, int64_t iw,
                                int64_t oh, int64_t ow)
{
  PoolKernel *pk;

  for (int i = 0; i < 2; i++)
    if (k[i] <= 0 || k[i] > 64 || s[i] <= 0 || s[i] > 64 || d[i] <= 0 || d[i] > 64 || p[i] < 0 || p[i] > k[i] / 2)
      return NULL;
  if (oh <= 0 || ow <= 0 || !windows_hit (ih, oh, k[0], s[0], p[0], d[0]) ||
      !windows_hit (iw, ow, k[1], s[1], p[1], d[1]) || (oh - 1) * s[0] + (k[0] - 1) * d[0] >= ih + 2 * p[0] + s[0] ||
      (ow - 1) * s[1] + (k[1] - 1) * d[1] >= iw + 2 * p[1] + s[1])
    return NULL;
  /* a NULL graph (tests): the caller frees the kernel with g_free */
  if ((pk = graph != NULL ? et_method_graph_alloc (graph, sizeof *pk) : g_try_new0 (PoolKernel, 1)) == NULL)
    return NULL;
  pk->kernel = (EtKernel){ "aten::max_pool2d_with_indices.out [int8]", pool_bytes, pk };
  memcpy (pk->table, table, sizeof pk->table);
  pk->is_signed = is_signed;
  pk->identity = true;
  for (int b = 0; b < 256; b++)
    pk->identity &= table[b] == b;
  for (int i = 0; i < 2; i++)
    pk->k[i] = k[i], pk->s[i] = s[i], pk->p[i] = p[i], pk->d[i] = d[i];
  pk->oh = oh, pk->ow = ow;
  return &pk->kernel;
}
