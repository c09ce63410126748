/* test-device.c: copies between devices are routed through the allocator registry
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A fake CUDA allocator backed by host memory (fake-cuda-allocator.c) counts
 * every call, so the routing is proven without a GPU.  Links the engine
 * statically.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

#include "executorch-error.h"
#include "fake-cuda-allocator.h"

/* aten::add.out(self, other, *, alpha, out): the fake device is host
 * memory, so a CPU loop can stand in for a device kernel. */
static EtError
fake_device_add (EtKernelContext *context, EtValue **args, uint32_t n_args)
{
  const EtTensor *a = args[0]->u.tensor, *b = args[1]->u.tensor;
  EtTensor *out = args[n_args - 1]->u.tensor;

  if (out->device_type != ET_DEVICE_CUDA || a->numel != out->numel || b->numel != out->numel)
    return ET_ERROR_INVALID_ARGUMENT;
  for (int64_t i = 0; i < out->numel; i++)
    ((float *) out->data)[i] = ((const float *) a->data)[i] + ((const float *) b->data)[i];
  return ET_OK;
}

static EtProgram *
load_device_planned (void)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, "device_planned", "device_planned.pte", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  char *contents;
  gsize length;
  EtProgram *program;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  bytes = g_bytes_new_take (contents, length);
  program = _et_program_load (bytes, NULL, 0, &error);
  g_assert_no_error (error);
  return program;
}

static void
test_no_allocator (void)
{
  EtProgram *program = load_device_planned ();
  const EtMethodMeta *meta = _et_program_method_meta (program, "forward", NULL);
  g_autoptr (GError) load_error = NULL;

  /* The plan puts buffer 0 on cuda:0; without an allocator the load names it. */
  g_assert_cmpint (meta->buffer_device_types[0], ==, ET_DEVICE_CUDA);
  g_assert_null (_et_method_load (program, "forward", &load_error));
  g_assert_error (load_error, EXECUTORCH_ERROR, ET_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (load_error->message, "cuda"));
  _et_program_unref (program);
}

static void
test_planned_on_device (void)
{
  EtProgram *program = load_device_planned ();
  g_autoptr (GError) error = NULL;
  int64_t sizes[2] = { 2, 3 };
  float a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 10, 20, 30, 40, 50, 60 }, sum[6];
  const EtValue *output;
  EtMethod *method;

  static const EtKernel add = { "aten::add.out", fake_device_add, NULL };

  g_assert_cmpint (et_registry_add_kernels (et_registry_get_default (), &add, 1, NULL), ==, ET_OK);
  memset (&fake_cuda_counts, 0, sizeof fake_cuda_counts);
  method = _et_method_load (program, "forward", &error);
  g_assert_no_error (error);
  /* One planned buffer, allocated through the fake allocator. */
  g_assert_cmpuint (fake_cuda_counts.allocate, ==, 1);
  g_assert_cmpint (fake_cuda_counts.last_index, ==, 0);
  /* Host inputs into device-planned memory go through the allocator's
   * host-to-device copy, never a host memcpy. */
  g_assert_true (_et_method_set_input_tensor (method, 0, ET_SCALAR_FLOAT, 2, sizes, a, sizeof a, &error));
  g_assert_true (_et_method_set_input_tensor (method, 1, ET_SCALAR_FLOAT, 2, sizes, b, sizeof b, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fake_cuda_counts.h2d, ==, 2);
  g_assert_true (_et_method_execute (method, NULL, &error));
  g_assert_no_error (error);
  /* The output stays on the device; reading it is a device-to-host copy. */
  output = _et_method_output (method, 0);
  g_assert_cmpint (output->u.tensor->device_type, ==, ET_DEVICE_CUDA);
  g_assert_true (_et_device_copy (ET_DEVICE_CPU, 0, sum, output->u.tensor->device_type, 0, output->u.tensor->data,
                                  sizeof sum, &error));
  g_assert_cmpuint (fake_cuda_counts.d2h, ==, 1);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat (sum[i], ==, a[i] + b[i]);

  /* An unplanned input would be read in place: it must already be on the
   * device the program expects (here the inputs are planned, so a device
   * source is copied device to device, which this allocator lacks). */
  {
    EtInput from_device = { .scalar_type = ET_SCALAR_FLOAT,
                            .ndim = 2,
                            .sizes = sizes,
                            .data = a,
                            .nbytes = sizeof a,
                            .device_type = ET_DEVICE_CUDA };
    g_assert_false (_et_method_bind_input (method, 0, &from_device, &error));
  }
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "input 0 of method forward"));
  _et_method_free (method);
  g_assert_cmpuint (fake_cuda_counts.deallocate, ==, 1);
  _et_program_unref (program);
}

