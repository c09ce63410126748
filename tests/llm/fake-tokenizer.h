/* fake-tokenizer.h: a tokenizer made in the test, for the tiny llamas of tests/llm/models
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Their vocabulary is 512: ids 0-255 bytes, 256 BOS, 257 EOS (or, per
 * mode, every id a letter), so the generator's tests do not depend on the
 * tokenizer file formats.
 */
#pragma once

#include <string.h>

#include "executorch-llm.h"
#include "executorch-llm-tokenizer-private.h"

typedef enum
{
  FAKE_BYTES,   /* id < 256: that byte; specials: their names */
  FAKE_LETTERS, /* every id: one letter, 'a' + id % 26 */
  FAKE_HALVES,  /* the tokens decode in turn to the two bytes of "é" */
} FakeMode;

typedef struct
{
  LlmTokenizerImpl base;
  FakeMode mode;
  guint decoded;
} FakeTokenizer;

static void
fake_free (LlmTokenizerImpl *impl)
{
  g_free (impl);
}

static gboolean
fake_encode (LlmTokenizerImpl *impl, const char *text, gsize len, guint n_bos, guint n_eos, GArray *ids, GError **error)
{
  if (!_llm_tokenizer_add_bos (impl, n_bos, ids, error))
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      guint32 id = (guint8) text[i];
      g_array_append_val (ids, id);
    }
  return _llm_tokenizer_add_eos (impl, n_eos, ids, error);
}

static gboolean
fake_decode (LlmTokenizerImpl *impl, guint32 prev, guint32 id, GByteArray *out, GError **error)
{
  FakeTokenizer *self = (FakeTokenizer *) impl;
  guint8 b;
  switch (self->mode)
    {
      case FAKE_LETTERS:
        b = 'a' + id % 26;
        g_byte_array_append (out, &b, 1);
        break;
      case FAKE_HALVES:
        b = self->decoded++ % 2 == 0 ? 0xC3 : 0xA9;
        g_byte_array_append (out, &b, 1);
        break;
      case FAKE_BYTES:
      default:
        if (id < 256)
          {
            b = id;
            g_byte_array_append (out, &b, 1);
          }
        else
          {
            g_autofree char *name = g_strdup_printf ("<|special_%u|>", id);
            g_byte_array_append (out, (const guint8 *) name, strlen (name));
          }
    }
  return TRUE;
}

static gboolean
fake_lookup (LlmTokenizerImpl *impl, const char *piece, guint32 *id)
{
  if (g_strcmp0 (piece, "<|end_of_text|>") != 0)
    return FALSE;
  *id = 257;
  return TRUE;
}

static const LlmTokenizerVTable fake_vtable = {
  .name = "fake", .free = fake_free, .encode = fake_encode, .decode = fake_decode, .lookup = fake_lookup
};

static ExecutorchLlmTokenizer *
fake_tokenizer (FakeMode mode, guint vocab_size, gint64 eos)
{
  FakeTokenizer *t = g_new0 (FakeTokenizer, 1);
  t->base.vtable = &fake_vtable;
  t->base.format = LLM_TOKENIZER_FORMAT_TIKTOKEN;
  t->base.vocab_size = vocab_size;
  t->base.bos_id = 256;
  t->base.eos_id = eos;
  t->mode = mode;
  return _executorch_llm_tokenizer_new_for_impl (&t->base);
}
