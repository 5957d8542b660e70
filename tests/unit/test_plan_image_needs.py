"""Bad input found at plan time (issue 40): a knob value that needs a package the case's image
does not install (case.yaml's image_needs, chipperf.plan.imageneeds): t5_3b's zero_stage > 0
needs DeepSpeed, which the shipped pytorch_2.13 images lack; one line naming the case, the
image folder and the fix, before any image is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.plan import check
from chipperf.plan.imageneeds import NeedFix, image_needs_problems
from chipperf.suites import get_suite

SUITE = get_suite("training")
ROOT = SUITE.default_root
ZERO = [{"knob": "zero_stage", "except": [0], "module": "deepspeed",
         "distributions": ["deepspeed"], "what": "DeepSpeed ZeRO"}]


def plan_problems(tmp_path: Path, key: str, overrides: dict, vendor: str = "cpu") -> list[str]:
    test = TestConfig(vendor=vendor, cases=(CaseEntry(CaseKey.parse(key), str(tmp_path)),),
                      overrides=overrides, result_root=str(tmp_path / "result"))
    return check(ClusterConfig(hosts=("10.0.0.1",)), test, SUITE.scan(ROOT), where="test.py")


@pytest.mark.parametrize("vendor,key", [("cpu", "t5_3b:pytorch_2.13:xeon:1:2:1"),
                                        ("nvidia", "t5_3b:pytorch_2.13:A100:1:8:1")])
def test_zero_stage_without_deepspeed_in_the_image_is_one_line_naming_the_fix(
        tmp_path, vendor, key) -> None:
    vendor_case = ROOT / vendor / "t5_3b-pytorch" / "config" / "requirements.txt"
    assert plan_problems(tmp_path, key, {"zero_stage": 3}, vendor) == [
        f"test.py: CASES['{key}']: zero_stage = 3 needs DeepSpeed ZeRO (module 'deepspeed'), "
        f"which image folder {ROOT / vendor / 'docker_image' / 'pytorch_2.13'} does not install "
        f"(not in its requirements*.txt nor {vendor_case}, nor imported in its Dockerfile's "
        f"check line): add deepspeed (deepspeed==0.19.8, as image folder deepspeed_0.19 pins "
        f"it) to {vendor_case} (an image layer over pytorch_2.13), or set zero_stage = 0"]


def test_the_shipped_stage_plans(tmp_path) -> None:
    assert plan_problems(tmp_path, "t5_3b:pytorch_2.13:xeon:1:2:1", {}) == []
    assert plan_problems(tmp_path, "t5_3b:pytorch_2.13:xeon:1:2:1", {"zero_stage": 0}) == []


def folder(path: Path, requirements: str = "", dockerfile: str = "FROM x\n") -> Path:
    path.mkdir(parents=True)
    (path / "requirements.txt").write_text(requirements)
    (path / "Dockerfile").write_text(dockerfile)
    return path


def test_deepspeed_in_the_vendor_case_layer_or_the_image_needs_nothing_more(tmp_path) -> None:
    bare = folder(tmp_path / "pytorch_2.13", "torch==2.13.0\n")
    layer = tmp_path / "case" / "config" / "requirements.txt"
    layer.parent.mkdir(parents=True)
    layer.write_text("deepspeed==0.19.8\n")
    imported = folder(tmp_path / "ngc", "", 'RUN python -c "import torch, deepspeed"\n')
    fix = NeedFix(tmp_path / "case", {})
    stage = {"zero_stage": 2}
    assert image_needs_problems(ZERO, stage, bare, [layer], fix, "w") == []
    assert image_needs_problems(ZERO, stage, imported, [], fix, "w") == []
    (problem,) = image_needs_problems(ZERO, stage, bare, [], fix, "w")
    assert problem.startswith("w: zero_stage = 2 needs DeepSpeed ZeRO") and \
        f"add deepspeed to {layer} (an image layer over pytorch_2.13)" in problem


def test_a_value_that_needs_nothing_and_a_malformed_entry(tmp_path) -> None:
    bare = folder(tmp_path / "pytorch_2.13")
    fix = NeedFix(tmp_path / "case", {})
    assert image_needs_problems(ZERO, {"zero_stage": 0}, bare, [], fix, "w") == []
    assert image_needs_problems(ZERO, {}, bare, [], fix, "w") == []
    assert image_needs_problems([{"knob": "zero_stage"}], {"zero_stage": 1}, bare, [], fix,
                                "w") == [
        "w: case.yaml image_needs entry {'knob': 'zero_stage'}: give exactly distributions, "
        "except, knob, module, what"]
