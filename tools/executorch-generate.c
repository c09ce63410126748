/* executorch-generate: generate text with an exported language model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch-llm.h>
#include <executorch-threadpool.h>

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define PROGRAM_NAME "executorch-generate"

enum
{
  EXIT_USAGE = CLI_EXIT_USAGE,
  EXIT_INTERRUPTED = 130
};

static char *opt_tokenizer = NULL;
static char *opt_prompt = NULL;
static char *opt_template = NULL;
static char *opt_max_new_tokens = NULL;
static char *opt_temperature = NULL;
static char *opt_top_p = NULL;
static char *opt_top_k = NULL;
static char *opt_seed = NULL;
static char *opt_threads = NULL;
static char *opt_bos = NULL;
static char **opt_data = NULL;
static char **opt_stop = NULL;
static gboolean opt_stats = FALSE;
static gboolean opt_chat = FALSE;
static gboolean opt_echo = FALSE;
static gboolean opt_ignore_eos = FALSE;
static gboolean opt_quiet = FALSE;
static gboolean opt_version = FALSE;
static char **opt_rest = NULL;

/* Numbers are taken as strings and parsed here, so that a bad one is named
 * with its option in the usual one-line form (GOption's own messages do
 * not say what range is allowed). */
static const GOptionEntry entries[] = {
  { "tokenizer", 'k', 0, G_OPTION_ARG_FILENAME, &opt_tokenizer,
    "Tokenizer file: tokenizer.json, tiktoken, SentencePiece .model or llama2.c .bin (required)", "FILE" },
  { "prompt", 'p', 0, G_OPTION_ARG_STRING, &opt_prompt, "Text to continue; - reads it from standard input", "TEXT" },
  { "template", 0, 0, G_OPTION_ARG_STRING, &opt_template,
    "Wrap each prompt: {prompt} in TEXT is replaced by it; \\n and other C escapes are understood", "TEXT" },
  { "max-new-tokens", 'n', 0, G_OPTION_ARG_STRING, &opt_max_new_tokens,
    "Most tokens to generate (default: -1, until the end of sequence or of the context)", "N" },
  { "temperature", 0, 0, G_OPTION_ARG_STRING, &opt_temperature, "Sampling temperature; 0 is greedy (default: 0.8)",
    "T" },
  { "top-p", 0, 0, G_OPTION_ARG_STRING, &opt_top_p,
    "Nucleus sampling: keep the likeliest tokens up to P (default: 0.9)", "P" },
  { "top-k", 0, 0, G_OPTION_ARG_STRING, &opt_top_k, "Keep only the K likeliest tokens; 0 keeps all (default: 0)", "K" },
  { "seed", 0, 0, G_OPTION_ARG_STRING, &opt_seed,
    "Seed of the sampler; the same seed gives the same text (default: "
    "from the clock)",
    "S" },
  { "bos", 0, 0, G_OPTION_ARG_STRING, &opt_bos,
    "Beginning-of-sequence tokens put before the prompt; with --chat, at the start of each conversation "
    "(default: 0)",
    "N" },
  { "stop", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_stop, "End the text before STRING (may be repeated)", "STRING" },
  { "ignore-eos", 0, 0, G_OPTION_ARG_NONE, &opt_ignore_eos, "Go on past end-of-sequence tokens", NULL },
  { "echo", 0, 0, G_OPTION_ARG_NONE, &opt_echo, "Write the prompt before the generated text", NULL },
  { "chat", 'c', 0, G_OPTION_ARG_NONE, &opt_chat,
    "Read prompts from standard input, one a line, in one conversation (/reset starts over, /quit ends)", NULL },
  { "data", 'd', 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_data, "External data file (.ptd) of the program", "FILE.ptd" },
  { "threads", 't', 0, G_OPTION_ARG_STRING, &opt_threads,
    "CPU threads for kernels (default: EXECUTORCH_NUM_THREADS or the number of CPUs)", "N" },
  { "stats", 's', 0, G_OPTION_ARG_NONE, &opt_stats,
    "After each generation, write its timings and token counts to standard error", NULL },
  { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "Print nothing on standard error but errors", NULL },
  { "version", 0, 0, G_OPTION_ARG_NONE, &opt_version, "Print the version and exit", NULL },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_rest, NULL, "MODEL.pte" },
  { NULL }
};

