#!/usr/bin/python3
"""Runs every case of a fixture manifest through executorch-run.

    run_fixtures.py MANIFEST.json|DIR RUNNER [--missing-hint TEXT] [--no-bindings]
                    [--quantized-units N]

DIR means DIR/manifest.json (tests/models, tests/models/nets,
tests/models/ops, tests/models/full). Each case must match the eager-PyTorch
outputs recorded by the exporter (executorch-run --compare). Fixtures
delegated to a backend that is not built must fail to load with an error
naming that backend.

Step cases (a list of input/output sets run one after the other on ONE loaded
method, e.g. llama decode steps with a KV cache) run through
`executorch-run --steps`, and also through the PyGObject bindings
(GI_TYPELIB_PATH / LD_LIBRARY_PATH must point at the build tree); they fail
with a message when those are not available. --no-bindings (sanitizer
builds: an instrumented library cannot be loaded into an uninstrumented
python) runs them through executorch-run only.

Recorded upstream outputs (upstream_outputs) must match byte for byte, or,
with --quantized-units N (libexecutorch-kernels-quantized's integer kernels,
docs/kernels.md), within N quantized units: integer outputs differ by at most
N, float outputs (dequantized) by at most N times their quantum, the smallest
gap between distinct values of the two outputs together (the output's scale
or a multiple of it).

A missing manifest is a failure; --missing-hint says how to generate it.
"""
import json
import os
import subprocess
import sys
import tempfile


def load_manifest(path, hint):
    manifest_path = os.path.join(path, "manifest.json") if os.path.isdir(path) else path
    if not os.path.exists(manifest_path):
        print(f"FAIL: {manifest_path} does not exist.")
        if hint:
            print(hint)
        sys.exit(1)
    with open(manifest_path) as f:
        return os.path.dirname(os.path.abspath(manifest_path)), json.load(f)


# --------------------------------------------------------------------------
# Step cases through the bindings
# --------------------------------------------------------------------------

_bindings = None


def bindings():
    """(Executorch, GLib, numpy) or an error string."""
    global _bindings
    if _bindings is None:
        try:
            import gi

            gi.require_version("Executorch", "1.0")
            from gi.repository import Executorch, GLib
            import numpy

            _bindings = (Executorch, GLib, numpy)
        except (ImportError, ValueError) as e:
            _bindings = f"step cases need the PyGObject bindings and numpy ({e})"
    return _bindings


NPY_TO_SCALAR = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF", "int64": "LONG",
                 "int32": "INT", "int16": "SHORT", "int8": "CHAR", "uint8": "BYTE", "bool": "BOOL"}
SCALAR_TO_NPY = {v: k for k, v in NPY_TO_SCALAR.items()}


def run_steps(models, pte, data, case):
    """Run a step case on one loaded method; return an error string or None."""
    b = bindings()
    if isinstance(b, str):
        return b
    Executorch, GLib, np = b
    try:
        if data:
            program = Executorch.Program.new_from_file_with_data(pte, data)
        else:
            program = Executorch.Program.new_from_file(pte)
        method = program.load_method(case["method"])
    except GLib.Error as e:
        return f"load: {e.message}"
    rtol, atol = case.get("rtol", 1e-5), case.get("atol", 1e-6)
    for j, step in enumerate(case["steps"]):
        tensors = []
        for path in step["inputs"]:
            a = np.ascontiguousarray(np.load(os.path.join(models, path)))
            kind = getattr(Executorch.ScalarType, NPY_TO_SCALAR[str(a.dtype)])
            tensors.append(Executorch.Tensor.new(kind, list(a.shape), GLib.Bytes.new(a.tobytes())))
        try:
            outs = method.run(tensors, None)
        except GLib.Error as e:
            return f"step {j}: {e.message}"
        if len(outs) != len(step["outputs"]):
            return f"step {j}: {len(outs)} outputs, expected {len(step['outputs'])}"
        for i, (out, path) in enumerate(zip(outs, step["outputs"])):
            want = np.load(os.path.join(models, path))
            name = out.get_scalar_type().value_nick.upper()
            dtype = SCALAR_TO_NPY.get(name)
            if dtype != str(want.dtype):
                return f"step {j} output {i}: dtype {name}, expected {want.dtype}"
            got = np.frombuffer(out.get_bytes().get_data(), dtype=dtype).reshape(out.get_sizes())
            if got.shape != want.shape:
                return f"step {j} output {i}: shape {got.shape}, expected {want.shape}"
            if want.dtype.kind in "biu":
                ok = np.array_equal(got, want)
            else:
                ok = np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
            if not ok:
                diff = np.nanmax(np.abs(got.astype(np.float64) - want.astype(np.float64)))
                return f"step {j} output {i} does not match {path}: max abs error {diff:.6g}"
    return None


