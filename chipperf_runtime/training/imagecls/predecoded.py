"""``data_mode = "predecoded"``: input fast enough for an accelerator, from real images.

The image folders are decoded and resized once, ahead of the runs, into uint8 arrays
(``python -m chipperf_runtime.training.imagecls.predecoded DATA_DIR --image-size 224``); a run
then reads whole batches from them (memory-mapped: no decoding, no per-image Python), copies
uint8 to the device (a quarter of float32's bytes) and crops, flips and normalises there,
batched, in a few kernels. The host's work per image is a copy of its bytes.

What is stored, under ``<data_dir>/predecoded/<image_size>/``:

- ``val.npy``: the evaluation transform of ``imagecls.data`` already applied (short side to
  ``image_size / val_crop_ratio``, center crop), so evaluation sees the same pixels as with
  ``data_mode = "real"``;
- ``train.npy``: with ``train_augment = "resize"``, the image resized to image_size x
  image_size as ``"real"`` does; with ``"random_resized_crop_flip"``, the image's center
  square at ``round(image_size / val_crop_ratio)`` pixels (256 for 224), from which each step
  draws a random 8 %-100 % area, 3/4-4/3 aspect crop, resized to image_size and flipped half
  the time, on the device. The crop is drawn inside that square, so the margins of a wide
  image that ``"real"`` could crop into are not seen: the one difference from ``"real"``.
- ``*_labels.npy`` (class indices) and ``meta.json`` (classes, sizes, augment, counts).

Size on disk: N x side x side x 3 bytes (ImageNet-1k train at 256 px: 1,281,167 x 196,608
bytes = 252 GB; val at 224 px: 7.5 GB).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import queue
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from chipperf_runtime.training.driver import DataError
from chipperf_runtime.training.imagecls.data import AUGMENTS, MEAN, STD, center_crop, read_splits

STORE = "predecoded"
META = "meta.json"
LOG_ASPECT = (math.log(3 / 4), math.log(4 / 3))
AREA = (0.08, 1.0)
CROP_TRIES = 10                   # as torchvision's RandomResizedCrop, before its fallback
T = TypeVar("T")


@dataclass(frozen=True)
class Layout:
    """What a store holds: must match the run's config, or the store is made again."""

    image_size: int
    train_augment: str
    val_crop_ratio: float

    @property
    def train_side(self) -> int:
        if self.train_augment == "resize":
            return self.image_size
        return round(self.image_size / self.val_crop_ratio)

    def as_dict(self) -> dict:
        return {"image_size": self.image_size, "train_augment": self.train_augment,
                "val_crop_ratio": self.val_crop_ratio}


def store_dir(data_dir: Path, image_size: int) -> Path:
    return data_dir / STORE / str(image_size)


def prepare_command(data_dir: Path, layout: Layout) -> str:
    return (f"python -m chipperf_runtime.training.imagecls.predecoded {data_dir} "
            f"--image-size {layout.image_size} --train-augment {layout.train_augment} "
            f"--val-crop-ratio {layout.val_crop_ratio}")


# ---- making a store (once, on the host that holds the data)

def _train_pixels(path: Path, layout: Layout) -> np.ndarray:
    with Image.open(path) as raw:
        image = raw.convert("RGB")
    if layout.train_augment == "resize":
        image = image.resize((layout.image_size,) * 2, Image.Resampling.BILINEAR)
    else:
        image = center_crop(image, layout.train_side, 1.0)
    return np.asarray(image, dtype=np.uint8)


def _val_pixels(path: Path, layout: Layout) -> np.ndarray:
    with Image.open(path) as raw:
        image = center_crop(raw.convert("RGB"), layout.image_size, layout.val_crop_ratio)
    return np.asarray(image, dtype=np.uint8)


def _decode(job: tuple[str, str, Layout]) -> np.ndarray:
    split, path, layout = job
    try:
        return (_train_pixels if split == "train" else _val_pixels)(Path(path), layout)
    except OSError as exc:
        raise DataError(f"cannot read image {path}: {exc}") from exc


def _write_split(out: Path, split: str, samples: Sequence[tuple[Path, int]], side: int,
                 layout: Layout, workers: int) -> None:
    pixels = np.lib.format.open_memmap(out / f"{split}.npy", mode="w+", dtype=np.uint8,
                                       shape=(len(samples), side, side, 3))
    jobs = [(split, str(path), layout) for path, _ in samples]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for index, image in enumerate(pool.map(_decode, jobs, chunksize=64)):
            pixels[index] = image
    pixels.flush()
    np.save(out / f"{split}_labels.npy", np.array([label for _, label in samples], dtype=np.int64))


