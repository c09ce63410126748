/* method.c: loading a method: values, planned memory, kernels and delegates
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything an execution needs is resolved here, once: every value index
 * in every instruction is checked, every operator and backend is looked up,
 * and every tensor gets its memory.  Execution (interpreter.c) then only
 * checks what can change at run time.
 */
#include "call-context.h"
#include "method-private.h"
#include "provider-hints.h"

#include <stdlib.h>
#include <string.h>

enum
{
  EVALUE_VAL_TYPE,
  EVALUE_VAL
};
enum
{
  LIST_ITEMS
};
enum
{
  CHAIN_INPUTS,
  CHAIN_OUTPUTS,
  CHAIN_INSTRUCTIONS
};
enum
{
  INSTRUCTION_ARGS_TYPE,
  INSTRUCTION_ARGS
};
enum
{
  DELEGATE_ID,
  DELEGATE_PROCESSED,
  DELEGATE_COMPILE_SPECS
};
enum
{
  SPEC_KEY,
  SPEC_VALUE
};

void *
_et_method_take (EtMethod *method, gpointer block)
{
  g_ptr_array_add (method->owned, block);
  return block;
}

/* The whole plan is checked against the cap before anything is allocated,
 * so a hostile plan costs nothing. */
static gboolean
check_memory_limit (const EtMethodMeta *meta, guint64 max_memory, GError **error)
{
  guint64 total = 0;

  for (guint i = 0; i < meta->n_buffers; i++)
    {
      guint64 size = meta->buffer_sizes[i] < 0 ? G_MAXUINT64 : (guint64) meta->buffer_sizes[i];

      if (size > max_memory || total > max_memory - size)
        {
          _et_set_error (error, ET_ERROR_MEMORY_ALLOCATION_FAILED,
                         "planned buffer %u (%" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT
                         " with the buffers before it) is over the memory limit of %" G_GUINT64_FORMAT " bytes",
                         i, size, size > G_MAXUINT64 - total ? G_MAXUINT64 : total + size, max_memory);
          return FALSE;
        }
      total += size;
    }
  return TRUE;
}

