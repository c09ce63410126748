#!/usr/bin/env python3
"""Hugging Face tokenizer.json fixtures for tests/llm (test-tokenizer-corpus).

Run with the export interpreter (it needs the `tokenizers` package):

    $EXECUTORCH_EXPORT_PYTHON tests/llm/export/tokenizers_hf.py

Trains small BPE tokenizers (vocabulary <= 1024) on tests/llm/data/train.txt
with `tokenizers`, writes each as tests/llm/tokenizers/hf/NAME/tokenizer.json
(plus tokenizer_config.json / special_tokens_map.json where the fixture
tests them) and records NAME.reference.json: what `tokenizers` encodes and
decodes for every string of tests/llm/data/corpus.json and a few extra ones.

How the cases map onto the C interface (documented in hf-json.c):
  * n_bos = n_eos = 0 is encode(add_special_tokens=False);
  * with a post-processor template, n_bos > 0 adds the template's special
    tokens before $A and n_eos > 0 those after it, so (1, 1) is
    encode(add_special_tokens=True);
  * without one, n_bos BOS and n_eos EOS ids are added around the text (the
    rule every format shares), so those cases are computed here.
The decoded string is decode(ids, skip_special_tokens=False).

BPE training breaks ties between equally frequent pairs in no fixed order,
so a rerun may change some files; each reference is recorded from the
tokenizer.json written beside it, so the set stays consistent.
"""
import json
import os
import sys

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

HERE = os.path.dirname(os.path.abspath(__file__))
LLM = os.path.dirname(HERE)
DATA = os.path.join(LLM, "data")
OUT = os.path.join(LLM, "tokenizers", "hf")
TRAIN = os.path.join(DATA, "train.txt")

GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                  r"|\s*[\r\n]+|\s+(?!\S)|\s+")


# Every fixture also gets these: characters where regex engines and Unicode
# tables disagree (U+180E is \s to PCRE2, not to Oniguruma; U+001C..U+001F
# are white space to Python only; long s and the Kelvin sign fold to s and k).
EXTRA_ALL = ["a \u180e b-\u180e x  \u180e", "x\x1c\x1d\x1e\x1fy \ufeffz", "IT'\u017f it'\u212a \u212aelvin",
             "\u0085next\u2028line\u2029para", "tab\x0bvt\x0cff"]


def train(tok, special, **kw):
    trainer = trainers.BpeTrainer(vocab_size=1024, special_tokens=special, show_progress=False, **kw)
    tok.train([TRAIN], trainer)
    return tok


def gpt2():
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    train(tok, ["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    # No tokenizer_config.json: BOS and EOS come from the well-known names.
    return tok, {}, ["<|endoftext|>Hello<|endoftext|>", "word<|endoftext|> x"]


def llama3():
    tok = Tokenizer(models.BPE(ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    special = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
    train(tok, special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, rstrip=True, special=True, normalized=False)])
    tok.add_tokens([AddedToken("Apache", single_word=True, normalized=False, special=False)])
    bos = tok.token_to_id("<|begin_of_text|>")
    tok.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(single="<|begin_of_text|> $A", pair="<|begin_of_text|> $A <|begin_of_text|> $B",
                                      special_tokens=[("<|begin_of_text|>", bos)]),
    ])
    config = {"tokenizer_config.json": {"bos_token": "<|begin_of_text|>",
                                        "eos_token": {"content": "<|eot_id|>", "special": True}}}
    extra = ["a <mask> b", "x<mask>  y", "   <mask>\n\nz", "Apache Apachex xApache (Apache)",
             "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>", "HELLO'S it'S THEY'LL"]
    return tok, config, extra


def llama2(split=False, decoder="sentencepiece"):
    tok = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="first", split=True)
    byte_tokens = ["<0x%02X>" % b for b in range(256)]
    train(tok, ["<unk>", "<s>", "</s>"] + byte_tokens)
    # In Llama 2 the byte tokens are plain vocabulary entries, not added tokens.
    data = json.loads(tok.to_str())
    data["added_tokens"] = [t for t in data["added_tokens"] if t["content"] not in byte_tokens]
    tok = Tokenizer.from_str(json.dumps(data))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="first", split=split)
    if decoder == "sentencepiece":
        tok.decoder = decoders.Sequence([decoders.Replace("\u2581", " "), decoders.ByteFallback(), decoders.Fuse(),
                                         decoders.Strip(" ", 1, 0)])
    else:
        tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace(replacement="\u2581",
                                                                                     prepend_scheme="first")])
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B",
                                                       special_tokens=[("<s>", tok.token_to_id("<s>"))])
    config = {"special_tokens_map.json": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}}
    extra = ["<s>Hello</s>", "Hello <s> world", "\u2581already", "  two leading", "🦙 llama ∰ ☃"]
    return tok, config, extra


