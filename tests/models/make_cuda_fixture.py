"""Writes tests/models/cuda_fake/: a program delegated to "CudaBackend".

A real CUDA export needs a GPU (Inductor autotunes on it), so this fixture
is made with upstream's own exporter and serializer but a stand-in backend
class named CudaBackend. Its processed bytes are what upstream's CudaBackend
writes (1.4+ layout): "<model .so key>\\n<weights key>". The keys name blobs
the test supplies in a .ptd at run time: the model .so is our fake AOTI
model (tests/cuda/fake-aoti-model.c, built by the test) and the weights are
weights.bin written here. The fake model computes relu(x @ W.T + b), so the
eager outputs recorded here are a real reference.

    ~/venv-export/bin/python tests/models/make_cuda_fixture.py

It also writes tests/models/cuda_gpu/: the programs the GPU check
(tests/gpu/run-gpu-check) fills with real AOTInductor output on a GPU
machine, keyed "<name>_so_blob" / "<name>_weights_blob".  They hold no
weights (everything is delegated); the GPU check compiles the same models
(tests/gpu/gpu_models.py) with the same seed.
"""
import os

import numpy as np
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult
from executorch.exir.backend.utils import tag_constant_data

SO_KEY = "fake_model_so_blob"
WEIGHTS_KEY = "fake_model_weights_blob"


class CudaBackend(BackendDetails):
    keys = (SO_KEY, WEIGHTS_KEY)

    @staticmethod
    def preprocess(edge_program, compile_specs):
        if CudaBackend.keys is None:   # 1.1-1.3: no processed bytes, names from method_name
            return PreprocessResult(processed_bytes=b"")
        so_key, weights_key = CudaBackend.keys
        return PreprocessResult(processed_bytes=f"{so_key}\n{weights_key}".encode())


class WholeGraphPartitioner(Partitioner):
    def __init__(self):
        self.delegation_spec = DelegationSpec(
            CudaBackend.__name__,
            [CompileSpec("method_name", b"forward"), CompileSpec("target_device", b"cuda:0")])

    def partition(self, program):
        tags = {}
        for node in program.graph_module.graph.nodes:
            if node.op == "call_function":
                node.meta["delegation_tag"] = "cuda0"
        tags["cuda0"] = self.delegation_spec
        tag_constant_data(program)
        return PartitionResult(tagged_exported_program=program, partition_tags=tags)


class LinearRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.linear(x))


def export_gpu_programs(here):
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(here), "gpu"))
    from gpu_models import MODELS

    out = os.path.join(here, "cuda_gpu")
    os.makedirs(out, exist_ok=True)
    for name, (make, shape) in MODELS.items():
        CudaBackend.keys = (f"{name}_so_blob", f"{name}_weights_blob")
        model = make().eval()
        exported = torch.export.export(model, (torch.zeros(shape),))
        program = to_edge_transform_and_lower(exported, partitioner=[WholeGraphPartitioner()]).to_executorch()
        with open(os.path.join(out, f"{name}.pte"), "wb") as f:
            f.write(program.buffer)
    CudaBackend.keys = (SO_KEY, WEIGHTS_KEY)
    print("wrote", out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "cuda_fake")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(7)
    model = LinearRelu().eval()
    x = torch.randn(2, 4)
    with torch.no_grad():
        expected = model(x)
    exported = torch.export.export(model, (x,))
    program = to_edge_transform_and_lower(exported, partitioner=[WholeGraphPartitioner()]).to_executorch()
    with open(os.path.join(out, "cuda_fake.pte"), "wb") as f:
        f.write(program.buffer)
    # The same with the 1.1-1.3 blob names, forward_so_blob / forward_weights_blob.
    CudaBackend.keys = None
    legacy = to_edge_transform_and_lower(torch.export.export(model, (x,)),
                                         partitioner=[WholeGraphPartitioner()]).to_executorch()
    CudaBackend.keys = (SO_KEY, WEIGHTS_KEY)
    with open(os.path.join(out, "cuda_fake_legacy_keys.pte"), "wb") as f:
        f.write(legacy.buffer)
    # AOTI's binary blob: the constants back to back in the model's order.
    weights = np.concatenate([model.linear.weight.detach().numpy().ravel(),
                              model.linear.bias.detach().numpy().ravel()]).astype(np.float32)
    weights.tofile(os.path.join(out, "weights.bin"))
    np.save(os.path.join(out, "forward.case0.in0.npy"), x.numpy())
    np.save(os.path.join(out, "forward.case0.out0.npy"), expected.numpy())
    print("wrote", out)
    export_gpu_programs(here)


if __name__ == "__main__":
    main()
