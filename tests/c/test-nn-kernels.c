/* test-nn-kernels.c: tests for the normalisation, pooling, padding,
 * activation, unary, extra binary and softmax kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Argument stacks are built the way the interpreter builds them (schema
 * order, IntLists of Int slots, out tensors, then the return slot).  Every
 * result is checked against a reference computed here with a plain
 * formula: floats with tolerances (float32: atol 1e-5, rtol 1e-4 unless
 * stated), integers exactly.  Run with --no-simd to force the portable
 * loops (meson runs both).
 */
#include "kernel-test-util.h"

#include <math.h>
#include <string.h>

/* ---- Tensors and values ---- */

static void
free_tensor (gpointer p)
{
  Tensor *x = p;
  g_free (x->t.data);
  g_free (x);
}

/* A tensor with zeroed data, freed with the test; @capacity_elems > 0
 * makes it DYNAMIC_BOUND. */
static Tensor *
tnew_full (int type, uint32_t ndim, const int64_t *sizes, const uint8_t *order, size_t capacity_elems)
{
  Tensor *x = g_new0 (Tensor, 1);
  tensor_init_full (x, type, ndim, sizes, order, NULL, capacity_elems ? ET_SHAPE_DYNAMIC_BOUND : ET_SHAPE_STATIC,
                    capacity_elems * et_scalar_type_size (type));
  x->t.data = g_malloc0 (x->t.capacity > 0 ? x->t.capacity : 1);
  g_test_queue_destroy (free_tensor, x);
  return x;
}

static Tensor *
tnew (int type, uint32_t ndim, const int64_t *sizes)
{
  return tnew_full (type, ndim, sizes, NULL, 0);
}

/* A dynamic out with room for 8192 elements (at least @sizes'), starting
 * at @sizes. */
static Tensor *
tout (int type, uint32_t ndim, const int64_t *sizes)
{
  int64_t numel = 1;
  for (uint32_t d = 0; d < ndim; d++)
    numel *= sizes[d];
  return tnew_full (type, ndim, sizes, NULL, numel > 8192 ? (size_t) numel : 8192);
}

static const uint8_t CL4[4] = { 0, 2, 3, 1 };

#define F32(x) ((float *) (x)->t.data)
#define F64(x) ((double *) (x)->t.data)
#define I64(x) ((int64_t *) (x)->t.data)
#define I32(x) ((int32_t *) (x)->t.data)
#define I8(x) ((int8_t *) (x)->t.data)
#define U8(x) ((uint8_t *) (x)->t.data)

static void
fill_random (Tensor *x, double lo, double hi)
{
  for (int64_t i = 0; i < x->t.numel; i++)
    tensor_set (x, i, g_test_rand_double_range (lo, hi));
}

static void
fill_values (Tensor *x, const double *v)
{
  for (int64_t i = 0; i < x->t.numel; i++)
    tensor_set (x, i, v[i]);
}

/* Argument lists freed with the test. */
static EtValue *
ilist (uint32_t n, const int64_t *items)
{
  IntList *l = g_new0 (IntList, 1);
  int_list_init (l, n, items);
  g_test_queue_free (l);
  return &l->v;
}

static EtValue *
dlist (uint32_t n, const double *items)
{
  EtValue *v = g_new0 (EtValue, 1);
  double *copy = g_new0 (double, n + 1);
  memcpy (copy, items, n * sizeof (double));
  v->tag = ET_VALUE_LIST_DOUBLE;
  v->u.double_list.items = copy;
  v->u.double_list.length = n;
  g_test_queue_free (copy);
  g_test_queue_free (v);
  return v;
}

/* The aggregate return slot of multi-output ops. */
static EtValue *
tlist (uint32_t n, Tensor **items)
{
  EtValue **ptrs = g_new0 (EtValue *, n + 1);
  EtValue *v = g_new0 (EtValue, 1);
  for (uint32_t i = 0; i < n; i++)
    ptrs[i] = &items[i]->v;
  v->tag = ET_VALUE_LIST_TENSOR;
  v->u.list.items = ptrs;
  v->u.list.length = n;
  g_test_queue_free (ptrs);
  g_test_queue_free (v);
  return v;
}

#define CALL_OK(name, ...)                                                 \
  do                                                                       \
    {                                                                      \
      EtValue *args_[] = { __VA_ARGS__ };                                  \
      EtError e_ = call (name, args_, G_N_ELEMENTS (args_));               \
      if (e_ != ET_OK)                                                     \
        g_error ("%s: unexpected error 0x%x: %s", name, e_, last_message); \
    }                                                                      \
  while (0)

#define CALL_FAILS(name, ...)                                                 \
  do                                                                          \
    {                                                                         \
      EtValue *args_[] = { __VA_ARGS__ };                                     \
      EtError e_ = call (name, args_, G_N_ELEMENTS (args_));                  \
      if (e_ == ET_OK)                                                        \
        g_error ("%s: expected an error at %s:%d", name, __FILE__, __LINE__); \
      g_assert_cmpstr (last_message, !=, "");                                 \
    }                                                                         \
  while (0)

static void
close_to (double got, double want, double atol, double rtol, const char *what, int64_t i)
{
  if (isnan (want) && isnan (got))
    return;
  if (isinf (want) && got == want)
    return;
  if (!(fabs (got - want) <= atol + rtol * fabs (want)))
    g_error ("%s[%" G_GINT64_FORMAT "]: got %.9g, expected %.9g", what, i, got, want);
}

static void
check_f (const Tensor *x, const double *want, double atol, double rtol, const char *what)
{
  for (int64_t i = 0; i < x->t.numel; i++)
    close_to (tensor_get (x, i), want[i], atol, rtol, what, i);
}

static void
check_exact (const Tensor *x, const double *want, const char *what)
{
  for (int64_t i = 0; i < x->t.numel; i++)
    if (tensor_get (x, i) != want[i] && !(isnan (want[i]) && isnan (tensor_get (x, i))))
      g_error ("%s[%" G_GINT64_FORMAT "]: got %.17g, expected %.17g", what, i, tensor_get (x, i), want[i]);
}

static void
check_shape (const Tensor *x, uint32_t ndim, const int64_t *sizes)
{
  g_assert_cmpuint (x->t.ndim, ==, ndim);
  for (uint32_t d = 0; d < ndim; d++)
    g_assert_cmpint (x->t.sizes[d], ==, sizes[d]);
}

#define ATOL 1e-5
#define RTOL 1e-4

/* ---- Registration ---- */

static const char *const nn_kernels[] = {
  "aten::relu.out",
  "aten::sigmoid.out",
  "aten::tanh.out",
  "aten::exp.out",
  "aten::expm1.out",
  "aten::log.out",
  "aten::log10.out",
  "aten::log1p.out",
  "aten::log2.out",
  "aten::sqrt.out",
  "aten::rsqrt.out",
  "aten::sin.out",
  "aten::cos.out",
  "aten::tan.out",
  "aten::asin.out",
  "aten::acos.out",
  "aten::atan.out",
  "aten::sinh.out",
  "aten::cosh.out",
  "aten::asinh.out",
  "aten::acosh.out",
  "aten::atanh.out",
  "aten::erf.out",
  "aten::reciprocal.out",
  "aten::logit.out",
  "aten::neg.out",
  "aten::abs.out",
  "aten::ceil.out",
  "aten::floor.out",
  "aten::round.out",
  "aten::trunc.out",
  "aten::sign.out",
  "aten::bitwise_not.out",
  "aten::isnan.out",
  "aten::isinf.out",
  "aten::logical_not.out",
  "aten::_conj_physical.out",
  "aten::hardtanh.out",
  "aten::clamp.out",
  "aten::clamp.Tensor_out",
  "aten::gelu.out",
  "aten::elu.out",
  "aten::leaky_relu.out",
  "aten::glu.out",
  "aten::rsub.Scalar_out",
  "aten::pow.Tensor_Scalar_out",
  "aten::pow.Tensor_Tensor_out",
  "aten::pow.Scalar_out",
  "aten::atan2.out",
  "aten::maximum.out",
  "aten::minimum.out",
  "aten::fmod.Tensor_out",
  "aten::fmod.Scalar_out",
  "aten::remainder.Tensor_out",
  "aten::remainder.Scalar_out",
  "aten::floor_divide.out",
  "aten::div.out_mode",
  "aten::div.Scalar_mode_out",
  "aten::logical_and.out",
  "aten::logical_or.out",
  "aten::logical_xor.out",
  "aten::bitwise_and.Tensor_out",
  "aten::bitwise_or.Tensor_out",
  "aten::bitwise_xor.Tensor_out",
  "aten::bitwise_and.Scalar_out",
  "aten::bitwise_or.Scalar_out",
  "aten::bitwise_xor.Scalar_out",
  "aten::bitwise_left_shift.Tensor_out",
  "aten::bitwise_left_shift.Tensor_Scalar_out",
  "aten::bitwise_right_shift.Tensor_out",
  "aten::bitwise_right_shift.Tensor_Scalar_out",
  "aten::where.self_out",
  "aten::masked_fill.Scalar_out",
  "aten::_native_batch_norm_legit_no_training.out",
  "aten::_native_batch_norm_legit.out",
  "aten::_native_batch_norm_legit.no_stats_out",
  "aten::native_layer_norm.out",
  "aten::native_group_norm.out",
  "aten::max_pool2d_with_indices.out",
  "aten::avg_pool2d.out",
  "aten::_adaptive_avg_pool2d.out",
  "aten::constant_pad_nd.out",
  "aten::reflection_pad1d.out",
  "aten::reflection_pad2d.out",
  "aten::reflection_pad3d.out",
  "aten::replication_pad1d.out",
  "aten::replication_pad2d.out",
  "aten::replication_pad3d.out",
  "aten::upsample_nearest2d.vec_out",
  "aten::upsample_bilinear2d.vec_out",
  "aten::pixel_shuffle.out",
  "aten::pixel_unshuffle.out",
  "aten::_softmax.out",
  "aten::_upsample_bilinear2d_aa.out",
  "aten::grid_sampler_2d.out",
  "aten::max_pool2d_with_indices_backward.grad_input",
  "aten::_log_softmax.out",
};

static void
test_registered (void)
{
  for (size_t i = 0; i < G_N_ELEMENTS (nn_kernels); i++)
    if (et_registry_find_kernel (et_registry_get_default (), nn_kernels[i]) == NULL)
      g_error ("kernel %s is not registered", nn_kernels[i]);
}

/* Every kernel rejects wrong argument counts and wrongly tagged arguments
 * with an error (never a crash). */
static void
test_bad_arguments (void)
{
  EtValue nones[16], *args[16];
  Tensor *empty = tnew (ET_SCALAR_BYTE, 1, (int64_t[]){ 0 });
  for (int i = 0; i < 16; i++)
    {
      nones[i] = none_value ();
      args[i] = &nones[i];
    }
  for (size_t k = 0; k < G_N_ELEMENTS (nn_kernels); k++)
    {
      for (uint32_t n = 0; n < 14; n++)
        {
          g_assert_cmpint (call (nn_kernels[k], args, n), !=, ET_OK);
          g_assert_cmpstr (last_message, !=, "");
        }
      /* Every slot an empty Byte tensor (the None-Tensor encoding): some
     * kernels accept that (relu of an empty Byte tensor), none may crash. */
      EtValue *targs[16];
      for (int i = 0; i < 16; i++)
        targs[i] = &empty->v;
      for (uint32_t n = 0; n < 14; n++)
        (void) call (nn_kernels[k], targs, n);
    }
}

/* ---- Unary ---- */

typedef struct
{
  const char *name;
  double (*ref) (double);
  double lo, hi;
} FloatOp;

static double
ref_sigmoid (double x)
{
  return 1.0 / (1.0 + exp (-x));
}
static double
ref_rsqrt (double x)
{
  return 1.0 / sqrt (x);
}
static double
ref_reciprocal (double x)
{
  return 1.0 / x;
}

static const FloatOp float_ops[] = {
  { "aten::sigmoid.out", ref_sigmoid, -20, 20 },
  { "aten::tanh.out", tanh, -10, 10 },
  { "aten::exp.out", exp, -20, 20 },
  { "aten::expm1.out", expm1, -3, 3 },
  { "aten::log.out", log, 0.01, 50 },
  { "aten::log10.out", log10, 0.01, 50 },
  { "aten::log1p.out", log1p, -0.9, 50 },
  { "aten::log2.out", log2, 0.01, 50 },
  { "aten::sqrt.out", sqrt, 0, 50 },
  { "aten::rsqrt.out", ref_rsqrt, 0.01, 50 },
  { "aten::sin.out", sin, -6, 6 },
  { "aten::cos.out", cos, -6, 6 },
  { "aten::tan.out", tan, -1.2, 1.2 },
  { "aten::asin.out", asin, -1, 1 },
  { "aten::acos.out", acos, -1, 1 },
  { "aten::atan.out", atan, -10, 10 },
  { "aten::sinh.out", sinh, -5, 5 },
  { "aten::cosh.out", cosh, -5, 5 },
  { "aten::asinh.out", asinh, -10, 10 },
  { "aten::acosh.out", acosh, 1, 10 },
  { "aten::atanh.out", atanh, -0.99, 0.99 },
  { "aten::erf.out", erf, -3, 3 },
  { "aten::reciprocal.out", ref_reciprocal, 0.1, 10 },
};

static void
test_unary_float_ops (void)
{
  int64_t n = 1037; /* above a vector width, odd tail */
  for (size_t k = 0; k < G_N_ELEMENTS (float_ops); k++)
    {
      const FloatOp *op = &float_ops[k];
      double *want = g_new (double, n);
      int types[2] = { ET_SCALAR_FLOAT, ET_SCALAR_DOUBLE };
      for (int t = 0; t < 2; t++)
        {
          Tensor *x = tnew (types[t], 1, &n), *o = tout (types[t], 1, &n);
          fill_random (x, op->lo, op->hi);
          for (int64_t i = 0; i < n; i++)
            want[i] = op->ref (tensor_get (x, i));
          CALL_OK (op->name, &x->v, &o->v, &o->v);
          check_f (o, want, t == 0 ? ATOL : 1e-12, t == 0 ? RTOL : 1e-12, op->name);
        }
      /* Int input, Float out: computed in float. */
      int64_t m = 5;
      Tensor *xi = tnew (ET_SCALAR_INT, 1, &m), *of = tout (ET_SCALAR_FLOAT, 1, &m);
      for (int64_t i = 0; i < m; i++)
        I32 (xi)[i] = (int32_t) (i % 2 ? 1 : (op->lo > 0 ? 1 : 0));
      for (int64_t i = 0; i < m; i++)
        want[i] = op->ref (I32 (xi)[i]);
      CALL_OK (op->name, &xi->v, &of->v, &of->v);
      check_f (of, want, ATOL, RTOL, op->name);
      /* An integer out is an error. */
      Tensor *oi = tout (ET_SCALAR_INT, 1, &m);
      CALL_FAILS (op->name, &xi->v, &oi->v, &oi->v);
      g_free (want);
    }
}

