"""Batches of the wav2vec2 case (numpy only): crops of audio (training) or whole utterances
(evaluation), the time masks over their feature frames and the negatives of every masked
frame, as wav2vec 2.0 pretrains.

Masks: ``int(mask_prob * frames / mask_length + u)`` spans (u uniform in [0, 1)) of
``mask_length`` frames start at distinct random frames, overlaps allowed (fairseq's "static"
masks; transformers' ``_compute_mask_indices`` draws the same way from numpy's global
generator, these from the batch's own). Negatives: for each masked frame, ``num_negatives``
other masked frames of the same crop, uniformly (transformers' ``_sample_negative_indices``),
as indices into the batch's flattened frames.

A training step's global batch is drawn whole (its crops' offsets, masks and negatives) on
every rank, and each rank keeps its rows: the rows, masks and negatives trained on do not
depend on the world size, and every rank knows the global batch's masked-frame count, the
loss's denominator (``w2v_train.train_step``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np
from w2v_data import Subset, crops


@dataclass(frozen=True)
class Masking:
    prob: float                       # mask_time_prob
    length: int                       # mask_time_length
    negatives: int                    # num_negatives
    frames: Callable[[int], int]      # audio samples -> feature frames


@dataclass(frozen=True)
class Batch:
    audio: np.ndarray       # (B, crop_samples) float32
    mask: np.ndarray        # (B, frames) bool
    negatives: np.ndarray   # (B, frames, num_negatives) int64, into the flattened B * frames
    masked_total: int       # masked frames of the whole global batch (all ranks' rows)


def time_mask(masking: Masking, frames: int, rng: np.random.Generator) -> np.ndarray:
    """One crop's masked frames; at least two (a masked frame needs another as negative)."""
    starts = frames - masking.length + 1
    spans = int(masking.prob * frames / masking.length + rng.random())
    spans = min(starts, max(spans, 1 if masking.length > 1 else 2))
    mask = np.zeros(frames, dtype=bool)
    for start in rng.choice(starts, spans, replace=False):
        mask[start:start + masking.length] = True
    return mask


def negatives_of(mask: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """(frames, count) indices of other masked frames of this crop for each masked frame
    (0 for the unmasked ones, which the loss ignores)."""
    masked = np.flatnonzero(mask)
    drawn = rng.integers(0, len(masked) - 1, size=(len(masked), count))
    drawn[drawn >= np.arange(len(masked))[:, None]] += 1     # skip the frame itself
    out = np.zeros((len(mask), count), dtype=np.int64)
    out[masked] = masked[drawn]
    return out


def masks_and_negatives(masking: Masking, samples: int, rows: int,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Masks and negatives of ``rows`` crops of ``samples`` audio samples each."""
    frames = masking.frames(samples)
    masks = np.stack([time_mask(masking, frames, rng) for _ in range(rows)])
    negatives = np.stack([negatives_of(m, masking.negatives, rng) for m in masks])
    negatives += (np.arange(rows) * frames)[:, None, None]
    return masks, negatives


def make_batch(subset: Subset, picks: Sequence[int], offsets: Sequence[int], crop: int,
               masking: Masking, rng: np.random.Generator) -> Batch:
    utterances = [subset.utterances[i] for i in picks]
    mask, negatives = masks_and_negatives(masking, crop, len(picks), rng)
    return Batch(crops(utterances, offsets, crop), mask, negatives, int(mask.sum()))


@dataclass(frozen=True)
class TrainPlan:
    """One epoch of one rank: which utterances each of its batches crops, and where."""

    subset: Subset
    crop: int
    masking: Masking
    global_batch: int
    rank: int
    world: int
    seed: int
    epoch: int

    @property
    def local(self) -> int:
        return self.global_batch // self.world

    def order(self) -> np.ndarray:
        return np.random.default_rng([self.seed, self.epoch]).permutation(
            len(self.subset.utterances))

    def __len__(self) -> int:
        return len(self.subset.utterances) // self.global_batch

    def __getitem__(self, index: int) -> Batch:      # a torch Dataset: DataLoader workers
        return self.batch(index)

    def batch(self, index: int) -> Batch:
        """This rank's rows of global batch ``index`` (the same on every call and for every
        world size): the offsets, masks and negatives of the whole global batch are drawn
        from one generator (keyed as the one-rank draw was before the global batch was drawn
        whole, so one-rank runs are unchanged), then this rank keeps its share."""
        start = index * self.global_batch
        picks = [int(i) for i in self.order()[start:start + self.global_batch]]
        rng = np.random.default_rng([self.seed, self.epoch, 0, index])
        offsets = [int(rng.integers(0, self.subset.utterances[i].samples - self.crop + 1))
                   for i in picks]
        mask, negatives = masks_and_negatives(self.masking, self.crop, len(picks), rng)
        mine = slice(self.rank * self.local, (self.rank + 1) * self.local)
        first_frame = self.rank * self.local * mask.shape[1]
        audio = crops([self.subset.utterances[i] for i in picks[mine]], offsets[mine], self.crop)
        return Batch(audio, mask[mine], negatives[mine] - first_frame, int(mask.sum()))


def eval_batches(subset: Subset, count: int, rank: int, world: int, masking: Masking,
                 seed: int) -> Iterator[Batch]:
    """This rank's strided share of the first ``count`` utterances (0: all), each whole (a
    batch of one: no padding), with masks and negatives drawn from ``seed``: every
    evaluation scores the same frames against the same negatives."""
    for index in range(rank, eval_count(subset, count), world):
        utterance = subset.utterances[index]
        rng = np.random.default_rng([seed, index])
        yield make_batch(subset, [index], [0], utterance.samples, masking, rng)


def eval_count(subset: Subset, count: int) -> int:
    return min(count or len(subset.utterances), len(subset.utterances))
