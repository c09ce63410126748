/* int-cat.c: cat and split_with_sizes_copy of int8 data between dequantizes and quantizes, on the bytes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * PT2E programs keep cat and split in float between quantizations:
 *
 *   dequantize(x_i) for each i → cat → quantize          (SqueezeNet's fire
 *   dequantize → split_with_sizes_copy → quantize each part  modules,
 *                                                         ShuffleNet v2's units)
 *
 * A part's bytes go through quantize(dequantize(b)) and nothing else, so
 * each part maps its bytes through a table of the 256 results, computed
 * at load with the float kernels' own formulas (int8-fast.c), or copies
 * them where that table gives every byte back (the usual case: the
 * quantizer shares one scale and zero point across a cat or a split).
 * The dequantizes stage their bytes in the float buffers the program
 * planned, the cat or split writes staged bytes, the quantizes copy them
 * out (int-stage.c), as the byte moves do (int-move.c).
 *
 * The parts are list items, which et_method_graph_value_is_pinned()
 * reports pinned; et_method_graph_value_used_only_by() tells that each is
 * used by its dequantize or quantize and the cat or split alone.
 */
#include "int-kernels-private.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* Parts of one list the kernels take (the stack arrays below). */
#define MAX_PARTS 64

typedef struct
{
  EtKernel kernel;
  uint32_t n_parts;
  bool split;
  const uint8_t *tables; /* [n_parts][256]; NULL: bytes unchanged */
  bool *copies;          /* per part: its table gives every byte back */
} ByteListKernel;

/* One cat or split as contiguous rows: each row of the whole holds, in
 * order, a block of each part (its extent along dim times the inner size). */
typedef struct
{
  const ByteListKernel *k;
  uint8_t *whole;
  uint8_t *parts[MAX_PARTS];
  int64_t block[MAX_PARTS];
  int64_t start[MAX_PARTS + 1]; /* of each part's block within a row */
} ListJob;

static void
move_bytes (const ByteListKernel *k, uint32_t part, const uint8_t *in, uint8_t *out, int64_t n)
{
  if (k->tables == NULL || k->copies[part])
    {
      memcpy (out, in, (size_t) n);
      return;
    }
  _executorch_qk_map_table (k->tables + (size_t) part * 256, in, out, n);
}

/* Elements [first, first + n) of the whole, from (cat) or to (split) the
 * parts. */
static void
list_chunk (const void *data, int64_t first, int64_t n)
{
  const ListJob *job = data;
  uint32_t n_parts = job->k->n_parts;
  int64_t row_size = job->start[n_parts], at = first, end = first + n;

  while (at < end)
    {
      int64_t row = at / row_size, pos = at - row * row_size;
      uint32_t p = 0;
      while (pos >= job->start[p + 1])
        p++;
      int64_t len = MIN (job->start[p + 1] - pos, end - at);
      uint8_t *part = job->parts[p] + row * job->block[p] + (pos - job->start[p]);
      if (job->k->split)
        move_bytes (job->k, p, job->whole + at, part, len);
      else
        move_bytes (job->k, p, part, job->whole + at, len);
      at += len;
    }
}

static uint8_t *
bytes_of (EtTensor *t)
{
  return (uint8_t *) t->data + sizeof (StagedBytes);
}

/* cat.out (tensors, dim, out, ret) or split_with_sizes_copy.out (self,
 * split_sizes, dim, out, ret) of staged bytes: the parts laid along dim
 * in the whole, checked against the whole's shape. */
