/* fixture-util.c: reading the committed fixtures' float32 .npy cases
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fixture-util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Parses a version 1 .npy holding little-endian float32 in C order. */
static GBytes *
read_npy (const char *name, gint64 *sizes, gsize *n_dims)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, name, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *header = NULL;
  const char *shape;
  gsize length, header_length;

  g_assert_true (g_file_get_contents (path, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (length, >=, 10);
  g_assert_cmpmem (contents, 6, "\x93NUMPY", 6);
  g_assert_cmpint (contents[6], ==, 1);
  header_length = (guint8) contents[8] | ((gsize) (guint8) contents[9] << 8);
  g_assert_cmpuint (10 + header_length, <=, length);
  header = g_strndup (contents + 10, header_length);
  g_assert_nonnull (strstr (header, "'descr': '<f4'"));
  g_assert_nonnull (strstr (header, "'fortran_order': False"));
  shape = strstr (header, "'shape': (");
  g_assert_nonnull (shape);
  shape += strlen ("'shape': (");
  *n_dims = 0;
  while (*shape != ')')
    {
      char *end;
      g_assert_cmpuint (*n_dims, <, 16);
      sizes[(*n_dims)++] = g_ascii_strtoll (shape, &end, 10);
      g_assert_true (end != shape);
      shape = end;
      while (*shape == ',' || *shape == ' ')
        shape++;
    }
  return g_bytes_new (contents + 10 + header_length, length - 10 - header_length);
}

ExecutorchTensor *
fixture_npy_tensor (const char *name)
{
  gint64 sizes[16];
  gsize n_dims;
  g_autoptr (GBytes) data = read_npy (name, sizes, &n_dims);
  g_autoptr (GError) error = NULL;
  ExecutorchTensor *tensor = executorch_tensor_new (EXECUTORCH_SCALAR_TYPE_FLOAT, sizes, n_dims, data, &error);

  g_assert_no_error (error);
  return tensor;
}

gboolean
fixture_tensor_matches (ExecutorchTensor *tensor, const char *name, double rtol, double atol)
{
  gint64 sizes[16];
  gsize n_dims, n_got, got_dims, n_want;
  g_autoptr (GBytes) data = read_npy (name, sizes, &n_dims);
  g_autoptr (GError) error = NULL;
  g_autofree float *got = executorch_tensor_get_floats (tensor, &n_got, &error);
  const gint64 *got_sizes = executorch_tensor_get_sizes (tensor, &got_dims);
  const float *want = g_bytes_get_data (data, &n_want);

  if (got == NULL || got_dims != n_dims || memcmp (got_sizes, sizes, n_dims * sizeof (gint64)) != 0 ||
      n_got * sizeof (float) != n_want)
    return FALSE;
  for (gsize i = 0; i < n_got; i++)
    if (!(fabs ((double) got[i] - want[i]) <= atol + rtol * fabs ((double) want[i])))
      return FALSE;
  return TRUE;
}

gsize
fixture_rss_bytes (void)
{
  g_autofree char *statm = NULL;
  unsigned long size = 0, resident = 0;

  g_assert_true (g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL));
  g_assert_cmpint (sscanf (statm, "%lu %lu", &size, &resident), ==, 2);
  return (gsize) resident * (gsize) sysconf (_SC_PAGESIZE);
}
