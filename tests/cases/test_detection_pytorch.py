"""The detection cases (retinanet, faster_rcnn) in their image: torchvision and pycocotools
are in the cpu pytorch_2.14 image only (PyPI's torchvision 0.28.0 imports beside the test
host's CPU torch 2.13 through chipperf's hook, but its compiled ops, nms and roi_align, do
not load there), so these tests run the case code in a container of that image, built
by chipperf's image builder with the tag a run uses (a run or another test reuses it).

case.yaml's full-size figures against the built models, COCO mAP of known detections, and a
diverging run failing at its step. Convergence through the engine: tests/e2e/test_cases_e2e.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from bigimage import needs_big_image
from caserun import BENCHMARKS, REPO, Case

from chipperf.config.model import ImageBuildConfig
from chipperf.containers import images
from chipperf.containers.pipconf import fill_from_master, master_pip_settings

# The first test may build the ~6 GB image (2,732 s on the loaded development machine, most
# of it pip fetching CUDA torch from PyPI): longer than pyproject's 1,500 s per test.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(3600)]

IMAGE_DIR = REPO / "training" / "cpu" / "docker_image" / "pytorch_2.14"
PROBE = Path(__file__).resolve().parent / "detection_probe.py"
CASES = {name: Case(name, "pytorch") for name in ("retinanet", "faster_rcnn")}
# torchvision's published sizes (frozen BatchNorm, as its pretrained models count them)
PUBLISHED_PARAMS = {"retinanet": 34_014_999, "faster_rcnn": 41_755_286}


@dataclass(frozen=True)
class Image:
    client: Any            # docker SDK client of the root-namespace engine
    tag: str


@pytest.fixture(scope="module")
def image(local_docker) -> Image:
    needs_big_image()
    cfg = fill_from_master(ImageBuildConfig(), master_pip_settings()).config
    return Image(local_docker, images.ensure_image(local_docker, "chipperf/cpu-pytorch_2.14",
                                                   images.build_inputs(IMAGE_DIR, cfg), cfg))


def in_image(image: Image, argv: list[str], *mounts: Path, timeout: int = 600
             ) -> subprocess.CompletedProcess:
    """argv in a fresh container (no network), the repo (read-only) and ``mounts`` at their
    own paths; the container is removed whatever happens."""
    volumes = {str(REPO): {"bind": str(REPO), "mode": "ro"},
               **{str(m): {"bind": str(m), "mode": "rw"} for m in mounts}}
    env = {"PYTHONPATH": f"{REPO}:{BENCHMARKS}", "CHIPPERF_VENDOR": "cpu", "CHIPPERF_DEVICE": "cpu"}
    container = image.client.containers.run(image.tag, argv, volumes=volumes, environment=env,
                                            network_mode="none", detach=True)
    try:
        code = container.wait(timeout=timeout)["StatusCode"]
        out = container.logs(stdout=True, stderr=False).decode()
        err = container.logs(stdout=False, stderr=True).decode()
    finally:
        container.remove(force=True)
    return subprocess.CompletedProcess(argv, code, out, err)


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shapes") / "coco"
    subprocess.run([sys.executable, str(BENCHMARKS / "detection" / "prepare_shapes.py"), str(out),
                    "--train", "32", "--val", "8"], check=True, timeout=120)
    return out


def probe(image: Image, what: str) -> dict:
    result = in_image(image, ["python3", str(PROBE), what])
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.splitlines()[-1])


def test_case_yaml_holds_the_full_size_models(image: Image) -> None:
    """Exactly torchvision's networks; parameters (trainable BatchNorm: from scratch) and
    training FLOPs per 800 x 1067 image as case.yaml says."""
    found = probe(image, "full-size")
    for arch, sizes in found.items():
        meta = yaml.safe_load((BENCHMARKS / arch / "pytorch" / "case.yaml").read_text())
        assert sizes["same_state_dict"] and sizes["params"] == sizes["torchvision_params"], arch
        assert sizes["params"] - sizes["batchnorm_params"] == PUBLISHED_PARAMS[arch], arch
        assert meta["work_unit"] == "samples"
        assert meta["full_size"] == {"params": sizes["params"],
                                     "flops_per_unit": sizes["flops_per_unit"]}, arch


def test_box_map_of_known_detections(image: Image) -> None:
    found = probe(image, "box-map")
    assert found["exact_results"][0] == {"image_id": 1, "category_id": 1,
                                         "bbox": [10.0, 10.0, 40.0, 40.0], "score": pytest.approx(0.9)}
    assert found["exact"] == pytest.approx(1.0)
    assert found["wrong_class"] == 0.0 and found["none"] == 0.0
    assert found["one_of_two"] == pytest.approx(0.5)     # category 1 found, category 2 missed


def run_case(image: Image, case: Case, data: Path, *overrides: str) -> subprocess.CompletedProcess:
    argv = ["python3", str(case.entry), "--data_dir", str(data), "--extern_config_dir",
            str(case.cpu_configs), "--extern_config_file", "config_xeonx1x1.py"]
    return in_image(image, argv + [a for o in overrides for a in ("--set", o)], data)


def test_a_nan_loss_ends_the_case_as_failed_at_its_step(image: Image, shapes: Path) -> None:
    result = run_case(image, CASES["faster_rcnn"], shapes, "base_lr=1e30", "warmup_steps=0")
    assert result.returncode == 2, result.stderr[-3000:]
    assert "chipperf case error: training diverged: loss is nan at step 2" in result.stderr, \
        result.stderr[-3000:]
    assert "TRAIN_START" in result.stdout and "FINISHED" not in result.stdout


def test_an_unknown_model_size_stops_the_case_before_training(image: Image, shapes: Path) -> None:
    result = run_case(image, CASES["retinanet"], shapes, "model_size=huge")
    assert result.returncode == 2, result.stderr[-3000:]
    assert "model_size 'huge' is unknown: use one of ['resnet50_fpn', 'tiny']" in result.stderr
    assert "TRAIN_START" not in result.stdout and "Traceback" not in result.stderr
