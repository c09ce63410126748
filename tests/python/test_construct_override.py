#!/usr/bin/python3
"""The override's property constructors: Executorch.Program(path=...) and its
siblings load at once and raise the load's error there, typed by kind."""
import os
import pathlib
import unittest

import gi
gi.require_version("Executorch", "1.0")
from gi.repository import Executorch, GLib  # noqa: E402

MODELS = os.environ.get("TEST_MODELS_DIR", os.path.join(os.path.dirname(__file__), "..", "models"))
ADD = os.path.join(MODELS, "add", "add.pte")


class ConstructOverrideTests(unittest.TestCase):
    def test_override_is_loaded(self):
        self.assertTrue(hasattr(Executorch, "FileNotFoundError"), "run with the override on PYTHONPATH")

    def test_program_from_properties_runs(self):
        program = Executorch.Program(path=pathlib.Path(ADD))
        self.assertEqual(program.list_methods(), ["forward"])
        method = Executorch.Method(program=program, name="forward")
        (out,) = method([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0] * 3] * 2)
        self.assertEqual(out.tolist(), [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]])

    def test_missing_file_raises_at_construction(self):
        missing = os.path.join(MODELS, "no-such-model.pte")
        with self.assertRaises(Executorch.FileNotFoundError) as caught:
            Executorch.Program(path=missing)
        self.assertEqual(caught.exception.filename, missing)
        self.assertEqual(caught.exception.message, f"{missing}: No such file or directory")
        with self.assertRaises(FileNotFoundError):
            Executorch.BundledProgram(path=missing)

    def test_missing_data_file_raises_naming_it(self):
        missing = os.path.join(MODELS, "no-such-weights.ptd")
        with self.assertRaises(Executorch.FileNotFoundError) as caught:
            Executorch.Program(path=ADD, data_paths=[missing])
        self.assertEqual(caught.exception.filename, missing)

    def test_nothing_to_load_raises(self):
        for make in (Executorch.Program, Executorch.BundledProgram):
            with self.assertRaises(Executorch.InvalidArgumentError) as caught:
                make()
            self.assertIn("nothing to load: set its “path” or its “bytes”", caught.exception.message)

    def test_unknown_method_raises_at_construction(self):
        program = Executorch.Program.new_from_file(ADD)
        with self.assertRaises(GLib.Error) as caught:
            Executorch.Method(program=program, name="backward")
        self.assertTrue(caught.exception.matches(Executorch.error_quark(), Executorch.Error.NOT_FOUND))


if __name__ == "__main__":
    unittest.main(verbosity=2)