/* The generator a Ctrl-C stops, while it generates. */
static ExecutorchLlmGenerator *interruptible = NULL;
static volatile sig_atomic_t interrupted = 0;
/* Whether the last piece written ended a line. */
static gboolean at_line_start = TRUE;

static void
print_error (const GError *error)
{
  fprintf (stderr, "%s: %s\n", PROGRAM_NAME, error->message);
}

/* ---- numbers ------------------------------------------------------------ */

static gboolean
parse_int64 (const char *text, gint64 min, gint64 max, gint64 *value)
{
  char *end = NULL;

  if (text == NULL || text[0] == '\0' || g_ascii_isspace (text[0]))
    return FALSE;
  errno = 0;
  *value = g_ascii_strtoll (text, &end, 10);
  return errno == 0 && *end == '\0' && *value >= min && *value <= max;
}

static gboolean
parse_double (const char *text, gdouble min, gdouble max, gdouble *value)
{
  char *end = NULL;

  if (text == NULL || text[0] == '\0' || g_ascii_isspace (text[0]))
    return FALSE;
  errno = 0;
  *value = g_ascii_strtod (text, &end);
  return errno == 0 && *end == '\0' && *value >= min && *value <= max; /* NaN fails both */
}

/* Fills @config from the options; a usage error's exit status, or 0. */
static int
config_from_options (ExecutorchLlmGenerationConfig *config)
{
  gint64 n;
  gdouble x;

  if (opt_max_new_tokens != NULL)
    {
      if (!parse_int64 (opt_max_new_tokens, -1, G_MAXINT, &n) || n == 0)
        return cli_usage_error (PROGRAM_NAME, "--max-new-tokens must be a positive whole number or -1, not “%s”",
                                opt_max_new_tokens);
      executorch_llm_generation_config_set_max_new_tokens (config, (gint) n);
    }
  if (opt_temperature != NULL)
    {
      if (!parse_double (opt_temperature, 0.0, 1e6, &x))
        return cli_usage_error (PROGRAM_NAME, "--temperature must be a number, 0 or more, not “%s”", opt_temperature);
      executorch_llm_generation_config_set_temperature (config, x);
    }
  if (opt_top_p != NULL)
    {
      if (!parse_double (opt_top_p, 0.0, 1.0, &x) || x == 0.0)
        return cli_usage_error (PROGRAM_NAME, "--top-p must be a number above 0 and at most 1, not “%s”", opt_top_p);
      executorch_llm_generation_config_set_top_p (config, x);
    }
  if (opt_top_k != NULL)
    {
      if (!parse_int64 (opt_top_k, 0, G_MAXUINT, &n))
        return cli_usage_error (PROGRAM_NAME, "--top-k must be a whole number, 0 or more, not “%s”", opt_top_k);
      executorch_llm_generation_config_set_top_k (config, (guint) n);
    }
  if (opt_seed != NULL)
    {
      if (!parse_int64 (opt_seed, 0, G_MAXINT64, &n))
        return cli_usage_error (PROGRAM_NAME, "--seed must be a whole number, 0 or more, not “%s”", opt_seed);
      executorch_llm_generation_config_set_seed (config, n);
    }
  if (opt_bos != NULL)
    {
      if (!parse_int64 (opt_bos, 0, 16, &n))
        return cli_usage_error (PROGRAM_NAME, "--bos must be a whole number from 0 to 16, not “%s”", opt_bos);
      executorch_llm_generation_config_set_n_bos (config, (guint) n);
    }
  if (opt_stop != NULL)
    {
      for (guint i = 0; opt_stop[i] != NULL; i++)
        if (opt_stop[i][0] == '\0')
          return cli_usage_error (PROGRAM_NAME, "--stop needs a string that is not empty");
      executorch_llm_generation_config_set_stop_strings (config, (const char *const *) opt_stop);
    }
  executorch_llm_generation_config_set_ignore_eos (config, opt_ignore_eos);
  executorch_llm_generation_config_set_echo (config, opt_echo);
  return 0;
}

/* ---- output -------------------------------------------------------------- */

static void
on_text (ExecutorchLlmGenerator *generator, const char *text, gpointer user_data)
{
  gsize length = strlen (text);

  fwrite (text, 1, length, stdout);
  fflush (stdout);
  if (length > 0)
    at_line_start = text[length - 1] == '\n';
}

