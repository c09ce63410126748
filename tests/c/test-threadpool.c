/* test-threadpool.c: the process-wide pool of libexecutorch-threadpool
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-threadpool.h"
#include "common-util.h"

#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#include "executorch-plugin.h"

#include <gmodule.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef gpointer (*GetPoolFunc) (void);
typedef guint (*GetThreadsFunc) (void);
typedef gsize (*SumFunc) (gsize range);

typedef struct
{
  GModule *module;
  GetPoolFunc get_pool;
  GetThreadsFunc get_threads;
  SumFunc sum;
} User;

static void
open_user (const char *path, User *user)
{
  user->module = g_module_open (path, G_MODULE_BIND_LOCAL);
  g_assert_nonnull (user->module);
  g_assert_true (g_module_symbol (user->module, "test_user_get_pthreadpool", (gpointer *) &user->get_pool));
  g_assert_true (g_module_symbol (user->module, "test_user_get_num_threads", (gpointer *) &user->get_threads));
  g_assert_true (g_module_symbol (user->module, "test_user_sum", (gpointer *) &user->sum));
}

/* Two libraries loaded into one process see the application's pool. */
static void
test_shared (void)
{
  User a, b;

  open_user (THREADPOOL_USER_A, &a);
  open_user (THREADPOOL_USER_B, &b);
  g_assert_true (a.get_pool != b.get_pool);

  executorch_threadpool_set_num_threads (2);
  g_assert_nonnull (executorch_threadpool_get_pthreadpool ());
  g_assert_true (a.get_pool () == executorch_threadpool_get_pthreadpool ());
  g_assert_true (b.get_pool () == executorch_threadpool_get_pthreadpool ());
  g_assert_cmpuint (a.get_threads (), ==, 2);
  g_assert_cmpuint (b.get_threads (), ==, 2);
  g_assert_cmpuint (a.sum (1000), ==, 999 * 1000 / 2);

  executorch_threadpool_set_num_threads (3);
  g_assert_cmpuint (a.get_threads (), ==, 3);
  g_assert_cmpuint (b.get_threads (), ==, 3);
  g_assert_true (a.get_pool () == b.get_pool ());
  g_assert_cmpuint (b.sum (1001), ==, 1000 * 1001 / 2);

  executorch_threadpool_set_num_threads (1);
  g_assert_cmpuint (a.get_threads (), ==, 1);
  g_assert_null (b.get_pool ());
  g_assert_cmpuint (b.sum (10), ==, 45);

  executorch_threadpool_set_num_threads (0);
  g_assert_cmpuint (a.get_threads (), >=, 1);

  /* Modules are never unloaded by the runtime either. */
}

static void
init_matrix (EtTensor *t, int64_t rows, int64_t cols, float *data)
{
  memset (t, 0, sizeof *t);
  t->data = data;
  t->ndim = 2;
  t->sizes[0] = rows;
  t->sizes[1] = cols;
  t->strides[0] = cols;
  t->strides[1] = 1;
  t->dim_order[0] = 0;
  t->dim_order[1] = 1;
  t->scalar_type = ET_SCALAR_FLOAT;
  t->numel = rows * cols;
  t->nbytes = (size_t) t->numel * sizeof (float);
  t->capacity = t->nbytes;
}

/* The kernel library, loaded like a plug-in, runs its parallel GEMM on the
 * same pool as another library of the process: its thread pool functions
 * resolve to the one libexecutorch-threadpool, and a large mm after the
 * other library's parallel work starts no thread. */
static void
test_kernels_share_pool (void)
{
  enum
  {
    N = 192
  };
  GModule *kernels = g_module_open (KERNELS_LIBRARY, G_MODULE_BIND_LOCAL);
  const EtPluginDesc *(*get_plugin) (void);
  gpointer kernels_get_pool = NULL;
  const EtKernel *mm;
  g_autofree float *a = g_new (float, N *N);
  g_autofree float *b = g_new (float, N *N);
  g_autofree float *c = g_new0 (float, N *N);
  EtTensor ta, tb, tc;
  EtValue va = { .tag = ET_VALUE_TENSOR }, vb = { .tag = ET_VALUE_TENSOR }, vc = { .tag = ET_VALUE_TENSOR };
  EtValue *args[4] = { &va, &vb, &vc, &vc };
  User user;
  guint threads_after_user;

  g_assert_nonnull (kernels);
  g_assert_true (g_module_symbol (kernels, "executorch_kernels_get_plugin", (gpointer *) &get_plugin));
  /* dlsym through the kernel library finds its dependency's definition. */
  g_assert_true (g_module_symbol (kernels, "executorch_threadpool_get_pthreadpool", &kernels_get_pool));
  g_assert_true (kernels_get_pool == (gpointer) executorch_threadpool_get_pthreadpool);
  g_assert_cmpint (et_registry_add_plugin (get_plugin (), NULL), ==, ET_OK);
  mm = et_registry_find_kernel (et_registry_get_default (), "aten::mm.out");
  g_assert_nonnull (mm);

  executorch_threadpool_set_num_threads (3);
  open_user (THREADPOOL_USER_A, &user);
  g_assert_cmpuint (user.sum (100000), ==, (gsize) 99999 * 100000 / 2);
  threads_after_user = count_threads ();
  g_assert_cmpuint (threads_after_user, >=, 3);

  for (int i = 0; i < N * N; i++)
    {
      a[i] = (float) (i % 7) - 3.0f;
      b[i] = (float) (i % 5) - 2.0f;
    }
  init_matrix (&ta, N, N, a);
  init_matrix (&tb, N, N, b);
  init_matrix (&tc, N, N, c);
  va.u.tensor = &ta;
  vb.u.tensor = &tb;
  vc.u.tensor = &tc;
  g_assert_cmpint (et_kernel_call (mm, args, 4, NULL), ==, ET_OK);
  for (int i = 0; i < N; i += 37)
    for (int j = 0; j < N; j += 41)
      {
        double want = 0.0;
        for (int k = 0; k < N; k++)
          want += (double) a[i * N + k] * b[k * N + j];
        g_assert_cmpfloat_with_epsilon (c[i * N + j], want, 1e-3);
      }
  g_assert_cmpuint (count_threads (), ==, threads_after_user);
  executorch_threadpool_set_num_threads (0);
}

