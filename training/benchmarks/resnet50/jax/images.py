"""ImageNet-layout image folders decoded with Pillow into NHWC float32 batches (no JAX here).

    <data_dir>/train/<class>/*.{JPEG,jpg,png}
    <data_dir>/val/<class>/*.{JPEG,jpg,png}

Class index = position of the class folder name in sorted order. Every epoch the train files
are shuffled with one seed shared by all processes and dealt out like a distributed sampler
(process r takes every world-th file; the remainder is dropped), so every process runs the
same number of steps. Each process evaluates a disjoint ``rank::world_size`` share of val,
padded to whole batches with a mask, so every image counts once and every process runs the
same number of (static-shape) evaluation steps.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np
from PIL import Image

from chipperf_runtime.training.driver import DataError, labelled_splits

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
AUGMENTS = ("resize", "random_resized_crop_flip")


@dataclass(frozen=True)
class Split:
    paths: tuple[Path, ...]
    labels: np.ndarray
    classes: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.paths)


@dataclass(frozen=True)
class Shard:
    """Which part of a split this process reads."""

    rank: int
    world_size: int


def read_splits(data_dir: Path) -> tuple[Split, Split]:
    """(train, val); raises ``DataError`` naming the path and the expected layout."""
    classes, train, val = labelled_splits(data_dir)

    def split(pairs: list[tuple[Path, int]]) -> Split:
        return Split(tuple(p for p, _ in pairs), np.array([c for _, c in pairs], np.int32),
                     classes)

    return split(train), split(val)


def check_augment(augment: str) -> None:
    if augment not in AUGMENTS:
        raise DataError(f"train_augment {augment!r} is unknown: use one of {', '.join(AUGMENTS)}")


def check_decodable(split: Split, name: str) -> None:
    """The first image of a split decodes, or DataError naming it (before training)."""
    try:
        with Image.open(split.paths[0]) as image:
            image.convert("RGB")
    except OSError as e:
        raise DataError(f"{split.paths[0]}: {name} image cannot be decoded as JPEG/PNG ({e}): "
                        "the folders must hold images") from e


def normalised(image: Image.Image) -> np.ndarray:
    array = np.asarray(image.convert("RGB"), dtype=np.float32) / 255.0
    return (array - MEAN) / STD


def random_resized_crop_flip(image: Image.Image, size: int, rng: np.random.Generator) -> Image.Image:
    """A random 8%-100% area, 3/4-4/3 aspect box, resized to size x size, flipped half the time."""
    width, height = image.size
    for _ in range(10):
        area = width * height * rng.uniform(0.08, 1.0)
        aspect = math.exp(rng.uniform(math.log(3 / 4), math.log(4 / 3)))
        w, h = round(math.sqrt(area * aspect)), round(math.sqrt(area / aspect))
        if 0 < w <= width and 0 < h <= height:
            left, top = int(rng.integers(0, width - w + 1)), int(rng.integers(0, height - h + 1))
            image = image.resize((size, size), Image.Resampling.BILINEAR,
                                 box=(left, top, left + w, top + h))
            break
    else:
        image = center_crop(image, size, 1.0)
    return image.transpose(Image.Transpose.FLIP_LEFT_RIGHT) if rng.random() < 0.5 else image


def center_crop(image: Image.Image, size: int, crop_ratio: float) -> Image.Image:
    """Resize the short side to size / crop_ratio, then take the central size x size."""
    width, height = image.size
    scale = size / crop_ratio / min(width, height)
    resized = image.resize((max(size, round(width * scale)), max(size, round(height * scale))),
                           Image.Resampling.BILINEAR)
    left, top = (resized.width - size) // 2, (resized.height - size) // 2
    return resized.crop((left, top, left + size, top + size))


class Loader:
    """Decodes batches of one split with a pool of threads (Pillow releases the GIL)."""

    def __init__(self, threads: int):
        self.pool = ThreadPoolExecutor(max(1, threads))

    def train_batches(self, split: Split, shard: Shard, batch: int, size: int, augment: str,
                      seed: int, epoch: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """This process's train batches of one epoch (dropping the last partial batch)."""
        order = epoch_indices(len(split), shard, seed, epoch)
        for start in range(0, len(order) - batch + 1, batch):
            chosen = order[start:start + batch]
            rngs = [np.random.default_rng([seed, epoch, int(i)]) for i in chosen]
            if augment == "resize":
                images = self.pool.map(lambda i: _resized(split.paths[i], size), chosen)
            else:
                images = self.pool.map(lambda i, r: _cropped(split.paths[i], size, r), chosen, rngs)
            yield np.stack(list(images)), split.labels[chosen]

    def val_batches(self, split: Split, shard: Shard, batch: int, size: int,
                    crop_ratio: float) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(images, labels, mask) of this process's val share, padded to whole batches; the
        same number of batches on every process."""
        mine = np.arange(shard.rank, len(split), shard.world_size)
        per_process = math.ceil(len(split) / shard.world_size)
        for start in range(0, per_process, batch):
            chosen = mine[start:start + batch]
            images = list(self.pool.map(lambda i: _val(split.paths[i], size, crop_ratio), chosen))
            padded = np.zeros((batch, size, size, 3), np.float32)
            labels, mask = np.zeros(batch, np.int32), np.zeros(batch, np.float32)
            if images:
                padded[:len(images)] = np.stack(images)
            labels[:len(chosen)], mask[:len(chosen)] = split.labels[chosen], 1.0
            yield padded, labels, mask

    def close(self) -> None:
        self.pool.shutdown()


def epoch_indices(n: int, shard: Shard, seed: int, epoch: int) -> np.ndarray:
    """This process's sample indices for one epoch (same length on every process)."""
    order = np.random.default_rng([seed, epoch]).permutation(n)
    per_rank = n // shard.world_size
    return order[shard.rank::shard.world_size][:per_rank]


def steps_per_epoch(n: int, world_size: int, per_process_batch: int) -> int:
    return (n // world_size) // per_process_batch


def _resized(path: Path, size: int) -> np.ndarray:
    with Image.open(path) as image:
        return normalised(image.convert("RGB").resize((size, size), Image.Resampling.BILINEAR))


def _cropped(path: Path, size: int, rng: np.random.Generator) -> np.ndarray:
    with Image.open(path) as image:
        return normalised(random_resized_crop_flip(image.convert("RGB"), size, rng))


def _val(path: Path, size: int, crop_ratio: float) -> np.ndarray:
    with Image.open(path) as image:
        return normalised(center_crop(image.convert("RGB"), size, crop_ratio))
