"""`chipperf selftest --vendor cpu` under budgets that cannot hold every step: one that holds
the first step only is incomplete (exit 3, or 1 where a step failed or is suspect) with the
later steps "not run"; one too small for any step is refused with one message (exit 2).

Nothing here depends on the host being idle (a busy host's figures are "suspect" or "failed",
which the exit status follows), so this file runs in the cases tier beside other files;
test_selftest.py, whose verdicts judge the load, runs alone (.ci/run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from selftestrun import expected_status, record_of, selftest


def test_a_budget_for_the_first_step_only_is_incomplete(tmp_path: Path) -> None:
    proc = selftest(tmp_path, 65)
    record = record_of(tmp_path)
    said = proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.returncode == record["exit_status"] == expected_status(record["rows"]), said
    verdicts = {(r["step"], r["figure"]): r["verdict"] for r in record["rows"]}
    assert all(verdicts[(s, s)].startswith("not run: ") for s in ("training", "inference"))
    if not any(v.startswith(("failed", "suspect")) for v in verdicts.values()):
        assert proc.returncode == 3, said


@pytest.mark.parametrize("budget", [5, 25])
def test_a_budget_too_small_for_one_step_is_one_message(tmp_path: Path, budget: int) -> None:
    proc = selftest(tmp_path, budget)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"--budget {budget}: too small for one step" in proc.stderr
    assert not (tmp_path / "result").exists()
