/* test-cycles.c: many load/execute/unload cycles leave memory flat
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Loads the mlp fixture (program, method), executes it on the fixture's
 * input, checks the result and frees everything, 10,000 times; the
 * resident set after the last cycle must be within a small bound of the
 * resident set after cycle 1,000, by which time the allocator and the
 * plug-ins have settled.  EXECUTORCH_TEST_CYCLES changes the count (the
 * valgrind setup runs fewer; the RSS check needs at least 2,000).
 *
 * Under AddressSanitizer freed memory sits in a quarantine, so the RSS
 * bound is not checked there; LeakSanitizer checks the same cycles instead.
 */
#include "fixture-util.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Allowed growth between cycle 1,000 and the last: 64 bytes lost per cycle
 * over 9,000 cycles would be 576 KiB. */
#define RSS_BOUND (256 * 1024)

static void
one_cycle (const char *path, ExecutorchTensor *input, gboolean check)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (path, &error);
  g_autoptr (ExecutorchMethod) method = NULL;
  g_autoptr (GPtrArray) outputs = NULL;

  g_assert_no_error (error);
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  outputs = executorch_method_run (method, &input, 1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 1);
  if (check)
    g_assert_true (fixture_tensor_matches (g_ptr_array_index (outputs, 0), "mlp/forward.case0.out0.npy", 1e-5, 1e-6));
}

static void
test_load_execute_unload (void)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, "mlp", "mlp.pte", NULL);
  g_autoptr (ExecutorchTensor) input = fixture_npy_tensor ("mlp/forward.case0.in0.npy");
  const char *env = g_getenv ("EXECUTORCH_TEST_CYCLES");
  guint n_cycles = env != NULL ? (guint) g_ascii_strtoull (env, NULL, 10) : 10000;
  gsize rss_first = 0, rss_settled = 0, rss_last;
  gint64 start = g_get_monotonic_time ();

  g_assert_cmpuint (n_cycles, >=, 1);
  for (guint cycle = 1; cycle <= n_cycles; cycle++)
    {
      /* Every output is compared for the first cycles, then every 100th. */
      one_cycle (path, input, cycle <= 10 || cycle % 100 == 0);
      if (cycle == 1)
        rss_first = fixture_rss_bytes ();
      if (cycle == 1000)
        rss_settled = fixture_rss_bytes ();
    }
  rss_last = fixture_rss_bytes ();
  g_test_message ("%u cycles in %.1f s; RSS after cycle 1: %zu KiB, after cycle 1000: %zu KiB, after cycle %u: "
                  "%zu KiB (%+ld KiB since cycle 1000)",
                  n_cycles, (g_get_monotonic_time () - start) / 1e6, rss_first / 1024, rss_settled / 1024, n_cycles,
                  rss_last / 1024, ((long) rss_last - (long) rss_settled) / 1024);
#ifdef UNDER_ASAN
  g_test_message ("AddressSanitizer build: the RSS bound is not checked (LeakSanitizer checks leaks)");
#else
  if (n_cycles >= 2000)
    g_assert_cmpuint (rss_last, <=, rss_settled + RSS_BOUND);
  else
    g_test_message ("fewer than 2000 cycles: the RSS bound is not checked");
#endif
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cycles/load-execute-unload", test_load_execute_unload);
  return g_test_run ();
}
