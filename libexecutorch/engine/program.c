/* program.c: an immutable, validated view of a .pte file
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Loading checks the header, the segment table, the constant and mutable
 * data tables and the named data against the file, and builds the metadata
 * of every method, so that later reads only need their own index checks.
 */
#include "program-private.h"

#include <string.h>

enum
{
  SEGMENT_OFFSET,
  SEGMENT_SIZE
};
enum
{
  SUBSEGMENT_SEGMENT_INDEX,
  SUBSEGMENT_OFFSETS
};
enum
{
  NAMED_KEY,
  NAMED_SEGMENT_INDEX
};
enum
{
  BUFFER_STORAGE
};

typedef struct
{
  const guint8 *data; /* NULL when the file has no segment data for it */
  guint64 size;
} Segment;

/* A table of sub-buffers inside one segment (constants or initial values). */
typedef struct
{
  gboolean present;
  const guint8 *data;
  guint64 size;
  guint32 n_offsets;
  guint64 *offsets;
} Subsegments;

struct _EtProgram
{
  gatomicrefcount ref_count;
  GBytes *bytes;
  const guint8 *data;
  gsize size;
  EtPteHeader header;
  EtFb fb; /* over [0, program_size); error always NULL */
  EtFbTable root;
  EtFbVector plans;

  guint n_segments;
  Segment *segments;
  Subsegments constants;       /* the constant segment */
  EtFbVector legacy_constants; /* Program.constant_buffer */
  Subsegments mutable_data;

  guint n_named;
  EtNamedBlob *named;  /* the program's own named data */
  GPtrArray *external; /* EtPtd* */

  guint n_methods;
  EtMethodMeta **metas;

  gint allow_native_code; /* atomic: backends ask while methods load */
};

EtMethodMeta *_et_method_meta_build (EtProgram *program, EtFb *fb, EtFbTable plan, guint plan_index);
void _et_method_meta_free (EtMethodMeta *meta);

void
_et_program_reader (EtProgram *program, EtFb *fb)
{
  *fb = program->fb;
  fb->error = NULL;
}

static gboolean
load_segments (EtProgram *program, EtFb *fb)
{
  EtFbVector segments = _et_fb_vector (fb, program->root, PROGRAM_SEGMENTS, 4, "Program.segments");

  program->n_segments = segments.length;
  program->segments = g_new0 (Segment, segments.length);
  for (guint32 i = 0; i < segments.length && _et_fb_ok (fb); i++)
    {
      EtFbTable segment = _et_fb_vector_table (fb, segments, i, "Program.segments");
      guint64 offset = _et_fb_u64 (fb, segment, SEGMENT_OFFSET, 0);
      guint64 size = _et_fb_u64 (fb, segment, SEGMENT_SIZE, 0);
      guint64 base = program->header.segment_base_offset;

      program->segments[i].size = size;
      if (base == 0)
        continue; /* no segment data in this file: reads fail with NOT_FOUND */
      if (offset > program->size - base || size > program->size - base - offset)
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                       "segment %u (offset %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                       " bytes) lies past the end of the file (%" G_GSIZE_FORMAT " bytes)",
                       i, offset, size, program->size);
          return FALSE;
        }
      program->segments[i].data = program->data + base + offset;
    }
  return _et_fb_ok (fb);
}

gboolean
_et_program_segment (EtProgram *program, guint32 index, const void **data, gsize *size, GError **error)
{
  if (index >= program->n_segments)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "segment index %u is out of range (the program has %u)", index,
                     program->n_segments);
      return FALSE;
    }
  if (program->segments[index].data == NULL && program->segments[index].size > 0)
    {
      _et_set_error (error, ET_ERROR_NOT_FOUND, "segment %u is not in the file (it has no segment data)", index);
      return FALSE;
    }
  *data = program->segments[index].data != NULL ? program->segments[index].data : (const guint8 *) "";
  *size = program->segments[index].size;
  return TRUE;
}

