/* int-kernels-private.h: what the integer kernels' staging kernels leave for the products
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * int-conv-rewrite.c gives a matched site these kernels:
 *
 *   dequantize(x)  → stage_input (int-stage.c):  (x - zero point) as
 *                    int16 into the float result's own buffer, after a
 *                    header;
 *   dequantize(w)  → nothing: the product's kernel holds the constant
 *                    int8 weights, packed or copied at load with their
 *                    scales and zero points (int-conv.c, int-linear.c);
 *   permute_copy   → nothing (a linear's transposed weight);
 *   convolution    → int_conv (int-conv.c), addmm / mm → int_linear_packed
 *                    (int-linear.c): integer products summed in int32,
 *                    scaled once per output by x_scale × w_scale[oc], plus
 *                    the float bias, into the float result (or requantized
 *                    to bytes, int-requant.c).
 *
 * The staged buffers are the planned float results the dequantization
 * wrote before, live exactly from producer to product, so the data moves
 * along the program's own edges (the int8 input may be dead, its memory
 * reused, by the time the product runs).  Products are exact; only the
 * float rounding of one scaling per output differs from upstream's float
 * product, so the quantized result is within one unit of it
 * (docs/quantized.md).
 */
#pragma once

#include "quantized-private.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define QK_HAVE_AVX2 1
#endif

#define STAGE_INPUT_MAGIC UINT64_C (0x3174757069786b71) /* "qkxinpt1" */
/* a StagedInput followed by numel int8 (uint8) bytes as they were */
#define STAGE_INPUT_INT8_MAGIC UINT64_C (0x3138747969786b71)  /* "qkxiyt81" */
#define STAGE_INPUT_UINT8_MAGIC UINT64_C (0x3175747969786b71) /* "qkxiytu1" */

typedef struct
{
  uint64_t magic;
  double scale;
  int64_t numel;
  int64_t u8_offset; /* (x - zero point) + u8_offset is x as unsigned:
                      * zero point + 128 for int8, zero point for uint8 */
} StagedInput;       /* followed by numel int16 */

/* The int8/uint8 input a convolution reads itself where its
 * dequantize_per_tensor.out (arguments @deq_args) does nothing: the
 * tensor in *bytes and the header staging would have written. */
EtError _executorch_qk_read_byte_input (EtKernelContext *ctx, EtValue **deq_args, StagedInput *head,
                                        const EtTensor **bytes);

/* ---- int-conv-columns.c ---- */

/* A convolution's shape, as the column fill needs it. */
typedef struct
{
  int64_t icg, ih, iw, kh, kw, oh, ow, k, k_pairs, p_pad;
  int64_t stride[2], padding[2], dilation[2];
} QkConvGeometry;

/* Where reduction index j reads, independent of the output row: its
 * input plane and row offset, its column offset and the output columns
 * [lo, hi) whose input column is inside the image. */
typedef struct
{
  int64_t plane, ky_off, off, lo, hi;
} QkColumnTap;

/* taps[0, k) of @geo. */
void _executorch_qk_column_taps (const QkConvGeometry *geo, QkColumnTap *taps);

/* What the u8 columns hold, as unsigned bytes: the staged (x - zero
 * point) plus @pad, or where @bytes is not NULL the int8/uint8 bytes with
 * @flip (0x80 for int8, else 0) xored in; the same numbers, as @pad is the
 * zero point plus 128 for int8 and the zero point for uint8, also the
 * image of 0 the padding takes. */
typedef struct
{
  const int16_t *x;
  const uint8_t *bytes;
  uint8_t flip;
  int16_t pad;
} QkU8Source;

/* The column fill of one group of one image: rows [0, n_rows) of cols
 * (int16 pairs from planes) or of cols8 (u8 quads from u8), per_task rows
 * a task. */
typedef struct
{
  const QkConvGeometry *geo;
  const QkColumnTap *taps;
  const int16_t *planes;
  int16_t *cols;
  QkU8Source u8;
  uint8_t *cols8;
  int64_t n_rows; /* k_pairs or k_quads */
  int64_t per_task;
} QkFill;

/* Fills the columns, over the pool when @parallel. */
void _executorch_qk_fill_columns (const QkFill *fill, bool parallel);

/* The direct form of a convolution at stride 1, u8 x s8 only: no columns.
 * The input is copied once, as quads of four channels at every pixel of
 * its zero-padded plane (image[cq][row][column][4], the padding and any
 * channel past the last being u8_offset), and output pixel (y, x) is
 * computed at flat index q = y * wp + x, its rows as wide as the padded
 * input: then tap (ky, kx) of channel quad cq reads image quad
 * cq * plane + q + ky * dilation * wp + kx * dilation, one fixed offset
 * per reduction row (QkTile8.koff).  The columns x >= ow of each row are
 * computed and thrown away. */
