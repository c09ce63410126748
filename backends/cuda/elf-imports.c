/* elf-imports.c: a bounds-checked reader of an ELF64 shared object's
 * dynamic symbols, and the import check of AOTInductor model .so files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A CUDA program carries a shared object that dlopen() would load lazily:
 * a host function it imports and we lack would abort the process the first
 * time generated code calls it, mid-run.  Reading its .dynsym first turns
 * that into an error at method load naming each missing function.  This is
 * a compatibility check, not a sandbox: the code still runs with the
 * caller's privileges once loaded.
 */
#include "cuda-private.h"

#include <string.h>

#define ELF_HEADER_SIZE 64
#define SECTION_HEADER_SIZE 64
#define SYMBOL_SIZE 24
#define SHT_STRTAB 3
#define SHT_DYNSYM 11
#define ET_DYN_TYPE 3
#if defined(__x86_64__)
#define HOST_MACHINE 62 /* EM_X86_64 */
#elif defined(__aarch64__)
#define HOST_MACHINE 183 /* EM_AARCH64 */
#else
#define HOST_MACHINE -1
#endif

static guint16
rd16 (const guint8 *p)
{
  return (guint16) (p[0] | (p[1] << 8));
}
static guint32
rd32 (const guint8 *p)
{
  return (guint32) rd16 (p) | ((guint32) rd16 (p + 2) << 16);
}
static guint64
rd64 (const guint8 *p)
{
  return (guint64) rd32 (p) | ((guint64) rd32 (p + 4) << 32);
}

/* [offset, offset + length) lies inside the file. */
static gboolean
in_file (gsize size, guint64 offset, guint64 length)
{
  return offset <= size && length <= size - offset;
}

static gboolean fail (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, g_quark_from_static_string ("executorch-cuda-elf"), 0, "model .so: %s", message);
  return FALSE;
}

