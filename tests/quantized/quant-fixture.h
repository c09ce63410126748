/* quant-fixture.h: a committed quantized fixture, loaded with the plug-in's rewrites or the reference path, and its cases
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "../../tools/npy.h"

#include <executorch.h>

/* TEST_MODELS_DIR/quant/@fixture/@name. */
NpyArray quant_fixture_npy (const char *fixture, const char *name);
/* @fixture's forward method, loaded with EXECUTORCH_QUANTIZED_REFERENCE=1
 * when @reference (the plug-in then leaves it as exported). */
ExecutorchMethod *quant_fixture_load (const char *fixture, gboolean reference);
/* Output @output of @method run on the one input @in, as bytes. */
GBytes *quant_fixture_run (ExecutorchMethod *method, const NpyArray *in, guint output);
