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

from torch import nn

from imagecls.case import ImageModel
from imagecls.hf import counted_image_model, preset_of

Builder = Callable[[int], nn.Module]   # class count -> untrained network, logits out


def tv_image_model(presets: Mapping[str, Builder]) -> ImageModel:
    return counted_image_model(lambda cfg, classes: preset_of(cfg, presets)(classes))
