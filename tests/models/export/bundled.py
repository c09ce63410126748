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
  conv_bp       a small network on which every load-time rewrite of the
                portable kernels fires (batch norm folded, convolutions
                fused, an inverted residual, a fire module's cat, SiLU,
                linears with GELU and a residual add); Float [1, 3, 7, 7],
                two cases.  Mostly the fuzzers' seed: they mutate it to
                reach those rewrites with hostile programs.

Writes <out>/<name>.bpte and <out>/manifest.json (name -> methods and
number of cases).
"""

import json
import os

import torch
import torch.nn.functional as F
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


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.stem = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(16)
        self.bn.running_mean.uniform_(-0.5, 0.5)
        self.bn.running_var.uniform_(0.5, 2.0)
        self.expand = nn.Conv2d(16, 64, 1)
        self.depthwise = nn.Conv2d(64, 64, 3, padding=1, groups=64)
        self.project = nn.Conv2d(64, 16, 1)
        self.expand2 = nn.Conv2d(16, 64, 1)
        self.depthwise2 = nn.Conv2d(64, 64, 3, padding=1, groups=64)
        self.project2 = nn.Conv2d(64, 16, 1)
        # A chain's last 1x1 convolution, long enough a sum (64) that the
        # channels-last tiles pay for leaving the chain.
        self.widen = nn.Conv2d(16, 64, 1)
        self.narrow = nn.Conv2d(64, 32, 1)
        self.squeeze = nn.Conv2d(32, 4, 1)
        self.expand1 = nn.Conv2d(4, 8, 1)
        self.expand3 = nn.Conv2d(4, 8, 3, padding=1)
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 32)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu6(self.bn(self.stem(x)))
        # Two inverted residual blocks, the second with its residual add.
        x = self.project(F.relu6(self.depthwise(F.relu6(self.expand(x)))))
        x = x + self.project2(F.relu6(self.depthwise2(F.relu6(self.expand2(x)))))
        x = F.relu(self.narrow(F.relu(self.widen(x))))
        s = F.relu(self.squeeze(x))
        x = torch.cat([F.relu(self.expand1(s)), F.relu(self.expand3(s))], 1)
        x = F.max_pool2d(x, 7)
        x = torch.flatten(x * torch.sigmoid(x), 1)
        h = F.gelu(self.fc1(x))
        h = h + self.fc2(h)
        return self.head(h)


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
        "conv_bp": (ConvNet(), [(torch.randn(1, 3, 7, 7, generator=g),) for _ in range(2)]),
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
