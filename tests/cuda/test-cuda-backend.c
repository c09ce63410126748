/* test-cuda-backend.c: the CUDA backend end to end without a GPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The backend core runs on host-memory device ops here, with a fake CUDA
 * device allocator for the planned device buffer, and loads our fake
 * AOTInductor model .so (fake-aoti-model.c) from a .ptd written at test
 * time.  The program is a real upstream export (make_cuda_fixture.py):
 * input -> et_copy H2D -> CudaBackend -> et_copy D2H -> output.  This
 * executable exports the host functions (export_dynamic), as the shipped
 * library does.
 */
#define _GNU_SOURCE
#include "cuda-private.h"
#include "ptd-writer.h"

#include <dlfcn.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <executorch.h>
#include <executorch-cuda-stream.h>
#include <stdlib.h>
#include <string.h>

const EtPluginDesc *executorch_kernels_get_plugin (void);

/* ---- a GPU made of host memory ---- */

static GMutex device_lock;
static GHashTable *device_blocks; /* pointers handed out as device memory */
static guint h2d, d2h, syncs_on_caller;
static void *caller_stream = (void *) 0x5151;

static void *
device_alloc (size_t nbytes)
{
  void *ptr = NULL;
  if (posix_memalign (&ptr, 256, nbytes ? nbytes : 1) != 0)
    return NULL;
  g_mutex_lock (&device_lock);
  g_hash_table_insert (device_blocks, ptr, GSIZE_TO_POINTER (nbytes ? nbytes : 1));
  g_mutex_unlock (&device_lock);
  return ptr;
}

static void
device_free (void *ptr)
{
  g_mutex_lock (&device_lock);
  g_assert_true (g_hash_table_remove (device_blocks, ptr));
  g_mutex_unlock (&device_lock);
  free (ptr);
}

static int
host_malloc_async (void **ptr, size_t n, void *stream)
{
  *ptr = device_alloc (n);
  return *ptr ? 0 : 2;
}
static int
host_free_async (void *ptr, void *stream)
{
  device_free (ptr);
  return 0;
}

static int
host_memcpy_async (void *dst, const void *src, size_t n, CudaCopyKind kind, void *stream)
{
  memcpy (dst, src, n);
  return 0;
}

static int
host_memset_async (void *ptr, int value, size_t n, void *stream)
{
  memset (ptr, value, n);
  return 0;
}
static int
host_stream_create (void **stream)
{
  *stream = g_malloc (1);
  return 0;
}
static int
host_stream_destroy (void *stream)
{
  g_free (stream);
  return 0;
}

static int
host_stream_synchronize (void *stream)
{
  if (stream == caller_stream)
    syncs_on_caller++;
  return 0;
}

static int
host_get_device (int *index)
{
  *index = 0;
  return 0;
}
static int
host_set_device (int index)
{
  return index == 0 ? 0 : 101;
}

static int
host_is_device_pointer (const void *ptr)
{
  GHashTableIter iter;
  gpointer start, size;
  gboolean found = FALSE;

  g_mutex_lock (&device_lock);
  g_hash_table_iter_init (&iter, device_blocks);
  while (!found && g_hash_table_iter_next (&iter, &start, &size))
    found = (const guint8 *) ptr >= (const guint8 *) start &&
            (const guint8 *) ptr < (const guint8 *) start + GPOINTER_TO_SIZE (size);
  g_mutex_unlock (&device_lock);
  return found;
}

static const char *
host_error_string (int code)
{
  return "host device error";
}

static const CudaDeviceOps host_ops = {
  .name = "host",
  .malloc_async = host_malloc_async,
  .free_async = host_free_async,
  .memcpy_async = host_memcpy_async,
  .memset_async = host_memset_async,
  .stream_create = host_stream_create,
  .stream_destroy = host_stream_destroy,
  .stream_synchronize = host_stream_synchronize,
  .get_device = host_get_device,
  .set_device = host_set_device,
  .is_device_pointer = host_is_device_pointer,
  .error_string = host_error_string,
};