static void
test_unary_bf16_and_empty (void)
{
  int64_t n = 4, z[2] = { 3, 0 };
  Tensor *x = tnew (ET_SCALAR_BFLOAT16, 1, &n), *o = tout (ET_SCALAR_BFLOAT16, 1, &n);
  double v[4] = { -2, -0.5, 0, 1.5 }, want[4];
  fill_values (x, v);
  for (int i = 0; i < 4; i++)
    want[i] = exp (v[i]);
  CALL_OK ("aten::exp.out", &x->v, &o->v, &o->v);
  check_f (o, want, 1e-2, 1e-2, "exp bf16");

  /* Empty input: out is resized and nothing else happens. */
  Tensor *e = tnew (ET_SCALAR_FLOAT, 2, z), *eo = tout (ET_SCALAR_FLOAT, 2, (int64_t[]){ 1, 1 });
  CALL_OK ("aten::sigmoid.out", &e->v, &eo->v, &eo->v);
  check_shape (eo, 2, z);
  CALL_OK ("aten::relu.out", &e->v, &eo->v, &eo->v);
  check_shape (eo, 2, z);
}

static void
test_unary_channels_last (void)
{
  int64_t s[4] = { 2, 3, 2, 5 };
  Tensor *x = tnew_full (ET_SCALAR_FLOAT, 4, s, CL4, 0);
  Tensor *o = tnew (ET_SCALAR_FLOAT, 4, s);
  Tensor *ocl = tnew_full (ET_SCALAR_FLOAT, 4, s, CL4, 0);
  double want[60];
  fill_random (x, -4, 4);
  for (int i = 0; i < 60; i++)
    want[i] = tanh (tensor_get (x, i));
  CALL_OK ("aten::tanh.out", &x->v, &o->v, &o->v);
  check_f (o, want, ATOL, RTOL, "tanh cl->contig");
  CALL_OK ("aten::tanh.out", &x->v, &ocl->v, &ocl->v);
  check_f (ocl, want, ATOL, RTOL, "tanh cl->cl");
  for (int i = 0; i < 60; i++)
    want[i] = tensor_get (x, i) < 0 ? 0 : tensor_get (x, i);
  CALL_OK ("aten::relu.out", &x->v, &o->v, &o->v);
  check_exact (o, want, "relu cl");
}

static void
test_unary_same_dtype (void)
{
  int64_t n = 9;
  double v[9] = { -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.0, NAN, 3.7 };
  Tensor *x = tnew (ET_SCALAR_FLOAT, 1, &n), *o = tout (ET_SCALAR_FLOAT, 1, &n);
  fill_values (x, v);
  struct
  {
    const char *name;
    double want[9];
  } cases[] = {
    { "aten::round.out", { -2, -2, -0.0, 0, 2, 2, -0.0, NAN, 4 } },
    { "aten::ceil.out", { -2, -1, -0.0, 1, 2, 3, -0.0, NAN, 4 } },
    { "aten::floor.out", { -3, -2, -1, 0, 1, 2, -0.0, NAN, 3 } },
    { "aten::trunc.out", { -2, -1, -0.0, 0, 1, 2, -0.0, NAN, 3 } },
    { "aten::neg.out", { 2.5, 1.5, 0.5, -0.5, -1.5, -2.5, 0, NAN, -3.7 } },
    { "aten::abs.out", { 2.5, 1.5, 0.5, 0.5, 1.5, 2.5, 0, NAN, 3.7 } },
    { "aten::sign.out", { -1, -1, -1, 1, 1, 1, 0, 0, 1 } },
    { "aten::relu.out", { 0, 0, 0, 0.5, 1.5, 2.5, 0, NAN, 3.7 } },
  };
  for (size_t k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      CALL_OK (cases[k].name, &x->v, &o->v, &o->v);
      check_f (o, cases[k].want, 1e-6, 1e-6, cases[k].name);
    }

  /* Integers: abs/neg wrap at the minimum, rounding ops are the identity. */
  int64_t m = 4;
  Tensor *xi = tnew (ET_SCALAR_CHAR, 1, &m), *oi = tout (ET_SCALAR_CHAR, 1, &m);
  double iv[4] = { -128, -3, 0, 127 };
  fill_values (xi, iv);
  CALL_OK ("aten::abs.out", &xi->v, &oi->v, &oi->v);
  check_exact (oi, (double[]){ -128, 3, 0, 127 }, "abs int8");
  CALL_OK ("aten::neg.out", &xi->v, &oi->v, &oi->v);
  check_exact (oi, (double[]){ -128, 3, 0, -127 }, "neg int8");
  CALL_OK ("aten::floor.out", &xi->v, &oi->v, &oi->v);
  check_exact (oi, iv, "floor int8");
  CALL_OK ("aten::sign.out", &xi->v, &oi->v, &oi->v);
  check_exact (oi, (double[]){ -1, -1, 0, 1 }, "sign int8");
  CALL_OK ("aten::relu.out", &xi->v, &oi->v, &oi->v);
  check_exact (oi, (double[]){ 0, 0, 0, 127 }, "relu int8");
  CALL_OK ("aten::bitwise_not.out", &xi->v, &oi->v, &oi->v);
  check_exact (oi, (double[]){ 127, 2, -1, -128 }, "bitwise_not int8");

  Tensor *xl = tnew (ET_SCALAR_LONG, 1, (int64_t[]){ 1 }), *ol = tout (ET_SCALAR_LONG, 1, (int64_t[]){ 1 });
  I64 (xl)[0] = INT64_MIN;
  CALL_OK ("aten::neg.out", &xl->v, &ol->v, &ol->v);
  g_assert_cmpint (I64 (ol)[0], ==, INT64_MIN);

  Tensor *xb = tnew (ET_SCALAR_BOOL, 1, &m), *ob = tout (ET_SCALAR_BOOL, 1, &m);
  fill_values (xb, (double[]){ 1, 0, 1, 0 });
  CALL_OK ("aten::bitwise_not.out", &xb->v, &ob->v, &ob->v);
  check_exact (ob, (double[]){ 0, 1, 0, 1 }, "bitwise_not bool");
  CALL_OK ("aten::sign.out", &xb->v, &ob->v, &ob->v);
  check_exact (ob, (double[]){ 1, 0, 1, 0 }, "sign bool");

  /* Errors: Bool for relu/neg/abs, mismatched out, bitwise_not on floats. */
  CALL_FAILS ("aten::relu.out", &xb->v, &ob->v, &ob->v);
  CALL_FAILS ("aten::neg.out", &xb->v, &ob->v, &ob->v);
  CALL_FAILS ("aten::abs.out", &xb->v, &ob->v, &ob->v);
  CALL_FAILS ("aten::neg.out", &x->v, &oi->v, &oi->v);
  CALL_FAILS ("aten::bitwise_not.out", &x->v, &o->v, &o->v);
}

static void
test_unary_predicates (void)
{
  int64_t n = 5;
  Tensor *x = tnew (ET_SCALAR_FLOAT, 1, &n), *ob = tout (ET_SCALAR_BOOL, 1, &n);
  Tensor *of = tout (ET_SCALAR_FLOAT, 1, &n);
  fill_values (x, (double[]){ NAN, INFINITY, -INFINITY, 0.0, 0.25 });
  CALL_OK ("aten::isnan.out", &x->v, &ob->v, &ob->v);
  check_exact (ob, (double[]){ 1, 0, 0, 0, 0 }, "isnan");
  CALL_OK ("aten::isinf.out", &x->v, &ob->v, &ob->v);
  check_exact (ob, (double[]){ 0, 1, 1, 0, 0 }, "isinf");
  CALL_OK ("aten::logical_not.out", &x->v, &of->v, &of->v);
  check_exact (of, (double[]){ 0, 0, 0, 1, 0 }, "logical_not float out");
  CALL_OK ("aten::logical_not.out", &x->v, &ob->v, &ob->v);
  check_exact (ob, (double[]){ 0, 0, 0, 1, 0 }, "logical_not bool out");
  Tensor *xi = tnew (ET_SCALAR_LONG, 1, &n);
  fill_values (xi, (double[]){ 0, 1, -1, 0, 5 });
  CALL_OK ("aten::isnan.out", &xi->v, &ob->v, &ob->v);
  check_exact (ob, (double[]){ 0, 0, 0, 0, 0 }, "isnan long");
  CALL_FAILS ("aten::isnan.out", &x->v, &of->v, &of->v);
}

static void
test_unary_logit_conj (void)
{
  int64_t n = 4;
  Tensor *x = tnew (ET_SCALAR_FLOAT, 1, &n), *o = tout (ET_SCALAR_FLOAT, 1, &n);
  double v[4] = { 0.05, 0.3, 0.5, 0.97 }, want[4];
  fill_values (x, v);
  EtValue eps_none = none_value (), eps = double_value (0.1);
  for (int i = 0; i < 4; i++)
    want[i] = log (v[i] / (1 - v[i]));
  CALL_OK ("aten::logit.out", &x->v, &eps_none, &o->v, &o->v);
  check_f (o, want, ATOL, RTOL, "logit");
  for (int i = 0; i < 4; i++)
    {
      double c = v[i] < 0.1 ? 0.1 : v[i] > 0.9 ? 0.9 : v[i];
      want[i] = log (c / (1 - c));
    }
  CALL_OK ("aten::logit.out", &x->v, &eps, &o->v, &o->v);
  check_f (o, want, ATOL, RTOL, "logit eps");

  CALL_OK ("aten::_conj_physical.out", &x->v, &o->v, &o->v);
  check_f (o, v, 0, 1e-7, "conj real");
  Tensor *c = tnew (ET_SCALAR_COMPLEX_FLOAT, 1, (int64_t[]){ 2 });
  Tensor *co = tout (ET_SCALAR_COMPLEX_FLOAT, 1, (int64_t[]){ 2 });
  float cv[4] = { 1, 2, -3, -4 };
  memcpy (c->t.data, cv, sizeof cv);
  CALL_OK ("aten::_conj_physical.out", &c->v, &co->v, &co->v);
  g_assert_cmpfloat (F32 (co)[0], ==, 1);
  g_assert_cmpfloat (F32 (co)[1], ==, -2);
  g_assert_cmpfloat (F32 (co)[2], ==, -3);
  g_assert_cmpfloat (F32 (co)[3], ==, 4);
  CALL_FAILS ("aten::_conj_physical.out", &x->v, &co->v, &co->v);
}

/* Vectorised exp/sigmoid/tanh over the whole range, special values. */
static void
test_vector_accuracy (void)
{
  int64_t n = 4001;
  Tensor *x = tnew (ET_SCALAR_FLOAT, 1, &n), *o = tout (ET_SCALAR_FLOAT, 1, &n);
  for (int64_t i = 0; i < n; i++)
    F32 (x)[i] = (float) (-110.0 + 200.0 * (double) i / (double) (n - 1));
  CALL_OK ("aten::exp.out", &x->v, &o->v, &o->v);
  for (int64_t i = 0; i < n; i++)
    {
      double want = exp ((double) F32 (x)[i]);
      float wf = (float) want;
      /* within 2 ulp (of the float result; denormals: 2 ulp of FLT_TRUE_MIN) */
      double ulp = wf == 0 || fpclassify (wf) == FP_SUBNORMAL ? 1.4e-45 : fabs (nextafterf (wf, INFINITY) - wf);
      if (isinf (wf))
        g_assert_true (isinf (F32 (o)[i]));
      else if (fabs (F32 (o)[i] - want) > 2 * ulp + 1e-300)
        g_error ("exp(%.9g) = %.9g, expected %.9g", F32 (x)[i], F32 (o)[i], want);
    }
  CALL_OK ("aten::sigmoid.out", &x->v, &o->v, &o->v);
  for (int64_t i = 0; i < n; i++)
    close_to (F32 (o)[i], ref_sigmoid (F32 (x)[i]), 1e-7, 1e-6, "sigmoid range", i);
  CALL_OK ("aten::tanh.out", &x->v, &o->v, &o->v);
  for (int64_t i = 0; i < n; i++)
    close_to (F32 (o)[i], tanh (F32 (x)[i]), 1e-7, 1e-6, "tanh range", i);
  /* small arguments keep their relative accuracy */
  for (int64_t i = 0; i < n; i++)
    F32 (x)[i] = (float) ((double) (i - n / 2) * 1e-4);
  CALL_OK ("aten::tanh.out", &x->v, &o->v, &o->v);
  for (int64_t i = 0; i < n; i++)
    close_to (F32 (o)[i], tanh (F32 (x)[i]), 1e-12, 1e-6, "tanh small", i);

  int64_t m = 9;
  Tensor *s = tnew (ET_SCALAR_FLOAT, 1, &m), *so = tout (ET_SCALAR_FLOAT, 1, &m);
  fill_values (s, (double[]){ NAN, INFINITY, -INFINITY, 0, -0.0, 88.8, -104, 1e-30, -87.5 });
  CALL_OK ("aten::exp.out", &s->v, &so->v, &so->v);
  check_f (so, (double[]){ NAN, INFINITY, 0, 1, 1, INFINITY, 0, 1, exp (-87.5) }, 0, 3e-7, "exp special");
  CALL_OK ("aten::sigmoid.out", &s->v, &so->v, &so->v);
  check_f (so, (double[]){ NAN, 1, 0, 0.5, 0.5, 1, 0, 0.5, 0 }, 1e-7, 1e-6, "sigmoid special");
  CALL_OK ("aten::tanh.out", &s->v, &so->v, &so->v);
  check_f (so, (double[]){ NAN, 1, -1, 0, 0, 1, -1, 1e-30, -1 }, 1e-7, 1e-6, "tanh special");
  CALL_OK ("aten::relu.out", &s->v, &so->v, &so->v);
  check_f (so, (double[]){ NAN, INFINITY, 0, 0, 0, 88.8, 0, 1e-30, 0 }, 0, 1e-7, "relu special");
}

/* ---- Activations ---- */

