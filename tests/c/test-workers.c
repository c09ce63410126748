/* test-workers.c: the late-joiner worker pool (backends/threadpool/workers.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "workers.h"

#include <stdatomic.h>

typedef struct
{
  _Atomic guint *hits; /* per item */
  gsize n_items;
  _Atomic guint calls;
  _Atomic gboolean off_caller; /* some range ran on another thread */
  _Atomic gboolean *by_caller; /* per item, where not NULL */
  GThread *caller;
  gulong sleep_us; /* per item */
} Count;

static void
count_items (gpointer data, gsize first, gsize end)
{
  Count *c = data;

  g_assert_cmpuint (first, <, end);
  g_assert_cmpuint (end, <=, c->n_items);
  for (gsize i = first; i < end; i++)
    {
      atomic_fetch_add (&c->hits[i], 1);
      if (c->by_caller != NULL)
        atomic_store (&c->by_caller[i], g_thread_self () == c->caller);
      if (c->sleep_us != 0)
        g_usleep (c->sleep_us);
    }
  atomic_fetch_add (&c->calls, 1);
  if (g_thread_self () != c->caller)
    atomic_store (&c->off_caller, TRUE);
}

static void
count_init (Count *c, gsize n_items)
{
  c->hits = g_new0 (_Atomic guint, n_items);
  c->n_items = n_items;
  atomic_store (&c->calls, 0);
  atomic_store (&c->off_caller, FALSE);
  c->caller = g_thread_self ();
  c->sleep_us = 0;
  c->by_caller = NULL;
}

/* Runs @c's items on @w, or on this thread when @w refuses the region
 * (busy with another caller, or not paying for itself lately). */
static gboolean
run_or_inline (Workers *w, Count *c)
{
  if (workers_run (w, count_items, c, c->n_items))
    return TRUE;
  for (gsize i = 0; i < c->n_items; i++)
    g_assert_cmpuint (atomic_load (&c->hits[i]), ==, 0);
  count_items (c, 0, c->n_items);
  return FALSE;
}

static void
assert_each_once (Count *c)
{
  for (gsize i = 0; i < c->n_items; i++)
    if (atomic_load (&c->hits[i]) != 1)
      g_error ("item %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " ran %u times", i, c->n_items,
               atomic_load (&c->hits[i]));
  g_free (c->hits);
}

/* Many regions of many sizes, back to back: every item runs exactly once. */
static void
test_each_item_once (void)
{
  Workers *w = workers_new (3);

  for (gsize n = 1; n < 3000; n = n * 3 / 2 + 1)
    for (int round = 0; round < 20; round++)
      {
        Count c;
        count_init (&c, n);
        run_or_inline (w, &c);
        assert_each_once (&c);
      }
  workers_free (w);
}

/* Regions larger than the claim word's unit count run in item ranges. */
static void
test_many_items (void)
{
  Workers *w = workers_new (1);
  gsize n = (1u << 24) + 12345;
  Count c;

  count_init (&c, n);
  g_assert_true (workers_run (w, count_items, &c, n)); /* the first region always runs on the pool */
  assert_each_once (&c);
  workers_free (w);
}

/* Workers that never join do not keep a region from ending: the caller
 * runs it all (or, once they have not paid for a while, refuses the pool). */
static void
test_late_workers_not_waited_for (void)
{
  Workers *w = workers_new (2);

  workers_hold (w, TRUE);
  for (int round = 0; round < 100; round++)
    {
      Count c;
      count_init (&c, 64);
      run_or_inline (w, &c);
      g_assert_false (atomic_load (&c.off_caller));
      assert_each_once (&c);
    }
  workers_hold (w, FALSE);
  /* Released, they join again: items slow enough that a woken worker
   * surely gets a CPU before the caller is through. */
  gboolean helped = FALSE;
  for (int round = 0; round < 50 && !helped; round++)
    {
      Count c;
      count_init (&c, 40);
      c.sleep_us = 500;
      run_or_inline (w, &c);
      helped = atomic_load (&c.off_caller);
      assert_each_once (&c);
    }
  g_assert_true (helped);
  workers_free (w);
}

