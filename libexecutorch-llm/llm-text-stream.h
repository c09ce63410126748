/* llm-text-stream.h: decoded token bytes to pieces of text safe to show
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Joins the bytes of successive tokens and hands out only whole UTF-8
 * characters; an invalid or cut sequence becomes U+FFFD.  Text that could
 * be the start of a stop string is held back until it is known not to be
 * one; a stop string found ends the stream before it. */
typedef struct
{
  GByteArray *pending; /* the bytes of a character not complete yet */
  GString *held;       /* whole characters not handed out yet */
  char **stop_strings; /* non-empty ones only */
  gboolean stopped;
} LlmTextStream;

void _llm_text_stream_init (LlmTextStream *self, const char *const *stop_strings);
void _llm_text_stream_clear (LlmTextStream *self);
/* Adds @len bytes; returns the text that may be shown now (possibly "").
 * Once a stop string has been seen, returns the text before it and sets
 * self->stopped; later calls return "". */
char *_llm_text_stream_push (LlmTextStream *self, const guint8 *bytes, gsize len);
/* The end: whatever is left (a cut character as U+FFFD). */
char *_llm_text_stream_finish (LlmTextStream *self);

G_END_DECLS
