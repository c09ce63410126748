/* contention.c: when to keep parallel work off a pool whose workers wait
 * for CPUs (see contention.h)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A parallel span tried while the machine is busy costs as much as hundreds
 * of serial ones (a wait for a time slice in each of its regions), so the
 * workers are tried again only after the CPUs were seen free for a while,
 * and a failed try makes that while longer.
 */

#include "contention.h"

ContentionAdvice
contention_advise (const Contention *c, gint64 now_us)
{
  if (!c->serial)
    return CONTENTION_PARALLEL;
  return now_us >= c->next_sample ? CONTENTION_SAMPLE : CONTENTION_SERIAL;
}

/* While serial: the CPUs were @cpus_free at @now_us.  Returns whether they
 * have been free long enough to probe the workers. */
gboolean
contention_sampled (Contention *c, gint64 now_us, gboolean cpus_free)
{
  c->next_sample = now_us + CONTENTION_SAMPLE_US;
  if (!cpus_free)
    {
      c->quiet_since = -1;
      return FALSE;
    }
  if (c->quiet_since < 0)
    c->quiet_since = now_us;
  return now_us - c->quiet_since >= c->quiet_needed;
}

/* The workers answered an empty region in @answer_us.  Returns whether to
 * try a parallel span. */
gboolean
contention_probed (Contention *c, gint64 answer_us)
{
  if (answer_us > CONTENTION_PROBE_MAX_US)
    {
      c->quiet_since = -1;
      return FALSE;
    }
  c->serial = FALSE;
  c->probation = TRUE;
  return TRUE;
}

/* A parallel span took @wall_us, during which the process's threads were
 * preempted @preemptions times. */
void
contention_observed (Contention *c, gint64 now_us, gint64 wall_us, gint64 preemptions)
{
  c->window_us += wall_us;
  c->window_preemptions += preemptions;
  if (c->window_us < CONTENTION_WINDOW_US)
    return;
  gint64 window = c->window_us, preempted = c->window_preemptions;
  c->window_us = 0;
  c->window_preemptions = 0;
  if (preempted >= 2 && window < preempted * CONTENTION_PREEMPTION_US)
    {
      /* A failed try: the next one needs a longer quiet stretch. */
      if (c->probation)
        c->quiet_needed = MIN (c->quiet_needed * 2, CONTENTION_QUIET_MAX_US);
      c->serial = TRUE;
      c->probation = FALSE;
      c->quiet_since = -1;
      c->next_sample = now_us + CONTENTION_SAMPLE_US;
    }
  else if (c->probation)
    {
      c->probation = FALSE;
      c->quiet_needed = CONTENTION_QUIET_MIN_US;
    }
}
