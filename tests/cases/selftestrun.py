"""`chipperf selftest --vendor cpu` run as a user runs it, for test_selftest.py and
test_selftest_budget.py: its process, its selftest.json, the exit status its verdicts call for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

VERDICTS = ("ok", "suspect (harness or load)", "suspect (rounds disagree)", "low", "not run", "failed",
            "unsupported")


def selftest(tmp_path: Path, budget: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run([sys.executable, "-m", "chipperf.cli", "selftest", "--vendor", "cpu",
                           "--budget", str(budget), "--result-root", str(tmp_path / "result"),
                           "--data-root", str(tmp_path / "data")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=budget + 120)


def record_of(tmp_path: Path) -> dict:
    (root,) = (tmp_path / "result").glob("selftest*")
    return dict(json.loads((root / "selftest.json").read_text()))


def expected_status(rows: list[dict]) -> int:
    verdicts = [r["verdict"] for r in rows]
    assert all(v.startswith(VERDICTS) for v in verdicts), verdicts
    if any(v.startswith(("failed", "suspect")) for v in verdicts):
        return 1
    return 3 if any(v.startswith("not run") for v in verdicts) else 0
