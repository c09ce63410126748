/* method-meta.c: what a method takes, returns and needs, read from its plan
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "program-private.h"

#include <string.h>

enum
{
  EVALUE_VAL_TYPE,
  EVALUE_VAL
};
enum
{
  OPERATOR_NAME,
  OPERATOR_OVERLOAD
};
enum
{
  DELEGATE_ID,
  DELEGATE_PROCESSED,
  DELEGATE_COMPILE_SPECS
};
enum
{
  CHAIN_INPUTS,
  CHAIN_OUTPUTS,
  CHAIN_INSTRUCTIONS
};
enum
{
  DEVICE_BUFFER_IDX,
  DEVICE_TYPE,
  DEVICE_INDEX
};
enum
{
  CONTAINER_INPUT_SPEC,
  CONTAINER_OUTPUT_SPEC
};

EtMethodMeta *_et_method_meta_build (EtProgram *program, EtFb *fb, EtFbTable plan, guint plan_index);
void _et_method_meta_free (EtMethodMeta *meta);

void
_et_method_meta_free (EtMethodMeta *meta)
{
  if (meta == NULL)
    return;
  g_free (meta->name);
  g_free (meta->inputs);
  g_free (meta->outputs);
  g_free (meta->buffer_sizes);
  g_free (meta->buffer_device_types);
  g_free (meta->buffer_device_indices);
  g_strfreev (meta->backends);
  g_strfreev (meta->operators);
  g_free (meta->input_spec);
  g_free (meta->output_spec);
  g_free (meta);
}

static gboolean
read_value_meta (EtFb *fb, EtFbVector values, gint32 index, const char *role, guint position, EtValueMeta *meta)
{
  EtFbTable value, payload;
  int tag;

  if (index < 0 || (guint32) index >= values.length)
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "%s %u refers to value %d, but the method has %u values", role,
                   position, index, values.length);
      return FALSE;
    }
  value = _et_fb_vector_table (fb, values, (guint32) index, "ExecutionPlan.values");
  tag = _et_value_tag_from_union (_et_fb_u8 (fb, value, EVALUE_VAL_TYPE, 0));
  payload = _et_fb_table (fb, value, EVALUE_VAL, "EValue.val");
  if (!_et_fb_ok (fb))
    return FALSE;
  if (tag < 0 || (tag != ET_VALUE_NONE && !payload.present))
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "value %d has an invalid or empty type", index);
      return FALSE;
    }
  memset (meta, 0, sizeof *meta);
  meta->tag = tag;
  switch (tag)
    {
      case ET_VALUE_TENSOR:
        {
          EtTensorDesc desc;
          if (!_et_tensor_desc_read (fb, payload, (guint) index, &desc))
            return FALSE;
          meta->scalar_type = desc.scalar_type;
          meta->shape_dynamism = desc.shape_dynamism;
          meta->device_type = desc.device_type;
          meta->device_index = desc.device_index;
          meta->ndim = desc.ndim;
          memcpy (meta->sizes, desc.sizes, sizeof desc.sizes);
          memcpy (meta->dim_order, desc.dim_order, sizeof desc.dim_order);
          meta->nbytes = desc.nbytes;
          meta->memory_planned = desc.has_allocation || (desc.data_buffer_idx != 0 && !desc.external);
          break;
        }
      case ET_VALUE_INT: meta->int_value = _et_fb_i64 (fb, payload, 0, 0); break;
      case ET_VALUE_DOUBLE: meta->double_value = _et_fb_f64 (fb, payload, 0, 0.0); break;
      case ET_VALUE_BOOL: meta->bool_value = _et_fb_u8 (fb, payload, 0, 0) != 0; break;
      case ET_VALUE_NONE:
      case ET_VALUE_STRING: break;
      default:
        _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                     "%s %u is a list (value %d), which methods cannot take or "
                     "return",
                     role, position, index);
        return FALSE;
    }
  return _et_fb_ok (fb);
}

static EtValueMeta *
read_io (EtFb *fb, EtFbTable plan, guint slot, EtFbVector values, const char *role, guint *n)
{
  EtFbVector list = _et_fb_vector (fb, plan, slot, 4, role);
  EtValueMeta *metas = g_new0 (EtValueMeta, list.length);

  *n = list.length;
  for (guint32 i = 0; i < list.length && _et_fb_ok (fb); i++)
    read_value_meta (fb, values, _et_fb_vector_i32 (fb, list, i), role, i, &metas[i]);
  return metas;
}

static char *
dup_string (EtFb *fb, EtFbTable table, guint slot, const char *what)
{
  const char *text = _et_fb_string (fb, table, slot, NULL, what);
  return g_strdup (text != NULL ? text : "");
}

static char **
read_operators (EtFb *fb, EtFbTable plan)
{
  EtFbVector operators = _et_fb_vector (fb, plan, PLAN_OPERATORS, 4, "ExecutionPlan.operators");
  char **names = g_new0 (char *, operators.length + 1);

  for (guint32 i = 0; i < operators.length && _et_fb_ok (fb); i++)
    {
      EtFbTable op = _et_fb_vector_table (fb, operators, i, "ExecutionPlan.operators");
      const char *name = _et_fb_string (fb, op, OPERATOR_NAME, NULL, "Operator.name");
      const char *overload = _et_fb_string (fb, op, OPERATOR_OVERLOAD, NULL, "Operator.overload");

      if (_et_fb_ok (fb) && name == NULL)
        _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "operator %u has no name", i);
      if (!_et_fb_ok (fb))
        break;
      names[i] = overload != NULL && overload[0] != '\0' ? g_strconcat (name, ".", overload, NULL) : g_strdup (name);
    }
  return names;
}

static char **
read_backends (EtFb *fb, EtFbTable plan)
{
  EtFbVector delegates = _et_fb_vector (fb, plan, PLAN_DELEGATES, 4, "ExecutionPlan.delegates");
  GPtrArray *ids = g_ptr_array_new ();

  for (guint32 i = 0; i < delegates.length && _et_fb_ok (fb); i++)
    {
      EtFbTable delegate = _et_fb_vector_table (fb, delegates, i, "ExecutionPlan.delegates");
      const char *id = _et_fb_string (fb, delegate, DELEGATE_ID, NULL, "BackendDelegate.id");
      gboolean seen = FALSE;

      if (_et_fb_ok (fb) && id == NULL)
        _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "delegate %u has no backend id", i);
      if (!_et_fb_ok (fb))
        break;
      for (guint j = 0; j < ids->len; j++)
        seen = seen || strcmp (g_ptr_array_index (ids, j), id) == 0;
      if (!seen)
        g_ptr_array_add (ids, g_strdup (id));
    }
  g_ptr_array_add (ids, NULL);
  return (char **) g_ptr_array_free (ids, FALSE);
}

static void
read_buffers (EtFb *fb, EtFbTable plan, EtMethodMeta *meta)
{
  EtFbVector sizes = _et_fb_vector (fb, plan, PLAN_NON_CONST_BUFFER_SIZES, 8, "ExecutionPlan.non_const_buffer_sizes");
  EtFbVector devices =
      _et_fb_vector (fb, plan, PLAN_NON_CONST_BUFFER_DEVICE, 4, "ExecutionPlan.non_const_buffer_device");

  /* Entry 0 is a reserved placeholder. */
  meta->n_buffers = sizes.length > 0 ? sizes.length - 1 : 0;
  meta->buffer_sizes = g_new0 (int64_t, meta->n_buffers);
  meta->buffer_device_types = g_new0 (int8_t, meta->n_buffers);
  meta->buffer_device_indices = g_new0 (int8_t, meta->n_buffers);
  for (guint i = 0; i < meta->n_buffers; i++)
    {
      meta->buffer_sizes[i] = _et_fb_vector_i64 (fb, sizes, i + 1);
      if (meta->buffer_sizes[i] < 0)
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "planned buffer %u has negative size %" G_GINT64_FORMAT, i,
                       meta->buffer_sizes[i]);
          return;
        }
    }
  for (guint32 i = 0; i < devices.length && _et_fb_ok (fb); i++)
    {
      EtFbTable device = _et_fb_vector_table (fb, devices, i, "ExecutionPlan.non_const_buffer_device");
      gint32 buffer = _et_fb_i32 (fb, device, DEVICE_BUFFER_IDX, 0);
      gint8 type = _et_fb_i8 (fb, device, DEVICE_TYPE, 0);
      gint8 index = _et_fb_i8 (fb, device, DEVICE_INDEX, 0);

      if (!_et_fb_ok (fb))
        return;
      if (buffer < 1 || (guint) buffer > meta->n_buffers || type < 0 || type >= ET_DEVICE_N_TYPES || index < 0)
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                       "buffer device entry %u (buffer %d, device %d:%d) is "
                       "out of range",
                       i, buffer, type, index);
          return;
        }
      meta->buffer_device_types[buffer - 1] = type;
      meta->buffer_device_indices[buffer - 1] = index;
    }
}

