"""The causal-LM cases' offline corpus: text already on the machine, byte-level token shards.

Used by the ``prepare_data.py`` of llama2_7b, llama3_8B and mixtral_8x7B. Text: by default
the English prose already on any Debian machine with Python (``textlm.corpus``: the Python
language reference, the standard library's docstrings, the licence texts); ``--source``
files or folders instead. Nothing is downloaded.

Tokenizer: the byte-fallback part of the Llama 2 vocabulary, which needs no model file:
``<unk>``=0, ``<s>``=1, ``</s>``=2 and byte b -> id 3 + b (Llama 2's and Mixtral's
``<0x00>``..``<0xFF>`` pieces are ids 3..258). Writes::

    DIR/train/shard_*.npy   uint16 1-D: each document as <s> bytes... </s>, concatenated
    DIR/eval/shard_*.npy    same, held-out documents
    DIR/tokenizer.json      the byte-level scheme above
    DIR/meta.json           sources (with sha256), sizes, how it was made
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from chipperf_runtime.training.textlm import corpus

SHARD_TOKENS = 1 << 24
BOS, EOS, BYTE_OFFSET = 1, 2, 3
TOKENIZER = {"type": "llama2-byte-fallback", "unk_id": 0, "bos_id": BOS, "eos_id": EOS,
             "byte_offset": BYTE_OFFSET, "vocab_size": BYTE_OFFSET + 256,
             "note": "ids 0-258 of the Llama 2 tokenizer: <unk>, <s>, </s>, <0x00>..<0xFF>"}


def encode(text: str) -> np.ndarray:
    """<s> + UTF-8 bytes shifted past the specials + </s>, as uint16."""
    body = np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.uint16) + BYTE_OFFSET
    return np.concatenate([[BOS], body, [EOS]]).astype(np.uint16)


def prepare(output: Path, documents: list[tuple[str, str]], eval_every: int,
            made_by: str) -> dict:
    parts: dict[str, list[np.ndarray]] = {"train": [], "eval": []}
    for name, text in documents:
        parts["eval" if corpus.is_eval(name, eval_every) else "train"].append(encode(text))
    output.mkdir(parents=True, exist_ok=True)
    streams = {part: np.concatenate(arrays) if arrays else np.zeros(0, np.uint16)
               for part, arrays in parts.items()}
    meta = {
        "format": "llama2-token-shards-v1",
        "made_by": made_by,
        "tokenizer": TOKENIZER["type"], "vocab_size": TOKENIZER["vocab_size"],
        "eval_every": eval_every,
        "tokens": {part: int(len(s)) for part, s in streams.items()},
        "shards": {part: corpus.write_shards(output / part, s, SHARD_TOKENS)
                   for part, s in streams.items()},
        "sources": corpus.sources(documents),
    }
    (output / "tokenizer.json").write_text(json.dumps(TOKENIZER, indent=1) + "\n")
    corpus.write_meta(output, meta)
    return meta


def main(argv: list[str] | None, description: str, made_by: str) -> int:
    """``prepare_data.py --output DIR [--source PATH ...] [--eval-every 10]``."""
    p = corpus.parser(description)
    args = p.parse_args(argv)
    documents = corpus.documents(p, args)
    meta = prepare(args.output, documents, args.eval_every, made_by)
    print(f"{args.output}: tokens {meta['tokens']}, {len(documents)} documents")
    return 0
