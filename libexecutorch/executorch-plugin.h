/* executorch-plugin.h: the plain-C ABI for kernel, backend and device-allocator libraries
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * This header is the contract between libexecutorch and the libraries that
 * plug into it.  It uses only <stdint.h>, <stddef.h> and <stdbool.h> types so
 * that a plug-in can be written in any language that can call C.  It is not
 * part of the GObject API and is not introspected.
 *
 * Define EXECUTORCH_USE_UNSTABLE_PLUGIN_API before including it: the ABI is
 * versioned by ET_PLUGIN_ABI_VERSION and may still change before 1.0.
 */
#pragma once

#ifndef EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#error "executorch-plugin.h is unstable: define EXECUTORCH_USE_UNSTABLE_PLUGIN_API to use it"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "executorch-visibility.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct below changes layout or meaning.  2: failures
 * are reported through an EtErrorContext (messages of any length) instead
 * of fixed-size caller buffers and a per-thread last message. */
#define ET_PLUGIN_ABI_VERSION 2u

/* Upstream's kTensorDimensionLimit. */
#define ET_MAX_DIMS 16

/* Error codes: numerically identical to upstream runtime::Error and to
 * ExecutorchError, so a number in a log means the same thing everywhere. */
typedef enum
{
  ET_OK = 0x00,
  ET_ERROR_INTERNAL = 0x01,
  ET_ERROR_INVALID_STATE = 0x02,
  ET_ERROR_END_OF_METHOD = 0x03,
  ET_ERROR_ALREADY_LOADED = 0x04,
  ET_ERROR_NOT_SUPPORTED = 0x10,
  ET_ERROR_NOT_IMPLEMENTED = 0x11,
  ET_ERROR_INVALID_ARGUMENT = 0x12,
  ET_ERROR_INVALID_TYPE = 0x13,
  ET_ERROR_OPERATOR_MISSING = 0x14,
  ET_ERROR_REGISTRATION_EXCEEDING_MAX_KERNELS = 0x15,
  ET_ERROR_REGISTRATION_ALREADY_REGISTERED = 0x16,
  ET_ERROR_NOT_FOUND = 0x20,
  ET_ERROR_MEMORY_ALLOCATION_FAILED = 0x21,
  ET_ERROR_ACCESS_FAILED = 0x22,
  ET_ERROR_INVALID_PROGRAM = 0x23,
  ET_ERROR_INVALID_EXTERNAL_DATA = 0x24,
  ET_ERROR_OUT_OF_RESOURCES = 0x25,
  ET_ERROR_DELEGATE_INVALID_COMPATIBILITY = 0x30,
  ET_ERROR_DELEGATE_MEMORY_ALLOCATION_FAILED = 0x31,
  ET_ERROR_DELEGATE_INVALID_HANDLE = 0x32,
} EtError;

/* Scalar types: the numbering of the .pte schema (and of ExecutorchScalarType). */
typedef enum
{
  ET_SCALAR_BYTE = 0,
  ET_SCALAR_CHAR = 1,
  ET_SCALAR_SHORT = 2,
  ET_SCALAR_INT = 3,
  ET_SCALAR_LONG = 4,
  ET_SCALAR_HALF = 5,
  ET_SCALAR_FLOAT = 6,
  ET_SCALAR_DOUBLE = 7,
  ET_SCALAR_COMPLEX_HALF = 8,
  ET_SCALAR_COMPLEX_FLOAT = 9,
  ET_SCALAR_COMPLEX_DOUBLE = 10,
  ET_SCALAR_BOOL = 11,
  ET_SCALAR_QINT8 = 12,
  ET_SCALAR_QUINT8 = 13,
  ET_SCALAR_QINT32 = 14,
  ET_SCALAR_BFLOAT16 = 15,
  ET_SCALAR_QUINT4X2 = 16,
  ET_SCALAR_QUINT2X4 = 17,
  ET_SCALAR_BITS1X8 = 18,
  ET_SCALAR_BITS2X4 = 19,
  ET_SCALAR_BITS4X2 = 20,
  ET_SCALAR_BITS8 = 21,
  ET_SCALAR_BITS16 = 22,
  ET_SCALAR_FLOAT8_E5M2 = 23,
  ET_SCALAR_FLOAT8_E4M3FN = 24,
  ET_SCALAR_FLOAT8_E5M2FNUZ = 25,
  ET_SCALAR_FLOAT8_E4M3FNUZ = 26,
  ET_SCALAR_UINT16 = 27,
  ET_SCALAR_UINT32 = 28,
  ET_SCALAR_UINT64 = 29,
  ET_SCALAR_N_TYPES = 30,
} EtScalarType;