static EtError
alloc_planned (void *user_data, size_t nbytes, int index, size_t alignment, void **out)
{
  *out = device_alloc (nbytes);
  return *out ? ET_OK : ET_ERROR_MEMORY_ALLOCATION_FAILED;
}

static void
free_planned (void *user_data, void *ptr, int index)
{
  device_free (ptr);
}

static EtError
copy_h2d (void *user_data, void *dst, const void *src, size_t n, int index)
{
  g_assert_true (host_is_device_pointer (dst));
  h2d++;
  memcpy (dst, src, n);
  return ET_OK;
}

static EtError
copy_d2h (void *user_data, void *dst, const void *src, size_t n, int index)
{
  g_assert_true (host_is_device_pointer (src));
  d2h++;
  memcpy (dst, src, n);
  return ET_OK;
}

static const EtDeviceAllocator fake_allocator = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .device_type = ET_DEVICE_CUDA,
  .name = "host-backed cuda",
  .allocate = alloc_planned,
  .deallocate = free_planned,
  .copy_host_to_device = copy_h2d,
  .copy_device_to_host = copy_d2h,
};

/* ---- fixtures ---- */

static GBytes *
read_file (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  char *contents;
  gsize length;

  g_file_get_contents (path, &contents, &length, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (contents, length);
}

/* The float32 payload of a .npy (version 1 header). */
static const float *
npy_floats (GBytes *npy, gsize *count)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (npy, &size);
  gsize header = 10 + (data[8] | (data[9] << 8));

  g_assert_cmpmem (data + 1, 5, "NUMPY", 5);
  g_assert_nonnull (memmem (data, header, "'<f4'", 5));
  *count = (size - header) / 4;
  return (const float *) (data + header);
}

#define SO_KEY "fake_model_so_blob"
#define WEIGHTS_KEY "fake_model_weights_blob"

/* The program with a .ptd carrying @so under the model key (and the
 * weights, unless @with_weights is false). */
static const char *program_file = "cuda_fake.pte";
static const char *so_key = SO_KEY, *weights_key = WEIGHTS_KEY;

static ExecutorchProgram *
load_program (const char *so_path, gboolean with_weights, gboolean allow)
{
  g_autoptr (GBytes) pte = read_file (CUDA_FIXTURE_DIR, program_file);
  g_autoptr (GBytes) weights = read_file (CUDA_FIXTURE_DIR, "weights.bin");
  g_autoptr (GBytes) so = NULL, ptd = NULL;
  g_autoptr (GPtrArray) external = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GError) error = NULL;
  ExecutorchProgram *program;
  PtdBlob blobs[2];
  guint n = 0;

  if (so_path != NULL)
    {
      gchar *contents;
      gsize length;
      g_assert_true (g_file_get_contents (so_path, &contents, &length, NULL));
      so = g_bytes_new_take (contents, length);
      blobs[n++] = (PtdBlob){ so_key, g_bytes_get_data (so, NULL), g_bytes_get_size (so) };
    }
  if (with_weights)
    blobs[n++] = (PtdBlob){ weights_key, g_bytes_get_data (weights, NULL), g_bytes_get_size (weights) };
  ptd = ptd_write (blobs, n);
  g_ptr_array_add (external, g_bytes_ref (ptd));
  program = g_initable_new (EXECUTORCH_TYPE_PROGRAM, NULL, &error, "bytes", pte, "external-data", external,
                            "allow-native-code", allow, NULL);
  g_assert_no_error (error);
  return program;
}

static ExecutorchTensor *
input_tensor (void)
{
  g_autoptr (GBytes) npy = read_file (CUDA_FIXTURE_DIR, "forward.case0.in0.npy");
  g_autoptr (GError) error = NULL;
  gint64 sizes[] = { 2, 4 };
  gsize n;
  const float *x = npy_floats (npy, &n);
  ExecutorchTensor *tensor = executorch_tensor_new_from_floats (sizes, 2, x, n, &error);

  g_assert_no_error (error);
  return tensor;
}

