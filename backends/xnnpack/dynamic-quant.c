/* dynamic-quant.c: dynamically quantized linears, on XNNPACK or here
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The host path computes what XNNPACK's qd8 operators compute: each row
 * of the fp32 activations is quantized to int8 with its own scale and zero
 * point (asymmetric, from the row's min/max widened to include 0); the
 * fully-connected takes int32 dot products of those int8 values with the
 * int8 or int4 weights, per block for blockwise weights, subtracts the zero
 * point's share, applies the scales, adds the bias and clamps.  4-bit
 * weights stay packed, repacked once into tiles of XB_DQ_TILE channels
 * that one vector register holds side by side, so that no kernel needs a
 * horizontal sum; AVX-512 VNNI, AVX-VNNI or AVX2 where the CPU has them
 * (dynamic-quant-vnni.c, dynamic-quant-avx2.c), with the same results as
 * the portable loops here, on the process thread pool.
 */
#define XB_DQ_DEFINE_XNN 1
#include "dynamic-quant.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support-private.h"
#include "xnnpack-api.h"
#include "xnnpack-features.h"

#define CHUNK 32 /* blockwise 4-bit weights: blocks are multiples of this */
#define GROUP 8  /* 4-bit weights: inputs per 64-byte group of a tile */
#define GROUP_BYTES (XB_DQ_TILE * GROUP / 2)
#define TILE_CHANNELS 16 /* 8-bit weights: channels per thread pool task (with every row) */
/* Input channels at most: every int32 sum of products stays exact. */
#define MAX_INPUTS 65536

typedef enum
{
  KIND_QC8, /* int8, one fp32 scale per channel */
  KIND_Q4,  /* int4 (qcint4, or qbint4 with blocks a multiple of CHUNK) */
} Kind;

struct XbDqLinear
{
  Kind kind;
  size_t n, k;
  size_t block, n_blocks; /* input channels per scale; k / block */
  XbDqIsa isa;
  /* 8-bit weights */
  int8_t *weights8; /* [n][k] */
  float *scales8;   /* [n] */
  int32_t *sums;    /* [n], the sum of a channel's weights */
  /* 4-bit weights, in tiles (dynamic-quant.h); a tile's missing channels
   * are zeros with scale 0 */
  size_t block_groups;   /* groups of GROUP inputs per block (its length padded) */
  size_t padded_k;       /* n_blocks * block_groups * GROUP: activations are zero beyond k */
  size_t n_tiles;        /* ceil (n / XB_DQ_TILE) */
  size_t tile_bytes;     /* padded_k * XB_DQ_TILE / 2 */
  uint8_t *tiles;        /* [n_tiles][tile_bytes] */
  uint16_t *tile_scales; /* [n_tiles][n_blocks][XB_DQ_TILE], bfloat16 */
  float *channel_scales; /* [n]: per-channel weights' scales (1 in the tiles), else 1 */
  float *scaled_sums;    /* [n], sum over blocks of scale * the block's weight sum */
  XbDqTile4Kernel tile4;
};

/* ---- instruction sets ---- */

static const char *const isa_names[XB_DQ_N_ISAS] = { "portable", "avx2", "avxvnni", "avx512vnni" };

const char *
xb_dq_isa_name (XbDqIsa isa)
{
  return isa < XB_DQ_N_ISAS ? isa_names[isa] : "?";
}

#if defined(__x86_64__) && defined(__GNUC__)
/* AVX-VNNI: CPUID leaf 7, sub-leaf 1, EAX bit 4 (clang 14's
 * __builtin_cpu_supports does not know it).  The caller has checked that
 * the OS saves the AVX state. */
static gboolean
cpu_has_avx_vnni (void)
{
  unsigned int eax, ebx, ecx, edx;
  return __get_cpuid_count (7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 4)) != 0;
}
#endif

gboolean
xb_dq_isa_available (XbDqIsa isa)
{
  if (isa == XB_DQ_ISA_PORTABLE)
    return TRUE;
  if (!_executorch_support_cpu_has_avx2_fma ()) /* also FALSE under EXECUTORCH_KERNELS_NO_SIMD */
    return FALSE;
#if defined(__x86_64__) && defined(__GNUC__)
  switch (isa)
    {
      case XB_DQ_ISA_AVX2: return TRUE;
      case XB_DQ_ISA_AVXVNNI: return cpu_has_avx_vnni ();
      case XB_DQ_ISA_AVX512VNNI:
        /* libgcc also checks that the OS saves the AVX-512 state */
        return __builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512bw") &&
               __builtin_cpu_supports ("avx512vnni");
      default: return FALSE;
    }
#else
  return FALSE;
#endif
}

XbDqIsa
xb_dq_isa_chosen (void)
{
  XbDqIsa cap = XB_DQ_N_ISAS - 1;
  const char *want = g_getenv ("EXECUTORCH_XNNPACK_DQ_KERNELS");
  for (int i = 0; want != NULL && i < XB_DQ_N_ISAS; i++)
    if (strcmp (want, isa_names[i]) == 0)
      cap = (XbDqIsa) i;
  for (XbDqIsa isa = cap; isa > XB_DQ_ISA_PORTABLE; isa--)
    if (xb_dq_isa_available (isa))
      return isa;
  return XB_DQ_ISA_PORTABLE;
}

static gboolean
value_is_dynamic (const XbValue *v)
{
  return v->datatype == XB_DT_QDINT8 || v->datatype == XB_DT_QCINT4 || v->datatype == XB_DT_QBINT4 ||
         v->quant == XB_QUANT_PER_TOKEN || v->quant == XB_QUANT_PER_CHANNEL_GROUP || v->dq_datatype != XB_DT_INVALID;
}