typedef enum
{
  ET_DEVICE_CPU = 0,
  ET_DEVICE_CUDA = 1,
  ET_DEVICE_N_TYPES = 2,
} EtDeviceType;

typedef enum
{
  ET_SHAPE_STATIC = 0,
  ET_SHAPE_DYNAMIC_BOUND = 1,
  ET_SHAPE_DYNAMIC_UNBOUND = 2,
} EtShapeDynamism;

/* Value tags: upstream's runtime Tag numbering. */
typedef enum
{
  ET_VALUE_NONE = 0,
  ET_VALUE_TENSOR = 1,
  ET_VALUE_STRING = 2,
  ET_VALUE_DOUBLE = 3,
  ET_VALUE_INT = 4,
  ET_VALUE_BOOL = 5,
  ET_VALUE_LIST_BOOL = 6,
  ET_VALUE_LIST_DOUBLE = 7,
  ET_VALUE_LIST_INT = 8,
  ET_VALUE_LIST_TENSOR = 9,
  ET_VALUE_LIST_SCALAR = 10,
  ET_VALUE_LIST_OPTIONAL_TENSOR = 11,
} EtValueTag;

/* A tensor as kernels see it.  Sizes and strides are in logical dimension
 * order; dim_order lists dimensions from outermost to innermost in memory.
 * Kernels change sizes only through et_tensor_resize(), which keeps strides,
 * numel and nbytes consistent and enforces the planned capacity. */
typedef struct
{
  void *data; /* NULL until bound; device memory when device_type != CPU */
  int64_t sizes[ET_MAX_DIMS];
  int64_t strides[ET_MAX_DIMS]; /* in elements */
  uint8_t dim_order[ET_MAX_DIMS];
  uint32_t ndim;
  int8_t scalar_type;     /* EtScalarType */
  uint8_t shape_dynamism; /* EtShapeDynamism */
  int8_t device_type;     /* EtDeviceType */
  int8_t device_index;
  int64_t numel;
  size_t nbytes;   /* numel * element size */
  size_t capacity; /* bytes reserved at data (0 = unknown / not owned) */
  uint32_t flags;  /* ET_TENSOR_FLAG_* */
  uint32_t reserved;
} EtTensor;

#define ET_TENSOR_FLAG_CONSTANT 0x1u /* read-only program data */
#define ET_TENSOR_FLAG_PLANNED 0x2u  /* lives in a planned memory buffer */

typedef struct EtValue EtValue;

/* Lists point at other value slots and must be read at call time:
 * a MoveCall or a prim op may have changed the slot since load. */
typedef struct
{
  EtValue *const *items; /* for LIST_OPTIONAL_TENSOR an item may be NULL (None) */
  uint32_t length;
} EtValueList;

struct EtValue
{
  uint32_t tag; /* EtValueTag */
  uint32_t reserved;
  union
  {
    int64_t int_value;
    double double_value;
    bool bool_value;
    EtTensor *tensor;
    struct
    {
      const char *data; /* not NUL-terminated in general */
      size_t length;
    } string;
    struct
    {
      const bool *items;
      uint32_t length;
    } bool_list;
    struct
    {
      const double *items;
      uint32_t length;
    } double_list;
    EtValueList list; /* LIST_INT, LIST_TENSOR, LIST_OPTIONAL_TENSOR */
  } u;
};