def make_store(data_dir: Path, layout: Layout, workers: int) -> Path:
    """Decode ``data_dir``'s train/ and val/ into ``store_dir``; returns it."""
    if layout.train_augment not in AUGMENTS:
        raise DataError(f"train_augment {layout.train_augment!r} is unknown: use one of {AUGMENTS}")
    train, val = read_splits(data_dir)
    out = store_dir(data_dir, layout.image_size)
    out.mkdir(parents=True, exist_ok=True)
    (out / META).unlink(missing_ok=True)           # a store without meta.json is incomplete
    _write_split(out, "train", train.samples, layout.train_side, layout, workers)
    _write_split(out, "val", val.samples, layout.image_size, layout, workers)
    meta = {**layout.as_dict(), "classes": list(train.classes), "train_images": len(train.samples),
            "val_images": len(val.samples), "train_side": layout.train_side}
    (out / META).write_text(json.dumps(meta, indent=1) + "\n")
    return out


# ---- reading a store (every rank)

@dataclass(frozen=True)
class Store:
    root: Path
    classes: tuple[str, ...]
    train_images: int
    val_images: int

    def pixels(self, split: str) -> np.ndarray:
        return np.load(self.root / f"{split}.npy", mmap_mode="r")

    def labels(self, split: str) -> np.ndarray:
        return np.load(self.root / f"{split}_labels.npy")


def open_store(data_dir: Path, layout: Layout) -> Store:
    """The store made for ``layout``; ``DataError`` with the command that makes it when it is
    missing, unfinished, or made for other settings."""
    root = store_dir(data_dir, layout.image_size)
    make = prepare_command(data_dir, layout)
    if not (root / META).is_file():
        raise DataError(f"data_mode = 'predecoded' reads {root}, which is missing or unfinished: "
                        f"make it once with\n  {make}")
    meta = json.loads((root / META).read_text())
    made = Layout(meta["image_size"], meta["train_augment"], meta["val_crop_ratio"])
    if made != layout:
        raise DataError(f"{root} was made for {made.as_dict()}, the run asks for "
                        f"{layout.as_dict()}: make it again with\n  {make}")
    return Store(root, tuple(meta["classes"]), meta["train_images"], meta["val_images"])


class Batches(torch.utils.data.Dataset):
    """Indexed by a list of sample indices (a ``BatchSampler``'s batch): the uint8 images
    (B, side, side, 3) and labels, read from the memory map in sorted order."""

    def __init__(self, store: Store, split: str):
        self.store = store
        self.split = split
        self.labels = torch.from_numpy(store.labels(split))
        self._pixels: np.ndarray | None = None      # opened in the process that reads

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, indices: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor]:
        if self._pixels is None:
            self._pixels = self.store.pixels(self.split)
        order = np.sort(np.asarray(indices, dtype=np.int64))
        return torch.from_numpy(self._pixels[order]), self.labels[order]


# ---- on the device