gboolean
xb_dq_node_is_dynamic (const XbGraph *g, const XbNode *n)
{
  for (uint32_t k = 0; k < n->n_inputs + n->n_outputs; k++)
    {
      uint32_t v = k < n->n_inputs ? n->inputs[k] : n->outputs[k - n->n_inputs];
      if (v != XB_PAYLOAD_NO_VALUE && value_is_dynamic (&g->values[v]))
        return TRUE;
    }
  return FALSE;
}

static gboolean library_int4_ok (gboolean blockwise);

gboolean
xb_dq_library_supports (const XbGraph *g, const char **missing)
{
  *missing = NULL;
  for (uint32_t i = 0; i < g->n_values && *missing == NULL; i++)
    {
      const XbValue *v = &g->values[i];
      if (v->dq_datatype != XB_DT_INVALID)
        *missing = "values with a dq_datatype (the legacy dynamic-quantization form) are not supported";
      else if (v->datatype == XB_DT_QDINT8 || v->quant == XB_QUANT_PER_TOKEN)
        {
          if (!HAVE_XNN_DATATYPE_QDINT8 || !HAVE_XNN_DEFINE_DYNAMICALLY_QUANTIZED_TENSOR_VALUE)
            *missing = "qdint8 activations need xnn_define_dynamically_quantized_tensor_value, which the installed "
                       "XNNPACK lacks";
        }
      else if (v->datatype == XB_DT_QBINT4 || v->quant == XB_QUANT_PER_CHANNEL_GROUP)
        {
          if (!HAVE_XNN_DATATYPE_QBINT4 || !HAVE_XNN_DEFINE_BLOCKWISE_QUANTIZED_TENSOR_VALUE)
            *missing = "blockwise int4 weights need xnn_define_blockwise_quantized_tensor_value, which the installed "
                       "XNNPACK lacks";
        }
      else if (v->datatype == XB_DT_QCINT4)
        {
          if (!HAVE_XNN_DATATYPE_QCINT4 || !HAVE_XNN_DEFINE_CHANNELWISE_QUANTIZED_TENSOR_VALUE_V2)
            *missing = "per-channel int4 weights need xnn_define_channelwise_quantized_tensor_value_v2, which the "
                       "installed XNNPACK lacks";
        }
    }
  for (uint32_t i = 0; i < g->n_values && *missing == NULL; i++)
    {
      const XbValue *v = &g->values[i];
      if (v->datatype == XB_DT_QBINT4 && !library_int4_ok (TRUE))
        *missing = "the installed XNNPACK computes blockwise int4 fully-connected layers wrongly (checked at run time)";
      else if (v->datatype == XB_DT_QCINT4 && !library_int4_ok (FALSE))
        *missing =
            "the installed XNNPACK computes per-channel int4 fully-connected layers wrongly (checked at run time)";
    }
  if (*missing != NULL)
    return FALSE;
  const char *own = g_getenv ("EXECUTORCH_XNNPACK_OWN_DQ");
  if (own != NULL && own[0] != '\0' && strcmp (own, "0") != 0)
    {
      *missing = "EXECUTORCH_XNNPACK_OWN_DQ is set";
      return FALSE;
    }
  return TRUE;
}

static size_t
rows_of (const XbShape *s, size_t row_length)
{
  size_t n = 1;
  for (uint32_t d = 0; d < s->ndim; d++)
    n *= s->dims[d];
  return row_length ? n / row_length : 0;
}

size_t
xb_dq_params_offset (size_t numel)
{
  return (numel + 15) & ~(size_t) 15;
}

size_t
xb_dq_value_bytes (const XbValue *value, const XbShape *shape)
{
  size_t row = shape->ndim ? shape->dims[shape->ndim - 1] : 1;
  size_t numel = rows_of (shape, 1);
  return xb_dq_params_offset (numel) + rows_of (shape, row) * sizeof (XbDqRowParams);
}

static gboolean
is_per_token_qdint8 (const XbValue *v)
{
  return v->datatype == XB_DT_QDINT8 && v->quant == XB_QUANT_PER_TOKEN && v->num_nonbatch_dims == 1 &&
         v->dq_datatype == XB_DT_INVALID;
}

