"""Dynamically quantized XNNPACK fixtures (tests/models/xnnpack_dq): linear
layers quantized with upstream's LLM recipes (torchao
Int8DynamicActivationIntxWeightConfig, as export_llama -qmode 8da4w and
extension/llm/export/quantize.py 8da8w do) and lowered with
XnnpackDynamicallyQuantizedPartitioner.  Each delegate holds an XNNConvert
(fp32 -> qdint8, per-token) feeding XNNFullyConnected with qcint8 (8da8w) or
qbint4 (8da4w, any group size, G=0 included) weights.

  dq_8da4w_g32     Linear(64,96) ReLU Linear(96,32), no bias, G=32; x [3,64]
  dq_8da4w_g0      the same model, per-axis int4 (G=0: one block of K); x [3,64]
  dq_8da4w_g128    Linear(256,40) with bias, G=128, on a [1,5,256] input
  dq_8da4w_g256    Linear(512,24), G=256; x [2,512]
  dq_8da8w         Linear(37,20) with bias (odd K), per-channel int8; x [4,37]
  dq_8da8w_mlp     Linear(64,96) ReLU Linear(96,32), per-channel int8; x [1,64]
  dq_8da4w_dyn     Linear(64,48) with bias, G=32, on [1,T,64] with T dynamic
                   (1..8, as an LLM's prompt length); cases T = 5, 1, 8

The eager reference is the torchao-quantized module.  Upstream's runtime
outputs are recorded too; ours are compared with them within "upstream_tol"
(XNNPACK's kernels and ours sum in other orders: not byte for byte).
"""

import torch
from torch import nn

from .spec import Case, Fixture, rand

# Against eager torchao: both quantize activations per token at run time,
# but eager works in float on dequantized values while XNNPACK works on the
# int8/int4 integers (rounding of the activation scale differs a little).
# Measured: upstream's runtime and ours at most 3.8e-3 from eager (outputs
# up to 1.9).
DQ_TOL = {"rtol": 0.0, "atol": 1e-2}
# Against upstream's runtime (the same quantized math, other summation
# order).  Measured: 4-bit within 5.7e-7 (byte-equal on the portable
# loops), 8-bit within 1.2e-7.
DQ_UPSTREAM_TOL = {"rtol": 0.0, "atol": 2e-6}


class Linear1(nn.Module):
    def __init__(self, k, n, bias, seed):
        super().__init__()
        torch.manual_seed(seed)
        self.fc = nn.Linear(k, n, bias=bias)

    def forward(self, x):
        return self.fc(x)


class MLP2(nn.Module):
    def __init__(self, seed, bias=False):
        super().__init__()
        torch.manual_seed(seed)
        self.a = nn.Linear(64, 96, bias=bias)
        self.b = nn.Linear(96, 32, bias=bias)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def quantized(model, bits, group_size):
    """upstream's recipe: extension/llm/export/quantize.py _make_linear_config
    (8da4w / 8da8w, HQQ scale-only parameters)."""
    from torchao.quantization.granularity import PerAxis, PerGroup
    from torchao.quantization.quant_api import (
        Int8DynamicActivationIntxWeightConfig,
        quantize_,
    )
    from torchao.utils import unwrap_tensor_subclass

    model = model.eval()
    with torch.no_grad():
        quantize_(
            model,
            Int8DynamicActivationIntxWeightConfig(
                weight_dtype=getattr(torch, f"int{bits}"),
                weight_granularity=PerAxis(0) if group_size == 0 else PerGroup(group_size),
                intx_choose_qparams_algorithm="hqq_scale_only",
            ),
        )
    return unwrap_tensor_subclass(model)


def dqfix(name, desc, model, shape, seeds, shapes=None, **kw):
    ex = (rand(*shape, seed=seeds[0]),)
    fx = Fixture(
        name, desc, {"forward": model}, {"forward": ex},
        [Case("forward", (rand(*(sh or shape), seed=s),), tol=dict(DQ_TOL))
         for s, sh in zip(seeds, shapes or [None] * len(seeds))],
        backend="xnnpack_dq", expect={"instructions": ["DelegateCall"]},
        record_upstream=True, **kw)
    fx.upstream_tol = dict(DQ_UPSTREAM_TOL)
    return fx


def fixtures():
    out = []
    out.append(dqfix(
        "dq_8da4w_g32", "Linear(64,96) ReLU Linear(96,32) (seed 1, no bias), 8da4w G=32 "
        "(qbint4 weights, bf16 block scales); x [3,64].",
        quantized(MLP2(1), 4, 32), (3, 64), (1, 2)))
    out.append(dqfix(
        "dq_8da4w_g0", "The same model, 8da4w G=0 (per-axis int4: qbint4 with one block "
        "of K); x [3,64].",
        quantized(MLP2(1), 4, 0), (3, 64), (3, 4)))
    out.append(dqfix(
        "dq_8da4w_g128", "Linear(256,40) with bias (seed 2), 8da4w G=128; x [1,5,256] "
        "(a token dimension, as in an LLM).",
        quantized(Linear1(256, 40, True, 2), 4, 128), (1, 5, 256), (5, 6)))
    out.append(dqfix(
        "dq_8da4w_g256", "Linear(512,24) (seed 3, no bias), 8da4w G=256; x [2,512].",
        quantized(Linear1(512, 24, False, 3), 4, 256), (2, 512), (7, 8)))
    out.append(dqfix(
        "dq_8da8w", "Linear(37,20) with bias (seed 4, odd K), 8da8w per channel "
        "(qcint8 weights, fp32 scales); x [4,37].",
        quantized(Linear1(37, 20, True, 4), 8, 0), (4, 37), (9, 10)))
    out.append(dqfix(
        "dq_8da8w_mlp", "Linear(64,96) ReLU Linear(96,32) (seed 5, bias), 8da8w per "
        "channel; x [1,64] (one row, as in decoding).",
        quantized(MLP2(5, bias=True), 8, 0), (1, 64), (11, 12)))
    out.append(dqfix(
        "dq_8da4w_dyn", "Linear(64,48) with bias (seed 6), 8da4w G=32, on x [1,T,64] with T "
        "dynamic (Dim 1..8, example 5); cases at T = 5, 1, 8.",
        quantized(Linear1(64, 48, True, 6), 4, 32), (1, 5, 64), (13, 14, 15),
        shapes=[(1, 5, 64), (1, 1, 64), (1, 8, 64)],
        dynamic_shapes={"forward": ({1: torch.export.Dim("tokens", min=1, max=8)},)}))
    return out
