"""`chipperf selftest --vendor cpu`: every step through the engine in in-container mode on this
host, on data it makes itself, one verdict table, run dirs that `chipperf check` accepts; the
exit status follows the verdict column (0 all ran, none failed or suspect; 1 one failed or is
suspect; 3 a step the budget could not hold).

This file runs alone in CI (.ci/run, after the cases tier's two workers): its verdicts judge
the figures against a bare loop and the host's load, and another worker beside it would be
that load. The budget's refusals and an incomplete run, whose checks hold under any load, are
in test_selftest_budget.py, in the cases tier proper."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from selftestrun import expected_status, record_of, selftest


def test_every_step_runs_on_its_own_data_and_each_run_dir_passes_check(tmp_path: Path) -> None:
    proc = selftest(tmp_path, 300)
    record = record_of(tmp_path)
    said = proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.returncode == record["exit_status"] == expected_status(record["rows"]), said
    missed = [r for r in record["rows"] if r["verdict"].startswith(("failed", "not run"))]
    if missed and any(load["busy"] for load in record["host_load"].values()):
        # a host busy with other work (its load recorded, warned about) can push a step past
        # its round deadline or the budget: then the selftest says so, and that is all to check
        assert all("round deadline" in r["verdict"] or "of the budget left" in r["verdict"]
                   for r in missed), said
        assert "warning: the host is busy before" in proc.stdout
        pytest.skip(f"host busy (loads {record['host_load']}): {[r['verdict'] for r in missed]}")
    assert proc.returncode in (0, 1), said          # every step ran: complete
    assert not missed, said
    assert record["vendor"] == "cpu" and record["took_s"] <= 300
    assert record["device"]["device"] == "cpu" and record["device"]["threads"] >= 1
    assert (tmp_path / "data" / "images" / "dataset.json").is_file()
    assert (tmp_path / "data" / "llm-prompts" / "tokenizer.json").is_file()
    assert set(record["host_load"]) == {"base", "training", "inference", "serving"}
    assert all(load["cores"] >= 1 and load["load_1m"] >= 0 for load in record["host_load"].values())
    rows = {(r["step"], r["figure"]): r for r in record["rows"]}
    for spec in ("computation-FP32", "computation-BF16", "main_memory-bandwidth"):
        row = rows[("base", spec)]
        assert row["value"] > 0 and row["reference"] > 0 and row["rounds"].split()[0] != "0"
        low, high = 0.9, 1.1
        inside = low <= row["ratio"] <= high
        steady = row["spread"] is None or row["spread"] <= 0.2
        assert row["verdict"] == "ok" if inside and steady else row["verdict"].startswith(
            "suspect (harness or load)" if not inside else "suspect (rounds disagree)")
    training = rows[("training", "resnet50 throughput (12 timed steps)")]
    assert training["value"] > 0 and training["rounds"].endswith(("of 3", "(budget)"))
    counted = int(training["rounds"].split()[0])
    assert (training["spread"] is None) == (counted == 1)
    summary = json.loads((Path(record["runs"]["training"]) / "summary.json").read_text())
    assert summary["cases"][0]["run_mode"].startswith("performance")
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
    assert f"exit {proc.returncode} (" in proc.stdout
