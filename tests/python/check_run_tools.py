#!/usr/bin/python3
"""executorch-run --profile, --etdump and --verify, end to end.

Usage: check_run_tools.py EXECUTORCH_RUN MODELS_DIR UPSTREAM_DIR

--verify must pass every case of tests/models/bundled/*.bpte and of
upstream's bundled_program.bpte; a copy whose expected output has flipped
bytes must be reported as a MISMATCH (exit status 1), and cut or damaged
copies must fail cleanly (exit status 1 with a message, never a signal).
"""

import os
import re
import struct
import subprocess
import sys
import tempfile

failures = []


def run(args, expect):
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode < 0 or proc.returncode != expect:
        failures.append(f"{' '.join(args[1:])}: exit status {proc.returncode}, expected {expect}\n"
                        f"{proc.stdout}{proc.stderr}")
    return proc


def expected_output_data(data):
    """Offset and length of case 0's expected output 0 (a trusted fixture)."""
    u32 = lambda p: struct.unpack_from("<I", data, p)[0]
    ref = lambda p: p + u32(p)

    def field(table, slot):
        vtable = table - struct.unpack_from("<i", data, table)[0]
        return table + struct.unpack_from("<H", data, vtable + 4 + 2 * slot)[0]

    suite = ref(ref(field(ref(0), 1)) + 4)
    case = ref(ref(field(suite, 1)) + 4)
    value = ref(ref(field(case, 1)) + 4)
    vec = ref(field(ref(field(value, 1)), 2))
    return vec + 4, u32(vec)


def main():
    tool, models, upstream = sys.argv[1:4]

    # --profile: a table of operators with calls and shares.
    out = run([tool, "-n", "3", "--profile", os.path.join(models, "mlp", "mlp.pte")], 0).stdout
    if "profile: 3 executions" not in out or not re.search(r"^operator\s+calls\s+total ms", out, re.M):
        failures.append(f"--profile printed no table:\n{out}")
    rows = re.findall(r"^(\S+::\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%$", out, re.M)
    if not rows or any(int(calls) % 3 for _, calls, *_ in rows):
        failures.append(f"--profile rows: {rows}")
    elif abs(sum(float(r[4]) for r in rows) - 100.0) > 0.5:
        failures.append(f"--profile shares do not add up: {rows}")
    out = run([tool, "--profile", "--profile-top", "1", os.path.join(models, "nets", "mv2", "mv2.pte")], 0).stdout
    if "more operators" not in out:
        failures.append(f"--profile-top 1 listed everything:\n{out}")

    with tempfile.TemporaryDirectory() as tmp:
        # --etdump: a size-prefixed ED00 FlatBuffer.
        path = os.path.join(tmp, "out.etdp")
        run([tool, "-q", "-n", "2", "--etdump", path, os.path.join(upstream, "add.pte")], 0)
        with open(path, "rb") as f:
            etdump = f.read()
        if struct.unpack_from("<I", etdump)[0] != len(etdump) - 4 or etdump[8:12] != b"ED00":
            failures.append("--etdump wrote no size-prefixed ED00 buffer")

        # --verify on good files.
        bundled = sorted(os.path.join(models, "bundled", f) for f in os.listdir(os.path.join(models, "bundled"))
                         if f.endswith(".bpte"))
        for path in bundled + [os.path.join(upstream, "bundled_program.bpte")]:
            out = run([tool, "--verify", path], 0).stdout
            m = re.search(r"^(\d+) test cases?: (\d+) passed, 0 failed$", out, re.M)
            if not m or m.group(1) != m.group(2) or out.count(": ok (") != int(m.group(1)):
                failures.append(f"--verify {path}:\n{out}")

        # A corrupted expectation is a mismatch.
        with open(os.path.join(models, "bundled", "add_bp.bpte"), "rb") as f:
            data = bytearray(f.read())
        pos, length = expected_output_data(data)
        corrupted = bytearray(data)
        for i in range(0, length, 4):
            corrupted[pos + i + 3] ^= 0x01   # sign/exponent byte of every element
        bad = os.path.join(tmp, "corrupted.bpte")
        with open(bad, "wb") as f:
            f.write(corrupted)
        out = run([tool, "--verify", bad], 1).stdout
        if "forward case 0: MISMATCH" not in out or "1 failed" not in out or "forward case 1: ok" not in out:
            failures.append(f"corrupted expectation:\n{out}")

        # Damaged files fail cleanly.
        for n, variant in enumerate([data[:len(data) // 2], data[:7], bytes(data[:4]) + b"XXXX" + bytes(data[8:])]):
            path = os.path.join(tmp, f"damaged{n}.bpte")
            with open(path, "wb") as f:
                f.write(variant)
            proc = run([tool, "--verify", path], 1)
            if "executorch-run:" not in proc.stderr:
                failures.append(f"damaged file {n}: no message: {proc.stderr}")
        # A plain program is not a bundled one.
        run([tool, "--verify", os.path.join(upstream, "add.pte")], 1)

    for f in failures:
        print("FAIL", f)
    print(f"{'FAILED' if failures else 'ok'}: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
