#!/usr/bin/env python3
"""Side-by-side latency of libexecutorch and upstream ExecuTorch on the same .pte.

Usage (needs the export venv for upstream's runtime, see tests/models/README.md):

    ~/venv-export/bin/python bench/bench.py [--build build] \
        [--manifest tests/models/full/manifest.json] [--threads 1,2] \
        [--iterations 20] [--warmup 3] [--repeats 1] [--only NAME ...] \
        [--ours-prefix "tools/in-root trixie" --build _build-trixie-release] \
        [--json OUT.json]

Every row runs both runtimes in child processes of this one invocation, on
the same file, inputs and thread count, alternating between them, so the
machine's state affects both alike (ours: a fresh process per run; upstream:
one long-lived process that loads the program afresh per run, since importing
torch can take longer than the runs):

  ours      build/tools/executorch-run --timing, with EXECUTORCH_NUM_THREADS
  upstream  executorch.runtime from the pip wheel (portable + optimized
            kernels, XNNPACK), with its thread pool reset to the same count

--repeats R alternates the two R times per row (ours first in odd rounds,
upstream first in even ones) and takes the median over all R x N runs, so a
busy machine's slow spells hit both sides alike.

--ours-prefix CMD runs our side through a command prefix, e.g. in a Debian 13
root with a build made there (`tools/in-root trixie`), while upstream runs on
the host: the times come from executorch-run's own --timing, so the prefix's
start-up is not counted. The timing files then go under --build (the root
mounts the tree but has its own /tmp).

It prints the median latency of each, the ratio ours/upstream, our GFLOP/s
and its share of this machine's peak, peak RSS and program+method load time.
Where the manifest names an XNNPACK-delegated variant of a model, a second
table runs that delegated .pte with both runtimes (ours through
libexecutorch-xnnpack) and compares it with our undelegated latency.

Rows of more than one thread also run bench/core-share (from --build, or
from --core-share) before each round and report the cache-line round trip
between CPUs 0 and 1: on a virtual machine the host may move its vCPUs
between one die (tens of ns) and two (hundreds), and a two-thread round
then belongs to one of two populations.

FLOPs are counted from the program itself: 2 multiply-adds per MAC of every
convolution, mm, bmm, addmm and linear KernelCall (the rest is negligible).
"""

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


# --------------------------------------------------------------------------
# Worker: runs inside the child process for upstream's runtime
# --------------------------------------------------------------------------