static gboolean
allocate_buffers (EtMethod *method, GError **error)
{
  const EtMethodMeta *meta = method->meta;

  method->n_buffers = meta->n_buffers;
  method->buffers = g_new0 (PlannedBuffer, meta->n_buffers);
  for (guint i = 0; i < meta->n_buffers; i++)
    {
      PlannedBuffer *buffer = &method->buffers[i];

      buffer->device_type = meta->buffer_device_types[i];
      buffer->device_index = meta->buffer_device_indices[i];
      buffer->size = (gsize) meta->buffer_sizes[i];
      if ((guint64) meta->buffer_sizes[i] > G_MAXSIZE)
        {
          _et_set_error (error, ET_ERROR_MEMORY_ALLOCATION_FAILED, "planned buffer %u is too large", i);
          return FALSE;
        }
      /* Host buffers start zeroed so results never depend on old heap
       * contents; calloc gets large ones as fresh zero pages, so a huge
       * plan costs address space, not memory, until it is used. */
      if (buffer->device_type == ET_DEVICE_CPU)
        {
          buffer->data = calloc (1, buffer->size > 0 ? buffer->size : 1);
          if (buffer->data == NULL)
            _et_set_error (error, ET_ERROR_MEMORY_ALLOCATION_FAILED,
                           "cannot allocate %" G_GSIZE_FORMAT " bytes of host memory", buffer->size);
        }
      else
        buffer->data =
            _et_device_alloc (buffer->device_type, buffer->device_index, buffer->size, ET_PLANNED_ALIGNMENT, error);
      if (buffer->data == NULL)
        {
          _et_prefix_error (error, "planned buffer %u: ", i);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
layout_matches (const EtNamedBlob *blob, const EtTensorDesc *desc)
{
  if (!blob->has_layout)
    return TRUE;
  if (blob->scalar_type != desc->scalar_type || blob->ndim != desc->ndim)
    return FALSE;
  for (uint32_t i = 0; i < desc->ndim; i++)
    if (blob->sizes[i] != desc->sizes[i] || blob->dim_order[i] != desc->dim_order[i])
      return FALSE;
  return TRUE;
}

/* Kernels read elements in place: data in the file (a constant or a .ptd
 * entry) at an offset misaligned for its elements is refused, not read. */
static gboolean
check_data_alignment (guint index, const EtTensorDesc *desc, const void *data, EtError code, GError **error)
{
  size_t element = et_scalar_type_size (desc->scalar_type);

  if (element > 1 && desc->nbytes > 0 && (guintptr) data % MIN (element, 8) != 0)
    {
      _et_set_error (error, code,
                     "value %u (%s%s): data at an address not aligned for %s elements "
                     "(address %% %zu = %zu)",
                     index, desc->external ? "external tensor " : "constant",
                     desc->external ? desc->fully_qualified_name : "", et_scalar_type_name (desc->scalar_type),
                     MIN (element, 8), (size_t) ((guintptr) data % MIN (element, 8)));
      return FALSE;
    }
  return TRUE;
}

/* Gives @tensor its memory, following the .pte rules for where data lives. */
static gboolean
bind_tensor (EtMethod *method, guint index, const EtTensorDesc *desc, EtTensor *tensor, GError **error)
{
  const void *initial = NULL;

  if (desc->shape_dynamism == ET_SHAPE_DYNAMIC_UNBOUND)
    {
      _et_set_error (error, ET_ERROR_NOT_SUPPORTED,
                     "value %u: tensors of unbounded dynamic shape are not "
                     "supported",
                     index);
      return FALSE;
    }

  if (desc->external && !desc->has_allocation)
    {
      const EtNamedBlob *blob = _et_program_external_tensor (method->program, desc->fully_qualified_name, error);
      if (blob == NULL)
        return FALSE;
      if (!layout_matches (blob, desc) || blob->size < desc->nbytes)
        {
          _et_set_error (error, ET_ERROR_INVALID_EXTERNAL_DATA,
                         "external tensor %s does not match the layout "
                         "the program expects (%s, %u dims, %zu bytes)",
                         desc->fully_qualified_name, et_scalar_type_name (desc->scalar_type), desc->ndim, desc->nbytes);
          return FALSE;
        }
      if (!check_data_alignment (index, desc, blob->data, ET_ERROR_INVALID_EXTERNAL_DATA, error))
        return FALSE;
      tensor->data = (void *) blob->data;
      tensor->flags |= ET_TENSOR_FLAG_CONSTANT;
      tensor->capacity = desc->nbytes;
      return TRUE;
    }
  if (!desc->has_allocation)
    {
      if (desc->data_buffer_idx == 0)
        return TRUE; /* supplied at run time */
      if (!_et_program_constant (method->program, desc->data_buffer_idx, desc->nbytes, &initial, error))
        {
          _et_prefix_error (error, "value %u: ", index);
          return FALSE;
        }
      if (!check_data_alignment (index, desc, initial, ET_ERROR_INVALID_PROGRAM, error))
        return FALSE;
      tensor->data = (void *) initial;
      tensor->flags |= ET_TENSOR_FLAG_CONSTANT;
      tensor->capacity = desc->nbytes;
      return TRUE;
    }

  /* Planned memory. */
  if (desc->memory_id == 0 || desc->memory_id > method->n_buffers)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "value %u: planned in buffer %u, but the method has %u", index,
                     desc->memory_id, method->n_buffers);
      return FALSE;
    }
  {
    PlannedBuffer *buffer = &method->buffers[desc->memory_id - 1];
    size_t element = et_scalar_type_size (desc->scalar_type);
    /* Kernels read elements in place: a misaligned one is undefined behaviour. */
    if (element > 1 && desc->memory_offset % MIN (element, 8) != 0)
      {
        _et_set_error (error, ET_ERROR_INVALID_PROGRAM,
                       "value %u: planned at offset %" G_GUINT64_FORMAT ", which is not aligned for %s elements", index,
                       desc->memory_offset, et_scalar_type_name (desc->scalar_type));
        return FALSE;
      }
    if (desc->memory_offset > buffer->size || desc->nbytes > buffer->size - desc->memory_offset)
      {
        _et_set_error (error, ET_ERROR_MEMORY_ALLOCATION_FAILED,
                       "value %u: %zu bytes at offset %" G_GUINT64_FORMAT
                       " do not fit planned buffer %u (%" G_GSIZE_FORMAT " bytes)",
                       index, desc->nbytes, desc->memory_offset, desc->memory_id - 1, buffer->size);
        return FALSE;
      }
    tensor->data = (guint8 *) buffer->data + desc->memory_offset;
    tensor->flags |= ET_TENSOR_FLAG_PLANNED;
    tensor->capacity = desc->nbytes;
    if (tensor->device_type == ET_DEVICE_CPU && buffer->device_type != ET_DEVICE_CPU)
      {
        tensor->device_type = buffer->device_type;
        tensor->device_index = buffer->device_index;
      }

    if (desc->external)
      {
        const EtNamedBlob *blob = _et_program_external_tensor (method->program, desc->fully_qualified_name, error);
        if (blob == NULL)
          return FALSE;
        if (blob->size < desc->nbytes)
          {
            _et_set_error (error, ET_ERROR_INVALID_EXTERNAL_DATA,
                           "external tensor %s has %" G_GSIZE_FORMAT " bytes, the program needs %zu",
                           desc->fully_qualified_name, blob->size, desc->nbytes);
            return FALSE;
          }
        initial = blob->data;
      }
    else if (desc->data_buffer_idx != 0)
      {
        if (!_et_program_mutable_data (method->program, desc->data_buffer_idx, desc->nbytes, &initial, error))
          {
            _et_prefix_error (error, "value %u: ", index);
            return FALSE;
          }
      }
    if (initial != NULL && !_et_device_copy (tensor->device_type, tensor->device_index, tensor->data, ET_DEVICE_CPU, 0,
                                             initial, desc->nbytes, error))
      return FALSE;
  }
  return TRUE;
}

static void
init_tensor (EtTensor *tensor, const EtTensorDesc *desc)
{
  memset (tensor, 0, sizeof *tensor);
  tensor->ndim = desc->ndim;
  tensor->scalar_type = desc->scalar_type;
  tensor->shape_dynamism = desc->shape_dynamism;
  tensor->device_type = desc->device_type;
  tensor->device_index = desc->device_index;
  memcpy (tensor->sizes, desc->sizes, sizeof desc->sizes);
  memcpy (tensor->dim_order, desc->dim_order, sizeof desc->dim_order);
  et_strides_from_dim_order (desc->ndim, tensor->sizes, tensor->dim_order, tensor->strides);
  tensor->numel = desc->numel;
  tensor->nbytes = desc->nbytes;
}

/* Lists refer to other values; they are resolved once all values exist. */
static gboolean
resolve_list (EtMethod *method, EtFb *fb, EtFbTable payload, guint index, EtValue *value)
{
  gboolean optional = value->tag == ET_VALUE_LIST_OPTIONAL_TENSOR;
  gboolean ints = value->tag == ET_VALUE_LIST_INT;
  EtFbVector items = _et_fb_vector (fb, payload, LIST_ITEMS, ints ? 8 : 4, "list items");
  EtValue **slots = _et_method_take (method, g_new0 (EtValue *, MAX (items.length, 1)));

  for (guint32 i = 0; i < items.length && _et_fb_ok (fb); i++)
    {
      gint64 item = ints ? _et_fb_vector_i64 (fb, items, i) : _et_fb_vector_i32 (fb, items, i);
      EtValue *target;

      if (optional && item == -1)
        continue; /* None */
      if (item < 0 || (guint64) item >= method->n_values)
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                       "value %u: list item %u refers to value %" G_GINT64_FORMAT ", but the method has %u values",
                       index, i, item, method->n_values);
          return FALSE;
        }
      target = &method->values[item];
      if ((ints && target->tag != ET_VALUE_INT) ||
          (!ints && target->tag != ET_VALUE_TENSOR && !(optional && target->tag == ET_VALUE_NONE)))
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                       "value %u: list item %u (value %" G_GINT64_FORMAT ") has the wrong type", index, i, item);
          return FALSE;
        }
      slots[i] = target;
    }
  value->u.list.items = slots;
  value->u.list.length = items.length;
  return _et_fb_ok (fb);
}

