/* sp-trie.c: building and searching the byte trie of pieces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sp-trie.h"

#include <string.h>

static int
compare_pieces (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const SpPiece *pieces = user_data;
  const SpString *x = &pieces[*(const guint32 *) a].text;
  const SpString *y = &pieces[*(const guint32 *) b].text;
  int c = memcmp (x->data, y->data, MIN (x->len, y->len));
  if (c != 0)
    return c;
  if (x->len != y->len)
    return x->len < y->len ? -1 : 1;
  /* Equal texts keep id order, so the first one wins. */
  return *(const guint32 *) a < *(const guint32 *) b ? -1 : 1;
}

typedef struct
{
  guint32 node;
  guint32 lo, hi; /* the sorted pieces below the node */
  gsize depth;    /* bytes from the root */
} PendingNode;

void
_llm_sp_trie_build (SpTrie *trie, const SpModel *model, guint types)
{
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint32 i = 0; i < model->n_pieces; i++)
    if (types & (1u << model->pieces[i].type))
      g_array_append_val (order, i);
  g_array_sort_with_data (order, compare_pieces, model->pieces);
  const guint32 *ids = (const guint32 *) (void *) order->data;

  /* Breadth first, so no input can make the build recurse deeply. */
  g_autoptr (GArray) nodes = g_array_new (FALSE, TRUE, sizeof (SpTrieNode));
  g_autoptr (GArray) queue = g_array_new (FALSE, FALSE, sizeof (PendingNode));
  SpTrieNode root = { .value = -1 };
  g_array_append_val (nodes, root);
  PendingNode first = { .node = SP_TRIE_ROOT, .lo = 0, .hi = order->len, .depth = 0 };
  g_array_append_val (queue, first);
  for (guint q = 0; q < queue->len; q++)
    {
      PendingNode p = g_array_index (queue, PendingNode, q);
      guint32 lo = p.lo;
      /* Sorted, so the piece that ends here (if any) comes first. */
      if (lo < p.hi && model->pieces[ids[lo]].text.len == p.depth)
        {
          g_array_index (nodes, SpTrieNode, p.node).value = (gint32) ids[lo];
          while (lo < p.hi && model->pieces[ids[lo]].text.len == p.depth)
            lo++;
        }
      guint32 first_child = nodes->len;
      guint n_children = 0;
      for (guint32 i = lo; i < p.hi;)
        {
          guint8 label = model->pieces[ids[i]].text.data[p.depth];
          guint32 j = i + 1;
          while (j < p.hi && model->pieces[ids[j]].text.data[p.depth] == label)
            j++;
          SpTrieNode child = { .label = label, .value = -1 };
          g_array_append_val (nodes, child);
          PendingNode next = { .node = nodes->len - 1, .lo = i, .hi = j, .depth = p.depth + 1 };
          g_array_append_val (queue, next);
          n_children++;
          i = j;
        }
      SpTrieNode *n = &g_array_index (nodes, SpTrieNode, p.node);
      n->first_child = first_child;
      n->n_children = (guint16) n_children;
    }
  trie->n_nodes = nodes->len;
  trie->nodes = (SpTrieNode *) (void *) g_array_free (g_steal_pointer (&nodes), FALSE);
}

void
_llm_sp_trie_clear (SpTrie *trie)
{
  g_clear_pointer (&trie->nodes, g_free);
  trie->n_nodes = 0;
}

gint32
_llm_sp_trie_find (const SpTrie *trie, const guint8 *text, gsize len)
{
  guint32 node = SP_TRIE_ROOT;
  for (gsize i = 0; i < len; i++)
    {
      node = _llm_sp_trie_child (trie, node, text[i]);
      if (node == 0)
        return -1;
    }
  return trie->nodes[node].value;
}

gsize
_llm_sp_trie_longest_prefix (const SpTrie *trie, const guint8 *text, gsize len)
{
  guint32 node = SP_TRIE_ROOT;
  gsize longest = 0;
  for (gsize i = 0; i < len; i++)
    {
      node = _llm_sp_trie_child (trie, node, text[i]);
      if (node == 0)
        break;
      if (trie->nodes[node].value >= 0)
        longest = i + 1;
    }
  return longest;
}
