"""LLM fixtures (tests/models/llm): a tiny llama trained here, exported with
upstream's export_llama, and what upstream's text runner generates with it.

    ~/venv-export/bin/python tests/models/export_fixtures.py --set llm

Steps (all on the CPU, fixed seeds, one thread, so a rerun gives the same
files):

1. Train a byte-level BPE tokenizer (the `tokenizers` library) on
   tests/llm/data/train.txt and write tokenizer.json.
2. Train upstream's llama (executorch.examples.models.llama, params.json) on
   the same text for a few hundred steps; the checkpoint stays in a
   temporary folder (the .pte files hold the weights).
3. Export it with export_llama in five ways (VARIANTS), each <name>/<name>.pte.
4. Per program and prompt: upstream's TextLLMRunner greedy text (30 new
   tokens), the same generation through executorch.runtime forward calls
   (token ids and the logits of each call, which must give the runner's
   text), and eager-PyTorch logits.  Everything goes into manifest.json
   (format in tests/models/README.md, "LLM programs").

The tokenizer's pre-tokenizer is a Split with GPT-2's pattern minus the
`\\s+(?!\\S)` lookahead (which upstream's RE2-based HF tokenizer cannot
compile without PCRE2) followed by ByteLevel(use_regex=False), so the
`tokenizers` library and upstream's runner split text the same way.
"""

import contextlib
import copy
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np
import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TRAIN_TEXT = os.path.join(REPO, "tests", "llm", "data", "train.txt")

VOCAB_SIZE = 512
BOS, EOS = "<|bos|>", "<|eos|>"  # ids 0 and 1 (added first)
# GPT-2's pattern without the \s+(?!\S) alternative.
SPLIT_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+"

PARAMS = {
    "dim": 64,
    "n_layers": 2,
    "n_heads": 4,
    "n_kv_heads": 2,
    "vocab_size": VOCAB_SIZE,
    "hidden_dim": 128,
    "norm_eps": 1e-5,
    "rope_theta": 10000.0,
}
TRAIN_SEQ = 64
TRAIN_BATCH = 16
TRAIN_STEPS = 800
TRAIN_LR = 3e-3
SEED = 1234

MAX_SEQ, MAX_CONTEXT = 32, 64
NEW_TOKENS = 30
PROMPTS = [
    "This License applies to any",
    "Licensed under the Apache License",
    "The precise terms and conditions for copying",
]

# name -> (export_llama flags, extra description, linear quantization applied
# before lowering or None, needs)
COMMON = ["--max_seq_length", str(MAX_SEQ), "--max_context_length", str(MAX_CONTEXT)]
KV_SDPA = ["-kv", "--use_sdpa_with_kv_cache"]
VARIANTS = [
    ("llama_fp32", ["-X"] + KV_SDPA + COMMON, "fp32, KV cache with llama::update_cache and "
     "llama::custom_sdpa, dynamic token count (1..31), linears delegated to XNNPACK", None, None, True),
    ("llama_8da4w", ["-X", "-qmode", "8da4w", "--group_size", "32", "-E", "4,32"] + KV_SDPA + COMMON,
     "the standard 8da4w export: linears int8 dynamic activations with int4 weights in groups of "
     "32 (XNNPACK qdint8 x qbint4), embedding 4-bit in groups of 32 "
     "(quantized_decomposed::embedding_4bit)", None, "xnnpack-dynamic-quantization", True),
    ("llama_8da8w", ["-X"] + KV_SDPA + COMMON,
     "linears int8 dynamic activations with int8 per-channel weights (XNNPACK qdint8 x qcint8; "
     "extension/llm/export/quantize.py quantize_model_(qlinear_config='8da8w') applied before "
     "lowering, the export_llama CLI has no 8da8w), fp32 embedding", "8da8w",
     "xnnpack-dynamic-quantization", True),
    ("llama_fp32_static", ["-X", "--disable_dynamic_shape"] + KV_SDPA + COMMON,
     "fp32 as llama_fp32 but with a static [1,1] token input: the runner prefills one token "
     "per call", None, None, False),
    ("llama_fp32_nokv", ["-X", "--max_seq_length", "64", "--max_context_length", "64"],
     "fp32 without a KV cache: one input, tokens [1,T] with T dynamic (1..63), every call "
     "runs the whole sequence; max_seq_length 64 (with 32 the runner fails once prompt plus "
     "generated tokens pass 31)", None, None, False),
]
# Tolerances of our runtime against upstream's logits: per call,
# max|ours - upstream| <= logits_rel_tol * max|upstream row|.
FP32_REL_TOL = 1e-4


