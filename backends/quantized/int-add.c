/* int-add.c: a residual add of int8 activations, on their bytes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A PT2E int8 program adds a block's result to the block's input in float:
 *
 *   dequantize_per_tensor (bytes) -> add.out (x, that, alpha 1) -> [relu | hardtanh] -> quantize_per_tensor
 *
 * three passes over float memory for every residual connection.  Where
 * the dequantize's result is read by the add alone and the add's result
 * by the quantize alone, the dequantize stages its bytes (int-stage.c),
 * the add dequantizes them, adds x and quantizes, a piece at a time in
 * L1, with int8-fast.c's own steps (so the bytes are the three
 * instructions' bytes: a float add does not depend on its operands'
 * order, and 1 * x is x), and the quantize copies the bytes out.
 */
#include "int-kernels-private.h"

#include <glib.h>
#include <math.h>
#include <string.h>

typedef struct
{
  EtKernel kernel;
  uint32_t staged_arg; /* the add's argument holding the staged bytes: 0 or 1 */
  QkByteSource source; /* what those bytes are */
  QkRequant out;       /* the quantize's arguments, lo and hi the activation's bounds */
} QkByteAdd;

/* Elements dequantized, added and quantized at once: a float row in L1. */
#define PIECE 256

typedef struct
{
  const QkByteAdd *add;
  const uint8_t *bytes;
  const float *other;
  uint8_t *out;
} AddJob;

static void
add_chunk (const void *data, int64_t first, int64_t n)
{
  const AddJob *job = data;
  const QkByteSource *src = &job->add->source;
  const QkRequant *rq = &job->add->out;
  const float *other = job->other;
  /* in locals: the float stores below may alias the struct's fields */
  float lo = rq->lo, hi = rq->hi, v[PIECE];

  for (int64_t i = first; i < first + n; i += PIECE)
    {
      int64_t m = MIN (PIECE, first + n - i);
      _executorch_qk_dequantize_8bit_to_float (job->bytes + i, src->is_signed, v, m, src->zero_point, src->scale);
      for (int64_t j = 0; j < m; j++)
        {
          /* the float relu and hardtanh: max with lo, then min with hi */
          float x = v[j] + other[i + j];
          x = x < lo ? lo : x;
          v[j] = x > hi ? hi : x;
        }
      _executorch_qk_quantize_float_to_8bit (v, job->out + i, rq->is_signed, m, rq->scale, rq->zero_point, rq->qmin,
                                             rq->qmax);
    }
}

static bool
spans_overlap (const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
  uintptr_t x = (uintptr_t) a, y = (uintptr_t) b;

  return x < y + b_bytes && y < x + a_bytes;
}

/* add.out (self, other, alpha, out, ret): one of self and other the
 * staged bytes, the other a float tensor of as many elements; the sum's
 * bytes staged into out. */
static EtError
byte_add (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  const QkByteAdd *add = et_kernel_context_user_data (ctx);
  QkCall c = { ctx, "aten::add.out", args, n_args };
  EtTensor *staged, *other, *out;
  StagedBytes head;

  QK_TRY (_executorch_qk_check_n_args (&c, 5));
  QK_TRY (_executorch_qk_tensor (&c, add->staged_arg, add->staged_arg == 0 ? "self" : "other", &staged));
  QK_TRY (_executorch_qk_tensor (&c, 1 - add->staged_arg, add->staged_arg == 0 ? "other" : "self", &other));
  QK_TRY (_executorch_qk_tensor (&c, 3, "out", &out));
  if (_executorch_qk_staged_bytes (staged) == NULL || other->scalar_type != ET_SCALAR_FLOAT ||
      !et_tensor_is_contiguous (other) || other->numel != staged->numel || other->data == NULL ||
      other->nbytes < (size_t) other->numel * sizeof (float))
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "the inputs are not staged bytes and floats of their size");
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", other));
  size_t n = (size_t) other->numel;
  if (out->data == NULL || out->nbytes < sizeof head + n)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "out cannot hold the sum's bytes");
  uint8_t *dst = (uint8_t *) out->data + sizeof head;
  /* The memory plan may put the result over an input whose life ends
   * here: then it is made aside first. */
  bool aside = spans_overlap (out->data, sizeof head + n, staged->data, sizeof head + n) ||
               spans_overlap (out->data, sizeof head + n, other->data, n * sizeof (float));
  uint8_t *result = aside ? et_kernel_context_scratch (ctx, n) : dst;
  if (result == NULL)
    return _executorch_qk_fail (&c, ET_ERROR_MEMORY_ALLOCATION_FAILED, "no scratch memory for the sum's bytes");
  AddJob job = { add, (const uint8_t *) staged->data + sizeof head, other->data, result };
  _executorch_qk_run_chunked (add_chunk, &job, (int64_t) n, QK_CHUNKED_FLOAT);
  if (aside)
    memcpy (dst, result, n);
  head = (StagedBytes){ STAGE_BYTES_MAGIC, (int64_t) n };
  memcpy (out->data, &head, sizeof head);
  return ET_OK;
}

