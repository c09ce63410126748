"""Per-operator fixtures (tests/models/ops): tiny programs, one target op each.

Each fixture is a one- or few-op module exported with plain to_edge +
to_executorch (no delegate). Its manifest entry lists the operators it
targets ("targets"); export fails the fixture if a target is missing from
the program. Cases come from eager PyTorch; where upstream's runtime
disagrees with eager (the project matches eager), the case records
"upstream": "differs: ...".

Integer, bool, copy and index outputs are compared exactly; float outputs
at the tolerance stated per fixture (FT by default).
"""


import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

from .spec import EXACT, Case, Fixture, cl, rand

FT = {"rtol": 1e-5, "atol": 1e-6}  # elementwise float (libm may differ by ulps)
RED = {"rtol": 1e-5, "atol": 1e-5}  # reductions, softmax, norms
MM = {"rtol": 1e-4, "atol": 1e-5}  # matmul / conv (summation order, FMA)
HALF = {"rtol": 1e-3, "atol": 1e-3}  # float16 outputs

i64, i32, i16, i8, u8 = torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8
f32, f16, b8 = torch.float32, torch.float16, torch.bool
A = "aten::"
ATEN = torch.ops.aten
DO = "dim_order_ops::"

# 0, -0, small, large, halves (rounding), inf, -inf, nan
SPECIAL = torch.tensor(
    [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.7, -3.7, 1e-30, 1e30,
     -1e30, 100.0, float("inf"), float("-inf"), float("nan")]
)


class Fn(nn.Module):
    """forward(*inputs) = fn(self, *inputs); submodules/buffers as kwargs."""

    def __init__(self, fn, **parts):
        super().__init__()
        self.fn = fn
        for k, v in parts.items():
            if isinstance(v, nn.Module):
                self.add_module(k, v)
            else:
                self.register_buffer(k, v)

    def forward(self, *xs):
        return self.fn(self, *xs)


def r(*shape, seed=0, dtype=f32, scale=1.0):
    return (rand(*shape, seed=seed) * scale).to(dtype)


def ri(*shape, lo=-10, hi=10, seed=0, dtype=i64):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(lo, hi, shape, generator=g).to(dtype)


