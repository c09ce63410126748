#!/usr/bin/env python3
"""Export the .pte/.ptd test fixtures for libexecutorch, with eager references.

Usage (needs the export venv, see tests/models/README.md):

    /work/venv-export/bin/python tests/models/export_fixtures.py [--out DIR]
        [--no-verify] [--example-dir DIR] [--only NAME ...]

For every fixture this writes into DIR (default: tests/models):

    DIR/<name>/<name>.pte          the program (torch.export -> to_edge[...] ->
                                   to_executorch)
    DIR/<name>/*.ptd               external tensor data, where the fixture has it
    DIR/<name>/<method>.case<k>.in<i>.npy / .out<i>.npy
                                   inputs and eager-PyTorch outputs per case

and one DIR/manifest.json describing all fixtures (see README.md). It also
writes the user-facing example model data/models/example.pte with
example.input.npy / example.output.npy (--example-dir, default data/models).

Case semantics: load the program fresh, load the method, execute it
`iterations` times with the same inputs; the outputs of the last run must match
the recorded outputs within rtol/atol. The reference is computed the same way
on a fresh copy of the eager module. Non-tensor values are stored as 0-d numpy
arrays (int64 / float64 / bool) and listed in input_kinds / output_kinds.

Facts in the manifest (operators, instruction kinds, header, segments,
shape dynamism) are read back from the emitted bytes with executorch's own
deserializer. Unless --no-verify is given, every case is also run through
executorch's python runtime (portable kernels + XNNPACK) and compared with the
eager reference, so a fixture that upstream itself cannot run is never written.
"""

import argparse
import copy
import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np
import torch
from torch.export import Dim, export

from executorch.exir import (
    ExecutorchBackendConfig,
    to_edge,
    to_edge_transform_and_lower,
)
from executorch.exir._serialize._flatbuffer_program import _flatbuffer_to_program
from executorch.exir._serialize._program import (
    _get_extended_header,
    deserialize_pte_binary,
)
from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
from executorch.exir.schema import Tensor as SchemaTensor, TensorShapeDynamism

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# Tolerances for float outputs computed by different kernels than eager.
F32_TOL = {"rtol": 1e-5, "atol": 1e-6}
EXACT = {"rtol": 0.0, "atol": 0.0}


# --------------------------------------------------------------------------
# Fixture description
# --------------------------------------------------------------------------


@dataclass
class Case:
    method: str
    inputs: tuple = ()
    iterations: int = 1
    tol: Dict[str, float] = field(default_factory=lambda: dict(F32_TOL))


@dataclass
class Fixture:
    name: str
    description: str
    # method name -> eager module whose forward() is that method
    modules: Dict[str, torch.nn.Module]
    # method name -> example inputs used for torch.export
    example_inputs: Dict[str, tuple]
    cases: List[Case]
    dynamic_shapes: Dict[str, Any] = field(default_factory=dict)
    # prim-getter methods: name -> python constant
    constant_methods: Dict[str, Any] = field(default_factory=dict)
    # "xnnpack": lower with XnnpackPartitioner (to_edge_transform_and_lower)
    backend: Optional[str] = None
    backend_config: Dict[str, Any] = field(default_factory=dict)
    # Properties the emitted program must have (checked after export):
    # header (bool), instructions / operators (must all appear),
    # dynamism (some tensor has it), mutable_data (bool), delegate_location.
    expect: Dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------


class Add(torch.nn.Module):
    def forward(self, a, b):
        return a + b


class MLP(torch.nn.Module):
    def __init__(self, n_in=8, hidden=16, n_out=4, seed=0):
        super().__init__()
        torch.manual_seed(seed)
        self.fc1 = torch.nn.Linear(n_in, hidden)
        self.fc2 = torch.nn.Linear(hidden, n_out)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Classifier(MLP):
    """MLP with a softmax head: the bundled user example."""

    def __init__(self):
        super().__init__(n_in=8, hidden=16, n_out=3, seed=1234)

    def forward(self, x):
        return torch.softmax(super().forward(x), dim=-1)


