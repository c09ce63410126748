/* interpreter.c: running a method's instructions
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "call-context.h"
#include "method-private.h"

#include <math.h>
#include <string.h>

void
_et_method_set_max_instructions (EtMethod *method, guint64 max_instructions)
{
  /* The default is upstream's guard against programs that loop forever. */
  method->max_instructions = max_instructions != 0 ? max_instructions : ET_DEFAULT_MAX_INSTRUCTIONS;
}

guint64
_et_method_get_max_instructions (EtMethod *method)
{
  return method->max_instructions;
}

guint
_et_method_n_inputs (EtMethod *method)
{
  return method->meta->n_inputs;
}

guint
_et_method_n_outputs (EtMethod *method)
{
  return method->meta->n_outputs;
}

const EtValue *
_et_method_output (EtMethod *method, guint index)
{
  g_return_val_if_fail (index < method->meta->n_outputs, NULL);
  return &method->values[method->output_indices[index]];
}

static gboolean
condition_value (const EtValue *value, gboolean *result, GError **error)
{
  if (value->tag == ET_VALUE_BOOL)
    {
      *result = value->u.bool_value;
      return TRUE;
    }
  if (value->tag == ET_VALUE_TENSOR && value->u.tensor->scalar_type == ET_SCALAR_BOOL)
    {
      const EtTensor *tensor = value->u.tensor;
      const guint8 *data = tensor->data;

      if (data == NULL && tensor->numel > 0)
        {
          _et_set_error (error, ET_ERROR_INVALID_STATE, "condition tensor has no data");
          return FALSE;
        }
      if (tensor->device_type != ET_DEVICE_CPU)
        {
          _et_set_error (error, ET_ERROR_NOT_SUPPORTED, "condition tensor is not in host memory");
          return FALSE;
        }
      *result = TRUE;
      for (int64_t i = 0; i < tensor->numel; i++)
        if (!data[i])
          *result = FALSE;
      return TRUE;
    }
  _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "condition is a %s, not a Bool or Bool tensor",
                 et_value_tag_name (value->tag));
  return FALSE;
}

static gboolean
run_instruction (EtMethod *method, guint chain, guint pc, const Instruction *ins, guint *next, GError **error)
{
  EtError code;

  *next = pc + 1;
  switch (ins->kind)
    {
      case INSTRUCTION_KERNEL:
        {
          const EtKernel *kernel = method->kernels[ins->a];
          method->context.kernel = kernel;
          code = kernel->func (&method->context, ins->args, ins->n_args);
          if (code != ET_OK)
            _et_error_context_take (&method->context.error, code, error, "chain %u instruction %u (%s): ", chain, pc,
                                    kernel->name);
          _et_kernel_context_reset (&method->context);
          return code == ET_OK;
        }
      case INSTRUCTION_DELEGATE:
        {
          Delegate *delegate = &method->delegates[ins->a];
          EtBackendExecuteContext context = { method->meta->name };
          _et_kernel_context_init (&context.scratch, NULL);
          code = delegate->backend->execute (delegate->backend->user_data, &context, delegate->handle, ins->args,
                                             ins->n_args);
          if (code != ET_OK)
            _et_error_context_take (&context.scratch.error, code, error,
                                    "chain %u instruction %u (delegate %u, "
                                    "%s): ",
                                    chain, pc, ins->a, delegate->backend->id);
          _et_kernel_context_reset (&context.scratch);
          return code == ET_OK;
        }
      case INSTRUCTION_MOVE: method->values[ins->b] = method->values[ins->a]; return TRUE;
      case INSTRUCTION_JUMP_FALSE:
        {
          gboolean condition;
          if (!condition_value (&method->values[ins->a], &condition, error))
            {
              _et_prefix_error (error, "chain %u instruction %u (jump): ", chain, pc);
              return FALSE;
            }
          if (!condition)
            *next = ins->b;
          return TRUE;
        }
      case INSTRUCTION_FREE:
        if (method->values[ins->a].tag != ET_VALUE_TENSOR)
          {
            _et_set_error (error, ET_ERROR_INVALID_PROGRAM,
                           "chain %u instruction %u frees value %u, which is not "
                           "a tensor",
                           chain, pc, ins->a);
            return FALSE;
          }
        method->values[ins->a].u.tensor->data = NULL;
        return TRUE;
      default: g_assert_not_reached ();
    }
}