def rb(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(tuple(shape), generator=g) > 0.5


def pos(*shape, seed=0, lo=0.1, hi=3.0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(tuple(shape), generator=g) * (hi - lo) + lo


FIXTURES = []


def signature(values):
    """Shapes, dtypes and dim orders: cases that differ need their own program."""
    return tuple(
        (tuple(v.shape), v.dtype, v.dim_order()) if isinstance(v, torch.Tensor) else type(v)
        for v in values
    )


def op(name, fn, cases, targets, tol=FT, desc="", dyn=None, edge=None, parts=None,
       example=None, strict=True, config=None, keep=(), allow=()):
    """Fixtures for fn(self, *inputs) on each input tuple of `cases`.

    Without dyn, cases with different shapes or dtypes go into separate
    (static) programs named name, name_2, ...

    keep: ops to_edge must not decompose (EdgeCompileConfig.preserve_ops), for
    ops whose portable kernel is only reached that way; allow: non-core ATen
    ops let through the edge verifier (_core_aten_ops_exception_list)."""
    cases = [tuple(c) for c in cases]
    edge = dict(edge or {})
    if keep:
        edge["preserve_ops"] = list(keep)
    if allow:
        edge["_core_aten_ops_exception_list"] = list(allow)
    if keep or allow:
        how = (["preserve_ops=" + ", ".join(str(o) for o in keep)] if keep else []) + (
            ["core-ATen exceptions " + ", ".join(str(o) for o in allow)] if allow else [])
        desc = (desc or f"targets {', '.join(targets)}") + " [exported with " + "; ".join(how) + "]"
    groups = {}
    for c in cases:
        groups.setdefault(signature(c) if dyn is None else None, []).append(c)
    for k, group in enumerate(groups.values()):
        FIXTURES.append(Fixture(
            name if k == 0 else f"{name}_{k + 1}",
            desc or f"targets {', '.join(targets)}",
            {"forward": Fn(fn, **(parts or {}))},
            {"forward": tuple(example) if example is not None else group[0]},
            [Case("forward", c, tol=dict(tol)) for c in group],
            # forward(*xs): the dynamic shapes describe the one argument xs
            dynamic_shapes={"forward": (tuple(dyn),)} if dyn is not None else {},
            edge_config=edge or {},
            backend_config=config or {},
            targets=[t if "::" in t else A + t for t in targets],
            strict=strict,
            upstream_may_differ=True,
        ))


SKIP_DIM_ORDER = {"_skip_dim_order": True}

# ==========================================================================
# Tier 1
# ==========================================================================

# --- convolution ---------------------------------------------------------
op("conv2d", lambda s, x, w, b: F.conv2d(x, w, b, padding=1),
   [(r(1, 3, 8, 8, seed=1), r(4, 3, 3, 3, seed=2), r(4, seed=3)),
    (r(1, 3, 8, 8, seed=4), r(4, 3, 3, 3, seed=5), r(4, seed=6))],
   ["convolution.out"], MM, "conv2d 3->4, k3, pad 1, bias; weights as inputs")
op("conv2d_stride_dilation", lambda s, x, w: F.conv2d(x, w, None, stride=(2, 1), padding=(2, 0), dilation=2),
   [(r(2, 2, 9, 7, seed=7), r(3, 2, 3, 2, seed=8))],
   ["convolution.out"], MM, "no bias, stride (2,1), padding (2,0), dilation 2, batch 2")
op("conv2d_groups", lambda s, x, w, b: F.conv2d(x, w, b, padding=1, groups=2),
   [(r(1, 4, 5, 5, seed=9), r(6, 2, 3, 3, seed=10), r(6, seed=11))],
   ["convolution.out"], MM, "groups=2 (4 -> 6 channels)")
op("conv2d_depthwise", lambda s, x, w: F.conv2d(x, w, None, stride=2, padding=1, groups=8),
   [(r(1, 8, 7, 7, seed=12), r(8, 1, 3, 3, seed=13))],
   ["convolution.out"], MM, "depthwise (groups = channels = 8), stride 2")
op("conv2d_module", lambda s, x: s.conv(x),
   [(r(1, 3, 6, 6, seed=14),)], ["convolution.out"], MM,
   "nn.Conv2d(3, 5, 3, stride 2, padding 1): constant weight and bias",
   parts={"conv": (torch.manual_seed(0), nn.Conv2d(3, 5, 3, stride=2, padding=1))[1]})
op("conv2d_channels_last", lambda s, x, w, b: F.conv2d(x, w, b, padding=1),
   [(cl(r(1, 3, 6, 6, seed=15)), r(4, 3, 3, 3, seed=16), r(4, seed=17))],
   ["convolution.out"], MM, "channels-last input (dim_order 0,2,3,1)")
op("conv1d", lambda s, x, w, b: F.conv1d(x, w, b, padding=1),
   [(r(1, 3, 10, seed=18), r(4, 3, 3, seed=19), r(4, seed=20))],
   ["convolution.out"], MM, "conv1d 3->4, k3, pad 1 (3-D input)")
op("conv_transpose2d", lambda s, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
   [(r(1, 4, 5, 6, seed=21), r(4, 3, 3, 3, seed=22), r(6, seed=23))],
   ["convolution.out"], MM, "transposed, stride 2, padding 1, output_padding 1, groups 2")
op("conv2d_dyn_batch", lambda s, x, w: F.conv2d(x, w, None, padding=1),
   [(r(2, 2, 5, 5, seed=24), r(3, 2, 3, 3, seed=25)), (r(5, 2, 5, 5, seed=26), r(3, 2, 3, 3, seed=27))],
   ["convolution.out"], MM, "dynamic batch (Dim 1..8): cases 2 and 5",
   dyn=({0: Dim("n", min=1, max=8)}, None))

# --- batch norm ----------------------------------------------------------
op("batch_norm", lambda s, x, m, v, w, b: F.batch_norm(x, m, v, w, b, False, 0.1, 1e-5),
   [(r(2, 3, 4, 5, seed=30), r(3, seed=31), pos(3, seed=32), r(3, seed=33), r(3, seed=34))],
   ["_native_batch_norm_legit_no_training.out"], RED, "eval batch norm, 4-D, stats as inputs")
op("batch_norm_3d_noaffine", lambda s, x, m, v: F.batch_norm(x, m, v, None, None, False, 0.1, 1e-3),
   [(r(2, 4, 6, seed=35), r(4, seed=36), pos(4, seed=37))],
   ["_native_batch_norm_legit_no_training.out"], RED, "3-D input [N,C,L], no weight/bias, eps 1e-3")

# --- activations ---------------------------------------------------------
op("relu_f32", lambda s, x: torch.relu(x), [(SPECIAL,), (r(3, 4, seed=40),)], ["relu.out"],
   desc="relu on specials (nan propagates, -0) and random")
op("relu_i64", lambda s, x: torch.relu(x), [(ri(2, 5, seed=41),)], ["relu.out"])
op("relu_i8", lambda s, x: torch.relu(x), [(torch.tensor([-128, -1, 0, 1, 127], dtype=i8),)], ["relu.out"])
op("relu_f16", lambda s, x: torch.relu(x), [(r(3, 4, seed=42, dtype=f16),)], ["relu.out"], HALF)
op("relu_empty", lambda s, x: torch.relu(x), [(torch.zeros(0, 3),)], ["relu.out"], desc="[0,3] input")
op("relu_0d", lambda s, x: torch.relu(x), [(torch.tensor(-2.0),), (torch.tensor(3.0),)], ["relu.out"])
op("relu_channels_last", lambda s, x: torch.relu(x), [(cl(r(1, 3, 2, 4, seed=43)),)], ["relu.out"],
   desc="channels-last in and out")
op("relu_dyn", lambda s, x: torch.relu(x), [(r(3, 5, seed=44),), (r(1, 5, seed=45),), (r(7, 5, seed=46),)],
   ["relu.out"], dyn=({0: Dim("n", min=1, max=8)},), desc="dynamic dim 0, cases 3, 1, 7")
op("hardtanh", lambda s, x: F.hardtanh(x, -1.0, 2.0), [(SPECIAL,)], ["hardtanh.out"])
op("relu6", lambda s, x: F.relu6(x), [(r(4, 5, seed=47, scale=5),)], ["hardtanh.out"])
op("hardtanh_i64", lambda s, x: F.hardtanh(x, -3, 4), [(ri(10, seed=48),)], ["hardtanh.out"])
op("clamp_both", lambda s, x: torch.clamp(x, -0.5, 0.75), [(SPECIAL,)], ["clamp.out"])
op("clamp_min", lambda s, x: torch.clamp(x, min=0.0), [(SPECIAL,)], ["clamp.out"])
op("clamp_max", lambda s, x: torch.clamp(x, max=6.0), [(r(3, 3, seed=49, scale=10),)], ["clamp.out"])
op("clamp_i64", lambda s, x: torch.clamp(x, -3, 5), [(ri(12, seed=50),)], ["clamp.out"])
op("clamp_u8", lambda s, x: torch.clamp(x, 10, 200), [(ri(12, lo=0, hi=256, seed=51, dtype=u8),)], ["clamp.out"])
op("hardswish", lambda s, x: F.hardswish(x), [(r(4, 6, seed=52, scale=4),)], ["clamp.out", "div.out"])
op("hardsigmoid", lambda s, x: F.hardsigmoid(x), [(r(4, 6, seed=53, scale=4),)], ["clamp.out"])
op("sigmoid_f32", lambda s, x: torch.sigmoid(x), [(SPECIAL,), (r(3, 4, seed=54, scale=5),)], ["sigmoid.out"])
op("sigmoid_i64", lambda s, x: torch.sigmoid(x), [(ri(7, seed=55),)], ["sigmoid.out"],
   desc="integer input gives a float output")
op("sigmoid_f16", lambda s, x: torch.sigmoid(x), [(r(8, seed=56, dtype=f16),)], ["sigmoid.out"], HALF)
op("tanh_f32", lambda s, x: torch.tanh(x), [(SPECIAL,), (r(3, 4, seed=57, scale=3),)], ["tanh.out"])
op("tanh_i32", lambda s, x: torch.tanh(x), [(ri(7, lo=-3, hi=3, seed=58, dtype=i32),)], ["tanh.out"])
op("silu", lambda s, x: F.silu(x), [(r(3, 5, seed=59, scale=3),)], ["sigmoid.out", "mul.out"])

# --- binary arithmetic ---------------------------------------------------


def bcast(f):
    """One program, several broadcasting corners of f: [2,3,4] with [3,1],
    with 0-d, [1,4] with [3,1] (both grow), [2,1,4] with [2,3,1], different
    ranks, and [0,4] with [4] (empty)."""
    return lambda s, a, b, c, d, e, z: (f(a, b), f(a, c), f(d, b), f(e, a), f(c, c), f(z, d[0]))


def bcast_inputs(seed, dtype=f32, gen=None):
    gen = gen or (lambda *sh, seed: r(*sh, seed=seed, dtype=dtype))
    return (gen(2, 3, 4, seed=seed), gen(3, 1, seed=seed + 1), gen(seed=seed + 2),
            gen(1, 4, seed=seed + 3), gen(2, 1, 4, seed=seed + 4), gen(0, 4, seed=seed + 5))


def gi(*sh, seed, dtype=i64, lo=-20, hi=20):
    return ri(*sh, lo=lo, hi=hi, seed=seed, dtype=dtype)


for opn, f in (("add", torch.add), ("sub", torch.sub), ("mul", torch.mul)):
    op(f"{opn}_bcast_f32", bcast(f), [bcast_inputs(100)], [f"{opn}.out"],
       desc=f"{opn}: broadcasting corners (size-1 dims, 0-d, ranks, empty) float32")
    op(f"{opn}_bcast_i64", bcast(f), [bcast_inputs(110, gen=gi)], [f"{opn}.out"],
       desc=f"{opn}: broadcasting corners, int64")
    op(f"{opn}_i32", lambda s, a, b, f=f: f(a, b), [(gi(3, 4, seed=120, dtype=i32), gi(4, seed=121, dtype=i32))],
       [f"{opn}.out"])
    op(f"{opn}_u8_wrap", lambda s, a, b, f=f: f(a, b),
       [(torch.tensor([200, 255, 0, 7, 128], dtype=u8), torch.tensor([100, 1, 1, 250, 128], dtype=u8))],
       [f"{opn}.out"], desc="uint8 wraps modulo 256")
    op(f"{opn}_i8_wrap", lambda s, a, b, f=f: f(a, b),
       [(torch.tensor([127, -128, 100, -100, 5], dtype=i8), torch.tensor([1, -1, 100, 100, -7], dtype=i8))],
       [f"{opn}.out"], desc="int8 wraps")
    op(f"{opn}_i64_large", lambda s, a, b, f=f: f(a, b),
       [(torch.tensor([2**62, -2**62, 2**40 + 1, 9007199254740993, -1]),
         torch.tensor([3, 5, 2**20, 1, 2**63 - 1]))],
       [f"{opn}.out"], desc="int64 beyond 2^53 and overflowing (wraps)")
    op(f"{opn}_mixed", lambda s, a, b, c, d, f=f: (f(a, b), f(b, c), f(c, d), f(d, a)),
       [(gi(2, 3, seed=122), r(2, 3, seed=123), gi(3, seed=124, dtype=i32), ri(2, 3, lo=0, hi=200, seed=125, dtype=u8))],
       [f"{opn}.out"], desc="mixed dtypes: int64+f32, f32+int32, int32+uint8, uint8+int64")
    op(f"{opn}_f16", lambda s, a, b, f=f: f(a, b), [(r(3, 4, seed=126, dtype=f16), r(4, seed=127, dtype=f16))],
       [f"{opn}.out"], HALF)
    op(f"{opn}_channels_last", lambda s, a, b, f=f: f(a, b), [(cl(r(1, 3, 2, 2, seed=128)), cl(r(1, 3, 2, 2, seed=129)))],
       [f"{opn}.out"], desc="both inputs channels-last")
    op(f"{opn}_scalar", lambda s, a, f=f: (f(a, 3), f(a, 2.5)), [(r(2, 3, seed=130),)], [f"{opn}.out"],
       desc="python scalars int 3 and float 2.5 (lifted 0-d constants)")
    op(f"{opn}_int_float_scalar", lambda s, a, f=f: f(a, 2.5), [(gi(2, 3, seed=131),)], [f"{opn}.out"],
       desc="int64 tensor with float scalar gives float32")
op("add_alpha", lambda s, a, b: (torch.add(a, b, alpha=2), torch.add(a, b, alpha=-0.5)),
   [(r(2, 3, seed=132), r(2, 3, seed=133))], ["add.out"], desc="alpha 2 and -0.5")
op("sub_alpha_i64", lambda s, a, b: torch.sub(a, b, alpha=3), [(gi(5, seed=134), gi(5, seed=135))], ["sub.out"])
op("add_bool", lambda s, a, b: a + b, [(rb(6, seed=136), rb(6, seed=137))], ["add.out"], desc="bool + bool = or")
op("mul_bool", lambda s, a, b: a * b, [(rb(6, seed=138), rb(6, seed=139))], ["mul.out"], desc="bool * bool = and")
op("add_bool_f32", lambda s, a, b: a + b, [(rb(2, 3, seed=140), r(2, 3, seed=141))], ["add.out"])
op("add_dyn", lambda s, a, b: a + b, [(r(3, 4, seed=142), r(3, 4, seed=143)), (r(6, 4, seed=144), r(6, 4, seed=145))],
   ["add.out"], dyn=({0: Dim("n", min=1, max=8)}, {0: Dim("n", min=1, max=8)}), desc="dynamic dim 0")

op("div_bcast_f32", bcast(torch.div), [bcast_inputs(150)], ["div.out"], desc="div: broadcasting corners")
op("div_specials", lambda s, a, b: a / b,
   [(torch.tensor([1.0, -1.0, 0.0, 0.0, float("inf"), 7.0, -7.0, float("nan")]),
     torch.tensor([0.0, 0.0, 0.0, -0.0, float("inf"), 2.0, -0.0, 1.0]))], ["div.out"],
   desc="division by +-0, inf/inf, nan")
op("div_i64", lambda s, a, b: a / b, [(torch.tensor([7, -7, 7, -7, 0, 5]), torch.tensor([2, 2, -2, -2, 3, 0]))],
   ["div.out"], desc="true division of int64 gives float32 (5/0 = inf)")
op("div_f16", lambda s, a, b: a / b, [(r(6, seed=151, dtype=f16), pos(6, seed=152).to(f16))], ["div.out"], HALF)
op("div_scalar", lambda s, a: (a / 3, a / 0.5), [(r(2, 3, seed=153),)], ["div.out"])
I_NUM = torch.tensor([7, -7, 7, -7, 0, 1, -1, 9, -9, 2**40 + 3])
I_DEN = torch.tensor([2, 2, -2, -2, 3, 5, 5, -4, -4, 7])
F_NUM = torch.tensor([7.5, -7.5, 7.5, -7.5, 0.0, 1.0, -1.0, 5.0, -0.0, float("inf")])
F_DEN = torch.tensor([2.0, 2.0, -2.0, -2.0, 3.0, 0.0, 0.0, 2.5, 1.0, 3.0])
for mode in ("trunc", "floor"):
    op(f"div_{mode}_i64", lambda s, a, b, m=mode: torch.div(a, b, rounding_mode=m), [(I_NUM, I_DEN)],
       ["div.out_mode"], desc=f"rounding_mode={mode}, int64 with mixed signs")
    op(f"div_{mode}_f32", lambda s, a, b, m=mode: torch.div(a, b, rounding_mode=m), [(F_NUM, F_DEN)],
       ["div.out_mode"], desc=f"rounding_mode={mode}, float (division by 0)")
    op(f"div_{mode}_i8", lambda s, a, b, m=mode: torch.div(a, b, rounding_mode=m),
       [(torch.tensor([-128, 127, -7, 7], dtype=i8), torch.tensor([3, -2, 2, -2], dtype=i8))], ["div.out_mode"])
op("floor_divide", lambda s, a, b: torch.floor_divide(a, b), [(I_NUM, I_DEN)], ["floor_divide.out"],
   keep=[ATEN.floor_divide.default])
op("floor_divide_f32", lambda s, a, b: torch.floor_divide(a, b), [(F_NUM, F_DEN)], ["floor_divide.out"],
   keep=[ATEN.floor_divide.default])
op("remainder_i64", lambda s, a, b: torch.remainder(a, b), [(I_NUM, I_DEN)], ["remainder.Tensor_out"],
   desc="result takes the divisor's sign (Python modulo)")
op("remainder_f32", lambda s, a, b: torch.remainder(a, b), [(F_NUM, F_DEN)], ["remainder.Tensor_out"])
op("remainder_scalar", lambda s, a: torch.remainder(a, -3), [(I_NUM,)], ["remainder.Scalar_out"])
op("fmod_i64", lambda s, a, b: torch.fmod(a, b), [(I_NUM, I_DEN)], ["fmod.Tensor_out"],
   desc="result takes the dividend's sign (C fmod)")
op("fmod_f32", lambda s, a, b: torch.fmod(a, b), [(F_NUM, F_DEN)], ["fmod.Tensor_out"])
op("fmod_scalar", lambda s, a: torch.fmod(a, 2.5), [(F_NUM,)], ["fmod.Scalar_out"])

# --- scalar-argument variants (called as aten ops) -----------------------
op("add_Scalar", lambda s, a: ATEN.add.Scalar(a, 2.5, 2), [(r(2, 3, seed=160),)], ["add.Scalar_out"])
op("sub_Scalar", lambda s, a: ATEN.sub.Scalar(a, 1.5), [(r(2, 3, seed=161),)], ["sub.Scalar_out"])
op("mul_Scalar", lambda s, a: ATEN.mul.Scalar(a, -3), [(gi(2, 3, seed=162),)], ["mul.Scalar_out"])
op("mul_Scalar_f32", lambda s, a: ATEN.mul.Scalar(a, 0.125), [(r(2, 3, seed=163),)], ["mul.Scalar_out"])
op("div_Scalar", lambda s, a: ATEN.div.Scalar(a, 4.0), [(r(2, 3, seed=164),)], ["div.Scalar_out"])
op("div_Scalar_mode", lambda s, a: ATEN.div.Scalar_mode(a, 3, rounding_mode="floor"), [(I_NUM,)],
   ["div.Scalar_mode_out"])
op("rsub_Scalar", lambda s, a: 1.0 - a, [(r(2, 3, seed=165),)], ["rsub.Scalar_out"], desc="1.0 - x",
   keep=[ATEN.rsub.Scalar])
op("rsub_Scalar_alpha", lambda s, a: ATEN.rsub.Scalar(a, 3, 2), [(gi(2, 3, seed=166),)], ["rsub.Scalar_out"],
   desc="3 - 2x on int64", keep=[ATEN.rsub.Scalar])

# --- mean ---------------------------------------------------------------
op("mean_dims", lambda s, x: (x.mean(-1), x.mean((0, 2), keepdim=True), x.mean((-1, -2))),
   [(r(2, 3, 4, seed=170),)], ["mean.out"], RED, "mean over -1, (0,2) keepdim, (-1,-2)")
op("mean_all", lambda s, x: x.mean(), [(r(3, 5, seed=171),)], ["mean.dtype_out"], RED, "mean of everything")
op("mean_dtype", lambda s, x: x.mean(1, dtype=torch.float32), [(gi(3, 4, seed=172),)], ["mean.out"], RED,
   "int64 input with dtype=float32")
op("mean_f16", lambda s, x: x.mean(-1), [(r(3, 16, seed=173, dtype=f16),)], ["mean.out"], HALF)

# --- pooling --------------------------------------------------------------
op("max_pool2d", lambda s, x: F.max_pool2d(x, 2), [(r(1, 2, 6, 6, seed=180),)], ["max_pool2d_with_indices.out"], EXACT)
op("max_pool2d_pad_stride", lambda s, x: F.max_pool2d(x, 3, stride=2, padding=1),
   [(r(2, 3, 7, 8, seed=181),)], ["max_pool2d_with_indices.out"], EXACT)
op("max_pool2d_dilation_ceil", lambda s, x: F.max_pool2d(x, (3, 2), stride=2, dilation=(1, 2), ceil_mode=True),
   [(r(1, 2, 8, 9, seed=182),)], ["max_pool2d_with_indices.out"], EXACT, "kernel (3,2), dilation (1,2), ceil_mode")
op("max_pool2d_indices", lambda s, x: F.max_pool2d(x, 2, stride=1, return_indices=True),
   [(r(1, 2, 4, 5, seed=183),)], ["max_pool2d_with_indices.out"], EXACT, "values and int64 indices")
op("max_pool2d_nan", lambda s, x: F.max_pool2d(x, 2),
   [(torch.tensor([[[[1.0, float("nan"), 2.0, 3.0], [0.0, -1.0, float("-inf"), 4.0]]]]),)],
   ["max_pool2d_with_indices.out"], EXACT, "NaN propagates (eager); upstream differs")
op("max_pool2d_channels_last", lambda s, x: F.max_pool2d(x, 2),
   [(cl(r(1, 3, 4, 4, seed=184)),)], ["max_pool2d_with_indices.out"], EXACT, "channels-last input")
op("max_pool2d_3d", lambda s, x: F.max_pool2d(x, 2), [(r(3, 4, 6, seed=185),)],
   ["max_pool2d_with_indices.out"], EXACT, "3-D [C,H,W] input")
op("max_pool2d_i64", lambda s, x: F.max_pool2d(x, 2), [(gi(1, 1, 4, 4, seed=186),)], ["max_pool2d_with_indices.out"])
op("avg_pool2d", lambda s, x: F.avg_pool2d(x, 2), [(r(1, 2, 6, 6, seed=190),)], ["avg_pool2d.out"], RED)
op("avg_pool2d_pad", lambda s, x: (F.avg_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
   [(r(1, 2, 7, 6, seed=191),)], ["avg_pool2d.out"], RED, "padding 1 with and without count_include_pad")
op("avg_pool2d_ceil", lambda s, x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
   [(r(1, 4, 9, 9, seed=192),)], ["avg_pool2d.out"], RED, "ceil_mode, count_include_pad=False")
op("avg_pool2d_divisor", lambda s, x: F.avg_pool2d(x, 2, divisor_override=3), [(r(1, 1, 4, 4, seed=193),)],
   ["avg_pool2d.out"], RED, "divisor_override 3")
op("avg_pool2d_3d", lambda s, x: F.avg_pool2d(x, (2, 3), stride=(1, 2)), [(r(2, 5, 7, seed=194),)],
   ["avg_pool2d.out"], RED, "3-D input, kernel (2,3), stride (1,2)")
op("adaptive_avg_pool2d", lambda s, x: (F.adaptive_avg_pool2d(x, (2, 3)), F.adaptive_avg_pool2d(x, (3, 2))),
   [(r(1, 2, 5, 7, seed=195),)], ["_adaptive_avg_pool2d.out"], RED, "5x7 -> 2x3 and 3x2 (overlapping windows)")
op("adaptive_avg_pool2d_up", lambda s, x: F.adaptive_avg_pool2d(x, (4, 6)), [(r(2, 3, 3, 4, seed=196),)],
   ["_adaptive_avg_pool2d.out"], RED, "output larger than input")
op("adaptive_avg_pool2d_1x1", lambda s, x: F.adaptive_avg_pool2d(x, 1), [(r(1, 4, 3, 5, seed=197),)],
   ["mean.out"], RED, "output 1x1 becomes mean over (-1,-2)")

# --- matmul ---------------------------------------------------------------
op("addmm", lambda s, b, x, y: torch.addmm(b, x, y), [(r(5, seed=200), r(3, 4, seed=201), r(4, 5, seed=202))],
   ["addmm.out"], MM, "bias [p] broadcast to [m,p]")
op("addmm_beta_alpha", lambda s, b, x, y: (torch.addmm(b, x, y, beta=0.5, alpha=2.0),
                                           torch.addmm(b[:1], x, y, beta=0.0)),
   [(r(3, 5, seed=203), r(3, 4, seed=204), r(4, 5, seed=205))], ["addmm.out"], MM,
   "beta 0.5, alpha 2 with [m,p] self; beta 0 with [1,p] self")
op("addmm_linear", lambda s, x: s.fc(x), [(r(4, 6, seed=206),)], ["addmm.out", "permute_copy.out"], MM,
   "nn.Linear(6, 3) on 2-D input", parts={"fc": (torch.manual_seed(1), nn.Linear(6, 3))[1]})
op("addmm_i64", lambda s, b, x, y: torch.addmm(b, x, y), [(gi(3, seed=207), gi(2, 4, seed=208), gi(4, 3, seed=209))],
   ["addmm.out"])
op("mm", lambda s, x, y: torch.mm(x, y), [(r(3, 7, seed=210), r(7, 2, seed=211)), (r(3, 7, seed=212), r(7, 2, seed=213))],
   ["mm.out"], MM)
op("mm_i64", lambda s, x, y: torch.mm(x, y), [(gi(3, 4, seed=214), gi(4, 2, seed=215))], ["mm.out"])
op("mm_k0", lambda s, x, y: torch.mm(x, y), [(torch.zeros(3, 0), torch.zeros(0, 2))], ["mm.out"],
   desc="k = 0: result is zeros [3,2]")
op("mm_f16", lambda s, x, y: torch.mm(x, y), [(r(4, 8, seed=216, dtype=f16), r(8, 3, seed=217, dtype=f16))],
   ["mm.out"], {"rtol": 2e-3, "atol": 2e-3})
op("linear_nobias", lambda s, x: s.fc(x), [(r(4, 6, seed=218),)], ["mm.out"], MM,
   "nn.Linear(6, 3, bias=False)", parts={"fc": (torch.manual_seed(2), nn.Linear(6, 3, bias=False))[1]})
op("linear", lambda s, x, w, b: (F.linear(x, w, b), F.linear(x, w)), [(r(4, 6, seed=225), r(3, 6, seed=226), r(3, seed=227))],
   ["linear.out"], MM, "F.linear 2-D, with and without bias", keep=[ATEN.linear.default])
op("linear_3d", lambda s, x: s.fc(x), [(r(2, 5, 6, seed=228),)], ["linear.out"], MM, "nn.Linear(6, 4) on [2,5,6]",
   keep=[ATEN.linear.default], parts={"fc": (torch.manual_seed(4), nn.Linear(6, 4))[1]})
op("bmm", lambda s, x, y: torch.bmm(x, y), [(r(3, 4, 5, seed=219), r(3, 5, 2, seed=220))], ["bmm.out"], MM)
op("bmm_i64", lambda s, x, y: torch.bmm(x, y), [(gi(2, 2, 3, seed=221), gi(2, 3, 4, seed=222))], ["bmm.out"])
op("matmul_4d", lambda s, x, y: x @ y, [(r(2, 3, 4, 5, seed=223), r(2, 3, 5, 6, seed=224))], ["bmm.out"], MM,
   "4-D matmul through bmm")

# --- copies, views, layout -----------------------------------------------
op("permute", lambda s, x: (x.permute(2, 0, 1), x.permute(-1, -3, -2)), [(r(2, 3, 4, seed=230),)],
   ["permute_copy.out"], EXACT, "permute (2,0,1) and negative dims (-1,-3,-2)")
op("permute_4d_i64", lambda s, x: x.permute(0, 2, 3, 1), [(gi(2, 3, 4, 5, seed=231),)], ["permute_copy.out"])
op("permute_bool", lambda s, x: x.t(), [(rb(3, 5, seed=232),)], ["permute_copy.out"])
op("permute_f16", lambda s, x: x.permute(1, 0), [(r(3, 5, seed=233, dtype=f16),)], ["permute_copy.out"], EXACT)
op("view_copy", lambda s, x: x.reshape(-1, 6), [(r(2, 3, 4, seed=234),)], ["view_copy.out"], EXACT,
   "reshape with -1 as a graph output")
op("view_copy_i64", lambda s, x: x.view(4, 1, 3), [(gi(2, 6, seed=235),)], ["view_copy.out"])
op("view_copy_empty", lambda s, x: x.reshape(3, 0, 2), [(torch.zeros(0, 6),)], ["view_copy.out"], EXACT)
op("expand", lambda s, x: (x.expand(2, 3, 4), x.expand(-1, 5)), [(r(3, 1, seed=236),)], ["expand_copy.out"], EXACT,
   "new leading dim, -1 keeps a dim")
op("expand_i64_0d", lambda s, x, y: (x.expand(3, 2), y.expand(2, 2, 4)), [(gi(seed=237), gi(1, 4, seed=238))],
   ["expand_copy.out"])
op("clone", lambda s, x: x.clone(), [(r(2, 3, seed=239),)], ["clone.out"], EXACT, "_skip_dim_order: aten::clone",
   edge=SKIP_DIM_ORDER)
op("to_copy", lambda s, x: (x.to(i64), x.to(b8), x.to(f16), x.to(u8)),
   [(torch.tensor([0.0, -0.0, 1.7, -1.7, 2.5, -2.5, 100.9, 0.1, 255.0, 3.0]),)], ["_to_copy.out"],
   EXACT, "_skip_dim_order: aten::_to_copy float to int64 (truncates), bool, float16, uint8", edge=SKIP_DIM_ORDER)
op("to_copy_int", lambda s, x: (x.to(f32), x.to(i8), x.to(b8)), [(torch.tensor([0, 1, -1, 127, 128, 255, -129, 2**40]),)],
   ["_to_copy.out"], EXACT, "_skip_dim_order: int64 to float, int8 (wraps), bool", edge=SKIP_DIM_ORDER)
op("clone_dim_order", lambda s, x: x.clone(), [(r(2, 3, seed=240),)], [DO + "_clone_dim_order.out"], EXACT)
op("clone_dim_order_to_contiguous", lambda s, x: x.contiguous(), [(cl(r(1, 3, 2, 4, seed=241)),)],
   [DO + "_clone_dim_order.out"], EXACT, "channels-last input -> contiguous output")
op("clone_dim_order_to_cl", lambda s, x: x.clone(memory_format=torch.channels_last), [(r(2, 3, 2, 2, seed=242),)],
   [DO + "_clone_dim_order.out"], EXACT, "contiguous -> channels-last output")
op("to_dim_order_copy", lambda s, x: (x.to(i64), x.to(b8), x.to(f16), x.to(i32)),
   [(torch.tensor([0.0, -0.0, 1.7, -1.7, 2.5, -2.5, 100.9, 0.1, 255.0, 3.0]),)],
   [DO + "_to_dim_order_copy.out"], EXACT, "float to int64/int32 (truncate), bool, float16")
op("to_dim_order_copy_int", lambda s, x: (x.to(f32), x.to(i8), x.to(u8), x.to(b8), x.to(torch.float64)),
   [(torch.tensor([0, 1, -1, 127, 128, 255, 256, -129, 2**40, 2**53 + 1]),)],
   [DO + "_to_dim_order_copy.out"], EXACT, "int64 to float32/int8/uint8 (wrap)/bool/float64")
op("to_dim_order_copy_bool", lambda s, x: (x.to(f32), x.to(i64)), [(rb(7, seed=243),)],
   [DO + "_to_dim_order_copy.out"], EXACT)
op("to_dim_order_copy_f16", lambda s, x: x.to(f32), [(r(6, seed=244, dtype=f16),)],
   [DO + "_to_dim_order_copy.out"], EXACT)
op("to_dim_order_copy_cl", lambda s, x: x.to(dtype=f16, memory_format=torch.channels_last),
   [(r(1, 3, 2, 2, seed=245),)], [DO + "_to_dim_order_copy.out"], EXACT, "cast and relayout to channels-last")

# --- softmax ---------------------------------------------------------------
NEG_INF_ROWS = torch.tensor([[1.0, 2.0, 3.0], [float("-inf"), 0.0, float("-inf")],
                             [float("-inf"), float("-inf"), float("-inf")], [1e30, -1e30, 0.0]])
op("softmax", lambda s, x: (torch.softmax(x, -1), torch.softmax(x, 0), torch.softmax(x, 1)),
   [(r(2, 3, 4, seed=250, scale=3),)], ["_softmax.out"], RED, "dims -1, 0, 1 of [2,3,4]")
op("softmax_inf", lambda s, x: torch.softmax(x, -1), [(NEG_INF_ROWS,)], ["_softmax.out"], RED,
   "rows with -inf; an all -inf row gives NaN")
op("softmax_f16", lambda s, x: torch.softmax(x, -1), [(r(3, 8, seed=251, dtype=f16),)], ["_softmax.out"], HALF)
op("log_softmax", lambda s, x: (F.log_softmax(x, -1), F.log_softmax(x, 0)), [(r(3, 5, seed=252, scale=3),)],
   ["_log_softmax.out"], RED)
op("log_softmax_inf", lambda s, x: F.log_softmax(x, -1), [(NEG_INF_ROWS,)], ["_log_softmax.out"], RED)

# --- padding ----------------------------------------------------------------
op("constant_pad", lambda s, x: (F.pad(x, (1, 2)), F.pad(x, (1, 2, 0, 1), value=0.5), F.pad(x, (-1, 1, 1, -1))),
   [(r(1, 2, 3, 4, seed=260),)], ["constant_pad_nd.out"], EXACT, "last dim, last two dims with value, negative pads (crop)")
op("constant_pad_i64", lambda s, x: F.pad(x, (0, 0, 2, 1), value=-7), [(gi(2, 3, seed=261),)], ["constant_pad_nd.out"])

# --- dynamic-shape helpers --------------------------------------------------
op("et_view_sym_size", lambda s, x: (torch.relu(x.reshape(-1, 2)) + 1, x.shape[0]),
   [(r(3, 4, seed=265),), (r(5, 4, seed=266),)], ["executorch_prim::et_view.default", "sym_size.int"],
   dyn=({0: Dim("n", min=1, max=8)},), desc="dynamic reshape inside the graph (et_view) and an Int output")

# ==========================================================================
# Tier 2
# ==========================================================================
op("layer_norm", lambda s, x, w, b: F.layer_norm(x, (4,), w, b, 1e-5), [(r(2, 3, 4, seed=300), r(4, seed=301), r(4, seed=302))],
   ["native_layer_norm.out"], RED)
op("layer_norm_2d_noaffine", lambda s, x: F.layer_norm(x, (3, 4), eps=1e-12), [(r(2, 3, 4, seed=303, scale=10) + 5,)],
   ["native_layer_norm.out"], RED, "normalized over the last two dims, no weight/bias, eps 1e-12")
op("layer_norm_outs", lambda s, x, w, b: ATEN.native_layer_norm(x, [5], w, b, 1e-5),
   [(r(3, 5, seed=304), r(5, seed=305), r(5, seed=306))], ["native_layer_norm.out"], RED, "y, mean and rstd outputs")
op("group_norm", lambda s, x, w, b: F.group_norm(x, 2, w, b), [(r(2, 4, 3, 3, seed=307), r(4, seed=308), r(4, seed=309))],
   ["native_group_norm.out"], RED)
op("embedding", lambda s, w, i: F.embedding(i, w), [(r(10, 4, seed=310), torch.tensor([[0, 9, 3], [3, 3, 1]]))],
   ["embedding.out"], EXACT)
op("embedding_i32", lambda s, w, i: F.embedding(i, w), [(r(10, 4, seed=311), torch.tensor([5, 0, 9], dtype=i32))],
   ["embedding.out"], EXACT, "int32 indices")
op("embedding_module", lambda s, i: s.emb(i), [(torch.tensor([[1, 0, 2, 0]]),)], ["embedding.out"], EXACT,
   "nn.Embedding(5, 3, padding_idx=0)", parts={"emb": (torch.manual_seed(3), nn.Embedding(5, 3, padding_idx=0))[1]})
# No +-inf: eager's gelu(+-inf) depends on the vector path (size-1 tensors
# give inf / nan, longer ones nan / nan); our kernels give 0 / inf
# (docs/kernel-semantics.md).
FINITE = SPECIAL[~SPECIAL.isinf()]
op("gelu", lambda s, x: (F.gelu(x), F.gelu(x, approximate="tanh")), [(FINITE,), (r(3, 4, seed=312, scale=3),)],
   ["gelu.out"], FT, "approximate none and tanh; specials without +-inf (see export/ops.py), nan")
op("cat", lambda s, a, b, c: (torch.cat([a, b], 0), torch.cat([a, c], -1), torch.cat([a], 1)),
   [(r(2, 3, seed=320), r(1, 3, seed=321), r(2, 2, seed=322))], ["cat.out"], EXACT, "dims 0 and -1, one input")
op("cat_empty", lambda s, a, b: torch.cat([a, b, a], 0), [(r(2, 3, seed=323), torch.zeros(0, 3))], ["cat.out"], EXACT,
   "an empty tensor in the list")
op("cat_mixed", lambda s, a, b: torch.cat([a, b], 1), [(gi(2, 2, seed=324), r(2, 3, seed=325))], ["cat.out"], EXACT,
   "int64 and float32 inputs: out float32 (edge verifier off: it rejects mixed dtypes)",
   edge={"_check_ir_validity": False})
op("cat_i64_bool", lambda s, a, b: (torch.cat([a, a], 0), torch.cat([b, b], 1)), [(gi(2, 3, seed=326), rb(2, 2, seed=327))],
   ["cat.out"])
op("cat_dyn", lambda s, a, b: torch.cat([a, b], 0), [(r(2, 3, seed=328), r(3, 3, seed=329)), (r(5, 3, seed=330), r(1, 3, seed=331))],
   ["cat.out"], EXACT, dyn=({0: Dim("n", min=1, max=8)}, {0: Dim("m", min=1, max=8)}))
op("stack", lambda s, a, b: (torch.stack([a, b], 0), torch.stack([a, b], -1), torch.stack([a, b, a], 1)),
   [(r(2, 3, seed=332), r(2, 3, seed=333))], ["stack.out"], EXACT, keep=[ATEN.stack.default])
op("stack_decomposed", lambda s, a, b: torch.stack([a, b], 1), [(gi(2, 3, seed=334), gi(2, 3, seed=335))],
   ["cat.out", "view_copy.out"], desc="default export: stack becomes cat + view_copy")
op("where", lambda s, c, a, b: torch.where(c, a, b), [(rb(2, 3, seed=334), r(2, 3, seed=335), r(3, seed=336))],
   ["where.self_out"], EXACT, "condition broadcasts, other broadcasts")
op("where_i64_scalar", lambda s, c, a: (torch.where(c > 0, a, 0), torch.where(c > 0, 1.5, a)),
   [(gi(2, 3, seed=337), gi(2, 3, seed=338))], ["where.self_out"], EXACT)
op("index_tensor", lambda s, x, i: (x[i], x[:, i], x[i, i]), [(r(4, 4, seed=340), torch.tensor([3, 0, -1, 2]))],
   ["index.Tensor_out"], EXACT, "x[i], x[:, i], x[i, i]; negative index wraps")
op("index_tensor_2d_idx", lambda s, x, i, j: x[i, :, j], [(gi(3, 4, 5, seed=341), torch.tensor([[0, 2], [1, 1]]), torch.tensor([4, -5]))],
   ["index.Tensor_out"], EXACT, "two index tensors broadcast [2,2] with [2], None in the middle")
op("index_tensor_i32", lambda s, x, i: x[i], [(r(5, 2, seed=342), torch.tensor([4, 1], dtype=i32))], ["index.Tensor_out"], EXACT)
op("index_put", lambda s, x, i, v: x.index_put((i,), v), [(r(5, 3, seed=343), torch.tensor([4, 0, -2]), r(3, 3, seed=344))],
   ["index_put.out"], EXACT)
op("index_put_accumulate", lambda s, x, i, v: x.index_put((i,), v, accumulate=True),
   [(r(4, 3, seed=345), torch.tensor([1, 1, 2]), r(1, 3, seed=346))], ["index_put.out"], FT,
   "accumulate=True with a repeated index; values [1,3] broadcast to [3,3]")


def setitem_dim1(x, i, v):
    y = x.clone()
    y[:, i] = v  # index_put with indices [None, i]
    return y


op("index_put_dim1", lambda s, x, i, v: setitem_dim1(x, i, v), [(r(3, 5, seed=347), torch.tensor([4, 0]), r(1, seed=348))],
   ["index_put.out"], EXACT, "x[:, i] = v: indices [None, i], a [1] value broadcast")
op("index_put_i64", lambda s, x, i, j, v: x.index_put((i, j), v), [(gi(3, 4, seed=349), torch.tensor([0, 2]), torch.tensor([3, 1]), gi(2, seed=339))],
   ["index_put.out"])
op("slice", lambda s, x: (x[1:3], x[:, ::2], x[-2:], x[:, 1:100], x[:, -100:-1:3]), [(r(4, 5, seed=350),)],
   ["slice_copy.Tensor_out"], EXACT, "start/end/step, negative, out-of-range ends clamp")
op("slice_empty", lambda s, x: (x[3:1], x[:, 5:]), [(gi(4, 5, seed=351),)], ["slice_copy.Tensor_out"],
   desc="empty results")
op("slice_scatter", lambda s, x, y, z: (torch.slice_scatter(x, y, 0, 1, 5, 2), torch.slice_scatter(x, z, 1, -1)),
   [(r(6, 2, seed=352), r(2, 2, seed=353), r(6, 1, seed=359))], ["slice_scatter.out"], EXACT,
   "dim 0 start 1 end 5 step 2; dim 1 start -1")
op("select", lambda s, x: (x[1], x[:, -1], x.select(2, 0)), [(r(3, 4, 5, seed=354),)], ["select_copy.int_out"], EXACT)
op("select_i64", lambda s, x: x[-1], [(gi(3, 2, seed=355),)], ["select_copy.int_out"])
op("unsqueeze", lambda s, x: (x.unsqueeze(0), x.unsqueeze(-1), x.unsqueeze(1)), [(r(2, 3, seed=356),)],
   ["unsqueeze_copy.out"], EXACT)
op("squeeze_dim", lambda s, x: (x.squeeze(1), x.squeeze(-1), x.squeeze(0)), [(r(2, 1, 3, 1, seed=357),)],
   ["squeeze_copy.dims_out"], EXACT, "x.squeeze(d) exports as squeeze_copy.dims; dim 0 (size 2) stays")
op("squeeze_dims", lambda s, x: (x.squeeze((1, 3)), x.squeeze()), [(gi(2, 1, 3, 1, seed=358),)], ["squeeze_copy.dims_out"])
op("split_with_sizes", lambda s, x: torch.split(x, [1, 2, 3], dim=1), [(r(2, 6, seed=359),)],
   ["split_with_sizes_copy.out"], EXACT)
op("split", lambda s, x: torch.split(x, 2, dim=0), [(gi(5, 3, seed=360),)], ["split_with_sizes_copy.out"],
   desc="chunks of 2, last chunk smaller (exports as split_with_sizes_copy)")
op("split_copy", lambda s, x: ATEN.split_copy.Tensor(x, 2, -1), [(gi(3, 5, seed=360),)], ["split_copy.Tensor_out"],
   desc="aten.split_copy.Tensor called directly", allow=[ATEN.split_copy.Tensor])
op("unbind", lambda s, x: x.unbind(1), [(r(2, 3, 2, seed=361),)], ["squeeze_copy.dims_out"], EXACT,
   "x.unbind(1) exports as slices + squeezes")
op("unbind_copy", lambda s, x: ATEN.unbind_copy.int(x, -1), [(r(2, 3, 2, seed=361),)], ["unbind_copy.int_out"], EXACT,
   "aten.unbind_copy.int called directly", allow=[ATEN.unbind_copy.int])
op("full", lambda s, x: (torch.full((2, 3), 1.5), torch.full((4,), 7, dtype=i64), torch.full((2,), True), x),
   [(r(1, seed=362),)], ["full.out"], EXACT)
op("full_like", lambda s, x, y: (torch.full_like(x, 7), torch.full_like(y, -2.5), torch.zeros_like(y), torch.ones_like(x)),
   [(gi(2, 3, seed=363), r(3, seed=364))], ["full_like.out"], EXACT)
op("scalar_tensor", lambda s, x: x * torch.scalar_tensor(3.0), [(r(3, seed=365),)], ["scalar_tensor.out"])
op("arange", lambda s, x: (torch.arange(5), torch.arange(2, 11, 3), torch.arange(0.0, 1.0, 0.25), torch.arange(10, 0, -3), x),
   [(r(1, seed=366),)], ["arange.start_out"], EXACT)
op("arange_end", lambda s, x: (torch.arange(5), torch.arange(7, dtype=torch.float32), x), [(r(1, seed=369),)], ["arange.out"],
   EXACT, keep=[ATEN.arange.default])
op("arange_dyn", lambda s, x: torch.arange(x.shape[0]) * 2, [(r(3, seed=367),), (r(6, seed=368),)],
   ["arange.start_out"], dyn=({0: Dim("n", min=1, max=8)},))
op("rsqrt", lambda s, x: torch.rsqrt(x), [(SPECIAL,), (pos(3, 4, seed=370),)], ["rsqrt.out"])
op("sqrt", lambda s, x: torch.sqrt(x), [(SPECIAL,), (pos(3, 4, seed=371),)], ["sqrt.out"])
op("sqrt_i64", lambda s, x: torch.sqrt(x), [(torch.tensor([0, 1, 4, 10, -1]),)], ["sqrt.out"])
op("pow_tensor_scalar", lambda s, x: (x.pow(2), x.pow(0.5), x.pow(-1), x.pow(3)), [(SPECIAL,)], ["pow.Tensor_Scalar_out"])
op("pow_tensor_scalar_i64", lambda s, x: x.pow(3), [(torch.tensor([0, 1, -2, 3, 100000, -7]),)], ["pow.Tensor_Scalar_out"],
   desc="int64 cubes (100000^3 = 1e15)")
op("neg", lambda s, x: -x, [(SPECIAL,)], ["neg.out"])
op("neg_int", lambda s, x, y: (-x, -y), [(torch.tensor([0, 1, -1, 2**63 - 1, -2**63]), torch.tensor([-128, 127, 0], dtype=i8))],
   ["neg.out"], desc="int64 min and int8 -128 wrap")
op("cos", lambda s, x: torch.cos(x), [(SPECIAL,), (r(3, 4, seed=372, scale=4),)], ["cos.out"])
op("sin", lambda s, x: torch.sin(x), [(SPECIAL,), (r(3, 4, seed=373, scale=4),)], ["sin.out"])
op("cos_i64", lambda s, x: torch.cos(x), [(torch.tensor([0, 1, -2, 10]),)], ["cos.out"])
op("tril", lambda s, x: (torch.tril(x), torch.tril(x, 1), torch.tril(x, -1)), [(r(3, 4, seed=374),)], ["tril.out"], EXACT,
   keep=[ATEN.tril.default])
op("tril_batch_i64", lambda s, x: torch.tril(x, -2), [(gi(2, 4, 3, seed=375),)], ["tril.out"], keep=[ATEN.tril.default])
op("tril_decomposed", lambda s, x: torch.tril(x, 1), [(r(3, 4, seed=376),)], ["where.self_out", "le.Scalar_out"], EXACT,
   "default export: tril becomes arange, sub, le, where")
op("masked_fill", lambda s, x, m: (x.masked_fill(m, float("-inf")), x.masked_fill(m[0], 2.0)),
   [(r(3, 4, seed=377), rb(3, 4, seed=378))], ["masked_fill.Scalar_out"], EXACT, "mask full shape and broadcast row",
   keep=[ATEN.masked_fill.Scalar])
op("masked_fill_i64", lambda s, x, m: x.masked_fill(m, -1), [(gi(2, 3, seed=379), rb(3, seed=380))], ["masked_fill.Scalar_out"],
   keep=[ATEN.masked_fill.Scalar])
op("masked_fill_decomposed", lambda s, x, m: x.masked_fill(m, -1.5), [(r(2, 3, seed=379), rb(3, seed=380))],
   ["where.self_out", "scalar_tensor.out"], EXACT, "default export: masked_fill becomes where with a scalar_tensor")
op("eq_Scalar", lambda s, x, y: (x == 0.5, y == 3, x == float("-inf")),
   [(torch.tensor([0.5, 1.0, float("nan"), float("-inf")]), torch.tensor([3, -3, 0]))], ["eq.Scalar_out"])
op("logical_not", lambda s, a, b, c: (torch.logical_not(a), torch.logical_not(b), torch.logical_not(c)),
   [(rb(5, seed=381), torch.tensor([0.0, -0.0, 1.0, float("nan")]), torch.tensor([0, 3, -1]))], ["logical_not.out"])
op("any_dims", lambda s, x: (torch.any(x, dim=(0, 1)), torch.any(x, dim=-1, keepdim=True)),
   [(rb(2, 3, 4, seed=382) & rb(2, 3, 4, seed=383) & rb(2, 3, 4, seed=384),)], ["any.dims_out"])
op("any_float", lambda s, x: torch.any(x, 1), [(torch.tensor([[0.0, 0.0], [0.0, -1.0], [float("nan"), 0.0]]),)], ["any.out"])
op("any_all", lambda s, x: torch.any(x), [(torch.zeros(3, 4, dtype=torch.int64),), (torch.tensor([[0, 0], [0, 2]]),)], ["any.all_out"])
op("argmax", lambda s, x: (torch.argmax(x, 1), torch.argmax(x, -1, keepdim=True), torch.argmax(x)),
   [(torch.tensor([[1.0, 3.0, 3.0, 0.0], [-1.0, -5.0, -1.0, -2.0], [0.0, float("nan"), 5.0, 1.0]]),)], ["argmax.out"],
   desc="ties go to the first index; NaN wins; no dim = flattened")
op("argmax_i64", lambda s, x: torch.argmax(x, 0), [(gi(4, 3, seed=385, lo=-2, hi=2),)], ["argmax.out"])
op("argmin", lambda s, x: (torch.argmin(x, 0), torch.argmin(x)), [(gi(4, 3, seed=386, lo=-2, hi=2).float(),)], ["argmin.out"])


class CopyInto(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(2, 3))

    def forward(self, x):
        out = self.state + 1.0  # the state from the previous call
        self.state.copy_(x)  # x [3] broadcasts to [2,3]
        return out


# (Reading the buffer after copy_ in the same call exports wrongly with
# torch 2.15: the graph adds to x instead of the buffer.)
FIXTURES.append(Fixture(
    "copy_bcast", "forward(x [3]): out = state + 1 (state from the previous call); "
    "state.copy_(x) broadcasts x to the [2,3] buffer (zero-initialised). Cases run 1 and 2 times.",
    {"forward": CopyInto()}, {"forward": (r(3, seed=390),)},
    [Case("forward", (r(3, seed=391),), iterations=k) for k in (1, 2)],
    backend_config={"passes": [InitializedMutableBufferPass(["state"])]},
    targets=["aten::copy_"], upstream_may_differ=True))


# ==========================================================================
# Tier 3
# ==========================================================================

# --- unary math -------------------------------------------------------------
UNIT = torch.tensor([-1.0, -0.999, -0.5, 0.0, -0.0, 0.3, 0.999, 1.0, 1.5, float("nan"), float("inf")])
for name, f, inputs in (
    ("abs", torch.abs, SPECIAL), ("acos", torch.acos, UNIT), ("acosh", torch.acosh, SPECIAL.abs() + 0.5),
    ("asin", torch.asin, UNIT), ("asinh", torch.asinh, SPECIAL), ("atan", torch.atan, SPECIAL),
    ("atanh", torch.atanh, UNIT), ("ceil", torch.ceil, SPECIAL), ("cosh", torch.cosh, SPECIAL),
    ("erf", torch.erf, SPECIAL), ("exp", torch.exp, SPECIAL), ("expm1", torch.expm1, SPECIAL),
    ("floor", torch.floor, SPECIAL), ("log", torch.log, SPECIAL), ("log10", torch.log10, SPECIAL),
    ("log1p", torch.log1p, torch.cat([SPECIAL, torch.tensor([-1.0, -0.5, 1e-10])])), ("log2", torch.log2, SPECIAL),
    ("reciprocal", torch.reciprocal, SPECIAL), ("round", torch.round, SPECIAL), ("sign", torch.sign, SPECIAL),
    ("sinh", torch.sinh, SPECIAL), ("tan", torch.tan, SPECIAL), ("trunc", torch.trunc, SPECIAL),
    ("logit", torch.logit, UNIT), ("isinf", torch.isinf, SPECIAL), ("isnan", torch.isnan, SPECIAL),
):
    op(f"{name}_f32", lambda s, x, f=f: f(x), [(inputs,), (r(2, 5, seed=400 + len(name)),)], [f"{name}.out"],
       keep=[ATEN.logit.default] if name == "logit" else ())
op("round_halves", lambda s, x: torch.round(x), [(torch.arange(-3.5, 4.0, 0.5),)], ["round.out"], EXACT,
   "half to even")
op("abs_int", lambda s, x, y: (torch.abs(x), torch.abs(y)), [(torch.tensor([0, -1, 5, -2**63]), torch.tensor([-128, -5, 7], dtype=i8))],
   ["abs.out"], desc="abs of int64 min and int8 -128 wrap")
op("sign_i64", lambda s, x: torch.sign(x), [(torch.tensor([0, -7, 5]),)], ["sign.out"])
op("ceil_i64", lambda s, x: torch.ceil(x), [(torch.tensor([0, -7, 5]),)], ["ceil.out"], desc="integer ceil is identity")
op("exp_i64", lambda s, x: torch.exp(x), [(torch.tensor([0, 1, -2, 10]),)], ["exp.out"], desc="int input, float output")
op("log_f16", lambda s, x: torch.log(x), [(pos(6, seed=420).to(f16),)], ["log.out"], HALF)
op("exp_f16", lambda s, x: torch.exp(x), [(r(6, seed=421, dtype=f16),)], ["exp.out"], HALF)
op("isnan_i64", lambda s, x: torch.isnan(x.float()), [(torch.tensor([0, 1]),)], ["isnan.out"])
op("logit_eps", lambda s, x: torch.logit(x, eps=0.1), [(UNIT,)], ["logit.out"], keep=[ATEN.logit.default])

# --- activations ---------------------------------------------------------
op("leaky_relu", lambda s, x: (F.leaky_relu(x), F.leaky_relu(x, 0.2)), [(SPECIAL,)], ["leaky_relu.out"])
op("elu", lambda s, x: (F.elu(x), F.elu(x, alpha=0.5)), [(SPECIAL,)], ["elu.out"])
op("glu", lambda s, x: (F.glu(x), F.glu(x, 0)), [(r(4, 6, seed=430),)], ["glu.out"], keep=[ATEN.glu.default])

# --- binary ---------------------------------------------------------------
op("pow_tensor_tensor", lambda s, a, b: torch.pow(a, b), [(pos(2, 3, seed=440), r(3, seed=441))], ["pow.Tensor_Tensor_out"])
op("pow_tensor_tensor_i64", lambda s, a, b: torch.pow(a, b), [(torch.tensor([2, -3, 0, 7, 1]), torch.tensor([10, 3, 0, 2, 100]))],
   ["pow.Tensor_Tensor_out"])
op("pow_scalar", lambda s, b: torch.pow(2.0, b), [(r(5, seed=442),)], ["pow.Scalar_out"])
op("atan2", lambda s, a, b: torch.atan2(a, b),
   [(torch.tensor([0.0, -0.0, 1.0, -1.0, 0.0, float("inf")]), torch.tensor([0.0, -1.0, 0.0, -0.0, -1.0, float("inf")]))],
   ["atan2.out"])
op("maximum", lambda s, a, b: torch.maximum(a, b), [(SPECIAL, SPECIAL.flip(0))], ["maximum.out"], EXACT, "NaN propagates")
op("minimum", lambda s, a, b: torch.minimum(a, b), [(SPECIAL, SPECIAL.flip(0))], ["minimum.out"], EXACT)
op("maximum_i64_bcast", lambda s, a, b: torch.maximum(a, b), [(gi(2, 3, seed=443), gi(3, seed=444))], ["maximum.out"])
op("clamp_tensor", lambda s, x, lo, hi: torch.clamp(x, lo, hi), [(r(3, 4, seed=445), r(4, seed=446) - 0.5, r(3, 1, seed=447) + 0.5)],
   ["clamp.Tensor_out"], EXACT)

# --- comparisons ------------------------------------------------------------
CMP_A = torch.tensor([1.0, 2.0, float("nan"), float("inf"), -0.0, 3.0])
CMP_B = torch.tensor([1.0, 1.0, float("nan"), float("inf"), 0.0, 4.0])
for name, f in (("eq", torch.eq), ("ne", torch.ne), ("lt", torch.lt), ("le", torch.le), ("gt", torch.gt), ("ge", torch.ge)):
    op(f"{name}_tensor", lambda s, a, b, f=f: f(a, b), [(CMP_A, CMP_B)], [f"{name}.Tensor_out"], desc="NaN, inf, -0")
    op(f"{name}_tensor_mixed_bcast", lambda s, a, b, f=f: f(a, b), [(gi(2, 3, seed=450, lo=-2, hi=2), r(3, seed=451).round())],
       [f"{name}.Tensor_out"], desc="int64 with float32, broadcast")
    op(f"{name}_scalar", lambda s, a, f=f: (f(a, 2.0), f(a, 0)), [(CMP_A,)], [f"{name}.Scalar_out"])
    op(f"{name}_scalar_i64", lambda s, a, f=f: f(a, 2**40), [(torch.tensor([2**40, 2**40 + 1, -1]),)], [f"{name}.Scalar_out"])
op("eq_bool", lambda s, a, b: a == b, [(rb(6, seed=452), rb(6, seed=453))], ["eq.Tensor_out"])
op("lt_u8_i8", lambda s, a, b: a < b, [(torch.tensor([200, 0, 5], dtype=u8), torch.tensor([-1, 0, 6], dtype=i8))],
   ["lt.Tensor_out"], desc="uint8 200 vs int8 -1 promote to int16")

# --- logical and bitwise ---------------------------------------------------
for name, f in (("logical_and", torch.logical_and), ("logical_or", torch.logical_or), ("logical_xor", torch.logical_xor)):
    op(name, lambda s, a, b, c, f=f: (f(a, b), f(c, c.flip(0))), [(rb(2, 4, seed=460), rb(4, seed=461), torch.tensor([0.0, 2.0, float("nan"), -0.0]))],
       [f"{name}.out"])
for name, f in (("bitwise_and", torch.bitwise_and), ("bitwise_or", torch.bitwise_or), ("bitwise_xor", torch.bitwise_xor)):
    op(f"{name}_tensor", lambda s, a, b, c, d, f=f: (f(a, b), f(c, d)),
       [(gi(6, seed=462, lo=-100, hi=100), gi(6, seed=463, lo=-100, hi=100), rb(4, seed=464), rb(4, seed=465))], [f"{name}.Tensor_out"])
    op(f"{name}_scalar", lambda s, a, f=f: f(a, 12), [(torch.tensor([255, 0, 12, 7], dtype=u8),)], [f"{name}.Scalar_out"])
op("bitwise_not", lambda s, a, b, c: (torch.bitwise_not(a), torch.bitwise_not(b), torch.bitwise_not(c)),
   [(torch.tensor([0, -1, 5]), torch.tensor([0, 255, 7], dtype=u8), rb(4, seed=466))], ["bitwise_not.out"])
op("shifts", lambda s, a, b: (torch.bitwise_left_shift(a, b), torch.bitwise_right_shift(a, b)),
   [(torch.tensor([1, -8, 255, 2**40]), torch.tensor([3, 1, 4, 20]))],
   ["bitwise_left_shift.Tensor_out", "bitwise_right_shift.Tensor_out"], desc="int64; arithmetic right shift of -8",
   allow=[ATEN.bitwise_left_shift.Tensor, ATEN.bitwise_right_shift.Tensor])
op("shifts_scalar", lambda s, a: (ATEN.bitwise_left_shift.Tensor_Scalar(a, 2), ATEN.bitwise_right_shift.Tensor_Scalar(a, 1)),
   [(torch.tensor([1, 64, 200, 7], dtype=u8),)], ["bitwise_left_shift.Tensor_Scalar_out", "bitwise_right_shift.Tensor_Scalar_out"],
   desc="uint8 (left shift wraps)",
   allow=[ATEN.bitwise_left_shift.Tensor_Scalar, ATEN.bitwise_right_shift.Tensor_Scalar])

# --- reductions -------------------------------------------------------------
RX = torch.tensor([[1.0, 5.0, -2.0, 5.0], [float("-inf"), -1.0, 0.0, 3.0], [2.0, float("nan"), 1.0, 0.0]])
op("sum", lambda s, x: (x.sum(-1), x.sum((0, 2), keepdim=True), x.sum()), [(r(2, 3, 4, seed=470),)], ["sum.IntList_out"], RED)
op("sum_i64", lambda s, x, y: (x.sum(0), y.sum(1)), [(gi(3, 4, seed=471), rb(2, 5, seed=472))], ["sum.IntList_out"],
   desc="int64 and bool (sums to int64)")
op("sum_dtype_u8", lambda s, x: x.sum(0, dtype=u8), [(torch.full((3, 2), 100, dtype=u8),)], ["sum.IntList_out"],
   desc="uint8 sum wraps")
op("sum_empty", lambda s, x: (x.sum(0), x.sum(1)), [(torch.zeros(0, 3),)], ["sum.IntList_out"], EXACT, "reduce an empty dim")
op("amax", lambda s, x: (torch.amax(x, 1), torch.amax(x, (0, 1)), torch.amax(x, -1, keepdim=True)), [(RX,)], ["amax.out"], EXACT,
   "NaN propagates")
op("amin", lambda s, x: (torch.amin(x, 0), torch.amin(x, (-1, -2))), [(RX,)], ["amin.out"], EXACT)
op("amax_i64", lambda s, x: torch.amax(x, 0), [(gi(3, 4, seed=473),)], ["amax.out"])
op("max_dim", lambda s, x: torch.max(x, 1), [(RX,)], ["max.dim_max"], EXACT, "values and indices")
op("min_dim", lambda s, x: torch.min(x, 0, keepdim=True), [(RX,)], ["min.dim_min"], EXACT)
op("max_unary", lambda s, x, y: (torch.max(x), torch.max(y)), [(RX, gi(3, 4, seed=474))], ["max.unary_out"], EXACT)
op("min_unary", lambda s, x: torch.min(x), [(r(3, 4, seed=475),)], ["min.unary_out"], EXACT)
op("prod", lambda s, x: (torch.prod(x, 1), torch.prod(x)), [(r(3, 4, seed=476) + 1,)], ["prod.int_out", "prod.out"], RED)
op("prod_i64", lambda s, x: torch.prod(x, 0), [(gi(4, 3, seed=477),)], ["prod.int_out"])
op("var", lambda s, x: (torch.var(x, 1), torch.var(x, (0, 1), correction=0), torch.var(x, -1, keepdim=True, correction=2)),
   [(r(3, 5, seed=478),)], ["var.correction_out"], RED)
op("var_mean", lambda s, x: torch.var_mean(x, 1), [(r(3, 5, seed=479),)], ["var_mean.correction_out"], RED,
   allow=[ATEN.var_mean.correction])
op("std", lambda s, x: torch.std(x, 0), [(r(4, 3, seed=480),)], ["var.correction_out", "sqrt.out"], RED)
op("cumsum", lambda s, x: (torch.cumsum(x, 0), torch.cumsum(x, -1)), [(r(3, 4, seed=481),)], ["cumsum.out"], RED)
op("cumsum_i64", lambda s, x, y: (torch.cumsum(x, 1), torch.cumsum(y, 0)), [(gi(2, 5, seed=482), rb(4, seed=483))], ["cumsum.out"],
   desc="int64; bool accumulates to int64")
op("cumsum_dtype", lambda s, x: torch.cumsum(x, 0, dtype=torch.float32), [(gi(5, seed=484),)], ["cumsum.out"])
op("topk", lambda s, x: (torch.topk(x, 2), torch.topk(x, 3, dim=0, largest=False)), [(r(4, 5, seed=485),)], ["topk.values"], EXACT,
   "largest along -1 and smallest along 0, values and indices (distinct values)")
op("topk_i64", lambda s, x: torch.topk(x, 3, sorted=True), [(torch.randperm(10, generator=torch.Generator().manual_seed(1)),)],
   ["topk.values"])

# --- resampling, padding -----------------------------------------------------
op("upsample_nearest2d", lambda s, x: (F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(5, 3), mode="nearest")),
   [(r(1, 2, 3, 4, seed=490),)], ["upsample_nearest2d.vec_out"], EXACT, "scale 2 and size (5,3)")
op("upsample_bilinear2d", lambda s, x: (F.interpolate(x, scale_factor=2, mode="bilinear"),
                                        F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True)),
   [(r(1, 2, 3, 4, seed=491),)], ["upsample_bilinear2d.vec_out"], RED, "align_corners False (scale 2) and True (size 5x7)")
op("upsample_bilinear2d_aa", lambda s, x: F.interpolate(x, size=(2, 3), mode="bilinear", antialias=True),
   [(r(1, 2, 6, 7, seed=492),)], ["_upsample_bilinear2d_aa.out"], RED)
op("pixel_shuffle", lambda s, x: (F.pixel_shuffle(x, 2), F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2)), [(r(1, 8, 2, 3, seed=493),)],
   ["pixel_shuffle.out", "pixel_unshuffle.out"], EXACT,
   keep=[ATEN.pixel_shuffle.default, ATEN.pixel_unshuffle.default])
