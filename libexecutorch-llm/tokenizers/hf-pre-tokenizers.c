/* hf-pre-tokenizers.c: tokenizer.json "pre_tokenizer" components
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * ByteLevel (add_prefix_space, use_regex with the GPT-2 pattern, the byte
 * alphabet), Split (String or Regex pattern, the five behaviours, invert),
 * Digits, Metaspace (replacement, prepend_scheme first/always/never,
 * split), Whitespace, WhitespaceSplit, Punctuation, BertPreTokenizer,
 * CharDelimiterSplit and Sequence, split as the reference library splits:
 * a pattern cuts a piece into matches and the text between them, the
 * behaviour says what to keep and what to join, empty pieces are dropped.
 * Regexes are GRegex (PCRE2 with Unicode properties), where the reference
 * uses Oniguruma; the patterns tokenizers use mean the same in both.
 */
#include "hf-private.h"

#include <string.h>

typedef enum
{
  PRE_BYTE_LEVEL,
  PRE_SPLIT,
  PRE_DIGITS,
  PRE_METASPACE,
  PRE_WHITESPACE,
  PRE_WHITESPACE_SPLIT,
  PRE_PUNCTUATION,
  PRE_BERT,
  PRE_CHAR_DELIMITER,
  PRE_SEQUENCE,
} PreKind;

typedef enum
{
  BEHAVIOR_REMOVED,
  BEHAVIOR_ISOLATED,
  BEHAVIOR_MERGED_WITH_PREVIOUS,
  BEHAVIOR_MERGED_WITH_NEXT,
  BEHAVIOR_CONTIGUOUS,
} Behavior;

struct _HfPreTokenizer
{
  PreKind kind;
  GRegex *regex; /* ByteLevel (use_regex), Split, Whitespace */
  Behavior behavior;
  gboolean invert;
  gboolean add_prefix_space; /* ByteLevel */
  gboolean individual;       /* Digits */
  gunichar replacement;      /* Metaspace, CharDelimiterSplit */
  HfPrependScheme prepend;   /* Metaspace */
  gboolean split;            /* Metaspace */
  GPtrArray *children;       /* Sequence */
};

static const char gpt2_pattern[] = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

/* The reference's Whitespace pattern \w+|[^\w\s]+ with Rust's \w and \s. */
#define RUST_WORD HF_WORD_CLASS "\\x{200C}\\x{200D}"
static const char whitespace_pattern[] = "[" RUST_WORD "]+|[^" RUST_WORD HF_SPACE_CLASS "]+";

void
_hf_pre_tokenizer_free (HfPreTokenizer *self)
{
  if (self == NULL)
    return;
  if (self->regex != NULL)
    g_regex_unref (self->regex);
  if (self->children != NULL)
    g_ptr_array_unref (self->children);
  g_free (self);
}

static GRegex *
compile_builtin (const char *onig_pattern)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *pattern = _hf_onig_to_pcre (onig_pattern);
  GRegex *regex = g_regex_new (pattern, G_REGEX_OPTIMIZE, 0, &error);
  if (regex == NULL)
    g_error ("built-in pattern %s: %s", pattern, error->message); /* a bug here, not bad input */
  return regex;
}

static gboolean
parse_behavior (JsonObject *obj, const char *path, Behavior fallback, Behavior *out, GError **error)
{
  static const char *const names[] = { "Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous" };
  const char *name = NULL;
  *out = fallback;
  if (!_hf_json_string (obj, "behavior", path, NULL, &name, error))
    return FALSE;
  if (name == NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (name, names[i]) == 0)
      {
        *out = (Behavior) i;
        return TRUE;
      }
  g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED, "%s.behavior: unknown behavior %s", path,
               name);
  return FALSE;
}

/* A member holding exactly one character. */
static gboolean
parse_char (JsonObject *obj, const char *member, const char *path, gunichar *out, GError **error)
{
  const char *s = NULL;
  if (!_hf_json_char (obj, member, path, &s, error))
    return FALSE;
  *out = g_utf8_get_char (s);
  return TRUE;
}

static gboolean
parse_metaspace (HfPreTokenizer *self, JsonObject *obj, const char *path, GError **error)
{
  return parse_char (obj, "replacement", path, &self->replacement, error) &&
         _hf_json_bool (obj, "split", path, TRUE, &self->split, error) &&
         _hf_json_prepend_scheme (obj, path, &self->prepend, error);
}

/* A Sequence's element: its pre-tokenizer joins @data's children. */
static gboolean
add_child (gpointer data, JsonNode *element, const char *path, GError **error)
{
  HfPreTokenizer *child = NULL;
  if (!_hf_pre_tokenizer_parse (element, path, &child, error))
    return FALSE;
  if (child != NULL)
    g_ptr_array_add (((HfPreTokenizer *) data)->children, child);
  return TRUE;
}

