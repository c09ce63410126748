/* hf-private.h: the parts of the Hugging Face tokenizer.json reader
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * hf-json.c reads the file and runs the pipeline; each component kind has
 * its own file: hf-normalizers.c, hf-pre-tokenizers.c, hf-bpe.c (the
 * model), hf-added-tokens.c, hf-decoders.c; hf-common.c has what they share.  Every parser takes the JSON node and its path in
 * the file ("normalizer.normalizers[2]") for its messages, and fails with
 * LLM_TOKENIZER_ERROR_MALFORMED (bad JSON) or _UNSUPPORTED (a component we
 * do not implement, named in the message).
 */
#pragma once

#include <json-glib/json-glib.h>

#include "tokenizer-impl.h"

G_BEGIN_DECLS

/* JSON helpers (hf-common.c).  A missing or null member gives @fallback. */
JsonNode *_hf_json_member (JsonObject *obj, const char *member); /* NULL when absent or null */
gboolean _hf_json_holds (JsonNode *node, GType type);            /* a value of @type */
gboolean _hf_json_node_uint (JsonNode *node, const char *path, guint64 max, guint64 *out, GError **error);
gboolean _hf_json_string (JsonObject *obj, const char *member, const char *path, const char *fallback, const char **out,
                          GError **error);
gboolean _hf_json_bool (JsonObject *obj, const char *member, const char *path, gboolean fallback, gboolean *out,
                        GError **error);
gboolean _hf_json_uint (JsonObject *obj, const char *member, const char *path, guint64 fallback, guint64 max,
                        guint64 *out, GError **error);
JsonObject *_hf_json_object (JsonNode *node, const char *path, GError **error);
/* The "type" member of a component object. */
const char *_hf_json_type (JsonObject *obj, const char *path, GError **error);
/* A component (normalizer, pre_tokenizer, decoder step...): the object
 * and its "type".  A NULL @node or JSON null is no component: TRUE with
 * *obj NULL. */
gboolean _hf_json_component (JsonNode *node, const char *path, JsonObject **obj, const char **type, GError **error);
/* Calls @func on each element of the array @member (a Sequence's list), with
 * the element's path "PATH.MEMBER[i]"; stops at the first FALSE. */
typedef gboolean (*HfJsonElementFunc) (gpointer data, JsonNode *element, const char *path, GError **error);
gboolean _hf_json_each (JsonObject *obj, const char *member, const char *path, HfJsonElementFunc func, gpointer data,
                        GError **error);
/* A string member holding exactly one character (Metaspace's replacement,
 * a delimiter). */
gboolean _hf_json_char (JsonObject *obj, const char *member, const char *path, const char **out, GError **error);

/* Metaspace's prepend_scheme (the pre-tokenizer's and the decoder's); files
 * from before it have add_prefix_space, true meaning always. */
typedef enum
{
  HF_PREPEND_ALWAYS,
  HF_PREPEND_NEVER,
  HF_PREPEND_FIRST,
} HfPrependScheme;
gboolean _hf_json_prepend_scheme (JsonObject *obj, const char *path, HfPrependScheme *out, GError **error);

/* A "pattern": {"String": s} or {"Regex": r} compiled to a GRegex (a
 * String is matched literally).  *literal is the String's text, else NULL. */
GRegex *_hf_json_pattern (JsonObject *obj, const char *member, const char *path, const char **literal, GError **error);

/* Regex \w as Oniguruma defines it (PCRE2 10.42's \w has no marks), for use
 * inside a character class; Rust's \w adds the joiners U+200C and U+200D. */
#define HF_WORD_CLASS "\\p{L}\\p{Nl}\\p{Nd}\\p{M}\\p{Pc}\\x{24B6}-\\x{24E9}\\x{1F130}-\\x{1F189}"

/* Regex \s as both Oniguruma and Rust define it (the White_Space property;
 * PCRE2's \s also takes U+180E), for use inside a character class. */
#define HF_SPACE_CLASS \
  "\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"

/* An Oniguruma (Ruby syntax) pattern, as the reference compiles them, in
 * PCRE2's words: \w, \W, \s, \S, \h and \H rewritten. */
char *_hf_onig_to_pcre (const char *pattern);

/* Unicode classes as the reference library (Rust) defines them. */
gboolean _hf_is_white_space (gunichar c); /* char::is_whitespace */
gboolean _hf_is_word_char (gunichar c);   /* regex \w */

/* The GPT-2 byte-to-character table (bytes 0x21-0x7E, 0xA1-0xAC and
 * 0xAE-0xFF map to themselves, the rest to U+0100 on in byte order). */
