#!/usr/bin/env python3
"""executorch-run's progress line.

check_run_progress.py EXECUTORCH_RUN MODEL.pte INPUT.npy MAN_PAGE

Forced on with --progress (standard error a pipe), it shows every phase and
ends with a newline before the summary; it is on by itself when standard
error is a terminal (a pty here) and off with --quiet, --no-progress, or a
pipe; --help and the man page document it.

The terminal cases need a pseudo-terminal: where none can be opened (a chroot
with no devpts mounted on /dev/pts, as a bare mmdebstrap root has), they are
skipped, said aloud, and the test exits 77 (skipped) unless another case
failed.
"""
import os
import pty
import re
import subprocess
import sys

RUN, MODEL, INPUT, MAN = sys.argv[1:5]
failures = []


def check(cond, what, detail=""):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)
        if detail:
            print("# " + repr(detail)[:2000])


def given_input(args):
    """The input file, unless the case gives its own: no generated-input warning."""
    return list(args) if "-i" in args else ["-i", INPUT, *args]


def run(*args):
    return subprocess.run([RUN, MODEL, *given_input(args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def pty_available():
    """Whether a pseudo-terminal can be opened here, and why not."""
    try:
        master, slave = pty.openpty()
    except OSError as e:
        return False, str(e)
    os.close(master)
    os.close(slave)
    return True, ""


def run_on_pty(*args):
    """Runs with standard error on a pseudo-terminal; returns what it wrote."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([RUN, MODEL, *given_input(args)], stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:   # EIO once the child has closed the pty
            break
        if not data:
            break
        out += data
    os.close(master)
    proc.wait()
    return proc.returncode, out.decode().replace("\r\n", "\n")


# Forced on, stderr a pipe: warm-up and timed phases, then a newline, then
# the summary.
p = run("-n", "5", "--warmup", "2", "--progress")
err = p.stderr.decode()
check(p.returncode == 0, "--progress run succeeds", err)
check(re.search(r"\r\[warm-up 1/2\] forward \d+\.\d{3} ms", err) is not None, "first warm-up drawn", err)
check(re.search(r"\r\[warm-up 2/2\] forward \d+\.\d{3} ms", err) is not None, "last warm-up drawn", err)
check(re.search(r"\r\[1/5\] forward \d+\.\d{3} ms, min \d+\.\d{3} ms", err) is not None, "first timed drawn", err)
check(re.search(r"\r\[5/5\] forward \d+\.\d{3} ms, min \d+\.\d{3} ms *\nexecutorch-run: forward: 5 iterations, min",
                err) is not None, "last timed drawn, then a newline and the summary", err)
check(err.count("\n") == 2, "one progress line and one summary line", err)
check(b"\r" not in p.stdout, "nothing on standard output", p.stdout)

# Counters are padded to the width of the total.
p = run("-n", "12", "--progress")
err = p.stderr.decode()
check(re.search(r"\r\[ 1/12\] forward", err) is not None and re.search(r"\r\[12/12\] forward", err) is not None,
      "counter padded to the total's width", err)

# A line shorter than the one before is padded with spaces over its tail.
lines = re.findall(r"\r([^\r\n]*)", run("-n", "3", "--warmup", "1", "--progress").stderr.decode())
check(len(lines) >= 2 and all(len(b) >= len(a) or b.endswith(" ") for a, b in zip(lines, lines[1:])),
      "shorter redraws cover the previous line", lines)

# --steps: the step is named.
p = run("--steps", "-i", INPUT, "-i", INPUT, "-n", "2", "--progress")
err = p.stderr.decode()
check(p.returncode == 0 and re.search(r"\r\[2/2\] forward step 2/2 ", err) is not None, "--steps names the step", err)

# --quiet --progress: the progress line only.
p = run("-n", "3", "--quiet", "--progress")
err = p.stderr.decode()
check(p.returncode == 0 and "\r[3/3] forward" in err and "iterations" not in err and p.stdout == b"",
      "--quiet --progress shows progress and nothing else", err)

# Off by itself when standard error is not a terminal.
p = run("-n", "5", "--warmup", "2")
check(p.returncode == 0 and b"\r" not in p.stderr and b"[" not in p.stderr, "off when stderr is a pipe", p.stderr)

# On by itself on a terminal; off there with --quiet, --no-progress or one execution.
has_pty, no_pty_reason = pty_available()
if has_pty:
    rc, out = run_on_pty("-n", "4", "--warmup", "1")
    check(rc == 0 and "\r[warm-up 1/1] forward" in out
          and re.search(r"\r\[4/4\] forward .*\nexecutorch-run: forward: 4", out) is not None,
          "on when stderr is a terminal", out)
    rc, out = run_on_pty("-n", "4", "--quiet")
    check(rc == 0 and out == "", "off on a terminal with --quiet", out)
    rc, out = run_on_pty("-n", "4", "--no-progress")
    check(rc == 0 and "\r" not in out and "4 iterations" in out, "off on a terminal with --no-progress", out)
    rc, out = run_on_pty()
    check(rc == 0 and "\r" not in out and "1 iteration" in out, "off on a terminal for a single execution", out)
else:
    print(f"ok - # SKIP the terminal cases: no pseudo-terminal ({no_pty_reason}; is devpts mounted on /dev/pts?)")

# Errors start on a line of their own.
p = subprocess.run([RUN, MODEL, "-n", "3", "--progress", "-i", "/nonexistent.npy"], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
check(p.returncode != 0 and b"\r" not in p.stderr, "an input error before any execution draws nothing", p.stderr)

# An execution error after progress was drawn (here the timeout) starts on
# a line of its own, after the progress line.
# (3 s: on a loaded machine the first progress line may take longer than 0.5 s.)
p = run("-n", "10000000", "--progress", "--timeout", "3")
err = p.stderr.decode()
check(p.returncode == 124 and re.search(r"\r\[ *\d+/10000000\] forward [^\r\n]*\nexecutorch-run: timed out", err)
      is not None, "an error mid-run ends the progress line first", err[-300:])

p = run("--progress", "--no-progress")
check(p.returncode == 2 and b"cannot be combined" in p.stderr, "--progress with --no-progress is a usage error",
      p.stderr)

# Documented.
helptext = subprocess.run([RUN, "--help"], stdout=subprocess.PIPE).stdout.decode()
check("--progress" in helptext and "--no-progress" in helptext and "progress line" in helptext,
      "--help documents the progress line", helptext)
with open(MAN, encoding="utf-8") as f:
    man = f.read()
check(r"\-\-progress" in man and r"\-\-no\-progress" in man and "[ 37/100] forward" in man,
      "the man page documents the progress line")

if failures:
    sys.exit(f"{len(failures)} failed: {failures}")
if not has_pty:
    sys.exit(77)
