/* executorch-llm-tokenizer.c: the GObject face of the tokenizers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "executorch-llm-tokenizer-private.h"
#include "executorch-llm-enum-types.h"

/**
 * ExecutorchLlmTokenizer:
 *
 * Turns text into the token ids a language model takes, and ids back into
 * text, reading the tokenizer files that upstream ExecuTorch's text runner
 * reads: a Hugging Face `tokenizer.json` (or a folder holding one), a
 * tiktoken file, a SentencePiece `.model` or a llama2.c `tokenizer.bin`.
 *
 * ```c
 * g_autoptr (ExecutorchLlmTokenizer) tokenizer =
 *     executorch_llm_tokenizer_new_from_file ("tokenizer.json", &error);
 * gsize n_ids;
 * g_autofree guint32 *ids =
 *     executorch_llm_tokenizer_encode (tokenizer, "Hello", 1, 0, &n_ids, &error);
 * ```
 *
 * Encoding follows upstream's tokenizers (`meta-pytorch/tokenizers`), so a
 * prompt gives the ids upstream's runner feeds the model.  The file is
 * untrusted input: every length, count and id read from it is checked, and
 * a bad file gives a #GError in %EXECUTORCH_LLM_TOKENIZER_ERROR naming what
 * is wrong.
 *
 * A tokenizer is immutable once made: it may be shared between threads and
 * generators.
 *
 * Since: 1.0
 */
struct _ExecutorchLlmTokenizer
{
  GObject parent_instance;
  LlmTokenizerImpl *impl;
};

