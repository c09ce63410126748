/* test-mutations.c: a structural mutation matrix over the real fixtures
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each fixture's program FlatBuffer is walked with the schema (every table,
 * vtable, vector, string and field that the runtime reads), and each walk
 * produces cases:
 *
 * - truncation at every structural boundary (the start of every table,
 *   vtable, vector, vector payload and string, and the end of every vector);
 *   files with an extended header keep their bytes and have their program
 *   size cut instead, so that the FlatBuffer reader itself meets the cut;
 * - offsets flipped (every offset points past the end, every table's vtable
 *   outside the file), vtables corrupted, vector and string counts too
 *   large, fields placed outside their table;
 * - indices out of range: value indices in instruction arguments, in the
 *   method's inputs and outputs and in lists; operator, delegate and buffer
 *   indices; move, jump, free and condition operands; constant, segment and
 *   named-data indices;
 * - union tags out of range (EValue and instruction tags), required fields
 *   missing, lists that name themselves or each other, bad scalar types,
 *   dim orders, sizes, shape dynamism, layouts and storage offsets;
 * - absurd planned sizes (negative, a terabyte, two that overflow together,
 *   too small for the tensors planned in them);
 * - in-range changes that keep the program valid-looking but wrong (another
 *   value as an argument, another operator, another tag, dtype, size, jump
 *   target or memory offset): these have no expected message, but whenever
 *   they load they are executed, with the real kernels, on zero inputs.
 *
 * A case with an expected message must fail to load with a GError in
 * EXECUTORCH_ERROR whose message contains that text; every case must come
 * back (no abort, no crash, and under the sanitizers no out-of-bounds
 * access or leak).  Cases from the larger nets and from the per-operator
 * programs (tests/models/ops) are sampled per category.
 * Caller input mismatches (wrong dtype, rank, sizes, bound, kind, count)
 * are tested on the unmutated fixtures.  The counts are printed.
 */
#include <executorch.h>
#include <executorch-plugin.h>

#include <stdlib.h>
#include <string.h>

/* ---- cases ---- */

typedef struct
{
  gsize pos;
  guint size; /* 1, 2, 4 or 8 */
  guint64 value;
} Patch;

typedef struct
{
  const char *category;
  char *what;
  guint n_patches;
  Patch patches[2];
  gsize truncate;     /* > 0: the program ends here */
  const char *expect; /* alternatives separated by '|'; NULL: any outcome */
} Case;

static void
case_clear (gpointer data)
{
  g_free (((Case *) data)->what);
}

/* Figures for the whole run. */
static struct
{
  guint cases, expected, survived_loaded, survived_failed, executed, execute_failed;
  GHashTable *per_category; /* category -> count */
} totals;

/* What every truncation inside the read region may say. */
#define BOUNDS_MESSAGES                                                              \
  "lies outside|points past the end|more than the program holds|not NUL-terminated|" \
  "too short|does not fit the file|cut off"

/* ---- the walk ---- */

typedef struct
{
  guint index;
  gboolean planned;
  guint32 memory_id;
  guint64 offset;
  guint64 nbytes;
} PlannedTensor;

typedef struct
{
  const guint8 *data;
  gsize size;    /* the file */
  gsize fb_size; /* the FlatBuffer region */
  gboolean header;
  guint64 segment_base;
  GArray *cases;
  GHashTable *bounds;  /* truncation points */
  GHashTable *vtables; /* vtables already mutated */
  gsize read_end;
  GRand *rand;
  gboolean has_mutable_data;
  guint n_segments;
  gboolean inline_delegates_walked;
  /* the plan being walked */
  guint plan;
  guint n_values, n_operators, n_delegates, n_buffers;
  guint8 *value_tags; /* union tag of each value */
  GArray *planned;    /* PlannedTensor */
  GArray *lists;      /* value index, items vector position, element size */
} Walk;

typedef struct
{
  guint index;
  gsize items; /* first element */
  guint32 length;
  guint element; /* 4 or 8 */
  gboolean optional;
} ListValue;

static guint32
rd32 (const Walk *w, gsize pos)
{
  g_assert_cmpuint (pos + 4, <=, w->size);
  return (guint32) w->data[pos] | ((guint32) w->data[pos + 1] << 8) | ((guint32) w->data[pos + 2] << 16) |
         ((guint32) w->data[pos + 3] << 24);
}

static guint16
rd16 (const Walk *w, gsize pos)
{
  g_assert_cmpuint (pos + 2, <=, w->size);
  return (guint16) (w->data[pos] | (w->data[pos + 1] << 8));
}

static guint64
rd64 (const Walk *w, gsize pos)
{
  return (guint64) rd32 (w, pos) | ((guint64) rd32 (w, pos + 4) << 32);
}

static void
add_bound (Walk *w, gsize pos)
{
  g_hash_table_add (w->bounds, GSIZE_TO_POINTER (pos));
}

static void
note_read (Walk *w, gsize end)
{
  w->read_end = MAX (w->read_end, end);
}

static Case *add_case (Walk *w, const char *category, const char *expect, const char *format, ...) G_GNUC_PRINTF (4, 5);

static Case *
add_case (Walk *w, const char *category, const char *expect, const char *format, ...)
{
  Case c = { category, NULL, 0, { { 0 } }, 0, expect };
  va_list args;

  va_start (args, format);
  c.what = g_strdup_vprintf (format, args);
  va_end (args);
  g_array_append_val (w->cases, c);
  return &g_array_index (w->cases, Case, w->cases->len - 1);
}

static void
case_patch (Case *c, gsize pos, guint size, guint64 value)
{
  g_assert_cmpuint (c->n_patches, <, G_N_ELEMENTS (c->patches));
  c->patches[c->n_patches++] = (Patch){ pos, size, value };
}

static void
patch (Walk *w, const char *category, const char *expect, gsize pos, guint size, guint64 value, const char *what)
{
  Case *c = add_case (w, category, expect, "%s = %" G_GINT64_FORMAT " (at %zu)", what, (gint64) value, pos);
  case_patch (c, pos, size, value);
}

/* Table at @pos: its start, its vtable, and its fields that the runtime
 * reads (@read, a bit per slot) placed outside it. */
typedef struct
{
  gsize pos, vtable;
  guint16 vtable_size, inline_size;
} Table;

static gsize
slot_pos (const Walk *w, const Table *t, guint slot)
{
  guint16 offset;

  if (4 + 2 * slot + 2 > t->vtable_size)
    return 0;
  offset = rd16 (w, t->vtable + 4 + 2 * slot);
  return offset != 0 ? t->pos + offset : 0;
}

static gsize
vtable_entry (const Table *t, guint slot)
{
  return 4 + 2 * slot + 2 <= t->vtable_size ? t->vtable + 4 + 2 * slot : 0;
}

static Table
table (Walk *w, gsize pos, const char *name, guint32 read)
{
  Table t;

  t.pos = pos;
  t.vtable = pos - (gint32) rd32 (w, pos);
  t.vtable_size = rd16 (w, t.vtable);
  t.inline_size = rd16 (w, t.vtable + 2);
  g_assert_cmpuint (t.vtable_size, >=, 4);
  add_bound (w, pos);
  add_bound (w, t.vtable);
  note_read (w, pos + t.inline_size);
  note_read (w, t.vtable + t.vtable_size);

  /* Its vtable outside the program, before the start and past the end. */
  patch (w, "offset/vtable", "vtable of the table", pos, 4, (guint32) (gint32) (pos + 4), name);
  patch (w, "offset/vtable", "vtable of the table", pos, 4, (guint32) - (gint32) (w->fb_size - pos), name);
  if (!g_hash_table_contains (w->vtables, GSIZE_TO_POINTER (t.vtable)))
    {
      g_hash_table_add (w->vtables, GSIZE_TO_POINTER (t.vtable));
      patch (w, "vtable/corrupt", "corrupt vtable", t.vtable, 2, 5, name);
      patch (w, "vtable/corrupt", "corrupt vtable", t.vtable + 2, 2, 2, name);
      if (pos + 0xfff0 > w->fb_size)
        patch (w, "vtable/corrupt", "corrupt vtable", t.vtable + 2, 2, 0xfff0, name);
      for (guint slot = 0; slot < 32; slot++)
        if ((read & (1u << slot)) && slot_pos (w, &t, slot) != 0)
          patch (w, "vtable/field-outside", "lies outside the table", vtable_entry (&t, slot), 2, 0xffff, name);
    }
  return t;
}

/* Follows the offset at @field; flips it to point past the end. */
static gsize
ref (Walk *w, gsize field, const char *name)
{
  gsize target = field + rd32 (w, field);

  g_assert_cmpuint (target, <, w->fb_size);
  patch (w, "offset/past-end", "points past the end", field, 4, w->fb_size - field, name);
  patch (w, "offset/past-end", "points past the end", field, 4, 0xffffffffu, name);
  return target;
}

