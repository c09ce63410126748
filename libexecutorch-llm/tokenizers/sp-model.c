/* sp-model.c: the protobuf reader for SentencePiece's ModelProto
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A bounds-checked reader of the protobuf wire format, with the field
 * numbers of sentencepiece_model.proto.  Every length is checked against
 * the message it is in; a field we read with the wrong wire type, a
 * truncated varint or a length past the end fails with the field's path and
 * byte offset.  Fields we do not use are skipped whatever their number.
 * As in protobuf, a scalar that appears twice keeps its last value and a
 * sub-message that appears twice is merged.
 */
#include "sp-model.h"

#include <stdarg.h>
#include <string.h>

#include "tokenizer-impl.h"

enum
{
  WIRE_VARINT = 0,
  WIRE_I64 = 1,
  WIRE_LEN = 2,
  WIRE_START_GROUP = 3,
  WIRE_END_GROUP = 4,
  WIRE_I32 = 5,
};

typedef struct
{
  const guint8 *file; /* byte offsets in messages count from here */
  gsize pos;
  gsize end;
  const char *name; /* the file, for messages */
} PbReader;

static gboolean G_GNUC_PRINTF (4, 5) pb_fail (const PbReader *r, gsize at, GError **error, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *what = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: %s (at byte %" G_GSIZE_FORMAT ")",
               r->name, what, at);
  return FALSE;
}

static const char *
wire_name (guint wire)
{
  switch (wire)
    {
      case WIRE_VARINT: return "varint";
      case WIRE_I64: return "64-bit";
      case WIRE_LEN: return "length-delimited";
      case WIRE_START_GROUP: return "start-group";
      case WIRE_END_GROUP: return "end-group";
      case WIRE_I32: return "32-bit";
      default: return "invalid";
    }
}

