"""Build a small, real, offline causal-LM dataset in the layout the llama2_7b case reads.

    python3 prepare_data.py --output DIR [--source PATH ...] [--eval-every 10]

Text: by default the English prose already on any Debian machine with Python: the Python
language reference shipped in the standard library (``pydoc_data.topics``), the docstrings of
the standard library's modules, and the licence texts in ``/usr/share/common-licenses``;
``--source`` uses files or folders of text instead. Nothing is downloaded.

Tokenizer: the byte-fallback part of the Llama 2 vocabulary, which needs no model file:
``<unk>``=0, ``<s>``=1, ``</s>``=2 and byte b -> id 3 + b (Llama's ``<0x00>``..``<0xFF>``
pieces are ids 3..258). Writes::

    DIR/train/shard_*.npy   uint16 1-D: each document as <s> bytes... </s>, concatenated
    DIR/eval/shard_*.npy    same, held-out documents
    DIR/tokenizer.json      the byte-level scheme above
    DIR/meta.json           sources (with sha256), sizes, how it was made

Needs only numpy and the standard library.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
import sysconfig
import zlib
from pathlib import Path
from typing import Iterator

import numpy as np

LICENSES = Path("/usr/share/common-licenses")
TEXT_SUFFIXES = {".txt", ".md", ".rst", ".text", ""}
SHARD_TOKENS = 1 << 24
BOS, EOS, BYTE_OFFSET = 1, 2, 3
TOKENIZER = {"type": "llama2-byte-fallback", "unk_id": 0, "bos_id": BOS, "eos_id": EOS,
             "byte_offset": BYTE_OFFSET, "vocab_size": BYTE_OFFSET + 256,
             "note": "ids 0-258 of the Llama 2 tokenizer: <unk>, <s>, </s>, <0x00>..<0xFF>"}


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


def encode(text: str) -> np.ndarray:
    """<s> + UTF-8 bytes shifted past the specials + </s>, as uint16."""
    body = np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.uint16) + BYTE_OFFSET
    return np.concatenate([[BOS], body, [EOS]]).astype(np.uint16)


def write_shards(folder: Path, tokens: np.ndarray) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for i, start in enumerate(range(0, len(tokens), SHARD_TOKENS)):
        name = f"shard_{i:05d}.npy"
        np.save(folder / name, tokens[start:start + SHARD_TOKENS])
        names.append(name)
    return names


def prepare(output: Path, documents: list[tuple[str, str]], eval_every: int) -> dict:
    parts: dict[str, list[np.ndarray]] = {"train": [], "eval": []}
    for name, text in documents:
        parts["eval" if is_eval(name, eval_every) else "train"].append(encode(text))
    output.mkdir(parents=True, exist_ok=True)
    streams = {part: np.concatenate(arrays) if arrays else np.zeros(0, np.uint16)
               for part, arrays in parts.items()}
    meta = {
        "format": "llama2-token-shards-v1",
        "made_by": "training/benchmarks/llama2_7b/deepspeed/prepare_data.py",
        "tokenizer": TOKENIZER["type"], "vocab_size": TOKENIZER["vocab_size"],
        "eval_every": eval_every,
        "tokens": {part: int(len(s)) for part, s in streams.items()},
        "shards": {part: write_shards(output / part, s) for part, s in streams.items()},
        "sources": [{"name": n, "chars": len(t), "sha256": hashlib.sha256(t.encode()).hexdigest()}
                    for n, t in documents],
    }
    (output / "tokenizer.json").write_text(json.dumps(TOKENIZER, indent=1) + "\n")
    (output / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--output", required=True, type=Path)
    p.add_argument("--source", action="append", type=Path, default=[],
                   help="text file or folder (repeatable); default: pydoc topics, stdlib "
                        "docstrings, licences")
    p.add_argument("--eval-every", type=int, default=10)
    args = p.parse_args(argv)
    documents = list(_file_documents(args.source) if args.source else default_documents())
    if not documents:
        p.error("no text documents found in the sources")
    meta = prepare(args.output, documents, args.eval_every)
    print(f"{args.output}: tokens {meta['tokens']}, {len(documents)} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