/* ---- Helpers exported by libexecutorch ---- */

/* Element size in bytes, or 0 for an invalid type. */
EXECUTORCH_AVAILABLE_IN_1_0
size_t et_scalar_type_size (int scalar_type);

/* "Float", "Long", ... or NULL for an invalid type. */
EXECUTORCH_AVAILABLE_IN_1_0
const char *et_scalar_type_name (int scalar_type);

/* IEEE half and bfloat16 bits (host order) to and from float, as c10
 * converts them: exact widening, round to nearest even, every bfloat16 NaN
 * the same quiet NaN. */
EXECUTORCH_AVAILABLE_IN_1_0
float et_half_to_float (uint16_t bits);
EXECUTORCH_AVAILABLE_IN_1_0
uint16_t et_float_to_half (float value);
EXECUTORCH_AVAILABLE_IN_1_0
float et_bfloat16_to_float (uint16_t bits);
EXECUTORCH_AVAILABLE_IN_1_0
uint16_t et_float_to_bfloat16 (float value);

/* "Tensor", "Int", "IntList", ... for messages; "unknown" outside EtValueTag. */
EXECUTORCH_AVAILABLE_IN_1_0
const char *et_value_tag_name (uint32_t tag);

/* Changes @tensor's sizes, recomputing strides, numel and nbytes.  Follows
 * upstream: static tensors only accept their own sizes, dynamic ones keep
 * their rank and may not grow past the capacity they were planned with. */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_tensor_resize (EtTensor *tensor, uint32_t ndim, const int64_t *sizes);

/* TRUE when dim_order is 0, 1, ..., ndim-1. */
EXECUTORCH_AVAILABLE_IN_1_0
bool et_tensor_is_contiguous (const EtTensor *tensor);

/* Fills @strides from @sizes and @dim_order (the .pte rule). */
EXECUTORCH_AVAILABLE_IN_1_0
void et_strides_from_dim_order (uint32_t ndim, const int64_t *sizes, const uint8_t *dim_order, int64_t *strides);

/* Reads a Scalar-typed argument (Int, Double or Bool) as double or int64. */
EXECUTORCH_AVAILABLE_IN_1_0
bool et_value_to_double (const EtValue *value, double *out);
EXECUTORCH_AVAILABLE_IN_1_0
bool et_value_to_int (const EtValue *value, int64_t *out);

/* ---- Errors ---- */

/* Where a plug-in says why something failed: a code and a message of any
 * length, which the runtime turns into the caller's GError.  It is the one
 * way failures travel through this ABI: kernels and backends reach theirs
 * through their call context, registration and plug-in init are handed one. */
typedef struct EtErrorContext EtErrorContext;

/* Records @code and the printf-style message, replacing an earlier one,
 * and returns @code (ET_ERROR_INTERNAL for ET_OK).  @error may be NULL. */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_error_context_fail (EtErrorContext *error, EtError code, const char *format, ...)
    __attribute__ ((format (printf, 3, 4)));

/* A context of one's own, for code that calls into this ABI outside a
 * method (tests, other runtimes, applications registering plug-ins). */
EXECUTORCH_AVAILABLE_IN_1_0
EtErrorContext *et_error_context_new (void);
EXECUTORCH_AVAILABLE_IN_1_0
void et_error_context_free (EtErrorContext *error);
/* ET_OK until a failure is recorded. */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_error_context_code (const EtErrorContext *error);
/* "" until a failure is recorded; valid until the next failure or free. */
EXECUTORCH_AVAILABLE_IN_1_0
const char *et_error_context_message (const EtErrorContext *error);

/* ---- Kernels ---- */

/* Per-call context.  A failing kernel returns an error and may record a
 * message in the context's error; the runtime adds the operator name and
 * instruction index. */
typedef struct EtKernelContext EtKernelContext;

/* Where the kernel reports a failure (et_error_context_fail()). */
EXECUTORCH_AVAILABLE_IN_1_0
EtErrorContext *et_kernel_context_error (EtKernelContext *context);

