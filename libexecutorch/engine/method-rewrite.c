/* method-rewrite.c: the loaded method as plug-ins' load-time rewrites see it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine knows no rewrite itself: which operators can be replaced,
 * and by what, depends on how a kernel library reads its operands, so the
 * library that knows offers the rewrite (et_registry_add_rewrite()).  Here
 * is only the EtMethodGraph it works through: instructions flattened
 * across chains, the values it must not see through, and kernel
 * replacement.
 */
#include "method-private.h"

struct EtMethodGraph
{
  EtMethod *method;
  guint n_instructions;
  Instruction **instructions; /* across chains, in program order */
  gboolean *pinned;           /* by value index */
  gboolean *held;             /* pinned for its own sake, or as an item of a list that is */
  guint first_added;          /* kernels[] slots from here on were added by rewrites */
};

static void
pin (EtMethodGraph *graph, guint32 index)
{
  if (index < graph->method->n_values)
    graph->pinned[index] = TRUE;
}

static gboolean
is_list (const EtValue *value)
{
  return value->tag == ET_VALUE_LIST_INT || value->tag == ET_VALUE_LIST_TENSOR || value->tag == ET_VALUE_LIST_SCALAR ||
         value->tag == ET_VALUE_LIST_OPTIONAL_TENSOR;
}

static gboolean
is_argument (const Instruction *ins, const EtValue *value)
{
  for (guint32 i = 0; i < ins->n_args; i++)
    if (ins->args[i] == value)
      return TRUE;
  return FALSE;
}

/* Lists whose items a rewrite can follow anyway: every instruction that
 * takes the list also takes each of its items directly (a multi-output
 * kernel's return slot restating its outs).  Indexed by value; the rest
 * pin their items. */
static gboolean *
find_restating_lists (EtMethodGraph *graph)
{
  EtMethod *method = graph->method;
  gboolean *used = g_new0 (gboolean, MAX (method->n_values, 1));
  gboolean *other = g_new0 (gboolean, MAX (method->n_values, 1));

  for (guint i = 0; i < graph->n_instructions; i++)
    {
      const Instruction *ins = graph->instructions[i];

      if (ins->kind != INSTRUCTION_KERNEL && ins->kind != INSTRUCTION_DELEGATE)
        continue;
      for (guint32 a = 0; a < ins->n_args; a++)
        {
          const EtValue *list = ins->args[a];
          guint v;

          if (list < method->values || list >= method->values + method->n_values || !is_list (list))
            continue;
          v = (guint) (list - method->values);
          used[v] = TRUE;
          for (uint32_t k = 0; k < list->u.list.length; k++)
            if (list->u.list.items[k] != NULL && !is_argument (ins, list->u.list.items[k]))
              other[v] = TRUE;
        }
    }
  for (guint v = 0; v < method->n_values; v++)
    used[v] = used[v] && !other[v];
  g_free (other);
  return used;
}

/* Everything that reads or writes a value other than as a kernel or
 * delegate argument pins it. */
static void
find_pinned (EtMethodGraph *graph)
{
  EtMethod *method = graph->method;
  g_autofree gboolean *restating = NULL;

  graph->pinned = g_new0 (gboolean, MAX (method->n_values, 1));
  for (guint i = 0; i < method->meta->n_inputs; i++)
    pin (graph, method->input_indices[i]);
  for (guint i = 0; i < method->meta->n_outputs; i++)
    pin (graph, method->output_indices[i]);
  for (guint i = 0; i < graph->n_instructions; i++)
    {
      const Instruction *ins = graph->instructions[i];

      if (ins->kind == INSTRUCTION_MOVE)
        {
          pin (graph, ins->a);
          pin (graph, ins->b);
        }
      else if (ins->kind == INSTRUCTION_FREE || ins->kind == INSTRUCTION_JUMP_FALSE)
        pin (graph, ins->a);
    }
  /* After the moves: a list moved or freed pins its items too.  That far,
   * pinned values are held (et_method_graph_value_used_only_by); the items
   * of lists that only kernel calls take are pinned below but not held. */
  graph->held = g_memdup2 (graph->pinned, MAX (method->n_values, 1) * sizeof (gboolean));
  for (guint v = 0; v < method->n_values; v++)
    if (is_list (&method->values[v]) && graph->pinned[v])
      for (uint32_t i = 0; i < method->values[v].u.list.length; i++)
        {
          const EtValue *item = method->values[v].u.list.items[i];
          if (item != NULL && item >= method->values && item < method->values + method->n_values)
            graph->held[item - method->values] = TRUE;
        }
  restating = find_restating_lists (graph);
  for (guint v = 0; v < method->n_values; v++)
    if (is_list (&method->values[v]) && (!restating[v] || graph->pinned[v]))
      for (uint32_t i = 0; i < method->values[v].u.list.length; i++)
        if (method->values[v].u.list.items[i] != NULL)
          pin (graph, (guint32) (method->values[v].u.list.items[i] - method->values));
}