const EtKernel *
_executorch_qk_byte_add_kernel_new (EtMethodGraph *graph, uint32_t staged_arg, const QkByteSource *source,
                                    const QkRequant *rq)
{
  if (staged_arg > 1)
    return NULL;
  QkByteAdd *k = graph != NULL ? et_method_graph_alloc (graph, sizeof *k) : g_new0 (QkByteAdd, 1);
  if (k == NULL)
    return NULL;
  *k = (QkByteAdd){ { "aten::add.out [int8 bytes]", byte_add, k }, staged_arg, *source, *rq };
  return &k->kernel;
}

/* ---- the rewrite ---- */

static const EtTensor *
tensor_of (const EtValue *value)
{
  return value != NULL && value->tag == ET_VALUE_TENSOR ? value->u.tensor : NULL;
}

static bool
is_one (const EtValue *value)
{
  return (value->tag == ET_VALUE_INT && value->u.int_value == 1) ||
         (value->tag == ET_VALUE_DOUBLE && value->u.double_value == 1.0);
}

/* Argument @arg of the add at @add: a float result of a dequantize read
 * by it alone, which can stage its bytes there.  The dequantize in *deq. */
static bool
staged_input (EtMethodGraph *graph, uint32_t add, EtValue **args, uint32_t arg, int64_t *deq, QkByteSource *source)
{
  EtValue *staged;

  return args[arg] != args[1 - arg] && (*deq = _executorch_qk_other_user (graph, args[arg], add)) >= 0 && *deq < add &&
         _executorch_qk_used_only_by_pair (graph, args[arg], (uint32_t) *deq, add) &&
         _executorch_qk_match_byte_dequantize (graph, (uint32_t) *deq, &staged, source) && staged == args[arg];
}

/* A finite Float or Int scalar argument as the float kernels read it. */
static bool
float_bound (const EtValue *value, float *out)
{
  if (value->tag == ET_VALUE_DOUBLE)
    *out = (float) value->u.double_value;
  else if (value->tag == ET_VALUE_INT && value->u.int_value >= -(1 << 24) && value->u.int_value <= (1 << 24))
    *out = (float) value->u.int_value;
  else
    return false;
  return isfinite (*out);
}

/* relu.out (self, out, ret) or hardtanh.out (self, min, max, out, ret) of
 * @value at @index, registered: its bounds into *rq and its result. */
static const EtValue *
activation (EtMethodGraph *graph, uint32_t index, const EtValue *value, QkRequant *rq)
{
  const EtKernel *kernel = et_method_graph_kernel (graph, index);
  uint32_t n_args;
  EtValue **args = et_method_graph_args (graph, index, &n_args);

  if (kernel == NULL || !_executorch_qk_is_registered (kernel) || n_args < 3 || args[0] != value ||
      args[n_args - 2] != args[n_args - 1] || args[n_args - 2] == value)
    return NULL;
  if (strcmp (kernel->name, "aten::relu.out") == 0 && n_args == 3)
    rq->lo = 0.0f;
  else if (!(strcmp (kernel->name, "aten::hardtanh.out") == 0 && n_args == 5 && float_bound (args[1], &rq->lo) &&
             float_bound (args[2], &rq->hi) && rq->lo <= rq->hi))
    return NULL;
  return args[n_args - 2];
}