op("reflection_pad", lambda s, x, y: (F.pad(x, (1, 2), mode="reflect"), F.pad(y, (1, 1, 2, 0), mode="reflect")),
   [(r(1, 2, 5, seed=494), r(1, 2, 3, 4, seed=495))], ["reflection_pad1d.out", "reflection_pad2d.out"], EXACT,
   keep=[ATEN.reflection_pad1d.default, ATEN.reflection_pad2d.default])
op("replication_pad", lambda s, x, y: (F.pad(x, (2, 1), mode="replicate"), F.pad(y, (1, 1, 2, 0), mode="replicate")),
   [(r(1, 2, 5, seed=496), r(1, 2, 3, 4, seed=497))], ["replication_pad1d.out", "replication_pad2d.out"], EXACT,
   keep=[ATEN.replication_pad1d.default, ATEN.replication_pad2d.default])
op("grid_sampler_2d", lambda s, x, g: F.grid_sample(x, g, align_corners=False), [(r(1, 2, 4, 5, seed=498), torch.rand(1, 3, 2, 2, generator=torch.Generator().manual_seed(2)) * 2.2 - 1.1)],
   ["grid_sampler_2d.out"], RED)

# --- gather / scatter ----------------------------------------------------------
op("gather", lambda s, x, i, j: (torch.gather(x, 1, i), torch.gather(x, 0, j)),
   [(r(3, 4, seed=500), torch.tensor([[0, 3], [1, 1], [2, 0]]), torch.tensor([[2, 0, 1, 1], [0, 0, 2, -1]]).clamp(min=0))],
   ["gather.out"], EXACT)
