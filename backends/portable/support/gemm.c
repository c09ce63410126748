/* gemm.c: the blocked float32 GEMM driver, its packing and its portable
 * microkernel
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Loop nest (BLIS order): rows of C in chunks of MCHUNK, then KC-deep slices
 * of k, then NC-wide slices of n.  For each k slice the A chunk is packed
 * into MR-row strips; for each n slice the B slice into NR-column strips.
 * The packed operands are then cut into tiles of whole strips (MC rows by
 * a number of NR columns chosen so every thread gets work) and each tile
 * runs the microkernel strip by strip, B strip outer so it stays in L1
 * while A strips come from L2.  When the A panel is small enough to stay in
 * L2 (a convolution's weights), B is instead packed 128 columns at a time
 * right before their products, by the thread that computes them, so the
 * strips are written and read in cache.  Packing pads the edges with zeros; edge tiles of C go through a
 * small buffer.
 *
 * The microkernel is chosen once per process: AVX-512 (6 x 32 tiles) where
 * the CPU and OS have it, AVX2 + FMA (6 x 16), or portable C (6 x 16).  All
 * read the same 6-row A strips, so weights packed at load suit each; the
 * width of B's strips follows the kernel.  The portable microkernel
 * computes in the same order as the AVX2 one but without FMA (this file
 * keeps the library's -ffp-contract=off).
 */
#include "gemm.h"
#include "gemm-private.h"
#include "support-private.h"

_Static_assert(KERNEL_GEMM_NR_MAX == KERNEL_SGEMM_NR_MAX, "one widest strip");

#include "executorch-threadpool.h"

#include <stdlib.h>
#include <string.h>

#define MR KERNEL_GEMM_MR
#define NR_MAX KERNEL_GEMM_NR_MAX
#define KC 256
#define MC (16 * MR)      /* rows of a tile: 96 */
#define NC 2048           /* columns of B packed at once: 2 MiB */
#define MCHUNK (512 * MR) /* rows of A packed at once: 3 MiB */

/* Below this many multiply-adds the GEMM runs without packing, and below
 * PARALLEL_MIN it stays on the calling thread. */
#define DIRECT_MAX 4096
#define PARALLEL_MIN (1 << 20)
/* An A panel of at most this many floats (512 KiB) is assumed to stay in
 * L2: each B strip is then packed and used at once, from L1, by every A
 * strip (convolutions, whose A is the weights of a few hundred output
 * channels); larger panels are cut into MC-row tiles. */
#define A_RESIDENT_MAX (128 * 1024)
/* Packing is spread over the pool only from this many floats: a smaller
 * panel packs faster than the pool wakes up. */
#define PACK_PARALLEL_MIN (128 * 1024)

#define NR KERNEL_GEMM_NR /* the portable kernel's */

/* b_packed's column blocks start at jc * kc (_executorch_sgemm_pack_b) */
_Static_assert(NC % NR_MAX == 0 && NR_MAX % NR == 0, "column blocks of whole strips");

static void
kernel_generic (int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int accumulate,
                const KernelGemmEpilogue *epilogue)
{
  float t[MR][NR];

  memset (t, 0, sizeof t);
  for (int64_t p = 0; p < kc; p++, a += MR, b += NR)
    for (int r = 0; r < MR; r++)
      {
        float av = a[r];
        for (int j = 0; j < NR; j++)
          t[r][j] += av * b[j];
      }
  for (int r = 0; r < MR; r++)
    for (int j = 0; j < NR; j++)
      {
        float v = accumulate ? c[r * ldc + j] + t[r][j] : t[r][j];
        if (epilogue != NULL && epilogue->bias != NULL)
          v += epilogue->bias[r];
        if (epilogue != NULL && epilogue->clamp)
          {
            v = v < epilogue->lo ? epilogue->lo : v;
            v = v > epilogue->hi ? epilogue->hi : v;
          }
        c[r * ldc + j] = v;
      }
}

