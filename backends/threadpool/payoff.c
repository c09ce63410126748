/* payoff.c: whether the workers are saving the caller time (see payoff.h)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "payoff.h"

gboolean
payoff_use_workers (const Payoff *p, gint64 now_us)
{
  return now_us >= p->serial_until;
}

void
payoff_observed (Payoff *p, gint64 now_us, gint64 wall_us, gint64 caller_busy_us, gsize caller_units, gsize units)
{
  if (p->window_start < 0)
    p->window_start = now_us - wall_us;
  /* Units are taken as equal work: the caller alone would have needed its
   * own time per unit for all of them.  A region the caller took no unit
   * of tells nothing. */
  if (caller_units > 0)
    p->saved_us +=
        (double) caller_busy_us * ((double) units / (double) caller_units) / p->serial_share - (double) wall_us;
  if (now_us - p->window_start < PAYOFF_WINDOW_US)
    return;

  if (p->saved_us < 0)
    {
      /* A retry that lost again waits longer before the next one. */
      if (p->retrying)
        p->serial_for = MIN (2 * p->serial_for, PAYOFF_SERIAL_MAX_US);
      p->serial_until = now_us + p->serial_for;
      p->retrying = TRUE;
      p->sample_wall_us = 0;
      p->sample_cpu_us = 0;
    }
  else
    {
      p->serial_for = PAYOFF_SERIAL_MIN_US;
      p->retrying = FALSE;
    }
  p->window_start = -1;
  p->saved_us = 0;
}

gboolean
payoff_wants_sample (const Payoff *p)
{
  return p->sample_wall_us < PAYOFF_SAMPLE_US;
}

void
payoff_serial_sample (Payoff *p, gint64 wall_us, gint64 cpu_us)
{
  if (wall_us <= 0 || p->sample_wall_us >= PAYOFF_SAMPLE_US)
    return;
  p->sample_wall_us += wall_us;
  p->sample_cpu_us += MIN (cpu_us, wall_us);
  if (p->sample_wall_us >= PAYOFF_SAMPLE_US)
    p->serial_share = MAX ((double) p->sample_cpu_us / (double) p->sample_wall_us, PAYOFF_MIN_SHARE);
}
