#!/usr/bin/python3
"""Runs a command and checks it exits 0 and its standard output matches a regex.

    check_output.py REGEX COMMAND [ARG]...
"""
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pattern, command = sys.argv[1], sys.argv[2:]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        sys.exit(f"{command[0]} exited with {done.returncode}")
    if not re.search(pattern, done.stdout, re.MULTILINE):
        sys.exit(f"the output does not match {pattern!r}")


if __name__ == "__main__":
    main()