typedef struct
{
  const QkConvGeometry *geo;
  int64_t c_quads; /* quads of input channels of a group */
  int64_t wp;      /* the padded plane's width */
  int64_t p_pad;   /* oh * wp, rounded up to whole tiles */
  int64_t plane;   /* quads of one channel quad's image: all any tap reads */
} QkDirect;

/* False where the direct form does not apply: a stride other than 1, or
 * padding wider than the input. */
bool _executorch_qk_direct_init (const QkConvGeometry *geo, QkDirect *d);
/* koff[(ky * kw + kx) * c_quads + cq]: the byte offset of that reduction row. */
void _executorch_qk_direct_offsets (const QkDirect *d, int64_t *koff);
/* Channel quads [cq0, cq1) of the image of one group of one image; src
 * as QkFill.u8. */
void _executorch_qk_fill_image (const QkDirect *d, const QkU8Source *src, uint8_t *image, int64_t cq0, int64_t cq1);

/* ---- int-conv-tiles.c ---- */

typedef enum
{
  QK_ISA_PORTABLE,
  QK_ISA_AVX2,
  QK_ISA_AVX512_VNNI,
} QkIsa;

/* The best this CPU runs (EXECUTORCH_KERNELS_NO_SIMD and
 * EXECUTORCH_KERNELS_NO_AVX512 step down); decided once. */
QkIsa _executorch_qk_isa (void);

#define QK_TILE_CHANNELS 4
#define QK_TILE_PIXELS 16

/* @pixels rounded up to whole tiles: the pixels the sums cover. */
static inline int64_t
_executorch_qk_tiled (int64_t pixels)
{
  return (pixels + QK_TILE_PIXELS - 1) / QK_TILE_PIXELS * QK_TILE_PIXELS;
}

/* One block of up to QK_TILE_CHANNELS channels against the columns. */
typedef struct
{
  const int16_t *cols; /* [k_pairs][p_pad][2] */
  int64_t p_pad;       /* a multiple of QK_TILE_PIXELS */
  int64_t k_pairs;
  const uint32_t *w; /* [n_channels][k_pairs]: two int16 weights a word */
  int32_t *acc;      /* sums of channel c, pixel p at acc[c * acc_stride + p] */
  int64_t acc_stride;
} QkTile;

/* acc for channels [0, n_channels) (1 to QK_TILE_CHANNELS) and pixels
 * [p0, p1), both multiples of QK_TILE_PIXELS, p1 <= p_pad; @isa at most
 * what _executorch_qk_isa() returned. */
void _executorch_qk_tile_sums (const QkTile *tile, QkIsa isa, int64_t n_channels, int64_t p0, int64_t p1);

/* The staged input alone (a convolution whose weights were packed at load). */
EtError _executorch_qk_read_staged_input (const QkCall *c, const EtTensor *input, StagedInput *head, const int16_t **x);
/* A convolution's staged input: int16 values (*x), or the bytes
 * _executorch_qk_stage_input_bytes_kernel staged (*bytes, *is_signed). */
EtError _executorch_qk_read_conv_input (const QkCall *c, const EtTensor *input, StagedInput *head, const int16_t **x,
                                        const uint8_t **bytes, bool *is_signed);

/* ---- int-conv.c ---- */

/* A convolution kernel for one site, its weights packed at load from the
 * constant int8 weight tensor @w ([OC][IC/groups][KH][KW]) with one scale
 * and zero point per output channel (the weight's dequantization then does
 * nothing: _executorch_qk_weight_packed_*_kernel), in the form the
 * convolution's arguments @conv_args call for; NULL when out of memory.
 * Lives as long as @graph's method. */
const EtKernel *_executorch_qk_int_conv_packed (EtMethodGraph *graph, const EtTensor *w, const double *scales,
                                                const int32_t *zps, EtValue *const *conv_args);

/* ---- int-linear.c ---- */

/* An addmm (@addmm) or mm kernel for one site, the constant int8 weight
 * @w ([N][K], the linear's, before its transpose) copied at load with one
 * scale and zero point per row; the weight's dequantization and transpose
 * then do nothing.  NULL when out of memory. */
const EtKernel *_executorch_qk_int_linear_packed (EtMethodGraph *graph, const EtTensor *w, const double *scales,
                                                  const int32_t *zps, bool addmm);

