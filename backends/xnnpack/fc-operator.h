/* fc-operator.h: fp32 fully-connected nodes as XNNPACK operators whose
 * weights are packed once (fc-operator.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "backend-private.h"

struct pthreadpool;

typedef struct XbFcOperator XbFcOperator;

/* Whether node @n runs as its own operator rather than in a runtime: an
 * fp32 fully-connected with constant weights, on a library whose runtimes
 * cannot be resized. */
gboolean xb_fc_operator_supports (const XbGraph *graph, const XbNode *n);
/* Creates @n's operator, packing its weights. */
XbFcOperator *xb_fc_operator_new (const XbGraph *graph, const XbNode *n, GError **error);
/* Runs @n at the current @shapes on the data in @ptr (one pointer per
 * value); on failure, @why says what failed. */
gboolean xb_fc_operator_run (XbFcOperator *fc, const XbNode *n, const XbShape *shapes, void *const *ptr,
                             struct pthreadpool *pool, const char **why);
void xb_fc_operator_free (XbFcOperator *fc);
