#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Streams greedy text from an exported language model.

    python3 generate.py MODEL.pte TOKENIZER PROMPT [MAX_NEW_TOKENS]
"""
import sys

import gi
gi.require_version("ExecutorchLlm", "1.0")
from gi.repository import ExecutorchLlm  # noqa: E402

model, tokenizer_path, prompt = sys.argv[1:4]
max_new_tokens = int(sys.argv[4]) if len(sys.argv) > 4 else 64

tokenizer = ExecutorchLlm.Tokenizer.new_from_file(tokenizer_path)
generator = ExecutorchLlm.Generator.new(model, tokenizer=tokenizer)
for piece in generator.generate_stream(prompt, max_new_tokens=max_new_tokens, temperature=0):
    print(piece, end="", flush=True)
print()