enum
{
  PROP_0,
  PROP_FORMAT,
  PROP_VOCAB_SIZE,
  PROP_BOS_ID,
  PROP_EOS_ID,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (ExecutorchLlmTokenizer, executorch_llm_tokenizer, G_TYPE_OBJECT)

/* The public enumerations carry the internal values. */
G_STATIC_ASSERT ((int) EXECUTORCH_LLM_TOKENIZER_FORMAT_AUTO == (int) LLM_TOKENIZER_FORMAT_AUTO);
G_STATIC_ASSERT ((int) EXECUTORCH_LLM_TOKENIZER_FORMAT_HUGGING_FACE == (int) LLM_TOKENIZER_FORMAT_HUGGING_FACE);
G_STATIC_ASSERT ((int) EXECUTORCH_LLM_TOKENIZER_FORMAT_TIKTOKEN == (int) LLM_TOKENIZER_FORMAT_TIKTOKEN);
G_STATIC_ASSERT ((int) EXECUTORCH_LLM_TOKENIZER_FORMAT_SENTENCEPIECE == (int) LLM_TOKENIZER_FORMAT_SENTENCEPIECE);
G_STATIC_ASSERT ((int) EXECUTORCH_LLM_TOKENIZER_FORMAT_LLAMA2C == (int) LLM_TOKENIZER_FORMAT_LLAMA2C);
G_STATIC_ASSERT ((int) EXECUTORCH_LLM_TOKENIZER_ERROR_MALFORMED == (int) LLM_TOKENIZER_ERROR_MALFORMED);
G_STATIC_ASSERT ((int) EXECUTORCH_LLM_TOKENIZER_ERROR_UNSUPPORTED == (int) LLM_TOKENIZER_ERROR_UNSUPPORTED);
G_STATIC_ASSERT ((int) EXECUTORCH_LLM_TOKENIZER_ERROR_UNKNOWN_FORMAT == (int) LLM_TOKENIZER_ERROR_UNKNOWN_FORMAT);
G_STATIC_ASSERT ((int) EXECUTORCH_LLM_TOKENIZER_ERROR_INVALID_TOKEN == (int) LLM_TOKENIZER_ERROR_INVALID_TOKEN);
G_STATIC_ASSERT ((int) EXECUTORCH_LLM_TOKENIZER_ERROR_INVALID_TEXT == (int) LLM_TOKENIZER_ERROR_INVALID_TEXT);

/**
 * executorch_llm_tokenizer_error_quark:
 *
 * The quark of %EXECUTORCH_LLM_TOKENIZER_ERROR.
 *
 * Returns: the error domain of tokenizers
 *
 * Since: 1.0
 */
GQuark
executorch_llm_tokenizer_error_quark (void)
{
  return LLM_TOKENIZER_ERROR;
}

static void
executorch_llm_tokenizer_finalize (GObject *object)
{
  ExecutorchLlmTokenizer *self = EXECUTORCH_LLM_TOKENIZER (object);
  g_clear_pointer (&self->impl, _llm_tokenizer_free);
  G_OBJECT_CLASS (executorch_llm_tokenizer_parent_class)->finalize (object);
}

static void
executorch_llm_tokenizer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  ExecutorchLlmTokenizer *self = EXECUTORCH_LLM_TOKENIZER (object);
  switch (prop_id)
    {
      case PROP_FORMAT: g_value_set_enum (value, executorch_llm_tokenizer_get_format (self)); break;
      case PROP_VOCAB_SIZE: g_value_set_uint (value, executorch_llm_tokenizer_get_vocab_size (self)); break;
      case PROP_BOS_ID: g_value_set_int64 (value, executorch_llm_tokenizer_get_bos_id (self)); break;
      case PROP_EOS_ID: g_value_set_int64 (value, executorch_llm_tokenizer_get_eos_id (self)); break;
      default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
executorch_llm_tokenizer_class_init (ExecutorchLlmTokenizerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = executorch_llm_tokenizer_finalize;
  object_class->get_property = executorch_llm_tokenizer_get_property;

  /**
   * ExecutorchLlmTokenizer:format:
   *
   * The format of the file the tokenizer was read from (never
   * %EXECUTORCH_LLM_TOKENIZER_FORMAT_AUTO once made).
   *
   * Since: 1.0
   */
  properties[PROP_FORMAT] =
      g_param_spec_enum ("format", NULL, NULL, EXECUTORCH_LLM_TYPE_TOKENIZER_FORMAT,
                         EXECUTORCH_LLM_TOKENIZER_FORMAT_AUTO, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * ExecutorchLlmTokenizer:vocab-size:
   *
   * The number of tokens, regular and special: every id is below it.
   *
   * Since: 1.0
   */
  properties[PROP_VOCAB_SIZE] =
      g_param_spec_uint ("vocab-size", NULL, NULL, 0, G_MAXUINT32, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * ExecutorchLlmTokenizer:bos-id:
   *
   * The beginning-of-sequence token the file names, or -1 when it names none.
   *
   * Since: 1.0
   */
  properties[PROP_BOS_ID] =
      g_param_spec_int64 ("bos-id", NULL, NULL, -1, G_MAXUINT32, -1, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * ExecutorchLlmTokenizer:eos-id:
   *
   * The end-of-sequence token the file names, or -1 when it names none.
   * A generator stops on it unless the program names its own EOS ids
   * (`get_eos_ids`).
   *
   * Since: 1.0
   */
  properties[PROP_EOS_ID] =
      g_param_spec_int64 ("eos-id", NULL, NULL, -1, G_MAXUINT32, -1, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
executorch_llm_tokenizer_init (ExecutorchLlmTokenizer *self)
{
}

ExecutorchLlmTokenizer *
_executorch_llm_tokenizer_new_for_impl (LlmTokenizerImpl *impl)
{
  ExecutorchLlmTokenizer *self = g_object_new (EXECUTORCH_LLM_TYPE_TOKENIZER, NULL);
  self->impl = impl;
  return self;
}

LlmTokenizerImpl *
_executorch_llm_tokenizer_get_impl (ExecutorchLlmTokenizer *tokenizer)
{
  return tokenizer->impl;
}

/**
 * executorch_llm_tokenizer_new_from_file:
 * @path: (type filename): a tokenizer file, or a folder holding `tokenizer.json`
 * @error: return location for a #GError, or %NULL
 *
 * Reads a tokenizer, detecting its format from the file's first bytes
 * (JSON: Hugging Face; a protobuf: SentencePiece; `<base64> <rank>` lines:
 * tiktoken; otherwise llama2.c).  The file is mapped, read once and not
 * kept open.
 *
 * Returns: (transfer full) (nullable): the tokenizer, or %NULL with @error
 *   set (a #GFileError when the file cannot be read, otherwise
 *   %EXECUTORCH_LLM_TOKENIZER_ERROR)
 *
 * Since: 1.0
 */
ExecutorchLlmTokenizer *
executorch_llm_tokenizer_new_from_file (const char *path, GError **error)
{
  return executorch_llm_tokenizer_new_from_file_with_format (path, EXECUTORCH_LLM_TOKENIZER_FORMAT_AUTO, error);
}

/**
 * executorch_llm_tokenizer_new_from_file_with_format:
 * @path: (type filename): a tokenizer file, or a folder holding `tokenizer.json`
 * @format: the file's format, or %EXECUTORCH_LLM_TOKENIZER_FORMAT_AUTO to detect it
 * @error: return location for a #GError, or %NULL
 *
 * Reads a tokenizer of a given format: a file that is not of @format
 * fails rather than being read as another.  A folder gives its
 * `tokenizer.json` (with the `tokenizer_config.json` beside it, which names
 * the BOS and EOS tokens).
 *
 * Returns: (transfer full) (nullable): the tokenizer, or %NULL with @error set
 *
 * Since: 1.0
 */
ExecutorchLlmTokenizer *
executorch_llm_tokenizer_new_from_file_with_format (const char *path, ExecutorchLlmTokenizerFormat format,
                                                    GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  LlmTokenizerImpl *impl = _llm_tokenizer_load_path (path, (LlmTokenizerFormat) format, error);
  return impl != NULL ? _executorch_llm_tokenizer_new_for_impl (impl) : NULL;
}

/**
 * executorch_llm_tokenizer_new_from_bytes:
 * @data: the contents of a tokenizer file
 * @format: the format of @data, or %EXECUTORCH_LLM_TOKENIZER_FORMAT_AUTO to detect it
 * @error: return location for a #GError, or %NULL
 *
 * Reads a tokenizer from memory.  A `tokenizer.json` read this way has no
 * `tokenizer_config.json` beside it, so its BOS and EOS come from the file
 * alone.
 *
 * Returns: (transfer full) (nullable): the tokenizer, or %NULL with @error set
 *
 * Since: 1.0
 */
ExecutorchLlmTokenizer *
executorch_llm_tokenizer_new_from_bytes (GBytes *data, ExecutorchLlmTokenizerFormat format, GError **error)
{
  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  LlmTokenizerImpl *impl = _llm_tokenizer_load (data, "tokenizer data", (LlmTokenizerFormat) format, error);
  return impl != NULL ? _executorch_llm_tokenizer_new_for_impl (impl) : NULL;
}

/**
 * executorch_llm_tokenizer_get_format:
 * @tokenizer: a tokenizer
 *
 * Gets the format the tokenizer was read as.
 *
 * Returns: the format
 *
 * Since: 1.0
 */
ExecutorchLlmTokenizerFormat
executorch_llm_tokenizer_get_format (ExecutorchLlmTokenizer *tokenizer)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TOKENIZER (tokenizer), EXECUTORCH_LLM_TOKENIZER_FORMAT_AUTO);
  return tokenizer->impl != NULL ? (ExecutorchLlmTokenizerFormat) tokenizer->impl->format
                                 : EXECUTORCH_LLM_TOKENIZER_FORMAT_AUTO;
}

/**
 * executorch_llm_tokenizer_get_vocab_size:
 * @tokenizer: a tokenizer
 *
 * Gets the number of tokens, regular and special.
 *
 * Returns: the vocabulary size; every id is below it
 *
 * Since: 1.0
 */
guint
executorch_llm_tokenizer_get_vocab_size (ExecutorchLlmTokenizer *tokenizer)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TOKENIZER (tokenizer), 0);
  return tokenizer->impl != NULL ? tokenizer->impl->vocab_size : 0;
}

/**
 * executorch_llm_tokenizer_get_bos_id:
 * @tokenizer: a tokenizer
 *
 * Gets the beginning-of-sequence token.
 *
 * Returns: its id, or -1 when the file names none
 *
 * Since: 1.0
 */
gint64
executorch_llm_tokenizer_get_bos_id (ExecutorchLlmTokenizer *tokenizer)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TOKENIZER (tokenizer), -1);
  return tokenizer->impl != NULL ? tokenizer->impl->bos_id : -1;
}

/**
 * executorch_llm_tokenizer_get_eos_id:
 * @tokenizer: a tokenizer
 *
 * Gets the end-of-sequence token.
 *
 * Returns: its id, or -1 when the file names none
 *
 * Since: 1.0
 */
gint64
executorch_llm_tokenizer_get_eos_id (ExecutorchLlmTokenizer *tokenizer)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TOKENIZER (tokenizer), -1);
  return tokenizer->impl != NULL ? tokenizer->impl->eos_id : -1;
}

