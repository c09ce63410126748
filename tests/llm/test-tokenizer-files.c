/* test-tokenizer-files.c: the tiktoken and llama2.c readers on hostile files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every malformed file must fail with a GError that names what is wrong and
 * where (a line and column, a token and byte offset); small valid files
 * built here check the edges the fixtures do not reach (CRLF lines, a
 * character with no piece, long runs of one byte, auto-detection).
 */
#include <string.h>

#include "tokenizer-impl.h"

/* Loads @len bytes as @format; expects failure with @code and every one of
 * the NULL-terminated substrings in the message. */
static void
expect_error (LlmTokenizerFormat format, const void *bytes, gsize len, LlmTokenizerErrorCode code, ...)
{
  g_autoptr (GBytes) contents = g_bytes_new (bytes, len);
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tokenizer = _llm_tokenizer_load (contents, "hostile", format, &error);
  g_assert_null (tokenizer);
  g_assert_error (error, LLM_TOKENIZER_ERROR, (gint) code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "hostile"));
  va_list args;
  va_start (args, code);
  for (const char *want = va_arg (args, const char *); want != NULL; want = va_arg (args, const char *))
    if (strstr (error->message, want) == NULL)
      g_error ("\"%s\" is not in \"%s\"", want, error->message);
  va_end (args);
}

static LlmTokenizerImpl *
load_ok (LlmTokenizerFormat format, const void *bytes, gsize len)
{
  g_autoptr (GBytes) contents = g_bytes_new (bytes, len);
  g_autoptr (GError) error = NULL;
  LlmTokenizerImpl *tokenizer = _llm_tokenizer_load (contents, "valid", format, &error);
  g_assert_no_error (error);
  g_assert_nonnull (tokenizer);
  return tokenizer;
}

static GArray *
encode (LlmTokenizerImpl *tokenizer, const char *text, gssize len, guint n_bos, guint n_eos)
{
  g_autoptr (GError) error = NULL;
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_assert_true (_llm_tokenizer_encode (tokenizer, text, len, n_bos, n_eos, ids, &error));
  g_assert_no_error (error);
  return ids;
}

static char *
decode_all (LlmTokenizerImpl *tokenizer, GArray *ids)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint32 prev = G_MAXUINT32;
  for (guint i = 0; i < ids->len; i++)
    {
      g_autoptr (GError) error = NULL;
      guint32 id = g_array_index (ids, guint32, i);
      g_assert_true (_llm_tokenizer_decode (tokenizer, prev, id, out, &error));
      g_assert_no_error (error);
      prev = id;
    }
  g_byte_array_append (out, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (g_steal_pointer (&out), FALSE);
}

/* The 256 single bytes, rank = byte, and then @extra lines. */
static GString *
byte_ranks (const char *line_end)
{
  GString *s = g_string_new (NULL);
  for (guint b = 0; b < 256; b++)
    {
      guint8 byte = (guint8) b;
      g_autofree char *b64 = g_base64_encode (&byte, 1);
      g_string_append_printf (s, "%s %u%s", b64, b, line_end);
    }
  return s;
}

static void
test_tiktoken_malformed (void)
{
  const LlmTokenizerFormat f = LLM_TOKENIZER_FORMAT_TIKTOKEN;
  const LlmTokenizerErrorCode bad = LLM_TOKENIZER_ERROR_MALFORMED;
  expect_error (f, "", 0, bad, "no tokens", NULL);
  expect_error (f, "\n\r\n\n", 4, bad, "no tokens", NULL);
  expect_error (f, "QQ==0\n", 6, bad, "line 1", "no space", NULL);
  expect_error (f, "QQ== 0\nQ!== 1\n", 14, bad, "line 2, column 2", "base64", NULL);
  expect_error (f, "QQ= 0\n", 6, bad, "line 1", "base64", NULL);
  expect_error (f, "Q=Q= 0\n", 7, bad, "line 1, column 2", NULL);
  expect_error (f, "\xff\xfe== 0\n", 7, bad, "line 1, column 1", NULL);
  expect_error (f, "QQ== x\n", 7, bad, "line 1, column 6", "rank", NULL);
  expect_error (f, "QQ== -1\n", 8, bad, "line 1, column 6", NULL);
  expect_error (f, "QQ== 0 \n", 8, bad, "line 1, column 7", NULL);
  expect_error (f, "QQ== \n", 6, bad, "line 1: no rank", NULL);
  expect_error (f, "QQ== 99999999999999999999\n", 26, bad, "line 1", NULL);
  /* A gap (rank 2 of two tokens), a duplicate rank, a duplicate token. */
  expect_error (f, "QQ== 0\nQg== 2\n", 14, bad, "line 2", "rank 2", "without gaps", NULL);
  expect_error (f, "QQ== 0\nQg== 0\n", 14, bad, "line 2", "rank 0 is also on line 1", NULL);
  expect_error (f, "QQ== 1\nQQ== 0\n", 14, bad, "line 1", "already rank 0 (line 2)", NULL);
  /* Valid lines but not every byte. */
  expect_error (f, "QQ== 0\nQg== 1\n", 14, bad, "byte 0x00", NULL);
}

