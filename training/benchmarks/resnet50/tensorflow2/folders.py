"""ImageNet-layout image folders and how ranks share them (no TensorFlow here).

    <data_dir>/train/<class>/*.{JPEG,jpg,png}
    <data_dir>/val/<class>/*.{JPEG,jpg,png}

Class index = position of the class folder name in sorted order. Every epoch the train
files are shuffled with one seed shared by all ranks and dealt out like a distributed
sampler: rank r takes every world-th file from position r, all ranks the same number
(the remainder is dropped), so every rank runs the same number of steps. Each rank
evaluates a disjoint shard of val (``rank::world_size``), so every image counts once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from chipperf_runtime.training.driver import DataError, labelled_splits

AUGMENTS = ("resize", "random_resized_crop_flip")


@dataclass(frozen=True)
class Split:
    paths: tuple[str, ...]
    labels: tuple[int, ...]
    classes: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.paths)


@dataclass(frozen=True)
class Shard:
    """Which part of a split this rank reads."""

    rank: int
    world_size: int


def read_splits(data_dir: Path) -> tuple[Split, Split]:
    """(train, val); raises ``DataError`` naming the path and the expected layout."""
    classes, train, val = labelled_splits(data_dir)

    def split(pairs: list[tuple[Path, int]]) -> Split:
        return Split(tuple(str(p) for p, _ in pairs), tuple(label for _, label in pairs), classes)

    return split(train), split(val)


def check_augment(augment: str) -> None:
    if augment not in AUGMENTS:
        raise DataError(f"train_augment {augment!r} is unknown: use one of {', '.join(AUGMENTS)}")


def epoch_indices(n: int, shard: Shard, seed: int, epoch: int) -> np.ndarray:
    """This rank's sample indices for one epoch (same length on every rank)."""
    order = np.random.default_rng([seed, epoch]).permutation(n)
    per_rank = n // shard.world_size
    return order[shard.rank::shard.world_size][:per_rank]


def val_indices(n: int, shard: Shard) -> np.ndarray:
    """This rank's disjoint share of val (all of it over the ranks, none twice)."""
    return np.arange(shard.rank, n, shard.world_size)


def steps_per_epoch(n: int, world_size: int, per_rank_batch: int) -> int:
    return (n // world_size) // per_rank_batch
