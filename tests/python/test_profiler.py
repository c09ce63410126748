#!/usr/bin/python3
"""PyGObject: profiling a method and verifying bundled programs, through the typelib."""
import os
import struct
import unittest

import gi
gi.require_version("Executorch", "1.0")
from gi.repository import Executorch, GLib  # noqa: E402

MODELS = os.environ.get("TEST_MODELS_DIR", os.path.join(os.path.dirname(__file__), "..", "models"))


def floats(shape, values):
    return Executorch.Tensor.new_from_floats(shape, values)


class ProfilingTests(unittest.TestCase):
    def test_events(self):
        program = Executorch.Program.new_from_file(os.path.join(MODELS, "add", "add.pte"))
        method = program.load_method_profiled("forward")
        self.assertTrue(method.is_profiling())
        self.assertTrue(method.props.profiling)
        inputs = [floats([2, 3], [1, 2, 3, 4, 5, 6]), floats([2, 3], [6, 5, 4, 3, 2, 1])]
        for _ in range(2):
            method.run(inputs, None)
        events = method.get_profile_events()
        names = [e.get_name() for e in events]
        self.assertEqual(names[0], "Method::load")
        self.assertEqual(names.count("Method::execute"), 2)
        op = [e for e in events if e.get_instruction_index() >= 0]
        self.assertTrue(op)
        self.assertTrue(all("::" in e.get_name() for e in op))
        self.assertTrue(all(e.get_chain_index() == 0 and e.get_delegate() is None for e in op))
        self.assertEqual(sorted({e.get_run_index() for e in op}), [1, 2])
        self.assertTrue(all(e.get_start() > 0 and e.get_duration() >= 0 for e in events))

        data = method.get_etdump().get_data()
        self.assertEqual(struct.unpack_from("<I", data)[0], len(data) - 4)
        self.assertEqual(data[8:12], b"ED00")

        method.clear_profile_events()
        self.assertEqual([e.get_name() for e in method.get_profile_events()], ["Method::load"])

    def test_record_outputs(self):
        program = Executorch.Program.new_from_file(os.path.join(MODELS, "add", "add.pte"))
        method = program.load_method("forward")
        with self.assertRaises(GLib.Error):
            method.set_record_outputs(True)
        method.enable_profiling()
        method.set_record_outputs(True)
        method.run([floats([2, 3], [1] * 6), floats([2, 3], [2] * 6)], None)
        data = method.get_debug_buffer().get_data()
        self.assertEqual(struct.unpack_from("<6f", data, 0), (3.0,) * 6)

    def test_enable_later(self):
        program = Executorch.Program.new_from_file(os.path.join(MODELS, "add", "add.pte"))
        method = program.load_method("forward")
        self.assertFalse(method.is_profiling())
        with self.assertRaises(GLib.Error):
            method.get_etdump()
        method.enable_profiling()
        method.run([floats([2, 3], [1] * 6), floats([2, 3], [2] * 6)], None)
        self.assertIn("Method::execute", [e.get_name() for e in method.get_profile_events()])


class BundledTests(unittest.TestCase):
    def test_verify_fixtures(self):
        for name, n in [("add_bp", 3), ("mlp_bp", 2), ("int_bp", 2)]:
            bundled = Executorch.BundledProgram.new_from_file(os.path.join(MODELS, "bundled", name + ".bpte"))
            self.assertEqual(bundled.list_methods(), ["forward"])
            self.assertEqual(bundled.get_n_test_cases("forward"), n)
            for i in range(n):
                self.assertTrue(bundled.verify("forward", i, 1e-5, 1e-8))
            self.assertTrue(bundled.get_program().has_method("forward"))

    def test_errors_raise(self):
        with open(os.path.join(MODELS, "bundled", "add_bp.bpte"), "rb") as f:
            data = bytearray(f.read())
        bundled = Executorch.BundledProgram.new_from_bytes(GLib.Bytes.new(bytes(data)))
        with self.assertRaises(GLib.Error) as raised:
            bundled.verify("forward", 7, 1e-5, 1e-8)
        self.assertTrue(raised.exception.matches(Executorch.error_quark(), Executorch.Error.INVALID_ARGUMENT))
        with self.assertRaises(GLib.Error):
            Executorch.BundledProgram.new_from_bytes(GLib.Bytes.new(bytes(data[:100])))


if __name__ == "__main__":
    unittest.main(verbosity=2)
