#!/usr/bin/env python3
"""Integer kernels of libexecutorch-kernels-quantized against the reference path.

    python3 bench/quantized_int.py --build _build [--base-modules DIR]
        [--rounds 7] [--iterations 200] [--callgrind] PTE_DIR...

Each PTE_DIR holds NAME.pte and forward.case0.in*.npy (a tests/models/quant
fixture folder). Modes, run through the build's executorch-run with one
thread:

  int        the default: the load-time rewrite takes dequantize → conv /
             addmm sites (docs/quantized.md)
  reference  EXECUTORCH_QUANTIZED_REFERENCE=1: upstream's reference
             operators, byte for byte
  base       optional: another kernels-quantized.module folder (e.g. a
             build of an older commit), in place of the build's

Timings: the modes alternate, `--rounds` times, each round one process of
`--iterations` executions; the table gives the median over rounds of each
process's median latency. Callgrind (deterministic): instructions of one
execution, the difference between runs of 60 and 10 iterations divided by 50
(so program load and process start cancel out).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys


def env_for(build, mode, base_modules):
    env = dict(os.environ)
    quantized = base_modules if mode == "base" else os.path.join(build, "backends", "quantized")
    env.update({
        "EXECUTORCH_MODULE_SYSTEM_PATH": "",
        "EXECUTORCH_MODULE_PATH": os.path.join(build, "backends", "portable") + ":" + quantized,
        "EXECUTORCH_PARTS_PATH": os.path.join(build, "backends"),
        "LD_LIBRARY_PATH": os.path.join(build, "libexecutorch") + ":" + os.path.join(build, "backends", "threadpool"),
    })
    env.pop("EXECUTORCH_QUANTIZED_REFERENCE", None)
    if mode == "reference":
        env["EXECUTORCH_QUANTIZED_REFERENCE"] = "1"
    return env


def command(build, folder, iterations):
    name = os.path.basename(os.path.normpath(folder))
    cmd = [os.path.join(build, "tools", "executorch-run"), os.path.join(folder, f"{name}.pte"),
           "--threads", "1", "--iterations", str(iterations)]
    for f in sorted(os.listdir(folder)):
        if f.startswith("forward.case0.in"):
            cmd += ["--input", os.path.join(folder, f)]
    return cmd


def median_ms(build, folder, mode, base, iterations):
    done = subprocess.run(command(build, folder, iterations), env=env_for(build, mode, base),
                          capture_output=True, text=True, check=True)
    m = re.search(r"median ([\d.]+) ms", done.stderr + done.stdout)
    return float(m.group(1))


def instructions(build, folder, mode, base, iterations):
    out = f"/tmp/quantized-int-bench.{os.getpid()}.cg"
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
                          + command(build, folder, iterations),
                          env=env_for(build, mode, base), capture_output=True, text=True, check=True)
    os.unlink(out)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="_build")
    ap.add_argument("--base-modules")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("folders", nargs="+")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    modes = (["base"] if args.base_modules else []) + ["reference", "int"]

    print(f"{'model':<14}" + "".join(f"{m + ' ms':>14}" for m in modes) + f"{'ref/int':>9}"
          + ("".join(f"{m + ' Ir/exec':>19}" for m in modes) + f"{'ref/int':>9}" if args.callgrind else ""))
    for folder in args.folders:
        times = {m: [] for m in modes}
        for _ in range(args.rounds):
            for m in modes:
                times[m].append(median_ms(build, folder, m, args.base_modules, args.iterations))
        med = {m: statistics.median(v) for m, v in times.items()}
        line = f"{os.path.basename(os.path.normpath(folder)):<14}" + "".join(f"{med[m]:>14.4f}" for m in modes)
        line += f"{med['reference'] / med['int']:>9.2f}"
        if args.callgrind:
            ir = {m: (instructions(build, folder, m, args.base_modules, 60)
                      - instructions(build, folder, m, args.base_modules, 10)) // 50 for m in modes}
            line += "".join(f"{ir[m]:>19,}" for m in modes) + f"{ir['reference'] / ir['int']:>9.2f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
