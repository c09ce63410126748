#!/usr/bin/python3
"""The PyGObject override module (bindings/python/gi/overrides/Executorch.py):
numpy round trips, lists of arrays through methods, errors and async runs."""
import asyncio
import os
import unittest

import gi
gi.require_version("Executorch", "1.0")
from gi.repository import Executorch, Gio, GLib  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.environ.get("TEST_MODELS_DIR", os.path.join(HERE, "..", "models"))
EXAMPLE = os.path.join(HERE, "..", "..", "data", "models")


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
                    with contextlib.redirect_stdout(out):
                        exec(compile(block, f"docs/python.md block {i}", "exec"), {})
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
