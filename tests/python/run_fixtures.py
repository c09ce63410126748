#!/usr/bin/python3
"""Runs every case of tests/models/manifest.json through executorch-run.

Each case must match the eager-PyTorch outputs recorded by the exporter
(executorch-run --compare). Fixtures delegated to a backend that is not
built must fail to load with an error naming that backend.
"""
import json
import os
import subprocess
import sys

models = sys.argv[1]
runner = sys.argv[2]
backends = subprocess.run([runner, "--list-backends"], capture_output=True, text=True, check=True).stdout

with open(os.path.join(models, "manifest.json")) as f:
    manifest = json.load(f)

passed = failed = 0
for fixture in manifest["fixtures"]:
    pte = os.path.join(models, fixture["pte"])
    data = [arg for ptd in fixture.get("ptd", []) for arg in ("--data", os.path.join(models, ptd))]
    methods = fixture.get("facts", {}).get("methods", {})
    needed = [d["id"] for m in methods.values() for d in m.get("delegates", [])]
    missing = [b for b in needed if b and b not in backends]
    for i, case in enumerate(fixture["cases"]):
        cmd = [runner, pte, "--method", case["method"], "--iterations", str(case["iterations"]),
               "--rtol", str(case.get("rtol", 1e-5)), "--atol", str(case.get("atol", 1e-6))] + data
        for path in case["inputs"]:
            cmd += ["--input", os.path.join(models, path)]
        for path in case["outputs"]:
            cmd += ["--compare", os.path.join(models, path)]
        result = subprocess.run(cmd, capture_output=True, text=True)
        name = f"{fixture['name']}[{case['method']}#{i}]"
        if missing:
            ok = result.returncode != 0 and missing[0] in result.stderr
            expectation = f"fails naming {missing[0]}"
        else:
            ok = result.returncode == 0
            expectation = "matches eager PyTorch"
        if ok:
            passed += 1
            print(f"ok {name}: {expectation}")
        else:
            failed += 1
            print(f"FAIL {name}: expected it {expectation}\n  {' '.join(cmd)}\n  {result.stderr.strip()}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)
