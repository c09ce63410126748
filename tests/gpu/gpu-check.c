/* gpu-check.c: runs a CUDA program through libexecutorch on a real GPU,
 * with the input already in device memory and the work on a stream of
 * the caller's, and compares the output with the eager reference
 *
 *   gpu-check MODEL.pte DATA.ptd IN.npy EXPECTED.npy
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <cuda_runtime_api.h>
#include <executorch.h>
#include <executorch-cuda-stream.h>
#include <math.h>
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

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();
  gsize n_in, n_want, n_got;
  g_autofree float *in = NULL, *want = NULL, *got = NULL;
  ExecutorchCudaStreamScope scope;
  cudaStream_t stream;
  double worst = 0;

  if (argc != 5)
    return g_printerr ("usage: gpu-check MODEL.pte DATA.ptd IN.npy EXPECTED.npy\n"), 2;
  in = read_npy (argv[3], &n_in);
  want = read_npy (argv[4], &n_want);
  g_ptr_array_add (paths, argv[2]);
  g_ptr_array_add (paths, NULL);
  g_autoptr (ExecutorchProgram) program =
    g_initable_new (EXECUTORCH_TYPE_PROGRAM, NULL, &error, "path", argv[1], "data-paths", paths->pdata,
                    "allow-native-code", TRUE, NULL);
  if (program == NULL)
    return g_printerr ("load: %s\n", error->message), 1;
  g_autoptr (ExecutorchMethod) method = executorch_program_load_method (program, "forward", &error);
  if (method == NULL)
    return g_printerr ("method: %s\n", error->message), 1;
  ExecutorchMethodInfo *info = executorch_method_get_info (method);
  ExecutorchValueInfo *input_info = executorch_method_info_get_input (info, 0);
  gsize n_dims;
  const gint64 *sizes = executorch_value_info_get_sizes (input_info, &n_dims);
  g_autoptr (ExecutorchTensor) host = executorch_tensor_new_from_floats (sizes, n_dims, in, n_in, &error);
  g_autoptr (ExecutorchDevice) cuda = executorch_device_new (EXECUTORCH_DEVICE_TYPE_CUDA, 0);
  /* The input already on the GPU: no host copy on the way in. */
  g_autoptr (ExecutorchTensor) input = host ? executorch_tensor_to_device (host, cuda, &error) : NULL;
  if (input == NULL)
    return g_printerr ("input: %s\n", error->message), 1;

  if (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking) != cudaSuccess)
    return g_printerr ("cannot create a stream\n"), 1;
  executorch_cuda_stream_scope_enter (&scope, (ExecutorchCudaStream) stream);
  gboolean ok = executorch_method_set_input (method, 0, input, &error) &&
                executorch_method_execute (method, NULL, &error);
  executorch_cuda_stream_scope_leave (&scope);
  if (!ok)
    return g_printerr ("run: %s\n", error->message), 1;
  g_autoptr (ExecutorchTensor) output = executorch_method_get_output (method, 0, &error);
  got = output ? executorch_tensor_get_floats (output, &n_got, &error) : NULL;
  if (got == NULL || n_got != n_want)
    return g_printerr ("output: %s\n", error ? error->message : "wrong size"), 1;
  for (gsize i = 0; i < n_got; i++)
    worst = MAX (worst, fabs ((double) got[i] - want[i]) / (1e-3 + fabs (want[i])));
  g_print ("%s: %zu outputs, worst relative error %.2e (caller stream, device input)\n", argv[1], n_got, worst);
  cudaStreamDestroy (stream);
  return worst <= 1e-2 ? 0 : 1;
}
