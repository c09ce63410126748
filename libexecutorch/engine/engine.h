/* engine.h: the plain-C engine the GObject classes wrap (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Programs are immutable and reference counted; a method holds all mutable
 * state and is used by one thread at a time.  Every failure is reported as
 * a GError in EXECUTORCH_ERROR whose code is an EtError value.
 */
#pragma once

#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API 1
#include "../executorch-plugin.h"

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _EtProgram EtProgram;
typedef struct _EtMethod EtMethod;

/* Description of one method input or output, read from the plan. */
typedef struct
{
  EtValueTag tag;
  /* Tensors. */
  int8_t scalar_type;
  uint8_t shape_dynamism;
  int8_t device_type;
  int8_t device_index;
  uint32_t ndim;
  int64_t sizes[ET_MAX_DIMS]; /* serialized sizes (upper bound when dynamic) */
  uint8_t dim_order[ET_MAX_DIMS];
  size_t nbytes;
  gboolean memory_planned;
  /* Scalars: the traced value. */
  int64_t int_value;
  double double_value;
  gboolean bool_value;
} EtValueMeta;

typedef struct
{
  char *name;
  guint n_inputs;
  EtValueMeta *inputs;
  guint n_outputs;
  EtValueMeta *outputs;
  guint n_buffers; /* user-visible planned buffers */
  int64_t *buffer_sizes;
  int8_t *buffer_device_types;
  int8_t *buffer_device_indices;
  char **backends;  /* NULL-terminated, distinct delegate ids in order */
  char **operators; /* NULL-terminated, "name.overload" */
  guint n_instructions;
  char *input_spec; /* container_meta_type strings, "" when absent */
  char *output_spec;
} EtMethodMeta;

/* --- error.c --- */
GQuark _et_error_quark (void);
/* Every GError the library builds comes from these (error.c, which makes
 * the message valid UTF-8): _et_set_error for EXECUTORCH_ERROR, the
 * domain-taking one for the other domains it uses on purpose (G_IO_ERROR
 * for files and cancellation). */
void _et_set_error (GError **error, EtError code, const char *format, ...) G_GNUC_PRINTF (3, 4);
void _et_set_error_domain (GError **error, GQuark domain, gint code, const char *format, ...) G_GNUC_PRINTF (4, 5);
/* Puts "[context] " in front of an existing error's message. */
void _et_prefix_error (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);
const char *_et_error_name (EtError code);

/* --- program.c --- */
/* @pte: the whole .pte file; @external: .ptd files.  All are referenced, not
 * copied, unless @pte's data is not 16-byte aligned (then it is copied). */
EtProgram *_et_program_load (GBytes *pte, GBytes *const *external, guint n_external, GError **error);
EtProgram *_et_program_ref (EtProgram *program);
void _et_program_unref (EtProgram *program);
guint _et_program_n_methods (EtProgram *program);
const char *_et_program_method_name (EtProgram *program, guint index);
/* NULL when no such method (with NOT_FOUND). Owned by the program. */
const EtMethodMeta *_et_program_method_meta (EtProgram *program, const char *name, GError **error);

/* --- method.c / interpreter.c --- */
/* Limits a hostile program meets.  The planned buffers of one method may add
 * up to at most ET_DEFAULT_MAX_MEMORY bytes unless the caller says otherwise;
 * one execution may run at most ET_DEFAULT_MAX_INSTRUCTIONS instructions. */
#define ET_DEFAULT_MAX_MEMORY (G_GUINT64_CONSTANT (4) << 30)
#define ET_DEFAULT_MAX_INSTRUCTIONS G_GUINT64_CONSTANT (10000000)
/* Whether backends may load native code carried by the program (off by default). */
void _et_program_set_allow_native_code (EtProgram *program, gboolean allow);
gboolean _et_program_get_allow_native_code (EtProgram *program);
EtMethod *_et_method_load (EtProgram *program, const char *name, GError **error);
/* As _et_method_load_traced (@tracer may be NULL), failing with
 * MEMORY_ALLOCATION_FAILED before allocating anything when the planned
 * buffers add up to more than @max_memory bytes (0: ET_DEFAULT_MAX_MEMORY). */
