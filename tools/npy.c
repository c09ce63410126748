/* npy.c: a small, strict reader and writer of NumPy .npy files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Format: "\x93NUMPY", major, minor, header length (u16 LE for 1.x, u32 LE
 * for 2.x and 3.x), then a Python dict literal with 'descr',
 * 'fortran_order' and 'shape', padded with spaces and ended by '\n', then
 * the raw elements.  Every read is bounds-checked against the file size.
 */
#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct
{
  const char *descr; /* without the byte-order character */
  ExecutorchScalarType type;
  gsize size;
} npy_types[] = {
  { "f4", EXECUTORCH_SCALAR_TYPE_FLOAT, 4 },  { "f8", EXECUTORCH_SCALAR_TYPE_DOUBLE, 8 },
  { "f2", EXECUTORCH_SCALAR_TYPE_HALF, 2 },   { "i8", EXECUTORCH_SCALAR_TYPE_LONG, 8 },
  { "i4", EXECUTORCH_SCALAR_TYPE_INT, 4 },    { "i2", EXECUTORCH_SCALAR_TYPE_SHORT, 2 },
  { "i1", EXECUTORCH_SCALAR_TYPE_CHAR, 1 },   { "u1", EXECUTORCH_SCALAR_TYPE_BYTE, 1 },
  { "b1", EXECUTORCH_SCALAR_TYPE_BOOL, 1 },   { "u2", EXECUTORCH_SCALAR_TYPE_UINT16, 2 },
  { "u4", EXECUTORCH_SCALAR_TYPE_UINT32, 4 }, { "u8", EXECUTORCH_SCALAR_TYPE_UINT64, 8 },
};

static const char *const npy_descrs[] = {
  [EXECUTORCH_SCALAR_TYPE_FLOAT] = "<f4",  [EXECUTORCH_SCALAR_TYPE_DOUBLE] = "<f8",
  [EXECUTORCH_SCALAR_TYPE_HALF] = "<f2",   [EXECUTORCH_SCALAR_TYPE_LONG] = "<i8",
  [EXECUTORCH_SCALAR_TYPE_INT] = "<i4",    [EXECUTORCH_SCALAR_TYPE_SHORT] = "<i2",
  [EXECUTORCH_SCALAR_TYPE_CHAR] = "|i1",   [EXECUTORCH_SCALAR_TYPE_BYTE] = "|u1",
  [EXECUTORCH_SCALAR_TYPE_BOOL] = "|b1",   [EXECUTORCH_SCALAR_TYPE_UINT16] = "<u2",
  [EXECUTORCH_SCALAR_TYPE_UINT32] = "<u4", [EXECUTORCH_SCALAR_TYPE_UINT64] = "<u8",
};

const char *
npy_descr_for (ExecutorchScalarType scalar_type)
{
  if ((guint) scalar_type >= G_N_ELEMENTS (npy_descrs))
    return NULL;
  return npy_descrs[scalar_type];
}

void
npy_array_clear (NpyArray *array)
{
  g_clear_pointer (&array->data, g_bytes_unref);
  memset (array, 0, sizeof *array);
}

/* --- header parser --- */

typedef struct
{
  const char *text;
  gsize len;
  gsize pos;
  GError **error;
} Parser;

static gboolean
fail (Parser *p, const char *what)
{
  g_set_error (p->error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT,
               "malformed .npy header: %s at offset %" G_GSIZE_FORMAT, what, p->pos);
  return FALSE;
}

static void
skip_ws (Parser *p)
{
  while (p->pos < p->len &&
         (p->text[p->pos] == ' ' || p->text[p->pos] == '\t' || p->text[p->pos] == '\n' || p->text[p->pos] == '\r'))
    p->pos++;
}

static gboolean
accept (Parser *p, char c)
{
  skip_ws (p);
  if (p->pos < p->len && p->text[p->pos] == c)
    {
      p->pos++;
      return TRUE;
    }
  return FALSE;
}

static gboolean
expect (Parser *p, char c)
{
  char what[32];

  if (accept (p, c))
    return TRUE;
  g_snprintf (what, sizeof what, "expected '%c'", c);
  return fail (p, what);
}

/* A quoted string without escapes (none of the keys or descrs need them). */
static gboolean
parse_string (Parser *p, char **out)
{
  char quote;
  gsize start;

  skip_ws (p);
  if (p->pos >= p->len || (p->text[p->pos] != '\'' && p->text[p->pos] != '"'))
    return fail (p, "expected a string");
  quote = p->text[p->pos++];
  start = p->pos;
  while (p->pos < p->len && p->text[p->pos] != quote)
    {
      if (p->text[p->pos] == '\\')
        return fail (p, "escapes are not supported");
      p->pos++;
    }
  if (p->pos >= p->len)
    return fail (p, "unterminated string");
  *out = g_strndup (p->text + start, p->pos - start);
  p->pos++;
  return TRUE;
}

static gboolean
parse_word (Parser *p, const char *word)
{
  gsize n = strlen (word);

  skip_ws (p);
  if (p->len - p->pos >= n && memcmp (p->text + p->pos, word, n) == 0)
    {
      p->pos += n;
      return TRUE;
    }
  return FALSE;
}

