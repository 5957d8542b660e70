"""chipperf inference case yolov5 (FlagPerf's detector case; PyTorch model, engines: see
common.engines).

Model: YOLOv5 v6.0+ written out from its published layer table
(``chipperf_runtime.models.yolov5``; ultralytics' own code is AGPL-3.0 and is not used), size
``model_size`` (FlagPerf runs yolov5l: 46,563,709 parameters with 80 classes). Data: COCO's
val2017 with its annotations, or any folder of images. Pre-processing: letterbox to
``image_size``; the timed post-processing of every query is FlagPerf's NMS
(``conf_thres``, ``iou_thres``, ``max_det``). Metric: COCO mAP@[.50:.95] against the
annotations (pycocotools), else against the fp32 reference's boxes
(``chipperf_runtime.inference.yolo``). Weights: random after ``torch.manual_seed(seed)``, or a
checkpoint with ultralytics' state-dict names.
"""

from __future__ import annotations

from chipperf_runtime.models.tvision import prepare_torchvision

prepare_torchvision()  # first: torchvision's nms operator (its CPU kernel beside a CPU torch)

import sys
from functools import partial
from typing import Any, Mapping

import torch
from torch import nn

from chipperf_runtime.inference import yolo
from chipperf_runtime.inference.case import Case
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.runner import main
from chipperf_runtime.inference.settings import Settings
from chipperf_runtime.models.yolov5 import SIZES, YOLOv5

BOX_AND_OBJECTNESS = 5


def thresholds(config: Mapping[str, Any]) -> yolo.Thresholds:
    return yolo.Thresholds(float(config["conf_thres"]), float(config["iou_thres"]),
                           int(config["max_det"]))


def load_data(config: Mapping[str, Any], data_dir: str, max_items: int | None) -> yolo.CocoImages:
    problems = []
    if config["model_size"] not in SIZES:
        problems.append(f"model_size {config['model_size']!r} is unknown: use one of "
                        f"{', '.join(SIZES)} (FlagPerf: l)")
    size = config["image_size"]
    if not isinstance(size, int) or size < 32 or size % 32:
        problems.append(f"image_size: must be a multiple of 32 (the stride of P5), got {size!r}")
    for key in ("conf_thres", "iou_thres"):
        if not 0 <= float(config[key]) <= 1:
            problems.append(f"{key}: must be between 0 and 1, got {config[key]!r}")
    if not isinstance(config["max_det"], int) or config["max_det"] < 1:
        problems.append(f"max_det: must be a whole number >= 1, got {config['max_det']!r}")
    if problems:
        raise CaseError("configuration problems:\n  " + "\n  ".join(problems))
    return yolo.CocoImages.scan(data_dir, config["image_dir"], config["annotation_file"], size,
                                max_items)


def build(config: Mapping[str, Any]) -> nn.Module:
    return YOLOv5(config["model_size"], config["num_classes"])


def scored(detections: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Every anchor box is a decision (its class) for the agreement; there are no labels."""
    rows = detections.reshape(-1, detections.shape[-1])
    return rows, torch.full((rows.shape[0],), -1, dtype=torch.long, device=rows.device)


def box_class(detections: torch.Tensor) -> torch.Tensor:
    return detections[..., BOX_AND_OBJECTNESS:].argmax(dim=-1)


def evaluation(record: dict, run: Any, reference: Any, data: yolo.CocoImages, items: int,
               config: Mapping[str, Any], device: Any) -> dict:
    """The metric: COCO mAP of the engine's boxes after NMS (docs/inference.md, yolov5)."""
    s = Settings.from_config(config)
    t = thresholds(config)
    found = yolo.score_pass(run, reference, data, items, s.batch_size, t, device)
    metric = yolo.map_metric(found, data, s.accuracy_target, s.agreement_for(s.precision),
                             t.max_det)
    return {**record, "metric": metric, "box_class_agreement": record["metric"]["value"]}


def build_case() -> Case:
    return Case(model="yolov5", input_names=("images",), load_data=load_data,
                build_model=lambda config, data: build(config), scored=scored,
                decide=box_class, agreement_metric="box_class_agreement", labelled=False,
                postprocess=lambda config: partial(yolo.detections_tensor,
                                                   t=thresholds(config)),
                evaluation=evaluation)


if __name__ == "__main__":
    sys.exit(main(build_case()))
