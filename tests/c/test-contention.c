/* test-contention.c: when the thread pool's spans run serially
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The state machine of backends/threadpool/contention.c, fed made-up clock
 * readings: no busy machine is needed to see its decisions.
 */
#include "contention.h"

#define MS ((gint64) 1000)

/* A quiet machine: spans stay parallel, and an occasional preemption in a
 * long span does not count as contention. */
static void
test_quiet (void)
{
  Contention c = CONTENTION_INIT;
  gint64 now = 1000 * MS;

  for (int i = 0; i < 100; i++, now += 10 * MS)
    {
      g_assert_cmpint (contention_advise (&c, now), ==, CONTENTION_PARALLEL);
      contention_observed (&c, now + 5 * MS, 5 * MS, 0);
    }
  /* One preemption in a 50 ms span: below one per 10 ms. */
  contention_observed (&c, now, 50 * MS, 1);
  g_assert_cmpint (contention_advise (&c, now), ==, CONTENTION_PARALLEL);
}

/* Preempted spans send the next ones to the calling thread for a period that
 * doubles while the workers stay late, up to the maximum. */
static void
test_backoff (void)
{
  Contention c = CONTENTION_INIT;
  gint64 now = 1000 * MS;
  gint64 expected = CONTENTION_BACKOFF_MIN_US;

  contention_observed (&c, now, 3 * MS, 1);
  g_assert_cmpint (contention_advise (&c, now), ==, CONTENTION_SERIAL);
  g_assert_cmpint (contention_advise (&c, now + expected - 1), ==, CONTENTION_SERIAL);
  for (int round = 0; round < 20; round++)
    {
      now += expected;
      /* After the period: the workers are probed before any parallel span. */
      g_assert_cmpint (contention_advise (&c, now), ==, CONTENTION_PROBE);
      g_assert_false (contention_probed (&c, now, 4 * MS));
      expected = MIN (expected * 2, CONTENTION_BACKOFF_MAX_US);
      g_assert_cmpint (contention_advise (&c, now + expected - 1), ==, CONTENTION_SERIAL);
    }
  g_assert_cmpint (expected, ==, CONTENTION_BACKOFF_MAX_US);
}

/* Workers that answer the probe get a parallel span; if it is clean, the
 * backoff starts again from its minimum. */
static void
test_recovery (void)
{
  Contention c = CONTENTION_INIT;
  gint64 now = 1000 * MS;

  contention_observed (&c, now, 2 * MS, 2);
  contention_observed (&c, now, 2 * MS, 2); /* backoff now doubled */
  now += CONTENTION_BACKOFF_MAX_US;
  g_assert_cmpint (contention_advise (&c, now), ==, CONTENTION_PROBE);
  g_assert_true (contention_probed (&c, now, 40));
  /* Still on probation until the span itself shows it had the CPUs. */
  g_assert_cmpint (contention_advise (&c, now), ==, CONTENTION_PROBE);
  contention_observed (&c, now + 4 * MS, 4 * MS, 0);
  g_assert_cmpint (contention_advise (&c, now + 4 * MS), ==, CONTENTION_PARALLEL);
  /* Contention seen again: the shortest period, not the doubled one. */
  contention_observed (&c, now + 8 * MS, 4 * MS, 1);
  g_assert_cmpint (contention_advise (&c, now + 8 * MS + CONTENTION_BACKOFF_MIN_US), ==, CONTENTION_PROBE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/contention/quiet", test_quiet);
  g_test_add_func ("/contention/backoff", test_backoff);
  g_test_add_func ("/contention/recovery", test_recovery);
  return g_test_run ();
}
