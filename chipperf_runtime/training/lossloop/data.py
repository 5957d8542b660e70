"""How a loss-loop case's samples reach the ranks: each epoch a seeded permutation of the
train set is cut into global batches (the last partial one dropped) and each rank reads its
slice of every one; the eval set (its first ``eval_samples``) is dealt to the ranks in turn.
A case's dataset returns one sample; its ``collate`` makes a tuple of tensors of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol, Sequence

import numpy as np
from torch.utils.data import DataLoader, Dataset

from chipperf_runtime.training.driver import DataError, DistEnv, split_batch

Collate = Callable[[list[Any]], tuple[Any, ...]]


class CaseData(Protocol):
    """What a case's ``open_data`` returns."""

    train: Dataset
    eval: Dataset
    collate: Collate

    def describe(self) -> dict[str, Any]:
        """Figures of the data for INIT_END (sizes, lengths)."""


@dataclass(frozen=True)
class GlobalBatches:
    """This rank's slice of each global batch of one epoch (a batch sampler)."""

    size: int            # samples in the train set
    global_batch: int
    rank: int
    world: int
    seed: int
    shuffle: bool = True

    def __iter__(self) -> Iterator[list[int]]:
        order = np.random.default_rng(self.seed).permutation(self.size) if self.shuffle \
            else np.arange(self.size)
        per = split_batch(self.global_batch, self.world)
        for start in range(0, self.size - self.global_batch + 1, self.global_batch):
            first = start + self.rank * per
            yield order[first:first + per].tolist()

    def __len__(self) -> int:
        return self.size // self.global_batch


def require_batches(data: CaseData, global_batch: int, where: str) -> None:
    if len(data.train) < global_batch:  # type: ignore[arg-type]
        raise DataError(f"{where}: the train split has {len(data.train)} samples, fewer than "  # type: ignore[arg-type]
                        f"one global batch ({global_batch})")


def train_loader(data: CaseData, global_batch: int, dist: DistEnv, seed: int, epoch: int,
                 workers: int, shuffle: bool = True) -> DataLoader:
    sampler = GlobalBatches(len(data.train), global_batch, dist.rank,  # type: ignore[arg-type]
                            dist.world_size, seed + epoch, shuffle)
    return DataLoader(data.train, batch_sampler=sampler, collate_fn=data.collate,
                      num_workers=workers)


def eval_indices(total: int, limit: int, rank: int, world: int) -> Sequence[int]:
    """This rank's share of the first ``limit`` eval samples (0: all)."""
    return range(rank, min(total, limit) if limit > 0 else total, world)


def eval_batches(data: CaseData, per_rank: int, limit: int, dist: DistEnv) -> list[tuple[Any, ...]]:
    """This rank's eval batches, read once (the eval set is small beside the train set)."""
    mine = list(eval_indices(len(data.eval), limit, dist.rank, dist.world_size))  # type: ignore[arg-type]
    return [fetch(data, mine[start:start + per_rank]) for start in range(0, len(mine), per_rank)]


def fetch(data: CaseData, indices: list[int]) -> tuple[Any, ...]:
    """One eval batch, read as torch's DataLoader reads one (``__getitems__`` when the
    dataset has it)."""
    many = getattr(data.eval, "__getitems__", None)
    return data.collate(many(indices) if many else [data.eval[i] for i in indices])
