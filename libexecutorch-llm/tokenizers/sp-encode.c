/* sp-encode.c: segmenting normalized text with a SentencePiece model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The same algorithms, ties and float arithmetic as sentencepiece's
 * unigram_model.cc (its optimized Viterbi), bpe_model.cc, word_model.cc and
 * char_model.cc, so the ids match the reference exactly.
 */
#include "sp-tokenizer.h"

#include <float.h>
#include <string.h>

#define SPACE_SYMBOL "\xe2\x96\x81"

/* sentencepiece's OneCharLen: the length a UTF-8 lead byte announces. */
static inline gsize
one_char_len (guint8 lead)
{
  static const guint8 lengths[16] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4 };
  return lengths[lead >> 4];
}

static inline SpPieceType
piece_type (const SpTokenizer *self, guint32 id)
{
  return self->model->pieces[id].type;
}

static void
add_segment (GArray *segments, gsize start, gsize len, guint32 id)
{
  SpSegment s = { .start = (guint32) start, .len = (guint32) len, .id = id };
  g_array_append_val (segments, s);
}

/* The longest user-defined piece at @text, else one character. */
static gsize
prefix_match (const SpTokenizer *self, const guint8 *text, gsize len, gboolean *found)
{
  gsize n = 0;
  if (self->user_defined.n_nodes > 0)
    n = _llm_sp_trie_longest_prefix (&self->user_defined, text, len);
  *found = n > 0;
  return n > 0 ? n : MIN (one_char_len (text[0]), len);
}

/* Unigram: the best-scoring path through every piece that matches, with
 * an unknown node (the lowest score minus 10) where no single-character
 * piece does; user-defined pieces score length * max_score - 0.1.  Path
 * scores add up in float: near-ties between segmentations (w+ww against
 * ww+w) then break as the sentencepiece 0.2 wheel breaks them, which
 * double sums (what the source's `auto` would give) do not. */
static void
segment_unigram (const SpTokenizer *self, const guint8 *text, gsize size, GArray *segments)
{
  typedef struct
  {
    float score;
    gint32 starts_at; /* -1: no path ends here yet */
    guint32 id;
  } BestPath;
  g_autofree BestPath *best = g_new (BestPath, size + 1);
  for (gsize i = 0; i <= size; i++)
    best[i] = (BestPath){ .score = 0, .starts_at = -1, .id = self->unk_id };
  const float unk_score = self->min_score - 10.0f;

  for (gsize start = 0; start < size;)
    {
      const float score_here = best[start].score;
      const gsize mblen = MIN (one_char_len (text[start]), size - start);
      gboolean has_single_node = FALSE;
      guint32 node = SP_TRIE_ROOT;
      for (gsize end = start + 1; end <= size; end++)
        {
          node = _llm_sp_trie_child (&self->pieces, node, text[end - 1]);
          if (node == 0)
            break;
          gint32 id = self->pieces.nodes[node].value;
          if (id < 0 || piece_type (self, (guint32) id) == SP_PIECE_UNUSED)
            continue;
          const gsize length = end - start;
          float score = piece_type (self, (guint32) id) == SP_PIECE_USER_DEFINED
                            ? (float) ((double) ((float) length * self->max_score) - 0.1)
                            : self->model->pieces[id].score;
          float candidate = score + score_here;
          if (best[end].starts_at == -1 || candidate > best[end].score)
            best[end] = (BestPath){ .score = candidate, .starts_at = (gint32) start, .id = (guint32) id };
          if (length == mblen)
            has_single_node = TRUE;
        }
      if (!has_single_node)
        {
          float candidate = unk_score + score_here;
          BestPath *target = &best[start + mblen];
          if (target->starts_at == -1 || candidate > target->score)
            *target = (BestPath){ .score = candidate, .starts_at = (gint32) start, .id = self->unk_id };
        }
      start += mblen;
    }

  /* Every character boundary is reached, so the path back from the end
   * always leads to 0. */
  guint first = segments->len;
  for (gsize end = size; end > 0 && best[end].starts_at >= 0;)
    {
      gsize start = (gsize) best[end].starts_at;
      add_segment (segments, start, end - start, best[end].id);
      end = start;
    }
  /* Backtracking gave them last first. */
  for (guint i = first, j = segments->len; i + 1 < j; i++, j--)
    {
      SpSegment t = g_array_index (segments, SpSegment, i);
      g_array_index (segments, SpSegment, i) = g_array_index (segments, SpSegment, j - 1);
      g_array_index (segments, SpSegment, j - 1) = t;
    }
}

