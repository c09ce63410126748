/* sp-normalizer.c: the precompiled charsmap and SentencePiece normalization
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Follows sentencepiece's normalizer.cc: leading whitespace is dropped,
 * then a dummy "▁" is added, each position takes the longest user-defined
 * piece or charsmap rule (else one character), runs of spaces collapse to
 * one, spaces become "▁", and trailing whitespace is dropped.
 */
#include "sp-normalizer.h"

#include <string.h>

#include "tokenizer-impl.h"

#define SPACE_SYMBOL "\xe2\x96\x81" /* U+2581 LOWER ONE EIGHTH BLOCK */
#define SPACE_SYMBOL_LEN 3

/* A Darts-clone unit: label in bits 0-7 (bit 31 set on leaves), has-leaf
 * in bit 8, the offset to the children in bits 10-31 (shifted by 8 more
 * when bit 9 is set); a leaf's value is bits 0-30. */
static inline guint32
unit_at (const SpCharsmap *charsmap, guint32 index)
{
  guint32 unit = 0;
  memcpy (&unit, charsmap->units + (gsize) index * 4, 4);
  return GUINT32_FROM_LE (unit);
}

static inline gboolean
unit_has_leaf (guint32 unit)
{
  return (unit >> 8) & 1;
}

static inline guint32
unit_value (guint32 unit)
{
  return unit & 0x7fffffffu;
}

static inline guint32
unit_label (guint32 unit)
{
  return unit & (0x80000000u | 0xffu);
}

static inline guint32
unit_offset (guint32 unit)
{
  return (unit >> 10) << ((unit & (1u << 9)) >> 6);
}

static gboolean
charsmap_fail (const SpModel *model, const char *name, gsize at, GError **error, const char *what)
{
  g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
               "%s: ModelProto.normalizer_spec.precompiled_charsmap: %s (at byte %" G_GSIZE_FORMAT ")", name, what,
               model->charsmap_offset + at);
  return FALSE;
}

gboolean
_llm_sp_charsmap_init (SpCharsmap *charsmap, const SpModel *model, const char *name, GError **error)
{
  const guint8 *blob = model->charsmap.data;
  gsize size = model->charsmap.len;
  guint32 trie_size = 0;
  if (size <= 4)
    return charsmap_fail (model, name, 0, error, "too short for its trie size");
  memcpy (&trie_size, blob, 4);
  trie_size = GUINT32_FROM_LE (trie_size);
  if (trie_size > size - 4 || trie_size < 4)
    {
      g_autofree char *what =
          g_strdup_printf ("trie size %u does not fit in its %" G_GSIZE_FORMAT " bytes", trie_size, size - 4);
      return charsmap_fail (model, name, 0, error, what);
    }
  charsmap->units = blob + 4;
  charsmap->n_units = trie_size / 4;
  charsmap->replacements = (const char *) blob + 4 + trie_size;
  charsmap->replacements_len = size - 4 - trie_size;

  /* A leaf's value must start a NUL-terminated string. */
  const char *last_nul = NULL;
  for (gsize i = charsmap->replacements_len; i > 0; i--)
    if (charsmap->replacements[i - 1] == '\0')
      {
        last_nul = charsmap->replacements + i - 1;
        break;
      }
  gsize value_limit = last_nul == NULL ? 0 : (gsize) (last_nul - charsmap->replacements) + 1;

  /* Visit every node a search can reach.  At a node's base, a search reads
   * base ^ c for any byte c, so the whole 256-unit block must be inside;
   * the units it then follows are those whose label is c, that is the
   * units u with u ^ label(u) == base.  Grouping the units by that base
   * first makes the walk linear in the trie's size. */
  guint32 n = charsmap->n_units;
  g_autofree guint32 *first_child = g_try_new0 (guint32, (gsize) n + 1);
  g_autofree guint32 *children = g_try_new (guint32, n);
  g_autofree guint8 *seen = g_try_malloc0 (n / 8 + 1);
  if (first_child == NULL || children == NULL || seen == NULL)
    return charsmap_fail (model, name, 0, error, "too large to check");
  for (guint32 i = 0; i < n; i++)
    {
      guint32 label = unit_label (unit_at (charsmap, i));
      if (label <= 0xffu && (i ^ label) < n)
        first_child[(i ^ label) + 1]++;
    }
  for (guint32 b = 0; b < n; b++)
    first_child[b + 1] += first_child[b];
  {
    g_autofree guint32 *fill = g_memdup2 (first_child, (gsize) n * sizeof (guint32));
    for (guint32 i = 0; i < n; i++)
      {
        guint32 label = unit_label (unit_at (charsmap, i));
        if (label <= 0xffu && (i ^ label) < n)
          children[fill[i ^ label]++] = i;
      }
  }

  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 root_base = unit_offset (unit_at (charsmap, 0));
  g_array_append_val (stack, root_base);
  while (stack->len > 0)
    {
      guint32 base = g_array_index (stack, guint32, stack->len - 1);
      g_array_set_size (stack, stack->len - 1);
      if ((base | 0xffu) >= n)
        {
          g_autofree char *what = g_strdup_printf ("the trie points outside itself (unit %u of %u)", base | 0xffu, n);
          return charsmap_fail (model, name, 4, error, what);
        }
      for (guint32 k = first_child[base]; k < first_child[base + 1]; k++)
        {
          guint32 child = children[k];
          guint32 unit = unit_at (charsmap, child);
          guint32 next = child ^ unit_offset (unit);
          if (next >= n)
            {
              g_autofree char *what =
                  g_strdup_printf ("unit %u points outside the trie (to unit %u of %u)", child, next, n);
              return charsmap_fail (model, name, 4 + (gsize) child * 4, error, what);
            }
          if (unit_has_leaf (unit) && unit_value (unit_at (charsmap, next)) >= value_limit)
            {
              g_autofree char *what =
                  g_strdup_printf ("unit %u's value %u is outside the %" G_GSIZE_FORMAT " bytes of replacements", next,
                                   unit_value (unit_at (charsmap, next)), charsmap->replacements_len);
              return charsmap_fail (model, name, 4 + (gsize) next * 4, error, what);
            }
          if ((seen[next / 8] & (1u << (next % 8))) == 0)
            {
              seen[next / 8] |= 1u << (next % 8);
              g_array_append_val (stack, next);
            }
        }
    }
  return TRUE;
}

