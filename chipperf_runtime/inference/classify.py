"""The image-classification cases (resnet50, vit_l_16, swinTransformer): an ImageNet-layout
folder pre-processed on the host, a model ``images -> logits`` and its top-1 per image."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import torch
from torch import nn

from chipperf_runtime.inference.case import Case
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.images import ImageFolder

SIZE_KEYS = ("image_size", "resize_size", "num_classes")


def load_images(config: Mapping[str, Any], data_dir: str, max_items: int | None) -> ImageFolder:
    sizes = {k: config[k] for k in SIZE_KEYS}
    bad = [f"{k}: must be a whole number >= 1, got {v!r}" for k, v in sizes.items()
           if not isinstance(v, int) or isinstance(v, bool) or v < 1]
    if bad:
        raise CaseError("configuration problems:\n  " + "\n  ".join(bad))
    return ImageFolder.scan(data_dir, sizes["resize_size"], sizes["image_size"], max_items)


def check_classes(config: Mapping[str, Any], data: ImageFolder) -> None:
    if len(data.classes) > config["num_classes"]:
        raise CaseError(f"the data set has {len(data.classes)} classes but num_classes is "
                        f"{config['num_classes']}: raise num_classes")


def scored(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return logits, labels


def image_case(model: str, build: Callable[[Mapping[str, Any]], nn.Module]) -> Case:
    """A classification case whose network ``build(config)`` makes (fresh weights)."""

    def build_model(config: Mapping[str, Any], data: ImageFolder) -> nn.Module:
        check_classes(config, data)
        return build(config)

    return Case(model=model, input_names=("images",), load_data=load_images,
                build_model=build_model, scored=scored)
