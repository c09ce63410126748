#!/usr/bin/env python3
"""LLM decode and prefill tokens/s of libexecutorch and upstream ExecuTorch.

Usage (needs the export venv for upstream's runtime, see tests/models/README.md):

    ~/venv-export/bin/python bench/llm.py [--build build] [PTE ...] \
        [--threads 1,2] [--load N] [--iterations 200] [--repeat 3] \
        [--position 16] [--prefill 16]

PTE defaults to the export_llama fixtures tests/models/llm/llama_fp32 and
llama_8da4w (KV cache, custom SDPA; `-X`).  A program's forward takes
tokens [1, n] and input_pos [1].  Each measurement runs both runtimes on the
same file with the same thread count, in separate child processes one right
after the other:

  decode   n = 1 token at input_pos --position, --iterations calls
  prefill  n = --prefill tokens at input_pos 0, --iterations / 4 calls

(a repeated call at one position rewrites the same KV-cache rows, so every
call does the same work).  Ours runs through executorch-run --timing with
EXECUTORCH_NUM_THREADS; upstream through executorch.runtime from the pip
wheel with its thread pool reset to the same count.  Every measurement is
repeated --repeat times, alternating ours and upstream, and the medians are
reported.

--load N starts N busy processes (pure CPU spinners, at normal priority)
before the measurements and stops them after, to show how each runtime
behaves when other programs keep the CPUs busy.
"""

import argparse
import json
import multiprocessing
import os
import statistics
import shlex
import subprocess
import sys
import tempfile
import time

import bench

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_PTES = [os.path.join(REPO, "tests", "models", "llm", name, name + ".pte")
                for name in ("llama_fp32", "llama_8da4w")]


def upstream_worker(args):
    import torch
    from executorch.extension.pybindings import portable_lib
    from executorch.runtime import Runtime

    # llama::custom_sdpa / update_cache and quantized_decomposed:: kernels.
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
    import executorch.kernels.quantized  # noqa: F401

    portable_lib._unsafe_reset_threadpool(args.threads)
    method = Runtime.get().load_program(args.pte).load_method("forward")
    tokens = torch.from_numpy(__import__("numpy").load(args.tokens))
    pos = torch.from_numpy(__import__("numpy").load(args.pos))
    for _ in range(args.warmup):
        method.execute([tokens, pos])
    times = []
    for _ in range(args.iterations):
        start = time.perf_counter()
        method.execute([tokens, pos])
        times.append((time.perf_counter() - start) * 1000.0)
    with open(args.timing, "w") as f:
        json.dump({"times_ms": times}, f)


def spinner():
    while True:
        pass


def start_load(n):
    procs = []
    for _ in range(n):
        p = multiprocessing.Process(target=spinner, daemon=True)
        p.start()
        procs.append(p)
    return procs


def stop_load(procs):
    for p in procs:
        p.terminate()
    for p in procs:
        p.join()


def write_inputs(tmp, n_tokens, position):
    import numpy as np

    tokens = os.path.join(tmp, "tokens%d.npy" % n_tokens)
    pos = os.path.join(tmp, "pos%d.npy" % position)
    # Fixed ids inside any vocabulary, away from BOS/EOS.
    np.save(tokens, (np.arange(n_tokens, dtype=np.int64) % 100 + 3).reshape(1, n_tokens))
    np.save(pos, np.array([position], dtype=np.int64))
    return tokens, pos


def run_ours(args, env, pte, tokens, pos, iterations, timing):
    cmd = [os.path.join(args.build, "tools", "executorch-run"), pte, "-q", "-i", tokens, "-i", pos,
           "-n", str(iterations), "--warmup", str(args.warmup), "--timing", timing]
    if args.ours_prefix:
        # the prefix may start COMMAND in a clean environment: pass ours in it
        cmd = shlex.split(args.ours_prefix) + ["env"] + ["%s=%s" % kv for kv in sorted(env.items())] + cmd
        env = os.environ
    return statistics.median(bench.measure(cmd, env, timing)["times_ms"])


