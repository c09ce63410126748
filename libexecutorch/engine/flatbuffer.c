/* flatbuffer.c: a bounds-checked FlatBuffers reader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "flatbuffer.h"

#include <string.h>

#include "../executorch-error.h"

void
_et_fb_init (EtFb *fb, const guint8 *data, gsize size, const char *file_kind, int error_code)
{
  fb->error_code = error_code;
  fb->data = data;
  fb->size = size;
  fb->file_kind = file_kind;
  fb->error = NULL;
}

void
_et_fb_clear (EtFb *fb)
{
  g_clear_error (&fb->error);
}

gboolean
_et_fb_take_error (EtFb *fb, GError **error)
{
  if (fb->error == NULL)
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&fb->error));
  return FALSE;
}

void
_et_fb_fail (EtFb *fb, int code, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  if (fb->error != NULL)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  /* The codes are EtError values, which EXECUTORCH_ERROR's are; names in
   * the message may come from a hostile file. */
  if (!g_utf8_validate (message, -1, NULL))
    {
      char *valid = g_utf8_make_valid (message, -1);
      g_free (message);
      message = valid;
    }
  g_set_error_literal (&fb->error, EXECUTORCH_ERROR, code, message);
}

static const EtFbTable absent_table = { 0, 0, 0, 0, FALSE };
static const EtFbVector empty_vector = { 0, 0 };

static gboolean
range_ok (const EtFb *fb, gsize pos, gsize length)
{
  return pos <= fb->size && length <= fb->size - pos;
}

static EtFbTable
table_at (EtFb *fb, gsize pos, const char *what)
{
  EtFbTable table = { 0 };
  gint64 vtable;

  if (!range_ok (fb, pos, 4))
    {
      _et_fb_fail (fb, fb->error_code,
                   "%s: table at offset %" G_GSIZE_FORMAT " lies outside the %s (%" G_GSIZE_FORMAT " bytes)", what, pos,
                   fb->file_kind, fb->size);
      return absent_table;
    }
  vtable = (gint64) pos - (gint32) _et_le32 (fb->data + pos);
  if (vtable < 0 || !range_ok (fb, (gsize) vtable, 4))
    {
      _et_fb_fail (fb, fb->error_code, "%s: vtable of the table at offset %" G_GSIZE_FORMAT " lies outside the %s",
                   what, pos, fb->file_kind);
      return absent_table;
    }
  table.pos = pos;
  table.vtable = (gsize) vtable;
  table.vtable_size = _et_le16 (fb->data + table.vtable);
  table.inline_size = _et_le16 (fb->data + table.vtable + 2);
  if (table.vtable_size < 4 || (table.vtable_size & 1) || !range_ok (fb, table.vtable, table.vtable_size) ||
      table.inline_size < 4 || !range_ok (fb, pos, table.inline_size))
    {
      _et_fb_fail (fb, fb->error_code,
                   "%s: table at offset %" G_GSIZE_FORMAT " has a corrupt vtable (size %u, table size %u)", what, pos,
                   table.vtable_size, table.inline_size);
      return absent_table;
    }
  table.present = TRUE;
  return table;
}

/* Position of a field of @field_size bytes, or 0 when absent or invalid. */
static gsize
field_pos (EtFb *fb, EtFbTable table, guint slot, gsize field_size)
{
  gsize entry = 4 + 2 * (gsize) slot;
  guint16 offset;

  if (!table.present || fb->error != NULL || entry + 2 > table.vtable_size)
    return 0;
  offset = _et_le16 (fb->data + table.vtable + entry);
  if (offset == 0)
    return 0;
  if ((gsize) offset + field_size > table.inline_size)
    {
      _et_fb_fail (fb, fb->error_code, "field %u of the table at offset %" G_GSIZE_FORMAT " lies outside the table",
                   slot, table.pos);
      return 0;
    }
  return table.pos + offset;
}