static gboolean
load_values (EtMethod *method, EtFb *fb, EtFbTable plan, GError **error)
{
  EtFbVector values = _et_fb_vector (fb, plan, PLAN_VALUES, 4, "ExecutionPlan.values");
  guint n_tensors = 0;

  method->n_values = values.length;
  method->values = g_new0 (EtValue, MAX (values.length, 1));
  /* First pass: count tensors so each gets a stable EtTensor. */
  for (guint32 i = 0; i < values.length && _et_fb_ok (fb); i++)
    {
      EtFbTable value = _et_fb_vector_table (fb, values, i, "ExecutionPlan.values");
      if (_et_value_tag_from_union (_et_fb_u8 (fb, value, EVALUE_VAL_TYPE, 0)) == ET_VALUE_TENSOR)
        n_tensors++;
    }
  if (!_et_fb_take_error (fb, error))
    return FALSE;
  method->tensors = g_new0 (EtTensor, MAX (n_tensors, 1));

  for (guint32 i = 0; i < values.length; i++)
    {
      EtFbTable value = _et_fb_vector_table (fb, values, i, "ExecutionPlan.values");
      int tag = _et_value_tag_from_union (_et_fb_u8 (fb, value, EVALUE_VAL_TYPE, 0));
      EtFbTable payload = _et_fb_table (fb, value, EVALUE_VAL, "EValue.val");
      EtValue *slot = &method->values[i];

      if (!_et_fb_take_error (fb, error))
        return FALSE;
      if (tag < 0 || (tag != ET_VALUE_NONE && !payload.present))
        {
          _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "value %u has an invalid or empty type", i);
          return FALSE;
        }
      slot->tag = (guint32) tag;
      switch (tag)
        {
          case ET_VALUE_INT: slot->u.int_value = _et_fb_i64 (fb, payload, 0, 0); break;
          case ET_VALUE_BOOL: slot->u.bool_value = _et_fb_u8 (fb, payload, 0, 0) != 0; break;
          case ET_VALUE_DOUBLE: slot->u.double_value = _et_fb_f64 (fb, payload, 0, 0.0); break;
          case ET_VALUE_STRING:
            {
              gsize length;
              const char *text = _et_fb_string (fb, payload, 0, &length, "String.string_val");
              slot->u.string.data = text != NULL ? text : "";
              slot->u.string.length = length;
              break;
            }
          case ET_VALUE_LIST_DOUBLE:
            {
              EtFbVector items = _et_fb_vector (fb, payload, LIST_ITEMS, 8, "DoubleList.items");
              double *copy = _et_method_take (method, g_new0 (double, MAX (items.length, 1)));
              for (guint32 j = 0; j < items.length; j++)
                copy[j] = _et_fb_vector_f64 (fb, items, j);
              slot->u.double_list.items = copy;
              slot->u.double_list.length = items.length;
              break;
            }
          case ET_VALUE_LIST_BOOL:
            {
              EtFbVector items = _et_fb_vector (fb, payload, LIST_ITEMS, 1, "BoolList.items");
              bool *copy = _et_method_take (method, g_new0 (bool, MAX (items.length, 1)));
              for (guint32 j = 0; j < items.length; j++)
                copy[j] = _et_fb_vector_u8 (fb, items, j) != 0;
              slot->u.bool_list.items = copy;
              slot->u.bool_list.length = items.length;
              break;
            }
          case ET_VALUE_TENSOR:
            {
              EtTensorDesc desc;
              EtTensor *tensor = &method->tensors[method->n_tensors++];
              if (!_et_tensor_desc_read (fb, payload, i, &desc))
                return _et_fb_take_error (fb, error);
              init_tensor (tensor, &desc);
              slot->u.tensor = tensor;
              if (!bind_tensor (method, i, &desc, tensor, error))
                return FALSE;
              break;
            }
          default: break; /* none, and lists resolved below */
        }
      if (!_et_fb_take_error (fb, error))
        return FALSE;
    }

  for (guint32 i = 0; i < values.length; i++)
    {
      EtValue *slot = &method->values[i];
      if (slot->tag == ET_VALUE_LIST_INT || slot->tag == ET_VALUE_LIST_TENSOR ||
          slot->tag == ET_VALUE_LIST_OPTIONAL_TENSOR)
        {
          EtFbTable value = _et_fb_vector_table (fb, values, i, "ExecutionPlan.values");
          EtFbTable payload = _et_fb_table (fb, value, EVALUE_VAL, "EValue.val");
          if (!resolve_list (method, fb, payload, i, slot))
            return _et_fb_take_error (fb, error);
        }
    }
  return _et_fb_take_error (fb, error);
}

