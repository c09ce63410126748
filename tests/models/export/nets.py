"""Whole-model fixtures: MLP, CNN, MobileNets, ResNet, ViT, BERT-like, llama-like.

fixtures(full=False) gives the reduced-width versions that are committed
(tests/models/nets); fixtures(full=True) the full-size ones, generated on
demand into an ignored folder, each with an XNNPACK-delegated variant.
All exports are plain to_edge + to_executorch (portable kernels).
"""


import torch
import torch.nn.functional as F
from torch import nn

from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

from .spec import DEEP_TOL, Case, Fixture, rand

XNN = {"xnnpack": "xnnpack"}


def randomize_bn(model, seed):
    """Fresh BN layers (0/1 stats, 1/0 affine) test almost nothing."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=g) * 1.5 + 0.5)
                m.weight.copy_(torch.rand(n, generator=g) + 0.5)
                m.bias.copy_(torch.randn(n, generator=g) * 0.1)
    return model.eval()


# --------------------------------------------------------------------------
# MLP and small CNN
# --------------------------------------------------------------------------


def mlp_deep():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64, bias=False), nn.Tanh(),
        nn.Linear(64, 10), nn.Sigmoid(),
    ).eval()


def small_cnn():
    torch.manual_seed(0)
    m = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, stride=2, padding=2, dilation=2),
        nn.ReLU6(),
        nn.AvgPool2d(3, stride=1, padding=1),
        nn.Conv2d(16, 16, 3, padding=1, groups=16),
        nn.Hardswish(),
        nn.AdaptiveAvgPool2d((2, 2)),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(64, 10),
        nn.LogSoftmax(1),
    )
    return randomize_bn(m, seed=1)


def fire_cnn():
    """SqueezeNet-1.1's shape at a few channels: fire modules whose two
    expand convolutions end in a channel cat."""
    from torchvision.models.squeezenet import Fire

    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(inplace=True),
        nn.MaxPool2d(3, stride=2, ceil_mode=True),
        Fire(16, 8, 16, 16), Fire(32, 8, 16, 16),
        nn.MaxPool2d(3, stride=2, ceil_mode=True),
        Fire(32, 16, 32, 32),
        nn.Dropout(0.5), nn.Conv2d(64, 10, 1), nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
    ).eval()


# --------------------------------------------------------------------------
# torchvision CNNs
# --------------------------------------------------------------------------


def mobilenet_v2(width, classes):
    import torchvision

    torch.manual_seed(0)
    return randomize_bn(
        torchvision.models.mobilenet_v2(weights=None, width_mult=width, num_classes=classes),
        seed=2,
    )


def mobilenet_v3_small(width, classes):
    import torchvision

    torch.manual_seed(0)
    return randomize_bn(
        torchvision.models.mobilenet_v3_small(
            weights=None, width_mult=width, num_classes=classes
        ),
        seed=3,
    )


def resnet18(widths, classes):
    """torchvision's ResNet-18 (BasicBlock, [2,2,2,2]); widths other than
    (64, 128, 256, 512) build the same graph with fewer channels."""
    import torchvision
    from torchvision.models.resnet import BasicBlock, ResNet

    torch.manual_seed(0)
    if tuple(widths) == (64, 128, 256, 512):
        return randomize_bn(torchvision.models.resnet18(weights=None, num_classes=classes), 4)

    class NarrowResNet18(ResNet):
        def __init__(self):
            nn.Module.__init__(self)
            self._norm_layer = nn.BatchNorm2d
            self.inplanes, self.dilation, self.groups, self.base_width = widths[0], 1, 1, 64
            self.conv1 = nn.Conv2d(3, widths[0], 7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(widths[0])
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
            self.layer1 = self._make_layer(BasicBlock, widths[0], 2)
            self.layer2 = self._make_layer(BasicBlock, widths[1], 2, stride=2)
            self.layer3 = self._make_layer(BasicBlock, widths[2], 2, stride=2)
            self.layer4 = self._make_layer(BasicBlock, widths[3], 2, stride=2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(widths[3], classes)

    return randomize_bn(NarrowResNet18(), seed=4)


def vit(image, patch, layers, heads, dim, mlp, classes):
    from torchvision.models.vision_transformer import VisionTransformer

    torch.manual_seed(0)
    m = VisionTransformer(
        image_size=image, patch_size=patch, num_layers=layers, num_heads=heads,
        hidden_dim=dim, mlp_dim=mlp, num_classes=classes,
    )
    # torchvision starts the head at zero: every output would be 0 whatever
    # the encoder computed.
    nn.init.normal_(m.heads.head.weight, std=0.2)
    nn.init.normal_(m.heads.head.bias, std=0.2)
    return m.eval()


# --------------------------------------------------------------------------
# BERT-like encoder
# --------------------------------------------------------------------------


class BertLayer(nn.Module):
    def __init__(self, dim, heads, ffn, approximate):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.o = nn.Linear(dim, dim)
        self.ln1 = nn.LayerNorm(dim, eps=1e-12)
        self.ff1, self.ff2 = nn.Linear(dim, ffn), nn.Linear(ffn, dim)
        self.act = nn.GELU(approximate=approximate)
        self.ln2 = nn.LayerNorm(dim, eps=1e-12)

    def forward(self, h, mask):
        b, s, d = h.shape

        def split(t):
            return t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)

        a = F.scaled_dot_product_attention(
            split(self.q(h)), split(self.k(h)), split(self.v(h)), attn_mask=mask
        )
        h = self.ln1(h + self.o(a.transpose(1, 2).reshape(b, s, d)))
        return self.ln2(h + self.ff2(self.act(self.ff1(h))))


class Bert(nn.Module):
    """Word + position + token-type embeddings, LayerNorm, N post-norm
    encoder layers (SDPA with an additive padding mask), tanh pooler."""

    def __init__(self, vocab, dim, layers, heads, ffn, max_pos, approximate="none"):
        super().__init__()
        torch.manual_seed(0)
        self.word = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_pos, dim)
        self.token_type = nn.Embedding(2, dim)
        self.ln = nn.LayerNorm(dim, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(max_pos).unsqueeze(0))
        self.layers = nn.ModuleList(
            BertLayer(dim, heads, ffn, approximate) for _ in range(layers)
        )
        self.pool = nn.Linear(dim, dim)

    def forward(self, input_ids, token_type_ids, attention_mask):
        s = input_ids.shape[1]
        h = self.word(input_ids) + self.pos(self.position_ids[:, :s]) + self.token_type(token_type_ids)
        h = self.ln(h)
        mask = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            h = layer(h, mask)
        return h, torch.tanh(self.pool(h[:, 0]))


def bert_inputs(vocab, seq, seed, pad):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (1, seq), generator=g)
    types = torch.zeros(1, seq, dtype=torch.int64)
    types[:, seq // 2:] = 1
    mask = torch.ones(1, seq, dtype=torch.int64)
    if pad:
        mask[:, -pad:] = 0
    return ids, types, mask


# --------------------------------------------------------------------------
# llama-like decoder with a KV cache in buffers
# --------------------------------------------------------------------------


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def apply_rope(x, cos, sin):
    """x: [B, H, S, D]; cos/sin: [S, D/2]. Pairs (2i, 2i+1) are rotated."""
    xr = x.reshape(*x.shape[:-1], -1, 2)
    a, b = xr.unbind(-1)
    out = torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1)
    return out.flatten(-2)


class Attention(nn.Module):
    def __init__(self, dim, heads, kv_heads, max_seq, dynamic):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, dim // heads
        self.dynamic = dynamic
        self.wq = nn.Linear(dim, heads * self.hd, bias=False)
        self.wk = nn.Linear(dim, kv_heads * self.hd, bias=False)
        self.wv = nn.Linear(dim, kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(heads * self.hd, dim, bias=False)
        shape = (1, kv_heads, max_seq, self.hd)
        self.register_buffer("k_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape), persistent=False)

    def forward(self, x, cos, sin, mask, input_pos):
        b, s, _ = x.shape
        q = self.wq(x).view(b, s, self.heads, self.hd).transpose(1, 2)
        k = self.wk(x).view(b, s, self.kv_heads, self.hd).transpose(1, 2)
        v = self.wv(x).view(b, s, self.kv_heads, self.hd).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if self.dynamic:
            start = input_pos[0].item()
            torch._check_is_size(start)
            torch._check(start + s <= self.k_cache.shape[2])
            pos = torch.arange(start, start + s)
            self.k_cache.index_copy_(2, pos, k)
            self.v_cache.index_copy_(2, pos, v)
        else:
            self.k_cache[:, :, input_pos] = k
            self.v_cache[:, :, input_pos] = v
        rep = self.heads // self.kv_heads
        kk = self.k_cache.repeat_interleave(rep, dim=1)
        vv = self.v_cache.repeat_interleave(rep, dim=1)
        a = F.scaled_dot_product_attention(q, kk, vv, attn_mask=mask)
        return self.wo(a.transpose(1, 2).reshape(b, s, -1))


class Block(nn.Module):
    def __init__(self, dim, heads, kv_heads, hidden, max_seq, dynamic):
        super().__init__()
        self.attn_norm, self.ffn_norm = RMSNorm(dim), RMSNorm(dim)
        self.attn = Attention(dim, heads, kv_heads, max_seq, dynamic)
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x, cos, sin, mask, input_pos):
        x = x + self.attn(self.attn_norm(x), cos, sin, mask, input_pos)
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Llama(nn.Module):
    """forward(tokens int64 [1, S], input_pos int64 [S]) -> logits [1, S, vocab].

    RMSNorm, RoPE (cos/sin buffers indexed by input_pos), SiLU-gated MLP,
    GQA (repeat_interleave), causal mask buffer indexed by input_pos, SDPA,
    KV caches as buffers written at input_pos (index_put, or index_copy_ at
    input_pos[0] when dynamic)."""

    def __init__(self, vocab, dim, layers, heads, kv_heads, hidden, max_seq, dynamic=False):
        super().__init__()
        torch.manual_seed(0)
        self.dynamic = dynamic
        self.tok = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(
            Block(dim, heads, kv_heads, hidden, max_seq, dynamic) for _ in range(layers)
        )
        self.norm = RMSNorm(dim)
        self.out = nn.Linear(dim, vocab, bias=False)
        hd = dim // heads
        freqs = 1.0 / (10000.0 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(max_seq).float(), freqs)
        self.register_buffer("rope_cos", torch.cos(ang), persistent=False)
        self.register_buffer("rope_sin", torch.sin(ang), persistent=False)
        self.register_buffer(
            "mask", torch.full((max_seq, max_seq), float("-inf")).triu(1), persistent=False
        )
        # RMSNorm weights other than 1 so they matter
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, RMSNorm):
                    m.weight.uniform_(0.5, 1.5)

    def forward(self, tokens, input_pos):
        if self.dynamic:
            s = tokens.shape[1]
            start = input_pos[0].item()
            torch._check_is_size(start)
            torch._check(start + s <= self.mask.shape[0])
            cos = self.rope_cos.narrow(0, start, s)
            sin = self.rope_sin.narrow(0, start, s)
            mask = self.mask.narrow(0, start, s)
        else:
            cos, sin, mask = self.rope_cos[input_pos], self.rope_sin[input_pos], self.mask[input_pos]
        x = self.tok(tokens)
        for layer in self.layers:
            x = layer(x, cos, sin, mask, input_pos)
        return self.out(self.norm(x))


def llama_steps(vocab, positions, seed):
    """Decode steps: one token at each position."""
    g = torch.Generator().manual_seed(seed)
    return [
        (torch.randint(0, vocab, (1, 1), generator=g), torch.tensor([p], dtype=torch.int64))
        for p in positions
    ]


CACHE_INIT = {"passes": [InitializedMutableBufferPass(["k_cache", "v_cache"])]}


# --------------------------------------------------------------------------
# Fixture lists
# --------------------------------------------------------------------------


def image_fixture(name, desc, model, shape, seeds, tol, targets, full, batch_seed=0):
    x = rand(*shape, seed=seeds[0])
    return Fixture(
        name, desc, {"forward": model}, {"forward": (x,)},
        [Case("forward", (rand(*shape, seed=s),), tol=dict(tol)) for s in seeds],
        targets=targets, variants=XNN if full else {},
    )


CNN_OPS = ["aten::convolution.out", "aten::_native_batch_norm_legit_no_training.out"]


def fixtures(full=False):
    t = DEEP_TOL
    out = []
    if not full:
        out.append(Fixture(
            "mlp_deep",
            "Linear(32,64) ReLU Linear(64,64,no bias) Tanh Linear(64,10) Sigmoid; x [4,32].",
            {"forward": mlp_deep()}, {"forward": (rand(4, 32, seed=1),)},
            [Case("forward", (rand(4, 32, seed=s),), tol=dict(t)) for s in (1, 2)],
            targets=["aten::addmm.out", "aten::mm.out", "aten::relu.out",
                     "aten::tanh.out", "aten::sigmoid.out", "aten::permute_copy.out"],
        ))
        out.append(Fixture(
            "mlp3d",
            "The mlp_deep model on a 3-D input [2,5,32] (views around addmm; they are "
            "memory-planned aliases, so no view_copy is emitted).",
            {"forward": mlp_deep()}, {"forward": (rand(2, 5, 32, seed=3),)},
            [Case("forward", (rand(2, 5, 32, seed=3),), tol=dict(t))],
            targets=["aten::addmm.out"],
        ))
        cnn_cases = [Case("forward", (rand(2, 1, 28, 28, seed=s),), tol=dict(t)) for s in (4, 5)]
        out.append(Fixture(
            "small_cnn",
            "Conv(1,8,3,p1) BN ReLU MaxPool(2) Conv(8,16,3,s2,p2,d2) ReLU6 AvgPool(3,s1,p1) "
            "depthwise Conv(16,3,p1) Hardswish AdaptiveAvgPool(2,2) Flatten Dropout "
            "Linear(64,10) LogSoftmax; x [2,1,28,28]; BN statistics randomised.",
            {"forward": small_cnn()}, {"forward": (rand(2, 1, 28, 28, seed=4),)}, cnn_cases,
            targets=CNN_OPS + ["aten::max_pool2d_with_indices.out", "aten::avg_pool2d.out",
                               "aten::_adaptive_avg_pool2d.out", "aten::hardtanh.out",
                               "aten::_log_softmax.out", "aten::clamp.out"],
        ))
        out.append(Fixture(
            "small_cnn_dyn",
            "small_cnn with a dynamic batch (Dim 1..8, example 2); cases at batch 1, 3, 8.",
            {"forward": small_cnn()}, {"forward": (rand(2, 1, 28, 28, seed=4),)},
            [Case("forward", (rand(b, 1, 28, 28, seed=6 + b),), tol=dict(t)) for b in (1, 3, 8)],
            dynamic_shapes={"forward": ({0: torch.export.Dim("batch", min=1, max=8)},)},
            targets=CNN_OPS, expect={"dynamism": "DYNAMIC_BOUND"},
        ))
    if full:
        out.append(image_fixture(
            "mv2", "torchvision mobilenet_v2(width_mult=1.0), random weights, BN "
            "randomised, 1000 classes; x [1,3,224,224].",
            mobilenet_v2(1.0, 1000), (1, 3, 224, 224), (10,), t,
            CNN_OPS + ["aten::hardtanh.out"], full))
        out.append(image_fixture(
            "mv3_small", "torchvision mobilenet_v3_small (width 1.0), random weights, "
            "BN randomised, 1000 classes; x [1,3,224,224].",
            mobilenet_v3_small(1.0, 1000), (1, 3, 224, 224), (11,), t, CNN_OPS, full))
        out.append(image_fixture(
            "resnet18", "torchvision resnet18, random weights, BN randomised, 1000 "
            "classes; x [1,3,224,224].",
            resnet18((64, 128, 256, 512), 1000), (1, 3, 224, 224), (12,), t,
            CNN_OPS + ["aten::max_pool2d_with_indices.out"], full))
        out.append(image_fixture(
            "vit_tiny", "torchvision VisionTransformer ViT-Tiny/16: image 224, patch "
            "16, 12 layers, 3 heads, dim 192, mlp 768, 1000 classes.",
            vit(224, 16, 12, 3, 192, 768, 1000), (1, 3, 224, 224), (13,), t,
            ["aten::native_layer_norm.out", "aten::gelu.out", "aten::bmm.out"], full))
        # the other models of the XNNPACK bench rows, undelegated, so bench.py can set
        # our kernels against upstream's XNNPACK on each (same models and seeds as xnn_NAME)
        from .xnnpack import bench_models

        for name, what, make, seed in bench_models():
            if name in ("effnet_b0", "shufflenet_v2", "squeezenet"):
                out.append(image_fixture(
                    name, what + " (full size, random weights, BN randomised, 1000 "
                    "classes); x [1,3,224,224].", make(), (1, 3, 224, 224), (seed,), t,
                    ["aten::convolution.out"], full))
    else:
        out.append(image_fixture(
            "mv2", "torchvision mobilenet_v2(width_mult=0.25, num_classes=10), random "
            "weights, BN randomised; x [1,3,64,64].",
            mobilenet_v2(0.25, 10), (1, 3, 64, 64), (10, 20), t,
            CNN_OPS + ["aten::hardtanh.out", "aten::mean.out"], full))
        out.append(image_fixture(
            "mv3_small", "torchvision mobilenet_v3_small(width_mult=0.25, "
            "num_classes=10), random weights, BN randomised; x [1,3,64,64].",
            mobilenet_v3_small(0.25, 10), (1, 3, 64, 64), (11, 21), t,
            CNN_OPS + ["aten::clamp.out", "aten::relu.out"], full))
        out.append(image_fixture(
            "resnet18", "torchvision ResNet-18 structure (BasicBlock [2,2,2,2]) with "
            "widths 8,16,32,64, 10 classes, BN randomised; x [1,3,64,64].",
            resnet18((8, 16, 32, 64), 10), (1, 3, 64, 64), (12, 22), t,
            CNN_OPS + ["aten::max_pool2d_with_indices.out"], full))
        out.append(image_fixture(
            "fire_cnn", "SqueezeNet-1.1-like: stem conv 3->16 /2, max pools, three "
            "fire modules (squeeze 8/8/16, expand 1x1 and 3x3 16+16/16+16/32+32, "
            "channel cat), 1x1 classifier conv, 10 classes; x [1,3,64,64].",
            fire_cnn(), (1, 3, 64, 64), (15, 25), t,
            ["aten::convolution.out", "aten::cat.out", "aten::max_pool2d_with_indices.out"], full))
        x_cl = rand(1, 3, 64, 64, seed=14).to(memory_format=torch.channels_last)
        out.append(Fixture(
            "resnet18_cl", "The resnet18 fixture's model and input in channels_last "
            "memory format: channels-last convolution, batch norm and max_pool, and "
            "_to_dim_order_copy before mean/addmm. Upstream's portable batch norm "
            "rejects channels-last input, so its runtime may disagree.",
            {"forward": resnet18((8, 16, 32, 64), 10).to(memory_format=torch.channels_last)},
            {"forward": (x_cl,)}, [Case("forward", (x_cl,), tol=dict(t))],
            targets=CNN_OPS + ["aten::max_pool2d_with_indices.out",
                               "dim_order_ops::_to_dim_order_copy.out"],
            upstream_may_differ=True,
        ))
        out.append(image_fixture(
            "vit_tiny", "torchvision VisionTransformer: image 32, patch 8, 2 layers, "
            "4 heads, dim 64, mlp 128, 10 classes.",
            vit(32, 8, 2, 4, 64, 128, 10), (1, 3, 32, 32), (13, 23), t,
            ["aten::native_layer_norm.out", "aten::gelu.out", "aten::bmm.out"], full))

    # BERT-like encoder
    if full:
        bert_cfg = dict(vocab=30522, dim=256, layers=4, heads=4, ffn=1024, max_pos=512)
        seq, pad = 128, 28
        bdesc = ("BERT-mini-sized encoder (vocab 30522, 4 layers, dim 256, 4 heads, "
                 "ffn 1024); input_ids/token_type_ids/attention_mask int64 [1,128], "
                 "last 28 positions padded.")
    else:
        bert_cfg = dict(vocab=100, dim=64, layers=2, heads=4, ffn=128, max_pos=16)
        seq, pad = 16, 4
        bdesc = ("BERT-like encoder (vocab 100, 2 layers, dim 64, 4 heads, ffn 128): "
                 "word+position+token-type embeddings, LayerNorm, SDPA with additive "
                 "padding mask, GELU, tanh pooler; inputs int64 [1,16], last 4 padded.")
    bert_ex = bert_inputs(bert_cfg["vocab"], seq, 30, pad)
    bert_targets = ["aten::embedding.out", "aten::native_layer_norm.out", "aten::gelu.out",
                    "aten::bmm.out", "aten::tanh.out"]
    out.append(Fixture(
        "bert", bdesc, {"forward": Bert(**bert_cfg)}, {"forward": bert_ex},
        [Case("forward", bert_inputs(bert_cfg["vocab"], seq, s, p), tol=dict(t))
         for s, p in ((30, pad), (31, 0))],
        targets=bert_targets, variants=XNN if full else {},
    ))
    if not full:
        out.append(Fixture(
            "bert_gelu_tanh", "The bert fixture with GELU(approximate='tanh').",
            {"forward": Bert(**bert_cfg, approximate="tanh")}, {"forward": bert_ex},
            [Case("forward", bert_ex, tol=dict(t))], targets=["aten::gelu.out"],
        ))

    # llama-like decoder
    if full:
        cfg = dict(vocab=8192, dim=512, layers=6, heads=8, kv_heads=4, hidden=1408, max_seq=128)
        ldesc = ("llama-like decoder (vocab 8192, 6 layers, dim 512, 8 heads, 4 KV "
                 "heads, ffn 1408, max_seq 128)")
    else:
        cfg = dict(vocab=128, dim=64, layers=2, heads=4, kv_heads=2, hidden=128, max_seq=32)
        ldesc = ("llama-like decoder (vocab 128, 2 layers, dim 64, 4 heads, 2 KV heads "
                 "(GQA), ffn 128, max_seq 32)")
    ldesc += (": RMSNorm, RoPE from cos/sin buffers, SiLU MLP, causal mask buffer, "
              "SDPA; KV caches are buffers [1,kv,max_seq,hd] (zero-initialised "
              "through the mutable data segment)")
    steps = llama_steps(cfg["vocab"], range(6), seed=40)
    ltargets = ["aten::index_put.out", "aten::copy_", "aten::rsqrt.out", "aten::bmm.out",
                "aten::_softmax.out", "aten::sigmoid.out", "aten::index.Tensor_out"]
    out.append(Fixture(
        "llama",
        ldesc + "; decode program forward(tokens [1,1], input_pos [1]); the case "
        "runs 6 steps (positions 0..5) on one loaded method, checking every step's "
        "logits (the caches carry over).",
        {"forward": Llama(**cfg)}, {"forward": steps[0]},
        [Case("forward", steps=steps, tol=dict(t))],
        backend_config=CACHE_INIT, targets=ltargets, variants=XNN if full else {},
        expect={"mutable_data": True},
    ))
    if not full:
        g = torch.Generator().manual_seed(41)
        pre = (torch.randint(0, cfg["vocab"], (1, 4), generator=g), torch.arange(4))
        out.append(Fixture(
            "llama_prefill",
            ldesc + "; prefill program: tokens [1,4], input_pos = arange(4), one call.",
            {"forward": Llama(**cfg)}, {"forward": pre},
            [Case("forward", pre, tol=dict(t))],
            backend_config=CACHE_INIT, targets=["aten::index_put.out"],
        ))
        seq = torch.export.Dim("seq", min=1, max=cfg["max_seq"] - 1)
        g = torch.Generator().manual_seed(42)
        dsteps = [(torch.randint(0, cfg["vocab"], (1, 4), generator=g), torch.tensor([0]))]
        dsteps += [(torch.randint(0, cfg["vocab"], (1, 1), generator=g), torch.tensor([p]))
                   for p in (4, 5, 6)]
        out.append(Fixture(
            "llama_dyn",
            ldesc + "; dynamic sequence length (Dim seq 1..31): forward(tokens [1,S], "
            "input_pos [1] = start); caches written with index_copy_ at "
            "arange(start, start+S) (start = input_pos[0].item()). The case runs a "
            "4-token prefill then 3 single-token decode steps on one loaded method.",
            {"forward": Llama(**cfg, dynamic=True)}, {"forward": dsteps[0]},
            [Case("forward", steps=dsteps, tol=dict(t))],
            dynamic_shapes={"forward": ({1: seq}, None)},
            backend_config=CACHE_INIT, strict=False,
            targets=["aten::_local_scalar_dense", "aten::index_put.out"],
            expect={"dynamism": "DYNAMIC_BOUND"},
        ))
    return out
