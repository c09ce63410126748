/* conv-split.h: a convolution with large weights as slices of its output
 * channels (see conv-split.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <xnnpack.h>

#include "backend-private.h"

/* Tests: the weight bytes a slice may have from now on, instead of the L2
 * cache or EXECUTORCH_XNNPACK_CONV_SLICE_KIB (G_MAXSIZE: never split; 0:
 * back to those). */
void xb_conv_split_set_budget (size_t bytes);
/* Whether @node (at @shapes) is a convolution better defined in slices. */
gboolean xb_conv_split_wanted (const XbGraph *graph, const XbNode *node, const XbShape *shapes);
/* Defines @node in @sg as convolutions over slices of its output channels
 * and their concatenation, from XNNPACK value @input into @output. */
enum xnn_status xb_conv_define_split (const XbGraph *graph, const XbNode *node, const XbShape *shapes,
                                      xnn_subgraph_t sg, uint32_t input, uint32_t output);
