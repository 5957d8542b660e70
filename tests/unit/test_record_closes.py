"""run.json always closes: an exception nobody expected (a bug, an unwrapped library error)
ends the run as failed with the error named, instead of leaving it "running"."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from chipperf.config.model import CaseEntry, CaseKey, ClusterConfig, TestConfig
from chipperf.run import controller
from chipperf.suites.catalogue import Catalogue


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
    # the host lease in a lock of this test's own (a real run on this machine may hold
    # 127.0.0.1's, and the test is about the record, not about waiting for that run)
    take = controller.ClusterLease.take.__func__
    monkeypatch.setattr(controller.ClusterLease, "take", classmethod(
        lambda cls, hosts, wait=None, **kw: take(cls, hosts, wait, base=str(tmp_path / "host"))))
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

    from chipperf.plan import RunPlan
    from chipperf.run import record as records

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


def test_the_fallback_chain_and_its_readers(tmp_path, monkeypatch) -> None:
    """The state dir cannot take the record either: the temp dir does. Reports and the
    closing table read that newer copy (and say so); once the run dir takes run.json again,
    the copy goes."""
    import errno
    import tempfile

    from chipperf.plan import RunPlan
    from chipperf.results.layout import fallback_record
    from chipperf.results.read.collect import load_run_json
    from chipperf.run import record as records

    (tmp_path / "state").write_text("a file, not a dir")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    real, full = records.write_json, [True]
    run_dir = tmp_path / "result" / "run8"

    def write_json(path, value):
        if full[0] and run_dir in Path(path).parents:
            raise OSError(errno.EROFS, "Read-only file system")
        real(path, value)

    monkeypatch.setattr(records, "write_json", write_json)
    run_dir.mkdir(parents=True)
    plan = RunPlan("run8", run_dir, ("h",), (), ())
    record = records.RunRecord(plan, ClusterConfig(hosts=("h",)), TestConfig(vendor="cpu", cases=()),
                               "training")
    (run_dir / "run.json").write_text(json.dumps({**record.data, "status": "running"}))
    record.finish("failed")
    copy = tmp_path / "tmp" / "chipperf-runs" / "run8.run.json"
    assert record.fallback == copy == fallback_record("run8")
    read, problems = load_run_json(run_dir)
    assert read["status"] == "failed" and read["finished_at"]
    assert problems == [f"run.json: not the run's latest record, which the result root could "
                        f"not take: read from {copy} (`chipperf collect {run_dir}` puts it back)"]
    from chipperf.results.read.check import check
    assert f"run.json: status 'running' here, but the run's later record is {copy}" in \
        "\n".join(check(run_dir).problems)
    full[0] = False
    record.save()
    assert not copy.exists() and record.fallback is None
    assert json.loads((run_dir / "run.json").read_text())["status"] == "failed"
    assert load_run_json(run_dir) == (json.loads((run_dir / "run.json").read_text()), [])


def test_collect_on_a_root_that_still_cannot_take_the_record_says_so(tmp_path, monkeypatch) -> None:
    """Nothing is taken from the hosts, and the message says what to do (no OSError)."""
    import errno

    from chipperf.errors import ChipperfError
    from chipperf.results import layout
    from chipperf.run import leftovers

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    run_dir = tmp_path / "result" / "run9"
    run_dir.mkdir(parents=True)
    (run_dir / "run.json").write_text(json.dumps({"run_id": "run9", "status": "running"}))
    copy = tmp_path / "state" / "chipperf" / "runs" / "run9.run.json"
    copy.parent.mkdir(parents=True)
    copy.write_text(json.dumps({"run_id": "run9", "status": "failed"}))

    def atomic_write(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(layout, "atomic_write", atomic_write)
    monkeypatch.setattr(leftovers, "on_hosts", lambda *a: pytest.fail("went to the hosts"))
    with pytest.raises(ChipperfError, match=r"run9: its run.json cannot be written there "
                                            r"\(\[Errno 28\] No space left on device\): give"):
        leftovers.collect(run_dir)
    assert copy.is_file()


def test_run_log_on_a_file_system_that_takes_nothing_closes_quietly(capsys) -> None:
    """run.log's last lines that a full or read-only root does not take: said once, and
    closing it raises nothing (it was the run's last `internal error: OSError`)."""
    import logging

    from chipperf.run.record import RunLog

    handler = RunLog("/dev/full")
    logger = logging.getLogger("chipperf.test.runlog")
    logger.addHandler(handler)
    try:
        logger.error("a line the disk does not take")
    finally:
        logger.removeHandler(handler)
    handler.close()
    assert capsys.readouterr().err.count("chipperf: cannot write /dev/full") == 1
