"""COCO 2017's layout read without a framework: which images a split has, their boxes and
(for instance segmentation) their masks as COCO stores them (polygons or run-length codes).

A data dir is checked whole before anything trains; every missing piece is named in one
``DataError`` (the folder and what is missing in it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chipperf_runtime.training.driver import DataError

COCO_LAYOUT = """\
  <data_dir>/annotations/instances_train2017.json
  <data_dir>/annotations/instances_val2017.json
  <data_dir>/train2017/<file_name of every train image>
  <data_dir>/val2017/<file_name of every val image>"""
SPLITS = ("train", "val")
SHOWN = 3                     # missing image files named in the error, then a count


@dataclass(frozen=True)
class Sample:
    """One image and its usable annotations (boxes as COCO's [x, y, width, height])."""

    image_id: int
    path: Path
    boxes: tuple[tuple[float, float, float, float], ...]
    labels: tuple[int, ...]   # COCO category ids (torchvision's COCO convention: label = id)
    # each box's ``segmentation`` as the file has it (polygons [[x1, y1, x2, y2, ...], ...]
    # or an RLE dict); read only when the case trains masks (``read_coco(masks=True)``)
    segmentations: tuple[Any, ...] = ()


@dataclass(frozen=True)
class CocoSplit:
    name: str
    annotation_file: Path
    samples: tuple[Sample, ...]
    category_ids: tuple[int, ...]

    @property
    def num_classes(self) -> int:
        """Class count a torchvision detector needs: the largest id + 1 (0 is background)."""
        return max(self.category_ids) + 1


def annotation_file(data_dir: Path, split: str) -> Path:
    return Path(data_dir) / "annotations" / f"instances_{split}2017.json"


def image_dir(data_dir: Path, split: str) -> Path:
    return Path(data_dir) / f"{split}2017"


def missing_layout(data_dir: Path) -> list[str]:
    """What the data dir lacks of COCO's layout (annotation files, image folders)."""
    if not Path(data_dir).is_dir():
        return [f"data dir {data_dir} does not exist or is not a directory"]
    missing = []
    for split in SPLITS:
        if not annotation_file(data_dir, split).is_file():
            missing.append(f"{Path(data_dir) / 'annotations'} has no instances_{split}2017.json")
        if not image_dir(data_dir, split).is_dir():
            missing.append(f"{data_dir} has no {split}2017/ folder")
    return missing


def load_annotations(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path} is not a readable COCO annotation file: {exc}") from exc
    absent = [k for k in ("images", "annotations", "categories") if not isinstance(doc.get(k), list)]
    if absent:
        raise DataError(f"{path} is not a COCO instances file: it has no list {absent}")
    return doc


def usable(annotation: dict[str, Any]) -> bool:
    """Crowd regions and boxes under a pixel wide or high do not train (torchvision's rule)."""
    _, _, w, h = annotation["bbox"]
    return not annotation.get("iscrowd", 0) and w >= 1 and h >= 1


def samples_of(doc: dict[str, Any], folder: Path, keep_empty: bool,
               masks: bool = False) -> tuple[Sample, ...]:
    per_image: dict[int, list[dict[str, Any]]] = {}
    for ann in doc["annotations"]:
        if usable(ann):
            per_image.setdefault(ann["image_id"], []).append(ann)
    out = []
    for image in sorted(doc["images"], key=lambda i: i["id"]):
        anns = per_image.get(image["id"], [])
        if anns or keep_empty:
            out.append(Sample(image["id"], folder / image["file_name"],
                              tuple(tuple(float(v) for v in a["bbox"]) for a in anns),  # type: ignore[misc]
                              tuple(int(a["category_id"]) for a in anns),
                              tuple(a.get("segmentation") for a in anns) if masks else ()))
    return tuple(out)


def without_segmentation(doc: dict[str, Any], path: Path) -> list[str]:
    """Usable annotations that have no ``segmentation`` (a masks case cannot train on them)."""
    bare = [a.get("id", "?") for a in doc["annotations"]
            if usable(a) and not a.get("segmentation")]
    if not bare:
        return []
    shown = ", ".join(str(i) for i in bare[:SHOWN]) + (f" and {len(bare) - SHOWN} more"
                                                      if len(bare) > SHOWN else "")
    return [f"{path} has {len(bare)} annotations without a segmentation (ids {shown}): instance "
            "segmentation needs COCO's instances file with masks"]


def missing_images(samples: tuple[Sample, ...], folder: Path) -> list[str]:
    absent = [s.path.name for s in samples if not s.path.is_file()]
    if not absent:
        return []
    shown = ", ".join(absent[:SHOWN]) + (f" and {len(absent) - SHOWN} more" if len(absent) > SHOWN else "")
    return [f"{folder} lacks {len(absent)} of the {len(samples)} images its annotations list: {shown}"]


def read_split(data_dir: Path, split: str, keep_empty: bool,
               masks: bool = False) -> tuple[CocoSplit, list[str]]:
    """The split and what is missing of it (image files, with ``masks`` segmentations);
    train drops images without boxes."""
    path, folder = annotation_file(data_dir, split), image_dir(data_dir, split)
    doc = load_annotations(path)
    samples = samples_of(doc, folder, keep_empty, masks)
    categories = tuple(sorted(int(c["id"]) for c in doc["categories"]))
    if not samples or not categories:
        raise DataError(f"{path} lists no {'images' if not samples else 'categories'} to "
                        f"{'train' if split == 'train' else 'evaluate'} on")
    missing = missing_images(samples, folder) + (without_segmentation(doc, path) if masks else [])
    return CocoSplit(split, path, samples, categories), missing


def read_coco(data_dir: Path, masks: bool = False) -> tuple[CocoSplit, CocoSplit]:
    """train (images with at least one usable box) and val (every image); with ``masks``
    every usable box's segmentation too (instance segmentation). Raises one ``DataError``
    naming everything missing of the layout."""
    problems = missing_layout(data_dir)
    if problems:
        raise DataError(layout_error(data_dir, problems))
    train, train_missing = read_split(data_dir, "train", keep_empty=False, masks=masks)
    val, val_missing = read_split(data_dir, "val", keep_empty=True, masks=masks)
    if train_missing or val_missing:
        raise DataError(layout_error(data_dir, train_missing + val_missing))
    if set(val.category_ids) != set(train.category_ids):
        raise DataError(f"{val.annotation_file} and {train.annotation_file} list different "
                        "categories: both splits need the same category ids")
    return train, val


def layout_error(data_dir: Path, problems: list[str]) -> str:
    return (f"data dir {data_dir} is not in COCO 2017's layout: " + "; ".join(problems)
            + f"\nexpected:\n{COCO_LAYOUT}")
