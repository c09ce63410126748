/* bpe-merge.c: byte-pair merges with a heap of candidate pairs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Parts form a doubly linked list over the initial parts' slots.  A merge
 * keeps the left part (its start never moves) and unlinks the right one.
 * Candidates are never removed from the heap when a merge makes them
 * stale; a popped candidate is current only if its left part is not dead and
 * the part after it still ends where the right one did (part ends only
 * grow, so that is the same right part, unchanged).
 */
#include "bpe-merge.h"

typedef struct
{
  LlmBpePart part;
  guint32 prev; /* NONE: none; DEAD: merged into its left neighbour */
  guint32 next;
} Node;

typedef struct
{
  guint32 priority;
  guint32 left; /* the left part's slot: the leftmost pair wins ties */
  guint32 merged;
  guint32 right_end;
} Candidate;

#define NONE G_MAXUINT32
#define DEAD (G_MAXUINT32 - 1)

static inline gboolean
before (const Candidate *a, const Candidate *b)
{
  return a->priority < b->priority || (a->priority == b->priority && a->left < b->left);
}

/* Sift with a hole rather than swaps: each step moves one candidate. */
static void
heap_push (GArray *heap, const Candidate *c)
{
  g_array_set_size (heap, heap->len + 1);
  Candidate *h = (Candidate *) (void *) heap->data;
  guint i = heap->len - 1;
  while (i > 0)
    {
      guint parent = (i - 1) / 2;
      if (!before (c, &h[parent]))
        break;
      h[i] = h[parent];
      i = parent;
    }
  h[i] = *c;
}

static Candidate
heap_pop (GArray *heap)
{
  Candidate *h = (Candidate *) (void *) heap->data;
  Candidate top = h[0];
  Candidate last = h[heap->len - 1];
  guint n = heap->len - 1;
  g_array_set_size (heap, n);
  guint i = 0;
  for (;;)
    {
      guint child = 2 * i + 1;
      if (child >= n)
        break;
      if (child + 1 < n && before (&h[child + 1], &h[child]))
        child++;
      if (!before (&h[child], &last))
        break;
      h[i] = h[child];
      i = child;
    }
  if (n > 0)
    h[i] = last;
  return top;
}

static void
consider (GArray *heap, const Node *nodes, guint32 left, LlmBpePairFunc pair, gpointer data)
{
  if (left == NONE || nodes[left].next == NONE)
    return;
  const Node *right = &nodes[nodes[left].next];
  Candidate c = { .left = left, .right_end = right->part.end };
  if (pair (data, &nodes[left].part, &right->part, &c.priority, &c.merged))
    heap_push (heap, &c);
}

/* Whether @c may merge now (see the file's comment and the flag's). */
static gboolean
is_current (const Candidate *c, const Node *nodes, LlmBpePairFunc pair, gpointer data, LlmBpeMergeFlags flags)
{
  const Node *left = &nodes[c->left];
  if (left->prev == DEAD || left->next == NONE)
    return FALSE;
  const Node *right = &nodes[left->next];
  if (right->part.end == c->right_end)
    return TRUE;
  guint32 priority, merged;
  return (flags & LLM_BPE_MERGE_SAME_VALUE_IS_CURRENT) && pair (data, &left->part, &right->part, &priority, &merged) &&
         merged == c->merged;
}

void
_llm_bpe_merge (GArray *parts, LlmBpePairFunc pair, gpointer data, LlmBpeMergeFlags flags)
{
  guint n = parts->len;
  if (n < 2)
    return;
  g_return_if_fail (n < DEAD);
  const LlmBpePart *initial = (const LlmBpePart *) (void *) parts->data;
  g_autofree Node *nodes = g_new (Node, n);
  for (guint32 i = 0; i < n; i++)
    nodes[i] = (Node){ .part = initial[i], .prev = i == 0 ? NONE : i - 1, .next = i + 1 == n ? NONE : i + 1 };

  g_autoptr (GArray) heap = g_array_sized_new (FALSE, FALSE, sizeof (Candidate), n);
  for (guint32 i = 0; i + 1 < n; i++)
    consider (heap, nodes, i, pair, data);

  while (heap->len > 0)
    {
      Candidate c = heap_pop (heap);
      if (!is_current (&c, nodes, pair, data, flags))
        continue;
      Node *left = &nodes[c.left];
      Node *right = &nodes[left->next];
      left->part.end = right->part.end;
      left->part.value = c.merged;
      left->next = right->next;
      if (right->next != NONE)
        nodes[right->next].prev = c.left;
      right->prev = DEAD;
      consider (heap, nodes, left->prev, pair, data);
      consider (heap, nodes, c.left, pair, data);
    }

  guint out = 0;
  LlmBpePart *merged = (LlmBpePart *) (void *) parts->data;
  for (guint32 i = 0; i != NONE; i = nodes[i].next)
    merged[out++] = nodes[i].part;
  g_array_set_size (parts, out);
}