/* The vector at field @field: returns the position of its count. */
static gsize
vector (Walk *w, gsize field, guint element, const char *name)
{
  gsize pos = ref (w, field, name);
  guint32 length = rd32 (w, pos);
  guint64 too_many = (w->fb_size - pos - 4) / element + 1;

  add_bound (w, pos);
  add_bound (w, pos + 4);
  add_bound (w, pos + 4 + (gsize) length * element);
  note_read (w, pos + 4 + (gsize) length * element);
  if (too_many <= G_MAXUINT32)
    patch (w, "count/too-large", "more than the program holds", pos, 4, too_many, name);
  patch (w, "count/too-large", "more than the program holds", pos, 4, G_MAXUINT32, name);
  return pos;
}

static gsize
table_vector (Walk *w, const Table *t, guint slot, const char *name, guint32 *length)
{
  gsize field = slot_pos (w, t, slot), pos;

  *length = 0;
  if (field == 0)
    return 0;
  pos = vector (w, field, 4, name);
  *length = rd32 (w, pos);
  return pos;
}

/* The table that element @i of the vector of tables at @pos points to. */
static gsize
element_table (Walk *w, gsize pos, guint32 i, const char *name)
{
  return ref (w, pos + 4 + 4 * (gsize) i, name);
}

static void
string (Walk *w, const Table *t, guint slot, const char *name)
{
  gsize field = slot_pos (w, t, slot), pos;
  guint32 length;

  if (field == 0)
    return;
  pos = vector (w, field, 1, name);
  length = rd32 (w, pos);
  note_read (w, pos + 4 + length + 1);
  if (length > 0)
    {
      patch (w, "string", "not NUL-terminated", pos, 4, 0, name);
      patch (w, "string", "contains a NUL byte", pos + 4, 1, 0, name);
    }
}

/* A scalar field, when present: its position. */
static gsize
scalar (Walk *w, const Table *t, guint slot)
{
  return slot_pos (w, t, slot);
}

/* Drops field @slot from the vtable (the field becomes absent). */
static void
drop_field (Walk *w, const Table *t, guint slot, const char *category, const char *expect, const char *name)
{
  if (slot_pos (w, t, slot) != 0)
    patch (w, category, expect, vtable_entry (t, slot), 2, 0, name);
}

/* Points absent field @slot at the bytes of field @other (same table), so
 * that it reads their value; for fields left at their default. */
static void
alias_field (Walk *w, const Table *t, guint slot, guint other, const char *expect, const char *name)
{
  if (vtable_entry (t, slot) == 0 || slot_pos (w, t, slot) != 0 || slot_pos (w, t, other) == 0)
    return;
  patch (w, "field/aliased", expect, vtable_entry (t, slot), 2, rd16 (w, vtable_entry (t, other)), name);
}

/* ---- the schema ---- */

enum
{
  PROGRAM_VERSION,
  PROGRAM_EXECUTION_PLAN,
  PROGRAM_CONSTANT_BUFFER,
  PROGRAM_BACKEND_DELEGATE_DATA,
  PROGRAM_SEGMENTS,
  PROGRAM_CONSTANT_SEGMENT,
  PROGRAM_MUTABLE_DATA_SEGMENTS,
  PROGRAM_NAMED_DATA
};
enum
{
  PLAN_NAME,
  PLAN_CONTAINER_META_TYPE,
  PLAN_VALUES,
  PLAN_INPUTS,
  PLAN_OUTPUTS,
  PLAN_CHAINS,
  PLAN_OPERATORS,
  PLAN_DELEGATES,
  PLAN_NON_CONST_BUFFER_SIZES,
  PLAN_NON_CONST_BUFFER_DEVICE
};
enum
{
  TENSOR_SCALAR_TYPE,
  TENSOR_STORAGE_OFFSET,
  TENSOR_SIZES,
  TENSOR_DIM_ORDER,
  TENSOR_REQUIRES_GRAD,
  TENSOR_DATA_BUFFER_IDX,
  TENSOR_ALLOCATION_INFO,
  TENSOR_LAYOUT,
  TENSOR_SHAPE_DYNAMISM,
  TENSOR_EXTRA_TENSOR_INFO
};
enum
{
  KIND_NULL = 1,
  KIND_INT,
  KIND_BOOL,
  KIND_DOUBLE,
  KIND_TENSOR,
  KIND_STRING,
  KIND_INT_LIST,
  KIND_DOUBLE_LIST,
  KIND_BOOL_LIST,
  KIND_TENSOR_LIST,
  KIND_OPTIONAL_TENSOR_LIST,
  N_KINDS
};
enum
{
  INSTR_KERNEL = 1,
  INSTR_DELEGATE,
  INSTR_MOVE,
  INSTR_JUMP_FALSE,
  INSTR_FREE
};

#define SLOTS(...) slot_mask ((const guint[]){ __VA_ARGS__ }, sizeof ((const guint[]){ __VA_ARGS__ }) / sizeof (guint))

static guint32
slot_mask (const guint *slots, gsize n)
{
  guint32 mask = 0;
  for (gsize i = 0; i < n; i++)
    mask |= 1u << slots[i];
  return mask;
}

/* In-range replacements: all of them for small counts, else a sample. */
#define IN_RANGE_MAX 24

static guint
in_range_pick (Walk *w, guint k, guint limit)
{
  return limit <= IN_RANGE_MAX ? k : (guint) g_rand_int_range (w->rand, 0, (gint32) limit);
}

/* Out-of-range and in-range replacements of a value index at @pos (i32). */
static void
value_index (Walk *w, gsize pos, gint32 current, const char *what, const char *expect)
{
  patch (w, "index/value", expect, pos, 4, (guint32) w->n_values, what);
  patch (w, "index/value", expect, pos, 4, (guint32) -1, what);
  patch (w, "index/value", expect, pos, 4, G_MAXINT32, what);
  for (guint k = 0; k < IN_RANGE_MAX && k < w->n_values; k++)
    {
      guint v = in_range_pick (w, k, w->n_values);
      if ((gint32) v != current)
        patch (w, "in-range/value", NULL, pos, 4, v, what);
    }
}

