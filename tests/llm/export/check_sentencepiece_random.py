#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Random texts through our SentencePiece reader and sentencepiece itself.

Usage: PYTHON check_sentencepiece_random.py TOKENIZER_ENCODE [N] [SEED]

PYTHON needs sentencepiece (the meson test exists only where
-Dexport_python / $EXECUTORCH_EXPORT_PYTHON has it).  N texts (default 2000;
a fixed seed, so the verdict depends on the commit) mix what normalization,
whitespace handling and the segmenters care about: Unicode spaces, runs of
them, characters NFKC rewrites, literal "▁", user-defined and control piece
text, unknown characters, digits, and slices of the training text.  Each
must encode, with every fixture of tests/llm/tokenizers/sentencepiece (and
tests/llm/tokenizers/llama2c/sp-bpe.model), to
the ids sentencepiece gives, as tokenizer-encode prints them.
"""

import random
import subprocess
import sys
import tempfile
from pathlib import Path

import sentencepiece as spm

LLM = Path(__file__).resolve().parent.parent
# Ours, and the model the llama2.c fixture was converted from.
FIXTURES = sorted((LLM / "tokenizers" / "sentencepiece").glob("*.model")) + [
    LLM / "tokenizers" / "llama2c" / "sp-bpe.model"
]
PIECES = list("abcXYZ0123456789 '.,;-_<|>\t\n\r") + [
    "  ", "   ", " \n ", "\r\n", "\u3000", "\u00a0", "\u2028", "\u200b", "\ufeff", "\x01", "\x7f",
    "\u2581", "\u2581\u2581", " \u2581", "<|eot_id|>", "<|begin_of_text|>", "<s>", "</s>", "<unk>", "def",
    "ﬁ", "①", "Ａ", "ｶﾞ", "é", "e\u0301", "ǅ", "ß", "İ", "Ⅻ", "™", "…", "〜", "中", "😀", "👨\u200d👩",
    "\U0010ffff", "\ufffd",
]


def texts(n, seed):
    rng = random.Random(seed)
    train = (LLM / "data" / "train.txt").read_text(encoding="utf-8")
    out = ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30))) for _ in range(n)]
    for _ in range(n // 5):
        start = rng.randrange(len(train))
        out.append(train[start : start + rng.randint(1, 300)])
    out += [" " * 3000 + "x", "\u2581" * 500, "a" * 3000, "12345678901234567890" * 50]
    return [t for t in out if "\0" not in t]


def main():
    tool = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    cases = texts(n, seed)
    failed = False
    with tempfile.NamedTemporaryFile(suffix=".texts") as f:
        f.write(b"".join(t.encode("utf-8") + b"\0" for t in cases))
        f.flush()
        for path in FIXTURES:
            sp = spm.SentencePieceProcessor(model_file=str(path))
            got = subprocess.run([tool, str(path), f.name], capture_output=True, text=True, check=True).stdout
            lines = got.split("\n")[: len(cases)]
            assert len(lines) == len(cases), f"{path.name}: {len(lines)} lines for {len(cases)} texts"
            bad = 0
            for text, line in zip(cases, lines):
                want = " ".join(map(str, sp.encode(text)))
                if line != want:
                    bad += 1
                    if bad <= 5:
                        print(f"{path.name}: {text!r}\n   got {line}\n  want {want}")
            print(f"{path.name}: {len(cases)} texts, {bad} differ from sentencepiece")
            failed |= bad > 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