/* Scratch memory valid until the kernel returns (aligned to 64 bytes).
 * Returns NULL when out of memory. */
EXECUTORCH_AVAILABLE_IN_1_0
void *et_kernel_context_scratch (EtKernelContext *context, size_t nbytes);

/* The user data given at registration. */
EXECUTORCH_AVAILABLE_IN_1_0
void *et_kernel_context_user_data (EtKernelContext *context);

/* @args are the instruction's arguments in schema order, each a pointer to
 * one of the method's value slots; for out variants the return slot is the
 * last one. */
typedef EtError (*EtKernelFunc) (EtKernelContext *context, EtValue **args, uint32_t n_args);

typedef struct
{
  const char *name; /* "aten::add.out": name + "." + overload */
  EtKernelFunc func;
  void *user_data;
} EtKernel;

/* ---- Backends (delegates) ---- */

typedef struct EtBackendInitContext EtBackendInitContext;
typedef struct EtBackendExecuteContext EtBackendExecuteContext;

typedef struct
{
  const char *key;
  const void *value;
  size_t value_size;
} EtCompileSpec;

EXECUTORCH_AVAILABLE_IN_1_0
const char *et_backend_init_context_method_name (EtBackendInitContext *context);

/* Looks up a blob by key in the external data the caller gave the program
 * (.ptd files) and then in the program's own named data.  On success
 * *data and *size point into memory that stays valid for the program's life. */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_backend_init_context_named_data (EtBackendInitContext *context, const char *key, const void **data,
                                            size_t *size);

/* Whether the caller allowed this program to run native code it carries
 * (a CUDA program's model .so, say).  A backend that would load code from
 * the program must refuse when this is false. */
EXECUTORCH_AVAILABLE_IN_1_0
bool et_backend_init_context_allows_native_code (EtBackendInitContext *context);

/* Where init reports a failure (et_error_context_fail()). */
EXECUTORCH_AVAILABLE_IN_1_0
EtErrorContext *et_backend_init_context_error (EtBackendInitContext *context);

EXECUTORCH_AVAILABLE_IN_1_0
const char *et_backend_execute_context_method_name (EtBackendExecuteContext *context);

/* Where execute reports a failure (et_error_context_fail()). */
EXECUTORCH_AVAILABLE_IN_1_0
EtErrorContext *et_backend_execute_context_error (EtBackendExecuteContext *context);

EXECUTORCH_AVAILABLE_IN_1_0
void *et_backend_execute_context_scratch (EtBackendExecuteContext *context, size_t nbytes);

typedef struct
{
  uint32_t abi_version; /* ET_PLUGIN_ABI_VERSION */
  const char *id;       /* as stored in the program: "XnnpackBackend" */
  void *user_data;
  bool (*is_available) (void *user_data);
  /* @processed is valid only during init: copy what must outlive it. */
  EtError (*init) (void *user_data, EtBackendInitContext *context, const void *processed, size_t processed_size,
                   const EtCompileSpec *specs, size_t n_specs, void **handle);
  EtError (*execute) (void *user_data, EtBackendExecuteContext *context, void *handle, EtValue **args, uint32_t n_args);
  void (*destroy) (void *user_data, void *handle);
  void *reserved[4];
} EtBackend;

/* ---- Device allocators ---- */

typedef struct
{
  uint32_t abi_version; /* ET_PLUGIN_ABI_VERSION */
  int8_t device_type;   /* EtDeviceType: one allocator per type */
  const char *name;     /* "cuda" */
  void *user_data;
  EtError (*allocate) (void *user_data, size_t nbytes, int device_index, size_t alignment, void **out);
  void (*deallocate) (void *user_data, void *ptr, int device_index);
  EtError (*copy_host_to_device) (void *user_data, void *dst, const void *src, size_t nbytes, int device_index);
  EtError (*copy_device_to_host) (void *user_data, void *dst, const void *src, size_t nbytes, int device_index);
  /* Optional (NULL = NotSupported). */
  EtError (*copy_device_to_device) (void *user_data, void *dst, int dst_index, const void *src, int src_index,
                                    size_t nbytes);
  /* Optional: number of devices of this type present (NULL = 1). */
  int (*device_count) (void *user_data);
  void *reserved[4];
} EtDeviceAllocator;