gboolean
xb_dq_host_supports (const XbGraph *g, const XbNode *n, const char **why)
{
  *why = NULL;
  const XbValue *x = &g->values[n->inputs[0]], *y = &g->values[n->outputs[0]];
  if (n->type == XB_NODE_CONVERT)
    {
      if (x->datatype != XB_DT_FP32 || x->quant != XB_QUANT_NONE || !is_per_token_qdint8 (y))
        {
          *why = "this library converts only fp32 to per-token qdint8 (num_nonbatch_dims 1)";
          return FALSE;
        }
      return TRUE;
    }
  if (n->type != XB_NODE_FULLY_CONNECTED)
    {
      *why = "this library runs only Convert and FullyConnected with dynamically quantized values";
      return FALSE;
    }
  const XbValue *w = &g->values[n->inputs[1]];
  const XbValue *b = n->inputs[2] == XB_PAYLOAD_NO_VALUE ? NULL : &g->values[n->inputs[2]];
  if (!is_per_token_qdint8 (x) || y->datatype != XB_DT_FP32 || y->quant != XB_QUANT_NONE)
    {
      *why = "a dynamically quantized fully-connected needs a per-token qdint8 input and an fp32 output";
      return FALSE;
    }
  if (b != NULL && (b->datatype != XB_DT_FP32 || b->quant != XB_QUANT_NONE))
    {
      *why = "a dynamically quantized fully-connected needs an fp32 bias";
      return FALSE;
    }
  if (n->flags != 0 || w->ndim != 2 || w->data == NULL)
    {
      *why = "a dynamically quantized fully-connected needs constant [out, in] weights (no flags)";
      return FALSE;
    }
  gboolean qc = w->quant == XB_QUANT_PER_CHANNEL && w->channel_dim == 0 &&
                (w->datatype == XB_DT_QCINT8 || w->datatype == XB_DT_QCINT4);
  gboolean qb = w->quant == XB_QUANT_PER_CHANNEL_GROUP && w->datatype == XB_DT_QBINT4;
  if (!qc && !qb)
    {
      *why = "weights must be qcint8 or qcint4 (per channel, channel_dim 0) or qbint4 (blockwise)";
      return FALSE;
    }
  if (qb && w->group_size != w->dims[1] && w->group_size % CHUNK != 0)
    {
      *why = "blockwise int4 weights need blocks of a multiple of 32 input channels (or one block a row)";
      return FALSE;
    }
  if (w->dims[1] > MAX_INPUTS)
    {
      *why = "a dynamically quantized fully-connected takes at most 65536 input channels";
      return FALSE;
    }
  return TRUE;
}

/* ---- weights ---- */

static float
bf16_to_f32 (uint16_t h)
{
  uint32_t bits = (uint32_t) h << 16;
  float f;
  memcpy (&f, &bits, 4);
  return f;
}

void
xb_dq_linear_free (XbDqLinear *lin)
{
  if (lin == NULL)
    return;
  _executorch_support_weights_free (lin->weights8);
  g_free (lin->scales8);
  g_free (lin->sums);
  _executorch_support_weights_free (lin->tiles);
  g_free (lin->tile_scales);
  g_free (lin->channel_scales);
  g_free (lin->scaled_sums);
  g_free (lin);
}

/* Element @i (0..k-1) of row @row of 4-bit weights in the exporter's
 * layout: element 2j in the low, 2j+1 in the high nibble, stored as q+8. */
static int
nibble_at (const uint8_t *row, size_t i)
{
  uint8_t b = row[i / 2];
  return (int) ((i & 1) ? b >> 4 : b & 15) - 8;
}

static float
weight_scale (const XbValue *w, size_t c, size_t n_blocks, size_t b)
{
  return w->quant == XB_QUANT_PER_CHANNEL_GROUP ? bf16_to_f32 (w->block_scales[c * n_blocks + b]) : w->scales[c];
}

static const XbDqTile4Kernel tile4_kernels[XB_DQ_N_ISAS] = {
  xb_dq_tile4_portable,
  xb_dq_tile4_avx2,
  xb_dq_tile4_avxvnni,
  xb_dq_tile4_avx512vnni,
};

/* 4-bit weights into tiles (dynamic-quant.h). */
static gboolean
pack_tiles (XbDqLinear *lin, const XbValue *w, GError **error)
{
  size_t block_k = (lin->block + GROUP - 1) / GROUP * GROUP;
  lin->block_groups = block_k / GROUP;
  lin->padded_k = lin->n_blocks * block_k;
  lin->n_tiles = (lin->n + XB_DQ_TILE - 1) / XB_DQ_TILE;
  lin->tile_bytes = lin->padded_k * XB_DQ_TILE / 2;
  void *tiles = _executorch_support_weights_alloc (lin->n_tiles * lin->tile_bytes, 64);
  if (tiles == NULL)
    {
      g_set_error (error, XB_ERROR, ET_ERROR_MEMORY_ALLOCATION_FAILED,
                   "XNNPACK: no memory for repacked weights [%zu, %zu]", lin->n, lin->k);
      return FALSE;
    }
  lin->tiles = tiles;
  memset (lin->tiles, 0x88, lin->n_tiles * lin->tile_bytes); /* value 0 */
  lin->tile_scales = g_new0 (uint16_t, lin->n_tiles * lin->n_blocks * XB_DQ_TILE);
  lin->channel_scales = g_new (float, lin->n);
  lin->scaled_sums = g_new0 (float, lin->n);
  gboolean blockwise = w->quant == XB_QUANT_PER_CHANNEL_GROUP;
  size_t src_row = (lin->k + 1) / 2;
  for (size_t c = 0; c < lin->n; c++)
    {
      const uint8_t *row = (const uint8_t *) w->data + c * src_row;
      size_t tile = c / XB_DQ_TILE, j = c % XB_DQ_TILE;
      uint8_t *out = lin->tiles + tile * lin->tile_bytes;
      /* in double: the products are exact, the sum rounds once */
      double scaled = 0.0;
      for (size_t b = 0; b < lin->n_blocks; b++)
        {
          float scale = weight_scale (w, c, lin->n_blocks, b);
          lin->tile_scales[(tile * lin->n_blocks + b) * XB_DQ_TILE + j] =
              blockwise ? w->block_scales[c * lin->n_blocks + b] : 0x3f80 /* 1.0 */;
          int32_t block_sum = 0;
          for (size_t i = 0; i < lin->block; i++)
            {
              size_t in = b * lin->block + i; /* input channel */
              int q = nibble_at (row, in);
              block_sum += q;
              /* its group, and its place in the group's 64 bytes */
              size_t g = b * lin->block_groups + i / GROUP, at = i % GROUP;
              uint8_t *byte = &out[g * GROUP_BYTES + 4 * j + at % 4];
              if (at < 4)
                *byte = (uint8_t) ((*byte & 0xf0) | (q + 8));
              else
                *byte = (uint8_t) ((*byte & 0x0f) | (q + 8) << 4);
            }
          scaled += (double) block_sum * scale;
        }
      lin->scaled_sums[c] = (float) scaled;
      lin->channel_scales[c] = blockwise ? 1.0f : w->scales[c];
    }
  return TRUE;
}