static float
dot_generic (const float *x, const float *y, int64_t n)
{
  float total = 0.0f;

  for (int64_t i = 0; i < n; i++)
    total += x[i] * y[i];
  return total;
}

/* The CPU's best kernel, decided once (KERNEL_SGEMM_AUTO: not yet), and
 * the one tests and benchmarks force (KERNEL_SGEMM_AUTO: none). */
static int best_level;
static int forced_level;

static KernelSgemmLevel
detect_level (void)
{
  KernelSgemmLevel level = KERNEL_SGEMM_GENERIC;

#ifdef KERNEL_GEMM_HAVE_AVX2
  /* The plug-ins' one decision (EXECUTORCH_KERNELS_NO_SIMD and
   * EXECUTORCH_KERNELS_NO_AVX512 included); GCC's and clang's checks
   * include the OS saving the zmm state. */
  if (_executorch_support_cpu_has_avx2_fma ())
    level = KERNEL_SGEMM_AVX2;
  if (_executorch_support_cpu_has_avx512 ())
    level = KERNEL_SGEMM_AVX512;
#endif
  return level;
}

static KernelSgemmLevel
best (void)
{
  int level = __atomic_load_n (&best_level, __ATOMIC_ACQUIRE);

  if (level == KERNEL_SGEMM_AUTO)
    {
      level = detect_level ();
      __atomic_store_n (&best_level, level, __ATOMIC_RELEASE);
    }
  return (KernelSgemmLevel) level;
}

static KernelSgemmLevel
kernel_level (void)
{
  int forced = __atomic_load_n (&forced_level, __ATOMIC_RELAXED);

  return forced != KERNEL_SGEMM_AUTO ? (KernelSgemmLevel) forced : best ();
}

typedef struct
{
  KernelGemmMicrokernel kernel;
  int64_t nr;
} Microkernel;

static Microkernel
choose_kernel (void)
{
  switch (kernel_level ())
    {
#ifdef KERNEL_GEMM_HAVE_AVX512
      case KERNEL_SGEMM_AVX512: return (Microkernel){ _executorch_gemm_kernel_avx512, KERNEL_GEMM_NR_AVX512 };
#endif
#ifdef KERNEL_GEMM_HAVE_AVX2
      case KERNEL_SGEMM_AVX2: return (Microkernel){ _executorch_gemm_kernel_avx2, KERNEL_GEMM_NR };
#endif
      default: return (Microkernel){ kernel_generic, KERNEL_GEMM_NR };
    }
}

static KernelGemmDot
choose_dot (void)
{
#ifdef KERNEL_GEMM_HAVE_AVX2
  if (kernel_level () >= KERNEL_SGEMM_AVX2)
    return _executorch_gemm_dot_avx2;
#endif
  return dot_generic;
}

const char *
_executorch_sgemm_kernel_name (void)
{
  switch (kernel_level ())
    {
      case KERNEL_SGEMM_AVX512: return "avx512f";
      case KERNEL_SGEMM_AVX2: return "avx2-fma";
      default: return "generic";
    }
}

bool
_executorch_sgemm_force (KernelSgemmLevel level)
{
  if (level > best ())
    return false;
  __atomic_store_n (&forced_level, (int) level, __ATOMIC_RELAXED);
  return true;
}

typedef struct
{
  const KernelSgemm *g;
  KernelGemmMicrokernel kernel;
  int64_t nr;   /* the kernel's B strip width */
  float *apack; /* the packing buffer, or where a_packed's panel lies */
  float *bpack;
  int64_t ic, mc; /* row chunk */
  int64_t pc, kc; /* k slice */
  int64_t jc, nc; /* column slice */
  size_t a_strips;
  bool accumulate;
  bool b_ready; /* bpack points into g->b_packed: nothing to pack */
} Job;

