#!/usr/bin/python3
"""executorch-run as a command-line tool: warnings, --info --json, .ptd files,
install hints and time resolution.

Usage: check_run_cli.py EXECUTORCH_RUN MODELS_DIR EXAMPLE.pte EXAMPLE.input.npy

- Inputs that are generated because fewer --input files were given are
  announced on standard error (how many, and how: --fill, --seed), never
  with --quiet.
- --info --json prints what --info prints as JSON that parses.
- A program whose weights are in a .ptd file, run without one, is told to
  pass --data; MODEL.ptd beside MODEL.pte is used without --data.
- A missing operator or backend names the package to install only when the
  plug-in that would provide it is absent; otherwise the message says no
  installed library provides it.
- Times are printed and written in milliseconds with microsecond
  resolution (three decimals).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

RUN, MODELS, EXAMPLE, EXAMPLE_INPUT = sys.argv[1:5]
failures = []


def check(cond, what, detail=""):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)
        if detail:
            print("# " + repr(detail)[:3000])


def run(*args, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([RUN, *args], capture_output=True, text=True, env=full_env)


def model(*parts):
    return os.path.join(MODELS, *parts)


def patched_copy(src, dst, old, new):
    """A copy of @src with the string @old (same length as @new) replaced."""
    with open(src, "rb") as f:
        data = f.read()
    assert len(old) == len(new) and data.count(old) >= 1, (src, old)
    with open(dst, "wb") as f:
        f.write(data.replace(old, new))
    return dst


def check_generated_input_warning():
    p = run(EXAMPLE)
    check(p.returncode == 0 and re.search(r"^executorch-run: warning: 0 input files given for the 1 input of method "
                                          r"forward; input 0 is generated: tensors filled with zeros \(--fill zeros\)",
                                          p.stderr, re.M) is not None,
          "a generated input is announced with the fill mode", p.stderr)
    p = run(EXAMPLE, "--fill", "random", "--seed", "7")
    check(p.returncode == 0 and "random values (--fill random, --seed 7)" in p.stderr,
          "--fill random names the seed", p.stderr)
    p = run(model("scalar_io", "scalar_io.pte"), "-i", EXAMPLE_INPUT, "--fill", "ones")
    # The example's input does not fit scalar_io; only the message before binding matters here.
    check("1 input file given for the 4 inputs of method forward; inputs 1 to 3 are generated: tensors filled "
          "with ones (--fill ones)" in p.stderr, "a partial set names the generated inputs", p.stderr)
    p = run(EXAMPLE, "-i", EXAMPLE_INPUT)
    check(p.returncode == 0 and "warning" not in p.stderr, "no warning when every input is given", p.stderr)
    p = run(EXAMPLE, "-q")
    check(p.returncode == 0 and p.stderr == "", "--quiet prints no warning", p.stderr)


def check_info_json():
    for path in [model("scalar_io", "scalar_io.pte"), model("two_methods", "two_methods.pte"),
                 model("xnnpack_add", "xnnpack_add.pte"), model("channels_last", "channels_last.pte"), EXAMPLE]:
        p = run("--info", "--json", path)
        try:
            info = json.loads(p.stdout)
        except ValueError as e:
            check(False, f"--info --json {os.path.basename(path)} parses", f"{e}: {p.stdout}{p.stderr}")
            continue
        text = run("--info", path).stdout
        methods = re.findall(r"^method (\S+)$", text, re.M)
        check(p.returncode == 0 and info["program"] == path and [m["name"] for m in info["methods"]] == methods,
              f"--info --json {os.path.basename(path)}: the program and its methods", info)
        blocks = re.split(r"^method \S+$", text, flags=re.M)[1:]
        for method, block in zip(info["methods"], blocks):
            lines = re.findall(r"^ {4}\d+: (.*)$", block, re.M)
            values = method["inputs"] + method["outputs"]
            shown = []
            for v in values:
                if v["kind"] == "tensor":
                    order = ", ".join(map(str, v["dim_order"]))
                    if len(v["dim_order"]) == 1:
                        order += ","
                    shown.append(f"Tensor {v['dtype']} [{', '.join(map(str, v['sizes']))}] dim_order ({order}) "
                                 f"{v['dynamism']} {'planned' if v['planned'] else 'unplanned'} {v['device']}")
                else:
                    shown.append(v["kind"])
            # Each JSON value says what its text line says (scalars: the kind).
            check(len(lines) >= len(values) and all(
                      (s == line.replace("dynamic_bound", "dynamic-bound") if s.startswith("Tensor")
                       else line.lower().startswith(s)) for s, line in zip(shown, lines)),
                  f"--info --json {method['name']}: inputs and outputs as --info shows them", (shown, lines))
            counts = dict(re.findall(r"^  (\w[\w ]*): (\d+)$", block, re.M))
            check(int(counts["instructions"]) == method["instructions"] and
                  int(counts["operators"]) == len(method["operators"]) and
                  int(counts["backends"]) == len(method["backends"]) and
                  int(counts["planned buffers"]) == len(method["planned_buffers"]) and
                  all(f"    {op}\n" in block for op in method["operators"] + method["backends"]),
                  f"--info --json {method['name']}: counts, operators and backends", (counts, method))
    info = json.loads(run("--info", "--json", model("scalar_io", "scalar_io.pte")).stdout)
    inputs = info["methods"][0]["inputs"]
    check([i["kind"] for i in inputs] == ["tensor", "int", "double", "bool"] and inputs[1]["value"] == 3 and
          inputs[2]["value"] == 0.5 and inputs[3]["value"] is True and inputs[0]["dim_order"] == [0, 1] and
          inputs[0]["planned"] is True and inputs[0]["nbytes"] == 128,
          "--info --json: scalar values, dim order, planned, sizes in bytes", inputs)
    info = json.loads(run("--info", "--json", model("xnnpack_add", "xnnpack_add.pte")).stdout)
    check(info["methods"][0]["backends"] == ["XnnpackBackend"], "--info --json names the backends", info)
    with tempfile.TemporaryDirectory() as tmp:
        odd = os.path.join(tmp, 'a "quoted"\\name\t.pte')
        shutil.copy(EXAMPLE, odd)
        p = run("--info", "--json", odd)
        check(p.returncode == 0 and json.loads(p.stdout)["program"] == odd, "--info --json escapes the file name",
              p.stdout)
    p = run("--json", EXAMPLE)
    check(p.returncode == 2 and "--json needs --info" in p.stderr, "--json alone is a usage error", p.stderr)


def check_external_data():
    pte = model("mlp_external", "mlp_external.pte")
    ptd = model("mlp_external", "_default_external_constant.ptd")
    case = [model("mlp_external", "forward.case0.in0.npy"), model("mlp_external", "forward.case0.out0.npy")]
    p = run(pte, "-i", case[0])
    check(p.returncode == 1 and "fc1." in p.stderr and "pass it with --data FILE.ptd" in p.stderr,
          "a program needing a .ptd is told to pass --data", p.stderr)
    p = run(pte, "-i", case[0], "--data", ptd, "--compare", case[1])
    check(p.returncode == 0 and "--data" not in p.stderr, "with --data it runs", p.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        beside = os.path.join(tmp, "mlp_external.pte")
        shutil.copy(pte, beside)
        shutil.copy(ptd, os.path.join(tmp, "mlp_external.ptd"))
        p = run(beside, "-i", case[0], "--compare", case[1])
        check(p.returncode == 0 and f"using the external data in {os.path.join(tmp, 'mlp_external.ptd')}" in p.stderr
              and "outputs match" in p.stdout, "MODEL.ptd beside MODEL.pte is loaded and announced",
              p.stdout + p.stderr)
        p = run(beside, "-q", "-i", case[0], "--compare", case[1])
        check(p.returncode == 0 and p.stderr == "", "... silently with --quiet", p.stderr)
        p = run("--info", beside)
        check(p.returncode == 0 and "using the external data" in p.stderr, "... and for --info", p.stderr)
        # An explicit --data wins over the file beside the program.
        with open(os.path.join(tmp, "mlp_external.ptd"), "wb") as f:
            f.write(b"not a ptd file")
        p = run(beside, "-i", case[0], "--data", ptd, "--compare", case[1])
        check(p.returncode == 0 and "using the external data" not in p.stderr, "--data overrides the file beside",
              p.stderr)


def check_install_hints():
    mlp = model("mlp", "mlp.pte")
    p = run(mlp, "-q", env={"EXECUTORCH_MODULES_DISABLE": "kernels"})
    check(p.returncode == 1 and p.stderr.rstrip().endswith("aten::relu.out (install libexecutorch-kernels0)"),
          "an operator of an absent kernel library names its package", p.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        unknown_aten = patched_copy(mlp, os.path.join(tmp, "rely.pte"), b"aten::relu", b"aten::rely")
        p = run(unknown_aten, "-q")
        check(p.returncode == 1 and p.stderr.rstrip().endswith(
                  "needs an operator no kernel is registered for: aten::rely.out (no installed library provides it)"),
              "an operator the loaded kernel library lacks: no install hint", p.stderr)
        foreign = patched_copy(mlp, os.path.join(tmp, "foreign.pte"), b"aten::relu", b"mycorp::rl")
        p = run(foreign, "-q")
        check(p.returncode == 1 and "mycorp::rl.out (no installed library provides it)" in p.stderr and
              "(install " not in p.stderr, "an operator no known library provides says so", p.stderr)
        p = run(foreign, "-q", env={"EXECUTORCH_MODULES_DISABLE": "kernels"})
        check(p.returncode == 1 and p.stderr.rstrip().endswith(
                  "(install libexecutorch-kernels0; no installed library provides mycorp::rl.out)"),
              "a mixed set: the package for some, none for the rest", p.stderr)

        if "XnnpackBackend" not in run("--list-backends").stdout.split():
            print("# the XNNPACK backend is not built: its hint cases are left out")
            return
        xnn = model("xnnpack_add", "xnnpack_add.pte")
        p = run(xnn, "-q", env={"EXECUTORCH_MODULES_DISABLE": "xnnpack"})
        check(p.returncode == 1 and "backend XnnpackBackend is not registered (install libexecutorch-xnnpack0)"
              in p.stderr, "a backend of an absent library names its package", p.stderr)
        other = patched_copy(xnn, os.path.join(tmp, "other.pte"), b"XnnpackBackend", b"XnnpackBackenX")
        p = run(other, "-q")
        check(p.returncode == 1 and "backend XnnpackBackenX is not registered (no installed library provides it)"
              in p.stderr, "a backend no installed library provides: no install hint", p.stderr)


def check_time_resolution():
    with tempfile.TemporaryDirectory() as tmp:
        timing = os.path.join(tmp, "t.json")
        p = run(EXAMPLE, "-i", EXAMPLE_INPUT, "-n", "3", "--timing", timing)
        with open(timing) as f:
            text = f.read()
        numbers = re.findall(r"-?\d+\.\d+", text)
        data = json.loads(text)
        check(p.returncode == 0 and len(data["times_ms"]) == 3 and len(numbers) == 5 and
              all(re.fullmatch(r"\d+\.\d{3}", n) for n in numbers),
              "--timing writes milliseconds with three decimals (microseconds)", text)
        check(re.search(r"forward: 3 iterations, min \d+\.\d{3} ms, median \d+\.\d{3} ms$", p.stderr, re.M)
              is not None, "the summary has microseconds", p.stderr)


def main():
    check_generated_input_warning()
    check_info_json()
    check_external_data()
    check_install_hints()
    check_time_resolution()
    print(f"{'FAILED' if failures else 'ok'}: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
