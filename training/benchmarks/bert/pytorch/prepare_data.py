"""Build a small, real, offline MLM dataset in the layout the bert case reads.

    python3 prepare_data.py --output DIR [--source PATH ...] [--vocab-size 1024] [--seq-len 64]

Text: by default the English prose already on any Debian machine with Python: the Python
language reference shipped in the standard library (``pydoc_data.topics``), the docstrings of
the standard library's modules, and the licence texts in ``/usr/share/common-licenses``;
``--source`` uses files or folders of text instead. Nothing is downloaded. Writes::

    DIR/vocab.txt            WordPiece vocabulary built from the corpus (BERT format)
    DIR/train/shard_*.npy    uint16 [rows, seq_len]: [CLS] A [SEP] B [SEP] [PAD]...
    DIR/eval/shard_*.npy     same, from held-out documents
    DIR/meta.json            sources (with sha256), sizes, how it was made

Needs only numpy and the standard library.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import random
import sys
import sysconfig
import zlib
from pathlib import Path
from typing import Iterator

import bert_tokenizer as tok
import numpy as np

LICENSES = Path("/usr/share/common-licenses")
TEXT_SUFFIXES = {".txt", ".md", ".rst", ".text", ""}
SHARD_ROWS = 65536
MIN_TOKENS = 8


def default_documents() -> Iterator[tuple[str, str]]:
    """(name, text): Python's language reference topics, stdlib docstrings, licence texts."""
    import pydoc_data.topics as topics

    for key in sorted(topics.topics):
        yield f"pydoc_data.topics:{key}", topics.topics[key]
    yield from _docstring_documents(Path(sysconfig.get_paths()["stdlib"]))
    yield from _file_documents([LICENSES])


def _docstring_documents(stdlib: Path) -> Iterator[tuple[str, str]]:
    """One document per standard-library module: its docstrings, in source order."""
    for file in sorted(stdlib.rglob("*.py")):
        if {"site-packages", "dist-packages", "test", "tests"} & set(file.parts):
            continue
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        docs = [ast.get_docstring(node) for node in ast.walk(tree) if isinstance(
            node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
        text = "\n\n".join(d for d in docs if d)
        if text:
            yield f"stdlib:{file.relative_to(stdlib)}", text


def _file_documents(paths: list[Path]) -> Iterator[tuple[str, str]]:
    seen: set[Path] = set()
    for path in paths:
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            real = file.resolve()
            if real in seen or not real.is_file() or file.suffix.lower() not in TEXT_SUFFIXES:
                continue
            seen.add(real)
            yield str(file), real.read_text(encoding="utf-8", errors="replace")


def is_eval(name: str, eval_every: int) -> bool:
    """Hold out about 1/eval_every of the documents, chosen by a hash of their name."""
    return zlib.crc32(name.encode()) % eval_every == 0


def sequences(ids: list[int], seq_len: int, vocab: dict[str, int],
              rng: random.Random) -> Iterator[list[int]]:
    """Cut one document into [CLS] A [SEP] B [SEP] rows (A, B contiguous), padded."""
    block = seq_len - 3
    for start in range(0, len(ids), block):
        chunk = ids[start:start + block]
        if len(chunk) < MIN_TOKENS:
            continue
        cut = rng.randint(1, len(chunk) - 1)
        row = [vocab[tok.CLS], *chunk[:cut], vocab[tok.SEP], *chunk[cut:], vocab[tok.SEP]]
        yield row + [vocab[tok.PAD]] * (seq_len - len(row))


def write_shards(folder: Path, rows: list[list[int]], vocab_size: int) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    dtype = np.uint16 if vocab_size <= 65536 else np.int32
    names = []
    for i, start in enumerate(range(0, len(rows), SHARD_ROWS)):
        name = f"shard_{i:05d}.npy"
        np.save(folder / name, np.asarray(rows[start:start + SHARD_ROWS], dtype=dtype))
        names.append(name)
    return names


def prepare(output: Path, documents: list[tuple[str, str]], vocab_size: int, seq_len: int,
            eval_every: int, seed: int) -> dict:
    tokens = tok.build_vocab((text for _, text in documents), vocab_size)
    output.mkdir(parents=True, exist_ok=True)
    tok.write_vocab(output / "vocab.txt", tokens)
    vocab = tok.read_vocab(output / "vocab.txt")
    rng = random.Random(seed)
    split: dict[str, list[list[int]]] = {"train": [], "eval": []}
    for name, text in documents:
        part = "eval" if is_eval(name, eval_every) else "train"
        split[part] += sequences(tok.tokenize(text, vocab), seq_len, vocab, rng)
    random.Random(seed).shuffle(split["train"])
    meta = {
        "format": "bert-mlm-shards-v1",
        "made_by": "training/benchmarks/bert/pytorch/prepare_data.py",
        "tokenizer": "bert uncased basic tokenizer + WordPiece (vocab.txt)",
        "vocab_size": len(tokens), "seq_len": seq_len, "seed": seed, "eval_every": eval_every,
        "rows": {part: len(rows) for part, rows in split.items()},
        "shards": {part: write_shards(output / part, rows, len(tokens))
                   for part, rows in split.items()},
        "sources": [{"name": n, "chars": len(t), "sha256": hashlib.sha256(t.encode()).hexdigest()}
                    for n, t in documents],
    }
    (output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--output", required=True, type=Path)
    p.add_argument("--source", action="append", type=Path, default=[],
                   help="text file or folder (repeatable); default: pydoc topics + licences")
    p.add_argument("--vocab-size", type=int, default=1024)
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--eval-every", type=int, default=10)
    p.add_argument("--seed", type=int, default=1234)
    args = p.parse_args(argv)
    documents = list(_file_documents(args.source) if args.source else default_documents())
    if not documents:
        p.error("no text documents found in the sources")
    meta = prepare(args.output, documents, args.vocab_size, args.seq_len, args.eval_every,
                   args.seed)
    print(f"{args.output}: vocab {meta['vocab_size']}, rows {meta['rows']}, "
          f"{len(documents)} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
