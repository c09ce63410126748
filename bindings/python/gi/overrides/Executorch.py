# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyGObject overrides for Executorch-1.0: numpy in and out, lists of arrays, asyncio.

Loaded by PyGObject on ``from gi.repository import Executorch``; every name of
the typelib stays as it is, these only add methods:

- ``Executorch.Tensor.new_from_numpy(a)`` and ``tensor.to_numpy()``;
- ``method(*inputs)`` / ``method.run_arrays(inputs)``: numpy arrays (or
  anything ``numpy.asarray`` takes) and Python scalars in, a list of numpy
  arrays and Python scalars out;
- ``method.run_arrays_async(inputs, callback)`` / ``method.run_arrays_finish(result)``
  on a GLib main loop, and ``await method.run_arrays_asyncio(inputs)`` for asyncio
  (on PyGObject 3.50's GLib event loop, ``gi.events``, it runs on the GLib
  main loop; elsewhere in asyncio's executor); on that GLib event loop
  ``await method.execute_async()`` and ``await method.run_arrays_async(inputs)``
  work too, their errors raised by kind;
- ``tensor.shape``, ``tensor.dtype``, ``numpy.asarray(tensor)`` and a readable
  ``repr``; ``value_info.shape`` and ``value_info.dtype``;
- paths as ``str``, ``bytes`` or ``os.PathLike``; program contents as ``bytes``.

Errors are the runtime's ``GLib.Error`` (domain ``Executorch.error_quark()``,
an ``Executorch.Error`` code), raised as a subclass naming its kind where
there is one: ``Executorch.InvalidArgumentError`` (also a ``ValueError``),
``Executorch.OperatorMissingError`` and ``Executorch.FileNotFoundError``
(also the builtin ``FileNotFoundError``).  ``except GLib.Error`` still
catches them all.
"""
import asyncio
import builtins
import collections.abc
import errno
import os

import gi

from ..module import get_introspection_module
from ..overrides import override
from ..repository import Gio, GLib, GObject

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


def _numpy_dtype_name(scalar_type):
    """The numpy dtype name arrays of ``scalar_type`` come back as, or None.

    numpy has no bfloat16: it widens to float32, which holds every bfloat16
    value exactly (a bfloat16 is the top half of a float32)."""
    if scalar_type == _ST.BFLOAT16:
        return "float32"
    return _FROM_SCALAR.get(int(scalar_type))


# Errors by kind.  Each is a GLib.Error (same message, domain and code, so
# ``except GLib.Error`` and ``e.matches()`` keep working) and, where Python
# has one, the builtin exception of that kind.

class _KindOfError:
    def __repr__(self):
        return f"Executorch.{type(self).__name__}({self.message!r}, {self.domain!r}, {self.code})"

    def __str__(self):
        # The sentence alone: the domain and code are attributes, not words.
        return self.message


class RuntimeError(_KindOfError, GLib.Error):
    """Any other failure the runtime reports (``Executorch.Error`` domain).

    A ``GLib.Error``: ``e.code`` is the ``Executorch.Error`` value and
    ``str(e)`` the message alone."""


class InvalidArgumentError(_KindOfError, GLib.Error, ValueError):
    """A value the caller gave is wrong: an input's dtype or shape, an index.

    Raised for ``Executorch.Error.INVALID_ARGUMENT``; a ``GLib.Error`` and a
    ``ValueError``."""


class OperatorMissingError(_KindOfError, GLib.Error):
    """The program uses an operator no installed kernel library provides.

    Raised for ``Executorch.Error.OPERATOR_MISSING`` (the message names the
    operators and the package to install); a ``GLib.Error``."""


class FileNotFoundError(_KindOfError, GLib.Error, builtins.FileNotFoundError):
    """A program, bundled program or data file does not exist.

    A ``GLib.Error`` with the runtime's domain and code, and the builtin
    ``FileNotFoundError`` (``errno.ENOENT``, ``filename`` the path when
    known)."""


__all__ += ["RuntimeError", "InvalidArgumentError", "OperatorMissingError", "FileNotFoundError"]

_ERROR_DOMAIN = GLib.quark_to_string(Executorch.error_quark())
_NOT_FOUND_ERRORS = {("g-io-error-quark", 1),   # G_IO_ERROR_NOT_FOUND
                     ("g-file-error-quark", 4)}  # G_FILE_ERROR_NOENT


def _kind_of_error(error, paths):
    """The subclass ``error`` is raised as, and the missing path if any."""
    missing = next((path for path in paths if not os.path.exists(path)), None)
    if (error.domain, error.code) in _NOT_FOUND_ERRORS:
        return FileNotFoundError, missing
    if error.domain != _ERROR_DOMAIN:
        return None, None
    if error.code == int(Executorch.Error.INVALID_ARGUMENT):
        return InvalidArgumentError, None
    if error.code == int(Executorch.Error.OPERATOR_MISSING):
        return OperatorMissingError, None
    # Reading a file that is not there is ACCESS_FAILED, like any other
    # unreadable file: only a path that does not exist says which.
    if error.code == int(Executorch.Error.ACCESS_FAILED) and missing is not None:
        return FileNotFoundError, missing
    return RuntimeError, None


def _typed_error(error, paths=()):
    """Returns ``error`` as the subclass naming its kind, or as it is."""
    if type(error) is not GLib.Error:
        return error  # already typed
    kind, path = _kind_of_error(error, paths)
    if kind is None:
        return error
    typed = kind(error.message, error.domain, error.code)
    if isinstance(typed, OSError):
        typed.errno, typed.strerror, typed.filename = errno.ENOENT, error.message, path
    return typed


def _call(function, *args, paths=()):
    try:
        return function(*args)
    except GLib.Error as error:
        typed = _typed_error(error, paths)
        if typed is error:
            raise
        raise typed.with_traceback(error.__traceback__) from None


def _raising_by_kind(function, name):
    """Wraps a typelib function so its GLib.Error comes typed."""
    def call(*args):
        return _call(function, *args)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"{function.__doc__}\n\nThe typelib's call; its GLib.Error is raised as "
                    "Executorch.InvalidArgumentError, OperatorMissingError or "
                    "FileNotFoundError where it is of that kind.")
    return call


def _raise_by_kind(cls):
    """Class decorator: every throwing typelib function of ``cls``'s
    introspected base that ``cls`` does not define raises errors by kind."""
    base = cls.__bases__[0]
    for info in base.__info__.get_methods():
        name = info.get_name()
        if not info.can_throw_gerror() or name in vars(cls):
            continue
        call = _raising_by_kind(getattr(base, name), name)
        setattr(cls, name, call if info.is_method() else staticmethod(call))
    return cls


def _glib_event_loop():
    """The running asyncio loop if it is PyGObject's GLib one, else None.

    ``gi.events`` (PyGObject 3.50+) makes a Gio-style async call without a
    callback awaitable while its ``GLibEventLoop`` runs; earlier PyGObject
    has no ``gi.events``.  A program running that loop has imported it, so
    its absence from ``gi`` means no GLib event loop runs."""
    events = getattr(gi, "events", None)
    if events is None:
        return None
    try:
        loop = asyncio.get_running_loop()
    except builtins.RuntimeError:
        return None
    return loop if isinstance(loop, events.GLibEventLoop) else None


async def _by_kind(pending):
    """Awaits PyGObject's awaitable of a run, raising its error by kind."""
    try:
        return await pending
    except GLib.Error as error:
        typed = _typed_error(error)
        if typed is error:
            raise
        raise typed.with_traceback(error.__traceback__) from None