XbDqLinear *
xb_dq_linear_new (const XbGraph *g, const XbNode *n, GError **error)
{
  const XbValue *w = &g->values[n->inputs[1]];
  XbDqLinear *lin = g_new0 (XbDqLinear, 1);
  lin->n = w->dims[0];
  lin->k = w->dims[1];
  lin->isa = xb_dq_isa_chosen ();
  lin->tile4 = tile4_kernels[lin->isa];
  gboolean four = w->datatype != XB_DT_QCINT8;
  lin->kind = four ? KIND_Q4 : KIND_QC8;
  lin->block = w->quant == XB_QUANT_PER_CHANNEL_GROUP ? w->group_size : lin->k;
  lin->n_blocks = lin->block ? lin->k / lin->block : 0;
  if (lin->k == 0 || lin->n == 0 || lin->n_blocks == 0 || lin->k % lin->block != 0 || lin->k > MAX_INPUTS ||
      xb_value_bytes (w) > w->data_size)
    {
      g_set_error (error, XB_ERROR, ET_ERROR_INVALID_PROGRAM,
                   "XNNPACK: dynamically quantized weights [%zu, %zu] (%s, blocks of %zu) do not fit their %zu bytes",
                   lin->n, lin->k, xb_datatype_name (w->datatype), lin->block, w->data_size);
      xb_dq_linear_free (lin);
      return NULL;
    }
  g_debug ("dynamically quantized linear [%zu, %zu] on the %s kernels", lin->n, lin->k, xb_dq_isa_name (lin->isa));
  if (four)
    {
      if (!pack_tiles (lin, w, error))
        {
          xb_dq_linear_free (lin);
          return NULL;
        }
      return lin;
    }
  lin->weights8 = _executorch_support_weights_alloc (lin->n * lin->k, 64);
  if (lin->weights8 == NULL)
    {
      g_set_error (error, XB_ERROR, ET_ERROR_MEMORY_ALLOCATION_FAILED,
                   "XNNPACK: no memory for int8 weights [%zu, %zu]", lin->n, lin->k);
      xb_dq_linear_free (lin);
      return NULL;
    }
  memcpy (lin->weights8, w->data, lin->n * lin->k);
  lin->scales8 = g_new (float, lin->n);
  lin->sums = g_new0 (int32_t, lin->n);
  for (size_t c = 0; c < lin->n; c++)
    {
      lin->scales8[c] = w->scales[c];
      for (size_t i = 0; i < lin->k; i++)
        lin->sums[c] += lin->weights8[c * lin->k + i];
    }
  return lin;
}

/* ---- activations ---- */

/* The row's parameters from its range [lo, hi] (which includes 0). */
static void
row_params (float lo, float hi, float *scale_out, int32_t *zero_point)
{
  const float qmin = -128.0f, qmax = 127.0f;
  float scale = lo == hi ? 1.0f : (qmax - qmin) / (hi - lo);
  float lo_scaled = lo * scale, hi_scaled = hi * scale;
  float zp = qmin + lo_scaled + (qmax + hi_scaled) > 0 ? qmin - lo_scaled : qmax - hi_scaled;
  zp = zp < qmin ? qmin : zp > qmax ? qmax : zp;
  if (!(zp == zp))
    zp = 0.0f;
  *scale_out = scale;
  *zero_point = (int32_t) rintf (zp);
}

static XbDqRowParams
quantize_row (const float *x, size_t n, int8_t *q, gboolean simd)
{
  float lo = 0.0f, hi = 0.0f; /* the range always includes 0 */
  if (simd)
    xb_dq_range_avx2 (x, n, &lo, &hi);
  else
    for (size_t i = 0; i < n; i++)
      {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
      }
  float scale;
  int32_t zero_point;
  row_params (lo, hi, &scale, &zero_point);
  if (simd)
    xb_dq_quantize_avx2 (x, n, scale, zero_point, q);
  else
    {
      float vmin = -128.0f - (float) zero_point, vmax = 127.0f - (float) zero_point;
      for (size_t i = 0; i < n; i++)
        {
          float v = x[i] * scale;
          v = v >= vmin ? v : vmin; /* NaN goes to the bottom */
          v = v <= vmax ? v : vmax;
          q[i] = (int8_t) ((int32_t) rintf (v) + zero_point);
        }
    }
  return (XbDqRowParams){ .scale = 1.0f / scale, .zero_point = zero_point };
}

XbDqRowParams
xb_dq_quantize_row (const float *x, size_t n, int8_t *q)
{
  return quantize_row (x, n, q, FALSE);
}

typedef struct
{
  const float *x;
  int8_t *q;
  XbDqRowParams *params;
  size_t k;
  gboolean simd;
} ConvertJob;

static void
convert_row (void *data, size_t r)
{
  const ConvertJob *job = data;
  job->params[r] = quantize_row (job->x + r * job->k, job->k, job->q + r * job->k, job->simd);
}