static EtError
list_bytes (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const ByteListKernel *k = et_kernel_context_user_data (ctx);
  QkCall c = { ctx, k != NULL && k->split ? "aten::split_with_sizes_copy.out" : "aten::cat.out", args, n_args };
  uint32_t list_arg, whole_arg;
  const EtValueList *list;
  EtTensor *whole;
  int64_t dim, along = 0, inner = 1;
  ListJob job;

  if (k == NULL)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "no kernel data");
  QK_TRY (_executorch_qk_check_n_args (&c, k->split ? 5 : 4));
  list_arg = k->split ? 3 : 0;
  whole_arg = k->split ? 0 : 2;
  QK_TRY (_executorch_qk_tensor (&c, whole_arg, k->split ? "self" : "out", &whole));
  QK_TRY (_executorch_qk_int (&c, k->split ? 2 : 1, "dim", &dim));
  if (args[list_arg]->tag != ET_VALUE_LIST_TENSOR || args[list_arg]->u.list.length != k->n_parts)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "not a list of %u tensors", k->n_parts);
  list = &args[list_arg]->u.list;
  if (dim < 0)
    dim += whole->ndim;
  if (dim < 0 || dim >= (int64_t) whole->ndim)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "dim out of range");
  for (uint32_t d = (uint32_t) dim + 1; d < whole->ndim; d++)
    inner *= whole->sizes[d];
  job.k = k;
  job.start[0] = 0;
  for (uint32_t p = 0; p < k->n_parts; p++)
    {
      EtTensor *part =
          list->items[p] != NULL && list->items[p]->tag == ET_VALUE_TENSOR ? list->items[p]->u.tensor : NULL;
      bool fits = part != NULL && part->ndim == whole->ndim && part->data != NULL && et_tensor_is_contiguous (part) &&
                  part->nbytes >= sizeof (StagedBytes) + (size_t) part->numel;
      for (uint32_t d = 0; fits && d < whole->ndim; d++)
        fits = d == (uint32_t) dim || part->sizes[d] == whole->sizes[d];
      if (!fits || (!k->split && _executorch_qk_staged_bytes (part) == NULL))
        return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "part %u not staged bytes of the whole's shape", p);
      along += part->sizes[dim];
      job.parts[p] = bytes_of (part);
      job.block[p] = part->sizes[dim] * inner;
      job.start[p + 1] = job.start[p] + job.block[p];
    }
  if (along != whole->sizes[dim] || !et_tensor_is_contiguous (whole) || whole->data == NULL ||
      whole->nbytes < sizeof (StagedBytes) + (size_t) whole->numel ||
      (k->split && _executorch_qk_staged_bytes (whole) == NULL))
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "parts do not make up the whole's staged bytes");
  job.whole = bytes_of (whole);
  if (k->split)
    for (uint32_t p = 0; p < k->n_parts; p++)
      {
        StagedBytes head = { STAGE_BYTES_MAGIC, list->items[p]->u.tensor->numel };
        memcpy (list->items[p]->u.tensor->data, &head, sizeof head);
      }
  else
    {
      StagedBytes head = { STAGE_BYTES_MAGIC, whole->numel };
      memcpy (whole->data, &head, sizeof head);
    }
  _executorch_qk_run_chunked (list_chunk, &job, whole->numel, QK_CHUNKED_BYTES);
  return ET_OK;
}

const EtKernel *
_executorch_qk_byte_list_kernel_new (EtMethodGraph *graph, bool split, uint32_t n_parts, const uint8_t *tables)
{
  size_t table_bytes = tables != NULL ? (size_t) n_parts * 256 : 0;
  size_t size = sizeof (ByteListKernel) + table_bytes + n_parts * sizeof (bool);
  ByteListKernel *k;
  uint8_t *own_tables;

  if (n_parts == 0 || n_parts > MAX_PARTS)
    return NULL;
  k = graph != NULL ? et_method_graph_alloc (graph, size) : g_malloc0 (size);
  if (k == NULL)
    return NULL;
  own_tables = (uint8_t *) (k + 1);
  *k = (ByteListKernel){
    .kernel = { split ? "aten::split_with_sizes_copy.out [int8 bytes]" : "aten::cat.out [int8 bytes]", list_bytes, k },
    .n_parts = n_parts,
    .split = split,
    .tables = tables != NULL ? own_tables : NULL,
    .copies = (bool *) (own_tables + table_bytes)
  };
  if (tables != NULL)
    memcpy (own_tables, tables, table_bytes);
  for (uint32_t p = 0; p < n_parts; p++)
    {
      k->copies[p] = true;
      for (int b = 0; b < 256 && tables != NULL && k->copies[p]; b++)
        k->copies[p] = tables[(size_t) p * 256 + b] == b;
    }
  return &k->kernel;
}

/* ---- the rewrite ---- */

