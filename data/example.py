#!/usr/bin/python3
"""Runs the example model from Python through the Executorch typelib."""
import sys

import gi
gi.require_version("Executorch", "1.0")
from gi.repository import Executorch

path = sys.argv[1] if len(sys.argv) > 1 else "example.pte"
program = Executorch.Program.new_from_file(path)
method = program.load_method("forward")
x = Executorch.Tensor.new_from_floats([1, 8], [0.1 * i for i in range(8)])
(out,) = method.run([x], None)
print("forward:", [round(v, 4) for v in out.get_floats()])
