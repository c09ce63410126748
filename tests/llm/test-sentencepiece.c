/* test-sentencepiece.c: SentencePiece .model files that are wrong on purpose
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Hand-built ModelProto bytes: each malformed one must fail with a GError
 * naming the field and where it is; a small valid one (with a hand-built
 * charsmap) must load and normalize.  Then the committed fixtures, cut
 * short and with bytes changed, must load or fail cleanly, never crash
 * (run under ASan/UBSan in CI).
 */
#include <string.h>

#include "tokenizer-impl.h"

/* A protobuf writer, just enough for ModelProto. */
static void
put_varint (GByteArray *out, guint64 v)
{
  do
    {
      guint8 b = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
      g_byte_array_append (out, &b, 1);
      v >>= 7;
    }
  while (v != 0);
}

static void
put_tag (GByteArray *out, guint field, guint wire)
{
  put_varint (out, ((guint64) field << 3) | wire);
}

static void
put_bytes (GByteArray *out, guint field, const void *data, gsize len)
{
  put_tag (out, field, 2);
  put_varint (out, len);
  g_byte_array_append (out, data, (guint) len);
}

static void
put_string (GByteArray *out, guint field, const char *s)
{
  put_bytes (out, field, s, strlen (s));
}

static void
put_message (GByteArray *out, guint field, GByteArray *message)
{
  put_bytes (out, field, message->data, message->len);
}

static void
put_uint (GByteArray *out, guint field, guint64 v)
{
  put_tag (out, field, 0);
  put_varint (out, v);
}

static void
put_float (GByteArray *out, guint field, float f)
{
  guint32 bits;
  memcpy (&bits, &f, 4);
  bits = GUINT32_TO_LE (bits);
  put_tag (out, field, 5);
  g_byte_array_append (out, (const guint8 *) &bits, 4);
}

static void
put_piece (GByteArray *out, const char *text, float score, guint type)
{
  g_autoptr (GByteArray) piece = g_byte_array_new ();
  put_string (piece, 1, text);
  put_float (piece, 2, score);
  put_uint (piece, 3, type);
  put_message (out, 1, piece);
}

enum
{
  NORMAL = 1,
  UNKNOWN = 2,
  CONTROL = 3,
  BYTE = 6,
};

/* <unk> <s> </s> ▁ a b ▁a ▁b ab, BPE, identity. */
static void
put_small_pieces (GByteArray *model)
{
  put_piece (model, "<unk>", 0, UNKNOWN);
  put_piece (model, "<s>", 0, CONTROL);
  put_piece (model, "</s>", 0, CONTROL);
  put_piece (model, "\xe2\x96\x81", -1, NORMAL);
  put_piece (model, "a", -2, NORMAL);
  put_piece (model, "b", -3, NORMAL);
  put_piece (model,
             "\xe2\x96\x81"
             "a",
             -4, NORMAL);
  put_piece (model,
             "\xe2\x96\x81"
             "b",
             -5, NORMAL);
  put_piece (model, "ab", -6, NORMAL);
}

static GByteArray *
small_model (GByteArray *trainer_extra, GByteArray *normalizer)
{
  GByteArray *model = g_byte_array_new ();
  put_small_pieces (model);
  g_autoptr (GByteArray) trainer = g_byte_array_new ();
  put_uint (trainer, 3, 2); /* BPE */
  if (trainer_extra != NULL)
    g_byte_array_append (trainer, trainer_extra->data, trainer_extra->len);
  put_message (model, 2, trainer);
  if (normalizer != NULL)
    put_message (model, 3, normalizer);
  return model;
}

static LlmTokenizerImpl *
load (GByteArray *bytes, GError **error)
{
  g_autoptr (GBytes) contents = g_bytes_new (bytes->data, bytes->len);
  return _llm_tokenizer_load (contents, "test.model", LLM_TOKENIZER_FORMAT_SENTENCEPIECE, error);
}

static void
assert_fails (GByteArray *bytes, const char *part1, const char *part2)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tokenizer = load (bytes, &error);
  g_assert_null (tokenizer);
  g_assert_nonnull (error);
  g_assert_true (error->domain == LLM_TOKENIZER_ERROR);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "test.model: "));
  if (strstr (error->message, part1) == NULL || (part2 != NULL && strstr (error->message, part2) == NULL))
    g_error ("\"%s\" does not say \"%s\"%s%s", error->message, part1, part2 ? " and " : "", part2 ? part2 : "");
}

static char *
encode_to_string (LlmTokenizerImpl *tokenizer, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_assert_true (_llm_tokenizer_encode (tokenizer, text, -1, 0, 0, ids, &error));
  g_assert_no_error (error);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf (s, "%s%u", i ? " " : "", g_array_index (ids, guint32, i));
  return g_string_free (s, FALSE);
}

