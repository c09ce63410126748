/* llm-sampler.h: choosing the next token from a row of logits
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

struct LlmCandidate
{
  float prob;
  guint32 index;
};

typedef struct
{
  gdouble temperature;             /* 0: argmax */
  gdouble top_p;                   /* 1 (or more, or <= 0): off */
  guint top_k;                     /* 0: off */
  guint64 rng_state;               /* xorshift64*; never 0 */
  float *probs;                    /* scratch, vocab_size */
  struct LlmCandidate *candidates; /* scratch, vocab_size */
  guint vocab_size;
} LlmSampler;

void _llm_sampler_init (LlmSampler *self, guint vocab_size, gdouble temperature, gdouble top_p, guint top_k,
                        guint64 seed);
void _llm_sampler_clear (LlmSampler *self);
/* Samples among the first vocab_size entries of @logits (which it may
 * overwrite). */
guint32 _llm_sampler_sample (LlmSampler *self, float *logits);
guint32 _llm_argmax (const float *logits, guint n);

G_END_DECLS