/* out[p] = (float) ((double) acc[p] * scale + bias) for p < n. */
void _executorch_qk_scale_row (const int32_t *acc, float *out, int64_t n, double scale, double bias, QkIsa isa);

/* A convolution whose float result only went through a relu or hardtanh
 * into a quantize_per_tensor: it writes that int8/uint8 result instead,
 * as a StagedBytes header and the bytes, into its own float result; the
 * activation and the quantize then pass the bytes along
 * (_executorch_qk_pass_relu_kernel and _hardtanh_, _executorch_qk_unstage_bytes_kernel). */
typedef struct
{
  float lo, hi; /* the activation's clamp (-inf, +inf without one) */
  double scale; /* the quantize's arguments */
  int32_t zero_point;
  int64_t qmin, qmax;
  bool is_signed; /* Char, else Byte */
  /* the short form's constants (int-requant.c), set by
   * _executorch_qk_requant_prepare; without them (fast false) every row
   * takes the exact steps */
  bool fast;
  float inv, zp, qlo, qhi, y_max;
} QkRequant;

/* Fills @rq's short-form constants from its other fields. */
void _executorch_qk_requant_prepare (QkRequant *rq);

#define STAGE_BYTES_MAGIC UINT64_C (0x3173657479626b71) /* "qkbytes1" */

typedef struct
{
  uint64_t magic;
  int64_t numel;
} StagedBytes; /* followed by numel bytes */

/* Makes @conv_kernel (from _executorch_qk_int_conv_packed) quantize its
 * result; false when it is not such a kernel. */
bool _executorch_qk_int_conv_set_requant (const EtKernel *conv_kernel, const QkRequant *requant);
/* Makes a requantizing @conv_kernel write its bytes into the tensor of
 * @bytes_out (contiguous, as many elements) instead of staging them. */
bool _executorch_qk_int_conv_set_bytes_out (const EtKernel *conv_kernel, const EtValue *bytes_out);

/* Whether @conv_kernel, with convolution.out's arguments @args, copies
 * all of its input into columns before it writes any of its result: the
 * two may then share memory. */
bool _executorch_qk_int_conv_reads_input_first (const EtKernel *conv_kernel, EtValue *const *args);
/* Makes @conv_kernel, with convolution.out's arguments @args, read its
 * input's int8/uint8 bytes itself through the arguments @deq_args of the
 * dequantize_per_tensor.out before it (which then does nothing), its
 * result exactly over them where @in_place (a depthwise convolution at
 * stride 1 with "same" padding); false where its form cannot take bytes
 * or run in place.  And those arguments, or NULL. */
bool _executorch_qk_int_conv_set_byte_input (const EtKernel *conv_kernel, EtValue *const *args, EtValue **deq_args,
                                             bool in_place);
/* Whether @conv_kernel, with convolution.out's arguments @args, reads
 * int8/uint8 bytes as well as staged int16 values (both fill the same
 * u8 columns, or the depthwise form). */
bool _executorch_qk_int_conv_takes_bytes (const EtKernel *conv_kernel, EtValue *const *args);
EtValue **_executorch_qk_int_conv_byte_input (const EtKernel *conv_kernel);
/* The tensor a requantizing convolution kernel writes its bytes into, or
 * NULL (staged, or not such a kernel). */
const EtValue *_executorch_qk_int_conv_bytes_out (const EtKernel *conv_kernel);
/* Makes a requantizing @conv_kernel that writes its bytes into @from
 * write them into @to instead, clamped to [@lo, @hi] of their type
 * (int8 when @is_signed, else uint8); false when it does not write @from,
 * is of the other type, or the clamp leaves no byte. */
bool _executorch_qk_int_conv_fold_clamp (const EtKernel *conv_kernel, const EtValue *from, const EtValue *to,
                                         bool is_signed, int lo, int hi);

/* A kernel for one relu/hardtanh/sigmoid instruction, or a SiLU's
 * multiply, that maps the staged bytes of argument @self_arg through
 * @table (copied) into its out, named @name (static); @same_type when
 * input and output are both int8 (@is_signed) or both uint8, where a
 * table that is a clamp runs as one. */
const EtKernel *_executorch_qk_lut_kernel_new (EtMethodGraph *graph, const char *name, uint32_t self_arg,
                                               const uint8_t table[256], bool same_type, bool is_signed);
/* Whether @lut_kernel's table is a clamp of bytes of one type to [*lo, *hi]
 * (int8 when *is_signed, else uint8). */
