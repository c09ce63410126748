/* core-share.c: what data one CPU writes costs another to read
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The two-thread rows of bench.py depend on it: a kernel's parallel
 * region reads what the previous region's threads wrote, and where two
 * CPUs share no cache (two vCPUs on different dies of the host) every
 * such line crosses between them.  Two threads pinned to CPUs @a and @b
 * (default 0 and 1) bounce one cache line (the round trip), then the
 * second writes a block that the first reads (read once, then again from
 * its own cache).  Prints nanoseconds and microseconds, medians of the
 * repeats.  On a virtual machine the answer may change from minute to
 * minute, as the host moves its vCPUs.
 *
 *   build/bench/core-share [A B]
 */
#define _GNU_SOURCE

#include <glib.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BOUNCES 100000
#define BLOCK (512 * 1024)
#define BLOCKS 101

static _Atomic int ball __attribute__ ((aligned (64)));
static _Atomic int turn __attribute__ ((aligned (64)));
static unsigned char *block;
static int other_cpu;

static gboolean
pin (int cpu)
{
  cpu_set_t set;

  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  return pthread_setaffinity_np (pthread_self (), sizeof set, &set) == 0;
}

static void *
partner (void *data)
{
  (void) data;
  pin (other_cpu);
  for (int i = 0; i < BOUNCES; i++)
    {
      while (atomic_load_explicit (&ball, memory_order_acquire) != 1)
        ;
      atomic_store_explicit (&ball, 0, memory_order_release);
    }
  for (int r = 0; r < BLOCKS; r++)
    {
      while (atomic_load (&turn) != 2 * r)
        ;
      memset (block, r, BLOCK);
      atomic_store (&turn, 2 * r + 1);
    }
  return NULL;
}

static double
now_ns (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec * 1e9 + (double) t.tv_nsec;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Reads every line of the block; returns microseconds. */
static double
read_block (volatile unsigned long *sink)
{
  double start = now_ns ();
  unsigned long sum = 0;

  for (size_t i = 0; i < BLOCK; i += 64)
    sum += block[i];
  *sink += sum;
  return (now_ns () - start) / 1000.0;
}

int
main (int argc, char **argv)
{
  int cpu = argc > 2 ? atoi (argv[1]) : 0;
  double remote[BLOCKS], local[BLOCKS];
  volatile unsigned long sink = 0;
  pthread_t thread;

  other_cpu = argc > 2 ? atoi (argv[2]) : 1;
  block = aligned_alloc (64, BLOCK);
  if (block == NULL || !pin (cpu))
    {
      fprintf (stderr, "core-share: cannot use CPU %d\n", cpu);
      return 1;
    }
  memset (block, 0, BLOCK);
  if (pthread_create (&thread, NULL, partner, NULL) != 0)
    return 1;
  double start = now_ns ();
  for (int i = 0; i < BOUNCES; i++)
    {
      atomic_store_explicit (&ball, 1, memory_order_release);
      while (atomic_load_explicit (&ball, memory_order_acquire) != 0)
        ;
    }
  double round_trip_ns = (now_ns () - start) / BOUNCES;
  for (int r = 0; r < BLOCKS; r++)
    {
      while (atomic_load (&turn) != 2 * r + 1)
        ;
      remote[r] = read_block (&sink);
      local[r] = read_block (&sink);
      atomic_store (&turn, 2 * r + 2);
    }
  pthread_join (thread, NULL);
  qsort (remote, BLOCKS, sizeof remote[0], compare_doubles);
  qsort (local, BLOCKS, sizeof local[0], compare_doubles);
  printf ("CPUs %d and %d: cache line round trip %.0f ns; reading %d KiB the other CPU wrote %.1f us, "
          "then again %.1f us\n",
          cpu, other_cpu, round_trip_ns, BLOCK / 1024, remote[BLOCKS / 2], local[BLOCKS / 2]);
  free (block);
  return 0;
}
