/* pool-indices.c: max_pool2d_with_indices stops writing indices that nothing reads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * torch.nn.MaxPool2d reaches an undelegated program as
 * max_pool2d_with_indices.out, whose int64 indices (twice the bytes of the
 * pooled values) no later instruction reads in an inference graph
 * (ResNet, ShuffleNet, SqueezeNet).  When the instruction calls this
 * library's kernel and its indices value, and its ret value, are used by
 * no other instruction and are not pinned (not a method input, output or
 * mutable buffer), the instruction calls a kernel that computes the
 * values alone; they are the same bits.  EXECUTORCH_KERNELS_NO_REWRITES
 * turns it off with the library's other rewrites.
 */
#include "kernels-private.h"
#include "rewrites-private.h"
#include "../kernels/nn/pool-private.h"

#define OP "aten::max_pool2d_with_indices.out"

static const EtKernel values_kernel = { OP, _executorch_max_pool2d_values_out, NULL };

static void
drop_unread_indices (void *user_data, EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph);

  (void) user_data;
  if (!_executorch_rewrites_enabled ())
    return;
  for (uint32_t index = 0; index < n; index++)
    {
      EtValue **args;
      uint32_t n_args;

      if (!_executorch_rewrite_calls_own (graph, index, OP))
        continue;
      args = et_method_graph_args (graph, index, &n_args);
      /* (self, kernel_size, stride, padding, dilation, ceil_mode, out, indices, ret) */
      if (n_args != 9 || args[7] == NULL || args[7]->tag != ET_VALUE_TENSOR || args[7] == args[6])
        continue;
      if (!_executorch_rewrite_only_used_by (graph, args[7], index, UINT32_MAX))
        continue;
      if (args[8] != args[6] && args[8] != args[7] &&
          !_executorch_rewrite_only_used_by (graph, args[8], index, UINT32_MAX))
        continue;
      et_method_graph_set_kernel (graph, index, &values_kernel);
    }
}

const EtMethodRewrite _executorch_pool_indices_rewrite = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "kernels:max-pool-indices",
  .rewrite = drop_unread_indices,
};
