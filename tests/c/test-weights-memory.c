/* test-weights-memory.c: packed-weight blocks, on huge pages where the kernel has them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * backends/support/weights-memory.c: every block is aligned, writable
 * and apart from every other; blocks of 64 KiB and more lie in mappings
 * marked for transparent huge pages (smaps VmFlags "hg") wherever the
 * kernel has them, except under AddressSanitizer;
 * EXECUTORCH_WEIGHTS_HUGE_PAGES=0 takes them all from the heap.
 */
#include "support-private.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

/* Whether large blocks should be on huge pages: the kernel has them, and
 * this is no AddressSanitizer build (whose blocks all come from the heap,
 * for it to check their bounds). */
static gboolean
huge_pages_expected (void)
{
#ifdef EXECUTORCH_SUPPORT_UNDER_ASAN
  return FALSE;
#else
  return g_file_test ("/sys/kernel/mm/transparent_hugepage/enabled", G_FILE_TEST_EXISTS);
#endif
}

/* Whether the mapping holding @p is marked MADV_HUGEPAGE. */
static gboolean
marked_huge (const void *p)
{
  g_autofree char *smaps = NULL;
  g_assert_true (g_file_get_contents ("/proc/self/smaps", &smaps, NULL, NULL));
  gboolean inside = FALSE;
  g_auto (GStrv) lines = g_strsplit (smaps, "\n", -1);
  for (char **line = lines; *line != NULL; line++)
    {
      unsigned long start, end;
      if (sscanf (*line, "%lx-%lx ", &start, &end) == 2)
        inside = (uintptr_t) p >= start && (uintptr_t) p < end;
      else if (inside && g_str_has_prefix (*line, "VmFlags:"))
        return strstr (*line, " hg") != NULL;
    }
  return FALSE;
}

/* Blocks of many sizes and alignments, filled with their own bytes, then
 * checked and freed in another order: overlapping blocks would change
 * each other's bytes. */
static void
test_blocks_apart (void)
{
  enum { N = 96 };
  static const size_t sizes[] = { 1, 100, 4096, 65535, 65536, 300000, 1 << 20, (2 << 20) - 1, 3 << 20, 9 << 20 };
  static const size_t alignments[] = { 1, 16, 64, 4096 };
  void *blocks[N];
  size_t lengths[N];

  for (int i = 0; i < N; i++)
    {
      size_t alignment = alignments[i % G_N_ELEMENTS (alignments)];
      lengths[i] = sizes[(i * 7) % G_N_ELEMENTS (sizes)];
      blocks[i] = _executorch_support_weights_alloc (lengths[i], alignment);
      g_assert_nonnull (blocks[i]);
      g_assert_cmpuint ((uintptr_t) blocks[i] % alignment, ==, 0);
      memset (blocks[i], i + 1, lengths[i]);
    }
  for (int k = 0; k < N; k++)
    {
      int i = (k * 37) % N; /* 37 is prime to 96: every block once */
      const unsigned char *b = blocks[i];
      g_assert_cmpuint (b[0], ==, (unsigned) (i + 1));
      g_assert_cmpuint (b[lengths[i] - 1], ==, (unsigned) (i + 1));
      g_assert_cmpuint (b[lengths[i] / 2], ==, (unsigned) (i + 1));
      _executorch_support_weights_free (blocks[i]);
    }
  _executorch_support_weights_free (NULL);
}

/* Large blocks on huge-page mappings, small ones not needed there. */
static void
test_large_blocks_marked (void)
{
  void *shared = _executorch_support_weights_alloc (300000, 64);  /* in a chunk */
  void *own = _executorch_support_weights_alloc (5 << 20, 64);     /* its own mapping */

  g_assert_nonnull (shared);
  g_assert_nonnull (own);
  memset (shared, 1, 300000);
  memset (own, 2, 5 << 20);
  if (huge_pages_expected ())
    {
      g_assert_true (marked_huge (shared));
      g_assert_true (marked_huge (own));
    }
  else
    {
      g_assert_false (marked_huge (shared));
      g_assert_false (marked_huge (own));
    }
  _executorch_support_weights_free (shared);
  _executorch_support_weights_free (own);
}

/* EXECUTORCH_WEIGHTS_HUGE_PAGES=0: every block from the heap.  Decided
 * once per process, so in a child. */
static void
test_disabled (void)
{
  if (g_test_subprocess ())
    {
      g_assert_true (g_setenv ("EXECUTORCH_WEIGHTS_HUGE_PAGES", "0", TRUE));
      void *large = _executorch_support_weights_alloc (5 << 20, 64);
      g_assert_nonnull (large);
      memset (large, 3, 5 << 20);
      g_assert_false (marked_huge (large));
      _executorch_support_weights_free (large);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* Sizes that cannot be met are refused, not wrapped round. */
static void
test_refused (void)
{
  g_assert_null (_executorch_support_weights_alloc (SIZE_MAX - 10, 64));
  g_assert_null (_executorch_support_weights_alloc (100, 48));   /* not a power of two */
  g_assert_null (_executorch_support_weights_alloc (100, 8192)); /* above a page */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/weights-memory/blocks-apart", test_blocks_apart);
  g_test_add_func ("/weights-memory/large-blocks-marked", test_large_blocks_marked);
  g_test_add_func ("/weights-memory/disabled", test_disabled);
  g_test_add_func ("/weights-memory/refused", test_refused);
  return g_test_run ();
}
