"""Image data: an ImageNet-layout folder, decoded and pre-processed on the host.

    <data_dir>/val/<class>/<image>   (or <data_dir>/<class>/<image> when there is no val/)

Classes are the sub-folders in sorted order (ImageNet's wnid order gives the standard
1000-class indices). Pre-processing is ImageNet's: decode, convert to RGB, resize the shorter
side to ``resize_size`` (bilinear), centre-crop ``image_size``, scale to [0, 1] and normalise
with the ImageNet mean and standard deviation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, TypeVar

import numpy as np
import torch
from PIL import Image

from chipperf_runtime.inference.case import Batch
from chipperf_runtime.inference.errors import CaseError

EXTENSIONS = frozenset({".jpeg", ".jpg", ".png", ".bmp", ".webp", ".ppm", ".tif", ".tiff"})
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
NO_LABEL = -1
U = TypeVar("U", bound="UnlabelledImages")


@dataclass(frozen=True)
class ImageFolder:
    root: Path
    classes: tuple[str, ...]
    files: tuple[Path, ...]
    labels: tuple[int, ...]
    resize_size: int
    image_size: int

    @classmethod
    def scan(cls, data_dir: str | Path, resize_size: int, image_size: int,
             max_items: int | None = None) -> "ImageFolder":
        root = find_root(Path(data_dir))
        classes = tuple(sorted(p.name for p in root.iterdir() if p.is_dir()))
        pairs = [(f, label) for label, name in enumerate(classes)
                 for f in sorted((root / name).iterdir()) if f.suffix.lower() in EXTENSIONS]
        if not pairs:
            raise CaseError(f"data dir {data_dir}: no images ({', '.join(sorted(EXTENSIONS))}) "
                            f"in class folders under {root}: expected the ImageNet val layout "
                            "<data_dir>/val/<class>/<image> (for CI data run "
                            "training/benchmarks/resnet50/pytorch/prepare_digits.py <data_dir>)")
        pairs = _interleave(pairs)[:max_items]
        return cls(root, classes, tuple(f for f, _ in pairs), tuple(lbl for _, lbl in pairs),
                   resize_size, image_size)

    def __len__(self) -> int:
        return len(self.files)

    def batch(self, indices: Sequence[int]) -> Batch:
        images = np.stack([preprocess(self.files[i], self.resize_size, self.image_size)
                           for i in indices])
        return Batch((torch.from_numpy(images),),
                     torch.tensor([self.labels[i] for i in indices], dtype=torch.long))

    def describe(self) -> dict:
        return {"root": str(self.root), "classes": len(self.classes), "items": len(self.files),
                "resize_size": self.resize_size, "image_size": self.image_size}


def find_root(data_dir: Path) -> Path:
    if not data_dir.is_dir():
        raise CaseError(f"data dir {data_dir} does not exist: give the dataset's path in "
                        "host.yaml CASES (the ImageNet val layout <data_dir>/val/<class>/<image>)")
    return data_dir / "val" if (data_dir / "val").is_dir() else data_dir


def _interleave(pairs: list[tuple[Path, int]]) -> list[tuple[Path, int]]:
    """Round-robin over classes, so a ``max_items`` prefix holds every class."""
    by_class: dict[int, list[tuple[Path, int]]] = {}
    for pair in pairs:
        by_class.setdefault(pair[1], []).append(pair)
    columns = list(by_class.values())
    return [col[i] for i in range(max(map(len, columns))) for col in columns if i < len(col)]


def preprocess(path: Path, resize_size: int, image_size: int) -> np.ndarray:
    """One image file -> float32 CHW array, ImageNet-normalised."""
    with Image.open(path) as file:
        rgb = file.convert("RGB")
    width, height = rgb.size
    scale = resize_size / min(width, height)
    size = (max(image_size, round(width * scale)), max(image_size, round(height * scale)))
    resized = rgb.resize(size, Image.Resampling.BILINEAR)
    left, top = (size[0] - image_size) // 2, (size[1] - image_size) // 2
    crop = resized.crop((left, top, left + image_size, top + image_size))
    array = np.asarray(crop, dtype=np.float32) / 255.0
    return np.ascontiguousarray(((array - MEAN) / STD).transpose(2, 0, 1))


def image_files(data_dir: str | Path) -> tuple[Path, ...]:
    """Every image under ``data_dir`` (any layout), in sorted order."""
    root = Path(data_dir)
    if not root.is_dir():
        raise CaseError(f"data dir {root} does not exist: give a folder of images in host.yaml CASES")
    files = tuple(sorted(p for p in root.rglob("*") if p.suffix.lower() in EXTENSIONS))
    if not files:
        raise CaseError(f"data dir {root}: no images ({', '.join(sorted(EXTENSIONS))}) under it: "
                        "give a folder of images (any layout)")
    return files


@dataclass(frozen=True)
class UnlabelledImages:
    """Every image under the data dir, cycled up to ``datasize`` items (then cut to
    ``max_items``), with no labels: the outputs are compared with the fp32 reference only.
    A subclass turns ``file(i)`` into its model's inputs (``batch``)."""

    files: tuple[Path, ...]
    size: int
    image_size: int

    @classmethod
    def scan(cls: type[U], data_dir: str | Path, image_size: int, datasize: int | None,
             max_items: int | None) -> U:
        files = image_files(data_dir)
        size = datasize or len(files)
        return cls(files, min(size, max_items or size), image_size)

    def __len__(self) -> int:
        return self.size

    def file(self, index: int) -> Path:
        return self.files[index % len(self.files)]

    def describe(self) -> dict:
        return {"images": len(self.files), "items": self.size, "image_size": self.image_size,
                "root": str(self.files[0].parent)}


def no_labels(count: int) -> torch.Tensor:
    return torch.full((count,), NO_LABEL, dtype=torch.long)
