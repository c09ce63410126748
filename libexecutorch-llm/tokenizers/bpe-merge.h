/* bpe-merge.h: the byte-pair merge loop every BPE tokenizer shares
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A piece of text starts as adjacent parts (bytes for tiktoken, UTF-8
 * characters for llama2.c and SentencePiece, the initial symbols of a
 * tokenizer.json BPE word).  Each step merges the adjacent pair with the
 * best (lowest) priority, the leftmost pair on ties, until no pair joins
 * into a token.  That is the rule of OpenAI's tiktoken (lowest rank),
 * SentencePiece's BPE (highest score: priority is minus the score) and the
 * tokenizers library (lowest merge rank).  A heap of candidate pairs makes
 * it O(n log n), so a long piece (a run of 10k spaces) stays fast.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Offsets are 32-bit: small parts keep the merge loop in the cache. */
typedef struct
{
  guint32 start, end; /* in the caller's units (bytes, symbols); not empty */
  guint32 value;      /* the caller's: a token id, a flag */
} LlmBpePart;

/* Whether the adjacent parts @left and @right join into a token; if so its
 * merge priority (lower merges first: a rank) in *@priority and the joined
 * part's value in *@merged.  Called when a pair forms, before it is queued. */
typedef gboolean (*LlmBpePairFunc) (gpointer data, const LlmBpePart *left, const LlmBpePart *right, guint32 *priority,
                                    guint32 *merged);

/* The priority of a piece's score, where higher scores merge first
 * (SentencePiece): the float's bits made to sort as unsigned integers
 * (-0 as 0), inverted.  A NaN sorts as its bits say. */
static inline guint32
_llm_bpe_score_priority (float score)
{
  union
  {
    float f;
    guint32 bits;
  } u = { .f = score == 0.0f ? 0.0f : score };
  guint32 ascending = (u.bits & 0x80000000u) != 0 ? ~u.bits : u.bits | 0x80000000u;
  return ~ascending;
}

typedef enum
{
  LLM_BPE_MERGE_DEFAULT = 0,
  /* A queued pair whose sides have changed since is normally dropped.
   * With this flag it still merges when the pair now in its place joins
   * into the same value: the tokenizers library's rule (it checks a popped
   * pair by looking up the new id of the pair now there). */
  LLM_BPE_MERGE_SAME_VALUE_IS_CURRENT = 1 << 0,
} LlmBpeMergeFlags;

/* @parts (LlmBpePart) holds the initial parts in order, each starting where
 * the one before ends (at most G_MAXUINT32 - 2 of them); on return it holds
 * the merged parts.  A merged part
 * spans both sides and takes the value @pair gave. */
void _llm_bpe_merge (GArray *parts, LlmBpePairFunc pair, gpointer data, LlmBpeMergeFlags flags);

G_END_DECLS