static const EtTensor *
tensor_of (const EtValue *value)
{
  return value != NULL && value->tag == ET_VALUE_TENSOR ? value->u.tensor : NULL;
}

int64_t
_executorch_qk_other_user (EtMethodGraph *graph, const EtValue *value, uint32_t user)
{
  uint32_t n = et_method_graph_n_instructions (graph);
  int64_t found = -1;

  for (uint32_t index = 0; index < n; index++)
    {
      EtValue **args;
      uint32_t n_args;
      bool uses = false;

      if (index == user)
        continue;
      args = et_method_graph_args (graph, index, &n_args);
      for (uint32_t i = 0; i < n_args; i++)
        uses |= args[i] == value;
      if (!uses)
        continue;
      if (found >= 0)
        return -1;
      found = index;
    }
  return found;
}

bool
_executorch_qk_used_only_by_pair (EtMethodGraph *graph, const EtValue *value, uint32_t a, uint32_t b)
{
  uint32_t users[] = { a, b };
  return et_method_graph_value_used_only_by (graph, value, users, 2);
}

/* table[b] = the quantize of the dequantized byte b, with the float steps
 * of the kernels they replace (int8-fast.c); false where the quantize's
 * zero point is outside what those steps hold exactly. */
static bool
requant_table (const QkByteSource *source, const QkRequant *rq, uint8_t table[256])
{
  if (rq->zero_point < -(1 << 24) || rq->zero_point > (1 << 24))
    return false;
  for (int b = 0; b < 256; b++)
    {
      int32_t x = source->is_signed ? (int32_t) (int8_t) b : b;
      float v = (float) (x - source->zero_point) * source->scale;
      _executorch_qk_quantize_float_to_8bit (&v, &table[b], rq->is_signed, 1, rq->scale, rq->zero_point, rq->qmin,
                                             rq->qmax);
    }
  return true;
}

/* A registered @name kernel at @index with @n_args arguments, its list
 * argument @list_arg a list of 1 to MAX_PARTS distinct tensors. */
static EtValue **
list_op (EtMethodGraph *graph, uint32_t index, const char *name, uint32_t n_args, uint32_t list_arg)
{
  const EtKernel *kernel = et_method_graph_kernel (graph, index);
  EtValue **args;
  uint32_t got;
  const EtValueList *list;

  if (kernel == NULL || strcmp (kernel->name, name) != 0 || !_executorch_qk_is_registered (kernel))
    return NULL;
  args = et_method_graph_args (graph, index, &got);
  if (got != n_args || args[list_arg]->tag != ET_VALUE_LIST_TENSOR)
    return NULL;
  list = &args[list_arg]->u.list;
  if (list->length == 0 || list->length > MAX_PARTS)
    return NULL;
  for (uint32_t p = 0; p < list->length; p++)
    if (tensor_of (list->items[p]) == NULL)
      return NULL;
  return args;
}

/* split_with_sizes_copy.out (self, split_sizes, dim, out, ret) of @self,
 * each part read by a quantize alone: in *quantizes. */
static bool
split_quantizes (EtMethodGraph *graph, uint32_t split, const EtValue *self, int64_t *quantizes, QkRequant *rqs)
{
  EtValue **args = list_op (graph, split, "aten::split_with_sizes_copy.out", 5, 3);
  const EtValueList *parts;

  if (args == NULL || args[0] != self || args[2]->tag != ET_VALUE_INT)
    return false;
  parts = &args[3]->u.list;
  /* the return slot, if a list, restates the parts */
  if (args[4]->tag == ET_VALUE_LIST_TENSOR &&
      (args[4]->u.list.length != parts->length ||
       memcmp (args[4]->u.list.items, parts->items, parts->length * sizeof (EtValue *)) != 0))
    return false;
  if (args[4]->tag != ET_VALUE_LIST_TENSOR && args[4]->tag != ET_VALUE_NONE)
    return false;
  for (uint32_t p = 0; p < parts->length; p++)
    {
      const EtValue *part = parts->items[p];
      for (uint32_t q = 0; q < p; q++)
        if (parts->items[q] == part)
          return false;
      if (part == self || (quantizes[p] = _executorch_qk_other_user (graph, part, split)) < 0 ||
          quantizes[p] <= split || !_executorch_qk_used_only_by_pair (graph, part, split, (uint32_t) quantizes[p]) ||
          !_executorch_qk_match_final_quantize (graph, (uint32_t) quantizes[p], tensor_of (part), &rqs[p]))
        return false;
    }
  return true;
}

