#!/usr/bin/python3
"""ExecutorchLlm-1.0 against the installed packages alone (tests/install).

Usage: test_llm.py DIR, where DIR holds kv.pte (tests/llm/models) and
tokenizer.json (tests/models/llm).  Loads the tokenizer and the program
through the installed typelib, generates five greedy tokens with the
signals connected, and checks that the typelib came from the system folder.
"""
import os
import sys

import gi

gi.require_version("ExecutorchLlm", "1.0")
from gi.repository import ExecutorchLlm  # noqa: E402

folder = sys.argv[1]
typelib = gi.Repository.get_default().get_typelib_path("ExecutorchLlm")
assert typelib.startswith("/usr/lib/") and typelib.endswith("/girepository-1.0/ExecutorchLlm-1.0.typelib"), typelib

tokenizer = ExecutorchLlm.Tokenizer.new_from_file(os.path.join(folder, "tokenizer.json"))
assert tokenizer.props.format == ExecutorchLlm.TokenizerFormat.HUGGING_FACE, tokenizer.props.format
generator = ExecutorchLlm.Generator.new(os.path.join(folder, "kv.pte"), None, tokenizer, None)
config = ExecutorchLlm.GenerationConfig(temperature=0.0, max_new_tokens=5, ignore_eos=True)
tokens, pieces = [], []
generator.connect("token", lambda g, i: tokens.append(i))
generator.connect("text", lambda g, t: pieces.append(t))
text = generator.generate("Hi", config, None)
assert len(tokens) == 5 and text == "".join(pieces), (tokens, text, pieces)
assert generator.get_stop_reason() == ExecutorchLlm.StopReason.MAX_NEW_TOKENS
print(f"ok: {tokens} {text!r} {generator.get_stats().to_json()}")