static void
pack_a_strip (void *data, size_t strip)
{
  const Job *job = data;
  const KernelSgemm *g = job->g;
  float *dst = job->apack + (int64_t) strip * MR * job->kc;
  int64_t i0 = job->ic + (int64_t) strip * MR;
  int64_t rows = job->ic + job->mc - i0 < MR ? job->ic + job->mc - i0 : MR;
  const float *src = g->a + i0 * g->a_rs + job->pc * g->a_cs;

  for (int64_t r = 0; r < rows; r++)
    {
      const float *s = src + r * g->a_rs;
      if (g->a_cs == 1)
        for (int64_t p = 0; p < job->kc; p++)
          dst[p * MR + r] = s[p];
      else
        for (int64_t p = 0; p < job->kc; p++)
          dst[p * MR + r] = s[p * g->a_cs];
    }
  for (int64_t r = rows; r < MR; r++)
    for (int64_t p = 0; p < job->kc; p++)
      dst[p * MR + r] = 0.0f;
}

static void
pack_b_strip (void *data, size_t strip)
{
  const Job *job = data;
  const KernelSgemm *g = job->g;
  int64_t nr = job->nr;
  float *dst = job->bpack + (int64_t) strip * nr * job->kc;
  int64_t j0 = job->jc + (int64_t) strip * nr;
  int64_t cols = job->jc + job->nc - j0 < nr ? job->jc + job->nc - j0 : nr;

  if (g->pack_b != NULL)
    {
      g->pack_b (g->pack_b_user, job->pc, job->kc, j0, cols, nr, dst);
      return;
    }
  const float *src = g->b + job->pc * g->b_rs + j0 * g->b_cs;

  if (g->b_cs == 1 && cols == nr)
    {
      /* Fixed-length row copies: vector moves, no memcpy call per row. */
      for (int64_t p = 0; p < job->kc; p++)
        {
          const float *s = src + p * g->b_rs;
          float *d = dst + p * nr;
          if (nr == NR_MAX)
            for (int j = 0; j < NR_MAX; j++)
              d[j] = s[j];
          else
            for (int j = 0; j < NR; j++)
              d[j] = s[j];
        }
      return;
    }
  if (g->b_cs == 1)
    {
      for (int64_t p = 0; p < job->kc; p++)
        {
          memcpy (dst + p * nr, src + p * g->b_rs, (size_t) cols * sizeof (float));
          for (int64_t j = cols; j < nr; j++)
            dst[p * nr + j] = 0.0f;
        }
      return;
    }
#ifdef KERNEL_GEMM_HAVE_AVX2
  if (g->b_rs == 1 && cols == nr && kernel_level () >= KERNEL_SGEMM_AVX2)
    {
      for (int64_t jb = 0; jb < nr; jb += 16)
        _executorch_gemm_pack_bt_avx2 (src + jb * g->b_cs, g->b_cs, job->kc, dst + jb, nr);
      return;
    }
#endif
  for (int64_t j = 0; j < cols; j++)
    {
      const float *s = src + j * g->b_cs;
      if (g->b_rs == 1)
        for (int64_t p = 0; p < job->kc; p++)
          dst[p * nr + j] = s[p];
      else
        for (int64_t p = 0; p < job->kc; p++)
          dst[p * nr + j] = s[p * g->b_rs];
    }
  for (int64_t j = cols; j < nr; j++)
    for (int64_t p = 0; p < job->kc; p++)
      dst[p * nr + j] = 0.0f;
}

/* The caller's epilogue on rows [i0, i0 + rows), columns [0, cols) of @c
 * (C's element (i0, j0) and on), where the microkernel did not apply it:
 * edge tiles and the paths without packing. */
static void
epilogue (const KernelSgemm *g, float *c, int64_t i0, int64_t j0, int64_t rows, int64_t cols)
{
  for (int64_t r = 0; r < rows; r++)
    {
      float *row = c + r * g->ldc;
      if (g->row_bias != NULL)
        {
          float bias = g->row_bias[i0 + r];
          for (int64_t j = 0; j < cols; j++)
            row[j] += bias;
        }
      if (g->clamp)
        {
          float lo = g->lo, hi = g->hi;
          for (int64_t j = 0; j < cols; j++)
            {
              float v = row[j];
              v = v < lo ? lo : v;
              row[j] = v > hi ? hi : v;
            }
        }
    }
  if (g->tile_done != NULL)
    g->tile_done (g->tile_done_user, c, g->ldc, i0, j0, rows, cols);
}

