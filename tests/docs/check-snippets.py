#!/usr/bin/env python3
"""Compiles and runs the code snippets of README.md and docs/*.md.

check-snippets.py --srcdir SRC --builddir BUILD [--meson MESON] [--only LANG,...]
                  [--group NAME --export-python PYTHON] FILE.md|FOLDER...

Every fenced block whose info string is a tested language is a snippet,
built and run with the commands the guides print, nothing added:

  ```c        compiled with `cc -o NAME NAME.c $(pkg-config --cflags --libs
              executorch)` and run
  ```python   run with /usr/bin/python3 (the python with PyGObject)
  ```js       run with `gjs -m` (an ES module)
  ```vala     compiled with `valac --pkg executorch NAME.vala` and run
  ```sh       run with `sh -e` when it has a tag (shell commands as printed)

Everything runs inside `meson devenv -C BUILD`, from the source root: the
uninstalled libraries, typelib and plug-ins, and BUILD/devenv, the build
tree laid out as installed (executorch.pc's -I holds executorch/executorch.h,
XDG_DATA_DIRS finds the VAPI with its .deps and the GJS override, MANPATH the
man page).  Blocks in other languages are not run and are counted as skipped:
sh without a tag, console, text, a block with no language (diagrams), and the
data formats json, toml, yaml, diff and ini; an ini block is only used when a
tag gives it a file to be written to.  Any other language fails the test (use
sh for shell commands), so nothing is left out silently.  A compiler that
prints anything (a warning) fails the snippet too.

A tag, an HTML comment on the line just before the fence, says how:

  <!-- test: KEY=VALUE ... -->      (shell quoting: args="a b")

  mode=run        (default) build if needed, then run
  mode=compile    C or Vala: build only (a fragment of a larger program)
  mode=plugin     C: build a shared library at out=PATH (`cc -shared -fPIC
                  -Wl,-soname,NAME -o PATH FILE.c $(pkg-config ...)`)
  mode=file       any language: write the block to out=PATH
  mode=skip       not run; why=... says why (reported)
  args="..."      command-line arguments
  pkgs="..."      C: the pkg-config packages; Vala: the --pkg packages
                  (default executorch)
  cwd=DIR         run there instead of the source root
  env="K=V ..."   extra environment, over the devenv's
  expect=REGEX    standard output must match (re.search, multiline)
  timeout=SECONDS for a run (default 120)
  group=NAME      run only with --group NAME (a separate test, e.g. one that
                  needs torch); skipped otherwise
  python=export   run a python block with --export-python (the export venv's
                  python, with torch and executorch) instead of /usr/bin/python3

In args, cwd, out, env and expect, {srcdir} and {builddir} are the source
and build roots and {tmp} a temporary folder shared by the snippets of one
file (a plug-in built by one snippet is used by the next).

Output is TAP; the plan counts every snippet, skipped ones as "# SKIP".
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

TESTED = {"c", "python", "js", "vala"}
# Shell commands are ```sh (run only when tagged); data formats are shown, not
# run.  ini: only with mode=file.
SKIPPED = {"sh", "console", "text", "", "ini", "json", "toml", "yaml", "diff"}
FENCE = re.compile(r"^(\s*)```([A-Za-z0-9_+-]*)\s*(.*)$")
TAG = re.compile(r"^\s*<!--\s*test:(.*?)-->\s*$")


class Snippet:
    def __init__(self, path, line, lang, code, tag):
        self.path, self.line, self.lang, self.code, self.tag = path, line, lang, code, tag
        self.name = tag.get("name") or f"{os.path.basename(path)}:{line}"


def parse(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang, start = m.group(1), m.group(2).lower(), i
        tag = {}
        j = i - 1
        if j >= 0 and TAG.match(lines[j]):
            for item in shlex.split(TAG.match(lines[j]).group(1)):
                if "=" not in item:
                    sys.exit(f"{path}:{j + 1}: tag item {item!r} is not KEY=VALUE")
                k, v = item.split("=", 1)
                tag[k] = v
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i >= len(lines):
            sys.exit(f"{path}:{start + 1}: unterminated code block")
        i += 1
        out.append(Snippet(path, start + 1, lang, "\n".join(body) + "\n", tag))
    return out


class Runner:
    def __init__(self, args):
        self.src = os.path.abspath(args.srcdir)
        self.build = os.path.abspath(args.builddir)
        self.meson = args.meson
        self.export_python = args.export_python

    def subst(self, text, tmp):
        return text.replace("{srcdir}", self.src).replace("{builddir}", self.build).replace("{tmp}", tmp)

    def devenv(self, cmd, cwd, env_extra=None, timeout=120):
        """Runs @cmd in `meson devenv`; returns (status, stdout+stderr)."""
        full = [self.meson, "devenv", "-C", self.build, "-w", cwd]
        if env_extra:
            full += ["env"] + env_extra
        full += cmd
        try:
            p = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            return 124, (e.stdout or b"").decode(errors="replace") + f"\n(timed out after {timeout} s)"
        return p.returncode, p.stdout.decode(errors="replace")

    def shell(self, command, cwd):
        """Runs @command with `sh -c` in the devenv, so that $(pkg-config ...) is
        expanded there as in a reader's shell; returns (status, output)."""
        return self.devenv(["sh", "-c", command], cwd)

    def run(self, s, tmp):
        """Returns (ok, skip_reason, log)."""
        tag = s.tag
        mode = tag.get("mode", "run")
        if mode == "skip":
            return True, tag.get("why", "marked mode=skip"), ""
        if mode == "file":
            out = self.subst(tag["out"], tmp)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "w", encoding="utf-8") as f:
                f.write(s.code)
            return True, None, f"wrote {out}"
        if s.lang == "sh" and s.tag:
            return self.run_shell(s, tmp)
        if s.lang not in TESTED:
            if s.lang in SKIPPED:
                return True, f"language {s.lang or '(none)'}{' without a tag' if s.lang == 'sh' else ''} is not run", ""
            return False, None, (f"language {s.lang!r} is neither tested ({', '.join(sorted(TESTED))}) nor "
                                 f"known untestable ({', '.join(sorted(x for x in SKIPPED if x))}, none)")
        cwd = self.subst(tag.get("cwd", "{srcdir}"), tmp)
        if not os.path.isabs(cwd):
            cwd = os.path.join(self.src, cwd)
        args = [self.subst(a, tmp) for a in shlex.split(tag.get("args", ""))]
        env = [self.subst(e, tmp) for e in shlex.split(tag.get("env", ""))]
        timeout = float(tag.get("timeout", "120"))
        log = []
        base = os.path.join(tmp, re.sub(r"[^A-Za-z0-9_.-]", "_", s.name))

        if s.lang == "c":
            name = os.path.basename(base)
            with open(base + ".c", "w", encoding="utf-8") as f:
                f.write(s.code)
            pkgs = shlex.join(shlex.split(tag.get("pkgs", "executorch")))
            if mode == "plugin":
                out = self.subst(tag["out"], tmp)
                os.makedirs(os.path.dirname(out), exist_ok=True)
                cmd = (f"cc -shared -fPIC -Wl,-soname,{shlex.quote(os.path.basename(out))} -o {shlex.quote(out)} "
                       f"{shlex.quote(name)}.c $(pkg-config --cflags --libs {pkgs})")
            elif mode == "compile" and "main" not in s.code:
                cmd = f"cc -c {shlex.quote(name)}.c $(pkg-config --cflags {pkgs})"
            else:
                cmd = f"cc -o {shlex.quote(name)} {shlex.quote(name)}.c $(pkg-config --cflags --libs {pkgs})"
            status, out = self.shell(cmd, tmp)
            log.append("$ " + cmd + "\n" + out)
            if status != 0 or out.strip():
                return False, None, "\n".join(log)
            if mode in ("compile", "plugin"):
                return True, None, "\n".join(log)
            run = [base] + args
        elif s.lang == "vala":
            name = os.path.basename(base)
            with open(base + ".vala", "w", encoding="utf-8") as f:
                f.write(s.code)
            vala_pkgs = " ".join("--pkg " + shlex.quote(p) for p in shlex.split(tag.get("pkgs", "executorch")))
            cmd = f"valac {vala_pkgs} {shlex.quote(name)}.vala"
            status, out = self.shell(cmd, tmp)
            log.append("$ " + cmd + "\n" + out)
            if status != 0 or "warning" in out:
                return False, None, "\n".join(log)
            if mode == "compile":
                return True, None, "\n".join(log)
            run = [base] + args
        elif s.lang == "python":
            with open(base + ".py", "w", encoding="utf-8") as f:
                f.write(s.code)
            python = "/usr/bin/python3"
            if tag.get("python") == "export":
                if not self.export_python:
                    raise RuntimeError("python=export needs --export-python")
                python = self.export_python
            run = [python, base + ".py"] + args
        else:   # js
            with open(base + ".js", "w", encoding="utf-8") as f:
                f.write(s.code)
            run = ["gjs", "-m", base + ".js"] + args
        status, out = self.devenv(run, cwd, env, timeout)
        log.append("$ " + shlex.join(env + run) + f"  (in {cwd})\n" + out)
        if status != 0:
            log.append(f"exit status {status}")
            return False, None, "\n".join(log)
        if "expect" in tag and not re.search(self.subst(tag["expect"], tmp), out, re.M):
            log.append(f"output does not match expect={tag['expect']!r}")
            return False, None, "\n".join(log)
        return True, None, "\n".join(log)


    def run_shell(self, s, tmp):
        """A tagged sh block: its commands, as printed, under `sh -e`."""
        tag = s.tag
        cwd = self.subst(tag.get("cwd", "{srcdir}"), tmp)
        if not os.path.isabs(cwd):
            cwd = os.path.join(self.src, cwd)
        env = [self.subst(e, tmp) for e in shlex.split(tag.get("env", ""))]
        run = ["sh", "-e", "-c", s.code]
        status, out = self.devenv(run, cwd, env, float(tag.get("timeout", "120")))
        log = [f"$ sh -e  (in {cwd})\n{s.code}{out}"]
        if status != 0:
            log.append(f"exit status {status}")
            return False, None, "\n".join(log)
        if "expect" in tag and not re.search(self.subst(tag["expect"], tmp), out, re.M):
            log.append(f"output does not match expect={tag['expect']!r}")
            return False, None, "\n".join(log)
        return True, None, "\n".join(log)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--meson", default="meson")
    ap.add_argument("--only", default="", help="comma-separated languages to run (others are skipped)")
    ap.add_argument("--group", default=None, help="run only the snippets tagged group=NAME")
    ap.add_argument("--export-python", default=None, help="the python that runs python=export snippets")
    ap.add_argument("files", nargs="+")
    opts = ap.parse_args()
    only = set(x for x in opts.only.split(",") if x)

    files = []
    for f in opts.files:   # a folder stands for its *.md files, so a new guide is checked too
        files += sorted(glob.glob(os.path.join(f, "*.md"))) if os.path.isdir(f) else [f]
    snippets = [s for f in files for s in parse(f)]
    runner = Runner(opts)
    print("# tested languages: " + ", ".join(sorted(TESTED)) + "; skipped (not run): " +
          ", ".join(sorted(x for x in SKIPPED if x)) + ", no language (ini is used when a tag writes it to a file)")
    print(f"1..{len(snippets)}")
    failed, counts, skipped = 0, {}, 0
    tmps = {}
    for n, s in enumerate(snippets, 1):
        tmp = tmps.setdefault(s.path, tempfile.mkdtemp(prefix="snippets-"))
        group = s.tag.get("group")
        if group != opts.group:
            ok, log = True, ""
            skip = (f"in group {group}, run by its own test (--group {group})" if group
                    else f"not in group {opts.group}")
        elif only and s.lang in TESTED and s.lang not in only and s.tag.get("mode") != "file":
            ok, skip, log = True, f"--only {opts.only}", ""
        else:
            try:
                ok, skip, log = runner.run(s, tmp)
            except (RuntimeError, KeyError, OSError) as e:
                ok, skip, log = False, None, f"{type(e).__name__}: {e}"
        what = f"{s.name} ({s.lang or 'no language'}, {os.path.relpath(s.path, runner.src)}:{s.line})"
        if skip:
            skipped += 1
            print(f"ok {n} - {what} # SKIP {skip}")
        elif ok:
            counts[s.lang] = counts.get(s.lang, 0) + 1
            print(f"ok {n} - {what}")
        else:
            failed += 1
            print(f"not ok {n} - {what}")
            for line in log.splitlines()[-60:]:
                print("# " + line)
    print("# passed per language: " + ", ".join(f"{k or 'none'} {v}" for k, v in sorted(counts.items())) +
          f"; skipped {skipped}; failed {failed}")
    for tmp in tmps.values():
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