def log(msg):
    print(f"llm: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Tokenizer and training
# --------------------------------------------------------------------------


def train_tokenizer(path):
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(SPLIT_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE, special_tokens=[BOS, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train([TRAIN_TEXT], trainer)
    tok.save(path)
    assert tok.get_vocab_size() == VOCAB_SIZE, tok.get_vocab_size()
    return tok


def model_args(**kw):
    from executorch.examples.models.llama.model_args import ModelArgs

    return ModelArgs(max_seq_len=TRAIN_SEQ, max_context_len=TRAIN_SEQ, **PARAMS, **kw)


def train_model(tok):
    """Train on random windows of the tokenized text; return (model, facts)."""
    from executorch.examples.models.llama.llama_transformer import construct_transformer

    with open(TRAIN_TEXT, encoding="utf-8") as f:
        ids = torch.tensor(tok.encode(f.read()).ids, dtype=torch.long)
    torch.manual_seed(SEED)
    model = construct_transformer(model_args(generate_full_logits=True))
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=TRAIN_LR, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, TRAIN_STEPS)
    gen = torch.Generator().manual_seed(SEED)
    t0 = time.time()
    losses = []
    for step in range(TRAIN_STEPS):
        starts = torch.randint(0, len(ids) - TRAIN_SEQ - 1, (TRAIN_BATCH,), generator=gen)
        x = torch.stack([ids[s:s + TRAIN_SEQ] for s in starts])
        y = torch.stack([ids[s + 1:s + TRAIN_SEQ + 1] for s in starts])
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB_SIZE), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        if step % 100 == 0:
            log(f"step {step} loss {loss.item():.3f}")
    model.eval()
    facts = {
        "steps": TRAIN_STEPS, "batch": TRAIN_BATCH, "seq": TRAIN_SEQ, "lr": TRAIN_LR,
        "seed": SEED, "text_tokens": len(ids),
        "first_loss": round(losses[0], 3), "last_loss": round(float(np.mean(losses[-20:])), 3),
    }
    log(f"trained in {time.time() - t0:.1f} s: {facts}")
    return model, facts


# --------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------


def export_variant(name, flags, linear_q, ckpt, params, metadata, out_dir):
    """Run export_llama; return (pte path, the eager module it lowered)."""
    from executorch.examples.models.llama import export_llama_lib as lib

    args = flags + ["-c", ckpt, "-p", params, "--output-dir", out_dir, "--output_name",
                     os.path.join(out_dir, name + ".pte")]
    if metadata:
        args += ["--metadata", json.dumps(metadata)]
    parsed = lib.build_args_parser().parse_args(args)
    stash = {}
    prepare = lib._prepare_for_llama_export

    def prepare_and_keep(cfg):
        manager = prepare(cfg)
        if linear_q:
            from executorch.extension.llm.export.quantize import quantize_model_

            quantize_model_(manager.model, qlinear_config=linear_q)
        stash["model"] = copy.deepcopy(manager.model)
        return manager

    lib._prepare_for_llama_export = prepare_and_keep
    try:
        lib.export_llama(parsed)
    finally:
        lib._prepare_for_llama_export = prepare
    return os.path.join(out_dir, name + ".pte"), stash["model"], args


# --------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------


def load_upstream_ops():
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
    from executorch.kernels import quantized  # noqa: F401


def runner_generate(pte, tokenizer_path, prompt):
    """Upstream TextLLMRunner, greedy, 30 new tokens, no echo: the text."""
    from executorch.extension.llm.runner import GenerationConfig, TextLLMRunner

    runner = TextLLMRunner(pte, tokenizer_path)
    pieces = []
    config = GenerationConfig(echo=False, max_new_tokens=NEW_TOKENS, temperature=0.0)
    with contextlib.redirect_stdout(sys.stderr):
        runner.generate(prompt, config, token_callback=pieces.append)
    return "".join(pieces)


def read_metadata(program):
    values = {}
    for name in sorted(program.method_names):
        if name == "forward":
            continue
        out = list(program.load_method(name).execute([]))
        values[name] = [int(v) if not isinstance(v, bool) else v for v in out]
        if name != "get_eos_ids":
            assert len(out) == 1, (name, out)
            values[name] = values[name][0]
    return values


class Schedule:
    """The forward calls upstream's runner makes (text_prefiller.cpp,
    text_token_generator.h), as a list of (tokens, input_pos or None)."""

    def __init__(self, kv, dynamic):
        self.kv, self.dynamic = kv, dynamic

    def prefill(self, prompt_ids):
        if not self.kv:
            return [(list(prompt_ids), None)]
        if self.dynamic:
            return [(list(prompt_ids), 0)]
        return [([t], i) for i, t in enumerate(prompt_ids)]

    def decode(self, sequence):
        """The call that gives the token after `sequence`."""
        if not self.kv:
            return (list(sequence), None)
        return ([sequence[-1]], len(sequence) - 1)


def call_inputs(tokens, pos):
    t = torch.tensor([tokens], dtype=torch.long)
    return [t] if pos is None else [t, torch.tensor([pos], dtype=torch.long)]


def greedy(step, schedule, prompt_ids, eos_ids):
    """Greedy generation as the runner does it. step(tokens, pos) -> logits
    [V] of the call.  Returns (new ids, logits rows [n, V]): one row per
    sampled token (the prefill's last call, then one per decode call)."""
    last = None
    for tokens, pos in schedule.prefill(prompt_ids):
        last = step(tokens, pos)
    rows, new = [last], [int(np.argmax(last))]
    # The first token is never checked against EOS (text_llm_runner.cpp).
    while len(new) < NEW_TOKENS:
        tokens, pos = schedule.decode(list(prompt_ids) + new)
        row = step(tokens, pos)
        rows.append(row)
        new.append(int(np.argmax(row)))
        if new[-1] in eos_ids:
            break
    return new, np.stack(rows).astype(np.float32)


def upstream_step(method):
    def step(tokens, pos):
        out = list(method.execute(call_inputs(tokens, pos)))
        assert len(out) == 1, len(out)
        return out[0].detach().numpy().reshape(-1).copy()
    return step


def eager_step(module):
    def step(tokens, pos):
        with torch.no_grad():
            t = torch.tensor([tokens], dtype=torch.long)
            out = module(t) if pos is None else module(t, {"input_pos": torch.tensor([pos])})
        if isinstance(out, tuple):
            out = out[0]
        return out.detach().reshape(-1, out.shape[-1])[-1].numpy().copy()
    return step


def teacher_forced(step, schedule, prompt_ids, new_ids):
    """Logits of the calls that produced new_ids, feeding those ids."""
    last = None
    for tokens, pos in schedule.prefill(prompt_ids):
        last = step(tokens, pos)
    rows = [last]
    for k in range(1, len(new_ids)):
        tokens, pos = schedule.decode(list(prompt_ids) + list(new_ids[:k]))
        rows.append(step(tokens, pos))
    return np.stack(rows).astype(np.float32)


def rel_err(got, want):
    """max over rows of max|got - want| / max|want|."""
    scale = np.abs(want).max(axis=1)
    return float((np.abs(got - want).max(axis=1) / scale).max())


def margins(rows):
    s = np.sort(rows, axis=1)
    return s[:, -1] - s[:, -2]


# --------------------------------------------------------------------------
# Other tokenizers (tests/llm/tokenizers/<format>/<name>.*)
# --------------------------------------------------------------------------

TOKENIZER_DIR = os.path.join(REPO, "tests", "llm", "tokenizers")
TOKENIZER_MODELS = ("llama_fp32", "llama_8da4w")
# No token callback: the Python binding turns each piece into a str and
# raises on a piece that is not whole UTF-8, so the text is taken from what
# the runner prints on stdout (safe_printf drops one-byte pieces that are
# neither printable nor whitespace), followed by its PyTorchObserver line.
RUN_ONE = """
import sys
from executorch.extension.llm.custom_ops import custom_ops
from executorch.kernels import quantized
from executorch.extension.llm.runner import GenerationConfig, TextLLMRunner
pte, tok, prompt, n = sys.argv[1:5]
runner = TextLLMRunner(pte, tok)
runner.generate(prompt, GenerationConfig(echo=False, max_new_tokens=int(n), temperature=0.0))
"""


def tokenizer_fixtures():
    """Tokenizer files of the fixture sets, as paths from the repository."""
    found = []
    if not os.path.isdir(TOKENIZER_DIR):
        return found
    for fmt in sorted(os.listdir(TOKENIZER_DIR)):
        d = os.path.join(TOKENIZER_DIR, fmt)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(".reference.json") or f.startswith("README") or f.endswith(".md"):
                continue
            found.append(os.path.relpath(os.path.join(d, f), REPO))
    return found


def tokenizer_runs(out_dir, fixtures):
    """Upstream TextLLMRunner's greedy text for the fp32 and 8da4w programs
    with each tokenizer fixture; each in its own process (a tokenizer with
    more ids than the model's 512 logits may make upstream fail hard)."""
    import subprocess

    runs = []
    for tok in tokenizer_fixtures():
        for fx in fixtures:
            if fx["name"] not in TOKENIZER_MODELS:
                continue
            for prompt in PROMPTS:
                r = subprocess.run([sys.executable, "-c", RUN_ONE, os.path.join(out_dir, fx["pte"]),
                                    os.path.join(REPO, tok), prompt, str(NEW_TOKENS)],
                                   capture_output=True, timeout=300)
                rec = {"tokenizer": tok, "model": fx["name"], "prompt": prompt}
                printed, observer, _ = r.stdout.partition(b"PyTorchObserver ")
                if r.returncode == 0 and observer:
                    printed = printed[:-1] if printed.endswith(b"\n") else printed
                    try:
                        rec["printed"] = printed.decode("utf-8")
                    except UnicodeDecodeError:
                        rec["printed_hex"] = printed.hex()
                else:
                    lines = r.stderr.decode("utf-8", "replace").strip().splitlines()
                    # the runtime's own complaint, then the binding's exception
                    said = [ln for ln in lines[:-1] if "rror" in ln or "ailed" in ln][-1:] + lines[-1:]
                    rec["error"] = f"exit status {r.returncode}: " + " / ".join(x[:300] for x in said)
                log(f"  {tok} {fx['name']}: {rec}")
                runs.append(rec)
    return runs


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def export_all(out_dir, inspect_pte, executorch_version):
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    load_upstream_ops()
    from executorch.runtime import Runtime

    t_start = time.time()
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    tok_path = os.path.join(out_dir, "tokenizer.json")
    tok = train_tokenizer(tok_path)
    bos_id, eos_id = tok.token_to_id(BOS), tok.token_to_id(EOS)
    params_path = os.path.join(out_dir, "params.json")
    with open(params_path, "w") as f:
        json.dump(PARAMS, f, indent=1)
        f.write("\n")
    model, train_facts = train_model(tok)

    prompts = []
    for p in PROMPTS:
        prompts.append({"text": p, "ids": tok.encode(p).ids})
        # one prefill chunk for every program (the runner would cut longer
        # prompts into chunks; the schedule here does not)
        assert len(prompts[-1]["ids"]) < MAX_SEQ - 1, p

    fixtures = []
    eager_files = {}
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "checkpoint.pth")
        torch.save({k: v for k, v in model.state_dict().items()
                    if k in dict(model.named_parameters())}, ckpt)

        # fp32 eager reference: the trained module itself, one forward over
        # the whole sequence with logits for every position.
        def eager_fp32(prompt_ids, new_ids):
            seq = torch.tensor([list(prompt_ids) + list(new_ids[:-1])], dtype=torch.long)
            with torch.no_grad():
                full = model(seq)[0].numpy()
            return full[len(prompt_ids) - 1:].astype(np.float32)

        for name, flags, desc, linear_q, needs, metadata_on in VARIANTS:
            t0 = time.time()
            log(f"exporting {name}")
            metadata = {"get_bos_id": bos_id, "get_eos_ids": [eos_id]} if metadata_on else None
            fdir = os.path.join(out_dir, name)
            os.makedirs(fdir)
            pte, eager_module, args = export_variant(
                name, flags, linear_q, ckpt, params_path, metadata, tmp)
            shutil.copy(pte, os.path.join(fdir, name + ".pte"))
            pte = os.path.join(fdir, name + ".pte")
            with open(pte, "rb") as f:
                facts = inspect_pte(f.read())
            fwd = facts["methods"]["forward"]
            program = Runtime.get().load_program(pte)
            meta = read_metadata(program)
            kv = bool(meta["use_kv_cache"])
            dynamic = bool(meta["enable_dynamic_shape"])
            schedule = Schedule(kv, dynamic)
            eos_ids = set(meta.get("get_eos_ids", [eos_id]))
            quantized = linear_q is not None or "-qmode" in flags
            entry = {
                "name": name,
                "pte": os.path.relpath(pte, out_dir),
                "description": desc,
                # paths shown as what they are, not where they were
                "export_llama_args": [
                    {ckpt: "CHECKPOINT", params_path: "params.json", tmp: "OUT"}.get(
                        a, os.path.basename(a) if a.startswith(tmp) else a) for a in args],
                "file_size": facts["file_size"],
                "operators": fwd["operators"],
                "delegates": sorted({d["id"] for d in fwd["delegates"]}),
                "forward_inputs": fwd["inputs"],
                "metadata": meta,
                "kv_cache": kv,
                "dynamic_shape": dynamic,
                "cases": [],
            }
            if linear_q:
                entry["linear_quantization"] = linear_q
            if needs:
                entry["needs"] = needs
            worst_eager = 0.0
            for k, prompt in enumerate(prompts):
                text = runner_generate(pte, tok_path, prompt["text"])
                method = Runtime.get().load_program(pte).load_method("forward")
                new_ids, rows = greedy(upstream_step(method), schedule, prompt["ids"], eos_ids)
                decoded = "".join(tok.decode([i]) for i in new_ids)
                if decoded != text:
                    raise AssertionError(f"{name}: runner text {text!r} but the forward "
                                         f"calls give {new_ids} = {decoded!r}")
                if len(set(new_ids)) < 5:
                    raise AssertionError(f"{name}: degenerate output {new_ids}")
                base = f"{name}/case{k}"
                np.save(os.path.join(out_dir, base + ".logits.npy"), rows)
                case = {
                    "prompt": prompt["text"],
                    "prompt_ids": prompt["ids"],
                    "ids": new_ids,
                    "text": text,
                    "logits": base + ".logits.npy",
                    "min_margin": round(float(margins(rows).min()), 6),
                }
                if quantized:
                    # eager reference: the quantized module export_llama
                    # lowered, fed the same tokens
                    ref = teacher_forced(eager_step(copy.deepcopy(eager_module)), schedule,
                                         prompt["ids"], new_ids)
                    worst_eager = max(worst_eager, rel_err(rows, ref))
                else:
                    if k not in eager_files:
                        ref = eager_fp32(prompt["ids"], new_ids)
                        rel = f"eager/case{k}.logits.npy"
                        os.makedirs(os.path.join(out_dir, "eager"), exist_ok=True)
                        np.save(os.path.join(out_dir, rel), ref)
                        eager_files[k] = (rel, new_ids, ref)
                    rel, ids0, ref = eager_files[k]
                    if ids0 != new_ids:
                        raise AssertionError(f"{name}: tokens {new_ids} differ from the other "
                                             f"fp32 programs' {ids0}")
                    err = rel_err(rows, ref)
                    if err > FP32_REL_TOL:
                        raise AssertionError(f"{name} case {k}: upstream vs eager {err:.3g}")
                    worst_eager = max(worst_eager, err)
                    case["eager_logits"] = rel
                entry["cases"].append(case)
                log(f"  {name} #{k}: {prompt['text']!r} -> {text!r}")
            entry["upstream_vs_eager_rel"] = float(f"{worst_eager:.3g}")
            entry["logits_rel_tol"] = FP32_REL_TOL if not quantized else None
            log(f"  {name}: {time.time() - t0:.1f} s")
            fixtures.append(entry)

    # quantized bound: twice what two implementations of the same
    # quantized program (torchao eager and upstream's XNNPACK) differ by
    for e in fixtures:
        if e["logits_rel_tol"] is None:
            e["logits_rel_tol"] = float(f"{max(2 * e['upstream_vs_eager_rel'], 1e-3):.2g}")

    runs = tokenizer_runs(out_dir, fixtures)

    manifest = {
        "generator": "tests/models/export_fixtures.py --set llm (tests/models/export/llm.py)",
        "torch": torch.__version__,
        "executorch": executorch_version,
        "tokenizer": "tokenizer.json",
        "params": "params.json",
        "bos_id": bos_id,
        "eos_id": eos_id,
        "max_new_tokens": NEW_TOKENS,
        "training": train_facts,
        "fixtures": fixtures,
        # upstream's runner with the other tokenizer fixtures (step 5)
        "tokenizer_runs": runs,
    }
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    log(f"done in {time.time() - t_start:.1f} s")
