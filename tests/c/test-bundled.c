/* test-bundled.c: ExecutorchBundledProgram on upstream's and our .bpte files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch.h>
#include "common-util.h"

#include <string.h>

static guint
verify_all (ExecutorchBundledProgram *bundled)
{
  g_auto (GStrv) methods = executorch_bundled_program_list_methods (bundled);
  guint n = 0;

  for (guint m = 0; methods[m] != NULL; m++)
    for (guint i = 0; i < executorch_bundled_program_get_n_test_cases (bundled, methods[m]); i++)
      {
        g_autoptr (GError) error = NULL;
        g_assert_true (executorch_bundled_program_verify (bundled, methods[m], i, EXECUTORCH_BUNDLED_DEFAULT_RTOL,
                                                          EXECUTORCH_BUNDLED_DEFAULT_ATOL, &error));
        g_assert_no_error (error);
        n++;
      }
  return n;
}

static void
test_upstream (void)
{
  g_autofree char *path = g_build_filename (TEST_UPSTREAM_DIR, "bundled_program.bpte", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchBundledProgram) bundled = executorch_bundled_program_new_from_file (path, &error);
  g_auto (GStrv) methods = NULL;

  g_assert_no_error (error);
  methods = executorch_bundled_program_list_methods (bundled);
  g_assert_cmpstr (methods[0], ==, "forward");
  g_assert_true (executorch_program_has_method (executorch_bundled_program_get_program (bundled), "forward"));
  g_assert_cmpuint (verify_all (bundled), ==, 10);
}

static void
test_fixtures (void)
{
  static const struct
  {
    const char *file;
    guint n_cases;
  } fixtures[] = {
    { "add_bp.bpte", 3 },
    { "mlp_bp.bpte", 2 },
    { "int_bp.bpte", 2 },
    { "conv_bp.bpte", 2 },
  };

  for (guint f = 0; f < G_N_ELEMENTS (fixtures); f++)
    {
      g_autofree char *path = g_build_filename (TEST_MODELS_DIR, "bundled", fixtures[f].file, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (ExecutorchBundledProgram) bundled = executorch_bundled_program_new_from_file (path, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (verify_all (bundled), ==, fixtures[f].n_cases);
    }
}

static void
test_errors (void)
{
  g_autoptr (GBytes) bytes = read_file (TEST_MODELS_DIR, "bundled/add_bp.bpte");
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchBundledProgram) bundled = executorch_bundled_program_new_from_bytes (bytes, &error);
  g_autoptr (GBytes) pte = read_file (TEST_UPSTREAM_DIR, "add.pte");
  ExecutorchBundledProgram *not_bundled;

  g_assert_no_error (error);
  g_assert_cmpuint (executorch_bundled_program_get_n_test_cases (bundled, "nope"), ==, 0);
  g_assert_false (executorch_bundled_program_verify (bundled, "nope", 0, 1e-5, 1e-8, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (executorch_bundled_program_verify (bundled, "forward", 3, 1e-5, 1e-8, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  not_bundled = executorch_bundled_program_new_from_bytes (pte, &error);
  g_assert_null (not_bundled);
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_PROGRAM);
}

/* Reading our own trusted fixture: the position of case 0's expected
 * output 0 data (root -> suites[0] -> test_cases[0] -> expected_outputs[0]
 * -> Tensor.data). */
static guint32
u32 (const guint8 *d, gsize p)
{
  return GUINT32_FROM_LE (*(const guint32 *) (d + p));
}
static gsize
field (const guint8 *d, gsize table, guint slot)
{
  gsize vtable = table - (gint32) u32 (d, table);
  guint16 offset = GUINT16_FROM_LE (*(const guint16 *) (d + vtable + 4 + 2 * slot));
  g_assert_cmpuint (offset, !=, 0);
  return table + offset;
}
static gsize
ref (const guint8 *d, gsize pos)
{
  return pos + u32 (d, pos);
}

static gsize
expected_data (const guint8 *d, gsize *length)
{
  gsize root = ref (d, 0);
  gsize suites = ref (d, field (d, root, 1));
  gsize suite = ref (d, suites + 4);
  gsize cases = ref (d, field (d, suite, 1));
  gsize tc = ref (d, cases + 4);
  gsize outputs = ref (d, field (d, tc, 1));
  gsize value = ref (d, outputs + 4);
  gsize tensor = ref (d, field (d, value, 1));
  gsize data = ref (d, field (d, tensor, 2));

  *length = u32 (d, data);
  return data + 4;
}

