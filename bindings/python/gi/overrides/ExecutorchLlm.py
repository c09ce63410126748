# SPDX-License-Identifier: LGPL-2.1-or-later
"""PyGObject overrides for ExecutorchLlm-1.0: streams, keyword settings, typed errors.

Loaded by PyGObject on ``from gi.repository import ExecutorchLlm``; every name
of the typelib stays as it is, these only add to it:

- ``for piece in generator.generate_stream(prompt, max_new_tokens=32,
  temperature=0)``: the text as it comes, from a plain loop that pulls an
  ``ExecutorchLlm.TextStream`` (each step runs the model just far enough
  for the next piece; leaving the loop ends the generation there);
  ``generator.stream(prompt, ...)`` is that stream, iterable and a context
  manager;
- ``async for piece in generator.generate_async_stream(prompt, ...)`` in
  asyncio: on PyGObject 3.50's GLib event loop (``gi.events``) the pieces
  come from ``generate_async`` on the GLib main loop; on any other asyncio
  loop (PyGObject 3.42 has no GLib one) the generation runs in the loop's
  executor and its pieces are handed to the loop;
- ``generator.generate(prompt, max_new_tokens=32, temperature=0)``: the
  settings as keyword arguments (``GenerationConfig`` property names, with
  underscores), alone or over a ``config``; also ``generate_stream`` and
  ``generate_async_stream``; ``ExecutorchLlm.GenerationConfig(top_k=40)``;
- on PyGObject 3.50's GLib event loop, ``await generator.generate_async(prompt)``;
- ``ExecutorchLlm.Tokenizer.new_from_file(path)`` and
  ``ExecutorchLlm.Generator.new(model_path, tokenizer=...)`` with paths as
  ``str``, ``bytes`` or ``os.PathLike`` and keyword defaults;
  ``ExecutorchLlm.Generator(program=..., tokenizer=...)`` raises at once;
- ``stats.to_dict()``: upstream's ``PyTorchObserver`` report as a dict.

Errors are ``GLib.Error`` raised as a subclass naming their kind:
``ExecutorchLlm.TokenizationError`` (a tokenizer file or text it cannot
take; also a ``ValueError``), ``ExecutorchLlm.ContextFullError`` (the prompt does
not fit in what is left of the context: ``generator.reset()`` makes room),
``ExecutorchLlm.GenerationError`` (the generator's other errors),
``ExecutorchLlm.FileNotFoundError`` (also the builtin one), and the model's
own errors as the Executorch override raises them.  ``except GLib.Error``
still catches them all.
"""
import asyncio
import builtins
import errno
import json
import os

import gi

from ..module import get_introspection_module
from ..overrides import override
from ..repository import GLib, GObject

ExecutorchLlm = get_introspection_module("ExecutorchLlm")

__all__ = []

try:  # the core override types the model's errors (Executorch.RuntimeError...)
    from ..repository import Executorch as _core
except ImportError:  # pragma: no cover - ExecutorchLlm needs Executorch's typelib
    _core = None


# ---- errors by kind ------------------------------------------------------

class _KindOfError:
    def __repr__(self):
        return f"ExecutorchLlm.{type(self).__name__}({self.message!r}, {self.domain!r}, {self.code})"

    def __str__(self):
        return self.message


class TokenizationError(_KindOfError, GLib.Error, ValueError):
    """A tokenizer file that cannot be read as a tokenizer, or text or token
    ids it cannot take (``e.code`` is an ``ExecutorchLlm.TokenizerError``
    value; the enumeration keeps its name).  A ``ValueError``."""


class GenerationError(_KindOfError, GLib.Error):
    """An error of the generator: a program it cannot drive, a setting out
    of range, a generator already generating... (``e.code`` is an
    ``ExecutorchLlm.GeneratorError`` value; the enumeration keeps its name)."""


class ContextFullError(GenerationError):
    """The prompt does not fit in what is left of the model's context (its
    KV cache), or the context is already full: ``generator.reset()`` starts
    a new conversation.  ``e.code`` is ``GeneratorError.PROMPT_TOO_LONG`` or
    ``GeneratorError.CONTEXT_FULL``."""


class FileNotFoundError(_KindOfError, GLib.Error, builtins.FileNotFoundError):
    """A model, data or tokenizer file does not exist; also the builtin
    ``FileNotFoundError`` (``errno.ENOENT``, ``filename`` the path)."""


__all__ += ["TokenizationError", "GenerationError", "ContextFullError", "FileNotFoundError"]

