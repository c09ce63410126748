/* model-library.h: loading an AOTInductor model .so from memory
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "cuda-private.h"

G_BEGIN_DECLS

typedef int32_t (*AotiCreateWithDevice) (void **container, size_t n_models, const char *device, const char *cubin_dir);
typedef int32_t (*AotiDelete) (void *container);
typedef int32_t (*AotiGetCount) (void *container, size_t *count);
typedef int32_t (*AotiRun) (void *container, AotiTensor **inputs, size_t n_inputs, AotiTensor **outputs,
                            size_t n_outputs, void *stream, void *proxy_executor);
typedef int32_t (*AotiUpdateConstantsFromBlob) (void *container, const uint8_t *blob);

typedef struct
{
  void *handle; /* dlopen() */
  int fd;       /* the memfd, or -1 */
  char *path;   /* a file we wrote and must unlink, or NULL */
  AotiCreateWithDevice create_with_device;
  AotiDelete delete_container;
  AotiGetCount get_num_inputs;
  AotiGetCount get_num_outputs;
  AotiRun run;
  AotiUpdateConstantsFromBlob update_constants_from_blob; /* optional (torch < 2.9 lacks it) */
} ModelLibrary;

/* Checks the .so's imports and exports, writes it to an anonymous file
 * and dlopen()s it privately (RTLD_LOCAL), so several models exporting the
 * same names stay apart. */
ModelLibrary *_executorch_model_library_load (const guint8 *data, gsize size, GError **error);
void _executorch_model_library_free (ModelLibrary *library);

G_END_DECLS
