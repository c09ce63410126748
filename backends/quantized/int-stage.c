/* int-stage.c: the dequantizations of an integer site leave int16 activations and int8 weights
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See int-kernels-private.h for the scheme; these are the kernels that
 * stand in for an integer site's dequantize_per_tensor (activation),
 * dequantize_per_channel / _per_tensor (weight, packed at load) and a
 * linear's permute_copy of the weight.
 */
#include "int-kernels-private.h"

#include "executorch-threadpool.h"

#include <glib.h>
#include <string.h>

size_t
_executorch_qk_staged_input_size (int64_t numel)
{
  return sizeof (StagedInput) + (size_t) numel * sizeof (int16_t);
}

#ifdef QK_HAVE_AVX2
__attribute__ ((target ("avx2"))) static int64_t
widen_avx2 (const void *in, bool is_signed, int16_t *out, int64_t n, int16_t zp)
{
  __m256i vzp = _mm256_set1_epi16 (zp);
  int64_t i = 0;

  for (; i + 16 <= n; i += 16)
    {
      __m128i b = _mm_loadu_si128 ((const __m128i *) ((const char *) in + i));
      __m256i v = is_signed ? _mm256_cvtepi8_epi16 (b) : _mm256_cvtepu8_epi16 (b);
      _mm256_storeu_si256 ((__m256i *) (out + i), _mm256_sub_epi16 (v, vzp));
    }
  return i;
}
#endif

/* out[i] = in[i] - zp (the rewrite keeps zp so that this fits int16). */
static void
widen (const void *in, bool is_signed, int16_t *out, int64_t n, int16_t zp)
{
  int64_t i = 0;

#ifdef QK_HAVE_AVX2
  if (_executorch_support_cpu_has_avx2_fma ())
    i = widen_avx2 (in, is_signed, out, n, zp);
#endif
  if (is_signed)
    for (; i < n; i++)
      out[i] = (int16_t) (((const int8_t *) in)[i] - zp);
  else
    for (; i < n; i++)
      out[i] = (int16_t) (((const uint8_t *) in)[i] - zp);
}

/* Large byte moves and widenings go over the pool in chunks
 * (_executorch_qk_run_chunked). */
typedef struct
{
  const void *in;
  void *out;
  int64_t n;
  bool widen, is_signed;
  int16_t zp;
} ChunkJob;

static void
chunk_task (const void *data, int64_t first, int64_t n)
{
  const ChunkJob *job = data;

  if (job->widen)
    widen ((const char *) job->in + first, job->is_signed, (int16_t *) job->out + first, n, job->zp);
  else
    memcpy ((char *) job->out + first, (const char *) job->in + first, (size_t) n);
}

static void
run_chunks (const ChunkJob *job)
{
  /* widening writes twice the bytes it reads */
  _executorch_qk_run_chunked (chunk_task, job, job->n, job->widen ? QK_CHUNKED_FLOAT : QK_CHUNKED_BYTES);
}

/* out[0, n) = in[0, n), over the pool when large. */
static void
copy_bytes (void *out, const void *in, int64_t n)
{
  ChunkJob job = { .in = in, .out = out, .n = n };
  run_chunks (&job);
}

/* dequantize_per_tensor.out's arguments (checked at load): input, scale,
 * zero_point, quant_min, quant_max, dtype, out_dtype, out, ret.  The
 * header, then (x - zero point) as int16, or @as_bytes the int8/uint8
 * input as it is (for a convolution that reads bytes). */
static EtError
stage_activation (EtKernelContext *ctx, EtValue **args, uint32_t n_args, bool as_bytes)
{
  QkCall c = { ctx, "quantized_decomposed::dequantize_per_tensor.out", args, n_args };
  EtTensor *input, *out;
  double scale;
  int64_t zp;
  StagedInput head;

  QK_TRY (_executorch_qk_check_n_args (&c, 9));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_double (&c, 1, "scale", &scale));
  QK_TRY (_executorch_qk_int (&c, 2, "zero_point", &zp));
  QK_TRY (_executorch_qk_tensor (&c, 7, "out", &out));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", input));
  size_t size = as_bytes ? sizeof head + (size_t) input->numel : _executorch_qk_staged_input_size (input->numel);
  if (out->data == NULL || out->nbytes < size ||
      (input->scalar_type != ET_SCALAR_CHAR && input->scalar_type != ET_SCALAR_BYTE) ||
      !et_tensor_is_contiguous (input))
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "input cannot be staged for the integer convolution");
  bool is_signed = input->scalar_type == ET_SCALAR_CHAR;
  uint64_t magic = !as_bytes ? STAGE_INPUT_MAGIC : is_signed ? STAGE_INPUT_INT8_MAGIC : STAGE_INPUT_UINT8_MAGIC;
  head = (StagedInput){ magic, scale, input->numel, (is_signed ? 128 : 0) + zp };
  memcpy (out->data, &head, sizeof head);
  ChunkJob job = { .in = input->data,
                   .out = (char *) out->data + sizeof head,
                   .n = input->numel,
                   .widen = !as_bytes,
                   .is_signed = is_signed,
                   .zp = (int16_t) zp };
  run_chunks (&job);
  return ET_OK;
}