gunichar _hf_byte_to_char (guint8 byte);
/* The byte of @c, or -1 when @c is not in the table. */
int _hf_char_to_byte (gunichar c);

/* --- Normalizers --------------------------------------------------- */
typedef struct _HfNormalizer HfNormalizer;
/* NULL @node (or JSON null) gives *out = NULL and TRUE: no normalizer. */
gboolean _hf_normalizer_parse (JsonNode *node, const char *path, HfNormalizer **out, GError **error);
/* A new string: @text normalized. */
GString *_hf_normalizer_apply (const HfNormalizer *self, const char *text, gsize len);
void _hf_normalizer_free (HfNormalizer *self);

/* --- Pre-tokenizers ------------------------------------------------ */
typedef struct
{
  char *text; /* owned, NUL-terminated */
  gsize len;
  /* The piece starts where the input text starts (Metaspace's "first"). */
  gboolean at_start;
} HfPiece;

typedef struct _HfPreTokenizer HfPreTokenizer;
gboolean _hf_pre_tokenizer_parse (JsonNode *node, const char *path, HfPreTokenizer **out, GError **error);
/* Replaces @pieces (a GArray of HfPiece, clear func set) with the split
 * pieces; empty pieces are dropped. */
void _hf_pre_tokenizer_apply (const HfPreTokenizer *self, GArray *pieces);
void _hf_pre_tokenizer_free (HfPreTokenizer *self);
GArray *_hf_pieces_new (void);
void _hf_pieces_add (GArray *pieces, const char *text, gsize len, gboolean at_start);

/* --- The BPE model -------------------------------------------------- */
typedef struct _HfBpe HfBpe;
/* Reads "model" (only type BPE). */
HfBpe *_hf_bpe_parse (JsonNode *node, const char *path, GError **error);
void _hf_bpe_free (HfBpe *self);
/* Appends the ids of one pre-tokenized @word. */
void _hf_bpe_encode (HfBpe *self, const char *word, gsize len, GArray *ids);
/* The text of @id, or NULL when the vocabulary has no such id. */
const char *_hf_bpe_token (const HfBpe *self, guint32 id);
gboolean _hf_bpe_lookup (const HfBpe *self, const char *token, guint32 *id);
guint32 _hf_bpe_id_limit (const HfBpe *self); /* highest id + 1 */

/* --- Added tokens ------------------------------------------------ */
typedef struct
{
  guint32 id;
  char *content;
  char *match; /* content, normalized when the token is */
  gsize match_len;
  gboolean single_word, lstrip, rstrip, normalized, special;
} HfAddedToken;

/* Added tokens matched in one pass, indexed by their first byte. */
typedef struct
{
  GPtrArray *by_byte[256]; /* HfAddedToken, longest first */
  gboolean empty;
} HfAddedSet;

typedef struct
{
  GArray *tokens;         /* HfAddedToken */
  GHashTable *by_id;      /* id -> HfAddedToken */
  GHashTable *by_content; /* content -> HfAddedToken (the first) */
  HfAddedSet raw_set, normalized_set;
  guint32 id_limit; /* highest id + 1, 0 without tokens */
} HfAddedVocab;

/* A cut of the text: an added token, or text between them. */
typedef struct
{
  gsize start, end;
  const HfAddedToken *token; /* NULL: text */
} HfSpan;

/* Reads "added_tokens" (@node may be NULL); normalized ones are matched by
 * their text through @normalizer.  Ids above @max_id are refused. */
HfAddedVocab *_hf_added_parse (JsonNode *node, const HfNormalizer *normalizer, guint64 max_id, GError **error);
void _hf_added_free (HfAddedVocab *self);
const HfAddedToken *_hf_added_by_id (const HfAddedVocab *self, guint32 id);
const HfAddedToken *_hf_added_by_content (const HfAddedVocab *self, const char *content);
/* Cuts @text (raw, or normalized when @normalized) into HfSpans. */
void _hf_added_find (const HfAddedVocab *self, gboolean normalized, const char *text, gsize len, GArray *spans);

/* --- Decoders ------------------------------------------------------ */
typedef struct _HfDecoder HfDecoder;
gboolean _hf_decoder_parse (JsonNode *node, const char *path, HfDecoder **out, GError **error);
/* Turns one token's text into its bytes in @piece; @first: the first token
 * of the stream.  NULL @self: the reference joins tokens with spaces. */
void _hf_decoder_apply (const HfDecoder *self, gboolean first, GByteArray *piece);
void _hf_decoder_free (HfDecoder *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HfNormalizer, _hf_normalizer_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HfPreTokenizer, _hf_pre_tokenizer_free)

G_END_DECLS
