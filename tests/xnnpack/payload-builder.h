/* payload-builder.h: synthetic XNNPACK delegate payloads for the tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A tiny FlatBuffer writer for the fb_xnnpack schema: a test describes
 * tables (scalars by slot, child tables and vectors by slot) and
 * xb_fb_finish() lays them out, children after their parents, into a legacy
 * (header-less) "XN01" graph whose constants live in constant_buffer.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

typedef struct XbFbObject XbFbObject;

/* A table; its fields are set by slot.  Objects belong to the builder. */
XbFbObject *xb_fb_table (void);
void xb_fb_set_u32 (XbFbObject *table, guint slot, uint32_t value);
void xb_fb_set_i32 (XbFbObject *table, guint slot, int32_t value);
void xb_fb_set_f32 (XbFbObject *table, guint slot, float value);
void xb_fb_set_object (XbFbObject *table, guint slot, XbFbObject *child);
/* Vectors of 4-byte scalars, of bytes (aligned to 16) and of tables. */
XbFbObject *xb_fb_vector_u32 (const uint32_t *values, guint count);
XbFbObject *xb_fb_vector_f32 (const float *values, guint count);
XbFbObject *xb_fb_vector_bytes (const void *data, gsize size);
XbFbObject *xb_fb_vector_tables (XbFbObject *const *tables, guint count);

/* Writes @root as the root table with file identifier @ident (4 chars);
 * frees every object. */
GBytes *xb_fb_finish (XbFbObject *root, const char *ident);

/* ---- fb_xnnpack helpers ---- */

typedef struct XbGraphBuilder XbGraphBuilder;

XbGraphBuilder *xb_graph_builder_new (guint num_externs);
/* Adds constant bytes; returns their constant_buffer index (> 0). */
uint32_t xb_graph_builder_constant (XbGraphBuilder *b, const void *data, gsize size);
/* Adds a value with id @id; returns its XNNTensorValue (to attach quant
 * params with xb_graph_builder_quantize).  constant 0 = none. */
void xb_graph_builder_value (XbGraphBuilder *b, uint32_t id, int datatype, guint ndim, const uint32_t *dims,
                             uint32_t constant, uint32_t external_id, uint32_t flags);
/* Same, with quantization parameters @params of union kind @kind
 * (1 PerChannelQuant, 2 PerTensorQuant, 3 PerTokenDynamicQuant,
 * 4 PerChannelGroupQuant). */
void xb_graph_builder_quantized_value (XbGraphBuilder *b, uint32_t id, int datatype, guint ndim, const uint32_t *dims,
                                       uint32_t constant, uint32_t external_id, uint32_t flags, int kind,
                                       XbFbObject *params);
/* Adds node @body of union kind @type, with an output_min_max table when
 * @has_range. */
void xb_graph_builder_node (XbGraphBuilder *b, int type, XbFbObject *body, gboolean has_range, float min, float max);
GBytes *xb_graph_builder_finish (XbGraphBuilder *b);
