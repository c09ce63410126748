/* sp-trie.h: a byte trie over SentencePiece pieces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built once per model; each node's children are contiguous and sorted by
 * byte.  Walking it one byte at a time gives every piece that is a prefix
 * of the text, which both the unigram lattice and the longest-match of
 * user-defined pieces need.
 */
#pragma once

#include "sp-model.h"

G_BEGIN_DECLS

typedef struct
{
  guint32 first_child; /* index of the first child in nodes */
  guint16 n_children;
  guint8 label; /* the byte that leads here from the parent */
  gint32 value; /* the piece's id, or -1 where no piece ends */
} SpTrieNode;

typedef struct
{
  SpTrieNode *nodes; /* nodes[0] is the root */
  guint32 n_nodes;
} SpTrie;

#define SP_TRIE_ROOT 0

/* Adds the pieces of @model whose type is in @types (a bit per SpPieceType)
 * with their ids as values.  Where two have the same text, the first is
 * kept; FALSE then, with the lowest such later id in @duplicate and the id
 * it repeats in @first. */
gboolean _llm_sp_trie_build (SpTrie *trie, const SpModel *model, guint types, guint32 *duplicate, guint32 *first);
void _llm_sp_trie_clear (SpTrie *trie);

/* The child of @node along @byte, or 0 (the root is no one's child). */
static inline guint32
_llm_sp_trie_child (const SpTrie *trie, guint32 node, guint8 byte)
{
  const SpTrieNode *n = &trie->nodes[node];
  guint32 lo = n->first_child, hi = n->first_child + n->n_children;
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;
      guint8 label = trie->nodes[mid].label;
      if (label == byte)
        return mid;
      if (label < byte)
        lo = mid + 1;
      else
        hi = mid;
    }
  return 0;
}

/* The id of exactly @text, or -1. */
gint32 _llm_sp_trie_find (const SpTrie *trie, const guint8 *text, gsize len);
/* The length of the longest piece that is a prefix of @text (0: none). */
gsize _llm_sp_trie_longest_prefix (const SpTrie *trie, const guint8 *text, gsize len);

G_END_DECLS
