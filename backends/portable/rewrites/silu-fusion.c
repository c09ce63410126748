/* silu-fusion.c: sigmoid followed by the multiply by its own input becomes one SiLU pass
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * torch.nn.SiLU reaches an undelegated program as two instructions,
 *
 *   sigmoid.out (x, out = s);  mul.out (x, s, out = y)   (or mul (s, x))
 *
 * two passes over the activations and one intermediate (EfficientNet has
 * one after almost every convolution).  When both are this library's
 * kernels, consecutive, all float32 of one shape (no broadcast), and s is
 * not pinned and read by the multiply alone, the sigmoid instruction
 * computes y = x * sigmoid(x) straight into the multiply's out and the
 * multiply does nothing.  The product is the multiply's own (the same
 * float sigmoid, then one rounding), so the result is what the two
 * instructions give.  EXECUTORCH_KERNELS_NO_REWRITES turns it off with the
 * library's other rewrites.
 */
#include "kernels-private.h"
#include "nn-private.h"
#include "rewrites-private.h"
#include "vector.h"

typedef struct
{
  EtKernel kernel;
  EtValue *out; /* the multiply's */
} SiluFusion;

static EtError
multiply_done (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  (void) ctx;
  (void) args;
  (void) n_args;
  return ET_OK;
}

static const EtKernel multiply_done_kernel = { "aten::mul.out", multiply_done, NULL };

typedef struct
{
  const float *x;
  float *y;
} SiluJob;

static void
silu_range (void *context, int64_t begin, int64_t end)
{
  const SiluJob *job = context;

  _executorch_vec_silu_f32 (end - begin, job->x + begin, job->y + begin);
}

/* The fused instruction: the sigmoid's arguments, the multiply's out. */
static EtError
silu_fused_out (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const SiluFusion *fusion = et_kernel_context_user_data (ctx);
  EtTensor *x, *y;

  KERNEL_TRY (_executorch_check_n_args (ctx, n_args, 3));
  KERNEL_TRY (_executorch_arg_tensor (ctx, args, 0, "self", &x));
  if (fusion == NULL || fusion->out == NULL || fusion->out->tag != ET_VALUE_TENSOR)
    return KERNEL_FAIL (ctx, ET_ERROR_INTERNAL, "silu: fused instruction without its out");
  y = fusion->out->u.tensor;
  if (x->scalar_type != ET_SCALAR_FLOAT || y->scalar_type != ET_SCALAR_FLOAT ||
      !_executorch_dim_order_is_identity (x) || !_executorch_dim_order_is_identity (y))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "silu: the fused sigmoid and multiply take contiguous float32");
  KERNEL_TRY (_executorch_resize (ctx, y, x->ndim, x->sizes));
  if (x->numel == 0)
    return ET_OK;

  /* Elementwise: the same buffer is fine, a shifted one is not. */
  const char *xb = x->data, *yb = y->data;
  size_t bytes = (size_t) x->numel * sizeof (float);
  if (xb == NULL || yb == NULL || (xb != yb && xb < yb + bytes && yb < xb + bytes))
    return KERNEL_FAIL (ctx, ET_ERROR_INVALID_ARGUMENT, "silu: out partly overlaps self");
  SiluJob job = { x->data, y->data };
  _executorch_parallel_for (x->numel, KERNEL_GRAIN / 4, silu_range, &job);
  return ET_OK;
}

static bool
plain_float (const EtValue *v, const EtTensor *like)
{
  const EtTensor *t = v != NULL && v->tag == ET_VALUE_TENSOR ? v->u.tensor : NULL;

  return t != NULL && t->scalar_type == ET_SCALAR_FLOAT && t->device_type == ET_DEVICE_CPU &&
         _executorch_dim_order_is_identity (t) && (like == NULL || _executorch_same_sizes (t, like));
}

static void
fuse_silu (void *user_data, EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph);

  (void) user_data;
  if (!_executorch_rewrites_enabled ())
    return;
  for (uint32_t index = 0; index + 1 < n; index++)
    {
      uint32_t ns, nm;
      EtValue **sig, **mul;

      if (!_executorch_rewrite_calls_own (graph, index, "aten::sigmoid.out") ||
          !_executorch_rewrite_calls_own (graph, index + 1, "aten::mul.out"))
        continue;
      sig = et_method_graph_args (graph, index, &ns);
      mul = et_method_graph_args (graph, index + 1, &nm);
      /* sigmoid.out (self, out, ret); mul.out (self, other, out, ret) */
      if (ns != 3 || nm != 4 || !plain_float (sig[0], NULL))
        continue;
      const EtTensor *x = sig[0]->u.tensor;
      if (!((mul[0] == sig[0] && mul[1] == sig[1]) || (mul[0] == sig[1] && mul[1] == sig[0])) ||
          !plain_float (sig[1], x) || !plain_float (mul[2], x) || mul[2] == sig[0] ||
          !_executorch_rewrite_only_used_by (graph, sig[1], index, index + 1))
        continue;

      SiluFusion *fusion = et_method_graph_alloc (graph, sizeof *fusion);
      if (fusion == NULL)
        return;
      fusion->kernel.name = "aten::sigmoid.out";
      fusion->kernel.func = silu_fused_out;
      fusion->kernel.user_data = fusion;
      fusion->out = mul[2];
      /* Both are kernel calls of ours (checked): neither fails. */
      if (et_method_graph_set_kernel (graph, index, &fusion->kernel) != ET_OK ||
          et_method_graph_set_kernel (graph, index + 1, &multiply_done_kernel) != ET_OK)
        return;
      index++;
    }
}

const EtMethodRewrite _executorch_silu_fusion_rewrite = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "kernels:silu-fusion",
  .rewrite = fuse_silu,
};