static gboolean
pb_varint (PbReader *r, const char *path, const char *field, guint64 *value, GError **error)
{
  gsize start = r->pos;
  guint64 v = 0;
  for (guint shift = 0; shift < 64; shift += 7)
    {
      if (r->pos >= r->end)
        return pb_fail (r, start, error, "%s%s: truncated varint", path, field);
      guint8 b = r->file[r->pos++];
      v |= (guint64) (b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        {
          *value = v;
          return TRUE;
        }
    }
  return pb_fail (r, start, error, "%s%s: varint longer than 10 bytes", path, field);
}

/* Reads a field's tag; *at is where the field starts. */
static gboolean
pb_tag (PbReader *r, const char *path, guint32 *field, guint *wire, gsize *at, GError **error)
{
  guint64 tag = 0;
  *at = r->pos;
  if (!pb_varint (r, path, " field tag", &tag, error))
    return FALSE;
  if ((tag >> 3) == 0 || (tag >> 3) > (1u << 29) - 1)
    return pb_fail (r, *at, error, "%s: field number %" G_GUINT64_FORMAT " is not valid", path, tag >> 3);
  *field = (guint32) (tag >> 3);
  *wire = (guint) (tag & 7);
  return TRUE;
}

static gboolean
pb_expect (const PbReader *r, const char *path, const char *field, guint wire, guint want, gsize at, GError **error)
{
  if (wire == want)
    return TRUE;
  return pb_fail (r, at, error, "%s%s: wire type %u (%s), expected %s", path, field, wire, wire_name (wire),
                  wire_name (want));
}

/* A length-delimited field's bytes: [*start, *start + *len). */
static gboolean
pb_bytes (PbReader *r, const char *path, const char *field, gsize *start, gsize *len, GError **error)
{
  gsize at = r->pos;
  guint64 n = 0;
  if (!pb_varint (r, path, field, &n, error))
    return FALSE;
  if (n > r->end - r->pos)
    return pb_fail (r, at, error,
                    "%s%s: length %" G_GUINT64_FORMAT " runs past the end of its message (%" G_GSIZE_FORMAT
                    " bytes left)",
                    path, field, n, r->end - r->pos);
  *start = r->pos;
  *len = (gsize) n;
  r->pos += (gsize) n;
  return TRUE;
}

static gboolean
pb_string (PbReader *r, const char *path, const char *field, guint wire, gsize at, SpString *out, GError **error)
{
  gsize start = 0, len = 0;
  if (!pb_expect (r, path, field, wire, WIRE_LEN, at, error) || !pb_bytes (r, path, field, &start, &len, error))
    return FALSE;
  out->data = r->file + start;
  out->len = len;
  return TRUE;
}

static gboolean
pb_uint (PbReader *r, const char *path, const char *field, guint wire, gsize at, guint64 *out, GError **error)
{
  return pb_expect (r, path, field, wire, WIRE_VARINT, at, error) && pb_varint (r, path, field, out, error);
}

static gboolean
pb_float (PbReader *r, const char *path, const char *field, guint wire, gsize at, float *out, GError **error)
{
  if (!pb_expect (r, path, field, wire, WIRE_I32, at, error))
    return FALSE;
  if (r->end - r->pos < 4)
    return pb_fail (r, at, error, "%s%s: truncated 32-bit value", path, field);
  guint32 bits = 0;
  memcpy (&bits, r->file + r->pos, 4);
  bits = GUINT32_FROM_LE (bits);
  memcpy (out, &bits, 4);
  r->pos += 4;
  return TRUE;
}

static gboolean
pb_skip (PbReader *r, const char *path, guint32 field, guint wire, gsize at, GError **error)
{
  g_autofree char *name = g_strdup_printf (" field %u", field);
  guint64 v = 0;
  gsize start = 0, len = 0, need = 0;
  switch (wire)
    {
      case WIRE_VARINT: return pb_varint (r, path, name, &v, error);
      case WIRE_LEN: return pb_bytes (r, path, name, &start, &len, error);
      case WIRE_I64: need = 8; break;
      case WIRE_I32: need = 4; break;
      default:
        /* Groups are deprecated and not used by sentencepiece_model.proto. */
        return pb_fail (r, at, error, "%s%s: wire type %u (%s) is not used by SentencePiece models", path, name, wire,
                        wire_name (wire));
    }
  if (r->end - r->pos < need)
    return pb_fail (r, at, error, "%s%s: truncated %s value", path, name, wire_name (wire));
  r->pos += need;
  return TRUE;
}

/* A sub-message's reader: the length-delimited bytes of the current field. */
static gboolean
pb_message (PbReader *r, const char *path, const char *field, guint wire, gsize at, PbReader *sub, GError **error)
{
  gsize start = 0, len = 0;
  if (!pb_expect (r, path, field, wire, WIRE_LEN, at, error) || !pb_bytes (r, path, field, &start, &len, error))
    return FALSE;
  *sub = (PbReader){ .file = r->file, .pos = start, .end = start + len, .name = r->name };
  return TRUE;
}

/* "ModelProto.pieces[INDEX]", without printf's cost on every piece. */
static void
piece_path (char path[48], guint32 index)
{
  static const char prefix[] = "ModelProto.pieces[";
  char digits[12];
  guint n = 0;
  do
    {
      digits[n++] = (char) ('0' + index % 10);
      index /= 10;
    }
  while (index > 0);
  memcpy (path, prefix, sizeof prefix - 1);
  char *p = path + sizeof prefix - 1;
  while (n > 0)
    *p++ = digits[--n];
  *p++ = ']';
  *p = '\0';
}

/* A scalar or string field of a message, and where it goes. */
typedef enum
{
  FIELD_BOOL,   /* gboolean */
  FIELD_INT32,  /* gint32; negative values are sign-extended 10-byte varints */
  FIELD_ENUM,   /* an enum (int) from min to max */
  FIELD_FLOAT,  /* float */
  FIELD_STRING, /* SpString */
} FieldKind;

typedef struct
{
  guint32 number;
  const char *name; /* ".score", for messages */
  FieldKind kind;
  gsize offset;     /* in the struct the message fills */
  guint32 min, max; /* FIELD_ENUM's values */
  const char *what; /* FIELD_ENUM: "a SentencePiece model type" */
} Field;

/* Reads the message @r into @out: the fields of @fields (bit i of *@seen set
 * for fields[i]), skipping any other. */
static gboolean
pb_fields (PbReader *r, const char *path, const Field *fields, guint n_fields, gpointer out, guint32 *seen,
           GError **error)
{
  while (r->pos < r->end)
    {
      guint32 number = 0;
      guint wire = 0;
      gsize at = 0;
      if (!pb_tag (r, path, &number, &wire, &at, error))
        return FALSE;
      guint i = 0;
      while (i < n_fields && fields[i].number != number)
        i++;
      if (i == n_fields)
        {
          if (!pb_skip (r, path, number, wire, at, error))
            return FALSE;
          continue;
        }
      const Field *f = &fields[i];
      guint8 *dest = (guint8 *) out + f->offset;
      guint64 v = 0;
      switch (f->kind)
        {
          case FIELD_FLOAT:
            if (!pb_float (r, path, f->name, wire, at, (float *) (void *) dest, error))
              return FALSE;
            break;
          case FIELD_STRING:
            if (!pb_string (r, path, f->name, wire, at, (SpString *) (void *) dest, error))
              return FALSE;
            break;
          case FIELD_BOOL:
          case FIELD_INT32:
          case FIELD_ENUM:
            if (!pb_uint (r, path, f->name, wire, at, &v, error))
              return FALSE;
            if (f->kind == FIELD_BOOL)
              *(gboolean *) (void *) dest = v != 0;
            else if (f->kind == FIELD_INT32)
              *(gint32 *) (void *) dest = (gint32) (guint32) v;
            else if (v < f->min || v > f->max)
              return pb_fail (r, at, error, "%s%s: %" G_GUINT64_FORMAT " is not %s", path, f->name, v, f->what);
            else
              *(int *) (void *) dest = (int) v;
            break;
        }
      *seen |= 1u << i;
    }
  return TRUE;
}

static const Field piece_fields[] = {
  { 1, ".piece", FIELD_STRING, G_STRUCT_OFFSET (SpPiece, text) },
  { 2, ".score", FIELD_FLOAT, G_STRUCT_OFFSET (SpPiece, score) },
  { 3, ".type", FIELD_ENUM, G_STRUCT_OFFSET (SpPiece, type), SP_PIECE_NORMAL, SP_PIECE_BYTE,
    "a SentencePiece piece type" },
};

/* The trainer_spec fields we use; the first four are the ids whose range
 * is checked when the file sets them. */
enum
{
  SEEN_UNK_ID = 1u << 0,
  SEEN_BOS_ID = 1u << 1,
  SEEN_EOS_ID = 1u << 2,
  SEEN_PAD_ID = 1u << 3,
  SEEN_UNK_SURFACE = 1u << 4,
};
static const Field trainer_fields[] = {
  { 40, ".unk_id", FIELD_INT32, G_STRUCT_OFFSET (SpModel, unk_id) },
  { 41, ".bos_id", FIELD_INT32, G_STRUCT_OFFSET (SpModel, bos_id) },
  { 42, ".eos_id", FIELD_INT32, G_STRUCT_OFFSET (SpModel, eos_id) },
  { 43, ".pad_id", FIELD_INT32, G_STRUCT_OFFSET (SpModel, pad_id) },
  { 44, ".unk_surface", FIELD_STRING, G_STRUCT_OFFSET (SpModel, unk_surface) },
  { 3, ".model_type", FIELD_ENUM, G_STRUCT_OFFSET (SpModel, model_type), SP_MODEL_UNIGRAM, SP_MODEL_CHAR,
    "a SentencePiece model type" },
  { 24, ".treat_whitespace_as_suffix", FIELD_BOOL, G_STRUCT_OFFSET (SpModel, treat_whitespace_as_suffix) },
  { 35, ".byte_fallback", FIELD_BOOL, G_STRUCT_OFFSET (SpModel, byte_fallback) },
  { 45, ".unk_piece", FIELD_STRING, G_STRUCT_OFFSET (SpModel, unk_piece) },
  { 46, ".bos_piece", FIELD_STRING, G_STRUCT_OFFSET (SpModel, bos_piece) },
  { 47, ".eos_piece", FIELD_STRING, G_STRUCT_OFFSET (SpModel, eos_piece) },
};

typedef struct
{
  SpString name;
  SpString charsmap;
  gboolean add_dummy_prefix;
  gboolean remove_extra_whitespaces;
  gboolean escape_whitespaces;
} NormalizerSpec;

static const Field normalizer_fields[] = {
  { 1, ".name", FIELD_STRING, G_STRUCT_OFFSET (NormalizerSpec, name) },
  { 2, ".precompiled_charsmap", FIELD_STRING, G_STRUCT_OFFSET (NormalizerSpec, charsmap) },
  { 3, ".add_dummy_prefix", FIELD_BOOL, G_STRUCT_OFFSET (NormalizerSpec, add_dummy_prefix) },
  { 4, ".remove_extra_whitespaces", FIELD_BOOL, G_STRUCT_OFFSET (NormalizerSpec, remove_extra_whitespaces) },
  { 5, ".escape_whitespaces", FIELD_BOOL, G_STRUCT_OFFSET (NormalizerSpec, escape_whitespaces) },
};

/* Ids the file sets must name a piece or be -1 (the defaults need not:
 * sentencepiece itself finds BOS and EOS by their pieces' text). */
static gboolean
check_trainer_id (SpModel *model, const char *name, const char *field, gboolean set, gint32 id, GError **error)
{
  if (!set || (id >= -1 && (id < 0 || (guint32) id < model->n_pieces)))
    return TRUE;
  g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
               "%s: ModelProto.trainer_spec.%s %d is outside the %u pieces", name, field, id, model->n_pieces);
  return FALSE;
}

