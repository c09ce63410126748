/* etdump.c: writes a session as an ETDump file (a size-prefixed FlatBuffer)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The layout follows upstream's etdump_schema_flatcc.fbs (namespace etdump,
 * identifier "ED00"): ETDump { version, run_data: [RunData] }, RunData
 * { name, bundled_input_index, allocators, events: [Event] }, Event
 * { profile_event, allocation_event, debug_event }, ProfileEvent { name,
 * chain_index, instruction_id, delegate_debug_id_int, delegate_debug_id_str,
 * delegate_debug_metadata, start_time, end_time }.
 *
 * The builder here writes front to back: a table's vtable, then the table
 * with placeholder offsets, then what they refer to, patching each offset
 * once its target's position is known (offsets only point forward).  Every
 * scalar is aligned to its size relative to the start of the file, the
 * size prefix included.  Output depends only on the events, so a session
 * with injected timestamps always gives the same bytes.
 */
#include "profiler-private.h"

#include <string.h>

typedef struct
{
  GByteArray *buf;
} Builder;

static gsize
pad_to (Builder *b, gsize align)
{
  static const guint8 zeros[16];
  gsize extra = (align - b->buf->len % align) % align;

  g_byte_array_append (b->buf, zeros, (guint) extra);
  return b->buf->len;
}

static void
put (Builder *b, gsize pos, const void *bytes, gsize n)
{
  memcpy (b->buf->data + pos, bytes, n);
}

static void
put_u16 (Builder *b, gsize pos, guint16 v)
{
  guint8 le[2] = { v & 0xff, v >> 8 };
  put (b, pos, le, 2);
}

static void
put_u32 (Builder *b, gsize pos, guint32 v)
{
  guint8 le[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };
  put (b, pos, le, 4);
}

static void
put_u64 (Builder *b, gsize pos, guint64 v)
{
  put_u32 (b, pos, (guint32) v);
  put_u32 (b, pos + 4, (guint32) (v >> 32));
}

static gsize
grow (Builder *b, gsize n)
{
  gsize pos = b->buf->len;

  g_byte_array_set_size (b->buf, (guint) (pos + n));
  memset (b->buf->data + pos, 0, n);
  return pos;
}

static void
patch_offset (Builder *b, gsize field, gsize target)
{
  put_u32 (b, field, (guint32) (target - field));
}

/* A table field: its slot, its size in bytes (1, 4 or 8), its value, and
 * whether it is an offset (patched later).  Fields are laid out in the
 * order given, each aligned to its size. */
typedef struct
{
  guint slot;
  guint size;
  guint64 value;
  gboolean offset;
  gsize pos; /* out: where the field landed */
} Field;

/* Writes a vtable and then its table; returns the table's position.
 * Offset fields are left as 0 for the caller to patch. */
static gsize
write_table (Builder *b, guint n_slots, Field *fields, guint n_fields)
{
  gsize vtable, table;
  guint16 vtable_size = (guint16) (4 + 2 * n_slots);

  pad_to (b, 2);
  vtable = grow (b, vtable_size);
  pad_to (b, 4);
  table = grow (b, 4);
  put_u32 (b, table, (guint32) (gint32) (table - vtable));
  for (guint i = 0; i < n_fields; i++)
    {
      gsize pos = pad_to (b, fields[i].size);

      grow (b, fields[i].size);
      fields[i].pos = pos;
      if (!fields[i].offset)
        {
          switch (fields[i].size)
            {
              case 1: b->buf->data[pos] = (guint8) fields[i].value; break;
              case 4: put_u32 (b, pos, (guint32) fields[i].value); break;
              default: put_u64 (b, pos, fields[i].value); break;
            }
        }
      put_u16 (b, vtable + 4 + 2 * fields[i].slot, (guint16) (pos - table));
    }
  put_u16 (b, vtable, vtable_size);
  put_u16 (b, vtable + 2, (guint16) (b->buf->len - table));
  return table;
}

static void
write_string (Builder *b, gsize field, const char *text)
{
  gsize length = strlen (text);
  gsize pos = pad_to (b, 4);

  grow (b, 4 + length + 1);
  put_u32 (b, pos, (guint32) length);
  put (b, pos + 4, text, length);
  patch_offset (b, field, pos);
}