static void
walk_tensor (Walk *w, gsize pos, guint index)
{
  static const gint8 other_types[] = { 0, 1, 3, 4, 5, 6, 7, 11, 15 };
  g_autofree char *name = g_strdup_printf ("value %u (Tensor)", index);
  Table t = table (w, pos, name, SLOTS (0, 1, 2, 3, 5, 6, 7, 8, 9));
  gsize field, sizes = 0, dim_order = 0;
  guint32 ndim = 0;
  gint8 scalar_type = 0;
  guint64 nbytes = 1;
  static const guint8 element_sizes[] = { 1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4,
                                          2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1,  1, 2, 4, 8 };

  if ((field = scalar (w, &t, TENSOR_SCALAR_TYPE)) != 0)
    {
      scalar_type = (gint8) w->data[field];
      patch (w, "tensor/scalar-type", "invalid scalar type", field, 1, 30, name);
      patch (w, "tensor/scalar-type", "invalid scalar type", field, 1, 100, name);
      patch (w, "tensor/scalar-type", "invalid scalar type", field, 1, 0xff, name);
      for (guint i = 0; i < G_N_ELEMENTS (other_types); i++)
        if (other_types[i] != scalar_type)
          patch (w, "in-range/scalar-type", NULL, field, 1, (guint8) other_types[i], name);
    }
  if ((field = slot_pos (w, &t, TENSOR_SIZES)) != 0)
    {
      sizes = vector (w, field, 4, name);
      ndim = rd32 (w, sizes);
      for (guint32 i = 0; i < ndim; i++)
        {
          gsize at = sizes + 4 + 4 * (gsize) i;
          gint32 size = (gint32) rd32 (w, at);
          nbytes *= (guint64) MAX (size, 0);
          patch (w, "tensor/sizes", "is negative", at, 4, (guint32) -1, name);
          patch (w, "in-range/sizes", NULL, at, 4, 0, name);
          patch (w, "in-range/sizes", NULL, at, 4, (guint32) size + 1, name);
          patch (w, "in-range/sizes", NULL, at, 4, (guint32) size * 2, name);
          patch (w, "in-range/sizes", NULL, at, 4, 1u << 20, name);
          patch (w, "in-range/sizes", NULL, at, 4, G_MAXINT32, name);
        }
      if (sizes + 4 + 17 * 4 <= w->fb_size)
        patch (w, "tensor/rank", "dim_order entries", sizes, 4, 17, name);
      if (ndim < 16 && sizes + 4 + 4 * (gsize) (ndim + 1) <= w->fb_size)
        patch (w, "tensor/rank", "dim_order entries", sizes, 4, ndim + 1, name);
    }
  drop_field (w, &t, TENSOR_SIZES, "field/missing", "lacks sizes or dim_order", name);
  drop_field (w, &t, TENSOR_DIM_ORDER, "field/missing", "lacks sizes or dim_order", name);
  if ((field = slot_pos (w, &t, TENSOR_DIM_ORDER)) != 0)
    {
      dim_order = vector (w, field, 1, name);
      for (guint32 i = 0; i < rd32 (w, dim_order) && i < ndim; i++)
        patch (w, "tensor/dim-order", "not a permutation", dim_order + 4 + i, 1, ndim, name);
      if (ndim >= 2)
        {
          Case *c = add_case (w, "in-range/dim-order", NULL, "%s: dim_order 0 and 1 swapped", name);
          case_patch (c, dim_order + 4, 1, w->data[dim_order + 5]);
          case_patch (c, dim_order + 5, 1, w->data[dim_order + 4]);
        }
    }
  if ((field = scalar (w, &t, TENSOR_STORAGE_OFFSET)) != 0)
    patch (w, "tensor/storage-offset", "storage_offset", field, 4, 16, name);
  alias_field (w, &t, TENSOR_STORAGE_OFFSET, TENSOR_SIZES, "storage_offset", name);
  if (scalar_type != 0)
    {
      alias_field (w, &t, TENSOR_LAYOUT, TENSOR_SCALAR_TYPE, "only strided", name);
      alias_field (w, &t, TENSOR_SHAPE_DYNAMISM, TENSOR_SCALAR_TYPE, "invalid shape dynamism|unbounded dynamic shape",
                   name);
    }
  if ((field = scalar (w, &t, TENSOR_LAYOUT)) != 0)
    patch (w, "tensor/layout", "only strided", field, 1, 1, name);
  if ((field = scalar (w, &t, TENSOR_SHAPE_DYNAMISM)) != 0)
    {
      patch (w, "tensor/dynamism", "invalid shape dynamism", field, 1, 3, name);
      patch (w, "tensor/dynamism", "unbounded dynamic shape", field, 1, 2, name);
    }
  if (scalar_type >= 0 && scalar_type < (gint8) G_N_ELEMENTS (element_sizes))
    nbytes *= element_sizes[scalar_type];

  {
    PlannedTensor planned = { index, FALSE, 0, 0, nbytes };
    gsize data_buffer = scalar (w, &t, TENSOR_DATA_BUFFER_IDX);
    gboolean external = FALSE;

    /* External tensors (a .ptd) ignore data_buffer_idx. */
    if ((field = slot_pos (w, &t, TENSOR_EXTRA_TENSOR_INFO)) != 0)
      {
        Table e = { field + rd32 (w, field) };
        gsize location;
        e.vtable = e.pos - (gint32) rd32 (w, e.pos);
        e.vtable_size = rd16 (w, e.vtable);
        location = slot_pos (w, &e, 2);
        external = location != 0 && w->data[location] == 1;
      }
    if (external)
      data_buffer = 0;

    if ((field = slot_pos (w, &t, TENSOR_ALLOCATION_INFO)) != 0)
      {
        Table a = table (w, ref (w, field, name), name, SLOTS (0, 1, 2));
        gsize id = scalar (w, &a, 0), low = scalar (w, &a, 1);

        planned.planned = TRUE;
        planned.memory_id = id != 0 ? rd32 (w, id) : 0;
        planned.offset = low != 0 ? rd32 (w, low) : 0;
        if (id != 0)
          {
            patch (w, "index/buffer", "planned in buffer", id, 4, 0, name);
            patch (w, "index/buffer", "planned in buffer", id, 4, w->n_buffers + 1, name);
            alias_field (w, &a, 2, 0, "do not fit planned buffer", name);
          }
        if (low != 0)
          {
            patch (w, "planned/offset", "do not fit planned buffer", low, 4, 0xfffffff0u, name);
            if (scalar_type >= 0 && scalar_type < (gint8) G_N_ELEMENTS (element_sizes) &&
                element_sizes[scalar_type] > 1)
              patch (w, "planned/offset", "not aligned", low, 4, rd32 (w, low) + 1, name);
            patch (w, "in-range/planned-offset", NULL, low, 4, 0, name);
          }
        if (low != 0 || id != 0)
          patch (w, "in-range/planned-offset", NULL, low != 0 ? low : id, 4, low != 0 ? rd32 (w, low) + 16 : 2, name);
        if (data_buffer != 0 && rd32 (w, data_buffer) != 0 && w->has_mutable_data)
          patch (w, "index/initial-value", "initial value index", data_buffer, 4, 1u << 30, name);
      }
    else if (data_buffer != 0)
      {
        patch (w, "index/constant", "constant index", data_buffer, 4, 1u << 30, name);
        patch (w, "in-range/constant", NULL, data_buffer, 4, rd32 (w, data_buffer) + 1, name);
        if (rd32 (w, data_buffer) > 1)
          patch (w, "in-range/constant", NULL, data_buffer, 4, rd32 (w, data_buffer) - 1, name);
      }
    g_array_append_val (w->planned, planned);
  }

  if ((field = slot_pos (w, &t, TENSOR_EXTRA_TENSOR_INFO)) != 0)
    {
      Table e = table (w, ref (w, field, name), name, SLOTS (1, 2, 3, 4));
      gsize device = scalar (w, &e, 3);
      string (w, &e, 1, name);
      if (device != 0)
        patch (w, "tensor/device", "unknown device", device, 1, 99, name);
    }
}

static void
walk_value (Walk *w, gsize pos, guint index)
{
  g_autofree char *name = g_strdup_printf ("value %u", index);
  Table t = table (w, pos, name, SLOTS (0, 1));
  gsize tag_pos = scalar (w, &t, 0), field = slot_pos (w, &t, 1);
  guint8 tag = tag_pos != 0 ? w->data[tag_pos] : 0;
  Table payload;

  w->value_tags[index] = tag;
  if (tag_pos != 0)
    {
      patch (w, "tag/value", "invalid or empty type", tag_pos, 1, 0, name);
      patch (w, "tag/value", "invalid or empty type", tag_pos, 1, N_KINDS, name);
      patch (w, "tag/value", "invalid or empty type", tag_pos, 1, 0xff, name);
      for (guint8 other = KIND_NULL; other < N_KINDS; other++)
        if (other != tag)
          patch (w, "in-range/value-tag", NULL, tag_pos, 1, other, name);
    }
  if (field == 0)
    return;
  if (tag != KIND_NULL)
    drop_field (w, &t, 1, "field/missing", "invalid or empty type|unknown kind", name);
  payload = table (w, ref (w, field, name), name, SLOTS (0));
  switch (tag)
    {
      case KIND_INT:
        if ((field = scalar (w, &payload, 0)) != 0)
          {
            static const gint64 ints[] = { -1, 0, 1, 1ll << 40, G_MININT64, G_MAXINT64 };
            for (guint i = 0; i < G_N_ELEMENTS (ints); i++)
              if ((gint64) rd64 (w, field) != ints[i])
                patch (w, "in-range/int", NULL, field, 8, (guint64) ints[i], name);
          }
        break;
      case KIND_DOUBLE:
        if ((field = scalar (w, &payload, 0)) != 0)
          {
            patch (w, "in-range/double", NULL, field, 8, G_GUINT64_CONSTANT (0x7ff8000000000000), name); /* NaN */
            patch (w, "in-range/double", NULL, field, 8, G_GUINT64_CONSTANT (0xfff0000000000000), name); /* -inf */
          }
        break;
      case KIND_STRING: string (w, &payload, 0, name); break;
      case KIND_TENSOR: walk_tensor (w, payload.pos, index); break;
      case KIND_DOUBLE_LIST:
      case KIND_BOOL_LIST:
        if ((field = slot_pos (w, &payload, 0)) != 0)
          vector (w, field, tag == KIND_DOUBLE_LIST ? 8 : 1, name);
        break;
      case KIND_INT_LIST:
      case KIND_TENSOR_LIST:
      case KIND_OPTIONAL_TENSOR_LIST:
        if ((field = slot_pos (w, &payload, 0)) != 0)
          {
            guint element = tag == KIND_INT_LIST ? 8 : 4;
            gsize items = vector (w, field, element, name);
            ListValue list = { index, items + 4, rd32 (w, items), element, tag == KIND_OPTIONAL_TENSOR_LIST };
            g_array_append_val (w->lists, list);
          }
        break;
      default: break;
    }
}

/* List items: out of range, the list itself, another list; after all
 * values are known. */
