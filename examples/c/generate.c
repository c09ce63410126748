/* generate.c: streams greedy text from an exported language model.
 *
 *   cc generate.c $(pkg-config --cflags --libs executorch-llm) -o generate
 *   ./generate MODEL.pte TOKENIZER PROMPT [MAX_NEW_TOKENS]
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch-llm.h>
#include <stdio.h>
#include <stdlib.h>

static void
print_piece (ExecutorchLlmGenerator *generator, const char *piece, gpointer user_data)
{
  fputs (piece, stdout);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;

  if (argc < 4)
    {
      fprintf (stderr, "usage: %s MODEL.pte TOKENIZER PROMPT [MAX_NEW_TOKENS]\n", argv[0]);
      return 2;
    }
  g_autoptr (ExecutorchLlmTokenizer) tokenizer = executorch_llm_tokenizer_new_from_file (argv[2], &error);
  g_autoptr (ExecutorchLlmGenerator) generator =
      tokenizer ? executorch_llm_generator_new (argv[1], NULL, tokenizer, NULL, &error) : NULL;
  if (generator == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  g_autoptr (ExecutorchLlmGenerationConfig) config = executorch_llm_generation_config_new ();
  executorch_llm_generation_config_set_temperature (config, 0.0); /* greedy */
  executorch_llm_generation_config_set_max_new_tokens (config, argc > 4 ? atoi (argv[4]) : 64);
  g_signal_connect (generator, "text", G_CALLBACK (print_piece), NULL);

  g_autofree char *text = executorch_llm_generator_generate (generator, argv[3], config, NULL, &error);
  if (text == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  putchar ('\n');
  return 0;
}
