/* hf-normalizers.c: tokenizer.json "normalizer" components
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NFC, NFD, NFKC, NFKD (GLib's g_utf8_normalize, so GLib's Unicode
 * version), Lowercase (per character, as the reference's char::to_lowercase:
 * no final-sigma rule), Replace (a literal String or a Regex; the content is
 * inserted literally), Prepend, Strip, StripAccents, ByteLevel and
 * Sequence.  Anything else (BertNormalizer, Precompiled, ...) is refused.
 */
#include "hf-private.h"

#include <string.h>

typedef enum
{
  NORM_NFC,
  NORM_NFD,
  NORM_NFKC,
  NORM_NFKD,
  NORM_LOWERCASE,
  NORM_REPLACE,
  NORM_PREPEND,
  NORM_STRIP,
  NORM_STRIP_ACCENTS,
  NORM_BYTE_LEVEL,
  NORM_SEQUENCE,
} NormKind;

struct _HfNormalizer
{
  NormKind kind;
  GRegex *regex;        /* Replace */
  char *content;        /* Replace, Prepend */
  gboolean left, right; /* Strip */
  GPtrArray *children;  /* Sequence */
};

void
_hf_normalizer_free (HfNormalizer *self)
{
  if (self == NULL)
    return;
  if (self->regex != NULL)
    g_regex_unref (self->regex);
  g_free (self->content);
  if (self->children != NULL)
    g_ptr_array_unref (self->children);
  g_free (self);
}

static const struct
{
  const char *name;
  NormKind kind;
} simple_kinds[] = {
  { "NFC", NORM_NFC },
  { "NFD", NORM_NFD },
  { "NFKC", NORM_NFKC },
  { "NFKD", NORM_NFKD },
  { "Lowercase", NORM_LOWERCASE },
  { "StripAccents", NORM_STRIP_ACCENTS },
  { "ByteLevel", NORM_BYTE_LEVEL },
};

static gboolean
required_string (JsonObject *obj, const char *member, const char *path, const char **out, GError **error)
{
  if (!_hf_json_string (obj, member, path, NULL, out, error))
    return FALSE;
  if (*out == NULL)
    g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.%s: expected a string", path, member);
  return *out != NULL;
}

/* A Sequence's element: its normalizer joins @data's children. */
static gboolean
add_child (gpointer data, JsonNode *element, const char *path, GError **error)
{
  HfNormalizer *child = NULL;
  if (!_hf_normalizer_parse (element, path, &child, error))
    return FALSE;
  if (child != NULL)
    g_ptr_array_add (((HfNormalizer *) data)->children, child);
  return TRUE;
}

gboolean
_hf_normalizer_parse (JsonNode *node, const char *path, HfNormalizer **out, GError **error)
{
  JsonObject *obj = NULL;
  const char *type = NULL;
  *out = NULL;
  if (!_hf_json_component (node, path, &obj, &type, error))
    return FALSE;
  if (obj == NULL)
    return TRUE;

  g_autoptr (HfNormalizer) self = g_new0 (HfNormalizer, 1);
  for (gsize i = 0; i < G_N_ELEMENTS (simple_kinds); i++)
    if (strcmp (type, simple_kinds[i].name) == 0)
      {
        self->kind = simple_kinds[i].kind;
        *out = g_steal_pointer (&self);
        return TRUE;
      }

  if (strcmp (type, "Replace") == 0)
    {
      const char *content = NULL, *literal = NULL;
      self->kind = NORM_REPLACE;
      self->regex = _hf_json_pattern (obj, "pattern", path, &literal, error);
      if (self->regex == NULL || !required_string (obj, "content", path, &content, error))
        return FALSE;
      self->content = g_strdup (content);
    }
  else if (strcmp (type, "Prepend") == 0)
    {
      const char *prepend = NULL;
      self->kind = NORM_PREPEND;
      if (!required_string (obj, "prepend", path, &prepend, error))
        return FALSE;
      self->content = g_strdup (prepend);
    }
  else if (strcmp (type, "Strip") == 0)
    {
      self->kind = NORM_STRIP;
      if (!_hf_json_bool (obj, "strip_left", path, TRUE, &self->left, error) ||
          !_hf_json_bool (obj, "strip_right", path, TRUE, &self->right, error))
        return FALSE;
    }
  else if (strcmp (type, "Sequence") == 0)
    {
      self->kind = NORM_SEQUENCE;
      self->children = g_ptr_array_new_with_free_func ((GDestroyNotify) _hf_normalizer_free);
      if (!_hf_json_each (obj, "normalizers", path, add_child, self, error))
        return FALSE;
    }
  else
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED, "%s: normalizer %s is not supported",
                   path, type);
      return FALSE;
    }
  *out = g_steal_pointer (&self);
  return TRUE;
}

