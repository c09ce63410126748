/* bpe-merge.h: the byte-pair merge loop the BPE tokenizers share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A piece of text starts as adjacent parts (bytes for tiktoken, UTF-8
 * characters for llama2.c).  Each step merges the adjacent pair whose
 * joined bytes have the best (lowest) priority, the leftmost pair on ties,
 * until no pair joins into a token.  That is the rule of OpenAI's tiktoken
 * (lowest rank) and of SentencePiece's BPE (highest score: priority is
 * minus the score).  A heap of candidate pairs makes it O(n log n), so a
 * long piece (a run of 10k spaces) stays fast.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether the @len bytes at @bytes are a token, and if so its merge
 * priority (lower merges first).  @priority is never NaN. */
typedef gboolean (*LlmBpePriorityFunc) (gconstpointer data, const guint8 *bytes, gsize len, double *priority);

/* @ends (gsize) holds the end offset of each initial part of @text, in
 * increasing order (part i spans ends[i-1] or 0 up to ends[i]); on return
 * it holds the ends of the merged parts. */
void _llm_bpe_merge (const guint8 *text, GArray *ends, LlmBpePriorityFunc priority, gconstpointer data);

G_END_DECLS
