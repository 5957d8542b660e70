"""Text data for masked-LM cases: plain text or SQuAD-style JSON, tokenised on the host.

    <data_dir>/vocab.txt          the WordPiece vocabulary (BERT's vocab.txt for real weights)
    <data_dir>/**/*.txt           plain text (every .txt but vocab.txt), or
    <data_dir>/**/*.json          SQuAD-style {"data": [{"paragraphs": [{"context": ...}]}]}

The text is cut into items of ``words_per_item`` whitespace-separated words. Pre-processing an
item: WordPiece-tokenise, ``[CLS] ... [SEP]``, truncate/pad to ``seq_len``, then replace
``mask_fraction`` of its tokens (at least one) with ``[MASK]``; the positions are drawn from a
generator seeded by the item's text and the seed, so every engine sees the same inputs. The
targets are the original token ids at the masked positions (-100 elsewhere).
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch

from chipperf_runtime.inference.case import Batch
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.wordpiece import WordPiece

IGNORE = -100


@dataclass(frozen=True)
class TextItems:
    root: Path
    items: tuple[str, ...]
    tokenizer: WordPiece
    seq_len: int
    mask_fraction: float
    seed: int

    def __len__(self) -> int:
        return len(self.items)

    def batch(self, indices: Sequence[int]) -> Batch:
        rows = [encode_item(self.items[i], self.tokenizer, self.seq_len, self.mask_fraction,
                            self.seed) for i in indices]
        ids, mask, targets = (torch.from_numpy(np.stack(col)) for col in zip(*rows))
        return Batch((ids, mask), targets)

    def describe(self) -> dict:
        return {"root": str(self.root), "items": len(self.items), "seq_len": self.seq_len,
                "vocab_size": len(self.tokenizer.vocab), "mask_fraction": self.mask_fraction}


def load(data_dir: str | Path, vocab_file: str | None, words_per_item: int, seq_len: int,
         mask_fraction: float, seed: int, max_items: int | None = None) -> TextItems:
    root = Path(data_dir)
    if not root.is_dir():
        raise CaseError(f"data dir {root} does not exist: give a folder of .txt files (or SQuAD "
                        "JSON) with vocab.txt in host.yaml CASES")
    vocab = Path(vocab_file) if vocab_file else root / "vocab.txt"
    if not vocab.is_file():
        raise CaseError(f"vocabulary {vocab} not found: put BERT's vocab.txt there, set "
                        "vocab_file in the configuration, or prepare CI data with "
                        "inference/benchmarks/bert_large/pytorch/prepare_text.py")
    try:
        tokenizer = WordPiece.from_file(vocab)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CaseError(f"vocabulary {vocab} is not a WordPiece vocab.txt: {exc}") from exc
    items = tuple(chunks(read_texts(root, vocab), words_per_item))[:max_items]
    if not items:
        raise CaseError(f"data dir {root}: no text found (*.txt other than {vocab.name}, or "
                        "SQuAD-style *.json): add text files")
    return TextItems(root, items, tokenizer, seq_len, mask_fraction, seed)


def read_texts(root: Path, vocab: Path) -> list[str]:
    texts = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p != vocab):
        if path.suffix == ".txt":
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
        elif path.suffix == ".json":
            texts += squad_contexts(path)
    return texts


def squad_contexts(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise CaseError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise CaseError(f"{path}: not SQuAD-style JSON (expected a top-level 'data' list)")
    return [p["context"] for article in data["data"] for p in article.get("paragraphs", [])
            if isinstance(p.get("context"), str)]


def chunks(texts: list[str], words_per_item: int) -> list[str]:
    out = []
    for text in texts:
        words = text.split()
        out += [" ".join(words[i:i + words_per_item]) for i in range(0, len(words), words_per_item)]
    return out


def encode_item(text: str, tokenizer: WordPiece, seq_len: int, mask_fraction: float,
                seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(input_ids, attention_mask, targets), each int64 [seq_len]."""
    body = tokenizer.encode(text)[: seq_len - 2]
    tokens = [tokenizer.id("[CLS]"), *body, tokenizer.id("[SEP]")]
    ids = np.full(seq_len, tokenizer.id("[PAD]"), dtype=np.int64)
    ids[: len(tokens)] = tokens
    mask = np.zeros(seq_len, dtype=np.int64)
    mask[: len(tokens)] = 1
    targets = np.full(seq_len, IGNORE, dtype=np.int64)
    if body:
        rng = np.random.default_rng([seed, zlib.crc32(text.encode("utf-8"))])
        count = max(1, round(len(body) * mask_fraction))
        positions = 1 + rng.choice(len(body), size=min(count, len(body)), replace=False)
        targets[positions] = ids[positions]
        ids[positions] = tokenizer.id("[MASK]")
    return ids, mask, targets
