#!/usr/bin/python3
"""Checks the installed-library contract of the libexecutorch packages.

Runs inside the clean root that tests/install/run makes, after the packages
are installed there from a local apt repository, with only Debian's own
packages besides.  Usage:

    check-installed.py DATA_DIR BUILD_PATH...

DATA_DIR holds tests/install (this folder), the fixtures (tests/models/mlp,
tests/models/xnnpack when the backend is built, data/models) and the GJS and
Vala examples; each BUILD_PATH is a string (the package build's source and
build folders) that no installed file may contain.

Every check prints "ok ..." or "FAIL ..."; the report at the end counts
libraries, symbols owned, operators, headers compiled and declared
functions linked.  The exit status is 1 when any check failed.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

DATA = os.path.abspath(sys.argv[1])
BUILD_PATHS = [p for p in sys.argv[2:] if p]
HERE = os.path.join(DATA, "tests", "install")
SOURCE = "libexecutorch"

failures = []
report = {}


def ok(message):
    print(f"ok {message}")


def fail(message):
    print(f"FAIL {message}")
    failures.append(message)


def check(condition, message, detail=""):
    if condition:
        ok(message)
    else:
        fail(message + (f": {detail}" if detail else ""))
    return condition


def run(args, cwd=None, env=None, check_rc=True):
    """Runs ARGS; returns (rc, stdout+stderr)."""
    proc = subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check_rc and proc.returncode != 0:
        print(f"  $ {' '.join(args)}\n" + "\n".join("  | " + line for line in proc.stdout.splitlines()[-30:]))
    return proc.returncode, proc.stdout


def clean_env(**extra):
    """An environment with nothing pointing into a build tree."""
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
           "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp"}
    env.update(extra)
    return env


def pkg_config(*args):
    rc, out = run(["pkg-config", *args], env=clean_env())
    if rc != 0:
        raise RuntimeError(f"pkg-config {' '.join(args)}: {out}")
    return out.split()


# ---------------------------------------------------------------------------
# What is installed
# ---------------------------------------------------------------------------

multiarch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], check_rc=False)[1].strip() or \
    run(["gcc", "-print-multiarch"])[1].strip()
libdir = f"/usr/lib/{multiarch}"

_, out = run(["dpkg-query", "-W", "-f", "${Package} ${source:Package} ${Status}\n"])
packages = sorted(line.split()[0] for line in out.splitlines()
                  if line.split()[1] == SOURCE and line.endswith("installed") and "not-installed" not in line)
files_of = {}
for package in packages:
    _, out = run(["dpkg-query", "-L", package])
    files_of[package] = [f for f in out.splitlines() if os.path.isfile(f) and not os.path.islink(f)]
print(f"installed packages of {SOURCE}: {', '.join(packages)}")
have_xnnpack = "libexecutorch-xnnpack0" in packages
# The contrib CUDA packages (build profile pkg.libexecutorch.cuda), which
# tests/install/run installs for a second pass when it could build them.
have_cuda = "libexecutorch-cuda0" in packages
have_gpu = os.path.exists("/dev/nvidia0")

# The parts and the one library (and package) that must own each.  A part's
# symbols are recognised by name; the runtime owns executorch_* and et_*
# symbols that no other part claims.
PARTS = [
    # name, soname, package, symbol regex, required
    ("kernels-quantized", "libexecutorch-kernels-quantized.so.0", "libexecutorch-kernels-quantized0",
     r"executorch_kernels_quantized_\w+", True),
    ("kernels", "libexecutorch-kernels.so.0", "libexecutorch-kernels0", r"executorch_kernels_\w+", True),
    ("threadpool", "libexecutorch-threadpool.so.0", "libexecutorch-threadpool0", r"executorch_threadpool_\w+", True),
    ("profiler", "libexecutorch-profiler.so.0", "libexecutorch-profiler0", r"executorch_profiler_\w+", True),
    ("xnnpack", "libexecutorch-xnnpack.so.0", "libexecutorch-xnnpack0", r"executorch_(backend_)?xnnpack_\w+", False),
    ("cuda-stream", "libexecutorch-cuda-stream.so.0", "libexecutorch-cuda-stream0", r"executorch_cuda_stream_\w+",
     False),
    # the plug-in entry and the AOTInductor host functions a model .so imports
    ("cuda", "libexecutorch-cuda.so.0", "libexecutorch-cuda0", r"(executorch_(backend_)?cuda_\w+|aoti_torch_\w+)",
     False),
    # text generation (libexecutorch-llm), on the runtime's public API
    ("llm", "libexecutorch-llm.so.0", "libexecutorch-llm0", r"executorch_llm_\w+", True),
    ("runtime", "libexecutorch.so.0", "libexecutorch0", r"(executorch|et)_\w+", True),
]
SONAME_OF_PART = {p[0]: p[1] for p in PARTS}


def part_of_symbol(symbol):
    for name, _, _, pattern, _ in PARTS:
        if re.fullmatch(pattern, symbol):
            return name
    return None


def readelf_dynamic(path):
    _, out = run(["readelf", "-dW", path])
    entries = re.findall(r"\((\w+)\)\s+(.*)", out)
    return entries


libraries = {}   # path -> {"soname", "package", "needed", "defined"}
for package, files in files_of.items():
    for path in files:
        if not re.search(r"\.so(\.\d+)*$", path):
            continue
        dynamic = readelf_dynamic(path)
        soname = next((re.sub(r".*\[(.*)\]", r"\1", v) for k, v in dynamic if k == "SONAME"), None)
        needed = [re.sub(r".*\[(.*)\]", r"\1", v) for k, v in dynamic if k == "NEEDED"]
        _, out = run(["nm", "-D", "--defined-only", path])
        defined = sorted({line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()})
        libraries[path] = {"soname": soname, "package": package, "needed": needed, "defined": defined,
                           "dynamic": dynamic}
by_soname = {info["soname"]: path for path, info in libraries.items()}
report["libraries"] = len(libraries)
print(f"installed libraries: {len(libraries)}")

# ---------------------------------------------------------------------------
# 1. Each part's symbols are defined by exactly one library: the right one
# ---------------------------------------------------------------------------

print("# symbols: one owner per part")
owners = {}
for path, info in libraries.items():
    for symbol in info["defined"]:
        owners.setdefault(symbol, []).append(path)
owned = {}
for symbol, paths in sorted(owners.items()):
    part = part_of_symbol(symbol)
    if part is None:
        fail(f"{symbol} (defined in {', '.join(paths)}) belongs to no part: an internal symbol leaked")
        continue
    if len(paths) != 1:
        fail(f"{symbol} is defined by {len(paths)} libraries: {', '.join(paths)}")
        continue
    soname = libraries[paths[0]]["soname"]
    if soname != SONAME_OF_PART[part]:
        fail(f"{symbol} ({part}) is defined in {soname}, expected {SONAME_OF_PART[part]}")
        continue
    owned.setdefault(part, []).append(symbol)
for name, soname, package, _, required in PARTS:
    if not required and soname not in by_soname:
        continue
    path = by_soname.get(soname)
    check(path is not None and libraries[path]["package"] == package,
          f"{soname} is installed by {package}", f"found {path and libraries[path]['package']}")
    check(len(owned.get(name, [])) > 0, f"part {name}: {len(owned.get(name, []))} symbols, all in {soname}")
report["symbols owned"] = {name: len(owned.get(name, [])) for name, soname, *_ in PARTS if soname in by_soname}
check(sum(len(v) for v in owned.values()) == len(owners),
      f"every one of the {len(owners)} exported symbols has exactly one owner, the right one")

# Every part but the thread pool and the CUDA stream helper (plain helpers
# that register nothing) registers into the one runtime: it links
# libexecutorch.so.0 and carries no copy of it.
for path, info in sorted(libraries.items()):
    if info["soname"] in ("libexecutorch.so.0", "libexecutorch-threadpool.so.0", "libexecutorch-cuda-stream.so.0"):
        continue
    check("libexecutorch.so.0" in info["needed"], f"{info['soname']} links the one runtime (NEEDED libexecutorch.so.0)",
          f"NEEDED {info['needed']}")

# ---------------------------------------------------------------------------
# 2. Every library loads, resolves every symbol, has no RPATH and no build path
# ---------------------------------------------------------------------------

print("# loading, RPATH/RUNPATH, build paths")
work = tempfile.mkdtemp(prefix="et-install-")
cflags = pkg_config("--cflags", "executorch")
libs = pkg_config("--libs", "executorch")
rc, out = run(["gcc", "-o", f"{work}/loadlib", f"{HERE}/loadlib.c"])
check(rc == 0, "loadlib builds")
for path, info in sorted(libraries.items()):
    rc, out = run([f"{work}/loadlib", path], env=clean_env(LD_BIND_NOW="1"), check_rc=False)
    check(rc == 0, f"{info['soname']} loads with RTLD_NOW", out.strip())
    rc, out = run(["ldd", "-r", path], check_rc=False)
    bad = [line.strip() for line in out.splitlines() if "undefined symbol" in line or "not found" in line]
    check(rc == 0 and not bad, f"{info['soname']}: ldd -r finds every symbol and library", "; ".join(bad[:5]))
    paths = [k for k, _ in info["dynamic"] if k in ("RPATH", "RUNPATH")]
    check(not paths, f"{info['soname']} has no RPATH/RUNPATH", str(paths))
for path in ("/usr/bin/executorch-run",):
    if os.path.exists(path):
        paths = [k for k, _ in readelf_dynamic(path) if k in ("RPATH", "RUNPATH")]
        check(not paths, f"{path} has no RPATH/RUNPATH", str(paths))

n_files = 0
for package, files in sorted(files_of.items()):
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        n_files += 1
        for build_path in BUILD_PATHS:
            if build_path.encode() in data:
                fail(f"{path} ({package}) contains the build path {build_path}")
check(True, f"{n_files} installed files scanned for {len(BUILD_PATHS)} build paths")
report["files scanned for build paths"] = n_files

# ---------------------------------------------------------------------------
# 3. The registry: who registers each operator table and backend
# ---------------------------------------------------------------------------

print("# registry: operator tables, backends, profiler")
rc, _ = run(["gcc", "-shared", "-fPIC", "-o", f"{work}/owners.so", f"{HERE}/owners.c", *cflags, "-ldl"])
check(rc == 0, "owners.so (registration recorder) builds")
rc, _ = run(["gcc", "-o", f"{work}/parts", f"{HERE}/parts.c", *cflags, *libs])
check(rc == 0, "parts (registry lister) builds")
log = f"{work}/owners.log"
rc, out = run([f"{work}/parts"], env=clean_env(LD_PRELOAD=f"{work}/owners.so", OWNERS_LOG=log))
check(rc == 0, "discovery loads every installed plug-in", out[-500:])
listed = {}
for line in out.splitlines():
    kind, _, name = line.partition(" ")
    listed.setdefault(kind, []).append(name)
records = {}
if os.path.exists(log):
    for line in open(log):
        kind, name, caller, code = line.split()
        records.setdefault(kind, []).append((name, os.path.realpath(caller), os.path.realpath(code)))


def soname_of(path):
    for lib, info in libraries.items():
        if os.path.realpath(lib) == path:
            return info["soname"]
    return path


expected_plugins = {"kernels", "kernels-quantized", "profiler"} | ({"xnnpack"} if have_xnnpack else set()) | \
    ({"cuda"} if have_cuda else set())
found_plugins = {line.split()[0] for line in listed.get("plugin", [])}   # "kernels 1.0.0 (loaded)"
check(expected_plugins <= found_plugins, f"plug-ins found by discovery: {sorted(listed.get('plugin', []))}",
      f"expected {sorted(expected_plugins)}")

kernel_records = {}
for name, caller, code in records.get("kernel", []):
    kernel_records.setdefault(name, []).append((soname_of(caller), soname_of(code)))
operators = listed.get("operator", [])
operators_by_lib = {}
bad = []
for op in operators:
    regs = kernel_records.get(op, [])
    expected = "libexecutorch-kernels-quantized.so.0" if op.startswith("quantized_decomposed::") \
        else "libexecutorch-kernels.so.0"
    if len(regs) != 1:
        bad.append(f"{op} registered {len(regs)} times")
    elif regs[0] != (expected, expected):
        bad.append(f"{op} registered by {regs[0][0]}, code in {regs[0][1]}, expected {expected}")
    else:
        operators_by_lib.setdefault(expected, []).append(op)
check(len(operators) > 100 and not bad,
      f"{len(operators)} operators, each registered once by the library holding its code: " +
      ", ".join(f"{k} {len(v)}" for k, v in sorted(operators_by_lib.items())), "; ".join(bad[:10]))
check(set(kernel_records) == set(operators), "every registered kernel is listed by the registry",
      str(sorted(set(kernel_records) ^ set(operators))[:10]))
report["operators"] = {k: len(v) for k, v in sorted(operators_by_lib.items())}

backends = listed.get("backend", [])
backend_records = {name: (soname_of(caller), soname_of(code)) for name, caller, code in records.get("backend", [])}
for backend in backends:
    owner = backend_records.get(backend)
    check(owner is not None and owner[0] == owner[1] and owner[0] != "libexecutorch.so.0",
          f"backend {backend} is registered by the library holding its code ({owner and owner[0]})")
if have_xnnpack:
    check(backend_records.get("XnnpackBackend") == ("libexecutorch-xnnpack.so.0",) * 2,
          "XnnpackBackend belongs to libexecutorch-xnnpack.so.0", str(backend_records.get("XnnpackBackend")))
if have_cuda and not have_gpu:
    # No GPU or driver here: the CUDA plug-in loads but registers nothing.
    check("CudaBackend" not in backends and not any(d.startswith("cuda") for d in listed.get("device", [])),
          "with no GPU the CUDA plug-in registers no backend and no cuda allocator",
          f"backends {backends}, devices {listed.get('device', [])}")
elif have_cuda:
    check(backend_records.get("CudaBackend") == ("libexecutorch-cuda.so.0",) * 2,
          "CudaBackend belongs to libexecutorch-cuda.so.0", str(backend_records.get("CudaBackend")))
report["backends"] = {b: backend_records.get(b, ("?",))[0] for b in backends}
profilers = [(n, soname_of(c), soname_of(k)) for n, c, k in records.get("profiler", [])]
check(len(profilers) == 1 and profilers[0][1:] == ("libexecutorch-profiler.so.0",) * 2,
      f"one profiler, registered by libexecutorch-profiler.so.0: {profilers}")

cuda_program = f"{DATA}/tests/models/cuda_gpu/linear_relu.pte"
if have_cuda and not have_gpu and os.path.exists(cuda_program):
    # A CUDA program on a machine without a GPU: a clear error, no abort.
    rc, out = run(["executorch-run", "--allow-native-code", cuda_program], env=clean_env(), check_rc=False)
    check(rc == 1 and "libexecutorch-cuda0 provides it once a GPU" in out,
          "executorch-run on a CUDA program without a GPU fails (exit 1) saying what is missing", out.strip())

# The typelib's library is the runtime alone.
typelib = f"{libdir}/girepository-1.0/Executorch-1.0.typelib"
rc, out = run(["g-ir-generate", typelib])
shared = re.findall(r'shared-library="([^"]*)"', out)
check(shared == ["libexecutorch.so.0"], f"the typelib's shared-library is {shared}")
rc, out = run(["g-ir-generate", f"{libdir}/girepository-1.0/ExecutorchLlm-1.0.typelib"])
shared = re.findall(r'shared-library="([^"]*)"', out)
check(shared == ["libexecutorch-llm.so.0"], f"the ExecutorchLlm typelib's shared-library is {shared}")
runtime = libraries.get(by_soname.get("libexecutorch.so.0"), {"needed": [], "defined": []})
code_in_runtime = [k for k, regs in kernel_records.items() for r in regs if "libexecutorch.so.0" in r] + \
    [b for b, r in backend_records.items() if "libexecutorch.so.0" in r] + \
    [p[0] for p in profilers if "libexecutorch.so.0" in p[1:]]
foreign = [s for s in runtime["defined"] if part_of_symbol(s) != "runtime"]
linked_parts = [n for n in runtime["needed"] if n.startswith("libexecutorch")]
check(not code_in_runtime and not foreign and not linked_parts,
      "the typelib's library holds no part's code (no kernel, backend or profiler in it; no part's symbols; "
      "links no part)", f"code {code_in_runtime[:5]}, symbols {foreign[:5]}, NEEDED {linked_parts}")

# ---------------------------------------------------------------------------
# 4. A C application built outside the tree with pkg-config only
# ---------------------------------------------------------------------------

print("# C application (pkg-config), copied elsewhere")
mlp = f"{DATA}/tests/models/mlp"
model_args = [f"{mlp}/mlp.pte", f"{mlp}/forward.case0.in0.npy", f"{mlp}/forward.case0.out0.npy"]


def manifest_entry(name):
    path = f"{libdir}/executorch-1/modules/{name}.module"
    for line in open(path):
        if line.startswith("Entry="):
            return line.strip().split("=", 1)[1]
    raise RuntimeError(f"{path}: no Entry=")


linked = [("executorch-kernels", manifest_entry("kernels"))]
if have_xnnpack:
    linked.append(("executorch-xnnpack", manifest_entry("xnnpack")))
if have_cuda:
    # Linked on a machine without a GPU, the CUDA backend must load and
    # stay out of the way of a CPU program.
    linked.append(("executorch-cuda", manifest_entry("cuda")))
plugins_macro = " ".join(f"X({entry})" for _, entry in linked)
app_dir = f"{work}/consumer-pkg-config"
os.makedirs(app_dir)
shutil.copy(f"{HERE}/app/app.c", app_dir)
flags = pkg_config("--cflags", "--libs", "executorch", *[m for m, _ in linked])
rc, out = run(["gcc", "-std=c99", "-Wall", "-Werror", "-o", "app", "app.c", f"-DAPP_PLUGINS={plugins_macro}",
               *flags, "-lm"], cwd=app_dir)
check(rc == 0, f"app.c builds with pkg-config --cflags --libs executorch {' '.join(m for m, _ in linked)}")
needed = [re.sub(r".*\[(.*)\]", r"\1", v) for k, v in readelf_dynamic(f"{app_dir}/app") if k == "NEEDED"]
want = ["libexecutorch.so.0", "libexecutorch-kernels.so.0"] + (["libexecutorch-xnnpack.so.0"] if have_xnnpack else []) + \
    (["libexecutorch-cuda.so.0"] if have_cuda else [])
check(all(n in needed for n in want), f"the app links {', '.join(want)}", f"NEEDED {needed}")
check(not [k for k, _ in readelf_dynamic(f"{app_dir}/app") if k in ("RPATH", "RUNPATH")], "the app has no RPATH")
rc, out = run([f"{app_dir}/app", *model_args], env=clean_env(EXECUTORCH_MODULE_SYSTEM_PATH=""))
check(rc == 0 and "outputs match" in out, "the app runs mlp with discovery off (its linked kernels) and matches",
      out.strip())
rc, out = run([f"{app_dir}/app", *model_args], env=clean_env())
check(rc == 0 and "outputs match" in out, "the app runs mlp with discovery on and matches", out.strip())
elsewhere = f"{work}/elsewhere/bin"
os.makedirs(elsewhere)
shutil.copy(f"{app_dir}/app", f"{elsewhere}/app-copy")
shutil.rmtree(app_dir)
rc, out = run([f"{elsewhere}/app-copy", *model_args], cwd="/", env=clean_env())
check(rc == 0 and "outputs match" in out, "a copy of the app in another folder (build folder deleted) still runs",
      out.strip())
# Negative control: without the linked kernels and with discovery off the
# same program must fail, naming the missing operator.
os.makedirs(app_dir)
shutil.copy(f"{HERE}/app/app.c", app_dir)
rc, _ = run(["gcc", "-o", "app-nolink", "app.c", "-DAPP_PLUGINS=", *pkg_config("--cflags", "--libs", "executorch"),
             "-lm"], cwd=app_dir)
rc, out = run([f"{app_dir}/app-nolink", *model_args], env=clean_env(EXECUTORCH_MODULE_SYSTEM_PATH=""), check_rc=False)
check(rc != 0 and "aten::" in out, "control: with no kernels linked nor discovered the model fails naming the operator",
      out.strip())
xnn_dir = f"{DATA}/tests/models/xnnpack/xnn_mlp"
if have_xnnpack and os.path.exists(f"{xnn_dir}/xnn_mlp.pte"):
    xnn_args = [f"{xnn_dir}/xnn_mlp.pte", f"{xnn_dir}/forward.case0.in0.npy", f"{xnn_dir}/forward.case0.out0.npy",
                "1e-4", "1e-4"]
    rc, out = run([f"{elsewhere}/app-copy", *xnn_args], env=clean_env(EXECUTORCH_MODULE_SYSTEM_PATH=""))
    check(rc == 0 and "outputs match" in out, "the app runs the XNNPACK-delegated xnn_mlp through its linked backend",
          out.strip())

# ---------------------------------------------------------------------------
# 5. Meson and CMake consumers; version requests; missing components
# ---------------------------------------------------------------------------

print("# meson consumer")
# The optional parts that are not installed, and a part this project does
# not ship at all (so that there is one in every pass).
missing_components = ([] if have_cuda else ["executorch-cuda"]) + ([] if have_xnnpack else ["executorch-xnnpack"]) + \
    ["executorch-opencl"]
version = pkg_config("--modversion", "executorch")[0]
major = int(version.split(".")[0])


def meson_case(name, options):
    src = f"{work}/meson-{name}"
    shutil.copytree(f"{HERE}/app", src)
    rc, out = run(["meson", "setup", "build", *options], cwd=src, env=clean_env(), check_rc=False)
    return src, rc, out


plugins_opt = "-Dplugins=" + ",".join(m for m, _ in linked)
entries_opt = "-Dentries=" + ",".join(e for _, e in linked)
src, rc, out = meson_case("plain", [plugins_opt, entries_opt])
check(rc == 0, f"meson: dependency('executorch') + {', '.join(repr(m) for m, _ in linked)} configure", out[-400:])
if rc == 0:
    rc, out = run(["meson", "compile", "-C", "build"], cwd=src, env=clean_env())
    check(rc == 0, "meson: the consumer builds")
    rc, out = run([f"{src}/build/app", *model_args], env=clean_env(EXECUTORCH_MODULE_SYSTEM_PATH=""))
    check(rc == 0 and "outputs match" in out, "meson: the consumer runs mlp and matches", out.strip())
for case, request, should_pass in [
        ("atleast", f">= {major}.0", True),
        ("exact", f"= {version}", True),
        ("range", f">= {major}.0,< {major + 1}.0", True),
        ("too-new", f">= {major + 1}.0", False),
        ("range-below", f">= 0.1,< {major}.0", False)]:
    src, rc, out = meson_case(case, [plugins_opt, entries_opt, f"-Dversion={request}"])
    if should_pass:
        check(rc == 0, f"meson: version: {request.split(',')} is satisfied by {version}", out[-300:])
    else:
        check(rc != 0 and "'executorch'" in out and version in out,
              f"meson: version: {request.split(',')} fails at configure time naming executorch and {version}",
              out[-300:])
for missing in missing_components:
    src, rc, out = meson_case("missing-" + missing, [f"-Dplugins={missing}", "-Dentries="])
    check(rc != 0 and f'Dependency "{missing}" not found' in out,
          f"meson: dependency('{missing}') (not installed) fails at configure time naming it", out[-300:])

print("# CMake consumer (FindPkgConfig)")


def cmake_case(name, modules, plugins=plugins_macro):
    src = f"{work}/cmake-{name}"
    shutil.copytree(f"{HERE}/app", src)
    rc, out = run(["cmake", "-S", ".", "-B", "build", f"-DEXECUTORCH_MODULES={';'.join(modules)}",
                   f"-DAPP_PLUGINS={plugins}"], cwd=src, env=clean_env(), check_rc=False)
    return src, rc, out


modules = ["executorch"] + [m for m, _ in linked]
src, rc, out = cmake_case("plain", modules)
check(rc == 0, f"cmake: pkg_check_modules({';'.join(modules)}) configures", out[-400:])
if rc == 0:
    rc, out = run(["cmake", "--build", "build"], cwd=src, env=clean_env())
    check(rc == 0, "cmake: the consumer builds")
    rc, out = run([f"{src}/build/app", *model_args], env=clean_env(EXECUTORCH_MODULE_SYSTEM_PATH=""))
    check(rc == 0 and "outputs match" in out, "cmake: the consumer runs mlp and matches", out.strip())
for case, specs, should_pass in [
        ("atleast", [f"executorch>={major}.0", f"executorch-kernels>={major}.0"], True),
        ("range", [f"executorch>={major}.0", f"executorch<{major + 1}.0", "executorch-kernels"], True),
        ("too-new", [f"executorch>={major + 1}.0", "executorch-kernels"], False),
        ("range-below", [f"executorch>=0.1", f"executorch<{major}.0", "executorch-kernels"], False)]:
    src, rc, out = cmake_case(case, specs)
    if should_pass:
        check(rc == 0, f"cmake: {specs} is satisfied by {version}", out[-300:])
    else:
        check(rc != 0 and "executorch" in out and version in out,
              f"cmake: {specs} fails at configure time naming executorch and {version}", out[-300:])
for missing in missing_components:
    src, rc, out = cmake_case("missing-" + missing, ["executorch", missing], "")
    check(rc != 0 and f"'{missing}'" in out and "not found" in out,
          f"cmake: {missing} (not installed) fails at configure time naming it", out[-300:])

# ---------------------------------------------------------------------------
# 6. Every installed header compiles on its own, as C and as C++; every
#    declared function links
# ---------------------------------------------------------------------------

print("# headers")
all_modules = ["executorch", "executorch-kernels", "executorch-kernels-quantized", "executorch-threadpool",
               "executorch-profiler", "executorch-llm"] + (["executorch-xnnpack"] if have_xnnpack else []) + \
    (["executorch-cuda-stream", "executorch-cuda"] if have_cuda else [])
all_cflags = pkg_config("--cflags", *all_modules)
all_libs = pkg_config("--libs", *all_modules)
headers = sorted(f for f in files_of.get("libexecutorch-dev", []) + files_of.get("libexecutorch-cuda-dev", [])
                 if f.endswith(".h"))
include_root = "/usr/include/executorch-1/"
compiled = 0
compilers = [("C", ["gcc", "-x", "c", "-std=c99"]), ("C++", ["g++", "-x", "c++", "-std=c++11"])]
for header in headers:
    name = header[len(include_root):] if header.startswith(include_root) else header
    text = open(header).read()
    guard = re.search(r'#error "(Only <executorch(-llm)?/executorch(-llm)?.h> can be included directly\.)"', text)
    unstable = re.search(r'#error "(executorch-plugin.h is unstable[^"]*)"', text)
    for language, compiler in compilers:
        base = compiler + ["-Wall", "-Wextra", "-Werror", "-fsyntax-only", *all_cflags, "-"]
        source = f"#include <{name}>\n"
        if guard or unstable:
            # The guard works: on its own the header refuses to compile ...
            proc = subprocess.run(base, input=source, text=True, capture_output=True)
            expected = (guard or unstable).group(1)
            check(proc.returncode != 0 and expected in proc.stderr,
                  f"{name} ({language}) alone stops at its guard: {expected}", proc.stderr[-300:])
            # ... and with the guard satisfied it needs nothing else.
            define = ("#define __EXECUTORCH_LLM_H_INSIDE__\n" if guard and guard.group(2) else
                      "#define __EXECUTORCH_H_INSIDE__\n" if guard else "#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API\n")
            source = define + source
        proc = subprocess.run(base, input=source, text=True, capture_output=True)
        if check(proc.returncode == 0, f"{name} compiles on its own as {language}", proc.stderr[-500:]):
            compiled += 1
report["headers"] = len(headers)
report["header compilations (C and C++)"] = compiled

print("# every declared function links")
umbrella = ("#define EXECUTORCH_USE_UNSTABLE_PLUGIN_API\n#include <executorch/executorch.h>\n"
            "#include <executorch/executorch-plugin.h>\n#include <executorch-llm/executorch-llm.h>\n" +
            "".join(f"#include <{h[len(include_root):]}>\n" for h in headers
                    if h.startswith(include_root) and not h.endswith(("/executorch.h", "/executorch-plugin.h"))
                    and "__EXECUTORCH_H_INSIDE__" not in open(h).read()
                    and "__EXECUTORCH_LLM_H_INSIDE__" not in open(h).read()))
with open(f"{work}/all.c", "w") as f:
    f.write(umbrella)
rc, out = run(["gcc", "-std=c99", "-c", "-o", f"{work}/all.o", f"-aux-info={work}/aux.txt", f"{work}/all.c",
               *all_cflags])
declared = []
for line in open(f"{work}/aux.txt"):
    m = re.match(r"/\* (\S+):\d+:\S+ \*/ (.*);$", line.strip())
    if not m or not m.group(1).startswith(include_root) or re.match(r"(static|inline)\b", m.group(2)):
        continue
    name = re.search(r"(\w+)\s*\(", m.group(2)).group(1)
    declared.append(name)
declared = sorted(set(declared))
check(len(declared) > 50, f"{len(declared)} functions declared by the installed headers")
with open(f"{work}/refs.c", "w") as f:
    f.write(umbrella + "#include <stdio.h>\nstatic void *const functions[] = {\n" +
            "".join(f"  (void *) {name},\n" for name in declared) +
            "};\nint main (void) {\n  int n = 0;\n"
            "  for (unsigned i = 0; i < sizeof functions / sizeof *functions; i++) n += functions[i] != NULL;\n"
            "  printf (\"%d\\n\", n);\n  return n != (int) (sizeof functions / sizeof *functions);\n}\n")
rc, out = run(["gcc", "-std=c99", "-o", f"{work}/refs", f"{work}/refs.c", *all_cflags, "-Wl,--no-as-needed",
               *all_libs])
check(rc == 0, f"a program taking the address of all {len(declared)} declared functions links against "
      f"pkg-config --libs {' '.join(all_modules)}", out[-500:])
if rc == 0:
    rc, out = run([f"{work}/refs"], env=clean_env(LD_BIND_NOW="1"))
    check(rc == 0 and out.strip() == str(len(declared)), f"and runs, every function resolved ({out.strip()})")
undeclared_owner = [n for n in declared if n not in owners]
check(not undeclared_owner, "every declared function is exported by an installed library",
      ", ".join(undeclared_owner[:10]))
report["declared functions linked"] = len(declared)

# ---------------------------------------------------------------------------
# 7. Bindings against the installed packages alone
# ---------------------------------------------------------------------------

print("# PyGObject, GJS, Vala")
rc, out = run(["/usr/bin/python3", f"{HERE}/test_python.py", mlp], env=clean_env())
check(rc == 0, "PyGObject (and the installed override) runs mlp and matches", out.strip()[-600:])
example = f"{DATA}/data/models/example.pte"
example_input = f"{DATA}/data/models/example.input.npy"
rc, out = run(["/usr/bin/python3", f"{HERE}/test_llm.py", f"{DATA}/tests/llm"], env=clean_env())
check(rc == 0, "PyGObject: ExecutorchLlm (installed typelib) generates with a tiny llama and a tokenizer.json",
      out.strip()[-600:])
rc, out = run(["gjs", "-m", f"{DATA}/examples/gjs/classify.js", example, example_input], env=clean_env())
check(rc == 0 and re.fullmatch(r"class 0 score 0\.3596\s*", out), "GJS: examples/gjs/classify.js gives class 0 score "
      "0.3596", out.strip())
vala_dir = f"{work}/vala"
os.makedirs(vala_dir)
rc, out = run(["valac", "--pkg", "executorch", "-X", "-w", "-X", "-lm", "-o", f"{vala_dir}/classify",
               f"{DATA}/examples/vala/classify.vala"], cwd=vala_dir, env=clean_env())
check(rc == 0, "Vala: examples/vala/classify.vala builds with valac --pkg executorch (installed VAPI)", out[-400:])
if rc == 0:
    rc, out = run([f"{vala_dir}/classify", example, example_input], env=clean_env())
    check(rc == 0 and "class 0 score 0.3596" in out, "Vala: the classifier gives class 0 score 0.3596", out.strip())

shutil.rmtree(work, ignore_errors=True)

# ---------------------------------------------------------------------------

print("\n== install test report ==")
for key, value in report.items():
    print(f"{key}: {value}")
print(f"checks failed: {len(failures)}")
for message in failures:
    print(f"  - {message}")
sys.exit(1 if failures else 0)
