/* test-contention.c: when the thread pool's spans run serially
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The state machine of backends/threadpool/contention.c, fed made-up
 * readings: no busy machine is needed to see its decisions.
 */
#include "contention.h"

#define MS ((gint64) 1000)

/* Runs serial spans every @step_us from @now until the advice is to probe
 * the workers, the CPUs being free from @free_from on; returns that time, or
 * -1 when no probe came before @until. */
static gint64
serial_until_probe (Contention *c, gint64 now, gint64 step_us, gint64 free_from, gint64 until)
{
  for (; now < until; now += step_us)
    {
      ContentionAdvice advice = contention_advise (c, now);
      g_assert_cmpint (advice, !=, CONTENTION_PARALLEL);
      if (advice == CONTENTION_SAMPLE && contention_sampled (c, now, now >= free_from))
        return now;
    }
  return -1;
}

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
  contention_observed (&c, now, 50 * MS, 1); /* below one per 10 ms */
  g_assert_cmpint (contention_advise (&c, now), ==, CONTENTION_PARALLEL);
  /* Short spans (a few ms each) with a stray preemption now and then: one
   * in a whole window is not a busy machine. */
  for (int i = 0; i < 100; i++, now += 3 * MS)
    {
      g_assert_cmpint (contention_advise (&c, now), ==, CONTENTION_PARALLEL);
      contention_observed (&c, now + 3 * MS, 3 * MS, i % 8 == 0);
    }
}

/* Spans are judged over a window: short preempted spans turn serial once
 * the window is full, not at the first one. */
static void
test_window (void)
{
  Contention c = CONTENTION_INIT;
  gint64 now = 1000 * MS;
  int spans = 0;

  while (contention_advise (&c, now) == CONTENTION_PARALLEL)
    {
      contention_observed (&c, now + 3 * MS, 3 * MS, 1);
      now += 3 * MS;
      spans++;
      g_assert_cmpint (spans, <, 100);
    }
  g_assert_cmpint (spans, ==, (CONTENTION_WINDOW_US + 3 * MS - 1) / (3 * MS));
}

/* While other threads keep the CPUs, spans stay serial and the workers are
 * never probed; the CPUs are sampled at most every CONTENTION_SAMPLE_US. */
static void
test_busy (void)
{
  Contention c = CONTENTION_INIT;
  gint64 now = 1000 * MS;
  int samples = 0;

  contention_observed (&c, now, CONTENTION_WINDOW_US, 4);
  for (gint64 t = now; t < now + 1000 * MS; t += 100)
    {
      ContentionAdvice advice = contention_advise (&c, t);
      g_assert_cmpint (advice, !=, CONTENTION_PARALLEL);
      if (advice == CONTENTION_SAMPLE)
        {
          samples++;
          g_assert_false (contention_sampled (&c, t, FALSE));
        }
    }
  g_assert_cmpint (samples, <=, 1000 * MS / CONTENTION_SAMPLE_US);
  g_assert_cmpint (samples, >=, 1000 * MS / CONTENTION_SAMPLE_US / 2);
}

/* Each failed try doubles the quiet stretch needed before the next one, up
 * to the maximum; a clean try brings it back to the minimum. */
static void
test_backoff (void)
{
  Contention c = CONTENTION_INIT;
  gint64 now = 1000 * MS;
  gint64 needed = CONTENTION_QUIET_MIN_US;

  contention_observed (&c, now, CONTENTION_WINDOW_US, 4);
  for (int round = 0; round < 12; round++)
    {
      gint64 probe = serial_until_probe (&c, now, MS, now, now + 10 * CONTENTION_QUIET_MAX_US);
      g_assert_cmpint (probe, >=, now + needed);
      g_assert_cmpint (probe, <=, now + needed + 2 * CONTENTION_SAMPLE_US);
      g_assert_true (contention_probed (&c, 40));
      g_assert_cmpint (contention_advise (&c, probe), ==, CONTENTION_PARALLEL);
      now = probe + 3 * MS;
      contention_observed (&c, now, CONTENTION_WINDOW_US, 4); /* the try was preempted */
      needed = MIN (needed * 2, CONTENTION_QUIET_MAX_US);
    }
  g_assert_cmpint (needed, ==, CONTENTION_QUIET_MAX_US);

  gint64 probe = serial_until_probe (&c, now, MS, now, now + 10 * CONTENTION_QUIET_MAX_US);
  g_assert_true (contention_probed (&c, 40));
  contention_observed (&c, probe + 3 * MS, CONTENTION_WINDOW_US, 0); /* clean */
  now = probe + 100 * MS;
  contention_observed (&c, now, CONTENTION_WINDOW_US, 4);
  probe = serial_until_probe (&c, now, MS, now, now + 10 * CONTENTION_QUIET_MAX_US);
  g_assert_cmpint (probe, <=, now + CONTENTION_QUIET_MIN_US + 2 * CONTENTION_SAMPLE_US);
}

/* A busy sample restarts the quiet stretch; a slow answer to the probe
 * keeps the spans serial. */
static void
test_interrupted (void)
{
  Contention c = CONTENTION_INIT;
  gint64 now = 1000 * MS;

  contention_observed (&c, now, CONTENTION_WINDOW_US, 4);
  gint64 free_from = now + 50 * MS;
  gint64 probe = serial_until_probe (&c, now, MS, free_from, now + 1000 * MS);
  g_assert_cmpint (probe, >=, free_from + CONTENTION_QUIET_MIN_US);
  g_assert_false (contention_probed (&c, 4 * MS));
  g_assert_cmpint (contention_advise (&c, probe), !=, CONTENTION_PARALLEL);
  gint64 again = serial_until_probe (&c, probe, MS, probe, probe + 1000 * MS);
  g_assert_cmpint (again, >=, probe + CONTENTION_QUIET_MIN_US);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/contention/quiet", test_quiet);
  g_test_add_func ("/contention/window", test_window);
  g_test_add_func ("/contention/busy", test_busy);
  g_test_add_func ("/contention/backoff", test_backoff);
  g_test_add_func ("/contention/interrupted", test_interrupted);
  return g_test_run ();
}