/* The caller runs the front of a region and the workers its back, so each
 * thread of two gets about the same half of consecutive regions: the
 * caller's items are always a prefix. */
static void
test_caller_front_workers_back (void)
{
  Workers *w = workers_new (1);
  gboolean helped = FALSE;

  for (int round = 0; round < 50 && !helped; round++)
    {
      Count c;
      count_init (&c, 40);
      c.sleep_us = 500;
      c.by_caller = g_new0 (_Atomic gboolean, 40);
      if (run_or_inline (w, &c))
        {
          gsize prefix = 0;
          while (prefix < 40 && atomic_load (&c.by_caller[prefix]))
            prefix++;
          for (gsize i = prefix; i < 40; i++)
            g_assert_false (atomic_load (&c.by_caller[i]));
          helped = prefix < 40;
        }
      assert_each_once (&c);
      g_free (c.by_caller);
    }
  g_assert_true (helped);
  workers_free (w);
}

/* Workers that cost more than they save send regions to the caller: the
 * first of them it runs through the pool's call (timing how much of a CPU
 * it gets alone), the rest it is refused; every item still runs once, all
 * on the caller. */
static void
test_not_paying_goes_serial (void)
{
  Workers *w = workers_new (1);
  guint refused = 0;

  workers_hold (w, TRUE);
  for (int round = 0; round < 100; round++)
    {
      Count c;
      count_init (&c, 8);
      c.sleep_us = 150; /* items that wait, not run: no CPU time to show */
      gboolean ran = run_or_inline (w, &c);
      refused += !ran;
      g_assert_false (atomic_load (&c.off_caller));
      assert_each_once (&c);
    }
  workers_hold (w, FALSE);
  /* Judged over 20 ms windows of ~1.2 ms regions; then 10 ms alone, of
   * which the first 5 ms are timed through workers_run. */
  g_assert_cmpuint (refused, >, 0);
  g_assert_cmpuint (refused, <, 100);
  workers_free (w);
}

typedef struct
{
  Workers *w;
  guint runs, refused;
} Caller;

static gpointer
caller_main (gpointer data)
{
  Caller *caller = data;

  for (int round = 0; round < 300; round++)
    {
      Count c;
      count_init (&c, 97);
      /* Refused while another caller's region runs: nothing ran. */
      if (run_or_inline (caller->w, &c))
        caller->runs++;
      else
        caller->refused++;
      assert_each_once (&c);
    }
  return NULL;
}

/* Callers on several threads: each region runs on the pool or is refused
 * whole, never mixed with another. */
static void
test_concurrent_callers (void)
{
  Workers *w = workers_new (2);
  Caller callers[3] = { { w }, { w }, { w } };
  GThread *threads[3];

  for (int i = 0; i < 3; i++)
    threads[i] = g_thread_new ("caller", caller_main, &callers[i]);
  for (int i = 0; i < 3; i++)
    g_thread_join (threads[i]);
  for (int i = 0; i < 3; i++)
    g_assert_cmpuint (callers[i].runs + callers[i].refused, ==, 300);
  workers_free (w);
}

/* Parked workers sleep and still wake for the next region. */
static void
test_park_then_run (void)
{
  Workers *w = workers_new (2);

  for (int round = 0; round < 200; round++)
    {
      Count c;
      count_init (&c, 33);
      workers_park (w);
      if (round % 50 == 0)
        g_usleep (2000); /* long enough for every worker to be asleep */
      run_or_inline (w, &c);
      assert_each_once (&c);
    }
  g_assert_cmpuint (workers_get_n_workers (w), ==, 2);
  workers_free (w);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/workers/each-item-once", test_each_item_once);
  g_test_add_func ("/workers/many-items", test_many_items);
  g_test_add_func ("/workers/late-workers-not-waited-for", test_late_workers_not_waited_for);
  g_test_add_func ("/workers/not-paying-goes-serial", test_not_paying_goes_serial);
  g_test_add_func ("/workers/caller-front-workers-back", test_caller_front_workers_back);
  g_test_add_func ("/workers/concurrent-callers", test_concurrent_callers);
  g_test_add_func ("/workers/park-then-run", test_park_then_run);
  return g_test_run ();
}
