"""MLPerf logging on real runs: resnet50 and bert (PyTorch) train their tiny CI presets to
target as one rank, and ``python -m mlperf_logging.compliance_checker`` (mlperf-logging from
PyPI, requirements-test.txt) accepts the rank log as the case wrote it, under the newest
training ruleset with rules for the benchmark (chipperf_runtime.mllog.RULESETS), in the open
division (docs/results.md "MLPerf logs").

Needs torch, scikit-learn, Pillow, numpy and transformers on the host; the data dirs are
made by the cases' own preparers, the vendor config is each case's smallest cpu one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from caserun import Case, check_converged, perflog_events

from chipperf_runtime import mllog

pytest.importorskip("mlperf_logging.compliance_checker")

RESNET50 = Case("resnet50", "pytorch")
BERT = Case("bert", "pytorch")


@pytest.fixture(scope="module")
def digits(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("digits")
    subprocess.run([sys.executable, str(RESNET50.dir / "prepare_digits.py"), str(out)],
                   check=True, timeout=300)
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bert_ci")
    subprocess.run([sys.executable, str(BERT.dir / "prepare_data.py"), "--output", str(out)],
                   check=True, timeout=600)
    return out


def converged_rank_log(case: Case, data_dir: Path, out: Path) -> Path:
    """One rank of the case's CI preset to its target; its stdout + stderr as rankexec keeps
    them (rank0.out.log)."""
    result = case.run_config(data_dir, "--output_dir", str(out), timeout=1200)
    assert result.returncode == 0, result.stderr[-4000:]
    check_converged(perflog_events(result.stdout))
    log = out / "rank0.out.log"
    log.write_text(result.stdout + result.stderr)
    return log


def compliance_check(log: Path, benchmark: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mlperf_logging.compliance_checker", "--usage", "training",
         "--ruleset", mllog.RULESETS[benchmark], "--log_output", str(log.parent / "checker.log"),
         str(log)], capture_output=True, text=True, timeout=300)


def mllog_keys(log: Path) -> list[str]:
    return [json.loads(line[line.index(mllog.MARKER) + len(mllog.MARKER):])["key"]
            for line in log.read_text().splitlines() if mllog.MARKER in line]


@pytest.mark.parametrize("case,benchmark,data", [(RESNET50, "resnet", "digits"),
                                                 (BERT, "bert", "corpus")],
                         ids=["resnet50", "bert"])
def test_the_mlperf_checker_accepts_a_converged_runs_log(
        case: Case, benchmark: str, data: str, tmp_path: Path,
        request: pytest.FixtureRequest) -> None:
    log = converged_rank_log(case, request.getfixturevalue(data), tmp_path)
    checked = compliance_check(log, benchmark)
    print(checked.stdout + checked.stderr)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS" in checked.stdout + checked.stderr
    keys = mllog_keys(log)
    assert keys.count("run_start") == keys.count("run_stop") == 1
    assert keys.count("eval_accuracy") == keys.count("eval_stop") >= 1
