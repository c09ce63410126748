/* workers.h: a worker pool whose regions never wait for a late worker
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Debian's pthreadpool hands each worker a share of a region and returns
 * only when every worker has checked in, so one worker waiting for a CPU
 * stalls the region.  Here the caller and the workers claim chunks of the
 * region from one shared counter: whoever runs takes the next chunk, and a
 * region ends when all chunks are done, whether or not every worker joined.
 * On a busy machine the caller may do all the work itself; a worker that
 * wakes late finds nothing left and goes back to waiting.
 */
#pragma once

#include <glib.h>

typedef struct _Workers Workers;

/* Runs the items from @first to @end - 1 of a region. */
typedef void (*WorkersTask) (gpointer context, gsize first, gsize end);

/* A pool of @n_workers threads beside the callers (at least 1), or NULL
 * when they cannot be started. */
Workers *workers_new (guint n_workers);
void workers_free (Workers *workers);
guint workers_get_n_workers (const Workers *workers);

/* Runs @task over @n_items items on the calling thread and the workers,
 * returning when all have run.  While the workers have lately cost more
 * time than they saved (payoff.h), it runs the first regions on the
 * calling thread alone, timing them, and returns TRUE.  Returns FALSE
 * without running anything while another caller's region is in progress,
 * or for the other regions while the workers cost more than they save:
 * the caller then runs the items itself. */
gboolean workers_run (Workers *workers, WorkersTask task, gpointer context, gsize n_items);

/* Sends idle workers to sleep now instead of after their spin: for when
 * another pool is about to use the CPUs. */
void workers_park (Workers *workers);

/* Test hook: while held, workers claim nothing (they stay as late as can
 * be), so every region runs on its caller. */
void workers_hold (Workers *workers, gboolean hold);
