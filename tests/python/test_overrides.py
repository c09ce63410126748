#!/usr/bin/python3
"""The PyGObject override module (bindings/python/gi/overrides/Executorch.py):
numpy round trips, lists of arrays through methods, errors and async runs."""
import asyncio
import errno
import os
import pathlib
import subprocess
import sys
import textwrap
import unittest

import gi
gi.require_version("Executorch", "1.0")
from gi.repository import Executorch, Gio, GLib  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.environ.get("TEST_MODELS_DIR", os.path.join(HERE, "..", "models"))
EXAMPLE = os.path.join(HERE, "..", "..", "data", "models")

# PyGObject 3.50 runs asyncio on the GLib main loop (gi.events), where a
# Gio-style async call without a callback is awaitable; 3.42 has neither.
try:
    import gi.events as glib_events  # noqa: E402
except ImportError:
    glib_events = None
NO_GLIB_EVENTS = (f"PyGObject {'.'.join(map(str, gi.version_info))} has no gi.events "
                  "(asyncio on the GLib main loop, PyGObject 3.50+)")


def model(name):
    return os.path.join(MODELS, name)


def load(name, method="forward"):
    return Executorch.Program.new_from_file(model(name)).load_method(method)


class OverrideLoaded(unittest.TestCase):
    def test_module_is_the_override(self):
        self.assertEqual(Executorch.Tensor.__module__, "gi.overrides.Executorch")
        self.assertTrue(hasattr(Executorch.Tensor, "new_from_numpy"))


