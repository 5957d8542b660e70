"""Bad input found at plan time (issue 44): an image case's data_mode it cannot run, decoding
on the accelerator included, refused with the case's own rule before any image is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.config.runlength import data_mode_problems
from chipperf.plan import check
from chipperf.suites import get_suite
from chipperf_runtime.training.imagecls.datamode import DATA_MODES, data_mode_problem

DEVICE = ("data_mode = 'nvjpeg': decoding the images on the accelerator (nvJPEG, DALI) is not "
          "implemented in chipperf's image cases, for any vendor: use 'real' (decoded on the host "
          "by the DataLoader workers, num_workers) or 'predecoded' (decoded once ahead of the run)")


def plan_problems(tmp_path: Path, vendor: str, chip: str, overrides: dict) -> list[str]:
    key = CaseKey.parse(f"resnet50:pytorch_2.13:{chip}:1:1:1")
    test = TestConfig(vendor=vendor, cases=(CaseEntry(key, str(tmp_path)),), overrides=overrides,
                      result_root=str(tmp_path / "result"))
    suite = get_suite("training")
    return check(ClusterConfig(hosts=("10.0.0.1",)), test, suite.scan(suite.default_root),
                 where="test.yaml")


@pytest.mark.parametrize("vendor,chip", [("cpu", "xeon"), ("nvidia", "H100")])
def test_device_decode_is_refused_at_plan_time_for_every_vendor(tmp_path, vendor, chip) -> None:
    assert plan_problems(tmp_path, vendor, chip, {"data_mode": "nvjpeg"}) == [
        f"test.yaml: CASES['resnet50:pytorch_2.13:{chip}:1:1:1']: {DEVICE}"]


def test_the_modes_the_cases_run_plan(tmp_path) -> None:
    assert plan_problems(tmp_path, "cpu", "xeon", {"data_mode": "predecoded"}) == []
    assert plan_problems(tmp_path, "cpu", "xeon", {"data_mode": "synthetic", "run_mode": "performance",
                                                   "timed_steps": 4}) == []


def test_the_rules() -> None:
    assert [data_mode_problem(m, "performance") for m in DATA_MODES] == [None] * 3
    assert data_mode_problem("DALI", "performance") == DEVICE.replace("'nvjpeg'", "'DALI'")
    assert data_mode_problem("jpeg", "convergence") == \
        "data_mode = 'jpeg': unknown: use one of ('real', 'predecoded', 'synthetic')"
    assert "set run_mode = 'performance'" in str(data_mode_problem("synthetic", "convergence"))


def test_a_case_without_the_knob_is_not_judged() -> None:
    assert data_mode_problems({"max_steps": 3}, {"data_mode": "nvjpeg"}, "w") == []
    assert data_mode_problems({"data_mode": "real"}, {"data_mode": "gpu"}, "w")[0].startswith(
        "w: data_mode = 'gpu': decoding")
