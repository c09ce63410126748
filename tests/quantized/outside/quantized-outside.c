/* quantized-outside.c: a program built outside the meson tree
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built by run-outside.py with nothing but
 *     cc quantized-outside.c $(pkg-config --cflags --libs executorch executorch-kernels-quantized)
 * It links the quantized kernel library, hands its descriptor to the
 * registry itself (discovery may find the same file again: that is one
 * library, registered once), runs one method and writes every output's
 * bytes to OUT_PREFIX.<i>.bin, printing their size and FNV-1a hash.
 *
 *     quantized-outside PROGRAM.pte OUT_PREFIX TYPE:D0,D1,...:INPUT.bin ...
 *
 * TYPE is an ExecutorchScalarType number; INPUT.bin holds raw row-major
 * element bytes.
 */
#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#include <executorch.h>
#include <executorch-plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The quantized library's one exported symbol. */
const EtPluginDesc *executorch_kernels_quantized_get_plugin (void);

static guint64
fnv1a (const guint8 *p, gsize n)
{
  guint64 h = 0xcbf29ce484222325ull;
  for (gsize i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static ExecutorchTensor *
parse_input (const char *spec, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (spec, ":", 3);
  g_auto (GStrv) dims = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gint64 sizes[16];
  gsize n_dims = 0;
  char *data;
  gsize length;

  if (g_strv_length (parts) != 3)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "bad input spec %s", spec);
      return NULL;
    }
  dims = g_strsplit (parts[1], ",", -1);
  for (guint i = 0; dims[i] != NULL && dims[i][0] != '\0' && n_dims < 16; i++)
    sizes[n_dims++] = g_ascii_strtoll (dims[i], NULL, 10);
  if (!g_file_get_contents (parts[2], &data, &length, error))
    return NULL;
  bytes = g_bytes_new_take (data, length);
  return executorch_tensor_new ((ExecutorchScalarType) atoi (parts[0]), sizes, n_dims, bytes, error);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program = NULL;
  g_autoptr (ExecutorchMethod) method = NULL;
  g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) outputs = NULL;
  EtErrorContext *registration_error = et_error_context_new ();

  if (argc < 3)
    {
      fprintf (stderr, "usage: %s PROGRAM.pte OUT_PREFIX TYPE:D0,D1,...:INPUT.bin ...\n", argv[0]);
      return 2;
    }
  if (et_registry_add_plugin (executorch_kernels_quantized_get_plugin (), registration_error) != ET_OK)
    {
      fprintf (stderr, "registering the quantized kernels: %s\n", et_error_context_message (registration_error));
      return 1;
    }
  et_error_context_free (registration_error);
  for (int i = 3; i < argc; i++)
    {
      ExecutorchTensor *t = parse_input (argv[i], &error);
      if (t == NULL)
        {
          fprintf (stderr, "%s\n", error->message);
          return 1;
        }
      g_ptr_array_add (inputs, t);
    }
  program = executorch_program_new_from_file (argv[1], &error);
  if (program != NULL)
    method = executorch_program_load_method (program, "forward", &error);
  if (method != NULL)
    outputs = executorch_method_run (method, (ExecutorchTensor **) inputs->pdata, inputs->len, NULL, &error);
  if (outputs == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  for (guint i = 0; i < outputs->len; i++)
    {
      g_autoptr (GBytes) bytes = executorch_tensor_get_bytes (g_ptr_array_index (outputs, i), &error);
      g_autofree char *path = g_strdup_printf ("%s.%u.bin", argv[2], i);
      gsize n;
      const guint8 *p;

      if (bytes == NULL)
        {
          fprintf (stderr, "output %u: %s\n", i, error->message);
          return 1;
        }
      p = g_bytes_get_data (bytes, &n);
      if (!g_file_set_contents (path, (const char *) p, (gssize) n, &error))
        {
          fprintf (stderr, "%s\n", error->message);
          return 1;
        }
      printf ("output %u: %" G_GSIZE_FORMAT " bytes, fnv1a %016" G_GINT64_MODIFIER "x\n", i, n, fnv1a (p, n));
    }
  return 0;
}
