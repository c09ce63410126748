/* contention.h: whether the pool's workers can expect CPUs of their own
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Debian's pthreadpool returns from a parallel region only once every worker
 * has checked in.  When other processes keep the CPUs busy, a worker waits
 * for a time slice while the caller spins on it, and parallel work becomes
 * many times slower than the same work on the calling thread alone.  This
 * state machine decides, from what parallel spans observed, when to run
 * serially for a while and when to try the workers again.  It is plain
 * logic on the times it is given, so it can be tested without a busy
 * machine; threadpool.c feeds it clock readings and preemption counts.
 */
#pragma once

#include <glib.h>

/* The first serial period after contention was seen, and the longest one:
 * each contended span in a row doubles it. */
#define CONTENTION_BACKOFF_MIN_US ((gint64) 5000)
#define CONTENTION_BACKOFF_MAX_US ((gint64) 2000000)
/* Workers that take longer than this to answer an empty region are waiting
 * for a CPU (waking a sleeping worker takes tens of microseconds). */
#define CONTENTION_PROBE_MAX_US ((gint64) 300)
/* A parallel span is contended when its threads were preempted at least once
 * per this much wall time. */
#define CONTENTION_PREEMPTION_US ((gint64) 10000)

typedef struct
{
  gint64 serial_until; /* spans that start before this run serially */
  gint64 backoff;      /* the length of the next serial period */
  gboolean probation;  /* the workers must answer a probe before the next parallel span */
} Contention;

#define CONTENTION_INIT { 0, CONTENTION_BACKOFF_MIN_US, FALSE }

typedef enum
{
  CONTENTION_PARALLEL, /* use the pool */
  CONTENTION_SERIAL,   /* run on the calling thread */
  CONTENTION_PROBE,    /* time an empty region first, report it with contention_probed() */
} ContentionAdvice;

ContentionAdvice contention_advise (const Contention *c, gint64 now_us);
gboolean contention_probed (Contention *c, gint64 now_us, gint64 answer_us);
void contention_observed (Contention *c, gint64 now_us, gint64 wall_us, gint64 preemptions);