EtMethodMeta *
_et_method_meta_build (EtProgram *program, EtFb *fb, EtFbTable plan, guint plan_index)
{
  EtMethodMeta *meta = g_new0 (EtMethodMeta, 1);
  EtFbVector values, chains;
  EtFbTable container;
  static const guint required[] = {
    PLAN_NAME, PLAN_VALUES, PLAN_INPUTS, PLAN_OUTPUTS, PLAN_CHAINS, PLAN_DELEGATES, PLAN_NON_CONST_BUFFER_SIZES
  };
  static const char *const required_names[] = {
    "name", "values", "inputs", "outputs", "chains", "delegates", "non_const_buffer_sizes"
  };

  for (guint i = 0; i < G_N_ELEMENTS (required) && _et_fb_ok (fb); i++)
    if (!_et_fb_has_field (fb, plan, required[i]))
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "method %u lacks its %s", plan_index, required_names[i]);
  meta->name = dup_string (fb, plan, PLAN_NAME, "ExecutionPlan.name");
  values = _et_fb_vector (fb, plan, PLAN_VALUES, 4, "ExecutionPlan.values");
  meta->inputs = read_io (fb, plan, PLAN_INPUTS, values, "input", &meta->n_inputs);
  meta->outputs = read_io (fb, plan, PLAN_OUTPUTS, values, "output", &meta->n_outputs);
  read_buffers (fb, plan, meta);
  meta->operators = read_operators (fb, plan);
  meta->backends = read_backends (fb, plan);

  chains = _et_fb_vector (fb, plan, PLAN_CHAINS, 4, "ExecutionPlan.chains");
  if (_et_fb_ok (fb) && chains.length == 0)
    _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "method %s has no chain", meta->name);
  for (guint32 i = 0; i < chains.length && _et_fb_ok (fb); i++)
    {
      EtFbTable chain = _et_fb_vector_table (fb, chains, i, "ExecutionPlan.chains");
      EtFbVector instructions = _et_fb_vector (fb, chain, CHAIN_INSTRUCTIONS, 4, "Chain.instructions");
      if (_et_fb_ok (fb) && !_et_fb_has_field (fb, chain, CHAIN_INSTRUCTIONS))
        _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "chain %u of method %s has no instruction list", i, meta->name);
      if (instructions.length > G_MAXUINT - meta->n_instructions)
        _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "method %s has too many instructions", meta->name);
      meta->n_instructions += instructions.length;
    }

  container = _et_fb_table (fb, plan, PLAN_CONTAINER_META_TYPE, "ExecutionPlan.container_meta_type");
  meta->input_spec = dup_string (fb, container, CONTAINER_INPUT_SPEC, "ContainerMetadata.encoded_inp_str");
  meta->output_spec = dup_string (fb, container, CONTAINER_OUTPUT_SPEC, "ContainerMetadata.encoded_out_str");

  if (!_et_fb_ok (fb))
    {
      if (meta->name[0] != '\0')
        _et_prefix_error (&fb->error, "method %s: ", meta->name);
      _et_method_meta_free (meta);
      return NULL;
    }
  return meta;
}
