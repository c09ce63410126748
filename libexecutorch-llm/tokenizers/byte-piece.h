/* byte-piece.h: the "<0xHH>" pieces that stand for one byte
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SentencePiece's byte_fallback pieces, as SentencePiece models, llama2.c's
 * tokenizer.bin and tokenizer.json's ByteFallback name them.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The byte the @len bytes at @text stand for, or -1 when they are not
 * "<0xHH>".  Hex digits of either case, or upper case only with
 * @upper_only (sentencepiece itself reads only what it writes). */
int _llm_byte_piece_parse (const guint8 *text, gsize len, gboolean upper_only);

#define LLM_BYTE_PIECE_SIZE 7 /* "<0xHH>" and its NUL */

/* Writes "<0xHH>" (upper case, as sentencepiece writes it) for @byte. */
void _llm_byte_piece_format (guint8 byte, char out[LLM_BYTE_PIECE_SIZE]);

G_END_DECLS