void
_et_method_run_rewrites (EtMethod *method)
{
  EtMethodGraph graph = { .method = method, .first_added = method->n_kernels };
  g_autofree const EtMethodRewrite **rewrites = NULL;
  guint n_rewrites, next = 0;

  rewrites = _et_registry_rewrites (&n_rewrites);
  if (n_rewrites == 0)
    return;
  for (guint c = 0; c < method->n_chains; c++)
    graph.n_instructions += method->chains[c].n_instructions;
  graph.instructions = g_new (Instruction *, MAX (graph.n_instructions, 1));
  for (guint c = 0; c < method->n_chains; c++)
    for (guint pc = 0; pc < method->chains[c].n_instructions; pc++)
      graph.instructions[next++] = &method->chains[c].instructions[pc];
  find_pinned (&graph);
  for (guint i = 0; i < n_rewrites; i++)
    rewrites[i]->rewrite (rewrites[i]->user_data, &graph);
  g_free (graph.pinned);
  g_free (graph.held);
  g_free (graph.instructions);
}

uint32_t
et_method_graph_n_instructions (const EtMethodGraph *graph)
{
  return graph != NULL ? graph->n_instructions : 0;
}

static const Instruction *
kernel_instruction (const EtMethodGraph *graph, uint32_t index)
{
  const Instruction *ins;

  if (graph == NULL || index >= graph->n_instructions)
    return NULL;
  ins = graph->instructions[index];
  return ins->kind == INSTRUCTION_KERNEL && ins->a < graph->method->n_kernels ? ins : NULL;
}

const EtKernel *
et_method_graph_kernel (const EtMethodGraph *graph, uint32_t index)
{
  const Instruction *ins = kernel_instruction (graph, index);

  return ins != NULL ? graph->method->kernels[ins->a] : NULL;
}

EtValue **
et_method_graph_args (const EtMethodGraph *graph, uint32_t index, uint32_t *n_args)
{
  const Instruction *ins;

  *n_args = 0;
  if (graph == NULL || index >= graph->n_instructions)
    return NULL;
  ins = graph->instructions[index];
  if (ins->kind != INSTRUCTION_KERNEL && ins->kind != INSTRUCTION_DELEGATE)
    return NULL;
  *n_args = ins->n_args;
  return ins->args;
}

bool
et_method_graph_value_is_pinned (const EtMethodGraph *graph, const EtValue *value)
{
  const EtMethod *method;

  if (graph == NULL || value == NULL)
    return true;
  method = graph->method;
  if (value < method->values || value >= method->values + method->n_values)
    return true;
  return graph->pinned[value - method->values];
}

/* Whether instruction @index takes @value as an argument or as an item of
 * a list argument. */
static gboolean
takes (const EtMethodGraph *graph, uint32_t index, const EtValue *value)
{
  const Instruction *ins = graph->instructions[index];

  if (ins->kind != INSTRUCTION_KERNEL && ins->kind != INSTRUCTION_DELEGATE)
    return FALSE;
  for (guint32 a = 0; a < ins->n_args; a++)
    {
      const EtValue *arg = ins->args[a];

      if (arg == value)
        return TRUE;
      if (is_list (arg))
        for (uint32_t k = 0; k < arg->u.list.length; k++)
          if (arg->u.list.items[k] == value)
            return TRUE;
    }
  return FALSE;
}

bool
et_method_graph_value_used_only_by (const EtMethodGraph *graph, const EtValue *value, const uint32_t *users,
                                    uint32_t n_users)
{
  const EtMethod *method;

  if (graph == NULL || value == NULL || (users == NULL && n_users > 0))
    return false;
  method = graph->method;
  if (value < method->values || value >= method->values + method->n_values || graph->held[value - method->values])
    return false;
  for (uint32_t index = 0; index < graph->n_instructions; index++)
    {
      gboolean listed = FALSE;

      for (uint32_t u = 0; u < n_users && !listed; u++)
        listed = users[u] == index;
      if (!listed && takes (graph, index, value))
        return false;
    }
  return true;
}

EtError
et_method_graph_set_kernel (EtMethodGraph *graph, uint32_t index, const EtKernel *kernel)
{
  EtMethod *method;
  Instruction *ins;
  guint slot;

  if (kernel_instruction (graph, index) == NULL || kernel == NULL || kernel->name == NULL || kernel->func == NULL)
    return ET_ERROR_INVALID_ARGUMENT;
  method = graph->method;
  ins = graph->instructions[index];
  if (method->kernels[ins->a] == kernel)
    return ET_OK;
  /* A replacement gets a kernel slot past the program's operators, shared
   * by every instruction replaced with it. */
  for (slot = graph->first_added; slot < method->n_kernels; slot++)
    if (method->kernels[slot] == kernel)
      break;
  if (slot == method->n_kernels)
    {
      method->kernels = g_renew (const EtKernel *, method->kernels, method->n_kernels + 1);
      method->kernels[method->n_kernels++] = kernel;
    }
  ins->a = slot;
  method->n_rewritten++;
  return ET_OK;
}

void *
et_method_graph_alloc (EtMethodGraph *graph, size_t size)
{
  void *block;

  if (graph == NULL || size == 0)
    return NULL;
  block = g_try_malloc0 (size);
  if (block == NULL)
    return NULL;
  return _et_method_take (graph->method, block);
}
