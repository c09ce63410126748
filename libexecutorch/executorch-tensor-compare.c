/* executorch-tensor-compare.c: whether a tensor holds the values expected
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one comparison with tolerances: BundledProgram.verify and
 * executorch-run --compare both ask it, so a result means the same thing
 * wherever it is checked.
 */
#include "executorch-private.h"

#include <math.h>
#include <string.h>

static gboolean
is_floating (ExecutorchScalarType type)
{
  return type == EXECUTORCH_SCALAR_TYPE_FLOAT || type == EXECUTORCH_SCALAR_TYPE_DOUBLE ||
         type == EXECUTORCH_SCALAR_TYPE_HALF || type == EXECUTORCH_SCALAR_TYPE_BFLOAT16;
}

/* The element at byte @offset as a double (for messages and tolerances). */
static double
element_value (ExecutorchScalarType type, const guint8 *data, gsize offset)
{
  union
  {
    float f;
    double d;
    gint64 l;
    guint64 ul;
    gint32 i;
    guint32 ui;
    gint16 s;
    guint16 us;
    gint8 c;
    guint8 b;
  } v;

  memcpy (&v, data + offset, executorch_scalar_type_get_element_size (type));
  switch (type)
    {
      case EXECUTORCH_SCALAR_TYPE_FLOAT: return v.f;
      case EXECUTORCH_SCALAR_TYPE_DOUBLE: return v.d;
      case EXECUTORCH_SCALAR_TYPE_HALF: return et_half_to_float (v.us);
      case EXECUTORCH_SCALAR_TYPE_BFLOAT16: return et_bfloat16_to_float (v.us);
      case EXECUTORCH_SCALAR_TYPE_LONG: return (double) v.l;
      case EXECUTORCH_SCALAR_TYPE_UINT64: return (double) v.ul;
      case EXECUTORCH_SCALAR_TYPE_INT: return v.i;
      case EXECUTORCH_SCALAR_TYPE_UINT32: return v.ui;
      case EXECUTORCH_SCALAR_TYPE_SHORT: return v.s;
      case EXECUTORCH_SCALAR_TYPE_UINT16: return v.us;
      case EXECUTORCH_SCALAR_TYPE_CHAR: return v.c;
      default: return v.b;
    }
}

/* How far @got is past what @want allows: <= 0 when close enough. */
static double
excess (double got, double want, double rtol, double atol)
{
  if (isnan (got) || isnan (want))
    return isnan (got) && isnan (want) ? 0.0 : INFINITY;
  if (isinf (got) || isinf (want))
    return got == want ? 0.0 : INFINITY;
  return fabs (got - want) - (atol + rtol * fabs (want));
}

static char *
format_index (guint n_dims, const gint64 *index)
{
  GString *text = g_string_new ("[");

  for (guint d = 0; d < n_dims; d++)
    g_string_append_printf (text, "%s%" G_GINT64_FORMAT, d > 0 ? ", " : "", index[d]);
  return g_string_free (g_string_append_c (text, ']'), FALSE);
}

static gboolean
check_comparable (ExecutorchTensor *tensor, ExecutorchTensor *expected, GError **error)
{
  const gint64 *sizes, *want_sizes;
  gsize n_dims, want_dims;

  if (executorch_tensor_get_scalar_type (tensor) != executorch_tensor_get_scalar_type (expected))
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "the tensor is %s, the expected one %s",
                     executorch_scalar_type_to_string (executorch_tensor_get_scalar_type (tensor)),
                     executorch_scalar_type_to_string (executorch_tensor_get_scalar_type (expected)));
      return FALSE;
    }
  sizes = executorch_tensor_get_sizes (tensor, &n_dims);
  want_sizes = executorch_tensor_get_sizes (expected, &want_dims);
  if (n_dims != want_dims || (n_dims > 0 && memcmp (sizes, want_sizes, n_dims * sizeof (gint64)) != 0))
    {
      g_autofree char *have = format_index ((guint) n_dims, sizes);
      g_autofree char *want = format_index ((guint) want_dims, want_sizes);
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "the tensor has sizes %s, the expected one %s", have, want);
      return FALSE;
    }
  if (_executorch_tensor_peek_data (tensor) == NULL && executorch_tensor_get_nbytes (tensor) > 0)
    {
      _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "the tensor has no memory");
      return FALSE;
    }
  if (executorch_device_get_device_type (executorch_tensor_get_device (tensor)) != EXECUTORCH_DEVICE_TYPE_CPU ||
      executorch_device_get_device_type (executorch_tensor_get_device (expected)) != EXECUTORCH_DEVICE_TYPE_CPU)
    {
      _et_set_error (error, ET_ERROR_NOT_SUPPORTED,
                     "only tensors in host memory are compared; copy them there "
                     "first (executorch_tensor_to_device)");
      return FALSE;
    }
  return TRUE;
}