static gboolean
parse_bool (Parser *p, gboolean *out)
{
  if (parse_word (p, "True"))
    *out = TRUE;
  else if (parse_word (p, "False"))
    *out = FALSE;
  else
    return fail (p, "expected True or False");
  return TRUE;
}

static gboolean
parse_shape (Parser *p, gint64 *sizes, gsize *n_dims)
{
  *n_dims = 0;
  if (!expect (p, '('))
    return FALSE;
  if (accept (p, ')'))
    return TRUE;
  for (;;)
    {
      guint64 value = 0;
      gboolean digits = FALSE;

      skip_ws (p);
      while (p->pos < p->len && g_ascii_isdigit (p->text[p->pos]))
        {
          guint d = p->text[p->pos] - '0';
          if (value > ((guint64) G_MAXINT64 - d) / 10)
            return fail (p, "dimension too large");
          value = value * 10 + d;
          digits = TRUE;
          p->pos++;
        }
      if (!digits)
        return fail (p, "expected a non-negative dimension");
      if (p->pos < p->len && p->text[p->pos] == 'L') /* Python 2 longs */
        p->pos++;
      if (*n_dims >= NPY_MAX_DIMS)
        return fail (p, "more than 16 dimensions");
      sizes[(*n_dims)++] = (gint64) value;
      if (accept (p, ')'))
        return TRUE;
      if (!expect (p, ','))
        return FALSE;
      if (accept (p, ')'))
        return TRUE;
    }
}

static gboolean
parse_header (Parser *p, char **descr, gboolean *fortran_order, gint64 *sizes, gsize *n_dims)
{
  gboolean have_descr = FALSE, have_order = FALSE, have_shape = FALSE;

  if (!expect (p, '{'))
    return FALSE;
  while (!accept (p, '}'))
    {
      g_autofree char *key = NULL;

      if (!parse_string (p, &key) || !expect (p, ':'))
        return FALSE;
      if (g_str_equal (key, "descr") && !have_descr)
        {
          skip_ws (p);
          if (p->pos < p->len && (p->text[p->pos] == '[' || p->text[p->pos] == '('))
            return fail (p, "structured dtypes are not supported");
          if (!parse_string (p, descr))
            return FALSE;
          have_descr = TRUE;
        }
      else if (g_str_equal (key, "fortran_order") && !have_order)
        {
          if (!parse_bool (p, fortran_order))
            return FALSE;
          have_order = TRUE;
        }
      else if (g_str_equal (key, "shape") && !have_shape)
        {
          if (!parse_shape (p, sizes, n_dims))
            return FALSE;
          have_shape = TRUE;
        }
      else
        return fail (p, "unexpected or repeated key");
      if (accept (p, '}'))
        break;
      if (!expect (p, ','))
        return FALSE;
    }
  skip_ws (p);
  if (p->pos != p->len)
    return fail (p, "trailing characters after the dictionary");
  if (!have_descr || !have_order || !have_shape)
    return fail (p, "'descr', 'fortran_order' and 'shape' are all required");
  return TRUE;
}

gboolean
npy_parse (GBytes *file, NpyArray *array, GError **error)
{
  gsize size, header_len, offset, element_size = 0;
  const guint8 *data = g_bytes_get_data (file, &size);
  g_autofree char *descr = NULL;
  gboolean fortran_order = FALSE;
  guint8 major;
  Parser p = { 0 };
  gint64 numel = 1;
  guint64 nbytes;
  int type = -1;

  memset (array, 0, sizeof *array);
  if (size < 10 || memcmp (data, "\x93NUMPY", 6) != 0)
    {
      g_set_error_literal (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT, "not a .npy file");
      return FALSE;
    }
  major = data[6];
  if (major == 1)
    {
      header_len = data[8] | ((gsize) data[9] << 8);
      offset = 10;
    }
  else if (major == 2 || major == 3)
    {
      if (size < 12)
        {
          g_set_error_literal (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT, "truncated .npy header");
          return FALSE;
        }
      header_len = data[8] | ((gsize) data[9] << 8) | ((gsize) data[10] << 16) | ((gsize) data[11] << 24);
      offset = 12;
    }
  else
    {
      g_set_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED,
                   ".npy format version %u.%u is not supported", major, data[7]);
      return FALSE;
    }
  if (header_len > size - offset)
    {
      g_set_error_literal (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT, "truncated .npy header");
      return FALSE;
    }
  if (memchr (data + offset, '\0', header_len) != NULL)
    {
      g_set_error_literal (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT,
                           "malformed .npy header: NUL byte");
      return FALSE;
    }

  p.text = (const char *) data + offset;
  p.len = header_len;
  p.error = error;
  if (!parse_header (&p, &descr, &fortran_order, array->sizes, &array->n_dims))
    return FALSE;
  if (fortran_order)
    {
      g_set_error_literal (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED,
                           "Fortran-order .npy files are not supported; save a C-order array");
      return FALSE;
    }

  if (strlen (descr) == 3)
    for (gsize i = 0; i < G_N_ELEMENTS (npy_types); i++)
      if (strcmp (descr + 1, npy_types[i].descr) == 0)
        {
          char order = descr[0];
          gboolean one_byte = npy_types[i].size == 1;

          if (order == '|' ? !one_byte : !(order == '<' || order == '=' || (order == '>' && one_byte)))
            break;
#if G_BYTE_ORDER != G_LITTLE_ENDIAN
          if (order == '<' && !one_byte)
            break;
#endif
          type = npy_types[i].type;
          element_size = npy_types[i].size;
        }
  if (type < 0)
    {
      g_autofree char *shown = g_utf8_make_valid (descr, -1);
      g_set_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED,
                   ".npy dtype '%s' is not supported (little-endian bool, int, uint and float only)", shown);
      return FALSE;
    }

  for (gsize i = 0; i < array->n_dims; i++)
    {
      if (array->sizes[i] != 0 && numel > G_MAXINT64 / array->sizes[i])
        {
          g_set_error_literal (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT, ".npy shape too large");
          return FALSE;
        }
      numel *= array->sizes[i];
    }
  if ((guint64) numel > G_MAXUINT64 / element_size)
    {
      g_set_error_literal (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT, ".npy shape too large");
      return FALSE;
    }
  nbytes = (guint64) numel * element_size;
  offset += header_len;
  if (nbytes != size - offset)
    {
      g_set_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT,
                   ".npy data holds %" G_GSIZE_FORMAT " bytes but the shape needs %" G_GUINT64_FORMAT, size - offset,
                   nbytes);
      return FALSE;
    }
  array->scalar_type = (ExecutorchScalarType) type;
  array->numel = numel;
  array->data = g_bytes_new_from_bytes (file, offset, (gsize) nbytes);
  return TRUE;
}

