#!/usr/bin/python3
"""The quantized kernel library as a plug-in: absent, and present twice.

    check-plugins.py RUNNER BUILD_ROOT FIXTURE_DIR

1. missing: with only the portable kernels on EXECUTORCH_MODULE_PATH, a
   quantized program fails at method load with an error naming the missing
   quantized_decomposed:: operators and the package that provides them
   (libexecutorch-kernels-quantized0).
2. duplicate, same manifest name: a copy of the library and its manifest in
   a second folder on the path is reported as a duplicate registration
   naming both files; the first copy is used and the program runs.
3. duplicate, another manifest name: both copies are opened; the registry
   refuses the second one, naming both files.
4. the same folder twice on the path is one library: no report.
5. a copy on EXECUTORCH_MODULE_PATH replacing the one in the system folder
   (EXECUTORCH_MODULE_SYSTEM_PATH) is an override, not a duplicate: no
   report, and the program runs.
"""
import os
import shutil
import subprocess
import sys
import tempfile

failed = 0


def check(name, ok, detail):
    global failed
    if ok:
        print(f"ok {name}")
    else:
        failed += 1
        print(f"FAIL {name}\n  {detail}")


def run(runner, args, path, system=""):
    env = dict(os.environ)
    env["EXECUTORCH_MODULE_SYSTEM_PATH"] = system
    env["EXECUTORCH_MODULE_PATH"] = ":".join(path)
    return subprocess.run([runner] + args, capture_output=True, text=True, env=env)


def main(argv):
    runner, build, fixtures = argv[1:]
    portable = os.path.join(build, "backends", "portable")
    quantized = os.path.join(build, "backends", "quantized")
    library = "libexecutorch-kernels-quantized.so.0"
    pte = os.path.join(fixtures, "cnn_q8", "cnn_q8.pte")
    inp = ["--input", os.path.join(fixtures, "cnn_q8", "forward.case0.in0.npy"),
           "--compare", os.path.join(fixtures, "cnn_q8", "forward.case0.upstream0.npy"),
           "--rtol", "0", "--atol", "0"]

    r = run(runner, [pte] + inp, [portable])
    check("missing library fails at method load naming operator and package",
          r.returncode != 0 and "[load]" in r.stderr
          and "quantized_decomposed::quantize_per_tensor.out" in r.stderr
          and "libexecutorch-kernels-quantized0" in r.stderr, r.stderr.strip())

    r = run(runner, [pte] + inp, [portable, quantized])
    check("library present: the program runs", r.returncode == 0, r.stderr.strip())

    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "copy")
        os.makedirs(copy)
        shutil.copy(os.path.join(quantized, library), copy)
        shutil.copy(os.path.join(quantized, "kernels-quantized.module"), copy)
        first = os.path.realpath(os.path.join(quantized, library))
        second = os.path.join(copy, library)

        r = run(runner, ["--list-operators"], [portable, quantized, copy])
        n = r.stdout.split().count("quantized_decomposed::add.out")
        check("copy under the same manifest name: duplicate registration naming both files",
              r.returncode == 0 and "registered twice" in r.stderr and "duplicate registration" in r.stderr
              and first in r.stderr and second in r.stderr and n == 1, r.stderr.strip())
        r = run(runner, [pte] + inp, [portable, quantized, copy])
        check("copy under the same manifest name: the first copy runs the program",
              r.returncode == 0, r.stderr.strip())

        r = run(runner, [pte] + inp, [portable, copy], system=quantized)
        check("copy on the module path replacing the system folder's: an override, not reported",
              r.returncode == 0 and "twice" not in r.stderr, r.stderr.strip())

        os.rename(os.path.join(copy, "kernels-quantized.module"), os.path.join(copy, "kernels-quantized-copy.module"))
        r = run(runner, ["--list-operators"], [portable, quantized, copy])
        n = r.stdout.split().count("quantized_decomposed::add.out")
        check("copy under another manifest name: the registry refuses it, naming both files",
              r.returncode == 0 and "registered twice" in r.stderr and "duplicate registration" in r.stderr
              and os.path.join("backends", "quantized", library) in r.stderr and second in r.stderr
              and n == 1, r.stderr.strip())
        r = run(runner, [pte] + inp, [portable, quantized, copy])
        check("copy under another manifest name: the program still runs", r.returncode == 0, r.stderr.strip())

    r = run(runner, ["--list-operators"], [portable, quantized, quantized])
    check("the same folder twice is one library", r.returncode == 0 and "twice" not in r.stderr,
          r.stderr.strip())
    print(f"{8 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
