/* token-table.c: byte strings to token ids (open addressing, linear probing)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "token-table.h"

#include <string.h>

typedef struct
{
  const guint8 *bytes;
  guint32 len;
  guint32 id_plus_one; /* 0: an empty slot */
} Slot;

struct _LlmTokenTable
{
  Slot *slots;
  gsize mask; /* the number of slots (a power of two) minus one */
  gsize count;
  gsize max_len; /* no longer string is looked up */
};

/* FNV-1a, 64 bits. */
static guint64
hash_bytes (const guint8 *bytes, gsize len)
{
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  for (gsize i = 0; i < len; i++)
    {
      h ^= bytes[i];
      h *= G_GUINT64_CONSTANT (0x100000001b3);
    }
  return h;
}

static gsize
capacity_for (gsize entries)
{
  gsize capacity = 16;
  while (capacity / 2 < entries)
    capacity *= 2;
  return capacity;
}

LlmTokenTable *
_llm_token_table_new (guint32 expected)
{
  LlmTokenTable *table = g_new0 (LlmTokenTable, 1);
  gsize capacity = capacity_for (expected);
  table->slots = g_new0 (Slot, capacity);
  table->mask = capacity - 1;
  return table;
}

void
_llm_token_table_free (LlmTokenTable *table)
{
  if (table == NULL)
    return;
  g_free (table->slots);
  g_free (table);
}

static Slot *
find_slot (const LlmTokenTable *table, const guint8 *bytes, gsize len)
{
  gsize i = hash_bytes (bytes, len) & table->mask;
  for (;;)
    {
      Slot *slot = &table->slots[i];
      if (slot->id_plus_one == 0 || (slot->len == len && memcmp (slot->bytes, bytes, len) == 0))
        return slot;
      i = (i + 1) & table->mask;
    }
}

static void
grow (LlmTokenTable *table)
{
  Slot *old = table->slots;
  gsize old_capacity = table->mask + 1;
  gsize capacity = old_capacity * 2;
  table->slots = g_new0 (Slot, capacity);
  table->mask = capacity - 1;
  for (gsize i = 0; i < old_capacity; i++)
    if (old[i].id_plus_one != 0)
      *find_slot (table, old[i].bytes, old[i].len) = old[i];
  g_free (old);
}

gboolean
_llm_token_table_insert (LlmTokenTable *table, const guint8 *bytes, gsize len, guint32 id, guint32 *existing)
{
  /* Ids are below G_MAXUINT32 (every vocabulary size is a guint32) and
   * lengths fit 32 bits (a token longer than 4 GiB is no token). */
  g_return_val_if_fail (id < G_MAXUINT32 && len <= G_MAXUINT32, FALSE);
  Slot *slot = find_slot (table, bytes, len);
  if (slot->id_plus_one != 0)
    {
      if (existing != NULL)
        *existing = slot->id_plus_one - 1;
      return FALSE;
    }
  if ((table->count + 1) * 2 > table->mask + 1)
    {
      grow (table);
      slot = find_slot (table, bytes, len);
    }
  slot->bytes = bytes;
  slot->len = (guint32) len;
  table->max_len = MAX (table->max_len, len);
  slot->id_plus_one = id + 1;
  table->count++;
  return TRUE;
}

gboolean
_llm_token_table_lookup (const LlmTokenTable *table, const guint8 *bytes, gsize len, guint32 *id)
{
  if (len > table->max_len)
    return FALSE;
  const Slot *slot = find_slot (table, bytes, len);
  if (slot->id_plus_one == 0)
    return FALSE;
  *id = slot->id_plus_one - 1;
  return TRUE;
}
