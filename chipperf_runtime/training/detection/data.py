"""COCO samples as torch tensors: images in [0, 1] at their own size (the detector's
transform resizes them), boxes as [x1, y1, x2, y2], masks (instance segmentation) as one
uint8 plane per box, per-rank loaders."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset, DistributedSampler, Subset

from chipperf_runtime.training.detection.coco import CocoSplit, Sample
from chipperf_runtime.training.driver import Config, DataError, DistEnv, split_batch

AUGMENTS = (None, "flip")      # flip: horizontal, with probability 1/2 (torchvision's recipe)
Target = dict[str, torch.Tensor]


def read_image(sample: Sample) -> torch.Tensor:
    try:
        with Image.open(sample.path) as image:
            pixels = np.asarray(image.convert("RGB"), dtype=np.uint8)
    except OSError as exc:
        raise DataError(f"{sample.path} is not a readable image: {exc}") from exc
    return torch.from_numpy(pixels.copy()).permute(2, 0, 1).float().div_(255.0)


def target_of(sample: Sample) -> Target:
    xywh = torch.tensor(sample.boxes, dtype=torch.float32).reshape(-1, 4)
    boxes = torch.cat([xywh[:, :2], xywh[:, :2] + xywh[:, 2:]], dim=1)
    return {"boxes": boxes, "labels": torch.tensor(sample.labels, dtype=torch.int64),
            "image_id": torch.tensor(sample.image_id)}


def masks_of(sample: Sample, height: int, width: int) -> torch.Tensor:
    """Each box's segmentation (polygons or RLE) rasterised at the image's size: uint8
    (boxes, height, width), as torchvision's COCO reference makes them (pycocotools)."""
    from pycocotools import mask as coco_mask

    planes = []
    for segmentation in sample.segmentations:
        codes = coco_mask.frPyObjects(segmentation, height, width) \
            if isinstance(segmentation, list) or isinstance(segmentation.get("counts"), list) \
            else segmentation
        decoded = coco_mask.decode(codes)
        planes.append(decoded.max(axis=2) if decoded.ndim == 3 else decoded)  # polygons: union
    if not planes:
        return torch.zeros((0, height, width), dtype=torch.uint8)
    return torch.from_numpy(np.stack(planes).astype(np.uint8))


def hflip(image: torch.Tensor, target: Target) -> tuple[torch.Tensor, Target]:
    width = image.shape[-1]
    boxes = target["boxes"].clone()
    boxes[:, [0, 2]] = width - target["boxes"][:, [2, 0]]
    flipped = {**target, "boxes": boxes}
    if "masks" in target:
        flipped["masks"] = target["masks"].flip(-1)
    return image.flip(-1), flipped


class Detections(Dataset):
    """(image, target) pairs of a split; ``augment="flip"`` flips half of them; ``masks``
    adds each box's mask (instance segmentation)."""

    def __init__(self, split: CocoSplit, augment: str | None, masks: bool = False):
        self.samples, self.augment, self.masks = split.samples, augment, masks

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, Target]:
        sample = self.samples[index]
        image, target = read_image(sample), target_of(sample)
        if self.masks:
            target["masks"] = masks_of(sample, image.shape[-2], image.shape[-1])
        if self.augment == "flip" and random.random() < 0.5:
            image, target = hflip(image, target)
        return image, target


def collate(batch: list[tuple[torch.Tensor, Target]]) -> tuple[Any, ...]:
    """Lists, not stacked tensors: detection images keep their own sizes."""
    return tuple(list(column) for column in zip(*batch))


def loaders(cfg: Config, dist: DistEnv, train: CocoSplit, val: CocoSplit, pin_memory: bool,
            masks: bool = False) -> tuple[DataLoader, DataLoader, DistributedSampler]:
    """Train (sharded, shuffled, drop_last; with ``masks`` its targets have masks) and val
    (disjoint rank::world shards) loaders."""
    per_rank = split_batch(cfg.global_batch_size, dist.world_size)
    train_set = Detections(train, cfg.train_augment, masks)
    sampler: DistributedSampler = DistributedSampler(
        train_set, dist.world_size, dist.rank, shuffle=True, seed=cfg.seed, drop_last=True)
    if len(sampler) < per_rank:
        raise DataError(f"{train.annotation_file} has {len(train.samples)} images with boxes: too "
                        f"few for one global batch of {cfg.global_batch_size}")
    val_set = Subset(Detections(val, None), range(dist.rank, len(val.samples), dist.world_size))
    common: dict[str, Any] = {"num_workers": cfg.num_workers, "pin_memory": pin_memory,
                              "persistent_workers": cfg.num_workers > 0, "collate_fn": collate}
    return (DataLoader(train_set, per_rank, sampler=sampler, drop_last=True, **common),
            DataLoader(val_set, split_batch(cfg.global_eval_batch_size, dist.world_size),
                       shuffle=False, **common), sampler)
