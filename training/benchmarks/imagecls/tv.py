"""Vision models from torchvision, built untrained (no weights downloaded).

``tv_image_model(presets)`` is the ``ImageModel`` of a case whose network torchvision builds:
``model_size`` picks a preset, a function of the class count that returns the network
(logits out). FLOPs are counted as for the transformers cases (``imagecls.hf``): by
``torch.utils.flop_counter`` on the meta device at the configured ``image_size``.

torchvision is imported through ``chipperf.models.tvision`` (its model zoo imports beside
the CPU torch of the cpu images; see there).
"""

from __future__ import annotations

from typing import Callable, Mapping

import torch
from driver import Config
from torch import nn

from imagecls.case import ImageModel
from imagecls.hf import count_forward_flops, preset_of

Builder = Callable[[int], nn.Module]   # class count -> untrained network, logits out


def tv_image_model(presets: Mapping[str, Builder]) -> ImageModel:
    def build(cfg: Config, classes: int) -> nn.Module:
        return preset_of(cfg, presets)(classes)

    def forward_flops(cfg: Config, classes: int, net: nn.Module) -> int:
        with torch.device("meta"):
            return count_forward_flops(build(cfg, classes), cfg.image_size)
    return ImageModel(build, forward_flops)