static void
test_small (void)
{
  g_autoptr (GByteArray) bytes = small_model (NULL, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tokenizer = load (bytes, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tokenizer->vocab_size, ==, 9);
  g_assert_cmpint (tokenizer->bos_id, ==, 1);
  g_assert_cmpint (tokenizer->eos_id, ==, 2);
  /* "▁a" (-4) beats "ab" (-6): merges go by score.  "c" is unknown;
   * two unknown characters in a row are one unknown id. */
  g_autofree char *ids = encode_to_string (tokenizer, "  ab  b cc a");
  g_assert_cmpstr (ids, ==, "6 5 7 3 0 6");
  g_autoptr (GByteArray) out = g_byte_array_new ();
  const guint32 seq[] = { 6, 5, 7, 3, 0, 6 };
  guint32 prev = G_MAXUINT32;
  for (guint i = 0; i < G_N_ELEMENTS (seq); i++)
    {
      g_assert_true (_llm_tokenizer_decode (tokenizer, prev, seq[i], out, &error));
      prev = seq[i];
    }
  g_assert_cmpmem (out->data, out->len, "ab b  \xe2\x81\x87  a", strlen ("ab b  \xe2\x81\x87  a"));
}

/* A charsmap whose trie maps "a" to "b": the root's children start at
 * unit 1; "a" leads to unit 1 ^ 'a', a leaf whose value (at unit 0x100)
 * is offset 0 of the replacements "b\0". */
static GByteArray *
charsmap (guint32 a_offset, guint32 leaf_value, guint32 n_units)
{
  g_autofree guint32 *units = g_new0 (guint32, n_units);
  units[0] = 1u << 10; /* root: children at 0 ^ 1 */
  guint32 a_unit = 1 ^ 'a';
  units[a_unit] = (a_offset << 10) | (1u << 8) | 'a';
  guint32 leaf = a_unit ^ a_offset;
  if (leaf < n_units)
    units[leaf] = 0x80000000u | leaf_value;
  GByteArray *blob = g_byte_array_new ();
  guint32 size = GUINT32_TO_LE (n_units * 4);
  g_byte_array_append (blob, (const guint8 *) &size, 4);
  for (guint32 i = 0; i < n_units; i++)
    {
      guint32 u = GUINT32_TO_LE (units[i]);
      g_byte_array_append (blob, (const guint8 *) &u, 4);
    }
  g_byte_array_append (blob, (const guint8 *) "b", 2);
  return blob;
}

static GByteArray *
normalizer_with (GByteArray *blob)
{
  GByteArray *normalizer = g_byte_array_new ();
  put_string (normalizer, 1, "test");
  put_message (normalizer, 2, blob);
  return normalizer;
}

static void
test_charsmap (void)
{
  g_autoptr (GByteArray) blob = charsmap (0x160, 0, 512); /* leaf at 0x60 ^ 0x160 = 0x100 */
  g_autoptr (GByteArray) normalizer = normalizer_with (blob);
  g_autoptr (GByteArray) bytes = small_model (NULL, normalizer);
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tokenizer = load (bytes, &error);
  g_assert_no_error (error);
  g_autofree char *ids = encode_to_string (tokenizer, "a ab");
  g_assert_cmpstr (ids, ==, "7 7 5"); /* "▁b▁bb" */
}

static void
test_charsmap_hostile (void)
{
  struct
  {
    guint32 a_offset, leaf_value, n_units;
    const char *says;
  } cases[] = {
    { 0x160, 0, 384, "the trie points outside itself" },      /* the leaf's block past the end */
    { 0x1000, 0, 512, "points outside the trie" },            /* a child past the end */
    { 0x160, 2, 512, "outside the 2 bytes of replacements" }, /* value past the strings */
    { 0x160, 1000, 512, "outside the 2 bytes of replacements" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GByteArray) blob = charsmap (cases[i].a_offset, cases[i].leaf_value, cases[i].n_units);
      g_autoptr (GByteArray) normalizer = normalizer_with (blob);
      g_autoptr (GByteArray) bytes = small_model (NULL, normalizer);
      assert_fails (bytes, "precompiled_charsmap", cases[i].says);
    }
  /* The trie's size: past the blob, or no room for a root. */
  guint8 too_big[] = { 0xff, 0xff, 0, 0, 1, 2, 3, 4 };
  guint8 too_short[] = { 4, 0, 0 };
  GByteArray blobs[] = { { too_big, sizeof too_big }, { too_short, sizeof too_short } };
  const char *says[] = { "trie size 65535 does not fit", "too short" };
  for (guint i = 0; i < G_N_ELEMENTS (blobs); i++)
    {
      g_autoptr (GByteArray) normalizer = normalizer_with (&blobs[i]);
      g_autoptr (GByteArray) bytes = small_model (NULL, normalizer);
      assert_fails (bytes, "precompiled_charsmap", says[i]);
    }
}

static void
test_wire (void)
{
  /* Raw bytes, with what the message must say. */
  struct
  {
    const char *bytes;
    gsize len;
    const char *says, *where;
  } cases[] = {
    { "\x0a\x80", 2, "ModelProto.pieces[0]: truncated varint", "at byte 1" },
    { "\x0a\x10\x0a", 3, "runs past the end of its message", "at byte 1" },
    { "\x08\x01", 2, "ModelProto.pieces[0]: wire type 0 (varint), expected length-delimited", "at byte 0" },
    { "\x0a\x02\x15\x01", 4, "ModelProto.pieces[0].score: truncated 32-bit value", "at byte 2" },
    { "\x0a\x02\x12\x01", 4, "ModelProto.pieces[0].score: wire type 2", "at byte 2" },
    { "\x0a\x02\x18\x09", 4, "ModelProto.pieces[0].type: 9 is not a SentencePiece piece type", "at byte 2" },
    { "\x0a\x03\x0a\x05\x61", 5, "ModelProto.pieces[0].piece: length 5 runs past", "at byte 3" },
    { "\x12\x02\x18\x07", 4, "ModelProto.trainer_spec.model_type: 7 is not", "at byte 2" },
    { "\x12\x01\xc0", 3, "ModelProto.trainer_spec field tag: truncated varint", "at byte 2" },
    { "\x12\x02\xc0\x02", 4, "ModelProto.trainer_spec.unk_id: truncated varint", "at byte 4" },
    { "\x12\x03\xc2\x02\x05", 5, "ModelProto.trainer_spec.unk_id: wire type 2", "at byte 2" },
    { "\x1a\x02\x18\xff", 4, "ModelProto.normalizer_spec.add_dummy_prefix: truncated varint", "at byte 3" },
    { "\x3b", 1, "ModelProto field 7: wire type 3 (start-group)", "at byte 0" },
    { "\x07", 1, "ModelProto: field number 0 is not valid", "at byte 0" },
    { "\x0e", 1, "ModelProto.pieces[0]: wire type 6 (invalid), expected length-delimited", "at byte 0" },
    { "\x3e", 1, "ModelProto field 7: wire type 6 (invalid)", "at byte 0" },
    { "\x48\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, "varint longer than 10 bytes", "at byte 1" },
    { "\x41\x01\x02", 3, "ModelProto field 8: truncated 64-bit value", "at byte 0" },
    { "", 0, "the model has no pieces", NULL },
    { "\x22\x00", 2, "the model has no pieces", NULL }, /* only self_test_data */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GByteArray bytes = { (guint8 *) cases[i].bytes, (guint) cases[i].len };
      assert_fails (&bytes, cases[i].says, cases[i].where);
    }
}

static void
test_pieces (void)
{
  /* Trainer ids outside the pieces. */
  {
    g_autoptr (GByteArray) extra = g_byte_array_new ();
    put_uint (extra, 41, 99);
    g_autoptr (GByteArray) bytes = small_model (extra, NULL);
    assert_fails (bytes, "ModelProto.trainer_spec.bos_id 99 is outside the 9 pieces", NULL);
  }
  {
    g_autoptr (GByteArray) extra = g_byte_array_new ();
    put_uint (extra, 43, (guint64) (gint64) -5); /* sign-extended, as protobuf writes int32 */
    g_autoptr (GByteArray) bytes = small_model (extra, NULL);
    assert_fails (bytes, "ModelProto.trainer_spec.pad_id -5 is outside", NULL);
  }
  /* No unknown piece; two; a duplicate; an empty one. */
  {
    g_autoptr (GByteArray) bytes = g_byte_array_new ();
    put_piece (bytes, "a", 0, NORMAL);
    assert_fails (bytes, "no piece is of type UNKNOWN", NULL);
  }
  /* One piece more than small_model's; a byte piece needs byte_fallback. */
  static const struct
  {
    const char *piece;
    guint type;
    const char *says;
  } extra_pieces[] = {
    { "<unk2>", UNKNOWN, "ModelProto.pieces[9] is a second unknown piece" },
    { "ab", NORMAL, "ModelProto.pieces[9] \"ab\" is already defined (as piece 8)" },
    { "", NORMAL, "ModelProto.pieces[9] is empty" },
    { "<0x41>", BYTE, "ModelProto.pieces[9] is a byte piece, but trainer_spec.byte_fallback is false" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (extra_pieces); i++)
    {
      g_autoptr (GByteArray) bytes = small_model (NULL, NULL);
      put_piece (bytes, extra_pieces[i].piece, 0, extra_pieces[i].type);
      assert_fails (bytes, extra_pieces[i].says, NULL);
    }
  /* Byte pieces with byte_fallback: all 256, spelled <0xHH>. */
  {
    g_autoptr (GByteArray) extra = g_byte_array_new ();
    put_uint (extra, 35, 1);
    g_autoptr (GByteArray) bytes = small_model (extra, NULL);
    for (guint b = 0; b < 256; b++)
      if (b != 0x7f)
        {
          char text[8];
          g_snprintf (text, sizeof text, "<0x%02X>", b);
          put_piece (bytes, text, 0, BYTE);
        }
    assert_fails (bytes, "there is no byte piece <0x7F>", NULL);
    put_piece (bytes, "<0x7f>", 0, BYTE);
    assert_fails (bytes, "\"<0x7f>\" is not <0xHH>", NULL);
  }
  /* A denormalizer is refused rather than ignored. */
  {
    g_autoptr (GByteArray) blob = charsmap (0x160, 0, 512);
    g_autoptr (GByteArray) normalizer = normalizer_with (blob);
    g_autoptr (GByteArray) bytes = small_model (NULL, NULL);
    put_message (bytes, 5, normalizer);
    g_autoptr (GError) error = NULL;
    g_autoptr (LlmTokenizerImpl) tokenizer = load (bytes, &error);
    g_assert_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED);
  }
}

/* Loads @contents; a tokenizer that loads must encode and decode. */
static void
load_and_use (GBytes *contents)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (LlmTokenizerImpl) tokenizer =
      _llm_tokenizer_load (contents, "mutant.model", LLM_TOKENIZER_FORMAT_SENTENCEPIECE, &error);
  if (tokenizer == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (error->domain == LLM_TOKENIZER_ERROR);
      return;
    }
  g_assert_no_error (error);
  const char *text = "  Héllo, wörld!\t 12345 <s> 😀 ﬁ  ＡＢＣ \u3000end ";
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (!_llm_tokenizer_encode (tokenizer, text, -1, 1, 1, ids, &error))
    {
      /* Only BOS/EOS can be missing. */
      g_assert_error (error, LLM_TOKENIZER_ERROR, LLM_TOKENIZER_ERROR_UNSUPPORTED);
      return;
    }
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint32 prev = G_MAXUINT32;
  for (guint i = 0; i < ids->len; i++)
    {
      guint32 id = g_array_index (ids, guint32, i);
      g_assert_cmpuint (id, <, tokenizer->vocab_size);
      g_assert_true (_llm_tokenizer_decode (tokenizer, prev, id, out, &error));
      prev = id;
    }
}

static void
test_mutations (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "llm", "tokenizers", "sentencepiece", name, NULL);
  g_autofree char *contents = NULL;
  gsize size = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &contents, &size, &error));
  g_autoptr (GRand) rand = g_rand_new_with_seed (size);
  guint n = size > 100000 ? 150 : 600;
  for (guint i = 0; i < n; i++)
    {
      g_autofree guint8 *copy = g_memdup2 (contents, size);
      gsize len = size;
      switch (i % 3)
        {
          case 0: len = g_rand_int_range (rand, 0, (gint32) size); break;
          case 1:
            for (guint k = 0; k < 4; k++)
              copy[g_rand_int_range (rand, 0, (gint32) size)] ^= (guint8) (1u << g_rand_int_range (rand, 0, 8));
            break;
          default: copy[g_rand_int_range (rand, 0, (gint32) size)] = (guint8) g_rand_int_range (rand, 0, 256);
        }
      g_autoptr (GBytes) bytes = g_bytes_new_take (g_steal_pointer (&copy), len);
      load_and_use (bytes);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sentencepiece/small", test_small);
  g_test_add_func ("/sentencepiece/charsmap", test_charsmap);
  g_test_add_func ("/sentencepiece/hostile/charsmap", test_charsmap_hostile);
  g_test_add_func ("/sentencepiece/hostile/wire", test_wire);
  g_test_add_func ("/sentencepiece/hostile/pieces", test_pieces);
  static const char *fixtures[] = { "bpe-byte-fallback.model", "unigram-identity.model", "bpe-whitespace-suffix.model",
                                    "word.model" };
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *test = g_strdup_printf ("/sentencepiece/hostile/mutated/%s", fixtures[i]);
      g_test_add_data_func (test, fixtures[i], test_mutations);
    }
  return g_test_run ();
}