class AddOne(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) + 1.0


class DoubleIt(torch.nn.Module):
    def forward(self, x):
        return x * 2.0


class Dynamic(torch.nn.Module):
    """x: [n, 4]. Views whose sizes depend on n at run time."""

    def forward(self, x):
        y = x * 2.0 + 1.0
        a = torch.relu(y.reshape(-1, 2))  # [2n, 2], size list keeps -1
        b = y.reshape(x.shape[0] * 4)  # [4n], size computed from n
        return a, b, y.sum(dim=0)  # last one is static [4]


class MutableBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        # Non-zero initial value, exported into the mutable data segment.
        self.register_buffer("count", torch.arange(1.0, 7.0).reshape(2, 3))

    def forward(self, x):
        self.count.add_(x)
        return self.count * 2.0


class Cond(torch.nn.Module):
    def forward(self, x):
        def true_fn(x):
            return x * 2.0

        def false_fn(x):
            return x - 1.0

        return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))


class Triple(torch.nn.Module):
    def forward(self, x):
        return x * 3.0


class XnnLinearAdd(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(7)
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x, y):
        return self.fc(x) + y


class PermuteView(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.fc = torch.nn.Linear(3, 5)  # bias -> addmm on 2-D input
        self.register_buffer("scale", torch.linspace(0.5, 1.5, 5))

    def forward(self, x, w):  # x: [2, 3, 4], w: [5, 6]
        t = x.permute(0, 2, 1).contiguous()  # [2, 4, 3], real copy
        h = self.fc(t.view(8, 3))  # addmm
        h = torch.relu(h * self.scale)  # mul, relu
        m = torch.mm(h, w)  # [8, 6]
        return m.reshape(2, 4, 6).permute(2, 0, 1)  # non-contiguous result


class ChannelsLast(torch.nn.Module):
    def forward(self, x):  # x: [1, 2, 3, 3] contiguous
        y = x.to(memory_format=torch.channels_last)
        return torch.relu(y) + y


class ChannelsLastInput(torch.nn.Module):
    def forward(self, x):  # x: [1, 2, 3, 3] channels-last, dim_order (0,2,3,1)
        return (torch.relu(x) + x).contiguous()


class ScalarIO(torch.nn.Module):
    """Non-tensor inputs (baked in at export) and a SymInt output."""

    def forward(self, x, k: int, s: float, flag: bool):
        y = x * s + k if flag else x
        return y, x.shape[0]


def rand(*shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float32)


def fixtures() -> List[Fixture]:
    mlp_x = rand(2, 8, seed=10)
    n = Dim("n", min=1, max=8)
    xa, xb = rand(2, 3, seed=1), rand(2, 3, seed=2)
    return [
        Fixture(
            "add",
            "forward(a, b) = a + b on float32 [2, 3]; no constants, no header.",
            {"forward": Add()},
            {"forward": (xa, xb)},
            [Case("forward", (xa, xb))],
            expect={"header": False, "operators": ["aten::add.out"]},
        ),
        Fixture(
            "mlp",
            "Linear(8,16) -> ReLU -> Linear(16,4), seed 0, batch 2; weights in "
            "the constant segment (extended header).",
            {"forward": MLP()},
            {"forward": (mlp_x,)},
            [Case("forward", (mlp_x,)), Case("forward", (rand(2, 8, seed=11),))],
            expect={"header": True, "operators": ["aten::addmm.out"]},
        ),
        Fixture(
            "two_methods",
            "One program, two methods: forward(x) = relu(x) + 1, "
            "double_it(x) = 2x, on float32 [2, 3].",
            {"forward": AddOne(), "double_it": DoubleIt()},
            {"forward": (xa,), "double_it": (xa,)},
            [Case("forward", (xa,)), Case("double_it", (xa,))],
            expect={"operators": ["aten::relu.out", "aten::mul.out"]},
        ),
        Fixture(
            "dynamic",
            "x: float32 [n, 4], n in 1..8 (DYNAMIC_BOUND); returns "
            "(relu((2x+1).reshape(-1, 2)) [2n, 2], (2x+1).sum(0) [4]).",
            {"forward": Dynamic()},
            {"forward": (rand(3, 4, seed=20),)},
            [Case("forward", (rand(k, 4, seed=20 + k),)) for k in (1, 3, 8)],
            dynamic_shapes={"forward": ({0: n},)},
            expect={
                "dynamism": "DYNAMIC_BOUND",
                "operators": [
                    "aten::sym_size.int",
                    "executorch_prim::et_view.default",
                ],
            },
        ),
        Fixture(
            "mutable_buffer",
            "Buffer count (float32 [2,3], initial 1..6, in the mutable data "
            "segment); forward(x): count += x; return count * 2. Cases run "
            "1, 2 and 3 times.",
            {"forward": MutableBuffer()},
            {"forward": (torch.ones(2, 3),)},
            [Case("forward", (rand(2, 3, seed=30),), iterations=k) for k in (1, 2, 3)],
            backend_config={"passes": [InitializedMutableBufferPass(["count"])]},
            expect={"header": True, "mutable_data": True},
        ),
        Fixture(
            "cond",
            "torch.cond(x.sum() > 0, x * 2, x - 1) on float32 [2, 3]; cases "
            "take both branches (JumpFalseCall, MoveCall).",
            {"forward": Cond()},
            {"forward": (torch.ones(2, 3),)},
            [
                Case("forward", (torch.abs(rand(2, 3, seed=40)),)),
                Case("forward", (-torch.abs(rand(2, 3, seed=41)),)),
            ],
            expect={"instructions": ["JumpFalseCall", "MoveCall", "KernelCall"]},
        ),
        Fixture(
            "constant_methods",
            "forward(x) = 3x plus prim-getter methods get_int (int 42), "
            "get_float (double 2.5) and get_bool (bool True).",
            {"forward": Triple()},
            {"forward": (xa,)},
            [
                Case("forward", (xa,)),
                Case("get_int", tol=dict(EXACT)),
                Case("get_float", tol=dict(EXACT)),
                Case("get_bool", tol=dict(EXACT)),
            ],
            constant_methods={"get_int": 42, "get_float": 2.5, "get_bool": True},
            expect={"instructions": ["KernelCall"]},
        ),
        Fixture(
            "mlp_external",
            "The mlp fixture's model with its weights in an external .ptd "
            "(external_constants=True; tensors have location EXTERNAL).",
            {"forward": MLP()},
            {"forward": (mlp_x,)},
            [Case("forward", (mlp_x,))],
            backend_config={"external_constants": True},
            expect={"operators": ["aten::addmm.out"]},
        ),
        Fixture(
            "xnnpack_add",
            "fc(x) + y (Linear(4,4), seed 7) on float32 [2, 4], lowered to "
            "XnnpackBackend; delegate payload in a segment.",
            {"forward": XnnLinearAdd()},
            {"forward": (rand(2, 4, seed=50), rand(2, 4, seed=51))},
            [Case("forward", (rand(2, 4, seed=50), rand(2, 4, seed=51)))],
            backend="xnnpack",
            expect={"instructions": ["DelegateCall"], "delegate_location": "SEGMENT"},
        ),
        Fixture(
            "xnnpack_add_inline",
            "Same as xnnpack_add but with the delegate payload inline "
            "(extract_delegate_segments=False).",
            {"forward": XnnLinearAdd()},
            {"forward": (rand(2, 4, seed=50), rand(2, 4, seed=51))},
            [Case("forward", (rand(2, 4, seed=50), rand(2, 4, seed=51)))],
            backend="xnnpack",
            backend_config={"extract_delegate_segments": False},
            expect={"instructions": ["DelegateCall"], "delegate_location": "INLINE"},
        ),
        Fixture(
            "permute_view",
            "permute + contiguous (clone_dim_order), view, addmm (Linear(3,5) "
            "on 2-D), mul by a constant buffer, relu, mm, reshape, permute; "
            "x: [2,3,4], w: [5,6] -> [6,2,4].",
            {"forward": PermuteView()},
            {"forward": (rand(2, 3, 4, seed=60), rand(5, 6, seed=61))},
            [Case("forward", (rand(2, 3, 4, seed=60), rand(5, 6, seed=61)))],
            expect={
                "operators": [
                    "aten::permute_copy.out",
                    "dim_order_ops::_clone_dim_order.out",
                    "aten::addmm.out",
                    "aten::mm.out",
                    "aten::mul.out",
                    "aten::relu.out",
                ]
            },
        ),
        Fixture(
            "channels_last",
            "x.to(memory_format=channels_last) on a contiguous [1,2,3,3] input, "
            "then relu(y) + y: _to_dim_order_copy to dim_order (0,2,3,1); the "
            "output tensor is channels-last (.npy holds logical NCHW values).",
            {"forward": ChannelsLast()},
            {"forward": (rand(1, 2, 3, 3, seed=70),)},
            [Case("forward", (rand(1, 2, 3, 3, seed=70),))],
            expect={"operators": ["dim_order_ops::_to_dim_order_copy.out"]},
        ),
        Fixture(
            "channels_last_input",
            "Channels-last [1,2,3,3] input (dim_order (0,2,3,1)); "
            "(relu(x) + x).contiguous() -> _clone_dim_order to a contiguous "
            "output. The input .npy holds logical NCHW values.",
            {"forward": ChannelsLastInput()},
            {"forward": (cl(rand(1, 2, 3, 3, seed=80)),)},
            [Case("forward", (cl(rand(1, 2, 3, 3, seed=81)),))],
            expect={"operators": ["dim_order_ops::_clone_dim_order.out"]},
        ),
        Fixture(
            "scalar_io",
            "forward(x [n,4] n in 1..8, k: int = 3, s: float = 0.5, flag: bool "
            "= True) -> (x * s + k, x.shape[0]). The scalars are baked in at "
            "export (the runtime only accepts the traced values); the second "
            "output is an Int computed by aten::sym_size.int.",
            {"forward": ScalarIO()},
            {"forward": (rand(3, 4, seed=90), 3, 0.5, True)},
            [
                Case("forward", (rand(k, 4, seed=90 + k), 3, 0.5, True))
                for k in (2, 5)
            ],
            dynamic_shapes={"forward": ({0: n}, None, None, None)},
            expect={"dynamism": "DYNAMIC_BOUND", "operators": ["aten::sym_size.int"]},
        ),
    ]


def cl(t):
    return t.to(memory_format=torch.channels_last)


def example_fixture() -> Fixture:
    x = rand(1, 8, seed=99)
    return Fixture(
        "example",
        "Small MLP classifier: Linear(8,16) -> ReLU -> Linear(16,3) -> softmax.",
        {"forward": Classifier()},
        {"forward": (x,)},
        [Case("forward", (x,))],
    )


# --------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------


def lower(fx: Fixture):
    """torch.export -> edge (optionally delegated) -> ExecutorchProgramManager."""
    programs = {}
    for method, module in fx.modules.items():
        programs[method] = export(
            copy.deepcopy(module).eval(),
            fx.example_inputs[method],
            dynamic_shapes=fx.dynamic_shapes.get(method),
            strict=True,
        )
    # to_edge takes {method name: ExportedProgram}; several entries give one
    # program with several methods (plus the constant prim-getter methods).
    consts = fx.constant_methods or None
    if fx.backend == "xnnpack":
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
            XnnpackPartitioner,
        )

        edge = to_edge_transform_and_lower(
            programs, partitioner=[XnnpackPartitioner()], constant_methods=consts
        )
    else:
        edge = to_edge(programs, constant_methods=consts)
    return edge.to_executorch(ExecutorchBackendConfig(**fx.backend_config))