/**
 * executorch_llm_tokenizer_encode:
 * @tokenizer: a tokenizer
 * @text: UTF-8 text
 * @n_bos: how many beginning-of-sequence tokens to put first
 * @n_eos: how many end-of-sequence tokens to put last
 * @n_ids: (out): return location for the number of ids
 * @error: return location for a #GError, or %NULL
 *
 * Encodes @text.  As in upstream's tokenizers, the tiktoken, SentencePiece
 * and llama2.c formats add @n_bos and @n_eos copies of their BOS and EOS
 * tokens, while a `tokenizer.json` applies its post-processor template when
 * either count is above zero.  Special-token text in @text (such as
 * `<|eot_id|>`) becomes its id in the formats where upstream's does.
 *
 * Returns: (transfer full) (array length=n_ids) (nullable): the ids (free
 *   with g_free()), or %NULL with @error set:
 *   %EXECUTORCH_LLM_TOKENIZER_ERROR_INVALID_TEXT when @text is not UTF-8,
 *   %EXECUTORCH_LLM_TOKENIZER_ERROR_UNSUPPORTED when a BOS or EOS the
 *   tokenizer does not have is asked for.  Empty text may give no ids (a
 *   non-%NULL array with @n_ids 0).
 *
 * Since: 1.0
 */
