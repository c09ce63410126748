/* plugin.c: the plug-in descriptor of libexecutorch-kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's only exported symbol is executorch_kernels_get_plugin();
 * the registry calls its init once, which registers every kernel table
 * and the load-time rewrites that rely on how those kernels work.
 */
#include "kernels-private.h"
#include "rewrites/rewrites-private.h"
#include "executorch-threadpool.h"

#include <stdio.h>

#ifndef EXECUTORCH_KERNELS_VERSION
#define EXECUTORCH_KERNELS_VERSION "0.0.0"
#endif

const KernelTable _executorch_kernel_tables[] = {
  { _executorch_binary_kernels, &_executorch_binary_n_kernels },
  { _executorch_unary_kernels, &_executorch_unary_n_kernels },
  { _executorch_linalg_kernels, &_executorch_linalg_n_kernels },
  { _executorch_shape_kernels, &_executorch_shape_n_kernels },
  { _executorch_copy_kernels, &_executorch_copy_n_kernels },
  { _executorch_reduce_kernels, &_executorch_reduce_n_kernels },
  { _executorch_prim_kernels, &_executorch_prim_n_kernels },
  { _executorch_device_copy_kernels, &_executorch_device_copy_n_kernels },
  { _executorch_conv_kernels, &_executorch_conv_n_kernels },
  { _executorch_binary_math_kernels, &_executorch_binary_math_n_kernels },
  { _executorch_logical_kernels, &_executorch_logical_n_kernels },
  { _executorch_bitwise_kernels, &_executorch_bitwise_n_kernels },
  { _executorch_where_kernels, &_executorch_where_n_kernels },
  { _executorch_activation_kernels, &_executorch_activation_n_kernels },
  { _executorch_norm_kernels, &_executorch_norm_n_kernels },
  { _executorch_pool_kernels, &_executorch_pool_n_kernels },
  { _executorch_pad_kernels, &_executorch_pad_n_kernels },
  { _executorch_upsample_kernels, &_executorch_upsample_n_kernels },
  { _executorch_index_kernels, &_executorch_index_n_kernels },
  { _executorch_creation_kernels, &_executorch_creation_n_kernels },
  { _executorch_split_kernels, &_executorch_split_n_kernels },
  { _executorch_strided_view_kernels, &_executorch_strided_view_n_kernels },
  { _executorch_roll_repeat_kernels, &_executorch_roll_repeat_n_kernels },
  { _executorch_line_reductions_kernels, &_executorch_line_reductions_n_kernels },
  { _executorch_kv_cache_kernels, &_executorch_kv_cache_n_kernels },
  { _executorch_sdpa_kernels, &_executorch_sdpa_n_kernels },
  { _executorch_distance_kernels, &_executorch_distance_n_kernels },
};

const size_t _executorch_n_kernel_tables = KERNEL_N_ELEMENTS (_executorch_kernel_tables);

static bool
kernels_init (EtRegistry *registry, EtErrorContext *error)
{
  for (size_t i = 0; i < _executorch_n_kernel_tables; i++)
    if (et_registry_add_kernels (registry, _executorch_kernel_tables[i].kernels,
                                 *_executorch_kernel_tables[i].n_kernels, error) != ET_OK)
      return false;
  if (et_registry_add_rewrite (registry, &_executorch_constant_transpose_rewrite, error) != ET_OK ||
      et_registry_add_rewrite (registry, &_executorch_mat2_packing_rewrite, error) != ET_OK ||
      et_registry_add_rewrite (registry, &_executorch_linear_fusion_rewrite, error) != ET_OK ||
      et_registry_add_rewrite (registry, &_executorch_conv_fusion_rewrite, error) != ET_OK ||
      et_registry_add_rewrite (registry, &_executorch_silu_fusion_rewrite, error) != ET_OK ||
      et_registry_add_rewrite (registry, &_executorch_pool_indices_rewrite, error) != ET_OK)
    return false;
  /* Start the CPU pool now, while programs load: left to the first
   * parallel kernel, starting its workers made a method's first execution
   * cost milliseconds more than the ones after it.  An application that
   * sets the size before loading a program still starts just one pool. */
  executorch_threadpool_get_num_threads ();
  return true;
}

static const EtPluginDesc plugin_desc = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "kernels",
  .version = EXECUTORCH_KERNELS_VERSION,
  .description = "Portable CPU kernels (ATen out-variants, dim-order and prim ops)",
  .package = "libexecutorch-kernels0",
  .kind = ET_PLUGIN_KERNELS,
  .probe = NULL,
  .init = kernels_init,
};

ET_PLUGIN_EXPORT const EtPluginDesc *executorch_kernels_get_plugin (void);

ET_PLUGIN_EXPORT const EtPluginDesc *
executorch_kernels_get_plugin (void)
{
  return &plugin_desc;
}
