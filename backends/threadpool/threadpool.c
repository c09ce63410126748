/* threadpool.c: the process-wide CPU thread pool (libexecutorch-threadpool)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One pthreadpool per process, created on first use.  Its size comes from
 * executorch_threadpool_set_num_threads() when the application called it
 * first, otherwise from EXECUTORCH_NUM_THREADS, otherwise from the number of
 * online CPUs.  A size of one thread keeps no pool at all: work runs on the
 * calling thread.
 *
 * A GRWLock lets many callers use the pool (pthreadpool serialises their
 * parallel regions) while set_num_threads() replaces it.  Work submitted from
 * inside a task runs inline on that thread, so nested parallel code never
 * waits on the pool it is running in.
 *
 * Our own kernels run their regions on workers.c's pool, which never waits
 * for a worker that has not joined: on a busy machine the caller does the
 * work its workers cannot get a CPU for.  XNNPACK takes a pthreadpool, so
 * the process also keeps one for it, of the same size.  Its workers sleep
 * in the kernel between regions (PTHREADPOOL_FLAG_YIELD_WORKERS) rather
 * than spin against ours.
 *
 * XNNPACK's work runs in spans (a whole execute).  While other processes
 * keep the CPUs busy, spans run on the calling thread instead (contention.c
 * decides when): pthreadpool waits for every worker at the end of each
 * region, and a worker that waits for a CPU stalls the whole span.
 */

#include "executorch-threadpool.h"
#include "contention.h"
#include "workers.h"

#include <pthreadpool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#define POOL_FLAGS PTHREADPOOL_FLAG_YIELD_WORKERS

/* More threads than this are never started by default. */
#define DEFAULT_MAX_THREADS 64
/* The largest EXECUTORCH_NUM_THREADS accepted. */
#define ENV_MAX_THREADS 1024

static GRWLock pool_lock;
static pthreadpool_t pool;          /* NULL while the size is one thread */
static Workers *workers;            /* likewise */
static gboolean pthreadpool_wanted; /* a library asked for the pthreadpool */
static guint pool_threads;          /* 0 until configured; read atomically */
static gsize pool_configured;

/* TRUE while this thread runs a task of the pool. */
static __thread gboolean in_task;

static GMutex contention_lock;
static Contention contention = CONTENTION_INIT;

/* Parses EXECUTORCH_NUM_THREADS: a decimal count from 1 to ENV_MAX_THREADS,
 * or 0 when unset or invalid. */
static guint
threads_from_env (void)
{
  const char *value = g_getenv ("EXECUTORCH_NUM_THREADS");
  guint64 n;

  if (value == NULL || !g_ascii_string_to_unsigned (value, 10, 1, ENV_MAX_THREADS, &n, NULL))
    return 0;
  return (guint) n;
}

static guint
default_threads (void)
{
  static gsize cached;

  if (g_once_init_enter (&cached))
    {
      guint n = threads_from_env ();

      if (n == 0)
        {
          long cpus = sysconf (_SC_NPROCESSORS_ONLN);

          n = cpus < 1 ? 1 : cpus > DEFAULT_MAX_THREADS ? DEFAULT_MAX_THREADS : (guint) cpus;
        }
      g_once_init_leave (&cached, n);
    }
  return (guint) cached;
}

/* Starts the pthreadpool for a pool of @n threads; called with the writer
 * lock held. */
static void
start_pthreadpool_locked (guint n)
{
  pool = pthreadpool_create (n);
  if (pool == NULL)
    g_warning ("could not start a pthreadpool of %u threads; XNNPACK runs on one thread", n);
}

/* Called with the writer lock held.  The pthreadpool starts only once a
 * library asks for it, and again at the new size if it had. */
static void
apply_locked (guint n)
{
  if (n == pool_threads)
    return;
  gboolean had_pthreadpool = pool != NULL || pthreadpool_wanted;
  g_clear_pointer (&pool, pthreadpool_destroy);
  g_clear_pointer (&workers, workers_free);
  if (n > 1)
    {
      workers = workers_new (n - 1);
      if (workers == NULL)
        {
          g_warning ("could not start a pool of %u threads; running on one thread", n);
          n = 1;
        }
      else if (had_pthreadpool)
        start_pthreadpool_locked (n);
    }
  g_atomic_int_set (&pool_threads, n);
}

