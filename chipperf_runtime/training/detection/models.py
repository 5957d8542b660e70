"""torchvision's detectors, built from scratch (no weights anywhere), and their FLOPs.

A preset names the backbone trunk (a torchvision ResNet), the FPN width and the detector's
own keyword arguments. With ``resnet50`` and 256 FPN channels the networks are exactly
torchvision's ``retinanet_resnet50_fpn``, ``fasterrcnn_resnet50_fpn`` and
``maskrcnn_resnet50_fpn`` with ``weights=None, weights_backbone=None`` (trainable BatchNorm,
every layer trained; checked by tests/cases/test_detection_pytorch.py); the smaller presets
are the CI models.
"""

from __future__ import annotations

import copy
from functools import partial
from typing import Any, Callable, Mapping

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode
from torchvision.models import resnet
from torchvision.models.detection import FasterRCNN, MaskRCNN, RetinaNet
from torchvision.models.detection.anchor_utils import AnchorGenerator
from torchvision.models.detection.backbone_utils import BackboneWithFPN
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
from torchvision.models.detection.mask_rcnn import MaskRCNNHeads, MaskRCNNPredictor
from torchvision.models.detection.retinanet import RetinaNetHead
from torchvision.ops.feature_pyramid_network import LastLevelMaxPool, LastLevelP6P7

from chipperf_runtime.training.driver import Config, ConfigError

TRUNKS = ("resnet18", "resnet34", "resnet50", "resnet101")
FLOPS_ASPECT = 4 / 3          # the FLOPs image: min_size high, 4/3 as wide (COCO's 640 x 480)
Preset = Mapping[str, Any]


def trunk(name: str) -> resnet.ResNet:
    if name not in TRUNKS:
        raise ConfigError(f"backbone {name!r} is unknown: use one of {list(TRUNKS)}")
    return getattr(resnet, name)(weights=None)


def fpn_backbone(preset: Preset, levels: list[int], extra: nn.Module) -> BackboneWithFPN:
    """The ResNet's stages ``levels`` (1-4) into an FPN (torchvision's ``_resnet_fpn_extractor``
    with every layer trainable)."""
    body = trunk(preset["backbone"])
    width = body.inplanes // 8     # stage 1's output channels (64 or 256)
    return BackboneWithFPN(body, {f"layer{k}": str(i) for i, k in enumerate(levels)},
                           [width * 2 ** (k - 1) for k in levels], preset["fpn_channels"],
                           extra_blocks=extra)


def retinanet_anchors(base_sizes: list[int]) -> AnchorGenerator:
    """RetinaNet's anchors (3 scales per octave, ratios 1:2, 1:1, 2:1) from one base size
    per level; torchvision's default bases are 32, 64, 128, 256, 512 for P3-P7."""
    sizes = tuple((x, int(x * 2 ** (1 / 3)), int(x * 2 ** (2 / 3))) for x in base_sizes)
    return AnchorGenerator(sizes, ((0.5, 1.0, 2.0),) * len(sizes))


def retinanet(preset: Preset, num_classes: int, min_size: int, max_size: int) -> nn.Module:
    """torchvision's RetinaNet (v1): P3-P7 from stages 2-4 plus P6/P7 from P5."""
    channels = preset["fpn_channels"]
    backbone = fpn_backbone(preset, [2, 3, 4], LastLevelP6P7(channels, channels))
    anchors = retinanet_anchors(preset.get("anchor_sizes", [32, 64, 128, 256, 512]))
    groups = preset.get("head_groupnorm")      # None: torchvision's v1 head (no norm)
    head = RetinaNetHead(channels, anchors.num_anchors_per_location()[0], num_classes,
                         norm_layer=partial(nn.GroupNorm, groups) if groups else None)
    return RetinaNet(backbone, num_classes, min_size=min_size, max_size=max_size,
                     anchor_generator=anchors, head=head, **preset.get("detector", {}))


