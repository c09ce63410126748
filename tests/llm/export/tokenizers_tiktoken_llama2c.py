#!/usr/bin/env python3
"""Write the tiktoken and llama2.c tokenizer fixtures and their references.

Usage (needs tiktoken, tokenizers and sentencepiece; the export venv of
tests/models/README.md has them):

    $EXECUTORCH_EXPORT_PYTHON tests/llm/export/tokenizers_tiktoken_llama2c.py

Both tokenizers are trained on tests/llm/data/train.txt:

tests/llm/tokenizers/tiktoken/bpe512.tiktoken
    A byte-level BPE of 512 ranks (the 256 bytes, then 256 merges) trained
    with `tokenizers` over Llama 3's pre-split pattern; a merge's rank is
    its place in merge order.  Loaded back with tiktoken's own reader and
    used as a tiktoken Encoding with Llama 3's pattern and upstream's 256
    special tokens (ids 512 + i): vocabulary 768.
tests/llm/tokenizers/llama2c/sp-bpe.bin (and sp-bpe.model)
    A SentencePiece BPE model (byte_fallback, identity normalizer, no
    whitespace collapsing, as Llama 2's), converted to llama2.c's
    tokenizer.bin as pytorch_tokenizers' llama2c tool does.

Each REFERENCE.json (format: tests/llm/test-tokenizer-corpus.c) records,
for tests/llm/data/corpus.json plus a few BOS/EOS-count, special-token and
whitespace cases, the ids of the reference library (tiktoken; sentencepiece
on the .model) and the text of decoding them token by token as upstream's
runner defines it.  The fuzz seeds tests/fuzz/seeds/tokenizer/ are the two
files framed as fuzz-tokenizer reads them (format byte, text length, file,
text).
"""

import base64
import io
import json
import struct
import sys
from pathlib import Path

import sentencepiece as spm
import tiktoken
from tiktoken.load import load_tiktoken_bpe
from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

HERE = Path(__file__).resolve().parent
LLM = HERE.parent
DATA = LLM / "data"
FUZZ_SEEDS = LLM.parent / "fuzz" / "seeds" / "tokenizer"

LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# Upstream's runner (llm-runner: Llama 3's list without <|image|>).
LLAMA3_SPECIALS = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>",
    "<|step_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
]
LLAMA3_SPECIALS += [f"<|reserved_special_token_{i}|>" for i in range(2, 2 + 256 - len(LLAMA3_SPECIALS))]
assert len(LLAMA3_SPECIALS) == 256

# Beyond corpus.json: BOS/EOS counts, special-token text, whitespace runs
# (where the lookahead matters), Unicode white space and case folding.
EXTRA_TEXTS = [
    "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|>"
    "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "<|reserved_special_token_246|> is the last; <|reserved_special_token_247|> and <|image|> are text",
    "<|eot_id|><|eot_id|>x<|end_of_text|",
    "a   b",
    "  leading",
    "x  \n  y\n\n\n  z  ",
    "a" + " " * 300 + "b",
    " " * 64,
    "\t\t\tindented\n\t\treturn",
    "NEL\u0085 line\u2028sep\u2029para\u3000ideo\u00a0nbsp",
    "HE'S DON'T WE'LL I'M 'ſ 'ſt",
    "12345678901234567890 1.5e-10",
]
BOS_EOS_CASES = [("Hello, world!", 1, 0), ("Hello, world!", 1, 1), ("", 1, 1), ("", 0, 2), ("x", 2, 3)]


def byte_level_decoder():
    """GPT-2's byte-level alphabet, character back to byte."""
    keep = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(0x100 + n)
            n += 1
    return {c: b for b, c in table.items()}


def train_tiktoken(text):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=512, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator(text.splitlines(keepends=True), trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    to_byte = byte_level_decoder()

    def as_bytes(s):
        return bytes(to_byte[c] for c in s)

    ranks = {bytes([b]): b for b in range(256)}
    for merge in merges:
        left, right = merge.split(" ") if isinstance(merge, str) else merge
        joined = as_bytes(left) + as_bytes(right)
        if joined not in ranks and len(ranks) < 512:
            ranks[joined] = len(ranks)
    return ranks


def write_tiktoken(ranks, path):
    with open(path, "w", encoding="ascii", newline="\n") as f:
        for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
            f.write(f"{base64.b64encode(token).decode('ascii')} {rank}\n")


def tiktoken_reference(path, texts):
    ranks = load_tiktoken_bpe(str(path))
    n = len(ranks)
    enc = tiktoken.Encoding(
        name=path.stem,
        pat_str=LLAMA3_PATTERN,
        mergeable_ranks=ranks,
        special_tokens={s: n + i for i, s in enumerate(LLAMA3_SPECIALS)},
    )
    assert enc.n_vocab == n + 256
    bos, eos = n, n + 1
    cases = []
    for text, n_bos, n_eos in texts:
        ids = [bos] * n_bos + enc.encode(text, allowed_special="all") + [eos] * n_eos
        pieces = b"".join(enc.decode_single_token_bytes(i) for i in ids)
        cases.append({"text": text, "n_bos": n_bos, "n_eos": n_eos, "ids": ids, "decoded": pieces.decode("utf-8")})
    # The special texts came out as one id each: the list is the one encoded.
    assert enc.encode("<|eot_id|>", allowed_special="all") == [n + 9]
    return {
        "tokenizer": path.name,
        "format": "tiktoken",
        "vocab_size": enc.n_vocab,
        "bos_id": bos,
        "eos_id": eos,
        "cases": cases,
    }


def train_sentencepiece(text, vocab_size=1000):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(text.splitlines()),
        model_writer=model,
        model_type="bpe",
        vocab_size=vocab_size,
        byte_fallback=True,
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,
        add_dummy_prefix=True,
        allow_whitespace_only_pieces=True,
        split_digits=True,
        character_coverage=1.0,
        unk_id=0,
        bos_id=1,
        eos_id=2,
        pad_id=-1,
        num_threads=1,
        minloglevel=2,
    )
    return model.getvalue()