static gboolean
resolve_kernels (EtMethod *method, GError **error)
{
  const EtMethodMeta *meta = method->meta;
  g_autoptr (GString) missing = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autofree char *hint = NULL;
  guint n_missing = 0;

  method->n_kernels = g_strv_length (meta->operators);
  method->kernels = g_new0 (const EtKernel *, MAX (method->n_kernels, 1));
  for (guint i = 0; i < method->n_kernels; i++)
    {
      method->kernels[i] = et_registry_find_kernel (_et_registry (), meta->operators[i]);
      if (method->kernels[i] != NULL)
        continue;
      if (missing == NULL)
        missing = g_string_new (NULL);
      g_string_append_printf (missing, "%s%s", n_missing++ > 0 ? ", " : "", meta->operators[i]);
      g_ptr_array_add (names, meta->operators[i]);
    }
  if (n_missing == 0)
    return TRUE;
  hint = _et_operator_hint ((const char *const *) names->pdata, names->len);
  _et_set_error (error, ET_ERROR_OPERATOR_MISSING, "method %s needs %s no kernel is registered for: %s%s", meta->name,
                 n_missing == 1 ? "an operator" : "operators", missing->str, hint);
  return FALSE;
}

static gboolean
init_delegates (EtMethod *method, EtFb *fb, EtFbTable plan, GError **error)
{
  EtFbVector delegates = _et_fb_vector (fb, plan, PLAN_DELEGATES, 4, "ExecutionPlan.delegates");

  if (!_et_fb_take_error (fb, error))
    return FALSE;
  method->delegates = g_new0 (Delegate, MAX (delegates.length, 1));
  method->n_delegates = delegates.length;
  for (guint32 i = 0; i < delegates.length; i++)
    {
      EtFbTable delegate = _et_fb_vector_table (fb, delegates, i, "ExecutionPlan.delegates");
      const char *id = _et_fb_string (fb, delegate, DELEGATE_ID, NULL, "BackendDelegate.id");
      EtFbTable processed = _et_fb_table (fb, delegate, DELEGATE_PROCESSED, "BackendDelegate.processed");
      EtFbVector specs = _et_fb_vector (fb, delegate, DELEGATE_COMPILE_SPECS, 4, "BackendDelegate.compile_specs");
      g_autofree EtCompileSpec *compile_specs = NULL;
      EtBackendInitContext context = { method->program, method->meta->name };
      const EtBackend *backend;
      const void *payload;
      gsize payload_size;
      EtError code;

      if (!_et_fb_take_error (fb, error))
        return FALSE;
      if (id == NULL)
        {
          _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "delegate %u has no backend id", i);
          return FALSE;
        }
      backend = _et_registry_find_backend (id);
      if (backend == NULL || (backend->is_available != NULL && !backend->is_available (backend->user_data)))
        {
          g_autofree char *hint = backend == NULL ? _et_backend_hint (id) : NULL;
          _et_set_error (error, ET_ERROR_NOT_FOUND, "method %s: backend %s is %s%s", method->meta->name, id,
                         backend == NULL ? "not registered" : "not available on this machine",
                         hint != NULL ? hint : "");
          return FALSE;
        }
      if (!_et_program_delegate_data (method->program, fb, processed, &payload, &payload_size, error))
        {
          _et_prefix_error (error, "delegate %u (%s): ", i, id);
          return FALSE;
        }
      compile_specs = g_new0 (EtCompileSpec, MAX (specs.length, 1));
      for (guint32 j = 0; j < specs.length; j++)
        {
          EtFbTable spec = _et_fb_vector_table (fb, specs, j, "BackendDelegate.compile_specs");
          EtFbVector value = _et_fb_vector (fb, spec, SPEC_VALUE, 1, "CompileSpec.value");
          const char *key = _et_fb_string (fb, spec, SPEC_KEY, NULL, "CompileSpec.key");
          compile_specs[j].key = key != NULL ? key : "";
          compile_specs[j].value = _et_fb_vector_bytes (fb, value);
          compile_specs[j].value_size = value.length;
        }
      if (!_et_fb_take_error (fb, error))
        return FALSE;
      method->delegates[i].backend = backend;
      code = backend->init (backend->user_data, &context, payload, payload_size, compile_specs, specs.length,
                            &method->delegates[i].handle);
      if (code != ET_OK)
        {
          _et_error_context_take (&context.error, code, error,
                                  "method %s: backend %s could not set up delegate "
                                  "%u: ",
                                  method->meta->name, id, i);
          return FALSE;
        }
      _et_error_context_clear (&context.error);
      method->delegates[i].initialised = TRUE;
    }
  return TRUE;
}