def compare_within(got_paths, want_paths, tol):
    """An error string unless each saved output has the dtype and shape of
    the recorded one and its values lie within tol (rtol, atol) of it: for
    kernels that match upstream's math but not its summation order."""
    import numpy as np

    for i, (g, w) in enumerate(zip(got_paths, want_paths)):
        got, want = np.load(g), np.load(w)
        if got.dtype != want.dtype or got.shape != want.shape:
            return f"output {i}: {got.dtype}{list(got.shape)}, upstream {want.dtype}{list(want.shape)}"
        if not np.allclose(got, want, rtol=tol["rtol"], atol=tol["atol"], equal_nan=True):
            diff = np.nanmax(np.abs(got.astype(np.float64) - want.astype(np.float64)))
            return f"output {i} differs from upstream's runtime ({w}) by up to {diff:.6g}"
    return None


def compare_bytes(got_paths, want_paths):
    """An error string unless each saved output has the dtype, shape and
    exact bytes of the recorded one (rtol = atol = 0, even for NaN and -0)."""
    import numpy as np

    for i, (g, w) in enumerate(zip(got_paths, want_paths)):
        got, want = np.load(g), np.load(w)
        if got.dtype != want.dtype or got.shape != want.shape:
            return f"output {i}: {got.dtype}{list(got.shape)}, upstream {want.dtype}{list(want.shape)}"
        a, b = np.ascontiguousarray(got).tobytes(), np.ascontiguousarray(want).tobytes()
        if a != b:
            n = int((np.frombuffer(a, np.uint8).reshape(got.size, -1) !=
                     np.frombuffer(b, np.uint8).reshape(want.size, -1)).any(axis=1).sum()) if got.size else 0
            return f"output {i} differs from upstream's runtime ({w}) in {n} of {got.size} elements"
    return None


def compare_units(got_paths, want_paths, units):
    """(error or None, summary): each saved output within @units quantized
    units of the recorded one; the summary gives the largest difference in
    units and how many elements differ."""
    import numpy as np

    notes = []
    for i, (g, w) in enumerate(zip(got_paths, want_paths)):
        got, want = np.load(g), np.load(w)
        if got.dtype != want.dtype or got.shape != want.shape:
            return f"output {i}: {got.dtype}{list(got.shape)}, upstream {want.dtype}{list(want.shape)}", ""
        a, b = got.astype(np.float64).ravel(), want.astype(np.float64).ravel()
        if np.issubdtype(got.dtype, np.integer):
            quantum = 1.0
        else:
            values = np.unique(np.concatenate([a, b]))
            gaps = np.diff(values)
            quantum = float(gaps.min()) if gaps.size else 1.0
        diff = np.abs(a - b) / quantum if a.size else np.zeros(0)
        worst = float(diff.max()) if diff.size else 0.0
        n = int((a != b).sum())
        notes.append(f"output {i}: {n} of {got.size} differ, max {worst:.3g} units")
        if worst > units + 1e-6:
            return (f"output {i} differs from upstream's runtime ({w}) by {worst:.3g} quantized units "
                    f"(quantum {quantum:.6g}) in {n} of {got.size} elements; allowed {units}"), ""
    return None, "; ".join(notes)


# --------------------------------------------------------------------------