/* A vector of @n offsets; returns the position of its first element. */
static gsize
write_offset_vector (Builder *b, gsize field, guint n)
{
  gsize pos = pad_to (b, 4);

  grow (b, 4 + 4 * (gsize) n);
  put_u32 (b, pos, n);
  patch_offset (b, field, pos);
  return pos + 4;
}

/* A vector of int64 (elements 8-aligned). */
static void
write_i64_vector (Builder *b, gsize field, const gint64 *values, guint n)
{
  gsize pos;

  pad_to (b, 4);
  if ((b->buf->len + 4) % 8 != 0)
    grow (b, 4);
  pos = grow (b, 4 + 8 * (gsize) n);
  put_u32 (b, pos, n);
  for (guint i = 0; i < n; i++)
    put_u64 (b, pos + 4 + 8 * (gsize) i, (guint64) values[i]);
  patch_offset (b, field, pos);
}

enum
{
  ETDUMP_VERSION,
  ETDUMP_RUN_DATA,
  ETDUMP_N_SLOTS
};
enum
{
  RUN_NAME,
  RUN_BUNDLED_INPUT_INDEX,
  RUN_ALLOCATORS,
  RUN_EVENTS,
  RUN_N_SLOTS
};
enum
{
  EVENT_PROFILE,
  EVENT_ALLOCATION,
  EVENT_DEBUG,
  EVENT_N_SLOTS
};
enum
{
  PE_NAME,
  PE_CHAIN_INDEX,
  PE_INSTRUCTION_ID,
  PE_DELEGATE_ID_INT,
  PE_DELEGATE_ID_STR,
  PE_DELEGATE_METADATA,
  PE_START_TIME,
  PE_END_TIME,
  PE_N_SLOTS
};
enum
{
  DE_CHAIN_INDEX,
  DE_INSTRUCTION_ID,
  DE_DEBUG_ENTRY,
  DE_DELEGATE_ID_INT,
  DE_DELEGATE_ID_STR,
  DE_NAME,
  DE_N_SLOTS
};
enum
{
  VALUE_VAL,
  VALUE_TENSOR,
  VALUE_TENSOR_LIST,
  VALUE_INT,
  VALUE_FLOAT,
  VALUE_DOUBLE,
  VALUE_BOOL,
  VALUE_OUTPUT,
  VALUE_N_SLOTS
};
enum
{
  TENSOR_SCALAR_TYPE,
  TENSOR_SIZES,
  TENSOR_STRIDES,
  TENSOR_OFFSET,
  TENSOR_N_SLOTS
};
#define VALUE_TYPE_TENSOR 5

/* Event { debug_event: DebugEvent { chain_index, instruction_id,
 * debug_entry: Value { val: Tensor, tensor: Tensor { ... } } } }. */
static void
write_debug_event (Builder *b, gsize field, const EtpDebugEvent *debug)
{
  Field event[] = { { EVENT_DEBUG, 4, 0, TRUE } };
  Field fields[] = {
    { DE_CHAIN_INDEX, 8, debug->chain },
    { DE_INSTRUCTION_ID, 4, (guint32) debug->instruction },
    { DE_DEBUG_ENTRY, 4, 0, TRUE },
  };
  Field value[] = { { VALUE_TENSOR, 4, 0, TRUE }, { VALUE_VAL, 1, VALUE_TYPE_TENSOR } };
  Field tensor[] = {
    { TENSOR_OFFSET, 8, (guint64) debug->offset },
    { TENSOR_SIZES, 4, 0, TRUE },
    { TENSOR_STRIDES, 4, 0, TRUE },
    { TENSOR_SCALAR_TYPE, 1, (guint8) debug->scalar_type },
  };

  patch_offset (b, field, write_table (b, EVENT_N_SLOTS, event, G_N_ELEMENTS (event)));
  patch_offset (b, event[0].pos, write_table (b, DE_N_SLOTS, fields, G_N_ELEMENTS (fields)));
  patch_offset (b, fields[2].pos, write_table (b, VALUE_N_SLOTS, value, G_N_ELEMENTS (value)));
  patch_offset (b, value[0].pos, write_table (b, TENSOR_N_SLOTS, tensor, G_N_ELEMENTS (tensor)));
  write_i64_vector (b, tensor[1].pos, debug->sizes, debug->ndim);
  write_i64_vector (b, tensor[2].pos, debug->strides, debug->ndim);
}