static EtValue **
read_args (EtMethod *method, EtFb *fb, EtFbTable call, guint slot, guint32 *n_args, guint chain, guint pc)
{
  EtFbVector args = _et_fb_vector (fb, call, slot, 4, "instruction arguments");
  EtValue **pointers = _et_method_take (method, g_new0 (EtValue *, MAX (args.length, 1)));

  *n_args = args.length;
  for (guint32 i = 0; i < args.length && _et_fb_ok (fb); i++)
    {
      gint32 index = _et_fb_vector_i32 (fb, args, i);
      if (index < 0 || (guint32) index >= method->n_values)
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                       "chain %u instruction %u: argument %u refers to value %d, "
                       "but the method has %u values",
                       chain, pc, i, index, method->n_values);
          return NULL;
        }
      pointers[i] = &method->values[index];
    }
  return pointers;
}

static gboolean
check_index (EtFb *fb, gint64 index, guint64 limit, const char *what, guint chain, guint pc)
{
  if (index < 0 || (guint64) index >= limit)
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                   "chain %u instruction %u: %s %" G_GINT64_FORMAT " is out of range (limit %" G_GUINT64_FORMAT ")",
                   chain, pc, what, index, limit);
      return FALSE;
    }
  return TRUE;
}

static gboolean
load_chains (EtMethod *method, EtFb *fb, EtFbTable plan, GError **error)
{
  EtFbVector chains = _et_fb_vector (fb, plan, PLAN_CHAINS, 4, "ExecutionPlan.chains");

  method->n_chains = chains.length;
  method->chains = g_new0 (Chain, MAX (chains.length, 1));
  for (guint32 c = 0; c < chains.length && _et_fb_ok (fb); c++)
    {
      EtFbTable chain = _et_fb_vector_table (fb, chains, c, "ExecutionPlan.chains");
      EtFbVector instructions = _et_fb_vector (fb, chain, CHAIN_INSTRUCTIONS, 4, "Chain.instructions");
      Chain *out = &method->chains[c];

      out->n_instructions = instructions.length;
      out->instructions = _et_method_take (method, g_new0 (Instruction, MAX (instructions.length, 1)));
      for (guint32 pc = 0; pc < instructions.length && _et_fb_ok (fb); pc++)
        {
          EtFbTable instruction = _et_fb_vector_table (fb, instructions, pc, "Chain.instructions");
          guint8 kind = _et_fb_u8 (fb, instruction, INSTRUCTION_ARGS_TYPE, 0);
          EtFbTable call = _et_fb_table (fb, instruction, INSTRUCTION_ARGS, "Instruction.instr_args");
          Instruction *ins = &out->instructions[pc];
          gint32 a = _et_fb_i32 (fb, call, 0, 0), b = _et_fb_i32 (fb, call, 1, 0);

          if (!_et_fb_ok (fb))
            break;
          if (kind < INSTRUCTION_KERNEL || kind > INSTRUCTION_FREE || !call.present)
            {
              _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "chain %u instruction %u has unknown kind %u", c, pc, kind);
              break;
            }
          ins->kind = kind;
          switch (kind)
            {
              case INSTRUCTION_KERNEL:
                if (check_index (fb, a, method->n_kernels, "operator index", c, pc))
                  ins->args = read_args (method, fb, call, 1, &ins->n_args, c, pc);
                break;
              case INSTRUCTION_DELEGATE:
                if (check_index (fb, a, method->n_delegates, "delegate index", c, pc))
                  ins->args = read_args (method, fb, call, 1, &ins->n_args, c, pc);
                break;
              case INSTRUCTION_MOVE:
                check_index (fb, a, method->n_values, "move source", c, pc);
                check_index (fb, b, method->n_values, "move destination", c, pc);
                break;
              case INSTRUCTION_JUMP_FALSE:
                check_index (fb, a, method->n_values, "condition value", c, pc);
                /* Jumping to one past the end finishes the chain. */
                check_index (fb, b, (guint64) instructions.length + 1, "jump destination", c, pc);
                break;
              case INSTRUCTION_FREE: check_index (fb, a, method->n_values, "freed value", c, pc); break;
            }
          ins->a = (guint32) a;
          ins->b = (guint32) b;
        }
    }
  return _et_fb_take_error (fb, error);
}