static void
ensure_pool (void)
{
  if (g_once_init_enter (&pool_configured))
    {
      g_rw_lock_writer_lock (&pool_lock);
      if (pool_threads == 0)
        apply_locked (default_threads ());
      g_rw_lock_writer_unlock (&pool_lock);
      g_once_init_leave (&pool_configured, 1);
    }
}

/* The pthreadpool, started on first use. */
static void
ensure_pthreadpool (void)
{
  ensure_pool ();
  if (g_atomic_int_get (&pthreadpool_wanted))
    return;
  g_rw_lock_writer_lock (&pool_lock);
  if (!pthreadpool_wanted)
    {
      if (pool_threads > 1)
        start_pthreadpool_locked (pool_threads);
      g_atomic_int_set (&pthreadpool_wanted, TRUE);
    }
  g_rw_lock_writer_unlock (&pool_lock);
}

/**
 * executorch_threadpool_get_num_threads:
 *
 * Returns the number of threads parallel work is spread over, the calling
 * thread included.  The first call sets the pool up if nothing did before.
 *
 * MT safe.
 *
 * Returns: the pool's size, at least 1
 *
 * Since: 1.0
 */
guint
executorch_threadpool_get_num_threads (void)
{
  ensure_pool ();
  return (guint) g_atomic_int_get (&pool_threads);
}

/**
 * executorch_threadpool_set_num_threads:
 * @n_threads: the number of threads, or 0 for the default
 *
 * Resizes the process's pool.  The default is `EXECUTORCH_NUM_THREADS` when
 * it holds a count from 1 to 1024, otherwise the number of online CPUs (at
 * most 64).  Calling this before any work runs avoids starting the default
 * pool at all.
 *
 * The pool is shared by every library of the process: the new size applies
 * to all of them.  The handle returned by
 * [func@executorch_threadpool_get_pthreadpool] before the call is no longer
 * valid after it.  Must not be called from inside a task.
 *
 * MT safe: waits for parallel work in progress to finish.
 *
 * Since: 1.0
 */
void
executorch_threadpool_set_num_threads (guint n_threads)
{
  g_return_if_fail (!in_task);

  g_rw_lock_writer_lock (&pool_lock);
  apply_locked (n_threads != 0 ? n_threads : default_threads ());
  g_rw_lock_writer_unlock (&pool_lock);
}

/**
 * executorch_threadpool_get_pthreadpool:
 *
 * Returns the pool as a `pthreadpool_t`, for libraries (such as XNNPACK)
 * that take one.  It is %NULL when the pool has one thread, which
 * pthreadpool treats as "run on the calling thread".
 *
 * The pool stays owned by this library: never destroy it.  It remains valid
 * until the next [func@executorch_threadpool_set_num_threads].
 *
 * MT safe.
 *
 * Returns: (transfer none) (nullable): the process's pthreadpool
 *
 * Since: 1.0
 */
struct pthreadpool *
executorch_threadpool_get_pthreadpool (void)
{
  pthreadpool_t result;

  ensure_pthreadpool ();
  g_rw_lock_reader_lock (&pool_lock);
  result = pool;
  g_rw_lock_reader_unlock (&pool_lock);
  return result;
}

/**
 * executorch_threadpool_acquire_pthreadpool:
 *
 * Like [func@executorch_threadpool_get_pthreadpool], but the pool stays
 * valid (and is not resized) until the matching
 * [func@executorch_threadpool_release_pthreadpool]: for libraries that keep
 * the handle (XNNPACK runtimes do) and run work on it directly.  Compare
 * the handle with the one kept: when it differs, the pool was resized and
 * the kept handle must not be used.  Many threads may hold it at once.
 * Must not be called from inside a task; do not resize the pool while
 * holding it.
 *
 * MT safe.
 *
 * Returns: (transfer none) (nullable): the process's pthreadpool
 *
 * Since: 1.0
 */
struct pthreadpool *
executorch_threadpool_acquire_pthreadpool (void)
{
  ensure_pthreadpool ();
  g_rw_lock_reader_lock (&pool_lock);
  return pool;
}

/**
 * executorch_threadpool_release_pthreadpool:
 *
 * Ends an [func@executorch_threadpool_acquire_pthreadpool].
 *
 * Since: 1.0
 */
void
executorch_threadpool_release_pthreadpool (void)
{
  g_rw_lock_reader_unlock (&pool_lock);
}

/* Involuntary context switches of all the process's threads so far. */
static gint64
preemptions (void)
{
  struct rusage usage;

  if (getrusage (RUSAGE_SELF, &usage) != 0)
    return 0;
  return usage.ru_nivcsw;
}