op("index_select", lambda s, x, i: (torch.index_select(x, 0, i), torch.index_select(x, -1, i)), [(r(4, 4, seed=501), torch.tensor([3, 0, 3]))],
   ["index_select.out"], EXACT)
op("index_select_i64", lambda s, x, i: torch.index_select(x, 1, i), [(gi(2, 5, seed=502), torch.tensor([4, 1], dtype=i32))],
   ["index_select.out"], desc="int32 index")
op("scatter_src", lambda s, x, i, v: torch.scatter(x, 1, i, v), [(torch.zeros(3, 4), torch.tensor([[0, 3], [1, 2], [2, 0]]), r(3, 2, seed=503))],
   ["scatter.src_out"], EXACT)
op("scatter_value", lambda s, x, i: torch.scatter(x, 0, i, 5.0), [(r(3, 2, seed=504), torch.tensor([[2, 0]]))], ["scatter.value_out"], EXACT)
op("scatter_add", lambda s, x, i, v: torch.scatter_add(x, 0, i, v), [(gi(3, 2, seed=505), torch.tensor([[0, 1], [0, 1], [2, 0]]), gi(3, 2, seed=506))],
   ["scatter_add.out"], desc="repeated indices accumulate")
op("select_scatter", lambda s, x, v: torch.select_scatter(x, v, 1, -1), [(r(2, 3, seed=507), r(2, seed=508))], ["select_scatter.out"], EXACT,
   keep=[ATEN.select_scatter.default])