# --------------------------------------------------------------------------
# Values and eager references
# --------------------------------------------------------------------------


def flatten(value) -> list:
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in flatten(item)]
    return [value]


def to_numpy(value):
    """Return (kind, ndarray) for a tensor or python scalar."""
    if isinstance(value, torch.Tensor):
        return "tensor", value.detach().contiguous().numpy()
    if isinstance(value, bool):  # before int: bool is an int subclass
        return "bool", np.array(value, dtype=np.bool_)
    if isinstance(value, int):
        return "int", np.array(value, dtype=np.int64)
    if isinstance(value, float):
        return "double", np.array(value, dtype=np.float64)
    raise TypeError(f"unsupported value {value!r}")


def eager_outputs(fx: Fixture, case: Case) -> list:
    if case.method in fx.constant_methods:
        return flatten(fx.constant_methods[case.method])
    module = copy.deepcopy(fx.modules[case.method]).eval()
    with torch.no_grad():
        for _ in range(case.iterations):
            out = module(*[copy.deepcopy(v) for v in case.inputs])
    return flatten(out)


# --------------------------------------------------------------------------
# Reading facts back from the emitted bytes
# --------------------------------------------------------------------------


def op_name(op) -> str:
    return op.name + ("." + op.overload if op.overload else "")


def inspect_pte(data: bytes) -> dict:
    """Facts about a serialized program, via executorch's deserializer."""
    program = deserialize_pte_binary(data).program
    header = _get_extended_header(data)
    # deserialize_pte_binary folds the segments back into the program; parse
    # the flatbuffer region alone to see the segment table as stored.
    size = header.program_size if header else len(data)
    raw = _flatbuffer_to_program(data[:size])
    facts = {
        "file_size": len(data),
        "extended_header": header is not None,
        "header_length": header.length if header else None,
        "program_size": size,
        "segment_base_offset": header.segment_base_offset if header else 0,
        "segment_data_size": header.segment_data_size if header else 0,
        "segments": [[s.offset, s.size] for s in raw.segments],
        "constant_segment_offsets": list(raw.constant_segment.offsets)
        if raw.constant_segment
        else [],
        "mutable_data_segments": [
            {"segment_index": m.segment_index, "offsets": list(m.offsets)}
            for m in (raw.mutable_data_segments or [])
        ],
        "named_data": [n.key for n in (raw.named_data or [])],
        "methods": {},
    }
    raw_plans = {p.name: p for p in raw.execution_plan}
    for plan in program.execution_plan:
        instrs = [
            type(i.instr_args).__name__ for c in plan.chains for i in c.instructions
        ]
        tensors = [v.val for v in plan.values if isinstance(v.val, SchemaTensor)]
        dyn = sorted({TensorShapeDynamism(t.shape_dynamism).name for t in tensors})
        locations = sorted(
            {
                t.extra_tensor_info.location.name
                for t in tensors
                if t.extra_tensor_info is not None
            }
        )
        value_types = [type(v.val).__name__ for v in plan.values]
        facts["methods"][plan.name] = {
            "operators": [op_name(o) for o in plan.operators],
            "instructions": instrs,
            "shape_dynamism": dyn,
            "tensor_locations": locations,
            "inputs": [value_types[i] for i in plan.inputs],
            "outputs": [value_types[i] for i in plan.outputs],
            "input_dim_orders": [
                list(plan.values[i].val.dim_order)
                for i in plan.inputs
                if isinstance(plan.values[i].val, SchemaTensor)
            ],
            "output_dim_orders": [
                list(plan.values[i].val.dim_order)
                for i in plan.outputs
                if isinstance(plan.values[i].val, SchemaTensor)
            ],
            "delegates": [
                {"id": d.id, "location": d.processed.location.name,
                 "index": d.processed.index}
                for d in raw_plans[plan.name].delegates
            ],
            "non_const_buffer_sizes": list(plan.non_const_buffer_sizes),
        }
    return facts


