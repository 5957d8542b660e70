"""chipperf inference case rtdetr_r50vd (PyTorch model; engines: see common.engines).

A second detector of chipperf's inference suite, beside FlagPerf's yolov5 (written out from
its published architecture: its maintained implementations are AGPL-3.0 / GPL-3.0): a
permissively licensed library detector under its own name, RT-DETR with a ResNet-50-vd
backbone (transformers' ``RTDetrForObjectDetection`` built from its config, Apache-2.0;
42,891,372 parameters with 80 classes, 137.8 GFLOPs per 640 x 640 image, counted in the
tests; RT-DETR's paper: 42 M, 136 GFLOPs). Data: any folder of images (``common.detect``).
Weights: transformers' random initialisation after ``torch.manual_seed(seed)``, or a
checkpoint with ``RTDetrForObjectDetection``'s names. ``model_size: tiny`` is the CI shape.
Output: [batch, queries, classes + 4], each query's class logits then its box (cx, cy, w, h
in [0, 1]); a user reads each query's top-1 class, and those are compared with the fp32
reference's (``query_class_agreement``); the deviation bound covers the logits and the boxes.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first, explicitly: torchvision (transformers imports it) beside a CPU torch

import sys
from typing import Any, Mapping

import torch
from torch import nn

from chipperf_runtime.inference.case import Case
from chipperf_runtime.inference.detect import DetectionImages
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.runner import main

BOX = 4
# model_size -> (RTDetrResNetConfig, RTDetrConfig) keyword arguments
PRESETS: dict[str, tuple[dict, dict]] = {
    # RT-DETR-R50vd (PekingU/rtdetr_r50vd): transformers' defaults
    "r50vd": ({}, {}),
    # CI: a 4-stage basic-block ResNet of 16..128 channels, one encoder and decoder layer of
    # 32, 20 queries
    "tiny": ({"embedding_size": 16, "hidden_sizes": [16, 32, 64, 128], "depths": [1, 1, 1, 1],
              "layer_type": "basic", "out_features": ["stage2", "stage3", "stage4"]},
             {"encoder_in_channels": [32, 64, 128], "encoder_hidden_dim": 32, "d_model": 32,
              "decoder_in_channels": [32, 32, 32], "num_queries": 20, "decoder_layers": 1,
              "encoder_layers": 1, "decoder_ffn_dim": 64, "encoder_ffn_dim": 64,
              "encoder_attention_heads": 2, "decoder_attention_heads": 2, "decoder_n_points": 2}),
}


def load_data(config: Mapping[str, Any], data_dir: str, max_items: int | None) -> DetectionImages:
    problems = []
    if config["model_size"] not in PRESETS:
        problems.append(f"model_size {config['model_size']!r} is unknown: use one of "
                        f"{', '.join(PRESETS)}")
    if not isinstance(config["image_size"], int) or config["image_size"] < 32 or \
            config["image_size"] % 32:
        problems.append(f"image_size: must be a multiple of 32 (the backbone's stride), got "
                        f"{config['image_size']!r}")
    for key in ("num_classes", "datasize"):
        value = config[key]
        if (value is not None or key == "num_classes") and (not isinstance(value, int) or value < 1):
            problems.append(f"{key}: must be a whole number >= 1, got {value!r}")
    if problems:
        raise CaseError("configuration problems:\n  " + "\n  ".join(problems))
    return DetectionImages.scan(data_dir, config["image_size"], config["datasize"], max_items)


def build(config: Mapping[str, Any]) -> nn.Module:
    from transformers import RTDetrConfig, RTDetrForObjectDetection, RTDetrResNetConfig

    backbone, detector = PRESETS[config["model_size"]]
    if backbone:   # else RTDetrConfig's own default backbone: ResNet-50-vd, stages 2-4 out
        detector = {**detector, "backbone_config": RTDetrResNetConfig(**backbone)}
    rt_config = RTDetrConfig(**{**detector, "num_labels": config["num_classes"]})
    return _detections_class(RTDetrForObjectDetection)(rt_config)


def _detections_class(detector_class: type) -> type:
    """The detector as ``images -> [batch, queries, classes + 4]`` (one output tensor); a
    subclass, so its own state dict names load unchanged."""

    def forward(self: Any, images: torch.Tensor) -> torch.Tensor:
        out = getattr(detector_class, "forward")(self, pixel_values=images)  # noqa: B009
        return torch.cat([out.logits, out.pred_boxes.to(out.logits.dtype)], dim=-1)

    return type("RTDetrDetections", (detector_class,), {"forward": forward})


def scored(detections: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Every query is a decision (its class); there are no labels."""
    rows = detections.reshape(-1, detections.shape[-1])
    return rows, torch.full((rows.shape[0],), -1, dtype=torch.long, device=rows.device)


def query_class(detections: torch.Tensor) -> torch.Tensor:
    return detections[..., :-BOX].argmax(dim=-1)


CASE = Case(model="rtdetr_r50vd", input_names=("images",), load_data=load_data,
            build_model=lambda config, data: build(config), scored=scored, decide=query_class,
            agreement_metric="query_class_agreement", labelled=False)

if __name__ == "__main__":
    sys.exit(main(CASE))