static gboolean
load_io (EtMethod *method, EtFb *fb, EtFbTable plan, GError **error)
{
  EtFbVector inputs = _et_fb_vector (fb, plan, PLAN_INPUTS, 4, "ExecutionPlan.inputs");
  EtFbVector outputs = _et_fb_vector (fb, plan, PLAN_OUTPUTS, 4, "ExecutionPlan.outputs");

  /* Ranges were checked when the program built the method metadata. */
  method->input_indices = g_new0 (guint32, MAX (inputs.length, 1));
  method->output_indices = g_new0 (guint32, MAX (outputs.length, 1));
  method->input_set = g_new0 (gboolean, MAX (inputs.length, 1));
  method->input_fresh = g_new0 (gboolean, MAX (inputs.length, 1));
  method->input_borrowed = g_new0 (GBytes *, MAX (inputs.length, 1));
  method->input_bounds = g_new0 (EtTensor, MAX (inputs.length, 1));
  for (guint32 i = 0; i < inputs.length; i++)
    {
      const EtValue *value;

      method->input_indices[i] = (guint32) _et_fb_vector_i32 (fb, inputs, i);
      value = &method->values[method->input_indices[i]];
      /* Non-tensor inputs are baked into the program; they count as set. */
      method->input_set[i] = value->tag != ET_VALUE_TENSOR;
      if (value->tag == ET_VALUE_TENSOR)
        method->input_bounds[i] = *value->u.tensor;
    }
  for (guint32 i = 0; i < outputs.length; i++)
    method->output_indices[i] = (guint32) _et_fb_vector_i32 (fb, outputs, i);
  return _et_fb_take_error (fb, error);
}

