"""Damaged directories: each damage is reported by name and the rest is still summarised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from synthetic_results import SynthCase, write_run

from chipperf.results.report import summarize, write_reports

CASE = "resnet50-pytorch_2.13-A100-2x2"
NODE0, NODE1 = "10.0.0.1_noderank0", "10.0.0.2_noderank1"


@pytest.fixture
def run(tmp_path) -> Path:
    return write_run(tmp_path, [SynthCase(seconds=10)])


def node(run: Path, number: int, name: str = NODE0) -> Path:
    return run / CASE / f"round{number}" / name


def all_problems(summary) -> list[str]:
    out = list(summary.problems)
    for case in summary.cases:
        out += list(case.problems)
        for r in case.rounds:
            out += list(r.problems)
    return out


def test_truncated_rank_log(run):
    log = node(run, 1) / "rank0.out.log"
    text = log.read_text()
    log.write_text(text[: text.index('"FINISHED"') + 40])           # cut inside FINISHED
    summary = summarize(run)
    case = summary.cases[0]
    first = case.rounds[0]
    assert first.throughput is None
    assert first.reasons["finished"].startswith(f"{NODE0}/rank0.out.log has no FINISHED event "
                                                "(it ends at line ")
    assert any(p.startswith(f"{CASE}/round1/{NODE0}/rank0.out.log:") and "not valid JSON" in p
               for p in all_problems(summary))
    assert case.counted == (2, 3)
    assert case.excluded[0].round == 1 and "no FINISHED" in case.excluded[0].why
    assert first.energy_j is not None                                # monitors still read


def test_interrupted_run_half_written(run):
    """Killed during round 3: run.json still says running and lists no round 3 status;
    node 1 never wrote its files; node 0's logs stop mid-line."""
    meta = json.loads((run / "run.json").read_text())
    meta["status"], meta["finished_at"] = "running", None
    meta["cases"][CASE]["rounds"][2] = {"number": 3, "status": "running", "reason": "",
                                        "started_ms": 1, "finished_ms": None,
                                        "nodes": {NODE0: "running", NODE1: "starting"}}
    del meta["cases"][CASE]["status"]
    (run / "run.json").write_text(json.dumps(meta))
    (node(run, 3) / "status").write_text("running\n")
    for path in node(run, 3, NODE1).iterdir():
        path.unlink()
    node(run, 3, NODE1).rmdir()
    for name in ("rank0.out.log", "nvidia_monitor.log"):
        path = node(run, 3) / name
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    summary = summarize(run)
    case = summary.cases[0]
    assert summary.status == "running" and case.status == "running"
    assert case.counted == (1, 2)
    assert case.excluded[0].round == 3 and case.excluded[0].why == "status running"
    third = case.rounds[2]
    assert third.nodes[1].status == "starting" and third.nodes[1].reason == "node dir missing"
    assert f"{CASE}/round3/{NODE1}/: node listed in run.json has no dir" in all_problems(summary)
    assert case.aggregate["throughput_raw"].n == 2
    assert write_reports(run)                                        # every report still writes


def test_non_utf8_bytes(run):
    log = node(run, 2) / "rank0.out.log"
    log.write_bytes(b"warm\xffup \xfe\n" + log.read_bytes())
    monitor = node(run, 2, NODE1) / "cpu_monitor.log"
    monitor.write_bytes(monitor.read_bytes() + b'{"ts_ms": 1, "source": "cpu\xff"}\n')
    summary = summarize(run)
    second = summary.cases[0].rounds[1]
    assert second.throughput.raw == pytest.approx(1010.0)
    problems = all_problems(summary)
    assert f"{CASE}/round2/{NODE0}/rank0.out.log:1: not valid UTF-8 (bytes replaced)" in problems
    assert any(p.startswith(f"{CASE}/round2/{NODE1}/cpu_monitor.log:") and "UTF-8" in p
               for p in problems)
    assert second.avg_cpu_util_pct is not None


def test_missing_monitor_file(run):
    (node(run, 1, NODE1) / "pwr_monitor.log").unlink()
    first = summarize(run).cases[0].rounds[0]
    assert first.energy_j is None and first.work_per_joule is None
    assert first.reasons["energy_j"] == f"{NODE1}: pwr_monitor.log missing"
    assert "no energy_j" in first.reasons["work_per_joule"]
    assert first.nodes[0].energy_j is not None                       # node 0 still measured
    assert first.accel_energy_j is not None and first.work_per_joule_accel is not None


def test_missing_rank_log_and_node_dir(run):
    (node(run, 2) / "rank0.out.log").unlink()
    second = summarize(run).cases[0].rounds[1]
    assert second.reasons["finished"] == f"{NODE0}/rank0.out.log missing"
    assert second.reasons["window"].startswith(f"{NODE0}/rank0.out.log has no TRAIN_START")
    assert second.energy_j is None
    assert "no timed window" in second.nodes[0].reasons["energy_j"]


def test_corrupt_or_missing_run_json(run):
    (run / "run.json").write_text('{"run_id": "run1", "cases": {')
    summary = summarize(run)
    assert summary.problems[0].startswith("run.json: not valid JSON")
    assert summary.cases[0].aggregate["throughput_raw"].n == 3       # from the tree alone
    (run / "run.json").unlink()
    summary = summarize(run)
    assert summary.source == "flagperf"
    assert summary.problems == ("run.json missing (read as a FlagPerf result directory)",)
    assert summary.cases[0].chip == "A100"                           # from the dir name


def test_case_dir_not_in_run_json_and_listed_case_without_dir(run):
    meta = json.loads((run / "run.json").read_text())
    meta["cases"]["ghost-pytorch_2.13-A100-1x1"] = {"key": "ghost:pytorch_2.13:A100:1:1:1",
                                                   "status": "failed", "rounds": []}
    meta["cases"][CASE + "-renamed"] = meta["cases"].pop(CASE)
    (run / "run.json").write_text(json.dumps(meta))
    summary = summarize(run)
    assert f"{CASE}/: case dir not listed in run.json" in summary.problems
    assert "ghost-pytorch_2.13-A100-1x1/: case listed in run.json has no round dir on disk" \
        in summary.problems
    on_disk = next(c for c in summary.cases if c.dir_name == CASE)
    assert on_disk.aggregate["throughput_raw"].n == 3


def test_monitor_problems_are_capped_per_file_but_counted(run):
    path = node(run, 1) / "mem_monitor.log"
    path.write_text(path.read_text() + "garbage\n" * 50)
    problems = summarize(run).cases[0].rounds[0].problems
    mem = [p for p in problems if "mem_monitor.log" in p]
    assert len(mem) == 21 and mem[-1].endswith("mem_monitor.log: 30 more problems")
