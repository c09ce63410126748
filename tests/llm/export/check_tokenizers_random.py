#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Random texts through our tokenizer readers and the reference libraries.

Usage: PYTHON check_tokenizers_random.py FORMAT TOKENIZER_ENCODE [N] [SEED]
       PYTHON check_tokenizers_random.py --available FORMAT

FORMAT is one of:
  tiktoken-llama2c  bpe512.tiktoken against tiktoken (Llama 3's pattern and
                    specials) and sp-bpe.bin against sentencepiece on
                    sp-bpe.model, the model it was converted from;
  sentencepiece     every tests/llm/tokenizers/sentencepiece/*.model (and
                    llama2c/sp-bpe.model) against sentencepiece;
  hf                every tests/llm/tokenizers/hf/*/tokenizer.json against
                    the `tokenizers` library (add_special_tokens=False).
PYTHON needs the format's reference modules; --available exits 0 only where
it has them (meson defines each test only there: -Dexport_python /
$EXECUTORCH_EXPORT_PYTHON).  N texts (a fixed seed per format, so the verdict
depends on the commit) mix the pieces the format's normalizers, pre-split
patterns and merges care about: Unicode white space of every kind, case
folding, combining marks, digits, emoji, special-token text and slices of
the training text, plus a few long runs.  Each text must encode to the
reference's ids, as tokenizer-encode prints them.
"""

import importlib
import random
import subprocess
import sys
import tempfile
from pathlib import Path

LLM = Path(__file__).resolve().parent.parent
TOKENIZERS = LLM / "tokenizers"

TIKTOKEN_PIECES = list("abcXYZ019 '\t\n\r!?.,;-_<|>") + [
    "'s", "'S", "'ll", "'VE", "ſ", "\u212a",  # case folding in (?i:...)
    "<|eot_id|>", "<|begin_of_text|>", "<|reserved_special_token_246|>", "<s>", "</s>", "<0x41>",
    "\u0085", "\u00a0", "\u1680", "\u2009", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000",  # White_Space
    "\x0b", "\x0c", "\x1c", "\x1f", "\u180e", "\u200b", "\ufeff",  # white or not, depending on who asks
    "é", "e\u0301", "\u0300", "中", "日本", "١٢٣", "Ⅻ", "ǅ", "😀", "👍🏽", "👨\u200d👩", "\x01",
    "  ", "\n\n", " \n ", "   ", "\r\n",
]
SENTENCEPIECE_PIECES = list("abcXYZ0123456789 '.,;-_<|>\t\n\r") + [
    "  ", "   ", " \n ", "\r\n", "\u3000", "\u00a0", "\u2028", "\u200b", "\ufeff", "\x01", "\x7f",
    "\u2581", "\u2581\u2581", " \u2581", "<|eot_id|>", "<|begin_of_text|>", "<s>", "</s>", "<unk>", "def",
    "ﬁ", "①", "Ａ", "ｶﾞ", "é", "e\u0301", "ǅ", "ß", "İ", "Ⅻ", "™", "…", "〜", "中", "😀", "👨\u200d👩",
    "\U0010ffff", "\ufffd",
]
HF_PIECES = list("abcXYZ019 '\t\n\r!?.,;-_<|>") + [
    "'s", "'S", "'ll", "'VE", "\u017f", "\u212a", "'\u017f",
    "<|eot_id|>", "<|begin_of_text|>", "<s>", "</s>", "<0x41>", "<mask>", "Apache", "Tok", "Hello World",
    "\u0085", "\u00a0", "\u1680", "\u2009", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000",
    "\x0b", "\x0c", "\x1c", "\x1f", "\u180e", "\u200b", "\ufeff", "\u200c", "\u200d",
    "é", "e\u0301", "\u0300", "中", "日本", "١٢٣", "Ⅻ", "ǅ", "İ", "ﬁ", "①", "😀", "👍🏽", "\x01",
    "  ", "\n\n", " \n ", "   ", "\r\n", "\u2581", "##",
]
LONG_RUNS = [" " * 10000 + "x", "\n" * 5000 + " " * 5000, "a" * 5000, "ab " * 3000, "\u3000" * 2000 + "z"]


def tiktoken_llama2c_checks():
    """(name, tokenizer path, reference encode) for bpe512 and sp-bpe."""
    import sentencepiece as spm
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from tokenizers_tiktoken_llama2c import LLAMA3_PATTERN, LLAMA3_SPECIALS

    ranks = load_tiktoken_bpe(str(TOKENIZERS / "tiktoken" / "bpe512.tiktoken"))
    enc = tiktoken.Encoding(
        name="bpe512",
        pat_str=LLAMA3_PATTERN,
        mergeable_ranks=ranks,
        special_tokens={s: len(ranks) + i for i, s in enumerate(LLAMA3_SPECIALS)},
    )
    sp = spm.SentencePieceProcessor(model_file=str(TOKENIZERS / "llama2c" / "sp-bpe.model"))
    return [
        ("tiktoken", TOKENIZERS / "tiktoken" / "bpe512.tiktoken", lambda t: enc.encode(t, allowed_special="all")),
        ("llama2c", TOKENIZERS / "llama2c" / "sp-bpe.bin", sp.encode),
    ]


def sentencepiece_checks():
    """Every SentencePiece fixture, and the model the llama2.c one came from."""
    import sentencepiece as spm

    models = sorted((TOKENIZERS / "sentencepiece").glob("*.model")) + [TOKENIZERS / "llama2c" / "sp-bpe.model"]
    return [(path.name, path, spm.SentencePieceProcessor(model_file=str(path)).encode) for path in models]


def hf_checks():
    """Every tokenizer.json fixture (its folder is what tokenizer-encode reads)."""
    from tokenizers import Tokenizer

    checks = []
    for folder in sorted(p for p in (TOKENIZERS / "hf").iterdir() if (p / "tokenizer.json").is_file()):
        reference = Tokenizer.from_file(str(folder / "tokenizer.json"))
        checks.append((folder.name, folder, lambda t, r=reference: r.encode(t, add_special_tokens=False).ids))
    return checks


# modules: what --available imports ("from tokenizers import Tokenizer", not a
# bare import, which a tokenizers/ folder in the working directory satisfies);
# words: the longest random text, in pieces; slices: one training-text slice
# per that many texts, of at most slice_len characters.
FORMATS = {
    "tiktoken-llama2c": dict(modules=["tiktoken", "sentencepiece"], checks=tiktoken_llama2c_checks,
                             pieces=TIKTOKEN_PIECES, words=40, slices=10, slice_len=400, runs=LONG_RUNS,
                             n=3000, seed=0),
    "sentencepiece": dict(modules=["sentencepiece"], checks=sentencepiece_checks, pieces=SENTENCEPIECE_PIECES,
                          words=30, slices=5, slice_len=300,
                          runs=[" " * 3000 + "x", "\u2581" * 500, "a" * 3000, "12345678901234567890" * 50],
                          n=2000, seed=0),
    "hf": dict(modules=["tokenizers.Tokenizer"], checks=hf_checks, pieces=HF_PIECES, words=40, slices=10,
               slice_len=400, runs=LONG_RUNS, n=1500, seed=20261203),
}


def available(fmt):
    for module in fmt["modules"]:
        name, _, attribute = module.partition(".")
        try:
            loaded = importlib.import_module(name)
        except ImportError:
            return False
        if attribute and not hasattr(loaded, attribute):
            return False
    return True


def texts(fmt, n, seed):
    rng = random.Random(seed)
    train = (LLM / "data" / "train.txt").read_text(encoding="utf-8")
    pieces = fmt["pieces"]
    out = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, fmt["words"]))) for _ in range(n)]
    for _ in range(n // fmt["slices"]):
        start = rng.randrange(len(train))
        out.append(train[start : start + rng.randint(1, fmt["slice_len"])])
    out += fmt["runs"]
    return [t for t in out if "\0" not in t]


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--available":
        sys.exit(0 if sys.argv[2] in FORMATS and available(FORMATS[sys.argv[2]]) else 1)
    if len(sys.argv) < 3 or sys.argv[1] not in FORMATS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(FORMATS)}}} TOKENIZER_ENCODE [N] [SEED]")
    fmt = FORMATS[sys.argv[1]]
    tool = sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else fmt["n"]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else fmt["seed"]
    cases = texts(fmt, n, seed)
    failed = False
    with tempfile.NamedTemporaryFile(suffix=".texts") as f:
        f.write(b"".join(t.encode("utf-8") + b"\0" for t in cases))
        f.flush()
        for name, path, reference in fmt["checks"]():
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
