/* executorch-error.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_H_INSIDE__) && !defined(EXECUTORCH_COMPILATION)
#error "Only <executorch/executorch.h> can be included directly."
#endif

#include <gio/gio.h>

#include "executorch-visibility.h"
#include "executorch-enums.h"

G_BEGIN_DECLS

/**
 * EXECUTORCH_ERROR:
 *
 * The error domain of the runtime.  Its codes are [error@Executorch.Error].
 *
 * Since: 1.0
 */
#define EXECUTORCH_ERROR (executorch_error_quark ())

/**
 * EXECUTORCH_PLUGIN_ERROR:
 *
 * The error domain of plug-in loading.  Its codes are [error@Executorch.PluginError].
 *
 * Since: 1.0
 */
#define EXECUTORCH_PLUGIN_ERROR (executorch_plugin_error_quark ())

/**
 * ExecutorchError:
 * @EXECUTORCH_ERROR_FAILED: a failure with no more specific code (also used for codes added later)
 * @EXECUTORCH_ERROR_INTERNAL: an internal failure, such as a kernel that failed
 * @EXECUTORCH_ERROR_INVALID_STATE: the object is in the wrong state for the call
 * @EXECUTORCH_ERROR_END_OF_METHOD: stepping past the last instruction
 * @EXECUTORCH_ERROR_ALREADY_LOADED: the resource is already loaded
 * @EXECUTORCH_ERROR_NOT_SUPPORTED: the program uses a feature the runtime does not support
 * @EXECUTORCH_ERROR_NOT_IMPLEMENTED: the operation is not implemented
 * @EXECUTORCH_ERROR_INVALID_ARGUMENT: a caller-supplied value is wrong (type, shape, index)
 * @EXECUTORCH_ERROR_INVALID_TYPE: a value has the wrong type for the operation
 * @EXECUTORCH_ERROR_OPERATOR_MISSING: no kernel is registered for an operator the program uses
 * @EXECUTORCH_ERROR_REGISTRATION_EXCEEDING_MAX_KERNELS: the kernel table is full
 * @EXECUTORCH_ERROR_REGISTRATION_ALREADY_REGISTERED: an operator, backend or allocator was registered twice
 * @EXECUTORCH_ERROR_NOT_FOUND: a method, backend, key or allocator does not exist
 * @EXECUTORCH_ERROR_MEMORY_ALLOCATION_FAILED: memory could not be allocated, or a planned offset is out of range
 * @EXECUTORCH_ERROR_ACCESS_FAILED: a resource could not be read (a file that cannot be opened is a #GIOErrorEnum)
 * @EXECUTORCH_ERROR_INVALID_PROGRAM: the program file is malformed
 * @EXECUTORCH_ERROR_INVALID_EXTERNAL_DATA: an external data file is malformed or does not match the program
 * @EXECUTORCH_ERROR_OUT_OF_RESOURCES: not enough resources
 * @EXECUTORCH_ERROR_DELEGATE_INVALID_COMPATIBILITY: a backend cannot handle this payload version
 * @EXECUTORCH_ERROR_DELEGATE_MEMORY_ALLOCATION_FAILED: a backend could not allocate memory
 * @EXECUTORCH_ERROR_DELEGATE_INVALID_HANDLE: a backend handle is not valid
 *
 * Errors of the runtime.  Apart from %EXECUTORCH_ERROR_FAILED the values are upstream ExecuTorch's
 * `runtime::Error` codes, so a number in a log means the same thing in both.
 * The enumeration may grow.  Cancelled executions report %G_IO_ERROR_CANCELLED, and a
 * file that cannot be opened reports the #GIOErrorEnum of its errno
 * (%G_IO_ERROR_NOT_FOUND when it does not exist).
 *
 * Since: 1.0
 */
typedef enum
{
  EXECUTORCH_ERROR_FAILED = 0xff,
  EXECUTORCH_ERROR_INTERNAL = 0x01,
  EXECUTORCH_ERROR_INVALID_STATE = 0x02,
  EXECUTORCH_ERROR_END_OF_METHOD = 0x03,
  EXECUTORCH_ERROR_ALREADY_LOADED = 0x04,
  EXECUTORCH_ERROR_NOT_SUPPORTED = 0x10,
  EXECUTORCH_ERROR_NOT_IMPLEMENTED = 0x11,
  EXECUTORCH_ERROR_INVALID_ARGUMENT = 0x12,
  EXECUTORCH_ERROR_INVALID_TYPE = 0x13,
  EXECUTORCH_ERROR_OPERATOR_MISSING = 0x14,
  EXECUTORCH_ERROR_REGISTRATION_EXCEEDING_MAX_KERNELS = 0x15,
  EXECUTORCH_ERROR_REGISTRATION_ALREADY_REGISTERED = 0x16,
  EXECUTORCH_ERROR_NOT_FOUND = 0x20,
  EXECUTORCH_ERROR_MEMORY_ALLOCATION_FAILED = 0x21,
  EXECUTORCH_ERROR_ACCESS_FAILED = 0x22,
  EXECUTORCH_ERROR_INVALID_PROGRAM = 0x23,
  EXECUTORCH_ERROR_INVALID_EXTERNAL_DATA = 0x24,
  EXECUTORCH_ERROR_OUT_OF_RESOURCES = 0x25,
  EXECUTORCH_ERROR_DELEGATE_INVALID_COMPATIBILITY = 0x30,
  EXECUTORCH_ERROR_DELEGATE_MEMORY_ALLOCATION_FAILED = 0x31,
  EXECUTORCH_ERROR_DELEGATE_INVALID_HANDLE = 0x32,
} ExecutorchError;

/**
 * ExecutorchPluginError:
 * @EXECUTORCH_PLUGIN_ERROR_FAILED: another failure
 * @EXECUTORCH_PLUGIN_ERROR_MANIFEST: a module manifest could not be read
 * @EXECUTORCH_PLUGIN_ERROR_OPEN: the plug-in library could not be opened
 * @EXECUTORCH_PLUGIN_ERROR_SYMBOL: the entry point is missing from the library
 * @EXECUTORCH_PLUGIN_ERROR_ABI: the plug-in was built for another plug-in ABI
 * @EXECUTORCH_PLUGIN_ERROR_INIT: the plug-in's initialisation failed
 *
 * Errors met while loading plug-ins.
 *
 * Since: 1.0
 */
typedef enum
{
  EXECUTORCH_PLUGIN_ERROR_FAILED,
  EXECUTORCH_PLUGIN_ERROR_MANIFEST,
  EXECUTORCH_PLUGIN_ERROR_OPEN,
  EXECUTORCH_PLUGIN_ERROR_SYMBOL,
  EXECUTORCH_PLUGIN_ERROR_ABI,
  EXECUTORCH_PLUGIN_ERROR_INIT,
} ExecutorchPluginError;

EXECUTORCH_AVAILABLE_IN_1_0
GQuark executorch_error_quark (void);
EXECUTORCH_AVAILABLE_IN_1_0
GQuark executorch_plugin_error_quark (void);

G_END_DECLS
