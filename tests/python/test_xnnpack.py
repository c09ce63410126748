#!/usr/bin/python3
"""XNNPACK-delegated fixtures through the PyGObject bindings.

    test_xnnpack.py [MODELS_DIR]

Runs every case of tests/models/xnnpack/manifest.json through
Executorch.Program / Method.run (the typelib of the build tree, which finds
libexecutorch-xnnpack through EXECUTORCH_MODULE_PATH) and checks each output
against the eager-PyTorch reference within the case's tolerance, and
against upstream's runtime outputs byte for byte where the manifest has
them (the quantized fixtures).  Also checks that one loaded method gives
the same results when run again and after runs with other batch sizes
(the dynamic-shape fixture), and that the backend is registered.
"""
import json
import os
import sys
import unittest

import gi
gi.require_version("Executorch", "1.0")
from gi.repository import Executorch, GLib  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(os.environ.get("TEST_MODELS_DIR", os.path.join(HERE, "..", "models")), "xnnpack")
DTYPES = {
    Executorch.ScalarType.FLOAT: np.float32,
    Executorch.ScalarType.HALF: np.float16,
    Executorch.ScalarType.LONG: np.int64,
    Executorch.ScalarType.CHAR: np.int8,
    Executorch.ScalarType.BYTE: np.uint8,
    Executorch.ScalarType.INT: np.int32,
}


def to_tensor(array):
    # not ascontiguousarray: it makes a 0-dim array 1-dim
    array = np.asarray(array, order="C")
    kind = {np.dtype(v): k for k, v in DTYPES.items()}[array.dtype]
    return Executorch.Tensor.new(kind, list(array.shape), GLib.Bytes.new(array.tobytes()))


def to_array(tensor):
    dtype = DTYPES[tensor.get_scalar_type()]
    return np.frombuffer(tensor.get_bytes().get_data(), dtype=dtype).reshape(tensor.get_sizes()).copy()


def load(path):
    return np.load(os.path.join(MODELS, path))


def run(method, inputs):
    return [to_array(t) for t in method.run([to_tensor(a) for a in inputs], None)]


class XnnpackFixtures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(MODELS, "manifest.json")) as f:
            cls.manifest = json.load(f)

    def check_case(self, name, method, case, label):
        got = run(method, [load(p) for p in case["inputs"]])
        want = [load(p) for p in case["outputs"]]
        self.assertEqual(len(got), len(want), label)
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertEqual(g.shape, w.shape, f"{label} output {i}")
            np.testing.assert_allclose(g, w, rtol=case["rtol"], atol=case["atol"],
                                       err_msg=f"{label} output {i} vs eager")
        for i, path in enumerate(case.get("upstream_outputs", [])):
            self.assertEqual(got[i].tobytes(), load(path).tobytes(),
                             f"{label} output {i} vs upstream's runtime")
        return got

    def test_every_case(self):
        fixtures = self.manifest["fixtures"]
        self.assertGreaterEqual(len(fixtures), 8)
        for fx in fixtures:
            program = Executorch.Program.new_from_file(os.path.join(MODELS, fx["pte"]))
            for k, case in enumerate(fx["cases"]):
                with self.subTest(fixture=fx["name"], case=k):
                    method = program.load_method(case["method"])
                    first = self.check_case(fx["name"], method, case, f"{fx['name']}#{k}")
                    # the same method again: bound once, run again
                    again = run(method, [load(p) for p in case["inputs"]])
                    for a, b in zip(first, again):
                        self.assertEqual(a.tobytes(), b.tobytes())

    def test_dynamic_batch_on_one_method(self):
        fx = next(f for f in self.manifest["fixtures"] if f["name"] == "xnn_cnn_dyn")
        program = Executorch.Program.new_from_file(os.path.join(MODELS, fx["pte"]))
        method = program.load_method("forward")
        # batch 2, 1, 4, then 2 again: the runtime is rebuilt for each shape
        for k in (0, 1, 2, 0):
            case = fx["cases"][k]
            self.check_case(fx["name"], method, case, f"{fx['name']}#{k} (one method)")

    def test_mixed_program_uses_cpu_kernels(self):
        fx = next(f for f in self.manifest["fixtures"] if f["name"] == "xnn_mixed")
        program = Executorch.Program.new_from_file(os.path.join(MODELS, fx["pte"]))
        info = program.get_method_info("forward")
        self.assertIn("aten::cumsum.out", info.list_operators())
        self.assertGreaterEqual(len(fx["facts"]["methods"]["forward"]["delegates"]), 2)

    def test_wrong_input_shape_is_an_error(self):
        fx = next(f for f in self.manifest["fixtures"] if f["name"] == "xnn_mlp")
        method = Executorch.Program.new_from_file(os.path.join(MODELS, fx["pte"])).load_method("forward")
        with self.assertRaises(GLib.Error):
            method.run([to_tensor(np.zeros((4, 31), dtype=np.float32))], None)
        # still usable afterwards
        self.check_case(fx["name"], method, fx["cases"][0], "xnn_mlp after a bad input")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        MODELS = sys.argv.pop(1)
    unittest.main(verbosity=2)