bool _executorch_qk_lut_kernel_clamp (const EtKernel *lut_kernel, bool *is_signed, int *lo, int *hi);
/* Makes a table kernel read the bytes of @bytes_in and write those of
 * @bytes_out (contiguous int8/uint8 tensors, the same elements, disjoint
 * or the same memory) instead of staged ones. */
void _executorch_qk_lut_kernel_set_bytes (const EtKernel *lut_kernel, const EtValue *bytes_in,
                                          const EtValue *bytes_out);
/* A kernel named @name (static) that does nothing: its instruction's work
 * is done by another kernel of the rewrite. */
const EtKernel *_executorch_qk_done_elsewhere_kernel_new (EtMethodGraph *graph, const char *name);
/* A SiLU's sigmoid when its multiply runs the table: does nothing. */
extern const EtKernel _executorch_qk_silu_sigmoid_kernel;
extern const EtKernel _executorch_qk_stage_bytes_kernel;

/* dst[i] = table[in[i]] for i < n (64 at a time with AVX-512 VBMI). */
void _executorch_qk_map_table (const uint8_t table[256], const uint8_t *in, uint8_t *dst, int64_t n);

/* The StagedBytes header at @in's data, checked against its numel and
 * bytes; NULL if it is not there. */
const StagedBytes *_executorch_qk_staged_bytes (const EtTensor *in);

/* int-move.c: permute_copy.out of staged bytes into staged bytes; the
 * clone of staged bytes (int-stage.c) */
extern const EtKernel _executorch_qk_permute_bytes_kernel;
extern const EtKernel _executorch_qk_clone_bytes_kernel;

/* An int8/uint8 tensor a byte-staging dequantize_per_tensor reads:
 * float (x - zero_point) * scale is its value. */
typedef struct
{
  float scale;
  int32_t zero_point;
  bool is_signed; /* Char, else Byte */
} QkByteSource;

/* int-conv-rewrite.c's matchers, shared with int-cat.c: a dequantize that
 * can stage its bytes into its float result (*out), with their source;
 * a quantize_per_tensor of @value into contiguous int8/uint8 (its
 * arguments in *rq); a kernel that is the one the registry resolves its
 * name to (no earlier rewrite's replacement). */
bool _executorch_qk_match_byte_dequantize (EtMethodGraph *graph, uint32_t deq, EtValue **out, QkByteSource *source);
bool _executorch_qk_match_final_quantize (EtMethodGraph *graph, uint32_t index, const EtTensor *value, QkRequant *rq);
bool _executorch_qk_is_registered (const EtKernel *kernel);
/* A static, contiguous Float tensor that can hold the bytes of its own
 * elements after a StagedBytes header (int-conv-rewrite.c). */
bool _executorch_qk_bytes_fit (const EtTensor *t);
/* The one instruction other than @user that takes @value directly, or
 * -1; whether @value (its list included) is used by @a and @b alone
 * (int-cat.c). */
int64_t _executorch_qk_other_user (EtMethodGraph *graph, const EtValue *value, uint32_t user);
bool _executorch_qk_used_only_by_pair (EtMethodGraph *graph, const EtValue *value, uint32_t a, uint32_t b);

/* int-add.c: dequantize -> add (alpha 1, a float input of the same sizes)
 * -> quantize on the bytes, for every add of a method. */
void _executorch_qk_rewrite_byte_adds (EtMethodGraph *graph);
/* The add on staged bytes: argument @staged_arg (0 or 1) the bytes of
 * @source, the other a float tensor of as many elements, the sum clamped
 * to [rq->lo, rq->hi] and quantized with @rq into out's staged bytes, for
 * tests.  With a NULL @graph the kernel is the caller's to g_free. */
const EtKernel *_executorch_qk_byte_add_kernel_new (EtMethodGraph *graph, uint32_t staged_arg,
                                                    const QkByteSource *source, const QkRequant *rq);

/* int-cat.c: dequantize → cat → quantize and dequantize → (byte moves) →
 * split_with_sizes_copy → quantizes on the bytes.  The cats of a method
 * (run after the byte moves); the kernel for split @split of @self, the
 * end of a byte chain from @source, or NULL where the split does not
 * qualify; and that kernel installed, with its quantizes copying the bytes
 * out (after the chain's dequantize and moves were given theirs). */
void _executorch_qk_rewrite_byte_cats (EtMethodGraph *graph);
const EtKernel *_executorch_qk_byte_split_kernel (EtMethodGraph *graph, uint32_t split, const EtValue *self,
                                                  const QkByteSource *source);
