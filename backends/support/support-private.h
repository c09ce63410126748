/* support-private.h: the one copy of the helpers the plug-in libraries share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libexecutorch-support is a static library (position-independent, hidden
 * visibility) that the plug-ins link: each plug-in carries its own hidden
 * copy of what it uses, so none of these names is in any library's dynamic
 * symbol table.  It holds argument and tensor checks, dtype names, the CPU
 * feature decision and memory for packed weights; Half/BFloat16 conversion
 * and value-tag names are the runtime's own (et_half_to_float,
 * et_value_tag_name, ...).
 *
 * Every check that can fail attaches a message to the kernel context and
 * returns the error; nothing aborts.  @op, where a function takes one, is
 * the operator name put before the message as "op: " (NULL: no prefix).
 */
#pragma once

#ifndef EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#endif

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "executorch-plugin.h"

/* ---- Messages and names ---- */

/* Attaches "@op: message" (or the message alone when @op is NULL) to @ctx
 * and returns @code. */
EtError _executorch_support_fail (EtKernelContext *ctx, const char *op, EtError code, const char *format, ...)
    __attribute__ ((format (printf, 4, 5)));

/* "Tensor", "IntList", ... for an EtValue tag; "invalid" for anything else. */
/* et_scalar_type_name(), or "invalid". */
const char *_executorch_support_type_name (int type);
/* "[2, 3, 4]" into @buf (at most ET_MAX_DIMS sizes). */
const char *_executorch_support_format_sizes (char *buf, size_t buf_size, uint32_t ndim, const int64_t *sizes);

/* ---- Arguments ----
 *
 * Argument @i of @args (@n_args of them; UINT32_MAX when the caller checked
 * the count already).  A missing argument or a wrong tag is InvalidProgram. */

EtError _executorch_support_check_n_args (EtKernelContext *ctx, const char *op, uint32_t n_args, uint32_t expected);
EtError _executorch_support_arg_value (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t n_args,
                                       uint32_t i, const char *name, const EtValue **value);
/* InvalidProgram "argument @i (@name) must be @expected, not <tag>". */
EtError _executorch_support_wrong_tag (EtKernelContext *ctx, const char *op, uint32_t i, const char *name,
                                       const char *expected, uint32_t tag);
/* A tensor with consistent metadata (see _executorch_support_check_tensor);
 * on the CPU unless @any_device. */
EtError _executorch_support_arg_tensor (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t n_args,
                                        uint32_t i, const char *name, bool any_device, EtTensor **tensor);
EtError _executorch_support_arg_int (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t n_args, uint32_t i,
                                     const char *name, int64_t *value);
/* Int or None: *present = false and *value = 0 for None. */
EtError _executorch_support_arg_opt_int (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t n_args,
                                         uint32_t i, const char *name, bool *present, int64_t *value);
/* An Int naming a scalar type (0 <= value < ET_SCALAR_N_TYPES). */
EtError _executorch_support_arg_dtype (EtKernelContext *ctx, const char *op, EtValue **args, uint32_t n_args,
                                       uint32_t i, const char *name, int *dtype);

/* Validates sizes, strides, dim_order, numel, nbytes and data of @t so that
 * every offset computed from them stays inside its buffer; on the CPU
 * unless @any_device. */
EtError _executorch_support_check_tensor (EtKernelContext *ctx, const char *op, const EtTensor *t, const char *name,
                                          bool any_device);

/* ---- CPU features ---- */

/* True when this process may run AVX2+FMA code: an x86-64 CPU with both,
 * and EXECUTORCH_KERNELS_NO_SIMD unset, empty or "0".  Decided once. */
bool _executorch_support_cpu_has_avx2_fma (void);
/* True when AVX-512F and DQ code may run too: AVX2+FMA as above, both
 * features, and EXECUTORCH_KERNELS_NO_AVX512 unset, empty or "0" (to
 * measure or test the AVX2 paths on an AVX-512 CPU).  Decided once. */
bool _executorch_support_cpu_has_avx512 (void);

/* ---- Packed weights ----
 *
 * Memory for buffers that every execution streams through once, such as
 * packed weights: blocks of 2 MiB and more get a mapping of their own,
 * marked for transparent huge pages (weights-memory.c); smaller ones come
 * from the heap.  Set EXECUTORCH_WEIGHTS_HUGE_PAGES=0 to take every block
 * from the heap.  @alignment is a power of two up to 4096; NULL when out of
 * memory.  Free with _executorch_support_weights_free (NULL is a no-op). */
void *_executorch_support_weights_alloc (size_t size, size_t alignment);
/* Under AddressSanitizer every block comes from the heap, where ASan checks
 * its bounds (in a chunk it would not). */
#if defined(__SANITIZE_ADDRESS__)
#define EXECUTORCH_SUPPORT_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EXECUTORCH_SUPPORT_UNDER_ASAN 1
#endif
#endif
void _executorch_support_weights_free (void *p);