static void
on_interrupt (int signum)
{
  interrupted = 1;
  if (interruptible != NULL)
    executorch_llm_generator_stop (interruptible); /* sets an atomic flag */
}

static void
print_stats (ExecutorchLlmGenerator *generator)
{
  g_autoptr (ExecutorchLlmStats) stats = executorch_llm_generator_get_stats (generator);
  g_autofree char *json = executorch_llm_stats_to_json (stats);
  g_autoptr (GEnumClass) reasons = g_type_class_ref (EXECUTORCH_LLM_TYPE_STOP_REASON);
  GEnumValue *reason = g_enum_get_value (reasons, executorch_llm_generator_get_stop_reason (generator));

  fprintf (stderr, "prompt_tokens: %" G_GINT64_FORMAT "\n", stats->num_prompt_tokens);
  fprintf (stderr, "generated_tokens: %" G_GINT64_FORMAT "\n", stats->num_generated_tokens);
  fprintf (stderr, "model_load_time_ms: %" G_GINT64_FORMAT "\n", stats->model_load_end_ms - stats->model_load_start_ms);
  fprintf (stderr, "time_to_first_token_ms: %" G_GINT64_FORMAT "\n",
           executorch_llm_stats_get_time_to_first_token_ms (stats));
  fprintf (stderr, "inference_time_ms: %" G_GINT64_FORMAT "\n", stats->inference_end_ms - stats->inference_start_ms);
  fprintf (stderr, "prefill_token_per_sec: %.2f\n", executorch_llm_stats_get_prefill_tokens_per_second (stats));
  fprintf (stderr, "decode_token_per_sec: %.2f\n", executorch_llm_stats_get_decode_tokens_per_second (stats));
  fprintf (stderr, "aggregate_model_execution_time_ms: %" G_GINT64_FORMAT "\n",
           stats->aggregate_model_execution_time_ms);
  fprintf (stderr, "aggregate_sampling_time_ms: %" G_GINT64_FORMAT "\n", stats->aggregate_sampling_time_ms);
  fprintf (stderr, "position: %u\n", executorch_llm_generator_get_position (generator));
  fprintf (stderr, "stop_reason: %s\n", reason != NULL ? reason->value_nick : "?");
  fprintf (stderr, "PyTorchObserver %s\n", json);
}

/* ---- generation ------------------------------------------------------------ */

/* @prompt inside --template, or @prompt itself. */
static char *
apply_template (const char *prompt)
{
  g_autofree char *format = NULL;
  g_auto (GStrv) parts = NULL;

  if (opt_template == NULL)
    return g_strdup (prompt);
  format = g_strcompress (opt_template);
  parts = g_strsplit (format, "{prompt}", -1);
  return g_strjoinv (prompt, parts);
}

/* One generation, its text streamed to standard output and ended by a
 * newline; FALSE with @error set when it failed. */
static gboolean
generate_one (ExecutorchLlmGenerator *generator, const char *prompt, ExecutorchLlmGenerationConfig *config,
              GError **error)
{
  g_autofree char *text = NULL;
  g_autofree char *wrapped = apply_template (prompt);
  g_autoptr (ExecutorchLlmGenerationConfig) later_turn = NULL;

  /* A conversation begins with the BOS tokens once, not at every turn. */
  if (opt_chat && executorch_llm_generator_get_position (generator) > 0 &&
      executorch_llm_generation_config_get_n_bos (config) > 0)
    {
      later_turn = executorch_llm_generation_config_copy (config);
      executorch_llm_generation_config_set_n_bos (later_turn, 0);
      config = later_turn;
    }
  interrupted = 0;
  interruptible = generator;
  text = executorch_llm_generator_generate (generator, wrapped, config, NULL, error);
  interruptible = NULL;
  /* The text ends with a newline, as upstream's runner ends it; a failed
   * one only if it had begun. */
  if (text != NULL || !at_line_start)
    fputc ('\n', stdout);
  at_line_start = TRUE;
  fflush (stdout);
  if (text == NULL)
    return FALSE;
  if (opt_stats)
    print_stats (generator);
  if (!opt_quiet && executorch_llm_generator_get_stop_reason (generator) == EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL)
    fprintf (stderr, "%s: the context is full (%u tokens)%s\n", PROGRAM_NAME,
             executorch_llm_generator_get_position (generator), opt_chat ? "; /reset starts a new conversation" : "");
  return TRUE;
}