void
_llm_sp_model_free (SpModel *model)
{
  if (model == NULL)
    return;
  g_bytes_unref (model->contents);
  g_free (model->pieces);
  g_free (model);
}

SpModel *
_llm_sp_model_parse (GBytes *contents, const char *name, GError **error)
{
  gsize size = 0;
  const guint8 *data = g_bytes_get_data (contents, &size);
  PbReader r = { .file = data, .pos = 0, .end = size, .name = name };
  /* Offsets and ids are 32-bit below; real models are a few megabytes. */
  if (size > G_MAXINT32)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED,
                   "%s: %" G_GSIZE_FORMAT " bytes is too large for a SentencePiece model", name, size);
      return NULL;
    }
  g_autoptr (SpModel) model = g_new0 (SpModel, 1);
  model->contents = g_bytes_ref (contents);
  model->model_type = SP_MODEL_UNIGRAM;
  model->unk_id = 0;
  model->bos_id = 1;
  model->eos_id = 2;
  model->pad_id = -1;
  NormalizerSpec normalizer = { .add_dummy_prefix = TRUE,
                                .remove_extra_whitespaces = TRUE,
                                .escape_whitespaces = TRUE };
  NormalizerSpec denormalizer = normalizer;
  g_autoptr (GArray) pieces = g_array_new (FALSE, TRUE, sizeof (SpPiece));
  guint32 trainer_seen = 0, normalizer_seen = 0;

  while (r.pos < r.end)
    {
      guint32 field = 0;
      guint wire = 0;
      gsize at = 0;
      PbReader sub;
      if (!pb_tag (&r, "ModelProto", &field, &wire, &at, error))
        return NULL;
      switch (field)
        {
          case 1:
            {
              char path[48];
              piece_path (path, pieces->len);
              if (!pb_message (&r, path, "", wire, at, &sub, error))
                return NULL;
              if (pieces->len >= G_MAXINT32)
                {
                  pb_fail (&r, at, error, "%s: more pieces than ids can number", path);
                  return NULL;
                }
              SpPiece piece = { .type = SP_PIECE_NORMAL };
              guint32 seen = 0;
              if (!pb_fields (&sub, path, piece_fields, G_N_ELEMENTS (piece_fields), &piece, &seen, error))
                return NULL;
              g_array_append_val (pieces, piece);
              break;
            }
          case 2:
            if (!pb_message (&r, "ModelProto", ".trainer_spec", wire, at, &sub, error) ||
                !pb_fields (&sub, "ModelProto.trainer_spec", trainer_fields, G_N_ELEMENTS (trainer_fields), model,
                            &trainer_seen, error))
              return NULL;
            break;
          case 3:
            if (!pb_message (&r, "ModelProto", ".normalizer_spec", wire, at, &sub, error) ||
                !pb_fields (&sub, "ModelProto.normalizer_spec", normalizer_fields, G_N_ELEMENTS (normalizer_fields),
                            &normalizer, &normalizer_seen, error))
              return NULL;
            break;
          case 5:
            if (!pb_message (&r, "ModelProto", ".denormalizer_spec", wire, at, &sub, error) ||
                !pb_fields (&sub, "ModelProto.denormalizer_spec", normalizer_fields, G_N_ELEMENTS (normalizer_fields),
                            &denormalizer, &normalizer_seen, error))
              return NULL;
            break;
          default:
            if (!pb_skip (&r, "ModelProto", field, wire, at, error))
              return NULL;
        }
    }

  model->n_pieces = pieces->len;
  model->pieces = (SpPiece *) (void *) g_array_free (g_steal_pointer (&pieces), FALSE);
  if (model->n_pieces == 0)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: the model has no pieces (ModelProto.pieces is empty)", name);
      return NULL;
    }
  if (!check_trainer_id (model, name, "unk_id", trainer_seen & SEEN_UNK_ID, model->unk_id, error) ||
      !check_trainer_id (model, name, "bos_id", trainer_seen & SEEN_BOS_ID, model->bos_id, error) ||
      !check_trainer_id (model, name, "eos_id", trainer_seen & SEEN_EOS_ID, model->eos_id, error) ||
      !check_trainer_id (model, name, "pad_id", trainer_seen & SEEN_PAD_ID, model->pad_id, error))
    return NULL;
  model->has_unk_surface = (trainer_seen & SEEN_UNK_SURFACE) != 0;

  model->normalizer_name = normalizer.name;
  model->charsmap = normalizer.charsmap;
  model->charsmap_offset = normalizer.charsmap.data != NULL ? (gsize) (normalizer.charsmap.data - data) : 0;
  model->add_dummy_prefix = normalizer.add_dummy_prefix;
  model->remove_extra_whitespaces = normalizer.remove_extra_whitespaces;
  model->escape_whitespaces = normalizer.escape_whitespaces;
  model->has_denormalizer = denormalizer.charsmap.len > 0;
  return g_steal_pointer (&model);
}
