/* test-helpers.c: helpers for the tests and the fuzz target (linked only
 * into the internal static library, never into libexecutorch-xnnpack.so)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-plugin.h"
#include "backend-private.h"

#include <string.h>

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

typedef struct
{
  uint32_t n_args;
  EtValue *values;
  EtTensor *tensors;
  EtValue **args;
  void **blocks;
} Args;

/* Deterministic, varied bytes for a float, integer or 16-bit float input. */
static void
fill_input (EtTensor *t, size_t numel)
{
  for (size_t i = 0; i < numel; i++)
    switch (t->scalar_type)
      {
        case ET_SCALAR_FLOAT: ((float *) t->data)[i] = (float) ((int) ((i * 7919u) % 255u) - 127) / 64.0f; break;
        case ET_SCALAR_CHAR:
        case ET_SCALAR_BYTE: ((guint8 *) t->data)[i] = (guint8) (i * 31u + 7u); break;
        case ET_SCALAR_INT: ((gint32 *) t->data)[i] = (gint32) (i % 5u); break;
        default: break; /* 16-bit floats stay zero: no NaN patterns */
      }
}

/* Arguments shaped and typed like @handle's external values, the inputs
 * zero or (@fill) filled. */
static Args
args_new (void *handle, gboolean fill)
{
  const XbGraph *g = xb_delegate_get_graph (handle);
  const XbShape *shapes = xb_delegate_get_shapes (handle);
  Args a;
  a.n_args = g->num_externs;
  a.values = g_new0 (EtValue, a.n_args + 1);
  a.tensors = g_new0 (EtTensor, a.n_args + 1);
  a.args = g_new0 (EtValue *, a.n_args + 1);
  a.blocks = g_new0 (void *, a.n_args + 1);
  for (uint32_t i = 0; i < a.n_args; i++)
    {
      a.args[i] = &a.values[i];
      a.values[i].tag = ET_VALUE_NONE;
    }
  for (uint32_t v = 0; v < g->n_values; v++)
    {
      const XbValue *val = &g->values[v];
      if (!val->flags || val->external_id >= a.n_args || a.values[val->external_id].tag != ET_VALUE_NONE)
        continue;
      EtTensor *t = &a.tensors[val->external_id];
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
      t->data = a.blocks[val->external_id] = g_malloc0 (numel * esize + 16);
      if (fill && (val->flags & 1))
        fill_input (t, numel);
      a.values[val->external_id].tag = ET_VALUE_TENSOR;
      a.values[val->external_id].u.tensor = t;
    }
  return a;
}

static void
args_free (Args *a)
{
  for (uint32_t i = 0; i < a->n_args; i++)
    g_free (a->blocks[i]);
  g_free (a->blocks);
  g_free (a->args);
  g_free (a->tensors);
  g_free (a->values);
}

/* Runs a delegate that built from a hostile payload on zero inputs shaped
 * and typed like its external values: it must return, with an error or not. */
void
xb_delegate_run_zeros (void *handle)
{
  Args a = args_new (handle, FALSE);
  EtErrorContext *report = et_error_context_new ();
  int code = xb_delegate_execute (handle, a.args, a.n_args, report);
  if (code != ET_OK)
    g_assert (et_error_context_message (report)[0] != '\0');
  et_error_context_free (report);
  args_free (&a);
}

/* Runs @handle on the same filled inputs with its steps on the thread pool
 * and on the calling thread alone; returns whether both ran and every
 * output byte is the same. */
gboolean
xb_delegate_serial_matches_pool (void *handle)
{
  const XbGraph *g = xb_delegate_get_graph (handle);
  Args a = args_new (handle, TRUE);
  GByteArray *pooled = g_byte_array_new ();
  gboolean same = TRUE;
  for (int pass = 0; pass < 2 && same; pass++)
    {
      EtErrorContext *report = et_error_context_new ();
      xb_delegate_set_threading (handle, pass == 0 ? XB_THREADING_POOL : XB_THREADING_SERIAL);
      same = xb_delegate_execute (handle, a.args, a.n_args, report) == ET_OK;
      if (!same)
        g_message ("%s", et_error_context_message (report));
      et_error_context_free (report);
      gsize at = 0;
      for (uint32_t v = 0; v < g->n_values && same; v++)
        {
          const XbValue *val = &g->values[v];
          if (!(val->flags & 2) || val->external_id >= a.n_args || a.values[val->external_id].tag != ET_VALUE_TENSOR)
            continue;
          const EtTensor *t = a.values[val->external_id].u.tensor;
          if (pass == 0)
            g_byte_array_append (pooled, t->data, (guint) t->nbytes);
          else
            same = at + t->nbytes <= pooled->len && memcmp (pooled->data + at, t->data, t->nbytes) == 0;
          at += t->nbytes;
        }
    }
  xb_delegate_set_threading (handle, XB_THREADING_AUTO);
  g_byte_array_unref (pooled);
  args_free (&a);
  return same;
}

/* The output bytes of @handle run on @a (appended to @out); FALSE if it failed. */
static gboolean
run_outputs (void *handle, Args *a, GByteArray *out)
{
  const XbGraph *g = xb_delegate_get_graph (handle);
  EtErrorContext *report = et_error_context_new ();
  gboolean ok = xb_delegate_execute (handle, a->args, a->n_args, report) == ET_OK;
  if (!ok)
    g_message ("%s", et_error_context_message (report));
  et_error_context_free (report);
  for (uint32_t v = 0; v < g->n_values && ok; v++)
    {
      const XbValue *val = &g->values[v];
      if (!(val->flags & 2) || val->external_id >= a->n_args || a->values[val->external_id].tag != ET_VALUE_TENSOR)
        continue;
      const EtTensor *t = a->values[val->external_id].u.tensor;
      g_byte_array_append (out, t->data, (guint) t->nbytes);
    }
  return ok;
}

gboolean
xb_delegates_match (void *a, void *b)
{
  Args args_a = args_new (a, TRUE), args_b = args_new (b, TRUE);
  GByteArray *out_a = g_byte_array_new (), *out_b = g_byte_array_new ();
  gboolean same = run_outputs (a, &args_a, out_a) && run_outputs (b, &args_b, out_b) && out_a->len > 0 &&
                  out_a->len == out_b->len && memcmp (out_a->data, out_b->data, out_a->len) == 0;
  g_byte_array_unref (out_a);
  g_byte_array_unref (out_b);
  args_free (&args_a);
  args_free (&args_b);
  return same;
}
