#!/usr/bin/env python3
"""Random texts through our tiktoken and llama2.c readers and the references.

Usage: PYTHON check_tokenizers_random.py TOKENIZER_ENCODE [N] [SEED]

PYTHON needs tiktoken and sentencepiece (the meson test exists only where
-Dexport_python / $EXECUTORCH_EXPORT_PYTHON has them).  N texts (default
3000; a fixed seed, so the verdict depends on the commit) mix the pieces the
pre-split pattern and the merges care about: every kind of Unicode white
space, case-folding letters, combining marks, digits, emoji, special-token
text and slices of the training text, plus a few long runs.  Each text must
encode to the ids of tiktoken (on bpe512.tiktoken, Llama 3's pattern and
specials) and of sentencepiece (on sp-bpe.model, the source of sp-bpe.bin),
as tokenizer-encode prints them.
"""

import random
import subprocess
import sys
import tempfile
from pathlib import Path

import sentencepiece as spm
import tiktoken
from tiktoken.load import load_tiktoken_bpe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tokenizers_tiktoken_llama2c import LLAMA3_PATTERN, LLAMA3_SPECIALS  # noqa: E402

LLM = Path(__file__).resolve().parent.parent
PIECES = list("abcXYZ019 '\t\n\r!?.,;-_<|>") + [
    "'s", "'S", "'ll", "'VE", "ſ", "\u212a",  # case folding in (?i:...)
    "<|eot_id|>", "<|begin_of_text|>", "<|reserved_special_token_246|>", "<s>", "</s>", "<0x41>",
    "\u0085", "\u00a0", "\u1680", "\u2009", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000",  # White_Space
    "\x0b", "\x0c", "\x1c", "\x1f", "\u180e", "\u200b", "\ufeff",  # white or not, depending on who asks
    "é", "e\u0301", "\u0300", "中", "日本", "١٢٣", "Ⅻ", "ǅ", "😀", "👍🏽", "👨\u200d👩", "\x01",
    "  ", "\n\n", " \n ", "   ", "\r\n",
]


def texts(n, seed):
    rng = random.Random(seed)
    train = (LLM / "data" / "train.txt").read_text(encoding="utf-8")
    out = ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40))) for _ in range(n)]
    for _ in range(n // 10):
        start = rng.randrange(len(train))
        out.append(train[start : start + rng.randint(1, 400)])
    out += [" " * 10000 + "x", "\n" * 5000 + " " * 5000, "a" * 5000, "ab " * 3000, "\u3000" * 2000 + "z"]
    return [t for t in out if "\0" not in t]


def main():
    tool = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    cases = texts(n, seed)
    ranks = load_tiktoken_bpe(str(LLM / "tokenizers" / "tiktoken" / "bpe512.tiktoken"))
    enc = tiktoken.Encoding(
        name="bpe512",
        pat_str=LLAMA3_PATTERN,
        mergeable_ranks=ranks,
        special_tokens={s: len(ranks) + i for i, s in enumerate(LLAMA3_SPECIALS)},
    )
    sp = spm.SentencePieceProcessor(model_file=str(LLM / "tokenizers" / "llama2c" / "sp-bpe.model"))
    checks = [
        ("tiktoken", LLM / "tokenizers" / "tiktoken" / "bpe512.tiktoken", lambda t: enc.encode(t, allowed_special="all")),
        ("llama2c", LLM / "tokenizers" / "llama2c" / "sp-bpe.bin", sp.encode),
    ]
    failed = False
    with tempfile.NamedTemporaryFile(suffix=".texts") as f:
        f.write(b"".join(t.encode("utf-8") + b"\0" for t in cases))
        f.flush()
        for name, path, reference in checks:
            got = subprocess.run([tool, str(path), f.name], capture_output=True, text=True, check=True).stdout
            lines = got.split("\n")[: len(cases)]
            assert len(lines) == len(cases), f"{name}: {len(lines)} lines for {len(cases)} texts"
            bad = 0
            for text, line in zip(cases, lines):
                want = " ".join(map(str, reference(text)))
                if line != want:
                    bad += 1
                    if bad <= 5:
                        print(f"{name}: {text!r}\n   got {line}\n  want {want}")
            print(f"{name}: {len(cases)} texts, {bad} differ from the reference")
            failed |= bad > 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