static void
answer_probe (void *context, size_t i)
{
}

/* Whether other threads of the system leave a CPU for each of @threads - 1
 * workers right now: /proc/loadavg's fourth field counts the runnable
 * threads, the caller's included.  A sleeping worker that a probe wakes gets
 * a CPU at once even on a busy machine (the scheduler favours sleepers), so
 * a probe alone cannot tell.  Where the file cannot be read, the probe
 * decides alone. */
static gboolean
cpus_free_for (guint threads)
{
  char text[128];
  FILE *file = fopen ("/proc/loadavg", "re");
  if (file == NULL)
    return TRUE;
  size_t got = fread (text, 1, sizeof text - 1, file);
  fclose (file);
  text[got] = '\0';

  double avg1, avg5, avg15;
  unsigned long runnable, total;
  if (sscanf (text, "%lf %lf %lf %lu/%lu", &avg1, &avg5, &avg15, &runnable, &total) != 5 || runnable == 0)
    return TRUE;
  return (runnable - 1) + threads <= (unsigned long) g_get_num_processors ();
}

/**
 * executorch_threadpool_span_begin:
 * @span: (out caller-allocates): the span to start
 * @held_pool: (nullable): the pool, held through
 *   [func@executorch_threadpool_acquire_pthreadpool]
 *
 * Decides whether the parallel work that follows should use @held_pool, for
 * libraries that hand the pool to code running many parallel regions of
 * its own (an XNNPACK runtime runs one per operator).  It returns %FALSE
 * while other processes keep the CPUs so busy that the pool's workers would
 * wait for them: run the work on the calling thread then (for XNNPACK, a
 * runtime created without a pool).  Every span that returned %TRUE must be
 * ended with [func@executorch_threadpool_span_end], which notes whether the
 * span's threads were preempted.
 *
 * A span that uses the pool sends this library's own idle workers to
 * sleep, leaving the CPUs to @held_pool's.
 *
 * MT safe.
 *
 * Returns: whether to use @held_pool
 *
 * Since: 1.0
 */
gboolean
executorch_threadpool_span_begin (ExecutorchThreadpoolSpan *span, struct pthreadpool *held_pool)
{
  g_return_val_if_fail (span != NULL, FALSE);

  span->parallel = FALSE;
  if (held_pool == NULL)
    return FALSE;

  gint64 now = g_get_monotonic_time ();
  g_mutex_lock (&contention_lock);
  ContentionAdvice advice = contention_advise (&contention, now);
  g_mutex_unlock (&contention_lock);
  if (advice == CONTENTION_SERIAL)
    return FALSE;
  if (advice == CONTENTION_SAMPLE)
    {
      guint threads = (guint) pthreadpool_get_threads_count (held_pool);
      gboolean free = cpus_free_for (threads);
      g_mutex_lock (&contention_lock);
      gboolean probe = contention_sampled (&contention, now, free);
      g_mutex_unlock (&contention_lock);
      if (!probe)
        return FALSE;
      pthreadpool_parallelize_1d (held_pool, answer_probe, NULL, threads, POOL_FLAGS);
      gint64 answered = g_get_monotonic_time ();
      g_mutex_lock (&contention_lock);
      gboolean usable = contention_probed (&contention, answered - now);
      g_mutex_unlock (&contention_lock);
      if (!usable)
        return FALSE;
    }
  if (workers != NULL)
    workers_park (workers);
  span->parallel = TRUE;
  span->start_preemptions = preemptions ();
  span->start_us = g_get_monotonic_time ();
  return TRUE;
}

/**
 * executorch_threadpool_span_end:
 * @span: a span started with [func@executorch_threadpool_span_begin]
 *
 * Ends @span, noting for later spans whether its threads had the CPUs to
 * themselves.  Does nothing for a span that did not use the pool.
 *
 * MT safe.
 *
 * Since: 1.0
 */
void
executorch_threadpool_span_end (ExecutorchThreadpoolSpan *span)
{
  g_return_if_fail (span != NULL);

  if (!span->parallel)
    return;
  gint64 now = g_get_monotonic_time ();
  gint64 preempted = preemptions () - span->start_preemptions;
  g_mutex_lock (&contention_lock);
  contention_observed (&contention, now, now - span->start_us, preempted);
  g_mutex_unlock (&contention_lock);
  span->parallel = FALSE;
}