static void
test_corrupted_expectation (void)
{
  g_autoptr (GBytes) bytes = read_file (TEST_MODELS_DIR, "bundled/add_bp.bpte");
  gsize size, length, pos;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  guint8 *copy = g_memdup2 (data, size);
  g_autoptr (GBytes) corrupted = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchBundledProgram) bundled = NULL;

  pos = expected_data (copy, &length);
  g_assert_cmpuint (length, ==, 6 * sizeof (float));
  copy[pos + 1] ^= 0x5a; /* a mantissa byte of element 0 */
  copy[pos + 7] ^= 0x40; /* an exponent byte of element 1 */
  corrupted = g_bytes_new_take (copy, size);
  bundled = executorch_bundled_program_new_from_bytes (corrupted, &error);
  g_assert_no_error (error);
  g_assert_false (executorch_bundled_program_verify (bundled, "forward", 0, EXECUTORCH_BUNDLED_DEFAULT_RTOL,
                                                     EXECUTORCH_BUNDLED_DEFAULT_ATOL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "2 of 6 elements differ"));
  g_clear_error (&error);
  /* The other cases are untouched. */
  g_assert_true (executorch_bundled_program_verify (bundled, "forward", 1, EXECUTORCH_BUNDLED_DEFAULT_RTOL,
                                                    EXECUTORCH_BUNDLED_DEFAULT_ATOL, &error));
  g_assert_no_error (error);
}

/* Every cut and every flipped byte loads, or fails with an error; what
 * loads can be verified without crashing. */
static void
test_hostile (void)
{
  g_autoptr (GBytes) bytes = read_file (TEST_MODELS_DIR, "bundled/add_bp.bpte");
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  guint loaded = 0;

  for (gsize cut = 0; cut < size; cut += 5)
    {
      g_autoptr (GBytes) part = g_bytes_new (data, cut);
      g_autoptr (GError) error = NULL;
      g_autoptr (ExecutorchBundledProgram) bundled = executorch_bundled_program_new_from_bytes (part, &error);
      g_assert_true ((bundled == NULL) == (error != NULL));
    }
  for (gsize i = 0; i < size; i++)
    {
      guint8 *copy = g_memdup2 (data, size);
      g_autoptr (GBytes) damaged = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (ExecutorchBundledProgram) bundled = NULL;

      copy[i] ^= (guint8) (0x11 + i % 0x80);
      damaged = g_bytes_new_take (copy, size);
      bundled = executorch_bundled_program_new_from_bytes (damaged, &error);
      g_assert_true ((bundled == NULL) == (error != NULL));
      if (bundled != NULL)
        {
          loaded++;
          if (executorch_bundled_program_get_n_test_cases (bundled, "forward") > 0 &&
              !executorch_bundled_program_verify (bundled, "forward", 0, 1e-5, 1e-8, &error))
            g_assert_nonnull (error);
        }
    }
  g_test_message ("%u of %zu damaged copies still loaded", loaded, size);
}

/* Construction through properties alone (what PyGObject and GJS do:
 * g_object_new, no g_initable_init). */
static void
test_bundled_construct_properties (void)
{
  g_autoptr (ExecutorchBundledProgram) bundled =
      g_object_new (EXECUTORCH_TYPE_BUNDLED_PROGRAM, "path", TEST_MODELS_DIR "/bundled/add_bp.bpte", NULL);
  g_autoptr (ExecutorchBundledProgram) nothing = g_object_new (EXECUTORCH_TYPE_BUNDLED_PROGRAM, NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = executorch_bundled_program_list_methods (bundled);
  g_auto (GStrv) none = NULL;

  g_assert_cmpstrv (names, ((const char *const[]){ "forward", NULL }));
  g_assert_true (EXECUTORCH_IS_PROGRAM (executorch_bundled_program_get_program (bundled)));
  g_assert_true (executorch_bundled_program_verify (bundled, "forward", 0, EXECUTORCH_BUNDLED_DEFAULT_RTOL,
                                                    EXECUTORCH_BUNDLED_DEFAULT_ATOL, &error));
  g_assert_no_error (error);

  g_assert_false (g_initable_init (G_INITABLE (nothing), NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (executorch_bundled_program_verify (nothing, "forward", 0, EXECUTORCH_BUNDLED_DEFAULT_RTOL,
                                                     EXECUTORCH_BUNDLED_DEFAULT_ATOL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT);
  g_test_expect_message ("Executorch", G_LOG_LEVEL_WARNING,
                         "executorch_bundled_program_list_methods: the bundled program did not load: *");
  none = executorch_bundled_program_list_methods (nothing);
  g_test_assert_expected_messages ();
  g_assert_nonnull (none);
  g_assert_null (none[0]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bundled/upstream", test_upstream);
  g_test_add_func ("/bundled/fixtures", test_fixtures);
  g_test_add_func ("/bundled/errors", test_errors);
  g_test_add_func ("/bundled/corrupted-expectation", test_corrupted_expectation);
  g_test_add_func ("/bundled/hostile", test_hostile);
  g_test_add_func ("/bundled/construct/properties", test_bundled_construct_properties);
  return g_test_run ();
}
