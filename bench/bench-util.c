/* bench-util.c: clocks and float tensors shared by the C benchmarks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "bench-util.h"

#include <glib.h>
#include <string.h>
#include <time.h>

/* Wall seconds. */
double
bench_now (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

/* CPU seconds of the whole process: on a shared machine wall time includes
 * other processes' slices, CPU time does not. */
double
bench_cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

EtValue
bench_int_value (int64_t v)
{
  EtValue x = { .tag = ET_VALUE_INT };
  x.u.int_value = v;
  return x;
}

/* A contiguous float32 tensor over @data, and the value holding it. */
void
bench_tensor_init (EtTensor *t, EtValue *v, uint32_t ndim, const int64_t *sizes, float *data)
{
  memset (t, 0, sizeof *t);
  t->ndim = ndim;
  t->scalar_type = ET_SCALAR_FLOAT;
  t->numel = 1;
  for (uint32_t d = 0; d < ndim; d++)
    {
      t->sizes[d] = sizes[d];
      t->dim_order[d] = (uint8_t) d;
      t->numel *= sizes[d];
    }
  et_strides_from_dim_order (ndim, t->sizes, t->dim_order, t->strides);
  t->nbytes = t->capacity = (size_t) t->numel * sizeof (float);
  t->data = data;
  v->tag = ET_VALUE_TENSOR;
  v->u.tensor = t;
}
