/* mat2-packing.c: constant second matrices of our addmm packed once, at load
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GEMM packs B into strips the width of its microkernel on every call.
 * For nn.Linear, B is the constant weight (read transposed where it lies,
 * constant-transpose.c), and the packing reads it column by column: a
 * tenth of a BERT-sized encoder's time.  Where an addmm of this library
 * has a constant float32 second matrix and a first matrix of static shape
 * with enough rows for the GEMM's packed path, the matrix is packed here
 * once, for the microkernel in use, and the instruction calls addmm with
 * the packed copy as its user data (KernelPackedMat2).  The kernel checks
 * that the copy is of the matrix it is given and that the microkernel
 * still reads strips of its width, else packs as before.
 *
 * Rows of the first matrix: a single-token decode step (1 row) takes the
 * GEMM's path without packing, so its weights are not copied; the copy
 * costs memory the size of the weights it packs.
 */
#include "kernels-private.h"
#include "rewrites-private.h"
#include "../kernels/linalg/linalg-private.h"
#include "gemm.h"

#include <stdlib.h>

/* Fewer rows than this take the GEMM's paths without packing. */
#define MIN_ROWS 8

static const EtTensor *
float_matrix (const EtValue *value)
{
  const EtTensor *t = value != NULL && value->tag == ET_VALUE_TENSOR ? value->u.tensor : NULL;

  return t != NULL && t->scalar_type == ET_SCALAR_FLOAT && t->ndim == 2 && t->data != NULL &&
                 t->device_type == ET_DEVICE_CPU
             ? t
             : NULL;
}

/* The copies made so far: a matrix read by several instructions (tied
 * weights) is packed once. */
typedef struct
{
  KernelPackedMat2 **items;
  uint32_t n;
} Packed;

/* The packed copy of @b, made or found in @done (which has room for one
 * more); NULL when it cannot be made. */
static const KernelPackedMat2 *
packed_for (EtMethodGraph *graph, Packed *done, const EtKernel *kernel, const EtTensor *b, int64_t nr)
{
  KernelPackedMat2 *p;
  int64_t k = b->sizes[0], n = b->sizes[1];

  for (uint32_t i = 0; i < done->n; i++)
    if ((p = done->items[i])->data == b->data)
      return p->k == k && p->n == n && p->rs == b->strides[0] && p->cs == b->strides[1] ? p : NULL;
  int64_t floats = _executorch_sgemm_packed_b_floats (k, n, nr);
  if (floats <= 0 || (uint64_t) floats > (SIZE_MAX - 64) / sizeof (float))
    return NULL;
  p = et_method_graph_alloc (graph, sizeof *p);
  char *memory = et_method_graph_alloc (graph, (size_t) floats * sizeof (float) + 64);
  if (p == NULL || memory == NULL)
    return NULL;
  float *packed = (float *) (memory + (64 - (uintptr_t) memory % 64) % 64);
  KernelSgemm g = { .k = k, .n = n, .b = b->data, .b_rs = b->strides[0], .b_cs = b->strides[1] };
  _executorch_sgemm_pack_b (&g, nr, packed);
  *p = (KernelPackedMat2){ *kernel, b->data, k, n, b->strides[0], b->strides[1], nr, packed };
  p->kernel.user_data = p;
  done->items[done->n++] = p;
  return p;
}

static void
pack_constant_mat2s (void *user_data, EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph);
  int64_t nr = _executorch_sgemm_b_strip_width ();
  Packed done = { calloc (n > 0 ? n : 1, sizeof *done.items), 0 };

  (void) user_data;
  if (done.items == NULL)
    return;
  for (uint32_t index = 0; index < n && _executorch_rewrites_enabled (); index++)
    {
      const EtKernel *kernel = et_method_graph_kernel (graph, index);
      EtValue **args;
      uint32_t n_args;

      /* Not one already given packed weights. */
      if (!_executorch_rewrite_calls_own (graph, index, "aten::addmm.out") || kernel->user_data != NULL)
        continue;
      args = et_method_graph_args (graph, index, &n_args);
      const EtTensor *a = n_args == 7 ? float_matrix (args[1]) : NULL;
      const EtTensor *b = n_args == 7 ? float_matrix (args[2]) : NULL;
      if (a == NULL || b == NULL || (b->flags & ET_TENSOR_FLAG_CONSTANT) == 0 || a->shape_dynamism != ET_SHAPE_STATIC ||
          a->sizes[0] < MIN_ROWS || a->sizes[1] != b->sizes[0])
        continue;
      const KernelPackedMat2 *p = packed_for (graph, &done, kernel, b, nr);
      if (p != NULL)
        et_method_graph_set_kernel (graph, index, &p->kernel);
    }
  free (done.items);
}

const EtMethodRewrite _executorch_mat2_packing_rewrite = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "kernels:mat2-packing",
  .rewrite = pack_constant_mat2s,
};
