#!/usr/bin/python3
"""Greedy generation with the tests/models/llm programs through our runtime.

    check_llm_fixtures.py [DIR]   (default: tests/models/llm; TEST_MODELS_DIR/llm)

For every program in DIR/manifest.json (written by tests/models/export/llm.py
with upstream's export_llama, runner and runtime):

* each metadata method gives the value upstream's runtime gave;
* per prompt, the forward calls upstream's text runner makes (a prefill, then
  one call per new token; sequential prefill for static-shape programs, the
  whole sequence per call without a KV cache) run through the PyGObject
  bindings:
  - fp32 programs decode greedily on their own and must produce upstream's
    token ids, every call's logits within logits_rel_tol of upstream's and of
    eager PyTorch's (max|ours - ref| <= tol * max|ref| per call);
  - quantized programs are fed upstream's ids (teacher forcing), every call's
    logits must be within the fixture's logits_rel_tol of upstream's, and the
    argmax must be upstream's token wherever upstream's top-2 margin is wider
    than the tolerance allows to flip.

A program with a `needs` field (e.g. xnnpack-dynamic-quantization) that our
XNNPACK delegate refuses at load is reported as a KNOWN FAILURE with the
delegate's message, and does not fail the test. If it loads, it is checked
like any other: it must match.
"""
import json
import os
import sys

import gi

gi.require_version("Executorch", "1.0")
from gi.repository import Executorch, GLib  # noqa: E402
import numpy as np  # noqa: E402


class CaseError(Exception):
    pass


def long_tensor(values):
    a = np.ascontiguousarray(values, dtype=np.int64)
    return Executorch.Tensor.new(Executorch.ScalarType.LONG, list(a.shape), GLib.Bytes.new(a.tobytes()))


def float_rows(tensor):
    if tensor.get_scalar_type() != Executorch.ScalarType.FLOAT:
        raise CaseError(f"logits are {tensor.get_scalar_type().value_nick}, expected float")
    return np.frombuffer(tensor.get_bytes().get_data(), dtype=np.float32).reshape(tensor.get_sizes())


def unwrap(result):
    # PyGObject drops a throwing function's gboolean result on some
    # versions and keeps it on others.
    return result[1] if isinstance(result, tuple) else result


def read_metadata(program, name):
    method = program.load_method(name)
    method.execute(None)
    values = []
    for i in range(method.get_n_outputs()):
        kind = method.get_output_kind(i)
        if kind == Executorch.ValueKind.INT:
            values.append(int(unwrap(method.get_output_int(i))))
        elif kind == Executorch.ValueKind.BOOL:
            values.append(bool(unwrap(method.get_output_bool(i))))
        else:
            raise CaseError(f"{name} output {i} is a {kind.value_nick}")
    return values


class Schedule:
    """The forward calls of upstream's text runner (see export/llm.py)."""

    def __init__(self, kv, dynamic):
        self.kv, self.dynamic = kv, dynamic

    def prefill(self, prompt_ids):
        if not self.kv:
            return [(list(prompt_ids), None)]
        if self.dynamic:
            return [(list(prompt_ids), 0)]
        return [([t], i) for i, t in enumerate(prompt_ids)]

    def decode(self, sequence):
        if not self.kv:
            return (list(sequence), None)
        return ([sequence[-1]], len(sequence) - 1)


def forward(method, tokens, pos):
    inputs = [long_tensor([tokens])] + ([] if pos is None else [long_tensor([pos])])
    try:
        outs = method.run(inputs, None)
    except GLib.Error as e:
        raise CaseError(f"forward(tokens [1,{len(tokens)}], input_pos {pos}): {e.message}")
    if len(outs) != 1:
        raise CaseError(f"forward gave {len(outs)} outputs, expected 1")
    return float_rows(outs[0]).reshape(-1).copy()


def generate(method, schedule, prompt_ids, n_new, eos_ids, forced=None):
    """Greedy as the runner does it: (ids, logits rows). With forced, feed
    those ids instead of our own choices."""
    row = None
    for tokens, pos in schedule.prefill(prompt_ids):
        row = forward(method, tokens, pos)
    rows, ids = [row], [int(np.argmax(row))]
    # The first token is never checked against EOS (text_llm_runner.cpp).
    while len(ids) < n_new:
        if forced is not None and len(ids) >= len(forced):
            break
        fed = forced[:len(ids)] if forced is not None else ids
        tokens, pos = schedule.decode(list(prompt_ids) + list(fed))
        row = forward(method, tokens, pos)
        rows.append(row)
        ids.append(int(np.argmax(row)))
        if forced is None and ids[-1] in eos_ids:
            break
    return ids, np.stack(rows)


def rel_errors(got, want):
    return np.abs(got - want).max(axis=1) / np.abs(want).max(axis=1)


def check_rows(got, want, tol, what):
    if got.shape != want.shape:
        raise CaseError(f"{what}: logits {got.shape}, expected {want.shape}")
    err = rel_errors(got, want)
    k = int(np.argmax(err))
    if err[k] > tol:
        raise CaseError(f"{what}: call {k} logits off by {err[k]:.3g} of the row's largest "
                        f"magnitude (tolerance {tol:g})")
    return float(err.max())


