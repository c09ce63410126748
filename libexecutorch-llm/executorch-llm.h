/* executorch-llm.h: the one header applications of libexecutorch-llm include
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * pkg-config --cflags --libs executorch-llm
 */
#pragma once

#define __EXECUTORCH_LLM_H_INSIDE__

#include <executorch.h>

#include "executorch-llm-visibility.h"
#include "executorch-llm-enums.h"
#include "executorch-llm-enum-types.h"
#include "executorch-llm-tokenizer.h"
#include "executorch-llm-generation-config.h"
#include "executorch-llm-stats.h"
#include "executorch-llm-text-stream.h"
#include "executorch-llm-generator.h"

#undef __EXECUTORCH_LLM_H_INSIDE__
