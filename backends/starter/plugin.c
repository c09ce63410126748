/* plugin.c: the entry point of libexecutorch-kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kernels.h"

#include <stdio.h>

ET_PLUGIN_EXPORT const EtPluginDesc *executorch_kernels_get_plugin (void);

static bool
init (EtRegistry *registry, char *message, size_t size)
{
  const struct { const EtKernel *kernels; unsigned n; } tables[] = {
    { kernel_elementwise, kernel_n_elementwise },
    { kernel_layout, kernel_n_layout },
    { kernel_linalg, kernel_n_linalg },
    { kernel_prim, kernel_n_prim },
  };

  for (unsigned i = 0; i < sizeof tables / sizeof tables[0]; i++)
    if (et_registry_add_kernels (registry, tables[i].kernels, tables[i].n) != ET_OK)
      {
        snprintf (message, size, "%s", et_registry_last_message (registry));
        return false;
      }
  return true;
}

const EtPluginDesc *
executorch_kernels_get_plugin (void)
{
  static const EtPluginDesc desc = {
    .abi_version = ET_PLUGIN_ABI_VERSION,
    .name = "kernels",
    .version = PLUGIN_VERSION,
    .description = "CPU kernels for the operators exported programs use",
    .package = "libexecutorch-kernels0",
    .kind = ET_PLUGIN_KERNELS,
    .init = init,
  };
  return &desc;
}