/* ---- fully-connected ---- */

static int32_t
dot_i8 (const int8_t *x, const int8_t *w, size_t n)
{
  int32_t acc = 0;
  for (size_t i = 0; i < n; i++)
    acc += (int32_t) x[i] * w[i];
  return acc;
}

float
xb_dq_fmaf (float a, float b, float c)
{
#if defined(__x86_64__) && !defined(FP_FAST_FMAF)
  /* libm's fmaf is a call, slow where the caller's SSE code meets its VEX
   * code with the upper vector halves dirty (measured: 90 ns a call).  In
   * double: a * b is exact, the sum rounds once; rounding that to float
   * again goes wrong only when it lies exactly halfway between two floats
   * (the 29 bits a float drops are 1 then zeros) while the sum was
   * inexact: then it moves one double ulp towards the exact sum first. */
  double p = (double) a * (double) b, s = p + (double) c;
  uint64_t bits;
  memcpy (&bits, &s, 8);
  if ((bits & 0x1fffffff) != 0x10000000)
    return (float) s;
  if (fabs (s) < 0x1p-126) /* a subnormal float drops more bits */
    return fmaf (a, b, c);
  double t = s - p, err = (p - (s - t)) + ((double) c - t); /* two-sum: p + c = s + err */
  if (err == 0.0)
    return (float) s;
  bits += (err > 0) == (s > 0) ? 1 : -1;
  memcpy (&s, &bits, 8);
  return (float) s;
#else
  return fmaf (a, b, c);
#endif
}

/* The tile kernel of dynamic-quant.h in plain C: the others' reference. */
void
xb_dq_tile4_portable (const uint8_t *w, const uint16_t *scales, size_t n_blocks, size_t block_groups,
                      const int8_t *const x[4], const int32_t *const xsum8[4], float *out, int nr)
{
  for (int r = 0; r < nr; r++)
    {
      float acc[XB_DQ_TILE] = { 0 };
      const uint8_t *wp = w;
      size_t k = 0;
      for (size_t b = 0; b < n_blocks; b++)
        {
          int32_t dot[XB_DQ_TILE] = { 0 };
          /* channels innermost: compilers vectorize it (strided loads) */
          for (size_t g = 0; g < block_groups; g++, wp += GROUP_BYTES, k += GROUP)
            for (int i = 0; i < 4; i++)
              {
                int32_t xl = x[r][k + i], xh = x[r][k + 4 + i];
                for (int j = 0; j < XB_DQ_TILE; j++)
                  {
                    uint8_t byte = wp[4 * j + i];
                    dot[j] += (byte & 15) * xl + (byte >> 4) * xh;
                  }
              }
          for (int j = 0; j < XB_DQ_TILE; j++)
            acc[j] = xb_dq_fmaf ((float) (dot[j] - xsum8[r][b]), bf16_to_f32 (scales[b * XB_DQ_TILE + j]), acc[j]);
        }
      memcpy (out + r * XB_DQ_TILE, acc, sizeof acc);
    }
}

typedef struct
{
  const XbDqLinear *lin;
  const int8_t *x;
  const int16_t *x16;   /* 8-bit weights on AVX2: x widened, else NULL */
  const uint8_t *xu;    /* 8-bit weights on VNNI: x + 128, else NULL */
  const int8_t *xp;     /* 4-bit weights: [rows][padded_k], x padded with zeros */
  const int32_t *xsum8; /* 4-bit weights: [rows][n_blocks], 8 * the sums of x over each block */
  const XbDqRowParams *params;
  const float *bias;
  float *y;
  float lo, hi;
  size_t rows;
} LinearJob;

static inline void
store (const LinearJob *job, size_t row, size_t c, float acc)
{
  float bias = job->bias ? job->bias[c] : 0.0f;
  float v = acc * job->params[row].scale + bias;
  v = v < job->lo ? job->lo : v > job->hi ? job->hi : v;
  job->y[row * job->lin->n + c] = v;
}

/* 8-bit weights, channels [c0, c0 + nc) for every row: the tile's weights
 * are read from memory once and stay in cache while the rows pass by. */
static void
linear_tile8 (void *data, size_t c0, size_t nc)
{
  const LinearJob *job = data;
  const XbDqLinear *lin = job->lin;
  for (size_t rb = 0; rb < job->rows; rb += 4)
    {
      int nr = (int) MIN (4, job->rows - rb);
      const int8_t *x[4];
      const int16_t *x16[4];
      const uint8_t *xu[4];
      for (int r = 0; r < nr; r++)
        {
          x[r] = job->x + (rb + r) * lin->k;
          x16[r] = job->x16 ? job->x16 + (rb + r) * lin->k : NULL;
          xu[r] = job->xu ? job->xu + (rb + r) * lin->k : NULL;
        }
      for (size_t c = c0; c < c0 + nc; c++)
        {
          const int8_t *w = lin->weights8 + c * lin->k;
          int32_t dots[4];
          if (lin->isa >= XB_DQ_ISA_AVXVNNI)
            {
              uint32_t udots[4];
              if (lin->isa == XB_DQ_ISA_AVX512VNNI)
                xb_dq_dot_u8i8_avx512vnni (xu, w, lin->k, udots, nr);
              else
                xb_dq_dot_u8i8_avxvnni (xu, w, lin->k, udots, nr);
              /* sum (x + 128) w modulo 2^32, less 128 sum (w): exact, as
               * |sum x w| <= 2^14 * MAX_INPUTS */
              for (int r = 0; r < nr; r++)
                dots[r] = (int32_t) (udots[r] - 128u * (uint32_t) lin->sums[c]);
            }
          else if (lin->isa == XB_DQ_ISA_AVX2 && nr == 4)
            xb_dq_dot4_i8_avx2 (x16, w, lin->k, dots);
          else if (lin->isa == XB_DQ_ISA_AVX2)
            for (int r = 0; r < nr; r++)
              xb_dq_dot1_i8_avx2 (x16[r], w, lin->k, &dots[r]);
          else
            for (int r = 0; r < nr; r++)
              dots[r] = dot_i8 (x[r], w, lin->k);
          for (int r = 0; r < nr; r++)
            {
              int64_t exact = (int64_t) dots[r] - (int64_t) job->params[rb + r].zero_point * lin->sums[c];
              store (job, rb + r, c, (float) exact * lin->scales8[c]);
            }
        }
    }
}

