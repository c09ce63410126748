/* test-payoff.c: when the late-joiner pool runs regions on the caller alone
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The accounting of backends/threadpool/payoff.c, fed made-up readings.
 */
#include "payoff.h"

#define MS ((gint64) 1000)

/* Regions of @wall_us every @wall_us from @now while the workers are used,
 * the caller busy @busy_us running @caller_units of 8 units; returns the
 * time of the first region refused, or -1 when none was before @until. */
static gint64
run_until_refused (Payoff *p, gint64 now, gint64 wall_us, gint64 busy_us, gsize caller_units, gint64 until)
{
  for (; now < until; now += wall_us)
    {
      if (!payoff_use_workers (p, now))
        return now;
      payoff_observed (p, now + wall_us, wall_us, busy_us, caller_units, 8);
    }
  return -1;
}

/* Workers that share the work evenly stay in use. */
static void
test_paying (void)
{
  Payoff p = PAYOFF_INIT;

  /* 8 units: the caller ran 4 in 500 us of a 520 us region (alone: 1000). */
  g_assert_cmpint (run_until_refused (&p, 1000 * MS, 520, 500, 4, 2000 * MS), ==, -1);
}

/* Stalled regions (a preempted worker holding a claim) send regions to the
 * caller alone; retries that lose wait longer each time, up to the
 * maximum, and a retry that pays resets the wait. */
static void
test_losing_backs_off (void)
{
  Payoff p = PAYOFF_INIT;
  gint64 now = 1000 * MS;

  /* The caller ran 6 of 8 units in 600 us; the region took 3 ms. */
  gint64 refused = run_until_refused (&p, now, 3 * MS, 600, 6, now + 100 * MS);
  g_assert_cmpint (refused, >, 0);
  /* Judged after one window, not at the first region. */
  g_assert_cmpint (refused - now, >=, PAYOFF_WINDOW_US);
  g_assert_cmpint (refused - now, <=, PAYOFF_WINDOW_US + 3 * MS);

  gint64 serial = PAYOFF_SERIAL_MIN_US;
  for (int retry = 0; retry < 12; retry++)
    {
      /* Refused until the serial stretch is over, then tried again. */
      g_assert_false (payoff_use_workers (&p, refused + serial - 1));
      g_assert_true (payoff_use_workers (&p, p.serial_until));
      gint64 next = run_until_refused (&p, p.serial_until, 3 * MS, 600, 6, p.serial_until + 10000 * MS);
      g_assert_cmpint (next, >, 0);
      serial = MIN (2 * serial, PAYOFF_SERIAL_MAX_US);
      g_assert_cmpint (p.serial_until - next, <=, serial);
      g_assert_cmpint (p.serial_until - next, >=, serial - 3 * MS);
      refused = next;
    }
  g_assert_cmpint (serial, ==, PAYOFF_SERIAL_MAX_US);

  /* The machine is quiet again: the retry pays and the next loss waits
   * the minimum only. */
  now = p.serial_until;
  g_assert_cmpint (run_until_refused (&p, now, 520, 500, 4, now + 3 * PAYOFF_WINDOW_US), ==, -1);
  now += 3 * PAYOFF_WINDOW_US;
  refused = run_until_refused (&p, now, 3 * MS, 600, 6, now + 100 * MS);
  g_assert_cmpint (refused, >, 0);
  g_assert_cmpint (p.serial_until - refused, <=, PAYOFF_SERIAL_MIN_US);
}

/* Workers that never joined cost only the region's set-up; a region the
 * caller ran no unit of says nothing either way. */
static void
test_absent_workers (void)
{
  Payoff p = PAYOFF_INIT;

  /* The caller ran all 8 units; 1 us of overhead per region. */
  g_assert_cmpint (run_until_refused (&p, 0, 101, 100, 8, 15 * MS), ==, -1);
  /* It does add up to a loss over a window: refused then. */
  g_assert_cmpint (run_until_refused (&p, 15 * MS, 101, 100, 8, 100 * MS), >, 0);

  Payoff q = PAYOFF_INIT;
  for (gint64 now = 0; now < 200 * MS; now += MS)
    {
      g_assert_true (payoff_use_workers (&q, now));
      payoff_observed (&q, now + MS, MS, 0, 0, 8);
    }
}

/* Beside busy processes the caller alone gets only part of a CPU; the
 * workers are judged against that, measured over the first regions it
 * runs alone, not against a whole CPU. */
static void
test_serial_share (void)
{
  Payoff quiet = PAYOFF_INIT, busy = PAYOFF_INIT;

  /* Regions where the caller ran half the units in 500 us of CPU time and
   * the region took 1050 us: a loss against a whole CPU (1000 us alone). */
  g_assert_cmpint (run_until_refused (&quiet, 0, 1050, 500, 4, 100 * MS), >, 0);
  gint64 refused = run_until_refused (&busy, 0, 1050, 500, 4, 100 * MS);
  g_assert_cmpint (refused, >, 0);

  /* Alone, the caller gets two thirds of a CPU: 200 us running in each
   * 300 us region, timed until PAYOFF_SAMPLE_US of them are in. */
  gint64 sampled = 0;
  while (payoff_wants_sample (&busy))
    {
      g_assert_false (payoff_use_workers (&busy, refused + sampled));
      payoff_serial_sample (&busy, 300, 200);
      sampled += 300;
    }
  g_assert_cmpint (sampled, >=, PAYOFF_SAMPLE_US);
  g_assert_cmpint (sampled, <, PAYOFF_SAMPLE_US + 300);
  g_assert_cmpfloat_with_epsilon (busy.serial_share, 2.0 / 3.0, 1e-9);

  /* Alone the same work would take 1500 us: the workers' 1050 pay. */
  g_assert_cmpint (run_until_refused (&busy, busy.serial_until, 1050, 500, 4, busy.serial_until + 1000 * MS), ==, -1);

  /* A caller that hardly ran alone is taken to have had a quarter CPU. */
  Payoff idle = PAYOFF_INIT;
  while (payoff_wants_sample (&idle))
    payoff_serial_sample (&idle, 1000, 10);
  g_assert_cmpfloat (idle.serial_share, ==, PAYOFF_MIN_SHARE);

  /* Each serial stretch measures again. */
  refused = run_until_refused (&idle, 0, 5000, 100, 4, 1000 * MS);
  g_assert_cmpint (refused, >, 0);
  g_assert_true (payoff_wants_sample (&idle));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/payoff/paying", test_paying);
  g_test_add_func ("/payoff/losing-backs-off", test_losing_backs_off);
  g_test_add_func ("/payoff/absent-workers", test_absent_workers);
  g_test_add_func ("/payoff/serial-share", test_serial_share);
  return g_test_run ();
}