/* Standard input up to its end, without one final line break. */
static char *
read_all_stdin (GError **error)
{
  GString *text = g_string_new (NULL);
  char buffer[4096];
  size_t n;

  while ((n = fread (buffer, 1, sizeof buffer, stdin)) > 0)
    g_string_append_len (text, buffer, (gssize) n);
  if (ferror (stdin))
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "cannot read the prompt from standard input: %s",
                   g_strerror (errno));
      g_string_free (text, TRUE);
      return NULL;
    }
  if (g_str_has_suffix (text->str, "\r\n"))
    g_string_truncate (text, text->len - 2);
  else if (g_str_has_suffix (text->str, "\n"))
    g_string_truncate (text, text->len - 1);
  return g_string_free (text, FALSE);
}

/* One line of standard input without its line break, or NULL at its end. */
static char *
read_line (void)
{
  GString *line = g_string_new (NULL);
  int c;

  while ((c = getchar ()) != EOF && c != '\n')
    g_string_append_c (line, (char) c);
  if (c == EOF && (line->len == 0 || interrupted)) /* Ctrl-C drops a line being typed */
    {
      g_string_free (line, TRUE);
      return NULL;
    }
  if (line->len > 0 && line->str[line->len - 1] == '\r')
    g_string_truncate (line, line->len - 1);
  return g_string_free (line, FALSE);
}

/* Whether a failed turn leaves the conversation usable: the prompt did not
 * fit, or was not text the tokenizer takes.  Model failures end the chat. */
static gboolean
is_turn_error (const GError *error)
{
  return error->domain == EXECUTORCH_LLM_TOKENIZER_ERROR ||
         g_error_matches (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_PROMPT_TOO_LONG) ||
         g_error_matches (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_CONTEXT_FULL) ||
         g_error_matches (error, EXECUTORCH_LLM_GENERATOR_ERROR, EXECUTORCH_LLM_GENERATOR_ERROR_EMPTY_PROMPT);
}

/* --chat: each line of standard input is a turn of one conversation (the KV
 * cache goes on from turn to turn); /reset starts over, /quit or the end of
 * the input ends.  A turn that does not fit is reported and the chat goes
 * on; a Ctrl-C stops the turn that runs, or at the prompt, ends. */