static void
test_tiktoken_bytes_only (void)
{
  /* CRLF lines load too; with no merges every byte is its own token. */
  g_autoptr (GString) file = byte_ranks ("\r\n");
  g_autoptr (LlmTokenizerImpl) tokenizer = load_ok (LLM_TOKENIZER_FORMAT_TIKTOKEN, file->str, file->len);
  g_assert_cmpuint (tokenizer->vocab_size, ==, 256 + 256);
  g_assert_cmpint (tokenizer->bos_id, ==, 256);
  g_assert_cmpint (tokenizer->eos_id, ==, 257);

  g_autoptr (GArray) ids = encode (tokenizer, "h\xc3\xa9<|eot_id|>", -1, 1, 1);
  const guint32 want[] = { 256, 'h', 0xc3, 0xa9, 256 + 9, 257 };
  g_assert_cmpmem (ids->data, ids->len * sizeof (guint32), want, sizeof want);
  g_autofree char *text = decode_all (tokenizer, ids);
  g_assert_cmpstr (text, ==, "<|begin_of_text|>h\xc3\xa9<|eot_id|><|end_of_text|>");

  /* 10k spaces and a letter: one id per byte, the run kept whole by the
   * pre-split (its last space goes with the letter). */
  g_autofree char *run = g_strnfill (10000, ' ');
  g_autofree char *long_text = g_strconcat (run, "x", NULL);
  g_autoptr (GArray) many = encode (tokenizer, long_text, -1, 0, 0);
  g_assert_cmpuint (many->len, ==, 10001);

  guint32 id;
  g_assert_true (tokenizer->vtable->lookup (tokenizer, "<|reserved_special_token_246|>", &id));
  g_assert_cmpuint (id, ==, 256 + 255);
  g_assert_false (tokenizer->vtable->lookup (tokenizer, "<|reserved_special_token_247|>", &id));
  g_assert_true (tokenizer->vtable->lookup (tokenizer, "A", &id));
  g_assert_cmpuint (id, ==, 'A');

  /* Text that is not UTF-8 is refused before the format sees it. */
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) none = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_assert_false (_llm_tokenizer_encode (tokenizer, "ab\xff", 3, 0, 0, none, &error));
  g_assert_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_INVALID_TEXT);
  g_clear_error (&error);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_assert_false (_llm_tokenizer_decode (tokenizer, G_MAXUINT32, 512, out, &error));
  g_assert_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_INVALID_TOKEN);
}

static void
put_i32 (GByteArray *b, gint32 v)
{
  guint32 le = GUINT32_TO_LE ((guint32) v);
  g_byte_array_append (b, (const guint8 *) &le, 4);
}

static void
put_token (GByteArray *b, float score, const char *piece)
{
  guint32 bits;
  memcpy (&bits, &score, 4);
  bits = GUINT32_TO_LE (bits);
  g_byte_array_append (b, (const guint8 *) &bits, 4);
  put_i32 (b, (gint32) strlen (piece));
  g_byte_array_append (b, (const guint8 *) piece, strlen (piece));
}

/* <unk> <s> </s> <0x41> " " "a" "b" " a" "ab" " ab" */
static GByteArray *
small_bin (gint32 vocab_size, gint32 bos, gint32 eos, gint32 max_len)
{
  GByteArray *b = g_byte_array_new ();
  put_i32 (b, vocab_size);
  put_i32 (b, bos);
  put_i32 (b, eos);
  put_i32 (b, max_len);
  static const char *const pieces[] = { "<unk>", "<s>", "</s>", "<0x41>", " ", "a", "b", " a", "ab", " ab" };
  static const float scores[] = { 0, 0, 0, 0, -1, -2, -3, -4, -5, -6 };
  for (guint i = 0; i < G_N_ELEMENTS (pieces); i++)
    put_token (b, scores[i], pieces[i]);
  return b;
}

