/* gemm.h: the packed, cache-blocked float32 GEMM of the CPU kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * C = A @ B (or C += A @ B) for float32 operands with arbitrary element
 * strides, so that transposed operands (linear's weight, a channels-last
 * image) are packed straight from where they lie.  Panels of A and B are
 * packed into MR x KC and KC x NR strips, and a register-blocked
 * microkernel (AVX-512 or AVX2 + FMA where the CPU has it, portable C
 * otherwise) computes MR x NR tiles of C.  Work is spread over the process thread pool
 * (libexecutorch-threadpool) by tiles of C.
 *
 * This file and gemm.c only depend on the C library and the thread pool, so
 * the GEMM tests build them directly.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The widest B strip a KernelSgemmPackB is asked for (the strip width
 * @nr is the microkernel's: 16 or 32). */
#define KERNEL_SGEMM_NR_MAX 32

/* Writes B[pc + p, j0 + j] to dst[p * nr + j] for p < kc and j < cols
 * (cols <= nr), and zeros for cols <= j < nr.  dst is 64-byte aligned.
 * Called from several threads at once for different strips. */
typedef void (*KernelSgemmPackB) (const void *user, int64_t pc, int64_t kc, int64_t j0, int64_t cols, int64_t nr,
                                  float *dst);

typedef struct
{
  int64_t m, n, k;
  const float *a; /* A[i, p] is a[i * a_rs + p * a_cs] */
  int64_t a_rs, a_cs;
  const float *b; /* B[p, j] is b[p * b_rs + j * b_cs] */
  int64_t b_rs, b_cs;
  float *c; /* C[i, j] is c[i * ldc + j] */
  int64_t ldc;
  bool accumulate;    /* C += A @ B instead of C = A @ B */
  bool single_thread; /* never use the pool (caller already parallel) */
  /* When set, B is never read through b: strips are produced by pack_b
   * (an implicit matrix, such as im2col of an image). */
  KernelSgemmPackB pack_b;
  const void *pack_b_user;
  /* When set, A as _executorch_sgemm_pack_a() laid it out once (constant
   * weights), used instead of packing a on every call; a is then never
   * read (small products take the packed path too). */
  const float *a_packed;
  /* With a_packed: A is rows [a_packed_row0, a_packed_row0 + m) of a matrix
   * of a_packed_m rows packed whole (0: m); a_packed_row0 is a multiple of
   * 6 (the strips' height), so a task can take a block of output channels. */
  int64_t a_packed_m, a_packed_row0;
  /* When set, B as _executorch_sgemm_pack_b() laid it out once, in strips
   * b_packed_nr wide (constant weights): the packed path reads it instead
   * of packing b on every call, where the microkernel in use reads strips
   * of that width.  b stays valid: the paths without packing read it. */
  const float *b_packed;
  int64_t b_packed_nr;
  /* With a_packed: rows [0, c_low_rows) of C are c_low[i * ldc + j]
   * instead (a convolution's first output channels going to a temporary
   * while B is packed once); c_low_rows is a multiple of 6. */
  float *c_low;
  int64_t c_low_rows;
  /* Applied to each tile of C once its product is complete, while it is
   * still in cache: C[i, j] += row_bias[i] (when set), then, with clamp,
   * C[i, j] = min (max (C[i, j], lo), hi) (NaN passes through). */
  const float *row_bias;
  bool clamp;
  float lo, hi;
  /* When set, called on each tile of C (rows [i0, i0 + rows), columns
   * [j0, j0 + cols), @c its first element) once the above is done, while
   * the tile is still in cache; from several threads at once for
   * different tiles. */
  void (*tile_done) (const void *user, const float *c, int64_t ldc, int64_t i0, int64_t j0, int64_t rows, int64_t cols);
  const void *tile_done_user;
} KernelSgemm;

/* Floats _executorch_sgemm_pack_a() writes for an m x k matrix A. */
int64_t _executorch_sgemm_packed_a_floats (int64_t m, int64_t k);

/* Packs @g's A (m, k, a, a_rs, a_cs) into @dst, in the order the GEMM
 * reads its panels, for KernelSgemm.a_packed. */
void _executorch_sgemm_pack_a (const KernelSgemm *g, float *dst);

/* The width of the B strips the microkernel in use reads. */
int64_t _executorch_sgemm_b_strip_width (void);

/* Floats _executorch_sgemm_pack_b() writes for a k x n matrix B in strips
 * @nr wide. */
int64_t _executorch_sgemm_packed_b_floats (int64_t k, int64_t n, int64_t nr);

/* Packs @g's B (k, n, b, b_rs, b_cs) into @dst, 64-byte aligned, in
 * strips @nr wide and in the order the GEMM reads them, for
 * KernelSgemm.b_packed. */
void _executorch_sgemm_pack_b (const KernelSgemm *g, int64_t nr, float *dst);

/* Runs @g; false only when the packing buffers could not be allocated. */
bool _executorch_sgemm (const KernelSgemm *g);

/* Which microkernel runs: "avx512f", "avx2-fma" or "generic". */
const char *_executorch_sgemm_kernel_name (void);

/* The microkernels, in increasing order of what they need of the CPU.
 * AVX-512 is used where the CPU has it unless EXECUTORCH_KERNELS_NO_AVX512
 * is set (to anything but 0); EXECUTORCH_KERNELS_NO_SIMD turns off both. */
typedef enum
{
  KERNEL_SGEMM_AUTO,
  KERNEL_SGEMM_GENERIC,
  KERNEL_SGEMM_AVX2,
  KERNEL_SGEMM_AVX512,
} KernelSgemmLevel;

/* For tests and benchmarks: run @level's microkernel (KERNEL_SGEMM_AUTO:
 * the best the CPU has, as without this call).  False, changing nothing,
 * when the CPU lacks what @level needs.  Not thread-safe against running
 * GEMMs. */
bool _executorch_sgemm_force (KernelSgemmLevel level);
