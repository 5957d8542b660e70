"""transformers' DETR behind torchvision's detector interface, so the detection case's data,
loop and COCO mAP run it as they run torchvision's detectors.

``DetrDetector(images, targets)`` takes images in [0, 1] at their own sizes and targets with
boxes [x1, y1, x2, y2] in pixels and COCO category ids as labels: torchvision's
``GeneralizedRCNNTransform`` resizes (short side ``min_size``, long side at most
``max_size``), normalises with ImageNet's mean and deviation and pads to a multiple of 32; the
padding is DETR's pixel mask. Training returns DETR's loss (Hungarian matching; class, L1 and
GIoU terms, auxiliary decoder losses); evaluation returns the 100 queries' best class, score
and box in the image's own pixels, as DETR's PostProcess does.

The backbone is transformers' ResNet (``ResNetConfig``; no timm, no weights) with DETR's
frozen BatchNorm; as in DETR's recipe the stem and the first stage do not train. The rest
starts as facebookresearch/detr's does (``detr_init``), not from transformers' fine-tuning
init (every weight normal with std 0.02): at width 64 that init left the tiny CI model on
DETR's early plateau (all queries on the mean box) for 600-1,000 steps, this one for 100-200
(the detr README's figures).
"""

from __future__ import annotations

from typing import Any, Mapping

import torch
from torch import nn
from torchvision.models.detection.transform import GeneralizedRCNNTransform
from transformers import DetrConfig, DetrForObjectDetection, ResNetConfig

IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_STD = [0.229, 0.224, 0.225]
FROZEN = ("embedder.", "stages.0.")    # DETR trains the backbone from its second stage on
Target = dict[str, torch.Tensor]


def detr_config(preset: Mapping[str, Any], num_classes: int) -> DetrConfig:
    """DETR's config: ``preset["detr"]`` over DETR's defaults (6 + 6 layers of 256, 8 heads,
    FFN 2048, 100 queries) with auxiliary losses, on ``preset["resnet"]`` (transformers'
    ResNetConfig: ResNet-50 by default), its fourth stage's features unless the preset names
    its ``out_features`` (a shallower ResNet: its last stage)."""
    resnet: dict[str, Any] = {"out_features": ["stage4"], **preset.get("resnet", {})}
    detr: dict[str, Any] = {"num_labels": num_classes, "auxiliary_loss": True,
                            **preset.get("detr", {})}
    return DetrConfig(backbone_config=ResNetConfig(**resnet), **detr)


def cxcywh_normalised(boxes: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """[x1, y1, x2, y2] pixels -> [cx, cy, w, h] as shares of the image (DETR's targets)."""
    scale = boxes.new_tensor([width, height, width, height])
    x1, y1, x2, y2 = (boxes / scale).unbind(-1)
    return torch.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], dim=-1)


def corners(boxes: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """DETR's [cx, cy, w, h] shares -> [x1, y1, x2, y2] pixels of a height x width image."""
    cx, cy, w, h = boxes.unbind(-1)
    xyxy = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)
    return xyxy * boxes.new_tensor([width, height, width, height])


@torch.no_grad()
def detr_init(detr: DetrForObjectDetection) -> None:
    """facebookresearch/detr's initialisation over transformers' own: the encoder's and the
    decoder's weight matrices xavier-uniform (DETR's ``Transformer._reset_parameters``; biases
    stay zero), the object queries standard normal (DETR's ``nn.Embedding``), the input
    projection and the class and box heads at PyTorch's defaults (DETR's ``nn.Conv2d`` and
    ``nn.Linear``). The backbone keeps its ResNet init."""
    model = detr.model
    for part in (model.encoder, model.decoder):
        for parameter in part.parameters():
            if parameter.dim() > 1:
                nn.init.xavier_uniform_(parameter)
    nn.init.normal_(model.query_position_embeddings.weight)
    for head in (model.input_projection, detr.class_labels_classifier, detr.bbox_predictor):
        for module in head.modules():
            if isinstance(module, (nn.Linear, nn.Conv2d)):
                module.reset_parameters()


class DetrDetector(nn.Module):
    def __init__(self, config: DetrConfig, min_size: int, max_size: int):
        super().__init__()
        self.detr = DetrForObjectDetection(config)
        detr_init(self.detr)
        self.transform = GeneralizedRCNNTransform(min_size, max_size, IMAGENET_MEAN,
                                                  IMAGENET_STD, size_divisible=32)
        for name, parameter in self.detr.model.backbone.named_parameters():
            parameter.requires_grad_(not any(part in name for part in FROZEN))

    def forward(self, images: list[torch.Tensor], targets: list[Target] | None = None) -> Any:
        original = [(int(i.shape[-2]), int(i.shape[-1])) for i in images]
        batch, targets = self.transform(images, targets)
        pixels = batch.tensors
        mask = torch.zeros(pixels.shape[0], *pixels.shape[-2:], dtype=torch.long,
                           device=pixels.device)
        for row, (height, width) in zip(mask, batch.image_sizes):
            row[:height, :width] = 1
        if self.training:
            assert targets is not None, "DetrDetector needs targets in training"
            labels = [{"class_labels": t["labels"], "boxes": cxcywh_normalised(t["boxes"], *size)}
                      for t, size in zip(targets, batch.image_sizes)]
            return {"loss": self.detr(pixel_values=pixels, pixel_mask=mask, labels=labels).loss}
        out = self.detr(pixel_values=pixels, pixel_mask=mask)
        scores, labels = out.logits.softmax(-1)[..., :-1].max(-1)   # the last class: no object
        detections = [{"boxes": corners(boxes, *size), "scores": s, "labels": c}
                      for boxes, s, c, size in zip(out.pred_boxes, scores, labels,
                                                   batch.image_sizes)]
        return self.transform.postprocess(detections, batch.image_sizes, original)


def detr(preset: Mapping[str, Any], num_classes: int, min_size: int, max_size: int) -> nn.Module:
    return DetrDetector(detr_config(preset, num_classes), min_size, max_size)
