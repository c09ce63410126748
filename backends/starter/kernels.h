/* kernels.h: shared helpers of the starter CPU kernels (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API 1
#include <executorch-plugin.h>

#include <stdbool.h>
#include <stdint.h>

#define FAIL(ctx, ...) et_kernel_context_failf ((ctx), ET_ERROR_INVALID_ARGUMENT, __VA_ARGS__)

/* Element access in a wide type, for the general (any dtype, any layout) paths. */
bool kernel_type_supported (int scalar_type);
double kernel_load (const EtTensor *t, int64_t offset);
void kernel_store (EtTensor *t, int64_t offset, double value);

/* Offset (in elements) of logical coordinate @coord in @t, with broadcasting
 * of size-1 dimensions when @t has fewer or size-1 dims (aligned right). */
int64_t kernel_offset (const EtTensor *t, uint32_t ndim, const int64_t *coord);
/* Advances @coord over @sizes in logical row-major order. */
void kernel_next (uint32_t ndim, const int64_t *sizes, int64_t *coord);

EtError kernel_tensor_arg (EtKernelContext *ctx, EtValue **args, uint32_t i, EtTensor **out);
EtError kernel_int_list (EtKernelContext *ctx, const EtValue *value, int64_t *items, uint32_t *n);
/* Resizes @out, reporting failures with the operator's context. */
EtError kernel_resize (EtKernelContext *ctx, EtTensor *out, uint32_t ndim, const int64_t *sizes);
/* Copies @src into @dst (same logical sizes), converting dtype and layout. */
void kernel_copy (EtTensor *dst, const EtTensor *src);

extern const EtKernel kernel_elementwise[];
extern const unsigned kernel_n_elementwise;
extern const EtKernel kernel_layout[];
extern const unsigned kernel_n_layout;
extern const EtKernel kernel_linalg[];
extern const unsigned kernel_n_linalg;
extern const EtKernel kernel_prim[];
extern const unsigned kernel_n_prim;