gboolean
_hf_pre_tokenizer_parse (JsonNode *node, const char *path, HfPreTokenizer **out, GError **error)
{
  JsonObject *obj = NULL;
  const char *type = NULL;
  *out = NULL;
  if (!_hf_json_component (node, path, &obj, &type, error))
    return FALSE;
  if (obj == NULL)
    return TRUE;

  g_autoptr (HfPreTokenizer) self = g_new0 (HfPreTokenizer, 1);
  if (strcmp (type, "ByteLevel") == 0)
    {
      gboolean use_regex = TRUE;
      self->kind = PRE_BYTE_LEVEL;
      if (!_hf_json_bool (obj, "add_prefix_space", path, TRUE, &self->add_prefix_space, error) ||
          !_hf_json_bool (obj, "use_regex", path, TRUE, &use_regex, error))
        return FALSE;
      if (use_regex)
        self->regex = compile_builtin (gpt2_pattern);
    }
  else if (strcmp (type, "Split") == 0)
    {
      const char *literal = NULL;
      self->kind = PRE_SPLIT;
      self->regex = _hf_json_pattern (obj, "pattern", path, &literal, error);
      if (self->regex == NULL || !parse_behavior (obj, path, BEHAVIOR_REMOVED, &self->behavior, error) ||
          !_hf_json_bool (obj, "invert", path, FALSE, &self->invert, error))
        return FALSE;
    }
  else if (strcmp (type, "Digits") == 0)
    {
      self->kind = PRE_DIGITS;
      if (!_hf_json_bool (obj, "individual_digits", path, FALSE, &self->individual, error))
        return FALSE;
    }
  else if (strcmp (type, "Metaspace") == 0)
    {
      self->kind = PRE_METASPACE;
      if (!parse_metaspace (self, obj, path, error))
        return FALSE;
    }
  else if (strcmp (type, "Whitespace") == 0)
    {
      self->kind = PRE_WHITESPACE;
      self->regex = compile_builtin (whitespace_pattern);
    }
  else if (strcmp (type, "WhitespaceSplit") == 0)
    self->kind = PRE_WHITESPACE_SPLIT;
  else if (strcmp (type, "Punctuation") == 0)
    {
      self->kind = PRE_PUNCTUATION;
      if (!parse_behavior (obj, path, BEHAVIOR_ISOLATED, &self->behavior, error))
        return FALSE;
    }
  else if (strcmp (type, "BertPreTokenizer") == 0)
    self->kind = PRE_BERT;
  else if (strcmp (type, "CharDelimiterSplit") == 0)
    {
      self->kind = PRE_CHAR_DELIMITER;
      if (!parse_char (obj, "delimiter", path, &self->replacement, error))
        return FALSE;
    }
  else if (strcmp (type, "Sequence") == 0)
    {
      self->kind = PRE_SEQUENCE;
      self->children = g_ptr_array_new_with_free_func ((GDestroyNotify) _hf_pre_tokenizer_free);
      if (!_hf_json_each (obj, "pretokenizers", path, add_child, self, error))
        return FALSE;
    }
  else
    {
      g_set_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED, "%s: pre_tokenizer %s is not supported",
                   path, type);
      return FALSE;
    }
  *out = g_steal_pointer (&self);
  return TRUE;
}

/* --- Pieces ---------------------------------------------------------- */

static void
piece_clear (gpointer data)
{
  g_free (((HfPiece *) data)->text);
}

GArray *
_hf_pieces_new (void)
{
  GArray *pieces = g_array_new (FALSE, FALSE, sizeof (HfPiece));
  g_array_set_clear_func (pieces, piece_clear);
  return pieces;
}

void
_hf_pieces_add (GArray *pieces, const char *text, gsize len, gboolean at_start)
{
  if (len == 0)
    return;
  HfPiece piece = { g_strndup (text, len), len, at_start };
  g_array_append_val (pieces, piece);
}

static void
pieces_add_owned (GArray *pieces, GString *text, gboolean at_start)
{
  if (text->len == 0)
    {
      g_string_free (text, TRUE);
      return;
    }
  HfPiece piece = { NULL, text->len, at_start };
  piece.text = g_string_free (text, FALSE);
  g_array_append_val (pieces, piece);
}

/* Moves the pieces of @from into @pieces, which keeps its identity for the
 * caller; @from is left to be freed. */
static void
pieces_replace (GArray *pieces, GArray *from)
{
  g_array_set_size (pieces, 0);
  g_array_append_vals (pieces, from->data, from->len);
  g_array_set_clear_func (from, NULL);
}

/* --- Splitting ------------------------------------------------------- */

typedef struct
{
  gsize start, end;
  gboolean match;
} Event;

static void
add_event (GArray *events, gsize start, gsize end, gboolean match)
{
  Event e = { start, end, match };
  g_array_append_val (events, e);
}