typedef struct
{
  ExecutorchThreadpoolTask1d func;
  gpointer context;
} Work1d;

static void
run_1d (gpointer data, gsize first, gsize end)
{
  const Work1d *work = data;
  gboolean was_in_task = in_task;

  in_task = TRUE;
  for (gsize i = first; i < end; i++)
    work->func (work->context, i);
  in_task = was_in_task;
}

/* Runs @task over @n_items on the workers; FALSE when the caller must run
 * them itself (one thread, a task calling in, or the workers busy with
 * another caller's region). */
static gboolean
run_on_workers (WorkersTask task, gpointer data, gsize n_items)
{
  if (in_task)
    return FALSE;
  g_rw_lock_reader_lock (&pool_lock);
  gboolean ran = workers != NULL && workers_run (workers, task, data, n_items);
  g_rw_lock_reader_unlock (&pool_lock);
  return ran;
}

/**
 * executorch_threadpool_parallelize_1d:
 * @func: (scope call): the task
 * @context: (closure func): passed to @func
 * @range: the number of indices
 *
 * Calls @func once for each index from 0 to @range - 1, spread over the
 * pool's threads, and returns when all calls have returned.  The calling
 * thread takes part; a worker that gets no CPU in time is not waited for,
 * so on a busy machine the caller may run every call itself.  The calls
 * run inline on the calling thread when the pool has one thread, when
 * @range is 1, or when the caller is itself a task of the pool.
 *
 * MT safe: while one caller's region runs, another caller runs its own
 * region on its own thread.
 *
 * Since: 1.0
 */
void
executorch_threadpool_parallelize_1d (ExecutorchThreadpoolTask1d func, gpointer context, gsize range)
{
  g_return_if_fail (func != NULL);

  if (range == 0)
    return;
  ensure_pool ();
  Work1d work = { func, context };
  if (range > 1 && run_on_workers (run_1d, &work, range))
    return;
  for (gsize i = 0; i < range; i++)
    func (context, i);
}

typedef struct
{
  ExecutorchThreadpoolTask2dTile func;
  gpointer context;
  gsize range_i, range_j, tile_i, tile_j;
  gsize tiles_j;
} Work2d;

static void
run_2d (gpointer data, gsize first, gsize end)
{
  const Work2d *work = data;
  gboolean was_in_task = in_task;

  in_task = TRUE;
  for (gsize t = first; t < end; t++)
    {
      gsize i = t / work->tiles_j * work->tile_i;
      gsize j = t % work->tiles_j * work->tile_j;
      work->func (work->context, i, j, MIN (work->tile_i, work->range_i - i), MIN (work->tile_j, work->range_j - j));
    }
  in_task = was_in_task;
}

/**
 * executorch_threadpool_parallelize_2d_tile_2d:
 * @func: (scope call): the task
 * @context: (closure func): passed to @func
 * @range_i: the number of rows
 * @range_j: the number of columns
 * @tile_i: rows per tile (0 is taken as 1)
 * @tile_j: columns per tile (0 is taken as 1)
 *
 * Cuts the @range_i x @range_j grid into tiles of @tile_i x @tile_j (smaller
 * at the edges) and calls @func once per tile, spread over the pool's
 * threads like [func@executorch_threadpool_parallelize_1d], returning when
 * all calls have returned.  Runs inline under the same conditions.
 *
 * MT safe.
 *
 * Since: 1.0
 */
void
executorch_threadpool_parallelize_2d_tile_2d (ExecutorchThreadpoolTask2dTile func, gpointer context, gsize range_i,
                                              gsize range_j, gsize tile_i, gsize tile_j)
{
  g_return_if_fail (func != NULL);

  if (range_i == 0 || range_j == 0)
    return;
  if (tile_i == 0)
    tile_i = 1;
  if (tile_j == 0)
    tile_j = 1;
  ensure_pool ();
  Work2d work = { func, context, range_i, range_j, tile_i, tile_j, (range_j - 1) / tile_j + 1 };
  gsize tiles = ((range_i - 1) / tile_i + 1) * work.tiles_j;
  if (tiles > 1 && run_on_workers (run_2d, &work, tiles))
    return;
  for (gsize i = 0; i < range_i; i += tile_i)
    for (gsize j = 0; j < range_j; j += tile_j)
      func (context, i, j, MIN (tile_i, range_i - i), MIN (tile_j, range_j - j));
}
