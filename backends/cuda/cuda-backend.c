/* cuda-backend.c: the CudaBackend delegate (AOTInductor model .so files)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A CUDA partition is a compiled model: its processed bytes name two blobs
 * ("<so key>\n<weights key>", or the 1.1-1.3 names built from the
 * method_name compile spec), found in the program's named data or its .ptd
 * files.  init loads the .so and its constants once; execute wraps the
 * delegate's tensors as handles, with no copy when they already live on
 * the GPU (1.4+ programs), and runs the container on the caller's stream
 * or the handle's own.  Programs from 1.1-1.3 plan their delegate tensors
 * in host memory: those are staged through device temporaries here.
 */
#include "cuda-private.h"
#include "model-library.h"

#include <executorch-cuda-stream.h>
#include <string.h>

typedef struct
{
  ModelLibrary *library;
  void *container;
  size_t n_inputs, n_outputs;
  void *stream; /* ours, made on first use */
  /* One execute's input, output and planned-output handles, NULL-ended
   * each; made once at init, since a method runs in one thread at a time. */
  AotiTensor **slots;
} CudaHandle;

#define MAX_MODEL_VALUES (1u << 20)

#define init_fail(context, code, ...) \
  et_error_context_fail (et_backend_init_context_error (context), (code), __VA_ARGS__)
#define exec_fail(context, code, ...) \
  et_error_context_fail (et_backend_execute_context_error (context), (code), __VA_ARGS__)

static const EtCompileSpec *
find_spec (const EtCompileSpec *specs, size_t n_specs, const char *key)
{
  for (size_t i = 0; i < n_specs; i++)
    if (specs[i].key != NULL && strcmp (specs[i].key, key) == 0)
      return &specs[i];
  return NULL;
}

/* The two blob keys, from the processed bytes or the legacy names. */
static EtError
blob_keys (EtBackendInitContext *context, const char *processed, size_t size, const EtCompileSpec *specs,
           size_t n_specs, char **so_key, char **weights_key)
{
  const char *newline;

  if (size == 0)
    {
      const EtCompileSpec *method = find_spec (specs, n_specs, "method_name");
      g_autofree char *prefix = NULL;

      if (method != NULL && method->value_size > 0)
        {
          prefix = g_strndup (method->value, method->value_size);
          if (strlen (prefix) != method->value_size || !g_utf8_validate (prefix, -1, NULL))
            return init_fail (context, ET_ERROR_INVALID_PROGRAM,
                              "CudaBackend: the method_name compile spec is "
                              "not text");
        }
      *so_key = g_strconcat (prefix ? prefix : "", prefix ? "_" : "", "so_blob", NULL);
      *weights_key = g_strconcat (prefix ? prefix : "", prefix ? "_" : "", "weights_blob", NULL);
      return ET_OK;
    }
  newline = memchr (processed, '\n', size);
  if (newline == NULL || newline == processed || newline == processed + size - 1 ||
      memchr (processed, '\0', size) != NULL || !g_utf8_validate (processed, (gssize) size, NULL))
    return init_fail (context, ET_ERROR_INVALID_PROGRAM,
                      "CudaBackend: the delegate's %zu processed bytes are not "
                      "\"<model key>\\n<weights key>\"",
                      size);
  *so_key = g_strndup (processed, (gsize) (newline - processed));
  *weights_key = g_strndup (newline + 1, (gsize) (processed + size - newline - 1));
  return ET_OK;
}

static void
handle_free (CudaHandle *handle)
{
  const CudaDeviceOps *ops = _executorch_cuda_ops ();

  if (handle->container != NULL)
    handle->library->delete_container (handle->container);
  _executorch_model_library_free (handle->library);
  if (handle->stream != NULL && ops != NULL)
    ops->stream_destroy (handle->stream);
  g_free (handle->slots);
  g_free (handle);
}

