#!/usr/bin/python3
"""Which sites of the quantized fixtures run on the integer kernels.

    check-int-kernels.py EXECUTORCH_RUN MODELS_DIR

libexecutorch-kernels-quantized's load-time rewrite (int-conv-rewrite.c)
gives the sites it takes kernels named "OPERATOR [int8]" (and "[int8
staging]", "[int8 staging bytes]", "[int8 read by the convolution]",
"[int8 weight]", "[int8 packed at load]", "[int8 pass-through]",
"[int8 bytes]", "[int8 table]"), which executorch-run
--profile lists. This
checks, per fixture, how many calls per execution each marked kernel gets,
that every convolution and linear product of the PT2E int8 programs was
taken, that programs without the pattern (float activations) were left
alone, and that EXECUTORCH_QUANTIZED_REFERENCE=1 leaves every program alone.
"""
import os
import re
import subprocess
import sys

# fixture -> {operator row: calls per execution}
EXPECTED = {
    "cnn_q8": {"aten::convolution.out [int8]": 3, "aten::addmm.out [int8]": 1,
               # the linear's weight copied at load: its dequantize and
               # transpose do nothing
               "aten::permute_copy.out [int8 packed at load]": 1,
               "quantized_decomposed::dequantize_per_channel.out [int8 packed at load]": 3 + 1,
               "quantized_decomposed::dequantize_per_tensor.out [int8 staging]": 4,
               # conv -> relu -> quantize: the convolution quantizes, into
               # the quantize's result where the memory plan allows
               # (consecutive instructions, no memory shared with its inputs)
               "aten::relu.out [int8 in the convolution]": 3,
               "quantized_decomposed::quantize_per_tensor.out [int8 by the convolution]": 3,
               # dequantize -> max_pool2d -> quantize on the bytes
               "aten::max_pool2d_with_indices.out [int8]": 2,
               # and dequantize -> flatten (a view) -> quantize on the bytes
               "quantized_decomposed::dequantize_per_tensor.out [int8 bytes]": 2 + 1,
               "quantized_decomposed::quantize_per_tensor.out [int8 bytes]": 2 + 1},
    "resblock_q8": {"aten::convolution.out [int8]": 7, "aten::addmm.out [int8]": 1,
                    "aten::permute_copy.out [int8 packed at load]": 1,
                    "quantized_decomposed::dequantize_per_channel.out [int8 packed at load]": 7 + 1,
                    # where a convolution's input shares memory with the
                    # quantize's result, the convolution copies its input
                    # into columns before it writes: all seven write it
                    "aten::relu.out [int8 in the convolution]": 4,
                    "quantized_decomposed::quantize_per_tensor.out [int8 by the convolution]": 7},
    # conv -> quantize -> dequantize -> hardtanh -> quantize (ReLU6 outside
    # the convolution): the middle three as a byte table; SiLU (dequantize
    # -> sigmoid and mul -> quantize) as a table on the multiply; the
    # tables read the dequantize's input and write the quantize's result.
    # A hardtanh whose table is a clamp goes into the convolution's bounds
    # where the convolution may write the last quantize's result (BY_ISA:
    # after a depthwise convolution only where it reads its int8 input
    # itself, not its float staging over which the planner put that result)
    "dw_q8": {"aten::convolution.out [int8]": 7, "aten::addmm.out [int8]": 1,
              "aten::permute_copy.out [int8 packed at load]": 1,
              "quantized_decomposed::dequantize_per_channel.out [int8 packed at load]": 7 + 1,
              "aten::relu.out [int8 in the convolution]": 3,
              "aten::max_pool2d_with_indices.out [int8]": 2,
              "aten::sigmoid.out [int8 table]": 1,
              "aten::mul.out [int8 SiLU table]": 1,
              "aten::sigmoid.out [int8 in the SiLU table]": 1,
              "quantized_decomposed::dequantize_per_tensor.out [int8 bytes]": 2,
              "quantized_decomposed::quantize_per_tensor.out [int8 bytes]": 2},
    # the channel shuffle and the NHWC round trip on the bytes: dequantize
    # -> view -> quantize, dequantize -> permute -> quantize (three) and
    # dequantize -> permute -> clone -> permute -> quantize; the split
    # (dequantize -> split -> two quantizes) and the cat (two dequantizes
    # -> cat -> quantize) too, though their tensors are list items
    "shuffle_q8": {"aten::convolution.out [int8]": 5,
                   "aten::relu.out [int8 in the convolution]": 4,
                   "quantized_decomposed::quantize_per_tensor.out [int8 by the convolution]": 4,
                   "aten::permute_copy.out [int8 bytes]": 3,
                   "dim_order_ops::_clone_dim_order.out [int8 bytes]": 2,
                   "aten::split_with_sizes_copy.out [int8 bytes]": 1,
                   "aten::cat.out [int8 bytes]": 1,
                   "quantized_decomposed::dequantize_per_tensor.out [int8 bytes]": 3 + 1 + 2},
    # both cats and the split, list items and all: five dequantizes
    # stage their bytes, three quantizes copy them out
    "cat_q8": {"aten::cat.out [int8 bytes]": 2,
               "aten::split_with_sizes_copy.out [int8 bytes]": 1,
               "quantized_decomposed::dequantize_per_tensor.out [int8 bytes]": 2 + 3 + 1,
               "quantized_decomposed::quantize_per_tensor.out [int8 bytes]": 1 + 1 + 2},
    "mlp_q8": {"aten::addmm.out [int8]": 3, "aten::permute_copy.out [int8 packed at load]": 3,
               "quantized_decomposed::dequantize_per_channel.out [int8 packed at load]": 3},
    # weight-only quantized: the activations are float, nothing to take
    "lm_wq": {},
    # dynamic activation qparams (Tensor overloads): not taken
    "mlp_dynq": {},
}
UNTAKEN = ("aten::convolution.out", "aten::addmm.out")
# a convolution right after its input's dequantize reads the int8 bytes
# itself: a depthwise one everywhere where its result does not lie over
# them, and with vector code (AVX2) where it lies exactly over them (it
# copies each plane first); the others where the u8 x s8 products run
# (AVX-512 VNNI).  Where a convolution takes bytes but cannot read them
# itself, its dequantize stages them as they are instead of widening
# them.  Fixture -> row -> such dequantizes (plain C, AVX2, VNNI)
READ_ROW = "quantized_decomposed::dequantize_per_tensor.out [int8 read by the convolution]"
STAGING_BYTES_ROW = "quantized_decomposed::dequantize_per_tensor.out [int8 staging bytes]"
STAGING_ROW = "quantized_decomposed::dequantize_per_tensor.out [int8 staging]"
# convolutions at stride 1 whose plane is wide enough run in the direct
# form where the u8 x s8 products run; EXPECTED counts them as [int8]
CONV_ROW = "aten::convolution.out [int8]"
DIRECT_ROW = "aten::convolution.out [int8 direct]"
BY_ISA = {
    "cnn_q8": {READ_ROW: (0, 1, 2), STAGING_BYTES_ROW: (1, 0, 1)},
    # the direct one: its 3x2 window over a 6x7 plane
    "resblock_q8": {READ_ROW: (0, 0, 6), STAGING_BYTES_ROW: (0, 0, 1), DIRECT_ROW: (0, 0, 1)},
    # the three ReLU6 tables: folded into their convolution where the
    # convolution writes their result (two, or all three where the third's
    # depthwise convolution reads its int8 input in place)
    "dw_q8": {READ_ROW: (2, 3, 6), STAGING_BYTES_ROW: (2, 1, 1),
              "quantized_decomposed::quantize_per_tensor.out [int8 by the convolution]": (7 + 2, 7 + 3, 7 + 3),
              "aten::hardtanh.out [int8 table]": (1, 0, 0),
              "quantized_decomposed::dequantize_per_tensor.out [int8 in the convolution]": (2, 3, 3),
              "aten::hardtanh.out [int8 in the convolution]": (2, 3, 3),
              # and the sigmoid and SiLU tables
              "quantized_decomposed::dequantize_per_tensor.out [int8 read by the table]": (1 + 2, 0 + 2, 0 + 2),
              "quantized_decomposed::quantize_per_tensor.out [int8 by the table]": (1 + 2, 0 + 2, 0 + 2)},
    "shuffle_q8": {READ_ROW: (1, 1, 5)},
}


