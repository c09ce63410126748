#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An example of examples/ generates upstream's greedy text of a fixture.

    check_llm_examples.py MANIFEST.json COMMAND [ARG]...

Runs COMMAND MODEL.pte TOKENIZER PROMPT MAX_NEW_TOKENS on the first
fixture that needs nothing special and checks that its standard output is
the text upstream's runner generated, then a newline.
"""
import json
import os
import subprocess
import sys

manifest_path, command = sys.argv[1], sys.argv[2:]
here = os.path.dirname(manifest_path)
manifest = json.load(open(manifest_path))
fixture = next(f for f in manifest["fixtures"] if not f.get("needs"))
case = fixture["cases"][0]
done = subprocess.run(command + [os.path.join(here, fixture["pte"]), os.path.join(here, manifest["tokenizer"]),
                                 case["prompt"], str(manifest["max_new_tokens"])],
                      capture_output=True, text=True, timeout=120)
sys.stderr.write(done.stderr)
if done.returncode != 0:
    sys.exit(f"{command[-1]} exited with {done.returncode}")
if done.stdout != case["text"] + "\n":
    sys.exit(f"{command[-1]} wrote {done.stdout!r}, upstream's runner {case['text']!r}")
print(f"{os.path.basename(command[-1])}: upstream's text of {fixture['name']}")