static gboolean
load_subsegments (EtProgram *program, EtFb *fb, EtFbTable table, const char *what, Subsegments *out)
{
  guint32 segment = _et_fb_u32 (fb, table, SUBSEGMENT_SEGMENT_INDEX, 0);
  EtFbVector offsets = _et_fb_vector (fb, table, SUBSEGMENT_OFFSETS, 8, what);
  g_autoptr (GError) error = NULL;
  const void *data;
  gsize size;

  if (!_et_fb_ok (fb) || offsets.length <= 1)
    return _et_fb_ok (fb); /* entry 0 is a placeholder: one entry = nothing stored */
  if (!_et_program_segment (program, segment, &data, &size, &error))
    {
      _et_fb_fail (fb, error->code, "%s: %s", what, error->message);
      return FALSE;
    }
  out->present = TRUE;
  out->data = data;
  out->size = size;
  out->n_offsets = offsets.length;
  out->offsets = g_new0 (guint64, offsets.length);
  for (guint32 i = 0; i < offsets.length; i++)
    {
      out->offsets[i] = _et_fb_vector_u64 (fb, offsets, i);
      if (out->offsets[i] > size)
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                       "%s: offset %u (%" G_GUINT64_FORMAT ") lies past the end of segment %u (%" G_GSIZE_FORMAT
                       " bytes)",
                       what, i, out->offsets[i], segment, size);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
load_constants (EtProgram *program, EtFb *fb)
{
  EtFbTable segment = _et_fb_table (fb, program->root, PROGRAM_CONSTANT_SEGMENT, "Program.constant_segment");
  EtFbVector mutable =
      _et_fb_vector (fb, program->root, PROGRAM_MUTABLE_DATA_SEGMENTS, 4, "Program.mutable_data_segments");

  program->legacy_constants = _et_fb_vector (fb, program->root, PROGRAM_CONSTANT_BUFFER, 4, "Program.constant_buffer");
  if (!load_subsegments (program, fb, segment, "Program.constant_segment", &program->constants))
    return FALSE;
  if (program->constants.present && program->legacy_constants.length > 0)
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                   "program has both a constant segment and an inline "
                   "constant buffer");
      return FALSE;
    }
  /* Upstream only ever uses the first mutable data table. */
  if (mutable.length > 0)
    {
      EtFbTable first = _et_fb_vector_table (fb, mutable, 0, "Program.mutable_data_segments");
      if (!load_subsegments (program, fb, first, "Program.mutable_data_segments", &program->mutable_data))
        return FALSE;
    }
  return _et_fb_ok (fb);
}

static gboolean
lookup_subsegment (const Subsegments *table, guint32 index, size_t nbytes, const char *what, const void **data,
                   GError **error)
{
  if (index == 0 || index >= table->n_offsets)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "%s index %u is out of range (the program has %u)", what, index,
                     table->n_offsets > 0 ? table->n_offsets - 1 : 0);
      return FALSE;
    }
  if (nbytes > table->size - table->offsets[index])
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM,
                     "%s %u (%zu bytes at offset %" G_GUINT64_FORMAT
                     ") runs past the end of its segment (%" G_GUINT64_FORMAT " bytes)",
                     what, index, nbytes, table->offsets[index], table->size);
      return FALSE;
    }
  *data = table->data + table->offsets[index];
  return TRUE;
}

gboolean
_et_program_constant (EtProgram *program, guint32 index, size_t nbytes, const void **data, GError **error)
{
  EtFb fb;
  EtFbTable buffer;
  EtFbVector storage;

  if (program->constants.present)
    return lookup_subsegment (&program->constants, index, nbytes, "constant", data, error);

  /* The legacy layout: constants inline in the FlatBuffer. */
  _et_program_reader (program, &fb);
  if (index == 0 || index >= program->legacy_constants.length)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "constant index %u is out of range (the program has %u)", index,
                     program->legacy_constants.length > 0 ? program->legacy_constants.length - 1 : 0);
      return FALSE;
    }
  buffer = _et_fb_vector_table (&fb, program->legacy_constants, index, "Program.constant_buffer");
  storage = _et_fb_vector (&fb, buffer, BUFFER_STORAGE, 1, "Buffer.storage");
  if (_et_fb_ok (&fb) && storage.length < nbytes)
    _et_fb_fail (&fb, ET_ERROR_INVALID_PROGRAM, "constant %u has %u bytes, the tensor needs %zu", index, storage.length,
                 nbytes);
  if (!_et_fb_take_error (&fb, error))
    return FALSE;
  *data = _et_fb_vector_bytes (&fb, storage);
  return TRUE;
}

