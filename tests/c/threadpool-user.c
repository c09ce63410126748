/* threadpool-user.c: a test-only library that uses libexecutorch-threadpool
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built twice (threadpool-user-a and -b); test-threadpool loads both into one
 * process and checks that they see the same pool.
 */
#include "executorch-threadpool.h"

#include <gmodule.h>

G_MODULE_EXPORT gpointer test_user_get_pthreadpool (void);
G_MODULE_EXPORT guint test_user_get_num_threads (void);
G_MODULE_EXPORT gsize test_user_sum (gsize range);

gpointer
test_user_get_pthreadpool (void)
{
  return executorch_threadpool_get_pthreadpool ();
}

guint
test_user_get_num_threads (void)
{
  return executorch_threadpool_get_num_threads ();
}

static void
add_index (gpointer context, gsize i)
{
  __atomic_fetch_add ((gsize *) context, i, __ATOMIC_RELAXED);
}

/* Sums 0 .. range-1 through the pool. */
gsize
test_user_sum (gsize range)
{
  gsize total = 0;

  executorch_threadpool_parallelize_1d (add_index, &total, range);
  return total;
}
