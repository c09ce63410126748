/* plugin.c: the plug-in descriptor of libexecutorch-kernels-quantized
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's only exported symbol is
 * executorch_kernels_quantized_get_plugin(); the registry calls its init
 * once, which registers every quantized_decomposed:: kernel of upstream's
 * kernels/quantized/quantized.yaml, and the integer-convolution rewrite
 * (int-conv-rewrite.c).
 */
#include "quantized-private.h"

#include <stdio.h>

#ifndef EXECUTORCH_KERNELS_QUANTIZED_VERSION
#define EXECUTORCH_KERNELS_QUANTIZED_VERSION "0.0.0"
#endif

static const struct
{
  const EtKernel *kernels;
  const size_t *n_kernels;
} tables[] = {
  { _executorch_qk_quantize_kernels, &_executorch_qk_quantize_n_kernels },
  { _executorch_qk_embedding_kernels, &_executorch_qk_embedding_n_kernels },
  { _executorch_qk_linear_kernels, &_executorch_qk_linear_n_kernels },
};

static bool
quantized_init (EtRegistry *registry, EtErrorContext *error)
{
  for (size_t i = 0; i < QK_N_ELEMENTS (tables); i++)
    if (et_registry_add_kernels (registry, tables[i].kernels, *tables[i].n_kernels, error) != ET_OK)
      return false;
  return et_registry_add_rewrite (registry, &_executorch_qk_int_conv_rewrite, error) == ET_OK;
}

static const EtPluginDesc plugin_desc = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .name = "kernels-quantized",
  .version = EXECUTORCH_KERNELS_QUANTIZED_VERSION,
  .description = "Quantized CPU kernels (quantized_decomposed:: operators)",
  .package = "libexecutorch-kernels-quantized0",
  .kind = ET_PLUGIN_KERNELS,
  .probe = NULL,
  .init = quantized_init,
};

ET_PLUGIN_EXPORT const EtPluginDesc *executorch_kernels_quantized_get_plugin (void);

ET_PLUGIN_EXPORT const EtPluginDesc *
executorch_kernels_quantized_get_plugin (void)
{
  return &plugin_desc;
}