static bool
has_epilogue (const KernelSgemm *g)
{
  return g->row_bias != NULL || g->clamp || g->tile_done != NULL;
}

/* Strips [si, si + ti) of A times strips [sj, sj + tj) of B. */
static void
compute_tile (void *data, size_t si, size_t sj, size_t ti, size_t tj)
{
  const Job *job = data;
  const KernelSgemm *g = job->g;
  int64_t nr = job->nr;
  bool last = job->pc + job->kc == g->k && has_epilogue (g);
  float edge[MR * NR_MAX] __attribute__ ((aligned (64)));

  for (size_t jp = sj; jp < sj + tj; jp++)
    {
      int64_t j0 = (int64_t) jp * nr;
      int64_t cols = job->nc - j0 < nr ? job->nc - j0 : nr;
      const float *b = job->bpack + j0 * job->kc;

      for (size_t ip = si; ip < si + ti; ip++)
        {
          int64_t i0 = (int64_t) ip * MR;
          int64_t rows = job->mc - i0 < MR ? job->mc - i0 : MR;
          const float *a = job->apack + i0 * job->kc;
          float *c = (job->ic + i0 < g->c_low_rows ? g->c_low : g->c) + (job->ic + i0) * g->ldc + job->jc + j0;

          if (rows == MR && cols == nr)
            {
              KernelGemmEpilogue e = { .clamp = g->clamp, .lo = g->lo, .hi = g->hi };
              if (g->row_bias != NULL)
                e.bias = g->row_bias + job->ic + i0;
              job->kernel (job->kc, a, b, c, g->ldc, job->accumulate, last ? &e : NULL);
              if (last && g->tile_done != NULL)
                g->tile_done (g->tile_done_user, c, g->ldc, job->ic + i0, job->jc + j0, rows, cols);
              continue;
            }
          job->kernel (job->kc, a, b, edge, nr, 0, NULL);
          for (int64_t r = 0; r < rows; r++)
            for (int64_t j = 0; j < cols; j++)
              c[r * g->ldc + j] = job->accumulate ? c[r * g->ldc + j] + edge[r * nr + j] : edge[r * nr + j];
          if (last)
            epilogue (g, c, job->ic + i0, job->jc + j0, rows, cols);
        }
    }
}

/* Full strips [s0, s1) of a B whose rows are contiguous, packed row by
 * row: each row of B is then read as one run of (s1 - s0) * nr floats.
 * Strip by strip, every row would be a separate short read, and rows far
 * apart (a 1x1 convolution's channel planes) are more streams than the
 * hardware prefetchers follow: the packing would wait on each in turn. */
static void
pack_b_rows (const Job *job, size_t s0, size_t s1)
{
  const KernelSgemm *g = job->g;
  int64_t nr = job->nr, kc = job->kc;
  const float *src = g->b + job->pc * g->b_rs + job->jc + (int64_t) s0 * nr;

  for (int64_t p = 0; p < kc; p++)
    {
      const float *s = src + p * g->b_rs;
      float *d = job->bpack + (int64_t) s0 * nr * kc + p * nr;
      /* Constant-size copies: inlined vector moves. */
      if (nr == NR_MAX)
        for (size_t strip = s0; strip < s1; strip++, s += nr, d += nr * kc)
          memcpy (d, s, NR_MAX * sizeof (float));
      else
        for (size_t strip = s0; strip < s1; strip++, s += nr, d += nr * kc)
          memcpy (d, s, NR * sizeof (float));
    }
}

/* Columns of B packed at once, then multiplied by every A strip right
 * away, while they are still in L1 or L2 (the A panel then stays in L2). */
