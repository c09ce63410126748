#!/usr/bin/env python3
"""check-gidocgen.py GI_DOCGEN GIR [TOML]

Runs `gi-docgen check` on the GIR and fails when it reports anything: an
undocumented symbol, parameter or return value, or any other warning.
(`gi-docgen check` itself exits 1 only for missing documentation; other
warnings go to its log, so this reads the log too.)
"""
import os
import re
import subprocess
import sys


def main():
    gidocgen, gir = sys.argv[1], sys.argv[2]
    # The GIRs it includes (Executorch-1.0 for ExecutorchLlm-1.0) lie beside it.
    cmd = [gidocgen, "check", "--add-include-path=" + os.path.dirname(os.path.abspath(gir))]
    if len(sys.argv) > 3:
        cmd.append("--config=" + sys.argv[3])
    cmd.append(gir)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})
    out = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout)
    problems = [l for l in out.splitlines()
                if re.match(r"\s*(WARNING|ERROR|CRITICAL)\b", l)]
    for line in problems:
        print(line)
    print(f"# gi-docgen check: exit status {proc.returncode}, {len(problems)} warnings")
    if proc.returncode != 0 or problems:
        if proc.returncode != 0 and not problems:
            print(out)
        sys.exit(1)


if __name__ == "__main__":
    main()