EtMethod *_et_method_load_full (EtProgram *program, const char *name, const EtEventTracer *tracer, guint64 max_memory,
                                GError **error);
/* Instructions one execution may run (0: ET_DEFAULT_MAX_INSTRUCTIONS). */
void _et_method_set_max_instructions (EtMethod *method, guint64 max_instructions);
guint64 _et_method_get_max_instructions (EtMethod *method);
/* As _et_method_load, reporting the load (and later executions) to @tracer,
 * which must outlive the method or be replaced first. */
EtMethod *_et_method_load_traced (EtProgram *program, const char *name, const EtEventTracer *tracer, GError **error);
/* Sets or (NULL) removes the method's tracer. */
void _et_method_set_tracer (EtMethod *method, const EtEventTracer *tracer);
void _et_method_free (EtMethod *method);
const EtMethodMeta *_et_method_meta (EtMethod *method);
guint _et_method_n_inputs (EtMethod *method);
guint _et_method_n_outputs (EtMethod *method);
/* A tensor offered as a method input. */
typedef struct
{
  int scalar_type;
  uint32_t ndim;
  const int64_t *sizes;
  const uint8_t *dim_order; /* NULL: contiguous */
  const void *data;         /* on device_type:device_index */
  size_t nbytes;
  int device_type;
  int device_index;
  /* Keeps @data alive and unchanged for as long as it is referenced; NULL
   * when @data is valid only during the call (it is then copied). */
  GBytes *keep;
} EtInput;

/* The one place input policy lives (method-inputs.c): checks @input
 * against the method's input @index (type, sizes within bounds), then
 * rearranges host elements into the program's dim order, copies a planned
 * input in through the device allocators, or has an unplanned one read in
 * place (aligned host memory kept alive by a reference on @input->keep, or
 * an aligned copy; device memory only where the program expects it).  The
 * input stays bound for every execution until it is bound again. */
gboolean _et_method_bind_input (EtMethod *method, guint index, const EtInput *input, GError **error);
/* _et_method_bind_input for contiguous host memory valid during the call. */
gboolean _et_method_set_input_tensor (EtMethod *method, guint index, int scalar_type, uint32_t ndim,
                                      const int64_t *sizes, const void *data, size_t nbytes, GError **error);
gboolean _et_method_set_input_scalar (EtMethod *method, guint index, const EtValue *value, GError **error);
/* The one busy guard: a method is claimed for an execution (refused with
 * INVALID_STATE while it already is), and inputs cannot be bound nor
 * outputs read while it is. */
gboolean _et_method_claim (EtMethod *method, GError **error);
void _et_method_release (EtMethod *method);
/* FALSE with INVALID_STATE while the method is claimed. */
gboolean _et_method_check_idle (EtMethod *method, GError **error);
/* Claims, executes and releases.  @cancellable is polled between
 * instructions. */
gboolean _et_method_execute (EtMethod *method, GCancellable *cancellable, GError **error);
/* Executes a method the caller has claimed (and releases later). */
gboolean _et_method_execute_claimed (EtMethod *method, GCancellable *cancellable, GError **error);
/* The current output value (a view into method memory). */
const EtValue *_et_method_output (EtMethod *method, guint index);

/* --- profiling.c --- */
/* A session of the registered profiler for one method (NOT_SUPPORTED,
 * naming the package, when none is installed). */
