/* fake-cuda-allocator.h: a CUDA device allocator over host memory that
 * counts its calls, for the tests that prove copies go through the
 * allocator registry without a GPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "executorch-plugin.h"

typedef struct
{
  guint allocate, deallocate, h2d, d2h;
  int last_index; /* the device index of the last allocate or copy */
} FakeCudaCounts;

/* Zero it before the calls a test counts. */
extern FakeCudaCounts fake_cuda_counts;

/* Device type CUDA, name "fake-cuda"; no device-to-device copy. */
extern const EtDeviceAllocator fake_cuda_allocator;
