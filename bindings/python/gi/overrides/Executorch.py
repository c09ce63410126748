# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyGObject overrides for Executorch-1.0: numpy in and out, lists of arrays, asyncio.

Loaded by PyGObject on ``from gi.repository import Executorch``; every name of
the typelib stays as it is, these only add methods:

- ``Executorch.Tensor.new_from_numpy(a)`` and ``tensor.to_numpy()``;
- ``method(*inputs)`` / ``method.run_arrays(inputs)``: numpy arrays (or
  anything ``numpy.asarray`` takes) and Python scalars in, a list of numpy
  arrays and Python scalars out;
- ``method.run_arrays_async(inputs, callback)`` / ``method.run_arrays_finish(result)``
  on a GLib main loop, and ``await method.run_arrays_asyncio(inputs)`` for asyncio.

Errors are the runtime's: ``GLib.Error`` in the ``Executorch.error_quark()``
domain with an ``Executorch.Error`` code.
"""
import asyncio

from ..module import get_introspection_module
from ..overrides import override
from ..repository import GObject

Executorch = get_introspection_module("Executorch")

__all__ = []

try:
    import numpy as _np
except ImportError:  # the typelib stays usable without numpy
    _np = None


def _require_numpy():
    if _np is None:
        raise ImportError("Executorch.Tensor numpy helpers need numpy (python3-numpy)")
    return _np


_ST = Executorch.ScalarType
# numpy dtype name -> scalar type; and back.
_TO_SCALAR = {
    "uint8": _ST.BYTE, "int8": _ST.CHAR, "int16": _ST.SHORT, "int32": _ST.INT, "int64": _ST.LONG,
    "float16": _ST.HALF, "float32": _ST.FLOAT, "float64": _ST.DOUBLE,
    "complex64": _ST.COMPLEX_FLOAT, "complex128": _ST.COMPLEX_DOUBLE, "bool": _ST.BOOL,
    "uint16": _ST.UINT16, "uint32": _ST.UINT32, "uint64": _ST.UINT64,
}
_FROM_SCALAR = {int(v): k for k, v in _TO_SCALAR.items()}


def _scalar_type_for(dtype):
    try:
        return _TO_SCALAR[dtype.name]
    except KeyError:
        raise TypeError(f"numpy dtype {dtype} has no Executorch.ScalarType "
                        f"(supported: {', '.join(sorted(_TO_SCALAR))})") from None


class _Loan(GObject.Object):
    """Keeps a lent numpy array alive while a tensor borrows its memory.

    An object rather than a callback: PyGObject keeps a Python subclass's
    wrapper (and so ``array``) alive while C holds a reference, and dropping
    it runs no Python code, so a tensor may die at any time (even while an
    exception is being raised)."""


class Tensor(Executorch.Tensor):
    @classmethod
    def new_from_numpy(cls, array, copy=False):
        """Returns a host tensor over ``array``'s elements.

        Any dtype in the table above works (bool, uint8..uint64, int8..int64,
        float16/32/64, complex64/128); 0-d and empty arrays too.  A
        C-contiguous array in native byte order is **borrowed, not copied**
        (``Executorch.Tensor.new_borrowed``): the tensor keeps the array
        alive and sees later changes to it, so leave it unchanged while the
        tensor is in use.  Other arrays (non-contiguous, unaligned, byte-swapped) and
        ``copy=True`` cost exactly one copy, which the tensor owns.
        """
        np = _require_numpy()
        array = np.asarray(array)
        scalar_type = _scalar_type_for(array.dtype)
        if not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="), order="C")
        elif copy:
            array = np.array(array, order="C", copy=True)
        elif not (array.flags.c_contiguous and array.flags.aligned):
            array = np.array(array, order="C", copy=True)  # (ascontiguousarray makes 0-d 1-d)
        loan = _Loan()
        loan.array = array  # lives as long as the C side holds the _Loan
        return cls.new_borrowed(scalar_type, list(array.shape), array.ctypes.data, array.nbytes, loan)

    def to_numpy(self):
        """Returns a read-only numpy array of this tensor's elements.

        The array owns a copy (``tensor.get_bytes()``), so it stays valid
        after the tensor is gone and does not change when the method that
        produced a view runs again.  Use ``numpy.array(t.to_numpy())`` for a
        writable one.  Tensors in a non-default dim order come back with
        their logical shape (a strided view of the copy).
        """
        np = _require_numpy()
        name = _FROM_SCALAR.get(int(self.get_scalar_type()))
        if name is None:
            raise TypeError(f"no numpy dtype for {self.get_scalar_type().value_nick}")
        data = self.get_bytes().get_data() or b""
        sizes = list(self.get_sizes())
        order = list(self.get_dim_order())
        flat = np.frombuffer(data, dtype=np.dtype(name))
        if order == sorted(order):
            return flat.reshape(sizes)
        physical = flat.reshape([sizes[d] for d in order])
        return physical.transpose([order.index(d) for d in range(len(order))])


Tensor = override(Tensor)
__all__.append("Tensor")


_VK = Executorch.ValueKind


class Method(Executorch.Method):
    def _bind(self, inputs):
        inputs = list(inputs)
        n = self.get_n_inputs()
        if len(inputs) != n:
            raise TypeError(f"method '{self.get_name()}' takes {n} inputs, {len(inputs)} given")
        info = self.get_info()
        for i, value in enumerate(inputs):
            kind = info.get_input(i).get_kind()
            if isinstance(value, Executorch.Tensor):
                self.set_input(i, value)
            elif kind == _VK.BOOL:
                self.set_input_bool(i, bool(value))
            elif kind == _VK.INT:
                self.set_input_int(i, int(value))
            elif kind == _VK.DOUBLE:
                self.set_input_double(i, float(value))
            elif kind == _VK.TENSOR:
                np = _require_numpy()
                if not isinstance(value, np.ndarray):
                    # Lists and scalars take the input's own element type;
                    # an ndarray keeps its dtype, so a mismatch is reported.
                    expected = _FROM_SCALAR.get(int(info.get_input(i).get_scalar_type()))
                    value = np.asarray(value, dtype=expected)
                self.set_input(i, Tensor.new_from_numpy(value))
            else:
                raise TypeError(f"input {i} of '{self.get_name()}' is a {kind.value_nick}: "
                                "not settable from Python")

    def _outputs(self):
        results = []
        for i in range(self.get_n_outputs()):
            kind = self.get_output_kind(i)
            if kind == _VK.TENSOR:
                results.append(self.get_output(i).to_numpy())
            elif kind == _VK.INT:
                results.append(_value(self.get_output_int(i)))
            elif kind == _VK.DOUBLE:
                results.append(_value(self.get_output_double(i)))
            elif kind == _VK.BOOL:
                results.append(bool(_value(self.get_output_bool(i))))
            else:
                results.append(None)
        return results

    def run_arrays(self, inputs, cancellable=None):
        """Binds ``inputs``, executes once and returns the outputs as a list.

        Tensor inputs take numpy arrays (their dtype and shape must match the
        method's input, else ``GLib.Error`` with ``Executorch.Error.INVALID_ARGUMENT``),
        ``Executorch.Tensor`` objects, or lists/scalars (converted to the
        input's element type).  Scalar inputs take Python numbers.  Tensor
        outputs come back as numpy arrays that own a copy; scalar outputs as
        Python ``int``/``float``/``bool``.
        """
        self._bind(inputs)
        self.execute(cancellable)
        return self._outputs()

    def __call__(self, *inputs):
        return self.run_arrays(inputs)

    def run_arrays_async(self, inputs, callback, *user_data, cancellable=None):
        """Binds ``inputs`` and executes in a worker thread.

        ``callback(method, result, *user_data)`` runs on the calling thread's
        GLib main context once done; call ``method.run_arrays_finish(result)``
        there for the outputs.  Binding errors raise here, at once.
        """
        self._bind(inputs)
        self.execute_async(cancellable, lambda source, result: callback(source, result, *user_data))

    def run_arrays_finish(self, result):
        """Finishes ``run_arrays_async``: the outputs, or ``GLib.Error``."""
        self.execute_finish(result)
        return self._outputs()

    async def run_arrays_asyncio(self, inputs, cancellable=None):
        """Coroutine form of ``run_arrays`` for asyncio programs.

        The execution runs in the event loop's default executor (PyGObject
        drops the GIL during the call), so the asyncio loop keeps running and
        no GLib main loop is needed.
        """
        self._bind(inputs)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self.execute, cancellable)
        return self._outputs()


def _value(returned):
    # PyGObject 3.42 returns (ok, value) for a boolean-returning function with
    # an out argument and an error; later versions may drop the boolean.
    if isinstance(returned, tuple):
        return returned[-1]
    return returned


Method = override(Method)
__all__.append("Method")