typedef struct
{
  gint32 prev, next;  /* neighbours, -1 at the ends */
  guint32 start, len; /* len 0: merged into its left neighbour */
  gboolean freeze;    /* a user-defined piece: never merged */
} BpeSymbol;

typedef struct
{
  float score;
  gint32 left, right;
  guint32 size;
} BpePair;

/* Upstream's priority queue order: higher score first, then leftmost. */
static inline gboolean
pair_before (const BpePair *a, const BpePair *b)
{
  return a->score > b->score || (a->score == b->score && a->left < b->left);
}

static void
heap_push (GArray *heap, const BpePair *pair)
{
  g_array_append_vals (heap, pair, 1);
  BpePair *h = (BpePair *) (void *) heap->data;
  for (guint i = heap->len - 1; i > 0;)
    {
      guint parent = (i - 1) / 2;
      if (!pair_before (&h[i], &h[parent]))
        break;
      BpePair t = h[i];
      h[i] = h[parent];
      h[parent] = t;
      i = parent;
    }
}

static BpePair
heap_pop (GArray *heap)
{
  BpePair *h = (BpePair *) (void *) heap->data;
  BpePair top = h[0];
  h[0] = h[heap->len - 1];
  g_array_set_size (heap, heap->len - 1);
  h = (BpePair *) (void *) heap->data;
  for (guint i = 0;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      if (l < heap->len && pair_before (&h[l], &h[m]))
        m = l;
      if (r < heap->len && pair_before (&h[r], &h[m]))
        m = r;
      if (m == i)
        break;
      BpePair t = h[i];
      h[i] = h[m];
      h[m] = t;
      i = m;
    }
  return top;
}

/* An UNUSED piece met while merging: the two halves it was made of, so
 * the result can be split back (upstream's rev_merge). */
typedef struct
{
  guint32 left_start, left_len, right_start, right_len;
} BpeSplit;

typedef struct
{
  const SpTokenizer *self;
  const guint8 *text;
  BpeSymbol *symbols;
  GArray *heap;
  GHashTable *splits; /* piece id -> BpeSplit */
  GArray *stack;      /* resegment's pending (start, len) pairs */
} BpeState;

static void
maybe_add_pair (BpeState *s, gint32 left, gint32 right)
{
  if (left < 0 || right < 0 || s->symbols[left].freeze || s->symbols[right].freeze)
    return;
  const BpeSymbol *l = &s->symbols[left], *r = &s->symbols[right];
  guint32 size = l->len + r->len;
  gint32 id = _llm_sp_trie_find (&s->self->pieces, s->text + l->start, size);
  if (id < 0)
    return;
  BpePair pair = { .score = s->self->model->pieces[id].score, .left = left, .right = right, .size = size };
  heap_push (s->heap, &pair);
  if (piece_type (s->self, (guint32) id) == SP_PIECE_UNUSED)
    {
      if (s->splits == NULL)
        s->splits = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      BpeSplit *split = g_new (BpeSplit, 1);
      *split = (BpeSplit){ l->start, l->len, r->start, r->len };
      g_hash_table_insert (s->splits, GUINT_TO_POINTER (id), split);
    }
}

/* Emits a merged symbol, splitting UNUSED pieces back into the pieces
 * they were merged from (with a stack: no input can recurse deeply). */
static void
resegment (BpeState *s, guint32 start, guint32 len, GArray *segments)
{
  GArray *stack = s->stack;
  guint32 top[2] = { start, len };
  g_array_append_vals (stack, top, 1);
  while (stack->len > 0)
    {
      guint32 *w = &g_array_index (stack, guint32, (stack->len - 1) * 2);
      guint32 w_start = w[0], w_len = w[1];
      g_array_set_size (stack, stack->len - 1);
      guint32 id = _llm_sp_piece_to_id (s->self, s->text + w_start, w_len);
      const BpeSplit *split = NULL;
      if (piece_type (s->self, id) == SP_PIECE_UNUSED && s->splits != NULL)
        split = g_hash_table_lookup (s->splits, GUINT_TO_POINTER (id));
      if (split == NULL)
        {
          add_segment (segments, w_start, w_len, id);
          continue;
        }
      guint32 halves[4] = { split->right_start, split->right_len, split->left_start, split->left_len };
      g_array_append_vals (stack, halves, 2);
    }
}