static void
test_hardtanh_clamp (void)
{
  int64_t n = 1003;
  Tensor *x = tnew (ET_SCALAR_FLOAT, 1, &n), *o = tout (ET_SCALAR_FLOAT, 1, &n);
  double *want = g_new (double, n);
  fill_random (x, -10, 10);
  F32 (x)[5] = NAN;
  EtValue lo = int_value (0), hi = double_value (6.0);
  for (int64_t i = 0; i < n; i++)
    {
      double v = tensor_get (x, i);
      want[i] = isnan (v) ? v : v < 0 ? 0 : v > 6 ? 6 : v;
    }
  CALL_OK ("aten::hardtanh.out", &x->v, &lo, &hi, &o->v, &o->v);
  check_exact (o, want, "hardtanh");
  CALL_OK ("aten::clamp.out", &x->v, &lo, &hi, &o->v, &o->v);
  check_exact (o, want, "clamp");

  /* One-sided, and min > max gives max. */
  EtValue nn = none_value (), three = double_value (3.0), two = double_value (2.0);
  for (int64_t i = 0; i < n; i++)
    {
      double v = tensor_get (x, i);
      want[i] = isnan (v) ? v : v < 3 ? 3 : v;
    }
  CALL_OK ("aten::clamp.out", &x->v, &three, &nn, &o->v, &o->v);
  check_exact (o, want, "clamp min");
  for (int64_t i = 0; i < n; i++)
    want[i] = isnan (tensor_get (x, i)) ? NAN : 2;
  CALL_OK ("aten::clamp.out", &x->v, &three, &two, &o->v, &o->v);
  check_exact (o, want, "clamp min>max");
  CALL_FAILS ("aten::clamp.out", &x->v, &nn, &nn, &o->v, &o->v);

  /* Integers: an Int bound keeps the dtype, a float bound needs a Float out. */
  int64_t m = 5;
  Tensor *xi = tnew (ET_SCALAR_INT, 1, &m), *oi = tout (ET_SCALAR_INT, 1, &m), *of = tout (ET_SCALAR_FLOAT, 1, &m);
  fill_values (xi, (double[]){ -7, -1, 0, 4, 9 });
  EtValue ilo = int_value (-2), ihi = int_value (5), fhi = double_value (4.5);
  CALL_OK ("aten::clamp.out", &xi->v, &ilo, &ihi, &oi->v, &oi->v);
  check_exact (oi, (double[]){ -2, -1, 0, 4, 5 }, "clamp int");
  CALL_FAILS ("aten::clamp.out", &xi->v, &ilo, &fhi, &oi->v, &oi->v);
  CALL_OK ("aten::clamp.out", &xi->v, &ilo, &fhi, &of->v, &of->v);
  check_exact (of, (double[]){ -2, -1, 0, 4, 4.5 }, "clamp int->float");
  CALL_OK ("aten::hardtanh.out", &xi->v, &ilo, &ihi, &oi->v, &oi->v);
  check_exact (oi, (double[]){ -2, -1, 0, 4, 5 }, "hardtanh int");
  /* A bound that does not fit the dtype. */
  Tensor *xc = tnew (ET_SCALAR_CHAR, 1, &m), *oc = tout (ET_SCALAR_CHAR, 1, &m);
  EtValue big = int_value (300);
  CALL_FAILS ("aten::hardtanh.out", &xc->v, &ilo, &big, &oc->v, &oc->v);
  CALL_FAILS ("aten::hardtanh.out", &xi->v, &ilo, &ihi, &of->v, &of->v);

  /* Double. */
  Tensor *xd = tnew (ET_SCALAR_DOUBLE, 1, &m), *od = tout (ET_SCALAR_DOUBLE, 1, &m);
  fill_values (xd, (double[]){ -7.5, -1, NAN, 4, 9 });
  CALL_OK ("aten::hardtanh.out", &xd->v, &ilo, &fhi, &od->v, &od->v);
  check_exact (od, (double[]){ -2, -1, NAN, 4, 4.5 }, "hardtanh double");
  g_free (want);
}

static void
test_clamp_tensor (void)
{
  int64_t sx[2] = { 2, 3 }, sl[1] = { 3 }, sh[2] = { 2, 1 };
  Tensor *x = tnew (ET_SCALAR_FLOAT, 2, sx), *lo = tnew (ET_SCALAR_FLOAT, 1, sl);
  Tensor *hi = tnew (ET_SCALAR_LONG, 2, sh), *o = tout (ET_SCALAR_FLOAT, 2, sx);
  fill_values (x, (double[]){ -5, 0.5, 7, NAN, 2, 3 });
  fill_values (lo, (double[]){ -1, 1, NAN });
  fill_values (hi, (double[]){ 4, 2 });
  EtValue nn = none_value ();
  CALL_OK ("aten::clamp.Tensor_out", &x->v, &lo->v, &hi->v, &o->v, &o->v);
  check_exact (o, (double[]){ -1, 1, NAN, NAN, 2, NAN }, "clamp tensor");
  CALL_OK ("aten::clamp.Tensor_out", &x->v, &nn, &hi->v, &o->v, &o->v);
  check_exact (o, (double[]){ -5, 0.5, 4, NAN, 2, 2 }, "clamp tensor max");
  CALL_FAILS ("aten::clamp.Tensor_out", &x->v, &nn, &nn, &o->v, &o->v);
  Tensor *bad = tnew (ET_SCALAR_FLOAT, 1, (int64_t[]){ 4 });
  CALL_FAILS ("aten::clamp.Tensor_out", &x->v, &bad->v, &nn, &o->v, &o->v);
  Tensor *oi = tout (ET_SCALAR_INT, 2, sx);
  CALL_FAILS ("aten::clamp.Tensor_out", &x->v, &lo->v, &nn, &oi->v, &oi->v);
}

static double
ref_gelu (double x, bool tanh_form)
{
  if (x == -INFINITY)
    return 0;
  /* the forms without cancellation in 1 + erf / 1 + tanh for x << 0 */
  if (tanh_form)
    return x / (1 + exp (-2 * sqrt (2 / M_PI) * (x + 0.044715 * x * x * x)));
  return 0.5 * x * erfc (-x / sqrt (2));
}

static void
test_gelu (void)
{
  int64_t n = 517;
  for (int form = 0; form < 2; form++)
    {
      EtValue approx = string_value (form ? "tanh" : "none");
      int types[2] = { ET_SCALAR_FLOAT, ET_SCALAR_DOUBLE };
      for (int t = 0; t < 2; t++)
        {
          Tensor *x = tnew (types[t], 1, &n), *o = tout (types[t], 1, &n);
          double *want = g_new (double, n);
          fill_random (x, -8, 8);
          tensor_set (x, 0, -INFINITY);
          tensor_set (x, 1, INFINITY);
          tensor_set (x, 2, NAN);
          tensor_set (x, 3, -30);
          for (int64_t i = 0; i < n; i++)
            want[i] = ref_gelu (tensor_get (x, i), form);
          CALL_OK ("aten::gelu.out", &x->v, &approx, &o->v, &o->v);
          check_f (o, want, t ? 1e-12 : 1e-7, t ? 1e-12 : 2e-6, form ? "gelu tanh" : "gelu");
          /* the negative tail keeps its relative accuracy */
          if (t == 0)
            {
              int64_t m = 64;
              Tensor *xt = tnew (ET_SCALAR_FLOAT, 1, &m), *ot = tout (ET_SCALAR_FLOAT, 1, &m);
              for (int64_t i = 0; i < m; i++)
                F32 (xt)[i] = (float) (-1.0 - 0.1 * (double) i); /* down to -7.3 */
              CALL_OK ("aten::gelu.out", &xt->v, &approx, &ot->v, &ot->v);
              for (int64_t i = 0; i < m; i++)
                close_to (F32 (ot)[i], ref_gelu (F32 (xt)[i], form), 1e-30, F32 (xt)[i] > -5 ? 2e-6 : 5e-6, "gelu tail",
                          i);
            }
          g_free (want);
        }
    }
  Tensor *x = tnew (ET_SCALAR_FLOAT, 1, &n), *o = tout (ET_SCALAR_FLOAT, 1, &n);
  EtValue badstr = string_value ("fast"), notstr = int_value (0);
  CALL_FAILS ("aten::gelu.out", &x->v, &badstr, &o->v, &o->v);
  CALL_FAILS ("aten::gelu.out", &x->v, &notstr, &o->v, &o->v);
  Tensor *xi = tnew (ET_SCALAR_INT, 1, &n), *oi = tout (ET_SCALAR_INT, 1, &n);
  EtValue approx = string_value ("none");
  CALL_FAILS ("aten::gelu.out", &xi->v, &approx, &oi->v, &oi->v);
}

static void
test_elu_leaky_glu (void)
{
  int64_t n = 6;
  Tensor *x = tnew (ET_SCALAR_FLOAT, 1, &n), *o = tout (ET_SCALAR_FLOAT, 1, &n);
  double v[6] = { -3, -0.5, 0, 0.5, 2, NAN }, want[6];
  fill_values (x, v);
  EtValue alpha = double_value (1.5), scale = double_value (2.0), iscale = double_value (0.5);
  for (int i = 0; i < 6; i++)
    want[i] = v[i] > 0 ? 2.0 * v[i] : 2.0 * 1.5 * (exp (v[i] * 0.5) - 1);
  want[5] = NAN;
  CALL_OK ("aten::elu.out", &x->v, &alpha, &scale, &iscale, &o->v, &o->v);
  check_f (o, want, ATOL, RTOL, "elu");
  EtValue slope = double_value (0.1);
  for (int i = 0; i < 6; i++)
    want[i] = v[i] > 0 ? v[i] : v[i] * 0.1;
  CALL_OK ("aten::leaky_relu.out", &x->v, &slope, &o->v, &o->v);
  check_f (o, want, ATOL, RTOL, "leaky_relu");

  /* glu over dim -1 of [2, 4] and over dim 0. */
  int64_t s[2] = { 2, 4 }, so[2] = { 2, 2 };
  Tensor *g = tnew (ET_SCALAR_FLOAT, 2, s), *go = tout (ET_SCALAR_FLOAT, 2, so);
  fill_random (g, -3, 3);
  double gw[4];
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++)
      gw[r * 2 + c] = tensor_get (g, r * 4 + c) * ref_sigmoid (tensor_get (g, r * 4 + c + 2));
  EtValue dm1 = int_value (-1), d0 = int_value (0), d1 = int_value (1);
  CALL_OK ("aten::glu.out", &g->v, &dm1, &go->v, &go->v);
  check_shape (go, 2, so);
  check_f (go, gw, ATOL, RTOL, "glu -1");
  for (int c = 0; c < 4; c++)
    gw[c] = tensor_get (g, c) * ref_sigmoid (tensor_get (g, 4 + c));
  CALL_OK ("aten::glu.out", &g->v, &d0, &go->v, &go->v);
  check_shape (go, 2, (int64_t[]){ 1, 4 });
  check_f (go, gw, ATOL, RTOL, "glu 0");
  Tensor *odd = tnew (ET_SCALAR_FLOAT, 2, (int64_t[]){ 2, 3 });
  CALL_FAILS ("aten::glu.out", &odd->v, &d1, &go->v, &go->v);
  EtValue d5 = int_value (5);
  CALL_FAILS ("aten::glu.out", &g->v, &d5, &go->v, &go->v);
  Tensor *xi = tnew (ET_SCALAR_INT, 1, &n), *oi = tout (ET_SCALAR_INT, 1, &n);
  CALL_FAILS ("aten::leaky_relu.out", &xi->v, &slope, &oi->v, &oi->v);
}

/* ---- Binary ---- */

typedef double (*Ref2) (double, double);
static double
r_add (double a, double b)
{
  return a + 2.5 * b;
}
static double
r_sub (double a, double b)
{
  return a - 2.5 * b;
}
static double
r_mul (double a, double b)
{
  return a * b;
}
static double
r_div (double a, double b)
{
  return a / b;
}

/* The float32 fast paths of add/sub/mul/div: same shape, scalar on either
 * side, trailing-row broadcast either way. */
static void
test_binary_fast_paths (void)
{
  const char *names[4] = { "aten::add.out", "aten::sub.out", "aten::mul.out", "aten::div.out" };
  Ref2 refs[4] = { r_add, r_sub, r_mul, r_div };
  int64_t full[2] = { 7, 149 }, row[1] = { 149 }, one[1] = { 1 }, row2[2] = { 1, 149 };
  Tensor *a = tnew (ET_SCALAR_FLOAT, 2, full), *b = tnew (ET_SCALAR_FLOAT, 2, full);
  Tensor *r = tnew (ET_SCALAR_FLOAT, 1, row), *r2 = tnew (ET_SCALAR_FLOAT, 2, row2);
  Tensor *s = tnew (ET_SCALAR_FLOAT, 1, one), *o = tout (ET_SCALAR_FLOAT, 2, full);
  double want[7 * 149];
  fill_random (a, -2, 2);
  fill_random (b, 0.5, 2);
  fill_random (r, 0.5, 2);
  fill_random (s, 0.5, 2);
  for (int i = 0; i < 149; i++)
    tensor_set (r2, i, tensor_get (r, i));
  EtValue alpha = double_value (2.5);
  for (int k = 0; k < 4; k++)
    {
      bool has_alpha = k < 2;
      struct
      {
        Tensor *x, *y;
      } pairs[6] = { { a, b }, { a, s }, { s, b }, { a, r }, { r, b }, { r2, a } };
      for (int p = 0; p < 6; p++)
        {
          Tensor *x = pairs[p].x, *y = pairs[p].y;
          for (int64_t i = 0; i < 7 * 149; i++)
            {
              double xv = x->t.numel == 1 ? tensor_get (x, 0) : tensor_get (x, x->t.numel == 149 ? i % 149 : i);
              double yv = y->t.numel == 1 ? tensor_get (y, 0) : tensor_get (y, y->t.numel == 149 ? i % 149 : i);
              want[i] = has_alpha ? refs[k](xv, yv) : refs[k](xv, yv);
            }
          if (has_alpha)
            CALL_OK (names[k], &x->v, &y->v, &alpha, &o->v, &o->v);
          else
            CALL_OK (names[k], &x->v, &y->v, &o->v, &o->v);
          check_shape (o, 2, full);
          check_f (o, want, ATOL, RTOL, names[k]);
        }
    }
  /* Scalar forms still work on the vector path. */
  EtValue three = double_value (3.0);
  for (int64_t i = 0; i < 7 * 149; i++)
    want[i] = tensor_get (a, i) * 3.0;
  CALL_OK ("aten::mul.Scalar_out", &a->v, &three, &o->v, &o->v);
  check_f (o, want, ATOL, RTOL, "mul.Scalar");
}