static EtError
cuda_init (void *user_data, EtBackendInitContext *context, const void *processed, size_t processed_size,
           const EtCompileSpec *specs, size_t n_specs, void **out)
{
  g_autofree char *so_key = NULL, *weights_key = NULL;
  g_autoptr (GError) error = NULL;
  const void *so, *weights;
  size_t so_size, weights_size;
  CudaHandle *handle;
  EtError code;

  if (!et_backend_init_context_allows_native_code (context))
    return init_fail (context, ET_ERROR_NOT_SUPPORTED,
                      "this program carries native code (a compiled CUDA model) that would run with your "
                      "privileges; allow it with executorch_program_set_allow_native_code() "
                      "(executorch-run --allow-native-code)");
  if (_executorch_cuda_ops () == NULL)
    return init_fail (context, ET_ERROR_NOT_SUPPORTED, "CudaBackend: no CUDA device");
  code = blob_keys (context, processed, processed_size, specs, n_specs, &so_key, &weights_key);
  if (code != ET_OK)
    return code;
  if (et_backend_init_context_named_data (context, so_key, &so, &so_size) != ET_OK)
    return init_fail (context, ET_ERROR_NOT_FOUND,
                      "CudaBackend: the model .so \"%s\" is in neither the program "
                      "nor the .ptd files given with it",
                      so_key);

  handle = g_new0 (CudaHandle, 1);
  handle->library = _executorch_model_library_load (so, so_size, &error);
  if (handle->library == NULL)
    {
      g_free (handle);
      return init_fail (context, ET_ERROR_DELEGATE_INVALID_COMPATIBILITY, "CudaBackend: %s", error->message);
    }
  if (handle->library->create_with_device (&handle->container, 1, "cuda", NULL) != 0 || handle->container == NULL)
    {
      handle->container = NULL;
      handle_free (handle);
      return init_fail (context, ET_ERROR_DELEGATE_INVALID_HANDLE,
                        "CudaBackend: the model could not create its "
                        "container (out of device memory, or no GPU it was compiled for)");
    }
  if (handle->library->update_constants_from_blob != NULL)
    {
      if (et_backend_init_context_named_data (context, weights_key, &weights, &weights_size) != ET_OK)
        {
          handle_free (handle);
          return init_fail (context, ET_ERROR_NOT_FOUND,
                            "CudaBackend: the weights \"%s\" are in neither the "
                            "program nor the .ptd files given with it (upstream writes them to "
                            "aoti_cuda_blob.ptd)",
                            weights_key);
        }
      if (handle->library->update_constants_from_blob (handle->container, weights) != 0)
        {
          handle_free (handle);
          return init_fail (context, ET_ERROR_DELEGATE_MEMORY_ALLOCATION_FAILED,
                            "CudaBackend: the model could "
                            "not load its %zu bytes of weights",
                            weights_size);
        }
    }
  if (handle->library->get_num_inputs (handle->container, &handle->n_inputs) != 0 ||
      handle->library->get_num_outputs (handle->container, &handle->n_outputs) != 0)
    {
      handle_free (handle);
      return init_fail (context, ET_ERROR_DELEGATE_INVALID_HANDLE,
                        "CudaBackend: the model does not report its "
                        "inputs and outputs");
    }
  /* A delegate call passes at most UINT32_MAX values; far fewer in practice. */
  if (handle->n_inputs > MAX_MODEL_VALUES || handle->n_outputs > MAX_MODEL_VALUES)
    {
      size_t n_inputs = handle->n_inputs, n_outputs = handle->n_outputs;
      handle_free (handle);
      return init_fail (context, ET_ERROR_DELEGATE_INVALID_HANDLE,
                        "CudaBackend: the model reports %zu inputs and "
                        "%zu outputs (at most %u each)",
                        n_inputs, n_outputs, MAX_MODEL_VALUES);
    }
  handle->slots = g_new0 (AotiTensor *, handle->n_inputs + 2 * handle->n_outputs + 3);
  *out = handle;
  return ET_OK;
}