/* Matches of @regex and the text between them, covering @text. */
static void
regex_events (const GRegex *regex, const char *text, gsize len, GArray *events)
{
  g_autoptr (GMatchInfo) info = NULL;
  gsize prev = 0;
  g_regex_match_full (regex, text, len, 0, 0, &info, NULL);
  while (g_match_info_matches (info))
    {
      int start = 0, end = 0;
      g_match_info_fetch_pos (info, 0, &start, &end);
      if (prev != (gsize) start)
        add_event (events, prev, start, FALSE);
      add_event (events, start, end, TRUE);
      prev = end;
      if (!g_match_info_next (info, NULL))
        break;
    }
  if (prev != len)
    add_event (events, prev, len, FALSE);
}

typedef gboolean (*CharClass) (gunichar c, gunichar arg);

/* Each character of the class is a match of its own. */
static void
char_events (CharClass is_in, gunichar arg, const char *text, gsize len, GArray *events)
{
  gsize last = 0;
  for (const char *p = text; p < text + len; p = g_utf8_next_char (p))
    {
      gsize at = p - text;
      if (is_in (g_utf8_get_char (p), arg))
        {
          gsize end = g_utf8_next_char (p) - text;
          if (last < at)
            add_event (events, last, at, FALSE);
          add_event (events, at, end, TRUE);
          last = end;
        }
    }
  if (last < len)
    add_event (events, last, len, FALSE);
}

static gboolean
is_white_space (gunichar c, gunichar arg)
{
  return _hf_is_white_space (c);
}

static gboolean
is_numeric (gunichar c, gunichar arg)
{
  GUnicodeType t = g_unichar_type (c);
  return t == G_UNICODE_DECIMAL_NUMBER || t == G_UNICODE_LETTER_NUMBER || t == G_UNICODE_OTHER_NUMBER;
}

static gboolean
is_punctuation (gunichar c, gunichar arg)
{
  if (c < 0x80)
    return g_ascii_ispunct (c);
  switch (g_unichar_type (c))
    {
      case G_UNICODE_CONNECT_PUNCTUATION:
      case G_UNICODE_DASH_PUNCTUATION:
      case G_UNICODE_CLOSE_PUNCTUATION:
      case G_UNICODE_FINAL_PUNCTUATION:
      case G_UNICODE_INITIAL_PUNCTUATION:
      case G_UNICODE_OTHER_PUNCTUATION:
      case G_UNICODE_OPEN_PUNCTUATION: return TRUE;
      default: return FALSE;
    }
}

static gboolean
is_char (gunichar c, gunichar arg)
{
  return c == arg;
}

/* Cuts @piece by @events as @behavior says, appending to @out. */
static void
split_piece (const HfPiece *piece, GArray *events, gboolean invert, Behavior behavior, GArray *out)
{
  Event *ev = (Event *) events->data;
  guint n = events->len;
  if (invert)
    for (guint i = 0; i < n; i++)
      ev[i].match = !ev[i].match;

  g_autoptr (GArray) spans = g_array_sized_new (FALSE, FALSE, sizeof (Event), n);
  gboolean previous = FALSE;
  switch (behavior)
    {
      case BEHAVIOR_ISOLATED: g_array_append_vals (spans, ev, n); break;
      case BEHAVIOR_REMOVED:
        for (guint i = 0; i < n; i++)
          if (!ev[i].match)
            g_array_append_val (spans, ev[i]);
        break;
      case BEHAVIOR_CONTIGUOUS:
      case BEHAVIOR_MERGED_WITH_PREVIOUS:
        /* Contiguous joins runs of the same kind, MergedWithPrevious a match
         * to the text before it. */
        for (guint i = 0; i < n; i++)
          {
            gboolean join = behavior == BEHAVIOR_CONTIGUOUS ? ev[i].match == previous : ev[i].match && !previous;
            if (join && spans->len > 0)
              g_array_index (spans, Event, spans->len - 1).end = ev[i].end;
            else
              g_array_append_val (spans, ev[i]);
            previous = ev[i].match;
          }
        break;
      case BEHAVIOR_MERGED_WITH_NEXT:
        for (guint k = n; k-- > 0;)
          {
            if (ev[k].match && !previous && spans->len > 0)
              g_array_index (spans, Event, spans->len - 1).start = ev[k].start;
            else
              g_array_append_val (spans, ev[k]);
            previous = ev[k].match;
          }
        for (guint a = 0, b = spans->len; a + 1 < b; a++, b--)
          {
            Event t = g_array_index (spans, Event, a);
            g_array_index (spans, Event, a) = g_array_index (spans, Event, b - 1);
            g_array_index (spans, Event, b - 1) = t;
          }
        break;
    }
  for (guint i = 0; i < spans->len; i++)
    {
      Event *s = &g_array_index (spans, Event, i);
      _hf_pieces_add (out, piece->text + s->start, s->end - s->start, piece->at_start && s->start == 0);
    }
}

