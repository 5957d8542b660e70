"""YOLOv5's pre- and post-processing and its scores (the yolov5 case; FlagPerf's
``inference/benchmarks/yolov5/pytorch`` at FlagOpen/FlagPerf@1b5a030 is what it follows).

Data: COCO's layout (``<data_dir>/<image_dir>`` images and ``<data_dir>/<annotation_file>``,
FlagPerf's ``val2017`` and ``annotations/instances_val2017.json``), or any folder of images
with no annotations. Pre-processing: RGB, letterbox to ``image_size`` square (shorter side
scaled to keep the aspect ratio, padding of grey 114 split evenly on both sides), [0, 1].
Post-processing: FlagPerf's ``non_max_suppression``: objectness > ``conf_thres``, score =
objectness x class probability, the best class per box, score > ``conf_thres``, NMS per class
at ``iou_thres`` (``chipperf_runtime.models.tvision.nms``: torchvision's operator), at most
``max_det`` boxes; boxes scaled back to the original image. Score: COCO's mAP@[.50:.95]
(pycocotools' COCOeval) against the annotations, or against the fp32 reference's detections
when there are none.
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
from PIL import Image

from chipperf_runtime.inference.case import Batch
from chipperf_runtime.inference.errors import CaseError
from chipperf_runtime.inference.images import image_files
from chipperf_runtime.models.tvision import nms

PAD_GREY = 114
MAX_WH = 7680          # class offset of the per-class NMS (FlagPerf's max_wh)


@dataclass(frozen=True)
class Thresholds:
    conf: float
    iou: float
    max_det: int


def letterbox(image: Image.Image, size: int) -> tuple[np.ndarray, float, tuple[float, float]]:
    """(float32 CHW in [0, 1], scale, (left, top) padding) of an RGB image."""
    width, height = image.size
    scale = min(size / width, size / height)
    new = (round(width * scale), round(height * scale))
    pad_x, pad_y = (size - new[0]) / 2, (size - new[1]) / 2
    left, top = round(pad_x - 0.1), round(pad_y - 0.1)
    canvas = Image.new("RGB", (size, size), (PAD_GREY,) * 3)
    canvas.paste(image.resize(new, Image.Resampling.BILINEAR), (left, top))
    array = np.asarray(canvas, dtype=np.float32).transpose(2, 0, 1) / 255.0
    return np.ascontiguousarray(array), scale, (pad_x, pad_y)


@dataclass(frozen=True)
class CocoImages:
    """Images (with their COCO ids and the annotation file when there is one), letterboxed."""

    files: tuple[Path, ...]
    image_ids: tuple[int, ...]
    image_size: int
    annotation_file: Path | None
    category_ids: tuple[int, ...]        # class index -> COCO category id

    @classmethod
    def scan(cls, data_dir: str, image_dir: str, annotation_file: str, image_size: int,
             max_items: int | None) -> "CocoImages":
        annotations = Path(data_dir) / annotation_file
        if annotations.is_file():
            return cls._from_annotations(Path(data_dir) / image_dir, annotations, image_size,
                                         max_items)
        files = tuple(image_files(data_dir))[:max_items]
        return cls(files, tuple(range(len(files))), image_size, None, ())

    @classmethod
    def _from_annotations(cls, folder: Path, annotations: Path, image_size: int,
                          max_items: int | None) -> "CocoImages":
        data = json.loads(annotations.read_text())
        images = sorted(data.get("images", []), key=lambda i: i["id"])[:max_items]
        missing = [i["file_name"] for i in images if not (folder / i["file_name"]).is_file()]
        if not images or missing:
            raise CaseError(f"{annotations}: {'no images listed' if not images else missing[0]} "
                            f"{'' if not images else 'is not in ' + str(folder)}: set image_dir "
                            "to the images' folder (COCO: val2017)")
        categories = tuple(sorted(c["id"] for c in data.get("categories", [])))
        return cls(tuple(folder / i["file_name"] for i in images),
                   tuple(int(i["id"]) for i in images), image_size, annotations, categories)

    def __len__(self) -> int:
        return len(self.files)

    def batch(self, indices: Sequence[int]) -> Batch:
        arrays = [self.item(i)[0] for i in indices]
        return Batch((torch.from_numpy(np.stack(arrays)),), torch.tensor(list(indices)))

    def item(self, index: int) -> tuple[np.ndarray, float, tuple[float, float], tuple[int, int]]:
        with Image.open(self.files[index]) as file:
            rgb = file.convert("RGB")
        array, scale, pad = letterbox(rgb, self.image_size)
        return array, scale, pad, rgb.size

    def describe(self) -> dict:
        return {"images": len(self.files), "items": len(self.files),
                "image_size": self.image_size, "root": str(self.files[0].parent),
                "annotations": str(self.annotation_file) if self.annotation_file else None}


def xywh_to_xyxy(boxes: torch.Tensor) -> torch.Tensor:
    half = boxes[:, 2:4] / 2
    return torch.cat((boxes[:, :2] - half, boxes[:, :2] + half), 1)


def detect(prediction: torch.Tensor, t: Thresholds) -> list[torch.Tensor]:
    """``[batch, boxes, 5 + classes]`` -> per image ``[n, 6]``: x1 y1 x2 y2, score, class."""
    out = []
    for rows in prediction.float():
        rows = rows[rows[:, 4] > t.conf]
        score, cls = (rows[:, 5:] * rows[:, 4:5]).max(1, keepdim=True)
        found = torch.cat((xywh_to_xyxy(rows[:, :4]), score, cls.float()), 1)
        found = found[score.view(-1) > t.conf]
        found = found[found[:, 4].argsort(descending=True)]
        keep = nms(found[:, :4] + found[:, 5:6] * MAX_WH, found[:, 4], t.iou)[:t.max_det]
        out.append(found[keep])
    return out


def detections_tensor(prediction: torch.Tensor, t: Thresholds) -> torch.Tensor:
    """``detect`` padded to ``[batch, max_det, 6]`` (class -1 where there is none): the timed
    host-side post-processing of every query."""
    padded = torch.full((prediction.shape[0], t.max_det, 6), -1.0, device=prediction.device)
    for i, found in enumerate(detect(prediction, t)):
        padded[i, : len(found)] = found
    return padded


def to_original(found: torch.Tensor, scale: float, pad: tuple[float, float],
                size: tuple[int, int]) -> torch.Tensor:
    """Boxes from the letterboxed input back to the image's own pixels, clipped."""
    boxes = found[:, :4].clone()
    boxes[:, [0, 2]] = ((boxes[:, [0, 2]] - pad[0]) / scale).clamp(0, size[0])
    boxes[:, [1, 3]] = ((boxes[:, [1, 3]] - pad[1]) / scale).clamp(0, size[1])
    return torch.cat((boxes, found[:, 4:]), 1)