def upstream_server():
    """One long-lived upstream process: importing torch and executorch takes
    seconds to a minute on a busy machine, more than the runs themselves.
    Reads one JSON request a line on stdin (pte, method, inputs, threads,
    iterations, warmup), answers one JSON line on stdout; each request loads
    the program afresh. Its peak RSS is reset before each (clear_refs 5)."""
    import numpy as np
    import torch
    from executorch.extension.pybindings import portable_lib
    from executorch.runtime import Runtime

    import executorch.kernels.quantized  # noqa: F401

    runtime = Runtime.get()
    out = sys.stdout
    sys.stdout = sys.stderr
    print(json.dumps({"ready": True}), file=out, flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        if "flops" in req:
            print(json.dumps({"flops": count_flops(req["flops"], req["method"])}), file=out, flush=True)
            continue
        try:
            portable_lib._unsafe_reset_threadpool(req["threads"])
            inputs = [torch.from_numpy(np.load(p)) for p in req["inputs"]]
            try:
                with open("/proc/self/clear_refs", "w") as f:
                    f.write("5")
            except OSError:
                pass
            base_kib = proc_status_kib("VmRSS")
            start = time.perf_counter()
            program = runtime.load_program(req["pte"])
            program_ms = (time.perf_counter() - start) * 1000.0
            start = time.perf_counter()
            method = program.load_method(req["method"])
            method_ms = (time.perf_counter() - start) * 1000.0
            for _ in range(req["warmup"]):
                method.execute(inputs)
            times = []
            for _ in range(req["iterations"]):
                start = time.perf_counter()
                method.execute(inputs)
                times.append((time.perf_counter() - start) * 1000.0)
            answer = {"program_load_ms": program_ms, "method_load_ms": method_ms, "times_ms": times,
                      "rss_mib": proc_status_kib("VmHWM") / 1024.0,
                      "rss_growth_mib": (proc_status_kib("VmHWM") - base_kib) / 1024.0}
            del method, program
        except Exception as e:  # noqa: BLE001
            answer = {"error": "%s: %s" % (type(e).__name__, e)}
        print(json.dumps(answer), file=out, flush=True)


class Upstream:
    """The client side of upstream_server()."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--upstream-server"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if not json.loads(self.proc.stdout.readline() or "{}").get("ready"):
            raise RuntimeError("upstream's runtime did not start")

    def measure(self, args, pte, method, inputs, threads):
        req = {"pte": pte, "method": method, "inputs": inputs, "threads": threads,
               "iterations": args.iterations, "warmup": args.warmup}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("upstream's runtime exited (%s)" % self.proc.wait())
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def flops(self, pte, method):
        """count_flops() in the server: this process never loads torch (a
        child forked from a big parent would report the parent's RSS)."""
        self.proc.stdin.write(json.dumps({"flops": pte, "method": method}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())["flops"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def proc_status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


# --------------------------------------------------------------------------
# FLOPs of a program, read with upstream's deserializer
# --------------------------------------------------------------------------


def count_flops(pte_path, method_name):
    from executorch.exir._serialize._program import deserialize_pte_binary

    with open(pte_path, "rb") as f:
        pte = deserialize_pte_binary(f.read())
    program = getattr(pte, "program", pte)
    plan = next(p for p in program.execution_plan if p.name == method_name)

    def sizes(index):
        val = plan.values[index].val
        return list(getattr(val, "sizes", []) or [])

    def numel(shape):
        n = 1
        for s in shape:
            n *= s
        return n

    flops = 0
    for chain in plan.chains:
        for instr in chain.instructions:
            call = instr.instr_args
            if type(call).__name__ != "KernelCall":
                continue
            op = plan.operators[call.op_index]
            name = op.name + ("." + op.overload if op.overload else "")
            a = call.args
            try:
                if name == "aten::convolution.out":
                    w = sizes(a[1])
                    out = sizes(a[-1])
                    transposed = plan.values[a[6]].val.bool_val
                    if transposed:
                        # every input element meets Cout/groups * kh * kw weights
                        flops += 2 * numel(sizes(a[0])) * numel(w[1:])
                    else:
                        flops += 2 * numel(out) * numel(w[1:])
                elif name in ("aten::mm.out", "aten::bmm.out", "aten::addmm.out"):
                    first = 1 if name == "aten::addmm.out" else 0
                    m1 = sizes(a[first])
                    m2 = sizes(a[first + 1])
                    flops += 2 * numel(m1) * m2[-1]
                elif name == "aten::linear.out":
                    w = sizes(a[1])
                    flops += 2 * numel(sizes(a[-1])) * w[1]
            except (IndexError, AttributeError, StopIteration):
                continue
    return flops


# --------------------------------------------------------------------------
# The machine
# --------------------------------------------------------------------------


def machine_peak_gflops(threads):
    """AVX2 FMA peak: 2 FMA units x 8 floats x 2 flops per cycle per core."""
    mhz = None
    flags = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("cpu MHz") and mhz is None:
                mhz = float(line.split(":")[1])
            elif line.startswith("flags") and not flags:
                flags = line
    per_cycle = 32 if (" avx2" in flags and " fma" in flags) else 8
    cores = min(threads, os.cpu_count() or 1)
    return (mhz or 0.0) / 1000.0 * per_cycle * cores


def devenv(build, prefix=()):
    """The environment `meson devenv` gives, so our tool runs uninstalled.
    With a prefix, only the variables meson sets (to pass through `env`)."""
    out = subprocess.run(list(prefix) + ["meson", "devenv", "-C", build, "--dump"], check=True,
                         capture_output=True, text=True).stdout
    env = {} if prefix else dict(os.environ)
    for line in out.splitlines():
        m = re.match(r'^(?:export )?([A-Za-z_][A-Za-z0-9_]*)=(.*)$', line)
        if m:
            value = shlex.split(m.group(2))[0] if m.group(2) else ""
            value = value.replace("$" + m.group(1), env.get(m.group(1), ""))
            env[m.group(1)] = value
    return env


# --------------------------------------------------------------------------
# Running one side
# --------------------------------------------------------------------------


def measure(cmd, env, timing_path):
    """Runs @cmd as a child; its own peak RSS comes from wait4()."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (os.path.basename(cmd[0]), proc.returncode,
                                                 err.decode(errors="replace").strip()[-500:]))
    with open(timing_path) as f:
        timing = json.load(f)
    timing["rss_mib"] = usage.ru_maxrss / 1024.0
    return timing


def ours_cmd(args, pte, method, inputs, timing, threads=None):
    prefix = []
    if args.ours_prefix:
        # the prefix may start COMMAND in a clean environment: pass ours in it
        variables = dict(args.ours_env, EXECUTORCH_NUM_THREADS=str(threads))
        prefix = shlex.split(args.ours_prefix) + ["env"] + ["%s=%s" % kv for kv in sorted(variables.items())]
    return (prefix + [os.path.join(args.build, "tools", "executorch-run"), pte, "-q", "-m", method,
             "-n", str(args.iterations), "--warmup", str(args.warmup), "--timing", timing]
            + sum([["-i", p] for p in inputs], []))


# --------------------------------------------------------------------------
# Models from a manifest
# --------------------------------------------------------------------------


def models_from_manifest(path, only):
    with open(path) as f:
        manifest = json.load(f)
    base = os.path.dirname(os.path.abspath(path))
    # q8_NAME (undelegated int8) pairs with xnn_NAME_q8, the same quantized
    # model XNNPACK-delegated, as a fixture's own xnnpack variant would
    ptes = {fx["name"]: os.path.join(base, fx["pte"]) for fx in manifest.get("fixtures", [])}
    models = []
    for fx in manifest.get("fixtures", []):
        if only and fx["name"] not in only:
            continue
        if not fx.get("cases"):
            continue
        case = fx["cases"][0]
        # A multi-step case (a decoder) is timed on its first step's inputs.
        inputs = case["steps"][0]["inputs"] if case.get("steps") else case.get("inputs", [])
        entry = {
            "name": fx["name"],
            "pte": os.path.join(base, fx["pte"]),
            "method": case.get("method", "forward"),
            "inputs": [os.path.join(base, p) for p in inputs],
            "xnnpack": None,
        }
        for variant in fx.get("variants") or []:
            if variant.get("backend") == "xnnpack" and variant.get("pte"):
                entry["xnnpack"] = os.path.join(base, variant["pte"])
        if fx["name"].startswith("q8_") and entry["xnnpack"] is None:
            entry["xnnpack"] = ptes.get("xnn_%s_q8" % fx["name"][len("q8_"):])
        models.append(entry)
    return models


def fmt(v, spec):
    return format(v, spec) if v is not None else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(REPO, "build"))
    parser.add_argument("--manifest", default=os.path.join(REPO, "tests", "models", "full", "manifest.json"))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=1,
                        help="rounds of ours/upstream per row, alternating (median over all runs)")
    parser.add_argument("--ours-prefix", default="",
                        help="command prefix for our side, e.g. 'tools/in-root trixie'")
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--against-xnnpack", action="store_true",
                        help="upstream runs each model's XNNPACK-delegated variant (ours the plain export), "
                        "alternating as usual; models without one are left out")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--core-share", help="bench/core-share to run before each round of a multi-thread row "
                        "(default: BUILD/bench/core-share when it runs here)")
    # worker mode
    parser.add_argument("--upstream-server", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.upstream_server:
        upstream_server()
        return 0

    if not os.path.exists(args.manifest):
        sys.exit("bench: %s is missing; generate the full-size models first:\n"
                 "  %s tests/models/export_fixtures.py --full --out tests/models/full"
                 % (args.manifest, sys.executable))
    threads = [int(t) for t in args.threads.split(",")]
    args.build = os.path.abspath(args.build)
    if args.ours_prefix:
        args.ours_env = devenv(args.build, shlex.split(args.ours_prefix))
        env_base = dict(os.environ)
    else:
        env_base = devenv(args.build)
    models = models_from_manifest(args.manifest, args.only)
    if args.against_xnnpack:
        models = [m for m in models if m["xnnpack"]]
    rows, xrows = [], []
    tmp = tempfile.mkdtemp(prefix="et-bench-", dir=args.build if args.ours_prefix else None)
    load_before = machine_load()
    upstream = Upstream()
    total = len(models) * len(threads)
    step = 0
    for model in models:
        flops = upstream.flops(model["pte"], model["method"])
        for t in threads:
            step += 1
            print("[%d/%d] %s, %d thread%s" % (step, total, model["name"], t, "" if t == 1 else "s"),
                  file=sys.stderr, flush=True)
            env = dict(env_base, EXECUTORCH_NUM_THREADS=str(t))
            tim_o = os.path.join(tmp, "ours.json")
            row = {"model": model["name"], "threads": t, "gflop": flops / 1e9}
            ours_runs, up_runs = [], []
            for rnd in range(args.repeats):
                if t > 1:
                    row.setdefault("round_trip_ns", []).append(core_share_round_trip(args))
                sides = ["ours", "up"] if rnd % 2 == 0 else ["up", "ours"]
                for side in sides:
                    if side == "ours" and "ours_error" not in row:
                        try:
                            ours_runs.append(measure(ours_cmd(args, model["pte"], model["method"],
                                                              model["inputs"], tim_o, t), env, tim_o))
                        except RuntimeError as e:
                            row["ours_error"] = str(e)
                    elif side == "up" and "up_error" not in row:
                        try:
                            up_pte = model["xnnpack"] if args.against_xnnpack else model["pte"]
                            up_runs.append(upstream.measure(args, up_pte, model["method"],
                                                            model["inputs"], t))
                        except RuntimeError as e:
                            row["up_error"] = str(e)
            if ours_runs:
                ours = ours_runs[-1]
                row["ours_ms"] = statistics.median(sum((r["times_ms"] for r in ours_runs), []))
                row["ours_round_ms"] = [statistics.median(r["times_ms"]) for r in ours_runs]
                row["ours_load_ms"] = ours["program_load_ms"] + ours["method_load_ms"]
                row["ours_rss"] = max(r["rss_mib"] for r in ours_runs)
            if up_runs:
                up = up_runs[-1]
                row["up_ms"] = statistics.median(sum((r["times_ms"] for r in up_runs), []))
                row["up_round_ms"] = [statistics.median(r["times_ms"]) for r in up_runs]
                row["up_load_ms"] = up["program_load_ms"] + up["method_load_ms"]
                row["up_rss"] = max(r["rss_mib"] for r in up_runs)
                row["up_rss_growth"] = up.get("rss_growth_mib")
            rows.append(row)
            if model["xnnpack"] and not args.against_xnnpack:
                xrow = {"model": model["name"], "threads": t, "ours_ms": row.get("ours_ms")}
                try:
                    up = upstream.measure(args, model["xnnpack"], model["method"], model["inputs"], t)
                    xrow["up_xnn_ms"] = statistics.median(up["times_ms"])
                except RuntimeError as e:
                    xrow["error"] = str(e)
                # ours on the same delegated .pte (libexecutorch-xnnpack)
                try:
                    ox = measure(ours_cmd(args, model["xnnpack"], model["method"], model["inputs"], tim_o, t),
                                 env, tim_o)
                    xrow["ours_xnn_ms"] = statistics.median(ox["times_ms"])
                except RuntimeError as e:
                    xrow["ours_xnn_error"] = str(e)
                xrows.append(xrow)

    load_after = machine_load()
    upstream.close()
    print()
    print("libexecutorch vs upstream ExecuTorch %s, same .pte, median of %d x %d runs (each after %d warm-up)"
          % (upstream_version(), args.repeats, args.iterations, args.warmup))
    # paths relative to the tree and ~, so the output can go into bench/results
    tool = os.path.relpath(os.path.join(args.build, "tools", "executorch-run"), REPO)
    python = sys.executable.replace(os.path.expanduser("~"), "~", 1)
    print("ours: %s%s; upstream: %s" % (args.ours_prefix + " " if args.ours_prefix else "", tool, python))
    if args.against_xnnpack:
        print("upstream runs the XNNPACK-delegated variant of each model, ours the plain export")
    print("load average (1, 5, 15 min) before: %s, after: %s; %d CPUs" % (load_before, load_after,
                                                                       os.cpu_count() or 0))
    print("peak: %s GFLOP/s per thread (AVX2 FMA at the reported clock); load = program + method load;"
          % fmt(machine_peak_gflops(1), ".1f"))
    print("RSS = our whole process's peak; up RSS+ = upstream's peak growth from program load on (its process"
          " also holds Python and torch)")
    print()
    hdr = ("%-16s %3s %9s %9s %7s %8s %6s %9s %9s %8s %8s" %
           ("model", "thr", "ours ms", "upstr ms", "ratio", "GFLOP/s", "%peak", "load ms", "up load", "RSS MiB",
            "up RSS+"))
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        r["ratio"] = r["ours_ms"] / r["up_ms"] if "ours_ms" in r and "up_ms" in r else None
        ratio = r["ours_ms"] / r["up_ms"] if "ours_ms" in r and "up_ms" in r else None
        # a delegated program's convolutions are inside the payload: not counted
        gflops = r["gflop"] / (r["ours_ms"] / 1000.0) if r.get("ours_ms") and r["gflop"] else None
        peak = machine_peak_gflops(r["threads"])
        print("%-16s %3d %9s %9s %7s %8s %6s %9s %9s %8s %8s" % (
            r["model"], r["threads"], fmt(r.get("ours_ms"), ".3f"), fmt(r.get("up_ms"), ".3f"),
            fmt(ratio, ".3f"), fmt(gflops, ".1f"), fmt(gflops / peak * 100 if gflops and peak else None, ".0f"),
            fmt(r.get("ours_load_ms"), ".1f"), fmt(r.get("up_load_ms"), ".1f"), fmt(r.get("ours_rss"), ".0f"),
            fmt(r.get("up_rss_growth"), ".0f")))
        for key in ("ours_error", "up_error"):
            if key in r:
                print("    %s: %s" % (key.split("_")[0], r[key]))
    if args.repeats > 1:
        print_round_spread(rows)
    if args.against_xnnpack:
        print_speedups(rows)
    if xrows:
        print()
        print("XNNPACK-delegated variant: ours (libexecutorch-xnnpack on Debian's XNNPACK) and upstream on the")
        print("same delegated .pte; 'ours CPU' is our undelegated run of the plain export.")
        print("%-16s %3s %13s %13s %9s %13s %9s" % ("model", "thr", "ours XNN ms", "upstr XNN ms", "xnn ratio",
                                                "ours CPU ms", "XNN/CPU"))
        for r in xrows:
            ratio = (r["ours_xnn_ms"] / r["up_xnn_ms"]) if r.get("ours_xnn_ms") and r.get("up_xnn_ms") else None
            own = (r["ours_xnn_ms"] / r["ours_ms"]) if r.get("ours_xnn_ms") and r.get("ours_ms") else None
            print("%-16s %3d %13s %13s %9s %13s %9s" % (
                r["model"], r["threads"], fmt(r.get("ours_xnn_ms"), ".2f"), fmt(r.get("up_xnn_ms"), ".2f"),
                fmt(ratio, ".3f"), fmt(r.get("ours_ms"), ".2f"), fmt(own, ".3f")))
            if "error" in r:
                print("    upstream: %s" % r["error"])
            if "ours_xnn_error" in r:
                print("    ours: %s" % r["ours_xnn_error"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_before": load_before, "load_after": load_after, "repeats": args.repeats,
                       "iterations": args.iterations, "warmup": args.warmup, "ours_prefix": args.ours_prefix,
                       "rows": rows, "xnnpack_rows": xrows}, f, indent=1)
    return 0


def core_share_round_trip(args):
    """The cache-line round trip between CPUs 0 and 1 in ns, or None."""
    tool = args.core_share or os.path.join(args.build, "bench", "core-share")
    try:
        out = subprocess.run([tool], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"round trip (\d+) ns", out)
    return int(m.group(1)) if m else None


def print_round_spread(rows):
    """How far each side's round medians lie apart: on a busy machine a
    ratio near a target is only as sure as this spread."""
    print()
    print("round medians (ms), lowest-highest and the spread as a share of the median; round trip: for each")
    print("round of a multi-thread row, the CPUs' cache-line round trip before it (ns, bench/core-share) and")
    print("our median in it (ms):")
    print("%-16s %3s %19s %7s %19s %7s  %s" % ("model", "thr", "ours", "spread", "upstream", "spread", "round trip"))

    def span(r, key, median_key):
        rounds = r.get(key) or []
        if not rounds or not r.get(median_key):
            return "-", "-"
        return ("%.3f-%.3f" % (min(rounds), max(rounds)),
                "%.0f%%" % ((max(rounds) - min(rounds)) / r[median_key] * 100))

    for r in rows:
        ours, ours_spread = span(r, "ours_round_ms", "ours_ms")
        up, up_spread = span(r, "up_round_ms", "up_ms")
        trips = " ".join("%s:%.2f" % ("-" if ns is None else ns, ms)
                         for ns, ms in zip(r.get("round_trip_ns") or [], r.get("ours_round_ms") or []))
        print("%-16s %3d %19s %7s %19s %7s  %s" % (r["model"], r["threads"], ours, ours_spread, up, up_spread, trips))


def print_speedups(rows):
    """Each side's speed-up from its first thread count to the others."""
    first = {}
    for r in rows:
        first.setdefault(r["model"], r)
    print()
    print("%-16s %3s %12s %12s" % ("model", "thr", "ours x", "upstream x"))
    for r in rows:
        base = first[r["model"]]
        if r is base:
            continue
        ours = base["ours_ms"] / r["ours_ms"] if r.get("ours_ms") and base.get("ours_ms") else None
        up = base["up_ms"] / r["up_ms"] if r.get("up_ms") and base.get("up_ms") else None
        print("%-16s %3d %12s %12s" % (r["model"], r["threads"], fmt(ours, ".2f"), fmt(up, ".2f")))


def machine_load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def upstream_version():
    try:
        from executorch.version import __version__
        return __version__
    except ImportError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
