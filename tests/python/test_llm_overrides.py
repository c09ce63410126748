#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The ExecutorchLlm PyGObject override (bindings/python/gi/overrides/ExecutorchLlm.py)
on a tiny llama fixture: LLM_MANIFEST names tests/models/llm/manifest.json."""
import asyncio
import contextlib
import json
import os
import sys

import gi

gi.require_version("ExecutorchLlm", "1.0")
from gi.repository import ExecutorchLlm, Gio, GLib  # noqa: E402

try:  # PyGObject 3.50+: asyncio on the GLib main loop
    import gi.events  # noqa: F401
    HAVE_GLIB_EVENT_LOOP = True
except ImportError:
    HAVE_GLIB_EVENT_LOOP = False

MANIFEST = os.environ["LLM_MANIFEST"]
HERE = os.path.dirname(MANIFEST)
manifest = json.load(open(MANIFEST))
fixture = next(f for f in manifest["fixtures"] if not f.get("needs"))
PTE = os.path.join(HERE, fixture["pte"])
CASE = fixture["cases"][0]
PROMPT, TEXT, N = CASE["prompt"], CASE["text"], manifest["max_new_tokens"]
GREEDY = {"max_new_tokens": N, "temperature": 0}
checks = 0


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1


def raises(kind, function, *args, **kwargs):
    try:
        function(*args, **kwargs)
    except kind as error:
        return error
    raise AssertionError(f"{function.__name__} did not raise {kind.__name__}")


tokenizer = ExecutorchLlm.Tokenizer.new_from_file(os.path.join(HERE, manifest["tokenizer"]))
check(tokenizer.encode(PROMPT) == CASE["prompt_ids"], f"encode: {tokenizer.encode(PROMPT)}")
generator = ExecutorchLlm.Generator.new(PTE, tokenizer=tokenizer)
check(generator.get_eos_ids() == fixture["metadata"]["get_eos_ids"], f"eos ids {generator.get_eos_ids()}")

# generate() with keyword settings: upstream's greedy text.
text = generator.generate(PROMPT, **GREEDY)
check(text == TEXT, f"generate: {text!r}")
stats = generator.get_stats()
check(stats.to_dict()["generated_tokens"] == N - 1 and stats.num_prompt_tokens == len(CASE["prompt_ids"]),
      f"stats {stats.to_dict()}")

# The same text, as a plain iterator of pieces.
generator.reset()
pieces = list(generator.generate_stream(PROMPT, **GREEDY))
check(len(pieces) > 1 and "".join(pieces) == TEXT, f"generate_stream: {pieces}")

# Leaving the loop early ends the generation right there, exactly as stop()
# after the same piece does: same position, same continuation.
generator.reset()
seen = []


def stop_after_two(generator, piece):
    seen.append(piece)
    if len(seen) == 2:
        generator.stop()


handler = generator.connect("text", stop_after_two)
generator.generate(PROMPT, **GREEDY)
generator.disconnect(handler)
stopped_at = generator.get_position()
continued = generator.generate("", max_new_tokens=3, temperature=0)
check(stopped_at == len(CASE["prompt_ids"]) + 1, f"stop() after two pieces at {stopped_at}")
generator.reset()
taken = []
for piece in generator.generate_stream(PROMPT, **GREEDY):
    taken.append(piece)
    if len(taken) == 2:
        break
check(taken == seen[:2], f"pieces before the break: {taken}, stop(): {seen}")
check(generator.get_stop_reason() == ExecutorchLlm.StopReason.STOPPED, f"ended: {generator.get_stop_reason()}")
check(generator.get_position() == stopped_at, f"break at {generator.get_position()}, stop() at {stopped_at}")
after = generator.generate("", max_new_tokens=3, temperature=0)
check(after == continued, f"after the break {after!r}, after stop() {continued!r}")
generator.reset()
check(generator.generate(PROMPT, ExecutorchLlm.GenerationConfig(**GREEDY)) == TEXT, "generate after a break")

# The stream itself: iterable, a context manager, and the generator busy
# while it is open.
generator.reset()
with generator.stream(PROMPT, **GREEDY) as stream:
    first = next(stream)
    error = raises(ExecutorchLlm.GenerationError, generator.generate, PROMPT)
    check(error.code == int(ExecutorchLlm.GeneratorError.BUSY), f"busy: {error!r}")
    check(first + "".join(stream) == TEXT, "stream pieces")
    check(stream.get_stop_reason() == ExecutorchLlm.StopReason.MAX_NEW_TOKENS, "stream stop reason")

# An iterator never used starts nothing: the generator stays free.
unused = generator.generate_stream(PROMPT, **GREEDY)
del unused
generator.reset()
check(generator.generate(PROMPT, **GREEDY) == TEXT, "generate after an unused stream")

# A config and keyword settings over it; a stop string ends the text.
config = ExecutorchLlm.GenerationConfig(max_new_tokens=N)
generator.reset()
stop = TEXT.split()[2]
text = "".join(generator.generate_stream(PROMPT, config, temperature=0, stop_strings=stop))
check(text == TEXT[:TEXT.index(stop)], f"stop string {stop!r}: {text!r}")
check(config.get_temperature() == 0.8 and config.get_stop_strings() == [], "keyword settings leave config as it was")

# Errors by kind.
raises(TypeError, ExecutorchLlm.GenerationConfig, warmth=1)
raises(ValueError, ExecutorchLlm.GenerationConfig, top_p=1.5)
raises(ValueError, generator.generate, PROMPT, max_new_tokens=-2)
error = raises(FileNotFoundError, ExecutorchLlm.Generator.new, os.path.join(HERE, "missing.pte"), tokenizer=tokenizer)
check(isinstance(error, GLib.Error) and error.filename.endswith("missing.pte"), f"missing model: {error!r}")
error = raises(ExecutorchLlm.GenerationError, ExecutorchLlm.Generator, tokenizer=tokenizer)
check(error.code == int(ExecutorchLlm.GeneratorError.INVALID_PROGRAM), f"Generator() without a program: {error!r}")
raises(FileNotFoundError, ExecutorchLlm.Tokenizer.new_from_file, os.path.join(HERE, "missing.json"))
error = raises(ExecutorchLlm.TokenizationError, ExecutorchLlm.Tokenizer.new_from_file, PTE)
check(isinstance(error, ValueError) and isinstance(error, GLib.Error), f"tokenizer error kinds: {error!r}")
generator.reset()
error = raises(ExecutorchLlm.ContextFullError, generator.generate, "word " * 200)
check(error.code == int(ExecutorchLlm.GeneratorError.PROMPT_TOO_LONG) and
      isinstance(error, ExecutorchLlm.GenerationError), f"too long: {error!r}")
cancellable = Gio.Cancellable()
cancellable.cancel()
error = raises(GLib.Error, list, generator.generate_stream(PROMPT, cancellable=cancellable, **GREEDY))
check(error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED), f"cancelled: {error!r}")


# asyncio: on this PyGObject's loop (the GLib one on 3.50, asyncio's own
# otherwise), an async iterator of pieces.
async def stream_async():
    generator.reset()
    pieces = [piece async for piece in generator.generate_async_stream(PROMPT, **GREEDY)]
    check(len(pieces) > 1 and "".join(pieces) == TEXT, f"generate_async_stream: {pieces}")
    generator.reset()
    async with contextlib.aclosing(generator.generate_async_stream(PROMPT, **GREEDY)) as stream:
        async for piece in stream:
            break
    generator.reset()
    pieces = [piece async for piece in generator.generate_async_stream(PROMPT, **GREEDY)]
    check("".join(pieces) == TEXT, "generate_async_stream after an early close")
    if HAVE_GLIB_EVENT_LOOP and isinstance(asyncio.get_running_loop(), gi.events.GLibEventLoop):
        generator.reset()
        check(await generator.generate_async(PROMPT, **GREEDY) == TEXT, "await generate_async")


asyncio.run(stream_async())
if HAVE_GLIB_EVENT_LOOP:
    # PyGObject 3.50+: the GLib event loop runs generate_async itself.
    # (PyGObject 3.50 refuses asyncio.run() on the main thread, which already
    # has GLib's default main context: the loop comes from the policy.)
    policy = gi.events.GLibEventLoopPolicy()
    asyncio.set_event_loop_policy(policy)
    loop = policy.get_event_loop()

    def no_executor(*args):
        raise AssertionError("ran in asyncio's executor, not on the GLib main loop")
    loop.run_in_executor = no_executor
    loop.run_until_complete(stream_async())
    loop.close()
    asyncio.set_event_loop_policy(None)
    print(f"# PyGObject {gi.__version__}: also on the GLib event loop")
else:
    print(f"# PyGObject {gi.__version__} has no GLib event loop (gi.events): asyncio's own loop only")

print(f"{checks} passed, 0 failed")
sys.exit(0)
