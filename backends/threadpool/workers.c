/* workers.c: a worker pool whose regions never wait for a late worker
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One 64-bit word holds the whole claimable state of the current region:
 * its generation, the next unclaimed unit and the number of units.  A
 * thread claims units with one compare-and-swap on that word, so a claim
 * is valid only for the region it saw, and only a successful claim reads
 * the region's task and context: those stay put until every claimed unit
 * is reported done, which cannot happen before the claimer reports.
 *
 * Claims shrink as the region drains (a quarter of the remaining units per
 * thread, at least one), so a worker preempted while holding a claim keeps
 * the caller waiting for a small piece only.  The caller claims from the
 * front and the workers from the back, so that on two threads each runs
 * about the same part of consecutive regions: on a host whose two CPUs
 * share no cache, a line the other core wrote costs several times a line
 * of one's own.
 *
 * Idle workers spin for a short while, because regions often follow each
 * other closely (an LLM decode step runs hundreds), then sleep on a
 * condition variable; a worker that was preempted lately sleeps at once.
 *
 * A worker preempted while it holds a claim still stalls its region, so
 * the caller keeps account of whether the workers save it time (payoff.c)
 * and runs regions alone while they do not.
 */

#define _GNU_SOURCE /* RUSAGE_THREAD */

#include "workers.h"
#include "payoff.h"

#include <stdatomic.h>
#include <sys/resource.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause ()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define cpu_relax() atomic_signal_fence (memory_order_seq_cst)
#endif

/* state = generation << 48 | next << 24 | end: the unclaimed units are
 * [next, end) */
#define COUNT_BITS 24
#define MAX_UNITS ((G_GUINT64_CONSTANT (1) << COUNT_BITS) - 1)
#define STATE_END(s) ((guint32) ((s) &MAX_UNITS))
#define STATE_NEXT(s) ((guint32) (((s) >> COUNT_BITS) & MAX_UNITS))
#define STATE_GENERATION(s) ((s) >> (2 * COUNT_BITS))
#define STATE(generation, next, end) \
  (((guint64) (generation) << (2 * COUNT_BITS)) | ((guint64) (next) << COUNT_BITS) | (guint64) (end))

/* How long an idle worker spins before it sleeps. */
#define SPIN_US 200
/* A worker preempted within this long sleeps when idle instead of
 * spinning.  Short: on a quiet virtual machine a worker is preempted
 * every few tens of milliseconds anyway (the host's and the kernel's own
 * work), and with 20 ms a third of MobileNet's regions had to wake it. */
#define PREEMPTED_LATELY_US 2000
/* How long a caller spins on workers finishing claimed units before it
 * yields its CPU to them. */
#define CALLER_SPIN_ITERATIONS 4000

struct _Workers
{
  _Atomic guint64 state;
  _Atomic gsize done; /* units of the current region finished */

  /* The current region; written only while no region runs. */
  WorkersTask task;
  gpointer context;
  gsize n_items;
  gsize unit_items;

  guint n_workers;
  GThread **threads;
  _Atomic gint sleepers;
  _Atomic gboolean parked;
  _Atomic gboolean held;
  _Atomic gboolean stopping;
  GMutex sleep_lock;
  GCond wake;
  GMutex submit_lock;
  Payoff payoff; /* under submit_lock */
};

static gboolean
has_work (const Workers *w)
{
  guint64 s = atomic_load_explicit (&w->state, memory_order_seq_cst);

  return STATE_NEXT (s) < STATE_END (s) && !atomic_load_explicit (&w->held, memory_order_relaxed);
}

/* Claims units of the current region: on success, [*first, *end) are this
 * thread's to run.  The caller claims from the front, the workers from
 * the back: on two threads each then runs about the same half of every
 * region, and the units of consecutive regions mostly touch the same
 * memory in the same order (a kernel's units run along its tensors), so
 * each core finds more of what it reads in its own cache. */