class NumpyRoundTrips(unittest.TestCase):
    def round_trip(self, array, scalar_type):
        tensor = Executorch.Tensor.new_from_numpy(array)
        self.assertEqual(tensor.get_scalar_type(), scalar_type)
        self.assertEqual(list(tensor.get_sizes()), list(array.shape))
        back = tensor.to_numpy()
        self.assertEqual(back.dtype, array.dtype)
        self.assertEqual(back.shape, array.shape)
        np.testing.assert_array_equal(back, array)
        return tensor, back

    def test_dtypes(self):
        rng = np.random.default_rng(5)
        cases = [
            (rng.standard_normal((2, 3)).astype(np.float32), Executorch.ScalarType.FLOAT),
            (rng.integers(-2**40, 2**40, (4, 1, 2)), Executorch.ScalarType.LONG),
            (rng.integers(0, 2, (3, 3)).astype(bool), Executorch.ScalarType.BOOL),
            (rng.integers(0, 256, (5,)).astype(np.uint8), Executorch.ScalarType.BYTE),
            (rng.standard_normal((2, 2)).astype(np.float16), Executorch.ScalarType.HALF),
            (rng.standard_normal((3,)), Executorch.ScalarType.DOUBLE),
            (rng.integers(-100, 100, (2,)).astype(np.int8), Executorch.ScalarType.CHAR),
        ]
        for array, scalar_type in cases:
            with self.subTest(dtype=array.dtype):
                self.round_trip(array, scalar_type)

    def test_zero_dim_and_empty(self):
        tensor, back = self.round_trip(np.array(7.5, dtype=np.float32), Executorch.ScalarType.FLOAT)
        self.assertEqual(tensor.get_n_dims(), 0)
        self.assertEqual(back[()], 7.5)
        tensor, back = self.round_trip(np.zeros((0, 4), dtype=np.int64), Executorch.ScalarType.LONG)
        self.assertEqual(tensor.get_numel(), 0)
        self.assertEqual(tensor.get_nbytes(), 0)

    def test_borrowed_not_copied(self):
        import gc
        import weakref
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        alive = weakref.ref(a)
        tensor = Executorch.Tensor.new_from_numpy(a)
        a[0, 0] = 100  # a C-contiguous array is borrowed: the tensor sees the change
        self.assertEqual(tensor.to_numpy()[0, 0], 100)
        del a
        gc.collect()
        self.assertIsNotNone(alive(), "the tensor keeps the array alive")
        np.testing.assert_array_equal(tensor.get_floats(), [100, 1, 2, 3, 4, 5])
        del tensor
        gc.collect()
        self.assertIsNone(alive(), "the loan ends with the tensor")

    def test_copy_semantics(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        tensor = Executorch.Tensor.new_from_numpy(a, copy=True)
        a[0, 0] = 100  # copy=True: the tensor holds its own copy
        self.assertEqual(tensor.to_numpy()[0, 0], 0)
        self.assertFalse(tensor.to_numpy().flags.writeable)
        strided = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
        tensor = Executorch.Tensor.new_from_numpy(strided)  # not contiguous: one copy
        strided[0, 0] = 100
        self.assertEqual(tensor.to_numpy()[0, 0], 0)

    def test_borrowed_bad_size_raises(self):
        a = np.zeros(6, np.float32)
        with self.assertRaises(GLib.Error) as caught:
            Executorch.Tensor.new_borrowed(Executorch.ScalarType.FLOAT, [2, 4], a.ctypes.data, a.nbytes, None)
        self.assertTrue(caught.exception.matches(Executorch.error_quark(), Executorch.Error.INVALID_ARGUMENT))

    def test_non_contiguous_and_byte_swapped(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4).T
        np.testing.assert_array_equal(Executorch.Tensor.new_from_numpy(a).to_numpy(), a)
        b = np.arange(4, dtype=">i4")
        back = Executorch.Tensor.new_from_numpy(b).to_numpy()
        np.testing.assert_array_equal(back, b)
        self.assertEqual(back.dtype, np.dtype("int32"))

    def test_unsupported_dtype(self):
        with self.assertRaises(TypeError):
            Executorch.Tensor.new_from_numpy(np.array(["a", "b"]))


class MethodCalls(unittest.TestCase):
    def test_example_model_matches(self):
        program = Executorch.Program.new_from_file(os.path.join(EXAMPLE, "example.pte"))
        method = program.load_method("forward")
        x = np.load(os.path.join(EXAMPLE, "example.input.npy"))
        expected = np.load(os.path.join(EXAMPLE, "example.output.npy"))
        (out,) = method(x)
        self.assertEqual(out.dtype, expected.dtype)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
        (again,) = method.run_arrays([x])
        np.testing.assert_array_equal(again, out)

    def test_outputs_survive_the_next_run(self):
        method = load("add/add.pte")
        (first,) = method(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
        method(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32))
        np.testing.assert_array_equal(first, np.full((2, 3), 2, np.float32))

    def test_scalar_inputs_and_outputs(self):
        method = load("scalar_io/scalar_io.pte")
        inputs = [np.load(model(f"scalar_io/forward.case0.in{i}.npy")) for i in range(4)]
        x, k, s, flag = inputs
        out, n = method(x, int(k), float(s), bool(flag))
        np.testing.assert_allclose(out, np.load(model("scalar_io/forward.case0.out0.npy")), rtol=1e-6)
        self.assertIsInstance(n, int)
        self.assertEqual(n, int(np.load(model("scalar_io/forward.case0.out1.npy"))))

    def test_scalar_outputs(self):
        program = Executorch.Program.new_from_file(model("constant_methods/constant_methods.pte"))
        for name, kind in (("get_int", int), ("get_float", float), ("get_bool", bool)):
            with self.subTest(method=name):
                (value,) = program.load_method(name)()
                self.assertIsInstance(value, kind)
                self.assertEqual(value, np.load(model(f"constant_methods/{name}.case0.out0.npy")).item())

    def test_lists_take_the_inputs_element_type(self):
        method = load("add/add.pte")
        (out,) = method([[1, 2, 3], [4, 5, 6]], np.ones((2, 3), np.float32))
        np.testing.assert_array_equal(out, np.arange(2, 8, dtype=np.float32).reshape(2, 3))

    def test_channels_last_output(self):
        method = load("channels_last/channels_last.pte")
        (out,) = method(np.load(model("channels_last/forward.case0.in0.npy")))
        np.testing.assert_allclose(out, np.load(model("channels_last/forward.case0.out0.npy")), rtol=1e-6)

    def test_wrong_dtype_raises_glib_error(self):
        method = load("add/add.pte")
        with self.assertRaises(GLib.Error) as caught:
            method(np.ones((2, 3), np.float64), np.ones((2, 3), np.float32))
        self.assertTrue(caught.exception.matches(Executorch.error_quark(), Executorch.Error.INVALID_ARGUMENT))
        self.assertIn("Float", caught.exception.message)

    def test_wrong_shape_raises_glib_error(self):
        method = load("add/add.pte")
        with self.assertRaises(GLib.Error) as caught:
            method(np.ones((7, 7), np.float32), np.ones((2, 3), np.float32))
        self.assertEqual(caught.exception.domain, GLib.quark_to_string(Executorch.error_quark()))
        self.assertEqual(caught.exception.code, int(Executorch.Error.INVALID_ARGUMENT))

    def test_wrong_input_count(self):
        with self.assertRaises(TypeError):
            load("add/add.pte")(np.ones((2, 3), np.float32))


class Paths(unittest.TestCase):
    """Paths as str, bytes or os.PathLike; program contents as bytes."""

    def test_program_paths(self):
        path = model("add/add.pte")
        for given in (path, os.fsencode(path), pathlib.Path(path)):
            with self.subTest(type=type(given).__name__):
                program = Executorch.Program.new_from_file(given)
                self.assertTrue(program.has_method("forward"))

    def test_program_with_data_paths(self):
        pte = pathlib.Path(model("mlp_external/mlp_external.pte"))
        ptd = pathlib.Path(model("mlp_external/_default_external_constant.ptd"))
        for data in ([ptd], [os.fsencode(ptd)], (str(ptd),)):
            with self.subTest(data=type(data[0]).__name__):
                method = Executorch.Program.new_from_file_with_data(pte, data).load_method("forward")
                (out,) = method(np.load(model("mlp_external/forward.case0.in0.npy")))
                np.testing.assert_allclose(out, np.load(model("mlp_external/forward.case0.out0.npy")),
                                           rtol=1e-5, atol=1e-6)

    def test_bundled_program_path(self):
        bundled = Executorch.BundledProgram.new_from_file(pathlib.Path(model("bundled/add_bp.bpte")))
        self.assertGreaterEqual(bundled.get_n_test_cases("forward"), 1)
        bundled.verify("forward", 0, 1e-5, 1e-8)

    def test_program_contents_as_bytes(self):
        with open(model("add/add.pte"), "rb") as f:
            data = f.read()
        for given in (data, bytearray(data), memoryview(data), GLib.Bytes.new(data)):
            with self.subTest(type=type(given).__name__):
                method = Executorch.Program.new_from_bytes(given).load_method("forward")
                (out,) = method(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
                np.testing.assert_array_equal(out, np.full((2, 3), 2, np.float32))
        with open(model("bundled/add_bp.bpte"), "rb") as f:
            self.assertTrue(Executorch.BundledProgram.new_from_bytes(f.read()).get_program())

    def test_property_constructors(self):
        path = model("add/add.pte")
        with open(path, "rb") as f:
            data = f.read()
        for given in (dict(path=os.fsencode(path)), dict(path=pathlib.Path(path)), dict(bytes=data),
                      dict(bytes=bytearray(data))):
            with self.subTest(given=type(next(iter(given.values()))).__name__):
                program = Executorch.Program(**given)
                self.assertEqual(program.list_methods(), ["forward"])
        bundled = Executorch.BundledProgram(path=os.fsencode(model("bundled/add_bp.bpte")))
        self.assertGreaterEqual(bundled.get_n_test_cases("forward"), 1)

    def test_etdump_path(self):
        import tempfile
        method = Executorch.Program.new_from_file(model("add/add.pte")).load_method_profiled("forward")
        method(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
        with tempfile.TemporaryDirectory() as folder:
            target = pathlib.Path(folder) / "run.etdp"
            method.write_etdump(target)
            self.assertGreater(target.stat().st_size, 0)


class TensorProtocol(unittest.TestCase):
    """shape, dtype, repr and numpy.asarray on Executorch.Tensor; ValueInfo's dtype."""

    def test_shape_dtype_repr(self):
        tensor = Executorch.Tensor.new_from_numpy(np.zeros((2, 3, 4), np.int32))
        self.assertEqual(tensor.shape, (2, 3, 4))
        self.assertEqual(tensor.dtype, np.dtype(np.int32))
        self.assertEqual(repr(tensor), "<Executorch.Tensor dtype=int32 shape=(2, 3, 4) device=cpu>")
        scalar = Executorch.Tensor.new_from_numpy(np.array(1.5))
        self.assertEqual(scalar.shape, ())
        self.assertEqual(repr(scalar), "<Executorch.Tensor dtype=float64 shape=() device=cpu>")

    def test_asarray(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        tensor = Executorch.Tensor.new_from_numpy(a)
        back = np.asarray(tensor)
        self.assertEqual(back.dtype, np.float32)  # not a 0-d object array
        np.testing.assert_array_equal(back, a)
        np.testing.assert_array_equal(np.asarray(tensor, dtype=np.int64), a.astype(np.int64))
        self.assertEqual(np.asarray(tensor, dtype=np.int64).dtype, np.int64)
        writable = np.array(tensor)
        writable[0, 0] = 7  # np.array gives a writable copy
        self.assertEqual(tensor.to_numpy()[0, 0], 0)
        self.assertEqual(np.add(tensor, 1).tolist(), (a + 1).tolist())

    def test_array_copy_keyword(self):
        # numpy 2 passes copy=; numpy 1.24 (Debian 12) does not: both work.
        tensor = Executorch.Tensor.new_from_numpy(np.ones(3, np.int64))
        self.assertTrue(tensor.__array__(copy=True).flags.writeable)
        np.testing.assert_array_equal(tensor.__array__(None, None), [1, 1, 1])
        with self.assertRaises(ValueError):
            tensor.__array__(copy=False)

    def test_output_tensor_asarray(self):
        method = load("add/add.pte")
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        (out,) = method.run([Executorch.Tensor.new_from_numpy(a)] * 2, None)
        self.assertEqual(out.shape, (2, 3))
        np.testing.assert_array_equal(np.asarray(out), 2 * a)

    def test_bfloat16_widens_to_float32(self):
        values = np.array([1.0, -2.5, 3.140625, 0.0, np.inf, 2.0 ** 100], np.float32)
        bits = (values.view(np.uint32) >> 16).astype(np.uint16)  # exact in bfloat16
        tensor = Executorch.Tensor.new(Executorch.ScalarType.BFLOAT16, [2, 3], GLib.Bytes.new(bits.tobytes()))
        back = tensor.to_numpy()
        self.assertEqual(back.dtype, np.float32)
        self.assertEqual(back.shape, (2, 3))
        np.testing.assert_array_equal(back.ravel(), values)
        self.assertFalse(back.flags.writeable)
        np.testing.assert_array_equal(np.asarray(tensor).ravel(), values)
        self.assertEqual(tensor.dtype, np.float32)
        self.assertEqual(repr(tensor), "<Executorch.Tensor dtype=bfloat16 shape=(2, 3) device=cpu>")
        nan = Executorch.Tensor.new(Executorch.ScalarType.BFLOAT16, [1], GLib.Bytes.new(b"\xc0\x7f"))
        self.assertTrue(np.isnan(nan.to_numpy()[0]))

    def test_value_info(self):
        info = Executorch.Program.new_from_file(model("scalar_io/scalar_io.pte")).get_method_info("forward")
        x, k = info.get_input(0), info.get_input(1)
        self.assertEqual(x.dtype, np.load(model("scalar_io/forward.case0.in0.npy")).dtype)
        self.assertEqual(x.shape, tuple(x.get_sizes()))  # dynamic: the upper bound
        self.assertIsNone(k.dtype)  # an Int, not a tensor
        self.assertIn("Tensor", repr(x))
        example = Executorch.Program.new_from_file(os.path.join(EXAMPLE, "example.pte"))
        first = example.get_method_info("forward").get_input(0)
        np.testing.assert_array_equal(np.zeros(first.shape, first.dtype),
                                      np.zeros_like(np.load(os.path.join(EXAMPLE, "example.input.npy"))))


class InputsInOrder(unittest.TestCase):
    def test_dict_refused(self):
        method = load("add/add.pte")
        a = np.ones((2, 3), np.float32)
        calls = (lambda: method.run_arrays({"x": a, "y": a}),
                 lambda: method({"x": a, "y": a}),
                 lambda: method(x=a, y=a),
                 lambda: method.run_arrays_async({"x": a, "y": a}, lambda *args: None),
                 lambda: method.run({"x": Executorch.Tensor.new_from_numpy(a)}, None))
        for i, call in enumerate(calls):
            with self.subTest(call=i):
                with self.assertRaises(TypeError) as caught:
                    call()
                self.assertIn("in order, not by name", str(caught.exception))


class ErrorsByKind(unittest.TestCase):
    """Typed GLib.Error subclasses: caught by kind, by builtin and as GLib.Error."""

    def test_wrong_dtype_and_shape(self):
        method = load("add/add.pte")
        good = np.ones((2, 3), np.float32)
        for bad in (np.ones((2, 3), np.float64), np.ones((7, 7), np.float32)):
            with self.subTest(dtype=bad.dtype, shape=bad.shape):
                with self.assertRaises(Executorch.InvalidArgumentError) as caught:
                    method(bad, good)
                error = caught.exception
                self.assertIsInstance(error, GLib.Error)
                self.assertIsInstance(error, ValueError)
                self.assertTrue(error.matches(Executorch.error_quark(), Executorch.Error.INVALID_ARGUMENT))
                self.assertIn("InvalidArgumentError", repr(error))
        with self.assertRaises(Executorch.InvalidArgumentError):  # the plain typelib call too
            method.set_input(0, Executorch.Tensor.new_from_numpy(np.ones(3, np.int64)))
        with self.assertRaises(GLib.Error):  # still caught as GLib.Error
            method.run([Executorch.Tensor.new_from_numpy(np.ones(3, np.int64))] * 2, None)

    def test_other_errors_read_as_sentences(self):
        """Every runtime error is typed; str() is the message, with no "(code)"."""
        program = Executorch.Program.new_from_file(model("add/add.pte"))
        with self.assertRaises(Executorch.RuntimeError) as caught:
            program.load_method("no_such_method")
        error = caught.exception
        self.assertIsInstance(error, GLib.Error)
        self.assertTrue(error.matches(Executorch.error_quark(), Executorch.Error.NOT_FOUND))
        self.assertEqual(str(error), error.message)
        self.assertIn("no_such_method", str(error))
        self.assertFalse(str(error).rstrip().endswith(")"), str(error))
        method = load("add/add.pte")
        with self.assertRaises(Executorch.InvalidArgumentError) as caught:
            method(np.ones((2, 3), np.float64), np.ones((2, 3), np.float32))
        self.assertEqual(str(caught.exception), caught.exception.message)
        self.assertNotIn("(18)", str(caught.exception))

    def test_async_errors_by_kind(self):
        method = load("add/add.pte")
        with self.assertRaises(Executorch.InvalidArgumentError):
            method.run_arrays_async([np.ones(2, np.int64)] * 2, lambda *args: None)

        async def main():
            await method.run_arrays_asyncio([np.ones(2, np.int64)] * 2)
        with self.assertRaises(Executorch.InvalidArgumentError):
            asyncio.run(main())

    def test_missing_file(self):
        missing = os.path.join(HERE, "no-such-model.pte")
        calls = {
            "Program.new_from_file": lambda: Executorch.Program.new_from_file(pathlib.Path(missing)),
            "Program.new_from_file_with_data": lambda: Executorch.Program.new_from_file_with_data(
                model("mlp_external/mlp_external.pte"), [missing]),
            "BundledProgram.new_from_file": lambda: Executorch.BundledProgram.new_from_file(missing),
        }
        for name, call in calls.items():
            with self.subTest(call=name):
                with self.assertRaises(FileNotFoundError) as caught:  # the builtin
                    call()
                error = caught.exception
                self.assertIsInstance(error, Executorch.FileNotFoundError)
                self.assertIsInstance(error, GLib.Error)
                self.assertEqual(error.errno, errno.ENOENT)
                self.assertEqual(error.filename, missing)
                self.assertIn("no-such-model.pte", error.message)
        try:
            Executorch.Program.new_from_file(missing)
        except GLib.Error as error:  # the GLib.Error handler still runs
            self.assertIn(error.domain, ("executorch-error-quark", "g-io-error-quark"))
        else:
            self.fail("no error")

    def test_unreadable_is_not_missing(self):
        # A folder exists: its error keeps its plain GLib.Error type.
        with self.assertRaises(GLib.Error) as caught:
            Executorch.Program.new_from_file(HERE)
        self.assertNotIsInstance(caught.exception, FileNotFoundError)

    def test_missing_file_codes(self):
        # Today's code and G_IO_ERROR_NOT_FOUND (and GLib's G_FILE_ERROR_NOENT) all map.
        overrides = sys.modules["gi.overrides.Executorch"]
        missing = os.path.join(HERE, "no-such-model.pte")
        for domain, code in ((Executorch.error_quark(), Executorch.Error.ACCESS_FAILED),
                             (Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND),
                             (GLib.file_error_quark(), GLib.FileError.NOENT)):
            with self.subTest(domain=GLib.quark_to_string(domain)):
                plain = GLib.Error.new_literal(domain, "gone", int(code))
                typed = overrides._typed_error(plain, (missing,))
                self.assertIsInstance(typed, FileNotFoundError)
                self.assertTrue(typed.matches(domain, int(code)))
                self.assertEqual(typed.filename, missing)
        present = GLib.Error.new_literal(Executorch.error_quark(), "denied",
                                         int(Executorch.Error.ACCESS_FAILED))
        typed = overrides._typed_error(present, (HERE,))
        self.assertNotIsInstance(typed, FileNotFoundError)  # unreadable, not missing
        self.assertIsInstance(typed, Executorch.RuntimeError)
        self.assertTrue(typed.matches(Executorch.error_quark(), int(Executorch.Error.ACCESS_FAILED)))

    def test_operator_missing(self):
        # A fresh python with no kernel library: loading the method fails by kind.
        script = textwrap.dedent("""
            import gi
            gi.require_version("Executorch", "1.0")
            from gi.repository import Executorch, GLib
            program = Executorch.Program.new_from_file(%r)
            try:
                program.load_method("forward")
            except Executorch.OperatorMissingError as error:
                assert isinstance(error, GLib.Error)
                assert error.matches(Executorch.error_quark(), Executorch.Error.OPERATOR_MISSING)
                print("missing:", error.message)
        """ % os.path.join(EXAMPLE, "example.pte"))
        env = dict(os.environ, EXECUTORCH_MODULE_PATH="", EXECUTORCH_MODULE_SYSTEM_PATH="")
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("missing:", done.stdout)
        self.assertIn("aten::addmm.out", done.stdout)


class Docstrings(unittest.TestCase):
    def test_every_public_callable_has_a_docstring(self):
        overrides = sys.modules["gi.overrides.Executorch"]
        self.assertTrue(overrides.__doc__)
        checked = 0
        for name in overrides.__all__:
            item = getattr(overrides, name)
            with self.subTest(name=name):
                self.assertTrue((item.__doc__ or "").strip(), name)
            if not isinstance(item, type) or issubclass(item, BaseException):
                continue
            for attribute, value in vars(item).items():
                if attribute.startswith("_") and attribute not in ("__call__", "__array__"):
                    continue
                if not (callable(value) or isinstance(value, (property, classmethod, staticmethod))):
                    continue
                with self.subTest(name=f"{name}.{attribute}"):
                    self.assertTrue((getattr(item, attribute).__doc__ or "").strip())
                    checked += 1
        self.assertGreater(checked, 40)


class DocSnippets(unittest.TestCase):
    """Every ```python block of docs/python.md runs, from data/models/."""

    def test_python_md(self):
        import contextlib
        import io
        import re
        with open(os.path.join(HERE, "..", "..", "docs", "python.md")) as f:
            blocks = re.findall(r"^```python\n(.*?)^```$", f.read(), re.MULTILINE | re.DOTALL)
        self.assertGreaterEqual(len(blocks), 1)
        cwd = os.getcwd()
        os.chdir(EXAMPLE)
        try:
            for i, block in enumerate(blocks):
                with self.subTest(block=i):
                    out = io.StringIO()
                    try:
                        with contextlib.redirect_stdout(out):
                            exec(compile(block, f"docs/python.md block {i}", "exec"), {})
                    finally:  # a block may set PyGObject's GLib event loop policy
                        asyncio.set_event_loop_policy(None)
                    self.assertIn("class 0 score 0.3595", out.getvalue())
        finally:
            os.chdir(cwd)


class AsyncRuns(unittest.TestCase):
    def test_glib_main_loop(self):
        method = load("add/add.pte")
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        loop = GLib.MainLoop()
        results = []

        def done(source, result, tag):
            results.append((tag, source.run_arrays_finish(result)))
            loop.quit()

        method.run_arrays_async([a, a], done, "tag")
        GLib.timeout_add_seconds(30, loop.quit)
        loop.run()
        self.assertEqual(len(results), 1)
        tag, (out,) = results[0]
        self.assertEqual(tag, "tag")
        np.testing.assert_array_equal(out, 2 * a)

    def test_glib_main_loop_cancelled(self):
        method = load("add/add.pte")
        a = np.ones((2, 3), np.float32)
        cancellable = Gio.Cancellable()
        cancellable.cancel()
        loop = GLib.MainLoop()
        errors = []

        def done(source, result):
            try:
                source.run_arrays_finish(result)
            except GLib.Error as e:
                errors.append(e)
            loop.quit()

        method.run_arrays_async([a, a], done, cancellable=cancellable)
        GLib.timeout_add_seconds(30, loop.quit)
        loop.run()
        self.assertEqual(len(errors), 1)
        self.assertTrue(errors[0].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED), errors[0])

    def test_asyncio(self):
        method = load("add/add.pte")
        a = np.arange(6, dtype=np.float32).reshape(2, 3)

        async def main():
            ticks = 0
            task = asyncio.ensure_future(method.run_arrays_asyncio([a, a]))
            while not task.done():
                ticks += 1
                await asyncio.sleep(0)
            return await task, ticks

        (out,), ticks = asyncio.run(main())
        np.testing.assert_array_equal(out, 2 * a)
        self.assertGreaterEqual(ticks, 1)

    def cancel_while_awaited(self, run_until_complete):
        method = load("add/add.pte")
        a = np.ones((2, 3), np.float32)
        cancellable = Gio.Cancellable()

        async def main():
            task = asyncio.ensure_future(method.run_arrays_asyncio([a, a], cancellable))
            await asyncio.sleep(0)  # the task binds and starts the run
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            await asyncio.sleep(0)
        run_until_complete(main())
        self.assertTrue(cancellable.is_cancelled())

    def test_asyncio_cancelled(self):
        self.cancel_while_awaited(asyncio.run)

    def test_run_arrays_async_needs_a_callback_off_the_glib_event_loop(self):
        method = load("add/add.pte")
        a = np.ones((2, 3), np.float32)
        with self.assertRaisesRegex(TypeError, "needs a callback"):
            method.run_arrays_async([a, a])

        async def main():  # asyncio's own loop: run_arrays_asyncio, not this
            method.run_arrays_async([a, a])
        with self.assertRaisesRegex(TypeError, "run_arrays_asyncio"):
            asyncio.run(main())

    def glib_event_loop(self):
        """PyGObject's GLib event loop, set as asyncio's until the test ends.

        PyGObject 3.50 refuses asyncio.run() on the main thread (it already
        has GLib's default main context): the loop runs from the policy."""
        policy = glib_events.GLibEventLoopPolicy()
        asyncio.set_event_loop_policy(policy)
        self.addCleanup(asyncio.set_event_loop_policy, None)
        loop = policy.get_event_loop()
        self.addCleanup(loop.close)

        def no_executor(*args):
            raise AssertionError("ran in asyncio's executor, not on the GLib main loop")
        loop.run_in_executor = no_executor
        return loop

    @unittest.skipIf(glib_events is None, NO_GLIB_EVENTS)
    def test_await_on_the_glib_event_loop(self):
        method = load("add/add.pte")
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        loop = self.glib_event_loop()

        async def main():
            self.assertIs(asyncio.get_running_loop(), loop)
            x = Executorch.Tensor.new_from_numpy(a)
            method.set_input(0, x)
            method.set_input(1, x)
            ticks = 0
            run = method.execute_async()  # no callback: awaitable
            while not run.done():
                ticks += 1
                await asyncio.sleep(0)
            self.assertTrue(await run)
            direct = method.get_output(0).to_numpy()
            (via_asyncio,) = await method.run_arrays_asyncio([a, 3 * a])
            (via_async,) = await method.run_arrays_async([a, 4 * a])
            return direct, via_asyncio, via_async, ticks

        direct, via_asyncio, via_async, ticks = loop.run_until_complete(main())
        np.testing.assert_array_equal(direct, 2 * a)
        np.testing.assert_array_equal(via_asyncio, 4 * a)
        np.testing.assert_array_equal(via_async, 5 * a)
        self.assertGreaterEqual(ticks, 1)

    @unittest.skipIf(glib_events is None, NO_GLIB_EVENTS)
    def test_glib_event_loop_cancelled(self):
        self.cancel_while_awaited(self.glib_event_loop().run_until_complete)

    @unittest.skipIf(glib_events is None, NO_GLIB_EVENTS)
    def test_await_errors_on_the_glib_event_loop(self):
        method = load("add/add.pte")
        loop = self.glib_event_loop()
        cancelled = Gio.Cancellable()
        cancelled.cancel()

        async def main():
            with self.assertRaises(Executorch.InvalidArgumentError):  # no input set
                await method.execute_async()
            a = np.ones((2, 3), np.float32)
            with self.assertRaises(GLib.Error) as caught:
                await method.run_arrays_asyncio([a, a], cancelled)
            self.assertTrue(caught.exception.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED))
            with self.assertRaises(Executorch.InvalidArgumentError):  # at once, not awaited
                method.run_arrays_async([np.ones(2, np.int64)] * 2)
        loop.run_until_complete(main())


if __name__ == "__main__":
    unittest.main(verbosity=2)
