/* test-helpers.c: helpers for the tests and the fuzz target (linked only
 * into the internal static library, never into libexecutorch-xnnpack.so)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-plugin.h"
#include "backend-private.h"

static guint8 zeros[1 << 20];

gboolean
xb_zero_named_data (gpointer user_data, const char *key, const void **data, size_t *size)
{
  *data = zeros;
  *size = sizeof zeros;
  return TRUE;
}

/* The tensor type of an external value's argument, and its element size. */
static int
argument_type (const XbValue *val, size_t *size)
{
  int datatype = val->narrow_datatype ? val->narrow_datatype : val->datatype;
  *size = xb_datatype_size (datatype) ? xb_datatype_size (datatype) : 4;
  switch (datatype)
    {
      case XB_DT_FP16: return ET_SCALAR_HALF;
      case XB_DT_BF16: return ET_SCALAR_BFLOAT16;
      case XB_DT_QINT8: return ET_SCALAR_CHAR;
      case XB_DT_QUINT8: return ET_SCALAR_BYTE;
      case XB_DT_QINT32:
      case XB_DT_INT32: return ET_SCALAR_INT;
      default: return ET_SCALAR_FLOAT;
    }
}

/* Runs a delegate that built from a hostile payload on zero inputs shaped
 * and typed like its external values: it must return, with an error or not. */
void
xb_delegate_run_zeros (void *handle)
{
  const XbGraph *g = xb_delegate_get_graph (handle);
  const XbShape *shapes = xb_delegate_get_shapes (handle);
  uint32_t n_args = g->num_externs;
  EtValue *values = g_new0 (EtValue, n_args + 1);
  EtTensor *tensors = g_new0 (EtTensor, n_args + 1);
  EtValue **args = g_new0 (EtValue *, n_args + 1);
  void **blocks = g_new0 (void *, n_args + 1);
  for (uint32_t a = 0; a < n_args; a++)
    {
      args[a] = &values[a];
      values[a].tag = ET_VALUE_NONE;
    }
  for (uint32_t v = 0; v < g->n_values; v++)
    {
      const XbValue *val = &g->values[v];
      if (!val->flags || val->external_id >= n_args || values[val->external_id].tag != ET_VALUE_NONE)
        continue;
      EtTensor *t = &tensors[val->external_id];
      size_t esize;
      t->ndim = shapes[v].ndim;
      t->scalar_type = argument_type (val, &esize);
      t->shape_dynamism = ET_SHAPE_DYNAMIC_BOUND;
      size_t numel = 1;
      gboolean small = t->ndim <= ET_MAX_DIMS;
      for (uint32_t d = 0; small && d < t->ndim; d++)
        {
          t->sizes[d] = (int64_t) shapes[v].dims[d];
          t->dim_order[d] = (uint8_t) d;
          if (shapes[v].dims[d] > (1u << 22) || (shapes[v].dims[d] && numel > (1u << 22) / shapes[v].dims[d]))
            small = FALSE;
          else
            numel *= shapes[v].dims[d];
        }
      if (!small)
        continue;
      et_strides_from_dim_order (t->ndim, t->sizes, t->dim_order, t->strides);
      t->numel = (int64_t) numel;
      t->nbytes = t->capacity = numel * esize;
      t->data = blocks[val->external_id] = g_malloc0 (numel * esize + 16);
      values[val->external_id].tag = ET_VALUE_TENSOR;
      values[val->external_id].u.tensor = t;
    }
  EtErrorContext *report = et_error_context_new ();
  int code = xb_delegate_execute (handle, args, n_args, report);
  if (code != ET_OK)
    g_assert (et_error_context_message (report)[0] != '\0');
  et_error_context_free (report);
  for (uint32_t a = 0; a < n_args; a++)
    g_free (blocks[a]);
  g_free (blocks);
  g_free (args);
  g_free (tensors);
  g_free (values);
}