gboolean
_et_fb_has_field (EtFb *fb, EtFbTable table, guint slot)
{
  return field_pos (fb, table, slot, 1) != 0;
}

/* Follows the u32 forward offset stored at @pos. */
static gboolean
follow (EtFb *fb, gsize pos, gsize *target, const char *what)
{
  guint64 t = (guint64) pos + _et_le32 (fb->data + pos);

  if (t >= fb->size)
    {
      _et_fb_fail (fb, fb->error_code,
                   "%s: offset at %" G_GSIZE_FORMAT " points past the end of the %s (%" G_GSIZE_FORMAT " bytes)", what,
                   pos, fb->file_kind, fb->size);
      return FALSE;
    }
  *target = (gsize) t;
  return TRUE;
}

EtFbTable
_et_fb_root (EtFb *fb, gsize offset_pos, const char *what)
{
  gsize target;

  if (!range_ok (fb, offset_pos, 4))
    {
      _et_fb_fail (fb, fb->error_code, "%s: the %s is too short (%" G_GSIZE_FORMAT " bytes)", what, fb->file_kind,
                   fb->size);
      return absent_table;
    }
  if (!follow (fb, offset_pos, &target, what))
    return absent_table;
  return table_at (fb, target, what);
}

EtFbTable
_et_fb_table (EtFb *fb, EtFbTable table, guint slot, const char *what)
{
  gsize pos = field_pos (fb, table, slot, 4), target;

  if (pos == 0 || !follow (fb, pos, &target, what))
    return absent_table;
  return table_at (fb, target, what);
}

static EtFbVector
vector_at (EtFb *fb, gsize pos, gsize element_size, const char *what)
{
  EtFbVector vector;
  guint32 length;

  if (!range_ok (fb, pos, 4))
    {
      _et_fb_fail (fb, fb->error_code, "%s: vector at offset %" G_GSIZE_FORMAT " lies outside the %s", what, pos,
                   fb->file_kind);
      return empty_vector;
    }
  length = _et_le32 (fb->data + pos);
  if ((guint64) length * element_size > fb->size - pos - 4)
    {
      _et_fb_fail (fb, fb->error_code,
                   "%s: vector at offset %" G_GSIZE_FORMAT " claims %u elements, more than the %s holds", what, pos,
                   length, fb->file_kind);
      return empty_vector;
    }
  vector.pos = pos + 4;
  vector.length = length;
  return vector;
}

EtFbVector
_et_fb_vector (EtFb *fb, EtFbTable table, guint slot, gsize element_size, const char *what)
{
  gsize pos = field_pos (fb, table, slot, 4), target;

  if (pos == 0 || !follow (fb, pos, &target, what))
    return empty_vector;
  return vector_at (fb, target, element_size, what);
}

EtFbTable
_et_fb_vector_table (EtFb *fb, EtFbVector vector, guint32 index, const char *what)
{
  gsize pos, target;

  if (fb->error != NULL || index >= vector.length)
    return absent_table;
  pos = vector.pos + (gsize) index * 4;
  if (!follow (fb, pos, &target, what))
    return absent_table;
  return table_at (fb, target, what);
}

const char *
_et_fb_string (EtFb *fb, EtFbTable table, guint slot, gsize *length, const char *what)
{
  gsize pos = field_pos (fb, table, slot, 4), target;
  EtFbVector bytes;

  if (length != NULL)
    *length = 0;
  if (pos == 0 || !follow (fb, pos, &target, what))
    return NULL;
  bytes = vector_at (fb, target, 1, what);
  if (fb->error != NULL)
    return NULL;
  if (bytes.pos + bytes.length >= fb->size || fb->data[bytes.pos + bytes.length] != '\0')
    {
      _et_fb_fail (fb, fb->error_code, "%s: string at offset %" G_GSIZE_FORMAT " is not NUL-terminated", what, target);
      return NULL;
    }
  if (memchr (fb->data + bytes.pos, '\0', bytes.length) != NULL)
    {
      _et_fb_fail (fb, fb->error_code, "%s: string at offset %" G_GSIZE_FORMAT " contains a NUL byte", what, target);
      return NULL;
    }
  if (length != NULL)
    *length = bytes.length;
  return (const char *) fb->data + bytes.pos;
}