/* The longest rule that matches a prefix of @text: its length (0: none)
 * and its replacement. */
static gsize
charsmap_match (const SpCharsmap *charsmap, const guint8 *text, gsize len, const char **out, gsize *out_len)
{
  guint32 pos = unit_offset (unit_at (charsmap, 0));
  gsize longest = 0;
  guint32 value = 0;
  for (gsize i = 0; i < len; i++)
    {
      pos ^= text[i];
      if (pos >= charsmap->n_units) /* checked at load; kept for safety */
        break;
      guint32 unit = unit_at (charsmap, pos);
      if (unit_label (unit) != text[i])
        break;
      pos ^= unit_offset (unit);
      if (pos >= charsmap->n_units)
        break;
      if (unit_has_leaf (unit))
        {
          longest = i + 1;
          value = unit_value (unit_at (charsmap, pos));
        }
    }
  if (longest == 0 || value >= charsmap->replacements_len)
    return 0;
  const char *s = charsmap->replacements + value;
  const char *nul = memchr (s, '\0', charsmap->replacements_len - value);
  if (nul == NULL)
    return 0;
  *out = s;
  *out_len = (gsize) (nul - s);
  return longest;
}

/* What the next characters of @text become; returns how many bytes of
 * @text that consumes. */
static gsize
normalize_prefix (const SpNormalizer *normalizer, const guint8 *text, gsize len, const char **out, gsize *out_len)
{
  gsize n = 0;
  if (normalizer->user_defined != NULL && (n = _llm_sp_trie_longest_prefix (normalizer->user_defined, text, len)) > 0)
    {
      *out = (const char *) text;
      *out_len = n;
      return n;
    }
  if (normalizer->charsmap != NULL && (n = charsmap_match (normalizer->charsmap, text, len, out, out_len)) > 0)
    return n;
  n = MIN ((gsize) g_utf8_skip[text[0]], len);
  *out = (const char *) text;
  *out_len = n;
  return n;
}

static void
add_space (const SpNormalizer *normalizer, GString *out)
{
  if (normalizer->escape_whitespaces)
    g_string_append_len (out, SPACE_SYMBOL, SPACE_SYMBOL_LEN);
  else
    g_string_append_c (out, ' ');
}

void
_llm_sp_normalize (const SpNormalizer *normalizer, const char *text, gsize len, GString *out)
{
  const guint8 *p = (const guint8 *) text;
  const char *s = NULL;
  gsize s_len = 0;
  gsize start = out->len;

  if (normalizer->remove_extra_whitespaces)
    while (len > 0)
      {
        gsize n = normalize_prefix (normalizer, p, len, &s, &s_len);
        if (s_len != 1 || s[0] != ' ')
          break;
        p += n;
        len -= n;
      }
  if (len == 0)
    return;

  if (!normalizer->treat_whitespace_as_suffix && normalizer->add_dummy_prefix)
    add_space (normalizer, out);
  gboolean prev_is_space = normalizer->remove_extra_whitespaces;
  while (len > 0)
    {
      gsize n = normalize_prefix (normalizer, p, len, &s, &s_len);
      while (prev_is_space && s_len > 0 && s[0] == ' ')
        {
          s++;
          s_len--;
        }
      if (s_len > 0)
        {
          for (gsize i = 0; i < s_len; i++)
            if (s[i] == ' ')
              add_space (normalizer, out);
            else
              g_string_append_c (out, s[i]);
          prev_is_space = s[s_len - 1] == ' ';
        }
      p += n;
      len -= n;
      if (!normalizer->remove_extra_whitespaces)
        prev_is_space = FALSE;
    }

  if (normalizer->remove_extra_whitespaces)
    {
      const char *space = normalizer->escape_whitespaces ? SPACE_SYMBOL : " ";
      gsize space_len = normalizer->escape_whitespaces ? SPACE_SYMBOL_LEN : 1;
      while (out->len - start >= space_len && memcmp (out->str + out->len - space_len, space, space_len) == 0)
        g_string_truncate (out, out->len - space_len);
    }
  if (normalizer->treat_whitespace_as_suffix && normalizer->add_dummy_prefix)
    add_space (normalizer, out);
}
