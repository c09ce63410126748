/* npy.h: reading and writing NumPy .npy files (for executorch-run)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <executorch.h>

G_BEGIN_DECLS

#define NPY_MAX_DIMS 16

/* An array in C (row-major) order. */
typedef struct
{
  ExecutorchScalarType scalar_type;
  gsize n_dims;
  gint64 sizes[NPY_MAX_DIMS];
  gint64 numel;
  GBytes *data; /* numel * element size bytes */
} NpyArray;

void npy_array_clear (NpyArray *array);

/* Parses a whole .npy file (v1.0, v2.0 or v3.0, little-endian, C order).
 * Errors are in EXECUTORCH_ERROR (INVALID_ARGUMENT, NOT_SUPPORTED). */
gboolean npy_parse (GBytes *file, NpyArray *array, GError **error);

/* Reads @path; messages start with the file name, and a file that cannot
 * be read is a G_IO_ERROR (NOT_FOUND when it does not exist). */
gboolean npy_read_file (const char *path, NpyArray *array, GError **error);

/* The .npy descr of @scalar_type ("<f4"), or NULL when .npy has no
 * equivalent (BFloat16, complex, quantized, ...). */
const char *npy_descr_for (ExecutorchScalarType scalar_type);

/* Encodes a v1.0 file. */
GBytes *npy_encode (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims, const void *data, gsize nbytes,
                    GError **error);

gboolean npy_write_file (const char *path, ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims,
                         const void *data, gsize nbytes, GError **error);

G_END_DECLS
