/* tokenizer-encode.c: prints the ids of texts, for comparison scripts
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: tokenizer-encode TOKENIZER TEXTS
 * TEXTS holds UTF-8 texts, each ended by a NUL byte.  For each, one line
 * on stdout: its ids separated by spaces (no BOS/EOS), or "ERROR message".
 */
#include <stdio.h>
#include <string.h>

#include "tokenizer-impl.h"

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  if (argc != 3)
    {
      fprintf (stderr, "usage: tokenizer-encode TOKENIZER TEXTS\n");
      return 2;
    }
  g_autoptr (LlmTokenizerImpl) tokenizer = _llm_tokenizer_load_path (argv[1], LLM_TOKENIZER_FORMAT_AUTO, &error);
  g_autofree char *texts = NULL;
  gsize len = 0;
  if (tokenizer == NULL || !g_file_get_contents (argv[2], &texts, &len, &error))
    {
      fprintf (stderr, "tokenizer-encode: %s\n", error->message);
      return 1;
    }
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (gsize pos = 0; pos < len;)
    {
      const char *end = memchr (texts + pos, '\0', len - pos);
      gsize n = end != NULL ? (gsize) (end - (texts + pos)) : len - pos;
      g_array_set_size (ids, 0);
      if (!_llm_tokenizer_encode (tokenizer, texts + pos, (gssize) n, 0, 0, ids, &error))
        {
          printf ("ERROR %s\n", error->message);
          g_clear_error (&error);
        }
      else
        {
          for (guint i = 0; i < ids->len; i++)
            printf ("%s%u", i > 0 ? " " : "", g_array_index (ids, guint32, i));
          printf ("\n");
        }
      pos += n + 1;
    }
  return 0;
}
