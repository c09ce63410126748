/* executorch-threadpool.h: the process-wide CPU thread pool of libexecutorch
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libexecutorch-threadpool owns the worker threads of a process.  Every
 * library that runs CPU work in parallel (the kernel libraries and the
 * XNNPACK backend) links it and so shares the same workers: a process never
 * has more busy threads than the pool's size, however many parts it loads.
 * Its own workers run the parallelize calls; a pthreadpool of the same size
 * is started for libraries that take one.
 *
 * This is a plain C API (it is not introspected).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#if defined(EXECUTORCH_THREADPOOL_COMPILATION)
#define EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0 __attribute__ ((visibility ("default"))) extern
#else
#define EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0 extern
#endif

/* pthreadpool's handle type (pthreadpool_t is `struct pthreadpool *`). */
struct pthreadpool;

/**
 * ExecutorchThreadpoolTask1d:
 * @context: (closure): the context given to the parallelize call
 * @i: the index to process
 *
 * A task of [func@executorch_threadpool_parallelize_1d].  It may run on any
 * of the pool's threads, concurrently with other indices.
 *
 * Since: 1.0
 */
typedef void (*ExecutorchThreadpoolTask1d) (gpointer context, gsize i);

/**
 * ExecutorchThreadpoolTask2dTile:
 * @context: (closure): the context given to the parallelize call
 * @i: the first row index of the tile
 * @j: the first column index of the tile
 * @tile_i: the number of rows in the tile (at most the requested tile size)
 * @tile_j: the number of columns in the tile
 *
 * A task of [func@executorch_threadpool_parallelize_2d_tile_2d].
 *
 * Since: 1.0
 */
typedef void (*ExecutorchThreadpoolTask2dTile) (gpointer context, gsize i, gsize j, gsize tile_i, gsize tile_j);

/**
 * ExecutorchThreadpoolSpan:
 *
 * A span of parallel work, between [func@executorch_threadpool_span_begin]
 * and [func@executorch_threadpool_span_end].  It lives on the caller's
 * stack; its fields are private.
 *
 * Since: 1.0
 */
typedef struct
{
  /*< private >*/
  gint64 start_us;
  gint64 start_preemptions;
  gboolean parallel;
} ExecutorchThreadpoolSpan;

EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0
guint executorch_threadpool_get_num_threads (void);

EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0
void executorch_threadpool_set_num_threads (guint n_threads);

EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0
struct pthreadpool *executorch_threadpool_get_pthreadpool (void);

EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0
struct pthreadpool *executorch_threadpool_acquire_pthreadpool (void);

EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0
void executorch_threadpool_release_pthreadpool (void);

EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0
gboolean executorch_threadpool_span_begin (ExecutorchThreadpoolSpan *span, struct pthreadpool *held_pool);

EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0
void executorch_threadpool_span_end (ExecutorchThreadpoolSpan *span);

EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0
void executorch_threadpool_parallelize_1d (ExecutorchThreadpoolTask1d func, gpointer context, gsize range);

EXECUTORCH_THREADPOOL_AVAILABLE_IN_1_0
void executorch_threadpool_parallelize_2d_tile_2d (ExecutorchThreadpoolTask2dTile func, gpointer context, gsize range_i,
                                                   gsize range_j, gsize tile_i, gsize tile_j);

G_END_DECLS
