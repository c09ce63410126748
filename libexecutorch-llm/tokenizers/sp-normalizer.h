/* sp-normalizer.h: SentencePiece's text normalization
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The precompiled charsmap of a NormalizerSpec (nmt_nfkc and the like) is
 * a little-endian uint32 trie size, a Darts-clone double-array trie of
 * that many bytes, then NUL-terminated replacement strings that the
 * trie's values point into.  Normalization replaces the longest rule at
 * each position (user-defined pieces are kept as they are), then applies
 * the spec's whitespace options.
 */
#pragma once

#include "sp-model.h"
#include "sp-trie.h"

G_BEGIN_DECLS

typedef struct
{
  const guint8 *units; /* n_units little-endian uint32 */
  guint32 n_units;
  const char *replacements; /* NUL-terminated strings */
  gsize replacements_len;
} SpCharsmap;

typedef struct
{
  const SpCharsmap *charsmap; /* NULL: identity */
  const SpTrie *user_defined; /* NULL: none; their text is not normalized */
  gboolean add_dummy_prefix;
  gboolean remove_extra_whitespaces;
  gboolean escape_whitespaces;
  gboolean treat_whitespace_as_suffix;
} SpNormalizer;

/* Checks the whole trie reachable from the root at load, so that no
 * search can read outside it or past the replacement strings. */
gboolean _llm_sp_charsmap_init (SpCharsmap *charsmap, const SpModel *model, const char *name, GError **error);

/* Appends the normalized form of @text (valid UTF-8) to @out. */
void _llm_sp_normalize (const SpNormalizer *normalizer, const char *text, gsize len, GString *out);

G_END_DECLS
