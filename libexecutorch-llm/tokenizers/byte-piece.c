/* byte-piece.c: the "<0xHH>" pieces that stand for one byte
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "byte-piece.h"

#include <string.h>

static int
hex_digit (guint8 c, gboolean upper_only)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (!upper_only && c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

int
_llm_byte_piece_parse (const guint8 *text, gsize len, gboolean upper_only)
{
  if (len != 6 || memcmp (text, "<0x", 3) != 0 || text[5] != '>')
    return -1;
  int hi = hex_digit (text[3], upper_only), lo = hex_digit (text[4], upper_only);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

void
_llm_byte_piece_format (guint8 byte, char out[LLM_BYTE_PIECE_SIZE])
{
  static const char hex[] = "0123456789ABCDEF";
  memcpy (out, "<0x", 3);
  out[3] = hex[byte >> 4];
  out[4] = hex[byte & 15];
  out[5] = '>';
  out[6] = '\0';
}