def isa_tier():
    """0: plain C, 1: AVX2, 2: AVX-512 VNNI, as the kernels choose (and the
    EXECUTORCH_KERNELS_NO_SIMD / _NO_AVX512 switches allow)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        flags = []
    if os.environ.get("EXECUTORCH_KERNELS_NO_SIMD") or not all(flag in flags for flag in ("avx2", "fma")):
        return 0
    if os.environ.get("EXECUTORCH_KERNELS_NO_AVX512") or \
            not all(flag in flags for flag in ("avx512f", "avx512bw", "avx512vl", "avx512_vnni")):
        return 1
    return 2


def profile(runner, models, name, reference):
    pte = os.path.join(models, name, f"{name}.pte")
    inputs = sorted(f for f in os.listdir(os.path.join(models, name)) if f.startswith("forward.case0.in"))
    cmd = [runner, pte, "--profile", "--profile-top", "100", "--iterations", "2", "--threads", "1"]
    for f in inputs:
        cmd += ["--input", os.path.join(models, name, f)]
    env = dict(os.environ)
    env.pop("EXECUTORCH_QUANTIZED_REFERENCE", None)
    if reference:
        env["EXECUTORCH_QUANTIZED_REFERENCE"] = "1"
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    rows = {}
    for line in done.stdout.splitlines():
        m = re.match(r"^(\S+(?: \[[^\]]+\])?)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+%$", line)
        if m:
            rows[m.group(1)] = int(m.group(2)) // 2
    if not rows:
        sys.exit(f"no profile rows in the output of {' '.join(cmd)}:\n{done.stdout}")
    return rows


def main():
    runner, models = sys.argv[1], sys.argv[2]
    failures = []
    tier = isa_tier()
    for name, expected in EXPECTED.items():
        if expected:
            expected = dict(expected)
            by_isa = dict({READ_ROW: (0, 0, 0), STAGING_BYTES_ROW: (0, 0, 0), DIRECT_ROW: (0, 0, 0)},
                          **BY_ISA.get(name, {}))
            for row, counts in by_isa.items():
                expected[row] = counts[tier]
                # EXPECTED counts every activation dequantize as staging
                if row in (READ_ROW, STAGING_BYTES_ROW) and STAGING_ROW in expected:
                    expected[STAGING_ROW] -= counts[tier]
                if row == DIRECT_ROW and CONV_ROW in expected:
                    expected[CONV_ROW] -= counts[tier]
        rows = profile(runner, models, name, reference=False)
        marked = {op: n for op, n in rows.items() if "[int8" in op}
        for op, n in expected.items():
            if marked.get(op, 0) != n:
                failures.append(f"{name}: {op} ran {marked.get(op, 0)} times per execution, expected {n}")
        if not expected and marked:
            failures.append(f"{name}: the rewrite took {sorted(marked)}, expected none")
        if expected:
            left = [op for op in UNTAKEN if rows.get(op)]
            if left:
                failures.append(f"{name}: {left} still run on float")
        reference = profile(runner, models, name, reference=True)
        if any("[int8" in op for op in reference):
            failures.append(f"{name}: EXECUTORCH_QUANTIZED_REFERENCE=1 still ran {sorted(reference)}")
        print(f"{'FAIL' if failures else 'ok'} {name}: {sorted(marked.items()) or 'untouched'}")
    for f in failures:
        print(f"FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