def nfkc_lower():
    tok = Tokenizer(models.BPE(unk_token="[UNK]", end_of_word_suffix="</w>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase(),
                                           normalizers.Replace(Regex(r"\s+"), " "), normalizers.Strip()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(), pre_tokenizers.Punctuation(),
                                                 pre_tokenizers.Digits(individual_digits=True)])
    train(tok, ["[UNK]", "[CLS]", "[SEP]"], end_of_word_suffix="</w>")
    tok.add_tokens([AddedToken("Hello World", normalized=True)])
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    extra = ["HELLO WORLD and Ｈｅｌｌｏ　Ｗｏｒｌｄ", "ﬁnance Ⅻ ①②", "İstanbul ΣΊΣΥΦΟΣ", "[CLS] text [SEP]"]
    return tok, {}, extra


def bert_like():
    """continuing_subword_prefix, BertPreTokenizer, StripAccents, BertProcessing,
    added tokens with lstrip/rstrip/single_word matched after normalization."""
    tok = Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##"))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    train(tok, ["[UNK]", "[CLS]", "[SEP]"], continuing_subword_prefix="##")
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")),
                                                   ("[CLS]", tok.token_to_id("[CLS]")))
    tok.add_tokens([AddedToken("Tok", single_word=True, lstrip=True, rstrip=True, normalized=True)])
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, normalized=True, special=True)])
    extra = ["tok Tok TOK xtok tok_ tok. (tok)", "a  <mask>  b <MASK>", "Crème brûlée ## ##ing"]
    return tok, {}, extra


def variant(base, name, normalizer=None, pre_tokenizer=None, decoder=None):
    """A copy of @base with other components: the vocabulary need not fit them."""
    data = json.loads(base.to_str())
    if normalizer is not None:
        data["normalizer"] = json.loads(normalizer.to_str()) if hasattr(normalizer, "to_str") else normalizer
    if pre_tokenizer is not None:
        data["pre_tokenizer"] = pre_tokenizer
    if decoder is not None:
        data["decoder"] = decoder
    return Tokenizer.from_str(json.dumps(data))


def component(obj):
    """The JSON of one component, as a Tokenizer would serialize it."""
    tok = Tokenizer(models.BPE())
    if isinstance(obj, pre_tokenizers.PreTokenizer):
        tok.pre_tokenizer = obj
        return json.loads(tok.to_str())["pre_tokenizer"]
    if isinstance(obj, normalizers.Normalizer):
        tok.normalizer = obj
        return json.loads(tok.to_str())["normalizer"]
    tok.decoder = obj
    return json.loads(tok.to_str())["decoder"]


def has_template(tok):
    """Whether the post-processor adds special tokens around the text."""
    data = json.loads(tok.to_str())
    proc = data.get("post_processor")
    procs = proc.get("processors", []) if proc and proc["type"] == "Sequence" else [proc] if proc else []
    for p in procs:
        if p["type"] in ("TemplateProcessing", "BertProcessing", "RobertaProcessing"):
            return True
    return False


