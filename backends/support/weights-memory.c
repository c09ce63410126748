/* weights-memory.c: memory for packed weights, on huge pages where the kernel has them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An LLM's decode step streams every packed weight from memory once, 4 KiB
 * page after 4 KiB page: the hardware prefetchers stop at each page's end
 * and every page costs a TLB miss.  On 2 MiB pages the same loop runs
 * faster (a 15M-parameter llama's decode step by a quarter on this
 * project's bench).  Linux gives anonymous memory huge pages only where
 * asked (transparent_hugepage "madvise", Debian's default), so blocks get
 * mappings aligned to 2 MiB and marked MADV_HUGEPAGE.  Where the kernel has
 * no huge pages the mark is ignored and the mapping is plain memory.
 *
 * A huge page must lie whole inside one mapping, and most packed weights
 * are smaller than one (a small llama's linears: 0.3-1 MiB), so blocks of
 * 64 KiB and more are carved one after another out of shared chunks of
 * 4 MiB, and a chunk is unmapped when its last block is freed.  Blocks too
 * big for a chunk get a mapping of their own; small ones come from the
 * heap.  Each block is preceded by a header that says where it came from.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* secure_getenv, MADV_HUGEPAGE */
#endif
#include "support-private.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t) 2 << 20)
#define CHUNK_BYTES (2 * HUGE_PAGE)
/* Smaller blocks come from the heap. */
#define SMALLEST_MAPPED ((size_t) 64 << 10)
#define HEADER_MAGIC UINT64_C (0x6574776569676874) /* "etweight" */

typedef struct
{
  char *base;
  size_t used;   /* bytes handed out, from base */
  size_t blocks; /* blocks not freed yet */
} Chunk;

typedef struct
{
  uint64_t magic;
  void *base;       /* the heap block or the block's own mapping */
  size_t map_bytes; /* the own mapping's length; 0 otherwise */
  Chunk *chunk;     /* the chunk the block lies in, or NULL */
} WeightsHeader;

static GMutex chunk_lock;
static Chunk *current_chunk; /* the one new blocks are carved from */

#ifdef EXECUTORCH_SUPPORT_UNDER_ASAN
static bool
huge_pages_wanted (void)
{
  return false;
}
#else
/* 0 not decided yet, 1 yes, 2 no. */
static int huge_state;

static bool
huge_pages_wanted (void)
{
  int s = __atomic_load_n (&huge_state, __ATOMIC_ACQUIRE);

  if (s == 0)
    {
      const char *value = secure_getenv ("EXECUTORCH_WEIGHTS_HUGE_PAGES");
      s = value != NULL && strcmp (value, "0") == 0 ? 2 : 1;
      __atomic_store_n (&huge_state, s, __ATOMIC_RELEASE);
    }
  return s == 1;
}
#endif

/* A 2 MiB-aligned mapping of @bytes (a multiple of the page size), marked
 * for huge pages; NULL when it cannot be mapped. */
static char *
map_aligned (size_t bytes)
{
  size_t over = bytes + HUGE_PAGE;
  char *raw = mmap (NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (raw == MAP_FAILED)
    return NULL;
  char *start = (char *) (((uintptr_t) raw + HUGE_PAGE - 1) & ~(uintptr_t) (HUGE_PAGE - 1));
  if (start > raw)
    munmap (raw, (size_t) (start - raw));
  if (start + bytes < raw + over)
    munmap (start + bytes, (size_t) (raw + over - (start + bytes)));
  /* Advice only: EINVAL where the kernel has no transparent huge pages. */
  madvise (start, bytes, MADV_HUGEPAGE);
  return start;
}

static void
chunk_free (Chunk *chunk)
{
  munmap (chunk->base, CHUNK_BYTES);
  g_free (chunk);
}

/* @bytes (header included, a multiple of @alignment) from the current
 * chunk, or a new one; NULL when no chunk can be mapped. */
static char *
carve (size_t bytes, size_t alignment, Chunk **chunk_out)
{
  g_mutex_lock (&chunk_lock);
  Chunk *chunk = current_chunk;
  size_t offset = chunk != NULL ? (chunk->used + alignment - 1) & ~(alignment - 1) : 0;
  if (chunk == NULL || offset + bytes > CHUNK_BYTES)
    {
      char *base = map_aligned (CHUNK_BYTES);
      if (base == NULL)
        {
          g_mutex_unlock (&chunk_lock);
          return NULL;
        }
      if (chunk != NULL && chunk->blocks == 0)
        chunk_free (chunk);
      chunk = g_new0 (Chunk, 1);
      chunk->base = base;
      current_chunk = chunk;
      offset = 0;
    }
  chunk->used = offset + bytes;
  chunk->blocks++;
  g_mutex_unlock (&chunk_lock);
  *chunk_out = chunk;
  return chunk->base + offset;
}

static void
uncarve (Chunk *chunk)
{
  g_mutex_lock (&chunk_lock);
  if (--chunk->blocks == 0 && chunk != current_chunk)
    chunk_free (chunk);
  g_mutex_unlock (&chunk_lock);
}

void *
_executorch_support_weights_alloc (size_t size, size_t alignment)
{
  if (alignment < sizeof (WeightsHeader))
    alignment = sizeof (WeightsHeader);
  if ((alignment & (alignment - 1)) != 0 || alignment > 4096 || size > SIZE_MAX - alignment - 2 * HUGE_PAGE)
    return NULL;

  /* the header sits in the @alignment bytes before the block */
  size_t bytes = (size + 2 * alignment - 1) & ~(alignment - 1);
  WeightsHeader header = { HEADER_MAGIC, NULL, 0, NULL };
  char *start = NULL;
  if (size >= SMALLEST_MAPPED && huge_pages_wanted ())
    {
      if (bytes <= CHUNK_BYTES)
        start = carve (bytes, alignment, &header.chunk);
      else
        {
          header.map_bytes = (bytes + 4095) & ~(size_t) 4095;
          start = map_aligned (header.map_bytes);
          header.base = start;
          if (start == NULL)
            header.map_bytes = 0;
        }
    }
  if (start == NULL)
    {
      void *heap = NULL;
      if (posix_memalign (&heap, alignment, bytes) != 0)
        return NULL;
      start = heap;
      header.base = heap;
    }

  char *p = start + alignment;
  memcpy (p - sizeof header, &header, sizeof header);
  return p;
}

void
_executorch_support_weights_free (void *p)
{
  WeightsHeader header;

  if (p == NULL)
    return;
  memcpy (&header, (char *) p - sizeof header, sizeof header);
  g_return_if_fail (header.magic == HEADER_MAGIC);
  if (header.chunk != NULL)
    uncarve (header.chunk);
  else if (header.map_bytes > 0)
    munmap (header.base, header.map_bytes);
  else
    free (header.base);
}
