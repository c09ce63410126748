/* weights-cache.c: an XNNPACK weights cache whose packed weights lie on huge pages
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Where XNNPACK takes a weights cache provider (the 2024 library), the
 * delegate gives it this one instead of XNNPACK's own, whose buffer XNNPACK
 * maps itself on small pages.  It keeps the default cache's rules: packed
 * weights are found by their bytes (a second runtime packs its weights
 * again and finds them), and once finalized, only weights already in the
 * cache are accepted.  Each entry is its own block of weights-memory.c,
 * so nothing moves when the cache grows; an offset is an entry's index.
 */
#include "weights-cache.h"

#ifdef XB_HAVE_OWN_WEIGHTS_CACHE

#include "support-private.h"

#include <string.h>

#define NOT_FOUND SIZE_MAX

typedef struct
{
  void *data;
  size_t size;
  guint64 hash;
} Entry;

struct _XbWeightsCache
{
  struct xnn_weights_cache_provider provider; /* what XNNPACK holds */
  GMutex lock;
  GArray *entries;     /* Entry, by offset */
  GPtrArray *reserved; /* blocks handed out, not inserted yet */
  gboolean finalized;
};

/* Packed weights are whole words mostly: eight bytes a step. */
static guint64
hash_bytes (const void *data, size_t size)
{
  const unsigned char *p = data;
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325) ^ size;
  size_t i = 0;

  for (; i + 8 <= size; i += 8)
    {
      guint64 w;
      memcpy (&w, p + i, 8);
      h = (h ^ w) * G_GUINT64_CONSTANT (0x100000001b3);
      h ^= h >> 29;
    }
  for (; i < size; i++)
    h = (h ^ p[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  return h;
}

/* The entry holding these bytes, or NOT_FOUND.  Under the lock. */
static size_t
find (XbWeightsCache *cache, const void *data, size_t size, guint64 hash)
{
  for (guint i = 0; i < cache->entries->len; i++)
    {
      const Entry *e = &g_array_index (cache->entries, Entry, i);
      if (e->hash == hash && e->size == size && memcmp (e->data, data, size) == 0)
        return i;
    }
  return NOT_FOUND;
}

static size_t
look_up (void *context, const struct xnn_weights_cache_look_up_key *key)
{
  /* As XNNPACK's own cache: weights are found by their bytes only. */
  return NOT_FOUND;
}

static void *
reserve_space (void *context, size_t n)
{
  XbWeightsCache *cache = context;
  void *block = _executorch_support_weights_alloc (MAX (n, 1), 64);

  if (block == NULL)
    return NULL;
  /* Zeroed, as the fresh pages of XNNPACK's own cache are: packing
   * finds the same bytes it would find there. */
  memset (block, 0, n);
  g_mutex_lock (&cache->lock);
  g_ptr_array_add (cache->reserved, block);
  g_mutex_unlock (&cache->lock);
  return block;
}

static size_t
look_up_or_insert (void *context, const struct xnn_weights_cache_look_up_key *key, void *ptr, size_t size)
{
  XbWeightsCache *cache = context;
  guint64 hash = hash_bytes (ptr, size);

  g_mutex_lock (&cache->lock);
  size_t offset = find (cache, ptr, size, hash);
  /* A block of ours leaves the reserved list: kept as a new entry, or
   * freed when its bytes are there already. */
  guint index;
  gboolean ours = g_ptr_array_find (cache->reserved, ptr, &index);
  if (ours)
    g_ptr_array_steal_index_fast (cache->reserved, index);
  if (offset == NOT_FOUND && !cache->finalized)
    {
      Entry e = { ptr, size, hash };
      if (!ours)
        {
          e.data = _executorch_support_weights_alloc (MAX (size, 1), 64);
          if (e.data != NULL)
            memcpy (e.data, ptr, size);
        }
      if (e.data != NULL)
        {
          g_array_append_val (cache->entries, e);
          offset = cache->entries->len - 1;
          ours = FALSE;
        }
    }
  g_mutex_unlock (&cache->lock);
  if (ours)
    _executorch_support_weights_free (ptr);
  return offset;
}

static bool
is_finalized (void *context)
{
  XbWeightsCache *cache = context;

  g_mutex_lock (&cache->lock);
  gboolean finalized = cache->finalized;
  g_mutex_unlock (&cache->lock);
  return finalized;
}

static void *
offset_to_addr (void *context, size_t offset)
{
  XbWeightsCache *cache = context;
  void *addr = NULL;

  g_mutex_lock (&cache->lock);
  if (offset < cache->entries->len)
    addr = g_array_index (cache->entries, Entry, offset).data;
  g_mutex_unlock (&cache->lock);
  return addr;
}

static enum xnn_status
delete_cache (void *context)
{
  xb_weights_cache_free (context);
  return xnn_status_success;
}

XbWeightsCache *
xb_weights_cache_new (void)
{
  XbWeightsCache *cache = g_new0 (XbWeightsCache, 1);

  cache->provider = (struct xnn_weights_cache_provider) {
    .context = cache,
    .look_up = look_up,
    .reserve_space = reserve_space,
    .look_up_or_insert = look_up_or_insert,
    .is_finalized = is_finalized,
    .offset_to_addr = offset_to_addr,
    .delete_cache = delete_cache,
  };
  g_mutex_init (&cache->lock);
  cache->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  cache->reserved = g_ptr_array_new_with_free_func (_executorch_support_weights_free);
  return cache;
}

xnn_weights_cache_t
xb_weights_cache_provider (XbWeightsCache *cache)
{
  return &cache->provider;
}

void
xb_weights_cache_finalize (XbWeightsCache *cache)
{
  g_mutex_lock (&cache->lock);
  cache->finalized = TRUE;
  g_mutex_unlock (&cache->lock);
}

guint
xb_weights_cache_count (XbWeightsCache *cache)
{
  g_mutex_lock (&cache->lock);
  guint n = cache->entries->len;
  g_mutex_unlock (&cache->lock);
  return n;
}

void
xb_weights_cache_free (XbWeightsCache *cache)
{
  if (cache == NULL)
    return;
  for (guint i = 0; i < cache->entries->len; i++)
    _executorch_support_weights_free (g_array_index (cache->entries, Entry, i).data);
  g_array_unref (cache->entries);
  g_ptr_array_unref (cache->reserved);
  g_mutex_clear (&cache->lock);
  g_free (cache);
}

#endif
