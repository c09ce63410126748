/* kernel-context.h: the kernel call context (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "error-context.h"

struct EtKernelContext
{
  const EtKernel *kernel;
  void *scratch[16]; /* freed after each call */
  guint n_scratch;
  EtErrorContext error; /* cleared after each call */
};

void _et_kernel_context_init (EtKernelContext *context, const EtKernel *kernel);
/* Frees scratch memory and clears the error. */
void _et_kernel_context_reset (EtKernelContext *context);
