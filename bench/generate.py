#!/usr/bin/env python3
"""Text generation speed: our executorch-generate against upstream's
TextLLMRunner, greedy, same program, prompt and number of new tokens.

    ~/venv-export/bin/python bench/generate.py --build _build-release

Each run is a fresh process on each side (program load, tokenizer load and
one generate call), alternating ours and upstream, --repeat times; the table
gives medians of the figures both runners compute from upstream's Stats
fields (milliseconds, wall clock):

    time to first token = first_token_ms - inference_start_ms
    prefill tokens/s    = prompt_tokens / time to first token
    decode tokens/s     = generated_tokens / (inference_end_ms - prompt_eval_end_ms)

"speed" columns are our speed divided by upstream's (upstream's time over
ours for the first token; our rate over upstream's for the rates): above 1
we are faster.  Generated texts must be equal (greedy); a row where they are
not is marked.

Models: the committed tiny llamas (tests/models/llm) and a bigger random-weight
llama exported into bench/models/ on first use (--models-dir; --remake).
"""

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LLM_FIXTURES = os.path.join(REPO, "tests", "models", "llm")
PROMPT = "This License applies to any"

# The bigger llama: random weights, sized so that one decode step takes
# milliseconds rather than microseconds.  The vocabulary is the byte-level
# BPE trained on tests/llm/data/train.txt, as large as that text allows up
# to BIG_VOCAB_TARGET.
BIG_VOCAB_TARGET = 4096
BIG_PARAMS = {
    "dim": 512,
    "n_layers": 8,
    "n_heads": 8,
    "n_kv_heads": 4,
    "hidden_dim": 1536,
    "norm_eps": 1e-5,
    "rope_theta": 10000.0,
}
BIG_MAX_SEQ, BIG_MAX_CONTEXT = 128, 256
BIG_SEED = 4321
BIG_VARIANTS = [
    ("big_fp32", ["-X", "-kv", "--use_sdpa_with_kv_cache"]),
    ("big_8da4w", ["-X", "-qmode", "8da4w", "--group_size", "32", "-E", "4,32", "-kv",
                   "--use_sdpa_with_kv_cache"]),
]


