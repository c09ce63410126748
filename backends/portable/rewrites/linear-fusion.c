/* linear-fusion.c: a linear absorbs the activation or residual add after it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An undelegated transformer runs nn.Linear as addmm (the bias is its
 * first operand, so it is fused already) and then, as a separate pass
 * over the result, GELU (the MLP) or the residual add (the attention's and
 * the MLP's outputs).  When instruction i is this library's addmm with
 * alpha and beta 1 and instruction i + 1 is this library's relu, hardtanh,
 * clamp (scalar bounds), gelu or add (alpha 1, an operand of the same
 * sizes) reading the addmm's out, the addmm instruction runs the operator
 * on each tile of its result as the GEMM finishes it, while it is in
 * cache, into the operator's out; the operator's instruction does nothing
 * (linear-algebra.c, KernelLinearFusion).
 *
 * Transformer exports read the result through a view the memory plan
 * lays over the addmm's out (a 3-D alias of the 2-D product, no
 * instruction): the operator's input may be that alias.  The addmm still
 * writes its own out, so any other alias of it reads what it read before.
 *
 * The weight must be a constant (a quantized program's dequantized weight
 * is left to the plug-in that rewrites that pattern).  Every shape
 * involved is static and float32, contiguous; the operator's
 * out shares no bytes with the addmm's out or the residual unless it is
 * the same tensor's bytes (an elementwise operator written in place).
 * The kernel checks at run time where the plan may have put the out over
 * the addmm's first matrix (whose life ends at the addmm) and then runs
 * the operator after the GEMM instead of during it.
 */
#include "kernels-private.h"
#include "rewrites-private.h"
#include "../kernels/linalg/linalg-private.h"

#include <math.h>
#include <string.h>

static bool
is_one (const EtValue *v)
{
  return (v->tag == ET_VALUE_INT && v->u.int_value == 1) || (v->tag == ET_VALUE_DOUBLE && v->u.double_value == 1.0);
}

/* A scalar bound: Int or Double, not NaN. */
static bool
scalar_bound (const EtValue *value, float *out)
{
  return _executorch_rewrite_scalar_f32 (value, out) && !isnan (*out);
}

static bool
string_is (const EtValue *v, const char *s)
{
  return v->tag == ET_VALUE_STRING && v->u.string.length == strlen (s) &&
         memcmp (v->u.string.data, s, v->u.string.length) == 0;
}

/* The operator at @index as a fusion's @f (then, bounds, residual, out),
 * with the value it reads the product through in *@input. */
static bool
match_then (EtMethodGraph *graph, uint32_t index, KernelLinearFusion *f, EtValue **input, const char **name)
{
  uint32_t n_args;
  EtValue **args = et_method_graph_args (graph, index, &n_args);
  uint32_t out;

  f->lo = -INFINITY;
  f->hi = INFINITY;
  f->then = KERNEL_LINEAR_THEN_CLAMP;
  *input = n_args > 0 ? args[0] : NULL;
  if (_executorch_rewrite_calls_own (graph, index, *name = "aten::relu.out") && n_args == 3)
    {
      f->lo = 0.0f;
      out = 1;
    }
  else if (_executorch_rewrite_calls_own (graph, index, *name = "aten::hardtanh.out") && n_args == 5)
    {
      if (!scalar_bound (args[1], &f->lo) || !scalar_bound (args[2], &f->hi))
        return false;
      out = 3;
    }
  else if (_executorch_rewrite_calls_own (graph, index, *name = "aten::clamp.out") && n_args == 5)
    {
      if ((args[1]->tag == ET_VALUE_NONE && args[2]->tag == ET_VALUE_NONE) ||
          (args[1]->tag != ET_VALUE_NONE && !scalar_bound (args[1], &f->lo)) ||
          (args[2]->tag != ET_VALUE_NONE && !scalar_bound (args[2], &f->hi)))
        return false;
      out = 3;
    }
  else if (_executorch_rewrite_calls_own (graph, index, *name = "aten::gelu.out") && n_args == 4)
    {
      if (string_is (args[1], "none"))
        f->then = KERNEL_LINEAR_THEN_GELU;
      else if (string_is (args[1], "tanh"))
        f->then = KERNEL_LINEAR_THEN_GELU_TANH;
      else
        return false;
      out = 2;
    }
  else if (_executorch_rewrite_calls_own (graph, index, *name = "aten::add.out") && n_args == 5)
    {
      /* Which operand is the product is settled by the caller: here
       * both are candidates, the other one the residual. */
      if (!is_one (args[2]))
        return false;
      f->then = KERNEL_LINEAR_THEN_ADD;
      f->residual = args[1];
      out = 3;
    }
  else
    return false;
  f->out = args[out];
  return true;
}

