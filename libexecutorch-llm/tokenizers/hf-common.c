/* hf-common.c: what the tokenizer.json parts share: JSON accessors that name
 * the path of what is wrong, patterns, Unicode classes, the byte alphabet
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "hf-private.h"

#include <string.h>

/* --- JSON helpers ------------------------------------------------------ */

JsonNode *
_hf_json_member (JsonObject *obj, const char *name)
{
  JsonNode *node = json_object_get_member (obj, name);
  return node == NULL || JSON_NODE_HOLDS_NULL (node) ? NULL : node;
}

gboolean
_hf_json_holds (JsonNode *node, GType type)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

gboolean
_hf_json_string (JsonObject *obj, const char *name, const char *path, const char *fallback, const char **out,
                 GError **error)
{
  JsonNode *node = _hf_json_member (obj, name);
  *out = fallback;
  if (node == NULL)
    return TRUE;
  if (!_hf_json_holds (node, G_TYPE_STRING))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.%s: expected a string", path, name);
      return FALSE;
    }
  *out = json_node_get_string (node);
  return TRUE;
}

gboolean
_hf_json_bool (JsonObject *obj, const char *name, const char *path, gboolean fallback, gboolean *out, GError **error)
{
  JsonNode *node = _hf_json_member (obj, name);
  *out = fallback;
  if (node == NULL)
    return TRUE;
  if (!_hf_json_holds (node, G_TYPE_BOOLEAN))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.%s: expected true or false", path,
                   name);
      return FALSE;
    }
  *out = json_node_get_boolean (node);
  return TRUE;
}

gboolean
_hf_json_node_uint (JsonNode *node, const char *path, guint64 max, guint64 *out, GError **error)
{
  if (!_hf_json_holds (node, G_TYPE_INT64) || json_node_get_int (node) < 0 || (guint64) json_node_get_int (node) > max)
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED,
                   "%s: expected an integer from 0 to %" G_GUINT64_FORMAT, path, max);
      return FALSE;
    }
  *out = (guint64) json_node_get_int (node);
  return TRUE;
}

gboolean
_hf_json_uint (JsonObject *obj, const char *name, const char *path, guint64 fallback, guint64 max, guint64 *out,
               GError **error)
{
  JsonNode *node = _hf_json_member (obj, name);
  *out = fallback;
  if (node == NULL)
    return TRUE;
  g_autofree char *member_path = g_strdup_printf ("%s.%s", path, name);
  return _hf_json_node_uint (node, member_path, max, out, error);
}

JsonObject *
_hf_json_object (JsonNode *node, const char *path, GError **error)
{
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: expected an object", path);
      return NULL;
    }
  return json_node_get_object (node);
}

const char *
_hf_json_type (JsonObject *obj, const char *path, GError **error)
{
  const char *type = NULL;
  if (!_hf_json_string (obj, "type", path, NULL, &type, error))
    return NULL;
  if (type == NULL)
    g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.type: missing", path);
  return type;
}

gboolean
_hf_json_component (JsonNode *node, const char *path, JsonObject **obj, const char **type, GError **error)
{
  *obj = NULL;
  *type = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  JsonObject *object = _hf_json_object (node, path, error);
  if (object == NULL)
    return FALSE;
  *type = _hf_json_type (object, path, error);
  if (*type == NULL)
    return FALSE;
  *obj = object;
  return TRUE;
}

gboolean
_hf_json_each (JsonObject *obj, const char *member, const char *path, HfJsonElementFunc func, gpointer data,
               GError **error)
{
  JsonNode *list = json_object_get_member (obj, member);
  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.%s: expected an array", path, member);
      return FALSE;
    }
  JsonArray *array = json_node_get_array (list);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *element_path = g_strdup_printf ("%s.%s[%u]", path, member, i);
      if (!func (data, json_array_get_element (array, i), element_path, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
_hf_json_char (JsonObject *obj, const char *member, const char *path, const char **out, GError **error)
{
  const char *s = NULL;
  if (!_hf_json_string (obj, member, path, NULL, &s, error))
    return FALSE;
  if (s == NULL || *s == '\0' || *g_utf8_next_char (s) != '\0')
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s.%s: expected one character", path,
                   member);
      return FALSE;
    }
  *out = s;
  return TRUE;
}

gboolean
_hf_json_prepend_scheme (JsonObject *obj, const char *path, HfPrependScheme *out, GError **error)
{
  static const char *const names[] = { "always", "never", "first" };
  const char *scheme = NULL;
  if (!_hf_json_string (obj, "prepend_scheme", path, NULL, &scheme, error))
    return FALSE;
  if (scheme == NULL)
    {
      gboolean add_prefix_space = TRUE;
      if (!_hf_json_bool (obj, "add_prefix_space", path, TRUE, &add_prefix_space, error))
        return FALSE;
      *out = add_prefix_space ? HF_PREPEND_ALWAYS : HF_PREPEND_NEVER;
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (scheme, names[i]) == 0)
      {
        *out = (HfPrependScheme) i;
        return TRUE;
      }
  g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED, "%s.prepend_scheme: unknown scheme %s",
               path, scheme);
  return FALSE;
}

