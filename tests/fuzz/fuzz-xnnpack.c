/* fuzz-xnnpack.c: libFuzzer target for the XNNPACK delegate payload
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fuzzer's bytes are one XnnpackBackend payload (XNNHeader, fb_xnnpack
 * graph, constants; seeds: payloads cut out of the tests/models/xnnpack
 * fixtures).  Every named blob it asks for is 1 MiB of zeros.  The payload
 * must build or fail with a GError; when it builds, the delegate runs once
 * on zero tensors shaped like its external values.
 */
#include "fuzz-common.h"

#include "backend-private.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  /* A copy of exactly @size bytes, so an over-read is seen. */
  g_autofree uint8_t *copy = g_memdup2 (data, size ? size : 1);
  void *handle = xb_delegate_new (copy, size, xb_zero_named_data, NULL, &error);

  if (handle == NULL)
    {
      FUZZ_CHECK_ERROR (error);
      return 0;
    }
  xb_delegate_run_zeros (handle);
  xb_delegate_free (handle);
  return 0;
}