static int
run_chat (ExecutorchLlmGenerator *generator, ExecutorchLlmGenerationConfig *config)
{
  gboolean interactive = isatty (STDIN_FILENO) && !opt_quiet;

  if (interactive)
    fprintf (stderr, "%s: one prompt a line; /reset starts a new conversation, /quit or Ctrl-D ends\n", PROGRAM_NAME);
  if (opt_prompt != NULL)
    {
      g_autoptr (GError) error = NULL;

      if (!generate_one (generator, opt_prompt, config, &error))
        {
          print_error (error);
          if (!is_turn_error (error))
            return EXIT_FAILURE;
        }
    }
  for (;;)
    {
      g_autofree char *line = NULL;
      g_autoptr (GError) error = NULL;

      if (interactive)
        {
          fputs ("> ", stderr);
          fflush (stderr);
        }
      interrupted = 0;
      line = read_line ();
      if (line == NULL || g_str_equal (line, "/quit"))
        break;
      if (g_str_equal (line, "/reset"))
        {
          executorch_llm_generator_reset (generator);
          if (interactive)
            fprintf (stderr, "%s: new conversation\n", PROGRAM_NAME);
          continue;
        }
      if (line[0] == '\0')
        continue;
      if (!generate_one (generator, line, config, &error))
        {
          print_error (error);
          if (!is_turn_error (error))
            return EXIT_FAILURE;
        }
    }
  if (interrupted)
    return EXIT_INTERRUPTED;
  return EXIT_SUCCESS;
}

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchLlmTokenizer) tokenizer = NULL;
  g_autoptr (ExecutorchLlmGenerator) generator = NULL;
  g_autoptr (ExecutorchLlmGenerationConfig) config = NULL;
  g_autofree char *stdin_prompt = NULL;
  g_auto (GStrv) args = NULL;
  const char *model;
  gint64 threads = 0;
  struct sigaction action = { 0 };
  int status;

  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C"); /* numbers are read and written in C form */

  context = g_option_context_new ("");
  g_option_context_set_summary (context, "Generates text with a language model exported by ExecuTorch's export_llama,\n"
                                         "writing it to standard output as it comes.");
  g_option_context_set_description (context,
                                    "Only the generated text goes to standard output (the prompt too with --echo),\n"
                                    "followed by a newline; --stats writes timings to standard error, ending with\n"
                                    "upstream's \"PyTorchObserver {...}\" line. MODEL.ptd beside MODEL.pte is used\n"
                                    "when no --data is given. With --chat, each line of standard input is a turn\n"
                                    "of one conversation: a line \"/reset\" starts over, \"/quit\" or the end of\n"
                                    "the input ends; Ctrl-C stops the text being generated.\n"
                                    "Exit status: 0 on success, 1 on failure, 2 on usage errors, 130 when\n"
                                    "interrupted.");
  g_option_context_add_main_entries (context, entries, NULL);
  args = g_strdupv (argv);
  if (!g_option_context_parse_strv (context, &args, &error))
    return cli_usage_error (PROGRAM_NAME, "%s", error->message);

  if (opt_version)
    {
      printf ("%s %s\n", PROGRAM_NAME, executorch_get_version ());
      return EXIT_SUCCESS;
    }
  if (opt_rest == NULL || opt_rest[0] == NULL)
    return cli_usage_error (PROGRAM_NAME, "no program given");
  if (opt_rest[1] != NULL)
    return cli_usage_error (PROGRAM_NAME, "one program at a time (got “%s” after “%s”)", opt_rest[1], opt_rest[0]);
  model = opt_rest[0];
  if (opt_tokenizer == NULL)
    return cli_usage_error (PROGRAM_NAME, "no tokenizer given (--tokenizer FILE)");
  if (opt_prompt == NULL && !opt_chat)
    return cli_usage_error (PROGRAM_NAME,
                            "no prompt given (--prompt TEXT, --prompt - to read it from standard input, or --chat)");
  if (opt_chat && opt_prompt != NULL && g_str_equal (opt_prompt, "-"))
    return cli_usage_error (PROGRAM_NAME,
                            "--chat reads its prompts from standard input; --prompt - cannot be combined with it");
  if (opt_threads != NULL && !parse_int64 (opt_threads, 0, 1024, &threads))
    return cli_usage_error (PROGRAM_NAME, "--threads must be a whole number from 0 to 1024, not “%s”", opt_threads);
  config = executorch_llm_generation_config_new ();
  status = config_from_options (config);
  if (status != 0)
    return status;
  if (opt_template != NULL && strstr (opt_template, "{prompt}") == NULL)
    return cli_usage_error (PROGRAM_NAME, "--template must hold {prompt}, where the prompt goes");
  if (opt_prompt != NULL && g_str_equal (opt_prompt, "-"))
    {
      stdin_prompt = read_all_stdin (&error);
      if (stdin_prompt == NULL)
        {
          print_error (error);
          return EXIT_FAILURE;
        }
    }
  if (threads > 0)
    executorch_threadpool_set_num_threads ((guint) threads);

  char *beside = opt_data == NULL ? cli_data_beside (model) : NULL;
  if (beside != NULL)
    {
      opt_data = g_new0 (char *, 2);
      opt_data[0] = beside;
    }

  tokenizer = executorch_llm_tokenizer_new_from_file (opt_tokenizer, &error);
  if (tokenizer == NULL)
    {
      print_error (error);
      return EXIT_FAILURE;
    }
  generator = executorch_llm_generator_new (model, (const char *const *) opt_data, tokenizer, NULL, &error);
  if (generator == NULL)
    {
      print_error (error);
      return EXIT_FAILURE;
    }
  g_signal_connect (generator, "text", G_CALLBACK (on_text), NULL);

  action.sa_handler = on_interrupt;
  sigemptyset (&action.sa_mask);
  sigaction (SIGINT, &action, NULL);

  if (opt_chat)
    return run_chat (generator, config);
  if (!generate_one (generator, stdin_prompt != NULL ? stdin_prompt : opt_prompt, config, &error))
    {
      print_error (error);
      return EXIT_FAILURE;
    }
  return interrupted ? EXIT_INTERRUPTED : EXIT_SUCCESS;
}