static EtMethod *load_method (EtProgram *program, const char *name, guint64 max_memory, GError **error);

EtMethod *
_et_method_load_traced (EtProgram *program, const char *name, const EtEventTracer *tracer, GError **error)
{
  return _et_method_load_full (program, name, tracer, 0, error);
}

EtMethod *
_et_method_load_full (EtProgram *program, const char *name, const EtEventTracer *tracer, guint64 max_memory,
                      GError **error)
{
  GError *local_error = NULL;
  EtMethod *method;

  if (tracer == NULL)
    return load_method (program, name, max_memory, error);
  if (tracer->method_load_begin != NULL)
    tracer->method_load_begin (tracer->user_data, name);
  method = load_method (program, name, max_memory, &local_error);
  if (tracer != NULL && tracer->method_load_end != NULL)
    tracer->method_load_end (tracer->user_data, name, method != NULL ? ET_OK : (EtError) local_error->code);
  if (method != NULL)
    method->tracer = tracer;
  else
    g_propagate_error (error, local_error);
  return method;
}

void
_et_method_set_tracer (EtMethod *method, const EtEventTracer *tracer)
{
  method->tracer = tracer;
}

EtMethod *
_et_method_load (EtProgram *program, const char *name, GError **error)
{
  return load_method (program, name, 0, error);
}