static void
lowercase (GString *out, const char *text, gsize len)
{
  for (const char *p = text; p < text + len; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (c == 0x130) /* İ lowercases to two characters */
        g_string_append (out, "i\xcc\x87");
      else
        g_string_append_unichar (out, g_unichar_tolower (c));
    }
}

static void
strip (GString *out, const char *text, gsize len, gboolean left, gboolean right)
{
  const char *start = text, *end = text + len;
  while (left && start < end && _hf_is_white_space (g_utf8_get_char (start)))
    start = g_utf8_next_char (start);
  while (right && end > start)
    {
      const char *prev = g_utf8_find_prev_char (start, end);
      if (prev == NULL || !_hf_is_white_space (g_utf8_get_char (prev)))
        break;
      end = prev;
    }
  g_string_append_len (out, start, end - start);
}

static void
apply_one (const HfNormalizer *self, GString *out, const char *text, gsize len)
{
  switch (self->kind)
    {
      case NORM_NFC:
      case NORM_NFD:
      case NORM_NFKC:
      case NORM_NFKD:
        {
          static const GNormalizeMode modes[] = { G_NORMALIZE_NFC, G_NORMALIZE_NFD, G_NORMALIZE_NFKC,
                                                  G_NORMALIZE_NFKD };
          g_autofree char *normal = g_utf8_normalize (text, len, modes[self->kind - NORM_NFC]);
          if (normal != NULL)
            g_string_append (out, normal);
          break;
        }
      case NORM_LOWERCASE: lowercase (out, text, len); break;
      case NORM_REPLACE:
        {
          g_autofree char *replaced = g_regex_replace_literal (self->regex, text, len, 0, self->content, 0, NULL);
          if (replaced != NULL)
            g_string_append (out, replaced);
          else
            g_string_append_len (out, text, len);
          break;
        }
      case NORM_PREPEND:
        if (len > 0)
          g_string_append (out, self->content);
        g_string_append_len (out, text, len);
        break;
      case NORM_STRIP: strip (out, text, len, self->left, self->right); break;
      case NORM_STRIP_ACCENTS:
        for (const char *p = text; p < text + len; p = g_utf8_next_char (p))
          {
            gunichar c = g_utf8_get_char (p);
            GUnicodeType t = g_unichar_type (c);
            if (t != G_UNICODE_NON_SPACING_MARK && t != G_UNICODE_SPACING_MARK && t != G_UNICODE_ENCLOSING_MARK)
              g_string_append_unichar (out, c);
          }
        break;
      case NORM_BYTE_LEVEL:
        for (gsize i = 0; i < len; i++)
          g_string_append_unichar (out, _hf_byte_to_char ((guint8) text[i]));
        break;
      case NORM_SEQUENCE:
        {
          g_autoptr (GString) current = g_string_new_len (text, len);
          for (guint i = 0; i < self->children->len; i++)
            {
              GString *next = g_string_sized_new (current->len + 8);
              apply_one (g_ptr_array_index (self->children, i), next, current->str, current->len);
              g_string_free (current, TRUE);
              current = next;
            }
          g_string_append_len (out, current->str, current->len);
          break;
        }
    }
}

GString *
_hf_normalizer_apply (const HfNormalizer *self, const char *text, gsize len)
{
  GString *out = g_string_sized_new (len + 8);
  apply_one (self, out, text, len);
  return out;
}
