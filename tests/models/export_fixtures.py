#!/usr/bin/env python3
"""Export the .pte/.ptd test fixtures for libexecutorch, with eager references.

Usage (needs the export venv, see tests/models/README.md):

    ~/venv-export/bin/python tests/models/export_fixtures.py [--out DIR]
        [--no-verify] [--example-dir DIR] [--only NAME ...]
        [--set basic|nets|ops|quant|bundled|xnnpack|llm ...]
    ~/venv-export/bin/python tests/models/export_fixtures.py --full
        --out tests/models/full

Three committed sets, each with its own manifest.json:

    DIR/               basic format fixtures (this file's fixtures())
    DIR/nets/          reduced-width whole models (export/nets.py)
    DIR/ops/           per-operator programs (export/ops.py)
    DIR/bundled/       bundled programs, .bpte (export/bundled.py)
    DIR/xnnpack/       XNNPACK-delegated models (export/xnnpack.py)
    DIR/llm/           a tiny trained llama exported with export_llama, with
                       upstream text-runner generations (export/llm.py)

--full writes the full-size models (and an XNNPACK-delegated variant of
each, for the benchmark) into --out instead; they are not committed.

For every fixture this writes into its set's folder:

    <name>/<name>.pte          the program (torch.export -> to_edge[...] ->
                               to_executorch)
    <name>/*.ptd               external tensor data, where the fixture has it
    <name>/<method>.case<k>.in<i>.npy / .out<i>.npy
                               inputs and eager-PyTorch outputs per case
    <name>/<method>.case<k>.step<j>.in<i>.npy / .out<i>.npy
                               the same per step, for step cases

and one manifest.json describing all of them (see README.md). It also
writes the user-facing example model data/models/example.pte with
example.input.npy / example.output.npy (--example-dir, default data/models).

Case semantics: load the program fresh, load the method, execute it
`iterations` times with the same inputs; the outputs of the last run must match
the recorded outputs within rtol/atol. A step case instead runs a list of
input sets one after the other on the one loaded method and checks every
step's outputs (state in buffers carries over). The reference is computed the
same way on a fresh copy of the eager module. Non-tensor values are stored as
0-d numpy arrays (int64 / float64 / bool) and listed in input_kinds /
output_kinds.

Facts in the manifest (operators, instruction kinds, header, segments,
shape dynamism) are read back from the emitted bytes with executorch's own
deserializer. Unless --no-verify is given, every case is also run through
executorch's python runtime (portable kernels + XNNPACK) and compared with the
eager reference, so a fixture that upstream itself cannot run is never written
-- except per-operator cases where eager and upstream disagree (the project
matches eager): those are kept and marked "upstream": "differs: ...". A
per-operator fixture that cannot be exported (or lacks its target op) is left
out and listed in the ops manifest's "not_exported".
"""

import argparse
import copy
import json
import os
import shutil
import sys
from typing import Dict, List

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
sys.path.insert(0, HERE)

from export.spec import EXACT, F32_TOL, Case, Fixture, cl, rand  # noqa: E402

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


def lower(fx: Fixture, backend=None):
    """torch.export -> edge (optionally delegated) -> ExecutorchProgramManager.

    backend overrides fx.backend (for the fixture's variants)."""
    from executorch.exir import EdgeCompileConfig

    backend = backend or fx.backend
    programs = {}
    with torch.no_grad():
        for method, module in fx.modules.items():
            programs[method] = export(
                copy.deepcopy(module).eval(),
                fx.example_inputs[method],
                dynamic_shapes=fx.dynamic_shapes.get(method),
                strict=fx.strict,
            )
    # to_edge takes {method name: ExportedProgram}; several entries give one
    # program with several methods (plus the constant prim-getter methods).
    consts = fx.constant_methods or None
    edge_kwargs = {}
    if fx.edge_config:
        edge_kwargs["compile_config"] = EdgeCompileConfig(**fx.edge_config)
    if backend == "xnnpack":
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
            XnnpackPartitioner,
        )

        edge = to_edge_transform_and_lower(
            programs,
            partitioner=[XnnpackPartitioner()],
            constant_methods=consts,
            **edge_kwargs,
        )
    else:
        edge = to_edge(programs, constant_methods=consts, **edge_kwargs)
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
        if case.steps is not None:
            # one module: state carries over from step to step
            return [
                flatten(module(*[copy.deepcopy(v) for v in step]))
                for step in case.steps
            ]
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
        wanted = want.get(key, []) + (fx.targets if key == "operators" else [])
        missing = set(wanted) - set(entry[key])
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
        raise AssertionError(
            f"{fx.name}: " + "; ".join(problems) + f" (operators: {entry['operators']})"
        )


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
    if case.steps is not None:
        return [
            list(method.execute([copy.deepcopy(v) for v in step]))
            for step in case.steps
        ]
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
        if wa.dtype.kind in "biu":
            if not np.array_equal(ga, wa):
                bad = int((ga != wa).sum())
                raise AssertionError(f"{name} out{i}: {bad} of {wa.size} elements differ")
        elif not np.allclose(ga, wa, rtol=tol["rtol"], atol=tol["atol"], equal_nan=True):
            bad = ~np.isclose(ga, wa, rtol=tol["rtol"], atol=tol["atol"], equal_nan=True)
            k = np.flatnonzero(bad)[0]
            raise AssertionError(
                f"{name} out{i}: {int(bad.sum())} of {wa.size} elements differ, "
                f"e.g. got {ga.flat[k]!r}, expected {wa.flat[k]!r}"
            )


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def save_values(out_dir, sub, stem, key, values, flat, fx, facts, method, rec):
    """Write one list of inputs or outputs as .npy files into rec[key]."""
    paths, kinds = [], []
    for i, v in enumerate(values):
        kind, arr = to_numpy(v)
        if flat:
            assert len(values) == 1 and len(fx.cases) == 1
            rel = f"{fx.name}.{key[:-1]}.npy"  # example.input.npy
        else:
            rel = os.path.join(sub, f"{stem}.{key[:-4]}{i}.npy")
        np.save(os.path.join(out_dir, rel), arr)
        paths.append(rel)
        kinds.append(kind)
    rec[key] = paths
    if any(kd != "tensor" for kd in kinds):
        rec[key[:-1] + "_kinds"] = kinds
    # Non-contiguous tensors: the .npy holds logical values; the
    # program's tensor uses this dim_order for its memory layout.
    orders = facts["methods"][method][key[:-1] + "_dim_orders"]
    if any(o != sorted(o) for o in orders):
        rec[key[:-1] + "_dim_orders"] = orders