def record(name, tok, config, extra, bos, eos, with_train, merges_as_strings=False):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    data = json.loads(tok.to_str())
    if merges_as_strings:
        # The older "a b" form (byte-level tokens hold no spaces).
        data["model"]["merges"] = [" ".join(pair) for pair in data["model"]["merges"]]
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
    for file, content in config.items():
        with open(os.path.join(folder, file), "w", encoding="utf-8") as f:
            json.dump(content, f, ensure_ascii=False, indent=1)
    # Check the saved file is what we test against.
    tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    with open(os.path.join(DATA, "corpus.json"), encoding="utf-8") as f:
        texts = json.load(f) + extra + EXTRA_ALL
    if with_train:
        with open(TRAIN, encoding="utf-8") as f:
            texts.append(f.read())
    with_template = has_template(tok)
    cases = []

    def add(text, n_bos, n_eos):
        if n_bos == 0 and n_eos == 0:
            ids = tok.encode(text, add_special_tokens=False).ids
        elif with_template:
            assert n_bos > 0 and n_eos > 0
            ids = tok.encode(text, add_special_tokens=True).ids
        else:
            ids = [bos] * n_bos + tok.encode(text, add_special_tokens=False).ids + [eos] * n_eos
        cases.append({"text": text, "n_bos": n_bos, "n_eos": n_eos, "ids": ids,
                      "decoded": tok.decode(ids, skip_special_tokens=False)})

    for text in texts:
        add(text, 0, 0)
    for text in ["Hello, world!", "", "<s>x", texts[1]]:
        add(text, 1, 1)
    if not with_template:
        add("Hello, world!", 2, 0)
        add("Hello, world!", 0, 1)
    vocab = tok.get_vocab(with_added_tokens=True)
    ref = {"tokenizer": name + "/tokenizer.json", "format": "hf", "vocab_size": max(vocab.values()) + 1,
           "bos_id": bos, "eos_id": eos, "cases": cases}
    with open(os.path.join(OUT, name + ".reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False, indent=0)
        f.write("\n")


def main():
    import tokenizers
    print("tokenizers", tokenizers.__version__, file=sys.stderr)
    tok, config, extra = gpt2()
    eot = tok.token_to_id("<|endoftext|>")
    record("gpt2", tok, config, extra, eot, eot, True, merges_as_strings=True)

    tok, config, extra = llama3()
    record("llama3", tok, config, extra, tok.token_to_id("<|begin_of_text|>"), tok.token_to_id("<|eot_id|>"), True)

    l2, config, extra = llama2()
    record("llama2", l2, config, extra, l2.token_to_id("<s>"), l2.token_to_id("</s>"), True)
    tok, config, extra = llama2(split=True, decoder="metaspace")
    record("llama2-metaspace", tok, config, extra, l2.token_to_id("<s>"), l2.token_to_id("</s>"), False)

    base, config, extra = nfkc_lower()
    record("nfkc-lower", base, config, extra, base.token_to_id("[CLS]"), base.token_to_id("[SEP]"), False)

    tok, config, extra = bert_like()
    record("bert-like", tok, config, extra, tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]"), False)

    # The Llama 2 layout of Hugging Face's converted files: no pre-tokenizer,
    # Prepend and Replace normalizers (the whole text is one BPE word).
    tok = variant(l2, "llama2-normalizer", normalizer={"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"}, {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]})
    data = json.loads(tok.to_str())
    data["pre_tokenizer"] = None
    tok = Tokenizer.from_str(json.dumps(data))
    _, config, extra = llama2()
    record("llama2-normalizer", tok, config, extra, l2.token_to_id("<s>"), l2.token_to_id("</s>"), False)

    # Variants of one trained model, for the components the four above do not use.
    cls, sep = base.token_to_id("[CLS]"), base.token_to_id("[SEP]")
    split_variants = {
        "split-behaviours": pre_tokenizers.Sequence([
            pre_tokenizers.Split(",", behavior="merged_with_previous"),
            pre_tokenizers.Split(Regex(r"\d+"), behavior="merged_with_next"),
            pre_tokenizers.Split(Regex(r"[aeiou]"), behavior="contiguous"),
            pre_tokenizers.Split(" ", behavior="removed"),
            pre_tokenizers.Split(Regex(r"\p{Lu}\p{Ll}*"), behavior="isolated", invert=True),
        ]),
        "split-removed-invert": pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(r"\w+|[^\w\s]+"), behavior="removed", invert=True),
            pre_tokenizers.Digits(individual_digits=False),
            pre_tokenizers.WhitespaceSplit(),
        ]),
        "metaspace-always": pre_tokenizers.Metaspace(replacement="_", prepend_scheme="always", split=True),
        "bytelevel-prefix": pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True),
    }
    norm_variants = {
        "split-behaviours": normalizers.NFD(),
        "split-removed-invert": normalizers.Sequence([normalizers.NFKD(), normalizers.Prepend("\u2581"),
                                                      normalizers.Replace("e", "E")]),
        "metaspace-always": normalizers.Sequence([normalizers.NFC(), normalizers.Strip(left=False, right=True)]),
        "bytelevel-prefix": normalizers.Sequence([]),
    }
    dec_variants = {
        "split-behaviours": decoders.Sequence([decoders.Replace(" ", "."), decoders.Strip("a", 0, 1)]),
        "split-removed-invert": decoders.Sequence([decoders.Strip("\u2581", 2, 0), decoders.Fuse()]),
        "metaspace-always": decoders.Metaspace(replacement="_", prepend_scheme="always"),
        "bytelevel-prefix": decoders.ByteLevel(),
    }
    for name, pre in split_variants.items():
        tok = variant(base, name, normalizer=component(norm_variants[name]), pre_tokenizer=component(pre),
                      decoder=component(dec_variants[name]))
        record(name, tok, {}, extra + ["Numbers 12,34 and Capital Words, a, b,, 99x"], cls, sep, False)


if __name__ == "__main__":
    main()