def log(msg):
    print("generate: " + msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Upstream worker (a child process, so that each run starts cold, like ours)
# --------------------------------------------------------------------------


def upstream_worker(args):
    # The C++ runner prints every piece to file descriptor 1: send it away.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
    from executorch.extension.llm.runner import GenerationConfig, TextLLMRunner
    from executorch.extension.pybindings import portable_lib
    import executorch.kernels.quantized  # noqa: F401

    # The runner's module links the same libexecutorch_threadpool.so as the
    # pybindings, so this sizes the pool its kernels and XNNPACK use.
    portable_lib._unsafe_reset_threadpool(args.threads)
    runner = TextLLMRunner(args.pte, args.tokenizer)
    config = GenerationConfig(echo=False, max_new_tokens=args.new_tokens, temperature=0.0)
    pieces, stats = [], []
    runner.generate(args.prompt, config, token_callback=pieces.append,
                    stats_callback=lambda s: stats.append(s.to_json_string()))
    with open(args.result, "w") as f:
        json.dump({"text": "".join(pieces), "stats": json.loads(stats[0])}, f)


# --------------------------------------------------------------------------
# One run of each side
# --------------------------------------------------------------------------


def devenv(build):
    """The environment `meson devenv` gives, so our tool runs uninstalled."""
    out = subprocess.run(["meson", "devenv", "-C", build, "--dump"], check=True,
                         capture_output=True, text=True).stdout
    env = dict(os.environ)
    for line in out.splitlines():
        m = re.match(r'^(?:export )?([A-Za-z_][A-Za-z0-9_]*)=(.*)$', line)
        if m:
            value = shlex.split(m.group(2))[0] if m.group(2) else ""
            value = value.replace("$" + m.group(1), env.get(m.group(1), ""))
            env[m.group(1)] = value
    return env


def figures(stats):
    """TTFT (ms), prefill and decode tokens/s from a Stats JSON object."""
    ttft = stats["first_token_ms"] - stats["inference_start_ms"]
    decode_ms = stats["inference_end_ms"] - stats["prompt_eval_end_ms"]
    return {
        "ttft_ms": ttft,
        "prefill_tps": stats["prompt_tokens"] * 1000.0 / ttft if ttft > 0 else None,
        "decode_tps": stats["generated_tokens"] * 1000.0 / decode_ms if decode_ms > 0 else None,
        "load_ms": stats["model_load_end_ms"] - stats["model_load_start_ms"],
        "prompt_tokens": stats["prompt_tokens"],
        "generated_tokens": stats["generated_tokens"],
    }


def run_ours(args, env, model, threads):
    cmd = [os.path.join(args.build, "tools", "executorch-generate"), model["pte"],
           "--tokenizer", model["tokenizer"], "--prompt", args.prompt,
           "--max-new-tokens", str(model["new_tokens"]), "--temperature", "0", "--stats",
           "--threads", str(threads)]
    env = dict(env, EXECUTORCH_NUM_THREADS=str(threads))
    proc = subprocess.run(cmd, env=env, capture_output=True)
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError("executorch-generate failed (%d): %s" % (proc.returncode, err.strip()[-500:]))
    line = [l for l in err.splitlines() if l.startswith("PyTorchObserver ")][-1]
    text = proc.stdout.decode("utf-8", errors="replace")
    # The tool ends the text with one newline, as upstream's runner prints it.
    return {"text": text[:-1] if text.endswith("\n") else text,
            **figures(json.loads(line[len("PyTorchObserver "):]))}


def run_upstream(args, model, threads):
    with tempfile.TemporaryDirectory() as tmp:
        result = os.path.join(tmp, "result.json")
        cmd = [sys.executable, os.path.abspath(__file__), "--upstream-worker", "--pte", model["pte"],
               "--tokenizer", model["tokenizer"], "--prompt", args.prompt, "--new-tokens",
               str(model["new_tokens"]), "--threads", str(threads), "--result", result]
        proc = subprocess.run(cmd, capture_output=True)
        if proc.returncode != 0:
            raise RuntimeError("upstream runner failed (%d): %s"
                               % (proc.returncode, proc.stderr.decode(errors="replace").strip()[-500:]))
        with open(result) as f:
            out = json.load(f)
    return {"text": out["text"], **figures(out["stats"])}


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------


def tiny_models():
    with open(os.path.join(LLM_FIXTURES, "manifest.json")) as f:
        manifest = json.load(f)
    tokenizer = os.path.join(LLM_FIXTURES, manifest["tokenizer"])
    models = []
    for fx in manifest["fixtures"]:
        if fx["name"] in ("llama_fp32", "llama_8da4w"):
            models.append({"name": fx["name"], "pte": os.path.join(LLM_FIXTURES, fx["pte"]),
                           "tokenizer": tokenizer, "new_tokens": manifest["max_new_tokens"]})
    return models


def big_models(models_dir, new_tokens):
    tokenizer = os.path.join(models_dir, "tokenizer.json")
    return [{"name": name, "pte": os.path.join(models_dir, name + ".pte"), "tokenizer": tokenizer,
             "new_tokens": new_tokens} for name, _ in BIG_VARIANTS]


def make_big_models(models_dir):
    """Tokenizer, random-weight checkpoint and the BIG_VARIANTS exports."""
    import torch

    sys.path.insert(0, os.path.join(REPO, "tests", "models", "export"))
    import llm  # the fixtures' export_llama call and tokenizer settings
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    os.makedirs(models_dir, exist_ok=True)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(llm.SPLIT_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    tok.train([llm.TRAIN_TEXT], trainers.BpeTrainer(
        vocab_size=BIG_VOCAB_TARGET, special_tokens=[llm.BOS, llm.EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    tok.save(os.path.join(models_dir, "tokenizer.json"))
    params = dict(BIG_PARAMS, vocab_size=tok.get_vocab_size())
    params_path = os.path.join(models_dir, "params.json")
    with open(params_path, "w") as f:
        json.dump(params, f, indent=1)
    log("vocabulary %d tokens; random weights (seed %d)" % (params["vocab_size"], BIG_SEED))

    torch.manual_seed(BIG_SEED)
    model = construct_transformer(ModelArgs(max_seq_len=BIG_MAX_SEQ, max_context_len=BIG_MAX_CONTEXT,
                                            **params))
    ckpt = os.path.join(models_dir, "checkpoint.pth")
    named = dict(model.named_parameters())
    torch.save({k: v for k, v in model.state_dict().items() if k in named}, ckpt)
    metadata = {"get_bos_id": 0, "get_eos_ids": [1]}
    common = ["--max_seq_length", str(BIG_MAX_SEQ), "--max_context_length", str(BIG_MAX_CONTEXT)]
    for name, flags in BIG_VARIANTS:
        start = time.time()
        llm.export_variant(name, flags + common, None, ckpt, params_path, metadata, models_dir)
        log("exported %s in %.0f s" % (name, time.time() - start))
    os.remove(ckpt)


# --------------------------------------------------------------------------
# Table
# --------------------------------------------------------------------------


def median(rows, key):
    values = [r[key] for r in rows if r[key] is not None]
    return statistics.median(values) if values else None


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def ratio(num, den):
    return num / den if num is not None and den else None


def spinners(count):
    """Busy processes that load the machine while the benchmark runs."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--upstream-worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--pte", help=argparse.SUPPRESS)
    p.add_argument("--tokenizer", help=argparse.SUPPRESS)
    p.add_argument("--result", help=argparse.SUPPRESS)
    p.add_argument("--new-tokens", type=int, default=None,
                   help="new tokens per generation (default: the tiny fixtures' 30, 100 for the big llama)")
    p.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    p.add_argument("--build", default="_build-release", help="our (release) build directory")
    p.add_argument("--prompt", default=PROMPT)
    p.add_argument("--repeat", type=int, default=5, help="runs per side and row; medians (default 5)")
    p.add_argument("--only", nargs="*", help="model names (llama_fp32 llama_8da4w big_fp32 big_8da4w)")
    p.add_argument("--models-dir", default=os.path.join(HERE, "models"),
                   help="where the big llama is exported (default bench/models, git-ignored)")
    p.add_argument("--remake", action="store_true", help="export the big llama again")
    p.add_argument("--load", type=int, default=0, help="busy processes to run alongside")
    p.add_argument("--json", help="write the rows and every run here")
    args = p.parse_args()

    if args.upstream_worker:
        args.threads = int(args.threads)
        return upstream_worker(args)

    models = tiny_models() + big_models(args.models_dir, 100)
    if args.only:
        models = [m for m in models if m["name"] in args.only]
    if args.new_tokens is not None:
        for m in models:
            m["new_tokens"] = args.new_tokens
    if any(m["name"].startswith("big_") and not os.path.exists(m["pte"]) for m in models) or args.remake:
        make_big_models(args.models_dir)
    threads = [int(t) for t in args.threads.split(",")]
    env = devenv(args.build)

    load = spinners(args.load)
    runs = {}
    try:
        for r in range(args.repeat):
            for m in models:
                for t in threads:
                    sides = [("ours", lambda: run_ours(args, env, m, t)),
                             ("upstream", lambda: run_upstream(args, m, t))]
                    if r % 2:
                        sides.reverse()  # alternate who goes first
                    for side, fn in sides:
                        runs.setdefault((m["name"], t, side), []).append(fn())
            log("repeat %d/%d done" % (r + 1, args.repeat))
    finally:
        for proc in load:
            proc.kill()
            proc.wait()

    rows = []
    for m in models:
        for t in threads:
            ours, up = runs[(m["name"], t, "ours")], runs[(m["name"], t, "upstream")]
            texts = {x["text"] for x in ours + up}
            row = {"model": m["name"], "threads": t, "prompt_tokens": ours[0]["prompt_tokens"],
                   "generated_tokens": ours[0]["generated_tokens"],
                   "up_generated_tokens": up[0]["generated_tokens"], "same_text": len(texts) == 1}
            for key in ("ttft_ms", "prefill_tps", "decode_tps", "load_ms"):
                row["ours_" + key], row["up_" + key] = median(ours, key), median(up, key)
            row["ttft_speed"] = ratio(row["up_ttft_ms"], row["ours_ttft_ms"])
            row["prefill_speed"] = ratio(row["ours_prefill_tps"], row["up_prefill_tps"])
            row["decode_speed"] = ratio(row["ours_decode_tps"], row["up_decode_tps"])
            if not row["same_text"]:
                row["texts"] = sorted(texts)
            rows.append(row)

    print("prompt %r; medians of %d runs; speed = ours / upstream (above 1: we are faster);"
          " load = program load ms; * = generated texts differ" % (args.prompt, args.repeat))
    head = ("model", "thr", "p/g tok", "TTFT ours", "upstr", "speed", "prefill t/s ours", "upstr",
            "speed", "decode t/s ours", "upstr", "speed", "load ours", "upstr")
    widths = (12, 3, 7, 9, 7, 6, 16, 7, 6, 15, 7, 6, 9, 6)
    print("  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(head, widths))))
    for r in rows:
        cells = (r["model"] + ("" if r["same_text"] else " *"), str(r["threads"]),
                 "%d/%d" % (r["prompt_tokens"], r["generated_tokens"]),
                 fmt(r["ours_ttft_ms"], ".0f"), fmt(r["up_ttft_ms"], ".0f"), fmt(r["ttft_speed"], ".2f"),
                 fmt(r["ours_prefill_tps"], ".0f"), fmt(r["up_prefill_tps"], ".0f"),
                 fmt(r["prefill_speed"], ".2f"), fmt(r["ours_decode_tps"], ".0f"),
                 fmt(r["up_decode_tps"], ".0f"), fmt(r["decode_speed"], ".2f"),
                 fmt(r["ours_load_ms"], ".0f"), fmt(r["up_load_ms"], ".0f"))
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))))
    for r in rows:
        if not r["same_text"]:
            print("%s at %d threads, texts differ: %s" % (r["model"], r["threads"], r["texts"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "runs": [{"model": k[0], "threads": k[1], "side": k[2], "runs": v}
                                              for k, v in runs.items()]}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
