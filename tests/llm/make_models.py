"""Tiny random-weight llamas for the generator tests (tests/llm/models).

    ~/venv-export/bin/python tests/llm/make_models.py [OUT_DIR] [--reference-only] [--only=NAME,...]

Upstream's export_llama writes three programs of one checkpoint (dim 16,
one layer, vocabulary 512, max_seq_length 8, max_context_length 16, EOS
named by --metadata get_eos_ids [257]):

  kv.pte      -kv --use_sdpa_with_kv_cache (tokens [1, 1..7], input_pos [1])
  static.pte  the same with --disable_dynamic_shape (tokens [1, 1])
  nokv.pte    no KV cache (tokens [1, 1..7], the whole sequence each call)
  plain.pte   kv.pte without --metadata (no get_eos_ids)
  fp16.pte    kv.pte in half precision (-d fp16: Half logits)
  badcontext.pte, badkv.pte
              hostile metadata: get_max_context_len 0; use_kv_cache false with
              a KV cache

reference.json then holds, per program and prompt, the greedy tokens (at
most 6, fewer when the context fills up first: the stop) that upstream's
runtime (executorch.runtime, forward called as upstream's text
runner calls it, argmax with the lowest index on ties) gives, with the
prompt fed in chunks up to forward's token bound (7: upstream's runner cuts
chunks of max_seq_length, 8, which these programs refuse).  The weights
are random (seeded), so the tokens are arbitrary but fixed.  The vocabulary
matches a byte-level tokenizer: ids 0-255 are bytes, 256 BOS, 257 EOS,
258-511 Llama 3's other special tokens.
"""

import json
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
# --only=NAME,NAME: export these variants alone (the others stay as they are).
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv[1:] if a.startswith("--only=")), None)
OUT = ARGS[0] if ARGS else os.path.join(HERE, "models")
PARAMS = {"dim": 16, "n_layers": 1, "n_heads": 2, "n_kv_heads": 1, "vocab_size": 512, "hidden_dim": 32,
          "norm_eps": 1e-5, "rope_theta": 10000.0}
MAX_SEQ, MAX_CONTEXT = 8, 16
VARIANTS = {
    "kv": ["-kv", "--use_sdpa_with_kv_cache"],
    "static": ["-kv", "--use_sdpa_with_kv_cache", "--disable_dynamic_shape"],
    "nokv": [],
    "plain": ["-kv", "--use_sdpa_with_kv_cache"],  # no --metadata: the tokenizer's EOS counts
    "fp16": ["-kv", "--use_sdpa_with_kv_cache", "-d", "fp16"],  # Half logits and KV cache
    # Hostile metadata: a KV cache of no positions; a KV program saying it has none.
    "badcontext": ["-kv", "--use_sdpa_with_kv_cache"],
    "badkv": ["-kv", "--use_sdpa_with_kv_cache"],
}
METADATA = {
    "plain": None,
    "badcontext": {"get_eos_ids": [257], "get_max_context_len": 0},
    "badkv": {"get_eos_ids": [257], "use_kv_cache": False},
}
PROMPTS = [[72, 105], [256, 84, 104, 101, 32, 71, 80, 76], list(b"Apache License 2.0")[:12]]
NEW_TOKENS = 6


def export(tmp):
    from executorch.examples.models.llama import export_llama_lib as lib
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    params = os.path.join(tmp, "params.json")
    with open(params, "w") as f:
        json.dump(PARAMS, f)
    torch.manual_seed(7)
    model = construct_transformer(ModelArgs(max_seq_len=MAX_CONTEXT, max_context_len=MAX_CONTEXT, **PARAMS))
    state = model.state_dict()
    for key, value in state.items():
        if value.dtype.is_floating_point and value.dim() >= 1 and "norm" not in key and "freqs" not in key:
            state[key] = torch.randn_like(value) * 0.8
    ckpt = os.path.join(tmp, "ckpt.pth")
    torch.save(state, ckpt)
    os.makedirs(OUT, exist_ok=True)
    for name, flags in VARIANTS.items():
        if ONLY and name not in ONLY:
            continue
        args = flags + ["--max_seq_length", str(MAX_SEQ), "--max_context_length", str(MAX_CONTEXT), "-c", ckpt,
                        "-p", params, "--output-dir", OUT, "--output_name", os.path.join(OUT, name + ".pte")]
        metadata = METADATA.get(name, {"get_eos_ids": [257]})
        if metadata:
            args += ["--metadata", json.dumps(metadata)]
        lib.export_llama(lib.build_args_parser().parse_args(args))


def greedy(path, prompt):
    from executorch.extension.llm.custom_ops import custom_ops  # noqa: F401
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(path).load_method("forward")
    kv = method.metadata.num_inputs() == 2
    bound = method.metadata.input_tensor_meta(0).sizes()[1]
    history, out = [], []

    def step(tokens):
        nonlocal history
        if kv:
            logits = method.execute([torch.tensor([tokens]), torch.tensor([len(history)])])[0]
            history += tokens
        else:
            history += tokens
            logits = method.execute([torch.tensor([history])])[0]
        return int(torch.argmax(logits.reshape(-1, logits.shape[-1])[-1]))

    chunk = bound if (kv and bound > 1) or not kv else 1
    nxt = None
    if kv:
        for i in range(0, len(prompt), chunk):
            nxt = step(prompt[i:i + chunk])
    else:
        nxt = step(prompt)
    capacity = MAX_CONTEXT if kv else bound
    while True:
        out.append(nxt)
        if len(out) == NEW_TOKENS:
            return out, "max_new_tokens"
        if len(history) >= capacity:
            return out, "context_full"
        nxt = step([nxt])


def main():
    if "--reference-only" not in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            export(tmp)
    reference = {"max_seq_len": MAX_SEQ, "max_context_len": MAX_CONTEXT, "new_tokens": NEW_TOKENS, "cases": []}
    for name in ["kv", "static", "nokv", "fp16"]:
        for prompt in PROMPTS:
            if name == "nokv" and len(prompt) > 7:
                continue
            tokens, stop = greedy(os.path.join(OUT, name + ".pte"), prompt)
            reference["cases"].append({"model": name + ".pte", "prompt": prompt, "tokens": tokens, "stop": stop})
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
