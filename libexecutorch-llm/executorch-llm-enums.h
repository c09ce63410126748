/* executorch-llm-enums.h: enumerations and error domains of libexecutorch-llm
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(__EXECUTORCH_LLM_H_INSIDE__) && !defined(EXECUTORCH_LLM_COMPILATION)
#error "Only <executorch-llm/executorch-llm.h> can be included directly."
#endif

#include <glib-object.h>

#include "executorch-llm-visibility.h"

G_BEGIN_DECLS

/**
 * ExecutorchLlmTokenizerFormat:
 * @EXECUTORCH_LLM_TOKENIZER_FORMAT_AUTO: detect the format from the file's bytes
 * @EXECUTORCH_LLM_TOKENIZER_FORMAT_HUGGING_FACE: a Hugging Face `tokenizer.json`
 * @EXECUTORCH_LLM_TOKENIZER_FORMAT_TIKTOKEN: a tiktoken file (`<base64> <rank>` lines, as Llama 3's
 *   `tokenizer.model`)
 * @EXECUTORCH_LLM_TOKENIZER_FORMAT_SENTENCEPIECE: a SentencePiece model (protobuf, as Llama 2's
 *   `tokenizer.model`)
 * @EXECUTORCH_LLM_TOKENIZER_FORMAT_LLAMA2C: a llama2.c `tokenizer.bin`
 *
 * The tokenizer file formats that upstream ExecuTorch's text runner reads.
 * The enumeration may grow.
 *
 * Since: 1.0
 */
typedef enum
{
  EXECUTORCH_LLM_TOKENIZER_FORMAT_AUTO = 0,
  EXECUTORCH_LLM_TOKENIZER_FORMAT_HUGGING_FACE = 1,
  EXECUTORCH_LLM_TOKENIZER_FORMAT_TIKTOKEN = 2,
  EXECUTORCH_LLM_TOKENIZER_FORMAT_SENTENCEPIECE = 3,
  EXECUTORCH_LLM_TOKENIZER_FORMAT_LLAMA2C = 4,
} ExecutorchLlmTokenizerFormat;

/**
 * ExecutorchLlmTokenizerError:
 * @EXECUTORCH_LLM_TOKENIZER_ERROR_MALFORMED: the file is not a valid file of its format
 * @EXECUTORCH_LLM_TOKENIZER_ERROR_UNSUPPORTED: the file is valid but uses something this library
 *   does not implement, or a BOS/EOS token was asked for that the tokenizer does not have
 * @EXECUTORCH_LLM_TOKENIZER_ERROR_UNKNOWN_FORMAT: the file is of no known tokenizer format
 * @EXECUTORCH_LLM_TOKENIZER_ERROR_INVALID_TOKEN: a token id outside the vocabulary
 * @EXECUTORCH_LLM_TOKENIZER_ERROR_INVALID_TEXT: text that is not valid UTF-8
 *
 * Errors of the %EXECUTORCH_LLM_TOKENIZER_ERROR domain.  A file that cannot be
 * read at all gives a #GFileError instead.  The enumeration may grow.
 *
 * Since: 1.0
 */
typedef enum
{
  EXECUTORCH_LLM_TOKENIZER_ERROR_MALFORMED = 0,
  EXECUTORCH_LLM_TOKENIZER_ERROR_UNSUPPORTED = 1,
  EXECUTORCH_LLM_TOKENIZER_ERROR_UNKNOWN_FORMAT = 2,
  EXECUTORCH_LLM_TOKENIZER_ERROR_INVALID_TOKEN = 3,
  EXECUTORCH_LLM_TOKENIZER_ERROR_INVALID_TEXT = 4,
} ExecutorchLlmTokenizerError;

/**
 * EXECUTORCH_LLM_TOKENIZER_ERROR:
 *
 * The error domain of tokenizers; codes are #ExecutorchLlmTokenizerError.
 *
 * Since: 1.0
 */
#define EXECUTORCH_LLM_TOKENIZER_ERROR (executorch_llm_tokenizer_error_quark ())
EXECUTORCH_LLM_AVAILABLE_IN_1_0
GQuark executorch_llm_tokenizer_error_quark (void);