static void
test_binary_arith_extra (void)
{
  int64_t n = 6;
  Tensor *a = tnew (ET_SCALAR_FLOAT, 1, &n), *b = tnew (ET_SCALAR_FLOAT, 1, &n), *o = tout (ET_SCALAR_FLOAT, 1, &n);
  double av[6] = { 5.5, -5.5, 5.5, -5.5, 7, NAN }, bv[6] = { 2, 2, -2, -2, 0, 1 };
  fill_values (a, av);
  fill_values (b, bv);
  CALL_OK ("aten::fmod.Tensor_out", &a->v, &b->v, &o->v, &o->v);
  check_f (o, (double[]){ 1.5, -1.5, 1.5, -1.5, NAN, NAN }, 1e-6, 0, "fmod");
  CALL_OK ("aten::remainder.Tensor_out", &a->v, &b->v, &o->v, &o->v);
  check_f (o, (double[]){ 1.5, 0.5, -0.5, -1.5, NAN, NAN }, 1e-6, 0, "remainder");
  CALL_OK ("aten::floor_divide.out", &a->v, &b->v, &o->v, &o->v);
  check_f (o, (double[]){ 2, -3, -3, 2, INFINITY, NAN }, 1e-6, 0, "floor_divide");
  EtValue trunc = string_value ("trunc"), floorm = string_value ("floor"), nm = none_value ();
  EtValue bad = string_value ("round");
  CALL_OK ("aten::div.out_mode", &a->v, &b->v, &trunc, &o->v, &o->v);
  check_f (o, (double[]){ 2, -2, -2, 2, INFINITY, NAN }, 1e-6, 0, "div trunc");
  CALL_OK ("aten::div.out_mode", &a->v, &b->v, &floorm, &o->v, &o->v);
  check_f (o, (double[]){ 2, -3, -3, 2, INFINITY, NAN }, 1e-6, 0, "div floor");
  CALL_OK ("aten::div.out_mode", &a->v, &b->v, &nm, &o->v, &o->v);
  check_f (o, (double[]){ 2.75, -2.75, -2.75, 2.75, INFINITY, NAN }, 1e-6, 0, "div none");
  CALL_FAILS ("aten::div.out_mode", &a->v, &b->v, &bad, &o->v, &o->v);
  CALL_OK ("aten::maximum.out", &a->v, &b->v, &o->v, &o->v);
  check_f (o, (double[]){ 5.5, 2, 5.5, -2, 7, NAN }, 0, 0, "maximum");
  CALL_OK ("aten::minimum.out", &a->v, &b->v, &o->v, &o->v);
  check_f (o, (double[]){ 2, -5.5, -2, -5.5, 0, NAN }, 0, 0, "minimum");
  CALL_OK ("aten::atan2.out", &a->v, &b->v, &o->v, &o->v);
  double want[6];
  for (int i = 0; i < 6; i++)
    want[i] = atan2 (av[i], bv[i]);
  check_f (o, want, ATOL, RTOL, "atan2");
  CALL_OK ("aten::pow.Tensor_Tensor_out", &a->v, &b->v, &o->v, &o->v);
  for (int i = 0; i < 6; i++)
    want[i] = pow (av[i], bv[i]);
  check_f (o, want, ATOL, RTOL, "pow tt");
  EtValue two = int_value (2), half = double_value (0.5), alpha = int_value (3), one = double_value (1.0);
  CALL_OK ("aten::pow.Tensor_Scalar_out", &a->v, &two, &o->v, &o->v);
  for (int i = 0; i < 6; i++)
    want[i] = av[i] * av[i];
  check_f (o, want, ATOL, RTOL, "pow ts");
  {
    /* eager's special exponents: (-inf) ** 0.5 is sqrt(-inf) = NaN */
    Tensor *sp = tnew (ET_SCALAR_FLOAT, 1, (int64_t[]){ 3 }), *spo = tout (ET_SCALAR_FLOAT, 1, (int64_t[]){ 3 });
    fill_values (sp, (double[]){ -INFINITY, 4, -0.0 });
    CALL_OK ("aten::pow.Tensor_Scalar_out", &sp->v, &half, &spo->v, &spo->v);
    check_exact (spo, (double[]){ NAN, 2, -0.0 }, "pow 0.5");
    EtValue mhalf = double_value (-0.5), m2 = int_value (-2);
    CALL_OK ("aten::pow.Tensor_Scalar_out", &sp->v, &mhalf, &spo->v, &spo->v);
    check_exact (spo, (double[]){ NAN, 0.5, -INFINITY }, "pow -0.5");
    CALL_OK ("aten::pow.Tensor_Scalar_out", &sp->v, &m2, &spo->v, &spo->v);
    check_exact (spo, (double[]){ 0, 0.0625, INFINITY }, "pow -2");
  }
  CALL_OK ("aten::pow.Scalar_out", &half, &b->v, &o->v, &o->v);
  for (int i = 0; i < 6; i++)
    want[i] = pow (0.5, bv[i]);
  check_f (o, want, ATOL, RTOL, "pow st");
  CALL_OK ("aten::rsub.Scalar_out", &a->v, &one, &alpha, &o->v, &o->v);
  for (int i = 0; i < 6; i++)
    want[i] = 1.0 - 3 * av[i];
  check_f (o, want, ATOL, RTOL, "rsub");
  EtValue s2 = double_value (-2);
  CALL_OK ("aten::fmod.Scalar_out", &a->v, &s2, &o->v, &o->v);
  check_f (o, (double[]){ 1.5, -1.5, 1.5, -1.5, 1, NAN }, 1e-6, 0, "fmod scalar");
  CALL_OK ("aten::remainder.Scalar_out", &a->v, &s2, &o->v, &o->v);
  check_f (o, (double[]){ -0.5, -1.5, -0.5, -1.5, -1, NAN }, 1e-6, 0, "remainder scalar");
  CALL_OK ("aten::div.Scalar_mode_out", &a->v, &s2, &floorm, &o->v, &o->v);
  check_f (o, (double[]){ -3, 2, -3, 2, -4, NAN }, 1e-6, 0, "div scalar floor");
  /* rsub's out must equal the promoted dtype. */
  Tensor *od = tout (ET_SCALAR_DOUBLE, 1, &n);
  CALL_FAILS ("aten::rsub.Scalar_out", &a->v, &one, &alpha, &od->v, &od->v);
}

static void
test_binary_integer (void)
{
  int64_t n = 6;
  Tensor *a = tnew (ET_SCALAR_LONG, 1, &n), *b = tnew (ET_SCALAR_LONG, 1, &n), *o = tout (ET_SCALAR_LONG, 1, &n);
  fill_values (a, (double[]){ 7, -7, 7, -7, 0, 9 });
  fill_values (b, (double[]){ 2, 2, -2, -2, 3, -1 });
  CALL_OK ("aten::fmod.Tensor_out", &a->v, &b->v, &o->v, &o->v);
  check_exact (o, (double[]){ 1, -1, 1, -1, 0, 0 }, "fmod int");
  CALL_OK ("aten::remainder.Tensor_out", &a->v, &b->v, &o->v, &o->v);
  check_exact (o, (double[]){ 1, 1, -1, -1, 0, 0 }, "remainder int");
  CALL_OK ("aten::floor_divide.out", &a->v, &b->v, &o->v, &o->v);
  check_exact (o, (double[]){ 3, -4, -4, 3, 0, -9 }, "floor_divide int");
  EtValue trunc = string_value ("trunc");
  CALL_OK ("aten::div.out_mode", &a->v, &b->v, &trunc, &o->v, &o->v);
  check_exact (o, (double[]){ 3, -3, -3, 3, 0, -9 }, "div trunc int");
  CALL_OK ("aten::pow.Tensor_Tensor_out", &a->v, &b->v, &o->v, &o->v);
  check_exact (o, (double[]){ 49, 49, 0, 0, 0, 0 }, "pow int");
  CALL_OK ("aten::maximum.out", &a->v, &b->v, &o->v, &o->v);
  check_exact (o, (double[]){ 7, 2, 7, -2, 3, 9 }, "maximum int");
  /* INT64_MIN / -1 and % -1 do not trap. */
  I64 (a)[5] = INT64_MIN;
  CALL_OK ("aten::floor_divide.out", &a->v, &b->v, &o->v, &o->v);
  g_assert_cmpint (I64 (o)[5], ==, INT64_MIN);
  CALL_OK ("aten::remainder.Tensor_out", &a->v, &b->v, &o->v, &o->v);
  g_assert_cmpint (I64 (o)[5], ==, 0);
  /* Division by zero is an error. */
  I64 (b)[0] = 0;
  CALL_FAILS ("aten::floor_divide.out", &a->v, &b->v, &o->v, &o->v);
  CALL_FAILS ("aten::fmod.Tensor_out", &a->v, &b->v, &o->v, &o->v);
  CALL_FAILS ("aten::remainder.Tensor_out", &a->v, &b->v, &o->v, &o->v);
  CALL_FAILS ("aten::div.out_mode", &a->v, &b->v, &trunc, &o->v, &o->v);
  EtValue zero = int_value (0), neg = int_value (-1), three = int_value (3);
  CALL_FAILS ("aten::remainder.Scalar_out", &a->v, &zero, &o->v, &o->v);
  CALL_FAILS ("aten::pow.Tensor_Scalar_out", &a->v, &neg, &o->v, &o->v);
  CALL_OK ("aten::pow.Tensor_Scalar_out", &b->v, &three, &o->v, &o->v);
  check_exact (o, (double[]){ 0, 8, -8, -8, 27, -1 }, "pow int scalar");
  /* An Int tensor to a negative tensor power: 1 -> 1, -1 -> +-1, else 0. */
  Tensor *base = tnew (ET_SCALAR_INT, 1, (int64_t[]){ 4 }), *ex = tnew (ET_SCALAR_INT, 1, (int64_t[]){ 4 });
  Tensor *oi = tout (ET_SCALAR_INT, 1, (int64_t[]){ 4 });
  fill_values (base, (double[]){ 1, -1, -1, 2 });
  fill_values (ex, (double[]){ -3, -3, -2, -1 });
  CALL_OK ("aten::pow.Tensor_Tensor_out", &base->v, &ex->v, &oi->v, &oi->v);
  check_exact (oi, (double[]){ 1, -1, 1, 0 }, "pow negative int");
  /* Int / Int with floor gives Int; wrap to Char. */
  Tensor *c = tnew (ET_SCALAR_CHAR, 1, (int64_t[]){ 2 }), *co = tout (ET_SCALAR_CHAR, 1, (int64_t[]){ 2 });
  fill_values (c, (double[]){ -128, 100 });
  EtValue m1 = int_value (-1);
  EtValue fl = string_value ("floor");
  CALL_OK ("aten::div.Scalar_mode_out", &c->v, &m1, &fl, &co->v, &co->v);
  check_exact (co, (double[]){ -128, -100 }, "div int8 wrap");
  /* Float out from Int inputs is allowed (castable); Int out from floats is not. */
  Tensor *f = tnew (ET_SCALAR_FLOAT, 1, &n);
  CALL_FAILS ("aten::maximum.out", &f->v, &b->v, &o->v, &o->v);
}

static void
test_logical_bitwise (void)
{
  int64_t n = 4;
  Tensor *a = tnew (ET_SCALAR_FLOAT, 1, &n), *b = tnew (ET_SCALAR_INT, 1, &n), *ob = tout (ET_SCALAR_BOOL, 1, &n);
  Tensor *of = tout (ET_SCALAR_FLOAT, 1, &n);
  fill_values (a, (double[]){ 0, 0.5, 0, -2 });
  fill_values (b, (double[]){ 0, 0, 3, 1 });
  CALL_OK ("aten::logical_and.out", &a->v, &b->v, &ob->v, &ob->v);
  check_exact (ob, (double[]){ 0, 0, 0, 1 }, "and");
  CALL_OK ("aten::logical_or.out", &a->v, &b->v, &ob->v, &ob->v);
  check_exact (ob, (double[]){ 0, 1, 1, 1 }, "or");
  CALL_OK ("aten::logical_xor.out", &a->v, &b->v, &of->v, &of->v);
  check_exact (of, (double[]){ 0, 1, 1, 0 }, "xor float out");

  Tensor *x = tnew (ET_SCALAR_INT, 1, &n), *y = tnew (ET_SCALAR_INT, 1, &n), *o = tout (ET_SCALAR_INT, 1, &n);
  fill_values (x, (double[]){ 12, -1, 5, -8 });
  fill_values (y, (double[]){ 10, 3, 32, 40 });
  CALL_OK ("aten::bitwise_and.Tensor_out", &x->v, &y->v, &o->v, &o->v);
  check_exact (o, (double[]){ 8, 3, 0, 40 }, "bitwise_and");
  CALL_OK ("aten::bitwise_or.Tensor_out", &x->v, &y->v, &o->v, &o->v);
  check_exact (o, (double[]){ 14, -1, 37, -8 }, "bitwise_or");
  CALL_OK ("aten::bitwise_xor.Tensor_out", &x->v, &y->v, &o->v, &o->v);
  check_exact (o, (double[]){ 6, -4, 37, -48 }, "bitwise_xor");
  EtValue six = int_value (6);
  CALL_OK ("aten::bitwise_and.Scalar_out", &x->v, &six, &o->v, &o->v);
  check_exact (o, (double[]){ 4, 6, 4, 0 }, "bitwise_and scalar");
  CALL_OK ("aten::bitwise_or.Scalar_out", &x->v, &six, &o->v, &o->v);
  check_exact (o, (double[]){ 14, -1, 7, -2 }, "bitwise_or scalar");
  CALL_OK ("aten::bitwise_xor.Scalar_out", &x->v, &six, &o->v, &o->v);
  check_exact (o, (double[]){ 10, -7, 3, -2 }, "bitwise_xor scalar");
  /* Shifts: by >= the bit width or a negative amount give 0 / the sign fill. */
  fill_values (y, (double[]){ 2, 1, 32, -1 });
  CALL_OK ("aten::bitwise_left_shift.Tensor_out", &x->v, &y->v, &o->v, &o->v);
  check_exact (o, (double[]){ 48, -2, 0, 0 }, "shl");
  CALL_OK ("aten::bitwise_right_shift.Tensor_out", &x->v, &y->v, &o->v, &o->v);
  check_exact (o, (double[]){ 3, -1, 0, -1 }, "shr");
  EtValue three = int_value (3);
  CALL_OK ("aten::bitwise_right_shift.Tensor_Scalar_out", &x->v, &three, &o->v, &o->v);
  check_exact (o, (double[]){ 1, -1, 0, -1 }, "shr scalar");
  CALL_OK ("aten::bitwise_left_shift.Tensor_Scalar_out", &x->v, &three, &o->v, &o->v);
  check_exact (o, (double[]){ 96, -8, 40, -64 }, "shl scalar");
  Tensor *u = tnew (ET_SCALAR_BYTE, 1, (int64_t[]){ 2 }), *uo = tout (ET_SCALAR_BYTE, 1, (int64_t[]){ 2 });
  fill_values (u, (double[]){ 200, 3 });
  EtValue one = int_value (1);
  CALL_OK ("aten::bitwise_left_shift.Tensor_Scalar_out", &u->v, &one, &uo->v, &uo->v);
  check_exact (uo, (double[]){ 144, 6 }, "shl byte wraps");
  /* Bool works for and/or/xor, floats do not. */
  Tensor *bb = tnew (ET_SCALAR_BOOL, 1, &n), *bo = tout (ET_SCALAR_BOOL, 1, &n);
  fill_values (bb, (double[]){ 1, 0, 1, 0 });
  CALL_OK ("aten::bitwise_xor.Tensor_out", &bb->v, &ob->v, &bo->v, &bo->v);
  CALL_FAILS ("aten::bitwise_and.Tensor_out", &a->v, &b->v, &of->v, &of->v);
  CALL_FAILS ("aten::bitwise_left_shift.Tensor_out", &bb->v, &bb->v, &bo->v, &bo->v);
  EtValue half = double_value (0.5);
  CALL_FAILS ("aten::bitwise_or.Scalar_out", &x->v, &half, &o->v, &o->v);
}

