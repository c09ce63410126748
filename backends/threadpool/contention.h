/* contention.h: whether the pool's workers can expect CPUs of their own
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Debian's pthreadpool returns from a parallel region only once every worker
 * has checked in.  When other processes keep the CPUs busy, a worker waits
 * for a time slice while the caller spins on it, and parallel work becomes
 * many times slower than the same work on the calling thread alone.  This
 * state machine decides, from what parallel spans observed and from samples
 * of the machine's runnable threads, when to run serially and when to try
 * the workers again.  It is plain logic on the readings it is given, so it
 * can be tested without a busy machine; threadpool.c takes the readings.
 */
#pragma once

#include <glib.h>

/* After contention, the CPUs must have been free this long before the
 * workers are tried again; each failed try doubles it, up to the maximum. */
#define CONTENTION_QUIET_MIN_US ((gint64) 5000)
#define CONTENTION_QUIET_MAX_US ((gint64) 2000000)
/* While serial, the CPUs are sampled at most this often. */
#define CONTENTION_SAMPLE_US ((gint64) 5000)
/* Workers that take longer than this to answer an empty region are waiting
 * for a CPU (waking a sleeping worker takes tens of microseconds). */
#define CONTENTION_PROBE_MAX_US ((gint64) 300)
/* Parallel spans are judged together over at least this much wall time
 * (one XNNPACK execution may take a few milliseconds, and one stray
 * preemption by a daemon must not count as a busy machine)... */
#define CONTENTION_WINDOW_US ((gint64) 20000)
/* ...and are contended when their threads were preempted at least twice
 * and at least once per this much wall time. */
#define CONTENTION_PREEMPTION_US ((gint64) 10000)

typedef struct
{
  gboolean serial;     /* spans run on the calling thread */
  gboolean probation;  /* parallel again, not yet seen to be clean */
  gint64 quiet_needed; /* how long the CPUs must be free before a try */
  gint64 quiet_since;  /* since when the samples found them free; -1 when not */
  gint64 next_sample;  /* no sample before this time */
  gint64 window_us;    /* parallel wall time not judged yet */
  gint64 window_preemptions;
} Contention;

#define CONTENTION_INIT                                \
  {                                                    \
    FALSE, FALSE, CONTENTION_QUIET_MIN_US, -1, 0, 0, 0 \
  }

typedef enum
{
  CONTENTION_PARALLEL, /* use the pool */
  CONTENTION_SERIAL,   /* run on the calling thread */
  CONTENTION_SAMPLE,   /* run serially unless contention_sampled() says to probe */
} ContentionAdvice;

ContentionAdvice contention_advise (const Contention *c, gint64 now_us);
gboolean contention_sampled (Contention *c, gint64 now_us, gboolean cpus_free);
gboolean contention_probed (Contention *c, gint64 answer_us);
void contention_observed (Contention *c, gint64 now_us, gint64 wall_us, gint64 preemptions);