def _cancels(future, cancellable):
    """Cancelling the asyncio ``future`` of a run cancels its ``cancellable``."""
    future.add_done_callback(lambda done: done.cancelled() and cancellable.cancel())
    return future


def _path(path):
    """``path`` (str, bytes or os.PathLike) as PyGObject takes a filename."""
    return os.fspath(path)


def _glib_bytes(data):
    """``data`` (GLib.Bytes, bytes, bytearray, memoryview...) as GLib.Bytes."""
    if isinstance(data, GLib.Bytes):
        return data
    return GLib.Bytes.new(bytes(data))


def _init_and_load(self, **properties):
    """Builds the object from its properties (``Executorch.Program(path=...)``)
    and raises the load's error here, by kind, as the ``new_*`` constructors
    do: PyGObject's own constructor never calls ``Gio.Initable.init``."""
    # Path properties are strings: a bytes path would become "b'...'".
    if properties.get("path") is not None:
        properties["path"] = os.fsdecode(properties["path"])
    if properties.get("data_paths") is not None:
        properties["data_paths"] = [os.fsdecode(p) for p in properties["data_paths"]]
    if properties.get("bytes") is not None:
        properties["bytes"] = _glib_bytes(properties["bytes"])
    GObject.Object.__init__(self, **properties)
    paths = [properties["path"]] if properties.get("path") is not None else []
    _call(self.init, None, paths=paths + list(properties.get("data_paths") or ()))


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

        numpy has no bfloat16: a BFLOAT16 tensor comes back as float32, each
        value widened exactly (its 16 bits become a float32's top half).
        """
        np = _require_numpy()
        scalar_type = self.get_scalar_type()
        name = _numpy_dtype_name(scalar_type)
        if name is None:
            raise TypeError(f"no numpy dtype for {scalar_type.value_nick}")
        data = self.get_bytes().get_data() or b""
        sizes = list(self.get_sizes())
        order = list(self.get_dim_order())
        if scalar_type == _ST.BFLOAT16:
            flat = _widen_bfloat16(np.frombuffer(data, dtype=np.uint16))
        else:
            flat = np.frombuffer(data, dtype=np.dtype(name))
        if order == sorted(order):
            return flat.reshape(sizes)
        physical = flat.reshape([sizes[d] for d in order])
        return physical.transpose([order.index(d) for d in range(len(order))])

    @property
    def shape(self):
        """The sizes as a tuple, like ``numpy.ndarray.shape``."""
        return tuple(self.get_sizes())

    @property
    def dtype(self):
        """The numpy dtype of ``to_numpy()``: float32 for a bfloat16 tensor.

        Raises ``TypeError`` for a scalar type numpy cannot hold (quantized,
        bit-packed, float8, complex half)."""
        scalar_type = self.get_scalar_type()
        name = _numpy_dtype_name(scalar_type)
        if name is None:
            raise TypeError(f"no numpy dtype for {scalar_type.value_nick}")
        return _require_numpy().dtype(name)

    def __array__(self, dtype=None, copy=None):
        """``numpy.asarray(tensor)``: the elements, as ``to_numpy()`` gives them.

        ``dtype`` converts them.  The tensor's memory is never shared, so
        ``copy=False`` (numpy 2) raises ``ValueError``; ``copy=True`` gives a
        writable array."""
        if copy is False:
            raise ValueError("an Executorch.Tensor always converts with a copy")
        array = self.to_numpy()
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        if copy:
            array = _require_numpy().array(array, copy=True)
        return array

    def __repr__(self):
        scalar_type = self.get_scalar_type()
        exact = _FROM_SCALAR.get(int(scalar_type), scalar_type.value_nick)
        return (f"<Executorch.Tensor dtype={exact} shape={self.shape} "
                f"device={self.get_device().get_name()}>")


def _widen_bfloat16(bits):
    """bfloat16 bit patterns (uint16) as the float32 values they are, read-only."""
    widened = (bits.astype("uint32") << 16).view("float32")
    widened.flags.writeable = False
    return widened


Tensor = override(_raise_by_kind(Tensor))
__all__.append("Tensor")


_VK = Executorch.ValueKind


def _positional(method, inputs):
    """``inputs`` as a list, refusing a dict: inputs have no names."""
    if isinstance(inputs, collections.abc.Mapping) or any(
            isinstance(value, collections.abc.Mapping) for value in inputs):
        raise TypeError(f"method '{method.get_name()}' takes its inputs in order, not by name: "
                        "pass a list such as [x, y] (or call method(x, y)), not a dict")
    return list(inputs)


class Method(Executorch.Method):
    __init__ = _init_and_load

    def _bind(self, inputs):
        inputs = _positional(self, inputs)
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

    def __call__(self, *inputs, **named):
        """``method(x, y)``: ``run_arrays([x, y])``."""
        if named:
            raise TypeError(f"method '{self.get_name()}' takes its inputs in order, not by name: "
                            f"call method(x, y), not method({next(iter(named))}=...)")
        return self.run_arrays(inputs)

    def run(self, inputs, cancellable=None):
        """The typelib's ``run``: binds tensors, executes, returns views.

        ``inputs`` is a list of ``Executorch.Tensor`` (a dict raises
        ``TypeError``); the outputs are the method's own tensors, overwritten
        by the next run.  Errors are raised by kind."""
        return _call(super().run, _positional(self, inputs), cancellable)

    def write_etdump(self, path):
        """Writes the ETDump to ``path`` (str, bytes or os.PathLike)."""
        return _call(super().write_etdump, _path(path))

    def execute_async(self, cancellable=None, callback=None, *user_data):
        """Executes in a worker thread (the typelib's ``execute_async``).

        ``callback(method, result, *user_data)`` runs on the calling thread's
        GLib main context once done; ``method.execute_finish(result)`` there
        ends the run.  Without a callback, in a coroutine on PyGObject 3.50's
        GLib event loop (``gi.events.GLibEventLoop``), it returns an awaitable
        (an asyncio Task): ``await method.execute_async()`` raises errors by
        kind, and cancelling it cancels the run.  Elsewhere a run without a
        callback goes unobserved.
        """
        if callback is None and _glib_event_loop() is not None:
            cancellable = Gio.Cancellable() if cancellable is None else cancellable
            return _cancels(asyncio.ensure_future(_by_kind(super().execute_async(cancellable))),
                            cancellable)
        return super().execute_async(cancellable, callback, *user_data)

    def run_arrays_async(self, inputs, callback=None, *user_data, cancellable=None):
        """Binds ``inputs`` and executes in a worker thread.

        ``callback(method, result, *user_data)`` runs on the calling thread's
        GLib main context once done; call ``method.run_arrays_finish(result)``
        there for the outputs.  Binding errors raise here, at once.  Without a
        callback, on PyGObject 3.50's GLib event loop (``gi.events``), it
        returns an awaitable of the outputs: ``await method.run_arrays_async(inputs)``.
        """
        if callback is None and _glib_event_loop() is None:
            raise TypeError("run_arrays_async() needs a callback, except in a coroutine on "
                            "PyGObject 3.50's GLib event loop (gi.events.GLibEventLoopPolicy); "
                            "on other asyncio loops use 'await method.run_arrays_asyncio(inputs)'")
        self._bind(inputs)
        if callback is None:
            cancellable = Gio.Cancellable() if cancellable is None else cancellable
            return _cancels(asyncio.ensure_future(self._outputs_after(self.execute_async(cancellable))),
                            cancellable)
        self.execute_async(cancellable, lambda source, result: callback(source, result, *user_data))

    async def _outputs_after(self, run):
        await run
        return self._outputs()

    def run_arrays_finish(self, result):
        """Finishes ``run_arrays_async``: the outputs, or ``GLib.Error``."""
        self.execute_finish(result)
        return self._outputs()

    async def run_arrays_asyncio(self, inputs, cancellable=None):
        """Coroutine form of ``run_arrays`` for asyncio programs.

        On PyGObject 3.50's GLib event loop (``gi.events``) the execution
        runs as ``execute_async`` does, in a worker thread finishing on the
        GLib main loop; on any other asyncio loop (and on PyGObject 3.42) in
        the loop's default executor (PyGObject drops the GIL during the call),
        with no GLib main loop needed.  Either way the asyncio loop keeps
        running, and cancelling the awaiting task cancels the run (its
        ``cancellable``, checked between instructions).
        """
        self._bind(inputs)
        cancellable = Gio.Cancellable() if cancellable is None else cancellable
        if _glib_event_loop() is not None:
            await self.execute_async(cancellable)
        else:
            await _cancels(asyncio.get_running_loop().run_in_executor(None, self.execute, cancellable),
                           cancellable)
        return self._outputs()


def _value(returned):
    # PyGObject 3.42 returns (ok, value) for a boolean-returning function with
    # an out argument and an error; later versions may drop the boolean.
    if isinstance(returned, tuple):
        return returned[-1]
    return returned


Method = override(_raise_by_kind(Method))
__all__.append("Method")


class ValueInfo(Executorch.ValueInfo):
    @property
    def shape(self):
        """The sizes of a tensor value as a tuple (its upper bound when dynamic)."""
        return tuple(self.get_sizes())

    @property
    def dtype(self):
        """The numpy dtype this tensor value is exchanged as, or None.

        A bfloat16 value comes back as float32 (see ``Tensor.to_numpy``); a
        value that is not a tensor, or has no numpy dtype, gives None."""
        if self.get_kind() != _VK.TENSOR:
            return None
        name = _numpy_dtype_name(self.get_scalar_type())
        return None if name is None else _require_numpy().dtype(name)

    def __repr__(self):
        return f"<Executorch.ValueInfo {self.to_string()}>"


ValueInfo = override(ValueInfo)
__all__.append("ValueInfo")


class Program(Executorch.Program):
    __init__ = _init_and_load

    @classmethod
    def new_from_file(cls, path):
        """Loads the program at ``path`` (str, bytes or os.PathLike).

        A path that does not exist raises ``Executorch.FileNotFoundError``."""
        path = _path(path)
        return _call(super().new_from_file, path, paths=(path,))

    @classmethod
    def new_from_file_with_data(cls, path, data_paths):
        """Loads the program at ``path`` with its external data files (.ptd).

        Every path may be str, bytes or os.PathLike; a missing one raises
        ``Executorch.FileNotFoundError`` naming it."""
        path, data_paths = _path(path), [_path(p) for p in data_paths]
        return _call(super().new_from_file_with_data, path, data_paths, paths=(path, *data_paths))

    @classmethod
    def new_from_bytes(cls, data):
        """Loads a program from its contents: bytes, bytearray, memoryview or GLib.Bytes."""
        return _call(super().new_from_bytes, _glib_bytes(data))

    @classmethod
    def new_from_bytes_with_data(cls, data, external_data):
        """Loads a program and its external data from contents (bytes or GLib.Bytes each)."""
        return _call(super().new_from_bytes_with_data, _glib_bytes(data),
                     [_glib_bytes(d) for d in external_data])


Program = override(_raise_by_kind(Program))
__all__.append("Program")


class BundledProgram(Executorch.BundledProgram):
    __init__ = _init_and_load

    @classmethod
    def new_from_file(cls, path):
        """Loads the bundled program at ``path`` (str, bytes or os.PathLike).

        A path that does not exist raises ``Executorch.FileNotFoundError``."""
        path = _path(path)
        return _call(super().new_from_file, path, paths=(path,))

    @classmethod
    def new_from_bytes(cls, data):
        """Loads a bundled program from its contents: bytes, bytearray, memoryview or GLib.Bytes."""
        return _call(super().new_from_bytes, _glib_bytes(data))


BundledProgram = override(_raise_by_kind(BundledProgram))
__all__.append("BundledProgram")


class Device(Executorch.Device):
    pass


Device = override(_raise_by_kind(Device))
__all__.append("Device")


def load_plugins():
    """The typelib's ``load_plugins``, its errors raised by kind."""
    return _call(Executorch.load_plugins)


__all__.append("load_plugins")