/* A handle for one delegate tensor: its own memory when that is on the GPU,
 * else (1.1-1.3 layouts) a device temporary, filled for inputs. */
static AotiTensor *
wrap (const CudaDeviceOps *ops, const EtTensor *tensor, bool is_input, void *stream, const char **problem)
{
  AotiTensor *device, *host;

  if (tensor->device_type == ET_DEVICE_CUDA)
    {
      if (tensor->nbytes > 0 && ops->is_device_pointer (tensor->data) != 1)
        {
          *problem = "is planned on the GPU but its memory is host memory";
          return NULL;
        }
      return _aoti_tensor_new_borrowed (tensor->data, tensor->ndim, tensor->sizes, tensor->strides, 0,
                                        tensor->scalar_type, AOTI_DEVICE_CUDA, tensor->device_index);
    }
  if (tensor->device_type != ET_DEVICE_CPU)
    {
      *problem = "lives on a device this backend does not drive";
      return NULL;
    }
  device = _aoti_tensor_new_empty (tensor->ndim, tensor->sizes, tensor->strides, tensor->scalar_type, AOTI_DEVICE_CUDA,
                                   0, stream);
  if (device == NULL)
    {
      *problem = "could not get device memory";
      return NULL;
    }
  if (is_input)
    {
      host = _aoti_tensor_new_borrowed (tensor->data, tensor->ndim, tensor->sizes, tensor->strides, 0,
                                        tensor->scalar_type, AOTI_DEVICE_CPU, 0);
      if (host == NULL || _aoti_tensor_copy (device, host, stream) != 0)
        {
          _aoti_tensor_free (host);
          _aoti_tensor_free (device);
          *problem = "could not be copied to the GPU";
          return NULL;
        }
      _aoti_tensor_free (host);
    }
  return device;
}

/* Moves what the model produced into the ExecuTorch output. */
static EtError
collect (EtBackendExecuteContext *context, EtTensor *tensor, AotiTensor *produced, uint32_t index, void *stream)
{
  AotiTensor *target;
  EtError code = ET_OK;

  if (produced->ndim != tensor->ndim || produced->dtype != tensor->scalar_type ||
      et_tensor_resize (tensor, tensor->ndim, produced->sizes) != ET_OK)
    return exec_fail (context, ET_ERROR_INVALID_STATE,
                      "CudaBackend: output %u came back as a %" G_GINT64_FORMAT
                      "-dim %s tensor that does not fit the planned one",
                      index, produced->ndim, et_scalar_type_name (produced->dtype));
  target =
      _aoti_tensor_new_borrowed (tensor->data, tensor->ndim, tensor->sizes, tensor->strides, 0, tensor->scalar_type,
                                 tensor->device_type == ET_DEVICE_CUDA ? AOTI_DEVICE_CUDA : AOTI_DEVICE_CPU,
                                 tensor->device_index);
  if (target == NULL || _aoti_tensor_copy (target, produced, stream) != 0)
    code = exec_fail (context, ET_ERROR_INTERNAL, "CudaBackend: output %u could not be copied out", index);
  _aoti_tensor_free (target);
  return code;
}