/* Copies @nbytes from @src to @dst whatever devices they are on, through
 * the registered allocators (host to host is a plain copy; device to device
 * only where the allocator has it).  On failure @error (may be NULL) says
 * which devices. */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_device_copy (int dst_device_type, int dst_device_index, void *dst, int src_device_type, int src_device_index,
                        const void *src, size_t nbytes, EtErrorContext *error);

/* ---- Event tracing (profilers) ---- */

/* Callbacks a Method calls while it loads and runs; every one may be NULL.
 * The tracer times events itself.  A method without a tracer pays one
 * predictable branch per instruction.  Names and ids passed in stay valid
 * for the life of the method; @value (intermediate_output) only during the
 * call. */
typedef struct
{
  uint32_t abi_version; /* ET_PLUGIN_ABI_VERSION */
  void *user_data;
  void (*method_load_begin) (void *user_data, const char *method_name);
  void (*method_load_end) (void *user_data, const char *method_name, EtError result);
  void (*execute_begin) (void *user_data, const char *method_name);
  void (*execute_end) (void *user_data, const char *method_name, EtError result);
  /* @name: the operator ("aten::add.out") or "MOVE_CALL", "JF_CALL", "FREE_CALL". */
  void (*instruction_begin) (void *user_data, uint32_t chain, uint32_t instruction, const char *name);
  void (*instruction_end) (void *user_data, uint32_t chain, uint32_t instruction, const char *name);
  /* Around a DelegateCall, inside its instruction_begin/end pair. */
  void (*delegate_begin) (void *user_data, uint32_t chain, uint32_t instruction, uint32_t delegate_index,
                          const char *backend_id);
  void (*delegate_end) (void *user_data, uint32_t chain, uint32_t instruction, uint32_t delegate_index,
                        const char *backend_id);
  /* Optional: after a kernel ran, its output value (the last argument). */
  void (*intermediate_output) (void *user_data, uint32_t chain, uint32_t instruction, const EtValue *value);
  void *reserved[4];
} EtEventTracer;

/* One recorded event, as a profiler reports it back. */
typedef enum
{
  ET_EVENT_METHOD_LOAD = 1,
  ET_EVENT_EXECUTE = 2,
  ET_EVENT_INSTRUCTION = 3,
  ET_EVENT_DELEGATE = 4,
} EtEventKind;

typedef struct
{
  const char *name;     /* valid until the session is cleared or destroyed */
  const char *delegate; /* backend id for delegate events, else NULL */
  uint64_t start_ns;    /* CLOCK_MONOTONIC */
  uint64_t duration_ns;
  int32_t chain_index;       /* -1 for method-level events */
  int32_t instruction_index; /* -1 for method-level events */
  uint32_t kind;             /* EtEventKind */
  uint32_t run_index;        /* 0 = load, 1.. = executions */
  void *reserved[2];
} EtEventRecord;

/* A profiler (one per process): makes tracing sessions, one per Method,
 * and writes what they recorded as ETDump. */
typedef struct
{
  uint32_t abi_version; /* ET_PLUGIN_ABI_VERSION */
  const char *name;     /* "etdump" */
  void *user_data;
  /* A new session; *tracer stays valid until destroy. */
  EtError (*session_new) (void *user_data, void **session, const EtEventTracer **tracer);
  void (*session_free) (void *user_data, void *session);
  /* Drops the recorded events (but not the load events). */
  void (*session_clear) (void *user_data, void *session);
  size_t (*n_events) (void *user_data, void *session);
  bool (*get_event) (void *user_data, void *session, size_t index, EtEventRecord *record);
  /* The session as a size-prefixed ETDump buffer, malloc()ed: free() it. */
  EtError (*write_etdump) (void *user_data, void *session, uint8_t **data, size_t *size);
  /* Optional: record every kernel's output tensor as a debug event, its
   * data going to the debug buffer the ETDump's tensors point into. */
  EtError (*set_debug_outputs) (void *user_data, void *session, bool enable);
  EtError (*write_debug_buffer) (void *user_data, void *session, uint8_t **data, size_t *size);
  void *reserved[4];
} EtProfiler;

