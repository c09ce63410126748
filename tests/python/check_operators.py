#!/usr/bin/env python3
"""Checks that `executorch-run --list-operators` lists the kernels we promise.

Usage: check_operators.py EXECUTORCH_RUN PORTABLE_LIST MANIFEST_DIR...

- every Tier 1 and Tier 2 operator of the operator plan (TIER1, TIER2 below)
  is listed;
- every operator of upstream's portable set (PORTABLE_LIST) is listed, except
  the ones in NOT_IMPLEMENTED below, each with its reason; an operator in that
  set that has been implemented meanwhile fails the test too, so the list
  stays true;
- every operator a committed fixture program uses (the manifests' facts) is
  listed;
- the listing has no duplicates and every name has a namespace.
"""

import json
import os
import subprocess
import sys

TIER1 = """
aten::convolution.out aten::_native_batch_norm_legit_no_training.out aten::relu.out aten::hardtanh.out
aten::clamp.out aten::add.out aten::sub.out aten::mul.out aten::div.out aten::mean.out
aten::max_pool2d_with_indices.out aten::avg_pool2d.out aten::_adaptive_avg_pool2d.out aten::addmm.out
aten::mm.out aten::permute_copy.out aten::view_copy.out aten::expand_copy.out aten::clone.out
aten::_to_copy.out dim_order_ops::_clone_dim_order.out dim_order_ops::_to_dim_order_copy.out
aten::sigmoid.out aten::tanh.out aten::_softmax.out aten::_log_softmax.out aten::constant_pad_nd.out
executorch_prim::et_view.default aten::sym_size.int
""".split()

TIER2 = """
aten::bmm.out aten::native_layer_norm.out aten::embedding.out aten::gelu.out aten::mul.Scalar_out
aten::add.Scalar_out aten::rsub.Scalar_out aten::cat.out aten::stack.out aten::where.self_out
aten::index.Tensor_out aten::index_put.out aten::index_put_ aten::slice_copy.Tensor_out
aten::slice_scatter.out aten::select_copy.int_out aten::unsqueeze_copy.out aten::squeeze_copy.dim_out
aten::squeeze_copy.dims_out aten::split_with_sizes_copy.out aten::split_copy.Tensor_out
aten::unbind_copy.int_out aten::full.out aten::full_like.out aten::scalar_tensor.out aten::arange.start_out
aten::arange.out aten::rsqrt.out aten::pow.Tensor_Scalar_out aten::sqrt.out aten::neg.out aten::cos.out
aten::sin.out aten::tril.out aten::masked_fill.Scalar_out aten::eq.Scalar_out aten::logical_not.out
aten::any.dims_out aten::copy_ aten::argmax.out aten::linear.out
aten::sym_numel aten::_local_scalar_dense
""".split()

# Upstream portable operators we do not implement yet, and why.
NOT_IMPLEMENTED = {
    "aten::convolution_backward.out": "training only",
    "aten::rand.out": "random sampling: results cannot match eager",
    "aten::randn.out": "random sampling: results cannot match eager",
    "aten::allclose.out": "upstream test helper",
    "aten::allclose.Tensor": "upstream test helper",
}


def read_list(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def fixture_operators(manifest_dir):
    path = os.path.join(manifest_dir, "manifest.json")
    with open(path) as f:
        manifest = json.load(f)
    ops = set()
    for fx in manifest.get("fixtures", []):
        # Delegated fixtures name their backend instead; plain ones list ops.
        if fx.get("delegates"):
            continue
        ops.update(fx.get("operators", []))
    return ops


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tool, portable_path, manifest_dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    out = subprocess.run([tool, "--list-operators"], check=True, capture_output=True, text=True).stdout
    listed = [line.strip() for line in out.splitlines() if line.strip()]
    failures = []

    if len(listed) != len(set(listed)):
        failures.append("duplicate names in the listing")
    failures += ["no namespace: %s" % n for n in listed if "::" not in n]
    have = set(listed)

    for tier, names in (("Tier 1", TIER1), ("Tier 2", TIER2)):
        missing = [n for n in names if n not in have]
        failures += ["%s operator missing: %s" % (tier, n) for n in missing]
        print("%s: %d of %d listed" % (tier, len(names) - len(missing), len(names)))

    portable = sorted(set(read_list(portable_path)))
    implemented = [n for n in portable if n in have]
    for n in portable:
        if n in have and n in NOT_IMPLEMENTED:
            failures.append("%s is implemented now: drop it from NOT_IMPLEMENTED" % n)
        elif n not in have and n not in NOT_IMPLEMENTED:
            failures.append("upstream portable operator missing: %s" % n)
    print("upstream portable set: %d of %d listed; not implemented: %s" %
          (len(implemented), len(portable), ", ".join(n for n in portable if n not in have) or "none"))

    for d in manifest_dirs:
        used = fixture_operators(d)
        failures += ["%s uses %s, which is not listed" % (os.path.basename(d), n) for n in sorted(used - have)]
        print("%s: %d operators used by fixtures, all listed" % (os.path.basename(d.rstrip("/")), len(used))
              if used <= have else "%s: some fixture operators are not listed" % d)

    extra = sorted(have - set(portable) - set(TIER1) - set(TIER2))
    print("also listed (prim, llama and other ops): %d" % len(extra))
    print("total listed: %d" % len(listed))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
