"""Vision models from Hugging Face transformers, built from a config (no weights downloaded).

``hf_image_model(arch, presets)`` is the ``ImageModel`` of a case whose network is one of
``ARCHS``: ``model_size`` picks a preset (the keyword arguments of the architecture's
``PretrainedConfig``), the data's class count and ``image_size`` complete it. FLOPs are
counted by ``torch.utils.flop_counter`` on the meta device: 2 per multiply-accumulate of every
matrix product, convolution and attention product of one forward pass.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, TypeVar

import torch
from driver import Config, ConfigError
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from imagecls.case import ImageModel

T = TypeVar("T")

# case architecture -> (transformers config class, model class)
ARCHS = {
    "vit": ("ViTConfig", "ViTForImageClassification"),
    "mobilenetv2": ("MobileNetV2Config", "MobileNetV2ForImageClassification"),
    "efficientnet": ("EfficientNetConfig", "EfficientNetForImageClassification"),
    "swin_transformer": ("SwinConfig", "SwinForImageClassification"),
}


class Logits(nn.Module):
    """A transformers image classifier as ``images -> logits``."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.model(pixel_values=images).logits


def hf_model(arch: str, preset: Mapping[str, Any], classes: int, image_size: int) -> Logits:
    """The ``arch`` network of ``preset`` for ``classes`` classes at ``image_size`` pixels,
    randomly initialised (on the current default device: ``with torch.device("meta")`` counts)."""
    import transformers

    config_name, model_name = ARCHS[arch]
    config = getattr(transformers, config_name)(
        **preset, num_labels=classes, image_size=image_size, num_channels=3)
    return Logits(reset_norms(getattr(transformers, model_name)(config)))


NORMS = (nn.BatchNorm2d, nn.LayerNorm, nn.GroupNorm)


def reset_norms(model: nn.Module) -> nn.Module:
    """Normalisation layers at their identity start (scale 1, shift 0, fresh running stats).
    transformers 5's initialiser draws some models' BatchNorm scales from N(0, 0.02)
    (EfficientNet: activations shrink ~50x per layer, the logits start at 1e-35)."""
    for module in model.modules():
        if isinstance(module, NORMS) and module.weight is not None and \
                module.weight.device.type != "meta":
            module.reset_parameters()
    return model


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


def counted_image_model(build: Callable[[Config, int], nn.Module]) -> ImageModel:
    """The ``ImageModel`` of ``build``, its forward FLOPs counted on a copy built on the meta
    device (shared by the transformers cases here and the torchvision ones, ``imagecls.tv``)."""
    def forward_flops(cfg: Config, classes: int, net: nn.Module) -> int:
        with torch.device("meta"):
            return count_forward_flops(build(cfg, classes), cfg.image_size)
    return ImageModel(build, forward_flops)


def hf_image_model(arch: str, presets: Mapping[str, Mapping[str, Any]]) -> ImageModel:
    return counted_image_model(
        lambda cfg, classes: hf_model(arch, preset_of(cfg, presets), classes, cfg.image_size))