static void
test_where_masked_fill (void)
{
  int64_t sc[2] = { 2, 1 }, sa[1] = { 3 }, so[2] = { 2, 3 };
  Tensor *c = tnew (ET_SCALAR_BOOL, 2, sc), *a = tnew (ET_SCALAR_FLOAT, 1, sa);
  Tensor *b = tnew (ET_SCALAR_LONG, 0, NULL), *o = tout (ET_SCALAR_FLOAT, 2, so);
  fill_values (c, (double[]){ 1, 0 });
  fill_values (a, (double[]){ 1.5, 2.5, 3.5 });
  I64 (b)[0] = -7;
  CALL_OK ("aten::where.self_out", &c->v, &a->v, &b->v, &o->v, &o->v);
  check_shape (o, 2, so);
  check_exact (o, (double[]){ 1.5, 2.5, 3.5, -7, -7, -7 }, "where");
  Tensor *cu = tnew (ET_SCALAR_BYTE, 1, sa);
  fill_values (cu, (double[]){ 0, 2, 0 });
  Tensor *o1 = tout (ET_SCALAR_FLOAT, 1, sa);
  CALL_OK ("aten::where.self_out", &cu->v, &a->v, &b->v, &o1->v, &o1->v);
  check_exact (o1, (double[]){ -7, 2.5, -7 }, "where byte cond");
  Tensor *od = tout (ET_SCALAR_DOUBLE, 2, so), *ci = tnew (ET_SCALAR_INT, 1, sa);
  CALL_FAILS ("aten::where.self_out", &c->v, &a->v, &b->v, &od->v, &od->v);
  CALL_FAILS ("aten::where.self_out", &ci->v, &a->v, &b->v, &o->v, &o->v);

  Tensor *x = tnew (ET_SCALAR_FLOAT, 2, so), *m = tnew (ET_SCALAR_BOOL, 1, sa), *mo = tout (ET_SCALAR_FLOAT, 2, so);
  fill_values (x, (double[]){ 1, 2, 3, 4, 5, 6 });
  fill_values (m, (double[]){ 0, 1, 1 });
  EtValue ninf = double_value (-INFINITY);
  CALL_OK ("aten::masked_fill.Scalar_out", &x->v, &m->v, &ninf, &mo->v, &mo->v);
  check_exact (mo, (double[]){ 1, -INFINITY, -INFINITY, 4, -INFINITY, -INFINITY }, "masked_fill");
  Tensor *xi = tnew (ET_SCALAR_INT, 2, so), *moi = tout (ET_SCALAR_INT, 2, so);
  EtValue fv = double_value (-2.75), iv = int_value (9), huge = double_value (1e10);
  CALL_OK ("aten::masked_fill.Scalar_out", &xi->v, &m->v, &fv, &moi->v, &moi->v);
  check_exact (moi, (double[]){ 0, -2, -2, 0, -2, -2 }, "masked_fill int truncates");
  CALL_FAILS ("aten::masked_fill.Scalar_out", &xi->v, &m->v, &huge, &moi->v, &moi->v);
  CALL_OK ("aten::masked_fill.Scalar_out", &xi->v, &m->v, &iv, &moi->v, &moi->v);
  check_exact (moi, (double[]){ 0, 9, 9, 0, 9, 9 }, "masked_fill int");
  /* self [3] with mask [2, 3]: out takes the broadcast shape. */
  Tensor *m2 = tnew (ET_SCALAR_BOOL, 2, so), *o2 = tout (ET_SCALAR_FLOAT, 2, so);
  fill_values (m2, (double[]){ 1, 0, 0, 0, 0, 1 });
  CALL_OK ("aten::masked_fill.Scalar_out", &a->v, &m2->v, &iv, &o2->v, &o2->v);
  check_shape (o2, 2, so);
  check_exact (o2, (double[]){ 9, 2.5, 3.5, 1.5, 2.5, 9 }, "masked_fill broadcast");
  Tensor *mbad = tnew (ET_SCALAR_BOOL, 1, (int64_t[]){ 2 });
  CALL_FAILS ("aten::masked_fill.Scalar_out", &x->v, &mbad->v, &iv, &mo->v, &mo->v);
  Tensor *mint = tnew (ET_SCALAR_INT, 1, sa);
  CALL_FAILS ("aten::masked_fill.Scalar_out", &x->v, &mint->v, &iv, &mo->v, &mo->v);
}

/* ---- Normalisation ---- */

static void
test_batch_norm_no_training (void)
{
  int64_t s[4] = { 2, 3, 4, 5 }, c = 3, z = 0;
  for (int layout = 0; layout < 3; layout++)
    {
      int type = layout == 2 ? ET_SCALAR_DOUBLE : ET_SCALAR_FLOAT;
      const uint8_t *order = layout == 1 ? CL4 : NULL;
      Tensor *x = tnew_full (type, 4, s, order, 0), *o = tnew_full (type, 4, s, order, 0);
      Tensor *w = tnew (ET_SCALAR_FLOAT, 1, &c), *b = tnew (ET_SCALAR_FLOAT, 1, &c);
      Tensor *rm = tnew (ET_SCALAR_FLOAT, 1, &c), *rv = tnew (ET_SCALAR_FLOAT, 1, &c);
      Tensor *o1 = tnew_full (type, 1, &c, NULL, 16), *o2 = tnew_full (type, 1, &c, NULL, 16);
      fill_random (x, -3, 3);
      fill_random (w, 0.5, 2);
      fill_random (b, -1, 1);
      fill_random (rm, -1, 1);
      fill_random (rv, 0.5, 2);
      double want[120];
      for (int i = 0; i < 120; i++)
        {
          int ch = (i / 20) % 3;
          want[i] = (tensor_get (x, i) - tensor_get (rm, ch)) / sqrt (tensor_get (rv, ch) + 1e-5) * tensor_get (w, ch) +
                    tensor_get (b, ch);
        }
      EtValue mom = double_value (0.1), eps = double_value (1e-5);
      Tensor *outs[3] = { o, o1, o2 };
      CALL_OK ("aten::_native_batch_norm_legit_no_training.out", &x->v, &w->v, &b->v, &rm->v, &rv->v, &mom, &eps, &o->v,
               &o1->v, &o2->v, tlist (3, outs));
      check_f (o, want, ATOL, RTOL, "batch norm");
      check_shape (o1, 1, &z);
      check_shape (o2, 1, &z);
      /* No weight and bias. */
      EtValue nn = none_value ();
      for (int i = 0; i < 120; i++)
        {
          int ch = (i / 20) % 3;
          want[i] = (tensor_get (x, i) - tensor_get (rm, ch)) / sqrt (tensor_get (rv, ch) + 1e-5);
        }
      CALL_OK ("aten::_native_batch_norm_legit_no_training.out", &x->v, &nn, &nn, &rm->v, &rv->v, &mom, &eps, &o->v,
               &o1->v, &o2->v, tlist (3, outs));
      check_f (o, want, ATOL, RTOL, "batch norm no affine");
    }
  /* Errors: weight of the wrong length, integer input, wrong out dtype. */
  Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s), *o = tnew (ET_SCALAR_FLOAT, 4, s);
  Tensor *v3 = tnew (ET_SCALAR_FLOAT, 1, &c), *v2 = tnew (ET_SCALAR_FLOAT, 1, (int64_t[]){ 2 });
  Tensor *o1 = tnew_full (ET_SCALAR_FLOAT, 1, &c, NULL, 16), *o2 = tnew_full (ET_SCALAR_FLOAT, 1, &c, NULL, 16);
  Tensor *xi = tnew (ET_SCALAR_INT, 4, s), *od = tnew (ET_SCALAR_DOUBLE, 4, s);
  EtValue mom = double_value (0.1), eps = double_value (1e-5);
  Tensor *outs[3] = { o, o1, o2 };
  CALL_FAILS ("aten::_native_batch_norm_legit_no_training.out", &x->v, &v2->v, &v3->v, &v3->v, &v3->v, &mom, &eps,
              &o->v, &o1->v, &o2->v, tlist (3, outs));
  CALL_FAILS ("aten::_native_batch_norm_legit_no_training.out", &xi->v, &v3->v, &v3->v, &v3->v, &v3->v, &mom, &eps,
              &o->v, &o1->v, &o2->v, tlist (3, outs));
  CALL_FAILS ("aten::_native_batch_norm_legit_no_training.out", &x->v, &v3->v, &v3->v, &v3->v, &v3->v, &mom, &eps,
              &od->v, &o1->v, &o2->v, tlist (3, outs));
}

static void
test_batch_norm_training (void)
{
  int64_t s[3] = { 4, 2, 3 }, c = 2;
  Tensor *x = tnew (ET_SCALAR_FLOAT, 3, s), *o = tnew (ET_SCALAR_FLOAT, 3, s);
  Tensor *w = tnew (ET_SCALAR_FLOAT, 1, &c), *b = tnew (ET_SCALAR_FLOAT, 1, &c);
  Tensor *rm = tnew (ET_SCALAR_FLOAT, 1, &c), *rv = tnew (ET_SCALAR_FLOAT, 1, &c);
  Tensor *sm = tnew_full (ET_SCALAR_FLOAT, 1, &c, NULL, 16), *si = tnew_full (ET_SCALAR_FLOAT, 1, &c, NULL, 16);
  fill_random (x, -3, 3);
  fill_values (w, (double[]){ 2, 0.5 });
  fill_values (b, (double[]){ 1, -1 });
  fill_values (rm, (double[]){ 0.5, -0.5 });
  fill_values (rv, (double[]){ 1.5, 0.75 });
  double mean[2] = { 0 }, var[2] = { 0 }, want[24];
  for (int i = 0; i < 24; i++)
    mean[(i / 3) % 2] += tensor_get (x, i) / 12;
  for (int i = 0; i < 24; i++)
    var[(i / 3) % 2] += pow (tensor_get (x, i) - mean[(i / 3) % 2], 2) / 12;
  for (int i = 0; i < 24; i++)
    {
      int ch = (i / 3) % 2;
      want[i] = (tensor_get (x, i) - mean[ch]) / sqrt (var[ch] + 1e-5) * tensor_get (w, ch) + tensor_get (b, ch);
    }
  EtValue tr = bool_value (true), mom = double_value (0.1), eps = double_value (1e-5);
  Tensor *outs[3] = { o, sm, si };
  CALL_OK ("aten::_native_batch_norm_legit.out", &x->v, &w->v, &b->v, &rm->v, &rv->v, &tr, &mom, &eps, &o->v, &sm->v,
           &si->v, tlist (3, outs));
  check_f (o, want, ATOL, RTOL, "batch norm training");
  check_shape (sm, 1, &c);
  check_f (sm, mean, ATOL, RTOL, "save_mean");
  double invstd[2] = { 1 / sqrt (var[0] + 1e-5), 1 / sqrt (var[1] + 1e-5) };
  check_f (si, invstd, ATOL, RTOL, "save_invstd");
  double nrm[2] = { 0.9 * 0.5 + 0.1 * mean[0], 0.9 * -0.5 + 0.1 * mean[1] };
  double nrv[2] = { 0.9 * 1.5 + 0.1 * var[0] * 12 / 11, 0.9 * 0.75 + 0.1 * var[1] * 12 / 11 };
  check_f (rm, nrm, ATOL, RTOL, "running_mean");
  check_f (rv, nrv, ATOL, RTOL, "running_var");

  /* no_stats: the same batch statistics, no running tensors. */
  CALL_OK ("aten::_native_batch_norm_legit.no_stats_out", &x->v, &w->v, &b->v, &tr, &mom, &eps, &o->v, &sm->v, &si->v,
           tlist (3, outs));
  check_f (o, want, ATOL, RTOL, "batch norm no_stats");
  check_f (sm, mean, ATOL, RTOL, "no_stats save_mean");

  /* training=False uses the running statistics and empties the saves. */
  EtValue nt = bool_value (false);
  int64_t z = 0;
  for (int i = 0; i < 24; i++)
    {
      int ch = (i / 3) % 2;
      want[i] = (tensor_get (x, i) - tensor_get (rm, ch)) / sqrt (tensor_get (rv, ch) + 1e-5) * tensor_get (w, ch) +
                tensor_get (b, ch);
    }
  CALL_OK ("aten::_native_batch_norm_legit.out", &x->v, &w->v, &b->v, &rm->v, &rv->v, &nt, &mom, &eps, &o->v, &sm->v,
           &si->v, tlist (3, outs));
  check_f (o, want, ATOL, RTOL, "batch norm eval");
  check_shape (sm, 1, &z);
}

static void
test_layer_norm (void)
{
  int64_t s[3] = { 3, 4, 37 };
  for (int t = 0; t < 2; t++)
    {
      int type = t ? ET_SCALAR_DOUBLE : ET_SCALAR_FLOAT;
      for (uint32_t k = 1; k <= 2; k++)
        {
          int64_t n = k == 1 ? 37 : 4 * 37, rows = 3 * 4 * 37 / n;
          int64_t stat[3] = { 3, k == 1 ? 4 : 1, 1 };
          Tensor *x = tnew (type, 3, s), *o = tnew (type, 3, s);
          Tensor *w = tnew (type, k, s + 3 - k), *b = tnew (type, k, s + 3 - k);
          Tensor *m = tnew (type, 3, stat), *r = tnew (type, 3, stat);
          fill_random (x, -2, 5);
          fill_random (w, 0.5, 2);
          fill_random (b, -1, 1);
          double *want = g_new (double, 444), *wm = g_new (double, rows), *wr = g_new (double, rows);
          for (int64_t row = 0; row < rows; row++)
            {
              double mean = 0, var = 0;
              for (int64_t i = 0; i < n; i++)
                mean += tensor_get (x, row * n + i) / n;
              for (int64_t i = 0; i < n; i++)
                var += pow (tensor_get (x, row * n + i) - mean, 2) / n;
              wm[row] = mean;
              wr[row] = 1 / sqrt (var + 1e-5);
              for (int64_t i = 0; i < n; i++)
                want[row * n + i] =
                    (tensor_get (x, row * n + i) - mean) * wr[row] * tensor_get (w, i) + tensor_get (b, i);
            }
          EtValue eps = double_value (1e-5);
          Tensor *outs[3] = { o, m, r };
          CALL_OK ("aten::native_layer_norm.out", &x->v, ilist (k, s + 3 - k), &w->v, &b->v, &eps, &o->v, &m->v, &r->v,
                   tlist (3, outs));
          check_f (o, want, ATOL, RTOL, "layer norm");
          check_f (m, wm, ATOL, RTOL, "layer norm mean");
          check_f (r, wr, ATOL, RTOL, "layer norm rstd");
          /* No affine tensors. */
          EtValue nn = none_value ();
          for (int64_t row = 0; row < rows; row++)
            for (int64_t i = 0; i < n; i++)
              want[row * n + i] = (tensor_get (x, row * n + i) - wm[row]) * wr[row];
          CALL_OK ("aten::native_layer_norm.out", &x->v, ilist (k, s + 3 - k), &nn, &nn, &eps, &o->v, &m->v, &r->v,
                   tlist (3, outs));
          check_f (o, want, ATOL, RTOL, "layer norm no affine");
          g_free (want);
          g_free (wm);
          g_free (wr);
        }
    }
  /* Errors: shape mismatch, weight shape, channels-last input. */
  int64_t s4[4] = { 1, 2, 3, 4 }, st[4] = { 1, 2, 3, 1 };
  Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s4), *o = tnew (ET_SCALAR_FLOAT, 4, s4);
  Tensor *m = tnew (ET_SCALAR_FLOAT, 4, st), *r = tnew (ET_SCALAR_FLOAT, 4, st);
  Tensor *w5 = tnew (ET_SCALAR_FLOAT, 1, (int64_t[]){ 5 }), *xc = tnew_full (ET_SCALAR_FLOAT, 4, s4, CL4, 0);
  EtValue eps = double_value (1e-5), nn = none_value ();
  Tensor *outs[3] = { o, m, r };
  CALL_FAILS ("aten::native_layer_norm.out", &x->v, ilist (1, (int64_t[]){ 5 }), &nn, &nn, &eps, &o->v, &m->v, &r->v,
              tlist (3, outs));
  CALL_FAILS ("aten::native_layer_norm.out", &x->v, ilist (1, (int64_t[]){ 4 }), &w5->v, &nn, &eps, &o->v, &m->v, &r->v,
              tlist (3, outs));
  CALL_FAILS ("aten::native_layer_norm.out", &xc->v, ilist (1, (int64_t[]){ 4 }), &nn, &nn, &eps, &o->v, &m->v, &r->v,
              tlist (3, outs));
  CALL_FAILS ("aten::native_layer_norm.out", &x->v, ilist (0, NULL), &nn, &nn, &eps, &o->v, &m->v, &r->v,
              tlist (3, outs));
}