def box_heads(preset: Preset, num_classes: int) -> dict[str, nn.Module]:
    """The two-stage detectors' box head (two fully connected layers on 7 x 7 RoIAlign) and
    predictor."""
    head_width = preset.get("representation_size", 1024)
    return {"box_head": TwoMLPHead(preset["fpn_channels"] * 7 * 7, head_width),
            "box_predictor": FastRCNNPredictor(head_width, num_classes)}


def faster_rcnn(preset: Preset, num_classes: int, min_size: int, max_size: int) -> nn.Module:
    """torchvision's Faster R-CNN (v1): P2-P6 from stages 1-4 and a max-pooled level."""
    backbone = fpn_backbone(preset, [1, 2, 3, 4], LastLevelMaxPool())
    return FasterRCNN(backbone, min_size=min_size, max_size=max_size,
                      **box_heads(preset, num_classes), **preset.get("detector", {}))


def mask_rcnn(preset: Preset, num_classes: int, min_size: int, max_size: int) -> nn.Module:
    """torchvision's Mask R-CNN (v1): Faster R-CNN plus a mask head on 14 x 14 RoIAlign
    (3 x 3 convolutions of ``mask_layers`` widths, 256 x 4 at full size), a 2x transposed
    convolution and one 28 x 28 mask per class."""
    channels = preset["fpn_channels"]
    backbone = fpn_backbone(preset, [1, 2, 3, 4], LastLevelMaxPool())
    layers = preset.get("mask_layers", [256] * 4)
    return MaskRCNN(backbone, min_size=min_size, max_size=max_size,
                    **box_heads(preset, num_classes),
                    mask_head=MaskRCNNHeads(channels, layers, 1),
                    mask_predictor=MaskRCNNPredictor(layers[-1], layers[-1], num_classes),
                    **preset.get("detector", {}))


def detr(preset: Preset, num_classes: int, min_size: int, max_size: int) -> nn.Module:
    """transformers' DETR on transformers' ResNet (detection/detr.py; imports transformers)."""
    from chipperf_runtime.training.detection import detr as hf_detr

    return hf_detr.detr(preset, num_classes, min_size, max_size)


ARCHS: dict[str, Callable[[Preset, int, int, int], nn.Module]] = {
    "retinanet": retinanet, "faster_rcnn": faster_rcnn, "mask_rcnn": mask_rcnn, "detr": detr}
# what each architecture predicts, as COCOeval's iouTypes (masks: instance segmentation)
IOU_TYPES: dict[str, tuple[str, ...]] = {
    "retinanet": ("bbox",), "faster_rcnn": ("bbox",), "mask_rcnn": ("bbox", "segm"),
    "detr": ("bbox",)}


def preset_of(cfg: Config, presets: Mapping[str, Preset]) -> Preset:
    if cfg.model_size not in presets:
        raise ConfigError(f"model_size {cfg.model_size!r} is unknown: use one of {sorted(presets)}")
    return presets[cfg.model_size]


def synthetic_sample(height: int, width: int) -> tuple[list[torch.Tensor], list[dict[str, torch.Tensor]]]:
    """One grey image with one box across its middle and that box as its mask (for counting
    FLOPs; a detector without masks ignores it)."""
    box = torch.tensor([[width / 4, height / 4, 3 * width / 4, 3 * height / 4]])
    mask = torch.zeros((1, height, width), dtype=torch.uint8)
    mask[:, height // 4:3 * height // 4, width // 4:3 * width // 4] = 1
    return [torch.full((3, height, width), 0.5)], [{"boxes": box, "labels": torch.tensor([1]),
                                                    "masks": mask}]


def train_flops_per_sample(net: nn.Module, min_size: int, device: torch.device) -> int:
    """Forward + backward FLOPs of one training step on one image min_size high and 4/3 as
    wide (torch.utils.flop_counter; the optimizer's update is not counted). Counted on a copy:
    ``net``'s gradients and BatchNorm statistics are untouched."""
    images, targets = synthetic_sample(min_size, round(min_size * FLOPS_ASPECT))
    images = [i.to(device) for i in images]
    targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
    probe = copy.deepcopy(net).train()
    with FlopCounterMode(display=False) as counter:
        losses = probe(images, targets)
        sum(losses.values()).backward()
    del probe
    return int(counter.get_total_flops())
