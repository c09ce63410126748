"""XNNPACK-delegated fixtures (tests/models/xnnpack): lowered with
XnnpackPartitioner (to_edge_transform_and_lower), run by libexecutorch-xnnpack.

  xnn_mlp        Linear ReLU Linear ReLU Linear, fp32
  xnn_mv2        torchvision MobileNetV2 (width 0.25, 10 classes), fp32
  xnn_resnet18   ResNet-18 structure with widths 8..64, fp32
  xnn_vit_tiny   a small torchvision VisionTransformer, fp32 (layer norm and
                 the attention's reshapes stay on the CPU kernels)
  xnn_mlp_q8     the MLP after PT2E static int8 quantization (per-tensor
                 weights: XNNPACK's qs8 fully-connected)
  xnn_mlp_q8pc   the same with per-channel weights
  xnn_mv2_q8     MobileNetV2 after PT2E static int8 quantization (per-channel
                 weights)
  xnn_mixed      a graph cut in two by an op XNNPACK does not take (cumsum):
                 delegate, CPU kernel, delegate
  xnn_cnn_dyn    a small CNN with a dynamic batch (1..4)
  xnn_cnn_cl     the same CNN on a channels_last input (dim order 0,2,3,1)
  xnn_vit_scale  a small ViT whose attention scale is a 0-dim tensor constant
                 (the exporter lifts it; it reaches the delegate as a 0-dim value)
  xnn_effnet     torchvision EfficientNet-B0 structure (width 0.25, depth 0.5):
                 SiLU, squeeze-excitation (mean, 1x1 convs, sigmoid, broadcast
                 multiply)
  xnn_cnn_fp16   the small CNN converted with .half(): fp16 through XNNPACK
  xnn_scalar     0-dim tensors as a delegate's input and output

No bf16 fixture: upstream's XnnpackPartitioner (1.5.1) delegates no bf16 op.

full=True gives the bench/ set: full-size torchvision mobilenet_v2, resnet18,
efficientnet_b0, shufflenet_v2_x1_0 and squeezenet1_1, each fp32 (xnn_NAME)
and PT2E static int8 (xnn_NAME_q8), all XNNPACK-delegated, plus the same
int8 model undelegated (q8_NAME: upstream's reference q/dq pattern at the
top level, run by libexecutorch-kernels-quantized); bench/bench.py pairs
q8_NAME with xnn_NAME_q8.

The eager reference is the (quantized) PyTorch module; quantized fixtures
also record upstream's runtime outputs.
"""

import os

import torch
import torch.nn.functional as F
from torch import nn

from .nets import mobilenet_v2, resnet18, vit
from .quant import MLP, Frozen, _quant_libs
from .spec import Case, Fixture, rand

XNN_TOL = {"rtol": 1e-4, "atol": 1e-4}
# int8: eager's reference q/dq and XNNPACK's requantisation may round a
# value to a neighbouring level; a few levels of the output scale.
XNN_Q_TOL = {"rtol": 0.0, "atol": 0.1}


def pt2e(model, example, calib, per_channel):
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    model = model.eval()
    gm = torch.export.export(model, example, strict=True).module()
    quantizer = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=per_channel))
    prepared = prepare_pt2e(gm, quantizer)
    with torch.no_grad():
        for x in calib:
            prepared(*x)
    return Frozen(convert_pt2e(prepared))