/* dynamic-quant.h's epilogue, with everything in locals (the stores to
 * @y could alias the job's fields). */
static void
epilogue (const float *acc, size_t nc, const float *cscales, const float *sums, float zp, float xscale,
          const float *bias, float lo, float hi, float *y)
{
  for (size_t j = 0; j < nc; j++)
    {
      float v = (acc[j] * cscales[j] - zp * sums[j]) * xscale + (bias ? bias[j] : 0.0f);
      y[j] = v < lo ? lo : v > hi ? hi : v;
    }
}

/* 4-bit weights, tile @t (XB_DQ_TILE channels) for every row. */
static void
linear_tile4 (void *data, size_t t)
{
  const LinearJob *job = data;
  const XbDqLinear *lin = job->lin;
  const uint8_t *w = lin->tiles + t * lin->tile_bytes;
  const uint16_t *scales = lin->tile_scales + t * lin->n_blocks * XB_DQ_TILE;
  size_t c0 = t * XB_DQ_TILE, nc = MIN (XB_DQ_TILE, lin->n - c0);
  for (size_t rb = 0; rb < job->rows; rb += 4)
    {
      int nr = (int) MIN (4, job->rows - rb);
      const int8_t *x[4];
      const int32_t *xsum8[4];
      for (int r = 0; r < nr; r++)
        {
          x[r] = job->xp + (rb + r) * lin->padded_k;
          xsum8[r] = job->xsum8 + (rb + r) * lin->n_blocks;
        }
      float acc[4 * XB_DQ_TILE];
      lin->tile4 (w, scales, lin->n_blocks, lin->block_groups, x, xsum8, acc, nr);
      for (int r = 0; r < nr; r++)
        {
          const XbDqRowParams params = job->params[rb + r];
          const float *bias = job->bias ? job->bias + c0 : NULL;
          float *y = job->y + (rb + r) * lin->n + c0;
          if (lin->isa >= XB_DQ_ISA_AVX2)
            xb_dq_epilogue_avx2 (acc + r * XB_DQ_TILE, nc, lin->channel_scales + c0, lin->scaled_sums + c0,
                                 (float) params.zero_point, params.scale, bias, job->lo, job->hi, y);
          else
            epilogue (acc + r * XB_DQ_TILE, nc, lin->channel_scales + c0, lin->scaled_sums + c0,
                      (float) params.zero_point, params.scale, bias, job->lo, job->hi, y);
        }
    }
}

void
xb_dq_run (const XbGraph *g, const XbNode *n, const XbDqLinear *lin, const XbShape *shapes, void *const *ptr,
           struct pthreadpool *pool)
{
  const XbShape *xs = &shapes[n->inputs[0]];
  size_t k = xs->ndim ? xs->dims[xs->ndim - 1] : 1;
  size_t rows = rows_of (xs, k);
  if (n->type == XB_NODE_CONVERT)
    {
      ConvertJob job = {
        .x = ptr[n->inputs[0]],
        .q = ptr[n->outputs[0]],
        .params = (XbDqRowParams *) (void *) ((uint8_t *) ptr[n->outputs[0]] + xb_dq_params_offset (rows * k)),
        .k = k,
        .simd = xb_dq_isa_chosen () >= XB_DQ_ISA_AVX2,
      };
      pthreadpool_parallelize_1d (pool, convert_row, &job, rows, 0);
      return;
    }
  LinearJob job = {
    .lin = lin,
    .x = ptr[n->inputs[0]],
    .params =
        (const XbDqRowParams *) (const void *) ((const uint8_t *) ptr[n->inputs[0]] + xb_dq_params_offset (rows * k)),
    .bias = n->inputs[2] == XB_PAYLOAD_NO_VALUE ? NULL : ptr[n->inputs[2]],
    .y = ptr[n->outputs[0]],
    .lo = n->output_min,
    .hi = n->output_max,
    .rows = rows,
  };
  if (lin->kind == KIND_QC8)
    {
      /* AVX2 reads the activations widened to int16, VNNI as x + 128 */
      int16_t *x16 = NULL;
      uint8_t *xu = NULL;
      if (lin->isa == XB_DQ_ISA_AVX2)
        {
          x16 = g_new (int16_t, MAX (rows * k, 1));
          for (size_t i = 0; i < rows * k; i++)
            x16[i] = job.x[i];
        }
      else if (lin->isa >= XB_DQ_ISA_AVXVNNI)
        {
          xu = g_new (uint8_t, MAX (rows * k, 1));
          for (size_t i = 0; i < rows * k; i++)
            xu[i] = (uint8_t) (job.x[i] + 128);
        }
      job.x16 = x16;
      job.xu = xu;
      pthreadpool_parallelize_1d_tile_1d (pool, linear_tile8, &job, lin->n, TILE_CHANNELS, 0);
      g_free (x16);
      g_free (xu);
      return;
    }
  /* 4-bit: the rows padded to whole groups, and 8 times their block sums
   * (the nibbles are value + 8) */
  int8_t *xp = g_new0 (int8_t, MAX (rows * lin->padded_k, 1));
  int32_t *xsum8 = g_new (int32_t, MAX (rows * lin->n_blocks, 1));
  for (size_t r = 0; r < rows; r++)
    for (size_t b = 0; b < lin->n_blocks; b++)
      {
        const int8_t *from = job.x + r * k + b * lin->block;
        int8_t *to = xp + r * lin->padded_k + b * lin->block_groups * GROUP;
        int32_t sum = 0;
        for (size_t i = 0; i < lin->block; i++)
          sum += to[i] = from[i];
        xsum8[r * lin->n_blocks + b] = 8 * sum;
      }
  job.xp = xp;
  job.xsum8 = xsum8;
  pthreadpool_parallelize_1d (pool, linear_tile4, &job, lin->n_tiles, 0);
  g_free (xp);
  g_free (xsum8);
}

