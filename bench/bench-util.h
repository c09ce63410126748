/* bench-util.h: clocks and float tensors shared by the C benchmarks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#ifndef EXECUTORCH_USE_UNSTABLE_PLUGIN_API
#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API 1
#endif
#include "executorch-plugin.h"

#include <stdint.h>

double bench_now (void);
double bench_cpu_now (void);
EtValue bench_int_value (int64_t v);
void bench_tensor_init (EtTensor *t, EtValue *v, uint32_t ndim, const int64_t *sizes, float *data);
