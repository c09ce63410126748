/* executorch-private.h: glue between the GObject classes and the engine (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Nothing here is exported: the library is built with hidden visibility and
 * these declarations carry no availability macro.
 */
#pragma once

#include "executorch.h"
#include "engine/engine.h"

G_BEGIN_DECLS

/* Alignment the engine wants for memory it borrows (unplanned inputs). */
#define _EXECUTORCH_DATA_ALIGNMENT 16

/* --- executorch-device.c --- */
/* (transfer full): the CPU singleton (a new reference) or a new device. */
ExecutorchDevice *_executorch_device_get (int device_type, int device_index);

/* --- executorch-tensor.c --- */
/* A view of @t's memory: keeps a reference on @owner (the Method whose
 * memory it is) and snapshots the metadata (sizes, dim order, type, device). */
ExecutorchTensor *_executorch_tensor_new_view (GObject *owner, const EtTensor *t);
/* A host tensor owning a copy of @nbytes at @data (metadata from @t). */
ExecutorchTensor *_executorch_tensor_new_copy_of (const EtTensor *t);
/* The tensor's data pointer (host or device memory; NULL when unbound). */
const void *_executorch_tensor_peek_data (ExecutorchTensor *tensor);
/* The GBytes the tensor owns (host tensors only), or NULL for views and
 * device tensors. (transfer none) */
GBytes *_executorch_tensor_peek_bytes (ExecutorchTensor *tensor);
gboolean _executorch_tensor_is_view (ExecutorchTensor *tensor);
/* Copies @nbytes of @data into new host memory aligned to
 * _EXECUTORCH_DATA_ALIGNMENT. (transfer full) */
GBytes *_executorch_aligned_bytes_new (const void *data, gsize nbytes);

/* --- executorch-program.c --- */
/* What g_initable_init() says of an object that loaded in its constructed
 * handler (Program, BundledProgram, Method): a copy of the kept failure. */
gboolean _executorch_init_result (const GError *init_error, GError **error);

/* --- executorch-value-info.c --- */
ExecutorchValueInfo *_executorch_value_info_new (const EtValueMeta *meta);

/* --- executorch-method-info.c --- */
ExecutorchMethodInfo *_executorch_method_info_new (const EtMethodMeta *meta);

/* --- executorch-profile-event.c --- */
ExecutorchProfileEvent *_executorch_profile_event_new (const EtEventRecord *record);

/* --- executorch-program.c --- */
/* (transfer none) */
EtProgram *_executorch_program_get_engine (ExecutorchProgram *program);
/* The file the program was loaded from, for messages; NULL for bytes. */
const char *_executorch_program_get_path (ExecutorchProgram *program);
/* The engine, or NULL with @error set to why the program did not load
 * (a program built with g_object_new() whose load failed). (transfer none) */
EtProgram *_executorch_program_check_loaded (ExecutorchProgram *program, GError **error);
/* Maps a file; a G_IO_ERROR naming it when it cannot be opened (NOT_FOUND
 * when it does not exist). (transfer full) */
GBytes *_executorch_map_file (const char *path, GError **error);

G_END_DECLS
