"""What a new user sees at the end of a run and how they start one: the headline table as
`chipperf report` prints it, the results path from where they stand, and entry scripts that
find the project's .venv when started with the system's python3."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from synthetic_results import SynthCase, SynthRound, write_run

from chipperf import cli
from chipperf.results.read.collect import collect
from chipperf.results.render.console import console

REPO = Path(__file__).resolve().parents[2]


def test_final_screen_is_the_report_table_then_the_path_from_the_cwd(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ok = SynthCase(vendor="cpu", chip="xeon", nnodes=1, nproc=1, rounds=(SynthRound(),))
    bad = SynthCase(model="bert", vendor="cpu", chip="xeon", nnodes=1, nproc=1,
                    rounds=(SynthRound(status="failed", finished=False),))
    run_dir = write_run(tmp_path / "result", (ok, bad))
    monkeypatch.chdir(tmp_path)
    screen = cli.final_screen(run_dir, {ok.key: ("succeeded", ""),
                                        bad.key: ("failed", "round 1: node 0 exited 1")})
    table = console(collect(run_dir).summary)
    assert table.strip() in screen  # the same table `chipperf report` prints
    for column in ("throughput", "metric (target)", "MFU", "energy (J)", "status"):
        assert column in table
    lines = screen.strip().splitlines()
    assert f"failed: {bad.key}: round 1: node 0 exited 1" in lines
    assert not any(line.startswith("succeeded:") for line in lines)
    assert lines[-1].startswith("Results: result/run20231114221320/ ")
    assert "chipperf report result/run20231114221320" in lines[-1]


def test_shown_path_is_relative_under_the_cwd_else_absolute(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "repo" / "result" / "run1").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "repo")
    assert cli.shown_path(Path("result/run1")) == "result/run1"
    assert cli.shown_path(tmp_path / "repo" / "result" / "run1") == "result/run1"
    monkeypatch.chdir(tmp_path / "repo" / "result" / "run1")
    assert cli.shown_path(tmp_path / "repo" / "result") == str(tmp_path / "repo" / "result")


def _entry(repo: Path, venv: bool) -> subprocess.CompletedProcess[str]:
    """Run an entry script's first lines with a python that lacks a requirement."""
    if venv:
        python = repo / ".venv" / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.write_text('#!/bin/sh\necho "continued in .venv: $*"\n')
        python.chmod(0o755)
    code = ("import sys; from pathlib import Path; import chipperf.entrypython as e; "
            "e.REQUIREMENTS = {'no_such_module_for_this_test': 'nosuchpkg'}; "
            "sys.argv = ['run_benchmarks/run.py', '--debug']; "
            f"e.python_with_requirements(Path({str(repo)!r}))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)


def test_entry_script_continues_in_the_repo_venv_when_this_python_lacks_requirements(
        tmp_path: Path) -> None:
    proc = _entry(tmp_path, venv=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "continued in .venv: run_benchmarks/run.py --debug\n"


def test_entry_script_without_venv_says_what_to_do(tmp_path: Path) -> None:
    proc = _entry(tmp_path, venv=False)
    assert proc.returncode == 2
    assert "lacks chipperf's requirements (nosuchpkg)" in proc.stderr
    assert "./scripts/quickstart.sh" in proc.stderr and proc.stdout == ""


def test_requirements_present_means_no_reexec() -> None:
    from chipperf.entrypython import missing_requirements, python_with_requirements

    assert missing_requirements() == []
    python_with_requirements(Path("/nonexistent"))  # returns: nothing to do


def test_final_screen_says_a_smoke_test_is_one(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    smoke = SynthCase(vendor="cpu", chip="xeon", nnodes=1, nproc=1, rounds=(SynthRound(),),
                      smoke_test="8x8 digits at 32x32 check the harness only")
    run_dir = write_run(tmp_path / "result", (smoke,))
    monkeypatch.chdir(tmp_path)
    screen = cli.final_screen(run_dir, {smoke.key: ("succeeded", "")})
    assert (f"{smoke.key}: smoke test, not a performance figure: 8x8 digits at 32x32 check the "
            "harness only") in screen.splitlines()
    assert collect(run_dir).summary.cases[0].smoke_test.startswith("8x8 digits")
