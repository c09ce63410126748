/* flatbuffer.h: a bounds-checked FlatBuffers reader (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every offset, length and count is checked against the buffer before use.
 * The first problem found is kept in EtFb.error ("sticky"), and from then on
 * every accessor returns the schema default, an absent table or an empty
 * vector, so parsing code can read many fields and check once.
 *
 * The reader needs nothing else of the engine: it builds its own sticky
 * GError (EXECUTORCH_ERROR, the message made valid UTF-8), so plug-ins that
 * read FlatBuffers (libexecutorch-xnnpack) compile this same file, hidden.
 */
#pragma once

#include <glib.h>

typedef struct
{
  const guint8 *data;
  gsize size;
  const char *file_kind; /* "program", "external data", ... for messages */
  int error_code;        /* EtError used for structural problems */
  GError *error;
} EtFb;

typedef struct
{
  gsize pos; /* table start */
  gsize vtable;
  guint16 vtable_size;
  guint16 inline_size;
  gboolean present;
} EtFbTable;

typedef struct
{
  gsize pos; /* first element */
  guint32 length;
} EtFbVector;

void _et_fb_init (EtFb *fb, const guint8 *data, gsize size, const char *file_kind, int error_code);
void _et_fb_clear (EtFb *fb);
/* Moves the sticky error (if any) to @error; returns FALSE if there was one. */
gboolean _et_fb_take_error (EtFb *fb, GError **error);
void _et_fb_fail (EtFb *fb, int code, const char *format, ...) G_GNUC_PRINTF (3, 4);
static inline gboolean
_et_fb_ok (const EtFb *fb)
{
  return fb->error == NULL;
}

/* Reads the root table whose u32 offset sits at @offset_pos. */
EtFbTable _et_fb_root (EtFb *fb, gsize offset_pos, const char *what);
EtFbTable _et_fb_table (EtFb *fb, EtFbTable table, guint slot, const char *what);
EtFbVector _et_fb_vector (EtFb *fb, EtFbTable table, guint slot, gsize element_size, const char *what);
EtFbTable _et_fb_vector_table (EtFb *fb, EtFbVector vector, guint32 index, const char *what);
/* NUL-terminated string inside the buffer, or NULL when absent. */
const char *_et_fb_string (EtFb *fb, EtFbTable table, guint slot, gsize *length, const char *what);
gboolean _et_fb_has_field (EtFb *fb, EtFbTable table, guint slot);

guint8 _et_fb_u8 (EtFb *fb, EtFbTable table, guint slot, guint8 default_value);
gint8 _et_fb_i8 (EtFb *fb, EtFbTable table, guint slot, gint8 default_value);
gint16 _et_fb_i16 (EtFb *fb, EtFbTable table, guint slot, gint16 default_value);
gint32 _et_fb_i32 (EtFb *fb, EtFbTable table, guint slot, gint32 default_value);
guint32 _et_fb_u32 (EtFb *fb, EtFbTable table, guint slot, guint32 default_value);
gint64 _et_fb_i64 (EtFb *fb, EtFbTable table, guint slot, gint64 default_value);
guint64 _et_fb_u64 (EtFb *fb, EtFbTable table, guint slot, guint64 default_value);
gfloat _et_fb_f32 (EtFb *fb, EtFbTable table, guint slot, gfloat default_value);
gdouble _et_fb_f64 (EtFb *fb, EtFbTable table, guint slot, gdouble default_value);

/* Element readers; @index must be < vector.length (checked: out of range reads 0). */
guint8 _et_fb_vector_u8 (EtFb *fb, EtFbVector vector, guint32 index);
gint32 _et_fb_vector_i32 (EtFb *fb, EtFbVector vector, guint32 index);
guint32 _et_fb_vector_u32 (EtFb *fb, EtFbVector vector, guint32 index);
gfloat _et_fb_vector_f32 (EtFb *fb, EtFbVector vector, guint32 index);
gint64 _et_fb_vector_i64 (EtFb *fb, EtFbVector vector, guint32 index);
guint64 _et_fb_vector_u64 (EtFb *fb, EtFbVector vector, guint32 index);
gdouble _et_fb_vector_f64 (EtFb *fb, EtFbVector vector, guint32 index);
static inline const guint8 *
_et_fb_vector_bytes (const EtFb *fb, EtFbVector vector)
{
  return fb->data + vector.pos;
}

/* Little-endian loads from unaligned memory. */
static inline guint16
_et_le16 (const guint8 *p)
{
  return (guint16) (p[0] | (p[1] << 8));
}
static inline guint32
_et_le32 (const guint8 *p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) | ((guint32) p[3] << 24);
}
static inline guint64
_et_le64 (const guint8 *p)
{
  return (guint64) _et_le32 (p) | ((guint64) _et_le32 (p + 4) << 32);
}
