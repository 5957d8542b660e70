"""Reading a split of ``.npy`` shards (memory-mapped) and numbering its items across shards.

A split is a folder of ``*.npy`` integer arrays read in name order. Every problem found is
appended to a ``problems`` list, so a case reports all of them in one ``DataError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from chipperf_runtime.training.driver import DataError


@dataclass(frozen=True)
class ShardKind:
    """What each shard of a format must be: ``ndim`` dimensions of integers."""

    ndim: int
    allow_empty: bool
    description: str        # "a 1-D integer token array": for the error message

    def accepts(self, shard: np.ndarray) -> bool:
        return (shard.ndim == self.ndim and shard.dtype.kind in "iu"
                and (self.allow_empty or len(shard) > 0))


def require_data_dir(data_dir: Path, how_to_make: str) -> Path:
    """``data_dir`` as a Path; a DataError that says how to make one when it is not a folder."""
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise DataError(f"data dir {data_dir} does not exist or is not a folder; make one with "
                        f"{how_to_make}")
    return data_dir


def unusable(what: str, data_dir: Path, problems: Sequence[str], layout: str) -> DataError:
    """One error listing every problem of a data dir, then its layout."""
    return DataError(f"{what} dataset {data_dir} is not usable:\n"
                     + "\n".join(f"  - {p}" for p in problems) + f"\n{layout}")


def read_shards(folder: Path, kind: ShardKind, problems: list[str]) -> list[np.ndarray]:
    """The readable shards of ``folder`` that are of ``kind``; the others become problems."""
    files = sorted(folder.glob("*.npy")) if folder.is_dir() else []
    if not files:
        problems.append(f"{folder} has no .npy shards")
    return [s for s in (read_shard(f, kind, problems) for f in files) if s is not None]


def read_shard(file: Path, kind: ShardKind, problems: list[str]) -> np.ndarray | None:
    """``file`` memory-mapped when it is a readable .npy array of ``kind``; else a problem."""
    try:
        shard = np.load(file, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        problems.append(f"{file} is not a readable .npy array: {exc}")
        return None
    if not kind.accepts(shard):
        problems.append(f"{file}: expected {kind.description}, got shape {shard.shape} "
                        f"dtype {shard.dtype}")
        return None
    return shard


@dataclass(frozen=True)
class Numbering:
    """Items numbered across shards: global item ``i`` is item ``i - offsets[s]`` of shard
    ``s``, where ``offsets`` holds each shard's first global item plus the total at the end."""

    offsets: np.ndarray

    @classmethod
    def of(cls, counts: Iterable[int]) -> Numbering:
        return cls(np.cumsum([0, *counts]))

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def locate(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(shard, index within that shard) of each global index."""
        shard = np.searchsorted(self.offsets, indices, side="right") - 1
        return shard, indices - self.offsets[shard]


@dataclass(frozen=True)
class Rows:
    """The rows of 2-D shards ``[rows, seq_len]``, numbered across shards."""

    shards: tuple[np.ndarray, ...]
    numbering: Numbering

    @classmethod
    def of(cls, shards: Sequence[np.ndarray]) -> Rows:
        return cls(tuple(shards), Numbering.of(len(s) for s in shards))

    def __len__(self) -> int:
        return len(self.numbering)

    @property
    def seq_len(self) -> int:
        return int(self.shards[0].shape[1])

    def rows(self, indices: np.ndarray) -> np.ndarray:
        """[len(indices), seq_len] int64."""
        shard, local = self.numbering.locate(indices)
        return np.stack([np.asarray(self.shards[s][i], dtype=np.int64)
                         for s, i in zip(shard, local)])


@dataclass(frozen=True)
class Windows:
    """Non-overlapping ``seq_len + 1`` windows of 1-D token shards, cut at multiples of
    ``seq_len`` (a window's last token is the next one's first), never across shards."""

    shards: tuple[np.ndarray, ...]
    seq_len: int
    numbering: Numbering

    @classmethod
    def of(cls, shards: Sequence[np.ndarray], seq_len: int) -> Windows:
        counts = (max(0, (len(s) - 1) // seq_len) for s in shards)
        return cls(tuple(shards), seq_len, Numbering.of(counts))

    def __len__(self) -> int:
        return len(self.numbering)

    def take(self, indices: np.ndarray) -> np.ndarray:
        """[len(indices), seq_len + 1] int64 tokens."""
        shard, local = self.numbering.locate(indices)
        return np.stack([np.asarray(self.shards[s][a:a + self.seq_len + 1], dtype=np.int64)
                         for s, a in zip(shard, local * self.seq_len)])


def check_ids(tokens: np.ndarray, vocab_size: int, split: str, why: str) -> np.ndarray:
    """``tokens`` unchanged, or a DataError when an id is negative or >= ``vocab_size``;
    ``why`` ends the message ("outside <why>: <what to do>")."""
    if tokens.size and (tokens.min() < 0 or tokens.max() >= vocab_size):
        raise DataError(f"{split} split holds token id {int(tokens.max())} (or a negative one), "
                        f"outside {why}")
    return tokens