def inspect_ptd(data: bytes) -> dict:
    """Facts about a .ptd (FlatTensor) file, via executorch's deserializer."""
    from executorch.extension.flat_tensor.serialize.serialize import (
        FlatTensorHeader,
        _deserialize_to_flat_tensor,
    )

    h = FlatTensorHeader.from_bytes(data[8:])
    ft = _deserialize_to_flat_tensor(data[: h.flatbuffer_offset + h.flatbuffer_size])
    return {
        "file_size": len(data),
        "header_length": h.length,
        "flatbuffer_offset": h.flatbuffer_offset,
        "flatbuffer_size": h.flatbuffer_size,
        "segment_base_offset": h.segment_base_offset,
        "segment_data_size": h.segment_data_size,
        "segments": [[sg.offset, sg.size] for sg in ft.segments],
        "named_data": [
            {
                "key": nd.key,
                "segment_index": nd.segment_index,
                "scalar_type": nd.tensor_layout.scalar_type.name
                if nd.tensor_layout
                else None,
                "sizes": list(nd.tensor_layout.sizes) if nd.tensor_layout else None,
            }
            for nd in ft.named_data
        ],
    }


def check(fx: Fixture, entry: dict) -> None:
    """Fail loudly if the program lacks what the fixture is meant to exercise."""
    facts, want = entry["facts"], fx.expect
    methods = facts["methods"].values()
    problems = []
    if "header" in want and facts["extended_header"] != want["header"]:
        problems.append(f"extended header present: {facts['extended_header']}")
    for key in ("instructions", "operators"):
        missing = set(want.get(key, [])) - set(entry[key])
        if missing:
            problems.append(f"missing {key}: {sorted(missing)}")
    if "dynamism" in want and not any(
        want["dynamism"] in m["shape_dynamism"] for m in methods
    ):
        problems.append(f"no {want['dynamism']} tensor")
    if "mutable_data" in want and bool(facts["mutable_data_segments"]) != want[
        "mutable_data"
    ]:
        problems.append(f"mutable_data_segments: {facts['mutable_data_segments']}")
    if "delegate_location" in want:
        locs = {d["location"] for m in methods for d in m["delegates"]}
        if locs != {want["delegate_location"]}:
            problems.append(f"delegate locations {locs}")
    if problems:
        raise AssertionError(f"{fx.name}: " + "; ".join(problems))


