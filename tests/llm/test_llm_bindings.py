#!/usr/bin/python3
"""ExecutorchLlm-1.0 through PyGObject: the typelib loads on top of
Executorch-1.0, the config's properties and defaults, the error domains,
and a generator refusing a program without metadata."""
import os
import sys

import gi

gi.require_version("ExecutorchLlm", "1.0")
from gi.repository import Executorch, ExecutorchLlm, GLib  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    print(("ok " if cond else "FAIL ") + what)
    failures += 0 if cond else 1


config = ExecutorchLlm.GenerationConfig()
check(config.props.temperature == 0.8 and config.props.top_p == 0.9, "upstream's sampling defaults")
check(config.props.max_new_tokens == -1 and config.props.seed == -1, "no token limit, clock seed")
config.props.stop_strings = ["\n\n", "END"]
check(list(config.get_stop_strings()) == ["\n\n", "END"], "stop strings as a list")
config.set_temperature(0.0)
check(config.copy().get_temperature() == 0.0, "copy keeps the settings")

try:
    ExecutorchLlm.Tokenizer.new_from_bytes(GLib.Bytes.new(b"xyz"), ExecutorchLlm.TokenizerFormat.AUTO)
    check(False, "junk tokenizer refused")
except GLib.Error as e:
    check(e.matches(ExecutorchLlm.tokenizer_error_quark(), ExecutorchLlm.TokenizerError.UNKNOWN_FORMAT),
          "junk tokenizer: TokenizerError.UNKNOWN_FORMAT")

check(ExecutorchLlm.StopReason.CONTEXT_FULL == 3, "StopReason enum")
check(ExecutorchLlm.GeneratorError.PROMPT_TOO_LONG == 2, "GeneratorError enum")
stats = ExecutorchLlm.Stats()
stats.num_prompt_tokens = 10
stats.inference_start_ms, stats.prompt_eval_end_ms = 1000, 1004
check(stats.to_json().startswith('{"prefill_token_per_sec":2500,'), "Stats.to_json from Python")
program = Executorch.Program.new_from_file(os.path.join(sys.argv[1], "nets", "llama", "llama.pte"))
tokenizer = ExecutorchLlm.Tokenizer.new_from_file(os.path.join(sys.argv[1], "llm", "tokenizer.json"))
check(tokenizer.props.vocab_size == 512, "the fixture's tokenizer.json: 512 tokens")
try:
    ExecutorchLlm.Generator.new_for_program(program, tokenizer, None)
    check(False, "a program without metadata refused")
except GLib.Error as e:
    check(e.matches(ExecutorchLlm.generator_error_quark(), ExecutorchLlm.GeneratorError.INVALID_PROGRAM)
          and "get_max_seq_len" in e.message, f"a program without metadata: {e.message}")
# Made with properties (no init): the failure comes back from generate.
generator = ExecutorchLlm.Generator(program=program, tokenizer=tokenizer)
try:
    generator.generate("Hi", None, None)
    check(False, "generate on a failed generator refused")
except GLib.Error as e:
    check(e.matches(ExecutorchLlm.generator_error_quark(), ExecutorchLlm.GeneratorError.INVALID_PROGRAM),
          "Generator(program=, tokenizer=) without init: generate raises the setup error")
sys.exit(1 if failures else 0)