static void
walk_lists (Walk *w)
{
  for (guint l = 0; l < w->lists->len; l++)
    {
      const ListValue *list = &g_array_index (w->lists, ListValue, l);
      g_autofree char *name = g_strdup_printf ("value %u (list) item 0", list->index);
      guint64 mask = list->element == 8 ? G_MAXUINT64 : G_MAXUINT32;

      if (list->length == 0)
        continue;
      patch (w, "index/list-item", "refers to value", list->items, list->element, w->n_values, name);
      patch (w, "index/list-item", "refers to value", list->items, list->element, (guint64) -2 & mask, name);
      if (!list->optional)
        patch (w, "index/list-item", "refers to value", list->items, list->element, (guint64) -1 & mask, name);
      patch (w, "list/self", "has the wrong type", list->items, list->element, list->index, name);
      if (l + 1 < w->lists->len)
        {
          const ListValue *other = &g_array_index (w->lists, ListValue, l + 1);
          if (other->length > 0)
            {
              Case *c = add_case (w, "list/cycle", "has the wrong type", "values %u and %u (lists) name each other",
                                  list->index, other->index);
              case_patch (c, list->items, list->element, other->index);
              case_patch (c, other->items, other->element, list->index);
            }
        }
      for (guint k = 0; k < IN_RANGE_MAX && k < w->n_values; k++)
        {
          guint64 current = list->element == 8 ? rd64 (w, list->items) : rd32 (w, list->items);
          guint v = in_range_pick (w, k, w->n_values);
          if (v != current)
            patch (w, "in-range/list-item", NULL, list->items, list->element, v, name);
        }
    }
}

static void
walk_instruction (Walk *w, gsize pos, guint chain, guint pc, guint n_instructions)
{
  g_autofree char *name = g_strdup_printf ("chain %u instruction %u", chain, pc);
  Table t = table (w, pos, name, SLOTS (0, 1));
  gsize kind_pos = scalar (w, &t, 0), field = slot_pos (w, &t, 1);
  guint8 kind = kind_pos != 0 ? w->data[kind_pos] : 0;
  Table call;
  gsize a, b;

  g_assert_cmpuint (kind, >=, INSTR_KERNEL);
  g_assert_cmpuint (kind, <=, INSTR_FREE);
  patch (w, "tag/instruction", "unknown kind", kind_pos, 1, 0, name);
  patch (w, "tag/instruction", "unknown kind", kind_pos, 1, INSTR_FREE + 1, name);
  patch (w, "tag/instruction", "unknown kind", kind_pos, 1, 0xff, name);
  for (guint8 other = INSTR_KERNEL; other <= INSTR_FREE; other++)
    if (other != kind)
      patch (w, "in-range/instruction-tag", NULL, kind_pos, 1, other, name);
  /* EValue and Instruction tables have the same shape and may share a vtable. */
  drop_field (w, &t, 1, "field/missing", "unknown kind|invalid or empty type", name);
  g_assert_cmpuint (field, !=, 0);
  call = table (w, ref (w, field, name), name, SLOTS (0, 1));
  a = scalar (w, &call, 0);
  b = scalar (w, &call, 1);
  switch (kind)
    {
      case INSTR_KERNEL:
      case INSTR_DELEGATE:
        {
          guint limit = kind == INSTR_KERNEL ? w->n_operators : w->n_delegates;
          const char *what = kind == INSTR_KERNEL ? "operator index" : "delegate index";
          if (a != 0)
            {
              patch (w, "index/operator", what, a, 4, limit, name);
              patch (w, "index/operator", what, a, 4, (guint32) -1, name);
            }
          for (guint k = 0; k < IN_RANGE_MAX && k < limit && a != 0; k++)
            {
              guint i = in_range_pick (w, k, limit);
              if (i != rd32 (w, a))
                patch (w, "in-range/operator", NULL, a, 4, i, name);
            }
          if (b != 0)
            {
              gsize args = vector (w, b, 4, name);
              for (guint32 i = 0; i < rd32 (w, args); i++)
                {
                  g_autofree char *what_arg = g_strdup_printf ("%s argument %u", name, i);
                  value_index (w, args + 4 + 4 * (gsize) i, (gint32) rd32 (w, args + 4 + 4 * (gsize) i), what_arg,
                               "refers to value");
                }
            }
          break;
        }
      case INSTR_MOVE:
        if (a != 0)
          value_index (w, a, (gint32) rd32 (w, a), name, "move source");
        if (b != 0)
          value_index (w, b, (gint32) rd32 (w, b), name, "move destination");
        break;
      case INSTR_JUMP_FALSE:
        if (a != 0)
          value_index (w, a, (gint32) rd32 (w, a), name, "condition value");
        if (b != 0)
          {
            patch (w, "index/jump", "jump destination", b, 4, n_instructions + 1, name);
            patch (w, "index/jump", "jump destination", b, 4, (guint32) -1, name);
            for (guint i = 0; i <= n_instructions; i++)
              if (i != rd32 (w, b))
                patch (w, "in-range/jump", NULL, b, 4, i, name);
          }
        break;
      case INSTR_FREE:
        if (a != 0)
          value_index (w, a, (gint32) rd32 (w, a), name, "freed value");
        break;
    }
}

static void
walk_delegate (Walk *w, gsize pos, guint index, gsize root_pos, const Table *root)
{
  g_autofree char *name = g_strdup_printf ("delegate %u", index);
  Table t = table (w, pos, name, SLOTS (0, 1, 2));
  gsize field;
  guint32 n_specs;
  gsize specs;

  string (w, &t, 0, name);
  drop_field (w, &t, 0, "field/missing", "has no backend id", name);
  drop_field (w, &t, 1, "field/missing", "no processed payload", name);
  if ((field = slot_pos (w, &t, 1)) != 0)
    {
      Table p = table (w, ref (w, field, name), name, SLOTS (0, 1));
      gsize location = scalar (w, &p, 0), at = scalar (w, &p, 1);
      gboolean in_segment = location != 0 && w->data[location] == 1;

      if (location != 0)
        patch (w, "delegate/location", "is unknown", location, 1, 7, name);
      if (at != 0)
        patch (w, "index/delegate-data", "is out of range", at, 4, 1000, name);
      if (!in_segment && !w->inline_delegates_walked && (field = slot_pos (w, root, PROGRAM_BACKEND_DELEGATE_DATA)))
        {
          guint32 n;
          gsize data = vector (w, field, 4, "Program.backend_delegate_data");
          w->inline_delegates_walked = TRUE;
          n = rd32 (w, data);
          for (guint32 i = 0; i < n; i++)
            {
              Table d =
                  table (w, element_table (w, data, i, "inline delegate data"), "inline delegate data", SLOTS (0));
              if ((field = slot_pos (w, &d, 0)) != 0)
                vector (w, field, 1, "BackendDelegateInlineData.data");
            }
        }
    }
  specs = table_vector (w, &t, 2, name, &n_specs);
  for (guint32 i = 0; i < n_specs; i++)
    {
      Table s = table (w, element_table (w, specs, i, name), name, SLOTS (0, 1));
      string (w, &s, 0, name);
      if ((field = slot_pos (w, &s, 1)) != 0)
        vector (w, field, 1, name);
    }
  (void) root_pos;
}