_TOKENIZER_DOMAIN = GLib.quark_to_string(ExecutorchLlm.tokenizer_error_quark())
_GENERATOR_DOMAIN = GLib.quark_to_string(ExecutorchLlm.generator_error_quark())
_NOT_FOUND_ERRORS = {("g-io-error-quark", 1),   # G_IO_ERROR_NOT_FOUND
                     ("g-file-error-quark", 4)}  # G_FILE_ERROR_NOENT
_CONTEXT_CODES = {int(ExecutorchLlm.GeneratorError.PROMPT_TOO_LONG), int(ExecutorchLlm.GeneratorError.CONTEXT_FULL)}


def _typed_error(error, paths=()):
    """``error`` as the subclass naming its kind, or as it is."""
    if type(error) is not GLib.Error:
        return error
    missing = next((os.fsdecode(p) for p in paths if p is not None and not os.path.exists(p)), None)
    if (error.domain, error.code) in _NOT_FOUND_ERRORS:
        kind = FileNotFoundError
    elif error.domain == _TOKENIZER_DOMAIN:
        kind = TokenizationError
    elif error.domain == _GENERATOR_DOMAIN:
        kind = ContextFullError if error.code in _CONTEXT_CODES else GenerationError
    elif _core is not None and hasattr(_core, "_typed_error"):
        return _core._typed_error(error, paths)
    else:
        return error
    typed = kind(error.message, error.domain, error.code)
    if kind is FileNotFoundError:
        typed.errno, typed.strerror, typed.filename = errno.ENOENT, error.message, missing
    return typed


def _raise_typed(error, paths=()):
    typed = _typed_error(error, paths)
    if typed is error:
        raise error
    raise typed.with_traceback(error.__traceback__) from None


def _call(function, *args, paths=()):
    try:
        return function(*args)
    except GLib.Error as error:
        _raise_typed(error, paths)


def _glib_event_loop():
    """The running asyncio loop if it is PyGObject 3.50's GLib one, else None."""
    events = getattr(gi, "events", None)
    if events is None:
        return None
    try:
        loop = asyncio.get_running_loop()
    except builtins.RuntimeError:
        return None
    return loop if isinstance(loop, events.GLibEventLoop) else None


# ---- settings ------------------------------------------------------------

_SETTINGS = ("max_new_tokens", "temperature", "top_p", "top_k", "seed", "stop_strings", "n_bos", "n_eos",
             "ignore_eos", "echo")


def _apply(config, settings):
    """Sets the keyword ``settings`` on ``config``: a ``TypeError`` names an
    unknown one, a ``ValueError`` one out of range (checked here: GObject
    would only warn and leave the value as it was)."""
    unknown = sorted(set(settings) - set(_SETTINGS))
    if unknown:
        raise TypeError(f"unknown generation setting {', '.join(unknown)} (known: {', '.join(_SETTINGS)})")
    for name, value in settings.items():
        prop = name.replace("_", "-")
        if name == "stop_strings":
            value = [value] if isinstance(value, str) else (list(value) if value is not None else None)
        elif not isinstance(value, bool) and name in ("ignore_eos", "echo"):
            raise TypeError(f"generation setting {name} takes True or False, not {value!r}")
        else:
            pspec = config.find_property(prop)
            low, high = getattr(pspec, "minimum", None), getattr(pspec, "maximum", None)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                if name not in ("ignore_eos", "echo"):
                    raise TypeError(f"generation setting {name} takes a number, not {value!r}")
            elif low is not None and not low <= value <= high:
                raise ValueError(f"generation setting {name}={value!r} is out of range ({low} to {high})")
        config.set_property(prop, value)


def _config(config, settings):
    """``config`` (or the defaults) with the keyword ``settings`` applied, as
    a new GenerationConfig; ``config`` itself when there are none."""
    if not settings:
        return config
    made = config.copy() if config is not None else ExecutorchLlm.GenerationConfig.new()
    _apply(made, settings)
    return made


class GenerationConfig(ExecutorchLlm.GenerationConfig):
    """The settings of a generation; ``GenerationConfig(max_new_tokens=64,
    temperature=0)`` takes them as keyword arguments (a ``ValueError`` names
    one out of range, a ``TypeError`` an unknown one)."""

    def __init__(self, **settings):
        GObject.Object.__init__(self)
        _apply(self, settings)

    def __repr__(self):
        values = ", ".join(f"{name}={self.get_property(name.replace('_', '-'))!r}" for name in _SETTINGS)
        return f"ExecutorchLlm.GenerationConfig({values})"


GenerationConfig = override(GenerationConfig)
__all__.append("GenerationConfig")


# ---- tokenizer -------------------------------------------------------------

