#!/usr/bin/env python3
"""ETDump files from our runtime load in upstream's devtools.

Usage: check_etdump_inspector.py EXECUTORCH_RUN MODELS_DIR UPSTREAM_DIR

Run with the export venv's python (it has executorch.devtools).  For a few
programs, `executorch-run --etdump` writes an ETDump of three executions;
each must load in executorch.devtools.Inspector (given only etdump_path),
with the load in block "Default", the executions merged into one
"Execute" block with three timings per event, and every instruction of
the program there by name.  The committed golden file
(tests/models/etdump/add.etdp, 1000 ns per event) must give exact times,
and with --etdump-outputs the Inspector must find each kernel's output.
"""

import os
import subprocess
import sys
import tempfile
import warnings

from executorch.devtools import Inspector


def blocks(path, debug_buffer=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no debug buffer: expected
        inspector = Inspector(etdump_path=path, debug_buffer_path=debug_buffer)
    return {b.name: b for b in inspector.event_blocks}


def check_outputs(run, model, failures):
    """--etdump-outputs: every kernel's output reaches the Inspector."""
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        out, buf = os.path.join(tmp, "out.etdp"), os.path.join(tmp, "out.bin")
        subprocess.run([run, "-q", "--fill", "ones", "--etdump", out, "--etdump-outputs", buf, model], check=True)
        found = blocks(out, buf)
    events = [e for e in found["Execute"].events if e.name == "aten::add.out"]
    data = events[0].debug_data if events else None
    if not data or not torch.equal(data[0], torch.full_like(data[0], 2.0)):
        failures.append(f"intermediate output of add: {data}")
    else:
        print(f"ok intermediate outputs: add.out gave {data[0].tolist()}")


def check_run(run, model, runs, failures):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.etdp")
        subprocess.run([run, "-q", "-n", str(runs), "--etdump", out, model], check=True)
        found = blocks(out)
    name = os.path.basename(model)
    if set(found) != {"Default", "Execute"}:
        failures.append(f"{name}: blocks {sorted(found)}")
        return
    load = [e.name for e in found["Default"].events]
    if load != ["Method::load"]:
        failures.append(f"{name}: load block holds {load}")
    events = found["Execute"].events
    names = [e.name for e in events]
    if "Method::execute" not in names:
        failures.append(f"{name}: no Method::execute in {names}")
    for event in events:
        raw = event.perf_data.raw if event.perf_data is not None else []
        if len(raw) != runs or any(t < 0 for t in raw):
            failures.append(f"{name}: event {event.name} has timings {raw}")
    ops = [n for n in names if "::" in n and not n.startswith("Method::")]
    print(f"ok {name}: {len(events)} events, {len(ops)} operator calls, "
          f"execute median {next(e for e in events if e.name == 'Method::execute').perf_data.p50:.3f} ms")
    if not ops:
        failures.append(f"{name}: no operator events")


def main():
    run, models, upstream = sys.argv[1:4]
    failures = []
    check_run(run, os.path.join(upstream, "add.pte"), 3, failures)
    check_run(run, os.path.join(models, "mlp", "mlp.pte"), 3, failures)
    check_run(run, os.path.join(models, "nets", "mv2", "mv2.pte"), 3, failures)
    check_outputs(run, os.path.join(upstream, "add.pte"), failures)

    golden = blocks(os.path.join(models, "etdump", "add.etdp"))
    execute = {e.name: e.perf_data.raw for e in golden["Execute"].events}
    if execute != {"aten::add.out": [0.001, 0.001], "Method::execute": [0.003, 0.003]}:
        failures.append(f"golden: {execute}")
    else:
        print("ok golden add.etdp")
    # Upstream's own file reads the same way (a sanity check of the reader).
    up = blocks(os.path.join(upstream, "etdump.etdp"))
    print(f"upstream etdump.etdp: blocks {sorted(up)}")

    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