static void
walk_plan (Walk *w, gsize pos, guint plan, gsize root_pos, const Table *root)
{
  static const struct
  {
    guint slot;
    const char *expect;
  } required[] = {
    { PLAN_NAME, "lacks its name" },
    { PLAN_VALUES, "lacks its values" },
    { PLAN_INPUTS, "lacks its inputs" },
    { PLAN_OUTPUTS, "lacks its outputs" },
    { PLAN_CHAINS, "lacks its chains" },
    { PLAN_DELEGATES, "lacks its delegates" },
    { PLAN_NON_CONST_BUFFER_SIZES, "lacks its non_const_buffer_sizes" },
  };
  g_autofree char *name = g_strdup_printf ("method %u", plan);
  Table t = table (w, pos, name, SLOTS (0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  gsize field, values, chains, operators, delegates, sizes = 0;
  guint32 n_chains, n_delegates;

  w->plan = plan;
  for (guint i = 0; i < G_N_ELEMENTS (required); i++)
    drop_field (w, &t, required[i].slot, "field/missing", required[i].expect, name);
  string (w, &t, PLAN_NAME, name);
  if ((field = slot_pos (w, &t, PLAN_CONTAINER_META_TYPE)) != 0)
    {
      Table c = table (w, ref (w, field, name), name, SLOTS (0, 1));
      string (w, &c, 0, name);
      string (w, &c, 1, name);
    }

  /* Counts first: index cases need them. */
  operators = table_vector (w, &t, PLAN_OPERATORS, "ExecutionPlan.operators", &w->n_operators);
  delegates = table_vector (w, &t, PLAN_DELEGATES, "ExecutionPlan.delegates", &n_delegates);
  w->n_delegates = n_delegates;
  if ((field = slot_pos (w, &t, PLAN_NON_CONST_BUFFER_SIZES)) != 0)
    {
      sizes = vector (w, field, 8, "ExecutionPlan.non_const_buffer_sizes");
      w->n_buffers = rd32 (w, sizes) > 0 ? rd32 (w, sizes) - 1 : 0;
    }
  values = table_vector (w, &t, PLAN_VALUES, "ExecutionPlan.values", &w->n_values);
  w->value_tags = g_new0 (guint8, MAX (w->n_values, 1));
  w->planned = g_array_new (FALSE, FALSE, sizeof (PlannedTensor));
  w->lists = g_array_new (FALSE, FALSE, sizeof (ListValue));

  for (guint32 i = 0; i < w->n_values; i++)
    walk_value (w, element_table (w, values, i, "ExecutionPlan.values"), i);
  walk_lists (w);

  for (guint slot = PLAN_INPUTS; slot <= PLAN_OUTPUTS; slot++)
    if ((field = slot_pos (w, &t, slot)) != 0)
      {
        gsize list = vector (w, field, 4, slot == PLAN_INPUTS ? "ExecutionPlan.inputs" : "ExecutionPlan.outputs");
        for (guint32 i = 0; i < rd32 (w, list); i++)
          {
            g_autofree char *what = g_strdup_printf ("%s %u", slot == PLAN_INPUTS ? "input" : "output", i);
            value_index (w, list + 4 + 4 * (gsize) i, (gint32) rd32 (w, list + 4 + 4 * (gsize) i), what,
                         "refers to value");
          }
      }

  for (guint32 i = 0; i < w->n_operators; i++)
    {
      Table o = table (w, element_table (w, operators, i, "ExecutionPlan.operators"), "operator", SLOTS (0, 1));
      string (w, &o, 0, "Operator.name");
      string (w, &o, 1, "Operator.overload");
      drop_field (w, &o, 0, "field/missing", "has no name", "Operator.name");
    }
  for (guint32 i = 0; i < n_delegates; i++)
    walk_delegate (w, element_table (w, delegates, i, "ExecutionPlan.delegates"), i, root_pos, root);

  /* Absurd planned sizes. */
  for (guint i = 0; i < w->n_buffers; i++)
    {
      gsize at = sizes + 4 + 8 * (gsize) (i + 1);
      g_autofree char *what = g_strdup_printf ("planned buffer %u size", i);
      guint64 needed = 0;

      for (guint j = 0; j < w->planned->len; j++)
        {
          const PlannedTensor *p = &g_array_index (w->planned, PlannedTensor, j);
          if (p->planned && p->memory_id == i + 1)
            needed = MAX (needed, p->offset + p->nbytes);
        }
      patch (w, "planned/size", "negative size", at, 8, (guint64) -1, what);
      patch (w, "planned/size", "over the memory limit", at, 8, G_GUINT64_CONSTANT (1) << 40, what);
      patch (w, "planned/size", "over the memory limit", at, 8, G_MAXINT64, what);
      if (needed > 0)
        patch (w, "planned/size", "do not fit planned buffer", at, 8, needed - 1, what);
      patch (w, "in-range/planned-size", NULL, at, 8, needed, what);
    }
  if (w->n_buffers >= 2)
    {
      Case *c = add_case (w, "planned/size", "over the memory limit", "two buffers of 2^62 bytes");
      case_patch (c, sizes + 4 + 8, 8, G_GUINT64_CONSTANT (1) << 62);
      case_patch (c, sizes + 4 + 16, 8, G_GUINT64_CONSTANT (1) << 62);
    }
  if (sizes != 0 && rd32 (w, sizes) > 0)
    patch (w, "in-range/planned-size", NULL, sizes + 4, 8, 12345, "placeholder buffer 0 size");
  if ((field = slot_pos (w, &t, PLAN_NON_CONST_BUFFER_DEVICE)) != 0)
    {
      gsize devices = vector (w, field, 4, "ExecutionPlan.non_const_buffer_device");
      for (guint32 i = 0; i < rd32 (w, devices); i++)
        {
          Table d = table (w, element_table (w, devices, i, "buffer device"), "buffer device", SLOTS (0, 1, 2));
          gsize buffer = scalar (w, &d, 0), type = scalar (w, &d, 1);
          if (buffer != 0)
            {
              patch (w, "index/buffer-device", "buffer device entry", buffer, 4, 0, "buffer device");
              patch (w, "index/buffer-device", "buffer device entry", buffer, 4, w->n_buffers + 1, "buffer device");
            }
          if (type != 0)
            patch (w, "index/buffer-device", "buffer device entry", type, 1, 99, "buffer device type");
        }
    }

  chains = table_vector (w, &t, PLAN_CHAINS, "ExecutionPlan.chains", &n_chains);
  if (chains != 0)
    patch (w, "count/chains", "has no chain", chains, 4, 0, name);
  for (guint32 c = 0; c < n_chains; c++)
    {
      Table chain = table (w, element_table (w, chains, c, "ExecutionPlan.chains"), "chain", SLOTS (2));
      guint32 n_instructions;
      gsize instructions = table_vector (w, &chain, 2, "Chain.instructions", &n_instructions);

      drop_field (w, &chain, 2, "field/missing", "has no instruction list", "chain");
      for (guint32 pc = 0; pc < n_instructions; pc++)
        walk_instruction (w, element_table (w, instructions, pc, "Chain.instructions"), c, pc, n_instructions);
    }

  g_clear_pointer (&w->value_tags, g_free);
  g_clear_pointer (&w->planned, g_array_unref);
  g_clear_pointer (&w->lists, g_array_unref);
}

/* A SubsegmentOffsets table (the constant segment or mutable data). */
static void
walk_subsegments (Walk *w, gsize pos, const char *name)
{
  Table t = table (w, pos, name, SLOTS (0, 1));
  gsize index = scalar (w, &t, 0), field = slot_pos (w, &t, 1), offsets;
  guint32 n;

  if (field == 0)
    return;
  offsets = vector (w, field, 8, name);
  n = rd32 (w, offsets);
  if (n <= 1)
    return; /* nothing stored: the segment is never looked up */
  if (strcmp (name, "mutable data") == 0)
    w->has_mutable_data = TRUE;
  if (index != 0)
    patch (w, "index/segment", "segment index", index, 4, w->n_segments + 3, name);
  for (guint32 i = 0; i < n; i++)
    patch (w, "segment/offset", "lies past the end of segment", offsets + 4 + 8 * (gsize) i, 8,
           G_GUINT64_CONSTANT (1) << 40, name);
}

static void
walk_program (Walk *w)
{
  Table root = table (w, ref (w, 0, "root"), "Program", SLOTS (0, 1, 2, 4, 5, 6, 7));
  gsize field, plans, segments, named;
  guint32 n_plans, n_named;

  if ((field = scalar (w, &root, PROGRAM_VERSION)) != 0)
    patch (w, "program/version", "version", field, 4, 1, "Program.version");
  segments = table_vector (w, &root, PROGRAM_SEGMENTS, "Program.segments", &w->n_segments);
  for (guint32 i = 0; i < w->n_segments; i++)
    {
      Table s = table (w, element_table (w, segments, i, "Program.segments"), "segment", SLOTS (0, 1));
      for (guint slot = 0; slot < 2 && w->segment_base != 0; slot++)
        if ((field = scalar (w, &s, slot)) != 0)
          patch (w, "segment/range", "lies past the end of the file", field, 8, G_GUINT64_CONSTANT (1) << 40,
                 slot == 0 ? "segment offset" : "segment size");
    }
  if ((field = slot_pos (w, &root, PROGRAM_CONSTANT_BUFFER)) != 0)
    vector (w, field, 4, "Program.constant_buffer");
  if ((field = slot_pos (w, &root, PROGRAM_CONSTANT_SEGMENT)) != 0)
    walk_subsegments (w, ref (w, field, "Program.constant_segment"), "constant segment");
  if ((field = slot_pos (w, &root, PROGRAM_MUTABLE_DATA_SEGMENTS)) != 0)
    {
      gsize mutable = vector (w, field, 4, "Program.mutable_data_segments");
      if (rd32 (w, mutable) > 0)
        walk_subsegments (w, element_table (w, mutable, 0, "mutable data"), "mutable data");
    }
  named = table_vector (w, &root, PROGRAM_NAMED_DATA, "Program.named_data", &n_named);
  for (guint32 i = 0; i < n_named; i++)
    {
      Table n = table (w, element_table (w, named, i, "Program.named_data"), "named data", SLOTS (0, 1));
      string (w, &n, 0, "NamedData.key");
      drop_field (w, &n, 0, "field/missing", "has no key", "NamedData.key");
      if ((field = scalar (w, &n, 1)) != 0)
        patch (w, "index/segment", "segment index", field, 4, w->n_segments + 3, "named data segment");
    }
  plans = table_vector (w, &root, PROGRAM_EXECUTION_PLAN, "Program.execution_plan", &n_plans);
  for (guint32 i = 0; i < n_plans; i++)
    walk_plan (w, element_table (w, plans, i, "Program.execution_plan"), i, root.pos, &root);
}

/* ---- running the cases ---- */

typedef struct
{
  char *label;
  GBytes *pte;
  GBytes *ptd;        /* external data, or NULL */
  guint per_category; /* 0: every case, else at most this many per category */
} Fixture;

static void
fixture_free (Fixture *fixture)
{
  g_free (fixture->label);
  g_bytes_unref (fixture->pte);
  g_clear_pointer (&fixture->ptd, g_bytes_unref);
  g_free (fixture);
}

/* Stand-ins for backends that are not installed, so that delegate payloads
 * and compile specs are read (and delegate calls run) without them. */
static EtError
fake_init (void *user_data, EtBackendInitContext *context, const void *processed, size_t size,
           const EtCompileSpec *specs, size_t n_specs, void **handle)
{
  *handle = GSIZE_TO_POINTER (1);
  return ET_OK;
}

static EtError
fake_execute (void *user_data, EtBackendExecuteContext *context, void *handle, EtValue **args, uint32_t n_args)
{
  return ET_OK;
}

static const EtBackend fake_backends[] = {
  { .abi_version = ET_PLUGIN_ABI_VERSION, .id = "XnnpackBackend", .init = fake_init, .execute = fake_execute },
  { .abi_version = ET_PLUGIN_ABI_VERSION, .id = "CudaBackend", .init = fake_init, .execute = fake_execute },
};

/* A host-memory stand-in for a CUDA allocator (device_planned). */
static EtError
fake_allocate (void *user_data, size_t nbytes, int index, size_t alignment, void **out)
{
  return posix_memalign (out, alignment, nbytes ? nbytes : 1) == 0 ? ET_OK : ET_ERROR_MEMORY_ALLOCATION_FAILED;
}

static void
fake_deallocate (void *user_data, void *ptr, int index)
{
  free (ptr);
}

static EtError
fake_copy (void *user_data, void *dst, const void *src, size_t n, int index)
{
  memcpy (dst, src, n);
  return ET_OK;
}

static const EtDeviceAllocator fake_allocator = {
  .abi_version = ET_PLUGIN_ABI_VERSION,
  .device_type = ET_DEVICE_CUDA,
  .name = "fake-cuda",
  .allocate = fake_allocate,
  .deallocate = fake_deallocate,
  .copy_host_to_device = fake_copy,
  .copy_device_to_host = fake_copy,
};

static void
register_fake_backend (void)
{
  static gsize done;

  if (g_once_init_enter (&done))
    {
      /* Discovery first, so that a real backend wins. */
      g_auto (GStrv) backends = NULL;
      g_assert_true (executorch_load_plugins (NULL));
      backends = executorch_list_backends ();
      for (guint i = 0; i < G_N_ELEMENTS (fake_backends); i++)
        if (!g_strv_contains ((const char *const *) backends, fake_backends[i].id))
          g_assert_cmpint (et_registry_add_backend (et_registry_get_default (), &fake_backends[i], NULL), ==, ET_OK);
      g_strfreev (backends);
      backends = executorch_list_device_types ();
      if (!g_strv_contains ((const char *const *) backends, "cuda"))
        g_assert_cmpint (et_registry_add_device_allocator (et_registry_get_default (), &fake_allocator, NULL), ==,
                         ET_OK);
      g_once_init_leave (&done, 1);
    }
}

static GBytes *
mutate (const Walk *w, const Case *c)
{
  guint8 *copy = g_memdup2 (w->data, w->size);
  gsize size = w->size;

  for (guint i = 0; i < c->n_patches; i++)
    for (guint b = 0; b < c->patches[i].size; b++)
      copy[c->patches[i].pos + b] = (guint8) (c->patches[i].value >> (8 * b));
  if (c->truncate > 0)
    {
      if (w->header)
        for (guint b = 0; b < 8; b++)
          copy[16 + b] = (guint8) ((guint64) c->truncate >> (8 * b));
      else
        size = c->truncate;
    }
  return g_bytes_new_take (copy, size);
}

static gboolean
message_matches (const char *message, const char *expect)
{
  g_auto (GStrv) alternatives = g_strsplit (expect, "|", -1);

  for (guint i = 0; alternatives[i] != NULL; i++)
    if (strstr (message, alternatives[i]) != NULL)
      return TRUE;
  return FALSE;
}

static void
check_error (const GError *error, const char *where)
{
  if (error->domain != EXECUTORCH_ERROR || error->message == NULL || error->message[0] == '\0')
    g_error ("%s: an error outside EXECUTORCH_ERROR or without a message: %s (%s %d)", where, error->message,
             g_quark_to_string (error->domain), error->code);
}

#define MAX_INPUT_BYTES (64 << 20)

static gboolean execute_once (ExecutorchMethod *method, GError **error);

/* Binds zeros (or the traced scalar) to every input, executes and reads
 * every output, twice: a first execution may leave state (a freed or
 * moved value) that the second meets.  Returns FALSE with @error set on
 * the first failure. */
static gboolean
execute_on_zeros (ExecutorchMethod *method, GError **error)
{
  GError *first = NULL;
  gboolean ok = execute_once (method, &first);

  /* The second runs even when the first failed. */
  if (!execute_once (method, ok ? error : NULL))
    ok = FALSE;
  if (first != NULL)
    g_propagate_error (error, first);
  return ok;
}

static gboolean
execute_once (ExecutorchMethod *method, GError **error)
{
  ExecutorchMethodInfo *info = executorch_method_get_info (method);

  for (guint i = 0; i < executorch_method_info_get_n_inputs (info); i++)
    {
      ExecutorchValueInfo *value = executorch_method_info_get_input (info, i);
      gboolean ok = TRUE;

      switch (executorch_value_info_get_kind (value))
        {
          case EXECUTORCH_VALUE_KIND_TENSOR:
            {
              gsize n_dims;
              const gint64 *sizes = executorch_value_info_get_sizes (value, &n_dims);
              g_autoptr (ExecutorchTensor) tensor = NULL;

              if (executorch_value_info_get_nbytes (value) > MAX_INPUT_BYTES)
                return TRUE; /* a mutated size; not worth the memory */
              tensor =
                  executorch_tensor_new_zeros (executorch_value_info_get_scalar_type (value), sizes, n_dims, error);
              ok = tensor != NULL && executorch_method_set_input (method, i, tensor, error);
              break;
            }
          case EXECUTORCH_VALUE_KIND_INT:
            ok = executorch_method_set_input_int (method, i, executorch_value_info_get_int_value (value), error);
            break;
          case EXECUTORCH_VALUE_KIND_DOUBLE:
            ok = executorch_method_set_input_double (method, i, executorch_value_info_get_double_value (value), error);
            break;
          case EXECUTORCH_VALUE_KIND_BOOL:
            ok = executorch_method_set_input_bool (method, i, executorch_value_info_get_bool_value (value), error);
            break;
          case EXECUTORCH_VALUE_KIND_NONE: ok = executorch_method_set_input (method, i, NULL, error); break;
          default: return TRUE;
        }
      if (!ok)
        return FALSE;
    }
  executorch_method_set_max_instructions (method, 20000);
  totals.executed++;
  if (!executorch_method_execute (method, NULL, error))
    return FALSE;
  for (guint i = 0; i < executorch_method_get_n_outputs (method); i++)
    if (executorch_method_get_output_kind (method, i) == EXECUTORCH_VALUE_KIND_TENSOR)
      {
        g_autoptr (ExecutorchTensor) output = executorch_method_get_output (method, i, error);
        g_autoptr (GBytes) bytes = NULL;

        if (output == NULL)
          return FALSE;
        /* Reads every byte of the output (an out-of-bounds view would show). */
        bytes = executorch_tensor_get_bytes (output, NULL);
        if (bytes != NULL)
          {
            gsize n;
            const guint8 *data = g_bytes_get_data (bytes, &n);
            volatile guint8 sum = 0;
            for (gsize j = 0; j < n; j++)
              sum += data[j];
            (void) sum;
          }
      }
  return TRUE;
}

/* Loads the program and every method, executing those that load.
 * Returns the first load error (NULL when everything loaded). */
static GError *
load_and_run (GBytes *bytes, GBytes *ptd, const char *where, gboolean *executed_ok)
{
  GError *error = NULL, *first = NULL;
  g_autoptr (ExecutorchProgram) program =
      executorch_program_new_from_bytes_with_data (bytes, &ptd, ptd ? 1 : 0, &error);
  g_auto (GStrv) names = NULL;

  *executed_ok = TRUE;
  if (program == NULL)
    {
      check_error (error, where);
      return error;
    }
  executorch_program_set_max_memory (program, 256 << 20);
  names = executorch_program_list_methods (program);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr (ExecutorchMethod) method = executorch_program_load_method (program, names[i], &error);

      if (method == NULL)
        {
          check_error (error, where);
          if (first == NULL)
            first = g_steal_pointer (&error);
          g_clear_error (&error);
          continue;
        }
      if (!execute_on_zeros (method, &error))
        {
          check_error (error, where);
          *executed_ok = FALSE;
          g_clear_error (&error);
        }
    }
  return first;
}

static guint
count_category (const char *category)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (totals.per_category, category));
}