class Tokenizer(ExecutorchLlm.Tokenizer):
    """Text to token ids and back; errors raised by kind."""

    @classmethod
    def new_from_file(cls, path):
        """The tokenizer in the file at ``path`` (str, bytes or os.PathLike),
        its format recognised from its contents."""
        return _call(super().new_from_file, os.fspath(path), paths=[path])

    @classmethod
    def new_from_file_with_format(cls, path, format):
        """The tokenizer in the file at ``path``, read as ``format`` (an
        ``ExecutorchLlm.TokenizerFormat``)."""
        return _call(super().new_from_file_with_format, os.fspath(path), format, paths=[path])

    @classmethod
    def new_from_bytes(cls, data, format=ExecutorchLlm.TokenizerFormat.AUTO):
        """The tokenizer in ``data`` (bytes or GLib.Bytes)."""
        if not isinstance(data, GLib.Bytes):
            data = GLib.Bytes.new(bytes(data))
        return _call(super().new_from_bytes, data, format)

    def encode(self, text, n_bos=0, n_eos=0):
        """The token ids of ``text`` (a list), after ``n_bos`` BOS tokens and
        before ``n_eos`` EOS tokens."""
        return list(_call(super().encode, text, n_bos, n_eos))

    def decode(self, ids):
        """The text of the token ids ``ids``."""
        return _call(super().decode, list(ids))

    def decode_token(self, previous, id):
        """The bytes of token ``id`` after token ``previous`` (-1: none)."""
        return bytes(_call(super().decode_token, previous, id).get_data() or b"")


Tokenizer = override(Tokenizer)
__all__.append("Tokenizer")


# ---- generator -------------------------------------------------------------

class TextStream(ExecutorchLlm.TextStream):
    """The text of one generation, pulled a piece at a time: an iterator of
    its pieces and a context manager that closes it."""

    def __iter__(self):
        return self

    def __next__(self):
        if not _call(super().next):
            raise StopIteration
        return self.get()

    def next(self):
        """Runs the generation to its next piece (``get()``); ``False`` at the end."""
        return _call(super().next)

    def next_finish(self, result):
        """The outcome of a ``next_async``, its error raised by kind."""
        return _call(super().next_finish, result)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False


TextStream = override(TextStream)
__all__.append("TextStream")


