"""Quantized fixtures (tests/models/quant): programs using quantized_decomposed:: kernels.

All are plain to_edge + to_executorch, no delegate, so the q/dq ops stay at
the top level and run on libexecutorch-kernels-quantized:

  cnn_q8, mlp_q8   PT2E static quantization with XNNPACKQuantizer
                   (symmetric, per-channel int8 weights, int8 activations),
                   prepare_pt2e / calibrate / convert_pt2e.
  resblock_q8      the same flow on a small ResNet-style stage: the
                   convolution shapes the integer kernels chosen at load
                   must handle (stride 2, 1x1, dilation 2, unpadded, no
                   bias) and a residual add.
  cat_q8           cat and split_with_sizes_copy between quantize and
                   dequantize ops called directly (shared and differing
                   qparams): what the byte cat and split must reproduce.
  mlp_dynq         the same MLP with dynamic activation quantization
                   (choose_qparams + the Tensor qparams forms).
  lm_wq            an LLM-style model with weight-only quantized embeddings
                   (embedding_byte 8-bit per row, embedding_4bit and
                   embedding_2bit with groups of 8) and linears (int8
                   per-channel, and 4-bit values in int8 storage, through
                   dequantize_per_channel + linear), as upstream's llama
                   source transformations emit them.
  per_token        choose_qparams_per_token_asymmetric, quantize_per_token,
                   dequantize_per_token (the quantized KV-cache ops).
  q_misc           quantize/dequantize_per_channel, add (uint8) and
                   mixed_linear / mixed_mm called directly.

"Eager" is the quantized model run by PyTorch (the converted reference
model, or the python reference of each quantized_decomposed op); every case
also records upstream's runtime outputs (executorch.runtime from the
wheel), which ours must equal byte for byte on the reference path and
within one quantized unit with the integer kernels (record_upstream=True;
docs/quantized.md).
"""

import torch
import torch.nn.functional as F
from torch import nn

from .spec import Case, Fixture, rand

# Eager (PyTorch's reference q/dq, 1.0/scale in double) and upstream's runtime
# (1.0f/(float)scale) may round a value to the neighbouring quantization
# level: allow a few levels of the output scale.
Q_TOL = {"rtol": 0.0, "atol": 0.05}


def _quant_libs():
    # The AOT library registering the .out overloads, and the schemas of
    # embedding_byte/4bit/2bit, add, mixed_linear and mixed_mm.
    import executorch.kernels.quantized  # noqa: F401
    from executorch.exir.passes import _quant_patterns_and_replacements  # noqa: F401

    global _FAKES
    if _FAKES:
        return
    _FAKES = True
    # add, mixed_linear and mixed_mm have CPU kernels but no fake (meta)
    # implementation, which torch.export needs.
    fakes = {
        "quantized_decomposed::add": lambda a, *rest: torch.empty_like(a),
        "quantized_decomposed::mixed_linear":
            lambda x, w, s, z, dtype=None: x.new_empty((x.shape[0], w.shape[0]),
                                                      dtype=dtype or x.dtype),
        "quantized_decomposed::mixed_mm":
            lambda x, w, s, z: x.new_empty((x.shape[0], w.shape[1])),
    }
    for name, fn in fakes.items():
        try:
            torch.library.register_fake(name)(fn)
        except Exception:  # noqa: BLE001 (already has one)
            pass


_FAKES = False


class Frozen(nn.Module):
    """Holds a converted PT2E GraphModule: eval()/train() are no-ops (the
    exported module does not support them; it already is in eval mode)."""

    def __init__(self, gm):
        super().__init__()
        self.gm = gm

    def train(self, mode=True):
        return self

    def forward(self, *args):
        return self.gm(*args)


def pt2e_quantize(model, example, calib, dynamic=False):
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    model = model.eval()
    gm = torch.export.export(model, example, strict=True).module()
    quantizer = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic)
    )
    prepared = prepare_pt2e(gm, quantizer)
    with torch.no_grad():
        for x in calib:
            prepared(*x)
    return Frozen(convert_pt2e(prepared))