/* ---- XNNPACK's own path ---- */

#if HAVE_XNN_DATATYPE_QDINT8 && HAVE_XNN_DEFINE_DYNAMICALLY_QUANTIZED_TENSOR_VALUE && \
    defined(HAVE_XNN_RESHAPE_RUNTIME) && defined(HAVE_XNN_SETUP_RUNTIME_V2)
#define CAN_PROBE 1
/* Runs Convert -> FullyConnected on XNNPACK for @rows (1..3) rows of @k
 * (at most 64) inputs and 8 channels of 4-bit weights (blockwise with
 * blocks of 32 when @blockwise, else per channel) and compares with the
 * exact quantized math: some releases get 4-bit weights wrong (Debian 13's
 * leaves the last of 2 or 3 rows unwritten, and on AVX-512 VNNI reads
 * per-channel int4 rows of an odd length wrongly), so what the library
 * computes decides, not its version. */
static gboolean
probe_int4 (gboolean blockwise, size_t rows, size_t k)
{
  enum
  {
    ROWS = 3,
    K = 64,
    N = 8,
    BLOCK = 32
  };
  g_return_val_if_fail (k >= 1 && k <= K && (!blockwise || k % BLOCK == 0), FALSE);
  size_t row_bytes = (k + 1) / 2; /* the exporter's rows: a whole byte each */
  float x[ROWS * K], y[ROWS * N], scales[N];
  uint16_t block_scales[N * K / BLOCK];
  uint8_t w[N * K / 2];
  for (size_t i = 0; i < ROWS * k; i++)
    x[i] = (float) ((i * 37) % 23 - 11) / (float) (1 + i / k);
  for (size_t i = 0; i < N * row_bytes; i++)
    w[i] = (uint8_t) ((i * 29 + 3) % 256);
  for (int i = 0; i < N; i++)
    scales[i] = 0.01f * (float) (i + 1);
  for (size_t i = 0; i < N * k / BLOCK; i++)
    block_scales[i] = (uint16_t) (0x3c00 + 16 * i); /* bf16 0.0078.. upwards */
  xnn_subgraph_t sg = NULL;
  xnn_runtime_t rt = NULL;
  uint32_t ids[4] = { 0, XNN_INVALID_VALUE_ID, XNN_INVALID_VALUE_ID, 1 };
  size_t xdims[2] = { rows, k }, wdims[2] = { N, k }, ydims[2] = { rows, N };
  gboolean same = FALSE;
  enum xnn_status st = xnn_create_subgraph (2, 0, &sg);
  if (st == xnn_status_success)
    st = xnn_define_tensor_value (sg, xnn_datatype_fp32, 2, xdims, NULL, 0, XNN_VALUE_FLAG_EXTERNAL_INPUT, &ids[0]);
  if (st == xnn_status_success)
    st = xnn_define_dynamically_quantized_tensor_value (sg, xnn_datatype_qdint8, 2, 1, xdims, XNN_INVALID_VALUE_ID, 0,
                                                        &ids[1]);
#if HAVE_XNN_DATATYPE_QBINT4 && HAVE_XNN_DEFINE_BLOCKWISE_QUANTIZED_TENSOR_VALUE
  if (st == xnn_status_success && blockwise)
    st = xnn_define_blockwise_quantized_tensor_value (sg, xnn_datatype_qbint4, 8, block_scales, 2, 0, BLOCK, wdims, w,
                                                      XNN_INVALID_VALUE_ID, 0, &ids[2]);
#endif
#if HAVE_XNN_DATATYPE_QCINT4 && HAVE_XNN_DEFINE_CHANNELWISE_QUANTIZED_TENSOR_VALUE_V2
  if (st == xnn_status_success && !blockwise)
    st = xnn_define_channelwise_quantized_tensor_value_v2 (sg, xnn_datatype_qcint4, 8, scales, 2, 0, wdims, w,
                                                           XNN_INVALID_VALUE_ID, 0, &ids[2]);
#endif
  if (st == xnn_status_success && ids[2] == XNN_INVALID_VALUE_ID)
    st = xnn_status_unsupported_parameter;
  if (st == xnn_status_success)
    st = xnn_define_tensor_value (sg, xnn_datatype_fp32, 2, ydims, NULL, 1, XNN_VALUE_FLAG_EXTERNAL_OUTPUT, &ids[3]);
  if (st == xnn_status_success)
    st = xnn_define_convert (sg, ids[0], ids[1], 0);
  if (st == xnn_status_success)
    st = xnn_define_fully_connected (sg, -INFINITY, INFINITY, ids[1], ids[2], XNN_INVALID_VALUE_ID, ids[3], 0);
  if (st == xnn_status_success)
    st = xnn_create_runtime_v2 (sg, NULL, 0, &rt);
  struct xnn_external_value ext[2] = { { 0, x }, { 1, y } };
  memset (y, 0, sizeof y);
  if (st == xnn_status_success)
    st = xnn_reshape_runtime (rt);
  if (st == xnn_status_success)
    st = xnn_setup_runtime_v2 (rt, 2, ext);
  if (st == xnn_status_success)
    st = xnn_invoke_runtime (rt);
  if (st == xnn_status_success)
    {
      same = TRUE;
      for (size_t r = 0; r < rows; r++)
        {
          int8_t q[K];
          XbDqRowParams params = xb_dq_quantize_row (x + r * k, k, q);
          for (int c = 0; c < N; c++)
            {
              double acc = 0.0, mag = 0.0;
              for (size_t i = 0; i < k; i++)
                {
                  int wq = nibble_at (w + c * row_bytes, i);
                  double ws = blockwise ? bf16_to_f32 (block_scales[c * (k / BLOCK) + i / BLOCK]) : scales[c];
                  double term = (double) (q[i] - params.zero_point) * wq * ws * params.scale;
                  acc += term;
                  mag += fabs (term);
                }
              if (!(fabs (y[r * N + c] - acc) <= 1e-4 * mag + 1e-6))
                same = FALSE;
            }
        }
    }
  if (rt)
    xnn_delete_runtime (rt);
  if (sg)
    xnn_delete_subgraph (sg);
  return same;
}
#endif