static void
check_output (ExecutorchMethod *method)
{
  g_autoptr (GBytes) npy = read_file (CUDA_FIXTURE_DIR, "forward.case0.out0.npy");
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) out = executorch_method_get_output (method, 0, &error);
  g_autofree float *got = NULL;
  gsize n, n_got;
  const float *want = npy_floats (npy, &n);

  g_assert_no_error (error);
  got = executorch_tensor_get_floats (out, &n_got, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_got, ==, n);
  /* The fake model sums in the same order as eager for 4 terms: 1e-6. */
  for (gsize i = 0; i < n; i++)
    g_assert_cmpfloat_with_epsilon (got[i], want[i], 1e-6 + 1e-6 * ABS (want[i]));
}

static void expect_load_error (ExecutorchProgram *program, int code, const char *needle);

static ExecutorchMethod *
load_method (ExecutorchProgram *program, GError **error)
{
  return executorch_program_load_method (program, "forward", error);
}

static void
test_run (void)
{
  g_autoptr (ExecutorchProgram) program = load_program (FAKE_MODEL, TRUE, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) input = input_tensor ();
  ExecutorchMethod *method = load_method (program, &error);

  g_assert_no_error (error);
  h2d = d2h = 0;
  for (int run = 0; run < 3; run++)
    {
      g_assert_true (executorch_method_set_input (method, 0, input, &error));
      executorch_method_execute (method, NULL, &error);
      g_assert_no_error (error);
      check_output (method);
    }
  /* Each run: the et_copy H2D in, the D2H out, through the allocator. */
  g_assert_cmpuint (h2d, ==, 3);
  g_assert_cmpuint (d2h, >=, 3);
  /* The model's handles of this run are gone; its two constants remain. */
  g_assert_cmpint (_aoti_tensor_live_count (), ==, 2);
  g_object_unref (method);
  g_assert_cmpint (_aoti_tensor_live_count (), ==, 0);
  g_assert_cmpuint (g_hash_table_size (device_blocks), ==, 0);
}

/* Two models at once, each its own copy of the model library (memfd,
 * RTLD_LOCAL) and its own container; deleting one container and closing
 * its library leaves the other running (upstream never deletes them). */
static void
test_two_models (void)
{
  g_autoptr (ExecutorchProgram) first_program = load_program (FAKE_MODEL, TRUE, TRUE);
  g_autoptr (ExecutorchProgram) second_program = load_program (FAKE_MODEL, TRUE, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) input = input_tensor ();
  ExecutorchMethod *first = load_method (first_program, &error);
  g_assert_no_error (error);
  ExecutorchMethod *second = load_method (second_program, &error);
  g_assert_no_error (error);

  for (int round = 0; round < 2; round++)
    {
      ExecutorchMethod *method = round == 0 ? first : second;
      g_assert_true (executorch_method_set_input (method, 0, input, &error));
      g_assert_true (executorch_method_execute (method, NULL, &error));
      check_output (method);
    }
  /* Two constants each. */
  g_assert_cmpint (_aoti_tensor_live_count (), ==, 4);
  g_object_unref (first);
  g_assert_cmpint (_aoti_tensor_live_count (), ==, 2);
  g_assert_true (executorch_method_set_input (second, 0, input, &error));
  g_assert_true (executorch_method_execute (second, NULL, &error));
  g_assert_no_error (error);
  check_output (second);
  g_object_unref (second);
  g_assert_cmpint (_aoti_tensor_live_count (), ==, 0);
  g_assert_cmpuint (g_hash_table_size (device_blocks), ==, 0);
}

/* A 1.1-1.3 program: no processed bytes, the blobs named after the
 * method_name compile spec. */
