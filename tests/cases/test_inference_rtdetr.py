"""The detector of the inference suite, rtdetr_r50vd (transformers' RTDetrForObjectDetection,
standing in for FlagPerf's GPL/AGPL-only yolov5), at CI size through its entry's main: fp32
and bf16 eager against the fp32 eager reference; RT-DETR-R50vd's parameters and FLOPs; a
transformers checkpoint; bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from inferrun import BENCH, CONFIGS, argv, captured_events, cpu_vendor, load_entry

from chipperf_runtime.perflog import finished_problems

ENTRY = BENCH / "rtdetr_r50vd" / "pytorch" / "run_inference.py"
CI = ["model_size=tiny", "image_size=64", "num_classes=10", "batch_size=4", "max_items=8", "datasize=8",
      "latency_queries=2", "latency_warmup=1", "warmup_batches=1"]
LABEL = "rtdetr_r50vd:pytorch_2.13"


@pytest.fixture(autouse=True)
def _cpu_vendor_device(monkeypatch):
    cpu_vendor(monkeypatch, LABEL)


@pytest.fixture(scope="module")
def images(tmp_path_factory) -> Path:
    from PIL import Image

    root = tmp_path_factory.mktemp("coco-like")
    generator = torch.Generator().manual_seed(1)
    for i, (w, h) in enumerate([(80, 60), (50, 70), (64, 64), (90, 40)]):
        pixels = torch.randint(0, 256, (h, w, 3), generator=generator, dtype=torch.uint8)
        Image.fromarray(pixels.numpy()).save(root / f"{i:012d}.jpg")
    return root


def entry():
    return load_entry(ENTRY, "rtdetr_run_inference")


def run(data: Path, out: Path, capsys, *sets: str) -> tuple[int, list, str]:
    module = entry()
    code = module.main(module.CASE, argv(CONFIGS / "rtdetr_r50vd", data, out, *CI, *sets))
    return code, *captured_events(capsys)


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_detector_runs_within_its_bound(images, tmp_path, capsys, precision) -> None:
    code, events, err = run(images, tmp_path, capsys, "engine=eager", f"precision={precision}")
    assert code == 0, err
    f = events[-1].value
    assert finished_problems(f, "inference") == []
    assert f["precision"] == precision and f["work_done"] == 8
    assert f["metric"]["name"] == "query_class_agreement"
    assert f["metric"]["value"] >= f["metric"]["target"] and f["converged"] is True
    ref = f["reference"]
    assert ref["within_bound"] and (ref["max_abs_diff"] == 0.0) == (precision == "fp32")
    assert events[-2].value["scored"] == 8 * 20      # 20 queries per image at CI size


def test_rtdetr_r50vd_full_size_parameters_and_flops() -> None:
    from chipperf_runtime.inference.measure import forward_flops

    with torch.device("meta"):
        net = entry().build({"model_size": "r50vd", "num_classes": 80}).eval().requires_grad_(False)
        assert sum(p.numel() for p in net.parameters()) == 42_891_372
        flops = forward_flops(net, [torch.zeros(1, 3, 640, 640)])
    assert flops == pytest.approx(137.84e9, rel=0.001)


def test_a_transformers_checkpoint_loads(images, tmp_path, capsys) -> None:
    from transformers import RTDetrForObjectDetection

    tiny = entry().build({"model_size": "tiny", "num_classes": 10})
    torch.save(RTDetrForObjectDetection(tiny.config).state_dict(), tmp_path / "rtdetr.pt")
    code, events, err = run(images, tmp_path, capsys, f"checkpoint={tmp_path / 'rtdetr.pt'}")
    assert code == 0, err
    assert events[-1].value["metric"]["name"] == "query_class_agreement"


@pytest.mark.parametrize("sets,message", [
    (["image_size=100"], "image_size: must be a multiple of 32 (the backbone's stride), got 100"),
    (["model_size=yolov5"], "model_size 'yolov5' is unknown: use one of r50vd, tiny"),
    (["num_classes=0"], "num_classes: must be a whole number >= 1, got 0"),
])
def test_bad_input_is_one_clear_error(images, tmp_path, capsys, sets, message) -> None:
    code, _, err = run(images, tmp_path, capsys, *sets)
    assert code == 2 and f"chipperf inference case {LABEL}: error:" in err and message in err