op("masked_scatter", lambda s, x, m, v: x.masked_scatter(m, v), [(r(2, 3, seed=509), rb(2, 3, seed=510), r(6, seed=511))],
   ["masked_scatter.out"], EXACT)

# --- shape and copy -----------------------------------------------------------
op("transpose", lambda s, x: (x.transpose(0, 2), x.transpose(-1, 1)), [(r(2, 3, 4, seed=520),)], ["permute_copy.out"], EXACT,
   "transpose becomes permute_copy")
op("flip", lambda s, x: (torch.flip(x, (0,)), torch.flip(x, (-1, 1))), [(r(2, 3, 4, seed=521),)], ["flip.out"], EXACT)
op("roll", lambda s, x: (torch.roll(x, 1, 0), torch.roll(x, (-2, 5), (1, 2))), [(gi(2, 3, 4, seed=522),)], ["roll.out"],
   keep=[ATEN.roll.default])
op("repeat", lambda s, x: (x.repeat(2, 3), x.repeat(2, 1, 1)), [(r(2, 3, seed=523),)], ["repeat.out"], EXACT)
op("repeat_interleave_int", lambda s, x: x.repeat_interleave(2, dim=1), [(r(2, 3, seed=524),)], ["expand_copy.out"], EXACT,
   "integer repeat count: unsqueeze/expand/clone/view")
