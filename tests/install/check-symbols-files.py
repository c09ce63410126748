#!/usr/bin/python3
"""Checks that debian/*.symbols list exactly what each library exports.

Usage: check-symbols-files.py SYMBOLS_FILE LIBRARY [SYMBOLS_FILE LIBRARY ...]

The package build fails on any difference (DPKG_GENSYMBOLS_CHECK_LEVEL=4 in
debian/rules); this test says the same thing sooner, in the meson suite.
After adding public API, run tests/install/update-symbols.
"""
import re
import subprocess
import sys

failed = 0
args = sys.argv[1:]
for symbols_file, library in zip(args[0::2], args[1::2]):
    out = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True,
                         check=True).stdout
    exported = {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}
    listed = set()
    with open(symbols_file) as f:
        header = f.readline().split()
        for line in f:
            m = re.match(r"^ (\S+)@Base \S+", line)
            if m:
                listed.add(m.group(1))
    soname = subprocess.run(["readelf", "-dW", library], capture_output=True, text=True, check=True).stdout
    soname = re.search(r"\(SONAME\).*\[(.*)\]", soname).group(1)
    problems = []
    if header[0] != soname:
        problems.append(f"its first line names {header[0]}, the library's SONAME is {soname}")
    if exported - listed:
        problems.append("exported but not listed (new API? run tests/install/update-symbols): " +
                        ", ".join(sorted(exported - listed)))
    if listed - exported:
        problems.append("listed but no longer exported (an ABI break needs an SONAME bump): " +
                        ", ".join(sorted(listed - exported)))
    if problems:
        failed += 1
        print(f"FAIL {symbols_file} vs {library}:\n  " + "\n  ".join(problems))
    else:
        print(f"ok {symbols_file}: {len(listed)} symbols, as {soname} exports")
sys.exit(1 if failed else 0)