/* How one escape reads in PCRE2: NULL when it means the same. */
static const char *
class_escape (char c, gboolean in_class)
{
  switch (c)
    {
      case 'w': return in_class ? HF_WORD_CLASS : "[" HF_WORD_CLASS "]";
      case 'W': return in_class ? NULL : "[^" HF_WORD_CLASS "]";
      case 's': return in_class ? HF_SPACE_CLASS : "[" HF_SPACE_CLASS "]";
      case 'S': return in_class ? NULL : "[^" HF_SPACE_CLASS "]";
      /* Ruby's \h is a hexadecimal digit, PCRE2's horizontal space. */
      case 'h': return in_class ? "0-9a-fA-F" : "[0-9a-fA-F]";
      case 'H': return in_class ? NULL : "[^0-9a-fA-F]";
      default: return NULL;
    }
}

char *
_hf_onig_to_pcre (const char *pattern)
{
  GString *out = g_string_new (NULL);
  guint depth = 0; /* inside a character class */
  for (const char *p = pattern; *p != '\0'; p++)
    {
      if (*p == '\\' && p[1] != '\0')
        {
          p++;
          const char *replacement = class_escape (*p, depth > 0);
          if (replacement != NULL)
            g_string_append (out, replacement);
          else
            {
              g_string_append_c (out, '\\');
              g_string_append_c (out, *p);
            }
          continue;
        }
      g_string_append_c (out, *p);
      if (*p == '[' && depth > 0 && p[1] == ':')
        {
          /* [:alpha:] inside a class */
          const char *end = strstr (p, ":]");
          if (end != NULL)
            {
              g_string_append_len (out, p + 1, end + 1 - p);
              p = end + 1;
            }
        }
      else if (*p == '[')
        {
          depth++;
          if (p[1] == '^')
            g_string_append_c (out, *++p);
          if (p[1] == ']')
            g_string_append_c (out, *++p); /* a literal ] first in the class */
        }
      else if (*p == ']' && depth > 0)
        depth--;
    }
  return g_string_free (out, FALSE);
}

GRegex *
_hf_json_pattern (JsonObject *obj, const char *name, const char *path, const char **literal, GError **error)
{
  g_autofree char *pattern_path = g_strdup_printf ("%s.%s", path, name);
  JsonObject *pattern = _hf_json_object (_hf_json_member (obj, name), pattern_path, error);
  if (pattern == NULL)
    return NULL;
  const char *string = NULL, *regex = NULL;
  if (!_hf_json_string (pattern, "String", pattern_path, NULL, &string, error) ||
      !_hf_json_string (pattern, "Regex", pattern_path, NULL, &regex, error))
    return NULL;
  if ((string == NULL) == (regex == NULL))
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_MALFORMED, "%s: expected String or Regex",
                   pattern_path);
      return NULL;
    }
  *literal = string;
  g_autofree char *escaped = string != NULL ? g_regex_escape_string (string, -1) : _hf_onig_to_pcre (regex);
  g_autoptr (GError) regex_error = NULL;
  /* Oniguruma's Ruby syntax, which the reference uses, has ^ and $ match at
   * line ends. */
  GRegex *compiled = g_regex_new (escaped, G_REGEX_OPTIMIZE | G_REGEX_MULTILINE, 0, &regex_error);
  if (compiled == NULL)
    g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED, "%s.%s: invalid regular expression: %s",
                 pattern_path, string != NULL ? "String" : "Regex", regex_error->message);
  return compiled;
}

/* --- Unicode classes and the byte alphabet ------------------------------- */

gboolean
_hf_is_white_space (gunichar c)
{
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

gboolean
_hf_is_word_char (gunichar c)
{
  switch (g_unichar_type (c))
    {
      case G_UNICODE_LOWERCASE_LETTER:
      case G_UNICODE_MODIFIER_LETTER:
      case G_UNICODE_OTHER_LETTER:
      case G_UNICODE_TITLECASE_LETTER:
      case G_UNICODE_UPPERCASE_LETTER:
      case G_UNICODE_LETTER_NUMBER:
      case G_UNICODE_DECIMAL_NUMBER:
      case G_UNICODE_SPACING_MARK:
      case G_UNICODE_ENCLOSING_MARK:
      case G_UNICODE_NON_SPACING_MARK:
      case G_UNICODE_CONNECT_PUNCTUATION: return TRUE;
      default: return c == 0x200C || c == 0x200D || (c >= 0x24B6 && c <= 0x24E9) || (c >= 0x1F130 && c <= 0x1F189);
    }
}

static gboolean
byte_is_printable (guint b)
{
  return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

static gunichar byte_chars[256];

static void
init_byte_chars (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done))
    {
      gunichar next = 0x100;
      for (guint b = 0; b < 256; b++)
        byte_chars[b] = byte_is_printable (b) ? b : next++;
      g_once_init_leave (&done, 1);
    }
}

gunichar
_hf_byte_to_char (guint8 byte)
{
  init_byte_chars ();
  return byte_chars[byte];
}

int
_hf_char_to_byte (gunichar c)
{
  init_byte_chars ();
  if (c < 0x100)
    return byte_is_printable (c) ? (int) c : -1;
  if (c < 0x100 + 68)
    for (guint b = 0; b < 256; b++)
      if (byte_chars[b] == c)
        return (int) b;
  return -1;
}
