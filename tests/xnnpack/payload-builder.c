/* payload-builder.c: synthetic XNNPACK delegate payloads for the tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Layout: every table is its vtable followed by the table itself (each
 * present field in its own 4-byte little-endian slot, so 8- and 16-bit
 * fields read their low bytes), then its children; every offset points
 * forward, as FlatBuffers' unsigned offsets must.
 */
#include "payload-builder.h"

#include <string.h>

#define MAX_SLOTS 24

typedef enum
{
  OBJ_TABLE,
  OBJ_VECTOR,
  OBJ_TABLES,
} ObjKind;

struct XbFbObject
{
  ObjKind kind;
  /* tables */
  gboolean present[MAX_SLOTS];
  uint32_t scalar[MAX_SLOTS];
  XbFbObject *child[MAX_SLOTS];
  /* vectors */
  GBytes *data;
  guint count, align;
  XbFbObject **items;
};

XbFbObject *
xb_fb_table (void)
{
  XbFbObject *t = g_new0 (XbFbObject, 1);
  t->kind = OBJ_TABLE;
  return t;
}

void
xb_fb_set_u32 (XbFbObject *t, guint slot, uint32_t value)
{
  g_assert (t->kind == OBJ_TABLE && slot < MAX_SLOTS);
  t->present[slot] = TRUE;
  t->scalar[slot] = value;
}

void
xb_fb_set_i32 (XbFbObject *t, guint slot, int32_t value)
{
  xb_fb_set_u32 (t, slot, (uint32_t) value);
}

void
xb_fb_set_f32 (XbFbObject *t, guint slot, float value)
{
  uint32_t bits;
  memcpy (&bits, &value, 4);
  xb_fb_set_u32 (t, slot, bits);
}

void
xb_fb_set_object (XbFbObject *t, guint slot, XbFbObject *child)
{
  g_assert (t->kind == OBJ_TABLE && slot < MAX_SLOTS);
  t->present[slot] = TRUE;
  t->child[slot] = child;
}

static XbFbObject *
vector (const void *data, gsize size, guint count, guint align)
{
  XbFbObject *v = g_new0 (XbFbObject, 1);
  v->kind = OBJ_VECTOR;
  v->data = g_bytes_new (data, size);
  v->count = count;
  v->align = align;
  return v;
}

XbFbObject *
xb_fb_vector_u32 (const uint32_t *values, guint count)
{
  return vector (values, count * 4u, count, 4);
}

XbFbObject *
xb_fb_vector_f32 (const float *values, guint count)
{
  return vector (values, count * 4u, count, 4);
}

XbFbObject *
xb_fb_vector_bytes (const void *data, gsize size)
{
  return vector (data, size, (guint) size, 16);
}

XbFbObject *
xb_fb_vector_tables (XbFbObject *const *tables, guint count)
{
  XbFbObject *v = g_new0 (XbFbObject, 1);
  v->kind = OBJ_TABLES;
  v->count = count;
  v->items = g_memdup2 (tables, sizeof (XbFbObject *) * (count ? count : 1));
  return v;
}

static void
put_u16 (GByteArray *buf, uint16_t v)
{
  guint8 b[2] = { (guint8) v, (guint8) (v >> 8) };
  g_byte_array_append (buf, b, 2);
}

static void
put_u32 (GByteArray *buf, uint32_t v)
{
  guint8 b[4] = { (guint8) v, (guint8) (v >> 8), (guint8) (v >> 16), (guint8) (v >> 24) };
  g_byte_array_append (buf, b, 4);
}

static void
patch_u32 (GByteArray *buf, gsize at, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    buf->data[at + i] = (guint8) (v >> (8 * i));
}

/* Pads so that buf->len + @extra is a multiple of @align. */
static void
pad (GByteArray *buf, guint align, guint extra)
{
  while ((buf->len + extra) % align)
    {
      guint8 zero = 0;
      g_byte_array_append (buf, &zero, 1);
    }
}

static void
free_object (XbFbObject *o)
{
  if (o == NULL)
    return;
  for (guint s = 0; s < MAX_SLOTS; s++)
    free_object (o->child[s]);
  for (guint i = 0; o->kind == OBJ_TABLES && i < o->count; i++)
    free_object (o->items[i]);
  g_free (o->items);
  if (o->data)
    g_bytes_unref (o->data);
  g_free (o);
}

/* Writes @o at the end of @buf; returns where an offset to it must point. */
static gsize
write_object (GByteArray *buf, XbFbObject *o)
{
  if (o->kind == OBJ_VECTOR)
    {
      pad (buf, o->align, 4);
      gsize at = buf->len;
      put_u32 (buf, o->count);
      gsize size;
      const guint8 *d = g_bytes_get_data (o->data, &size);
      g_byte_array_append (buf, d, (guint) size);
      return at;
    }
  if (o->kind == OBJ_TABLES)
    {
      pad (buf, 4, 0);
      gsize at = buf->len;
      put_u32 (buf, o->count);
      for (guint i = 0; i < o->count; i++)
        put_u32 (buf, 0);
      for (guint i = 0; i < o->count; i++)
        {
          gsize slot = at + 4 + 4 * i;
          gsize child = write_object (buf, o->items[i]);
          patch_u32 (buf, slot, (uint32_t) (child - slot));
        }
      return at;
    }
  guint n_slots = 0, n_present = 0;
  for (guint s = 0; s < MAX_SLOTS; s++)
    if (o->present[s])
      {
        n_slots = s + 1;
        n_present++;
      }
  /* vtable, then the table (4-aligned) right after it */
  pad (buf, 4, 4 + 2 * n_slots);
  gsize vtable = buf->len;
  put_u16 (buf, (uint16_t) (4 + 2 * n_slots));
  put_u16 (buf, (uint16_t) (4 + 4 * n_present));
  guint field = 0;
  for (guint s = 0; s < n_slots; s++)
    put_u16 (buf, o->present[s] ? (uint16_t) (4 + 4 * field++) : 0);
  gsize table = buf->len;
  g_assert (table % 4 == 0);
  put_u32 (buf, (uint32_t) (table - vtable));
  for (guint s = 0; s < n_slots; s++)
    if (o->present[s])
      put_u32 (buf, o->child[s] ? 0 : o->scalar[s]);
  field = 0;
  for (guint s = 0; s < n_slots; s++)
    {
      if (!o->present[s])
        continue;
      gsize slot = table + 4 + 4 * field++;
      if (o->child[s])
        {
          gsize child = write_object (buf, o->child[s]);
          patch_u32 (buf, slot, (uint32_t) (child - slot));
        }
    }
  return table;
}

