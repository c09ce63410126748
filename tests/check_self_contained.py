#!/usr/bin/env python3
"""Fails when a tracked file points outside the source tree.

Usage: check_self_contained.py SOURCE_ROOT

A clone with nothing beside it must build and pass its tests, so no file
that git tracks may name a folder of the machine it was written on or a
sibling folder of the checkout: the strings in NEEDLES below.  Test data
lives in the tree (tests/upstream, tests/models); the export python comes
from -Dexport_python or EXECUTORCH_EXPORT_PYTHON.

Outside a git checkout of SOURCE_ROOT itself (a release tarball, or a copy
inside another repository) there is no list of tracked files: the test is
skipped (exit status 77).
"""

import os
import subprocess
import sys

SKIP = 77

# Built from pieces, so that this file does not name them itself.
NEEDLES = [
    "/" + "work" + "/",
    ".." + "/" + "shared",
    "shared" + "/" + "testdata",
    "shared" + "/" + "docs",
]


def tracked_files(root):
    """The files git tracks in ROOT, or None when ROOT is not the top of a checkout."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True)
    except FileNotFoundError:
        return None
    if top.returncode != 0 or os.path.realpath(top.stdout.strip()) != os.path.realpath(root):
        return None
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
    return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]


def hits(path, needles):
    """(line number, needle) for each needle on each line of PATH."""
    with open(path, "rb") as f:
        data = f.read()
    found = []
    for needle in needles:
        start = 0
        while True:
            at = data.find(needle, start)
            if at < 0:
                break
            found.append((data.count(b"\n", 0, at) + 1, needle.decode()))
            start = at + len(needle)
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    files = tracked_files(root)
    if files is None:
        print("self-contained: %s is not the top of a git checkout; skipped" % root)
        return SKIP
    needles = [n.encode() for n in NEEDLES]
    failures = []
    checked = 0
    for name in files:
        path = os.path.join(root, name)
        if os.path.islink(path):
            target = os.readlink(path)
            failures += ["%s: links to %s" % (name, target) for n in NEEDLES if n in target][:1]
            checked += 1
            continue
        # A tracked file deleted in the working tree: nothing to read.
        if not os.path.isfile(path):
            continue
        checked += 1
        failures += ["%s:%d: names %s" % (name, line, needle) for line, needle in hits(path, needles)]
    print("self-contained: %d tracked files checked for %s" % (checked, ", ".join(NEEDLES)))
    for failure in failures:
        print("FAIL " + failure)
    if checked == 0:
        print("FAIL no tracked file found under %s" % root)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
