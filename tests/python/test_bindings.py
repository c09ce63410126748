#!/usr/bin/python3
"""PyGObject tests: the typelib from the build tree, a real fixture, real numbers."""
import os
import sys
import unittest

import gi
gi.require_version("Executorch", "1.0")
from gi.repository import Executorch, Gio, GLib  # noqa: E402
import numpy as np  # noqa: E402

MODELS = os.environ.get("TEST_MODELS_DIR", os.path.join(os.path.dirname(__file__), "..", "models"))


def model(name):
    return os.path.join(MODELS, name)


def tensor_from_array(array):
    array = np.ascontiguousarray(array, dtype=np.float32)
    return Executorch.Tensor.new(Executorch.ScalarType.FLOAT, list(array.shape), GLib.Bytes.new(array.tobytes()))


def array_from_tensor(tensor):
    data = tensor.get_bytes().get_data()
    return np.frombuffer(data, dtype=np.float32).reshape(tensor.get_sizes())


class ProgramTests(unittest.TestCase):
    def test_methods_and_info(self):
        program = Executorch.Program.new_from_file(model("two_methods/two_methods.pte"))
        self.assertEqual(sorted(program.list_methods()), ["double_it", "forward"])
        info = program.get_method_info("forward")
        self.assertEqual(info.get_n_inputs(), 1)
        value = info.get_input(0)
        self.assertEqual(value.get_kind(), Executorch.ValueKind.TENSOR)
        self.assertEqual(value.get_scalar_type(), Executorch.ScalarType.FLOAT)
        self.assertIn("aten::relu.out", info.list_operators())

    def test_add_matches_eager(self):
        program = Executorch.Program.new_from_file(model("add/add.pte"))
        method = program.load_method("forward")
        a = np.load(model("add/forward.case0.in0.npy"))
        b = np.load(model("add/forward.case0.in1.npy"))
        expected = np.load(model("add/forward.case0.out0.npy"))
        (out,) = method.run([tensor_from_array(a), tensor_from_array(b)], None)
        np.testing.assert_allclose(array_from_tensor(out), expected, rtol=1e-6)

    def test_mutable_state_carries_over(self):
        program = Executorch.Program.new_from_file(model("mutable_buffer/mutable_buffer.pte"))
        method = program.load_method("forward")
        x = tensor_from_array(np.load(model("mutable_buffer/forward.case2.in0.npy")))
        for _ in range(3):
            (out,) = method.run([x], None)
        expected = np.load(model("mutable_buffer/forward.case2.out0.npy"))
        np.testing.assert_allclose(array_from_tensor(out), expected, rtol=1e-6)

    def test_bad_file_raises(self):
        with self.assertRaises(GLib.Error) as caught:
            Executorch.Program.new_from_bytes(GLib.Bytes.new(b"\0\0\0\0XXXXnot a program"))
        self.assertTrue(caught.exception.matches(Executorch.error_quark(), Executorch.Error.INVALID_PROGRAM))

    def test_wrong_dtype_raises(self):
        program = Executorch.Program.new_from_file(model("add/add.pte"))
        method = program.load_method("forward")
        bad = Executorch.Tensor.new(Executorch.ScalarType.LONG, [2, 3], GLib.Bytes.new(bytes(48)))
        with self.assertRaises(GLib.Error) as caught:
            method.set_input(0, bad)
        self.assertIn("Float", caught.exception.message)

    def test_async_execute(self):
        program = Executorch.Program.new_from_file(model("add/add.pte"))
        method = program.load_method("forward")
        ones = tensor_from_array(np.ones((2, 3)))
        method.set_input(0, ones)
        method.set_input(1, ones)
        loop = GLib.MainLoop()
        results = []

        def done(source, result):
            results.append(source.execute_finish(result))
            loop.quit()

        method.execute_async(None, done)
        loop.run()
        self.assertEqual(results, [True])
        np.testing.assert_allclose(array_from_tensor(method.get_output(0)), np.full((2, 3), 2.0))


class ConstructTests(unittest.TestCase):
    """``Executorch.Program(path=...)`` is g_object_new without
    Gio.Initable.init (no override here): the object must still load, or
    report why through GLib.Error."""

    def test_program_from_properties_works(self):
        program = Executorch.Program(path=model("add/add.pte"))
        self.assertEqual(program.list_methods(), ["forward"])
        method = program.load_method("forward")
        ones = tensor_from_array(np.ones((2, 3)))
        (out,) = method.run([ones, ones], None)
        np.testing.assert_allclose(array_from_tensor(out), np.full((2, 3), 2.0))
        self.assertTrue(program.init(None))

    def test_method_and_bundled_from_properties_work(self):
        program = Executorch.Program.new_from_file(model("add/add.pte"))
        method = Executorch.Method(program=program, name="forward")
        self.assertEqual(method.get_n_inputs(), 2)
        bundled = Executorch.BundledProgram(path=model("bundled/add_bp.bpte"))
        self.assertEqual(bundled.list_methods(), ["forward"])
        self.assertTrue(bundled.verify("forward", 0, 1e-5, 1e-8))

    def test_failed_program_reports_its_error(self):
        program = Executorch.Program(path=model("no-such-model.pte"))
        for call in (lambda: program.init(None), lambda: program.load_method("forward"),
                     lambda: program.get_method_info("forward")):
            with self.assertRaises(GLib.Error) as caught:
                call()
            self.assertTrue(caught.exception.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND))
            self.assertTrue(caught.exception.message.endswith("no-such-model.pte: No such file or directory"))

    def test_program_without_source_says_what_to_set(self):
        for make in (Executorch.Program, Executorch.BundledProgram):
            with self.assertRaises(GLib.Error) as caught:
                make().init(None)
            self.assertTrue(caught.exception.matches(Executorch.error_quark(), Executorch.Error.INVALID_ARGUMENT))
            self.assertRegex(caught.exception.message, r"has nothing to load: set its “path” or its “bytes”$")

    def test_missing_file_is_gio_not_found(self):
        for load in (Executorch.Program.new_from_file, Executorch.BundledProgram.new_from_file):
            with self.assertRaises(GLib.Error) as caught:
                load(model("no-such-file"))
            self.assertTrue(caught.exception.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND))


if __name__ == "__main__":
    unittest.main(verbosity=2)
