#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trains the SentencePiece fixture models and records their references.

Run with the Python that has the `sentencepiece` package (the reference;
see tests/models/README.md for the export venv):

    $EXECUTORCH_EXPORT_PYTHON tests/llm/export/tokenizers_sentencepiece.py

Each fixture NAME is trained on tests/llm/data/train.txt and written to
tests/llm/tokenizers/sentencepiece/NAME.model, with NAME.reference.json:
sentencepiece's ids and decoded text for every string of
tests/llm/data/corpus.json, some BOS/EOS counts, and the whole training
text (the format is described in tests/llm/test-tokenizer-corpus.c).
"""
import argparse
import io
import json
import os
import sys

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
LLM = os.path.dirname(HERE)
DATA = os.path.join(LLM, "data")
OUT = os.path.join(LLM, "tokenizers", "sentencepiece")

COMMON = dict(num_threads=1, minloglevel=2)

# name -> trainer options
FIXTURES = {
    # BPE with byte fallback, nmt_nfkc (sentencepiece's default normalization).
    "bpe-byte-fallback": dict(model_type="bpe", vocab_size=1024, byte_fallback=True),
    # Unigram with nmt_nfkc; unknown characters become the unknown id.
    "unigram-nfkc": dict(model_type="unigram", vocab_size=1024, normalization_rule_name="nmt_nfkc"),
    # Identity normalization, no dummy prefix, digits split, byte fallback and
    # user-defined pieces (kept whole, never normalized).
    "unigram-identity": dict(model_type="unigram", vocab_size=1024, normalization_rule_name="identity",
                             add_dummy_prefix=False, split_digits=True, byte_fallback=True,
                             user_defined_symbols=["<|eot_id|>", "<|begin_of_text|>", "def"]),
    # BPE keeping whitespace runs, "▁" as a suffix, no BOS, a user-defined
    # piece, unknown runs merged.
    "bpe-whitespace-suffix": dict(model_type="bpe", vocab_size=800, normalization_rule_name="identity",
                                  remove_extra_whitespaces=False, treat_whitespace_as_suffix=True,
                                  bos_id=-1, eos_id=1, unk_id=2, pad_id=3, user_defined_symbols=["<|eot_id|>"]),
    # Llama 2's tokenizer.model options: BPE, byte fallback, identity
    # normalization, whitespace runs kept (as whitespace-only pieces).
    "bpe-llama-like": dict(model_type="bpe", vocab_size=1024, byte_fallback=True, normalization_rule_name="identity",
                           remove_extra_whitespaces=False, split_digits=True, allow_whitespace_only_pieces=True),
    # The simpler model types.
    "char": dict(model_type="char", vocab_size=80, character_coverage=0.995, normalization_rule_name="identity"),
    "word": dict(model_type="word", vocab_size=600, normalization_rule_name="identity"),
}

# Fixtures whose reference has the whole training text; the others have
# its first TRAINING_EXCERPT characters (keeping the files small).
WHOLE_TRAINING_TEXT = {"bpe-byte-fallback", "unigram-nfkc"}
TRAINING_EXCERPT = 4000

# (corpus index, n_bos, n_eos) cases added to every fixture with BOS and EOS.
SPECIAL_COUNTS = [(0, 1, 0), (0, 1, 1), (1, 2, 1), (2, 1, 1), (25, 1, 2)]


def train(options):
    model = io.BytesIO()
    # The model records its input's name: make it the path in the tree.
    root = os.path.dirname(os.path.dirname(LLM))
    spm.SentencePieceTrainer.train(input=os.path.relpath(os.path.join(DATA, "train.txt"), root), model_writer=model,
                                   **COMMON, **options)
    return model.getvalue()


def case(sp, text, n_bos=0, n_eos=0):
    ids = sp.encode(text)
    ids = [sp.bos_id()] * n_bos + ids + [sp.eos_id()] * n_eos
    return {"text": text, "n_bos": n_bos, "n_eos": n_eos, "ids": ids, "decoded": sp.decode(ids)}


def dumps(reference):
    """Compact JSON, one case per line."""
    head = {k: v for k, v in reference.items() if k != "cases"}
    lines = [json.dumps(head, ensure_ascii=False)[:-1] + ', "cases": [']
    cases = [json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in reference["cases"]]
    lines.append(",\n".join(cases))
    lines.append("]}\n")
    return "\n".join(lines)


def main():
    os.chdir(os.path.dirname(os.path.dirname(LLM)))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=OUT, help="where the fixtures go (default: %(default)s)")
    parser.add_argument("names", nargs="*", help="fixtures to make (default: all)")
    args = parser.parse_args()
    with open(os.path.join(DATA, "corpus.json"), encoding="utf-8") as f:
        corpus = json.load(f)
    with open(os.path.join(DATA, "train.txt"), encoding="utf-8") as f:
        training_text = f.read()
    os.makedirs(args.out, exist_ok=True)

    for name in args.names or FIXTURES:
        blob = train(FIXTURES[name])
        sp = spm.SentencePieceProcessor(model_proto=blob)
        cases = [case(sp, text) for text in corpus]
        if sp.bos_id() >= 0 and sp.eos_id() >= 0:
            cases += [case(sp, corpus[i], n_bos, n_eos) for i, n_bos, n_eos in SPECIAL_COUNTS]
        elif sp.eos_id() >= 0:
            cases += [case(sp, corpus[i], 0, n_eos) for i, n_bos, n_eos in SPECIAL_COUNTS]
        cases.append(case(sp, training_text if name in WHOLE_TRAINING_TEXT else training_text[:TRAINING_EXCERPT]))
        reference = {
            "generator": "tests/llm/export/tokenizers_sentencepiece.py, sentencepiece " + spm.__version__,
            "tokenizer": name + ".model",
            "format": "sentencepiece",
            "vocab_size": sp.vocab_size(),
            "bos_id": sp.bos_id() if sp.bos_id() >= 0 else None,
            "eos_id": sp.eos_id() if sp.eos_id() >= 0 else None,
            "cases": cases,
        }
        with open(os.path.join(args.out, name + ".model"), "wb") as f:
            f.write(blob)
        with open(os.path.join(args.out, name + ".reference.json"), "w", encoding="utf-8") as f:
            f.write(dumps(reference))
        print(f"{name}: {len(blob)} bytes, vocab {sp.vocab_size()}, {len(cases)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