def crop_boxes(count: int, generator: torch.Generator, device: torch.device
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """Per image (width, height) of a random crop as fractions of the square's side: area
    8 %-100 %, aspect 3/4-4/3, redrawn up to ten times while it does not fit, else the whole
    square (torchvision's RandomResizedCrop's rule, drawn for the whole batch at once)."""
    area = torch.empty(CROP_TRIES, count, device=device).uniform_(*AREA, generator=generator)
    aspect = torch.empty(CROP_TRIES, count, device=device).uniform_(*LOG_ASPECT,
                                                                    generator=generator).exp()
    width, height = (area * aspect).sqrt(), (area / aspect).sqrt()
    fits = (width <= 1) & (height <= 1)
    first = fits.to(torch.int8).argmax(dim=0)
    found = fits.any(dim=0)
    pick = first.unsqueeze(0)
    width = torch.where(found, width.gather(0, pick)[0], torch.ones_like(width[0]))
    height = torch.where(found, height.gather(0, pick)[0], torch.ones_like(height[0]))
    return width, height


class DeviceTransform:
    """uint8 NHWC on the device -> normalised float NCHW at image_size: for training, a random
    resized crop and flip per image (one ``affine_grid`` + ``grid_sample``), else as stored."""

    def __init__(self, image_size: int, random_crop: bool, device: torch.device, seed: int):
        self.image_size = image_size
        self.random_crop = random_crop
        self.mean = torch.from_numpy(MEAN).to(device).view(1, 3, 1, 1)
        self.std = torch.from_numpy(STD).to(device).view(1, 3, 1, 1)
        self.generator = torch.Generator(device=device).manual_seed(seed)

    def __call__(self, images: torch.Tensor) -> torch.Tensor:
        pixels = images.permute(0, 3, 1, 2).float().div_(255.0)
        if self.random_crop:
            pixels = self.crop_and_flip(pixels)
        return (pixels - self.mean) / self.std

    def crop_and_flip(self, pixels: torch.Tensor) -> torch.Tensor:
        return warp(pixels, crop_theta(pixels.shape[0], self.generator, pixels.device),
                    self.image_size)


def crop_theta(count: int, generator: torch.Generator, device: torch.device) -> torch.Tensor:
    """(count, 2, 3) affine maps from output to input coordinates ([-1, 1] both ways): a
    random box from ``crop_boxes`` placed uniformly inside the square, mirrored half the time."""
    width, height = crop_boxes(count, generator, device)
    shift = torch.empty(2, count, device=device).uniform_(-1, 1, generator=generator)
    flip = torch.where(torch.rand(count, device=device, generator=generator) < 0.5, -1.0, 1.0)
    theta = torch.zeros(count, 2, 3, device=device)
    theta[:, 0, 0] = width * flip
    theta[:, 0, 2] = shift[0] * (1 - width)
    theta[:, 1, 1] = height
    theta[:, 1, 2] = shift[1] * (1 - height)
    return theta


def warp(pixels: torch.Tensor, theta: torch.Tensor, size: int) -> torch.Tensor:
    """Each image's box (``theta``) resampled bilinearly to size x size."""
    grid = F.affine_grid(theta, [pixels.shape[0], pixels.shape[1], size, size], align_corners=False)
    return F.grid_sample(pixels, grid, mode="bilinear", padding_mode="border", align_corners=False)


def read_ahead(batches: Iterable[T], depth: int = 2) -> Iterator[T]:
    """``batches`` read by a thread of this process up to ``depth`` ahead of the consumer (the
    copies out of the memory map release the GIL), so reading overlaps the device's work;
    an exception in the reader is raised here."""
    ready: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def offer(item: object) -> bool:
        """Queue ``item`` unless the consumer has stopped; False once it has."""
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def reader() -> None:
        try:
            for batch in batches:
                if not offer(batch):
                    return
            offer(done)
        except BaseException as exc:       # handed to the consumer, raised there
            offer(exc)

    thread = threading.Thread(target=reader, name="predecoded-reader", daemon=True)
    thread.start()
    try:
        while (item := ready.get()) is not done:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()


@dataclass
class DeviceBatches:
    """A loader of uint8 batches, yielded as (normalised images, labels) on the device. With
    no loader workers the batches are read by ``read_ahead``'s thread (no worker processes,
    no copies through shared memory: the fastest way on one host, see
    selfbench/input_pipeline.py)."""

    loader: torch.utils.data.DataLoader
    device: torch.device
    transform: DeviceTransform

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        batches = read_ahead(self.loader) if self.loader.num_workers == 0 else iter(self.loader)
        for images, labels in batches:
            images = images.to(self.device, non_blocking=True)
            yield self.transform(images), labels.to(self.device, non_blocking=True)

    def __len__(self) -> int:
        return len(self.loader)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m chipperf_runtime.training.imagecls.predecoded",
        description="Decode an ImageNet-layout data dir once into the uint8 arrays that "
                    "data_mode = 'predecoded' reads (under DATA_DIR/predecoded/IMAGE_SIZE/).")
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--image-size", type=int, default=224)
    parser.add_argument("--train-augment", default="random_resized_crop_flip", choices=AUGMENTS)
    parser.add_argument("--val-crop-ratio", type=float, default=0.875)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="decoding processes (default: every core)")
    args = parser.parse_args(argv)
    layout = Layout(args.image_size, args.train_augment, args.val_crop_ratio)
    try:
        out = make_store(args.data_dir, layout, max(1, args.workers))
    except DataError as exc:
        print(f"predecoded: {exc}", file=sys.stderr)
        return 2
    meta = json.loads((out / META).read_text())
    print(f"predecoded: {meta['train_images']} train images at {layout.train_side} px and "
          f"{meta['val_images']} val images at {layout.image_size} px in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
