/* bundled.c: reading a bundled program (.bpte): an embedded program plus test cases
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Layout (upstream's bundled_program_schema.fbs, identifier "BP08"):
 * BundledProgram { version, method_test_suites: [BundledMethodTestSuite],
 * program: [ubyte] }, BundledMethodTestSuite { method_name, test_cases:
 * [BundledMethodTestCase] }, BundledMethodTestCase { inputs: [Value],
 * expected_outputs: [Value] }, Value { val: union of Tensor, Int, Bool,
 * Double }, Tensor { scalar_type, sizes: [int], data: [ubyte], dim_order:
 * [ubyte] }.  The file is untrusted: every offset, count and size is
 * checked, and a tensor's data must hold exactly its elements.
 */
#include "engine.h"
#include "flatbuffer.h"

#include <string.h>

enum
{
  BP_VERSION,
  BP_SUITES,
  BP_PROGRAM
};
enum
{
  SUITE_METHOD_NAME,
  SUITE_TEST_CASES
};
enum
{
  CASE_INPUTS,
  CASE_EXPECTED_OUTPUTS
};
enum
{
  VALUE_VAL_TYPE,
  VALUE_VAL
};
enum
{
  TENSOR_SCALAR_TYPE,
  TENSOR_SIZES,
  TENSOR_DATA,
  TENSOR_DIM_ORDER
};
enum
{
  UNION_TENSOR = 1,
  UNION_INT = 2,
  UNION_BOOL = 3,
  UNION_DOUBLE = 4
};

#define MAX_VALUES_PER_CASE 65536u

static gboolean
read_value (EtFb *fb, EtFbTable table, EtBundledValue *out, const char *what)
{
  guint8 type = _et_fb_u8 (fb, table, VALUE_VAL_TYPE, 0);
  EtFbTable payload = _et_fb_table (fb, table, VALUE_VAL, what);

  memset (out, 0, sizeof *out);
  if (!_et_fb_ok (fb))
    return FALSE;
  if (!payload.present)
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "%s has no value", what);
      return FALSE;
    }
  switch (type)
    {
      case UNION_INT:
        out->tag = ET_VALUE_INT;
        out->int_value = _et_fb_i64 (fb, payload, 0, 0);
        break;
      case UNION_BOOL:
        out->tag = ET_VALUE_BOOL;
        out->bool_value = _et_fb_u8 (fb, payload, 0, 0) != 0;
        break;
      case UNION_DOUBLE:
        out->tag = ET_VALUE_DOUBLE;
        out->double_value = _et_fb_f64 (fb, payload, 0, 0.0);
        break;
      case UNION_TENSOR:
        {
          EtFbVector sizes = _et_fb_vector (fb, payload, TENSOR_SIZES, 4, "Tensor.sizes");
          EtFbVector data = _et_fb_vector (fb, payload, TENSOR_DATA, 1, "Tensor.data");
          EtFbVector dim_order = _et_fb_vector (fb, payload, TENSOR_DIM_ORDER, 1, "Tensor.dim_order");
          guint32 seen = 0;
          int64_t numel;
          size_t nbytes;

          out->tag = ET_VALUE_TENSOR;
          out->scalar_type = _et_fb_i8 (fb, payload, TENSOR_SCALAR_TYPE, 0);
          if (!_et_fb_ok (fb))
            return FALSE;
          if (et_scalar_type_size (out->scalar_type) == 0)
            {
              _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "%s has invalid scalar type %d", what, out->scalar_type);
              return FALSE;
            }
          if (sizes.length > ET_MAX_DIMS)
            {
              _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "%s has %u dimensions (at most %d)", what, sizes.length,
                           ET_MAX_DIMS);
              return FALSE;
            }
          out->ndim = sizes.length;
          for (guint32 i = 0; i < sizes.length; i++)
            {
              out->sizes[i] = _et_fb_vector_i32 (fb, sizes, i);
              if (out->sizes[i] < 0)
                {
                  _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "%s has negative size %" G_GINT64_FORMAT, what,
                               out->sizes[i]);
                  return FALSE;
                }
            }
          /* No dim order means contiguous. */
          if (dim_order.length != 0 && dim_order.length != sizes.length)
            {
              _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "%s has %u dimensions but a dim order of %u", what,
                           sizes.length, dim_order.length);
              return FALSE;
            }
          for (guint32 i = 0; i < out->ndim; i++)
            {
              guint8 d = dim_order.length != 0 ? _et_fb_vector_u8 (fb, dim_order, i) : (guint8) i;
              if (d >= out->ndim || (seen & (1u << d)))
                {
                  _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "%s has an invalid dim order", what);
                  return FALSE;
                }
              seen |= 1u << d;
              out->dim_order[i] = d;
            }
          if (!_et_checked_nbytes (out->scalar_type, out->ndim, out->sizes, &numel, &nbytes) || nbytes != data.length)
            {
              _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                           "%s: %u data bytes for a %s tensor of %u dimensions that "
                           "needs %zu",
                           what, data.length, et_scalar_type_name (out->scalar_type), out->ndim, nbytes);
              return FALSE;
            }
          out->data = _et_fb_vector_bytes (fb, data);
          out->nbytes = nbytes;
          break;
        }
      default: _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "%s has unknown value type %u", what, type); return FALSE;
    }
  return _et_fb_ok (fb);
}

