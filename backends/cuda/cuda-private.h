/* cuda-private.h: the CUDA backend's internal interfaces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The backend is built in two layers.  The core (AOTInductor host functions,
 * the ELF import check, model loading, the delegate) talks to the GPU only
 * through CudaDeviceOps; cuda-runtime.c fills that table from cudart in the
 * shipped library, and the CPU-side tests fill it with host memory, so all
 * of the core runs without a GPU.
 */
#pragma once

#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API 1
#include "executorch-plugin.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

G_BEGIN_DECLS

/* Torch's device type numbering, which generated code compares against. */
#define AOTI_DEVICE_CPU 0
#define AOTI_DEVICE_CUDA 1

typedef enum
{
  CUDA_COPY_HOST_TO_DEVICE,
  CUDA_COPY_DEVICE_TO_HOST,
  CUDA_COPY_DEVICE_TO_DEVICE,
} CudaCopyKind;

/* Every call returns 0 on success, else a nonzero code it can name with
 * error_string.  @stream may be NULL (CUDA's legacy default stream). */
typedef struct
{
  const char *name;
  int (*malloc_async) (void **ptr, size_t nbytes, void *stream);
  int (*free_async) (void *ptr, void *stream);
  int (*memcpy_async) (void *dst, const void *src, size_t nbytes, CudaCopyKind kind, void *stream);
  int (*memset_async) (void *ptr, int value, size_t nbytes, void *stream);
  int (*stream_create) (void **stream);
  int (*stream_destroy) (void *stream);
  int (*stream_synchronize) (void *stream);
  int (*get_device) (int *index);
  int (*set_device) (int index);
  /* Optional: a device-to-device copy between two layouts of one shape. */
  int (*strided_copy) (void *dst, const int64_t *dst_strides, const void *src, const int64_t *src_strides,
                       const int64_t *sizes, int ndim, int64_t numel, int element, void *stream);
  /* 1 when @ptr is device or managed memory, 0 when it is host memory. */
  int (*is_device_pointer) (const void *ptr);
  const char *(*error_string) (int code);
} CudaDeviceOps;

/* The ops the core uses; set once, before any method loads. */
void _executorch_cuda_set_ops (const CudaDeviceOps *ops);
const CudaDeviceOps *_executorch_cuda_ops (void);

/* ---- AOTInductor tensors (aoti-tensor.c) ---- */

typedef struct _AotiStorage AotiStorage;

/* What an AtenTensorHandle points at.  Generated code never looks inside. */
typedef struct
{
  AotiStorage *storage;
  int64_t storage_offset; /* elements */
  int32_t dtype;          /* torch ScalarType = EtScalarType */
  int64_t ndim;
  int64_t numel;
  int64_t *sizes; /* point into inline_dims up to ET_MAX_DIMS dims */
  int64_t *strides;
  int64_t inline_dims[2 * ET_MAX_DIMS];
} AotiTensor;

/* A view over memory owned by someone else (ET buffers, constants). */
AotiTensor *_aoti_tensor_new_borrowed (void *data, int64_t ndim, const int64_t *sizes, const int64_t *strides,
                                       int64_t storage_offset, int32_t dtype, int32_t device_type,
                                       int32_t device_index);
/* Fresh memory on the device (CPU: host memory), stream-ordered on @stream. */
AotiTensor *_aoti_tensor_new_empty (int64_t ndim, const int64_t *sizes, const int64_t *strides, int32_t dtype,
                                    int32_t device_type, int32_t device_index, void *stream);
/* Another handle on the same storage, with its own sizes/strides/offset. */
AotiTensor *_aoti_tensor_new_view (const AotiTensor *base, int64_t ndim, const int64_t *sizes, const int64_t *strides,
                                   int64_t storage_offset);
void _aoti_tensor_free (AotiTensor *tensor);

void *_aoti_tensor_data (const AotiTensor *tensor);
int32_t _aoti_tensor_device_type (const AotiTensor *tensor);
int32_t _aoti_tensor_device_index (const AotiTensor *tensor);
size_t _aoti_tensor_storage_nbytes (const AotiTensor *tensor);
bool _aoti_tensor_is_contiguous (const AotiTensor *tensor);
/* Bytes spanned from the first to one past the last element. */
bool _aoti_tensor_span_nbytes (const AotiTensor *tensor, size_t *nbytes);
/* dst = src, elementwise with broadcasting of equal-numel layouts only:
 * contiguous pairs in one copy, others element by element. */
int _aoti_tensor_copy (AotiTensor *dst, const AotiTensor *src, void *stream);

/* Live handles, for leak checks in tests. */
int64_t _aoti_tensor_live_count (void);

/* ---- Streams and guards (aoti-shims.c) ---- */

/* The stream generated code runs on, on this thread; NULL = default. */
void *_aoti_current_stream (void);
/* Sets it and returns the previous one. */
void *_aoti_swap_current_stream (void *stream);

/* The names of every host function the shim layer exports, sorted. */
extern const char *const _aoti_shim_names[];
extern const size_t _aoti_shim_n_names;
bool _aoti_shim_provided (const char *name);

/* ---- ELF import check (elf-imports.c) ---- */

/* Reads the dynamic symbols of an ELF64 shared object held in memory.
 * Every offset and size is checked; a malformed file gives FALSE and a
 * GError naming the field.  @undefined and @defined receive symbol names
 * (g_free them). */
gboolean _executorch_elf_dynamic_symbols (const guint8 *data, gsize size, GPtrArray *undefined, GPtrArray *defined,
                                          GError **error);

/* The model .so's contract with us: the container functions it must export
 * and the host functions it may import.  FALSE with a GError listing every
 * missing name otherwise. */
gboolean _executorch_cuda_check_model (const guint8 *data, gsize size, GError **error);

/* ---- The delegate (cuda-backend.c) ---- */

extern const EtBackend _executorch_cuda_backend;

G_END_DECLS
