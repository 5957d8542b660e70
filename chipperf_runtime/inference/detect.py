"""Images for object detection (rtdetr_r50vd): every image under the data dir (COCO's
val2017 folder works as it is), cycled up to ``datasize`` items.

Pre-processing is RT-DETR's (transformers' ``RTDetrImageProcessor``): convert to RGB,
resize to ``image_size`` x ``image_size`` (bilinear, aspect ratio not kept), scale to
[0, 1]; no mean / std normalisation. There are no labels here: a detector's queries are
compared with the fp32 reference's, query by query.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from PIL import Image

from chipperf_runtime.inference.case import Batch
from chipperf_runtime.inference.images import UnlabelledImages, no_labels


@dataclass(frozen=True)
class DetectionImages(UnlabelledImages):
    def batch(self, indices: Sequence[int]) -> Batch:
        images = np.stack([preprocess(self.file(i), self.image_size) for i in indices])
        return Batch((torch.from_numpy(images),), no_labels(len(indices)))


def preprocess(path: Path, image_size: int) -> np.ndarray:
    with Image.open(path) as file:
        rgb = file.convert("RGB")
    resized = rgb.resize((image_size, image_size), Image.Resampling.BILINEAR)
    array = np.asarray(resized, dtype=np.float32) / 255.0
    return np.ascontiguousarray(array.transpose(2, 0, 1))