static void
test_group_norm (void)
{
  int64_t s[4] = { 2, 6, 3, 3 }, c = 6, st[2] = { 2, 3 };
  Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s), *o = tnew (ET_SCALAR_FLOAT, 4, s);
  Tensor *w = tnew (ET_SCALAR_FLOAT, 1, &c), *b = tnew (ET_SCALAR_FLOAT, 1, &c);
  Tensor *m = tout (ET_SCALAR_FLOAT, 2, st), *r = tout (ET_SCALAR_FLOAT, 2, st);
  fill_random (x, -2, 2);
  fill_random (w, 0.5, 2);
  fill_random (b, -1, 1);
  double want[108], wm[6], wr[6];
  for (int ng = 0; ng < 6; ng++)
    {
      double mean = 0, var = 0;
      for (int i = 0; i < 18; i++)
        mean += tensor_get (x, ng * 18 + i) / 18;
      for (int i = 0; i < 18; i++)
        var += pow (tensor_get (x, ng * 18 + i) - mean, 2) / 18;
      wm[ng] = mean;
      wr[ng] = 1 / sqrt (var + 1e-5);
      for (int i = 0; i < 18; i++)
        {
          int ch = (ng % 3) * 2 + i / 9;
          want[ng * 18 + i] = (tensor_get (x, ng * 18 + i) - mean) * wr[ng] * tensor_get (w, ch) + tensor_get (b, ch);
        }
    }
  EtValue N = int_value (2), C = int_value (6), HxW = int_value (9), G = int_value (3), eps = double_value (1e-5);
  Tensor *outs[3] = { o, m, r };
  CALL_OK ("aten::native_group_norm.out", &x->v, &w->v, &b->v, &N, &C, &HxW, &G, &eps, &o->v, &m->v, &r->v,
           tlist (3, outs));
  check_f (o, want, ATOL, RTOL, "group norm");
  check_shape (m, 2, st);
  check_f (m, wm, ATOL, RTOL, "group norm mean");
  check_f (r, wr, ATOL, RTOL, "group norm rstd");
  EtValue G4 = int_value (4), HxW8 = int_value (8);
  CALL_FAILS ("aten::native_group_norm.out", &x->v, &w->v, &b->v, &N, &C, &HxW, &G4, &eps, &o->v, &m->v, &r->v,
              tlist (3, outs));
  CALL_FAILS ("aten::native_group_norm.out", &x->v, &w->v, &b->v, &N, &C, &HxW8, &G, &eps, &o->v, &m->v, &r->v,
              tlist (3, outs));
}

/* ---- Pooling ---- */

static int64_t
pool_out_size (int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil_mode)
{
  int64_t eff = d * (k - 1) + 1;
  int64_t num = in + 2 * p - eff;
  int64_t o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p)
    o--;
  return o;
}

/* Naive reference: every tap of the window, skipping padding. */
static void
ref_max_pool (const Tensor *x, int64_t C, int64_t H, int64_t W, const int64_t *k, const int64_t *s, const int64_t *p,
              const int64_t *d, int64_t OH, int64_t OW, int64_t planes, double *vals, int64_t *idx)
{
  for (int64_t pl = 0; pl < planes; pl++)
    for (int64_t oh = 0; oh < OH; oh++)
      for (int64_t ow = 0; ow < OW; ow++)
        {
          double best = -INFINITY;
          int64_t bi = -1;
          for (int64_t i = 0; i < k[0]; i++)
            for (int64_t j = 0; j < k[1]; j++)
              {
                int64_t h = oh * s[0] - p[0] + i * d[0], w = ow * s[1] - p[1] + j * d[1];
                if (h < 0 || h >= H || w < 0 || w >= W)
                  continue;
                double v = tensor_get (x, pl * H * W + h * W + w);
                if (bi < 0 || v > best || isnan (v))
                  {
                    best = v;
                    bi = h * W + w;
                  }
              }
          vals[(pl * OH + oh) * OW + ow] = best;
          idx[(pl * OH + oh) * OW + ow] = bi;
        }
  (void) C;
}

static void
test_max_pool (void)
{
  struct
  {
    int64_t k[2], s[2], p[2], d[2];
    bool ceil_mode;
    bool cl;
  } cases[] = {
    { { 2, 2 }, { 2, 2 }, { 0, 0 }, { 1, 1 }, false, false },
    { { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, false, false },
    { { 3, 2 }, { 2, 1 }, { 1, 0 }, { 2, 1 }, true, false },
    { { 3, 3 }, { 2, 2 }, { 1, 1 }, { 1, 1 }, true, true },
  };
  int64_t s[4] = { 2, 3, 9, 8 };
  for (size_t c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      Tensor *x = tnew_full (ET_SCALAR_FLOAT, 4, s, cases[c].cl ? CL4 : NULL, 0);
      fill_random (x, -5, 5);
      tensor_set (x, 7, NAN);
      tensor_set (x, 20, -INFINITY);
      int64_t OH = pool_out_size (9, cases[c].k[0], cases[c].p[0], cases[c].s[0], cases[c].d[0], cases[c].ceil_mode);
      int64_t OW = pool_out_size (8, cases[c].k[1], cases[c].p[1], cases[c].s[1], cases[c].d[1], cases[c].ceil_mode);
      int64_t so[4] = { 2, 3, OH, OW };
      Tensor *o = tnew_full (ET_SCALAR_FLOAT, 4, so, cases[c].cl ? CL4 : NULL, 0);
      Tensor *ix = tnew_full (ET_SCALAR_LONG, 4, so, cases[c].cl ? CL4 : NULL, 0);
      double *wv = g_new (double, 6 * OH * OW), *wi = g_new (double, 6 * OH * OW);
      int64_t *ri = g_new (int64_t, 6 * OH * OW);
      ref_max_pool (x, 3, 9, 8, cases[c].k, cases[c].s, cases[c].p, cases[c].d, OH, OW, 6, wv, ri);
      for (int64_t i = 0; i < 6 * OH * OW; i++)
        wi[i] = (double) ri[i];
      EtValue cm = bool_value (cases[c].ceil_mode);
      Tensor *outs[2] = { o, ix };
      CALL_OK ("aten::max_pool2d_with_indices.out", &x->v, ilist (2, cases[c].k), ilist (2, cases[c].s),
               ilist (2, cases[c].p), ilist (2, cases[c].d), &cm, &o->v, &ix->v, tlist (2, outs));
      check_exact (o, wv, "max_pool values");
      check_exact (ix, wi, "max_pool indices");
      g_free (wv);
      g_free (wi);
      g_free (ri);
    }
  /* 3-D input, int dtype, empty stride meaning the kernel. */
  int64_t s3[3] = { 2, 4, 4 }, so3[3] = { 2, 2, 2 };
  Tensor *xi = tnew (ET_SCALAR_INT, 3, s3), *oi = tout (ET_SCALAR_INT, 3, so3), *ii = tout (ET_SCALAR_LONG, 3, so3);
  for (int i = 0; i < 32; i++)
    tensor_set (xi, i, (i * 7) % 11 - 5);
  EtValue f = bool_value (false);
  Tensor *outs[2] = { oi, ii };
  int64_t two[2] = { 2, 2 }, zero[2] = { 0, 0 }, one[2] = { 1, 1 };
  CALL_OK ("aten::max_pool2d_with_indices.out", &xi->v, ilist (2, two), ilist (0, NULL), ilist (2, zero),
           ilist (2, one), &f, &oi->v, &ii->v, tlist (2, outs));
  check_shape (oi, 3, so3);
  double wv[8];
  for (int pl = 0; pl < 2; pl++)
    for (int oh = 0; oh < 2; oh++)
      for (int ow = 0; ow < 2; ow++)
        {
          double best = -1e9;
          for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
              best = fmax (best, tensor_get (xi, pl * 16 + (oh * 2 + i) * 4 + ow * 2 + j));
          wv[(pl * 2 + oh) * 2 + ow] = best;
        }
  check_exact (oi, wv, "max_pool int");
  /* Errors: padding over half the kernel, Int indices, 2-D input, zero stride. */
  Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s), *o = tout (ET_SCALAR_FLOAT, 4, s), *ix = tout (ET_SCALAR_LONG, 4, s);
  Tensor *ixi = tout (ET_SCALAR_INT, 4, s), *x2 = tnew (ET_SCALAR_FLOAT, 2, (int64_t[]){ 4, 4 });
  Tensor *o2[2] = { o, ix };
  CALL_FAILS ("aten::max_pool2d_with_indices.out", &x->v, ilist (2, two), ilist (2, two), ilist (2, two),
              ilist (2, one), &f, &o->v, &ix->v, tlist (2, o2));
  CALL_FAILS ("aten::max_pool2d_with_indices.out", &x->v, ilist (2, two), ilist (2, two), ilist (2, zero),
              ilist (2, one), &f, &o->v, &ixi->v, tlist (2, o2));
  CALL_FAILS ("aten::max_pool2d_with_indices.out", &x2->v, ilist (2, two), ilist (2, two), ilist (2, zero),
              ilist (2, one), &f, &o->v, &ix->v, tlist (2, o2));
  CALL_FAILS ("aten::max_pool2d_with_indices.out", &x->v, ilist (2, two), ilist (2, zero), ilist (2, zero),
              ilist (2, one), &f, &o->v, &ix->v, tlist (2, o2));
  CALL_FAILS ("aten::max_pool2d_with_indices.out", &x->v, ilist (3, (int64_t[]){ 2, 2, 2 }), ilist (2, two),
              ilist (2, zero), ilist (2, one), &f, &o->v, &ix->v, tlist (2, o2));
  /* A window larger than the input. */
  CALL_FAILS ("aten::max_pool2d_with_indices.out", &x->v, ilist (2, (int64_t[]){ 10, 10 }), ilist (2, one),
              ilist (2, zero), ilist (2, one), &f, &o->v, &ix->v, tlist (2, o2));
}

static void
test_max_pool_backward (void)
{
  /* [1, 1, 3, 3], kernel 2, stride 1: windows overlap, gradients sum. */
  int64_t s[4] = { 1, 1, 3, 3 }, so[4] = { 1, 1, 2, 2 };
  Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s), *o = tout (ET_SCALAR_FLOAT, 4, so), *ix = tout (ET_SCALAR_LONG, 4, so);
  Tensor *g = tnew (ET_SCALAR_FLOAT, 4, so), *gi = tout (ET_SCALAR_FLOAT, 4, s);
  fill_values (x, (double[]){ 1, 2, 3, 4, 9, 5, 6, 7, 8 });
  fill_values (g, (double[]){ 0.5, 1, 2, 4 });
  int64_t two[2] = { 2, 2 }, one[2] = { 1, 1 }, zero[2] = { 0, 0 };
  EtValue f = bool_value (false);
  Tensor *outs[2] = { o, ix };
  CALL_OK ("aten::max_pool2d_with_indices.out", &x->v, ilist (2, two), ilist (2, one), ilist (2, zero), ilist (2, one),
           &f, &o->v, &ix->v, tlist (2, outs));
  check_exact (ix, (double[]){ 4, 4, 4, 4 }, "indices");
  CALL_OK ("aten::max_pool2d_with_indices_backward.grad_input", &g->v, &x->v, ilist (2, two), ilist (2, one),
           ilist (2, zero), ilist (2, one), &f, &ix->v, &gi->v, &gi->v);
  check_shape (gi, 4, s);
  check_exact (gi, (double[]){ 0, 0, 0, 0, 7.5, 0, 0, 0, 0 }, "max_pool backward");
  I64 (ix)[2] = 9;
  CALL_FAILS ("aten::max_pool2d_with_indices_backward.grad_input", &g->v, &x->v, ilist (2, two), ilist (2, one),
              ilist (2, zero), ilist (2, one), &f, &ix->v, &gi->v, &gi->v);
  CALL_FAILS ("aten::max_pool2d_with_indices_backward.grad_input", &x->v, &x->v, ilist (2, two), ilist (2, one),
              ilist (2, zero), ilist (2, one), &f, &ix->v, &gi->v, &gi->v);
}

static void
test_avg_pool (void)
{
  int64_t s[4] = { 1, 2, 7, 6 };
  struct
  {
    int64_t k[2], st[2], p[2];
    bool ceil_mode, include_pad;
    int64_t divisor; /* 0 = none */
  } cases[] = {
    { { 2, 2 }, { 2, 2 }, { 0, 0 }, false, true, 0 },
    { { 3, 3 }, { 2, 2 }, { 1, 1 }, true, false, 0 },
    { { 3, 3 }, { 2, 2 }, { 1, 1 }, true, true, 0 },
    { { 3, 2 }, { 1, 2 }, { 1, 1 }, false, true, 5 },
  };
  for (size_t c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      int64_t OH = pool_out_size (7, cases[c].k[0], cases[c].p[0], cases[c].st[0], 1, cases[c].ceil_mode);
      int64_t OW = pool_out_size (6, cases[c].k[1], cases[c].p[1], cases[c].st[1], 1, cases[c].ceil_mode);
      int64_t so[4] = { 1, 2, OH, OW };
      Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s), *o = tnew (ET_SCALAR_FLOAT, 4, so);
      fill_random (x, -3, 3);
      double *want = g_new (double, 2 * OH * OW);
      for (int pl = 0; pl < 2; pl++)
        for (int64_t oh = 0; oh < OH; oh++)
          for (int64_t ow = 0; ow < OW; ow++)
            {
              double sum = 0;
              int64_t cnt = 0, cnt_pad = 0;
              for (int64_t i = 0; i < cases[c].k[0]; i++)
                for (int64_t j = 0; j < cases[c].k[1]; j++)
                  {
                    int64_t h = oh * cases[c].st[0] - cases[c].p[0] + i;
                    int64_t w = ow * cases[c].st[1] - cases[c].p[1] + j;
                    if (h < 7 + cases[c].p[0] && w < 6 + cases[c].p[1])
                      cnt_pad++;
                    if (h < 0 || h >= 7 || w < 0 || w >= 6)
                      continue;
                    sum += tensor_get (x, pl * 42 + h * 6 + w);
                    cnt++;
                  }
              double div = cases[c].divisor ? cases[c].divisor : cases[c].include_pad ? cnt_pad : cnt;
              want[(pl * OH + oh) * OW + ow] = sum / div;
            }
      EtValue cm = bool_value (cases[c].ceil_mode), ip = bool_value (cases[c].include_pad);
      EtValue dv = cases[c].divisor ? int_value (cases[c].divisor) : none_value ();
      CALL_OK ("aten::avg_pool2d.out", &x->v, ilist (2, cases[c].k), ilist (2, cases[c].st), ilist (2, cases[c].p), &cm,
               &ip, &dv, &o->v, &o->v);
      check_f (o, want, ATOL, RTOL, "avg_pool");
      g_free (want);
    }
  /* Long input divides with truncation. */
  int64_t sl[3] = { 1, 2, 2 }, sol[3] = { 1, 1, 1 };
  Tensor *xl = tnew (ET_SCALAR_LONG, 3, sl), *ol = tout (ET_SCALAR_LONG, 3, sol);
  fill_values (xl, (double[]){ 1, 2, 3, 5 });
  EtValue f = bool_value (false), t = bool_value (true), nn = none_value (), zero = int_value (0);
  int64_t two[2] = { 2, 2 }, z2[2] = { 0, 0 };
  CALL_OK ("aten::avg_pool2d.out", &xl->v, ilist (2, two), ilist (0, NULL), ilist (2, z2), &f, &t, &nn, &ol->v, &ol->v);
  check_exact (ol, (double[]){ 2 }, "avg_pool long");
  CALL_FAILS ("aten::avg_pool2d.out", &xl->v, ilist (2, two), ilist (0, NULL), ilist (2, z2), &f, &t, &zero, &ol->v,
              &ol->v);
  Tensor *xb = tnew (ET_SCALAR_BOOL, 3, sl), *ob = tout (ET_SCALAR_BOOL, 3, sol);
  CALL_FAILS ("aten::avg_pool2d.out", &xb->v, ilist (2, two), ilist (0, NULL), ilist (2, z2), &f, &t, &nn, &ob->v,
              &ob->v);
}