gboolean
_et_program_mutable_data (EtProgram *program, guint32 index, size_t nbytes, const void **data, GError **error)
{
  *data = NULL;
  if (!program->mutable_data.present)
    return TRUE;
  return lookup_subsegment (&program->mutable_data, index, nbytes, "initial value", data, error);
}

static gboolean
load_named_data (EtProgram *program, EtFb *fb)
{
  EtFbVector named = _et_fb_vector (fb, program->root, PROGRAM_NAMED_DATA, 4, "Program.named_data");

  program->named = g_new0 (EtNamedBlob, named.length);
  for (guint32 i = 0; i < named.length && _et_fb_ok (fb); i++)
    {
      EtFbTable entry = _et_fb_vector_table (fb, named, i, "Program.named_data");
      const char *key = _et_fb_string (fb, entry, NAMED_KEY, NULL, "NamedData.key");
      guint32 segment = _et_fb_u32 (fb, entry, NAMED_SEGMENT_INDEX, 0);
      g_autoptr (GError) error = NULL;
      const void *data;
      gsize size;

      if (!_et_fb_ok (fb))
        break;
      if (key == NULL)
        {
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "named data %u has no key", i);
          break;
        }
      if (!_et_program_segment (program, segment, &data, &size, &error))
        {
          _et_fb_fail (fb, error->code, "named data %s: %s", key, error->message);
          break;
        }
      program->named[program->n_named].key = g_strdup (key);
      program->named[program->n_named].data = data;
      program->named[program->n_named].size = size;
      program->n_named++;
    }
  return _et_fb_ok (fb);
}

/* A blob of the external data files loaded so far, or NULL. */
static const EtNamedBlob *
find_external_blob (EtProgram *program, const char *key)
{
  for (guint i = 0; i < program->external->len; i++)
    {
      EtPtd *ptd = g_ptr_array_index (program->external, i);
      for (guint j = 0; j < ptd->n_blobs; j++)
        if (strcmp (ptd->blobs[j].key, key) == 0)
          return &ptd->blobs[j];
    }
  return NULL;
}

const EtNamedBlob *
_et_program_named_blob (EtProgram *program, const char *key)
{
  const EtNamedBlob *blob = find_external_blob (program, key);

  if (blob != NULL)
    return blob;
  for (guint i = 0; i < program->n_named; i++)
    if (strcmp (program->named[i].key, key) == 0)
      return &program->named[i];
  return NULL;
}

const EtNamedBlob *
_et_program_external_tensor (EtProgram *program, const char *key, GError **error)
{
  const EtNamedBlob *blob = find_external_blob (program, key);

  if (blob != NULL)
    return blob;
  _et_set_error (error, ET_ERROR_NOT_FOUND,
                 "external tensor %s is in none of the %u external data files "
                 "given",
                 key, program->external->len);
  return NULL;
}

static gboolean
load_external (EtProgram *program, GBytes *const *external, guint n_external, GError **error)
{
  for (guint i = 0; i < n_external; i++)
    {
      EtPtd *ptd = _et_ptd_load (external[i], error);

      if (ptd == NULL)
        {
          _et_prefix_error (error, "external data file %u: ", i);
          return FALSE;
        }
      /* The same key in two files would make lookups depend on order. */
      for (guint j = 0; j < ptd->n_blobs; j++)
        if (find_external_blob (program, ptd->blobs[j].key) != NULL)
          {
            _et_set_error (error, ET_ERROR_INVALID_ARGUMENT,
                           "external data file %u holds %s, which an earlier "
                           "file also holds",
                           i, ptd->blobs[j].key);
            _et_ptd_free (ptd);
            return FALSE;
          }
      g_ptr_array_add (program->external, ptd);
    }
  return TRUE;
}