void _executorch_qk_byte_split_install (EtMethodGraph *graph, uint32_t split, const EtKernel *kernel);

/* The cat and split kernels on staged bytes, @n_parts list items each
 * through its @tables row ([n_parts][256]; NULL: every part's bytes
 * unchanged), for tests.  With a NULL @graph the kernel is the caller's to
 * g_free. */
const EtKernel *_executorch_qk_byte_list_kernel_new (EtMethodGraph *graph, bool split, uint32_t n_parts,
                                                     const uint8_t *tables);

/* int-pool.c: a max_pool2d_with_indices kernel on staged bytes for one
 * instruction (its indices unread), each window's max byte through
 * @table; NULL for a geometry it does not take (a window without a real
 * element, sizes out of range).  With a NULL @graph (tests) the kernel
 * is the caller's to g_free. */
const EtKernel *_executorch_qk_pool_kernel_new (EtMethodGraph *graph, const uint8_t table[256], bool is_signed,
                                                const int64_t k[2], const int64_t s[2], const int64_t p[2],
                                                const int64_t d[2], int64_t ih, int64_t iw, int64_t oh, int64_t ow);

/* Where a row of sums goes: floats, or clamped and quantized bytes. */
typedef struct
{
  float *f;
  void *q;
  const QkRequant *requant; /* with q */
  QkIsa isa;
} QkOutput;

/* Sums [offset, offset + n) of the output: acc * scale + bias rounded to
 * float once, then (into q) clamped and quantized as upstream does. */
void _executorch_qk_emit_row (const QkOutput *o, const int32_t *acc, int64_t offset, int64_t n, double scale,
                              double bias);

/* ---- int-conv-depthwise.c ---- */

/* A convolution with one input and one output channel per group. */
typedef struct
{
  const int16_t *x;     /* staged planes [channels][ih][iw], or */
  const uint8_t *bytes; /* the int8 (is_signed) or uint8 planes, minus zp */
  bool is_signed;
  int16_t zp;
  /* each output channel lies exactly over its input channel's bytes */
  bool in_place;
  const int16_t *w;    /* [channels][kh][kw], minus their zero points */
  const double *scale; /* x_scale * w_scale per channel */
  const float *bias;   /* NULL or [channels] */
  QkOutput out;        /* [channels][oh][ow] from element base on */
  int64_t base;
  int64_t channels, ih, iw, kh, kw, oh, ow;
  int64_t stride[2], padding[2], dilation[2];
  QkIsa isa;
} QkDepthwise;

/* One image; channels spread over the pool when @parallel.  False when
 * an in-place call (in_place) found no memory to copy a plane into. */
bool _executorch_qk_depthwise (const QkDepthwise *dw, bool parallel);
/* Whether _executorch_qk_depthwise on @isa copies each channel's plane
 * before it writes that channel's result, for a kh x kw kernel at column
 * stride @stride_w and dilation @dilation_w; only then may it run in
 * place (an output channel over its own input channel). */
bool _executorch_qk_depthwise_copies_planes (QkIsa isa, int64_t kh, int64_t kw, int64_t stride_w, int64_t dilation_w);

/* The u8 x s8 form (AVX-512 VNNI vpdpbusd): columns of the input as
 * unsigned bytes u = (x - zero point) + u8_offset, four reduction indices
 * per pixel (cols8[k_quads][p_pad][4]; padding is u8_offset), weights as
 * four int8 per word, and per channel u8_offset x the sum of its weights,
 * taken off every sum.  The quads of row q (one reduction index of
 * four) and pixel p lie at cols8 + (q * p_pad + p) * 4, or, with koff,
 * at cols8 + koff[q] + p * 4 (the direct form, int-conv-direct.c). */
typedef struct
{
  const uint8_t *cols8;
  int64_t p_pad, k_quads;
  const uint32_t *w8;    /* [n_channels][k_quads] */
  const int32_t *offset; /* [n_channels] */
  int32_t *acc;
  int64_t acc_stride;
  const int64_t *koff; /* [k_quads] bytes, or NULL */
} QkTile8;

/* As _executorch_qk_tile_sums; only where _executorch_qk_isa() is
 * QK_ISA_AVX512_VNNI. */
void _executorch_qk_tile8_sums (const QkTile8 *tile, int64_t n_channels, int64_t p0, int64_t p1);

/* Work below which the pool's hand-off costs more than it saves. */
#define QK_PARALLEL_MIN_MACS (1 << 18)
/* A depthwise channel's fixed cost, in multiply-adds of the same time. */
#define QK_DEPTHWISE_CHANNEL_MACS 2048