/* Whether XNNPACK computes 4-bit weights right: probed once per process
 * (bit 0: known, bit 1: blockwise ok, bit 2: per-channel ok). */
static gboolean
library_int4_ok (gboolean blockwise)
{
#ifdef CAN_PROBE
  static gsize probed;
  if (g_once_init_enter (&probed))
    {
      /* rows of 64, 36 and 37 inputs: whole vectors, half ones, an odd length */
      gboolean blockwise_ok = probe_int4 (TRUE, 1, 64) && probe_int4 (TRUE, 3, 64);
      gboolean channelwise_ok = TRUE;
      static const size_t lengths[] = { 64, 36, 37 };
      for (guint i = 0; i < G_N_ELEMENTS (lengths); i++)
        channelwise_ok = channelwise_ok && probe_int4 (FALSE, 1, lengths[i]) && probe_int4 (FALSE, 3, lengths[i]);
      gsize result = 1 | (blockwise_ok ? 2 : 0) | (channelwise_ok ? 4 : 0);
      if (!(result & 2))
        g_debug ("XNNPACK's blockwise int4 fully-connected fails its check: this library runs it");
      if (!(result & 4))
        g_debug ("XNNPACK's per-channel int4 fully-connected fails its check: this library runs it");
      g_once_init_leave (&probed, result);
    }
  return (probed & (blockwise ? 2 : 4)) != 0;
#else
  return FALSE;
#endif
}

enum xnn_status
xb_dq_define_value (xnn_subgraph_t sg, const XbValue *val, const XbShape *s, uint32_t ext_id, uint32_t flags,
                    uint32_t *id, gboolean *handled)
{
  *handled = FALSE;
#if HAVE_XNN_DATATYPE_QDINT8 && HAVE_XNN_DEFINE_DYNAMICALLY_QUANTIZED_TENSOR_VALUE
  if (val->datatype == XB_DT_QDINT8 && val->quant == XB_QUANT_PER_TOKEN)
    {
      *handled = TRUE;
      return xnn_define_dynamically_quantized_tensor_value (sg, xnn_datatype_qdint8, s->ndim, val->num_nonbatch_dims,
                                                            s->dims, ext_id, flags, id);
    }
#endif
#if HAVE_XNN_DATATYPE_QBINT4 && HAVE_XNN_DEFINE_BLOCKWISE_QUANTIZED_TENSOR_VALUE
  if (val->datatype == XB_DT_QBINT4 && val->quant == XB_QUANT_PER_CHANNEL_GROUP)
    {
      *handled = TRUE;
      return xnn_define_blockwise_quantized_tensor_value (sg, xnn_datatype_qbint4, 8, val->block_scales, s->ndim,
                                                          (size_t) val->channel_dim, val->group_size, s->dims,
                                                          val->data, ext_id, flags, id);
    }
#endif
#if HAVE_XNN_DATATYPE_QCINT4 && HAVE_XNN_DEFINE_CHANNELWISE_QUANTIZED_TENSOR_VALUE_V2
  if (val->datatype == XB_DT_QCINT4 && val->quant == XB_QUANT_PER_CHANNEL)
    {
      *handled = TRUE;
      return xnn_define_channelwise_quantized_tensor_value_v2 (sg, xnn_datatype_qcint4, 8, val->scales, s->ndim,
                                                               (size_t) val->channel_dim, s->dims, val->data, ext_id,
                                                               flags, id);
    }
#endif
  (void) sg, (void) val, (void) s, (void) ext_id, (void) flags, (void) id;
  return xnn_status_unsupported_parameter;
}
