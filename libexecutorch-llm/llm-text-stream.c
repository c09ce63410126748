/* llm-text-stream.c: whole UTF-8 characters, and stop strings held back
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A token's bytes may end inside a character (byte-level BPE splits
 * multi-byte characters), so pieces are joined here first.  Upstream's
 * runner hands such half characters to its callback; Python then fails to
 * make a str of them.
 */
#include "llm-text-stream.h"

#include <string.h>

#define REPLACEMENT "\xEF\xBF\xBD"

void
_llm_text_stream_init (LlmTextStream *self, const char *const *stop_strings)
{
  self->pending = g_byte_array_new ();
  self->held = g_string_new (NULL);
  GPtrArray *stops = g_ptr_array_new ();
  for (guint i = 0; stop_strings != NULL && stop_strings[i] != NULL; i++)
    if (stop_strings[i][0] != '\0')
      g_ptr_array_add (stops, g_strdup (stop_strings[i]));
  g_ptr_array_add (stops, NULL);
  self->stop_strings = (char **) g_ptr_array_free (stops, FALSE);
  self->stopped = FALSE;
}

void
_llm_text_stream_clear (LlmTextStream *self)
{
  g_clear_pointer (&self->pending, g_byte_array_unref);
  if (self->held != NULL)
    g_string_free (self->held, TRUE);
  self->held = NULL;
  g_clear_pointer (&self->stop_strings, g_strfreev);
}

/* The length of the character a lead byte starts, or 0 for a byte that
 * starts none.  NUL counts as none: pieces are C strings. */
static guint
sequence_length (guint8 lead)
{
  if (lead == 0)
    return 0;
  if (lead < 0x80)
    return 1;
  if (lead >= 0xC2 && lead <= 0xDF)
    return 2;
  if (lead >= 0xE0 && lead <= 0xEF)
    return 3;
  if (lead >= 0xF0 && lead <= 0xF4)
    return 4;
  return 0;
}

/* Whether @n bytes after @lead can still be completed into a character
 * (the second byte's range depends on the lead: no overlongs, surrogates or
 * code points above U+10FFFF). */
static gboolean
valid_prefix (const guint8 *s, gsize n)
{
  for (gsize k = 1; k < n; k++)
    {
      guint8 lo = 0x80, hi = 0xBF;
      if (k == 1)
        switch (s[0])
          {
            case 0xE0: lo = 0xA0; break;
            case 0xED: hi = 0x9F; break;
            case 0xF0: lo = 0x90; break;
            case 0xF4: hi = 0x8F; break;
            default: break;
          }
      if (s[k] < lo || s[k] > hi)
        return FALSE;
    }
  return TRUE;
}

/* Moves the whole characters of pending into held; with @final, a cut
 * character at the end too, as U+FFFD. */
static void
take_characters (LlmTextStream *self, gboolean final)
{
  const guint8 *b = self->pending->data;
  gsize n = self->pending->len, i = 0;
  while (i < n)
    {
      guint len = sequence_length (b[i]);
      if (len == 0)
        {
          g_string_append (self->held, REPLACEMENT);
          i++;
          continue;
        }
      gsize have = MIN (len, n - i);
      if (!valid_prefix (b + i, have))
        {
          /* Replace the lead, then look again from the byte after it. */
          g_string_append (self->held, REPLACEMENT);
          i++;
          continue;
        }
      if (have < len)
        {
          if (!final)
            break;
          g_string_append (self->held, REPLACEMENT);
          i = n;
          break;
        }
      g_string_append_len (self->held, (const char *) b + i, len);
      i += len;
    }
  g_byte_array_remove_range (self->pending, 0, i);
}

/* How many bytes at the end of held might begin a stop string. */
static gsize
hold_length (LlmTextStream *self)
{
  gsize hold = 0;
  for (guint s = 0; self->stop_strings[s] != NULL; s++)
    {
      const char *stop = self->stop_strings[s];
      gsize slen = strlen (stop);
      for (gsize k = MIN (slen - 1, self->held->len); k > hold; k--)
        if (memcmp (self->held->str + self->held->len - k, stop, k) == 0)
          {
            hold = k;
            break;
          }
    }
  return hold;
}

/* Hands out what held may show; @final: all of it. */
static char *
release (LlmTextStream *self, gboolean final)
{
  if (self->stopped)
    return g_strdup ("");
  /* The earliest stop string wins. */
  const char *first = NULL;
  for (guint s = 0; self->stop_strings[s] != NULL; s++)
    {
      const char *at = strstr (self->held->str, self->stop_strings[s]);
      if (at != NULL && (first == NULL || at < first))
        first = at;
    }
  if (first != NULL)
    {
      self->stopped = TRUE;
      char *out = g_strndup (self->held->str, first - self->held->str);
      g_string_truncate (self->held, 0);
      return out;
    }
  gsize keep = final ? 0 : hold_length (self);
  gsize give = self->held->len - keep;
  char *out = g_strndup (self->held->str, give);
  g_string_erase (self->held, 0, give);
  return out;
}

char *
_llm_text_stream_push (LlmTextStream *self, const guint8 *bytes, gsize len)
{
  if (self->stopped)
    return g_strdup ("");
  g_byte_array_append (self->pending, bytes, len);
  take_characters (self, FALSE);
  return release (self, FALSE);
}

char *
_llm_text_stream_finish (LlmTextStream *self)
{
  if (self->stopped)
    return g_strdup ("");
  take_characters (self, TRUE);
  return release (self, TRUE);
}
