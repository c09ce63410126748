/* ptd.c: external tensor data files (.ptd, "FlatTensor")
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "program-private.h"

#include <string.h>

enum
{
  FLAT_TENSOR_VERSION,
  FLAT_TENSOR_SEGMENTS,
  FLAT_TENSOR_NAMED_DATA
};
enum
{
  SEGMENT_OFFSET,
  SEGMENT_SIZE
};
enum
{
  NAMED_KEY,
  NAMED_SEGMENT_INDEX,
  NAMED_TENSOR_LAYOUT
};
enum
{
  LAYOUT_SCALAR_TYPE,
  LAYOUT_SIZES,
  LAYOUT_DIM_ORDER
};

#define PTD_HEADER_LENGTH 40

void
_et_ptd_free (EtPtd *ptd)
{
  if (ptd == NULL)
    return;
  for (guint i = 0; i < ptd->n_blobs; i++)
    g_free (ptd->blobs[i].key);
  g_free (ptd->blobs);
  g_bytes_unref (ptd->bytes);
  g_free (ptd);
}

static gboolean
read_layout (EtFb *fb, EtFbTable layout, EtNamedBlob *blob)
{
  EtFbVector sizes = _et_fb_vector (fb, layout, LAYOUT_SIZES, 4, "TensorLayout.sizes");
  EtFbVector dim_order = _et_fb_vector (fb, layout, LAYOUT_DIM_ORDER, 1, "TensorLayout.dim_order");

  blob->has_layout = TRUE;
  blob->scalar_type = _et_fb_i8 (fb, layout, LAYOUT_SCALAR_TYPE, 0);
  if (!_et_fb_ok (fb))
    return FALSE;
  if (sizes.length > ET_MAX_DIMS || sizes.length != dim_order.length)
    {
      _et_fb_fail (fb, ET_ERROR_INVALID_EXTERNAL_DATA,
                   "tensor %s: layout has %u sizes and %u dim_order "
                   "entries",
                   blob->key, sizes.length, dim_order.length);
      return FALSE;
    }
  blob->ndim = sizes.length;
  for (guint32 i = 0; i < blob->ndim; i++)
    {
      blob->sizes[i] = _et_fb_vector_i32 (fb, sizes, i);
      blob->dim_order[i] = _et_fb_vector_u8 (fb, dim_order, i);
    }
  return TRUE;
}

EtPtd *
_et_ptd_load (GBytes *bytes, GError **error)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  guint64 flatbuffer_offset, flatbuffer_size, base, data_size, region;
  EtFbVector segments, named;
  EtFbTable root;
  EtPtd *ptd;
  EtFb fb;

  if (size < 8 + PTD_HEADER_LENGTH || memcmp (data + 4, "FT01", 4) != 0 || memcmp (data + 8, "FH01", 4) != 0)
    {
      _et_set_error (error, ET_ERROR_INVALID_EXTERNAL_DATA,
                     "not an external data file: no \"FT01\" identifier and \"FH01\" header");
      return NULL;
    }
  if (_et_le32 (data + 12) < PTD_HEADER_LENGTH)
    {
      _et_set_error (error, ET_ERROR_INVALID_EXTERNAL_DATA, "external data header length %u is less than %d",
                     _et_le32 (data + 12), PTD_HEADER_LENGTH);
      return NULL;
    }
  flatbuffer_offset = _et_le64 (data + 16);
  flatbuffer_size = _et_le64 (data + 24);
  base = _et_le64 (data + 32);
  data_size = _et_le64 (data + 40);
  if (flatbuffer_offset > size || flatbuffer_size > size - flatbuffer_offset || base > size || data_size > size - base)
    {
      _et_set_error (error, ET_ERROR_INVALID_EXTERNAL_DATA,
                     "external data header describes regions past the "
                     "end of the file (%" G_GSIZE_FORMAT " bytes)",
                     size);
      return NULL;
    }
  region = flatbuffer_offset + flatbuffer_size;

  _et_fb_init (&fb, data, (gsize) region, "external data file", ET_ERROR_INVALID_EXTERNAL_DATA);
  root = _et_fb_root (&fb, 0, "FlatTensor");
  segments = _et_fb_vector (&fb, root, FLAT_TENSOR_SEGMENTS, 4, "FlatTensor.segments");
  named = _et_fb_vector (&fb, root, FLAT_TENSOR_NAMED_DATA, 4, "FlatTensor.named_data");
  if (!_et_fb_take_error (&fb, error))
    return NULL;

  ptd = g_new0 (EtPtd, 1);
  ptd->bytes = g_bytes_ref (bytes);
  ptd->blobs = g_new0 (EtNamedBlob, named.length);
  for (guint32 i = 0; i < named.length && _et_fb_ok (&fb); i++)
    {
      EtFbTable entry = _et_fb_vector_table (&fb, named, i, "FlatTensor.named_data");
      EtNamedBlob *blob = &ptd->blobs[ptd->n_blobs];
      const char *key = _et_fb_string (&fb, entry, NAMED_KEY, NULL, "NamedData.key");
      guint32 index = _et_fb_u32 (&fb, entry, NAMED_SEGMENT_INDEX, 0);
      EtFbTable layout = _et_fb_table (&fb, entry, NAMED_TENSOR_LAYOUT, "NamedData.tensor_layout");
      EtFbTable segment;
      guint64 offset, length;

      if (!_et_fb_ok (&fb))
        break;
      if (key == NULL || index >= segments.length)
        {
          _et_fb_fail (&fb, ET_ERROR_INVALID_EXTERNAL_DATA, "named data %u: %s", i,
                       key == NULL ? "no key" : "segment index out of range");
          break;
        }
      segment = _et_fb_vector_table (&fb, segments, index, "FlatTensor.segments");
      offset = _et_fb_u64 (&fb, segment, SEGMENT_OFFSET, 0);
      length = _et_fb_u64 (&fb, segment, SEGMENT_SIZE, 0);
      if (offset > data_size || length > data_size - offset)
        {
          _et_fb_fail (&fb, ET_ERROR_INVALID_EXTERNAL_DATA,
                       "tensor %s: segment %u (offset %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                       " bytes) lies outside the segment data",
                       key, index, offset, length);
          break;
        }
      for (guint j = 0; j < ptd->n_blobs; j++)
        if (strcmp (ptd->blobs[j].key, key) == 0)
          _et_fb_fail (&fb, ET_ERROR_INVALID_EXTERNAL_DATA, "key %s appears twice", key);
      blob->key = g_strdup (key);
      blob->data = data + base + offset;
      blob->size = length;
      ptd->n_blobs++;
      if (layout.present)
        read_layout (&fb, layout, blob);
    }
  if (!_et_fb_take_error (&fb, error))
    {
      _et_ptd_free (ptd);
      return NULL;
    }
  return ptd;
}
