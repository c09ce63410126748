#!/usr/bin/env python3
"""Fails when the library builds a GError past the one helper.

Usage: check_errors.py SOURCE_ROOT

Every GError the library makes comes from the helpers in
libexecutorch/engine/error.c (_et_set_error, _et_set_error_domain,
_et_prefix_error), which make the message valid UTF-8 whatever names a
hostile file put in it.  So no other C file in libexecutorch/ (the GObject
layer) may call GLib's builders (g_set_error, g_set_error_literal,
g_error_new, g_prefix_error, g_cancellable_set_error_if_cancelled, ...);
comments and strings may name them.  Passing an error on (g_propagate_error,
g_error_copy) is fine.

A message must not end with a bare numeric code, "... (%d)": the code is in
the GError already, and the words say what it means.

The engine (libexecutorch/engine/) is checked too; ALLOWED names the one
file that may keep its own calls, and how many.
"""

import os
import re
import sys

HELPER = os.path.join("libexecutorch", "engine", "error.c")
STRICT = ["libexecutorch", os.path.join("libexecutorch", "engine")]
REPORTED = []
# The FlatBuffers reader is also compiled into the XNNPACK plug-in, which
# cannot reach the engine's private helper: it keeps one call of its own.
ALLOWED = {os.path.join("libexecutorch", "engine", "flatbuffer.c"): 1}

BUILDERS = re.compile(
    r"\b(g_set_error(?:_literal)?|g_error_new(?:_literal|_valist)?|g_prefix_error(?:_literal)?"
    r"|g_propagate_prefixed_error|g_cancellable_set_error_if_cancelled|g_task_return_new_error)\s*\(")
# A string literal that ends with a bare code in brackets: "... (%d)".
BARE_CODE = re.compile(r'\(\s*(?:0x)?%[-+ #0-9]*(?:h|hh|l|ll|z)?[diux]\s*\)"')
# Comments, string and character literals, in one pass so that each hides the others.
TOKENS = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def blank(match):
    """Keeps a comment's or literal's newlines (for line numbers) and quotes, drops the rest."""
    text = match.group(0)
    if text.startswith('"'):
        return '""'
    return re.sub(r"[^\n]", " ", text)


def c_files(root, folder):
    top = os.path.join(root, folder)
    return sorted(os.path.join(folder, name) for name in os.listdir(top) if name.endswith(".c"))


def builder_calls(root, name):
    with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
        code = TOKENS.sub(blank, f.read())
    return [(code.count("\n", 0, m.start()) + 1, m.group(1)) for m in BUILDERS.finditer(code)]


def bare_codes(root, name):
    with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
        text = f.read()
    return [text.count("\n", 0, m.start()) + 1 for m in BARE_CODE.finditer(text)]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    failures = []
    checked = 0
    for folder in STRICT:
        for name in c_files(root, folder):
            if name == HELPER:
                continue
            checked += 1
            calls = builder_calls(root, name)
            if len(calls) > ALLOWED.get(name, 0):
                failures += ["%s:%d: calls %s; use _et_set_error or _et_set_error_domain (engine/error.c)"
                             % (name, line, what) for line, what in calls]
            failures += ["%s:%d: a message ends with a bare code in brackets" % (name, line)
                         for line in bare_codes(root, name)]
    print("errors: %d files checked for direct GError builders" % checked)
    for folder in REPORTED:
        for name in c_files(root, folder):
            if name == HELPER:
                continue
            for line, what in builder_calls(root, name):
                print("note %s:%d: calls %s (not checked yet)" % (name, line, what))
    for failure in failures:
        print("FAIL " + failure)
    if checked == 0:
        print("FAIL no C file found under %s" % ", ".join(STRICT))
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
