/* linalg.c: matrix products
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kernels.h"

#include <string.h>

/* out[m,n] = beta * bias + alpha * (a[m,k] @ b[k,n]); Float, any strides. */
static EtError
matmul (EtKernelContext *ctx, const EtTensor *a, const EtTensor *b, const EtTensor *bias, double beta,
        double alpha, EtTensor *out)
{
  int64_t m, k, nn, sizes[2];
  EtError code;

  if (a->ndim != 2 || b->ndim != 2 || a->sizes[1] != b->sizes[0])
    return FAIL (ctx, "matrix sizes do not agree");
  if (a->scalar_type != ET_SCALAR_FLOAT || b->scalar_type != ET_SCALAR_FLOAT || out->scalar_type != ET_SCALAR_FLOAT)
    return et_kernel_context_failf (ctx, ET_ERROR_NOT_SUPPORTED, "matrix products support Float only");
  m = a->sizes[0], k = a->sizes[1], nn = b->sizes[1];
  sizes[0] = m, sizes[1] = nn;
  if ((code = kernel_resize (ctx, out, 2, sizes)) != ET_OK)
    return code;
  {
    const float *x = a->data, *y = b->data;
    float *z = out->data;
    int64_t as0 = a->strides[0], as1 = a->strides[1], bs0 = b->strides[0], bs1 = b->strides[1];
    int64_t zs0 = out->strides[0], zs1 = out->strides[1];
    float *row = et_kernel_context_scratch (ctx, (size_t) (nn > 0 ? nn : 1) * sizeof (float));

    if (row == NULL)
      return et_kernel_context_fail (ctx, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory");
    for (int64_t i = 0; i < m; i++)
      {
        memset (row, 0, (size_t) nn * sizeof (float));
        /* i-k-j order: the inner loop walks a row of b, which vectorises when b is row-major. */
        for (int64_t p = 0; p < k; p++)
          {
            float av = x[i * as0 + p * as1];
            const float *brow = y + p * bs0;
            if (bs1 == 1)
              for (int64_t j = 0; j < nn; j++)
                row[j] += av * brow[j];
            else
              for (int64_t j = 0; j < nn; j++)
                row[j] += av * brow[j * bs1];
          }
        for (int64_t j = 0; j < nn; j++)
          {
            double v = alpha * row[j];
            if (bias != NULL)
              {
                int64_t coord[2] = { i, j };
                v += beta * kernel_load (bias, kernel_offset (bias, 2, coord));
              }
            z[i * zs0 + j * zs1] = (float) v;
          }
      }
  }
  return ET_OK;
}

/* aten::mm.out(self, mat2, out, ret) */
static EtError
mm_out (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *a, *b, *out;
  EtError code;

  if (n != 4)
    return FAIL (ctx, "expected 4 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &a)) || (code = kernel_tensor_arg (ctx, args, 1, &b)) ||
      (code = kernel_tensor_arg (ctx, args, 2, &out)))
    return code;
  return matmul (ctx, a, b, NULL, 0, 1, out);
}

/* aten::addmm.out(self, mat1, mat2, beta, alpha, out, ret) */
static EtError
addmm_out (EtKernelContext *ctx, EtValue **args, uint32_t n)
{
  EtTensor *bias, *a, *b, *out;
  double beta, alpha;
  EtError code;

  if (n != 7)
    return FAIL (ctx, "expected 7 arguments, got %u", n);
  if ((code = kernel_tensor_arg (ctx, args, 0, &bias)) || (code = kernel_tensor_arg (ctx, args, 1, &a)) ||
      (code = kernel_tensor_arg (ctx, args, 2, &b)) || (code = kernel_tensor_arg (ctx, args, 5, &out)))
    return code;
  if (!et_value_to_double (args[3], &beta) || !et_value_to_double (args[4], &alpha))
    return FAIL (ctx, "beta or alpha is not a number");
  if (bias->ndim > 2 || (bias->ndim >= 1 && bias->sizes[bias->ndim - 1] != 1 && a->ndim == 2 && b->ndim == 2 &&
                         bias->sizes[bias->ndim - 1] != b->sizes[1]))
    return FAIL (ctx, "bias cannot be broadcast to the product");
  if (bias->ndim == 2 && a->ndim == 2 && bias->sizes[0] != 1 && bias->sizes[0] != a->sizes[0])
    return FAIL (ctx, "bias cannot be broadcast to the product");
  return matmul (ctx, a, b, bias, beta, alpha, out);
}

const EtKernel kernel_linalg[] = {
  { "aten::mm.out", mm_out, NULL },
  { "aten::addmm.out", addmm_out, NULL },
};
const unsigned kernel_n_linalg = sizeof kernel_linalg / sizeof kernel_linalg[0];
