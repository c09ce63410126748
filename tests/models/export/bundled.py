"""Bundled-program fixtures (tests/models/bundled): small .bpte files.

Each is a program plus test cases (inputs and eager-PyTorch expected
outputs) written with upstream's executorch.devtools.bundled_program
(BundledProgram, MethodTestSuite, MethodTestCase,
serialize_from_bundled_program_to_flatbuffer); `executorch-run --verify`
must pass every case:

  add_bp        a + b, Float [2, 3]; three cases
  mlp_bp        Linear(8, 16) -> ReLU -> Linear(16, 4), Float; two cases
  int_bp        two outputs, Int and Long (x * 3 + 1, x.sum()): compared
                byte for byte; two cases

Writes <out>/<name>.bpte and <out>/manifest.json (name -> methods and
number of cases).
"""

import json
import os

import torch
from torch import nn
from torch.export import export

from executorch.exir import to_edge
from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
from executorch.devtools.bundled_program.core import BundledProgram
from executorch.devtools.bundled_program.serialize import (
    serialize_from_bundled_program_to_flatbuffer,
)


class Add(nn.Module):
    def forward(self, a, b):
        return a + b


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class IntOps(nn.Module):
    def forward(self, x):
        return x * 3 + 1, x.to(torch.int64).sum()


def _cases():
    g = torch.Generator().manual_seed(1234)
    return {
        "add_bp": (
            Add(),
            [(torch.randn(2, 3, generator=g), torch.randn(2, 3, generator=g)) for _ in range(3)],
        ),
        "mlp_bp": (Mlp(), [(torch.randn(2, 8, generator=g),) for _ in range(2)]),
        "int_bp": (
            IntOps(),
            [(torch.randint(-100, 100, (5,), generator=g, dtype=torch.int32),) for _ in range(2)],
        ),
    }


def export_all(out_dir: str) -> dict:
    os.makedirs(out_dir, exist_ok=True)
    manifest = {}
    for name, (module, inputs) in _cases().items():
        module.eval()
        program = to_edge(export(module, inputs[0])).to_executorch()
        cases = []
        for args in inputs:
            with torch.no_grad():
                out = module(*args)
            outputs = list(out) if isinstance(out, tuple) else [out]
            cases.append(MethodTestCase(inputs=list(args), expected_outputs=outputs))
        bundled = BundledProgram(program, [MethodTestSuite(method_name="forward", test_cases=cases)])
        data = serialize_from_bundled_program_to_flatbuffer(bundled)
        with open(os.path.join(out_dir, name + ".bpte"), "wb") as f:
            f.write(data)
        manifest[name] = {"file": name + ".bpte", "methods": {"forward": len(cases)}}
        print(f"bundled {name}: {len(data)} bytes, {len(cases)} cases")
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")
    return manifest