#define GROUP_COLS 128

/* Group @group of GROUP_COLS columns: packed and multiplied. */
static void
pack_and_compute_group (void *data, size_t group)
{
  Job *job = data;
  const KernelSgemm *g = job->g;
  size_t per_group = (size_t) (GROUP_COLS / job->nr);
  size_t b_strips = (size_t) ((job->nc + job->nr - 1) / job->nr);
  size_t s0 = group * per_group, s1 = s0 + per_group < b_strips ? s0 + per_group : b_strips;
  size_t full = job->nc / job->nr; /* strips without padding */

  if (!job->b_ready && g->pack_b == NULL && g->b_cs == 1 && s0 < full)
    {
      size_t s_end = s1 < full ? s1 : full;
      pack_b_rows (job, s0, s_end);
      for (size_t strip = s_end; strip < s1; strip++)
        pack_b_strip (job, strip);
    }
  else if (!job->b_ready)
    {
      for (size_t strip = s0; strip < s1; strip++)
        pack_b_strip (job, strip);
    }
  for (size_t strip = s0; strip < s1; strip++)
    compute_tile (job, 0, strip, job->a_strips, 1);
}

static void
run_1d (bool parallel, void (*fn) (void *, size_t), Job *job, size_t range)
{
  if (parallel && range > 1)
    executorch_threadpool_parallelize_1d ((ExecutorchThreadpoolTask1d) fn, job, range);
  else
    for (size_t i = 0; i < range; i++)
      fn (job, i);
}

static void
direct (const KernelSgemm *g)
{
  for (int64_t i = 0; i < g->m; i++)
    for (int64_t j = 0; j < g->n; j++)
      {
        float acc = 0.0f;
        for (int64_t p = 0; p < g->k; p++)
          acc += g->a[i * g->a_rs + p * g->a_cs] * g->b[p * g->b_rs + j * g->b_cs];
        float *c = g->c + i * g->ldc + j;
        *c = g->accumulate ? *c + acc : acc;
      }
}

/* ---- Few rows (m <= SMALL_M): no packing ----
 *
 * With B's columns contiguous (linear's weight, W[j, :]) each element is
 * a dot product; with B's rows contiguous the rows of C are built as sums
 * of scaled rows of B.  Either way B is read once, which is what bounds a
 * matrix-vector product.  Threads split the columns. */
#define SMALL_M 4
#define SMALL_COLS 256

typedef struct
{
  const KernelSgemm *g;
  KernelGemmDot dot;
} SmallJob;

static void
small_columns (void *data, size_t chunk)
{
  const SmallJob *job = data;
  const KernelSgemm *g = job->g;
  int64_t j0 = (int64_t) chunk * SMALL_COLS;
  int64_t j1 = j0 + SMALL_COLS < g->n ? j0 + SMALL_COLS : g->n;

  for (int64_t i = 0; i < g->m; i++)
    {
      float *c = g->c + i * g->ldc;
      const float *a = g->a + i * g->a_rs;
      if (g->b_rs == 1 && g->a_cs == 1)
        {
          for (int64_t j = j0; j < j1; j++)
            {
              float v = job->dot (a, g->b + j * g->b_cs, g->k);
              c[j] = g->accumulate ? c[j] + v : v;
            }
          continue;
        }
      float acc[SMALL_COLS];
      memset (acc, 0, sizeof acc);
      for (int64_t p = 0; p < g->k; p++)
        {
          float av = a[p * g->a_cs];
          const float *b = g->b + p * g->b_rs;
          for (int64_t j = j0; j < j1; j++)
            acc[j - j0] += av * b[j];
        }
      for (int64_t j = j0; j < j1; j++)
        c[j] = g->accumulate ? c[j] + acc[j - j0] : acc[j - j0];
    }
}