static EtError
stage_input (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return stage_activation (ctx, args, n_args, false);
}

static EtError
stage_input_bytes (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  return stage_activation (ctx, args, n_args, true);
}

EtError
_executorch_qk_read_staged_input (const QkCall *c, const EtTensor *input, StagedInput *head, const int16_t **x)
{
  if (input->data == NULL || input->nbytes < _executorch_qk_staged_input_size (input->numel))
    return _executorch_qk_fail (c, ET_ERROR_INTERNAL, "input not staged");
  memcpy (head, input->data, sizeof *head);
  if (head->magic != STAGE_INPUT_MAGIC || head->numel != input->numel)
    return _executorch_qk_fail (c, ET_ERROR_INTERNAL, "input not staged");
  *x = (const int16_t *) ((const char *) input->data + sizeof *head);
  return ET_OK;
}

EtError
_executorch_qk_read_byte_input (EtKernelContext *ctx, EtValue **deq_args, StagedInput *head, const EtTensor **bytes)
{
  QkCall c = { ctx, "quantized_decomposed::dequantize_per_tensor.out [int8 read by the convolution]", deq_args, 9 };
  EtTensor *input;
  double scale;
  int64_t zp;

  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_double (&c, 1, "scale", &scale));
  QK_TRY (_executorch_qk_int (&c, 2, "zero_point", &zp));
  if (input->data == NULL || (input->scalar_type != ET_SCALAR_CHAR && input->scalar_type != ET_SCALAR_BYTE) ||
      !et_tensor_is_contiguous (input) || input->nbytes < (size_t) input->numel || zp < -128 || zp > 255)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "input cannot be read as bytes by the integer convolution");
  *head = (StagedInput){ STAGE_INPUT_MAGIC, scale, input->numel, (input->scalar_type == ET_SCALAR_CHAR ? 128 : 0) + zp };
  *bytes = input;
  return ET_OK;
}

EtError
_executorch_qk_read_conv_input (const QkCall *c, const EtTensor *input, StagedInput *head, const int16_t **x,
                                const uint8_t **bytes, bool *is_signed)
{
  *x = NULL;
  *bytes = NULL;
  if (input->data != NULL && input->nbytes >= sizeof *head)
    {
      memcpy (head, input->data, sizeof *head);
      if ((head->magic == STAGE_INPUT_INT8_MAGIC || head->magic == STAGE_INPUT_UINT8_MAGIC) &&
          head->numel == input->numel && input->nbytes >= sizeof *head + (size_t) input->numel)
        {
          *bytes = (const uint8_t *) input->data + sizeof *head;
          *is_signed = head->magic == STAGE_INPUT_INT8_MAGIC;
          return ET_OK;
        }
    }
  return _executorch_qk_read_staged_input (c, input, head, x);
}

/* Named after the operator they stand in for, marked, so that profiles
 * and errors show which sites run on integers. */
const EtKernel _executorch_qk_stage_input_kernel = { "quantized_decomposed::dequantize_per_tensor.out [int8 staging]",
                                                     stage_input, NULL };
const EtKernel _executorch_qk_stage_input_bytes_kernel = {
  "quantized_decomposed::dequantize_per_tensor.out [int8 staging bytes]", stage_input_bytes, NULL
};

/* A weight dequantization (or a linear's weight transpose) whose weights
 * the rewrite packed at load (the product's own kernel holds them):
 * nothing to do. */
static EtError
weight_packed (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  (void) ctx, (void) args, (void) n_args;
  return ET_OK;
}

const EtKernel _executorch_qk_weight_packed_channel_kernel = {
  "quantized_decomposed::dequantize_per_channel.out [int8 packed at load]", weight_packed, NULL
};
const EtKernel _executorch_qk_weight_packed_tensor_kernel = {
  "quantized_decomposed::dequantize_per_tensor.out [int8 packed at load]", weight_packed, NULL
};
const EtKernel _executorch_qk_transpose_packed_kernel = { "aten::permute_copy.out [int8 packed at load]", weight_packed,
                                                          NULL };

