"""The detection cases (retinanet, faster_rcnn, mask_rcnn, detr) on this host's torch: torchvision 0.28.0
beside the CPU torch 2.13.0, with the operator fallbacks the case asks for (its compiled ops
do not load here: nms runs on chipperf's CPU kernel, roi_align on roi_align_fallback; see
chipperf_runtime/models/tvision.py), and pycocotools for COCO's mAP, as in the cpu pytorch_2.13
image. The probe and the cases run in a fresh python each.

case.yaml's full-size figures against the built models (retinanet, faster_rcnn; mask_rcnn's
and detr's parameters: tests/runtime/test_detection_full_size.py), COCO mAP of known
detections, a diverging run failing at its step, and mask_rcnn and detr each reaching its CI
targets on one rank (their cpu CI configuration on case.yaml's ci_data). Convergence of
retinanet and faster_rcnn through the engine: tests/e2e/test_cases_e2e.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from caserun import BENCHMARKS, Case, check_converged, init_end, perflog_events

pytest.importorskip("torchvision")
pytest.importorskip("pycocotools")

PROBE = Path(__file__).resolve().parent / "detection_probe.py"
CASES = {name: Case(name, "pytorch") for name in ("retinanet", "faster_rcnn", "mask_rcnn", "detr")}
# torchvision's published sizes (frozen BatchNorm, as its pretrained models count them)
PUBLISHED_PARAMS = {"retinanet": 34_014_999, "faster_rcnn": 41_755_286}


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shapes") / "coco"
    subprocess.run([sys.executable, str(BENCHMARKS / "retinanet" / "pytorch" / "prepare_shapes.py"), str(out),
                    "--train", "32", "--val", "8"], check=True, timeout=120)
    return out


def probe(what: str, *args: str) -> dict:
    result = subprocess.run([sys.executable, str(PROBE), what, *args], capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.splitlines()[-1])


def test_case_yaml_holds_the_full_size_models() -> None:
    """Exactly torchvision's networks; parameters (trainable BatchNorm: from scratch) and
    training FLOPs per 800 x 1067 image as case.yaml says."""
    found = probe("full-size", *PUBLISHED_PARAMS)
    for arch, sizes in found.items():
        meta = yaml.safe_load((BENCHMARKS / arch / "pytorch" / "case.yaml").read_text())
        assert sizes["same_state_dict"] and sizes["params"] == sizes["torchvision_params"], arch
        assert sizes["params"] - sizes["batchnorm_params"] == PUBLISHED_PARAMS[arch], arch
        assert meta["work_unit"] == "samples"
        assert meta["full_size"] == {"params": sizes["params"],
                                     "flops_per_unit": sizes["flops_per_unit"]}, arch


def ci_data(case: Case, out: Path) -> Path:
    """The case's CI data, made as case.yaml's ``ci_data`` says (the engine's recipe)."""
    spec = yaml.safe_load((case.dir / "case.yaml").read_text())["ci_data"]
    args = [str(a).format(out=out) for a in spec["args"]]
    subprocess.run([sys.executable, str(BENCHMARKS / spec["script"]), *args], check=True, timeout=120)
    return out


def converged_run(case: Case, data: Path) -> tuple[dict, list[dict]]:
    """The case's CI configuration (config_xeonx1x1.py, nothing overridden) run to its target:
    FINISHED converged with every metric at its target, and the evaluations."""
    result = run_case(case, data)
    assert result.returncode == 0, result.stderr[-4000:]
    events = perflog_events(result.stdout)
    finished = dict(check_converged(events))
    assert finished["world_size"] == 1
    assert finished["flops_per_unit"] == init_end(events)["train_flops_per_sample"] > 0
    return finished, [e.value for e in events if e.name == "EVALUATE"]


def test_mask_rcnn_reaches_its_box_and_mask_map_targets(tmp_path: Path) -> None:
    """The tiny Mask R-CNN (torchvision) on its CI data (64 x 64 images, one shape each with
    its outline) trained to box and mask mAP 0.3 both on the held-out images: step 32 on
    one thread (the README's curves)."""
    finished, evaluations = converged_run(CASES["mask_rcnn"], ci_data(CASES["mask_rcnn"], tmp_path / "coco"))
    last = evaluations[-1]
    assert set(last["maps"]) == {"bbox", "segm"}
    assert last["maps"]["bbox"] >= 0.3 and last["maps"]["segm"] >= 0.3
    # the headline is the first of box and mask mAP short of its target, else mask mAP
    assert finished["metric"] == {"name": "mask_mAP", "value": last["maps"]["segm"],
                                  "target": 0.3, "higher_is_better": True}


def test_detr_reaches_its_box_map_target(tmp_path: Path) -> None:
    """The tiny DETR (transformers, DETR's own init) behind the detector interface, trained
    with its Hungarian-matched loss on its CI data (32 x 32 images, one shape each) to box
    mAP 0.2 on the held-out images: step 224 on one thread (the README's curves)."""
    finished, evaluations = converged_run(CASES["detr"], ci_data(CASES["detr"], tmp_path / "coco"))
    assert [set(e["maps"]) for e in evaluations] == [{"bbox"}] * len(evaluations)
    assert finished["metric"] == {"name": "mAP", "value": evaluations[-1]["maps"]["bbox"],
                                  "target": 0.2, "higher_is_better": True}
    assert evaluations[-1]["step"] * 16 == finished["work_done"]


def test_box_map_of_known_detections() -> None:
    found = probe("box-map")
    assert found["exact_results"][0] == {"image_id": 1, "category_id": 1,
                                         "bbox": [10.0, 10.0, 40.0, 40.0], "score": pytest.approx(0.9)}
    assert found["exact"] == pytest.approx(1.0)
    assert found["wrong_class"] == 0.0 and found["none"] == 0.0
    assert found["one_of_two"] == pytest.approx(0.5)     # category 1 found, category 2 missed


def run_case(case: Case, data: Path, *overrides: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return case.run_config(data, *[a for o in overrides for a in ("--set", o)], timeout=timeout)


def test_a_nan_loss_ends_the_case_as_failed_at_its_step(shapes: Path) -> None:
    result = run_case(CASES["faster_rcnn"], shapes, "base_lr=1e30", "warmup_steps=0")
    assert result.returncode == 2, result.stderr[-3000:]
    assert "chipperf case error: training diverged: loss is nan at step 2" in result.stderr, \
        result.stderr[-3000:]
    assert "TRAIN_START" in result.stdout and "FINISHED" not in result.stdout


def test_an_unknown_model_size_stops_the_case_before_training(shapes: Path) -> None:
    result = run_case(CASES["retinanet"], shapes, "model_size=huge")
    assert result.returncode == 2, result.stderr[-3000:]
    assert "model_size 'huge' is unknown: use one of ['resnet50_fpn', 'tiny']" in result.stderr
    assert "TRAIN_START" not in result.stdout and "Traceback" not in result.stderr
