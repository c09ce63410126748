/* program-private.h: what the method loader reads from a program (private)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "engine.h"
#include "flatbuffer.h"

/* Slots of the .pte schema tables we read (see docs/format notes). */
enum
{
  PROGRAM_VERSION,
  PROGRAM_EXECUTION_PLAN,
  PROGRAM_CONSTANT_BUFFER,
  PROGRAM_BACKEND_DELEGATE_DATA,
  PROGRAM_SEGMENTS,
  PROGRAM_CONSTANT_SEGMENT,
  PROGRAM_MUTABLE_DATA_SEGMENTS,
  PROGRAM_NAMED_DATA
};
enum
{
  PLAN_NAME,
  PLAN_CONTAINER_META_TYPE,
  PLAN_VALUES,
  PLAN_INPUTS,
  PLAN_OUTPUTS,
  PLAN_CHAINS,
  PLAN_OPERATORS,
  PLAN_DELEGATES,
  PLAN_NON_CONST_BUFFER_SIZES,
  PLAN_NON_CONST_BUFFER_DEVICE
};

/* The extended header ("eh00") after the file identifier. */
typedef struct
{
  gboolean present;
  guint32 length;
  guint64 program_size;
  guint64 segment_base_offset;
  guint64 segment_data_size;
} EtPteHeader;

gboolean _et_pte_header_parse (const guint8 *data, gsize size, EtPteHeader *header, GError **error);

/* A tensor's description as stored in the program. */
typedef struct
{
  int8_t scalar_type;
  uint32_t ndim;
  int64_t sizes[ET_MAX_DIMS];
  uint8_t dim_order[ET_MAX_DIMS];
  uint8_t shape_dynamism;
  uint32_t data_buffer_idx;
  gboolean has_allocation;
  uint32_t memory_id;
  guint64 memory_offset;
  gboolean external;
  const char *fully_qualified_name; /* NULL when absent */
  int8_t device_type;
  int8_t device_index;
  int64_t numel;
  size_t nbytes;
} EtTensorDesc;

/* Reads and validates a Tensor table (value @index, for messages). */
gboolean _et_tensor_desc_read (EtFb *fb, EtFbTable tensor, guint index, EtTensorDesc *desc);

/* Maps the KernelTypes union tag of an EValue to an EtValueTag; -1 if invalid. */
int _et_value_tag_from_union (guint8 union_type);

/* One entry of a .ptd file or of the program's own named data. */
typedef struct
{
  char *key;
  const guint8 *data;
  gsize size;
  gboolean has_layout;
  int8_t scalar_type;
  uint32_t ndim;
  int64_t sizes[ET_MAX_DIMS];
  uint8_t dim_order[ET_MAX_DIMS];
} EtNamedBlob;

typedef struct
{
  GBytes *bytes;
  guint n_blobs;
  EtNamedBlob *blobs;
} EtPtd;

EtPtd *_et_ptd_load (GBytes *bytes, GError **error);
void _et_ptd_free (EtPtd *ptd);

/* A fresh reader over the program's FlatBuffer region (one per thread). */
void _et_program_reader (EtProgram *program, EtFb *fb);
gboolean _et_program_plan (EtProgram *program, EtFb *fb, const char *name, EtFbTable *plan, GError **error);
/* Bytes of constant @index, at least @nbytes long. */
gboolean _et_program_constant (EtProgram *program, guint32 index, size_t nbytes, const void **data, GError **error);
/* Initial value of mutable tensor @index; *data NULL when the program has none. */
gboolean _et_program_mutable_data (EtProgram *program, guint32 index, size_t nbytes, const void **data, GError **error);
gboolean _et_program_segment (EtProgram *program, guint32 index, const void **data, gsize *size, GError **error);
/* External (.ptd) tensor by fully qualified name; NULL with an error when absent. */
const EtNamedBlob *_et_program_external_tensor (EtProgram *program, const char *key, GError **error);
/* Any named blob: external data first, then the program's named data. */
const EtNamedBlob *_et_program_named_blob (EtProgram *program, const char *key);
/* The processed payload a BackendDelegateDataReference points at. */
gboolean _et_program_delegate_data (EtProgram *program, EtFb *fb, EtFbTable reference, const void **data, gsize *size,
                                    GError **error);
