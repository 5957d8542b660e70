"""COCO's mAP (AP at IoU 0.50:0.95, all areas, 100 detections per image) computed by
pycocotools' COCOeval over every rank's detections: of boxes (``bbox``) and, for instance
segmentation, of masks (``segm``)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import numpy as np
import torch

Detection = dict[str, Any]     # COCO result: image_id, category_id, score, bbox [x, y, w, h]
                               # and, with masks, segmentation (RLE)
RESULT_KEY = {"bbox": "bbox", "segm": "segmentation"}   # COCOeval's iouType -> result field
MASK_THRESHOLD = 0.5           # a pixel belongs to the instance (torchvision's reference)


def mask_codes(masks: torch.Tensor) -> list[dict[str, Any]]:
    """torchvision's (N, 1, H, W) mask probabilities as COCO run-length codes (JSON-able)."""
    from pycocotools import mask as coco_mask

    planes = (masks[:, 0] > MASK_THRESHOLD).cpu().numpy().astype(np.uint8)
    codes = []
    for plane in planes:
        code = coco_mask.encode(np.asfortranarray(plane))
        codes.append({"size": code["size"], "counts": code["counts"].decode("ascii")})
    return codes


def coco_results(image_ids: list[int], outputs: list[dict[str, torch.Tensor]]) -> list[Detection]:
    """torchvision's outputs (boxes [x1, y1, x2, y2] in the image's own pixels; masks when the
    detector has them) as COCO results."""
    results = []
    for image_id, out in zip(image_ids, outputs):
        boxes = out["boxes"].float().cpu()
        boxes[:, 2:] -= boxes[:, :2]
        codes = mask_codes(out["masks"]) if "masks" in out else [None] * len(boxes)
        for box, score, label, code in zip(boxes.tolist(), out["scores"].float().cpu().tolist(),
                                           out["labels"].cpu().tolist(), codes):
            result = {"image_id": int(image_id), "category_id": int(label),
                      "bbox": [round(v, 2) for v in box], "score": float(score)}
            if code is not None:
                result["segmentation"] = code
            results.append(result)
    return results


def for_iou(results: list[Detection], iou_type: str) -> list[Detection]:
    """Copies holding the one geometry COCOeval scores (loadRes adds keys to what it gets, and
    with a box beside a mask it would take the box's area for the mask's)."""
    other = {k for k in RESULT_KEY.values() if k != RESULT_KEY[iou_type]}
    return [{k: v for k, v in r.items() if k not in other} for r in results]


def coco_map(annotation_file: Path, results: list[Detection], image_ids: list[int],
             iou_type: str = "bbox") -> float:
    """mAP@[.50:.95] of ``results`` (``iou_type`` "bbox" or "segm") on ``image_ids`` of the
    annotation file (0 when there are no detections at all). COCOeval's printed table is kept
    off stdout; ``results`` are not changed."""
    if iou_type not in RESULT_KEY:
        raise ValueError(f"iou_type {iou_type!r}: use one of {sorted(RESULT_KEY)}")
    if not results:
        return 0.0
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        truth = COCO(str(annotation_file))
        evaluation = COCOeval(truth, truth.loadRes(for_iou(results, iou_type)), iou_type)
        evaluation.params.imgIds = sorted(image_ids)
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return max(0.0, float(evaluation.stats[0]))    # -1: no ground-truth box at all


def box_map(annotation_file: Path, results: list[Detection], image_ids: list[int]) -> float:
    """COCO box mAP@[.50:.95] (``coco_map`` of the boxes)."""
    return coco_map(annotation_file, results, image_ids, "bbox")