static EtBundledValue *
read_values (EtFb *fb, EtFbTable table, guint slot, guint *n, const char *what)
{
  EtFbVector values = _et_fb_vector (fb, table, slot, 4, what);
  EtBundledValue *out;

  *n = 0;
  if (!_et_fb_ok (fb))
    return NULL;
  if (values.length > MAX_VALUES_PER_CASE)
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "%s: %u values is too many", what, values.length);
      return NULL;
    }
  out = g_new0 (EtBundledValue, MAX (values.length, 1));
  for (guint32 i = 0; i < values.length; i++)
    {
      EtFbTable value = _et_fb_vector_table (fb, values, i, what);
      g_autofree char *name = g_strdup_printf ("%s[%u]", what, i);
      if (!read_value (fb, value, &out[i], name))
        {
          g_free (out);
          return NULL;
        }
    }
  *n = values.length;
  return out;
}

void
_et_bundled_free (EtBundled *bundled)
{
  if (bundled == NULL)
    return;
  for (guint s = 0; s < bundled->n_suites; s++)
    {
      EtBundledSuite *suite = &bundled->suites[s];
      for (guint c = 0; c < suite->n_cases; c++)
        {
          g_free (suite->cases[c].inputs);
          g_free (suite->cases[c].expected);
        }
      g_free (suite->cases);
      g_free (suite->method);
    }
  g_free (bundled->suites);
  g_clear_pointer (&bundled->program, g_bytes_unref);
  g_clear_pointer (&bundled->file, g_bytes_unref);
  g_free (bundled);
}

EtBundled *
_et_bundled_load (GBytes *file, GError **error)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (file, &size);
  EtBundled *bundled;
  EtFbTable root;
  EtFbVector suites, program;
  EtFb fb;

  if (data == NULL || size < 8 || memcmp (data + 4, "BP08", 4) != 0)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "not a bundled program (no \"BP08\" identifier)");
      return NULL;
    }
  _et_fb_init (&fb, data, size, "bundled program", ET_ERROR_INVALID_PROGRAM);
  root = _et_fb_root (&fb, 0, "BundledProgram");
  suites = _et_fb_vector (&fb, root, BP_SUITES, 4, "BundledProgram.method_test_suites");
  program = _et_fb_vector (&fb, root, BP_PROGRAM, 1, "BundledProgram.program");
  if (!_et_fb_take_error (&fb, error))
    return NULL;
  if (program.length == 0)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "the bundled program holds no program");
      return NULL;
    }

  bundled = g_new0 (EtBundled, 1);
  bundled->file = g_bytes_ref (file);
  bundled->version = _et_fb_u32 (&fb, root, BP_VERSION, 0);
  bundled->program = g_bytes_new_from_bytes (file, program.pos, program.length);
  bundled->suites = g_new0 (EtBundledSuite, MAX (suites.length, 1));
  for (guint32 s = 0; s < suites.length && _et_fb_ok (&fb); s++)
    {
      EtFbTable suite = _et_fb_vector_table (&fb, suites, s, "BundledProgram.method_test_suites");
      const char *name = _et_fb_string (&fb, suite, SUITE_METHOD_NAME, NULL, "BundledMethodTestSuite.method_name");
      EtFbVector cases = _et_fb_vector (&fb, suite, SUITE_TEST_CASES, 4, "BundledMethodTestSuite.test_cases");
      EtBundledSuite *out = &bundled->suites[s];

      if (!_et_fb_ok (&fb))
        break;
      if (name == NULL || !g_utf8_validate (name, -1, NULL))
        {
          _et_fb_fail (&fb, ET_ERROR_INVALID_PROGRAM, "test suite %u has no valid method name", s);
          break;
        }
      bundled->n_suites = s + 1;
      out->method = g_strdup (name);
      out->cases = g_new0 (EtBundledCase, MAX (cases.length, 1));
      for (guint32 c = 0; c < cases.length && _et_fb_ok (&fb); c++)
        {
          EtFbTable test = _et_fb_vector_table (&fb, cases, c, "BundledMethodTestSuite.test_cases");
          EtBundledCase *tc = &out->cases[c];

          tc->inputs = read_values (&fb, test, CASE_INPUTS, &tc->n_inputs, "inputs");
          if (tc->inputs != NULL)
            tc->expected = read_values (&fb, test, CASE_EXPECTED_OUTPUTS, &tc->n_expected, "expected_outputs");
          if (_et_fb_ok (&fb))
            out->n_cases = c + 1;
          else
            {
              g_clear_pointer (&tc->inputs, g_free);
              _et_prefix_error (&fb.error, "method %s, test case %u: ", name, c);
            }
        }
    }
  if (!_et_fb_take_error (&fb, error))
    {
      _et_bundled_free (bundled);
      return NULL;
    }
  return bundled;
}