gboolean
npy_read_file (const char *path, NpyArray *array, GError **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *shown = g_filename_display_name (path);
  g_autoptr (GError) local = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gsize length;

  memset (array, 0, sizeof *array);
  if (!g_file_get_contents (path, &contents, &length, &local))
    {
      g_set_error_literal (error, G_IO_ERROR, g_io_error_from_file_error (local->code), local->message);
      return FALSE;
    }
  bytes = g_bytes_new_take (g_steal_pointer (&contents), length);
  if (!npy_parse (bytes, array, error))
    {
      g_prefix_error (error, "%s: ", shown);
      return FALSE;
    }
  return TRUE;
}

GBytes *
npy_encode (ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims, const void *data, gsize nbytes,
            GError **error)
{
  const char *descr = npy_descr_for (scalar_type);
  GString *header;
  GByteArray *out;
  gsize total;
  guint8 prefix[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0 };

  if (descr == NULL)
    {
      g_set_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED, "%s tensors cannot be saved as .npy",
                   executorch_scalar_type_to_string (scalar_type) != NULL
                       ? executorch_scalar_type_to_string (scalar_type)
                       : "unknown");
      return NULL;
    }
  header = g_string_new (NULL);
  g_string_append_printf (header, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (gsize i = 0; i < n_dims; i++)
    g_string_append_printf (header, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", sizes[i]);
  g_string_append (header, n_dims == 1 ? ",), }" : "), }");
  /* Pad so that the data starts on a 64-byte boundary. */
  total = sizeof prefix + header->len + 1;
  while (total % 64 != 0)
    {
      g_string_append_c (header, ' ');
      total++;
    }
  g_string_append_c (header, '\n');
  if (header->len > G_MAXUINT16)
    {
      g_string_free (header, TRUE);
      g_set_error_literal (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED, ".npy header too long");
      return NULL;
    }
  prefix[8] = header->len & 0xff;
  prefix[9] = (header->len >> 8) & 0xff;

  out = g_byte_array_sized_new (sizeof prefix + header->len + nbytes);
  g_byte_array_append (out, prefix, sizeof prefix);
  g_byte_array_append (out, (const guint8 *) header->str, header->len);
  if (nbytes > 0)
    g_byte_array_append (out, data, nbytes);
  g_string_free (header, TRUE);
  return g_byte_array_free_to_bytes (out);
}

gboolean
npy_write_file (const char *path, ExecutorchScalarType scalar_type, const gint64 *sizes, gsize n_dims, const void *data,
                gsize nbytes, GError **error)
{
  g_autoptr (GBytes) bytes = npy_encode (scalar_type, sizes, n_dims, data, nbytes, error);
  gsize size;
  const char *contents;
  FILE *file;

  if (bytes == NULL)
    {
      g_autofree char *shown = g_filename_display_name (path);
      g_prefix_error (error, "%s: ", shown);
      return FALSE;
    }
  contents = g_bytes_get_data (bytes, &size);
  file = fopen (path, "wb");
  if (file == NULL || fwrite (contents, 1, size, file) != size || fflush (file) != 0)
    {
      int saved = errno;
      g_autofree char *shown = g_filename_display_name (path);

      if (file != NULL)
        fclose (file);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", shown, g_strerror (saved));
      return FALSE;
    }
  if (fclose (file) != 0)
    {
      int saved = errno;
      g_autofree char *shown = g_filename_display_name (path);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", shown, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}
