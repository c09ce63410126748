#!/usr/bin/python3
"""Builds quantized-outside.c outside the meson build and runs the quantized fixtures.

    run-outside.py BUILD_ROOT FIXTURE_DIR [--sanitize WHAT]

The program is compiled with `cc` and nothing but
`pkg-config --cflags --libs executorch executorch-kernels-quantized`,
against the build's uninstalled .pc files (BUILD_ROOT/meson-uninstalled on
PKG_CONFIG_PATH). It registers the quantized kernels itself (the portable
ones come from discovery: EXECUTORCH_MODULE_PATH names only
BUILD_ROOT/backends/portable) and must print and write the same bytes as
upstream's runtime for every case of FIXTURE_DIR/manifest.json.
--sanitize (the build's b_sanitize) adds -fsanitize=WHAT, since an
instrumented libexecutorch needs an instrumented program.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

SCALAR = {"uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5,
          "float32": 6, "float64": 7, "bool": 11}


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main(argv):
    args = argv[1:]
    sanitize = None
    if "--sanitize" in args:
        k = args.index("--sanitize")
        sanitize = args[k + 1]
        del args[k:k + 2]
    build, fixtures = args
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = os.path.join(build, "meson-uninstalled")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "executorch", "executorch-kernels-quantized"],
                           capture_output=True, text=True, env=env)
    if flags.returncode != 0:
        print(f"FAIL pkg-config: {flags.stderr.strip()}")
        return 1
    libdirs = [f[2:] for f in shlex.split(flags.stdout) if f.startswith("-L")]
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "quantized-outside")
        cmd = ["cc", "-o", prog, os.path.join(here, "quantized-outside.c")] + shlex.split(flags.stdout)
        if sanitize and sanitize != "none":
            cmd[1:1] = [f"-fsanitize={sanitize}"]
        print("$ " + " ".join(cmd))
        built = subprocess.run(cmd, capture_output=True, text=True)
        if built.returncode != 0:
            print(f"FAIL cc:\n{built.stderr}")
            return 1
        run_env = dict(os.environ)
        run_env["LD_LIBRARY_PATH"] = ":".join(libdirs + [run_env.get("LD_LIBRARY_PATH", "")])
        run_env["EXECUTORCH_MODULE_SYSTEM_PATH"] = ""
        run_env["EXECUTORCH_MODULE_PATH"] = os.path.join(build, "backends", "portable")
        with open(os.path.join(fixtures, "manifest.json")) as f:
            manifest = json.load(f)
        passed = failed = 0
        for fx in manifest["fixtures"]:
            for k, case in enumerate(fx["cases"]):
                name = f"{fx['name']}#{k}"
                specs = []
                for i, rel in enumerate(case["inputs"]):
                    a = np.ascontiguousarray(np.load(os.path.join(fixtures, rel)))
                    path = os.path.join(tmp, f"in{i}.bin")
                    a.tofile(path)
                    specs.append(f"{SCALAR[str(a.dtype)]}:{','.join(map(str, a.shape))}:{path}")
                prefix = os.path.join(tmp, "out")
                r = subprocess.run([prog, os.path.join(fixtures, fx["pte"]), prefix] + specs,
                                   capture_output=True, text=True, env=run_env)
                if r.returncode != 0:
                    failed += 1
                    print(f"FAIL {name}: {r.stderr.strip()}")
                    continue
                lines = r.stdout.splitlines()
                problems = []
                for i, rel in enumerate(case["upstream_outputs"]):
                    want = np.ascontiguousarray(np.load(os.path.join(fixtures, rel))).tobytes()
                    with open(f"{prefix}.{i}.bin", "rb") as f:
                        got = f.read()
                    line = f"output {i}: {len(want)} bytes, fnv1a {fnv1a(want):016x}"
                    if got != want:
                        problems.append(f"output {i} bytes differ from upstream's runtime")
                    elif i >= len(lines) or lines[i] != line:
                        problems.append(f"printed {lines[i] if i < len(lines) else '-'!r}, expected {line!r}")
                if problems:
                    failed += 1
                    print(f"FAIL {name}: " + "; ".join(problems))
                else:
                    passed += 1
                    print(f"ok {name}: " + "; ".join(lines))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