static guint
expected_default (void)
{
  long cpus = sysconf (_SC_NPROCESSORS_ONLN);

  return cpus < 1 ? 1 : cpus > 64 ? 64 : (guint) cpus;
}

static void
test_env_subprocess (void)
{
  if (!g_test_subprocess ())
    return;
  printf ("threads=%u\n", executorch_threadpool_get_num_threads ());
  executorch_threadpool_set_num_threads (0);
  printf ("reset=%u\n", executorch_threadpool_get_num_threads ());
}

static void
check_env (const char *value, guint expected)
{
  g_autofree char *pattern = g_strdup_printf ("threads=%u\nreset=%u\n", expected, expected);

  if (value != NULL)
    g_setenv ("EXECUTORCH_NUM_THREADS", value, TRUE);
  else
    g_unsetenv ("EXECUTORCH_NUM_THREADS");
  g_test_trap_subprocess ("/threadpool/env/subprocess", 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout (pattern);
}

static void
test_env (void)
{
  guint def = expected_default ();

  check_env (NULL, def);
  check_env ("3", 3);
  check_env ("1", 1);
  check_env ("17", 17);
  check_env ("0", def);
  check_env ("-2", def);
  check_env ("1025", def);
  check_env ("4x", def);
  check_env ("", def);
  check_env (" 2", def);
  g_unsetenv ("EXECUTORCH_NUM_THREADS");
}

static void
count_1d (gpointer context, gsize i)
{
  __atomic_fetch_add ((gint *) context + i, 1, __ATOMIC_RELAXED);
}

typedef struct
{
  gint *counts;
  gsize cols;
  gsize tile_i, tile_j;
  gint bad_tiles;
} Grid;

static void
count_2d (gpointer context, gsize i, gsize j, gsize ti, gsize tj)
{
  Grid *grid = context;

  if (ti == 0 || tj == 0 || ti > grid->tile_i || tj > grid->tile_j || i % grid->tile_i || j % grid->tile_j)
    __atomic_fetch_add (&grid->bad_tiles, 1, __ATOMIC_RELAXED);
  for (gsize a = i; a < i + ti; a++)
    for (gsize b = j; b < j + tj; b++)
      __atomic_fetch_add (&grid->counts[a * grid->cols + b], 1, __ATOMIC_RELAXED);
}

/* A task that itself parallelises: the inner region runs inline. */
static void
nested_1d (gpointer context, gsize i)
{
  gint *counts = context;

  executorch_threadpool_parallelize_1d (count_1d, counts + i * 16, 16);
}

static void
test_parallelize (void)
{
  static const gsize ranges[] = { 0, 1, 2, 7, 64, 1000, 4097 };

  for (guint threads = 1; threads <= 4; threads++)
    {
      executorch_threadpool_set_num_threads (threads);
      for (gsize r = 0; r < G_N_ELEMENTS (ranges); r++)
        {
          gsize range = ranges[r];
          g_autofree gint *counts = g_new0 (gint, range + 1);

          executorch_threadpool_parallelize_1d (count_1d, counts, range);
          for (gsize i = 0; i < range; i++)
            g_assert_cmpint (counts[i], ==, 1);
          g_assert_cmpint (counts[range], ==, 0);

          for (gsize ti = 1; ti <= 5; ti += 2)
            {
              for (gsize tj = 1; tj <= 33; tj += 16)
                {
                  gsize rows = range % 37 + (range > 0), cols = range % 53 + 1;
                  Grid grid = { g_new0 (gint, rows * cols), cols, ti, tj, 0 };

                  executorch_threadpool_parallelize_2d_tile_2d (count_2d, &grid, rows, cols, ti, tj);
                  for (gsize i = 0; i < rows * cols; i++)
                    g_assert_cmpint (grid.counts[i], ==, 1);
                  g_assert_cmpint (grid.bad_tiles, ==, 0);
                  g_free (grid.counts);
                }
            }
        }

      g_autofree gint *nested = g_new0 (gint, 16 * 16);
      executorch_threadpool_parallelize_1d (nested_1d, nested, 16);
      for (gsize i = 0; i < 16 * 16; i++)
        g_assert_cmpint (nested[i], ==, 1);
    }
  executorch_threadpool_set_num_threads (0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/threadpool/shared-between-libraries", test_shared);
  g_test_add_func ("/threadpool/shared-with-kernels", test_kernels_share_pool);
  g_test_add_func ("/threadpool/env", test_env);
  g_test_add_func ("/threadpool/env/subprocess", test_env_subprocess);
  g_test_add_func ("/threadpool/parallelize", test_parallelize);
  return g_test_run ();
}