static void
test_legacy_keys (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) input = input_tensor ();
  g_autoptr (ExecutorchProgram) wrong_names = NULL, program = NULL;
  g_autoptr (ExecutorchMethod) method = NULL;

  program_file = "cuda_fake_legacy_keys.pte";
  wrong_names = load_program (FAKE_MODEL, TRUE, TRUE);
  expect_load_error (wrong_names, EXECUTORCH_ERROR_NOT_FOUND, "\"forward_so_blob\" is in neither");
  so_key = "forward_so_blob";
  weights_key = "forward_weights_blob";
  program = load_program (FAKE_MODEL, TRUE, TRUE);
  program_file = "cuda_fake.pte";
  so_key = SO_KEY;
  weights_key = WEIGHTS_KEY;
  method = load_method (program, &error);
  g_assert_no_error (error);
  g_assert_true (executorch_method_set_input (method, 0, input, &error));
  g_assert_true (executorch_method_execute (method, NULL, &error));
  check_output (method);
}

static void
test_caller_stream (void)
{
  g_autoptr (ExecutorchProgram) program = load_program (FAKE_MODEL, TRUE, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) input = input_tensor ();
  g_autoptr (ExecutorchMethod) method = load_method (program, &error);
  ExecutorchCudaStreamScope scope;

  g_assert_no_error (error);
  syncs_on_caller = 0;
  executorch_cuda_stream_scope_enter (&scope, caller_stream);
  g_assert_true (executorch_method_set_input (method, 0, input, &error));
  g_assert_true (executorch_method_execute (method, NULL, &error));
  executorch_cuda_stream_scope_leave (&scope);
  g_assert_no_error (error);
  check_output (method);
  /* The run went on the caller's stream (the model checks that its current
   * stream is the one Run got) and was waited for on that stream. */
  g_assert_cmpuint (syncs_on_caller, ==, 1);
}

static void
expect_load_error (ExecutorchProgram *program, int code, const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchMethod) method = load_method (program, &error);

  g_assert_null (method);
  g_assert_error (error, EXECUTORCH_ERROR, code);
  if (strstr (error->message, needle) == NULL)
    g_error ("expected \"%s\" in: %s", needle, error->message);
  g_assert_cmpint (_aoti_tensor_live_count (), ==, 0);
}

static void
test_trust (void)
{
  g_autoptr (ExecutorchProgram) program = load_program (FAKE_MODEL, TRUE, FALSE);

  expect_load_error (program, EXECUTORCH_ERROR_NOT_SUPPORTED, "carries native code");
  /* Allowing it later applies to the next load. */
  executorch_program_set_allow_native_code (program, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchMethod) method = load_method (program, &error);
  g_assert_no_error (error);
}

static void
test_missing_blobs (void)
{
  g_autoptr (ExecutorchProgram) no_model = load_program (NULL, TRUE, TRUE);
  g_autoptr (ExecutorchProgram) no_weights = load_program (FAKE_MODEL, FALSE, TRUE);

  expect_load_error (no_model, EXECUTORCH_ERROR_NOT_FOUND, "\"" SO_KEY "\" is in neither");
  expect_load_error (no_weights, EXECUTORCH_ERROR_NOT_FOUND, "\"" WEIGHTS_KEY "\" are in neither");
}

static void
test_missing_import (void)
{
  g_autoptr (ExecutorchProgram) program = load_program (FAKE_MODEL_BAD_IMPORT, TRUE, TRUE);

  expect_load_error (program, EXECUTORCH_ERROR_DELEGATE_INVALID_COMPATIBILITY,
                     "imports 1 host function this runtime does not provide: aoti_torch_made_up_function");
}

static void
test_not_elf (void)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  int fd = g_file_open_tmp ("not-elf-XXXXXX", &path, &error);

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, "#!/bin/sh\necho hello\n", -1, NULL));
  close (fd);
  {
    g_autoptr (ExecutorchProgram) program = load_program (path, TRUE, TRUE);
    expect_load_error (program, EXECUTORCH_ERROR_DELEGATE_INVALID_COMPATIBILITY, "model .so: not an ELF file");
  }
  g_unlink (path);
}