typedef struct _EtProfiling EtProfiling;
EtProfiling *_et_profiling_new (const char *method_name, GError **error);
void _et_profiling_free (EtProfiling *profiling);
/* Valid until the session is freed. */
const EtEventTracer *_et_profiling_tracer (EtProfiling *profiling);
size_t _et_profiling_n_events (EtProfiling *profiling);
gboolean _et_profiling_get_event (EtProfiling *profiling, size_t index, EtEventRecord *record);
/* Forgets the executions (the load stays). */
void _et_profiling_clear (EtProfiling *profiling);
GBytes *_et_profiling_etdump (EtProfiling *profiling, GError **error);
gboolean _et_profiling_record_outputs (EtProfiling *profiling, gboolean record, GError **error);
GBytes *_et_profiling_debug_buffer (EtProfiling *profiling, GError **error);

/* --- bundled.c --- */
typedef struct
{
  EtValueTag tag; /* TENSOR, INT, BOOL or DOUBLE */
  int8_t scalar_type;
  uint32_t ndim;
  int64_t sizes[ET_MAX_DIMS];
  uint8_t dim_order[ET_MAX_DIMS]; /* always filled (contiguous when absent) */
  const guint8 *data;             /* inside the file; nbytes exactly */
  size_t nbytes;
  int64_t int_value;
  double double_value;
  gboolean bool_value;
} EtBundledValue;

typedef struct
{
  guint n_inputs;
  EtBundledValue *inputs;
  guint n_expected;
  EtBundledValue *expected;
} EtBundledCase;

typedef struct
{
  char *method;
  guint n_cases;
  EtBundledCase *cases;
} EtBundledSuite;

typedef struct
{
  GBytes *file;
  GBytes *program; /* the embedded .pte (a slice of file) */
  guint32 version;
  guint n_suites;
  EtBundledSuite *suites;
} EtBundled;

/* Parses and checks a whole .bpte; the values point into @file, which is kept. */
EtBundled *_et_bundled_load (GBytes *file, GError **error);
void _et_bundled_free (EtBundled *bundled);

/* --- registry.c --- */
EtRegistry *_et_registry (void);
/* Whether the lookups below (and et_registry_find_kernel) run plug-in
 * discovery first, once; off until libexecutorch.so turns it on. */
void _et_registry_use_discovery (gboolean use);
/* Registry queries (snapshots, NULL-terminated, g_strfreev). */
char **_et_registry_list_kernels (void);
char **_et_registry_list_backends (void);
char **_et_registry_list_plugins (void);
char **_et_registry_list_device_types (void);
const EtBackend *_et_registry_find_backend (const char *id);
const EtDeviceAllocator *_et_registry_find_allocator (int device_type);
/* The registered profiler, or NULL. */
const EtProfiler *_et_registry_find_profiler (void);
/* The registered rewrites, in registration order (g_free the array). */
const EtMethodRewrite **_et_registry_rewrites (guint *n_rewrites);
/* Name of the plug-in that registered @name, for messages; NULL if none. */
const char *_et_registry_kernel_owner (const char *name);
/* The state of plug-in @name ("loaded", "unusable on this machine",
 * "failed: ..."), or NULL when no plug-in of that name was registered. */
char *_et_registry_plugin_state (const char *name);

/* --- discovery.c --- */
/* Loads every plug-in found on the module path, once per process. */
gboolean _et_discovery_ensure (GError **error);

/* --- device.c --- */
/* The one routine that moves bytes between devices. */
gboolean _et_device_copy (int dst_type, int dst_index, void *dst, int src_type, int src_index, const void *src,
                          size_t nbytes, GError **error);
/* Allocation on any device (CPU: aligned host memory). */
void *_et_device_alloc (int device_type, int device_index, size_t nbytes, size_t alignment, GError **error);
void _et_device_free (int device_type, int device_index, void *ptr);
const char *_et_device_type_name (int device_type);

/* --- tensor-util.c --- */
/* nbytes of numel elements with overflow checks; FALSE on overflow. */
gboolean _et_checked_nbytes (int scalar_type, uint32_t ndim, const int64_t *sizes, int64_t *numel, size_t *nbytes);

G_END_DECLS
