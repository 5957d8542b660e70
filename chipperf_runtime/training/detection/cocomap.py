"""COCO's box mAP (AP at IoU 0.50:0.95, all areas, 100 detections per image) computed by
pycocotools' COCOeval over every rank's detections."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import torch

Detection = dict[str, Any]     # COCO result: image_id, category_id, bbox [x, y, w, h], score


def coco_results(image_ids: list[int], outputs: list[dict[str, torch.Tensor]]) -> list[Detection]:
    """torchvision's outputs (boxes [x1, y1, x2, y2] in the image's own pixels) as COCO results."""
    results = []
    for image_id, out in zip(image_ids, outputs):
        boxes = out["boxes"].float().cpu()
        boxes[:, 2:] -= boxes[:, :2]
        for box, score, label in zip(boxes.tolist(), out["scores"].float().cpu().tolist(),
                                     out["labels"].cpu().tolist()):
            results.append({"image_id": int(image_id), "category_id": int(label),
                            "bbox": [round(v, 2) for v in box], "score": float(score)})
    return results


def box_map(annotation_file: Path, results: list[Detection], image_ids: list[int]) -> float:
    """mAP@[.50:.95] of ``results`` on ``image_ids`` of the annotation file (0 when there are
    no detections at all). COCOeval's printed table is kept off stdout; ``results`` are not
    changed (loadRes adds keys to the dicts it gets: it gets copies)."""
    if not results:
        return 0.0
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        truth = COCO(str(annotation_file))
        evaluation = COCOeval(truth, truth.loadRes([dict(r) for r in results]), "bbox")
        evaluation.params.imgIds = sorted(image_ids)
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return max(0.0, float(evaluation.stats[0]))    # -1: no ground-truth box at all