/**
 * executorch_tensor_compare:
 * @tensor: a tensor in host memory
 * @expected: the tensor it should equal, in host memory
 * @rtol: relative tolerance for floating-point elements (0 or more)
 * @atol: absolute tolerance for floating-point elements (0 or more)
 * @error: return location for a #GError, or %NULL
 *
 * Checks that @tensor holds the values of @expected: the same element type
 * and sizes; Float, Double, Half and BFloat16 elements within
 * `atol + rtol * |expected|` (NaN matches NaN and an infinity only itself),
 * every other element type exactly.  Elements are compared at the same
 * logical index, whatever each tensor's dim order.
 * [method@Executorch.BundledProgram.verify] and `executorch-run --compare`
 * use this comparison.
 *
 * Returns: %TRUE when they match; %FALSE with @error set:
 *   %EXECUTORCH_ERROR_INVALID_ARGUMENT when the types or sizes differ, or
 *   when elements differ (the message says how many, and where the worst
 *   one is: its index, both values and the error allowed there),
 *   %EXECUTORCH_ERROR_NOT_SUPPORTED for a tensor in device memory
 *
 * Since: 1.0
 */
gboolean
executorch_tensor_compare (ExecutorchTensor *tensor, ExecutorchTensor *expected, gdouble rtol, gdouble atol,
                           GError **error)
{
  ExecutorchScalarType type;
  gint64 strides[ET_MAX_DIMS], want_strides[ET_MAX_DIMS], index[ET_MAX_DIMS] = { 0 }, worst_index[ET_MAX_DIMS];
  gint64 numel, n_bad = 0;
  const gint64 *sizes;
  const guint8 *got, *want;
  double worst_excess = -INFINITY, worst_got = 0.0, worst_want = 0.0;
  gsize n_dims, element;
  gboolean floating;

  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (tensor), FALSE);
  g_return_val_if_fail (EXECUTORCH_IS_TENSOR (expected), FALSE);
  g_return_val_if_fail (rtol >= 0.0 && atol >= 0.0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_comparable (tensor, expected, error))
    return FALSE;
  type = executorch_tensor_get_scalar_type (tensor);
  floating = is_floating (type);
  element = executorch_scalar_type_get_element_size (type);
  sizes = executorch_tensor_get_sizes (tensor, &n_dims);
  et_strides_from_dim_order ((uint32_t) n_dims, sizes, executorch_tensor_get_dim_order (tensor, NULL), strides);
  et_strides_from_dim_order ((uint32_t) n_dims, sizes, executorch_tensor_get_dim_order (expected, NULL), want_strides);
  numel = executorch_tensor_get_numel (tensor);
  got = _executorch_tensor_peek_data (tensor);
  want = _executorch_tensor_peek_data (expected);

  for (gint64 n = 0; n < numel; n++)
    {
      gsize at = 0, want_at = 0;
      double over;

      for (gsize d = 0; d < n_dims; d++)
        {
          at += (gsize) (index[d] * strides[d]) * element;
          want_at += (gsize) (index[d] * want_strides[d]) * element;
        }
      /* Integers are compared as bits: a double cannot hold every int64. */
      if (floating)
        over = excess (element_value (type, got, at), element_value (type, want, want_at), rtol, atol);
      else
        over = memcmp (got + at, want + want_at, element) == 0 ? 0.0 : 1.0;
      if (over > 0.0)
        {
          /* The worst float, the first of anything else. */
          if (n_bad == 0 || (floating && over > worst_excess))
            {
              worst_excess = over;
              worst_got = element_value (type, got, at);
              worst_want = element_value (type, want, want_at);
              memcpy (worst_index, index, sizeof index);
            }
          n_bad++;
        }
      for (gssize d = (gssize) n_dims - 1; d >= 0; d--)
        {
          if (++index[d] < sizes[d])
            break;
          index[d] = 0;
        }
    }
  if (n_bad > 0)
    {
      g_autofree char *where = format_index ((guint) n_dims, worst_index);

      if (floating)
        _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                       "%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " elements "
                       "differ; worst at %s: got %.9g, expected %.9g (error %.6g, allowed %.6g)",
                       n_bad, numel, where, worst_got, worst_want, fabs (worst_got - worst_want),
                       atol + rtol * fabs (worst_want));
      else
        _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                       "%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " elements "
                       "differ; first at %s: got %.17g, expected %.17g",
                       n_bad, numel, where, worst_got, worst_want);
      return FALSE;
    }
  return TRUE;
}
