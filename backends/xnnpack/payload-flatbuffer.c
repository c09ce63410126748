/* payload-flatbuffer.c: bounds-checked FlatBuffers reading (see payload-flatbuffer.h)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "payload-flatbuffer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
xb_fb_init (XbFb *fb, const void *data, size_t size)
{
  fb->data = data;
  fb->size = size;
  fb->error[0] = '\0';
  fb->failed = false;
  /* Offsets are u32: anything past 4 GiB could not be addressed anyway. */
  if (size > UINT32_MAX)
    xb_fb_fail (fb, "flatbuffer of %zu bytes is too large", size);
}

void
xb_fb_fail (XbFb *fb, const char *format, ...)
{
  if (fb->failed)
    return;
  fb->failed = true;
  va_list ap;
  va_start (ap, format);
  vsnprintf (fb->error, sizeof fb->error, format, ap);
  va_end (ap);
}

static bool
in_range (XbFb *fb, uint64_t pos, uint64_t len)
{
  return !fb->failed && pos <= fb->size && len <= fb->size - pos;
}

static uint32_t
rd32 (const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static uint16_t
rd16 (const uint8_t *p)
{
  return (uint16_t) (p[0] | p[1] << 8);
}

static XbFbTable
check_table (XbFb *fb, uint64_t t, const char *what)
{
  if (!in_range (fb, t, 4) || t == 0) {
    xb_fb_fail (fb, "%s: table offset %llu outside the %zu-byte flatbuffer", what,
                (unsigned long long) t, fb->size);
    return 0;
  }
  int32_t soff = (int32_t) rd32 (fb->data + t);
  int64_t vt = (int64_t) t - soff;
  if (vt < 0 || !in_range (fb, (uint64_t) vt, 4)) {
    xb_fb_fail (fb, "%s: vtable of the table at %llu is outside the flatbuffer", what,
                (unsigned long long) t);
    return 0;
  }
  uint16_t vbytes = rd16 (fb->data + vt), tbytes = rd16 (fb->data + vt + 2);
  if (vbytes < 4 || (vbytes & 1) || !in_range (fb, (uint64_t) vt, vbytes) || tbytes < 4 ||
      !in_range (fb, t, tbytes)) {
    xb_fb_fail (fb, "%s: bad vtable at %lld for the table at %llu", what, (long long) vt,
                (unsigned long long) t);
    return 0;
  }
  return (XbFbTable) t;
}

XbFbTable
xb_fb_root (XbFb *fb, const char *what)
{
  if (!in_range (fb, 0, 8)) {
    xb_fb_fail (fb, "%s: flatbuffer of %zu bytes is too short", what, fb->size);
    return 0;
  }
  return check_table (fb, rd32 (fb->data), what);
}

/* Position of a field's inline bytes, or 0 when absent. */
static uint32_t
field (XbFb *fb, XbFbTable t, unsigned slot, unsigned size)
{
  if (fb->failed || t == 0)
    return 0;
  int64_t vt = (int64_t) t - (int32_t) rd32 (fb->data + t);
  uint16_t vbytes = rd16 (fb->data + vt), tbytes = rd16 (fb->data + vt + 2);
  unsigned at = 4 + 2 * slot;
  if (at + 2 > vbytes)
    return 0;
  uint16_t off = rd16 (fb->data + vt + at);
  if (off == 0)
    return 0;
  if (off < 4 || (uint32_t) off + size > tbytes) {
    xb_fb_fail (fb, "field %u of the table at %u lies outside the table", slot, t);
    return 0;
  }
  return t + off;
}

uint8_t
xb_fb_u8 (XbFb *fb, XbFbTable t, unsigned slot, uint8_t def)
{
  uint32_t p = field (fb, t, slot, 1);
  return p ? fb->data[p] : def;
}

int16_t
xb_fb_i16 (XbFb *fb, XbFbTable t, unsigned slot, int16_t def)
{
  uint32_t p = field (fb, t, slot, 2);
  return p ? (int16_t) rd16 (fb->data + p) : def;
}

uint32_t
xb_fb_u32 (XbFb *fb, XbFbTable t, unsigned slot, uint32_t def)
{
  uint32_t p = field (fb, t, slot, 4);
  return p ? rd32 (fb->data + p) : def;
}

int32_t
xb_fb_i32 (XbFb *fb, XbFbTable t, unsigned slot, int32_t def)
{
  return (int32_t) xb_fb_u32 (fb, t, slot, (uint32_t) def);
}

uint64_t
xb_fb_u64 (XbFb *fb, XbFbTable t, unsigned slot, uint64_t def)
{
  uint32_t p = field (fb, t, slot, 8);
  return p ? (uint64_t) rd32 (fb->data + p) | (uint64_t) rd32 (fb->data + p + 4) << 32 : def;
}

float
xb_fb_f32 (XbFb *fb, XbFbTable t, unsigned slot, float def)
{
  uint32_t p = field (fb, t, slot, 4);
  if (!p)
    return def;
  uint32_t bits = rd32 (fb->data + p);
  float f;
  memcpy (&f, &bits, sizeof f);
  return f;
}

/* Follows the u32 reference at a field; 0 when absent. */
static uint64_t
deref (XbFb *fb, XbFbTable t, unsigned slot)
{
  uint32_t p = field (fb, t, slot, 4);
  if (!p)
    return 0;
  uint32_t rel = rd32 (fb->data + p);
  if (rel == 0) {
    xb_fb_fail (fb, "field %u of the table at %u has a zero offset", slot, t);
    return 0;
  }
  return (uint64_t) p + rel;
}

XbFbTable
xb_fb_table (XbFb *fb, XbFbTable t, unsigned slot, const char *what)
{
  uint64_t pos = deref (fb, t, slot);
  return pos ? check_table (fb, pos, what) : 0;
}

XbFbVector
xb_fb_vector (XbFb *fb, XbFbTable t, unsigned slot, size_t elem_size, const char *what)
{
  XbFbVector v = { 0, 0 };
  uint64_t pos = deref (fb, t, slot);
  if (!pos)
    return v;
  if (!in_range (fb, pos, 4)) {
    xb_fb_fail (fb, "%s: vector at %llu outside the flatbuffer", what, (unsigned long long) pos);
    return v;
  }
  uint32_t count = rd32 (fb->data + pos);
  if (!in_range (fb, pos + 4, (uint64_t) count * elem_size)) {
    xb_fb_fail (fb, "%s: vector of %u elements at %llu runs past the %zu-byte flatbuffer", what,
                count, (unsigned long long) pos, fb->size);
    return v;
  }
  v.pos = (uint32_t) pos + 4;
  v.count = count;
  return v;
}

bool
xb_fb_string (XbFb *fb, XbFbTable t, unsigned slot, const char **s, uint32_t *len,
              const char *what)
{
  XbFbVector v = xb_fb_vector (fb, t, slot, 1, what);
  if (fb->failed || v.pos == 0)
    return false;
  if (!in_range (fb, v.pos, (uint64_t) v.count + 1) || fb->data[v.pos + v.count] != 0) {
    xb_fb_fail (fb, "%s: string is not NUL-terminated", what);
    return false;
  }
  *s = (const char *) fb->data + v.pos;
  *len = v.count;
  return true;
}

uint32_t
xb_fb_vec_u32 (XbFb *fb, XbFbVector v, uint32_t i)
{
  if (fb->failed || i >= v.count)
    return 0;
  return rd32 (fb->data + v.pos + 4 * (size_t) i);
}

float
xb_fb_vec_f32 (XbFb *fb, XbFbVector v, uint32_t i)
{
  uint32_t bits = xb_fb_vec_u32 (fb, v, i);
  float f;
  memcpy (&f, &bits, sizeof f);
  return f;
}

XbFbTable
xb_fb_vec_table (XbFb *fb, XbFbVector v, uint32_t i, const char *what)
{
  if (fb->failed || i >= v.count)
    return 0;
  uint64_t p = (uint64_t) v.pos + 4 * (uint64_t) i;
  uint32_t rel = rd32 (fb->data + p);
  if (rel == 0) {
    xb_fb_fail (fb, "%s: element %u has a zero offset", what, i);
    return 0;
  }
  return check_table (fb, p + rel, what);
}
