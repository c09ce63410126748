/* payoff.h: whether the workers are saving the caller time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A worker preempted while it holds a claimed chunk keeps the region's
 * caller waiting until the scheduler runs it again, a time slice of
 * several milliseconds on a busy machine.  Whether the workers still pay
 * for that is measured, not guessed: after each parallel region the
 * caller knows how long it took, how much CPU time the caller spent and
 * which share of the units it ran, so how long the region would have taken
 * on the caller alone.  That is its CPU time for the work divided by the
 * share of a CPU it gets when it runs alone, measured over the first
 * regions of each stretch it runs alone (a quiet machine gives 1; beside
 * two busy processes on two CPUs, 2/3).  Its wall time while the workers
 * ran would credit them with the caller's own preemptions; its CPU time
 * alone would blame them for the other processes (beside two spinners
 * the caller and a worker get half a CPU each, one CPU between them, where
 * the caller alone gets two thirds of one).  When the workers cost more
 * than they saved over a stretch of regions, regions run on the caller
 * for a while; each failed retry makes that while longer.  Plain logic on
 * the readings it is given, so it can be tested without a busy machine;
 * workers.c takes them.
 */
#pragma once

#include <glib.h>

/* Regions are judged over stretches of at least this long. */
#define PAYOFF_WINDOW_US ((gint64) 20000)
/* The caller works alone this long after a losing stretch, doubled after
 * each losing retry, up to the maximum. */
#define PAYOFF_SERIAL_MIN_US ((gint64) 10000)
#define PAYOFF_SERIAL_MAX_US ((gint64) 1000000)

/* The caller's share of a CPU is measured over this much of its regions
 * alone, at the start of each serial stretch. */
#define PAYOFF_SAMPLE_US ((gint64) 5000)
/* A lower measured share is taken as this (a caller that was hardly
 * running at all says little about the workers). */
#define PAYOFF_MIN_SHARE 0.25

typedef struct
{
  gint64 serial_until;   /* regions run on the caller until then */
  gint64 serial_for;     /* the next serial stretch */
  gint64 window_start;   /* start of the stretch being judged; -1 before its first region */
  double saved_us;       /* time the workers saved in it (negative: cost) */
  gboolean retrying;     /* the stretch follows a serial one */
  double serial_share;   /* the caller's share of a CPU when alone, 1 until measured */
  gint64 sample_wall_us; /* regions alone measured in this serial stretch */
  gint64 sample_cpu_us;
} Payoff;

#define PAYOFF_INIT                                  \
  {                                                  \
    0, PAYOFF_SERIAL_MIN_US, -1, 0, FALSE, 1.0, 0, 0 \
  }

/* Whether a region starting at @now_us should use the workers. */
gboolean payoff_use_workers (const Payoff *p, gint64 now_us);

/* A parallel region ended at @now_us after @wall_us, of which the caller
 * spent @caller_busy_us of CPU time running @caller_units of its @units
 * units. */
void payoff_observed (Payoff *p, gint64 now_us, gint64 wall_us, gint64 caller_busy_us, gsize caller_units, gsize units);

/* Whether the caller, refused the workers, should time the region it runs
 * alone (at the start of a serial stretch only: reading a thread's CPU
 * clock is a system call). */
gboolean payoff_wants_sample (const Payoff *p);

/* A region run on the caller alone took @wall_us, @cpu_us of it running. */
void payoff_serial_sample (Payoff *p, gint64 wall_us, gint64 cpu_us);
