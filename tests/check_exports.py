#!/usr/bin/python3
"""Checks that each library exports only its public API.

Usage: check_exports.py LIBRARY REGEX [LIBRARY REGEX ...]
Every dynamic symbol a LIBRARY defines must match its REGEX.
"""
import re
import subprocess
import sys

failed = 0
checked = 0
args = sys.argv[1:]
for library, pattern in zip(args[0::2], args[1::2]):
    out = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True, check=True).stdout
    symbols = [line.split()[-1] for line in out.splitlines() if line.strip()]
    bad = [s for s in symbols if not re.fullmatch(pattern, s)]
    checked += 1
    if not symbols:
        print(f"FAIL {library}: exports nothing")
        failed += 1
    elif bad:
        print(f"FAIL {library}: {len(bad)} symbols outside the public API: {', '.join(bad[:10])}")
        failed += 1
    else:
        print(f"ok {library}: {len(symbols)} symbols, all public")
print(f"{checked - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
