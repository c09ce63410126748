/* payload-flatbuffer.h: a small bounds-checked FlatBuffers reader for XNNPACK payloads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libexecutorch-xnnpack is a separate library and may not reach the engine's
 * private reader, so it carries this one.  Every accessor checks the offsets
 * it follows against the buffer; the first problem is kept in the reader
 * ("sticky"), later reads return zeros, and the caller checks once.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *data;
  size_t size;
  char error[256];
  bool failed;
} XbFb;

/* A table position (0 = absent). */
typedef uint32_t XbFbTable;

typedef struct {
  uint32_t pos;     /* position of the first element */
  uint32_t count;
} XbFbVector;

void xb_fb_init (XbFb *fb, const void *data, size_t size);
void xb_fb_fail (XbFb *fb, const char *format, ...) __attribute__ ((format (printf, 2, 3)));

XbFbTable xb_fb_root (XbFb *fb, const char *what);

/* Scalar fields: @def when absent. */
uint8_t xb_fb_u8 (XbFb *fb, XbFbTable t, unsigned slot, uint8_t def);
int16_t xb_fb_i16 (XbFb *fb, XbFbTable t, unsigned slot, int16_t def);
uint32_t xb_fb_u32 (XbFb *fb, XbFbTable t, unsigned slot, uint32_t def);
int32_t xb_fb_i32 (XbFb *fb, XbFbTable t, unsigned slot, int32_t def);
uint64_t xb_fb_u64 (XbFb *fb, XbFbTable t, unsigned slot, uint64_t def);
float xb_fb_f32 (XbFb *fb, XbFbTable t, unsigned slot, float def);

/* Reference fields: 0 / empty when absent. */
XbFbTable xb_fb_table (XbFb *fb, XbFbTable t, unsigned slot, const char *what);
XbFbVector xb_fb_vector (XbFb *fb, XbFbTable t, unsigned slot, size_t elem_size, const char *what);
/* A string as a pointer and length (not NUL-terminated in the buffer is refused). */
bool xb_fb_string (XbFb *fb, XbFbTable t, unsigned slot, const char **s, uint32_t *len, const char *what);

/* Elements of a vector (index checked against count). */
uint32_t xb_fb_vec_u32 (XbFb *fb, XbFbVector v, uint32_t i);
float xb_fb_vec_f32 (XbFb *fb, XbFbVector v, uint32_t i);
XbFbTable xb_fb_vec_table (XbFb *fb, XbFbVector v, uint32_t i, const char *what);