static void
test_adaptive_avg_pool (void)
{
  int64_t s[4] = { 2, 2, 7, 9 };
  int64_t outs[][2] = { { 3, 4 }, { 7, 9 }, { 1, 1 }, { 10, 2 } };
  for (size_t c = 0; c < G_N_ELEMENTS (outs); c++)
    {
      int64_t OH = outs[c][0], OW = outs[c][1], so[4] = { 2, 2, OH, OW };
      Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s), *o = tout (ET_SCALAR_FLOAT, 4, so);
      fill_random (x, -3, 3);
      double *want = g_new (double, 4 * OH * OW);
      for (int pl = 0; pl < 4; pl++)
        for (int64_t oh = 0; oh < OH; oh++)
          for (int64_t ow = 0; ow < OW; ow++)
            {
              int64_t h0 = (int64_t) floor ((double) oh * 7 / OH), h1 = (int64_t) ceil ((double) (oh + 1) * 7 / OH);
              int64_t w0 = (int64_t) floor ((double) ow * 9 / OW), w1 = (int64_t) ceil ((double) (ow + 1) * 9 / OW);
              double sum = 0;
              for (int64_t h = h0; h < h1; h++)
                for (int64_t w = w0; w < w1; w++)
                  sum += tensor_get (x, pl * 63 + h * 9 + w);
              want[(pl * OH + oh) * OW + ow] = sum / (double) ((h1 - h0) * (w1 - w0));
            }
      CALL_OK ("aten::_adaptive_avg_pool2d.out", &x->v, ilist (2, outs[c]), &o->v, &o->v);
      check_shape (o, 4, so);
      check_f (o, want, ATOL, RTOL, "adaptive_avg_pool");
      g_free (want);
    }
  Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s), *o = tout (ET_SCALAR_FLOAT, 4, s);
  Tensor *xi = tnew (ET_SCALAR_INT, 4, s), *oi = tout (ET_SCALAR_INT, 4, s);
  CALL_FAILS ("aten::_adaptive_avg_pool2d.out", &xi->v, ilist (2, outs[0]), &oi->v, &oi->v);
  CALL_FAILS ("aten::_adaptive_avg_pool2d.out", &x->v, ilist (2, (int64_t[]){ -1, 2 }), &o->v, &o->v);
  Tensor *xe = tnew (ET_SCALAR_FLOAT, 4, (int64_t[]){ 1, 2, 0, 3 });
  CALL_FAILS ("aten::_adaptive_avg_pool2d.out", &xe->v, ilist (2, outs[0]), &o->v, &o->v);
}

/* ---- Padding ---- */

static void
test_constant_pad (void)
{
  int64_t s[3] = { 2, 3, 4 }, so[3] = { 2, 4, 7 };
  Tensor *x = tnew (ET_SCALAR_FLOAT, 3, s), *o = tout (ET_SCALAR_FLOAT, 3, so);
  fill_random (x, -3, 3);
  EtValue v = double_value (0.5);
  int64_t pad[4] = { 1, 2, 0, 1 };
  double want[56];
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 4; b++)
      for (int c = 0; c < 7; c++)
        {
          int sb = b, sc = c - 1;
          want[(a * 4 + b) * 7 + c] = sb < 3 && sc >= 0 && sc < 4 ? tensor_get (x, (a * 3 + sb) * 4 + sc) : 0.5;
        }
  CALL_OK ("aten::constant_pad_nd.out", &x->v, ilist (4, pad), &v, &o->v, &o->v);
  check_shape (o, 3, so);
  check_exact (o, want, "constant_pad");

  /* Negative pads crop; Int dtype; channels-last. */
  int64_t crop[2] = { -1, 2 }, sc[3] = { 2, 3, 5 };
  Tensor *xi = tnew (ET_SCALAR_INT, 3, s), *oi = tout (ET_SCALAR_INT, 3, sc);
  for (int i = 0; i < 24; i++)
    tensor_set (xi, i, i);
  EtValue iv = int_value (-9);
  CALL_OK ("aten::constant_pad_nd.out", &xi->v, ilist (2, crop), &iv, &oi->v, &oi->v);
  check_shape (oi, 3, sc);
  double wi[30];
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 5; c++)
      wi[r * 5 + c] = c < 3 ? r * 4 + c + 1 : -9;
  check_exact (oi, wi, "constant_pad crop");
  int64_t s4[4] = { 1, 2, 2, 2 }, so4[4] = { 1, 2, 3, 2 };
  Tensor *xc = tnew_full (ET_SCALAR_FLOAT, 4, s4, CL4, 0), *oc = tnew_full (ET_SCALAR_FLOAT, 4, so4, CL4, 0);
  for (int i = 0; i < 8; i++)
    tensor_set (xc, i, i + 1);
  CALL_OK ("aten::constant_pad_nd.out", &xc->v, ilist (4, (int64_t[]){ 0, 0, 1, 0 }), &v, &oc->v, &oc->v);
  check_exact (oc, (double[]){ 0.5, 0.5, 1, 2, 3, 4, 0.5, 0.5, 5, 6, 7, 8 }, "constant_pad cl");
  /* Errors: odd length, too many pairs, a value too large for Int, too much cropping. */
  EtValue fv = double_value (0.5);
  CALL_FAILS ("aten::constant_pad_nd.out", &x->v, ilist (3, pad), &v, &o->v, &o->v);
  CALL_FAILS ("aten::constant_pad_nd.out", &x->v, ilist (8, (int64_t[]){ 1, 1, 1, 1, 1, 1, 1, 1 }), &v, &o->v, &o->v);
  EtValue huge = double_value (1e10);
  CALL_FAILS ("aten::constant_pad_nd.out", &xi->v, ilist (2, crop), &huge, &oi->v, &oi->v);
  CALL_OK ("aten::constant_pad_nd.out", &xi->v, ilist (2, crop), &fv, &oi->v, &oi->v);
  for (int r = 0; r < 6; r++)
    for (int c = 3; c < 5; c++)
      wi[r * 5 + c] = 0;
  check_exact (oi, wi, "constant_pad float value into Int");
  CALL_FAILS ("aten::constant_pad_nd.out", &x->v, ilist (2, (int64_t[]){ -3, -2 }), &v, &o->v, &o->v);
}

static int64_t
reflect_index (int64_t o, int64_t lo, int64_t n)
{
  int64_t i = o - lo;
  while (i < 0 || i >= n)
    i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

static void
test_reflection_replication_pad (void)
{
  for (uint32_t k = 1; k <= 3; k++)
    {
      for (int reflect = 0; reflect < 2; reflect++)
        {
          char name[64];
          g_snprintf (name, sizeof name, "aten::%s_pad%ud.out", reflect ? "reflection" : "replication", k);
          /* input [2, 3, 4, 5][: k+1 dims] with pads (1, 2) per dim, last dim first */
          int64_t s[4] = { 2, 3, 4, 5 }, so[4];
          uint32_t nd = k + 1;
          int64_t pad[6] = { 1, 2, 2, 1, 0, 2 };
          int64_t lo[4] = { 0 };
          for (uint32_t d = 0; d < nd; d++)
            so[d] = s[d];
          for (uint32_t p = 0; p < k; p++)
            {
              uint32_t d = nd - 1 - p;
              lo[d] = pad[2 * p];
              so[d] = s[d] + pad[2 * p] + pad[2 * p + 1];
            }
          Tensor *x = tnew (ET_SCALAR_FLOAT, nd, s), *o = tout (ET_SCALAR_FLOAT, nd, so);
          fill_random (x, -3, 3);
          int64_t total = 1;
          for (uint32_t d = 0; d < nd; d++)
            total *= so[d];
          double *want = g_new (double, total);
          for (int64_t e = 0; e < total; e++)
            {
              int64_t rem = e, src = 0, stride = 1, idx[4];
              for (uint32_t d = nd; d-- > 0;)
                {
                  idx[d] = rem % so[d];
                  rem /= so[d];
                }
              for (uint32_t d = nd; d-- > 0;)
                {
                  int64_t i = idx[d];
                  if (d >= nd - k)
                    i = reflect ? reflect_index (i, lo[d], s[d]) : CLAMP (i - lo[d], 0, s[d] - 1);
                  src += i * stride;
                  stride *= s[d];
                }
              want[e] = tensor_get (x, src);
            }
          CALL_OK (name, &x->v, ilist (2 * k, pad), &o->v, &o->v);
          check_shape (o, nd, so);
          check_exact (o, want, name);
          /* Wrong padding length and, for reflection, a pad >= the size. */
          CALL_FAILS (name, &x->v, ilist (2 * k - 1, pad), &o->v, &o->v);
          if (reflect)
            {
              int64_t big[6] = { 6, 0, 0, 0, 0, 0 };
              CALL_FAILS (name, &x->v, ilist (2 * k, big), &o->v, &o->v);
            }
          Tensor *bad = tnew (ET_SCALAR_FLOAT, 1, (int64_t[]){ 5 });
          if (k > 1)
            CALL_FAILS (name, &bad->v, ilist (2 * k, pad), &o->v, &o->v);
          g_free (want);
        }
    }
}

/* ---- Upsampling and pixel shuffle ---- */

static void
test_upsample (void)
{
  int64_t s[4] = { 1, 2, 3, 4 };
  Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s);
  fill_random (x, -3, 3);
  EtValue nn = none_value ();
  /* nearest, by size (5, 8) and by scale (2, 1.5) */
  int64_t os[2] = { 5, 8 };
  Tensor *o = tout (ET_SCALAR_FLOAT, 4, (int64_t[]){ 1, 2, 5, 8 });
  double want[2 * 6 * 8];
  for (int c = 0; c < 2; c++)
    for (int h = 0; h < 5; h++)
      for (int w = 0; w < 8; w++)
        {
          int64_t sh = MIN ((int64_t) floorf ((float) h * (3.0f / 5.0f)), 2);
          int64_t sw = w >> 1;
          want[(c * 5 + h) * 8 + w] = tensor_get (x, (c * 3 + sh) * 4 + sw);
        }
  CALL_OK ("aten::upsample_nearest2d.vec_out", &x->v, ilist (2, os), &nn, &o->v, &o->v);
  check_shape (o, 4, (int64_t[]){ 1, 2, 5, 8 });
  check_exact (o, want, "nearest size");
  double sc[2] = { 2.0, 1.5 };
  Tensor *o2 = tout (ET_SCALAR_FLOAT, 4, (int64_t[]){ 1, 2, 6, 6 });
  for (int c = 0; c < 2; c++)
    for (int h = 0; h < 6; h++)
      for (int w = 0; w < 6; w++)
        {
          int64_t sw = MIN ((int64_t) floorf ((float) w * (float) (1.0 / 1.5)), 3);
          want[(c * 6 + h) * 6 + w] = tensor_get (x, (c * 3 + h / 2) * 4 + sw);
        }
  CALL_OK ("aten::upsample_nearest2d.vec_out", &x->v, &nn, dlist (2, sc), &o2->v, &o2->v);
  check_shape (o2, 4, (int64_t[]){ 1, 2, 6, 6 });
  check_exact (o2, want, "nearest scale");
  CALL_FAILS ("aten::upsample_nearest2d.vec_out", &x->v, &nn, &nn, &o->v, &o->v);
  CALL_FAILS ("aten::upsample_nearest2d.vec_out", &x->v, ilist (2, os), dlist (2, sc), &o->v, &o->v);

  /* bilinear, both align_corners settings */
  for (int ac = 0; ac < 2; ac++)
    {
      EtValue acv = bool_value (ac);
      int64_t OH = 5, OW = 7;
      Tensor *ob = tout (ET_SCALAR_FLOAT, 4, (int64_t[]){ 1, 2, OH, OW });
      double wb[2 * 5 * 7];
      for (int c = 0; c < 2; c++)
        for (int h = 0; h < OH; h++)
          for (int w = 0; w < OW; w++)
            {
              double sh = ac ? (double) h * 2 / 4 : fmax (((double) h + 0.5) * 3 / 5 - 0.5, 0);
              double sw = ac ? (double) w * 3 / 6 : fmax (((double) w + 0.5) * 4 / 7 - 0.5, 0);
              int64_t h0 = (int64_t) sh, w0 = (int64_t) sw;
              int64_t h1 = MIN (h0 + 1, 2), w1 = MIN (w0 + 1, 3);
              double lh = sh - h0, lw = sw - w0;
              double v00 = tensor_get (x, (c * 3 + h0) * 4 + w0), v01 = tensor_get (x, (c * 3 + h0) * 4 + w1);
              double v10 = tensor_get (x, (c * 3 + h1) * 4 + w0), v11 = tensor_get (x, (c * 3 + h1) * 4 + w1);
              wb[(c * OH + h) * OW + w] = (1 - lh) * ((1 - lw) * v00 + lw * v01) + lh * ((1 - lw) * v10 + lw * v11);
            }
      CALL_OK ("aten::upsample_bilinear2d.vec_out", &x->v, ilist (2, (int64_t[]){ OH, OW }), &acv, &nn, &ob->v, &ob->v);
      check_f (ob, wb, ATOL, RTOL, ac ? "bilinear align" : "bilinear");
    }
  Tensor *xi = tnew (ET_SCALAR_INT, 4, s), *oi = tout (ET_SCALAR_INT, 4, s);
  EtValue f = bool_value (false);
  CALL_FAILS ("aten::upsample_bilinear2d.vec_out", &xi->v, ilist (2, os), &f, &nn, &oi->v, &oi->v);
  CALL_FAILS ("aten::upsample_bilinear2d.vec_out", &x->v, ilist (2, (int64_t[]){ 0, 3 }), &f, &nn, &o->v, &o->v);
}