def uniq(items):
    return list(dict.fromkeys(items))


# --------------------------------------------------------------------------
# Verification with executorch's own runtime
# --------------------------------------------------------------------------


def run_with_executorch(pte_path, ptd_paths, case: Case) -> list:
    from executorch.runtime import Runtime

    runtime = Runtime.get()
    kwargs = {"data_path": ptd_paths[0]} if ptd_paths else {}
    if len(ptd_paths) > 1:
        raise NotImplementedError("only one .ptd per program is supported here")
    program = runtime.load_program(pte_path, **kwargs)  # fresh per case
    method = program.load_method(case.method)
    out = None
    for _ in range(case.iterations):
        out = method.execute([copy.deepcopy(v) for v in case.inputs])
    return list(out)


def compare(name, got, want, tol):
    if len(got) != len(want):
        raise AssertionError(f"{name}: {len(got)} outputs, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        gk, ga = to_numpy(g)
        wk, wa = to_numpy(w)
        if gk != wk or ga.shape != wa.shape or ga.dtype != wa.dtype:
            raise AssertionError(f"{name} out{i}: {gk}{ga.shape} vs {wk}{wa.shape}")
        if not np.allclose(ga, wa, rtol=tol["rtol"], atol=tol["atol"]):
            raise AssertionError(f"{name} out{i}: max diff {np.abs(ga - wa).max()}")


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def write_fixture(fx: Fixture, out_dir: str, verify: bool, flat: bool = False):
    """Export one fixture. With flat=True files go straight into out_dir as
    <name>.pte, <name>.input.npy, <name>.output.npy (the user example)."""
    sub = "" if flat else fx.name
    fdir = os.path.join(out_dir, sub)
    if not flat:
        shutil.rmtree(fdir, ignore_errors=True)  # drop files of old cases
    os.makedirs(fdir, exist_ok=True)
    et = lower(fx)
    pte_rel = os.path.join(sub, f"{fx.name}.pte")
    with open(os.path.join(out_dir, pte_rel), "wb") as f:
        et.write_to_file(f)
    ptd_rel = []
    # The manager has no public "are there data files" query; its
    # write_tensor_data_to_file() asserts this mapping is set.
    if getattr(et, "_tensor_data", None):
        et.write_tensor_data_to_file(fdir)
        ptd_rel = sorted(
            os.path.join(sub, n if n.endswith(".ptd") else n + ".ptd")
            for n in et._tensor_data
        )
    with open(os.path.join(out_dir, pte_rel), "rb") as f:
        facts = inspect_pte(f.read())
    for rel in ptd_rel:
        with open(os.path.join(out_dir, rel), "rb") as f:
            facts.setdefault("ptd", {})[rel] = inspect_ptd(f.read())

    entry = {
        "name": fx.name,
        "pte": pte_rel,
        "ptd": ptd_rel,
        "description": fx.description,
        "operators": uniq(o for m in facts["methods"].values() for o in m["operators"]),
        "instructions": uniq(
            i for m in facts["methods"].values() for i in m["instructions"]
        ),
        "methods": list(facts["methods"]),
        "cases": [],
        "facts": facts,
    }
    check(fx, entry)
    seen: Dict[str, int] = {}
    for case in fx.cases:
        k = seen[case.method] = seen.get(case.method, -1) + 1  # per-method index
        want = eager_outputs(fx, case)
        if verify:
            got = run_with_executorch(
                os.path.join(out_dir, pte_rel),
                [os.path.join(out_dir, p) for p in ptd_rel],
                case,
            )
            compare(f"{fx.name}/{case.method}#{k}", got, want, case.tol)
        rec = {"method": case.method, "iterations": case.iterations}
        for key, values in (("inputs", flatten(case.inputs)), ("outputs", want)):
            paths, kinds = [], []
            for i, v in enumerate(values):
                kind, arr = to_numpy(v)
                if flat:
                    assert len(values) == 1 and len(fx.cases) == 1
                    rel = f"{fx.name}.{key[:-1]}.npy"  # example.input.npy
                else:
                    rel = os.path.join(sub, f"{case.method}.case{k}.{key[:-4]}{i}.npy")
                np.save(os.path.join(out_dir, rel), arr)
                paths.append(rel)
                kinds.append(kind)
            rec[key] = paths
            if any(kd != "tensor" for kd in kinds):
                rec[key[:-1] + "_kinds"] = kinds
            # Non-contiguous tensors: the .npy holds logical values; the
            # program's tensor uses this dim_order for its memory layout.
            orders = facts["methods"][case.method][key[:-1] + "_dim_orders"]
            if any(o != sorted(o) for o in orders):
                rec[key[:-1] + "_dim_orders"] = orders
        integer = all(to_numpy(v)[1].dtype.kind in "biu" for v in want)
        rec.update(EXACT if integer else case.tol)
        entry["cases"].append(rec)
    return entry


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=HERE, help="fixture directory (tests/models)")
    ap.add_argument(
        "--example-dir",
        default=os.path.join(REPO, "data", "models"),
        help="where example.pte and its .npy files go ('' to skip)",
    )
    ap.add_argument("--no-verify", action="store_true", help="skip executorch runs")
    ap.add_argument("--only", nargs="*", help="export only these fixtures")
    args = ap.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    entries = []
    for fx in fixtures():
        if args.only and fx.name not in args.only:
            continue
        print(f"exporting {fx.name}", file=sys.stderr)
        entries.append(write_fixture(fx, args.out, not args.no_verify))
    if not args.only:
        with open(os.path.join(args.out, "manifest.json"), "w") as f:
            json.dump(
                {
                    "generator": "tests/models/export_fixtures.py",
                    "torch": torch.__version__,
                    "executorch": _executorch_version(),
                    "fixtures": entries,
                },
                f,
                indent=1,
            )
            f.write("\n")
    else:
        print(json.dumps(entries, indent=1))
    if args.example_dir and not args.only:
        print("exporting example", file=sys.stderr)
        write_fixture(example_fixture(), args.example_dir, not args.no_verify, flat=True)
    return 0


def _executorch_version() -> str:
    from executorch.version import __version__

    return __version__


if __name__ == "__main__":
    sys.exit(main())