gboolean
_executorch_elf_dynamic_symbols (const guint8 *data, gsize size, GPtrArray *undefined, GPtrArray *defined,
                                 GError **error)
{
  guint64 shoff, sym_offset, sym_size, str_offset, str_size;
  guint16 shentsize, shnum, machine;
  const guint8 *dynsym = NULL, *strtab;
  guint32 link;

  if (size < ELF_HEADER_SIZE || memcmp (data, "\177ELF", 4) != 0)
    return fail (error, "not an ELF file");
  if (data[4] != 2 || data[5] != 1)
    return fail (error, "not a little-endian 64-bit ELF file (class %u, data %u)", data[4], data[5]);
  if (rd16 (data + 16) != ET_DYN_TYPE)
    return fail (error, "ELF type %u is not a shared object", rd16 (data + 16));
  machine = rd16 (data + 18);
  if ((int) machine != HOST_MACHINE)
    return fail (error, "built for ELF machine %u, but this one is machine %d", machine, HOST_MACHINE);
  shoff = rd64 (data + 40);
  shentsize = rd16 (data + 58);
  shnum = rd16 (data + 60);
  if (shentsize != SECTION_HEADER_SIZE)
    return fail (error, "section header size %u, expected %u", shentsize, SECTION_HEADER_SIZE);
  if (!in_file (size, shoff, (guint64) shnum * SECTION_HEADER_SIZE))
    return fail (error,
                 "%u section headers at offset %" G_GUINT64_FORMAT " run past the end (%" G_GSIZE_FORMAT " bytes)",
                 shnum, shoff, size);

  for (guint i = 0; i < shnum; i++)
    {
      const guint8 *section = data + shoff + (guint64) i * SECTION_HEADER_SIZE;
      if (rd32 (section + 4) == SHT_DYNSYM)
        {
          dynsym = section;
          break;
        }
    }
  if (dynsym == NULL)
    return fail (error, "no dynamic symbol table (.dynsym)");
  sym_offset = rd64 (dynsym + 24);
  sym_size = rd64 (dynsym + 32);
  link = rd32 (dynsym + 40);
  if (rd64 (dynsym + 56) != SYMBOL_SIZE)
    return fail (error, ".dynsym entry size %" G_GUINT64_FORMAT ", expected %u", rd64 (dynsym + 56), SYMBOL_SIZE);
  if (!in_file (size, sym_offset, sym_size) || sym_size % SYMBOL_SIZE != 0)
    return fail (error, ".dynsym (%" G_GUINT64_FORMAT " bytes at %" G_GUINT64_FORMAT ") does not fit the file",
                 sym_size, sym_offset);
  if (link == 0 || link >= shnum)
    return fail (error, ".dynsym names string table %u of %u", link, shnum);
  strtab = data + shoff + (guint64) link * SECTION_HEADER_SIZE;
  if (rd32 (strtab + 4) != SHT_STRTAB)
    return fail (error, "section %u, the symbol names, is not a string table", link);
  str_offset = rd64 (strtab + 24);
  str_size = rd64 (strtab + 32);
  if (!in_file (size, str_offset, str_size) || str_size == 0 || data[str_offset + str_size - 1] != '\0')
    return fail (error,
                 "the symbol string table (%" G_GUINT64_FORMAT " bytes at %" G_GUINT64_FORMAT
                 ") does not fit the file or is not terminated",
                 str_size, str_offset);

  /* Entry 0 is the reserved null symbol. */
  for (guint64 pos = SYMBOL_SIZE; pos < sym_size; pos += SYMBOL_SIZE)
    {
      const guint8 *symbol = data + sym_offset + pos;
      guint32 name = rd32 (symbol);
      guint8 binding = symbol[4] >> 4;
      guint16 shndx = rd16 (symbol + 6);
      const char *text;

      if (name >= str_size)
        return fail (error,
                     "symbol %" G_GUINT64_FORMAT " names string offset %u past the table (%" G_GUINT64_FORMAT " bytes)",
                     pos / SYMBOL_SIZE, name, str_size);
      text = (const char *) data + str_offset + name;
      if (*text == '\0')
        continue;
      if (shndx == 0)
        g_ptr_array_add (undefined, g_strdup (text));
      else if (binding == 1 || binding == 2) /* GLOBAL, WEAK */
        g_ptr_array_add (defined, g_strdup (text));
    }
  return TRUE;
}

/* What upstream's backend resolves before it creates a container. */
static const char *const required_exports[] = {
  "AOTInductorModelContainerCreateWithDevice",
  "AOTInductorModelContainerDelete",
  "AOTInductorModelContainerGetNumInputs",
  "AOTInductorModelContainerGetNumOutputs",
  "AOTInductorModelContainerRun",
};

static gboolean
contains (GPtrArray *names, const char *name)
{
  for (guint i = 0; i < names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), name) == 0)
      return TRUE;
  return FALSE;
}

gboolean
_executorch_cuda_check_model (const guint8 *data, gsize size, GError **error)
{
  g_autoptr (GPtrArray) undefined = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) defined = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) missing = g_string_new (NULL);
  guint n_missing = 0;

  if (!_executorch_elf_dynamic_symbols (data, size, undefined, defined, error))
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (required_exports); i++)
    if (!contains (defined, required_exports[i]))
      g_string_append_printf (missing, "%s%s", n_missing++ ? ", " : "", required_exports[i]);
  if (n_missing > 0)
    return fail (error, "does not export the AOTInductor container function%s %s", n_missing > 1 ? "s" : "",
                 missing->str);
  for (guint i = 0; i < undefined->len; i++)
    {
      const char *name = g_ptr_array_index (undefined, i);
      if ((g_str_has_prefix (name, "aoti_") || g_str_has_prefix (name, "AOTI")) && !_aoti_shim_provided (name))
        g_string_append_printf (missing, "%s%s", n_missing++ ? ", " : "", name);
    }
  if (n_missing > 0)
    return fail (error, "imports %u host function%s this runtime does not provide: %s", n_missing,
                 n_missing > 1 ? "s" : "", missing->str);
  return TRUE;
}
