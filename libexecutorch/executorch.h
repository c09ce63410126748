/* executorch.h: the one header applications include
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#define __EXECUTORCH_H_INSIDE__

#include <glib-object.h>
#include <gio/gio.h>

#include "executorch-visibility.h"
#include "executorch-version.h"
#include "executorch-enums.h"
#include "executorch-enum-types.h"
#include "executorch-error.h"
#include "executorch-device.h"
#include "executorch-tensor.h"
#include "executorch-value-info.h"
#include "executorch-method-info.h"
#include "executorch-profile-event.h"
#include "executorch-method.h"
#include "executorch-program.h"
#include "executorch-bundled-program.h"
#include "executorch-registry.h"

#undef __EXECUTORCH_H_INSIDE__