/* ---- Load-time rewrites ---- */

/* A method as it stands at the end of its load, before it first runs:
 * valid only during the rewrite call it is handed to.  Instructions are
 * numbered across the method's chains, in program order.  A rewrite may
 * edit the EtTensor of any value it is not told is pinned (data,
 * dim_order, strides, capacity and flags; the sizes are the program's) and
 * replace an instruction's kernel; it must leave the method computing the
 * same outputs.  Everything a rewrite changes is per method: the same
 * rewrite may run for several methods at once, on several threads. */
typedef struct EtMethodGraph EtMethodGraph;

EXECUTORCH_AVAILABLE_IN_1_0
uint32_t et_method_graph_n_instructions (const EtMethodGraph *graph);

/* The kernel instruction @index calls, or NULL when it calls none (a
 * delegate call, a move, a jump or a free) or @index is out of range. */
EXECUTORCH_AVAILABLE_IN_1_0
const EtKernel *et_method_graph_kernel (const EtMethodGraph *graph, uint32_t index);

/* The arguments of kernel or delegate call @index, as the kernel will be
 * handed them; NULL and *n_args = 0 for other instructions. */
EXECUTORCH_AVAILABLE_IN_1_0
EtValue **et_method_graph_args (const EtMethodGraph *graph, uint32_t index, uint32_t *n_args);

/* Whether @value is used where a rewrite cannot follow it: a method input
 * or output, moved to or from, freed, a jump condition, or an item of a
 * list (except a list whose every reader also takes the item directly, as
 * a multi-output kernel's return list restates its outs).  Its only other
 * uses are as arguments of kernel and delegate calls.  A value that is not
 * one of the method's is pinned. */
EXECUTORCH_AVAILABLE_IN_1_0
bool et_method_graph_value_is_pinned (const EtMethodGraph *graph, const EtValue *value);

/* Whether @value is used by the kernel and delegate calls @users (@n_users
 * instruction numbers) alone, each taking it as an argument or as an item
 * of a list argument, and pinned for no other reason: not a method input
 * or output, moved, freed, a jump condition, nor an item of a list that is.
 * Unlike et_method_graph_value_is_pinned() this follows lists, so a
 * rewrite that replaces the kernel of every user (a cat of a list of
 * dequantized tensors, say) may change what @value's data holds.  False
 * for a value that is not one of the method's. */
EXECUTORCH_AVAILABLE_IN_1_0
bool et_method_graph_value_used_only_by (const EtMethodGraph *graph, const EtValue *value, const uint32_t *users,
                                         uint32_t n_users);

/* Makes kernel instruction @index call @kernel, which must live as long
 * as the method: static, or from et_method_graph_alloc() (a kernel whose
 * user_data says what this one instruction computes).  Error names and
 * profiles use @kernel's name.  Fails with ET_ERROR_INVALID_ARGUMENT for
 * another kind of instruction. */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_method_graph_set_kernel (EtMethodGraph *graph, uint32_t index, const EtKernel *kernel);

/* Zeroed memory, aligned for any scalar, freed with the method: what a
 * rewrite derives from the program (folded or packed constants, the
 * kernels it installs).  NULL when @size is 0 or cannot be allocated. */
EXECUTORCH_AVAILABLE_IN_1_0
void *et_method_graph_alloc (EtMethodGraph *graph, size_t size);

