/* app.c: a C application built outside the source tree against the
 * installed libexecutorch packages only (tests/install/check-installed).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: app MODEL.pte INPUT.npy EXPECTED.npy [RTOL ATOL]
 *
 * It links libexecutorch and the plug-in libraries named by -DAPP_PLUGINS
 * (their descriptor functions, e.g. executorch_kernels_get_plugin) and hands
 * those to the registry itself, so that it runs with discovery switched off
 * (EXECUTORCH_MODULE_SYSTEM_PATH="") as well as with it on; then it runs
 * "forward" on INPUT and compares output 0 with EXPECTED (float32 .npy).
 */
#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#include <executorch/executorch.h>
#include <executorch/executorch-plugin.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef APP_PLUGINS
#define APP_PLUGINS X (executorch_kernels_get_plugin)
#endif

#define X(entry) extern const EtPluginDesc *entry (void);
APP_PLUGINS
#undef X

/* A little-endian float32 C-order .npy file. */
static float *
read_npy (const char *path, gint64 *sizes, gsize *n_dims, gsize *n_values, GError **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  if (length < 10 || memcmp (contents, "\x93NUMPY", 6) != 0)
    return g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not a .npy file", path), NULL;
  gsize header_len = (guchar) contents[8] | ((guchar) contents[9] << 8);
  if (10 + header_len > length)
    return g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: truncated", path), NULL;
  g_autofree char *header = g_strndup (contents + 10, header_len);
  if (strstr (header, "'<f4'") == NULL || strstr (header, "'fortran_order': False") == NULL)
    return g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: not C-order float32", path), NULL;
  const char *shape = strstr (header, "'shape': (");
  if (shape == NULL)
    return g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no shape", path), NULL;
  shape += strlen ("'shape': (");
  gsize numel = 1;
  *n_dims = 0;
  while (*shape != ')' && *n_dims < 16)
    {
      char *end;
      gint64 size = g_ascii_strtoll (shape, &end, 10);
      if (end == shape)
        break;
      sizes[(*n_dims)++] = size;
      numel *= size;
      shape = end;
      while (*shape == ',' || *shape == ' ')
        shape++;
    }
  if ((length - 10 - header_len) != numel * sizeof (float))
    return g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: %zu data bytes for %zu values", path,
                        length - 10 - header_len, numel),
           NULL;
  *n_values = numel;
  return g_memdup2 (contents + 10 + header_len, numel * sizeof (float));
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  if (argc != 4 && argc != 6)
    return fprintf (stderr, "usage: %s MODEL.pte INPUT.npy EXPECTED.npy [RTOL ATOL]\n", argv[0]), 2;
  double rtol = argc == 6 ? g_ascii_strtod (argv[4], NULL) : 1e-5;
  double atol = argc == 6 ? g_ascii_strtod (argv[5], NULL) : 1e-6;

  /* The plug-ins this program links: registered once each, whether or not
   * discovery also finds them. */
  const EtPluginDesc *linked[] = {
#define X(entry) entry (),
    APP_PLUGINS
#undef X
  };
  for (gsize i = 0; i < G_N_ELEMENTS (linked); i++)
    {
      EtErrorContext *plugin_error = et_error_context_new ();
      if (et_registry_add_plugin (linked[i], plugin_error) != ET_OK)
        return fprintf (stderr, "app: plug-in %s: %s\n", linked[i]->name, et_error_context_message (plugin_error)), 1;
      et_error_context_free (plugin_error);
      printf ("linked plug-in %s %s (%s)\n", linked[i]->name, linked[i]->version, linked[i]->package);
    }

  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (argv[1], &error);
  if (program == NULL)
    return fprintf (stderr, "app: %s\n", error->message), 1;
  g_autoptr (ExecutorchMethod) method = executorch_program_load_method (program, "forward", &error);
  if (method == NULL)
    return fprintf (stderr, "app: %s\n", error->message), 1;

  gint64 sizes[16], expected_sizes[16];
  gsize n_dims, n_values, expected_n_dims, expected_n_values;
  g_autofree float *values = read_npy (argv[2], sizes, &n_dims, &n_values, &error);
  if (values == NULL)
    return fprintf (stderr, "app: %s\n", error->message), 1;
  g_autofree float *expected = read_npy (argv[3], expected_sizes, &expected_n_dims, &expected_n_values, &error);
  if (expected == NULL)
    return fprintf (stderr, "app: %s\n", error->message), 1;

  g_autoptr (ExecutorchTensor) input = executorch_tensor_new_from_floats (sizes, n_dims, values, n_values, &error);
  if (input == NULL)
    return fprintf (stderr, "app: %s\n", error->message), 1;
  ExecutorchTensor *inputs[] = { input };
  g_autoptr (GPtrArray) outputs = executorch_method_run (method, inputs, 1, NULL, &error);
  if (outputs == NULL)
    return fprintf (stderr, "app: %s\n", error->message), 1;

  gsize out_dims;
  const gint64 *out_sizes = executorch_tensor_get_sizes (g_ptr_array_index (outputs, 0), &out_dims);
  if (out_dims != expected_n_dims || memcmp (out_sizes, expected_sizes, out_dims * sizeof (gint64)) != 0)
    return fprintf (stderr, "app: output 0 has the wrong shape\n"), 1;
  gsize n_out;
  g_autofree float *out = executorch_tensor_get_floats (g_ptr_array_index (outputs, 0), &n_out, &error);
  if (out == NULL)
    return fprintf (stderr, "app: %s\n", error->message), 1;
  if (n_out != expected_n_values)
    return fprintf (stderr, "app: %zu output values, expected %zu\n", n_out, expected_n_values), 1;
  for (gsize i = 0; i < n_out; i++)
    if (!(fabs ((double) out[i] - expected[i]) <= atol + rtol * fabs ((double) expected[i])))
      return fprintf (stderr, "app: output 0[%zu] = %.9g, expected %.9g\n", i, out[i], expected[i]), 1;

  g_auto (GStrv) plugins = executorch_list_plugins ();
  g_autofree char *plugin_list = g_strjoinv (",", plugins);
  printf ("outputs match: %zu values (runtime %s; plug-ins %s)\n", n_out, executorch_get_version (), plugin_list);
  return 0;
}
