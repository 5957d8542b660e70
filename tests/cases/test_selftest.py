"""`chipperf selftest --vendor cpu --budget 300`: every step through the engine in in-container
mode on this host, one verdict table, run dirs that `chipperf check` accepts; a budget that
holds only the device facts reports every step as not run, and exits 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def selftest(tmp_path: Path, budget: int) -> tuple[subprocess.CompletedProcess[str], dict]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run([sys.executable, "-m", "chipperf.cli", "selftest", "--vendor", "cpu",
                           "--budget", str(budget), "--result-root", str(tmp_path / "result"),
                           "--data-root", str(tmp_path / "data")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=budget + 120)
    (root,) = (tmp_path / "result").glob("selftest*")
    return proc, json.loads((root / "selftest.json").read_text())


def test_every_step_runs_and_each_run_dir_passes_check(tmp_path: Path) -> None:
    proc, record = selftest(tmp_path, 300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert record["vendor"] == "cpu" and record["took_s"] <= 300
    assert record["device"]["device"] == "cpu" and record["device"]["threads"] >= 1
    rows = {(r["step"], r["figure"]): r for r in record["rows"]}
    for spec in ("computation-FP32", "computation-BF16", "main_memory-bandwidth"):
        row = rows[("base", spec)]
        assert row["verdict"] == "ok" and row["value"] > 0 and row["reference"] > 0
        assert row["ratio"] == pytest.approx(row["value"] / row["reference"], rel=1e-9)
    assert rows[("training", "resnet50 throughput (12 timed steps)")]["value"] > 0
    training = json.loads((Path(record["runs"]["training"]) / "summary.json").read_text())
    assert training["cases"][0]["run_mode"].startswith("performance")
    assert rows[("inference", "resnet50 whole throughput, eager")]["unit"] == "items/s"
    assert rows[("inference", "resnet50 core throughput, eager")]["value"] > 0
    serving = [figure for step, figure in rows if step == "serving"]
    assert all(f.startswith("llama3_8b (reduced preset: ") for f in serving), serving
    assert any(step == "serving" and "TTFT" in figure for step, figure in rows)
    assert set(record["runs"]) == {"base", "training", "inference", "serving"}
    for run_dir in record["runs"].values():
        done = subprocess.run([sys.executable, "-m", "chipperf.cli", "check", run_dir],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    assert "verdict" in proc.stdout and "computation-FP32" in proc.stdout


def test_a_budget_for_the_facts_only_reports_each_step_not_run(tmp_path: Path) -> None:
    proc, record = selftest(tmp_path, 25)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert [r["step"] for r in record["rows"]] == ["base", "training", "inference", "serving"]
    assert all(r["verdict"].startswith("not run: ") for r in record["rows"])
    assert record["runs"] == {} and record["device"]["device"] == "cpu"
