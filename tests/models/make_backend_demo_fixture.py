"""Writes tests/models/backend_demo/: a program with one node delegated to
"DemoReluBackend", the toy backend that docs/plugins.md writes in C.

The model is relu(x + 1) * 2. A partitioner tags only the relu, so the add
and the mul stay on the CPU kernels and the program holds one DELEGATE_CALL
between them. The backend's processed bytes are "relu-f32", and one compile
spec ("negative_slope", a float32) shows how specs reach the backend; 0.0
gives plain relu. The eager outputs recorded here are the reference the
docs test compares with.

    ~/venv-export/bin/python tests/models/make_backend_demo_fixture.py
"""
import os
import struct

import numpy as np
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult


class DemoReluBackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program, compile_specs):
        targets = [node.target.__name__ for node in edge_program.graph_module.graph.nodes
                   if node.op == "call_function"]
        assert targets == ["aten.relu.default"], targets
        return PreprocessResult(processed_bytes=b"relu-f32")


class ReluPartitioner(Partitioner):
    def __init__(self):
        self.delegation_spec = DelegationSpec(
            DemoReluBackend.__name__, [CompileSpec("negative_slope", struct.pack("<f", 0.0))])

    def partition(self, program):
        tags = {}
        for index, node in enumerate(program.graph_module.graph.nodes):
            if node.op == "call_function" and "relu" in str(node.target):
                tag = f"relu{index}"
                node.meta["delegation_tag"] = tag
                tags[tag] = self.delegation_spec
        return PartitionResult(tagged_exported_program=program, partition_tags=tags)


class AddReluScale(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x + 1.0) * 2.0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "backend_demo")
    os.makedirs(out, exist_ok=True)
    model = AddReluScale().eval()
    x = torch.arange(18, dtype=torch.float32) - 9.0
    with torch.no_grad():
        expected = model(x)
    exported = torch.export.export(model, (x,))
    program = to_edge_transform_and_lower(exported, partitioner=[ReluPartitioner()]).to_executorch()
    plan = program.executorch_program.execution_plan[0]
    assert [d.id for d in plan.delegates] == ["DemoReluBackend"], plan.delegates
    with open(os.path.join(out, "relu_demo.pte"), "wb") as f:
        f.write(program.buffer)
    np.save(os.path.join(out, "forward.case0.in0.npy"), x.numpy())
    np.save(os.path.join(out, "forward.case0.out0.npy"), expected.numpy())
    print("wrote", out, "expected", expected.tolist())


if __name__ == "__main__":
    main()
