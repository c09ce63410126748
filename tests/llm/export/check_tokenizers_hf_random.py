#!/usr/bin/env python3
"""Random texts through our tokenizer.json reader and the `tokenizers` library.

Usage: PYTHON check_tokenizers_hf_random.py TOKENIZER_ENCODE [N] [SEED]

PYTHON needs `tokenizers` (the meson test exists only where -Dexport_python /
$EXECUTORCH_EXPORT_PYTHON has it).  N texts (default 1500; a fixed seed, so
the verdict depends on the commit) mix what the normalizers, pre-tokenizers,
added tokens and merges of the fixtures care about: Unicode white space of
every kind, case folding, combining marks, digits, emoji, special-token text
and slices of the training text, plus a few long runs.  For every fixture in
tests/llm/tokenizers/hf/, each text must encode (add_special_tokens=False)
to the ids tokenizer-encode prints.
"""

import random
import subprocess
import sys
import tempfile
from pathlib import Path

from tokenizers import Tokenizer

LLM = Path(__file__).resolve().parent.parent
HF = LLM / "tokenizers" / "hf"
PIECES = list("abcXYZ019 '\t\n\r!?.,;-_<|>") + [
    "'s", "'S", "'ll", "'VE", "\u017f", "\u212a", "'\u017f",
    "<|eot_id|>", "<|begin_of_text|>", "<s>", "</s>", "<0x41>", "<mask>", "Apache", "Tok", "Hello World",
    "\u0085", "\u00a0", "\u1680", "\u2009", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000",
    "\x0b", "\x0c", "\x1c", "\x1f", "\u180e", "\u200b", "\ufeff", "\u200c", "\u200d",
    "é", "e\u0301", "\u0300", "中", "日本", "١٢٣", "Ⅻ", "ǅ", "İ", "ﬁ", "①", "😀", "👍🏽", "\x01",
    "  ", "\n\n", " \n ", "   ", "\r\n", "\u2581", "##",
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


def ours(encode, tokenizer, batch):
    with tempfile.NamedTemporaryFile(suffix=".txt") as f:
        f.write(b"".join(t.encode("utf-8") + b"\0" for t in batch))
        f.flush()
        run = subprocess.run([encode, str(tokenizer), f.name], capture_output=True, text=True, check=True)
    return [line.split() for line in run.stdout.splitlines()]


def main():
    encode = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261203
    batch = texts(n, seed)
    failures = 0
    fixtures = sorted(p for p in HF.iterdir() if (p / "tokenizer.json").is_file())
    for folder in fixtures:
        reference = Tokenizer.from_file(str(folder / "tokenizer.json"))
        got = ours(encode, folder, batch)
        assert len(got) == len(batch), f"{folder.name}: {len(got)} lines for {len(batch)} texts"
        bad = 0
        for text, line in zip(batch, got):
            want = [str(i) for i in reference.encode(text, add_special_tokens=False).ids]
            if line != want:
                bad += 1
                if bad <= 3:
                    print(f"{folder.name}: {text!r}\n   got {' '.join(line)}\n  want {' '.join(want)}")
        print(f"{folder.name}: {len(batch) - bad}/{len(batch)} texts match")
        failures += bad
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