static bool
small_m (const KernelSgemm *g, bool parallel)
{
  SmallJob job = { g, choose_dot () };
  size_t chunks = (size_t) ((g->n + SMALL_COLS - 1) / SMALL_COLS);

  if (parallel && chunks > 1)
    executorch_threadpool_parallelize_1d (small_columns, &job, chunks);
  else
    for (size_t i = 0; i < chunks; i++)
      small_columns (&job, i);
  return true;
}

static int64_t
rows_padded (int64_t m)
{
  return (m + MR - 1) / MR * MR;
}

int64_t
_executorch_sgemm_packed_a_floats (int64_t m, int64_t k)
{
  return m > 0 && k > 0 ? rows_padded (m) * k : 0;
}

/* Panel (pc, all rows) at pc * rows_padded (m): every earlier k slice is
 * KC wide; within it, strip s at s * MR * kc, as pack_a_strip lays them. */
void
_executorch_sgemm_pack_a (const KernelSgemm *g, float *dst)
{
  Job job = { .g = g, .ic = 0, .mc = g->m };

  for (job.pc = 0; job.pc < g->k; job.pc += KC)
    {
      job.kc = g->k - job.pc < KC ? g->k - job.pc : KC;
      job.apack = dst + job.pc * rows_padded (g->m);
      for (size_t strip = 0; strip < (size_t) (rows_padded (g->m) / MR); strip++)
        pack_a_strip (&job, strip);
    }
}

static int64_t
columns_padded (int64_t n, int64_t nr)
{
  return (n + nr - 1) / nr * nr;
}

int64_t
_executorch_sgemm_b_strip_width (void)
{
  return choose_kernel ().nr;
}

int64_t
_executorch_sgemm_packed_b_floats (int64_t k, int64_t n, int64_t nr)
{
  return k > 0 && n > 0 && nr > 0 ? k * columns_padded (n, nr) : 0;
}

/* Slice (pc, all columns) at pc * columns_padded (n): every earlier k
 * slice is KC deep; within it, strip s at s * nr * kc, as pack_b_strip
 * lays them, so column block jc of a slice starts at jc * kc (NC is a
 * multiple of every strip width). */
void
_executorch_sgemm_pack_b (const KernelSgemm *g, int64_t nr, float *dst)
{
  Job job = { .g = g, .nr = nr, .jc = 0, .nc = g->n };

  for (job.pc = 0; job.pc < g->k; job.pc += KC)
    {
      job.kc = g->k - job.pc < KC ? g->k - job.pc : KC;
      job.bpack = dst + job.pc * columns_padded (g->n, nr);
      for (size_t strip = 0; strip < (size_t) (columns_padded (g->n, nr) / nr); strip++)
        pack_b_strip (&job, strip);
    }
}

static float *
alloc_floats (int64_t n)
{
  void *p = NULL;
  size_t bytes = ((size_t) n * sizeof (float) + 63) & ~(size_t) 63;

  if (posix_memalign (&p, 64, bytes) != 0)
    return NULL;
  return p;
}