/* BPE: characters (and user-defined pieces, frozen) merged pair by pair,
 * the best-scoring pair that is a piece first. */
static void
segment_bpe (const SpTokenizer *self, const guint8 *text, gsize size, GArray *segments)
{
  g_autoptr (GArray) symbols = g_array_new (FALSE, FALSE, sizeof (BpeSymbol));
  for (gsize pos = 0; pos < size;)
    {
      gboolean freeze = FALSE;
      gsize n = prefix_match (self, text + pos, size - pos, &freeze);
      gint32 index = (gint32) symbols->len;
      BpeSymbol sym = { .prev = index - 1,
                        .next = pos + n < size ? index + 1 : -1,
                        .start = (guint32) pos,
                        .len = (guint32) n,
                        .freeze = freeze };
      g_array_append_val (symbols, sym);
      pos += n;
    }
  if (symbols->len == 0)
    return;

  g_autoptr (GArray) heap = g_array_new (FALSE, FALSE, sizeof (BpePair));
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
  BpeState s = {
    .self = self, .text = text, .symbols = (BpeSymbol *) (void *) symbols->data, .heap = heap, .stack = stack
  };
  for (guint i = 1; i < symbols->len; i++)
    maybe_add_pair (&s, (gint32) i - 1, (gint32) i);

  while (heap->len > 0)
    {
      BpePair top = heap_pop (heap);
      BpeSymbol *l = &s.symbols[top.left], *r = &s.symbols[top.right];
      /* Stale: one side was merged away or has grown since. */
      if (l->len == 0 || r->len == 0 || l->len + r->len != top.size)
        continue;
      l->len += r->len;
      l->next = r->next;
      if (r->next >= 0)
        s.symbols[r->next].prev = top.left;
      r->len = 0;
      maybe_add_pair (&s, l->prev, top.left);
      maybe_add_pair (&s, top.left, l->next);
    }

  for (gint32 i = 0; i >= 0; i = s.symbols[i].next)
    resegment (&s, s.symbols[i].start, s.symbols[i].len, segments);
  if (s.splits != NULL)
    g_hash_table_unref (s.splits);
}

/* Char: each character (or user-defined piece) is a piece or unknown. */
static void
segment_char (const SpTokenizer *self, const guint8 *text, gsize size, GArray *segments)
{
  for (gsize pos = 0; pos < size;)
    {
      gboolean found = FALSE;
      gsize n = prefix_match (self, text + pos, size - pos, &found);
      add_segment (segments, pos, n, _llm_sp_piece_to_id (self, text + pos, n));
      pos += n;
    }
}

/* Word: a new word at the start and at each "▁". */
static void
segment_word (const SpTokenizer *self, const guint8 *text, gsize size, GArray *segments)
{
  gsize word = 0;
  for (gsize pos = 0; pos < size;)
    {
      gsize n = MIN (one_char_len (text[pos]), size - pos);
      if (pos > 0 && n == 3 && memcmp (text + pos, SPACE_SYMBOL, 3) == 0)
        {
          add_segment (segments, word, pos - word, _llm_sp_piece_to_id (self, text + word, pos - word));
          word = pos;
        }
      pos += n;
    }
  if (size > 0)
    add_segment (segments, word, size - word, _llm_sp_piece_to_id (self, text + word, size - word));
}

void
_llm_sp_segment (const SpTokenizer *self, const char *normalized, gsize len, GArray *segments)
{
  const guint8 *text = (const guint8 *) normalized;
  if (len == 0)
    return;
  switch (self->model->model_type)
    {
      case SP_MODEL_UNIGRAM: segment_unigram (self, text, len, segments); break;
      case SP_MODEL_BPE: segment_bpe (self, text, len, segments); break;
      case SP_MODEL_WORD: segment_word (self, text, len, segments); break;
      case SP_MODEL_CHAR: segment_char (self, text, len, segments); break;
      default: g_assert_not_reached ();
    }
}
