"""Vision models from torchvision, built untrained (no weights downloaded), and their FLOPs.

``tv_image_model(presets)`` is the ``ImageModel`` of a case whose network torchvision builds:
``model_size`` picks a preset, a function of the class count and the image size that returns
the network (logits out). FLOPs are counted by ``torch.utils.flop_counter`` on a copy built on
the meta device at the configured ``image_size``: 2 per multiply-accumulate of every matrix
product, convolution and attention product of one forward pass.

torchvision is imported through ``chipperf_runtime.models.tvision`` (its model zoo imports beside
the CPU torch of the cpu images; see there).
"""

from __future__ import annotations

from typing import Callable, Mapping, TypeVar

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from chipperf_runtime.training.driver import Config, ConfigError
from chipperf_runtime.training.imagecls.case import ImageModel

T = TypeVar("T")
Builder = Callable[[int, int], nn.Module]   # (class count, image size) -> untrained network


def tv_image_model(presets: Mapping[str, Builder]) -> ImageModel:
    return counted_image_model(
        lambda cfg, classes: preset_of(cfg, presets)(classes, cfg.image_size))


def counted_image_model(build: Callable[[Config, int], nn.Module]) -> ImageModel:
    """The ``ImageModel`` of ``build``, its forward FLOPs counted on a copy built on the meta
    device."""
    def forward_flops(cfg: Config, classes: int, net: nn.Module) -> int:
        with torch.device("meta"):
            return count_forward_flops(build(cfg, classes), cfg.image_size)
    return ImageModel(build, forward_flops)


def count_forward_flops(net: nn.Module, image_size: int) -> int:
    """FLOPs of one forward pass on one image (``net`` may live on the meta device), counted
    in eval mode (BatchNorm on one image) with the training mode restored after."""
    device = next(net.parameters()).device
    images = torch.zeros(1, 3, image_size, image_size, device=device)
    was_training = net.training
    net.eval()
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        net(images)
    net.train(was_training)
    return int(counter.get_total_flops())


def preset_of(cfg: Config, presets: Mapping[str, T]) -> T:
    if cfg.model_size not in presets:
        raise ConfigError(f"model_size {cfg.model_size!r} is unknown: use one of {sorted(presets)}")
    return presets[cfg.model_size]