bool
_executorch_sgemm (const KernelSgemm *g)
{
  int64_t m = g->m, n = g->n, k = g->k;

  if (m <= 0 || n <= 0)
    return true;
  /* Only the packed path below reads c_low. */
  g_return_val_if_fail (g->c_low_rows == 0 || (g->a_packed != NULL && k > 0 && g->c_low_rows % MR == 0), false);
  if (k <= 0)
    {
      if (!g->accumulate)
        for (int64_t i = 0; i < m; i++)
          memset (g->c + i * g->ldc, 0, (size_t) n * sizeof (float));
      if (has_epilogue (g))
        epilogue (g, g->c, 0, 0, m, n);
      return true;
    }
  if ((double) m * (double) n * (double) k <= DIRECT_MAX && g->pack_b == NULL && g->a_packed == NULL)
    {
      direct (g);
      if (has_epilogue (g))
        epilogue (g, g->c, 0, 0, m, n);
      return true;
    }

  guint threads = g->single_thread ? 1 : executorch_threadpool_get_num_threads ();
  bool parallel = threads > 1 && (double) m * (double) n * (double) k >= PARALLEL_MIN;
  if (m <= SMALL_M && g->pack_b == NULL && g->a_packed == NULL && ((g->b_rs == 1 && g->a_cs == 1) || g->b_cs == 1))
    {
      small_m (g, parallel);
      if (has_epilogue (g))
        epilogue (g, g->c, 0, 0, m, n);
      return true;
    }
  int64_t mchunk = m < MCHUNK ? m : MCHUNK;
  int64_t ncmax = n < NC ? n : NC;
  int64_t kcmax = k < KC ? k : KC;
  float *apack = g->a_packed != NULL ? NULL : alloc_floats (((mchunk + MR - 1) / MR) * MR * kcmax);
  Microkernel mk = choose_kernel ();
  bool b_ready = g->b_packed != NULL && g->b_packed_nr == mk.nr && g->pack_b == NULL;
  float *bpack = b_ready ? NULL : alloc_floats (((ncmax + mk.nr - 1) / mk.nr) * mk.nr * kcmax);
  if ((apack == NULL && g->a_packed == NULL) || (bpack == NULL && !b_ready))
    {
      free (apack);
      free (bpack);
      return false;
    }

  Job job = { .g = g, .kernel = mk.kernel, .nr = mk.nr, .apack = apack, .bpack = bpack, .b_ready = b_ready };
  for (job.ic = 0; job.ic < m; job.ic += MCHUNK)
    {
      job.mc = m - job.ic < MCHUNK ? m - job.ic : MCHUNK;
      size_t a_strips = (size_t) ((job.mc + MR - 1) / MR);
      job.a_strips = a_strips;
      for (job.pc = 0; job.pc < k; job.pc += KC)
        {
          job.kc = k - job.pc < KC ? k - job.pc : KC;
          job.accumulate = g->accumulate || job.pc > 0;
          if (g->a_packed != NULL)
            job.apack = (float *) g->a_packed + job.pc * rows_padded (g->a_packed_m > 0 ? g->a_packed_m : m) +
                        (g->a_packed_row0 + job.ic) * job.kc;
          else
            run_1d (parallel && job.mc * job.kc >= PACK_PARALLEL_MIN, pack_a_strip, &job, a_strips);
          for (job.jc = 0; job.jc < n; job.jc += NC)
            {
              job.nc = n - job.jc < NC ? n - job.jc : NC;
              if (b_ready)
                job.bpack = (float *) g->b_packed + job.pc * columns_padded (n, job.nr) + job.jc * job.kc;
              size_t b_strips = (size_t) ((job.nc + job.nr - 1) / job.nr);
              size_t groups = (size_t) ((job.nc + GROUP_COLS - 1) / GROUP_COLS);
              if ((int64_t) a_strips * MR * job.kc <= A_RESIDENT_MAX && (!parallel || groups >= 2 * threads))
                {
                  run_1d (parallel, pack_and_compute_group, &job, groups);
                  continue;
                }
              if (!b_ready)
                run_1d (parallel && job.nc * job.kc >= PACK_PARALLEL_MIN, pack_b_strip, &job, b_strips);

              size_t tile_i = MC / MR, tile_j = b_strips;
              if (parallel)
                {
                  size_t tiles_i = (a_strips + tile_i - 1) / tile_i;
                  size_t want = 8 * threads;
                  size_t tiles_j = tiles_i >= want ? 1 : (want + tiles_i - 1) / tiles_i;
                  tile_j = (b_strips + tiles_j - 1) / tiles_j;
                  if (tile_j == 0)
                    tile_j = 1;
                  executorch_threadpool_parallelize_2d_tile_2d (compute_tile, &job, a_strips, b_strips, tile_i, tile_j);
                }
              else
                {
                  for (size_t si = 0; si < a_strips; si += tile_i)
                    compute_tile (&job, si, 0, a_strips - si < tile_i ? a_strips - si : tile_i, b_strips);
                }
            }
        }
    }
  free (apack);
  free (bpack);
  return true;
}