op("narrow", lambda s, x: x.narrow(1, 1, 2), [(r(3, 4, seed=525),)], ["slice_copy.Tensor_out"], EXACT)
op("diagonal", lambda s, x: (torch.diagonal(x), torch.diagonal(x, 1, 1, 2)), [(r(3, 3, 4, seed=526),)], ["diagonal_copy.out"], EXACT)
op("unfold", lambda s, x: x.unfold(1, 3, 2), [(r(2, 7, seed=527),)], ["unfold_copy.out"], EXACT, allow=[ATEN.unfold.default])
op("alias", lambda s, x: ATEN.alias_copy(x), [(r(3, seed=528),)], ["alias_copy.out"], EXACT)
op("detach", lambda s, x: ATEN.detach_copy(x), [(r(3, seed=529),)], ["detach_copy.out"], EXACT)

op("transpose_copy", lambda s, x: ATEN.transpose_copy.int(x, 0, -1), [(gi(2, 3, 4, seed=530),)], ["transpose_copy.int_out"],
   desc="aten.transpose_copy.int called directly", keep=[ATEN.transpose_copy.int], allow=[ATEN.transpose_copy.int])
op("t_copy", lambda s, x: ATEN.t_copy(x), [(r(2, 3, seed=531),)], ["t_copy.out"], EXACT,
   "aten.t_copy called directly", keep=[ATEN.t_copy.default], allow=[ATEN.t_copy.default])