GBytes *
xb_fb_finish (XbFbObject *root, const char *ident)
{
  GByteArray *buf = g_byte_array_new ();
  put_u32 (buf, 0);
  g_byte_array_append (buf, (const guint8 *) ident, 4);
  gsize at = write_object (buf, root);
  patch_u32 (buf, 0, (uint32_t) at);
  free_object (root);
  return g_byte_array_free_to_bytes (buf);
}

/* ---- fb_xnnpack ---- */

struct XbGraphBuilder
{
  guint num_externs;
  GPtrArray *values, *nodes, *buffers;
};

XbGraphBuilder *
xb_graph_builder_new (guint num_externs)
{
  XbGraphBuilder *b = g_new0 (XbGraphBuilder, 1);
  b->num_externs = num_externs;
  b->values = g_ptr_array_new ();
  b->nodes = g_ptr_array_new ();
  b->buffers = g_ptr_array_new ();
  xb_graph_builder_constant (b, NULL, 0); /* index 0 means "no constant" */
  return b;
}

uint32_t
xb_graph_builder_constant (XbGraphBuilder *b, const void *data, gsize size)
{
  XbFbObject *buffer = xb_fb_table ();
  xb_fb_set_object (buffer, 0, xb_fb_vector_bytes (data, size));
  g_ptr_array_add (b->buffers, buffer);
  return b->buffers->len - 1;
}

static XbFbObject *
tensor_value (uint32_t id, int datatype, guint ndim, const uint32_t *dims, uint32_t constant, uint32_t external_id,
              uint32_t flags)
{
  XbFbObject *t = xb_fb_table ();
  xb_fb_set_i32 (t, 0, datatype);
  xb_fb_set_u32 (t, 1, ndim);
  xb_fb_set_object (t, 2, xb_fb_vector_u32 (dims, ndim));
  xb_fb_set_u32 (t, 3, constant);
  xb_fb_set_u32 (t, 4, external_id);
  xb_fb_set_u32 (t, 5, flags);
  xb_fb_set_u32 (t, 6, id);
  return t;
}

void
xb_graph_builder_value (XbGraphBuilder *b, uint32_t id, int datatype, guint ndim, const uint32_t *dims,
                        uint32_t constant, uint32_t external_id, uint32_t flags)
{
  XbFbObject *xv = xb_fb_table ();
  xb_fb_set_u32 (xv, 0, 1);
  xb_fb_set_object (xv, 1, tensor_value (id, datatype, ndim, dims, constant, external_id, flags));
  g_ptr_array_add (b->values, xv);
}

void
xb_graph_builder_quantized_value (XbGraphBuilder *b, uint32_t id, int datatype, guint ndim, const uint32_t *dims,
                                  uint32_t constant, uint32_t external_id, uint32_t flags, int kind, XbFbObject *params)
{
  XbFbObject *q = xb_fb_table ();
  xb_fb_set_object (q, 0, tensor_value (id, datatype, ndim, dims, constant, external_id, flags));
  xb_fb_set_u32 (q, 1, (uint32_t) kind);
  xb_fb_set_object (q, 2, params);
  XbFbObject *xv = xb_fb_table ();
  xb_fb_set_u32 (xv, 0, 2);
  xb_fb_set_object (xv, 1, q);
  g_ptr_array_add (b->values, xv);
}

void
xb_graph_builder_node (XbGraphBuilder *b, int type, XbFbObject *body, gboolean has_range, float min, float max)
{
  XbFbObject *node = xb_fb_table ();
  xb_fb_set_u32 (node, 0, (uint32_t) type);
  xb_fb_set_object (node, 1, body);
  if (has_range)
    {
      XbFbObject *range = xb_fb_table ();
      xb_fb_set_f32 (range, 0, min);
      xb_fb_set_f32 (range, 1, max);
      xb_fb_set_object (node, 3, range);
    }
  g_ptr_array_add (b->nodes, node);
}

GBytes *
xb_graph_builder_finish (XbGraphBuilder *b)
{
  XbFbObject *root = xb_fb_table ();
  xb_fb_set_object (root, 1, xb_fb_vector_tables ((XbFbObject **) b->nodes->pdata, b->nodes->len));
  xb_fb_set_object (root, 2, xb_fb_vector_tables ((XbFbObject **) b->values->pdata, b->values->len));
  xb_fb_set_u32 (root, 3, b->num_externs);
  xb_fb_set_object (root, 6, xb_fb_vector_tables ((XbFbObject **) b->buffers->pdata, b->buffers->len));
  g_ptr_array_unref (b->values);
  g_ptr_array_unref (b->nodes);
  g_ptr_array_unref (b->buffers);
  g_free (b);
  return xb_fb_finish (root, "XN01");
}