static const char *
instruction_name (EtMethod *method, const Instruction *ins)
{
  switch (ins->kind)
    {
      case INSTRUCTION_KERNEL: return method->kernels[ins->a]->name;
      case INSTRUCTION_DELEGATE: return "DELEGATE_CALL";
      case INSTRUCTION_MOVE: return "MOVE_CALL";
      case INSTRUCTION_JUMP_FALSE: return "JF_CALL";
      case INSTRUCTION_FREE: return "FREE_CALL";
      default: return "UNKNOWN";
    }
}

/* run_instruction() with the tracer told about it; kept apart so the
 * untraced loop stays as it was. */
static gboolean
run_traced (EtMethod *method, guint chain, guint pc, const Instruction *ins, guint *next, GError **error)
{
  const EtEventTracer *tracer = method->tracer;
  const char *name = instruction_name (method, ins);
  gboolean ok;

  if (tracer->instruction_begin != NULL)
    tracer->instruction_begin (tracer->user_data, chain, pc, name);
  if (ins->kind == INSTRUCTION_DELEGATE)
    {
      const char *id = method->delegates[ins->a].backend->id;
      if (tracer->delegate_begin != NULL)
        tracer->delegate_begin (tracer->user_data, chain, pc, ins->a, id);
      ok = run_instruction (method, chain, pc, ins, next, error);
      if (tracer->delegate_end != NULL)
        tracer->delegate_end (tracer->user_data, chain, pc, ins->a, id);
    }
  else
    ok = run_instruction (method, chain, pc, ins, next, error);
  if (tracer->instruction_end != NULL)
    tracer->instruction_end (tracer->user_data, chain, pc, name);
  if (ok && ins->kind == INSTRUCTION_KERNEL && ins->n_args > 0 && tracer->intermediate_output != NULL)
    tracer->intermediate_output (tracer->user_data, chain, pc, ins->args[ins->n_args - 1]);
  return ok;
}

gboolean
_et_method_claim (EtMethod *method, GError **error)
{
  if (!g_atomic_int_compare_and_exchange (&method->busy, 0, 1))
    {
      _et_set_error (error, ET_ERROR_INVALID_STATE, "method %s is already executing", method->meta->name);
      return FALSE;
    }
  return TRUE;
}

void
_et_method_release (EtMethod *method)
{
  g_atomic_int_set (&method->busy, 0);
}

gboolean
_et_method_execute (EtMethod *method, GCancellable *cancellable, GError **error)
{
  gboolean ok;

  if (!_et_method_claim (method, error))
    return FALSE;
  ok = _et_method_execute_claimed (method, cancellable, error);
  _et_method_release (method);
  return ok;
}

gboolean
_et_method_execute_claimed (EtMethod *method, GCancellable *cancellable, GError **error)
{
  guint64 executed = 0;
  gboolean ok = TRUE;

  for (guint i = 0; i < method->meta->n_inputs; i++)
    if (!method->input_set[i])
      {
        _et_set_error (error, ET_ERROR_INVALID_ARGUMENT, "[method %s][execute] input %u is not set", method->meta->name,
                       i);
        return FALSE;
      }
  if (!_et_method_restore_inputs (method, error))
    {
      _et_prefix_error (error, "[method %s][execute] ", method->meta->name);
      return FALSE;
    }

  if (method->tracer != NULL && method->tracer->execute_begin != NULL)
    method->tracer->execute_begin (method->tracer->user_data, method->meta->name);
  for (guint c = 0; c < method->n_chains && ok; c++)
    {
      const Chain *chain = &method->chains[c];
      guint pc = 0;

      while (pc < chain->n_instructions && ok)
        {
          guint next;

          if (++executed > method->max_instructions)
            {
              _et_set_error (error, ET_ERROR_INVALID_PROGRAM,
                             "more than %" G_GUINT64_FORMAT " instructions "
                             "executed (the instruction budget); the program seems to loop forever",
                             method->max_instructions);
              ok = FALSE;
              break;
            }
          if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
            {
              _et_set_error_domain (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "execution was cancelled");
              ok = FALSE;
              break;
            }
          if (G_LIKELY (method->tracer == NULL))
            ok = run_instruction (method, c, pc, &chain->instructions[pc], &next, error);
          else
            ok = run_traced (method, c, pc, &chain->instructions[pc], &next, error);
          pc = next;
        }
    }
  if (method->tracer != NULL && method->tracer->execute_end != NULL)
    method->tracer->execute_end (method->tracer->user_data, method->meta->name,
                                 ok ? ET_OK
                                 : error != NULL && *error != NULL && (*error)->domain == _et_error_quark ()
                                     ? (EtError) (*error)->code
                                     : ET_ERROR_INTERNAL);
  if (!ok)
    _et_prefix_error (error, "[method %s][execute] ", method->meta->name);
  return ok;
}