/* Whether @x (the operator's input) is @product's out or an alias the
 * plan laid over it, read by the operator at @then alone. */
static bool
reads_product (EtMethodGraph *graph, uint32_t addmm, uint32_t then, EtValue *product, EtValue *x)
{
  const EtTensor *p = _executorch_rewrite_tensor (product), *t = _executorch_rewrite_tensor (x);
  uint32_t both[2] = { addmm, then };

  if (x == product)
    return et_method_graph_value_used_only_by (graph, product, both, 2);
  return _executorch_rewrite_is_plain_f32 (t) && t->data == p->data && t->nbytes == p->nbytes &&
         et_method_graph_value_used_only_by (graph, product, &addmm, 1) &&
         et_method_graph_value_used_only_by (graph, x, &then, 1);
}

static void
fuse_at (EtMethodGraph *graph, uint32_t index)
{
  uint32_t n_args;
  EtValue **args = et_method_graph_args (graph, index, &n_args);
  const EtKernel *addmm = et_method_graph_kernel (graph, index);
  KernelLinearFusion plan = { 0 };
  EtValue *x;
  const char *name;
  const EtTensor *product, *out, *input;

  /* A constant weight: a dequantized one (a quantized program's linear)
   * is left to the plug-in that rewrites that pattern. */
  const EtTensor *weight = n_args == 7 ? _executorch_rewrite_tensor (args[2]) : NULL;
  if (weight == NULL || (weight->flags & ET_TENSOR_FLAG_CONSTANT) == 0 || !is_one (args[3]) ||
      !is_one (args[4]) || !_executorch_rewrite_is_plain_f32 (product = _executorch_rewrite_tensor (args[5])) ||
      product->ndim != 2 || !match_then (graph, index + 1, &plan, &x, &name))
    return;
  if (plan.then == KERNEL_LINEAR_THEN_ADD)
    {
      uint32_t ops;
      EtValue **add = et_method_graph_args (graph, index + 1, &ops);
      /* The product is one operand, the residual the other. */
      if (reads_product (graph, index, index + 1, args[5], add[0]) && add[1] != add[0])
        x = add[0], plan.residual = add[1];
      else if (reads_product (graph, index, index + 1, args[5], add[1]) && add[1] != add[0])
        x = add[1], plan.residual = add[0];
      else
        return;
    }
  else if (!reads_product (graph, index, index + 1, args[5], x))
    return;
  input = _executorch_rewrite_tensor (x);
  out = _executorch_rewrite_tensor (plan.out);
  if (!_executorch_rewrite_is_plain_f32 (out) || out->numel != product->numel || !_executorch_same_sizes (out, input) ||
      (_executorch_tensors_overlap (out, product) && out->data != product->data) ||
      et_method_graph_value_is_pinned (graph, x))
    return;
  if (plan.residual != NULL)
    {
      const EtTensor *r = _executorch_rewrite_tensor (plan.residual);
      if (!_executorch_rewrite_is_plain_f32 (r) || !_executorch_same_sizes (r, input) ||
          (_executorch_tensors_overlap (r, out) && r->data != out->data) || _executorch_tensors_overlap (r, product))
        return;
    }

  KernelLinearFusion *fusion = et_method_graph_alloc (graph, sizeof *fusion);
  if (fusion == NULL)
    return;
  *fusion = plan;
  /* mat2-packing.c's packing, when it ran first. */
  fusion->packed = addmm->user_data;
  fusion->kernel.name = "aten::addmm.out";
  fusion->kernel.func = _executorch_addmm_fused_out;
  fusion->kernel.user_data = fusion;
  /* Both are this library's kernel calls (checked): neither fails. */
  if (et_method_graph_set_kernel (graph, index, &fusion->kernel) == ET_OK)
    et_method_graph_set_kernel (graph, index + 1, _executorch_rewrite_nothing (name));
}

static void
fuse_linears (void *user_data, EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph);

  (void) user_data;
  if (!_executorch_rewrites_enabled ())
    return;
  for (uint32_t index = 0; index + 1 < n; index++)
    if (_executorch_rewrite_calls_own (graph, index, "aten::addmm.out"))
      fuse_at (graph, index);
}

const EtMethodRewrite _executorch_linear_fusion_rewrite = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "kernels:linear-fusion",
  .rewrite = fuse_linears,
};
