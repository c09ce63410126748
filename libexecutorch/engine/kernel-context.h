/* kernel-context.h: the kernel call context (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "engine.h"

struct EtKernelContext {
  const EtKernel *kernel;
  void *scratch[16];       /* freed after each call */
  guint n_scratch;
  char message[256];
};

void _et_kernel_context_init (EtKernelContext *context, const EtKernel *kernel);
/* Frees scratch memory and clears the message. */
void _et_kernel_context_reset (EtKernelContext *context);
