/* uses.c: which instructions of a method read a value, for the rewrites
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A rewrite may stop writing a value (an intermediate a fusion keeps in
 * registers, indices nobody reads) only when no other instruction and
 * nothing outside the method (a pinned value: input, output, mutable
 * buffer) can see it.
 */
#include "rewrites-private.h"

bool
_executorch_rewrite_only_used_by (EtMethodGraph *graph, const EtValue *value, uint32_t producer, uint32_t reader)
{
  uint32_t n = et_method_graph_n_instructions (graph);
  uint32_t reads = 0;

  if (value == NULL || et_method_graph_value_is_pinned (graph, value))
    return false;
  for (uint32_t index = 0; index < n; index++)
    {
      EtValue **args;
      uint32_t n_args;

      if (index == producer)
        continue;
      args = et_method_graph_args (graph, index, &n_args);
      for (uint32_t i = 0; i < n_args; i++)
        if (args[i] == value)
          {
            if (index != reader)
              return false;
            reads++;
          }
    }
  return reads == (reader == UINT32_MAX ? 0u : 1u);
}
