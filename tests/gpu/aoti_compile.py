"""Compiles the GPU check's models with AOTInductor the way upstream's
CudaBackend does, and records eager PyTorch references.  Runs on the GPU
machine (torch with CUDA, Triton, nvcc); our runtime is run afterwards in a
separate process without torch, so torch's own aoti_torch_* functions can
never stand in for ours.

    python3 tests/gpu/aoti_compile.py OUT_DIR

For each model NAME it writes OUT_DIR/NAME.so, NAME.blob (AOTI's
binary_blob of constants), NAME.in.npy, NAME.out.npy and NAME.imports
(the .so's undefined dynamic symbols).
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_models import MODELS  # noqa: E402

# Upstream CudaBackend's option set (executorch/backends/cuda/cuda_backend.py).
OPTIONS = {
    "loop_ordering_after_fusion": False,
    "emulate_precision_casts": True,
    "aot_inductor.embed_kernel_binary": True,
    "aot_inductor.link_libtorch": False,
    "aot_inductor.package": True,
    "aot_inductor.package_constants_in_so": False,
    "aot_inductor.package_constants_on_disk_format": "binary_blob",
    "max_autotune": True,
    "max_autotune_gemm_backends": "TRITON",
    "max_autotune_conv_backends": "TRITON",
    "aot_inductor.emit_multi_arch_kernel": True,
}


def compile_one(name, make, shape, out):
    model = make().eval()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        expected = model(x)
    np.save(os.path.join(out, f"{name}.in.npy"), x.numpy())
    np.save(os.path.join(out, f"{name}.out.npy"), expected.numpy())
    device_model = make().eval().to("cuda")
    exported = torch.export.export(device_model, (x.to("cuda"),))
    with torch.no_grad():
        paths = torch._inductor.aot_compile(exported.module(), (x.to("cuda"),), options=OPTIONS)
    paths = paths if isinstance(paths, list) else [paths]
    so = next(p for p in paths if p.endswith(".so"))
    blob = next((p for p in paths if p.endswith(".blob")), None)
    if blob is None:
        raise SystemExit(f"{name}: AOTInductor wrote no weights blob: {paths}")
    shutil.copy(so, os.path.join(out, f"{name}.so"))
    shutil.copy(blob, os.path.join(out, f"{name}.blob"))
    imports = subprocess.run(["nm", "-D", "-u", so], capture_output=True, text=True).stdout
    with open(os.path.join(out, f"{name}.imports"), "w") as f:
        f.write(imports)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))
    for name, (make, shape) in MODELS.items():
        compile_one(name, make, shape, out)
        print("compiled", name)


if __name__ == "__main__":
    main()