def run_case(fixture, case, program_path, models, manifest):
    meta = fixture["metadata"]
    schedule = Schedule(bool(meta["use_kv_cache"]), bool(meta["enable_dynamic_shape"]))
    eos_ids = set(meta.get("get_eos_ids", [manifest["eos_id"]]))
    tol = fixture["logits_rel_tol"]
    want_ids = case["ids"]
    upstream = np.load(os.path.join(models, case["logits"]))
    program = Executorch.Program.new_from_file(program_path)
    method = program.load_method("forward")
    quantized = "linear_quantization" in fixture or any("qmode" in a for a in fixture["export_llama_args"])
    if not quantized:
        ids, rows = generate(method, schedule, case["prompt_ids"], manifest["max_new_tokens"], eos_ids)
        if ids != want_ids:
            k = next((i for i, (a, b) in enumerate(zip(ids, want_ids)) if a != b), min(len(ids), len(want_ids)))
            raise CaseError(f"token ids {ids} differ from upstream's {want_ids} at {k}")
        worst = check_rows(rows, upstream, tol, "upstream")
        if "eager_logits" in case:
            worst = max(worst, check_rows(rows, np.load(os.path.join(models, case["eager_logits"])), tol,
                                          "eager"))
        return f"{len(ids)} tokens as upstream, logits within {worst:.2g} (tolerance {tol:g})"
    _, rows = generate(method, schedule, case["prompt_ids"], manifest["max_new_tokens"], eos_ids, forced=want_ids)
    worst = check_rows(rows, upstream, tol, "upstream")
    top2 = np.sort(upstream, axis=1)[:, -2:]
    scale = np.abs(upstream).max(axis=1)
    for k, row in enumerate(rows):
        if int(np.argmax(row)) != want_ids[k] and top2[k, 1] - top2[k, 0] > 2 * tol * scale[k]:
            raise CaseError(f"call {k}: argmax {int(np.argmax(row))}, upstream chose {want_ids[k]} "
                            f"by a margin of {top2[k, 1] - top2[k, 0]:.3g}")
    return f"{len(rows)} calls fed upstream's ids, logits within {worst:.2g} (tolerance {tol:g})"


def check_bound(fixture, pte, models):
    """A prompt chunk one token over the program's bound is refused, naming
    the bound, and leaves the method as it was: the next call with the first
    case's prompt gives upstream's first logits (the input may grow again
    after a smaller call, up to the bound)."""
    meta = fixture["metadata"]
    bound = meta["get_max_seq_len"] - 1  # builder.py: Dim("token_dim", max=max_seq_len-1)
    case = fixture["cases"][0]
    schedule = Schedule(bool(meta["use_kv_cache"]), True)
    method = Executorch.Program.new_from_file(pte).load_method("forward")
    forward(method, [case["prompt_ids"][0]], 0 if schedule.kv else None)
    try:
        forward(method, [0] * (bound + 1), 0 if schedule.kv else None)
        raise CaseError(f"tokens [1,{bound + 1}] accepted, over the bound {bound}")
    except CaseError as e:
        if f"[1, {bound}]" not in str(e):
            raise CaseError(f"tokens [1,{bound + 1}]: the error does not name the bound [1, {bound}]: {e}")
    (tokens, pos), = schedule.prefill(case["prompt_ids"])
    got = forward(method, tokens, pos)
    check_rows(got[None, :], np.load(os.path.join(models, case["logits"]))[:1], fixture["logits_rel_tol"],
               "after a refused call")
    return f"tokens [1,{bound + 1}] refused naming the bound; the next prompt as upstream"


def main(argv):
    default = os.path.join(os.environ.get("TEST_MODELS_DIR", os.path.join(os.path.dirname(__file__), "..", "models")),
                           "llm")
    models = argv[1] if len(argv) > 1 else default
    with open(os.path.join(models, "manifest.json")) as f:
        manifest = json.load(f)
    passed = failed = known = 0
    for fixture in manifest["fixtures"]:
        pte = os.path.join(models, fixture["pte"])
        name = fixture["name"]
        try:
            program = Executorch.Program.new_from_file(pte)
            for method_name, want in sorted(fixture["metadata"].items()):
                got = read_metadata(program, method_name)
                want_list = want if isinstance(want, list) else [want]
                if got != want_list:
                    raise CaseError(f"{method_name}() = {got}, upstream {want_list}")
            print(f"ok {name}: {len(fixture['metadata'])} metadata methods as upstream")
            passed += 1
        except (CaseError, GLib.Error) as e:
            print(f"FAIL {name} metadata: {getattr(e, 'message', e)}")
            failed += 1
        needs = fixture.get("needs")
        try:
            program = Executorch.Program.new_from_file(pte)
            program.load_method("forward")
        except GLib.Error as e:
            if needs:
                known += len(fixture["cases"])
                print(f"KNOWN FAILURE {name} ({len(fixture['cases'])} cases, needs {needs}): {e.message}")
            else:
                failed += len(fixture["cases"])
                print(f"FAIL {name}: forward does not load: {e.message}")
            continue
        if fixture["metadata"]["enable_dynamic_shape"]:
            try:
                print(f"ok {name} bound: {check_bound(fixture, pte, models)}")
                passed += 1
            except (CaseError, GLib.Error) as e:
                failed += 1
                print(f"FAIL {name} bound: {getattr(e, 'message', e)}")
        for i, case in enumerate(fixture["cases"]):
            label = f"{name}#{i} {case['prompt']!r}"
            try:
                what = run_case(fixture, case, pte, models, manifest)
                passed += 1
                print(f"ok {label}: {what}" + (f" (needs {needs}: now works)" if needs else ""))
            except (CaseError, GLib.Error) as e:
                failed += 1
                print(f"FAIL {label}: {getattr(e, 'message', e)}")
    print(f"{passed} passed, {known} known failures, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
