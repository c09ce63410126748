/* cpu.c: the one decision whether AVX2+FMA code may run
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every AVX2 path of the plug-ins is a function built with
 * __attribute__ ((target ("avx2,fma"))) (or "avx2") and called only when
 * this says yes, so the libraries themselves run on any x86-64.  The few
 * AVX-512 paths (target "avx512f,avx512dq") ask
 * _executorch_support_cpu_has_avx512, which implies the AVX2 answer.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* secure_getenv */
#endif
#include "support-private.h"

#include <stdlib.h>
#include <string.h>

/* 0 not decided yet, 1 yes, 2 no. */
static int avx2_fma_state;

bool
_executorch_support_cpu_has_avx2_fma (void)
{
  int s = __atomic_load_n (&avx2_fma_state, __ATOMIC_ACQUIRE);

  if (s == 0)
    {
      s = 2;
#if defined(__x86_64__) && defined(__GNUC__)
      const char *off = secure_getenv ("EXECUTORCH_KERNELS_NO_SIMD");
      __builtin_cpu_init ();
      if ((off == NULL || off[0] == '\0' || strcmp (off, "0") == 0) && __builtin_cpu_supports ("avx2") &&
          __builtin_cpu_supports ("fma"))
        s = 1;
#endif
      __atomic_store_n (&avx2_fma_state, s, __ATOMIC_RELEASE);
    }
  return s == 1;
}

/* 0 not decided yet, 1 yes, 2 no. */
static int avx512_state;

bool
_executorch_support_cpu_has_avx512 (void)
{
  int s = __atomic_load_n (&avx512_state, __ATOMIC_ACQUIRE);

  if (s == 0)
    {
      s = 2;
#if defined(__x86_64__) && defined(__GNUC__)
      const char *off = secure_getenv ("EXECUTORCH_KERNELS_NO_AVX512");
      if (_executorch_support_cpu_has_avx2_fma () && (off == NULL || off[0] == '\0' || strcmp (off, "0") == 0) &&
          __builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512dq"))
        s = 1;
#endif
      __atomic_store_n (&avx512_state, s, __ATOMIC_RELEASE);
    }
  return s == 1;
}