class Mixed(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.a = nn.Linear(16, 32)
        self.b = nn.Linear(32, 8)

    def forward(self, x):
        h = F.relu(self.a(x))
        h = torch.cumsum(h, dim=1)
        return torch.sigmoid(self.b(h))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = F.relu(self.c1(x))
        x = F.hardtanh(self.c2(x), 0.0, 6.0)
        x = F.max_pool2d(x, 2)
        return self.fc(x.mean(dim=(2, 3)))


class ScalarMul(nn.Module):
    def forward(self, x, s):
        return x * s, s * s


class ScaledAttentionBlock(nn.Module):
    """Pre-norm transformer block whose attention scale is a plain tensor
    attribute: torch.export lifts it to a 0-dim constant."""

    def __init__(self, dim, heads, mlp):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.fc1, self.fc2 = nn.Linear(dim, mlp), nn.Linear(mlp, dim)
        self.scale = torch.tensor((dim // heads) ** -0.5)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attn = torch.softmax((q @ k.transpose(-2, -1)) * self.scale, dim=-1)
        x = x + self.proj((attn @ v).transpose(1, 2).reshape(b, n, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class ScaledViT(nn.Module):
    def __init__(self, image=32, patch=8, dim=32, heads=4, mlp=64, layers=2, classes=10):
        super().__init__()
        torch.manual_seed(21)
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.pos = nn.Parameter(torch.randn(1, (image // patch) ** 2, dim) * 0.1)
        self.blocks = nn.ModuleList(ScaledAttentionBlock(dim, heads, mlp) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x).mean(dim=1))


def efficientnet_b0(width, depth, classes):
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf

    from .nets import randomize_bn

    torch.manual_seed(0)
    setting, last = _efficientnet_conf("efficientnet_b0", width_mult=width, depth_mult=depth)
    return randomize_bn(EfficientNet(setting, 0.2, last_channel=last, num_classes=classes), seed=6)


def vit_random_head():
    """torchvision initialises the ViT classifier head to zeros, which would
    make every output 0 whatever the network computes: give it weights."""
    model = vit(32, 8, 2, 4, 64, 128, 10)
    g = torch.Generator().manual_seed(14)
    with torch.no_grad():
        head = model.heads.head
        head.weight.copy_(torch.randn(head.weight.shape, generator=g) * 0.1)
        head.bias.copy_(torch.randn(head.bias.shape, generator=g) * 0.1)
    return model


def xfix(name, desc, model, ex, cases, **kw):
    return Fixture(name, desc, {"forward": model}, {"forward": ex}, cases,
                   backend="xnnpack", expect={"instructions": ["DelegateCall"]}, **kw)


# int8 at full size: 1000 random-weight logits; eager's q/dq and XNNPACK's
# requantisation may differ by a few output levels.
XNN_Q_FULL_TOL = {"rtol": 0.05, "atol": 0.5}
Q8_OPS = ["quantized_decomposed::quantize_per_tensor.out",
          "quantized_decomposed::dequantize_per_tensor.out",
          "quantized_decomposed::dequantize_per_channel.out"]


def bench_models():
    """The torchvision models of the XNNPACK bench rows (bench/README.md):
    full size, random weights (seeded), BN randomised, 1000 classes."""
    import torchvision.models as tvm

    from .nets import randomize_bn

    def seeded(make, seed):
        torch.manual_seed(seed)
        return randomize_bn(make(), seed=seed)

    return [
        ("mobilenet_v2", "torchvision mobilenet_v2", lambda: mobilenet_v2(1.0, 1000), 61),
        ("resnet18", "torchvision resnet18", lambda: resnet18((64, 128, 256, 512), 1000), 62),
        ("effnet_b0", "torchvision efficientnet_b0", lambda: efficientnet_b0(1.0, 1.0, 1000), 60),
        ("shufflenet_v2", "torchvision shufflenet_v2_x1_0",
         lambda: seeded(tvm.shufflenet_v2_x1_0, 63), 63),
        ("squeezenet", "torchvision squeezenet1_1", lambda: seeded(tvm.squeezenet1_1, 64).eval(), 64),
    ]


def full_fixtures():
    """xnn_NAME (fp32, XnnpackPartitioner) and xnn_NAME_q8 (PT2E static int8
    with XNNPACKQuantizer, per-channel weights, then XnnpackPartitioner) for
    each bench model; x [1,3,224,224]."""
    _quant_libs()
    shape = (1, 3, 224, 224)
    out = []
    for name, what, make, seed in bench_models():
        x = (rand(*shape, seed=seed),)
        out.append(xfix(
            "xnn_" + name, what + " (full size, random weights, BN randomised, 1000 classes), "
            "fp32, XNNPACK-delegated; x [1,3,224,224].", make(), x,
            [Case("forward", x, tol=dict(XNN_TOL))]))
        calib = [(rand(*shape, seed=seed * 10 + i),) for i in range(2)]
        quantized = pt2e(make(), x, calib, per_channel=True)
        q8_what = (what + ", PT2E static int8 (XNNPACKQuantizer, symmetric, per-channel weights, "
                   "calibrated on 2 random images)")
        out.append(xfix(
            "xnn_" + name + "_q8", q8_what + ", XNNPACK-delegated; x [1,3,224,224].", quantized, x,
            [Case("forward", x, tol=dict(XNN_Q_FULL_TOL))], record_upstream=True))
        # the same quantized model with no partitioner: bench.py times it
        # against xnn_NAME_q8 (our integer kernels against XNNPACK's)
        out.append(Fixture(
            "q8_" + name, q8_what + ", no delegate; x [1,3,224,224].", {"forward": quantized},
            {"forward": x}, [Case("forward", x, tol=dict(XNN_Q_FULL_TOL))],
            targets=Q8_OPS, record_upstream=True))
    return out


def fixtures(full=False):
    t = XNN_TOL
    if full:
        return full_fixtures()
    _quant_libs()
    out = []
    mlp_ex = (rand(4, 32, seed=1),)
    out.append(xfix(
        "xnn_mlp", "Linear(32,64) ReLU Linear(64,64) ReLU Linear(64,10) (seed 1), fp32, "
        "XNNPACK-delegated; x [4,32].", MLP(), mlp_ex,
        [Case("forward", (rand(4, 32, seed=s),), tol=dict(t)) for s in (1, 2)]))
    img = (1, 3, 64, 64)
    out.append(xfix(
        "xnn_mv2", "torchvision mobilenet_v2(width_mult=0.25, num_classes=10), random "
        "weights, BN randomised, fp32, XNNPACK-delegated; x [1,3,64,64].",
        mobilenet_v2(0.25, 10), (rand(*img, seed=10),),
        [Case("forward", (rand(*img, seed=s),), tol=dict(t)) for s in (10, 20)]))
    out.append(xfix(
        "xnn_resnet18", "ResNet-18 structure with widths 8,16,32,64, 10 classes, BN "
        "randomised, fp32, XNNPACK-delegated; x [1,3,64,64].",
        resnet18((8, 16, 32, 64), 10), (rand(*img, seed=12),),
        [Case("forward", (rand(*img, seed=s),), tol=dict(t)) for s in (12, 22)]))
    out.append(xfix(
        "xnn_vit_tiny", "torchvision VisionTransformer (image 32, patch 8, 2 layers, 4 "
        "heads, dim 64, mlp 128, 10 classes), fp32, XNNPACK-delegated; x [1,3,32,32].",
        vit_random_head(), (rand(1, 3, 32, 32, seed=13),),
        [Case("forward", (rand(1, 3, 32, 32, seed=s),), tol=dict(t)) for s in (13, 23)]))
    calib = [(rand(4, 32, seed=200 + i),) for i in range(8)]
    out.append(xfix(
        "xnn_mlp_q8", "The xnn_mlp model, PT2E static int8 (XNNPACKQuantizer, symmetric, "
        "per-tensor weights), XNNPACK-delegated; x [4,32].",
        pt2e(MLP(), mlp_ex, calib, per_channel=False), mlp_ex,
        [Case("forward", (rand(4, 32, seed=s),), tol=dict(XNN_Q_TOL)) for s in (1, 2)],
        record_upstream=True))
    out.append(xfix(
        "xnn_mlp_q8pc", "The xnn_mlp model, PT2E static int8 with per-channel weights, "
        "XNNPACK-delegated; x [4,32].",
        pt2e(MLP(), mlp_ex, calib, per_channel=True), mlp_ex,
        [Case("forward", (rand(4, 32, seed=s),), tol=dict(XNN_Q_TOL)) for s in (1, 2)],
        record_upstream=True))
    mcal = [(rand(*img, seed=300 + i),) for i in range(4)]
    out.append(xfix(
        "xnn_mv2_q8", "The xnn_mv2 model, PT2E static int8 (per-channel weights, "
        "calibrated on 4 images), XNNPACK-delegated; x [1,3,64,64].",
        pt2e(mobilenet_v2(0.25, 10), (rand(*img, seed=10),), mcal, per_channel=True),
        (rand(*img, seed=10),),
        [Case("forward", (rand(*img, seed=s),), tol=dict(XNN_Q_TOL)) for s in (10, 20)],
        record_upstream=True))
    out.append(xfix(
        "xnn_mixed", "Linear(16,32) ReLU | cumsum(dim 1) on the CPU kernels | Linear(32,8) "
        "Sigmoid: two delegate calls around a kernel call; x [3,16].",
        Mixed(), (rand(3, 16, seed=7),),
        [Case("forward", (rand(3, 16, seed=s),), tol=dict(t)) for s in (7, 8)]))
    out[-1].expect = {"instructions": ["DelegateCall", "KernelCall"],
                      "operators": ["aten::cumsum.out"]}
    out.append(xfix(
        "xnn_cnn_dyn", "Conv(3,8,3,p1) ReLU depthwise Conv(8,3,s2,p1) ReLU6 MaxPool(2) mean "
        "Linear(8,4) with a dynamic batch (Dim 1..4, example 2); cases at batch 1, 2, 4.",
        SmallCNN(), (rand(2, 3, 16, 16, seed=30),),
        [Case("forward", (rand(b, 3, 16, 16, seed=30 + b),), tol=dict(t)) for b in (2, 1, 4)],
        dynamic_shapes={"forward": ({0: torch.export.Dim("batch", min=1, max=4)},)}))
    x_cl = rand(2, 3, 16, 16, seed=40).to(memory_format=torch.channels_last)
    out.append(xfix(
        "xnn_cnn_cl", "The xnn_cnn_dyn model (static batch 2) on a channels_last input: the "
        "delegate's input has dim order [0,2,3,1] and reaches XNNPACK as NHWC.",
        SmallCNN(), (x_cl,),
        [Case("forward", (rand(2, 3, 16, 16, seed=s).to(memory_format=torch.channels_last),),
              tol=dict(t)) for s in (40, 41)]))
    out.append(xfix(
        "xnn_vit_scale", "A ViT (image 32, patch 8, 2 pre-norm layers, 4 heads, dim 32, mlp 64, "
        "10 classes) whose attention scale is a tensor attribute: the exporter lifts it to a "
        "0-dim constant the delegate takes; x [1,3,32,32].",
        ScaledViT(), (rand(1, 3, 32, 32, seed=50),),
        [Case("forward", (rand(1, 3, 32, 32, seed=s),), tol=dict(t)) for s in (50, 51)]))
    out.append(xfix(
        "xnn_effnet", "torchvision EfficientNet-B0 structure (width 0.25, depth 0.5, 10 "
        "classes), BN randomised, fp32: SiLU and squeeze-excitation blocks; x [1,3,64,64].",
        efficientnet_b0(0.25, 0.5, 10), (rand(*img, seed=60),),
        [Case("forward", (rand(*img, seed=s),), tol=dict(t)) for s in (60, 61)]))
    half_tol = {"rtol": 2e-2, "atol": 2e-2}
    out.append(xfix(
        "xnn_cnn_fp16", "The xnn_cnn_dyn CNN (static batch 2) converted with .half(): fp16 "
        "input, weights and output through XNNPACK; x [2,3,16,16] fp16.",
        SmallCNN().half(), (rand(2, 3, 16, 16, seed=70, dtype=torch.float16),),
        [Case("forward", (rand(2, 3, 16, 16, seed=s, dtype=torch.float16),), tol=dict(half_tol))
         for s in (70, 71)]))
    out.append(xfix(
        "xnn_scalar", "x * s and s * s with s a 0-dim input: 0-dim tensors as a delegate's "
        "input and output; x [4,8], s [].",
        ScalarMul(), (rand(4, 8, seed=90), rand(seed=91)),
        [Case("forward", (rand(4, 8, seed=s), rand(seed=s + 1)), tol=dict(t)) for s in (90, 92)]))
    return out


def export_unsupported(out_dir, lower, write_pte):
    """Programs whose XNNPACK payload uses what Debian's XNNPACK lacks: they
    must fail at method load with an error naming the node (no cases, no
    manifest: tests/xnnpack/test-xnnpack.c loads them)."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    ex = (rand(4, 32, seed=1),)
    gm = torch.export.export(MLP().eval(), ex, strict=True).module()
    q = XNNPACKQuantizer().set_global(
        get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True))
    prepared = prepare_pt2e(gm, q)
    prepared(*ex)
    model = Frozen(convert_pt2e(prepared))
    fx = Fixture("mlp_dynq", "dynamically quantized linear layers (qdint8 activations)",
                 {"forward": model}, {"forward": ex}, [], backend="xnnpack")
    os.makedirs(out_dir, exist_ok=True)
    write_pte(lower(fx), out_dir, "mlp_dynq.pte")