def write_pte(et, out_dir, rel):
    with open(os.path.join(out_dir, rel), "wb") as f:
        et.write_to_file(f)


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
    write_pte(et, out_dir, pte_rel)
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
    if fx.targets:
        entry["targets"] = list(fx.targets)
    check(fx, entry)
    seen: Dict[str, int] = {}
    for case in fx.cases:
        k = seen[case.method] = seen.get(case.method, -1) + 1  # per-method index
        want = eager_outputs(fx, case)
        steps = case.steps is not None
        rec = {"method": case.method}
        got = None
        if verify:
            try:
                got = run_with_executorch(
                    os.path.join(out_dir, pte_rel),
                    [os.path.join(out_dir, p) for p in ptd_rel],
                    case,
                )
                if steps:
                    for j, (g, w) in enumerate(zip(got, want)):
                        compare(f"{fx.name}/{case.method}#{k}.step{j}", g, w, case.tol)
                else:
                    compare(f"{fx.name}/{case.method}#{k}", got, want, case.tol)
            except Exception as e:  # noqa: BLE001 (upstream runtime errors)
                if not fx.upstream_may_differ:
                    raise
                # Project decision: match eager PyTorch; keep the case and
                # say that upstream's runtime disagrees.
                msg = str(e).strip().splitlines()
                rec["upstream"] = "differs: " + (msg[-1] if msg else type(e).__name__)
                print(f"  note: {fx.name}#{k}: {rec['upstream']}", file=sys.stderr)
        if steps:
            rec["steps"] = []
            for j, (inputs, outs) in enumerate(zip(case.steps, want)):
                srec = {}
                for key, values in (("inputs", flatten(inputs)), ("outputs", outs)):
                    save_values(out_dir, sub, f"{case.method}.case{k}.step{j}", key,
                                values, flat, fx, facts, case.method, srec)
                rec["steps"].append(srec)
            flat_want = [v for outs in want for v in outs]
        else:
            rec["iterations"] = case.iterations
            for key, values in (("inputs", flatten(case.inputs)), ("outputs", want)):
                save_values(out_dir, sub, f"{case.method}.case{k}", key, values,
                            flat, fx, facts, case.method, rec)
            flat_want = want
        if fx.record_upstream:
            # upstream's runtime outputs, to be matched byte for byte
            if got is None or steps:
                raise AssertionError(f"{fx.name}#{k}: no upstream outputs to record")
            rec["upstream_outputs"] = []
            for i, v in enumerate(got):
                rel = os.path.join(sub, f"{case.method}.case{k}.upstream{i}.npy")
                np.save(os.path.join(out_dir, rel), to_numpy(v)[1])
                rec["upstream_outputs"].append(rel)
        integer = all(to_numpy(v)[1].dtype.kind in "biu" for v in flat_want)
        rec.update(EXACT if integer else case.tol)
        if case.note:
            rec["note"] = case.note
        entry["cases"].append(rec)
    # Other lowerings of the same model (e.g. XNNPACK-delegated, for the
    # benchmark): written next to the main program, not run as cases.
    for suffix, backend in fx.variants.items():
        rel = os.path.join(sub, f"{fx.name}_{suffix}.pte")
        write_pte(lower(fx, backend=backend), out_dir, rel)
        with open(os.path.join(out_dir, rel), "rb") as f:
            vfacts = inspect_pte(f.read())
        entry.setdefault("variants", []).append(
            {
                "name": suffix,
                "backend": backend,
                "pte": rel,
                "file_size": vfacts["file_size"],
                "delegates": uniq(
                    d["id"] for m in vfacts["methods"].values() for d in m["delegates"]
                ),
                "operators": uniq(
                    o for m in vfacts["methods"].values() for o in m["operators"]
                ),
            }
        )
    return entry