#define SCALAR_READER(name, type, size, load)                           \
  type name (EtFb *fb, EtFbTable table, guint slot, type default_value) \
  {                                                                     \
    gsize pos = field_pos (fb, table, slot, size);                      \
    if (pos == 0)                                                       \
      return default_value;                                             \
    return (type) load;                                                 \
  }

SCALAR_READER (_et_fb_u8, guint8, 1, fb->data[pos])
SCALAR_READER (_et_fb_i8, gint8, 1, (gint8) fb->data[pos])
SCALAR_READER (_et_fb_i16, gint16, 2, (gint16) _et_le16 (fb->data + pos))
SCALAR_READER (_et_fb_i32, gint32, 4, (gint32) _et_le32 (fb->data + pos))
SCALAR_READER (_et_fb_u32, guint32, 4, _et_le32 (fb->data + pos))
SCALAR_READER (_et_fb_i64, gint64, 8, (gint64) _et_le64 (fb->data + pos))
SCALAR_READER (_et_fb_u64, guint64, 8, _et_le64 (fb->data + pos))

gfloat
_et_fb_f32 (EtFb *fb, EtFbTable table, guint slot, gfloat default_value)
{
  gsize pos = field_pos (fb, table, slot, 4);
  guint32 bits;
  gfloat value;

  if (pos == 0)
    return default_value;
  bits = _et_le32 (fb->data + pos);
  memcpy (&value, &bits, sizeof value);
  return value;
}

gdouble
_et_fb_f64 (EtFb *fb, EtFbTable table, guint slot, gdouble default_value)
{
  gsize pos = field_pos (fb, table, slot, 8);
  guint64 bits;
  gdouble value;

  if (pos == 0)
    return default_value;
  bits = _et_le64 (fb->data + pos);
  memcpy (&value, &bits, sizeof value);
  return value;
}

guint8
_et_fb_vector_u8 (EtFb *fb, EtFbVector vector, guint32 index)
{
  return index < vector.length ? fb->data[vector.pos + index] : 0;
}

gint32
_et_fb_vector_i32 (EtFb *fb, EtFbVector vector, guint32 index)
{
  return index < vector.length ? (gint32) _et_le32 (fb->data + vector.pos + (gsize) index * 4) : 0;
}

guint32
_et_fb_vector_u32 (EtFb *fb, EtFbVector vector, guint32 index)
{
  return index < vector.length ? _et_le32 (fb->data + vector.pos + (gsize) index * 4) : 0;
}

gfloat
_et_fb_vector_f32 (EtFb *fb, EtFbVector vector, guint32 index)
{
  guint32 bits = _et_fb_vector_u32 (fb, vector, index);
  gfloat value;

  memcpy (&value, &bits, sizeof value);
  return value;
}

gint64
_et_fb_vector_i64 (EtFb *fb, EtFbVector vector, guint32 index)
{
  return index < vector.length ? (gint64) _et_le64 (fb->data + vector.pos + (gsize) index * 8) : 0;
}

guint64
_et_fb_vector_u64 (EtFb *fb, EtFbVector vector, guint32 index)
{
  return index < vector.length ? _et_le64 (fb->data + vector.pos + (gsize) index * 8) : 0;
}

gdouble
_et_fb_vector_f64 (EtFb *fb, EtFbVector vector, guint32 index)
{
  guint64 bits = _et_fb_vector_u64 (fb, vector, index);
  gdouble value;

  memcpy (&value, &bits, sizeof value);
  return value;
}
