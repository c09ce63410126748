#!/usr/bin/env python3
"""CPU time per execution, one thread: our undelegated export against
upstream's XNNPACK-delegated variant (bench/README.md, "CPU time").

    ~/venv-export/bin/python bench/cpu_ratio.py --build BUILD [--build OTHER] [--rounds 3] NAME...

On a machine shared with other work wall-clock times say more about the
neighbours than about the kernels; the CPU time a process spends does not
count the time it waits for a CPU.  With one thread:

  ours      perf stat's task-clock of executorch-run -n N+1 minus -n 1,
            over N (start-up and program load cancel out)
  upstream  time.process_time() around each of N execute() calls of the
            delegated program in executorch.runtime (thread pool reset
            to 1, after 3 warm-up calls), their mean

Each side takes the minimum of its means over --rounds rounds, the rounds
alternating.  Several --build give a column each (e.g. before and after a
change), measured in the same rounds.
Needs perf and the full-size models (tests/models/full).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench import devenv, models_from_manifest  # noqa: E402


def ours_cpu_ms(build, env, model, n):
    def task_clock(iterations):
        cmd = ["perf", "stat", "-x,", "-e", "task-clock", os.path.join(build, "tools", "executorch-run"),
               model["pte"], "-q", "-t", "1", "-n", str(iterations)] + sum([["-i", p] for p in model["inputs"]], [])
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stderr
        for line in out.splitlines():
            if "task-clock" in line:
                return float(line.split(",")[0])
        raise RuntimeError("perf stat printed no task-clock: " + out[-300:])
    return (task_clock(n + 1) - task_clock(1)) / n


def upstream_cpu_ms(pte, inputs, n):
    code = r'''
import json, sys, time
import numpy as np, torch
from executorch.extension.pybindings import portable_lib
from executorch.runtime import Runtime
req = json.loads(sys.argv[1])
portable_lib._unsafe_reset_threadpool(1)
inputs = [torch.from_numpy(np.load(p)) for p in req["inputs"]]
method = Runtime.get().load_program(req["pte"]).load_method("forward")
for _ in range(3):
    method.execute(inputs)
times = []
for _ in range(req["n"]):
    start = time.process_time()
    method.execute(inputs)
    times.append((time.process_time() - start) * 1000.0)
print(json.dumps(sum(times) / len(times)))
'''
    out = subprocess.run([sys.executable, "-c", code, json.dumps({"pte": pte, "inputs": inputs, "n": n})],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="append", required=True)
    parser.add_argument("--manifest", default=os.path.join(os.path.dirname(HERE), "tests", "models", "full",
                                                           "manifest.json"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    builds = [os.path.abspath(b) for b in args.build]
    envs = [devenv(b) for b in builds]
    models = [m for m in models_from_manifest(args.manifest, args.names) if m["xnnpack"]]
    print("CPU ms per execution, 1 thread, min of %d rounds; load average %s" %
          (args.rounds, open("/proc/loadavg").read().split()[:3]))
    for i, b in enumerate(builds):
        print("ours%d: %s" % (i + 1, os.path.relpath(b, os.path.dirname(HERE))))
    print("%-16s %s %12s %s" % ("model", " ".join("%8s" % ("ours%d" % (i + 1)) for i in range(len(builds))),
                                "upstream XNN", " ".join("%7s" % ("ratio%d" % (i + 1)) for i in range(len(builds)))))
    for model in models:
        ours, up = [[] for _ in builds], []
        for _ in range(args.rounds):
            for i, build in enumerate(builds):
                ours[i].append(ours_cpu_ms(build, envs[i], model, args.iterations))
            up.append(upstream_cpu_ms(model["xnnpack"], model["inputs"], args.iterations))
        print("%-16s %s %12.2f %s" % (model["name"], " ".join("%8.2f" % min(o) for o in ours), min(up),
                                      " ".join("%7.2f" % (min(o) / min(up)) for o in ours)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
