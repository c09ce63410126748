/* ptd-writer.c: writes a .ptd (FlatTensor) holding opaque named blobs, so
 * the CUDA tests can hand the backend a model .so built at test time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The layout is upstream's FlatTensor one, as libexecutorch/engine/ptd.c
 * reads it: the FlatBuffer with the FH01 header inserted after its first 8
 * bytes, then the segment data at a 128-aligned base.  Tables are laid out front to back
 * with their vtables right before them.
 */
#include "ptd-writer.h"

#include <string.h>

static void
put16 (GByteArray *b, gsize at, guint16 v)
{
  b->data[at] = (guint8) v;
  b->data[at + 1] = (guint8) (v >> 8);
}

static void
put32 (GByteArray *b, gsize at, guint32 v)
{
  put16 (b, at, (guint16) v);
  put16 (b, at + 2, (guint16) (v >> 16));
}

static void
put64 (GByteArray *b, gsize at, guint64 v)
{
  put32 (b, at, (guint32) v);
  put32 (b, at + 4, (guint32) (v >> 32));
}

/* Grows @b by @n zero bytes and returns where they start. */
static gsize
grow (GByteArray *b, gsize n)
{
  gsize at = b->len;
  g_byte_array_set_size (b, b->len + n);
  memset (b->data + at, 0, n);
  return at;
}

static void
align (GByteArray *b, gsize to)
{
  grow (b, (to - b->len % to) % to);
}

/* A vtable for @n_fields fields at @offsets followed by its table of
 * @table_size bytes (soffset first); returns the table position.  The
 * table is @table_align-aligned. */
static gsize
table (GByteArray *b, guint n_fields, const guint16 *offsets, guint16 table_size, gsize table_align)
{
  gsize vtable_size = 4 + 2 * n_fields, vtable, at;

  /* Pad so that the table after the vtable lands aligned. */
  align (b, 2);
  while ((b->len + vtable_size) % table_align != 0)
    grow (b, 2);
  vtable = grow (b, vtable_size);
  put16 (b, vtable, (guint16) vtable_size);
  put16 (b, vtable + 2, table_size);
  for (guint i = 0; i < n_fields; i++)
    put16 (b, vtable + 4 + 2 * i, offsets[i]);
  at = grow (b, table_size);
  put32 (b, at, (guint32) (at - vtable));
  return at;
}

GBytes *
ptd_write (const PtdBlob *blobs, guint n_blobs)
{
  GByteArray *b = g_byte_array_new ();
  gsize root, segments, named, *segment_tables, *named_tables, region, base;
  guint64 offset = 0;

  grow (b, 56);
  memcpy (b->data + 4, "FT01", 4);
  memcpy (b->data + 8, "FH01", 4);
  put32 (b, 12, 40);
  put64 (b, 16, 48);

  root = table (b, 3, (const guint16[]){ 4, 8, 12 }, 16, 4);
  put32 (b, 0, (guint32) root);
  segments = grow (b, 4 + 4 * n_blobs);
  put32 (b, segments, n_blobs);
  named = grow (b, 4 + 4 * n_blobs);
  put32 (b, named, n_blobs);
  put32 (b, root + 8, (guint32) (segments - (root + 8)));
  put32 (b, root + 12, (guint32) (named - (root + 12)));

  segment_tables = g_new0 (gsize, n_blobs);
  named_tables = g_new0 (gsize, n_blobs);
  for (guint i = 0; i < n_blobs; i++)
    {
      segment_tables[i] = table (b, 2, (const guint16[]){ 8, 16 }, 24, 8);
      put64 (b, segment_tables[i] + 8, offset);
      put64 (b, segment_tables[i] + 16, blobs[i].size);
      put32 (b, segments + 4 + 4 * i, (guint32) (segment_tables[i] - (segments + 4 + 4 * i)));
      offset += (blobs[i].size + 127) / 128 * 128;
    }
  for (guint i = 0; i < n_blobs; i++)
    {
      gsize key_length = strlen (blobs[i].key), key;

      named_tables[i] = table (b, 2, (const guint16[]){ 4, 8 }, 12, 4);
      put32 (b, named_tables[i] + 8, i);
      put32 (b, named + 4 + 4 * i, (guint32) (named_tables[i] - (named + 4 + 4 * i)));
      align (b, 4);
      key = grow (b, 4 + key_length + 1);
      put32 (b, key, (guint32) key_length);
      memcpy (b->data + key + 4, blobs[i].key, key_length);
      put32 (b, named_tables[i] + 4, (guint32) (key - (named_tables[i] + 4)));
    }
  region = b->len;
  align (b, 128);
  base = b->len;
  put64 (b, 24, region - 48);
  put64 (b, 32, base);
  put64 (b, 40, offset);
  for (guint i = 0; i < n_blobs; i++)
    {
      gsize at = grow (b, (blobs[i].size + 127) / 128 * 128);
      memcpy (b->data + at, blobs[i].data, blobs[i].size);
    }
  g_free (segment_tables);
  g_free (named_tables);
  return g_byte_array_free_to_bytes (b);
}