op("narrow_copy", lambda s, x: ATEN.narrow_copy(x, 1, 1, 2), [(r(3, 4, seed=532),)], ["narrow_copy.out"], EXACT,
   "aten.narrow_copy called directly", allow=[ATEN.narrow_copy.default])
op("as_strided_copy", lambda s, x: ATEN.as_strided_copy(x, [2, 2], [1, 3], 1), [(r(3, 4, seed=533),)],
   ["as_strided_copy.out"], EXACT, "sizes [2,2], strides [1,3], offset 1", allow=[ATEN.as_strided_copy.default])
op("copy", lambda s, x, y: ATEN.copy(x, y), [(r(2, 3, seed=534), gi(3, seed=535))], ["copy.out"], EXACT,
   "functional aten.copy: int64 src [3] broadcast and cast into a float [2,3]", keep=[ATEN.copy.default])
op("repeat_interleave_tensor", lambda s, r_: torch.repeat_interleave(r_, output_size=6),
   [(torch.tensor([2, 0, 3, 1]),)], ["repeat_interleave.Tensor_out"], desc="repeats [2,0,3,1] -> [0,0,2,2,2,3]",
   keep=[ATEN.repeat_interleave.Tensor])
op("var_dim", lambda s, x: ATEN.var.dim(x, [1], False, True), [(r(3, 5, seed=536),)], ["var.out"], RED,
   "aten.var.dim (unbiased=False, keepdim)", keep=[ATEN.var.dim], allow=[ATEN.var.dim])