def main(argv):
    args = list(argv[1:])
    hint = None
    use_bindings = "--no-bindings" not in args
    args = [a for a in args if a != "--no-bindings"]
    units = None
    if "--quantized-units" in args:
        k = args.index("--quantized-units")
        units = float(args[k + 1])
        del args[k:k + 2]
    if "--missing-hint" in args:
        k = args.index("--missing-hint")
        hint = args[k + 1]
        del args[k:k + 2]
    path, runner = args
    models, manifest = load_manifest(path, hint)
    backends = subprocess.run([runner, "--list-backends"], capture_output=True, text=True, check=True).stdout
    kernels = set(subprocess.run([runner, "--list-operators"], capture_output=True, text=True,
                                 check=True).stdout.split())

    passed = failed = 0
    failing = {}  # fixture name -> (targets, kernels missing, first error)
    for fixture in manifest["fixtures"]:
        pte = os.path.join(models, fixture["pte"])
        ptds = [os.path.join(models, ptd) for ptd in fixture.get("ptd", [])]
        data = [arg for ptd in ptds for arg in ("--data", ptd)]
        methods = fixture.get("facts", {}).get("methods", {})
        needed = [d["id"] for m in methods.values() for d in m.get("delegates", [])]
        missing = [b for b in needed if b and b not in backends]
        no_kernel = [o for o in fixture.get("operators", []) if o not in kernels]
        for i, case in enumerate(fixture["cases"]):
            name = f"{fixture['name']}[{case['method']}#{i}]"
            if "steps" in case:
                cmd = [runner, pte, "--method", case["method"], "--steps",
                       "--rtol", str(case.get("rtol", 1e-5)), "--atol", str(case.get("atol", 1e-6))] + data
                for step in case["steps"]:
                    cmd += [a for p in step["inputs"] for a in ("--input", os.path.join(models, p))]
                for step in case["steps"]:
                    cmd += [a for p in step["outputs"] for a in ("--compare", os.path.join(models, p))]
                result = subprocess.run(cmd, capture_output=True, text=True)
                error = result.stderr.strip() if result.returncode != 0 else None
                shown = " ".join(cmd)
                if error is None and use_bindings:
                    error = run_steps(models, pte, ptds, case)
                    shown = f"(bindings) {pte}"
                expectation = (f"matches eager PyTorch over {len(case['steps'])} steps"
                               + (" (executorch-run and bindings)" if use_bindings else " (executorch-run)"))
                ok = error is None and not missing
            else:
                cmd = [runner, pte, "--method", case["method"], "--iterations", str(case["iterations"]),
                       "--rtol", str(case.get("rtol", 1e-5)), "--atol", str(case.get("atol", 1e-6))] + data
                for p in case["inputs"]:
                    cmd += ["--input", os.path.join(models, p)]
                for p in case["outputs"]:
                    cmd += ["--compare", os.path.join(models, p)]
                upstream = case.get("upstream_outputs")
                tmp = tempfile.TemporaryDirectory() if upstream else None
                saved = [os.path.join(tmp.name, f"out{i}.npy") for i in range(len(upstream or []))]
                for p in saved:
                    cmd += ["--output", p]
                result = subprocess.run(cmd, capture_output=True, text=True)
                error = result.stderr.strip()
                shown = " ".join(cmd)
                if missing:
                    ok = result.returncode != 0 and missing[0] in result.stderr
                    expectation = f"fails naming {missing[0]}"
                else:
                    ok = result.returncode == 0
                    expectation = "matches eager PyTorch"
                    if ok and upstream and "upstream_tol" in case:
                        # upstream's runtime outputs, within a stated bound
                        tol = case["upstream_tol"]
                        error = compare_within(saved, [os.path.join(models, p) for p in upstream], tol)
                        ok = error is None
                        expectation += (f" and upstream's runtime within rtol {tol['rtol']} atol {tol['atol']}"
                                        f" ({len(upstream)} outputs)")
                    elif ok and upstream and units is not None:
                        error, summary = compare_units(saved, [os.path.join(models, p) for p in upstream], units)
                        ok = error is None
                        expectation += (f" and upstream's runtime within {units:g} quantized units "
                                        f"({summary or len(upstream)})")
                    elif ok and upstream:
                        # upstream's runtime outputs: byte for byte
                        error = compare_bytes(saved, [os.path.join(models, p) for p in upstream])
                        ok = error is None
                        expectation += f" and upstream's runtime byte for byte ({len(upstream)} outputs)"
                if tmp:
                    tmp.cleanup()
            if ok:
                passed += 1
                print(f"ok {name}: {expectation}")
            else:
                failed += 1
                print(f"FAIL {name}: expected it {expectation}\n  {shown}\n  {error}")
                first = (error or "").splitlines()[-1:] or [""]
                failing.setdefault(fixture["name"], (fixture.get("targets", []), no_kernel, first[0]))
    if failing:
        print(f"\n{len(failing)} fixtures fail (targets; kernels not installed; last error line):")
        for name, (targets, no_kernel, err) in failing.items():
            print(f"  {name}: targets {', '.join(targets) or '-'}"
                  f"{'; no kernel: ' + ', '.join(no_kernel) if no_kernel else ''}; {err}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