def write_manifest(out_dir, entries, extra=None):
    manifest = {
        "generator": "tests/models/export_fixtures.py",
        "torch": torch.__version__,
        "executorch": _executorch_version(),
    }
    manifest.update(extra or {})
    manifest["fixtures"] = entries
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


def export_set(name, fixture_list, out_dir, args, tolerant=False):
    """Export a list of fixtures into out_dir and write its manifest.

    tolerant: a fixture whose export or check fails is reported and left out
    (per-op fixtures: one op the exporter cannot express must not stop the
    others); the failures are listed in the manifest's "not_exported"."""
    import time

    os.makedirs(out_dir, exist_ok=True)
    entries, failures = [], []
    for fx in fixture_list:
        if args.only and fx.name not in args.only:
            continue
        print(f"exporting {name}/{fx.name}", file=sys.stderr)
        t0 = time.time()
        try:
            entry = write_fixture(fx, out_dir, not args.no_verify)
        except Exception as e:  # noqa: BLE001
            if not tolerant:
                raise
            shutil.rmtree(os.path.join(out_dir, fx.name), ignore_errors=True)
            msg = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
            print(f"  NOT EXPORTED {fx.name}: {msg}", file=sys.stderr)
            failures.append({"name": fx.name, "targets": fx.targets, "error": msg})
            continue
        if args.timing:
            entry["export_seconds"] = round(time.time() - t0, 1)
        entries.append(entry)
    if args.only and not args.update:
        print(json.dumps(entries, indent=1))
        return
    extra = {"not_exported": failures} if tolerant else {}
    if args.only:  # --update: replace these entries in the existing manifest
        with open(os.path.join(out_dir, "manifest.json")) as f:
            old = json.load(f)
        fresh = {e["name"]: e for e in entries}
        kept = [e for e in old["fixtures"] if e["name"] not in fresh]
        order = [fx.name for fx in fixture_list]
        entries = sorted(kept + entries, key=lambda e: order.index(e["name"]) if e["name"] in order else len(order))
        if tolerant:
            extra["not_exported"] = [
                x for x in old.get("not_exported", []) if x["name"] not in args.only
            ] + failures
    write_manifest(out_dir, entries, extra)


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
    ap.add_argument(
        "--update",
        action="store_true",
        help="with --only: replace those entries in the existing manifest.json",
    )
    ap.add_argument(
        "--set",
        nargs="*",
        choices=["basic", "nets", "ops", "quant", "bundled", "xnnpack", "llm"],
        help="export only these sets (default: all seven)",
    )
    ap.add_argument(
        "--full",
        action="store_true",
        help="export the full-size models (plus XNNPACK variants) into --out "
        "instead (not committed; e.g. --out tests/models/full)",
    )
    args = ap.parse_args(argv)
    args.timing = args.full

    from export import bundled, llm, nets, ops, quant, xnnpack

    if args.full:
        export_set("full", nets.fixtures(full=True) + quant.fixtures(full=True) + xnnpack.fixtures(full=True),
                   args.out, args)
        return 0
    sets = args.set or ["basic", "nets", "ops", "quant", "bundled", "xnnpack", "llm"]
    if "basic" in sets:
        export_set("basic", fixtures(), args.out, args)
        if args.example_dir and not args.only:
            print("exporting example", file=sys.stderr)
            write_fixture(example_fixture(), args.example_dir, not args.no_verify, flat=True)
    if "nets" in sets:
        export_set("nets", nets.fixtures(full=False), os.path.join(args.out, "nets"), args)
    if "ops" in sets:
        export_set("ops", ops.fixtures(), os.path.join(args.out, "ops"), args, tolerant=True)
    if "quant" in sets:
        export_set("quant", quant.fixtures(), os.path.join(args.out, "quant"), args)
    if "xnnpack" in sets:
        export_set("xnnpack", xnnpack.fixtures(), os.path.join(args.out, "xnnpack"), args)
        if not args.only:
            xnnpack.export_unsupported(os.path.join(args.out, "xnnpack", "unsupported"), lower, write_pte)
    if "bundled" in sets:
        bundled.export_all(os.path.join(args.out, "bundled"))
    if "llm" in sets:
        llm.export_all(os.path.join(args.out, "llm"), inspect_pte, _executorch_version())
    return 0


def _executorch_version() -> str:
    from executorch.version import __version__

    return __version__


if __name__ == "__main__":
    sys.exit(main())