const EtKernel *
_executorch_qk_byte_split_kernel (EtMethodGraph *graph, uint32_t split, const EtValue *self, const QkByteSource *source)
{
  int64_t quantizes[MAX_PARTS];
  QkRequant rqs[MAX_PARTS];
  uint8_t tables[MAX_PARTS][256];
  uint32_t n_parts;

  if (!split_quantizes (graph, split, self, quantizes, rqs))
    return NULL;
  n_parts = et_method_graph_args (graph, split, &(uint32_t){ 0 })[3]->u.list.length;
  for (uint32_t p = 0; p < n_parts; p++)
    if (!requant_table (source, &rqs[p], tables[p]))
      return NULL;
  return _executorch_qk_byte_list_kernel_new (graph, true, n_parts, &tables[0][0]);
}

void
_executorch_qk_byte_split_install (EtMethodGraph *graph, uint32_t split, const EtKernel *kernel)
{
  EtValue **args = et_method_graph_args (graph, split, &(uint32_t){ 0 });
  const EtValueList *parts = &args[3]->u.list;

  et_method_graph_set_kernel (graph, split, kernel);
  for (uint32_t p = 0; p < parts->length; p++)
    et_method_graph_set_kernel (graph, (uint32_t) _executorch_qk_other_user (graph, parts->items[p], split),
                                &_executorch_qk_unstage_bytes_kernel);
}

/* cat.out (tensors, dim, out, ret) at @cat, each part dequantized by a
 * dequantize of its own into it, read by the cat alone, and the result
 * read by a quantize alone. */
static void
rewrite_byte_cat (EtMethodGraph *graph, uint32_t cat)
{
  EtValue **args = list_op (graph, cat, "aten::cat.out", 4, 0);
  int64_t deqs[MAX_PARTS], quantize;
  uint8_t tables[MAX_PARTS][256];
  const EtValueList *parts;
  const EtKernel *kernel;
  QkRequant rq = { .lo = -INFINITY, .hi = INFINITY };

  if (args == NULL || args[1]->tag != ET_VALUE_INT || args[2] != args[3])
    return;
  parts = &args[0]->u.list;
  if ((quantize = _executorch_qk_other_user (graph, args[2], cat)) <= cat ||
      !_executorch_qk_used_only_by_pair (graph, args[2], cat, (uint32_t) quantize) ||
      !_executorch_qk_match_final_quantize (graph, (uint32_t) quantize, tensor_of (args[2]), &rq))
    return;
  for (uint32_t p = 0; p < parts->length; p++)
    {
      EtValue *staged;
      QkByteSource source;
      if (parts->items[p] == args[2] || (deqs[p] = _executorch_qk_other_user (graph, parts->items[p], cat)) < 0 ||
          deqs[p] >= cat || !_executorch_qk_used_only_by_pair (graph, parts->items[p], (uint32_t) deqs[p], cat) ||
          !_executorch_qk_match_byte_dequantize (graph, (uint32_t) deqs[p], &staged, &source) ||
          staged != parts->items[p] || !requant_table (&source, &rq, tables[p]))
        return;
    }
  kernel = _executorch_qk_byte_list_kernel_new (graph, false, parts->length, &tables[0][0]);
  if (kernel == NULL || et_method_graph_set_kernel (graph, cat, kernel) != ET_OK)
    return;
  for (uint32_t p = 0; p < parts->length; p++)
    et_method_graph_set_kernel (graph, (uint32_t) deqs[p], &_executorch_qk_stage_bytes_kernel);
  et_method_graph_set_kernel (graph, (uint32_t) quantize, &_executorch_qk_unstage_bytes_kernel);
}

void
_executorch_qk_rewrite_byte_cats (EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph);

  for (uint32_t cat = 0; cat < n; cat++)
    rewrite_byte_cat (graph, cat);
}
