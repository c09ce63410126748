/* weights-allocator.c: the allocator XNNPACK is initialized with
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * XNNPACK takes its aligned blocks (packed weights above all) from
 * aligned_allocate; those come from weights-memory.c, where large ones
 * lie on huge pages.  The unaligned calls are the C library's.
 */
#include "backend-private.h"
#include "support-private.h"

#include <stdlib.h>
#include <xnnpack.h>

static void *
plain_allocate (void *context, size_t size)
{
  return malloc (size);
}

static void *
plain_reallocate (void *context, void *pointer, size_t size)
{
  return realloc (pointer, size);
}

static void
plain_deallocate (void *context, void *pointer)
{
  free (pointer);
}

static void *
weights_allocate (void *context, size_t alignment, size_t size)
{
  return _executorch_support_weights_alloc (size, alignment);
}

static void
weights_deallocate (void *context, void *pointer)
{
  _executorch_support_weights_free (pointer);
}

static const struct xnn_allocator weights_allocator = {
  .context = NULL,
  .allocate = plain_allocate,
  .reallocate = plain_reallocate,
  .deallocate = plain_deallocate,
  .aligned_allocate = weights_allocate,
  .aligned_deallocate = weights_deallocate,
};

const struct xnn_allocator *
xb_weights_allocator (void)
{
  return &weights_allocator;
}