/* The bytes a requantizing convolution left in @in's buffer, checked
 * against its numel; NULL if they are not there. */
const StagedBytes *
_executorch_qk_staged_bytes (const EtTensor *in)
{
  StagedBytes head;

  if (in->data == NULL || in->nbytes < sizeof head)
    return NULL;
  memcpy (&head, in->data, sizeof head);
  if (head.magic != STAGE_BYTES_MAGIC || head.numel != in->numel || in->nbytes < sizeof head + (size_t) head.numel)
    return NULL;
  return in->data;
}

/* relu.out (self, out, ret) or hardtanh.out (self, min, max, out, ret)
 * after a requantizing convolution, which already clamped: the bytes move
 * to the activation's own result. */
static EtError
pass_bytes (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "int8 pass-through", args, n_args };
  EtTensor *self, *out;

  if (n_args != 3 && n_args != 5)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "unexpected arguments");
  QK_TRY (_executorch_qk_tensor (&c, 0, "self", &self));
  QK_TRY (_executorch_qk_tensor (&c, n_args - 2, "out", &out));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", self));
  if (_executorch_qk_staged_bytes (self) == NULL || out->data == NULL ||
      out->nbytes < sizeof (StagedBytes) + (size_t) self->numel)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "self not staged");
  memcpy (out->data, self->data, sizeof (StagedBytes));
  copy_bytes ((char *) out->data + sizeof (StagedBytes), (const char *) self->data + sizeof (StagedBytes), self->numel);
  return ET_OK;
}

/* quantize_per_tensor.out (input, scale, zero_point, quant_min, quant_max,
 * dtype, out, ret) whose input a requantizing convolution already
 * quantized with these arguments: copies the bytes out. */
static EtError
unstage_bytes (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::quantize_per_tensor.out", args, n_args };
  EtTensor *input, *out;

  QK_TRY (_executorch_qk_check_n_args (&c, 8));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_tensor (&c, 6, "out", &out));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", input));
  if (_executorch_qk_staged_bytes (input) == NULL || out->data == NULL || out->nbytes < (size_t) input->numel ||
      (out->scalar_type != ET_SCALAR_CHAR && out->scalar_type != ET_SCALAR_BYTE) || !et_tensor_is_contiguous (out))
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "input not staged");
  copy_bytes (out->data, (const char *) input->data + sizeof (StagedBytes), input->numel);
  return ET_OK;
}

const EtKernel _executorch_qk_pass_relu_kernel = { "aten::relu.out [int8 pass-through]", pass_bytes, NULL };
const EtKernel _executorch_qk_pass_hardtanh_kernel = { "aten::hardtanh.out [int8 pass-through]", pass_bytes, NULL };
/* _clone_dim_order.out (self, non_blocking, dim_order, out, ret) of
 * staged bytes into a contiguous out: the same bytes */
const EtKernel _executorch_qk_clone_bytes_kernel = { "dim_order_ops::_clone_dim_order.out [int8 bytes]", pass_bytes,
                                                     NULL };
const EtKernel _executorch_qk_unstage_bytes_kernel = { "quantized_decomposed::quantize_per_tensor.out [int8 bytes]",
                                                       unstage_bytes, NULL };

/* dequantize_per_tensor.out whose only reader maps the bytes through a
 * table (_executorch_qk_lut_kernel_new): the int8/uint8 input's bytes,
 * unchanged, after a StagedBytes header in the float result. */
static EtError
stage_bytes (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "quantized_decomposed::dequantize_per_tensor.out", args, n_args };
  EtTensor *input, *out;
  StagedBytes head;

  QK_TRY (_executorch_qk_check_n_args (&c, 9));
  QK_TRY (_executorch_qk_tensor (&c, 0, "input", &input));
  QK_TRY (_executorch_qk_tensor (&c, 7, "out", &out));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", input));
  if ((input->scalar_type != ET_SCALAR_CHAR && input->scalar_type != ET_SCALAR_BYTE) ||
      !et_tensor_is_contiguous (input) || input->data == NULL || out->data == NULL ||
      out->nbytes < sizeof head + (size_t) input->numel)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "input cannot be staged as bytes");
  head = (StagedBytes){ STAGE_BYTES_MAGIC, input->numel };
  memcpy (out->data, &head, sizeof head);
  copy_bytes ((char *) out->data + sizeof head, input->data, input->numel);
  return ET_OK;
}