def write_llama2c(sp, path):
    """tokenizer.bin as pytorch_tokenizers' Llama2cTokenizer.export writes it."""
    pieces, scores = [], []
    for i in range(sp.vocab_size()):
        piece = sp.id_to_piece(i)
        if i == sp.bos_id():
            piece = "<s>"
        elif i == sp.eos_id():
            piece = "</s>"
        pieces.append(piece.replace("\u2581", " ").encode("utf-8"))
        scores.append(sp.get_score(i))
    with open(path, "wb") as f:
        f.write(struct.pack("<iiii", sp.vocab_size(), sp.bos_id(), sp.eos_id(), max(len(p) for p in pieces)))
        for piece, score in zip(pieces, scores):
            f.write(struct.pack("<fi", score, len(piece)))
            f.write(piece)
    return pieces


def llama2c_decode(pieces, bos, ids):
    """Upstream's llama2c decode, token by token (the runner's view)."""
    out = b""
    prev = None
    for i in ids:
        piece = pieces[i]
        if prev == bos and piece.startswith(b" "):
            piece = piece[1:]
        if len(piece) == 6 and piece.startswith(b"<0x") and piece.endswith(b">"):
            piece = bytes([int(piece[3:5], 16)])
        out += piece
        prev = i
    return out.decode("utf-8")


def llama2c_reference(sp, pieces, path, texts):
    bos, eos = sp.bos_id(), sp.eos_id()
    cases = []
    for text, n_bos, n_eos in texts:
        body = sp.encode(text)
        ids = [bos] * n_bos + body + [eos] * n_eos
        decoded = llama2c_decode(pieces, bos, ids)
        # The pieces joined are sentencepiece's decode, but for the control
        # tokens' text and, without BOS before it, the dummy prefix's space.
        inner = decoded[len("<s>") * n_bos : len(decoded) - len("</s>") * n_eos]
        want = sp.decode(body)
        assert inner == want or (n_bos == 0 and inner == " " + want), (text, inner, want)
        cases.append({"text": text, "n_bos": n_bos, "n_eos": n_eos, "ids": ids, "decoded": decoded})
    return {
        "tokenizer": path.name,
        "format": "llama2c",
        "vocab_size": sp.vocab_size(),
        "bos_id": bos,
        "eos_id": eos,
        "cases": cases,
    }


def write_json(obj, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1)
        f.write("\n")


def main():
    train = (DATA / "train.txt").read_text(encoding="utf-8")
    corpus = json.loads((DATA / "corpus.json").read_text(encoding="utf-8"))
    texts = [(t, 0, 0) for t in corpus + EXTRA_TEXTS] + BOS_EOS_CASES

    out = LLM / "tokenizers" / "tiktoken"
    out.mkdir(parents=True, exist_ok=True)
    tiktoken_file = out / "bpe512.tiktoken"
    write_tiktoken(train_tiktoken(train), tiktoken_file)
    write_json(tiktoken_reference(tiktoken_file, texts), out / "bpe512.reference.json")

    out = LLM / "tokenizers" / "llama2c"
    out.mkdir(parents=True, exist_ok=True)
    model = train_sentencepiece(train)
    (out / "sp-bpe.model").write_bytes(model)
    sp = spm.SentencePieceProcessor(model_proto=model)
    bin_file = out / "sp-bpe.bin"
    pieces = write_llama2c(sp, bin_file)
    write_json(llama2c_reference(sp, pieces, bin_file, texts), out / "sp-bpe.reference.json")

    # Small enough for the tiny llama of tests/models/llm (512 logits), so
    # that upstream's runner can be compared on them: the 256 bytes alone
    # (with upstream's 256 specials, vocabulary 512), and a SentencePiece
    # BPE of 400 pieces.
    out = LLM / "tokenizers" / "tiktoken"
    small_tiktoken = out / "bytes256.tiktoken"
    write_tiktoken({bytes([b]): b for b in range(256)}, small_tiktoken)
    write_json(tiktoken_reference(small_tiktoken, texts), out / "bytes256.reference.json")
    out = LLM / "tokenizers" / "llama2c"
    small = train_sentencepiece(train, 400)
    (out / "sp-bpe400.model").write_bytes(small)
    sp = spm.SentencePieceProcessor(model_proto=small)
    small_bin = out / "sp-bpe400.bin"
    pieces = write_llama2c(sp, small_bin)
    write_json(llama2c_reference(sp, pieces, small_bin, texts), out / "sp-bpe400.reference.json")

    # Fuzz seeds: fuzz-tokenizer's first byte picks the format (the
    # LlmTokenizerFormat value: 2 tiktoken, 4 llama2c), the second is the
    # length of the text after the file.
    FUZZ_SEEDS.mkdir(parents=True, exist_ok=True)
    text = "Hello <|eot_id|>  a   b\n\u00e9\U0001F600".encode("utf-8")
    (FUZZ_SEEDS / "tiktoken-bpe512").write_bytes(bytes([2, len(text)]) + tiktoken_file.read_bytes() + text)
    (FUZZ_SEEDS / "llama2c-sp-bpe").write_bytes(bytes([4, len(text)]) + bin_file.read_bytes() + text)
    for f in [tiktoken_file, bin_file, out / "sp-bpe.model", small_tiktoken, small_bin, out / "sp-bpe400.model"]:
        print(f"{f.relative_to(LLM.parent.parent)}: {f.stat().st_size} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