static void
run_cases (const Fixture *fixture, Walk *w, GString *failures)
{
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *kept = g_hash_table_new (g_str_hash, g_str_equal); /* category -> count, this fixture */
  guint n = 0;

  /* A fixed shuffle, so that sampled fixtures keep a spread of cases. */
  for (guint i = w->cases->len; i > 1; i--)
    {
      guint j = (guint) g_rand_int_range (w->rand, 0, (gint32) i);
      Case tmp = g_array_index (w->cases, Case, i - 1);
      g_array_index (w->cases, Case, i - 1) = g_array_index (w->cases, Case, j);
      g_array_index (w->cases, Case, j) = tmp;
    }
  for (guint i = 0; i < w->cases->len; i++)
    {
      const Case *c = &g_array_index (w->cases, Case, i);
      GString *key = g_string_new (NULL);
      g_autoptr (GBytes) bytes = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *where = NULL;
      gboolean executed_ok;
      guint in_category;

      /* The same bytes from two paths (a shared vtable, say) run once. */
      g_string_append_printf (key, "%zu", c->truncate);
      for (guint p = 0; p < c->n_patches; p++)
        g_string_append_printf (key, ",%zu:%u:%" G_GUINT64_FORMAT, c->patches[p].pos, c->patches[p].size,
                                c->patches[p].value);
      if (!g_hash_table_add (seen, g_string_free (key, FALSE)))
        continue;
      in_category = GPOINTER_TO_UINT (g_hash_table_lookup (kept, c->category));
      if (fixture->per_category > 0 && in_category >= fixture->per_category)
        continue;
      g_hash_table_insert (kept, (gpointer) c->category, GUINT_TO_POINTER (in_category + 1));
      g_hash_table_insert (totals.per_category, (gpointer) c->category,
                           GUINT_TO_POINTER (count_category (c->category) + 1));

      where = g_strdup_printf ("%s: %s: %s", fixture->label, c->category, c->what);
      bytes = mutate (w, c);
      error = load_and_run (bytes, fixture->ptd, where, &executed_ok);
      n++;
      if (c->expect != NULL)
        {
          totals.expected++;
          if (error == NULL)
            g_string_append_printf (failures, "%s: loaded, expected an error with \"%s\"\n", where, c->expect);
          else if (!message_matches (error->message, c->expect))
            g_string_append_printf (failures, "%s: \"%s\" does not say \"%s\"\n", where, error->message, c->expect);
        }
      else if (error == NULL)
        {
          totals.survived_loaded++;
          if (!executed_ok)
            totals.execute_failed++;
        }
      else
        totals.survived_failed++;
    }
  totals.cases += n;
  g_test_message ("%s: %u cases (%u generated), FlatBuffer %zu bytes, read up to %zu", fixture->label, n, w->cases->len,
                  w->fb_size, w->read_end);
  g_hash_table_unref (kept);
  g_hash_table_unref (seen);
}