static void
test_upsample_aa_grid_sampler (void)
{
  /* Anti-aliased 4 -> 2: triangle weights (0.75, 0.75, 0.25) / 1.75 around
   * centres 1 and 3, worked by hand. */
  int64_t s[4] = { 1, 1, 1, 4 }, so[4] = { 1, 1, 1, 2 };
  Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s), *o = tout (ET_SCALAR_FLOAT, 4, so);
  fill_values (x, (double[]){ 1, 2, 3, 4 });
  EtValue f = bool_value (false), t = bool_value (true), nn = none_value ();
  CALL_OK ("aten::_upsample_bilinear2d_aa.out", &x->v, ilist (2, (int64_t[]){ 1, 2 }), &f, &nn, &nn, &o->v, &o->v);
  check_shape (o, 4, so);
  check_f (o, (double[]){ 3.0 / 1.75, 5.75 / 1.75 }, ATOL, RTOL, "bilinear aa");
  Tensor *xi = tnew (ET_SCALAR_INT, 4, s);
  CALL_FAILS ("aten::_upsample_bilinear2d_aa.out", &xi->v, ilist (2, (int64_t[]){ 1, 2 }), &f, &nn, &nn, &o->v, &o->v);

  /* grid_sampler_2d on [[1, 2], [3, 4]] with align_corners. */
  int64_t si[4] = { 1, 1, 2, 2 }, sg[4] = { 1, 1, 4, 2 }, sgo[4] = { 1, 1, 1, 4 };
  Tensor *in = tnew (ET_SCALAR_FLOAT, 4, si), *g = tnew (ET_SCALAR_FLOAT, 4, sg), *go = tout (ET_SCALAR_FLOAT, 4, sgo);
  fill_values (in, (double[]){ 1, 2, 3, 4 });
  fill_values (g, (double[]){ -1, -1, 1, 1, 0, 0, 2, 0 });
  EtValue bil = int_value (0), near = int_value (1), zeros = int_value (0), border = int_value (1), bad = int_value (7);
  CALL_OK ("aten::grid_sampler_2d.out", &in->v, &g->v, &bil, &zeros, &t, &go->v, &go->v);
  check_f (go, (double[]){ 1, 4, 2.5, 1.5 }, ATOL, RTOL, "grid_sampler zeros");
  CALL_OK ("aten::grid_sampler_2d.out", &in->v, &g->v, &bil, &border, &t, &go->v, &go->v);
  check_f (go, (double[]){ 1, 4, 2.5, 3 }, ATOL, RTOL, "grid_sampler border");
  fill_values (g, (double[]){ 0.2, -0.2, -0.9, 0.9, 1, -1, 3, 3 });
  CALL_OK ("aten::grid_sampler_2d.out", &in->v, &g->v, &near, &zeros, &t, &go->v, &go->v);
  check_f (go, (double[]){ 2, 3, 2, 0 }, ATOL, RTOL, "grid_sampler nearest");
  /* bicubic interpolates: exact at pixel centres; reflection folds x = 1.5 to 0.5 */
  EtValue cub = int_value (2), refl = int_value (2);
  fill_values (g, (double[]){ -1, -1, 1, -1, -1, 1, 1, 1 });
  CALL_OK ("aten::grid_sampler_2d.out", &in->v, &g->v, &cub, &border, &t, &go->v, &go->v);
  check_f (go, (double[]){ 1, 2, 3, 4 }, ATOL, RTOL, "grid_sampler bicubic");
  fill_values (g, (double[]){ 2, 0, 0, 0, -1, -1, 0, 2 });
  CALL_OK ("aten::grid_sampler_2d.out", &in->v, &g->v, &bil, &refl, &t, &go->v, &go->v);
  check_f (go, (double[]){ 2.5, 2.5, 1, 2.5 }, ATOL, RTOL, "grid_sampler reflection");
  CALL_FAILS ("aten::grid_sampler_2d.out", &in->v, &g->v, &bad, &zeros, &t, &go->v, &go->v);
  Tensor *g3 = tnew (ET_SCALAR_FLOAT, 4, (int64_t[]){ 1, 1, 4, 3 });
  CALL_FAILS ("aten::grid_sampler_2d.out", &in->v, &g3->v, &bil, &zeros, &t, &go->v, &go->v);
}

static void
test_pixel_shuffle (void)
{
  int64_t s[4] = { 2, 8, 2, 3 }, so[4] = { 2, 2, 4, 6 };
  Tensor *x = tnew (ET_SCALAR_FLOAT, 4, s), *o = tout (ET_SCALAR_FLOAT, 4, so), *back = tout (ET_SCALAR_FLOAT, 4, s);
  fill_random (x, -3, 3);
  double want[96], orig[96];
  for (int n = 0; n < 2; n++)
    for (int c = 0; c < 2; c++)
      for (int h = 0; h < 4; h++)
        for (int w = 0; w < 6; w++)
          {
            int ic = c * 4 + (h % 2) * 2 + (w % 2);
            want[((n * 2 + c) * 4 + h) * 6 + w] = tensor_get (x, ((n * 8 + ic) * 2 + h / 2) * 3 + w / 2);
          }
  EtValue r = int_value (2);
  CALL_OK ("aten::pixel_shuffle.out", &x->v, &r, &o->v, &o->v);
  check_shape (o, 4, so);
  check_exact (o, want, "pixel_shuffle");
  CALL_OK ("aten::pixel_unshuffle.out", &o->v, &r, &back->v, &back->v);
  for (int i = 0; i < 96; i++)
    orig[i] = tensor_get (x, i);
  check_exact (back, orig, "pixel_unshuffle");
  /* channels-last input gives the same values */
  Tensor *xc = tnew_full (ET_SCALAR_FLOAT, 4, s, CL4, 0);
  for (int i = 0; i < 96; i++)
    tensor_set (xc, i, orig[i]);
  CALL_OK ("aten::pixel_shuffle.out", &xc->v, &r, &o->v, &o->v);
  check_exact (o, want, "pixel_shuffle cl");
  EtValue r3 = int_value (3), r0 = int_value (0);
  CALL_FAILS ("aten::pixel_shuffle.out", &x->v, &r3, &o->v, &o->v);
  CALL_FAILS ("aten::pixel_shuffle.out", &x->v, &r0, &o->v, &o->v);
  CALL_FAILS ("aten::pixel_unshuffle.out", &x->v, &r3, &o->v, &o->v);
}

/* ---- Softmax ---- */

static void
ref_softmax (const double *x, int64_t n, bool log_form, double *o)
{
  double mx = -INFINITY, sum = 0;
  for (int64_t i = 0; i < n; i++)
    mx = isnan (x[i]) || x[i] > mx ? x[i] : mx;
  for (int64_t i = 0; i < n; i++)
    sum += exp (x[i] - mx);
  for (int64_t i = 0; i < n; i++)
    o[i] = log_form ? x[i] - mx - log (sum) : exp (x[i] - mx) / sum;
}

static void
test_softmax (void)
{
  int64_t lens[] = { 1, 7, 8, 9, 33, 1000 };
  for (size_t l = 0; l < G_N_ELEMENTS (lens); l++)
    for (int log_form = 0; log_form < 2; log_form++)
      {
        int64_t n = lens[l], s[2] = { 5, n };
        Tensor *x = tnew (ET_SCALAR_FLOAT, 2, s), *o = tout (ET_SCALAR_FLOAT, 2, s);
        fill_random (x, -20, 20);
        if (n >= 8)
          {
            tensor_set (x, n + 2, -INFINITY); /* a masked entry */
            for (int64_t i = 0; i < n; i++)
              tensor_set (x, 2 * n + i, -INFINITY); /* a fully masked row */
            tensor_set (x, 3 * n + 1, NAN);         /* a NaN row */
          }
        double *xv = g_new (double, 5 * n), *want = g_new (double, 5 * n);
        for (int64_t i = 0; i < 5 * n; i++)
          xv[i] = tensor_get (x, i);
        for (int r = 0; r < 5; r++)
          ref_softmax (xv + r * n, n, log_form, want + r * n);
        EtValue dim = int_value (-1), h2f = bool_value (false);
        const char *name = log_form ? "aten::_log_softmax.out" : "aten::_softmax.out";
        CALL_OK (name, &x->v, &dim, &h2f, &o->v, &o->v);
        check_f (o, want, ATOL, RTOL, name);
        if (n >= 8 && !log_form)
          g_assert_cmpfloat (F32 (o)[n + 2], ==, 0.0f);
        g_free (xv);
        g_free (want);
      }
  /* dim 0 (strided lines), double, channels-last. */
  int64_t s[3] = { 4, 3, 5 };
  Tensor *x = tnew (ET_SCALAR_DOUBLE, 3, s), *o = tout (ET_SCALAR_DOUBLE, 3, s);
  fill_random (x, -5, 5);
  double want[60], line[4], lo[4];
  for (int j = 0; j < 15; j++)
    {
      for (int i = 0; i < 4; i++)
        line[i] = tensor_get (x, i * 15 + j);
      ref_softmax (line, 4, false, lo);
      for (int i = 0; i < 4; i++)
        want[i * 15 + j] = lo[i];
    }
  EtValue d0 = int_value (0), dm3 = int_value (-3), h2f = bool_value (false), t = bool_value (true), d3 = int_value (3);
  CALL_OK ("aten::_softmax.out", &x->v, &d0, &h2f, &o->v, &o->v);
  check_f (o, want, 1e-12, 1e-12, "softmax dim 0");
  CALL_OK ("aten::_softmax.out", &x->v, &dm3, &h2f, &o->v, &o->v);
  check_f (o, want, 1e-12, 1e-12, "softmax dim -3");
  int64_t s4[4] = { 2, 3, 2, 2 };
  Tensor *xc = tnew_full (ET_SCALAR_FLOAT, 4, s4, CL4, 0), *oc = tnew_full (ET_SCALAR_FLOAT, 4, s4, CL4, 0);
  fill_random (xc, -5, 5);
  double wc[24], l3[3], o3[3];
  for (int n = 0; n < 2; n++)
    for (int hw = 0; hw < 4; hw++)
      {
        for (int c = 0; c < 3; c++)
          l3[c] = tensor_get (xc, (n * 3 + c) * 4 + hw);
        ref_softmax (l3, 3, true, o3);
        for (int c = 0; c < 3; c++)
          wc[(n * 3 + c) * 4 + hw] = o3[c];
      }
  EtValue d1 = int_value (1);
  CALL_OK ("aten::_log_softmax.out", &xc->v, &d1, &h2f, &oc->v, &oc->v);
  check_f (oc, wc, ATOL, RTOL, "log_softmax channels-last dim 1");
  /* Empty, errors. */
  Tensor *e = tnew (ET_SCALAR_FLOAT, 2, (int64_t[]){ 0, 4 }), *eo = tout (ET_SCALAR_FLOAT, 2, (int64_t[]){ 1, 1 });
  CALL_OK ("aten::_softmax.out", &e->v, &d1, &h2f, &eo->v, &eo->v);
  check_shape (eo, 2, (int64_t[]){ 0, 4 });
  CALL_FAILS ("aten::_softmax.out", &x->v, &d3, &h2f, &o->v, &o->v);
  CALL_FAILS ("aten::_softmax.out", &x->v, &d0, &t, &o->v, &o->v);
  Tensor *xi = tnew (ET_SCALAR_INT, 3, s), *oi = tout (ET_SCALAR_INT, 3, s);
  CALL_FAILS ("aten::_softmax.out", &xi->v, &d0, &h2f, &oi->v, &oi->v);
}

int
main (int argc, char **argv)
{
  /* --no-simd forces the portable loops (read once by the kernels). */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--no-simd") == 0)
      {
        g_setenv ("EXECUTORCH_KERNELS_NO_SIMD", "1", TRUE);
        for (int j = i; j < argc - 1; j++)
          argv[j] = argv[j + 1];
        argc--;
        break;
      }
  g_test_init (&argc, &argv, NULL);
  register_kernels_plugin ();

  g_test_add_func ("/nn/registered", test_registered);
  g_test_add_func ("/nn/bad-arguments", test_bad_arguments);
  g_test_add_func ("/nn/unary/float-ops", test_unary_float_ops);
  g_test_add_func ("/nn/unary/bf16-and-empty", test_unary_bf16_and_empty);
  g_test_add_func ("/nn/unary/channels-last", test_unary_channels_last);
  g_test_add_func ("/nn/unary/same-dtype", test_unary_same_dtype);
  g_test_add_func ("/nn/unary/predicates", test_unary_predicates);
  g_test_add_func ("/nn/unary/logit-conj", test_unary_logit_conj);
  g_test_add_func ("/nn/vector/accuracy", test_vector_accuracy);
  g_test_add_func ("/nn/activation/hardtanh-clamp", test_hardtanh_clamp);
  g_test_add_func ("/nn/activation/clamp-tensor", test_clamp_tensor);
  g_test_add_func ("/nn/activation/gelu", test_gelu);
  g_test_add_func ("/nn/activation/elu-leaky-glu", test_elu_leaky_glu);
  g_test_add_func ("/nn/binary/fast-paths", test_binary_fast_paths);
  g_test_add_func ("/nn/binary/arith-extra", test_binary_arith_extra);
  g_test_add_func ("/nn/binary/integer", test_binary_integer);
  g_test_add_func ("/nn/binary/logical-bitwise", test_logical_bitwise);
  g_test_add_func ("/nn/binary/where-masked-fill", test_where_masked_fill);
  g_test_add_func ("/nn/norm/batch-norm", test_batch_norm_no_training);
  g_test_add_func ("/nn/norm/batch-norm-training", test_batch_norm_training);
  g_test_add_func ("/nn/norm/layer-norm", test_layer_norm);
  g_test_add_func ("/nn/norm/group-norm", test_group_norm);
  g_test_add_func ("/nn/pool/max", test_max_pool);
  g_test_add_func ("/nn/pool/max-backward", test_max_pool_backward);
  g_test_add_func ("/nn/pool/avg", test_avg_pool);
  g_test_add_func ("/nn/pool/adaptive-avg", test_adaptive_avg_pool);
  g_test_add_func ("/nn/pad/constant", test_constant_pad);
  g_test_add_func ("/nn/pad/reflection-replication", test_reflection_replication_pad);
  g_test_add_func ("/nn/upsample/nearest-bilinear", test_upsample);
  g_test_add_func ("/nn/upsample/aa-grid-sampler", test_upsample_aa_grid_sampler);
  g_test_add_func ("/nn/upsample/pixel-shuffle", test_pixel_shuffle);
  g_test_add_func ("/nn/softmax", test_softmax);
  return g_test_run ();
}
