"""chipperf inference case resnet50 (PyTorch model; engines: see common.engines).

Data: an ImageNet-layout folder (``<data_dir>/val/<class>/<image>``), pre-processed on the
host (decode, resize, centre crop, normalise). Model: ResNet-50 v1.5 with torchvision's
parameter names (``common.models.resnet``). Output: logits [batch, num_classes]; each item is
scored by its top-1 class.
"""

from __future__ import annotations

import sys
from typing import Any, Mapping

import torch
from common.case import Case
from common.errors import CaseError
from common.images import ImageFolder
from common.models.resnet import resnet50
from common.runner import main


def load_data(config: Mapping[str, Any], data_dir: str, max_items: int | None) -> ImageFolder:
    sizes = {k: config[k] for k in ("image_size", "resize_size", "num_classes")}
    bad = [f"{k}: must be a whole number >= 1, got {v!r}" for k, v in sizes.items()
           if not isinstance(v, int) or v < 1]
    if bad:
        raise CaseError("configuration problems:\n  " + "\n  ".join(bad))
    return ImageFolder.scan(data_dir, sizes["resize_size"], sizes["image_size"], max_items)


def build_model(config: Mapping[str, Any], data: ImageFolder) -> torch.nn.Module:
    if len(data.classes) > config["num_classes"]:
        raise CaseError(f"the data set has {len(data.classes)} classes but num_classes is "
                        f"{config['num_classes']}: raise num_classes")
    return resnet50(config["num_classes"])


def scored(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return logits, labels


CASE = Case(model="resnet50", input_names=("images",), load_data=load_data,
            build_model=build_model, scored=scored)

if __name__ == "__main__":
    sys.exit(main(CASE))
