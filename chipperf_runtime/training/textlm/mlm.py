"""The bert cases' dataset: pre-tokenised sequences in .npy shards, masked on the fly.

Layout "bert-mlm-shards-v1" (bert/pytorch's ``prepare_data.py`` writes it; any BERT-tokenised
corpus can be converted to it), read the same way by the PyTorch and the Paddle case::

    <data_dir>/vocab.txt          BERT WordPiece vocabulary, one token per line (id = line)
    <data_dir>/train/*.npy        2-D integer arrays (uint16 or int32) [rows, seq_len]
    <data_dir>/eval/*.npy         same layout, held-out text
    <data_dir>/meta.json          optional: how the corpus was made

Each row is ``[CLS] A [SEP] B [SEP]`` followed by ``[PAD]``; token types are 0 up to and
including the first ``[SEP]``, 1 after it. Masking follows BERT: 15% of the non-special
tokens are chosen, of those 80% become ``[MASK]``, 10% a random token, 10% stay. Training
masks are drawn anew each step; the evaluation masks are drawn once from a fixed seed (so
both frameworks evaluate the same masked positions).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Iterator, Mapping

import numpy as np

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.textlm.shards import (
    Rows,
    ShardKind,
    check_ids,
    read_shards,
    require_data_dir,
    unusable,
)

MASK_PROB = 0.15
IGNORE = -100
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
LAYOUT = "(layout: vocab.txt, train/*.npy, eval/*.npy; see the case README)"
ROW_SHARDS = ShardKind(ndim=2, allow_empty=False,
                       description="a non-empty 2-D integer array [rows, seq_len]")


@dataclass(frozen=True)
class Batch:
    input_ids: np.ndarray
    token_type_ids: np.ndarray
    attention_mask: np.ndarray
    labels: np.ndarray

    def take(self, index: np.ndarray) -> Batch:
        return Batch(*(getattr(self, f.name)[index] for f in fields(self)))


@dataclass(frozen=True)
class MLMDataset:
    vocab: Mapping[str, int]
    train: Rows
    eval: Rows

    @property
    def seq_len(self) -> int:
        return self.train.seq_len

    def special(self, token: str) -> int:
        return self.vocab[token]


# ---------------------------------------------------------------- opening + checking


def open_dataset(data_dir: Path, vocab_size: int, max_positions: int,
                 prepare: str) -> MLMDataset:
    """Open and check ``data_dir``; raises DataError listing every problem found.
    ``prepare``: the script that makes one (named when the folder is missing)."""
    data_dir = require_data_dir(data_dir, f"{prepare} --output DIR {LAYOUT}")
    problems: list[str] = []
    vocab = read_vocab(data_dir / "vocab.txt", vocab_size, problems)
    splits = {name: _read_split(data_dir / name, problems) for name in ("train", "eval")}
    if not problems:
        problems += shape_problems(splits, max_positions)
    train, held_out = splits["train"], splits["eval"]
    if problems or train is None or held_out is None:
        raise unusable("bert", data_dir, problems, LAYOUT)
    return MLMDataset(vocab, train, held_out)


def read_vocab(path: Path, vocab_size: int, problems: list[str]) -> dict[str, int]:
    if not path.is_file():
        problems.append(f"{path} is missing (the WordPiece vocabulary, one token per line)")
        return {}
    tokens = path.read_text(encoding="utf-8", errors="replace").splitlines()
    vocab = {t: i for i, t in enumerate(tokens)}
    missing = [t for t in SPECIALS if t not in vocab]
    if missing:
        problems.append(f"{path} lacks the special tokens {', '.join(missing)}")
    if len(tokens) > vocab_size:
        problems.append(f"{path} has {len(tokens)} tokens but the model's vocab_size is "
                        f"{vocab_size}: choose a model_size whose vocabulary holds it")
    return vocab


def _read_split(folder: Path, problems: list[str]) -> Rows | None:
    shards = read_shards(folder, ROW_SHARDS, problems)
    return Rows.of(shards) if shards else None


def shape_problems(splits: Mapping[str, Rows | None], max_positions: int) -> list[str]:
    lengths = {s.shape[1] for split in splits.values() if split for s in split.shards}
    if len(lengths) > 1:
        return [f"shards have different sequence lengths {sorted(lengths)}: use one"]
    seq_len = lengths.pop()
    if seq_len > max_positions:
        return [f"sequence length {seq_len} exceeds the model's {max_positions} positions"]
    return []


def require_one_batch(data: MLMDataset, global_batch: int) -> None:
    if len(data.train) < global_batch:
        raise DataError(f"the train split has {len(data.train)} rows, fewer than one global "
                        f"batch of {global_batch}")


# ---------------------------------------------------------------- batches


def train_batches(data: MLMDataset, global_batch: int, rank: int, world_size: int,
                  seed: int, epoch: int) -> Iterator[Batch]:
    """This rank's share of each global batch of one epoch (the last partial batch dropped)."""
    order = np.random.default_rng([seed, epoch]).permutation(len(data.train))
    local = global_batch // world_size
    rng = np.random.default_rng([seed, epoch, rank, 1])
    for start in range(0, len(order) - global_batch + 1, global_batch):
        rows = data.train.rows(order[start + rank * local: start + (rank + 1) * local])
        yield mask_rows(_checked(rows, data, "train"), data, rng)


