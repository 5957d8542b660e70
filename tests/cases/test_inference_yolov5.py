"""The yolov5 inference case (YOLOv5 written out from its published layer table,
chipperf_runtime.models.yolov5) at CI size through its entry's main: a COCO-layout set with
annotations and an ultralytics-named checkpoint (COCO mAP), a folder without annotations (mAP
against the fp32 reference); the full sizes' parameters and FLOPs; letterbox, NMS and the mAP
scoring on known boxes; bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from inferrun import BENCH, CONFIGS, argv, captured_events, cpu_vendor, load_entry
from PIL import Image

from chipperf_runtime.inference import yolo
from chipperf_runtime.models.yolov5 import YOLOv5
from chipperf_runtime.perflog import finished_problems

ENTRY = BENCH / "yolov5" / "pytorch" / "run_inference.py"
CI = ["model_size=n", "image_size=64", "num_classes=3", "conf_thres=0.0", "batch_size=2",
      "max_items=2", "latency_queries=1", "latency_warmup=1", "warmup_batches=1"]
LABEL = "yolov5:pytorch_2.13"


@pytest.fixture(autouse=True)
def _cpu_vendor_device(monkeypatch):
    cpu_vendor(monkeypatch, LABEL)


@pytest.fixture(scope="module")
def coco(tmp_path_factory) -> Path:
    prepare = load_entry(BENCH / "yolov5" / "pytorch" / "prepare_coco.py", "yolov5_prepare_coco")
    root = tmp_path_factory.mktemp("coco")
    prepare.write(root, 4, 64, seed=0)
    return root


def run(data: Path, out: Path, capsys, *sets: str) -> tuple[int, list, str]:
    module = load_entry(ENTRY, "yolov5_run_inference")
    code = module.main(module.build_case(), argv(CONFIGS / "yolov5", data, out, *CI, *sets))
    return code, *captured_events(capsys)


def test_coco_map_with_annotations_and_a_checkpoint(coco, tmp_path, capsys) -> None:
    torch.manual_seed(3)
    torch.save(YOLOv5("n", 3).state_dict(), tmp_path / "yolov5n.pt")
    code, events, err = run(coco, tmp_path, capsys, f"checkpoint={tmp_path / 'yolov5n.pt'}")
    assert code == 0, err
    f = events[-1].value
    assert finished_problems(f, "inference") == []
    assert f["work_done"] == 2 and f["throughput"]["unit"] == "items/s"
    metric = f["metric"]
    assert metric["name"] == "coco_map" and 0.0 <= metric["value"] <= 1.0
    assert metric["engine_detections"] == metric["reference_detections"] > 0
    assert metric["value"] == metric["reference_value"]          # fp32 eager is the reference
    assert f["reference"]["max_abs_diff"] == 0.0 and f["converged"] is True
    assert f["preset"]["changes"] == {"model_size": ["n", "l"], "image_size": [64, 640]}


def test_without_annotations_the_map_is_against_the_reference(coco, tmp_path, capsys) -> None:
    code, events, err = run(coco / "val2017", tmp_path, capsys, "annotation_file=none.json")
    assert code == 0, err
    metric = events[-1].value["metric"]
    assert metric["name"] == "map_vs_reference" and metric["value"] == pytest.approx(1.0)
    assert events[-2].value["box_class_agreement"] == 1.0


@pytest.mark.parametrize("sets, message", [
    (["model_size=z"], "model_size 'z' is unknown: use one of n, s, m, l, x (FlagPerf: l)"),
    (["image_size=65"], "image_size: must be a multiple of 32 (the stride of P5), got 65"),
    (["conf_thres=2"], "conf_thres: must be between 0 and 1, got 2"),
    (["image_dir=elsewhere"], "is not in"),
])
def test_bad_input_is_one_message(coco, tmp_path, capsys, sets, message) -> None:
    code, _, err = run(coco, tmp_path, capsys, *sets)
    assert code == 2 and err.startswith(f"chipperf inference case {LABEL}: error:")
    assert message in err


def test_full_size_parameters_and_flops() -> None:
    """Parameters as ultralytics' model summaries of yolov5{n,s,m,l,x}.yaml print them
    (README: 1.9 M, 7.2 M, 21.2 M, 46.5 M, 86.7 M); FLOPs at 640 px as their README's 16.5
    and 109.1 GFLOPs (2 per multiply-add; FlagPerf's yolov5 flops 5.45e10 is the MAC count)."""
    from chipperf_runtime.inference.measure import forward_flops

    expected = {"n": 1_872_157, "s": 7_235_389, "m": 21_190_557, "l": 46_563_709,
                "x": 86_749_405}
    with torch.device("meta"):
        for size, params in expected.items():
            assert sum(p.numel() for p in YOLOv5(size).parameters()) == params, size
        net = YOLOv5("l").eval().requires_grad_(False)
        assert net(torch.zeros(1, 3, 640, 640)).shape == (1, 25200, 85)
        flops = forward_flops(net, [torch.zeros(1, 3, 640, 640)])
    assert flops == pytest.approx(109.0e9, rel=0.002)


def test_letterbox_pads_evenly_and_boxes_map_back() -> None:
    image = Image.new("RGB", (100, 50), (255, 0, 0))
    array, scale, pad = yolo.letterbox(image, 64)
    assert array.shape == (3, 64, 64) and scale == 0.64 and pad == (0.0, 16.0)
    assert array[:, 0, 0].tolist() == [pytest.approx(114 / 255)] * 3     # grey band on top
    assert array[:, 32, 32].tolist() == [1.0, 0.0, 0.0]
    found = torch.tensor([[0.0, 16.0, 64.0, 48.0, 0.9, 1.0]])
    assert yolo.to_original(found, scale, pad, (100, 50))[0, :4].tolist() == [0, 0, 100, 50]


def test_nms_keeps_one_of_two_overlapping_boxes_per_class() -> None:
    def row(cx: float, cls: int) -> list[float]:
        return [cx, 20.0, 20.0, 20.0, 0.9] + [0.9 if c == cls else 0.0 for c in range(2)]

    prediction = torch.tensor([[row(20, 0), row(21, 0), row(21, 1), row(60, 0)]])
    found = yolo.detect(prediction, yolo.Thresholds(conf=0.05, iou=0.2, max_det=10))[0]
    assert sorted((round(b[0]), int(b[5])) for b in found.tolist()) == [(10, 0), (11, 1), (50, 0)]
    padded = yolo.detections_tensor(prediction, yolo.Thresholds(0.05, 0.2, 5))
    assert padded.shape == (1, 5, 6) and padded[0, 3:, 5].tolist() == [-1.0, -1.0]


def test_coco_map_scores_known_boxes(coco) -> None:
    truth = json.loads((coco / "annotations" / "instances_val2017.json").read_text())
    ids = [i["id"] for i in truth["images"]]
    exact = [{"image_id": a["image_id"], "category_id": a["category_id"], "bbox": a["bbox"],
              "score": 0.9} for a in truth["annotations"]]
    assert yolo.coco_map(truth, exact, ids) == pytest.approx(1.0)
    shifted = [{**r, "bbox": [r["bbox"][0] + r["bbox"][2] / 2, *r["bbox"][1:]]} for r in exact]
    assert yolo.coco_map(truth, shifted, ids) < 0.5
    assert yolo.coco_map(yolo.as_truth(exact, ids), exact, ids) == pytest.approx(1.0)