static gboolean
claim (Workers *w, gboolean from_front, guint32 *first, guint32 *end)
{
  guint64 s = atomic_load_explicit (&w->state, memory_order_acquire);

  for (;;)
    {
      guint32 next = STATE_NEXT (s), last = STATE_END (s);
      if (next >= last)
        return FALSE;
      /* A quarter of what is left per thread, the caller included. */
      guint32 take = MAX (1u, (last - next) / (4 * (w->n_workers + 1)));
      guint64 claimed = from_front ? s + ((guint64) take << COUNT_BITS) : s - take;
      if (atomic_compare_exchange_weak_explicit (&w->state, &s, claimed, memory_order_acq_rel, memory_order_acquire))
        {
          *first = from_front ? next : last - take;
          *end = *first + take;
          return TRUE;
        }
    }
}

static void
run_units (Workers *w, guint32 first, guint32 end)
{
  gsize from = (gsize) first * w->unit_items;
  gsize to = MIN ((gsize) end * w->unit_items, w->n_items);

  w->task (w->context, from, to);
  atomic_fetch_add_explicit (&w->done, end - first, memory_order_release);
}

/* Returns the number of units run. */
static gsize
run_claims (Workers *w, gboolean from_front)
{
  guint32 first, end;
  gsize ran = 0;

  while (claim (w, from_front, &first, &end))
    {
      run_units (w, first, end);
      ran += end - first;
    }
  return ran;
}

/* Spins until there is work, for at most SPIN_US; FALSE when the worker
 * should sleep. */
static gboolean
spin_for_work (Workers *w)
{
  gint64 until = g_get_monotonic_time () + SPIN_US;

  for (guint i = 1;; i++)
    {
      if (has_work (w))
        return TRUE;
      if (atomic_load_explicit (&w->parked, memory_order_relaxed) ||
          atomic_load_explicit (&w->stopping, memory_order_relaxed))
        return FALSE;
      cpu_relax ();
      if (i % 64 == 0 && g_get_monotonic_time () > until)
        return FALSE;
    }
}

/* Whether this worker was preempted lately.  Spinning then takes CPU time
 * from the process's own caller (the scheduler shares the CPUs out per
 * thread), so the worker sleeps instead: the caller does not wait for it
 * to wake.  Reads this thread's involuntary context switches. */
static gboolean
preempted_lately (gint64 *preemptions, gint64 *until_us)
{
  gint64 now = g_get_monotonic_time ();
#ifdef RUSAGE_THREAD
  struct rusage usage;

  if (getrusage (RUSAGE_THREAD, &usage) == 0 && usage.ru_nivcsw != *preemptions)
    {
      *preemptions = usage.ru_nivcsw;
      *until_us = now + PREEMPTED_LATELY_US;
    }
#endif
  return now < *until_us;
}

static gpointer
worker_main (gpointer data)
{
  Workers *w = data;
  gint64 preemptions = 0, no_spin_until = 0;

  while (!atomic_load_explicit (&w->stopping, memory_order_relaxed))
    {
      if (!atomic_load_explicit (&w->held, memory_order_relaxed) && run_claims (w, FALSE) > 0)
        continue;
      if (!preempted_lately (&preemptions, &no_spin_until) && spin_for_work (w))
        continue;

      g_mutex_lock (&w->sleep_lock);
      /* Counted before looking for work: a caller that publishes work
       * afterwards sees the count and wakes us (both sides seq_cst). */
      atomic_fetch_add_explicit (&w->sleepers, 1, memory_order_seq_cst);
      while (!has_work (w) && !atomic_load_explicit (&w->stopping, memory_order_seq_cst))
        g_cond_wait (&w->wake, &w->sleep_lock);
      atomic_fetch_sub_explicit (&w->sleepers, 1, memory_order_seq_cst);
      g_mutex_unlock (&w->sleep_lock);
    }
  return NULL;
}

static void
wake_sleepers (Workers *w)
{
  if (atomic_load_explicit (&w->sleepers, memory_order_seq_cst) == 0)
    return;
  g_mutex_lock (&w->sleep_lock);
  g_cond_broadcast (&w->wake);
  g_mutex_unlock (&w->sleep_lock);
}