static gboolean
load_methods (EtProgram *program, EtFb *fb, GError **error)
{
  program->n_methods = program->plans.length;
  program->metas = g_new0 (EtMethodMeta *, program->plans.length);
  for (guint32 i = 0; i < program->plans.length; i++)
    {
      EtFbTable plan = _et_fb_vector_table (fb, program->plans, i, "Program.execution_plan");
      program->metas[i] = _et_method_meta_build (program, fb, plan, i);
      if (program->metas[i] == NULL)
        break;
      for (guint32 j = 0; j < i; j++)
        if (strcmp (program->metas[j]->name, program->metas[i]->name) == 0)
          _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM, "two methods are named %s", program->metas[i]->name);
    }
  return _et_fb_take_error (fb, error);
}

EtProgram *
_et_program_load (GBytes *pte, GBytes *const *external, guint n_external, GError **error)
{
  g_autoptr (GBytes) aligned = NULL;
  EtProgram *program;
  gsize size;
  const guint8 *data = g_bytes_get_data (pte, &size);
  EtFb fb;

  /* force_align in the schema assumes 16-byte aligned buffers. */
  if (((guintptr) data & 15) != 0)
    {
      aligned = g_bytes_new (data, size);
      data = g_bytes_get_data (aligned, &size);
      if (((guintptr) data & 15) != 0)
        {
          _et_set_error (error, ET_ERROR_INTERNAL, "cannot get 16-byte aligned memory for the program");
          return NULL;
        }
    }
  else
    aligned = g_bytes_ref (pte);

  program = g_new0 (EtProgram, 1);
  g_atomic_ref_count_init (&program->ref_count);
  program->bytes = g_steal_pointer (&aligned);
  program->data = data;
  program->size = size;
  program->external = g_ptr_array_new_with_free_func ((GDestroyNotify) _et_ptd_free);

  if (!_et_pte_header_parse (data, size, &program->header, error))
    goto fail;
  _et_fb_init (&program->fb, data, (gsize) program->header.program_size, "program", ET_ERROR_INVALID_PROGRAM);
  _et_program_reader (program, &fb);
  program->root = _et_fb_root (&fb, 0, "Program");
  if (_et_fb_ok (&fb) && program->root.pos < 8)
    _et_fb_fail (&fb, ET_ERROR_INVALID_PROGRAM, "root table offset %" G_GSIZE_FORMAT " overlaps the header",
                 program->root.pos);
  if (_et_fb_ok (&fb) && _et_fb_u32 (&fb, program->root, PROGRAM_VERSION, 0) != 0)
    _et_fb_fail (&fb, ET_ERROR_INVALID_PROGRAM, "program version %u is not supported",
                 _et_fb_u32 (&fb, program->root, PROGRAM_VERSION, 0));
  program->plans = _et_fb_vector (&fb, program->root, PROGRAM_EXECUTION_PLAN, 4, "Program.execution_plan");
  if (_et_fb_ok (&fb))
    load_segments (program, &fb);
  if (_et_fb_ok (&fb))
    load_constants (program, &fb);
  if (_et_fb_ok (&fb))
    load_named_data (program, &fb);
  if (!_et_fb_take_error (&fb, error))
    goto fail;
  if (!load_external (program, external, n_external, error))
    goto fail;
  if (!load_methods (program, &fb, error))
    goto fail;
  return program;

fail:
  _et_program_unref (program);
  return NULL;
}

EtProgram *
_et_program_ref (EtProgram *program)
{
  g_atomic_ref_count_inc (&program->ref_count);
  return program;
}

