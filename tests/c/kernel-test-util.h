/* kernel-test-util.h: argument stacks and kernel calls for the C kernel tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The kernel tests build EtTensor/EtValue argument stacks the way the
 * interpreter does (schema order, IntLists of Int slots, None entries of
 * Tensor?[] as NULL, out followed by the return slot) and call kernels by
 * name through the default registry.  This is the one copy of those
 * helpers; each test program keeps only what is particular to it.
 */
#pragma once

#ifndef EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API 1
#endif
#include "executorch-plugin.h"

#include <glib.h>

const EtPluginDesc *executorch_kernels_get_plugin (void);

/* Registers the kernel library by hand (tests run without discovery). */
void register_kernels_plugin (void);

/* ---- Tensors ---- */

typedef struct
{
  EtTensor t;
  EtValue v;
} Tensor;

/* @dim_order NULL is contiguous; @capacity 0 is exactly the tensor's bytes.
 * @data is not copied. */
void tensor_init_full (Tensor *x, int type, uint32_t ndim, const int64_t *sizes, const uint8_t *dim_order, void *data,
                       int dynamism, size_t capacity);
void tensor_init (Tensor *x, int type, uint32_t ndim, const int64_t *sizes, void *data);
/* A dynamic out tensor with room for @capacity_elems elements. */
void tensor_init_dynamic (Tensor *x, int type, uint32_t ndim, const int64_t *sizes, void *data, size_t capacity_elems);

/* Element offset of the logical row-major index @flat in @x. */
int64_t tensor_offset (const Tensor *x, int64_t flat);
/* Element @flat (logical row-major order), read or written as a double. */
double tensor_get (const Tensor *x, int64_t flat);
void tensor_set (Tensor *x, int64_t flat, double v);

/* A random permutation of 0..@ndim-1 (from the g_test_rand sequence). */
void random_dim_order (uint32_t ndim, uint8_t *order);

/* ---- Values ---- */

EtValue int_value (int64_t v);
EtValue double_value (double v);
EtValue bool_value (bool v);
EtValue none_value (void);
/* @s is not copied. */
EtValue string_value (const char *s);

/* An IntList whose items point at Int value slots, as in a loaded program. */
typedef struct
{
  EtValue slots[32];
  EtValue *ptrs[32];
  EtValue v;
} IntList;

void int_list_init (IntList *l, uint32_t n, const int64_t *items);

typedef struct
{
  EtValue *ptrs[8];
  EtValue v;
} TensorList;

/* A Tensor[] or, when @optional, a Tensor?[] whose NULL items are None. */
void tensor_list_init (TensorList *l, uint32_t n, Tensor **items, bool optional);

/* ---- Calling kernels ---- */

/* The message of the last call(), empty when it gave none. */
/* The message of the last failed call() ("" after a success). */
extern const char *last_message;

/* Calls the registered kernel @name (a test error when there is none);
 * a failure's code and message go to the test log. */
EtError call (const char *name, EtValue **args, uint32_t n_args);

#define CALL(name, ...)                         \
  ({                                            \
    EtValue *args_[] = { __VA_ARGS__ };         \
    call ((name), args_, G_N_ELEMENTS (args_)); \
  })

/* Relative tolerance @tol around @want (absolute near 0); two NaNs match. */
void assert_close (double got, double want, double tol);
