"""ImageNet-layout image folders read with Pillow (no torchvision): every image-classification case.

    <data_dir>/train/<class>/*.{JPEG,jpg,png}
    <data_dir>/val/<class>/*.{JPEG,jpg,png}

Class index = position of the class folder name in sorted order. Training images are
either resized to ``image_size`` (``train_augment = "resize"``) or randomly crop-resized
(8%-100% of the area, 3/4-4/3 aspect) and flipped (``"random_resized_crop_flip"``, the
ImageNet recipe). Validation images are resized so the short side is
``image_size / val_crop_ratio`` and center-cropped to ``image_size``. Both are normalised
with the ImageNet mean and std.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from chipperf_runtime.training.driver import ConfigError, DataError, labelled_splits

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
AUGMENTS = ("resize", "random_resized_crop_flip")


@dataclass(frozen=True)
class Split:
    samples: tuple[tuple[Path, int], ...]
    classes: tuple[str, ...]


def read_splits(data_dir: Path) -> tuple[Split, Split]:
    """(train, val); raises ``DataError`` naming the path and the expected layout."""
    classes, train, val = labelled_splits(data_dir)
    return Split(tuple(train), classes), Split(tuple(val), classes)


def to_tensor(image: Image.Image) -> torch.Tensor:
    array = np.asarray(image.convert("RGB"), dtype=np.float32) / 255.0
    return torch.from_numpy(((array - MEAN) / STD).transpose(2, 0, 1).copy())


def random_resized_crop(image: Image.Image, size: int) -> Image.Image:
    """A random 8%-100% area, 3/4-4/3 aspect box of ``image``, resized to size x size."""
    width, height = image.size
    area = width * height
    for _ in range(10):
        target = area * random.uniform(0.08, 1.0)
        aspect = math.exp(random.uniform(math.log(3 / 4), math.log(4 / 3)))
        w, h = round(math.sqrt(target * aspect)), round(math.sqrt(target / aspect))
        if 0 < w <= width and 0 < h <= height:
            left, top = random.randint(0, width - w), random.randint(0, height - h)
            return image.resize((size, size), Image.Resampling.BILINEAR, box=(left, top, left + w, top + h))
    return center_crop(image, size, 1.0)


def center_crop(image: Image.Image, size: int, crop_ratio: float) -> Image.Image:
    width, height = image.size
    short = round(size / crop_ratio)
    scale = short / min(width, height)
    image = image.resize((max(short, round(width * scale)), max(short, round(height * scale))),
                         Image.Resampling.BILINEAR)
    left, top = (image.width - size) // 2, (image.height - size) // 2
    return image.crop((left, top, left + size, top + size))


class ImageFolder(torch.utils.data.Dataset):
    def __init__(self, split: Split, image_size: int, augment: str | None,
                 val_crop_ratio: float = 0.875):
        if augment is not None and augment not in AUGMENTS:
            raise ConfigError(f"train_augment {augment!r} is unknown: use one of {AUGMENTS}")
        self.split = split
        self.image_size = image_size
        self.augment = augment
        self.val_crop_ratio = val_crop_ratio

    def __len__(self) -> int:
        return len(self.split.samples)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        path, label = self.split.samples[index]
        try:
            with Image.open(path) as raw:
                image = self._transform(raw.convert("RGB"))
        except OSError as exc:
            raise DataError(f"cannot read image {path}: {exc}") from exc
        return to_tensor(image), label

    def _transform(self, image: Image.Image) -> Image.Image:
        # The module-level ``random`` is seeded per rank by the case and per DataLoader
        # worker by torch, so ranks and workers draw different crops.
        size = self.image_size
        if self.augment == "random_resized_crop_flip":
            image = random_resized_crop(image, size)
            return image.transpose(Image.Transpose.FLIP_LEFT_RIGHT) if random.random() < 0.5 else image
        if self.augment == "resize":
            return image.resize((size, size), Image.Resampling.BILINEAR)
        return center_crop(image, size, self.val_crop_ratio)
