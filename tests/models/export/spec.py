"""Fixture and case descriptions shared by export_fixtures.py and its modules."""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import torch

# Tolerances for float outputs computed by different kernels than eager.
F32_TOL = {"rtol": 1e-5, "atol": 1e-6}
# Deep models: our GEMM may use FMA and another summation order.
DEEP_TOL = {"rtol": 1e-4, "atol": 1e-4}
EXACT = {"rtol": 0.0, "atol": 0.0}


@dataclass
class Case:
    method: str
    inputs: tuple = ()
    iterations: int = 1
    tol: Dict[str, float] = field(default_factory=lambda: dict(F32_TOL))
    # A sequence of input tuples run one after the other on ONE loaded method
    # (state such as a KV cache carries over); every step's outputs are
    # checked. When set, `inputs` and `iterations` are unused.
    steps: Optional[List[tuple]] = None
    note: str = ""


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
    # keyword arguments of EdgeCompileConfig (e.g. _skip_dim_order=True)
    edge_config: Dict[str, Any] = field(default_factory=dict)
    # Properties the emitted program must have (checked after export):
    # header (bool), instructions / operators (must all appear),
    # dynamism (some tensor has it), mutable_data (bool), delegate_location.
    expect: Dict[str, Any] = field(default_factory=dict)
    # Operators this fixture is meant to test (recorded as "targets" in the
    # manifest; each must appear in the program).
    targets: List[str] = field(default_factory=list)
    # Extra variants of the same model written next to it: suffix -> backend
    # ("xnnpack"); recorded in the manifest entry's "variants".
    variants: Dict[str, str] = field(default_factory=dict)
    # torch.export strict mode
    strict: bool = True
    # Where eager PyTorch and upstream's runtime may disagree (documented
    # project decisions: match eager), record the difference instead of failing.
    upstream_may_differ: bool = False
    # Also save upstream's runtime outputs per case ("upstream_outputs" in
    # the manifest): ours must equal them byte for byte (quantized kernels).
    record_upstream: bool = False


def rand(*shape, seed, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(tuple(shape), generator=g, dtype=torch.float32).to(dtype)


def cl(t):
    return t.to(memory_format=torch.channels_last)