static void
test_llama2c_malformed (void)
{
  const LlmTokenizerFormat f = LLM_TOKENIZER_FORMAT_LLAMA2C;
  const LlmTokenizerErrorCode bad = LLM_TOKENIZER_ERROR_MALFORMED;
  expect_error (f, "\x01\x00\x00\x00", 4, bad, "4 bytes", "header", NULL);
  {
    g_autoptr (GByteArray) b = small_bin (0x7fffffff, 1, 2, 6);
    expect_error (f, b->data, b->len, bad, "vocab_size 2147483647", NULL);
  }
  {
    g_autoptr (GByteArray) b = small_bin (-10, 1, 2, 6);
    expect_error (f, b->data, b->len, bad, "vocab_size -10", NULL);
  }
  {
    g_autoptr (GByteArray) b = small_bin (10, 10, 2, 6);
    expect_error (f, b->data, b->len, bad, "BOS id 10", NULL);
  }
  {
    g_autoptr (GByteArray) b = small_bin (10, 1, -2, 6);
    expect_error (f, b->data, b->len, bad, "EOS id -2", NULL);
  }
  {
    g_autoptr (GByteArray) b = small_bin (10, 1, 2, -1);
    expect_error (f, b->data, b->len, bad, "max_token_length -1", NULL);
  }
  {
    /* A piece longer than max_token_length. */
    g_autoptr (GByteArray) b = small_bin (10, 1, 2, 5);
    expect_error (f, b->data, b->len, bad, "token 3 (byte 56)", "length 6", NULL);
  }
  {
    /* Token 1's length made negative. */
    g_autoptr (GByteArray) b = small_bin (10, 1, 2, 6);
    guint32 minus = GUINT32_TO_LE ((guint32) -5);
    memcpy (b->data + 16 + 13 + 4, &minus, 4);
    expect_error (f, b->data, b->len, bad, "token 1 (byte 33)", "length -5", NULL);
  }
  {
    /* Token 0's score made NaN. */
    g_autoptr (GByteArray) b = small_bin (10, 1, 2, 6);
    guint32 nan_bits = GUINT32_TO_LE (0x7fc00000);
    memcpy (b->data + 16, &nan_bits, 4);
    expect_error (f, b->data, b->len, bad, "token 0 (byte 16)", "not a number", NULL);
  }
  {
    /* Cut inside the last piece, and inside the last record's header. */
    g_autoptr (GByteArray) b = small_bin (10, 1, 2, 6);
    expect_error (f, b->data, b->len - 1, bad, "token 9", "run past the end", NULL);
    expect_error (f, b->data, b->len - 5, bad, "token 9", "ends at byte", NULL);
  }
  {
    /* A piece that is not UTF-8: "a" (token 5) becomes 0xff. */
    g_autoptr (GByteArray) b = small_bin (10, 1, 2, 6);
    /* Records: 16 + (8+5) + (8+3) + (8+4) + (8+6) + (8+1), then token 5's header. */
    const guint a_at = 16 + 13 + 11 + 12 + 14 + 9 + 8;
    g_assert_cmpint (b->data[a_at], ==, 'a');
    b->data[a_at] = 0xff;
    expect_error (f, b->data, b->len, bad, "token 5 (byte 83)", "not UTF-8", NULL);
  }
}

