/* test-weights-cache.c: the XNNPACK weights cache of our own (backends/xnnpack/weights-cache.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Driven through the provider, as XNNPACK drives it: space is reserved,
 * packed weights written there and inserted.  The same bytes are found
 * again (a second runtime packs its weights again), every offset leads
 * to its own bytes, and a finalized cache takes only bytes it holds.
 * Built where XNNPACK takes a weights cache provider (the 2024 library).
 */
#include "weights-cache.h"

#include <string.h>

/* Packs @size bytes of @seed as XNNPACK would; returns the offset. */
static size_t
pack (xnn_weights_cache_t provider, size_t size, guint8 seed)
{
  struct xnn_weights_cache_look_up_key key = { 1, &key, NULL };
  guint8 *space = provider->reserve_space (provider->context, size);

  g_assert_nonnull (space);
  g_assert_cmpuint ((uintptr_t) space % 64, ==, 0);
  for (size_t i = 0; i < size; i++)
    g_assert_cmpuint (space[i], ==, 0);
  for (size_t i = 0; i < size; i++)
    space[i] = (guint8) (seed + i * 7);
  return provider->look_up_or_insert (provider->context, &key, space, size);
}

static void
check_bytes (xnn_weights_cache_t provider, size_t offset, size_t size, guint8 seed)
{
  const guint8 *bytes = provider->offset_to_addr (provider->context, offset);

  g_assert_nonnull (bytes);
  for (size_t i = 0; i < size; i++)
    g_assert_cmpuint (bytes[i], ==, (guint8) (seed + i * 7));
}

static void
test_found_by_bytes (void)
{
  XbWeightsCache *cache = xb_weights_cache_new ();
  xnn_weights_cache_t provider = xb_weights_cache_provider (cache);
  /* sizes on either side of the huge-page blocks' 64 KiB */
  size_t sizes[] = { 1152, 65536, 300000, 5 << 20 };
  size_t offsets[G_N_ELEMENTS (sizes)];

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      offsets[i] = pack (provider, sizes[i], (guint8) (i + 1));
      g_assert_cmpuint (offsets[i], !=, SIZE_MAX);
    }
  g_assert_cmpuint (xb_weights_cache_count (cache), ==, G_N_ELEMENTS (sizes));
  /* packed again, found: no new entry */
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    g_assert_cmpuint (pack (provider, sizes[i], (guint8) (i + 1)), ==, offsets[i]);
  g_assert_cmpuint (xb_weights_cache_count (cache), ==, G_N_ELEMENTS (sizes));
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    check_bytes (provider, offsets[i], sizes[i], (guint8) (i + 1));
  /* the same size with other bytes is another entry */
  size_t other = pack (provider, sizes[0], 99);
  g_assert_cmpuint (other, !=, offsets[0]);
  check_bytes (provider, other, sizes[0], 99);
  check_bytes (provider, offsets[0], sizes[0], 1);
  g_assert_null (provider->offset_to_addr (provider->context, 1000));
  xb_weights_cache_free (cache);
}

static void
test_finalized (void)
{
  XbWeightsCache *cache = xb_weights_cache_new ();
  xnn_weights_cache_t provider = xb_weights_cache_provider (cache);
  size_t known = pack (provider, 4096, 5);

  g_assert_false (provider->is_finalized (provider->context));
  xb_weights_cache_finalize (cache);
  g_assert_true (provider->is_finalized (provider->context));
  g_assert_cmpuint (pack (provider, 4096, 5), ==, known);
  g_assert_cmpuint (pack (provider, 4096, 6), ==, SIZE_MAX);
  g_assert_cmpuint (xb_weights_cache_count (cache), ==, 1);
  xb_weights_cache_free (cache);
}

/* Space reserved and never inserted (an operator that failed) is freed
 * with the cache; ASan and valgrind runs see a leak otherwise. */
static void
test_reserved_only (void)
{
  XbWeightsCache *cache = xb_weights_cache_new ();
  xnn_weights_cache_t provider = xb_weights_cache_provider (cache);

  g_assert_nonnull (provider->reserve_space (provider->context, 70000));
  g_assert_nonnull (provider->reserve_space (provider->context, 100));
  g_assert_cmpuint (xb_weights_cache_count (cache), ==, 0);
  xb_weights_cache_free (cache);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/xnnpack/weights-cache/found-by-bytes", test_found_by_bytes);
  g_test_add_func ("/xnnpack/weights-cache/finalized", test_finalized);
  g_test_add_func ("/xnnpack/weights-cache/reserved-only", test_reserved_only);
  return g_test_run ();
}
