/* kernel-test-util.c: argument stacks and kernel calls for the C kernel tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "kernel-test-util.h"

#include <math.h>
#include <string.h>

void
register_kernels_plugin (void)
{
  EtErrorContext *error = et_error_context_new ();

  if (et_registry_add_plugin (executorch_kernels_get_plugin (), error) != ET_OK)
    g_error ("cannot register the kernels plug-in: %s", et_error_context_message (error));
  et_error_context_free (error);
}

/* ---- Tensors ---- */

void
tensor_init_full (Tensor *x, int type, uint32_t ndim, const int64_t *sizes, const uint8_t *dim_order, void *data,
                  int dynamism, size_t capacity)
{
  memset (x, 0, sizeof *x);
  x->t.ndim = ndim;
  x->t.scalar_type = (int8_t) type;
  x->t.shape_dynamism = (uint8_t) dynamism;
  x->t.device_type = ET_DEVICE_CPU;
  x->t.numel = 1;
  for (uint32_t d = 0; d < ndim; d++)
    {
      x->t.sizes[d] = sizes[d];
      x->t.dim_order[d] = dim_order ? dim_order[d] : (uint8_t) d;
      x->t.numel *= sizes[d];
    }
  et_strides_from_dim_order (ndim, x->t.sizes, x->t.dim_order, x->t.strides);
  x->t.nbytes = (size_t) x->t.numel * et_scalar_type_size (type);
  x->t.capacity = capacity ? capacity : x->t.nbytes;
  x->t.data = data;
  x->v.tag = ET_VALUE_TENSOR;
  x->v.u.tensor = &x->t;
}

void
tensor_init (Tensor *x, int type, uint32_t ndim, const int64_t *sizes, void *data)
{
  tensor_init_full (x, type, ndim, sizes, NULL, data, ET_SHAPE_STATIC, 0);
}

void
tensor_init_dynamic (Tensor *x, int type, uint32_t ndim, const int64_t *sizes, void *data, size_t capacity_elems)
{
  tensor_init_full (x, type, ndim, sizes, NULL, data, ET_SHAPE_DYNAMIC_BOUND,
                    capacity_elems * et_scalar_type_size (type));
}

int64_t
tensor_offset (const Tensor *x, int64_t flat)
{
  int64_t off = 0;

  for (uint32_t d = x->t.ndim; d-- > 0;)
    {
      off += (flat % x->t.sizes[d]) * x->t.strides[d];
      flat /= x->t.sizes[d];
    }
  return off;
}

/* BFloat16 is the top half of a float32: widening is exact, narrowing
 * truncates (exact for the values the tests use). */
static float
bf16_to_float (uint16_t b)
{
  uint32_t u = (uint32_t) b << 16;
  float f;

  memcpy (&f, &u, 4);
  return f;
}

static uint16_t
float_to_bf16 (float f)
{
  uint32_t u;

  memcpy (&u, &f, 4);
  return (uint16_t) (u >> 16);
}

double
tensor_get (const Tensor *x, int64_t flat)
{
  const char *p = (const char *) x->t.data + tensor_offset (x, flat) * (int64_t) et_scalar_type_size (x->t.scalar_type);

  switch (x->t.scalar_type)
    {
      case ET_SCALAR_FLOAT: return *(const float *) p;
      case ET_SCALAR_DOUBLE: return *(const double *) p;
      case ET_SCALAR_HALF:
        {
          _Float16 h;
          memcpy (&h, p, 2);
          return (double) h;
        }
      case ET_SCALAR_BFLOAT16:
        {
          uint16_t b;
          memcpy (&b, p, 2);
          return bf16_to_float (b);
        }
      case ET_SCALAR_LONG: return (double) *(const int64_t *) p;
      case ET_SCALAR_INT: return *(const int32_t *) p;
      case ET_SCALAR_SHORT: return *(const int16_t *) p;
      case ET_SCALAR_CHAR: return *(const int8_t *) p;
      case ET_SCALAR_BYTE: return *(const uint8_t *) p;
      case ET_SCALAR_BOOL: return *(const uint8_t *) p;
      default: g_assert_not_reached ();
    }
  return 0;
}