op("pad_3d", lambda s, x: (F.pad(x, (1, 0, 0, 1, 1, 1), mode="reflect"), F.pad(x, (1, 0, 0, 1, 1, 1), mode="replicate")),
   [(r(1, 2, 3, 3, 4, seed=537),)], ["reflection_pad3d.out", "replication_pad3d.out"], EXACT,
   keep=[ATEN.reflection_pad3d.default, ATEN.replication_pad3d.default])
op("index_put_inplace", lambda s, x, i, v: (x + 1.0).index_put((i,), v), [(r(5, 2, seed=538), torch.tensor([3, 0]), r(2, 2, seed=539))],
   ["index_put_"], EXACT, "(x + 1).index_put(...): run_reinplace_pass=True turns the index_put on the dead temporary into index_put_",
   config={"run_reinplace_pass": True})

# --- creation ------------------------------------------------------------------
op("ones_zeros_kept", lambda s, x: (torch.ones(2, 3), torch.zeros(4, dtype=i64), x), [(r(1, seed=540),)],
   ["ones.out", "zeros.out"], EXACT, keep=[ATEN.ones.default, ATEN.zeros.default])
op("ones_zeros", lambda s, x: (torch.ones(2, 3), torch.zeros(4, dtype=i64), torch.ones(2, dtype=b8), x), [(r(1, seed=530),)],
   ["full.out"], EXACT, "ones/zeros become full")
op("fill_scalar", lambda s, x: ATEN.fill.Scalar(x, 2.5), [(r(2, 3, seed=531),)], ["fill.Scalar_out"], EXACT,
   keep=[ATEN.fill.Scalar])
op("fill_tensor", lambda s, x, v: ATEN.fill.Tensor(x, v), [(r(2, 3, seed=532), torch.tensor(-1.5))], ["fill.Tensor_out"], EXACT,
   keep=[ATEN.fill.Tensor])

# --- distance --------------------------------------------------------------------
op("cdist", lambda s, a, b: torch.cdist(a, b), [(r(1, 4, 3, seed=540), r(1, 5, 3, seed=541))], ["_cdist_forward.out"], RED)
op("pdist", lambda s, a: F.pdist(a), [(r(4, 3, seed=542),)], ["_pdist_forward.out"], RED)


def fixtures():
    return list(FIXTURES)