static EtMethod *
load_method (EtProgram *program, const char *name, guint64 max_memory, GError **error)
{
  const EtMethodMeta *meta = _et_program_method_meta (program, name, error);
  EtMethod *method;
  EtFbTable plan;
  EtFb fb;

  if (meta == NULL)
    return NULL;
  if (!check_memory_limit (meta, max_memory != 0 ? max_memory : ET_DEFAULT_MAX_MEMORY, error))
    {
      _et_prefix_error (error, "[method %s][load] ", name);
      return NULL;
    }
  method = g_new0 (EtMethod, 1);
  method->max_instructions = ET_DEFAULT_MAX_INSTRUCTIONS;
  method->program = _et_program_ref (program);
  method->meta = meta;
  method->owned = g_ptr_array_new_with_free_func (g_free);
  _et_kernel_context_init (&method->context, NULL);
  _et_program_reader (program, &fb);

  if (!_et_program_plan (program, &fb, name, &plan, error) || !allocate_buffers (method, error) ||
      !load_values (method, &fb, plan, error) || !resolve_kernels (method, error) ||
      !init_delegates (method, &fb, plan, error) || !load_chains (method, &fb, plan, error) ||
      !load_io (method, &fb, plan, error) || !_et_method_find_shared_inputs (method, error))
    {
      _et_fb_clear (&fb);
      _et_prefix_error (error, "[method %s][load] ", name);
      _et_method_free (method);
      return NULL;
    }
  _et_method_run_rewrites (method);
  return method;
}

void
_et_method_free (EtMethod *method)
{
  if (method == NULL)
    return;
  for (guint i = 0; i < method->n_delegates; i++)
    if (method->delegates[i].initialised && method->delegates[i].backend->destroy != NULL)
      method->delegates[i].backend->destroy (method->delegates[i].backend->user_data, method->delegates[i].handle);
  g_free (method->delegates);
  for (guint i = 0; i < method->n_buffers; i++)
    _et_device_free (method->buffers[i].device_type, method->buffers[i].device_index, method->buffers[i].data);
  g_free (method->buffers);
  _et_method_free_input_copies (method);
  g_free (method->values);
  g_free (method->tensors);
  g_free (method->chains);
  g_free (method->kernels);
  g_free (method->input_indices);
  g_free (method->output_indices);
  g_free (method->input_set);
  g_free (method->input_fresh);
  /* Read in place until now: released once nothing can run. */
  for (guint i = 0; method->input_borrowed != NULL && i < method->meta->n_inputs; i++)
    g_clear_pointer (&method->input_borrowed[i], g_bytes_unref);
  g_free (method->input_borrowed);
  g_free (method->input_bounds);
  if (method->owned != NULL)
    g_ptr_array_unref (method->owned);
  _et_kernel_context_reset (&method->context);
  _et_program_unref (method->program);
  g_free (method);
}

const EtMethodMeta *
_et_method_meta (EtMethod *method)
{
  return method->meta;
}