static void
rewrite_byte_add (EtMethodGraph *graph, uint32_t add)
{
  const EtKernel *kernel = et_method_graph_kernel (graph, add);
  const EtTensor *a, *b, *sum;
  EtValue **args;
  uint32_t n_args, arg;
  int64_t deq, next, act = -1, quantize;
  QkByteSource source;
  QkRequant rq = { .lo = -INFINITY, .hi = INFINITY };

  if (kernel == NULL || strcmp (kernel->name, "aten::add.out") != 0 || !_executorch_qk_is_registered (kernel))
    return;
  args = et_method_graph_args (graph, add, &n_args);
  if (n_args != 5 || args[3] != args[4] || !is_one (args[2]) || (a = tensor_of (args[0])) == NULL ||
      (b = tensor_of (args[1])) == NULL || (sum = tensor_of (args[3])) == NULL)
    return;
  /* x as it is, the same sizes as the staged side (no broadcasting) */
  if (a->ndim != b->ndim || memcmp (a->sizes, b->sizes, a->ndim * sizeof a->sizes[0]) != 0)
    return;
  if (staged_input (graph, add, args, 1, &deq, &source))
    arg = 1;
  else if (staged_input (graph, add, args, 0, &deq, &source))
    arg = 0;
  else
    return;
  const EtTensor *x = arg == 1 ? a : b;
  if (x->scalar_type != ET_SCALAR_FLOAT || !et_tensor_is_contiguous (x) || x->device_type != ET_DEVICE_CPU ||
      (next = _executorch_qk_other_user (graph, args[3], add)) <= add ||
      !_executorch_qk_used_only_by_pair (graph, args[3], add, (uint32_t) next))
    return;
  /* a relu or hardtanh on the sum, its result then the quantize's input */
  const EtValue *act_out = activation (graph, (uint32_t) next, args[3], &rq), *quantized = args[3];
  if (act_out != NULL)
    {
      act = next;
      quantized = act_out;
      if (!_executorch_qk_bytes_fit (tensor_of (act_out)) ||
          (next = _executorch_qk_other_user (graph, act_out, (uint32_t) act)) <= act ||
          !_executorch_qk_used_only_by_pair (graph, act_out, (uint32_t) act, (uint32_t) next))
        return;
    }
  quantize = next;
  if (!_executorch_qk_match_final_quantize (graph, (uint32_t) quantize, tensor_of (quantized), &rq) ||
      tensor_of (quantized)->numel != x->numel || !_executorch_qk_bytes_fit (sum))
    return;
  const EtKernel *k = _executorch_qk_byte_add_kernel_new (graph, arg, &source, &rq);
  if (k == NULL || et_method_graph_set_kernel (graph, add, k) != ET_OK)
    return;
  et_method_graph_set_kernel (graph, (uint32_t) deq, &_executorch_qk_stage_bytes_kernel);
  if (act >= 0)
    et_method_graph_set_kernel (graph, (uint32_t) act,
                                rq.hi == INFINITY ? &_executorch_qk_pass_relu_kernel
                                                  : &_executorch_qk_pass_hardtanh_kernel);
  et_method_graph_set_kernel (graph, (uint32_t) quantize, &_executorch_qk_unstage_bytes_kernel);
}

void
_executorch_qk_rewrite_byte_adds (EtMethodGraph *graph)
{
  uint32_t n = et_method_graph_n_instructions (graph);

  for (uint32_t add = 0; add < n; add++)
    rewrite_byte_add (graph, add);
}
