/* contention.c: when to keep parallel work off a pool whose workers wait
 * for CPUs (see contention.h)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "contention.h"

/* Contention seen at @now_us: run serially for the current backoff, and
 * longer next time if the workers are still late then. */
static void
back_off (Contention *c, gint64 now_us)
{
  c->serial_until = now_us + c->backoff;
  c->backoff = MIN (c->backoff * 2, CONTENTION_BACKOFF_MAX_US);
  c->probation = TRUE;
}

ContentionAdvice
contention_advise (const Contention *c, gint64 now_us)
{
  if (now_us < c->serial_until)
    return CONTENTION_SERIAL;
  return c->probation ? CONTENTION_PROBE : CONTENTION_PARALLEL;
}

/* The workers answered an empty region in @answer_us.  Returns whether the
 * span may use them.  A slow answer costs at most one time slice, where a
 * whole parallel span on a busy machine would cost one per region. */
gboolean
contention_probed (Contention *c, gint64 now_us, gint64 answer_us)
{
  if (answer_us > CONTENTION_PROBE_MAX_US)
    {
      back_off (c, now_us);
      return FALSE;
    }
  return TRUE;
}

/* A parallel span took @wall_us, during which the process's threads were
 * preempted @preemptions times. */
void
contention_observed (Contention *c, gint64 now_us, gint64 wall_us, gint64 preemptions)
{
  if (preemptions > 0 && wall_us < preemptions * CONTENTION_PREEMPTION_US)
    back_off (c, now_us);
  else
    {
      c->backoff = CONTENTION_BACKOFF_MIN_US;
      c->probation = FALSE;
    }
}