/* Splits every piece of @pieces in place. */
static void
split_all (GArray *pieces, const GRegex *regex, CharClass is_in, gunichar arg, gboolean invert, Behavior behavior)
{
  g_autoptr (GArray) out = _hf_pieces_new ();
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (Event));
  for (guint i = 0; i < pieces->len; i++)
    {
      HfPiece *piece = &g_array_index (pieces, HfPiece, i);
      g_array_set_size (events, 0);
      if (regex != NULL)
        regex_events (regex, piece->text, piece->len, events);
      else
        char_events (is_in, arg, piece->text, piece->len, events);
      split_piece (piece, events, invert, behavior, out);
    }
  pieces_replace (pieces, out);
}

static void
byte_level (const HfPreTokenizer *self, GArray *pieces)
{
  if (self->add_prefix_space)
    for (guint i = 0; i < pieces->len; i++)
      {
        HfPiece *piece = &g_array_index (pieces, HfPiece, i);
        if (piece->text[0] != ' ')
          {
            char *text = g_strconcat (" ", piece->text, NULL);
            g_free (piece->text);
            piece->text = text;
            piece->len++;
          }
      }
  if (self->regex != NULL)
    split_all (pieces, self->regex, NULL, 0, FALSE, BEHAVIOR_ISOLATED);
  for (guint i = 0; i < pieces->len; i++)
    {
      HfPiece *piece = &g_array_index (pieces, HfPiece, i);
      GString *mapped = g_string_sized_new (piece->len * 2);
      for (gsize k = 0; k < piece->len; k++)
        g_string_append_unichar (mapped, _hf_byte_to_char ((guint8) piece->text[k]));
      g_free (piece->text);
      piece->len = mapped->len;
      piece->text = g_string_free (mapped, FALSE);
    }
}

static void
metaspace (const HfPreTokenizer *self, GArray *pieces)
{
  char rep[8] = { 0 };
  g_unichar_to_utf8 (self->replacement, rep);
  g_autoptr (GArray) out = _hf_pieces_new ();
  for (guint i = 0; i < pieces->len; i++)
    {
      HfPiece *piece = &g_array_index (pieces, HfPiece, i);
      GString *text = g_string_sized_new (piece->len + 8);
      for (gsize k = 0; k < piece->len; k++)
        if (piece->text[k] == ' ')
          g_string_append (text, rep);
        else
          g_string_append_c (text, piece->text[k]);
      gboolean starts = g_str_has_prefix (text->str, rep);
      if (!starts && (self->prepend == HF_PREPEND_ALWAYS || (self->prepend == HF_PREPEND_FIRST && piece->at_start)))
        g_string_prepend (text, rep);
      pieces_add_owned (out, text, piece->at_start);
    }
  pieces_replace (pieces, out);
  if (self->split)
    split_all (pieces, NULL, is_char, self->replacement, FALSE, BEHAVIOR_MERGED_WITH_NEXT);
}

void
_hf_pre_tokenizer_apply (const HfPreTokenizer *self, GArray *pieces)
{
  switch (self->kind)
    {
      case PRE_BYTE_LEVEL: byte_level (self, pieces); break;
      case PRE_SPLIT: split_all (pieces, self->regex, NULL, 0, self->invert, self->behavior); break;
      case PRE_DIGITS:
        split_all (pieces, NULL, is_numeric, 0, FALSE, self->individual ? BEHAVIOR_ISOLATED : BEHAVIOR_CONTIGUOUS);
        break;
      case PRE_METASPACE: metaspace (self, pieces); break;
      case PRE_WHITESPACE: split_all (pieces, self->regex, NULL, 0, TRUE, BEHAVIOR_REMOVED); break;
      case PRE_WHITESPACE_SPLIT: split_all (pieces, NULL, is_white_space, 0, FALSE, BEHAVIOR_REMOVED); break;
      case PRE_PUNCTUATION: split_all (pieces, NULL, is_punctuation, 0, FALSE, self->behavior); break;
      case PRE_BERT:
        split_all (pieces, NULL, is_white_space, 0, FALSE, BEHAVIOR_REMOVED);
        split_all (pieces, NULL, is_punctuation, 0, FALSE, BEHAVIOR_ISOLATED);
        break;
      case PRE_CHAR_DELIMITER: split_all (pieces, NULL, is_char, self->replacement, FALSE, BEHAVIOR_REMOVED); break;
      case PRE_SEQUENCE:
        for (guint i = 0; i < self->children->len; i++)
          _hf_pre_tokenizer_apply (g_ptr_array_index (self->children, i), pieces);
        break;
    }
}