class SmallCNN(nn.Module):
    def __init__(self, width=8, size=16):
        super().__init__()
        torch.manual_seed(0)
        self.c1 = nn.Conv2d(1, width, 3, padding=1)
        self.c2 = nn.Conv2d(width, 2 * width, 3, padding=1)
        self.c3 = nn.Conv2d(2 * width, 2 * width, 3, padding=1, groups=2 * width)
        self.fc = nn.Linear(2 * width * (size // 4) ** 2, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.relu(self.c3(x))
        return self.fc(x.flatten(1))


class ResBlock(nn.Module):
    """A small ResNet-style int8 stage: the convolution shapes the integer
    kernels must handle (stride 2, no padding, dilation 2, a 1x1 shortcut,
    int8 with per-channel weights) and a residual add."""

    def __init__(self, width=16):
        super().__init__()
        torch.manual_seed(5)
        self.stem = nn.Conv2d(3, width, 3, padding=1)
        self.a = nn.Conv2d(width, width, 3, padding=1)
        self.b = nn.Conv2d(width, width, 3, padding=1, bias=False)
        self.down = nn.Conv2d(width, 2 * width, 3, stride=2, padding=1)
        self.short = nn.Conv2d(width, 2 * width, 1, stride=2)
        self.dil = nn.Conv2d(2 * width, 2 * width, 3, padding=2, dilation=2)
        self.valid = nn.Conv2d(2 * width, width, (3, 2))
        self.fc = nn.Linear(width, 10)

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = F.relu(x + self.b(F.relu(self.a(x))))
        y = F.relu(self.down(x)) + self.short(x)
        y = F.relu(self.dil(y))
        y = self.valid(y)
        return self.fc(y.mean((2, 3)))


class DwBlock(nn.Module):
    """MobileNet-style int8 block on odd sizes: conv + BN + ReLU6 (the
    quantizer leaves the ReLU6 outside the convolution: dequantize ->
    hardtanh -> quantize), depthwise convolutions (stride 1 and 2, a 3x5
    kernel, a dilated one, odd channel counts), a 1x1 projection, ReLU
    fused into a convolution, max pools (ceil mode with padding, dilated)
    between a dequantize and a quantize, a SiLU between a dequantize and a
    quantize (sigmoid and multiply, as EfficientNet's), a sigmoid gate, and
    a 37-channel stage (tiles of four channels by 32 pixels, with tails)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(7)
        self.stem = nn.Sequential(nn.Conv2d(3, 7, 3, stride=2, padding=1), nn.BatchNorm2d(7), nn.ReLU6())
        self.dw1 = nn.Sequential(nn.Conv2d(7, 7, 3, padding=1, groups=7), nn.BatchNorm2d(7), nn.ReLU6())
        self.proj = nn.Conv2d(7, 5, 1)
        self.dw2 = nn.Conv2d(5, 5, 3, stride=2, padding=1, groups=5)
        self.dw3 = nn.Conv2d(5, 5, (3, 5), padding=(1, 2), groups=5, bias=False)
        self.dw4 = nn.Conv2d(5, 5, 3, padding=2, dilation=2, groups=5)
        self.wide = nn.Conv2d(5, 37, 3, padding=1)
        self.fc = nn.Linear(37, 10)
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        x = F.max_pool2d(self.dw1(self.stem(x)), 3, stride=2, padding=1, ceil_mode=True)
        x = F.relu(self.dw2(F.silu(self.proj(x))))
        x = F.max_pool2d(x, 2, stride=1, dilation=2)
        x = F.hardtanh(self.dw3(x), -1.0, 2.0)
        x = F.relu(self.dw4(x))
        # squeeze-excitation's gate: dequantize -> sigmoid -> quantize
        x = x * torch.sigmoid(x.mean(3, keepdim=True))
        x = F.relu(self.wide(x))
        return self.fc(x.mean((2, 3)))


class ShuffleBlock(nn.Module):
    """ShuffleNet-v2-style int8 unit on odd sizes: a split (chunk), a branch
    of 1x1, depthwise and 1x1 convolutions, a concatenation, the channel
    shuffle (view -> transpose -> contiguous -> view) and a round trip
    through NHWC (permutes that move the last dimension): the data
    movement between a dequantize and a quantize, which the rewrite runs
    on the bytes."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(11)
        self.stem = nn.Conv2d(3, 10, 3, padding=1)
        self.branch = nn.Sequential(nn.Conv2d(5, 5, 1), nn.ReLU(), nn.Conv2d(5, 5, 3, padding=1, groups=5),
                                    nn.Conv2d(5, 5, 1), nn.ReLU())
        self.head = nn.Conv2d(10, 16, 3, padding=1)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        x = F.relu(self.stem(x))
        a, b = x.chunk(2, dim=1)
        x = torch.cat((a, self.branch(b)), 1)
        n, c, h, w = x.shape
        x = x.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous().view(n, c, h, w)
        x = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
        x = F.relu(self.head(x))
        return self.fc(x.mean((2, 3)))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 64)
        self.fc3 = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


# --------------------------------------------------------------------------
# Weight-only quantized LLM-style model
# --------------------------------------------------------------------------


def quantize_rows(w, nbit, group):
    """Symmetric per-row (group) quantization: int values and float scales.

    The scales are powers of two, so every dequantized value, product and
    partial sum downstream is exact in float32: the matmuls give the same
    bytes in any summation order (with or without FMA), and the comparison
    with upstream tests the quantized kernels, not the GEMM."""
    rows, dim = w.shape
    g = w.reshape(rows, dim // group, group)
    qmax = 2 ** (nbit - 1) - 1
    scales = g.abs().amax(dim=-1).clamp(min=1e-6) / qmax
    scales = torch.exp2(torch.ceil(torch.log2(scales)))
    q = torch.clamp(torch.round(g / scales[..., None]), -qmax - 1, qmax).to(torch.int8)
    return q.reshape(rows, dim), scales.to(torch.float32)


def pack(q, nbit):
    """upstream's packing (llama source_transformation/quantize.py): 4-bit
    even columns in the high nibble; 2-bit column j in bits 2*(j%4)."""
    u = (q.to(torch.int16) + 2 ** (nbit - 1)).to(torch.uint8)
    if nbit == 4:
        return (u[:, 0::2] << 4) | u[:, 1::2]
    return u[:, 0::4] | (u[:, 1::4] << 2) | (u[:, 2::4] << 4) | (u[:, 3::4] << 6)


class TinyLM(nn.Module):
    def __init__(self, vocab=64, dim=32, hidden=64):
        super().__init__()
        _quant_libs()
        g = torch.Generator().manual_seed(7)
        emb = torch.randn(vocab, dim, generator=g)
        q8, s8 = quantize_rows(emb, 8, dim)
        self.register_buffer("emb8_w", q8)
        self.register_buffer("emb8_s", s8.reshape(vocab))
        q4, s4 = quantize_rows(torch.randn(vocab, dim, generator=g), 4, 8)
        self.register_buffer("emb4_w", pack(q4, 4))
        self.register_buffer("emb4_s", s4)
        q2, s2 = quantize_rows(torch.randn(vocab, dim, generator=g), 2, 8)
        self.register_buffer("emb2_w", pack(q2, 2))
        self.register_buffer("emb2_s", s2)
        w1 = torch.randn(hidden, dim, generator=g) / dim ** 0.5
        q, s = quantize_rows(w1, 8, dim)
        self.register_buffer("w1_q", q)
        self.register_buffer("w1_s", s.reshape(hidden))
        self.register_buffer("w1_z", torch.zeros(hidden, dtype=torch.int64))
        w2 = torch.randn(vocab, hidden, generator=g) / hidden ** 0.5
        q, s = quantize_rows(w2, 4, hidden)
        self.register_buffer("w2_q", q)   # 4-bit values in int8 storage
        self.register_buffer("w2_s", s.reshape(vocab))
        self.register_buffer("w2_z", torch.zeros(vocab, dtype=torch.int64))
        self.b2 = nn.Parameter(torch.round(torch.randn(vocab, generator=g) * 32) / 256)

    def forward(self, tokens):
        qd = torch.ops.quantized_decomposed
        h = qd.embedding_byte.dtype(self.emb8_w, self.emb8_s, None, -128, 127, tokens,
                                    dtype=torch.float32)
        h = h + qd.embedding_4bit.dtype(self.emb4_w, self.emb4_s, None, -8, 7, tokens,
                                        dtype=torch.float32)
        h = h + qd.embedding_2bit.dtype(self.emb2_w, self.emb2_s, None, -2, 1, tokens,
                                        dtype=torch.float32)
        w1 = qd.dequantize_per_channel(self.w1_q, self.w1_s, self.w1_z, 0, -128, 127, torch.int8)
        h = F.relu(F.linear(h, w1))
        w2 = qd.dequantize_per_channel(self.w2_q, self.w2_s, self.w2_z, 0, -8, 7, torch.int8)
        return F.linear(h, w2, self.b2)


class PerToken(nn.Module):
    def __init__(self):
        super().__init__()
        _quant_libs()

    def forward(self, x):
        qd = torch.ops.quantized_decomposed
        s, z = qd.choose_qparams_per_token_asymmetric(x, torch.int8)
        q = qd.quantize_per_token(x, s, z, -128, 127, torch.int8)
        y = qd.dequantize_per_token(q, s, z, -128, 127, torch.int8, torch.float32)
        return q, y, s, z


class QMisc(nn.Module):
    """Ops the export flows above do not emit, called directly."""

    def __init__(self):
        super().__init__()
        _quant_libs()
        g = torch.Generator().manual_seed(11)
        self.register_buffer("ch_s", (torch.rand(4, generator=g) * 0.05 + 0.01).double())
        self.register_buffer("ch_z", torch.tensor([0, 3, -5, 10]))
        wl = torch.randint(-127, 128, (6, 16), generator=g, dtype=torch.int8)
        self.register_buffer("lin_w", wl)
        self.register_buffer("lin_s", torch.rand(6, 2, generator=g) * 0.02 + 0.005)
        self.register_buffer("mm_w", torch.randint(-127, 128, (16, 5), generator=g, dtype=torch.int8))
        self.register_buffer("mm_s", torch.rand(16, generator=g) * 0.02 + 0.005)

    def forward(self, x, a, b, m):
        qd = torch.ops.quantized_decomposed
        q = qd.quantize_per_channel(x, self.ch_s, self.ch_z, 1, -128, 127, torch.int8)
        dq = qd.dequantize_per_channel(q, self.ch_s, self.ch_z, 1, -128, 127, torch.int8)
        if torch.compiler.is_compiling():   # export: the ops themselves
            s = qd.add(a, 0.05, 128, 0, 255, b, 0.03, 120, 0, 255, 0.07, 125, 0, 255)
            lin = qd.mixed_linear(m, self.lin_w, self.lin_s, None, torch.float32)
            mm = qd.mixed_mm(m, self.mm_w, self.mm_s, None)
        else:   # eager: they have no CPU kernel in python; their definitions
            dqa = (a.to(torch.int32) - 128).float() * 0.05
            dqb = (b.to(torch.int32) - 120).float() * 0.03
            s = torch.clamp(torch.round((dqa + dqb) / 0.07) + 125, 0, 255).to(torch.uint8)
            w = self.lin_w.float() * self.lin_s.repeat_interleave(8, dim=1)
            lin = m @ w.t()
            mm = m @ (self.mm_w.float() * self.mm_s[:, None])
        return q, dq, s, lin, mm


class QHalf(nn.Module):
    """mixed_linear / mixed_mm in Half (c10::Half arithmetic upstream)."""

    def __init__(self):
        super().__init__()
        _quant_libs()
        g = torch.Generator().manual_seed(3)
        self.register_buffer("w", torch.randint(-127, 128, (6, 20), generator=g, dtype=torch.int8))
        self.register_buffer("s", (torch.rand(6, 3, generator=g) * 0.02 + 0.005).half())
        self.register_buffer("w2", torch.randint(-127, 128, (20, 5), generator=g, dtype=torch.int8))
        self.register_buffer("s2", (torch.rand(20, generator=g) * 0.02 + 0.005).half())

    def forward(self, x):
        qd = torch.ops.quantized_decomposed
        if torch.compiler.is_compiling():
            a = qd.mixed_linear(x, self.w, self.s, None, torch.float16)
            b = qd.mixed_linear(x, self.w, self.s, None, torch.float32)
            c = qd.mixed_mm(x, self.w2, self.s2, None)
        else:   # their definitions, in float: groups of ceil(20 / 3) = 7
            scale = self.s.float().repeat_interleave(7, dim=1)[:, :20]
            b = x.float() @ (self.w.float() * scale).t()
            a = b.half()
            c = (x.float() @ (self.w2.float() * self.s2.float()[:, None])).half()
        return a, b, c


class ByteLists(nn.Module):
    """cat and split between dequantizes and quantizes, the qparams written
    out: a cat whose parts all have the output's (int8 bytes copied), a cat
    of int8 and uint8 parts with other scales and zero points along dim 2
    (each part's bytes requantized), and a split into a part with the
    input's qparams and one with others."""

    def __init__(self):
        super().__init__()
        _quant_libs()

    def forward(self, x):
        qd = torch.ops.quantized_decomposed

        def bounds(dtype):
            return (-128, 127) if dtype == torch.int8 else (0, 255)

        def q(t, s, z, dtype=torch.int8):
            return qd.quantize_per_tensor(t, s, z, *bounds(dtype), dtype)

        def dq(t, s, z, dtype=torch.int8):
            return qd.dequantize_per_tensor(t, s, z, *bounds(dtype), dtype)

        a = q(x, 0.02, 3)
        b = q(x * 2, 0.02, 3)
        c = q(x, 0.013, -9)
        d = q(x, 0.031, 140, torch.uint8)
        same = q(torch.cat([dq(a, 0.02, 3), dq(b, 0.02, 3)], 1), 0.02, 3)
        mixed = q(torch.cat([dq(a, 0.02, 3), dq(c, 0.013, -9), dq(d, 0.031, 140, torch.uint8)], 2), 0.017, 5)
        p0, p1 = torch.split(dq(b, 0.02, 3), [2, 4], 1)
        return (dq(same, 0.02, 3), dq(mixed, 0.017, 5), dq(q(p0, 0.02, 3), 0.02, 3),
                dq(q(p1, 0.011, -20, torch.uint8), 0.011, -20, torch.uint8))


def _u8(*shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, shape, generator=g, dtype=torch.uint8)


Q_OPS = ["quantized_decomposed::quantize_per_tensor.out",
         "quantized_decomposed::dequantize_per_tensor.out",
         "quantized_decomposed::dequantize_per_channel.out"]


def fixtures(full=False):
    _quant_libs()
    out = []
    if full:
        # The bench model: the same CNN, wider, on 1x1x64x64 (not committed).
        cnn = SmallCNN(width=32, size=64)
        ex = (rand(1, 1, 64, 64, seed=1),)
        qcnn = pt2e_quantize(cnn, ex, [(rand(1, 1, 64, 64, seed=100 + i),) for i in range(8)])
        out.append(Fixture(
            "cnn_q8_wide",
            "cnn_q8 with width 32 on x [1,1,64,64]: PT2E static int8 (XNNPACKQuantizer, "
            "per-channel), no delegate.",
            {"forward": qcnn}, {"forward": ex},
            [Case("forward", ex, tol=dict(Q_TOL))], targets=Q_OPS, record_upstream=True))
        return out

    ex = (rand(2, 1, 16, 16, seed=1),)
    calib = [(rand(2, 1, 16, 16, seed=100 + i),) for i in range(8)]
    out.append(Fixture(
        "cnn_q8",
        "Conv(1,8,3,p1) ReLU MaxPool Conv(8,16,3,p1) ReLU MaxPool depthwise Conv(16,3,p1) "
        "ReLU Linear(256,10); PT2E static int8 (XNNPACKQuantizer, symmetric, per-channel "
        "weights), calibrated on 8 batches, no delegate; x [2,1,16,16].",
        {"forward": pt2e_quantize(SmallCNN(), ex, calib)}, {"forward": ex},
        [Case("forward", (rand(2, 1, 16, 16, seed=s),), tol=dict(Q_TOL)) for s in (1, 2, 3)],
        targets=Q_OPS, record_upstream=True))

    ex = (rand(1, 3, 16, 16, seed=1),)
    calib = [(rand(1, 3, 16, 16, seed=300 + i),) for i in range(8)]
    out.append(Fixture(
        "resblock_q8",
        "Conv(3,16,3,p1) ReLU, a residual pair Conv(16,16,3,p1) ReLU Conv(16,16,3,p1,no bias) "
        "+ x ReLU, Conv(16,32,3,s2,p1) ReLU + a 1x1 stride-2 shortcut, Conv(32,32,3,p2,d2) "
        "ReLU, Conv(32,16,(3,2)) unpadded, mean, Linear(16,10); PT2E static int8 "
        "(XNNPACKQuantizer, per-channel weights), no delegate; x [1,3,16,16].",
        {"forward": pt2e_quantize(ResBlock(), ex, calib)}, {"forward": ex},
        [Case("forward", (rand(1, 3, 16, 16, seed=s),), tol=dict(Q_TOL)) for s in (1, 2, 3)],
        targets=Q_OPS, record_upstream=True))

    ex = (rand(1, 3, 33, 39, seed=1),)
    calib = [(rand(1, 3, 33, 39, seed=400 + i),) for i in range(8)]
    out.append(Fixture(
        "dw_q8",
        "MobileNet-style block: Conv(3,7,3,s2)+BN+ReLU6, depthwise Conv(7,3)+BN+ReLU6, "
        "MaxPool(3,s2,p1,ceil), Conv(7,5,1) SiLU, depthwise Conv(5,3,s2) ReLU, MaxPool(2,s1,d2), depthwise Conv(5,(3,5)) hardtanh(-1,2), "
        "depthwise Conv(5,3,d2) ReLU, x * sigmoid(mean(x, 3)), Conv(5,37,3) ReLU, mean, Linear(37,10); PT2E static "
        "int8 (XNNPACKQuantizer, per-channel weights), no delegate; x [1,3,33,39].",
        {"forward": pt2e_quantize(DwBlock(), ex, calib)}, {"forward": ex},
        [Case("forward", (rand(1, 3, 33, 39, seed=s),), tol=dict(Q_TOL)) for s in (1, 2, 3)],
        targets=Q_OPS, record_upstream=True))

    ex = (rand(1, 3, 9, 11, seed=1),)
    calib = [(rand(1, 3, 9, 11, seed=500 + i),) for i in range(8)]
    out.append(Fixture(
        "shuffle_q8",
        "ShuffleNet-v2-style unit: Conv(3,10,3) ReLU, chunk(2), branch Conv(5,5,1) ReLU depthwise "
        "Conv(5,3) Conv(5,5,1) ReLU, cat, channel shuffle (view, transpose, contiguous, view), "
        "permute to NHWC and back, Conv(10,16,3) ReLU, mean, Linear(16,4); PT2E static int8 "
        "(XNNPACKQuantizer, per-channel weights), no delegate; x [1,3,9,11].",
        {"forward": pt2e_quantize(ShuffleBlock(), ex, calib)}, {"forward": ex},
        [Case("forward", (rand(1, 3, 9, 11, seed=s),), tol=dict(Q_TOL)) for s in (1, 2, 3)],
        targets=Q_OPS, record_upstream=True))

    ex = (rand(1, 6, 5, 7, seed=1),)
    out.append(Fixture(
        "cat_q8",
        "cat and split_with_sizes_copy between dequantize_per_tensor and quantize_per_tensor, "
        "called directly: a cat of parts with the output's qparams, a cat along dim 2 of int8 "
        "and uint8 parts with other scales and zero points, a split into parts with the input's "
        "qparams and with others; x [1,6,5,7].",
        {"forward": ByteLists()}, {"forward": ex},
        [Case("forward", (rand(1, 6, 5, 7, seed=s) * 3,), tol=dict(Q_TOL)) for s in (1, 2)],
        targets=["aten::cat.out", "aten::split_with_sizes_copy.out"] + Q_OPS[:2], record_upstream=True))

    ex = (rand(4, 32, seed=1),)
    calib = [(rand(4, 32, seed=200 + i),) for i in range(8)]
    out.append(Fixture(
        "mlp_q8",
        "Linear(32,64) ReLU Linear(64,64) ReLU Linear(64,10); PT2E static int8 "
        "(XNNPACKQuantizer, per-channel weights), no delegate; x [4,32].",
        {"forward": pt2e_quantize(MLP(), ex, calib)}, {"forward": ex},
        [Case("forward", (rand(4, 32, seed=s),), tol=dict(Q_TOL)) for s in (1, 2)],
        targets=Q_OPS, record_upstream=True))

    out.append(Fixture(
        "mlp_dynq",
        "The mlp_q8 model with dynamic activation quantization (choose_qparams and the "
        "Tensor-qparams quantize/dequantize), per-channel int8 weights; x [4,32].",
        {"forward": pt2e_quantize(MLP(), ex, calib, dynamic=True)}, {"forward": ex},
        [Case("forward", (rand(4, 32, seed=s),), tol=dict(Q_TOL)) for s in (3, 4)],
        targets=["quantized_decomposed::choose_qparams.Tensor_out",
                 "quantized_decomposed::quantize_per_tensor.Tensor_out",
                 "quantized_decomposed::dequantize_per_tensor.Tensor_out"],
        record_upstream=True))

    tok = lambda seed: (torch.randint(0, 64, (1, 6), generator=torch.Generator().manual_seed(seed)),)  # noqa: E731
    out.append(Fixture(
        "lm_wq",
        "LLM-style weight-only quantized model: embedding_byte (int8 per row) + "
        "embedding_4bit + embedding_2bit (groups of 8), Linear 32->64 with int8 "
        "per-channel weights, ReLU, Linear 64->64 with 4-bit per-channel weights "
        "(dequantize_per_channel + linear); power-of-two scales, so all float "
        "arithmetic is exact (eager, upstream and ours agree bit for bit in any "
        "summation order); tokens int64 [1,6].",
        {"forward": TinyLM()}, {"forward": tok(1)},
        [Case("forward", tok(s), tol={"rtol": 0.0, "atol": 0.0}) for s in (1, 2, 3)],
        targets=["quantized_decomposed::embedding_byte.dtype_out",
                 "quantized_decomposed::embedding_4bit.dtype_out",
                 "quantized_decomposed::embedding_2bit.dtype_out",
                 "quantized_decomposed::dequantize_per_channel.out"],
        record_upstream=True))

    out.append(Fixture(
        "per_token",
        "choose_qparams_per_token_asymmetric -> quantize_per_token -> dequantize_per_token "
        "on x [1,4,8,16].",
        {"forward": PerToken()}, {"forward": (rand(1, 4, 8, 16, seed=1),)},
        [Case("forward", (rand(1, 4, 8, 16, seed=s),), tol=dict(Q_TOL)) for s in (1, 2)],
        targets=["quantized_decomposed::choose_qparams_per_token_asymmetric.out",
                 "quantized_decomposed::quantize_per_token.out",
                 "quantized_decomposed::dequantize_per_token.out"],
        record_upstream=True, upstream_may_differ=True))

    misc_in = lambda s: (rand(2, 4, 3, seed=s), _u8(3, 5, seed=s), _u8(3, 5, seed=s + 50),  # noqa: E731
                         rand(3, 16, seed=s + 7))
    out.append(Fixture(
        "q_misc",
        "quantize_per_channel / dequantize_per_channel on axis 1 (zero points 0,3,-5,10), "
        "uint8 add, mixed_linear (2 groups) and mixed_mm called directly.",
        {"forward": QMisc()}, {"forward": misc_in(1)},
        [Case("forward", misc_in(s), tol={"rtol": 1e-5, "atol": 1e-5}) for s in (1, 2)],
        targets=["quantized_decomposed::quantize_per_channel.out",
                 "quantized_decomposed::add.out",
                 "quantized_decomposed::mixed_linear.out",
                 "quantized_decomposed::mixed_mm.out"],
        record_upstream=True, upstream_may_differ=True))
    half_in = lambda s: ((rand(3, 20, seed=s) * 3).half(),)  # noqa: E731
    out.append(Fixture(
        "q_half",
        "mixed_linear (Half in and out, and Half in with Float out; 3 groups over 20 "
        "columns) and mixed_mm in Half, called directly; x half [3,20].",
        {"forward": QHalf()}, {"forward": half_in(1)},
        [Case("forward", half_in(s), tol={"rtol": 0.01, "atol": 0.25}) for s in (1, 2)],
        targets=["quantized_decomposed::mixed_linear.out", "quantized_decomposed::mixed_mm.out"],
        record_upstream=True))
    return out