/* Event { profile_event: ProfileEvent { ... } } at the offset field @field. */
static void
write_event (Builder *b, gsize field, const char *name, const char *delegate, guint64 start, guint64 end, gint32 chain,
             gint32 instruction)
{
  Field event[] = { { EVENT_PROFILE, 4, 0, TRUE } };
  Field profile[] = {
    { PE_START_TIME, 8, start },
    { PE_END_TIME, 8, end },
    { PE_CHAIN_INDEX, 4, (guint32) chain },
    { PE_INSTRUCTION_ID, 4, (guint32) instruction },
    { PE_NAME, 4, 0, TRUE },
    { PE_DELEGATE_ID_STR, 4, 0, TRUE },
  };
  guint n_profile = delegate != NULL ? G_N_ELEMENTS (profile) : G_N_ELEMENTS (profile) - 1;

  patch_offset (b, field, write_table (b, EVENT_N_SLOTS, event, G_N_ELEMENTS (event)));
  patch_offset (b, event[0].pos, write_table (b, PE_N_SLOTS, profile, n_profile));
  write_string (b, profile[4].pos, name);
  if (delegate != NULL)
    write_string (b, profile[5].pos, delegate);
}

/* RunData { name, events } holding the events of run @run. */
static void
write_run (Builder *b, gsize field, EtpSession *session, guint32 run, const char *name)
{
  Field fields[] = { { RUN_NAME, 4, 0, TRUE }, { RUN_EVENTS, 4, 0, TRUE } };
  gsize n_all = _etp_session_n_events (session), n_debug = _etp_session_n_debug_events (session), elements;
  guint n = 0, k = 0;

  for (gsize i = 0; i < n_all; i++)
    {
      EtEventRecord record;
      _etp_session_get_event (session, i, &record);
      n += record.run_index == run;
    }
  for (gsize i = 0; i < n_debug; i++)
    n += _etp_session_debug_event (session, i)->run == run;
  patch_offset (b, field, write_table (b, RUN_N_SLOTS, fields, G_N_ELEMENTS (fields)));
  write_string (b, fields[0].pos, name);
  elements = write_offset_vector (b, fields[1].pos, n);
  for (gsize i = 0; i < n_all; i++)
    {
      const char *event_name, *delegate;
      guint64 start, end;
      gint32 chain, instruction;
      guint32 event_run;

      _etp_session_peek (session, i, &event_name, &delegate, &start, &end, &chain, &instruction, &event_run);
      if (event_run == run)
        write_event (b, elements + 4 * (gsize) k++, event_name, delegate, start, end, chain, instruction);
    }
  /* Kernel outputs after the timings of their run. */
  for (gsize i = 0; i < n_debug; i++)
    {
      const EtpDebugEvent *debug = _etp_session_debug_event (session, i);
      if (debug->run == run)
        write_debug_event (b, elements + 4 * (gsize) k++, debug);
    }
}

guint8 *
_etp_write_etdump (EtpSession *session, gsize *size)
{
  Builder builder = { g_byte_array_new () }, *b = &builder;
  Field root[] = { { ETDUMP_VERSION, 4, 0 }, { ETDUMP_RUN_DATA, 4, 0, TRUE } };
  gsize n_all = _etp_session_n_events (session), runs;
  guint32 last_run = 0;
  gboolean have_load = FALSE;
  guint n_runs, k = 0;

  for (gsize i = 0; i < n_all; i++)
    {
      EtEventRecord record;
      _etp_session_get_event (session, i, &record);
      last_run = MAX (last_run, record.run_index);
      have_load |= record.run_index == 0;
    }
  n_runs = last_run + (have_load ? 1 : 0);

  grow (b, 8); /* size prefix, root offset */
  g_byte_array_append (b->buf, (const guint8 *) "ED00", 4);
  put_u32 (b, 4, (guint32) (write_table (b, ETDUMP_N_SLOTS, root, G_N_ELEMENTS (root)) - 4));
  runs = write_offset_vector (b, root[1].pos, n_runs);
  /* Load events as the block "Default", then one "Execute" per run. */
  for (guint32 run = have_load ? 0 : 1; run <= last_run; run++)
    write_run (b, runs + 4 * (gsize) k++, session, run, run == 0 ? "Default" : "Execute");
  pad_to (b, 8);
  put_u32 (b, 0, (guint32) (b->buf->len - 4));
  *size = b->buf->len;
  return g_byte_array_free (b->buf, FALSE);
}
