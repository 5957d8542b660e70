"""run.json always closes: an exception nobody expected (a bug, an unwrapped library error)
ends the run as failed with the error named, instead of leaving it "running"."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from chipperf import controller
from chipperf.catalogue import Catalogue
from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig


def test_an_unexpected_error_closes_the_record(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "training"
    for rel in ("benchmarks/resnet50/pytorch/run_pretraining.py", "benchmarks/driver/__init__.py",
                "cpu/resnet50-pytorch/config/config_xeonx1x1.py",
                "cpu/docker_image/pytorch_2.13/Dockerfile"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    cluster = ClusterConfig(hosts=("127.0.0.1",), master_port=29600, work_root="/w")
    test = TestConfig(vendor="cpu", cases=(CaseEntry(CaseKey.parse(
        "resnet50:pytorch_2.13:xeon:1:1:1"), str(tmp_path)),))
    test = replace(test, result_root=str(tmp_path / "result"))

    def broken_preflight(*args, **kwargs):
        raise RuntimeError("a bug in preflight")

    monkeypatch.setattr(controller, "preflight", broken_preflight)
    with pytest.raises(RuntimeError, match="a bug in preflight"):
        controller.run(cluster, test, Catalogue.scan(root))
    (run_dir,) = (tmp_path / "result").iterdir()
    record = json.loads((run_dir / "run.json").read_text())
    assert record["status"] == "failed" and record["finished_at"]
    assert record["error"] == {"type": "RuntimeError", "message": "a bug in preflight"}
    (case,) = record["cases"].values()
    assert case["status"] == "failed"
    assert case["reason"] == "internal error: RuntimeError: a bug in preflight (traceback in run.log)"
    log = (run_dir / "run.log").read_text()
    assert "Traceback (most recent call last)" in log and "in broken_preflight" in log


def test_a_record_the_result_root_cannot_take_goes_to_the_fallback(tmp_path, monkeypatch) -> None:
    """A full (or vanished) result root: run.json is written under the fallback dir, said
    once, and the run closes there with its final status."""
    import errno

    from chipperf import record as records
    from chipperf.plan import RunPlan

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    real = records.write_json
    full = tmp_path / "result"

    def write_json(path, value):
        if full in Path(path).parents:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, value)

    monkeypatch.setattr(records, "write_json", write_json)
    plan = RunPlan("run7", full / "run7", ("h",), (), ())
    record = records.RunRecord(plan, ClusterConfig(hosts=("h",)), TestConfig(vendor="cpu", cases=()),
                               "training")
    record.finish("failed", OSError(errno.ENOSPC, "No space left on device"))
    saved = json.loads((tmp_path / "state/chipperf/runs/run7.run.json").read_text())
    assert saved["status"] == "failed" and saved["finished_at"]
    assert saved["error"] == {"type": "OSError", "message": "[Errno 28] No space left on device"}