void
_et_program_unref (EtProgram *program)
{
  if (program == NULL || !g_atomic_ref_count_dec (&program->ref_count))
    return;
  for (guint i = 0; i < program->n_methods; i++)
    _et_method_meta_free (program->metas[i]);
  g_free (program->metas);
  for (guint i = 0; i < program->n_named; i++)
    g_free (program->named[i].key);
  g_free (program->named);
  g_ptr_array_unref (program->external);
  g_free (program->constants.offsets);
  g_free (program->mutable_data.offsets);
  g_free (program->segments);
  g_bytes_unref (program->bytes);
  g_free (program);
}

guint
_et_program_n_methods (EtProgram *program)
{
  return program->n_methods;
}

const char *
_et_program_method_name (EtProgram *program, guint index)
{
  return index < program->n_methods ? program->metas[index]->name : NULL;
}

static gint
method_index (EtProgram *program, const char *name)
{
  for (guint i = 0; i < program->n_methods; i++)
    if (strcmp (program->metas[i]->name, name) == 0)
      return (gint) i;
  return -1;
}

const EtMethodMeta *
_et_program_method_meta (EtProgram *program, const char *name, GError **error)
{
  gint index = method_index (program, name);

  if (index < 0)
    {
      _et_set_error (error, ET_ERROR_NOT_FOUND, "the program has no method named %s", name);
      return NULL;
    }
  return program->metas[index];
}

gboolean
_et_program_plan (EtProgram *program, EtFb *fb, const char *name, EtFbTable *plan, GError **error)
{
  gint index = method_index (program, name);

  if (index < 0)
    {
      _et_set_error (error, ET_ERROR_NOT_FOUND, "the program has no method named %s", name);
      return FALSE;
    }
  *plan = _et_fb_vector_table (fb, program->plans, (guint32) index, "Program.execution_plan");
  return _et_fb_take_error (fb, error);
}

enum
{
  DELEGATE_REF_LOCATION,
  DELEGATE_REF_INDEX
};
enum
{
  INLINE_DATA
};

gboolean
_et_program_delegate_data (EtProgram *program, EtFb *fb, EtFbTable reference, const void **data, gsize *size,
                           GError **error)
{
  gint8 location = _et_fb_i8 (fb, reference, DELEGATE_REF_LOCATION, 0);
  guint32 index = _et_fb_u32 (fb, reference, DELEGATE_REF_INDEX, 0);

  if (!_et_fb_take_error (fb, error))
    return FALSE;
  if (!reference.present)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "delegate has no processed payload");
      return FALSE;
    }
  if (location == 1)
    return _et_program_segment (program, index, data, size, error);
  if (location == 0)
    {
      EtFbVector inline_data =
          _et_fb_vector (fb, program->root, PROGRAM_BACKEND_DELEGATE_DATA, 4, "Program.backend_delegate_data");
      EtFbTable entry;
      EtFbVector bytes;

      if (_et_fb_ok (fb) && index >= inline_data.length)
        _et_fb_fail (fb, ET_ERROR_INVALID_PROGRAM,
                     "inline delegate data index %u is out of range (the program "
                     "has %u)",
                     index, inline_data.length);
      entry = _et_fb_vector_table (fb, inline_data, index, "Program.backend_delegate_data");
      bytes = _et_fb_vector (fb, entry, INLINE_DATA, 1, "BackendDelegateInlineData.data");
      if (!_et_fb_take_error (fb, error))
        return FALSE;
      *data = _et_fb_vector_bytes (fb, bytes);
      *size = bytes.length;
      return TRUE;
    }
  _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "delegate payload location %d is unknown", location);
  return FALSE;
}

void
_et_program_set_allow_native_code (EtProgram *program, gboolean allow)
{
  g_atomic_int_set (&program->allow_native_code, allow ? 1 : 0);
}

gboolean
_et_program_get_allow_native_code (EtProgram *program)
{
  return g_atomic_int_get (&program->allow_native_code) != 0;
}
