#!/usr/bin/python3
"""PyGObject against the installed packages alone (tests/install).

Usage: test_python.py MLP_DIR.  Runs the mlp fixture through the plain
introspected API and through the override module (numpy in and out), and
checks that the typelib and the override came from the system folders.
"""
import os
import sys

import gi

gi.require_version("Executorch", "1.0")
from gi.repository import Executorch  # noqa: E402
import numpy as np  # noqa: E402

mlp = sys.argv[1]
x = np.load(os.path.join(mlp, "forward.case0.in0.npy"))
expected = np.load(os.path.join(mlp, "forward.case0.out0.npy"))

typelib = gi.Repository.get_default().get_typelib_path("Executorch")
assert typelib.startswith("/usr/lib/") and typelib.endswith("/girepository-1.0/Executorch-1.0.typelib"), typelib
override = sys.modules["gi.overrides.Executorch"].__file__
assert override == "/usr/lib/python3/dist-packages/gi/overrides/Executorch.py", override

program = Executorch.Program.new_from_file(os.path.join(mlp, "mlp.pte"))
method = program.load_method("forward")
tensor = Executorch.Tensor.new_from_floats(list(x.shape), x.ravel().tolist())
(out,) = method.run([tensor], None)
got = np.array(out.get_floats(), dtype=np.float32).reshape(out.get_sizes())
assert np.allclose(got, expected, rtol=1e-5, atol=1e-6), (got, expected)

(scores,) = method(x)        # the override: numpy in, numpy out
assert isinstance(scores, np.ndarray) and np.allclose(scores, expected, rtol=1e-5, atol=1e-6), scores
print(f"typelib {typelib}; override {override}; outputs match ({expected.size} values); "
      f"plug-ins {', '.join(Executorch.list_plugins())}")
