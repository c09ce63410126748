/* llm-sampler.c: greedy, temperature, top-k and top-p sampling
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Temperature 0 is argmax with the lowest index winning ties, and sampling
 * follows upstream ExecuTorch's llama2.c-derived sampler (scale by 1/T,
 * softmax with the maximum subtracted, nucleus cut with its small-probability
 * pre-filter, xorshift64* coin), so greedy runs give upstream's tokens.
 * Upstream has no top-k in its runners and rejects T > 1; both work here.
 */
#include "llm-sampler.h"

#include <math.h>
#include <stdlib.h>

void
_llm_sampler_init (LlmSampler *self, guint vocab_size, gdouble temperature, gdouble top_p, guint top_k, guint64 seed)
{
  self->vocab_size = vocab_size;
  self->temperature = temperature;
  self->top_p = top_p;
  self->top_k = top_k;
  /* xorshift has one fixed point, 0. */
  self->rng_state = seed != 0 ? seed : G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  self->probs = g_new (float, MAX (vocab_size, 1));
  self->candidates = g_new (struct LlmCandidate, MAX (vocab_size, 1));
}

void
_llm_sampler_clear (LlmSampler *self)
{
  g_clear_pointer (&self->probs, g_free);
  g_clear_pointer (&self->candidates, g_free);
}

static guint32
random_u32 (LlmSampler *self)
{
  self->rng_state ^= self->rng_state >> 12;
  self->rng_state ^= self->rng_state << 25;
  self->rng_state ^= self->rng_state >> 27;
  return (guint32) ((self->rng_state * G_GUINT64_CONSTANT (0x2545F4914F6CDD1D)) >> 32);
}

/* In [0, 1): 24 random bits. */
static float
random_f32 (LlmSampler *self)
{
  return (float) (random_u32 (self) >> 8) / 16777216.0f;
}

guint32
_llm_argmax (const float *logits, guint n)
{
  guint32 best = 0;
  for (guint i = 1; i < n; i++)
    if (logits[i] > logits[best])
      best = i;
  return best;
}

static int
by_descending_prob (const void *a, const void *b)
{
  const struct LlmCandidate *x = a, *y = b;
  if (x->prob != y->prob)
    return x->prob > y->prob ? -1 : 1;
  /* Equal: lower index first, so the order does not depend on qsort. */
  return x->index < y->index ? -1 : 1;
}

guint32
_llm_sampler_sample (LlmSampler *self, float *logits)
{
  guint n = self->vocab_size;
  if (self->temperature <= 0.0 || n <= 1)
    return _llm_argmax (logits, n);

  /* Softmax of logits / T. */
  float inv_t = (float) (1.0 / self->temperature);
  float *p = self->probs;
  float max = -INFINITY;
  for (guint i = 0; i < n; i++)
    {
      p[i] = logits[i] * inv_t;
      if (p[i] > max)
        max = p[i];
    }
  float sum = 0.0f;
  for (guint i = 0; i < n; i++)
    {
      p[i] = expf (p[i] - max);
      sum += p[i];
    }
  for (guint i = 0; i < n; i++)
    p[i] /= sum;

  float coin = random_f32 (self);
  gboolean use_top_p = self->top_p > 0.0 && self->top_p < 1.0;
  gboolean use_top_k = self->top_k > 0 && self->top_k < n;

  if (!use_top_p && !use_top_k)
    {
      /* Plain multinomial draw. */
      float cdf = 0.0f;
      for (guint i = 0; i < n; i++)
        {
          cdf += p[i];
          if (coin < cdf)
            return i;
        }
      return n - 1; /* rounding */
    }

  /* Candidates: with top-p alone, upstream's pre-filter drops tokens that
   * cannot be in the nucleus, (1 - p) / (n - 1) being a lower bound of the
   * nucleus's smallest member. */
  guint n_cand = 0;
  float cutoff = use_top_p && !use_top_k ? (float) ((1.0 - self->top_p) / (n - 1)) : 0.0f;
  struct LlmCandidate *cand = self->candidates;
  for (guint i = 0; i < n; i++)
    if (p[i] >= cutoff)
      cand[n_cand++] = (struct LlmCandidate){ p[i], i };
  if (n_cand == 0)
    return _llm_argmax (p, n);
  qsort (cand, n_cand, sizeof *cand, by_descending_prob);
  if (use_top_k && n_cand > self->top_k)
    n_cand = self->top_k;

  /* The nucleus: up to the first index where the running sum exceeds p. */
  float cumulative = 0.0f;
  guint last = n_cand - 1;
  for (guint i = 0; i < n_cand; i++)
    {
      cumulative += cand[i].prob;
      if (use_top_p && cumulative > self->top_p)
        {
          last = i;
          break;
        }
    }
  float r = coin * cumulative;
  float cdf = 0.0f;
  for (guint i = 0; i <= last; i++)
    {
      cdf += cand[i].prob;
      if (r < cdf)
        return cand[i].index;
    }
  return cand[last].index;
}
