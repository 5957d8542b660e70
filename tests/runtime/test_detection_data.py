"""The detection cases' data side, on the test host (no torchvision needed): the generated
shapes data in COCO 2017's layout, the COCO reader and its errors, the tensors a detector
gets, and the lr schedule."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from casemodules import BENCHMARKS

from chipperf_runtime.training.detection.coco import read_coco
from chipperf_runtime.training.driver import DataError

PREPARE = BENCHMARKS / "retinanet" / "pytorch" / "prepare_shapes.py"


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shapes") / "coco"
    subprocess.run([sys.executable, str(PREPARE), str(out), "--train", "12", "--val", "4",
                    "--size", "32"], check=True, timeout=60)
    return out


def copy_of(shapes: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(shapes, tmp_path / "coco"))


def test_generated_shapes_read_as_coco(shapes: Path) -> None:
    train, val = read_coco(shapes)
    assert (len(train.samples), len(val.samples)) == (12, 4)
    assert train.category_ids == (1, 2, 3) and train.num_classes == 4
    assert {s.image_id for s in train.samples}.isdisjoint({s.image_id for s in val.samples})
    for sample in train.samples + val.samples:
        assert sample.path.is_file() and 1 <= len(sample.boxes) <= 3
        assert all(0 <= x and 0 <= y and x + w <= 32 and y + h <= 32 for x, y, w, h in sample.boxes)


def test_max_shapes_1_draws_one_shape_an_image(tmp_path: Path) -> None:
    """detr's CI scene (case.yaml's ci_data): one shape in every image."""
    out = tmp_path / "one"
    subprocess.run([sys.executable, str(PREPARE), str(out), "--train", "6", "--val", "2",
                    "--size", "32", "--max-shapes", "1"], check=True, timeout=60)
    train, val = read_coco(out)
    assert [len(s.boxes) for s in train.samples + val.samples] == [1] * 8


def test_a_missing_annotation_file_and_image_folder_are_named_together(shapes: Path,
                                                                       tmp_path: Path) -> None:
    data = copy_of(shapes, tmp_path)
    (data / "annotations" / "instances_val2017.json").unlink()
    (data / "train2017").rename(data / "images")
    with pytest.raises(DataError) as caught:
        read_coco(data)
    message = str(caught.value)
    assert f"data dir {data} is not in COCO 2017's layout" in message
    assert f"{data / 'annotations'} has no instances_val2017.json" in message
    assert f"{data} has no train2017/ folder" in message
    assert "instances_train2017.json\n" in message       # the expected layout follows


def test_missing_image_files_are_counted_and_named(shapes: Path, tmp_path: Path) -> None:
    data = copy_of(shapes, tmp_path)
    gone = sorted((data / "val2017").iterdir())[:2]
    for path in gone:
        path.unlink()
    with pytest.raises(DataError, match=rf"{data / 'val2017'} lacks 2 of the 4 images its "
                                        rf"annotations list: {gone[0].name}, {gone[1].name}"):
        read_coco(data)


def test_crowd_and_degenerate_boxes_do_not_train(shapes: Path, tmp_path: Path) -> None:
    data = copy_of(shapes, tmp_path)
    path = data / "annotations" / "instances_train2017.json"
    doc = json.loads(path.read_text())
    first = doc["images"][0]["id"]
    for ann in doc["annotations"]:
        if ann["image_id"] == first:
            ann["iscrowd"] = 1
    doc["annotations"][-1]["bbox"][2] = 0.5
    path.write_text(json.dumps(doc))
    train, _ = read_coco(data)
    assert first not in {s.image_id for s in train.samples}      # no usable box left: dropped
    assert all(w >= 1 and h >= 1 for s in train.samples for _, _, w, h in s.boxes)


def test_a_data_dir_that_is_not_there_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=f"data dir {tmp_path / 'nope'} does not exist"):
        read_coco(tmp_path / "nope")


def test_targets_are_corner_boxes_and_flipping_mirrors_them(shapes: Path) -> None:
    import torch

    from chipperf_runtime.training.detection.data import Detections, hflip

    train, _ = read_coco(shapes)
    image, target = Detections(train, None)[0]
    sample = train.samples[0]
    assert image.shape == (3, 32, 32) and 0.0 <= float(image.min()) <= float(image.max()) <= 1.0
    x, y, w, h = sample.boxes[0]
    assert target["boxes"][0].tolist() == [x, y, x + w, y + h]
    assert target["labels"].tolist() == list(sample.labels)
    flipped, moved = hflip(image, target)
    assert torch.equal(flipped[..., 0], image[..., -1])
    assert moved["boxes"][0].tolist() == [32 - (x + w), y, 32 - x, y + h]


def test_lr_warms_up_then_steps_down() -> None:
    from chipperf_runtime.training.detection.train import lr_lambda

    class Cfg:
        warmup_steps, warmup_factor, lr_steps, lr_gamma = 4, 0.001, [2, 3], 0.1

    factor = lr_lambda(Cfg(), steps_per_epoch=10)  # type: ignore[arg-type]
    assert factor(0) == pytest.approx(0.001) and factor(2) == pytest.approx(0.5005)
    assert [factor(s) for s in (4, 19)] == [1.0, 1.0]
    assert factor(20) == pytest.approx(0.1) and factor(30) == pytest.approx(0.01)


def test_masks_are_the_shapes_outlines_and_flip_with_the_image(shapes: Path) -> None:
    """Instance segmentation (mask_rcnn): each box's polygon rasterised at the image's size,
    inside its box and covering most of it; flipping mirrors the masks too."""
    import torch

    from chipperf_runtime.training.detection.data import Detections, hflip

    train, _ = read_coco(shapes, masks=True)
    image, target = Detections(train, None, masks=True)[0]
    masks, boxes = target["masks"], target["boxes"]
    assert masks.dtype == torch.uint8 and masks.shape == (len(boxes), 32, 32)
    for mask, (x1, y1, x2, y2) in zip(masks, boxes.tolist()):
        rows, cols = mask.nonzero().unbind(1)
        assert x1 - 1 <= int(cols.min()) and int(cols.max()) <= x2 and y1 - 1 <= int(rows.min())
        assert int(rows.max()) <= y2 and int(mask.sum()) >= 0.4 * (x2 - x1) * (y2 - y1)
    _, moved = hflip(image, target)
    assert torch.equal(moved["masks"], masks.flip(-1))
    assert Detections(train, None)[0][1].keys() == {"boxes", "labels", "image_id"}


def test_a_masks_case_names_the_annotations_without_a_segmentation(shapes: Path,
                                                                  tmp_path: Path) -> None:
    data = copy_of(shapes, tmp_path)
    path = data / "annotations" / "instances_val2017.json"
    doc = json.loads(path.read_text())
    for ann in doc["annotations"][:2]:
        del ann["segmentation"]
    path.write_text(json.dumps(doc))
    read_coco(data)                                   # boxes only: not needed
    ids = ", ".join(str(a["id"]) for a in doc["annotations"][:2])
    with pytest.raises(DataError, match=rf"{path} has 2 annotations without a segmentation "
                                        rf"\(ids {ids}\): instance segmentation needs"):
        read_coco(data, masks=True)


def test_mask_map_of_known_masks(shapes: Path) -> None:
    """COCO mask mAP (segm) of the val split's own masks as detections is 1; of their boxes'
    rectangles as masks, lower (discs and triangles do not fill their boxes)."""
    import torch

    from chipperf_runtime.training.detection.cocomap import coco_map, coco_results
    from chipperf_runtime.training.detection.data import Detections

    _, val = read_coco(shapes, masks=True)
    ids, outputs, boxy = [], [], []
    for image_id, (_, target) in zip([s.image_id for s in val.samples], Detections(val, None, True)):
        n = len(target["boxes"])
        filled = torch.zeros_like(target["masks"])
        for k, (x1, y1, x2, y2) in enumerate(target["boxes"].int().tolist()):
            filled[k, y1:y2, x1:x2] = 1
        common = {"boxes": target["boxes"], "scores": torch.ones(n), "labels": target["labels"]}
        outputs.append({**common, "masks": target["masks"][:, None].float()})
        boxy.append({**common, "masks": filled[:, None].float()})
        ids.append(image_id)
    exact = coco_results(ids, outputs)
    assert coco_map(val.annotation_file, exact, ids, "segm") == pytest.approx(1.0)
    assert coco_map(val.annotation_file, exact, ids, "bbox") == pytest.approx(1.0)
    assert coco_map(val.annotation_file, coco_results(ids, boxy), ids, "segm") < 0.9
