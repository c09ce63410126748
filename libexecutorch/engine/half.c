/* half.c: Half and BFloat16 to and from float
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Bit for bit c10's Half and BFloat16 conversions (round to nearest even),
 * the one copy: exported in the plug-in ABI for the kernel libraries, used
 * by the engine and the GObject layer.  The quantized kernels must match
 * upstream to the byte; nothing here can be contracted into an FMA (no
 * multiply feeds an add).
 */
#include "engine.h"

#include <math.h>
#include <string.h>

float
et_half_to_float (uint16_t h)
{
  uint32_t sign = (uint32_t) (h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  float f;

  if (exponent == 0)
    {
      /* Zero or subnormal: mantissa * 2^-24, exact in float. */
      f = (float) mantissa * 0x1p-24f;
      return sign ? -f : f;
    }
  if (exponent == 31)
    bits = sign | 0x7f800000u | (mantissa << 13);
  else
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  memcpy (&f, &bits, sizeof f);
  return f;
}

uint16_t
et_float_to_half (float f)
{
  uint32_t x;
  memcpy (&x, &f, sizeof x);
  uint16_t sign = (uint16_t) ((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;

  if (x >= 0x7f800000u) /* inf or NaN */
    return sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (x >= 0x477ff000u) /* rounds to inf */
    return sign | 0x7c00u;
  if (x < 0x38800000u)
    { /* half subnormal (or zero) */
      float a;
      memcpy (&a, &x, sizeof a);
      /* a * 2^24 is exact and below 1024; round half to even. */
      return sign | (uint16_t) nearbyintf (a * 0x1p24f);
    }

  uint32_t mantissa = x & 0x7fffffu;
  uint32_t h = (((x >> 23) - 112) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    h++; /* a carry moves into the exponent correctly */
  return sign | (uint16_t) h;
}

float
et_bfloat16_to_float (uint16_t b)
{
  uint32_t bits = (uint32_t) b << 16;
  float f;
  memcpy (&f, &bits, sizeof f);
  return f;
}

uint16_t
et_float_to_bfloat16 (float f)
{
  uint32_t x;
  memcpy (&x, &f, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return 0x7fc0u; /* c10: every NaN is the same quiet NaN */
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t) (x >> 16);
}
