"""Images with a point prompt, for promptable segmentation (sam_h).

    <data_dir>/**/<image>   every image under the folder, in sorted order

Pre-processing is SAM's (transformers' ``SamProcessor``): convert to RGB, resize the longest
side to ``image_size`` (bilinear), scale to [0, 1], normalise with the ImageNet mean and
standard deviation, pad bottom and right to ``image_size`` x ``image_size``. The prompt is one
foreground point at the centre of the resized image, in the padded frame's pixels. The items
cycle through the images up to ``datasize`` (FlagPerf's sam_h repeats one image 1000 times).
There are no labels: the scored decisions are compared with the fp32 reference only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from PIL import Image

from chipperf_runtime.inference.case import Batch
from chipperf_runtime.inference.images import MEAN, STD, UnlabelledImages, no_labels


@dataclass(frozen=True)
class PromptedImages(UnlabelledImages):
    def batch(self, indices: Sequence[int]) -> Batch:
        pairs = [preprocess(self.file(i), self.image_size) for i in indices]
        images = torch.from_numpy(np.stack([image for image, _ in pairs]))
        points = torch.tensor([[[point]] for _, point in pairs], dtype=torch.float32)
        return Batch((images, points), no_labels(len(pairs)))

    def describe(self) -> dict:
        return {**super().describe(), "prompt": "one point at the image centre"}


def preprocess(path: Path, image_size: int) -> tuple[np.ndarray, list[float]]:
    """One image -> (float32 CHW array padded to image_size, [x, y] of the centre point)."""
    with Image.open(path) as file:
        rgb = file.convert("RGB")
    width, height = rgb.size
    scale = image_size / max(width, height)
    new = (max(1, round(width * scale)), max(1, round(height * scale)))
    array = np.asarray(rgb.resize(new, Image.Resampling.BILINEAR), dtype=np.float32) / 255.0
    padded = np.zeros((image_size, image_size, 3), dtype=np.float32)
    padded[: new[1], : new[0]] = (array - MEAN) / STD
    return np.ascontiguousarray(padded.transpose(2, 0, 1)), [new[0] / 2.0, new[1] / 2.0]
