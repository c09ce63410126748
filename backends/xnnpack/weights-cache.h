/* weights-cache.h: an XNNPACK weights cache whose packed weights lie on huge pages
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <xnnpack.h>

#include "xnnpack-api.h"

/* Where XNNPACK takes a weights cache provider (the 2024 library). */
#if defined(HAVE_XNN_WEIGHTS_CACHE_PROVIDER) && defined(HAVE_XNN_CREATE_RUNTIME_V3)
#define XB_HAVE_OWN_WEIGHTS_CACHE 1

typedef struct _XbWeightsCache XbWeightsCache;

XbWeightsCache *xb_weights_cache_new (void);
void xb_weights_cache_free (XbWeightsCache *cache);
/* What runtimes are created with. */
xnn_weights_cache_t xb_weights_cache_provider (XbWeightsCache *cache);
/* From now on only weights already in the cache are accepted. */
void xb_weights_cache_finalize (XbWeightsCache *cache);
/* The number of packed weights held. */
guint xb_weights_cache_count (XbWeightsCache *cache);
#endif