def eval_batches(data: MLMDataset, batch: int, rank: int, world_size: int, seed: int,
                 max_rows: int) -> list[Batch]:
    """This rank's strided share of the first ``max_rows`` eval rows (0: all), masked once
    with the same masks on every rank."""
    n = min(len(data.eval), max_rows) if max_rows > 0 else len(data.eval)
    rng = np.random.default_rng([seed, 2])
    masked = mask_rows(_checked(data.eval.rows(np.arange(n)), data, "eval"), data, rng)
    mine = np.arange(rank, n, world_size)
    return [masked.take(mine[i:i + batch]) for i in range(0, len(mine), batch)]


def eval_rows(data: MLMDataset, max_rows: int) -> int:
    """How many eval rows ``eval_batches`` uses across all ranks."""
    return min(len(data.eval), max_rows or len(data.eval))


def _checked(rows: np.ndarray, data: MLMDataset, split: str) -> np.ndarray:
    return check_ids(rows, len(data.vocab), split,
                     f"vocab.txt's {len(data.vocab)} tokens: the shards were not made with "
                     "this vocabulary")


def mask_rows(rows: np.ndarray, data: MLMDataset, rng: np.random.Generator) -> Batch:
    pad, cls, sep, mask = (data.special(t) for t in ("[PAD]", "[CLS]", "[SEP]", "[MASK]"))
    candidate = (rows != pad) & (rows != cls) & (rows != sep)
    inputs, labels = bert_mask(rows, candidate, mask, len(data.vocab), rng)
    return Batch(input_ids=inputs, token_type_ids=token_types(rows, sep, pad),
                 attention_mask=(rows != pad).astype(np.int64), labels=labels)


def bert_mask(rows: np.ndarray, candidate: np.ndarray, mask: int, vocab_size: int,
              rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """BERT's masking of ``rows`` (also transformers' DataCollatorForLanguageModeling): each
    ``candidate`` token is chosen with MASK_PROB; of those 80% become ``mask``, 10% a random
    id below ``vocab_size``, 10% stay. Returns (inputs, labels: the chosen tokens, else IGNORE)."""
    chosen = candidate & (rng.random(rows.shape) < MASK_PROB)
    action = rng.random(rows.shape)
    inputs = np.where(chosen & (action < 0.8), mask, rows)
    random_tokens = rng.integers(0, vocab_size, size=rows.shape)
    inputs = np.where(chosen & (action >= 0.8) & (action < 0.9), random_tokens, inputs)
    return inputs, np.where(chosen, rows, IGNORE)


def token_types(rows: np.ndarray, sep: int, pad: int) -> np.ndarray:
    """0 up to and including the first [SEP], 1 after it up to the padding (0 again)."""
    after_first_sep = (np.cumsum(rows == sep, axis=1) - (rows == sep)) >= 1
    return (after_first_sep & (rows != pad)).astype(np.int64)
