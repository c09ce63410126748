#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""executorch-generate against the tiny llama fixtures (tests/models/llm).

    check_generate_cli.py EXECUTORCH-GENERATE MANIFEST.json [MAN-PAGE]

For each fixture that "needs" nothing (Debian 12's XNNPACK lacks dynamic
quantization: the fixtures needing it are checked by the fixtures' own test
where it is there) and each recorded case, the greedy text equals what upstream's
TextLLMRunner generated (manifest "text"), and only it is on standard
output.  Then, on the first fixture: --prompt -, --stats (upstream's field
names and PyTorchObserver JSON), --stop, --seed, --echo, --chat with /reset,
the exit status and one-line message of bad invocations, and (given the
man page) that it documents every option --help lists.
"""
import json
import os
import re
import subprocess
import sys

GENERATE, MANIFEST = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(MANIFEST))
manifest = json.load(open(MANIFEST))
TOKENIZER = os.path.join(HERE, manifest["tokenizer"])
N = manifest["max_new_tokens"]
failures = []
checks = 0


def run(*args, stdin=None):
    env = dict(os.environ, EXECUTORCH_NUM_THREADS="1")
    return subprocess.run([GENERATE, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120)


def check(condition, what):
    global checks
    checks += 1
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def greedy(pte, prompt, *extra):
    return run(pte, "--tokenizer", TOKENIZER, "--prompt", prompt, "--temperature", "0", "--max-new-tokens", str(N),
               *extra)


FIXTURES = [f for f in manifest["fixtures"] if not f.get("needs")]
check(len(FIXTURES) > 0, "the manifest has fixtures that need nothing special")
for fixture in FIXTURES:
    pte = os.path.join(HERE, fixture["pte"])
    for case in fixture["cases"]:
        result = greedy(pte, case["prompt"])
        check(result.returncode == 0, f"{fixture['name']} {case['prompt']!r}: exit {result.returncode} "
                                      f"{result.stderr.strip()}")
        check(result.stdout == case["text"] + "\n",
              f"{fixture['name']} {case['prompt']!r}: {result.stdout!r} is upstream's {case['text']!r}")

first = FIXTURES[0]
pte = os.path.join(HERE, first["pte"])
case = first["cases"][0]
expected = case["text"]

# The prompt from standard input (one final newline dropped).
result = run(pte, "-k", TOKENIZER, "-p", "-", "--temperature", "0", "-n", str(N), stdin=case["prompt"] + "\n")
check(result.returncode == 0 and result.stdout == expected + "\n", f"--prompt -: {result.stdout!r}")

# --stats: upstream's names on standard error, nothing more on standard output.
result = greedy(pte, case["prompt"], "--stats")
check(result.stdout == expected + "\n", "--stats leaves standard output to the text")
fields = dict(line.split(": ", 1) for line in result.stderr.splitlines() if ": " in line and
              not line.startswith("PyTorchObserver"))
check(fields.get("prompt_tokens") == str(len(case["prompt_ids"])), f"--stats prompt_tokens: {fields}")
check(fields.get("generated_tokens") == str(N - 1), f"--stats generated_tokens (upstream leaves out the first): {fields}")
check(fields.get("stop_reason") == "max-new-tokens", f"--stats stop_reason: {fields}")
observer = [line for line in result.stderr.splitlines() if line.startswith("PyTorchObserver ")]
check(len(observer) == 1, f"one PyTorchObserver line: {result.stderr!r}")
if observer:
    report = json.loads(observer[0][len("PyTorchObserver "):])
    check(report["prompt_tokens"] == len(case["prompt_ids"]) and report["generated_tokens"] == N - 1,
          f"PyTorchObserver counts: {report}")
    check(list(report)[-1] == "SCALING_FACTOR_UNITS_PER_SECOND" and report["SCALING_FACTOR_UNITS_PER_SECOND"] == 1000,
          f"PyTorchObserver ends with the scaling factor: {report}")

# --stop: the text ends before the stop string, which is not written.
stop = expected.strip().split()[2]
result = greedy(pte, case["prompt"], "--stop", stop)
check(result.returncode == 0 and result.stdout == expected[:expected.index(stop)] + "\n",
      f"--stop {stop!r}: {result.stdout!r}")

# --echo: the prompt first.
result = greedy(pte, case["prompt"], "--echo")
check(result.stdout == case["prompt"] + expected + "\n", f"--echo: {result.stdout!r}")

# Sampling with a seed is repeatable; --top-k 1 is greedy.
sampled = [run(pte, "-k", TOKENIZER, "-p", case["prompt"], "-n", "12", "--seed", "7", "--temperature", "1").stdout
           for _ in range(2)]
check(sampled[0] == sampled[1] and sampled[0].strip(), f"--seed 7 twice: {sampled}")
result = run(pte, "-k", TOKENIZER, "-p", case["prompt"], "-n", str(N), "--temperature", "1", "--top-k", "1")
check(result.stdout == expected + "\n", f"--top-k 1 is greedy: {result.stdout!r}")

# --chat: turns go on in one context; /reset starts over, so the same
# prompt gives the same text again.
lines = f"{case['prompt']}\n{first['cases'][1]['prompt']}\n/reset\n{case['prompt']}\n"
result = run(pte, "-k", TOKENIZER, "--chat", "--temperature", "0", "-n", "8", "--stats", stdin=lines)
check(result.returncode == 0, f"--chat: exit {result.returncode} {result.stderr.strip()}")
turns = result.stdout.split("\n")[:-1]
positions = [int(p) for p in re.findall(r"^position: (\d+)$", result.stderr, re.M)]
check(len(turns) >= 3 and len(positions) == 3, f"--chat: three turns: {turns!r} {positions}")
if len(positions) == 3:
    check(positions[1] > positions[0], f"--chat: the second turn goes on after the first: {positions}")
    check(positions[2] == positions[0], f"--chat: /reset starts over: {positions}")
greedy8 = greedy(pte, case["prompt"]).stdout  # the first 8 tokens' text starts it
check(turns and greedy8.startswith(turns[0]), f"--chat: first turn {turns[:1]!r} starts {greedy8!r}")

# Bad invocations: exit status, one line naming what is wrong.
def bad(status, pattern, *args):
    result = run(*args)
    first_line = result.stderr.splitlines()[0] if result.stderr else ""
    check(result.returncode == status, f"{args}: exit {result.returncode}, not {status} ({result.stderr.strip()})")
    check(result.stdout == "", f"{args}: nothing on standard output: {result.stdout!r}")
    check(re.match(r"executorch-generate: " + pattern, first_line) is not None,
          f"{args}: message {first_line!r} !~ {pattern!r}")
    if status == 1:
        check(len(result.stderr.splitlines()) == 1, f"{args}: one line: {result.stderr!r}")


bad(1, r"missing\.pte: .*(No such file|not found)", "missing.pte", "-k", TOKENIZER, "-p", "x")
bad(1, r".*missing\.json.*(No such file|not found)", pte, "-k", "missing.json", "-p", "x")
bad(1, r".*", pte, "-k", pte, "-p", "x")  # a program is no tokenizer
bad(1, r".*tokenizer.*|.*not an ExecuTorch program", TOKENIZER, "-k", TOKENIZER, "-p", "x")
bad(1, r"the prompt has \d+ tokens", pte, "-k", TOKENIZER, "-p", "word " * 200)
bad(1, r".*BOS", pte, "-k", TOKENIZER, "-p", "x", "--bos", "1")  # the fixture's tokenizer has none
bad(2, r"no tokenizer given", pte, "-p", "x")
bad(2, r"no prompt given", pte, "-k", TOKENIZER)
bad(2, r"no program given", "-k", TOKENIZER, "-p", "x")
bad(2, r"--temperature must be a number", pte, "-k", TOKENIZER, "-p", "x", "--temperature", "warm")
bad(2, r"--temperature must be a number", pte, "-k", TOKENIZER, "-p", "x", "--temperature", "-1")
bad(2, r"--max-new-tokens must be", pte, "-k", TOKENIZER, "-p", "x", "-n", "0")
bad(2, r"--max-new-tokens must be", pte, "-k", TOKENIZER, "-p", "x", "-n", "12abc")
bad(2, r"--top-p must be", pte, "-k", TOKENIZER, "-p", "x", "--top-p", "1.5")
bad(2, r"--top-k must be", pte, "-k", TOKENIZER, "-p", "x", "--top-k", "-3")
bad(2, r"--seed must be", pte, "-k", TOKENIZER, "-p", "x", "--seed", "nan")
bad(2, r"--threads must be", pte, "-k", TOKENIZER, "-p", "x", "--threads", "many")
bad(2, r"--template must hold \{prompt\}", pte, "-k", TOKENIZER, "-p", "x", "--template", "no slot")
bad(2, r"--chat reads its prompts", pte, "-k", TOKENIZER, "--chat", "-p", "-")
bad(2, r"Unknown option", pte, "-k", TOKENIZER, "-p", "x", "--bogus")

# --help goes to standard output; the man page documents every option.
result = run("--help")
options = set(re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", result.stdout, re.M)) - {"--help", "--help-all"}
check(result.returncode == 0 and {"--tokenizer", "--prompt", "--chat", "--stats"} <= options, f"--help: {options}")
if len(sys.argv) > 3:
    man = open(sys.argv[3]).read().replace("\\-", "-")
    for option in sorted(options):
        check(option in man, f"the man page documents {option}")
    check("/reset" in man, "the man page documents /reset")

print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