static void
test_run_fails (void)
{
  g_autoptr (ExecutorchProgram) program = load_program (FAKE_MODEL, TRUE, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchTensor) input = input_tensor ();
  g_autoptr (ExecutorchMethod) method = load_method (program, &error);

  g_assert_no_error (error);
  g_setenv ("FAKE_AOTI_FAIL", "run", TRUE);
  g_assert_true (executorch_method_set_input (method, 0, input, &error));
  g_assert_false (executorch_method_execute (method, NULL, &error));
  g_unsetenv ("FAKE_AOTI_FAIL");
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "the model failed while running"));
  /* The stolen input went with the failed run; only constants are left. */
  g_assert_cmpint (_aoti_tensor_live_count (), ==, 2);
}

static void
test_shim_table (void)
{
  for (size_t i = 0; i < _aoti_shim_n_names; i++)
    {
      if (i > 0)
        g_assert_cmpint (strcmp (_aoti_shim_names[i - 1], _aoti_shim_names[i]), <, 0);
      if (dlsym (RTLD_DEFAULT, _aoti_shim_names[i]) == NULL)
        g_error ("%s is listed but not exported", _aoti_shim_names[i]);
      g_assert_true (_aoti_shim_provided (_aoti_shim_names[i]));
    }
  g_assert_false (_aoti_shim_provided ("aoti_torch_made_up_function"));
  g_test_message ("%zu host functions", _aoti_shim_n_names);
}

/* Every truncation and every byte flipped in the headers and symbol table
 * of a real .so: an error or an answer, never a crash. */
static void
test_elf_hostile (void)
{
  g_autofree char *contents = NULL;
  gsize length, rejected = 0, cases = 0;

  g_assert_true (g_file_get_contents (FAKE_MODEL, &contents, &length, NULL));
  for (gsize cut = 0; cut < length; cut += cut < 4096 ? 1 : 61)
    {
      g_autoptr (GPtrArray) undefined = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GPtrArray) defined = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GError) error = NULL;
      guint8 *copy = g_memdup2 (contents, cut);

      if (!_executorch_elf_dynamic_symbols (copy, cut, undefined, defined, &error))
        {
          g_assert_nonnull (error);
          rejected++;
        }
      g_free (copy);
      cases++;
    }
  for (gsize at = 0; at < MIN (length, 2048); at++)
    {
      g_autoptr (GPtrArray) undefined = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GPtrArray) defined = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GError) error = NULL;
      guint8 *copy = g_memdup2 (contents, length);

      copy[at] ^= 0xff;
      _executorch_elf_dynamic_symbols (copy, length, undefined, defined, &error);
      g_free (copy);
      cases++;
    }
  g_test_message ("%zu hostile ELF cases, %zu truncations rejected", cases, rejected);
  g_assert_cmpuint (rejected, >, 0);
}

int
main (int argc, char **argv)
{
  EtErrorContext *error = et_error_context_new ();

  g_test_init (&argc, &argv, NULL);
  device_blocks = g_hash_table_new (NULL, NULL);
  _executorch_cuda_set_ops (&host_ops);
  if (et_registry_add_plugin (executorch_kernels_get_plugin (), error) != ET_OK ||
      et_registry_add_device_allocator (et_registry_get_default (), &fake_allocator, error) != ET_OK ||
      et_registry_add_backend (et_registry_get_default (), &_executorch_cuda_backend, error) != ET_OK)
    g_error ("registration failed: %s", et_error_context_message (error));
  et_error_context_free (error);
  g_test_add_func ("/cuda/backend/run", test_run);
  g_test_add_func ("/cuda/backend/two-models", test_two_models);
  g_test_add_func ("/cuda/backend/caller-stream", test_caller_stream);
  g_test_add_func ("/cuda/backend/legacy-keys", test_legacy_keys);
  g_test_add_func ("/cuda/backend/trust", test_trust);
  g_test_add_func ("/cuda/backend/missing-blobs", test_missing_blobs);
  g_test_add_func ("/cuda/backend/missing-import", test_missing_import);
  g_test_add_func ("/cuda/backend/not-elf", test_not_elf);
  g_test_add_func ("/cuda/backend/run-fails", test_run_fails);
  g_test_add_func ("/cuda/shims/table", test_shim_table);
  g_test_add_func ("/cuda/elf/hostile", test_elf_hostile);
  return g_test_run ();
}