/* A rewrite a plug-in offers: the runtime calls every registered rewrite,
 * in registration order, once for each method it loads.  What a rewrite
 * may assume (how its own kernels read their operands, say) is the
 * plug-in's knowledge, so it checks that the kernels it reasons about are
 * its own (et_method_graph_kernel()'s func) before changing anything. */
typedef struct
{
  uint32_t abi_version; /* ET_PLUGIN_ABI_VERSION */
  const char *name;     /* unique: "kernels:constant-transposes" */
  void *user_data;
  void (*rewrite) (void *user_data, EtMethodGraph *graph);
  void *reserved[4];
} EtMethodRewrite;

/* ---- Registration ---- */

typedef struct EtRegistry EtRegistry;

/* Registering a name, backend id or device type twice fails with
 * ET_ERROR_REGISTRATION_ALREADY_REGISTERED and a message naming both owners.
 * The registry keeps the pointers: descriptors must live as long as the
 * process (plug-ins are never unloaded). */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_registry_add_kernels (EtRegistry *registry, const EtKernel *kernels, size_t n_kernels,
                                 EtErrorContext *error);
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_registry_add_backend (EtRegistry *registry, const EtBackend *backend, EtErrorContext *error);
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_registry_add_device_allocator (EtRegistry *registry, const EtDeviceAllocator *allocator,
                                          EtErrorContext *error);
/* One profiler per process. */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_registry_add_profiler (EtRegistry *registry, const EtProfiler *profiler, EtErrorContext *error);
/* Rewrites are refused when their abi_version is not this header's. */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_registry_add_rewrite (EtRegistry *registry, const EtMethodRewrite *rewrite, EtErrorContext *error);

/* The process registry.  This does not run plug-in discovery. */
EXECUTORCH_AVAILABLE_IN_1_0
EtRegistry *et_registry_get_default (void);

/* NULL when no kernel of that name is registered. */
EXECUTORCH_AVAILABLE_IN_1_0
const EtKernel *et_registry_find_kernel (EtRegistry *registry, const char *name);

/* Runs one kernel outside any method, with a fresh context (for tests and
 * for other runtimes).  On failure the kernel's message, if any, is in
 * @error (may be NULL). */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_kernel_call (const EtKernel *kernel, EtValue **args, uint32_t n_args, EtErrorContext *error);

/* ---- Plug-in descriptor ---- */

typedef enum
{
  ET_PLUGIN_KERNELS = 1,
  ET_PLUGIN_BACKEND = 2,
  ET_PLUGIN_DEVICE_ALLOCATOR = 3,
  ET_PLUGIN_PROFILER = 4,
  ET_PLUGIN_OTHER = 5,
} EtPluginKind;

/* Each plug-in library exports one function returning this descriptor; its
 * name is given by the module manifest (e.g. executorch_kernels_get_plugin). */
typedef struct
{
  uint32_t abi_version; /* ET_PLUGIN_ABI_VERSION */
  const char *name;     /* unique: "kernels", "xnnpack", "cuda" */
  const char *version;  /* the library's version */
  const char *description;
  const char *package; /* Debian package that ships it, for error hints */
  uint32_t kind;       /* EtPluginKind */
  /* 0 = unusable on this machine (e.g. no GPU driver): init is not called.
   * NULL = always usable. */
  int (*probe) (void);
  /* Registers everything (handing @error to the registration calls);
   * returns false with the reason in @error on failure. */
  bool (*init) (EtRegistry *registry, EtErrorContext *error);
  void *reserved[6];
} EtPluginDesc;

typedef const EtPluginDesc *(*EtPluginGetDescFunc) (void);

/* Hands a plug-in to the process registry; init runs once per descriptor
 * however often this is called and whether or not discovery also found the
 * library.  Applications that link a plug-in directly may call this; it is
 * never required when the plug-in is installed (discovery finds it). */
EXECUTORCH_AVAILABLE_IN_1_0
EtError et_registry_add_plugin (const EtPluginDesc *desc, EtErrorContext *error);

#ifdef __cplusplus
}
#endif
