#!/usr/bin/python3
"""Every fixture, bound once and executed three times, gives the same outputs.

    check_repeat_executions.py MODELS_DIR

Walks the manifests of MODELS_DIR and its committed sets (nets, ops, quant,
xnnpack) through the PyGObject bindings (GI_TYPELIB_PATH and LD_LIBRARY_PATH
point at the build tree). For each case the inputs are bound once; the
method executes as many times as the case says and must then give the
recorded outputs. Fixtures whose outputs do not depend on how often they
ran (every case runs once) execute twice more, and every output must be
byte for byte what the first execution gave. Stateful fixtures (a case that
runs several times: their state is meant to change) get the first check
only. Programs delegated to a backend that is not built are left out,
counted and named (the fixture suites check that they fail to load).
"""
import json
import os
import sys

import gi

gi.require_version("Executorch", "1.0")
from gi.repository import Executorch, GLib  # noqa: E402
import numpy as np  # noqa: E402

SETS = ["", "nets", "ops", "quant", "xnnpack"]
SCALAR_TYPES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF", "int64": "LONG", "int32": "INT",
                "int16": "SHORT", "int8": "CHAR", "uint8": "BYTE", "bool": "BOOL"}
VK = Executorch.ValueKind


def bind(method, index, array):
    info = method.get_info().get_input(index)
    kind = info.get_kind()
    if kind == VK.INT:
        method.set_input_int(index, int(array.item()))
    elif kind == VK.DOUBLE:
        method.set_input_double(index, float(array.item()))
    elif kind == VK.BOOL:
        method.set_input_bool(index, bool(array.item()))
    elif kind == VK.NONE:
        method.set_input(index, None)
    else:
        sizes = list(info.get_sizes())
        # The exporter writes a 0-d input as [1].
        if len(sizes) == 0 and array.size == 1:
            array = array.reshape(())
        # (np.ascontiguousarray would make a 0-d array 1-d.)
        array = np.array(array, order="C")
        scalar_type = getattr(Executorch.ScalarType, SCALAR_TYPES[str(array.dtype)])
        tensor = Executorch.Tensor.new(scalar_type, list(array.shape), GLib.Bytes.new(array.tobytes()))
        method.set_input(index, tensor)


def output_bytes(method):
    """Each tensor output's (dtype, shape, bytes); None for other kinds."""
    result = []
    for i in range(method.get_n_outputs()):
        if method.get_output_kind(i) != VK.TENSOR:
            result.append(None)
            continue
        tensor = method.get_output(i)
        result.append((int(tensor.get_scalar_type()), tuple(tensor.get_sizes()), tuple(tensor.get_dim_order()),
                       bytes(tensor.get_bytes().get_data())))
    return result


def mismatch(got, expected, rtol, atol):
    """A description of how one output differs from its .npy, or None."""
    if got is None:
        return None
    scalar_type, shape, dim_order, data = got
    dtype = np.dtype(next(k for k, v in SCALAR_TYPES.items()
                          if getattr(Executorch.ScalarType, v) == scalar_type))
    # The bytes are in the tensor's dim order; the .npy is contiguous.
    physical = np.frombuffer(data, dtype=dtype).reshape([shape[d] for d in dim_order])
    array = physical.transpose(np.argsort(dim_order)) if dim_order else physical
    if array.size != expected.size:
        return f"shape {shape}, expected {expected.shape}"
    array = array.reshape(expected.shape)
    if dtype.kind == "f":
        if not np.allclose(array.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                           equal_nan=True):
            return f"max difference {np.nanmax(np.abs(array.astype(np.float64) - expected)):.3g}"
    elif not np.array_equal(array, expected.astype(dtype)):
        return "elements differ"
    return None


def check_case(models, fixture, case, program, stateful):
    method = program.load_method(case["method"])
    for i, name in enumerate(case["inputs"]):
        bind(method, i, np.load(os.path.join(models, name)))
    for _ in range(case.get("iterations", 1)):
        method.execute(None)
    first = output_bytes(method)
    for i, name in enumerate(case["outputs"]):
        problem = mismatch(first[i], np.load(os.path.join(models, name)), case.get("rtol", 1e-5),
                           case.get("atol", 1e-6))
        if problem:
            return f"output {i} after binding once: {problem}"
    if stateful:
        return None
    for run in (2, 3):
        method.execute(None)
        if output_bytes(method) != first:
            return f"execution {run} of one binding differs from the first"
    return None


def main(root):
    checked = repeated = failed = 0
    left_out = []
    for name in SETS:
        manifest_path = os.path.join(root, name, "manifest.json")
        if not os.path.exists(manifest_path):
            print(f"FAIL: {manifest_path} is missing")
            return 1
        models = os.path.dirname(manifest_path)
        with open(manifest_path) as f:
            manifest = json.load(f)
        for fixture in manifest["fixtures"]:
            cases = [c for c in fixture.get("cases", []) if "steps" not in c]
            stateful = any(c.get("iterations", 1) > 1 for c in cases)
            if not cases:
                continue
            pte = os.path.join(models, fixture["pte"])
            data = [os.path.join(models, p) for p in fixture.get("ptd", [])]
            try:
                program = (Executorch.Program.new_from_file_with_data(pte, data) if data
                           else Executorch.Program.new_from_file(pte))
                # Loading a method resolves its backends: a missing one fails here.
                program.load_method(cases[0]["method"])
            except GLib.Error as e:
                if "backend" in e.message.lower() and "not" in e.message.lower():
                    left_out.append(fixture["name"])
                    continue
                print(f"FAIL {name}/{fixture['name']}: {e.message}")
                failed += 1
                continue
            for case in cases:
                try:
                    problem = check_case(models, fixture, case, program, stateful)
                except GLib.Error as e:
                    problem = e.message
                checked += 1
                repeated += 0 if stateful else 1
                if problem:
                    failed += 1
                    print(f"FAIL {name}/{fixture['name']} ({case['inputs'][0] if case['inputs'] else 'no inputs'}):"
                          f" {problem}")
    print(f"{checked} cases bound once, {repeated} of them executed three times")
    if left_out:
        print(f"left out (backend not built): {', '.join(left_out)}")
    print(f"{checked - failed} passed, {failed} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