static void
mutate_fixture (gconstpointer data)
{
  const Fixture *fixture = data;
  g_autoptr (GString) failures = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GList) bounds = NULL;
  Walk w = { 0 };
  gboolean executed_ok;

  register_fake_backend ();
  w.data = g_bytes_get_data (fixture->pte, &w.size);
  w.fb_size = w.size;
  if (w.size >= 40 && memcmp (w.data + 8, "eh00", 4) == 0)
    {
      w.header = TRUE;
      w.fb_size = (gsize) rd64 (&w, 16);
      w.segment_base = rd64 (&w, 24);
    }
  w.cases = g_array_new (FALSE, FALSE, sizeof (Case));
  g_array_set_clear_func (w.cases, case_clear);
  w.bounds = g_hash_table_new (g_direct_hash, g_direct_equal);
  w.vtables = g_hash_table_new (g_direct_hash, g_direct_equal);
  w.rand = g_rand_new_with_seed (8);

  /* The fixture itself loads and runs. */
  error = load_and_run (fixture->pte, fixture->ptd, fixture->label, &executed_ok);
  if (error != NULL)
    {
      /* Needs something this build lacks: nothing to compare against. */
      g_autofree char *why = g_strdup_printf ("%s does not load here: %s", fixture->label, error->message);
      g_test_skip (why);
      g_array_unref (w.cases);
      g_hash_table_unref (w.bounds);
      g_hash_table_unref (w.vtables);
      g_rand_free (w.rand);
      return;
    }
  if (!executed_ok)
    g_test_message ("%s: the unmutated fixture does not execute on zero inputs", fixture->label);

  walk_program (&w);
  bounds = g_hash_table_get_keys (w.bounds);
  for (GList *l = bounds; l != NULL; l = l->next)
    {
      gsize at = GPOINTER_TO_SIZE (l->data);
      Case *c;
      if (at == 0 || at >= w.fb_size)
        continue;
      c = add_case (&w, "truncate", at < w.read_end ? BOUNDS_MESSAGES : NULL, "%s at %zu",
                    w.header ? "program size cut" : "file cut", at);
      c->truncate = at;
    }
  run_cases (fixture, &w, failures);

  g_array_unref (w.cases);
  g_hash_table_unref (w.bounds);
  g_hash_table_unref (w.vtables);
  g_rand_free (w.rand);
  if (failures->len > 0)
    g_error ("%s: cases without the expected error:\n%s", fixture->label, failures->str);
}

/* ---- caller inputs that do not match the program ---- */

static guint input_cases;

static void
expect_input_error (gboolean ok, GError **error, const char *expect, const char *where)
{
  input_cases++;
  if (ok)
    g_error ("%s: accepted, expected an error with \"%s\"", where, expect);
  g_assert_nonnull (*error);
  check_error (*error, where);
  if (!message_matches ((*error)->message, expect))
    g_error ("%s: \"%s\" does not say \"%s\"", where, (*error)->message, expect);
  g_clear_error (error);
}