const EtKernel _executorch_qk_stage_bytes_kernel = { "quantized_decomposed::dequantize_per_tensor.out [int8 bytes]",
                                                     stage_bytes, NULL };

typedef struct
{
  EtKernel kernel;
  uint8_t table[256];
  /* the table is a clamp of the byte to [lo, hi] in its own type */
  bool is_clamp, is_signed;
  int lo, hi;
  uint32_t self_arg; /* the staged input's argument */
  /* the dequantize's int8/uint8 input and the quantize's result, read and
   * written directly (the rewrite proved it safe), or NULL: staged */
  const EtValue *bytes_in, *bytes_out;
} LutKernel;

/* Elements [0, n) of the table's clamp; the compiler vectorises it with
 * min and max instructions. */
static inline void
clamp_bytes (const LutKernel *lut, const uint8_t *in, uint8_t *dst, int64_t n)
{
  if (lut->is_signed)
    {
      int8_t lo = (int8_t) lut->lo, hi = (int8_t) lut->hi;
      for (int64_t i = 0; i < n; i++)
        {
          int8_t v = (int8_t) in[i];
          v = v < lo ? lo : v;
          dst[i] = (uint8_t) (v > hi ? hi : v);
        }
    }
  else
    {
      uint8_t lo = (uint8_t) lut->lo, hi = (uint8_t) lut->hi;
      for (int64_t i = 0; i < n; i++)
        {
          uint8_t v = in[i] < lo ? lo : in[i];
          dst[i] = v > hi ? hi : v;
        }
    }
}

#ifdef QK_HAVE_AVX2
__attribute__ ((target ("avx2"))) static void
clamp_bytes_avx2 (const LutKernel *lut, const uint8_t *in, uint8_t *dst, int64_t n)
{
  clamp_bytes (lut, in, dst, n);
}

/* 64 bytes at a time: two 128-entry halves of the table by the low seven
 * bits, the eighth choosing between them. */
__attribute__ ((target ("avx512f,avx512bw,avx512vbmi"))) static int64_t
table_vbmi (const uint8_t *table, const uint8_t *in, uint8_t *dst, int64_t n)
{
  __m512i t0 = _mm512_loadu_si512 ((const void *) table), t1 = _mm512_loadu_si512 ((const void *) (table + 64));
  __m512i t2 = _mm512_loadu_si512 ((const void *) (table + 128));
  __m512i t3 = _mm512_loadu_si512 ((const void *) (table + 192));
  int64_t i = 0;

  for (; i + 64 <= n; i += 64)
    {
      __m512i idx = _mm512_loadu_si512 ((const void *) (in + i));
      __m512i low = _mm512_permutex2var_epi8 (t0, idx, t1), high = _mm512_permutex2var_epi8 (t2, idx, t3);
      _mm512_storeu_si512 ((void *) (dst + i), _mm512_mask_blend_epi8 (_mm512_movepi8_mask (idx), low, high));
    }
  return i;
}
#endif

void
_executorch_qk_map_table (const uint8_t table[256], const uint8_t *in, uint8_t *dst, int64_t n)
{
  int64_t i = 0;

#ifdef QK_HAVE_AVX2
  if (_executorch_qk_isa () == QK_ISA_AVX512_VNNI && __builtin_cpu_supports ("avx512vbmi"))
    i = table_vbmi (table, in, dst, n);
#endif
  for (; i < n; i++)
    dst[i] = table[in[i]];
}

static void
map_bytes (const LutKernel *lut, const uint8_t *in, uint8_t *dst, int64_t n)
{
  if (!lut->is_clamp)
    _executorch_qk_map_table (lut->table, in, dst, n);
#ifdef QK_HAVE_AVX2
  else if (_executorch_qk_isa () != QK_ISA_PORTABLE)
    clamp_bytes_avx2 (lut, in, dst, n);
#endif
  else
    clamp_bytes (lut, in, dst, n);
}

typedef struct
{
  const LutKernel *lut;
  const uint8_t *in;
  uint8_t *dst;
} LutJob;

static void
map_chunk (const void *job, int64_t first, int64_t n)
{
  const LutJob *j = job;

  map_bytes (j->lut, j->in + first, j->dst + first, n);
}

/* relu.out / hardtanh.out / sigmoid.out, or the multiply of a SiLU,
 * between a byte-staging dequantize and a quantize: each byte through the
 * table. */
