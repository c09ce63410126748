/* ptd-writer.h: a .ptd of opaque named blobs, for tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

typedef struct
{
  const char *key;
  const void *data;
  gsize size;
} PtdBlob;

GBytes *ptd_write (const PtdBlob *blobs, guint n_blobs);
