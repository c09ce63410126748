/* token-table.h: byte strings to token ids, for the BPE tokenizers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An open-addressing hash table keyed by byte strings that the caller
 * owns and keeps alive (each format stores its tokens' bytes once, for
 * decoding, and points the table at them).  Lookups take any (pointer,
 * length), so a merge candidate inside the input is looked up in place.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _LlmTokenTable LlmTokenTable;

/* A table sized for about @expected entries (it grows past that). */
LlmTokenTable *_llm_token_table_new (guint32 expected);
void _llm_token_table_free (LlmTokenTable *table);

/* Adds @bytes (@len of them; not copied) as token @id.  When those bytes
 * are in already, changes nothing, sets *@existing to their id and returns
 * FALSE. */
gboolean _llm_token_table_insert (LlmTokenTable *table, const guint8 *bytes, gsize len, guint32 id, guint32 *existing);
gboolean _llm_token_table_lookup (const LlmTokenTable *table, const guint8 *bytes, gsize len, guint32 *id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LlmTokenTable, _llm_token_table_free)

G_END_DECLS
