/* gpu-check.c: runs a CUDA program through libexecutorch on a real GPU,
 * with the input already in device memory and the work on a stream of
 * the caller's, and compares the output with the eager reference; with
 * two models, also loads both at once and unloads one while the other runs
 *
 *   gpu-check MODEL.pte DATA.ptd IN.npy EXPECTED.npy [MODEL2 DATA2 IN2 EXPECTED2]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <cuda_runtime_api.h>
#include <executorch.h>
#include <executorch-cuda-stream.h>
#include <math.h>
#include <gio/gio.h>
#include <string.h>

static float *
read_npy (const char *path, gsize *count)
{
  g_autoptr (GError) error = NULL;
  char *data;
  gsize size, header;

  if (!g_file_get_contents (path, &data, &size, &error) || size < 10)
    g_error ("%s: %s", path, error ? error->message : "too short");
  header = 10 + ((guint8) data[8] | ((guint8) data[9] << 8));
  *count = (size - header) / 4;
  float *values = g_memdup2 (data + header, *count * 4);
  g_free (data);
  return values;
}

typedef struct
{
  ExecutorchProgram *program;
  ExecutorchMethod *method;
} Loaded;

static gboolean
load (const char *pte, const char *ptd, Loaded *loaded, GError **error)
{
  const char *paths[] = { ptd, NULL };

  loaded->program = g_initable_new (EXECUTORCH_TYPE_PROGRAM, NULL, error, "path", pte, "data-paths", paths,
                                    "allow-native-code", TRUE, NULL);
  if (loaded->program == NULL)
    return FALSE;
  loaded->method = executorch_program_load_method (loaded->program, "forward", error);
  return loaded->method != NULL;
}

static void
unload (Loaded *loaded)
{
  g_clear_object (&loaded->method);
  g_clear_object (&loaded->program);
}

/* Runs @loaded on IN.npy (copied to the GPU first) on a stream of ours and
 * returns the worst relative error against EXPECTED.npy, or -1. */
static double
run_and_compare (Loaded *loaded, const char *in_path, const char *expected_path, GError **error)
{
  gsize n_in, n_want, n_got, n_dims;
  g_autofree float *in = read_npy (in_path, &n_in);
  g_autofree float *want = read_npy (expected_path, &n_want);
  g_autofree float *got = NULL;
  ExecutorchCudaStreamScope scope;
  cudaStream_t stream;
  double worst = 0;

  ExecutorchMethodInfo *info = executorch_method_get_info (loaded->method);
  ExecutorchValueInfo *input_info = executorch_method_info_get_input (info, 0);
  const gint64 *sizes = executorch_value_info_get_sizes (input_info, &n_dims);
  g_autoptr (ExecutorchTensor) host = executorch_tensor_new_from_floats (sizes, n_dims, in, n_in, error);
  g_autoptr (ExecutorchDevice) cuda = executorch_device_new (EXECUTORCH_DEVICE_TYPE_CUDA, 0);
  /* The input already on the GPU: no host copy on the way in. */
  g_autoptr (ExecutorchTensor) input = host ? executorch_tensor_to_device (host, cuda, error) : NULL;
  if (input == NULL)
    return -1;
  if (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking) != cudaSuccess)
    return g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot create a stream"), -1;
  executorch_cuda_stream_scope_enter (&scope, (ExecutorchCudaStream) stream);
  gboolean ok = executorch_method_set_input (loaded->method, 0, input, error) &&
                executorch_method_execute (loaded->method, NULL, error);
  executorch_cuda_stream_scope_leave (&scope);
  g_autoptr (ExecutorchTensor) output = ok ? executorch_method_get_output (loaded->method, 0, error) : NULL;
  got = output ? executorch_tensor_get_floats (output, &n_got, error) : NULL;
  cudaStreamDestroy (stream);
  if (got == NULL)
    return -1;
  if (n_got != n_want)
    return g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%zu outputs, expected %zu", n_got, n_want), -1;
  for (gsize i = 0; i < n_got; i++)
    worst = MAX (worst, fabs ((double) got[i] - want[i]) / (1e-3 + fabs (want[i])));
  return worst;
}

static gboolean
check (Loaded *loaded, char **model, const char *when)
{
  g_autoptr (GError) error = NULL;
  double worst = run_and_compare (loaded, model[2], model[3], &error);

  if (worst < 0)
    return g_printerr ("%s, %s: %s\n", model[0], when, error->message), FALSE;
  g_print ("%s, %s: worst relative error %.2e (caller stream, device input)\n", model[0], when, worst);
  return worst <= 1e-2;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  Loaded first = { 0 }, second = { 0 };
  char **a = argv + 1, **b = argv + 5;

  if (argc != 5 && argc != 9)
    return g_printerr ("usage: gpu-check MODEL.pte DATA.ptd IN.npy EXPECTED.npy "
                       "[MODEL2.pte DATA2.ptd IN2.npy EXPECTED2.npy]\n"),
           2;
  if (!load (a[0], a[1], &first, &error))
    return g_printerr ("%s: %s\n", a[0], error->message), 1;
  if (!check (&first, a, "alone"))
    return 1;
  if (argc == 5)
    return unload (&first), 0;

  /* Two AOTInductor containers from two model libraries in one process;
   * unloading one (its ContainerDelete, dlclose) must leave the other
   * working, and loading it again must work too. */
  if (!load (b[0], b[1], &second, &error))
    return g_printerr ("%s: %s\n", b[0], error->message), 1;
  if (!check (&second, b, "beside the first") || !check (&first, a, "beside the second"))
    return 1;
  unload (&first);
  if (!check (&second, b, "after the first was unloaded"))
    return 1;
  if (!load (a[0], a[1], &first, &error))
    return g_printerr ("%s, loaded again: %s\n", a[0], error->message), 1;
  gboolean ok = check (&first, a, "loaded again") && check (&second, b, "at the end");
  unload (&first);
  unload (&second);
  return ok ? 0 : 1;
}
