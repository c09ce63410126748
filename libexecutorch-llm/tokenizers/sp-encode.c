/* sp-encode.c: segmenting normalized text with a SentencePiece model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The same algorithms, ties and float arithmetic as sentencepiece's
 * unigram_model.cc (its optimized Viterbi), bpe_model.cc, word_model.cc and
 * char_model.cc, so the ids match the reference exactly.
 */
#include "sp-tokenizer.h"

#include "bpe-merge.h"

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
  GHashTable *splits; /* piece id -> BpeSplit */
  GArray *stack;      /* resegment's pending (start, len) pairs */
} BpeState;

/* A part's value: a user-defined piece is frozen, never merged. */
#define FROZEN 1

/* Parts are characters and user-defined pieces; a pair joins when its
 * bytes are a piece, the higher its score the earlier (upstream's queue:
 * higher score first, then leftmost). */
static gboolean
piece_pair (gpointer data, const LlmBpePart *left, const LlmBpePart *right, guint32 *priority, guint32 *merged)
{
  BpeState *s = data;
  if (left->value == FROZEN || right->value == FROZEN)
    return FALSE;
  gint32 id = _llm_sp_trie_find (&s->self->pieces, s->text + left->start, right->end - left->start);
  if (id < 0)
    return FALSE;
  *priority = _llm_bpe_score_priority (s->self->model->pieces[id].score);
  *merged = 0;
  if (piece_type (s->self, (guint32) id) == SP_PIECE_UNUSED)
    {
      if (s->splits == NULL)
        s->splits = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      BpeSplit *split = g_new (BpeSplit, 1);
      *split = (BpeSplit){ left->start, left->end - left->start, right->start, right->end - right->start };
      g_hash_table_insert (s->splits, GUINT_TO_POINTER (id), split);
    }
  return TRUE;
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
  g_autoptr (GArray) parts = g_array_new (FALSE, FALSE, sizeof (LlmBpePart));
  for (gsize pos = 0; pos < size;)
    {
      gboolean freeze = FALSE;
      gsize n = prefix_match (self, text + pos, size - pos, &freeze);
      /* The normalized text is below 1 GiB (sentencepiece.c's check). */
      LlmBpePart part = { (guint32) pos, (guint32) (pos + n), freeze ? FROZEN : 0 };
      g_array_append_val (parts, part);
      pos += n;
    }

  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
  BpeState s = { .self = self, .text = text, .stack = stack };
  _llm_bpe_merge (parts, piece_pair, &s, LLM_BPE_MERGE_DEFAULT);
  for (guint i = 0; i < parts->len; i++)
    {
      const LlmBpePart *part = &g_array_index (parts, LlmBpePart, i);
      resegment (&s, part->start, part->end - part->start, segments);
    }
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
