"""The sam_h inference case (transformers' SamModel) at CI size through its entry's main:
two engines against the fp32 eager reference on mask decisions and logits, SAM ViT-H's
parameters and FLOPs on the meta device, a SamModel checkpoint, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from inferrun import BENCH, CONFIGS, argv, captured_events, cpu_vendor, load_entry

from chipperf_runtime.perflog import finished_problems

ENTRY = BENCH / "sam_h" / "pytorch" / "run_inference.py"
CI = ["model_size=tiny", "image_size=64", "batch_size=4", "max_items=8", "latency_queries=2",
      "latency_warmup=1", "warmup_batches=1", "loadgen_min_duration_ms=1"]
LABEL = "sam_h:pytorch_2.13"


@pytest.fixture(autouse=True)
def _cpu_vendor_device(monkeypatch):
    cpu_vendor(monkeypatch, LABEL)


@pytest.fixture(scope="module")
def images(tmp_path_factory) -> Path:
    """Three small RGB images of different shapes in nested folders (any layout is read)."""
    from PIL import Image

    root = tmp_path_factory.mktemp("images")
    generator = torch.Generator().manual_seed(0)
    for i, (w, h) in enumerate([(40, 30), (24, 48), (32, 32)]):
        pixels = torch.randint(0, 256, (h, w, 3), generator=generator, dtype=torch.uint8)
        (root / f"set{i % 2}").mkdir(exist_ok=True)
        Image.fromarray(pixels.numpy()).save(root / f"set{i % 2}" / f"img{i}.png")
    return root


def entry():
    return load_entry(ENTRY, "sam_h_run_inference")


def run(data: Path, out: Path, capsys, *sets: str) -> tuple[int, list, str]:
    module = entry()
    code = module.main(module.CASE, argv(CONFIGS / "sam_h", data, out, *CI, *sets))
    return code, *captured_events(capsys)


@pytest.mark.parametrize("engine", ["eager", "onnxruntime"])
def test_sam_runs_within_its_bound(images, tmp_path, capsys, engine) -> None:
    code, events, err = run(images, tmp_path, capsys, f"engine={engine}", "datasize=8")
    assert code == 0, err
    f = events[-1].value
    assert finished_problems(f, "inference") == []
    assert f["engine"] == engine and f["work_done"] == 8 and f["latency_ms"]["count"] == 2
    assert f["metric"]["name"] == "mask_agreement" and f["metric"]["value"] >= 0.99
    evaluation = events[-2].value
    assert evaluation["scored"] == 8 * 3 * 32 * 32    # 3 masks of 4 x (64 / 8) pixels a side
    assert evaluation["reference_distinct_top1"] == 2    # pixels in and out of the masks
    ref = f["reference"]
    assert ref["within_bound"] and f["converged"] and ref["max_abs_reference"] > 0
    assert (ref["max_abs_diff"] == 0.0) == (engine == "eager")
    assert events[2].value["data"]["images"] == 3


def test_sam_h_full_size_parameters_and_flops() -> None:
    from chipperf_runtime.inference.measure import forward_flops

    with torch.device("meta"):
        net = entry().build({"model_size": "huge", "image_size": 1024}).eval().requires_grad_(False)
        assert sum(p.numel() for p in net.parameters()) == 641_090_864
        flops = forward_flops(net, [torch.zeros(1, 3, 1024, 1024), torch.zeros(1, 1, 1, 2)])
    assert flops == pytest.approx(5.965e12, rel=0.001)   # FlagPerf: 3.1e12 (multiply-adds)


def test_a_sam_model_checkpoint_loads_and_the_metric_stays_agreement(images, tmp_path,
                                                                      capsys) -> None:
    from transformers import SamModel

    tiny = entry().build({"model_size": "tiny", "image_size": 64})
    plain = SamModel(tiny.config)
    torch.save(plain.state_dict(), tmp_path / "sam.pt")        # SamModel's own names
    code, events, err = run(images, tmp_path, capsys, f"checkpoint={tmp_path / 'sam.pt'}",
                            "datasize=4")
    assert code == 0, err
    metric = events[-1].value["metric"]
    assert metric["name"] == "mask_agreement" and "the data has no labels" in metric["note"]


@pytest.mark.parametrize("sets,message", [
    (["image_size=60"], "image_size: must be a multiple of 16, got 60"),
    (["model_size=large"], "model_size 'large' is unknown: use one of huge, tiny"),
    (["datasize=0"], "datasize: must be null or a whole number >= 1, got 0"),
])
def test_bad_input_is_one_clear_error(images, tmp_path, capsys, sets, message) -> None:
    code, _, err = run(images, tmp_path, capsys, *sets)
    assert code == 2 and f"chipperf inference case {LABEL}: error:" in err and message in err


def test_a_folder_without_images(tmp_path, capsys) -> None:
    code, _, err = run(tmp_path, tmp_path, capsys)
    assert code == 2 and "no images" in err and "give a folder of images" in err