static EtError
cuda_execute (void *user_data, EtBackendExecuteContext *context, void *opaque, EtValue **args, uint32_t n_args)
{
  CudaHandle *handle = opaque;
  const CudaDeviceOps *ops = _executorch_cuda_ops ();
  AotiTensor **inputs, **outputs, **planned;
  ExecutorchCudaStream caller;
  bool caller_stream, host_outputs = false;
  void *stream, *previous;
  const char *problem = NULL;
  EtError code = ET_OK;
  uint32_t failed_at = 0;

  if (n_args != handle->n_inputs + handle->n_outputs)
    return exec_fail (context, ET_ERROR_INVALID_PROGRAM,
                      "CudaBackend: the model takes %zu inputs and %zu outputs, "
                      "the delegate call passes %u values",
                      handle->n_inputs, handle->n_outputs, n_args);
  for (uint32_t i = 0; i < n_args; i++)
    if (args[i] == NULL || args[i]->tag != ET_VALUE_TENSOR || args[i]->u.tensor == NULL)
      return exec_fail (context, ET_ERROR_INVALID_PROGRAM, "CudaBackend: argument %u is not a tensor", i);

  caller_stream = executorch_cuda_stream_get_caller (&caller);
  if (caller_stream)
    stream = caller;
  else
    {
      if (handle->stream == NULL && ops->stream_create (&handle->stream) != 0)
        return exec_fail (context, ET_ERROR_OUT_OF_RESOURCES, "CudaBackend: cannot create a CUDA stream");
      stream = handle->stream;
    }
  previous = _aoti_swap_current_stream (stream);

  inputs = handle->slots;
  outputs = inputs + handle->n_inputs + 1;
  planned = outputs + handle->n_outputs + 1;
  memset (handle->slots, 0, (handle->n_inputs + 2 * handle->n_outputs + 3) * sizeof *handle->slots);
  for (uint32_t i = 0; i < n_args && problem == NULL; i++)
    {
      bool is_input = i < handle->n_inputs;
      AotiTensor *wrapped = wrap (ops, args[i]->u.tensor, is_input, stream, &problem);
      failed_at = i;
      if (wrapped == NULL)
        {
          problem = problem != NULL ? problem : "could not be wrapped";
          break;
        }
      if (is_input)
        inputs[i] = wrapped;
      else
        {
          outputs[i - handle->n_inputs] = planned[i - handle->n_inputs] = wrapped;
          host_outputs |= args[i]->u.tensor->device_type == ET_DEVICE_CPU;
        }
    }
  if (problem != NULL)
    {
      code = exec_fail (context, ET_ERROR_INVALID_ARGUMENT, "CudaBackend: %s %u %s",
                        failed_at < handle->n_inputs ? "input" : "output",
                        failed_at < handle->n_inputs ? failed_at : failed_at - (uint32_t) handle->n_inputs, problem);
      for (size_t i = 0; i < handle->n_inputs; i++)
        _aoti_tensor_free (inputs[i]);
      for (size_t i = 0; i < handle->n_outputs; i++)
        _aoti_tensor_free (planned[i]);
      _aoti_swap_current_stream (previous);
      return code;
    }

  /* Run takes the input handles (the model deletes them) and may replace
   * each output handle with one of its own. */
  if (handle->library->run (handle->container, inputs, handle->n_inputs, outputs, handle->n_outputs, stream, NULL) != 0)
    code = exec_fail (context, ET_ERROR_INTERNAL, "CudaBackend: the model failed while running");
  for (size_t j = 0; j < handle->n_outputs; j++)
    {
      EtTensor *tensor = args[handle->n_inputs + j]->u.tensor;
      bool in_place = outputs[j] == planned[j] && tensor->device_type == ET_DEVICE_CUDA;

      if (code == ET_OK && !in_place && outputs[j] != NULL)
        code = collect (context, tensor, outputs[j], (uint32_t) j, stream);
      if (outputs[j] != planned[j])
        _aoti_tensor_free (outputs[j]);
      _aoti_tensor_free (planned[j]);
    }
  /* Host outputs are read as soon as we return; a caller's stream may not
   * be ordered with the copies that follow. */
  if (code == ET_OK && (host_outputs || caller_stream) && ops->stream_synchronize (stream) != 0)
    code = exec_fail (context, ET_ERROR_INTERNAL, "CudaBackend: the GPU reported an error while running the model");
  _aoti_swap_current_stream (previous);
  return code;
}

static void
cuda_destroy (void *user_data, void *opaque)
{
  if (opaque != NULL)
    handle_free (opaque);
}

const EtBackend _executorch_cuda_backend = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .id = "CudaBackend",
  .init = cuda_init,
  .execute = cuda_execute,
  .destroy = cuda_destroy,
};
