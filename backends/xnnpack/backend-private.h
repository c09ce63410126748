/* backend-private.h: libexecutorch-xnnpack internals
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#ifndef EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API 1
#endif
#include "executorch-plugin.h"

#include "payload-reader.h"

/* Error codes of this domain are EtError values. */
#define XB_ERROR (xb_error_quark ())
GQuark xb_error_quark (void);

/* Shapes: one current shape per graph value. */
typedef struct
{
  uint32_t ndim;
  size_t dims[XB_PAYLOAD_MAX_DIMS];
} XbShape;

/* Computes the shapes of node @index's outputs from its inputs' current
 * shapes (in @shapes) and its parameters, checking that they are
 * consistent; writes them into @shapes. */
gboolean xb_shape_infer_node (const XbGraph *graph, uint32_t index, XbShape *shapes, GError **error);

/* step-work.c: whether nodes [@first, @end) at @shapes do enough work for
 * their XNNPACK runtime to use the thread pool. */
gboolean xb_nodes_worth_threads (const XbGraph *graph, const XbShape *shapes, uint32_t first, uint32_t end);

/* Nodes Debian's XNNPACK lacks that this library runs itself. */
gboolean xb_host_supports (const XbGraph *graph, const XbNode *node, const char **why);
/* Runs a host node; @ptr holds every value's data. */
void xb_host_run (const XbGraph *graph, const XbNode *node, const XbShape *shapes, void *const *ptr);

/* The delegate without an init context (delegate.c), for backend_init,
 * the tests and the fuzz target: parse, check, build. */
void *xb_delegate_new (const void *processed, size_t size, XbNamedDataFunc named, gpointer named_data, GError **error);
/* Binds @args (EtValue **) and runs; @report gets the reason on failure.
 * Returns an EtError. */
int xb_delegate_execute (void *handle, void *args, uint32_t n_args, EtErrorContext *report);
void xb_delegate_free (void *handle);

typedef enum
{
  XB_THREADING_AUTO,
  XB_THREADING_POOL,
  XB_THREADING_SERIAL,
} XbThreading;

void xb_delegate_set_threading (void *handle, XbThreading threading);
uint32_t xb_delegate_count_pooled_steps (void *handle);
const XbGraph *xb_delegate_get_graph (void *handle);
const XbShape *xb_delegate_get_shapes (void *handle);
/* How the graph was cut: XNNPACK runtimes and host nodes. */
void xb_delegate_count_steps (void *handle, uint32_t *n_runtimes, uint32_t *n_host);

/* What XNNPACK is initialized with: packed weights on huge pages
 * (weights-allocator.c). */
struct xnn_allocator;
const struct xnn_allocator *xb_weights_allocator (void);

/* test-helpers.c (internal library only): every named blob is 1 MiB of
 * zeros; runs a built delegate on zero tensors shaped like its externals,
 * asserting that a failure comes with a message. */
gboolean xb_zero_named_data (gpointer user_data, const char *key, const void **data, size_t *size);
void xb_delegate_run_zeros (void *handle);
gboolean xb_delegate_serial_matches_pool (void *handle);
/* Runs @a and @b (built from the same payload) on the same filled inputs;
 * returns whether both ran and every output byte is the same. */
gboolean xb_delegates_match (void *a, void *b);
