/* profile.c: time per XNNPACK operator (EXECUTORCH_XNNPACK_PROFILE)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Where the installed XNNPACK times its operators (the 2024 library:
 * xnn_get_runtime_profiling_info), setting EXECUTORCH_XNNPACK_PROFILE makes
 * the delegate create its runtimes with XNN_FLAG_BASIC_PROFILING, add up
 * each operator's time after every run, and print the totals when it is
 * freed, largest first.  The operators are named as XNNPACK names them
 * ("Convolution (NHWC, F32) IGEMM #3": the third of that kind in its
 * runtime), which is also how upstream's runtime names them in an ETDump,
 * so the two libraries can be compared operator by operator.  It also
 * counts the executions that ran on the thread pool and those that ran on
 * the calling thread (docs/threading.md, "A busy machine"): all the 2022
 * library's delegate reports.
 */

#include "profile.h"

#include <stdio.h>
#include <string.h>

#include "xnnpack-api.h" /* what the installed XNNPACK offers (meson.build) */

typedef struct
{
  char *name;
  guint64 total_us;
  guint64 min_us; /* the fastest run: the least disturbed by other processes */
  guint64 runs;
} XbProfileRow;

struct _XbProfile
{
  GHashTable *rows; /* name -> XbProfileRow */
  guint64 pooled_runs, serial_runs;
};

static gboolean
wanted (void)
{
  const char *value = g_getenv ("EXECUTORCH_XNNPACK_PROFILE");
  return value != NULL && value[0] != '\0' && strcmp (value, "0") != 0;
}

static void
row_free (gpointer p)
{
  XbProfileRow *row = p;
  g_free (row->name);
  g_free (row);
}

XbProfile *
xb_profile_new (void)
{
  if (!wanted ())
    return NULL;
#ifndef HAVE_XNN_GET_RUNTIME_PROFILING_INFO
  g_message ("EXECUTORCH_XNNPACK_PROFILE: the installed XNNPACK cannot time its operators; "
             "counting the executions only");
#endif
  XbProfile *profile = g_new0 (XbProfile, 1);
  profile->rows = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, row_free);
  return profile;
}

uint32_t
xb_profile_runtime_flags (const XbProfile *profile)
{
#ifdef HAVE_XNN_GET_RUNTIME_PROFILING_INFO
  return profile != NULL ? XNN_FLAG_BASIC_PROFILING : 0;
#else
  (void) profile;
  return 0;
#endif
}

void
xb_profile_add_runtime (XbProfile *profile, int step, xnn_runtime_t runtime)
{
#ifdef HAVE_XNN_GET_RUNTIME_PROFILING_INFO
  if (profile == NULL || runtime == NULL)
    return;
  size_t n_ops = 0, size = 0;
  if (xnn_get_runtime_profiling_info (runtime, xnn_profile_info_num_operators, sizeof n_ops, &n_ops, &size) !=
          xnn_status_success ||
      n_ops == 0)
    return;
  /* The names: NUL-separated, in one buffer whose size XNNPACK tells. */
  size = 0;
  xnn_get_runtime_profiling_info (runtime, xnn_profile_info_operator_name, 0, NULL, &size);
  if (size == 0)
    return;
  g_autofree char *names = g_malloc0 (size + 1);
  g_autofree guint64 *times = g_new0 (guint64, n_ops);
  size_t unused;
  if (xnn_get_runtime_profiling_info (runtime, xnn_profile_info_operator_name, size, names, &unused) !=
          xnn_status_success ||
      xnn_get_runtime_profiling_info (runtime, xnn_profile_info_operator_timing, n_ops * sizeof (guint64), times,
                                      &unused) != xnn_status_success)
    return;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal); /* kind -> count in this runtime */
  const char *name = names;
  for (size_t i = 0; i < n_ops && name < names + size; i++, name += strlen (name) + 1)
    {
      guint k = GPOINTER_TO_UINT (g_hash_table_lookup (seen, name)) + 1;
      g_hash_table_insert (seen, (gpointer) name, GUINT_TO_POINTER (k));
      g_autofree char *key =
          step >= 0 ? g_strdup_printf ("step %d: %s #%u", step, name, k) : g_strdup_printf ("%s #%u", name, k);
      XbProfileRow *row = g_hash_table_lookup (profile->rows, key);
      if (row == NULL)
        {
          row = g_new0 (XbProfileRow, 1);
          row->name = g_steal_pointer (&key);
          g_hash_table_insert (profile->rows, row->name, row);
        }
      row->total_us += times[i];
      row->min_us = row->runs == 0 ? times[i] : MIN (row->min_us, times[i]);
      row->runs++;
    }
#else
  (void) profile;
  (void) step;
  (void) runtime;
#endif
}

void
xb_profile_count_execution (XbProfile *profile, gboolean pooled)
{
  if (profile == NULL)
    return;
  if (pooled)
    profile->pooled_runs++;
  else
    profile->serial_runs++;
}

static gint
by_total (gconstpointer a, gconstpointer b)
{
  const XbProfileRow *x = *(XbProfileRow *const *) a, *y = *(XbProfileRow *const *) b;
  return x->total_us < y->total_us ? 1 : x->total_us > y->total_us ? -1 : strcmp (x->name, y->name);
}

void
xb_profile_report_and_free (XbProfile *profile)
{
  if (profile == NULL)
    return;
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer row_ptr;
  g_hash_table_iter_init (&iter, profile->rows);
  while (g_hash_table_iter_next (&iter, NULL, &row_ptr))
    g_ptr_array_add (rows, row_ptr);
  g_ptr_array_sort (rows, by_total);
  guint64 total = 0;
  for (guint i = 0; i < rows->len; i++)
    total += ((XbProfileRow *) g_ptr_array_index (rows, i))->total_us;
  guint64 executions = profile->pooled_runs + profile->serial_runs;
  g_autoptr (GString) out = g_string_new (NULL);
  g_string_append_printf (out,
                          "XNNPACK operators: %" G_GUINT64_FORMAT " executions (%" G_GUINT64_FORMAT
                          " on the thread pool, %" G_GUINT64_FORMAT " on the calling thread), %.3f ms per execution\n",
                          executions, profile->pooled_runs, profile->serial_runs,
                          executions ? total / 1e3 / executions : 0.0);
  g_string_append (out, "  share  ms/run  min ms   runs  operator\n");
  for (guint i = 0; i < rows->len; i++)
    {
      const XbProfileRow *row = g_ptr_array_index (rows, i);
      g_string_append_printf (out, "  %5.1f%% %7.3f %7.3f %6" G_GUINT64_FORMAT "  %s\n",
                              total ? 100.0 * row->total_us / total : 0.0, row->total_us / 1e3 / row->runs,
                              row->min_us / 1e3, row->runs, row->name);
    }
  fputs (out->str, stderr);
  g_hash_table_unref (profile->rows);
  g_free (profile);
}
