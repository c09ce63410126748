/* executorch-tensor.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_H_INSIDE__) && !defined(EXECUTORCH_COMPILATION)
#error "Only <executorch/executorch.h> can be included directly."
#endif

#include <gio/gio.h>

#include "executorch-visibility.h"
#include "executorch-enums.h"

G_BEGIN_DECLS

#include "executorch-device.h"

#define EXECUTORCH_TYPE_TENSOR (executorch_tensor_get_type ())
EXECUTORCH_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ExecutorchTensor, executorch_tensor, EXECUTORCH, TENSOR, GObject)

EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchTensor *executorch_tensor_new (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims,
                                         GBytes *data, GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchTensor *executorch_tensor_new_with_dim_order (ExecutorchScalarType scalar_type, const gint64 *sizes,
                                                        gsize n_dims, const guint8 *dim_order, gsize n_dim_order,
                                                        GBytes *data, GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchTensor *executorch_tensor_new_borrowed (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims,
                                                  gpointer data, gsize nbytes, GObject *owner,
                                                  GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchTensor *executorch_tensor_new_zeros (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims,
                                               GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchTensor *executorch_tensor_new_from_floats (const gint64 *sizes, gsize n_dims, const gfloat *values,
                                                     gsize n_values, GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchScalarType executorch_tensor_get_scalar_type (ExecutorchTensor *tensor);
EXECUTORCH_AVAILABLE_IN_1_0
const gint64 *executorch_tensor_get_sizes (ExecutorchTensor *tensor, gsize *n_dims);
EXECUTORCH_AVAILABLE_IN_1_0
const guint8 *executorch_tensor_get_dim_order (ExecutorchTensor *tensor, gsize *n_dims);
EXECUTORCH_AVAILABLE_IN_1_0
gsize executorch_tensor_get_n_dims (ExecutorchTensor *tensor);
EXECUTORCH_AVAILABLE_IN_1_0
gint64 executorch_tensor_get_numel (ExecutorchTensor *tensor);
EXECUTORCH_AVAILABLE_IN_1_0
gsize executorch_tensor_get_nbytes (ExecutorchTensor *tensor);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchDevice *executorch_tensor_get_device (ExecutorchTensor *tensor);
EXECUTORCH_AVAILABLE_IN_1_0
GBytes *executorch_tensor_get_bytes (ExecutorchTensor *tensor, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gfloat *executorch_tensor_get_floats (ExecutorchTensor *tensor, gsize *n_values, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
gfloat *executorch_tensor_to_floats (ExecutorchTensor *tensor, gsize *n_values, GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchTensor *executorch_tensor_copy (ExecutorchTensor *tensor, GError **error) G_GNUC_WARN_UNUSED_RESULT;
EXECUTORCH_AVAILABLE_IN_1_0
gboolean executorch_tensor_compare (ExecutorchTensor *tensor, ExecutorchTensor *expected, gdouble rtol, gdouble atol,
                                    GError **error);
EXECUTORCH_AVAILABLE_IN_1_0
ExecutorchTensor *executorch_tensor_to_device (ExecutorchTensor *tensor, ExecutorchDevice *device,
                                               GError **error) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
