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
} XnnFb;

/* A table position (0 = absent). */
typedef uint32_t XnnFbTable;

typedef struct {
  uint32_t pos;     /* position of the first element */
  uint32_t count;
} XnnFbVector;

void xnn_fb_init (XnnFb *fb, const void *data, size_t size);
void xnn_fb_fail (XnnFb *fb, const char *format, ...) __attribute__ ((format (printf, 2, 3)));

XnnFbTable xnn_fb_root (XnnFb *fb, const char *what);

/* Scalar fields: @def when absent. */
uint8_t xnn_fb_u8 (XnnFb *fb, XnnFbTable t, unsigned slot, uint8_t def);
int16_t xnn_fb_i16 (XnnFb *fb, XnnFbTable t, unsigned slot, int16_t def);
uint32_t xnn_fb_u32 (XnnFb *fb, XnnFbTable t, unsigned slot, uint32_t def);
int32_t xnn_fb_i32 (XnnFb *fb, XnnFbTable t, unsigned slot, int32_t def);
uint64_t xnn_fb_u64 (XnnFb *fb, XnnFbTable t, unsigned slot, uint64_t def);
float xnn_fb_f32 (XnnFb *fb, XnnFbTable t, unsigned slot, float def);

/* Reference fields: 0 / empty when absent. */
XnnFbTable xnn_fb_table (XnnFb *fb, XnnFbTable t, unsigned slot, const char *what);
XnnFbVector xnn_fb_vector (XnnFb *fb, XnnFbTable t, unsigned slot, size_t elem_size, const char *what);
/* A string as a pointer and length (not NUL-terminated in the buffer is refused). */
bool xnn_fb_string (XnnFb *fb, XnnFbTable t, unsigned slot, const char **s, uint32_t *len, const char *what);

/* Elements of a vector (index checked against count). */
uint32_t xnn_fb_vec_u32 (XnnFb *fb, XnnFbVector v, uint32_t i);
float xnn_fb_vec_f32 (XnnFb *fb, XnnFbVector v, uint32_t i);
XnnFbTable xnn_fb_vec_table (XnnFb *fb, XnnFbVector v, uint32_t i, const char *what);