guint32 *
executorch_llm_tokenizer_encode (ExecutorchLlmTokenizer *tokenizer, const char *text, guint n_bos, guint n_eos,
                                 gsize *n_ids, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TOKENIZER (tokenizer) && tokenizer->impl != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (n_ids != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  *n_ids = 0;
  g_autoptr (GArray) ids = g_array_new (TRUE, FALSE, sizeof (guint32));
  if (!_llm_tokenizer_encode (tokenizer->impl, text, -1, n_bos, n_eos, ids, error))
    return NULL;
  *n_ids = ids->len;
  return (guint32 *) g_array_free (g_steal_pointer (&ids), FALSE);
}

/**
 * executorch_llm_tokenizer_decode_token:
 * @tokenizer: a tokenizer
 * @previous: the token before @id, or -1 at the start of a sequence
 * @id: the token to decode
 * @error: return location for a #GError, or %NULL
 *
 * Decodes one token as upstream's runner does while streaming: some
 * formats look at the token before (SentencePiece and llama2.c drop the
 * leading space of the token after BOS).  The bytes may end inside a UTF-8
 * character, which the next token completes: join them before showing
 * them (a generator's [signal@ExecutorchLlm.Generator::text] does).
 * Special tokens decode to their text.
 *
 * Returns: (transfer full) (nullable): the token's bytes, or %NULL with
 *   @error set to %EXECUTORCH_LLM_TOKENIZER_ERROR_INVALID_TOKEN when @id is
 *   not below the vocabulary size
 *
 * Since: 1.0
 */
GBytes *
executorch_llm_tokenizer_decode_token (ExecutorchLlmTokenizer *tokenizer, gint64 previous, guint32 id, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TOKENIZER (tokenizer) && tokenizer->impl != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  guint32 prev = previous < 0 || previous > G_MAXUINT32 ? G_MAXUINT32 : (guint32) previous;
  g_autoptr (GByteArray) out = g_byte_array_new ();
  if (!_llm_tokenizer_decode (tokenizer->impl, prev, id, out, error))
    return NULL;
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

/**
 * executorch_llm_tokenizer_decode:
 * @tokenizer: a tokenizer
 * @ids: (array length=n_ids): token ids
 * @n_ids: the number of ids
 * @error: return location for a #GError, or %NULL
 *
 * Decodes a sequence of tokens, each given the one before it (the first
 * as at the start of a sequence), and joins their bytes.  Bytes that do not
 * form valid UTF-8 (a sequence ending inside a character) become U+FFFD.
 *
 * Returns: (transfer full) (nullable): the text, or %NULL with @error set
 *   when an id is outside the vocabulary
 *
 * Since: 1.0
 */
char *
executorch_llm_tokenizer_decode (ExecutorchLlmTokenizer *tokenizer, const guint32 *ids, gsize n_ids, GError **error)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TOKENIZER (tokenizer) && tokenizer->impl != NULL, NULL);
  g_return_val_if_fail (ids != NULL || n_ids == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint32 prev = G_MAXUINT32;
  for (gsize i = 0; i < n_ids; i++)
    {
      if (!_llm_tokenizer_decode (tokenizer->impl, prev, ids[i], out, error))
        return NULL;
      prev = ids[i];
    }
  /* NUL bytes would cut the string: they become U+FFFD as invalid bytes do. */
  for (guint i = 0; i < out->len; i++)
    if (out->data[i] == 0)
      out->data[i] = 0xFF;
  return g_utf8_make_valid ((const char *) out->data, out->len);
}

/**
 * executorch_llm_tokenizer_lookup:
 * @tokenizer: a tokenizer
 * @piece: the exact text of a token, special tokens included (`<|eot_id|>`)
 * @id: (out) (optional): return location for its id
 *
 * Finds the token whose text is exactly @piece: for instance a chat
 * model's end-of-turn token, to add to the EOS ids.
 *
 * Returns: %TRUE when the vocabulary has such a token
 *
 * Since: 1.0
 */
gboolean
executorch_llm_tokenizer_lookup (ExecutorchLlmTokenizer *tokenizer, const char *piece, guint32 *id)
{
  g_return_val_if_fail (EXECUTORCH_LLM_IS_TOKENIZER (tokenizer) && tokenizer->impl != NULL, FALSE);
  g_return_val_if_fail (piece != NULL, FALSE);
  guint32 found = 0;
  if (tokenizer->impl->vtable->lookup == NULL || !tokenizer->impl->vtable->lookup (tokenizer->impl, piece, &found))
    return FALSE;
  if (id != NULL)
    *id = found;
  return TRUE;
}
