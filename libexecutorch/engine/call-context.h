/* call-context.h: backend call contexts (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "kernel-context.h"
#include "program-private.h"

struct EtBackendInitContext
{
  EtProgram *program;
  const char *method_name;
  EtErrorContext error;
};

struct EtBackendExecuteContext
{
  const char *method_name;
  EtKernelContext scratch; /* scratch memory and the error */
};