static void
test_llama2c_small (void)
{
  g_autoptr (GByteArray) b = small_bin (10, 1, 2, 6);
  /* Trailing bytes (the converter's padding record) are left alone. */
  put_token (b, 0, "<pad>");
  g_autoptr (LlmTokenizerImpl) tokenizer = load_ok (LLM_TOKENIZER_FORMAT_LLAMA2C, b->data, b->len);
  g_assert_cmpuint (tokenizer->vocab_size, ==, 10);

  /* " ab" outscores nothing else it could be: " a" (-4) merges first,
   * then " ab" is " a"+"b" (-6).  "A" is no piece: its byte piece <0x41>;
   * "C" has none either: <unk>. */
  g_autoptr (GArray) ids = encode (tokenizer, "abAC", -1, 1, 1);
  const guint32 want[] = { 1, 9, 3, 0, 2 };
  g_assert_cmpmem (ids->data, ids->len * sizeof (guint32), want, sizeof want);
  g_autofree char *text = decode_all (tokenizer, ids);
  /* After BOS the space goes; <0x41> is the byte; <unk> its text. */
  g_assert_cmpstr (text, ==, "<s>abA<unk></s>");

  /* Empty text: no dummy prefix, only the counts. */
  g_autoptr (GArray) empty = encode (tokenizer, "", 0, 2, 1);
  const guint32 want_empty[] = { 1, 1, 2 };
  g_assert_cmpmem (empty->data, empty->len * sizeof (guint32), want_empty, sizeof want_empty);

  /* "<s>" in the text is characters, never BOS. */
  g_autoptr (GArray) literal = encode (tokenizer, "<s>", -1, 0, 0);
  for (guint i = 0; i < literal->len; i++)
    g_assert_cmpuint (g_array_index (literal, guint32, i), !=, 1);

  /* A long run of one letter: merges stay fast and correct. */
  g_autofree char *run = g_strnfill (20000, 'a');
  g_autoptr (GArray) many = encode (tokenizer, run, -1, 0, 0);
  g_assert_cmpuint (many->len, ==, 20000);
  g_assert_cmpuint (g_array_index (many, guint32, 0), ==, 7);
  g_assert_cmpuint (g_array_index (many, guint32, 19999), ==, 5);

  guint32 id;
  g_assert_true (tokenizer->vtable->lookup (tokenizer, " ab", &id));
  g_assert_cmpuint (id, ==, 9);
}

static void
test_detect (void)
{
  /* A tokenizer.bin of 10 tokens starts with 0x0a, as a SentencePiece
   * model does: its header tells them apart. */
  g_autoptr (GByteArray) bin = small_bin (10, 1, 2, 6);
  g_autoptr (GBytes) bin_bytes = g_bytes_new (bin->data, bin->len);
  g_assert_cmpint (_llm_tokenizer_detect (bin_bytes, "small.bin"), ==, LLM_TOKENIZER_FORMAT_LLAMA2C);
  g_autoptr (GString) ranks = byte_ranks ("\n");
  g_autoptr (GBytes) ranks_bytes = g_bytes_new (ranks->str, ranks->len);
  g_assert_cmpint (_llm_tokenizer_detect (ranks_bytes, "ranks"), ==, LLM_TOKENIZER_FORMAT_TIKTOKEN);
  const char *const sp_start =
      "\x0a\x0b\x0a\x05<unk>\x15\x00\x00\x00\x00\x18\x02\x0a\x09\x0a\x03<s>\x15\x00\x00\x00\x00";
  g_autoptr (GBytes) sp_bytes = g_bytes_new (sp_start, 26);
  g_assert_cmpint (_llm_tokenizer_detect (sp_bytes, "sp.model"), ==, LLM_TOKENIZER_FORMAT_SENTENCEPIECE);
  /* The .model sp-bpe.bin was converted from. */
  g_autofree char *model_path =
      g_test_build_filename (G_TEST_DIST, "llm", "tokenizers", "llama2c", "sp-bpe.model", NULL);
  g_autoptr (GMappedFile) model = g_mapped_file_new (model_path, FALSE, NULL);
  g_assert_nonnull (model);
  g_autoptr (GBytes) model_bytes = g_mapped_file_get_bytes (model);
  g_assert_cmpint (_llm_tokenizer_detect (model_bytes, model_path), ==, LLM_TOKENIZER_FORMAT_SENTENCEPIECE);

  const char *const files[][2] = { { "tiktoken", "bpe512.tiktoken" }, { "llama2c", "sp-bpe.bin" } };
  const LlmTokenizerFormat formats[] = { LLM_TOKENIZER_FORMAT_TIKTOKEN, LLM_TOKENIZER_FORMAT_LLAMA2C };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "llm", "tokenizers", files[i][0], files[i][1], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (LlmTokenizerImpl) tokenizer = _llm_tokenizer_load_path (path, LLM_TOKENIZER_FORMAT_AUTO, &error);
      g_assert_no_error (error);
      g_assert_cmpint (tokenizer->format, ==, formats[i]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tokenizer/tiktoken/malformed", test_tiktoken_malformed);
  g_test_add_func ("/tokenizer/tiktoken/bytes-only", test_tiktoken_bytes_only);
  g_test_add_func ("/tokenizer/llama2c/malformed", test_llama2c_malformed);
  g_test_add_func ("/tokenizer/llama2c/small", test_llama2c_small);
  g_test_add_func ("/tokenizer/detect", test_detect);
  return g_test_run ();
}
