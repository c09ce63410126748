/* sp-trie.c: building and searching the byte trie of pieces
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "sp-trie.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  guint64 head; /* the first 8 bytes, big-endian, zero-padded */
  SpString text;
  guint32 id;
} Key;

/* Byte order, then shorter first.  Comparing the heads first gives the
 * same order and mostly spares reading the texts, scattered in the file. */
static int
compare_keys (gconstpointer a, gconstpointer b)
{
  const Key *x = a, *y = b;
  if (x->head != y->head)
    return x->head < y->head ? -1 : 1;
  gsize common = MIN (x->text.len, y->text.len);
  int c = common ? memcmp (x->text.data, y->text.data, common) : 0;
  if (c != 0)
    return c;
  if (x->text.len != y->text.len)
    return x->text.len < y->text.len ? -1 : 1;
  /* Equal texts keep id order, so the first one wins. */
  return x->id < y->id ? -1 : 1;
}

typedef struct
{
  guint32 node;
  guint32 lo, hi; /* the sorted keys below the node */
  gsize depth;    /* bytes from the root */
} PendingNode;

gboolean
_llm_sp_trie_build (SpTrie *trie, const SpModel *model, guint types, guint32 *duplicate, guint32 *first)
{
  g_autoptr (GArray) sorted = g_array_new (FALSE, FALSE, sizeof (Key));
  for (guint32 i = 0; i < model->n_pieces; i++)
    if (types & (1u << model->pieces[i].type))
      {
        Key key = { 0, model->pieces[i].text, i };
        for (gsize k = 0; k < 8; k++)
          key.head = (key.head << 8) | (k < key.text.len ? key.text.data[k] : 0);
        g_array_append_val (sorted, key);
      }
  if (sorted->len > 1) /* an empty GArray's data may be NULL, which qsort must not get */
    qsort (sorted->data, sorted->len, sizeof (Key), compare_keys);
  const Key *keys = (const Key *) (void *) sorted->data;
  gboolean unique = TRUE;

  /* Depth first with a stack (no input can make it recurse deeply), so a
   * subtree's keys are read while they are still in the cache. */
  g_autoptr (GArray) nodes = g_array_new (FALSE, TRUE, sizeof (SpTrieNode));
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (PendingNode));
  SpTrieNode root = { .value = -1 };
  g_array_append_val (nodes, root);
  PendingNode top = { .node = SP_TRIE_ROOT, .lo = 0, .hi = sorted->len, .depth = 0 };
  g_array_append_val (stack, top);
  while (stack->len > 0)
    {
      PendingNode p = g_array_index (stack, PendingNode, stack->len - 1);
      g_array_set_size (stack, stack->len - 1);
      guint32 lo = p.lo;
      /* Sorted, so the key that ends here (if any) comes first; any other
       * that ends here has the same text. */
      if (lo < p.hi && keys[lo].text.len == p.depth)
        {
          g_array_index (nodes, SpTrieNode, p.node).value = (gint32) keys[lo].id;
          if (lo + 1 < p.hi && keys[lo + 1].text.len == p.depth && (unique || keys[lo + 1].id < *duplicate))
            {
              unique = FALSE;
              *duplicate = keys[lo + 1].id;
              *first = keys[lo].id;
            }
          while (lo < p.hi && keys[lo].text.len == p.depth)
            lo++;
        }
      guint32 first_child = nodes->len;
      guint n_children = 0;
      for (guint32 i = lo; i < p.hi;)
        {
          guint8 label = keys[i].text.data[p.depth];
          guint32 j = i + 1;
          while (j < p.hi && keys[j].text.data[p.depth] == label)
            j++;
          SpTrieNode child = { .label = label, .value = -1 };
          g_array_append_val (nodes, child);
          n_children++;
          i = j;
        }
      SpTrieNode *n = &g_array_index (nodes, SpTrieNode, p.node);
      n->first_child = first_child;
      n->n_children = (guint16) n_children;
      /* Children pushed last first, so the first is built next. */
      guint32 hi = p.hi;
      for (guint k = n_children; k > 0; k--)
        {
          guint32 i = hi;
          guint8 label = g_array_index (nodes, SpTrieNode, first_child + k - 1).label;
          while (i > lo && keys[i - 1].text.data[p.depth] == label)
            i--;
          PendingNode next = { .node = first_child + k - 1, .lo = i, .hi = hi, .depth = p.depth + 1 };
          g_array_append_val (stack, next);
          hi = i;
        }
    }
  trie->n_nodes = nodes->len;
  trie->nodes = (SpTrieNode *) (void *) g_array_free (g_steal_pointer (&nodes), FALSE);
  return unique;
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
