/* fake-aoti-model.c: a stand-in for an AOTInductor-compiled model .so,
 * written by us for the CPU-side tests of the CUDA backend (test only)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * It exports the container API and drives the host functions the way
 * generated code does: constants as views made by
 * create_tensor_from_blob_v2, a stream guard around the run, inputs
 * stolen (deleted) by the run, outputs from empty_strided replacing the
 * caller's handles, a reinterpret view on the way.  The model computes
 * relu(x @ W.T + b) with W 3x4 and b 3, the weights blob being W then b.
 * The "GPU" is host memory in these tests, so plain loops stand in for
 * kernels.  FAKE_AOTI_FAIL=run makes the run fail on purpose.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void *AtenTensorHandle;

/* The host functions, resolved from the process at load time. */
extern int32_t aoti_torch_create_tensor_from_blob_v2 (void *, int64_t, const int64_t *, const int64_t *, int64_t,
                                                      int32_t, int32_t, int32_t, AtenTensorHandle *, int32_t,
                                                      const uint8_t *, int64_t);
extern int32_t aoti_torch_empty_strided (int64_t, const int64_t *, const int64_t *, int32_t, int32_t, int32_t,
                                         AtenTensorHandle *);
extern int32_t aoti_torch_delete_tensor_object (AtenTensorHandle);
extern int32_t aoti_torch_get_data_ptr (AtenTensorHandle, void **);
extern int32_t aoti_torch_get_sizes (AtenTensorHandle, int64_t **);
extern int32_t aoti_torch_get_dim (AtenTensorHandle, int64_t *);
extern int32_t aoti_torch_get_dtype (AtenTensorHandle, int32_t *);
extern int32_t aoti_torch_get_device_type (AtenTensorHandle, int32_t *);
extern int32_t aoti_torch__reinterpret_tensor (AtenTensorHandle, int64_t, const int64_t *, const int64_t *, int64_t,
                                               AtenTensorHandle *);
extern int32_t aoti_torch_create_cuda_stream_guard (void *, int32_t, void **);
extern int32_t aoti_torch_delete_cuda_stream_guard (void *);
extern int32_t aoti_torch_get_current_cuda_stream (int32_t, void **);
extern int32_t aoti_torch_dtype_float32 (void);
extern int32_t aoti_torch_device_type_cuda (void);
extern bool aoti_torch_grad_mode_is_enabled (void);
#ifdef FAKE_EXTRA_IMPORT
/* A host function no runtime has: the import check must name it. */
extern int32_t aoti_torch_made_up_function (void);
#endif

#define EXPORT __attribute__ ((visibility ("default")))

typedef struct
{
  float weights[15];
  AtenTensorHandle w, b;
  bool constants_loaded;
} Container;

EXPORT int32_t
AOTInductorModelContainerCreateWithDevice (void **out, size_t n_models, const char *device, const char *cubin_dir)
{
  if (n_models != 1 || device == NULL || strncmp (device, "cuda", 4) != 0)
    return 1;
  *out = calloc (1, sizeof (Container));
  return *out != NULL ? 0 : 1;
}

EXPORT int32_t
AOTInductorModelContainerDelete (void *opaque)
{
  Container *container = opaque;
  if (container->w != NULL)
    aoti_torch_delete_tensor_object (container->w);
  if (container->b != NULL)
    aoti_torch_delete_tensor_object (container->b);
  free (container);
  return 0;
}

EXPORT int32_t
AOTInductorModelContainerGetNumInputs (void *container, size_t *n)
{
  *n = 1;
  return 0;
}

EXPORT int32_t
AOTInductorModelContainerGetNumOutputs (void *container, size_t *n)
{
  *n = 1;
  return 0;
}

EXPORT int32_t
AOTInductorModelUpdateConstantsFromBlob (void *opaque, const uint8_t *blob)
{
  Container *container = opaque;
  static const int64_t w_sizes[] = { 3, 4 }, w_strides[] = { 4, 1 }, b_sizes[] = { 3 }, b_strides[] = { 1 };

  memcpy (container->weights, blob, sizeof container->weights);
  if (aoti_torch_create_tensor_from_blob_v2 (container->weights, 2, w_sizes, w_strides, 0, aoti_torch_dtype_float32 (),
                                             aoti_torch_device_type_cuda (), 0, &container->w, 0, NULL, 0) != 0 ||
      aoti_torch_create_tensor_from_blob_v2 (container->weights, 1, b_sizes, b_strides, 12, aoti_torch_dtype_float32 (),
                                             aoti_torch_device_type_cuda (), 0, &container->b, 0, NULL, 0) != 0)
    return 1;
  container->constants_loaded = true;
  return 0;
}

EXPORT int32_t
AOTInductorModelContainerRun (void *opaque, AtenTensorHandle *inputs, size_t n_inputs, AtenTensorHandle *outputs,
                              size_t n_outputs, void *stream, void *proxy)
{
  Container *container = opaque;
  static const int64_t out_sizes[] = { 2, 3 }, out_strides[] = { 3, 1 };
  int64_t *sizes, dim;
  int32_t dtype, device;
  float *x, *w, *b, *y;
  AtenTensorHandle out, view;
  void *guard, *current;
  int32_t status = 1;

  if (n_inputs != 1 || n_outputs != 1 || !container->constants_loaded || aoti_torch_grad_mode_is_enabled ())
    return 1;
  if (aoti_torch_create_cuda_stream_guard (stream, 0, &guard) != 0)
    return 1;
  /* Generated code allocates on the current stream: it must be ours. */
  if (aoti_torch_get_current_cuda_stream (0, &current) != 0 || current != stream)
    goto out;
  if (aoti_torch_get_dim (inputs[0], &dim) != 0 || dim != 2 || aoti_torch_get_sizes (inputs[0], &sizes) != 0 ||
      sizes[0] != 2 || sizes[1] != 4 || aoti_torch_get_dtype (inputs[0], &dtype) != 0 ||
      dtype != aoti_torch_dtype_float32 () || aoti_torch_get_device_type (inputs[0], &device) != 0 ||
      device != aoti_torch_device_type_cuda ())
    goto out;
#ifdef FAKE_EXTRA_IMPORT
  if (aoti_torch_made_up_function () != 0)
    goto out;
#endif
  if (getenv ("FAKE_AOTI_FAIL") != NULL && strcmp (getenv ("FAKE_AOTI_FAIL"), "run") == 0)
    goto out;
  if (aoti_torch_empty_strided (2, out_sizes, out_strides, dtype, device, 0, &out) != 0)
    goto out;
  /* A flat view of the output, as reshapes in generated code make. */
  if (aoti_torch__reinterpret_tensor (out, 1, (const int64_t[]){ 6 }, (const int64_t[]){ 1 }, 0, &view) != 0)
    goto out;
  aoti_torch_get_data_ptr (inputs[0], (void **) &x);
  aoti_torch_get_data_ptr (container->w, (void **) &w);
  aoti_torch_get_data_ptr (container->b, (void **) &b);
  aoti_torch_get_data_ptr (view, (void **) &y);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      {
        float sum = b[j];
        for (int k = 0; k < 4; k++)
          sum += x[i * 4 + k] * w[j * 4 + k];
        y[i * 3 + j] = sum > 0 ? sum : 0;
      }
  aoti_torch_delete_tensor_object (view);
  outputs[0] = out;
  status = 0;
out:
  /* The run owns its inputs, whatever happens. */
  aoti_torch_delete_tensor_object (inputs[0]);
  aoti_torch_delete_cuda_stream_guard (guard);
  return status;
}
