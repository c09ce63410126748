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
pb_bool (PbReader *r, const char *path, const char *field, guint wire, gsize at, gboolean *out, GError **error)
{
  guint64 v = 0;
  if (!pb_uint (r, path, field, wire, at, &v, error))
    return FALSE;
  *out = v != 0;
  return TRUE;
}

/* int32 fields: negative values are sign-extended 10-byte varints. */
static gboolean
pb_int32 (PbReader *r, const char *path, const char *field, guint wire, gsize at, gint32 *out, GError **error)
{
  guint64 v = 0;
  if (!pb_uint (r, path, field, wire, at, &v, error))
    return FALSE;
  *out = (gint32) (guint32) v;
  return TRUE;
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

static gboolean
parse_piece (PbReader *r, const char *path, SpPiece *piece, GError **error)
{
  while (r->pos < r->end)
    {
      guint32 field = 0;
      guint wire = 0;
      gsize at = 0;
      guint64 type = 0;
      if (!pb_tag (r, path, &field, &wire, &at, error))
        return FALSE;
      switch (field)
        {
          case 1:
            if (!pb_string (r, path, ".piece", wire, at, &piece->text, error))
              return FALSE;
            break;
          case 2:
            if (!pb_float (r, path, ".score", wire, at, &piece->score, error))
              return FALSE;
            break;
          case 3:
            if (!pb_uint (r, path, ".type", wire, at, &type, error))
              return FALSE;
            if (type < SP_PIECE_NORMAL || type > SP_PIECE_BYTE)
              return pb_fail (r, at, error, "%s.type: %" G_GUINT64_FORMAT " is not a SentencePiece piece type", path,
                              type);
            piece->type = (SpPieceType) type;
            break;
          default:
            if (!pb_skip (r, path, field, wire, at, error))
              return FALSE;
        }
    }
  return TRUE;
}

static gboolean
parse_trainer_spec (PbReader *r, SpModel *model, guint *ids_set, GError **error)
{
  const char *path = "ModelProto.trainer_spec";
  while (r->pos < r->end)
    {
      guint32 field = 0;
      guint wire = 0;
      gsize at = 0;
      guint64 type = 0;
      gboolean ok = TRUE;
      if (!pb_tag (r, path, &field, &wire, &at, error))
        return FALSE;
      switch (field)
        {
          case 3:
            ok = pb_uint (r, path, ".model_type", wire, at, &type, error);
            if (ok && (type < SP_MODEL_UNIGRAM || type > SP_MODEL_CHAR))
              return pb_fail (r, at, error, "%s.model_type: %" G_GUINT64_FORMAT " is not a SentencePiece model type",
                              path, type);
            model->model_type = (SpModelType) type;
            break;
          case 24:
            ok = pb_bool (r, path, ".treat_whitespace_as_suffix", wire, at, &model->treat_whitespace_as_suffix, error);
            break;
          case 35: ok = pb_bool (r, path, ".byte_fallback", wire, at, &model->byte_fallback, error); break;
          case 40: ok = pb_int32 (r, path, ".unk_id", wire, at, &model->unk_id, error); break;
          case 41: ok = pb_int32 (r, path, ".bos_id", wire, at, &model->bos_id, error); break;
          case 42: ok = pb_int32 (r, path, ".eos_id", wire, at, &model->eos_id, error); break;
          case 43: ok = pb_int32 (r, path, ".pad_id", wire, at, &model->pad_id, error); break;
          case 44:
            ok = pb_string (r, path, ".unk_surface", wire, at, &model->unk_surface, error);
            model->has_unk_surface = TRUE;
            break;
          case 45: ok = pb_string (r, path, ".unk_piece", wire, at, &model->unk_piece, error); break;
          case 46: ok = pb_string (r, path, ".bos_piece", wire, at, &model->bos_piece, error); break;
          case 47: ok = pb_string (r, path, ".eos_piece", wire, at, &model->eos_piece, error); break;
          default: ok = pb_skip (r, path, field, wire, at, error);
        }
      if (!ok)
        return FALSE;
      if (field >= 40 && field <= 43)
        *ids_set |= 1u << (field - 40);
    }
  return TRUE;
}

typedef struct
{
  SpString name;
  SpString charsmap;
  gsize charsmap_offset;
  gboolean add_dummy_prefix;
  gboolean remove_extra_whitespaces;
  gboolean escape_whitespaces;
} NormalizerSpec;

static gboolean
parse_normalizer_spec (PbReader *r, const char *path, NormalizerSpec *spec, GError **error)
{
  while (r->pos < r->end)
    {
      guint32 field = 0;
      guint wire = 0;
      gsize at = 0;
      gboolean ok = TRUE;
      if (!pb_tag (r, path, &field, &wire, &at, error))
        return FALSE;
      switch (field)
        {
          case 1: ok = pb_string (r, path, ".name", wire, at, &spec->name, error); break;
          case 2:
            ok = pb_string (r, path, ".precompiled_charsmap", wire, at, &spec->charsmap, error);
            spec->charsmap_offset = (gsize) (spec->charsmap.data - r->file);
            break;
          case 3: ok = pb_bool (r, path, ".add_dummy_prefix", wire, at, &spec->add_dummy_prefix, error); break;
          case 4:
            ok = pb_bool (r, path, ".remove_extra_whitespaces", wire, at, &spec->remove_extra_whitespaces, error);
            break;
          case 5: ok = pb_bool (r, path, ".escape_whitespaces", wire, at, &spec->escape_whitespaces, error); break;
          default: ok = pb_skip (r, path, field, wire, at, error);
        }
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

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
  guint ids_set = 0; /* bit n: trainer_spec field 40 + n (unk, bos, eos, pad id) */

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
              if (!parse_piece (&sub, path, &piece, error))
                return NULL;
              g_array_append_val (pieces, piece);
              break;
            }
          case 2:
            if (!pb_message (&r, "ModelProto", ".trainer_spec", wire, at, &sub, error) ||
                !parse_trainer_spec (&sub, model, &ids_set, error))
              return NULL;
            break;
          case 3:
            if (!pb_message (&r, "ModelProto", ".normalizer_spec", wire, at, &sub, error) ||
                !parse_normalizer_spec (&sub, "ModelProto.normalizer_spec", &normalizer, error))
              return NULL;
            break;
          case 5:
            if (!pb_message (&r, "ModelProto", ".denormalizer_spec", wire, at, &sub, error) ||
                !parse_normalizer_spec (&sub, "ModelProto.denormalizer_spec", &denormalizer, error))
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
  if (!check_trainer_id (model, name, "unk_id", ids_set & 1, model->unk_id, error) ||
      !check_trainer_id (model, name, "bos_id", ids_set & 2, model->bos_id, error) ||
      !check_trainer_id (model, name, "eos_id", ids_set & 4, model->eos_id, error) ||
      !check_trainer_id (model, name, "pad_id", ids_set & 8, model->pad_id, error))
    return NULL;

  model->normalizer_name = normalizer.name;
  model->charsmap = normalizer.charsmap;
  model->charsmap_offset = normalizer.charsmap_offset;
  model->add_dummy_prefix = normalizer.add_dummy_prefix;
  model->remove_extra_whitespaces = normalizer.remove_extra_whitespaces;
  model->escape_whitespaces = normalizer.escape_whitespaces;
  model->has_denormalizer = denormalizer.charsmap.len > 0;
  return g_steal_pointer (&model);
}