static void
test_no_allocator_copy (void)
{
  g_autoptr (GError) error = NULL;
  char host[8] = "abcdefg", device[8];

  /* Host to host never needs an allocator. */
  g_assert_true (_et_device_copy (ET_DEVICE_CPU, 0, device, ET_DEVICE_CPU, 0, host, 8, &error));
  g_assert_cmpmem (device, 8, host, 8);
  g_assert_false (_et_device_copy (ET_DEVICE_CUDA, 0, device, ET_DEVICE_CPU, 0, host, 8, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (_et_device_alloc (ET_DEVICE_CUDA, 0, 16, 64, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_NOT_FOUND);
}

static void
test_routing (void)
{
  g_autoptr (GError) error = NULL;
  char host[16] = "0123456789abcde", back[16] = { 0 };
  void *device;

  g_assert_cmpint (et_registry_add_device_allocator (et_registry_get_default (), &fake_cuda_allocator, NULL), ==,
                   ET_OK);
  /* A second allocator for the same type names both owners. */
  {
    EtErrorContext *twice = et_error_context_new ();
    g_assert_cmpint (et_registry_add_device_allocator (et_registry_get_default (), &fake_cuda_allocator, twice), ==,
                     ET_ERROR_REGISTRATION_ALREADY_REGISTERED);
    g_assert_cmpint (et_error_context_code (twice), ==, ET_ERROR_REGISTRATION_ALREADY_REGISTERED);
    g_assert_nonnull (strstr (et_error_context_message (twice), "cuda"));
    et_error_context_free (twice);
  }

  memset (&fake_cuda_counts, 0, sizeof fake_cuda_counts);
  device = _et_device_alloc (ET_DEVICE_CUDA, 1, 16, 64, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fake_cuda_counts.allocate, ==, 1);
  g_assert_cmpint (fake_cuda_counts.last_index, ==, 1);

  g_assert_true (_et_device_copy (ET_DEVICE_CUDA, 1, device, ET_DEVICE_CPU, 0, host, 16, &error));
  g_assert_true (_et_device_copy (ET_DEVICE_CPU, 0, back, ET_DEVICE_CUDA, 1, device, 16, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fake_cuda_counts.h2d, ==, 1);
  g_assert_cmpuint (fake_cuda_counts.d2h, ==, 1);
  g_assert_cmpmem (back, 16, host, 16);

  /* Host to host still bypasses the allocator. */
  g_assert_true (_et_device_copy (ET_DEVICE_CPU, 0, back, ET_DEVICE_CPU, 0, host, 16, &error));
  g_assert_cmpuint (fake_cuda_counts.h2d + fake_cuda_counts.d2h, ==, 2);

  /* Zero bytes is accepted and calls nothing. */
  g_assert_true (_et_device_copy (ET_DEVICE_CUDA, 0, device, ET_DEVICE_CPU, 0, host, 0, &error));
  g_assert_cmpuint (fake_cuda_counts.h2d, ==, 1);

  /* Device to device is optional for an allocator. */
  g_assert_false (_et_device_copy (ET_DEVICE_CUDA, 0, device, ET_DEVICE_CUDA, 1, device, 16, &error));
  g_assert_error (error, EXECUTORCH_ERROR, ET_ERROR_NOT_SUPPORTED);

  _et_device_free (ET_DEVICE_CUDA, 1, device);
  g_assert_cmpuint (fake_cuda_counts.deallocate, ==, 1);
  {
    g_auto (GStrv) types = _et_registry_list_device_types ();
    g_assert_true (g_strv_contains ((const char *const *) types, "cuda"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/device/copy/no-allocator", test_no_allocator_copy);
  g_test_add_func ("/device/copy/plan-without-allocator", test_no_allocator);
  g_test_add_func ("/device/copy/routing", test_routing);
  g_test_add_func ("/device/plan/allocated-on-device", test_planned_on_device);
  return g_test_run ();
}
