/* test-registry.c: one registry per process, however plug-ins arrive
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * This program links the kernel library directly AND lets discovery find
 * it through EXECUTORCH_MODULE_PATH: it must register exactly once.
 */
#include "executorch.h"
#include "executorch-plugin.h"

#include <string.h>

const EtPluginDesc *executorch_kernels_get_plugin (void);

static EtError
dummy_kernel (EtKernelContext *context, EtValue **args, uint32_t n_args)
{
  return ET_OK;
}

static guint
count (char **names, const char *prefix)
{
  guint n = 0;
  for (guint i = 0; names[i] != NULL; i++)
    n += g_str_has_prefix (names[i], prefix);
  return n;
}

static void
test_linked_and_discovered_once (void)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) plugins = NULL;
  g_auto (GStrv) operators = NULL;

  /* The application registers the library it links... */
  g_assert_cmpint (et_registry_add_plugin (executorch_kernels_get_plugin (), NULL), ==, ET_OK);
  /* ...and discovery opens the same file again: no second registration. */
  g_assert_true (executorch_load_plugins (&error));
  g_assert_no_error (error);
  plugins = executorch_list_plugins ();
  g_assert_cmpuint (count (plugins, "kernels "), ==, 1);
  operators = executorch_list_operators ();
  g_assert_true (g_strv_contains ((const char *const *) operators, "aten::add.out"));
  g_assert_nonnull (et_registry_find_kernel (et_registry_get_default (), "aten::mm.out"));
}

static void
test_duplicate_operator_names_both_owners (void)
{
  static const EtKernel kernel = { "aten::add.out", dummy_kernel, NULL };
  EtRegistry *registry = et_registry_get_default ();
  EtErrorContext *error = et_error_context_new ();

  g_assert_true (executorch_load_plugins (NULL));
  g_assert_cmpint (et_registry_add_kernels (registry, &kernel, 1, error), ==, ET_ERROR_REGISTRATION_ALREADY_REGISTERED);
  g_assert_nonnull (strstr (et_error_context_message (error), "aten::add.out"));
  g_assert_nonnull (strstr (et_error_context_message (error), "kernels"));
  g_assert_nonnull (strstr (et_error_context_message (error), "the application"));
  et_error_context_free (error);
}

static void
test_program_without_setup (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, "mlp", "mlp.pte", NULL);
  g_autoptr (ExecutorchProgram) program = executorch_program_new_from_file (path, &error);
  g_autoptr (ExecutorchMethod) method = NULL;

  g_assert_no_error (error);
  method = executorch_program_load_method (program, "forward", &error);
  g_assert_no_error (error);
  g_assert_nonnull (method);
}

/* A plug-in built for ABI 1 (fixed-size message buffers) is refused, by name. */
static void
test_old_abi_refused (void)
{
  static const EtPluginDesc old = { .abi_version = 1, .name = "old-kernels", .kind = ET_PLUGIN_KERNELS };
  EtErrorContext *error = et_error_context_new ();

  g_assert_cmpint (et_registry_add_plugin (&old, error), ==, ET_ERROR_NOT_SUPPORTED);
  g_assert_cmpint (et_error_context_code (error), ==, ET_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (et_error_context_message (error), "plug-in old-kernels uses plug-in ABI 1"));
  et_error_context_free (error);
}

static void
nothing_rewritten (void *user_data, EtMethodGraph *graph)
{
}

/* A rewrite built for another ABI is refused by name; the kernel library's
 * own rewrite is registered once, under its owner's name. */
static void
test_rewrite_registration (void)
{
  static const EtMethodRewrite old = { .abi_version = 1, .name = "old-rewrite", .rewrite = nothing_rewritten };
  static const EtMethodRewrite twin = {
    .abi_version = ET_PLUGIN_ABI_VERSION,
    .name = "kernels:constant-transposes",
    .rewrite = nothing_rewritten,
  };
  EtRegistry *registry = et_registry_get_default ();
  EtErrorContext *error = et_error_context_new ();

  g_assert_cmpint (et_registry_add_rewrite (registry, &old, error), ==, ET_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (
      strstr (et_error_context_message (error), "rewrite old-rewrite from the application uses plug-in ABI 1"));
  g_assert_true (executorch_load_plugins (NULL));
  g_assert_cmpint (et_registry_add_rewrite (registry, &twin, error), ==, ET_ERROR_REGISTRATION_ALREADY_REGISTERED);
  g_assert_nonnull (strstr (et_error_context_message (error), "by kernels and by the application"));
  g_assert_cmpint (et_registry_add_rewrite (registry, NULL, error), ==, ET_ERROR_INVALID_ARGUMENT);
  et_error_context_free (error);
}

#define LONG_MESSAGE_LENGTH 3000

static EtError
long_failure (EtKernelContext *context, EtValue **args, uint32_t n_args)
{
  char *text = g_strnfill (LONG_MESSAGE_LENGTH, 'x');
  EtError code = et_error_context_fail (et_kernel_context_error (context), ET_ERROR_INVALID_ARGUMENT, "%s!", text);

  g_free (text);
  return code;
}

/* What a kernel says arrives whole, however long (ABI 1 cut it at 255 bytes). */
static void
test_message_not_cut (void)
{
  static const EtKernel kernel = { "test::long_failure", long_failure, NULL };
  EtErrorContext *error = et_error_context_new ();
  const char *message;

  g_assert_cmpint (et_error_context_code (error), ==, ET_OK);
  g_assert_cmpstr (et_error_context_message (error), ==, "");
  g_assert_cmpint (et_kernel_call (&kernel, NULL, 0, error), ==, ET_ERROR_INVALID_ARGUMENT);
  message = et_error_context_message (error);
  g_assert_cmpuint (strlen (message), ==, LONG_MESSAGE_LENGTH + 1);
  g_assert_true (g_str_has_suffix (message, "x!"));
  et_error_context_free (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/registry/plugin/linked-and-discovered-once", test_linked_and_discovered_once);
  g_test_add_func ("/registry/kernel/duplicate-names-both-owners", test_duplicate_operator_names_both_owners);
  g_test_add_func ("/registry/program/loads-after-discovery", test_program_without_setup);
  g_test_add_func ("/registry/plugin/old-abi-refused", test_old_abi_refused);
  g_test_add_func ("/registry/error/message-not-cut", test_message_not_cut);
  g_test_add_func ("/registry/rewrite/registration", test_rewrite_registration);
  return g_test_run ();
}
