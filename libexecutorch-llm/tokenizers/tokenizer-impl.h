/* tokenizer-impl.h: the plain-C tokenizer behind ExecutorchLlmTokenizer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One LlmTokenizerImpl per loaded file.  Each format (tiktoken.c,
 * llama2c.c, hf-json.c, sentencepiece.c) reads untrusted bytes into its own
 * struct, which starts with an LlmTokenizerImpl, and fills the vtable.
 * Loaders check every length, count and id they read and fail with a GError
 * in LLM_TOKENIZER_ERROR naming the file's part that is wrong; they never
 * crash on malformed input (the fuzz targets in tests/fuzz feed them).
 *
 * Ids are guint32.  Text is UTF-8 in, bytes out: a decoded piece may end
 * inside a UTF-8 character (the generator joins pieces before emitting).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define LLM_TOKENIZER_ERROR (_llm_tokenizer_error_quark ())
GQuark _llm_tokenizer_error_quark (void);

/* Codes of LLM_TOKENIZER_ERROR; the public ExecutorchLlmTokenizerError
 * enum has the same values. */
typedef enum
{
  LLM_TOKENIZER_ERROR_MALFORMED,   /* the file is not a valid file of its format */
  LLM_TOKENIZER_ERROR_UNSUPPORTED, /* valid, but uses what we do not implement */
  LLM_TOKENIZER_ERROR_UNKNOWN_FORMAT,
  LLM_TOKENIZER_ERROR_INVALID_TOKEN, /* an id outside the vocabulary */
  LLM_TOKENIZER_ERROR_INVALID_TEXT,  /* input that is not UTF-8 */
} LlmTokenizerErrorCode;

typedef enum
{
  LLM_TOKENIZER_FORMAT_AUTO,
  LLM_TOKENIZER_FORMAT_HUGGING_FACE, /* tokenizer.json */
  LLM_TOKENIZER_FORMAT_TIKTOKEN,
  LLM_TOKENIZER_FORMAT_SENTENCEPIECE, /* .model protobuf */
  LLM_TOKENIZER_FORMAT_LLAMA2C,       /* tokenizer.bin */
} LlmTokenizerFormat;

typedef struct _LlmTokenizerImpl LlmTokenizerImpl;

typedef struct
{
  const char *name; /* "tiktoken", shown in messages */
  void (*free) (LlmTokenizerImpl *self);
  /* Appends the ids of @text (@len bytes of valid UTF-8) to @ids (guint32),
   * with @n_bos BOS and @n_eos EOS ids where the format adds them. */
  gboolean (*encode) (LlmTokenizerImpl *self, const char *text, gsize len, guint n_bos, guint n_eos, GArray *ids,
                      GError **error);
  /* Appends the bytes of @id, given the id before it (@prev, or
   * G_MAXUINT32 at the start), to @out.  @id is < vocab_size. */
  gboolean (*decode) (LlmTokenizerImpl *self, guint32 prev, guint32 id, GByteArray *out, GError **error);
  /* The id of @piece's exact text (special tokens included), or FALSE. */
  gboolean (*lookup) (LlmTokenizerImpl *self, const char *piece, guint32 *id);
} LlmTokenizerVTable;

struct _LlmTokenizerImpl
{
  const LlmTokenizerVTable *vtable;
  LlmTokenizerFormat format;
  guint32 vocab_size; /* regular plus special tokens: every id is below it */
  gint64 bos_id;      /* -1: the file names none */
  gint64 eos_id;
};

/* Reads @contents (the file named @name, for messages and for the
 * tokenizer_config.json beside a tokenizer.json) as @format, or as the
 * format its bytes show when @format is AUTO. */
LlmTokenizerImpl *_llm_tokenizer_load (GBytes *contents, const char *name, LlmTokenizerFormat format, GError **error);
/* Loads a file, or a directory holding tokenizer.json. */
LlmTokenizerImpl *_llm_tokenizer_load_path (const char *path, LlmTokenizerFormat format, GError **error);
LlmTokenizerFormat _llm_tokenizer_detect (GBytes *contents, const char *name);
void _llm_tokenizer_free (LlmTokenizerImpl *self);

gboolean _llm_tokenizer_encode (LlmTokenizerImpl *self, const char *text, gssize len, guint n_bos, guint n_eos,
                                GArray *ids, GError **error);
gboolean _llm_tokenizer_decode (LlmTokenizerImpl *self, guint32 prev, guint32 id, GByteArray *out, GError **error);

/* For formats that add BOS/EOS by count: each appends @n copies to @ids
 * (call add_bos before appending the text's ids, add_eos after); an absent
 * id with a count > 0 is an error naming which. */
gboolean _llm_tokenizer_add_bos (LlmTokenizerImpl *self, guint n_bos, GArray *ids, GError **error);
gboolean _llm_tokenizer_add_eos (LlmTokenizerImpl *self, guint n_eos, GArray *ids, GError **error);

/* Per format; @contents is not kept unless the loader refs it. */
LlmTokenizerImpl *_llm_tiktoken_load (GBytes *contents, const char *name, GError **error);
LlmTokenizerImpl *_llm_llama2c_load (GBytes *contents, const char *name, GError **error);
/* Whether the @size bytes at @p start with a llama2.c header that fits them
 * (for detection). */
gboolean _llm_llama2c_header_fits (const guint8 *p, gsize size);
LlmTokenizerImpl *_llm_hf_load (GBytes *contents, const char *name, GError **error);
LlmTokenizerImpl *_llm_sentencepiece_load (GBytes *contents, const char *name, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LlmTokenizerImpl, _llm_tokenizer_free)

G_END_DECLS
