/* pte-header.c: the file identifier and extended header of a .pte
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "program-private.h"

#include <string.h>

#define PTE_IDENTIFIER "ET12"
#define HEADER_MAGIC "eh00"
#define HEADER_MIN_LENGTH 24

gboolean
_et_pte_header_parse (const guint8 *data, gsize size, EtPteHeader *header, GError **error)
{
  memset (header, 0, sizeof *header);
  if (size < 8)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM,
                     "file is too short for a program (%" G_GSIZE_FORMAT " bytes, at least 8 needed)", size);
      return FALSE;
    }
  if (memcmp (data + 4, PTE_IDENTIFIER, 4) != 0)
    {
      if (data[4] == 'E' && data[5] == 'T')
        _et_set_error (error, ET_ERROR_INVALID_PROGRAM,
                       "program format version \"%.4s\" is not supported (expected \"" PTE_IDENTIFIER "\")",
                       g_ascii_isprint (data[6]) && g_ascii_isprint (data[7]) ? (const char *) data + 4 : "ET??");
      else
        _et_set_error (error, ET_ERROR_INVALID_PROGRAM,
                       "not an ExecuTorch program: bytes 4..7 are not the identifier \"" PTE_IDENTIFIER "\"");
      return FALSE;
    }

  header->program_size = size;
  if (size < 12 || memcmp (data + 8, HEADER_MAGIC, 4) != 0)
    return TRUE; /* no extended header: the whole file is the FlatBuffer */

  if (size < 8 + HEADER_MIN_LENGTH)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM,
                     "extended header at offset 8 is cut off (file has %" G_GSIZE_FORMAT " bytes)", size);
      return FALSE;
    }
  header->present = TRUE;
  header->length = _et_le32 (data + 12);
  if (header->length < HEADER_MIN_LENGTH)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "extended header length %u is less than %d", header->length,
                     HEADER_MIN_LENGTH);
      return FALSE;
    }
  header->program_size = _et_le64 (data + 16);
  header->segment_base_offset = _et_le64 (data + 24);
  if (header->length >= 32)
    {
      if (size < 8 + 32)
        {
          _et_set_error (error, ET_ERROR_INVALID_PROGRAM, "extended header of length %u is cut off", header->length);
          return FALSE;
        }
      header->segment_data_size = _et_le64 (data + 32);
    }
  if (header->program_size < 8 + (guint64) HEADER_MIN_LENGTH || header->program_size > size)
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM,
                     "extended header: program size %" G_GUINT64_FORMAT " does not fit the file (%" G_GSIZE_FORMAT
                     " bytes)",
                     header->program_size, size);
      return FALSE;
    }
  if (header->segment_base_offset != 0 &&
      (header->segment_base_offset < header->program_size || header->segment_base_offset > size ||
       header->segment_data_size > size - header->segment_base_offset))
    {
      _et_set_error (error, ET_ERROR_INVALID_PROGRAM,
                     "extended header: segment data at offset %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
                     " bytes) does not fit the file (%" G_GSIZE_FORMAT " bytes)",
                     header->segment_base_offset, header->segment_data_size, size);
      return FALSE;
    }
  return TRUE;
}