void
tensor_set (Tensor *x, int64_t flat, double v)
{
  char *p = (char *) x->t.data + tensor_offset (x, flat) * (int64_t) et_scalar_type_size (x->t.scalar_type);

  switch (x->t.scalar_type)
    {
      case ET_SCALAR_FLOAT: *(float *) p = (float) v; break;
      case ET_SCALAR_DOUBLE: *(double *) p = v; break;
      case ET_SCALAR_HALF:
        {
          _Float16 h = (_Float16) v;
          memcpy (p, &h, 2);
          break;
        }
      case ET_SCALAR_BFLOAT16:
        {
          uint16_t b = float_to_bf16 ((float) v);
          memcpy (p, &b, 2);
          break;
        }
      case ET_SCALAR_LONG: *(int64_t *) p = (int64_t) v; break;
      case ET_SCALAR_INT: *(int32_t *) p = (int32_t) v; break;
      case ET_SCALAR_SHORT: *(int16_t *) p = (int16_t) v; break;
      case ET_SCALAR_CHAR: *(int8_t *) p = (int8_t) v; break;
      case ET_SCALAR_BYTE: *(uint8_t *) p = (uint8_t) v; break;
      case ET_SCALAR_BOOL: *(uint8_t *) p = v != 0; break;
      default: g_assert_not_reached ();
    }
}

void
random_dim_order (uint32_t ndim, uint8_t *order)
{
  for (uint32_t d = 0; d < ndim; d++)
    order[d] = (uint8_t) d;
  for (uint32_t d = ndim; d > 1; d--)
    {
      uint32_t j = (uint32_t) g_test_rand_int_range (0, (gint32) d);
      uint8_t t = order[d - 1];
      order[d - 1] = order[j];
      order[j] = t;
    }
}

/* ---- Values ---- */

EtValue
int_value (int64_t v)
{
  EtValue x = { .tag = ET_VALUE_INT };
  x.u.int_value = v;
  return x;
}

EtValue
double_value (double v)
{
  EtValue x = { .tag = ET_VALUE_DOUBLE };
  x.u.double_value = v;
  return x;
}

EtValue
bool_value (bool v)
{
  EtValue x = { .tag = ET_VALUE_BOOL };
  x.u.bool_value = v;
  return x;
}

EtValue
none_value (void)
{
  EtValue x = { .tag = ET_VALUE_NONE };
  return x;
}

EtValue
string_value (const char *s)
{
  EtValue x = { .tag = ET_VALUE_STRING };
  x.u.string.data = s;
  x.u.string.length = strlen (s);
  return x;
}

void
int_list_init (IntList *l, uint32_t n, const int64_t *items)
{
  g_assert_cmpuint (n, <=, G_N_ELEMENTS (l->slots));
  memset (l, 0, sizeof *l);
  for (uint32_t i = 0; i < n; i++)
    {
      l->slots[i] = int_value (items[i]);
      l->ptrs[i] = &l->slots[i];
    }
  l->v.tag = ET_VALUE_LIST_INT;
  l->v.u.list.items = l->ptrs;
  l->v.u.list.length = n;
}

void
tensor_list_init (TensorList *l, uint32_t n, Tensor **items, bool optional)
{
  g_assert_cmpuint (n, <=, G_N_ELEMENTS (l->ptrs));
  memset (l, 0, sizeof *l);
  for (uint32_t i = 0; i < n; i++)
    l->ptrs[i] = items[i] ? &items[i]->v : NULL;
  l->v.tag = optional ? ET_VALUE_LIST_OPTIONAL_TENSOR : ET_VALUE_LIST_TENSOR;
  l->v.u.list.items = l->ptrs;
  l->v.u.list.length = n;
}

/* ---- Calling kernels ---- */

static EtErrorContext *call_error;
const char *last_message = "";

EtError
call (const char *name, EtValue **args, uint32_t n_args)
{
  const EtKernel *k = et_registry_find_kernel (et_registry_get_default (), name);
  if (k == NULL)
    g_error ("kernel %s is not registered", name);
  /* One context for the process: last_message stays readable until the next call. */
  if (call_error == NULL)
    call_error = et_error_context_new ();
  EtError err = et_kernel_call (k, args, n_args, call_error);
  last_message = err != ET_OK ? et_error_context_message (call_error) : "";
  if (err != ET_OK)
    g_test_message ("%s failed (0x%x): %s", name, err, last_message);
  return err;
}

void
assert_close (double got, double want, double tol)
{
  if (!(fabs (got - want) <= tol * (1.0 + fabs (want))) && !(isnan (got) && isnan (want)))
    g_error ("got %.9g, expected %.9g", got, want);
}