static void
test_inputs (gconstpointer data)
{
  const Fixture *fixture = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program =
      executorch_program_new_from_bytes_with_data (fixture->pte, (GBytes *const *) &fixture->ptd, fixture->ptd ? 1 : 0,
                                                   &error);
  g_auto (GStrv) names = NULL;

  register_fake_backend ();
  g_assert_no_error (error);
  names = executorch_program_list_methods (program);
  for (guint m = 0; names[m] != NULL; m++)
    {
      g_autoptr (ExecutorchMethod) method = executorch_program_load_method (program, names[m], &error);
      if (method == NULL)
        {
          g_autofree char *why = g_strdup_printf ("%s does not load here: %s", fixture->label, error->message);
          g_test_skip (why);
          return;
        }
    }
  for (guint m = 0; names[m] != NULL; m++)
    {
      g_autoptr (ExecutorchMethod) method = executorch_program_load_method (program, names[m], &error);
      ExecutorchMethodInfo *info;
      guint n_inputs;

      g_assert_no_error (error);
      info = executorch_method_get_info (method);
      n_inputs = executorch_method_info_get_n_inputs (info);
      for (guint i = 0; i < n_inputs; i++)
        {
          ExecutorchValueInfo *value = executorch_method_info_get_input (info, i);
          g_autofree char *where = g_strdup_printf ("%s %s input %u", fixture->label, names[m], i);

          if (executorch_value_info_get_kind (value) == EXECUTORCH_VALUE_KIND_TENSOR)
            {
              ExecutorchScalarType type = executorch_value_info_get_scalar_type (value);
              ExecutorchScalarType wrong =
                  type == EXECUTORCH_SCALAR_TYPE_FLOAT ? EXECUTORCH_SCALAR_TYPE_LONG : EXECUTORCH_SCALAR_TYPE_FLOAT;
              gsize n_dims;
              const gint64 *sizes = executorch_value_info_get_sizes (value, &n_dims);
              gint64 bigger[17];
              g_autoptr (ExecutorchTensor) tensor = NULL;

              /* Wrong dtype. */
              tensor = executorch_tensor_new_zeros (wrong, sizes, n_dims, &error);
              g_assert_no_error (error);
              expect_input_error (executorch_method_set_input (method, i, tensor, &error), &error, "must be", where);
              g_clear_object (&tensor);
              /* One dimension more, and (if it has one) one fewer. */
              if (n_dims > 0)
                memcpy (bigger, sizes, n_dims * sizeof (gint64));
              bigger[n_dims] = 1;
              tensor = executorch_tensor_new_zeros (type, bigger, n_dims + 1, &error);
              g_assert_no_error (error);
              expect_input_error (executorch_method_set_input (method, i, tensor, &error), &error, "do not fit", where);
              g_clear_object (&tensor);
              if (n_dims > 0)
                {
                  tensor = executorch_tensor_new_zeros (type, sizes, n_dims - 1, &error);
                  g_assert_no_error (error);
                  expect_input_error (executorch_method_set_input (method, i, tensor, &error), &error, "do not fit",
                                      where);
                  g_clear_object (&tensor);
                  /* Larger than the planned (static) or bound (dynamic) size. */
                  bigger[0] = sizes[0] + 1;
                  tensor = executorch_tensor_new_zeros (type, bigger, n_dims, &error);
                  g_assert_no_error (error);
                  expect_input_error (executorch_method_set_input (method, i, tensor, &error), &error,
                                      executorch_value_info_get_shape_dynamism (value) == 0
                                          ? "do not fit the method's ["
                                          : "do not fit the method's bound",
                                      where);
                  g_clear_object (&tensor);
                }
              /* A scalar where a tensor goes. */
              expect_input_error (executorch_method_set_input_int (method, i, 1, &error), &error, "not a", where);
            }
          else if (executorch_value_info_get_kind (value) == EXECUTORCH_VALUE_KIND_INT)
            {
              gint64 shape[] = { 1 };
              g_autoptr (ExecutorchTensor) tensor =
                  executorch_tensor_new_zeros (EXECUTORCH_SCALAR_TYPE_LONG, shape, 1, &error);
              expect_input_error (executorch_method_set_input (method, i, tensor, &error), &error, "not a tensor",
                                  where);
              expect_input_error (executorch_method_set_input_int (method, i,
                                                                   executorch_value_info_get_int_value (value) + 1,
                                                                   &error),
                                  &error, "fixed when the program was exported", where);
              expect_input_error (executorch_method_set_input_double (method, i, 0.5, &error), &error, "not a", where);
            }
        }
      expect_input_error (executorch_method_set_input (method, n_inputs, NULL, &error), &error, "does not exist",
                          names[m]);
      if (n_inputs > 0)
        {
          g_autoptr (ExecutorchMethod) fresh = executorch_program_load_method (program, names[m], &error);
          g_autoptr (GPtrArray) outputs = NULL;
          gboolean all_scalar = TRUE;

          g_assert_no_error (error);
          for (guint i = 0; i < n_inputs; i++)
            all_scalar = all_scalar && executorch_value_info_get_kind (executorch_method_info_get_input (info, i)) !=
                                           EXECUTORCH_VALUE_KIND_TENSOR;
          if (!all_scalar)
            expect_input_error (executorch_method_execute (fresh, NULL, &error), &error, "is not set", names[m]);
          outputs = executorch_method_run (fresh, NULL, 0, NULL, &error);
          expect_input_error (outputs != NULL, &error, "takes", names[m]);
        }
    }
}

/* ---- fixtures ---- */

static GBytes *
read_model (const char *relative)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, relative, NULL);
  g_autoptr (GError) error = NULL;
  char *contents;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, &error))
    return NULL;
  return g_bytes_new_take (contents, length);
}

static void
add_fixture (GPtrArray *fixtures, char *label, GBytes *pte, GBytes *ptd)
{
  Fixture *fixture = g_new0 (Fixture, 1);
  gsize size = g_bytes_get_size (pte);

  fixture->label = label;
  fixture->pte = pte;
  fixture->ptd = ptd;
  fixture->per_category = size > 64 * 1024 ? 20 : size > 8 * 1024 ? 60 : 0;
  g_ptr_array_add (fixtures, fixture);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The fixtures in @folder (relative to the models folder): each
 * sub-folder NAME with NAME/NAME.pte. */
static void
add_folder (GPtrArray *fixtures, const char *folder, const char *prefix)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, folder, NULL);
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *sub = g_ptr_array_index (names, i);
      g_autofree char *file = g_strdup_printf ("%s/%s/%s.pte", folder, sub, sub);
      g_autofree char *ptd_file = g_strdup_printf ("%s/%s/_default_external_constant.ptd", folder, sub);
      GBytes *pte = read_model (file);

      if (pte != NULL)
        add_fixture (fixtures, g_strdup_printf ("%s%s", prefix, sub), pte, read_model (ptd_file));
    }
}

/* The programs embedded in the bundled fixtures. */
static void
add_bundled (GPtrArray *fixtures)
{
  static const char *const names[] = { "add_bp", "int_bp", "mlp_bp" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *file = g_strdup_printf ("bundled/%s.bpte", names[i]);
      g_autoptr (GBytes) bundle = read_model (file);
      gsize size;
      const guint8 *data;
      gboolean found = FALSE;

      g_assert_nonnull (bundle);
      data = g_bytes_get_data (bundle, &size);
      /* The program is a [ubyte] vector: its length, then "....ET12". */
      for (gsize at = 4; at + 8 <= size && !found; at += 4)
        if (memcmp (data + at + 4, "ET12", 4) == 0)
          {
            guint32 length = (guint32) data[at - 4] | ((guint32) data[at - 3] << 8) | ((guint32) data[at - 2] << 16) |
                             ((guint32) data[at - 1] << 24);
            g_assert_cmpuint (at + length, <=, size);
            add_fixture (fixtures, g_strdup_printf ("bundled-%s", names[i]), g_bytes_new (data + at, length), NULL);
            found = TRUE;
          }
      g_assert_true (found);
    }
}

static void
test_total (void)
{
  GHashTableIter iter;
  gpointer key, value;
  g_autoptr (GString) line = g_string_new (NULL);

  g_hash_table_iter_init (&iter, totals.per_category);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_string_append_printf (line, " %s=%u", (const char *) key, GPOINTER_TO_UINT (value));
  g_test_message ("mutation cases: %u (%u with an expected error, all given; %u in-range changes that loaded, "
                  "%u that were refused); %u executions of loaded programs, %u of them failing with an error; "
                  "%u caller-input cases",
                  totals.cases, totals.expected, totals.survived_loaded, totals.survived_failed, totals.executed,
                  totals.execute_failed, input_cases);
  g_test_message ("per category:%s", line->str);
  if (!g_test_subprocess () && g_test_get_path () != NULL)
    g_assert_cmpuint (totals.cases, >, 0);
}

int
main (int argc, char **argv)
{
  g_autoptr (GPtrArray) fixtures = g_ptr_array_new_with_free_func ((GDestroyNotify) fixture_free);

  g_test_init (&argc, &argv, NULL);
  totals.per_category = g_hash_table_new (g_str_hash, g_str_equal);
  add_folder (fixtures, ".", "");
  add_folder (fixtures, "nets", "nets-");
  add_bundled (fixtures);
  /* The per-operator programs: a sample of their cases each (8 per
   * category; EXECUTORCH_MUTATIONS_OPS=N changes it, 0 runs every case),
   * which puts every kernel in front of wrong arguments, dtypes, sizes,
   * tags and aliased memory. */
  {
    guint first = fixtures->len;
    const char *ops = g_getenv ("EXECUTORCH_MUTATIONS_OPS");
    add_folder (fixtures, "ops", "ops-");
    for (guint i = first; i < fixtures->len; i++)
      ((Fixture *) g_ptr_array_index (fixtures, i))->per_category =
          ops != NULL ? (guint) g_ascii_strtoull (ops, NULL, 10) : 8;
  }
  for (guint i = 0; i < fixtures->len; i++)
    {
      Fixture *fixture = g_ptr_array_index (fixtures, i);
      g_autofree char *program_path = g_strdup_printf ("/mutations/program-%s", fixture->label);
      g_autofree char *inputs_path = g_strdup_printf ("/mutations/inputs-%s", fixture->label);
      g_test_add_data_func (program_path, fixture, mutate_fixture);
      g_test_add_data_func (inputs_path, fixture, test_inputs);
    }
  g_test_add_func ("/mutations/total", test_total);
  return g_test_run ();
}
