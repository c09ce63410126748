/* method-private.h: a loaded method (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "kernel-context.h"
#include "program-private.h"

typedef enum
{
  INSTRUCTION_KERNEL = 1,
  INSTRUCTION_DELEGATE = 2,
  INSTRUCTION_MOVE = 3,
  INSTRUCTION_JUMP_FALSE = 4,
  INSTRUCTION_FREE = 5,
} InstructionKind;

typedef struct
{
  guint8 kind;
  guint32 a; /* kernel/delegate index, move source, condition, freed value */
  guint32 b; /* move destination, jump destination */
  EtValue **args;
  guint32 n_args;
} Instruction;

typedef struct
{
  guint n_instructions;
  Instruction *instructions;
} Chain;

typedef struct
{
  const EtBackend *backend;
  void *handle;
  gboolean initialised;
} Delegate;

/* Device buffers; host buffers get malloc's 16. */
#define ET_PLANNED_ALIGNMENT 64
/* Host memory an unplanned input is read from in place (kernels read
 * elements of up to 16 bytes there). */
#define ET_INPUT_ALIGNMENT 16

typedef struct
{
  void *data;
  int8_t device_type;
  int8_t device_index;
  gsize size;
} PlannedBuffer;

struct _EtMethod
{
  EtProgram *program;
  const EtMethodMeta *meta;

  guint n_values;
  EtValue *values;
  EtTensor *tensors; /* one per Tensor value at load (values point into this) */
  guint n_tensors;

  guint n_buffers;
  PlannedBuffer *buffers;

  guint n_chains;
  Chain *chains;

  guint n_kernels;
  const EtKernel **kernels; /* by operator index; NULL when unused */
  guint n_delegates;
  Delegate *delegates;

  PlannedBuffer *input_copies; /* by input: what was bound, where planning shares its bytes (else NULL data) */
  gboolean *input_fresh;       /* bound since the last execution */
  GBytes **input_borrowed;     /* by input: the memory read in place (unplanned inputs), or NULL */
  EtTensor *input_bounds;      /* by input: the tensor as the program declares it (sizes at their bound) */
  guint32 *input_indices;
  guint32 *output_indices;
  gboolean *input_set;

  GPtrArray *owned; /* g_free'd blocks: arg arrays, lists */
  EtKernelContext context;
  gint busy;                   /* atomic: claimed for an execution (_et_method_claim) */
  const EtEventTracer *tracer; /* NULL: not traced */
  guint n_rewritten;           /* kernels replaced by load-time rewrites (method-rewrite.c) */
  guint64 max_instructions;    /* per execution; never 0 */
};

void *_et_method_take (EtMethod *method, gpointer block);
/* method-inputs.c: at load, a copy for each planned input whose bytes the
 * plan shares with other values; before each execution, puts back those an
 * earlier execution may have overwritten. */
gboolean _et_method_find_shared_inputs (EtMethod *method, GError **error);
void _et_method_free_input_copies (EtMethod *method);
gboolean _et_method_restore_inputs (EtMethod *method, GError **error);
/* method-rewrite.c: hands the loaded method to every registered rewrite. */
void _et_method_run_rewrites (EtMethod *method);