/**
 * ExecutorchLlmGeneratorError:
 * @EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_PROGRAM: the program is not a text-generation program
 *   this library can drive: no `forward` method, no `get_max_seq_len` metadata method, a metadata
 *   value out of range, or inputs and outputs of unexpected kinds, types or shapes
 * @EXECUTORCH_LLM_GENERATOR_ERROR_VOCABULARY_MISMATCH: the tokenizer has more tokens than the
 *   model's logits row has entries
 * @EXECUTORCH_LLM_GENERATOR_ERROR_PROMPT_TOO_LONG: the prompt does not fit in the rest of the
 *   context (the KV cache, or the token input of a program without one)
 * @EXECUTORCH_LLM_GENERATOR_ERROR_CONTEXT_FULL: the context is already full: nothing can be
 *   generated before [method@ExecutorchLlm.Generator.reset]
 * @EXECUTORCH_LLM_GENERATOR_ERROR_EMPTY_PROMPT: the prompt encodes to no token
 * @EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_CONFIG: a generation setting is out of range
 * @EXECUTORCH_LLM_GENERATOR_ERROR_BUSY: the generator is already generating (in another thread, or
 *   from a signal handler of the running generation)
 * @EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_TOKEN: a prompt token id is not below the tokenizer's
 *   vocabulary size
 *
 * Errors of the %EXECUTORCH_LLM_GENERATOR_ERROR domain.  Failures of the model
 * itself come in the %EXECUTORCH_ERROR domain, cancellation as
 * %G_IO_ERROR_CANCELLED.  The enumeration may grow.
 *
 * Since: 1.0
 */
typedef enum
{
  EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_PROGRAM = 0,
  EXECUTORCH_LLM_GENERATOR_ERROR_VOCABULARY_MISMATCH = 1,
  EXECUTORCH_LLM_GENERATOR_ERROR_PROMPT_TOO_LONG = 2,
  EXECUTORCH_LLM_GENERATOR_ERROR_CONTEXT_FULL = 3,
  EXECUTORCH_LLM_GENERATOR_ERROR_EMPTY_PROMPT = 4,
  EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_CONFIG = 5,
  EXECUTORCH_LLM_GENERATOR_ERROR_BUSY = 6,
  EXECUTORCH_LLM_GENERATOR_ERROR_INVALID_TOKEN = 7,
} ExecutorchLlmGeneratorError;

/**
 * EXECUTORCH_LLM_GENERATOR_ERROR:
 *
 * The error domain of generators; codes are #ExecutorchLlmGeneratorError.
 *
 * Since: 1.0
 */
#define EXECUTORCH_LLM_GENERATOR_ERROR (executorch_llm_generator_error_quark ())
EXECUTORCH_LLM_AVAILABLE_IN_1_0
GQuark executorch_llm_generator_error_quark (void);

/**
 * ExecutorchLlmStopReason:
 * @EXECUTORCH_LLM_STOP_REASON_NONE: nothing has been generated yet
 * @EXECUTORCH_LLM_STOP_REASON_EOS: the model produced an end-of-sequence token
 * @EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS: the number of new tokens asked for was reached
 * @EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL: the context (the KV cache, or the token input of a
 *   program without one) is full
 * @EXECUTORCH_LLM_STOP_REASON_STOP_STRING: the text reached one of the stop strings
 * @EXECUTORCH_LLM_STOP_REASON_STOPPED: [method@ExecutorchLlm.Generator.stop] was called
 *
 * Why the last generation ended.  The enumeration may grow.
 *
 * Since: 1.0
 */
typedef enum
{
  EXECUTORCH_LLM_STOP_REASON_NONE = 0,
  EXECUTORCH_LLM_STOP_REASON_EOS = 1,
  EXECUTORCH_LLM_STOP_REASON_MAX_NEW_TOKENS = 2,
  EXECUTORCH_LLM_STOP_REASON_CONTEXT_FULL = 3,
  EXECUTORCH_LLM_STOP_REASON_STOP_STRING = 4,
  EXECUTORCH_LLM_STOP_REASON_STOPPED = 5,
} ExecutorchLlmStopReason;

G_END_DECLS
