"""Image classifiers from Hugging Face transformers, built from a config (nothing downloaded).

``classifier(arch, preset, num_classes, image_size)`` is the ``arch`` network of ``preset``
(the keyword arguments of its ``PretrainedConfig``) as a module ``images -> logits``, with
transformers' own parameter names, so a ``torch.save()``d ``state_dict()`` of the
transformers model loads unchanged. Weights are transformers' random initialisation; the
runner seeds torch first, so they are the same for a given ``seed``.
"""

from __future__ import annotations

from typing import Any, Mapping

import torch
from torch import nn

from chipperf_runtime.inference.errors import CaseError

# case architecture -> (transformers config class, model class)
ARCHS = {
    "vit": ("ViTConfig", "ViTForImageClassification"),
    "swin": ("SwinConfig", "SwinForImageClassification"),
}

NORMS = (nn.BatchNorm2d, nn.LayerNorm, nn.GroupNorm)


def _logits_class(model_class: type) -> type:
    """``model_class`` whose forward takes the images and returns the logits tensor (one
    output, as every engine and the ONNX export expect)."""

    def forward(self: Any, images: torch.Tensor) -> torch.Tensor:
        return getattr(model_class, "forward")(self, pixel_values=images).logits  # noqa: B009

    return type(f"{model_class.__name__}Logits", (model_class,), {"forward": forward})


def classifier(arch: str, preset: Mapping[str, Any], num_classes: int, image_size: int) -> nn.Module:
    import transformers

    config_name, model_name = ARCHS[arch]
    config = getattr(transformers, config_name)(
        **preset, num_labels=num_classes, image_size=image_size, num_channels=3)
    model = _logits_class(getattr(transformers, model_name))(config)
    for module in model.modules():  # identity start, whatever the library's initialiser drew
        if isinstance(module, NORMS) and module.weight is not None and \
                module.weight.device.type != "meta":
            module.reset_parameters()
    return model


def preset_of(presets: Mapping[str, Mapping[str, Any]], size: Any) -> Mapping[str, Any]:
    if size not in presets:
        raise CaseError(f"model_size {size!r} is unknown: use one of {', '.join(presets)}")
    return presets[size]


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
