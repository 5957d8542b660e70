"""The sweep's one load-generator process (``generator.LoadGenerator`` driving ``benchserve
--serve-points``) as a real child process, with a stand-in for vLLM's bench (this tier has no
vLLM; the e2e test runs the real one): several points in one process, each with its own log;
a point that hangs past its timeout kills the generator, fails with its log, and the next
point runs in a fresh one; a generator that exits mid-point, or cannot start, says so with
its log."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from chipperf_runtime.inference.llm.served.generator import GeneratorFailed, LoadGenerator, generator_argv

# a generator whose "bench" is this stand-in: "ok" prints its pid, "hang" sleeps, "exit"
# ends the process, "raise" fails the point; its import sleeps IMPORT_S
STAND_IN = """
import os, sys, time
from chipperf_runtime.inference.llm.served import benchserve

def bench(args):
    print("point", args[0], "pid", os.getpid(), flush=True)
    if args[0] == "hang":
        time.sleep(60)
    if args[0] == "exit":
        os._exit(3)
    if args[0] == "raise":
        raise ConnectionError("server gone")

def imported():
    print("importing the stand-in", flush=True)
    time.sleep(float(sys.argv[1]))
    return bench

benchserve.serve_main(imported)
"""


def stand_in(tmp_path: Path, import_s: float = 0.0) -> list[str]:
    return [sys.executable, "-c", STAND_IN, str(import_s)]


def pid_in(log: Path) -> int:
    return int(log.read_text().split("pid ")[1].split()[0])


def test_every_point_runs_in_one_process_with_its_own_log(tmp_path: Path) -> None:
    with LoadGenerator(stand_in(tmp_path, 0.3), tmp_path / "loadgen.log", 60) as generator:
        outcomes = [generator.run_point([name], tmp_path / f"{name}.log", 30)
                    for name in ("ok", "raise", "ok2")]
        assert generator.process is not None
        pid = generator.process.pid
    assert [o.exit_code for o in outcomes] == [0, 1, 0]
    assert outcomes[1].error == "ConnectionError: server gone"
    assert pid_in(tmp_path / "ok.log") == pid_in(tmp_path / "ok2.log") == pid
    assert "Traceback" in (tmp_path / "raise.log").read_text()      # the point's own log
    assert "importing the stand-in" in (tmp_path / "loadgen.log").read_text()
    (start,) = generator.timings["starts"]
    assert start["import_s"] >= 0.3 and start["ready_s"] >= start["import_s"]
    assert start["exit_code"] == 0 and "killed" not in start   # ended by closing its input


def test_a_hung_point_is_killed_and_the_next_point_starts_a_fresh_generator(
        tmp_path: Path) -> None:
    with LoadGenerator(stand_in(tmp_path), tmp_path / "loadgen.log", 60) as generator:
        generator.run_point(["ok"], tmp_path / "ok.log", 30)
        with pytest.raises(GeneratorFailed, match=r"(?s)took longer than 1 s to run the point "
                                                  r"\(raise serve_point_timeout_s .*\); it was "
                                                  r"killed .*hang.log ends:\npoint hang pid") as hung:
            generator.run_point(["hang"], tmp_path / "hang.log", 1)
        assert hung.value.start_failed is False
        assert generator.run_point(["ok2"], tmp_path / "ok2.log", 30).exit_code == 0
    assert pid_in(tmp_path / "hang.log") == pid_in(tmp_path / "ok.log")
    assert pid_in(tmp_path / "ok2.log") != pid_in(tmp_path / "hang.log")
    first, second = generator.timings["starts"]
    assert first["killed"].startswith("took longer than 1 s") and first["exit_code"] == -9
    assert second["why"] == "the previous generator was stopped"
    with pytest.raises(ProcessLookupError):   # the hung one's whole group is gone
        os.kill(pid_in(tmp_path / "hang.log"), 0)


def test_a_generator_that_exits_mid_point_fails_that_point_only(tmp_path: Path) -> None:
    with LoadGenerator(stand_in(tmp_path), tmp_path / "loadgen.log", 60) as generator:
        with pytest.raises(GeneratorFailed, match=r"(?s)exited \(code 3\) during the point; "
                                                  r".*exit.log ends:\npoint exit pid"):
            generator.run_point(["exit"], tmp_path / "exit.log", 30)
        assert generator.run_point(["ok"], tmp_path / "ok.log", 30).exit_code == 0
    assert len(generator.timings["starts"]) == 2


def test_a_generator_that_cannot_start_says_why(tmp_path: Path) -> None:
    no_vllm = [sys.executable, "-c", "from chipperf_runtime.inference.llm.served import "
               "benchserve; benchserve.serve_main(lambda: __import__('vllm_absent'))"]
    with LoadGenerator(no_vllm, tmp_path / "loadgen.log", 60) as generator:
        with pytest.raises(GeneratorFailed, match=r"(?s)exited \(code 1\) before it was ready; "
                                                  r".*loadgen.log ends:\n.*No module named "
                                                  r"'vllm_absent'") as failed:
            generator.run_point(["ok"], tmp_path / "ok.log", 30)
    assert failed.value.start_failed is True


def test_a_generator_slower_to_start_than_its_timeout_is_killed(tmp_path: Path) -> None:
    with LoadGenerator(stand_in(tmp_path, 30), tmp_path / "loadgen.log", 1) as generator:
        with pytest.raises(GeneratorFailed, match=r"(?s)took longer than 1 s to import vLLM "
                                                  r"and start \(raise serve_ready_timeout_s\).*"
                                                  r"importing the stand-in") as slow:
            generator.run_point(["ok"], tmp_path / "ok.log", 30)
    assert slow.value.start_failed is True


def test_the_real_generator_command_is_benchserve_serving_points() -> None:
    assert generator_argv("/py") == ["/py", "-m",
                                     "chipperf_runtime.inference.llm.served.benchserve",
                                     "--serve-points"]
