/* sp-model.h: a SentencePiece ModelProto, read from its protobuf bytes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Only the fields that encoding and decoding use are kept; the rest of
 * the message (training options, self-test data) is skipped.  Strings
 * point into the file's bytes, which the model keeps a reference to.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* ModelProto.SentencePiece.Type */
typedef enum
{
  SP_PIECE_NORMAL = 1,
  SP_PIECE_UNKNOWN = 2,
  SP_PIECE_CONTROL = 3,
  SP_PIECE_USER_DEFINED = 4,
  SP_PIECE_UNUSED = 5,
  SP_PIECE_BYTE = 6,
} SpPieceType;

/* TrainerSpec.ModelType */
typedef enum
{
  SP_MODEL_UNIGRAM = 1,
  SP_MODEL_BPE = 2,
  SP_MODEL_WORD = 3,
  SP_MODEL_CHAR = 4,
} SpModelType;

/* Bytes inside the file (not NUL-terminated). */
typedef struct
{
  const guint8 *data;
  gsize len;
} SpString;

typedef struct
{
  SpString text;
  float score;
  SpPieceType type;
} SpPiece;

typedef struct
{
  GBytes *contents;
  SpPiece *pieces;
  guint32 n_pieces;

  /* trainer_spec */
  SpModelType model_type;
  gboolean byte_fallback;
  gboolean treat_whitespace_as_suffix;
  gint32 unk_id, bos_id, eos_id, pad_id;
  SpString unk_piece, bos_piece, eos_piece; /* empty: the default */
  gboolean has_unk_surface;
  SpString unk_surface;

  /* normalizer_spec */
  SpString normalizer_name;
  SpString charsmap;     /* precompiled_charsmap; empty: identity */
  gsize charsmap_offset; /* its byte offset in the file, for messages */
  gboolean add_dummy_prefix;
  gboolean remove_extra_whitespaces;
  gboolean escape_whitespaces;

  /* denormalizer_spec.precompiled_charsmap is not empty */
  gboolean has_denormalizer;
} SpModel;

/* Reads the protobuf wire format of @contents; fails with a message
 * naming @name, the field and its byte offset. */
SpModel *_llm_sp_model_parse (GBytes *contents, const char *name, GError **error);
void _llm_sp_model_free (SpModel *model);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpModel, _llm_sp_model_free)

G_END_DECLS
