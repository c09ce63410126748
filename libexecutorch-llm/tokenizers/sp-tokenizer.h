/* sp-tokenizer.h: the SentencePiece tokenizer's state, shared by its files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * sentencepiece.c loads and checks the model and decodes; sp-encode.c
 * segments normalized text with the model's algorithm.
 */
#pragma once

#include "sp-model.h"
#include "sp-normalizer.h"
#include "sp-trie.h"
#include "tokenizer-impl.h"

G_BEGIN_DECLS

typedef struct
{
  LlmTokenizerImpl parent;
  SpModel *model;
  SpTrie pieces;       /* NORMAL, USER_DEFINED and UNUSED pieces (sentencepiece's pieces_) */
  SpTrie reserved;     /* CONTROL, UNKNOWN and BYTE pieces (its reserved_id_map_) */
  SpTrie user_defined; /* USER_DEFINED pieces only; n_nodes 0 when there are none */
  SpCharsmap charsmap;
  SpNormalizer normalizer;
  guint32 unk_id;        /* the UNKNOWN piece */
  guint32 byte_ids[256]; /* <0xHH> pieces, with byte_fallback */
  float min_score;       /* over NORMAL pieces, as the unigram model computes them */
  float max_score;
} SpTokenizer;

/* A piece of the normalized text and its id. */
typedef struct
{
  guint32 start;
  guint32 len;
  guint32 id;
} SpSegment;

/* sentencepiece's PieceToId: reserved pieces first, then the others, else
 * the unknown piece. */
guint32 _llm_sp_piece_to_id (const SpTokenizer *self, const guint8 *text, gsize len);

/* Splits @normalized into pieces with the model's algorithm (unigram,
 * BPE, word or char), appending SpSegments to @segments. */
void _llm_sp_segment (const SpTokenizer *self, const char *normalized, gsize len, GArray *segments);

G_END_DECLS
