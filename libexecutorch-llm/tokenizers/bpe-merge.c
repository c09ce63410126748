/* bpe-merge.c: byte-pair merges with a heap of candidate pairs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Parts form a doubly linked list over the initial parts' slots.  A merge
 * keeps the left part (its start never moves) and unlinks the right one.
 * Candidates are never removed from the heap when a merge makes them
 * stale; a popped candidate is used only if both parts are still alive,
 * still adjacent, and the right one still ends where it did.
 */
#include "bpe-merge.h"

typedef struct
{
  gsize start;
  gsize end;
  guint prev; /* G_MAXUINT: none */
  guint next;
  gboolean alive;
} Part;

typedef struct
{
  double priority;
  gsize start; /* the left part's start: the leftmost pair wins ties */
  gsize right_end;
  guint left;
  guint right;
} Candidate;

#define NONE G_MAXUINT

static gboolean
before (const Candidate *a, const Candidate *b)
{
  return a->priority < b->priority || (a->priority == b->priority && a->start < b->start);
}

static void
heap_push (GArray *heap, const Candidate *c)
{
  g_array_append_val (heap, *c);
  Candidate *h = (Candidate *) heap->data;
  guint i = heap->len - 1;
  while (i > 0)
    {
      guint parent = (i - 1) / 2;
      if (!before (&h[i], &h[parent]))
        break;
      Candidate tmp = h[i];
      h[i] = h[parent];
      h[parent] = tmp;
      i = parent;
    }
}

static Candidate
heap_pop (GArray *heap)
{
  Candidate *h = (Candidate *) heap->data;
  Candidate top = h[0];
  h[0] = h[heap->len - 1];
  g_array_set_size (heap, heap->len - 1);
  guint n = heap->len;
  guint i = 0;
  for (;;)
    {
      guint best = i;
      guint l = 2 * i + 1;
      guint r = l + 1;
      if (l < n && before (&h[l], &h[best]))
        best = l;
      if (r < n && before (&h[r], &h[best]))
        best = r;
      if (best == i)
        break;
      Candidate tmp = h[i];
      h[i] = h[best];
      h[best] = tmp;
      i = best;
    }
  return top;
}

static void
consider (GArray *heap, const guint8 *text, const Part *parts, guint left, LlmBpePriorityFunc priority,
          gconstpointer data)
{
  if (left == NONE || parts[left].next == NONE)
    return;
  guint right = parts[left].next;
  Candidate c = { .start = parts[left].start, .right_end = parts[right].end, .left = left, .right = right };
  if (priority (data, text + c.start, c.right_end - c.start, &c.priority))
    heap_push (heap, &c);
}

void
_llm_bpe_merge (const guint8 *text, GArray *ends, LlmBpePriorityFunc priority, gconstpointer data)
{
  guint n = ends->len;
  if (n < 2)
    return;
  const gsize *end = (const gsize *) ends->data;
  g_autofree Part *parts = g_new (Part, n);
  for (guint i = 0; i < n; i++)
    {
      parts[i].start = i == 0 ? 0 : end[i - 1];
      parts[i].end = end[i];
      parts[i].prev = i == 0 ? NONE : i - 1;
      parts[i].next = i + 1 == n ? NONE : i + 1;
      parts[i].alive = TRUE;
    }

  g_autoptr (GArray) heap = g_array_sized_new (FALSE, FALSE, sizeof (Candidate), n);
  for (guint i = 0; i + 1 < n; i++)
    consider (heap, text, parts, i, priority, data);

  while (heap->len > 0)
    {
      Candidate c = heap_pop (heap);
      Part *left = &parts[c.left];
      Part *right = &parts[c.right];
      if (!left->alive || !right->alive || left->next != c.right || right->end != c.right_end)
        continue;
      left->end = right->end;
      left->next = right->next;
      if (right->next != NONE)
        parts[right->next].prev = c.left;
      right->alive = FALSE;
      consider (heap, text, parts, left->prev, priority, data);
      consider (heap, text, parts, c.left, priority, data);
    }

  guint out = 0;
  gsize *new_end = (gsize *) ends->data;
  for (guint i = 0; i != NONE; i = parts[i].next)
    new_end[out++] = parts[i].end;
  g_array_set_size (ends, out);
}