static EtError
lut_bytes (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  QkCall c = { ctx, "activation on int8", args, n_args };
  const LutKernel *lut = et_kernel_context_user_data (ctx);
  EtTensor *self, *out;

  if (lut == NULL || n_args < 3 || n_args > 5 || lut->self_arg >= n_args - 2)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "unexpected arguments");
  if (lut->bytes_in != NULL)
    {
      const EtTensor *in = lut->bytes_in->tag == ET_VALUE_TENSOR ? lut->bytes_in->u.tensor : NULL;
      const EtTensor *to = lut->bytes_out->tag == ET_VALUE_TENSOR ? lut->bytes_out->u.tensor : NULL;
      if (in == NULL || to == NULL || in->data == NULL || to->data == NULL || in->numel != to->numel ||
          in->nbytes < (size_t) in->numel || to->nbytes < (size_t) to->numel)
        return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "the bytes do not fit the table's");
      LutJob job = { lut, in->data, to->data };
      _executorch_qk_run_chunked (map_chunk, &job, in->numel, QK_CHUNKED_BYTES);
      return ET_OK;
    }
  QK_TRY (_executorch_qk_tensor (&c, lut->self_arg, "self", &self));
  QK_TRY (_executorch_qk_tensor (&c, n_args - 2, "out", &out));
  QK_TRY (_executorch_qk_resize_like (&c, out, "out", self));
  if (_executorch_qk_staged_bytes (self) == NULL || out->data == NULL ||
      out->nbytes < sizeof (StagedBytes) + (size_t) self->numel)
    return _executorch_qk_fail (&c, ET_ERROR_INTERNAL, "self not staged");
  memcpy (out->data, self->data, sizeof (StagedBytes));
  LutJob job = { lut, (const uint8_t *) self->data + sizeof (StagedBytes),
                 (uint8_t *) out->data + sizeof (StagedBytes) };
  _executorch_qk_run_chunked (map_chunk, &job, self->numel, QK_CHUNKED_BYTES);
  return ET_OK;
}

void
_executorch_qk_lut_kernel_set_bytes (const EtKernel *lut_kernel, const EtValue *bytes_in, const EtValue *bytes_out)
{
  LutKernel *lut = lut_kernel->user_data; /* from _executorch_qk_lut_kernel_new */

  lut->bytes_in = bytes_in;
  lut->bytes_out = bytes_out;
}

bool
_executorch_qk_lut_kernel_clamp (const EtKernel *lut_kernel, bool *is_signed, int *lo, int *hi)
{
  const LutKernel *lut = lut_kernel->user_data; /* from _executorch_qk_lut_kernel_new */

  *is_signed = lut->is_signed;
  *lo = lut->lo;
  *hi = lut->hi;
  return lut->is_clamp;
}

/* An instruction whose work another kernel of the rewrite does (the
 * requantizing convolution, or the table, reading and writing the bytes
 * directly): nothing left to do. */
static EtError
done_elsewhere (EtKernelContext *ctx, EtValue **args, uint32_t n_args)
{
  (void) ctx, (void) args, (void) n_args;
  return ET_OK;
}

const EtKernel *
_executorch_qk_done_elsewhere_kernel_new (EtMethodGraph *graph, const char *name)
{
  EtKernel *kernel = et_method_graph_alloc (graph, sizeof *kernel);

  if (kernel != NULL)
    *kernel = (EtKernel){ name, done_elsewhere, NULL };
  return kernel;
}

/* The sigmoid of a SiLU whose multiply maps the bytes through a table. */
const EtKernel _executorch_qk_silu_sigmoid_kernel = { "aten::sigmoid.out [int8 in the SiLU table]", done_elsewhere,
                                                      NULL };

const EtKernel *
_executorch_qk_lut_kernel_new (EtMethodGraph *graph, const char *name, uint32_t self_arg, const uint8_t table[256],
                               bool same_type, bool is_signed)
{
  LutKernel *lut = et_method_graph_alloc (graph, sizeof *lut);

  if (lut == NULL)
    return NULL;
  lut->kernel = (EtKernel){ name, lut_bytes, lut };
  lut->self_arg = self_arg;
  memcpy (lut->table, table, sizeof lut->table);
  lut->is_signed = is_signed;
  /* the smallest and largest outputs as the bounds of a clamp */
  if (same_type)
    {
      int lo = is_signed ? (int8_t) table[0x80] : table[0], hi = is_signed ? (int8_t) table[0x7f] : table[0xff];
      lut->lo = lo, lut->hi = hi;
      lut->is_clamp = lo <= hi;
      for (int b = 0; b < 256 && lut->is_clamp; b++)
        {
          int x = is_signed ? (int8_t) b : b, v = x < lo ? lo : x > hi ? hi : x;
          lut->is_clamp = (uint8_t) v == table[b];
        }
    }
  return &lut->kernel;
}
