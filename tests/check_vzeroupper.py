#!/usr/bin/python3
"""Checks that no function of a library leaves the upper halves of the
vector registers dirty.

Usage: check_vzeroupper.py LIBRARY...

A function that writes YMM or ZMM registers must clear their upper halves
(vzeroupper) before it returns or jumps into other code: otherwise every
SSE instruction after it, in this library or in libm, runs slowly until
the next vzeroupper.  GCC 12 emits none before a tail call, which made a
tiny llama's decode step three times slower.  Reads objdump's disassembly;
x86-64 only (elsewhere it exits 77: skipped).
"""
import platform
import re
import subprocess
import sys

if platform.machine() not in ("x86_64", "AMD64"):
    print("skipped: not x86-64")
    sys.exit(77)

function = re.compile(r"^[0-9a-f]+ <(.+)>:$")
wide = re.compile(r"%[yz]mm\d")
failed = 0
for library in sys.argv[1:]:
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", library], capture_output=True, text=True,
                         check=True).stdout
    name, uses_wide, clears, bad, checked = None, False, False, [], 0
    for line in out.splitlines() + [""]:
        m = function.match(line)
        if m or not line:
            if name is not None and uses_wide:
                checked += 1
                if not clears:
                    bad.append(name)
            name, uses_wide, clears = (m.group(1) if m else None), False, False
            continue
        if wide.search(line):
            uses_wide = True
        if "vzeroupper" in line or "vzeroall" in line:
            clears = True
    if bad:
        print(f"FAIL {library}: {len(bad)} functions use YMM/ZMM registers without vzeroupper: {', '.join(bad)}")
        failed += 1
    else:
        print(f"ok {library}: {checked} functions use YMM/ZMM registers, each with vzeroupper")
sys.exit(1 if failed else 0)