Workers *
workers_new (guint n_workers)
{
  g_return_val_if_fail (n_workers >= 1, NULL);

  Workers *w = g_new0 (Workers, 1);
  w->payoff = (Payoff) PAYOFF_INIT;
  g_mutex_init (&w->sleep_lock);
  g_cond_init (&w->wake);
  g_mutex_init (&w->submit_lock);
  w->threads = g_new0 (GThread *, n_workers);
  for (guint i = 0; i < n_workers; i++)
    {
      GError *error = NULL;

      w->threads[i] = g_thread_try_new ("executorch-worker", worker_main, w, &error);
      if (w->threads[i] == NULL)
        {
          g_warning ("could not start worker thread %u: %s", i, error->message);
          g_error_free (error);
          workers_free (w);
          return NULL;
        }
      w->n_workers++;
    }
  return w;
}

void
workers_free (Workers *w)
{
  if (w == NULL)
    return;
  g_mutex_lock (&w->sleep_lock);
  atomic_store_explicit (&w->stopping, TRUE, memory_order_seq_cst);
  g_cond_broadcast (&w->wake);
  g_mutex_unlock (&w->sleep_lock);
  for (guint i = 0; i < w->n_workers; i++)
    g_thread_join (w->threads[i]);
  g_free (w->threads);
  g_mutex_clear (&w->sleep_lock);
  g_cond_clear (&w->wake);
  g_mutex_clear (&w->submit_lock);
  g_free (w);
}

guint
workers_get_n_workers (const Workers *w)
{
  return w->n_workers;
}

/* The calling thread's CPU time: what its share of a region cost it,
 * without the time other threads held its CPU. */
static gint64
thread_cpu_us (void)
{
  struct timespec now;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now) != 0)
    return 0;
  return (gint64) now.tv_sec * G_USEC_PER_SEC + now.tv_nsec / 1000;
}

gboolean
workers_run (Workers *w, WorkersTask task, gpointer context, gsize n_items)
{
  g_return_val_if_fail (w != NULL && task != NULL, FALSE);

  if (n_items == 0)
    return TRUE;
  if (!g_mutex_trylock (&w->submit_lock))
    return FALSE;
  gint64 start = g_get_monotonic_time ();
  if (!payoff_use_workers (&w->payoff, start))
    {
      gboolean sample = payoff_wants_sample (&w->payoff);
      if (sample)
        {
          /* How much of a CPU the caller gets alone: what the workers
           * are judged against when they are tried again. */
          gint64 start_cpu = thread_cpu_us ();
          task (context, 0, n_items);
          gint64 cpu = thread_cpu_us () - start_cpu;
          payoff_serial_sample (&w->payoff, g_get_monotonic_time () - start, cpu);
        }
      g_mutex_unlock (&w->submit_lock);
      return sample;
    }
  gint64 start_cpu = thread_cpu_us ();

  /* No claim of the previous region is outstanding, so nobody reads these
   * until the state below is published. */
  w->task = task;
  w->context = context;
  w->n_items = n_items;
  w->unit_items = (n_items + MAX_UNITS - 1) / MAX_UNITS;
  gsize units = (n_items + w->unit_items - 1) / w->unit_items;
  atomic_store_explicit (&w->done, 0, memory_order_relaxed);
  guint64 generation = STATE_GENERATION (atomic_load_explicit (&w->state, memory_order_relaxed)) + 1;
  atomic_store_explicit (&w->parked, FALSE, memory_order_relaxed);
  atomic_store_explicit (&w->state, STATE (generation, 0, units), memory_order_seq_cst);
  wake_sleepers (w);

  gsize caller_units = run_claims (w, TRUE);
  gint64 caller_cpu = thread_cpu_us () - start_cpu;
  for (guint i = 1; atomic_load_explicit (&w->done, memory_order_acquire) < units; i++)
    {
      /* A worker holds an unfinished claim; if it was preempted, it needs
       * a CPU more than this thread does. */
      if (i < CALLER_SPIN_ITERATIONS)
        cpu_relax ();
      else
        g_thread_yield ();
    }
  gint64 end = g_get_monotonic_time ();
  payoff_observed (&w->payoff, end, end - start, caller_cpu, caller_units, units);
  g_mutex_unlock (&w->submit_lock);
  return TRUE;
}

void
workers_park (Workers *w)
{
  atomic_store_explicit (&w->parked, TRUE, memory_order_relaxed);
}

void
workers_hold (Workers *w, gboolean hold)
{
  atomic_store_explicit (&w->held, hold, memory_order_relaxed);
}