def coco_results(image_id: int, found: torch.Tensor, categories: Sequence[int]) -> list[dict]:
    rows = []
    for x1, y1, x2, y2, score, cls in found.tolist():
        rows.append({"image_id": image_id, "score": score,
                     "category_id": categories[int(cls)] if categories else int(cls),
                     "bbox": [x1, y1, x2 - x1, y2 - y1]})
    return rows


def coco_map(truth: dict[str, Any], results: list[dict], image_ids: Sequence[int],
             max_dets: int = 100) -> float:
    """COCO's mAP@[.50:.95] (pycocotools' COCOeval, bbox) of ``results`` on ``truth`` (a
    COCO annotation mapping), the best ``max_dets`` detections per image (COCO's 100); 0
    without detections or ground truth."""
    if not results or not truth.get("annotations"):
        return 0.0
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO()
        gt.dataset = truth
        gt.createIndex()
        evaluation = COCOeval(gt, gt.loadRes(results), "bbox")
        evaluation.params.imgIds = sorted(image_ids)
        evaluation.params.maxDets = [1, 10, max_dets]
        evaluation.evaluate()
        evaluation.accumulate()
    # COCOeval.summarize's first figure (AP at IoU .50:.95, all areas) at maxDets[-1]: its
    # summarize reads only 100 detections per image
    precision = evaluation.eval["precision"][:, :, :, 0, -1]
    valid = precision[precision > -1]
    return float(valid.mean()) if valid.size else 0.0


def as_truth(results: list[dict], image_ids: Sequence[int]) -> dict[str, Any]:
    """Detections (the fp32 reference's) as a COCO ground-truth set."""
    annotations = [{"id": n + 1, "image_id": r["image_id"], "category_id": r["category_id"],
                    "bbox": r["bbox"], "area": r["bbox"][2] * r["bbox"][3], "iscrowd": 0}
                   for n, r in enumerate(results)]
    categories = sorted({r["category_id"] for r in results})
    return {"images": [{"id": i} for i in image_ids], "annotations": annotations,
            "categories": [{"id": c} for c in categories]}


@dataclass(frozen=True)
class Scored:
    """The detections of the engine and of the fp32 reference, as COCO results."""

    engine: list[dict]
    reference: list[dict]
    image_ids: list[int]


def score_pass(run: Any, reference: Any, data: CocoImages, items: int, batch_size: int,
               t: Thresholds, device: Any) -> Scored:
    """Engine and reference on the first ``items`` images, detections in original pixels."""
    engine_rows: list[dict] = []
    reference_rows: list[dict] = []
    for start in range(0, items, batch_size):
        real = min(batch_size, items - start)
        indices = [start + i if i < real else start for i in range(batch_size)]
        inputs = data.batch(indices).inputs[0].to(device)
        for rows, runner in ((engine_rows, run), (reference_rows, reference)):
            for i, found in enumerate(detect(runner(inputs)[:real], t)):
                _, scale, pad, size = data.item(start + i)
                rows += coco_results(data.image_ids[start + i],
                                     to_original(found.cpu(), scale, pad, size), data.category_ids)
    return Scored(engine_rows, reference_rows, list(data.image_ids[:items]))


def map_metric(scored: Scored, data: CocoImages, target: float | None,
               agreement: float | None, max_det: int) -> dict:
    """COCO mAP against the annotations when there are any (COCO's 100 detections per image),
    else against the reference's boxes (all ``max_det`` of them)."""
    counts = {"engine_detections": len(scored.engine),
              "reference_detections": len(scored.reference)}
    if data.annotation_file is not None:
        truth = json.loads(data.annotation_file.read_text())
        return {"name": "coco_map", "value": coco_map(truth, scored.engine, scored.image_ids),
                "target": target, "higher_is_better": True,
                "reference_value": coco_map(truth, scored.reference, scored.image_ids),
                "note": "COCO mAP@[.50:.95] against the annotations", **counts}
    if not scored.engine and not scored.reference:
        value, note = 1.0, "neither the engine nor the fp32 reference found a box above conf_thres"
    else:
        value = coco_map(as_truth(scored.reference, scored.image_ids), scored.engine,
                         scored.image_ids, max_det)
        note = "no annotations: mAP@[.50:.95] of the engine's boxes against fp32 eager's"
    return {"name": "map_vs_reference", "value": value, "target": agreement,
            "higher_is_better": True, "note": note, **counts}