def run_upstream(args, pte, threads, tokens, pos, iterations, timing):
    cmd = [sys.executable, os.path.abspath(__file__), "--upstream-worker", "--pte", pte, "--tokens", tokens,
           "--pos", pos, "--worker-threads", str(threads), "--iterations", str(iterations),
           "--warmup", str(args.warmup), "--timing", timing]
    return statistics.median(bench.measure(cmd, os.environ, timing)["times_ms"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ptes", nargs="*", metavar="PTE")
    parser.add_argument("--build", default=os.path.join(REPO, "build"))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--load", type=int, default=0, help="busy processes running beside the measurements")
    parser.add_argument("--iterations", type=int, default=200, help="decode calls per measurement")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--position", type=int, default=16, help="input_pos of the decode calls")
    parser.add_argument("--prefill", type=int, default=16, help="prompt tokens of the prefill calls (0: none)")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--ours-prefix", help="command prefix for our side, e.g. 'tools/in-root trixie' "
                        "(as in bench.py; paths are made absolute, temporary files go under --build)")
    # worker mode
    parser.add_argument("--upstream-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--pte", help=argparse.SUPPRESS)
    parser.add_argument("--tokens", help=argparse.SUPPRESS)
    parser.add_argument("--pos", help=argparse.SUPPRESS)
    parser.add_argument("--worker-threads", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--timing", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.upstream_worker:
        args.threads = args.worker_threads
        upstream_worker(args)
        return 0

    ptes = [os.path.abspath(p) for p in (args.ptes or DEFAULT_PTES)]
    args.build = os.path.abspath(args.build)
    threads = [int(t) for t in args.threads.split(",")]
    prefix = shlex.split(args.ours_prefix) if args.ours_prefix else []
    env_base = bench.devenv(args.build, prefix)
    # a prefix (a chroot) may have a /tmp of its own: keep the files in the build folder
    tmp = tempfile.mkdtemp(prefix="et-llm-bench-", dir=args.build if prefix else None)
    timing = os.path.join(tmp, "timing.json")
    phases = [("decode", 1, args.position, args.iterations)]
    if args.prefill > 0:
        phases.append(("prefill", args.prefill, 0, max(1, args.iterations // 4)))
    load = start_load(args.load)
    rows = []
    try:
        time.sleep(0.5 if load else 0)
        for pte in ptes:
            name = os.path.splitext(os.path.basename(pte))[0]
            for t in threads:
                env = dict(env_base, EXECUTORCH_NUM_THREADS=str(t))
                row = {"model": name, "threads": t, "load": args.load}
                for phase, n_tokens, position, iterations in phases:
                    tokens, pos = write_inputs(tmp, n_tokens, position)
                    ours, up = [], []
                    for r in range(args.repeat):
                        print("%s, %d thread%s, %s, run %d/%d" % (name, t, "" if t == 1 else "s", phase, r + 1,
                                                                   args.repeat), file=sys.stderr, flush=True)
                        try:
                            ours.append(run_ours(args, env, pte, tokens, pos, iterations, timing))
                        except RuntimeError as e:
                            row["ours_error"] = str(e)
                        try:
                            up.append(run_upstream(args, pte, t, tokens, pos, iterations, timing))
                        except RuntimeError as e:
                            row["up_error"] = str(e)
                    if ours:
                        row["ours_%s_tps" % phase] = n_tokens * 1000.0 / statistics.median(ours)
                    if up:
                        row["up_%s_tps" % phase] = n_tokens * 1000.0 / statistics.median(up)
                rows.append(row)
    finally:
        stop_load(load)

    print()
    print("LLM tokens/s, libexecutorch vs upstream ExecuTorch %s, same .pte; %d busy process%s beside;"
          % (bench.upstream_version(), args.load, "" if args.load == 1 else "es"))
    print("decode: 1 token at position %d; prefill: %d tokens at 0; median of %d runs, each the median of its calls;"
          % (args.position, args.prefill, args.repeat))
    print("ratio = ours / upstream tokens/s (above 1: we are faster)")
    print()
    hdr = "%-20s %3s %4s %11s %11s %7s %11s %11s %7s" % ("model", "thr", "load", "ours dec/s", "up dec/s",
                                                         "ratio", "ours pre/s", "up pre/s", "ratio")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        cells = []
        for phase in ("decode", "prefill"):
            o, u = r.get("ours_%s_tps" % phase), r.get("up_%s_tps" % phase)
            cells += [bench.fmt(o, ".0f"), bench.fmt(u, ".0f"), bench.fmt(o / u if o and u else None, ".3f")]
        print("%-20s %3d %4d %11s %11s %7s %11s %11s %7s" % ((r["model"], r["threads"], r["load"]) + tuple(cells)))
        for key in ("ours_error", "up_error"):
            if key in r:
                print("    %s: %s" % (key.split("_")[0], r[key]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