class Generator(ExecutorchLlm.Generator):
    """Generates text with an exported language model.

    ``ExecutorchLlm.Generator.new(model_path, tokenizer=tokenizer)`` or
    ``ExecutorchLlm.Generator(program=program, tokenizer=tokenizer)``; then
    ``generate``, ``generate_stream`` or ``generate_async_stream``, whose
    keyword settings are ``GenerationConfig``'s.  The conversation goes on
    from one generation to the next until ``reset()``.
    """

    def __init__(self, **properties):
        GObject.Object.__init__(self, **properties)
        _call(self.init, None)

    @classmethod
    def new(cls, model_path, data_paths=None, tokenizer=None, cancellable=None):
        """Loads the program at ``model_path`` (with its ``.ptd`` files
        ``data_paths``) for ``tokenizer``."""
        if tokenizer is None:
            raise TypeError("Generator.new() needs a tokenizer")
        paths = [os.fspath(model_path)] + [os.fspath(p) for p in data_paths or ()]
        return _call(super().new, paths[0], paths[1:] or None, tokenizer, cancellable, paths=paths)

    @classmethod
    def new_for_program(cls, program, tokenizer, cancellable=None):
        """A generator for the loaded ``program`` (an Executorch.Program)."""
        return _call(super().new_for_program, program, tokenizer, cancellable)

    def generate(self, prompt, config=None, cancellable=None, **settings):
        """Generates after ``prompt`` and returns the text; the ``text``
        signal gives it piece by piece meanwhile.  Keyword ``settings``
        (``max_new_tokens=32, temperature=0, stop_strings=[...]``...) apply
        over ``config``."""
        return _call(super().generate, prompt, _config(config, settings), cancellable)

    def generate_tokens(self, ids, config=None, cancellable=None, **settings):
        """Generates after the prompt already encoded as ``ids``."""
        return _call(super().generate_tokens, list(ids), _config(config, settings), cancellable)

    def generate_async(self, prompt, config=None, cancellable=None, callback=None, *user_data, **settings):
        """With a ``callback``, the typelib's call (``generate_finish`` in it
        gives the text, its errors typed).  Without one, on PyGObject 3.50's
        GLib event loop, an awaitable of the text."""
        config = _config(config, settings)
        if callback is not None:
            return super().generate_async(prompt, config, cancellable, callback, *user_data)
        if _glib_event_loop() is None:
            raise TypeError("generate_async() without a callback needs PyGObject 3.50's GLib event loop "
                            "(gi.events.GLibEventLoopPolicy); use generate_async_stream() or a callback")
        return self._generate_awaitable(prompt, config, cancellable)

    async def _generate_awaitable(self, prompt, config, cancellable):
        pieces = []
        async for piece in self.generate_async_stream(prompt, config, cancellable):
            pieces.append(piece)
        return "".join(pieces)

    def generate_finish(self, result):
        """The text of a ``generate_async``, its error raised by kind."""
        return _call(super().generate_finish, result)

    def stream(self, prompt, config=None, cancellable=None, **settings):
        """The typelib's ``stream`` with keyword settings: an
        ``ExecutorchLlm.TextStream``, iterable (``for piece in stream``) and
        a context manager that closes it."""
        return _call(super().stream, prompt, _config(config, settings), cancellable)

    def generate_stream(self, prompt, config=None, cancellable=None, **settings):
        """An iterator over the pieces of the text as they come:

            for piece in generator.generate_stream("Once upon a time", temperature=0):
                print(piece, end="", flush=True)

        Each step runs the model just far enough for the next piece (an
        ``ExecutorchLlm.TextStream`` pulled in this thread; no worker, no
        GLib main loop).  Leaving the loop early (``break``, an exception)
        closes the stream as soon as the iterator is dropped or closed: the
        generation ends after the last piece taken, exactly as ``stop()``
        would have ended it there, and the generator is free again.  Errors
        are raised by kind from the loop."""
        return self._stream(prompt, _config(config, settings), cancellable)

    def _stream(self, prompt, config, cancellable):
        # A generator function: nothing starts before the first next(), so an
        # iterator never used leaves the generator free.
        stream = _call(ExecutorchLlm.Generator.stream, self, prompt, config, cancellable)
        try:
            yield from stream
        finally:
            stream.close()

    async def generate_async_stream(self, prompt, config=None, cancellable=None, **settings):
        """An asynchronous iterator over the pieces of the text, for asyncio:

            async for piece in generator.generate_async_stream(prompt, max_new_tokens=64):
                print(piece, end="", flush=True)

        On PyGObject 3.50's GLib event loop the generation is
        ``generate_async`` on the GLib main loop; on other loops it runs in
        the loop's default executor.  Cancelling the task cancels the
        generation.  Leaving the loop early stops the generation when the
        iterator is closed: use ``contextlib.aclosing()`` to close it at
        once."""
        config = _config(config, settings)
        loop = asyncio.get_running_loop()
        queue = asyncio.Queue()
        done = loop.create_future()
        if cancellable is None:
            cancellable = _new_cancellable()
        if _glib_event_loop() is not None:
            def finished(generator, result, *unused):
                try:
                    done.set_result(generator.generate_finish(result))
                except GLib.Error as error:
                    done.set_exception(error)

            handler = self.connect("text", lambda generator, text: queue.put_nowait(text))
            super().generate_async(prompt, config, cancellable, finished)
        else:
            def on_text(generator, text):  # in the executor's thread
                loop.call_soon_threadsafe(queue.put_nowait, text)

            handler = self.connect("text", on_text)
            work = loop.run_in_executor(None, self._generate_in_thread, prompt, config, cancellable)
            work.add_done_callback(lambda w: _copy_outcome(w, done))
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                await asyncio.wait([getter, done], return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                    continue
                getter.cancel()
                while not queue.empty():
                    yield queue.get_nowait()
                break
            done.result()
        except GLib.Error as error:
            _raise_typed(error)
        finally:
            if not done.done():
                cancellable.cancel()
                try:
                    await asyncio.shield(done)
                except (GLib.Error, asyncio.CancelledError):
                    pass
            self.disconnect(handler)

    def _generate_in_thread(self, prompt, config, cancellable):
        return ExecutorchLlm.Generator.generate(self, prompt, config, cancellable)

    def get_eos_ids(self):
        """The end-of-sequence token ids (a list)."""
        return list(super().get_eos_ids())


def _new_cancellable():
    from ..repository import Gio
    return Gio.Cancellable()


def _copy_outcome(work, done):
    if done.done():
        return
    if work.cancelled():
        done.cancel()
    elif work.exception() is not None:
        done.set_exception(work.exception())
    else:
        done.set_result(work.result())


Generator = override(Generator)
__all__.append("Generator")


# ---- stats -------------------------------------------------------------------

class Stats(ExecutorchLlm.Stats):
    """Timings and token counts of a generation, upstream's field names."""

    def to_dict(self):
        """Upstream's ``PyTorchObserver`` report (``to_json()``) as a dict."""
        return json.loads(self.to_json())

    def __repr__(self):
        return (f"<ExecutorchLlm.Stats prompt_tokens={self.num_prompt_tokens} "
                f"generated_tokens={self.num_generated_tokens}>")


Stats = override(Stats)
__all__.append("Stats")
